#!/usr/bin/env python3
"""No production source file of the project runs longer than a limit.

Counts the lines of every production source file (*.cc, *.h, *.js, *.mjs,
*.py, *.comp, *.glsl) under the given folders and reports those longer
than MAX lines. Exits 1 when there is one.

Not counted: tests (*_test.cc, *_test.py, anything under a testing/ or
tests/ folder), generated or vendored files (client/web/dist,
client/web/node_modules, client/web/gen, build/) and data (*.json).

usage: file_length.py MAX ROOT FOLDER...
"""
import os
import sys

SOURCES = (".cc", ".h", ".js", ".mjs", ".py", ".comp", ".glsl")
TESTS = ("_test.cc", "_test.py")
TEST_FOLDERS = {"testing", "tests"}
# Generated or vendored, relative to ROOT.
SKIPPED = ("client/web/dist", "client/web/node_modules", "client/web/gen",
           "build")


def counted(relpath):
    """Whether the file at relpath (relative to ROOT, / separated) counts."""
    parts = relpath.split("/")
    name = parts[-1]
    if not name.endswith(SOURCES) or name.endswith(TESTS):
        return False
    if TEST_FOLDERS & set(parts[:-1]):
        return False
    return not any(relpath == s or relpath.startswith(s + "/")
                   for s in SKIPPED)


def main(argv):
    limit, root, folders = int(argv[1]), argv[2], argv[3:]
    checked, long = 0, []
    for folder in folders:
        for dirpath, dirnames, files in os.walk(os.path.join(root, folder)):
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            # Do not descend into what is never counted (node_modules...).
            dirnames[:] = sorted(
                d for d in dirnames
                if d not in TEST_FOLDERS and not any(
                    f"{rel}/{d}" == s for s in SKIPPED))
            for name in sorted(files):
                path = f"{rel}/{name}"
                if not counted(path):
                    continue
                checked += 1
                with open(os.path.join(dirpath, name), "rb") as f:
                    lines = len(f.read().splitlines())
                if lines > limit:
                    long.append((lines, path))
    for lines, path in sorted(long, key=lambda x: (-x[0], x[1])):
        print(f"{path}: {lines} lines")
    if long:
        print(f"{len(long)} files over {limit} lines")
        return 1
    print(f"ok: no production file over {limit} lines "
          f"(checked {checked} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

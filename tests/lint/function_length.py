#!/usr/bin/env python3
"""No function of the project's code runs longer than a limit.

Scans the C++ sources of the given folders (tests aside: *_test.cc), finds
every function body defined at namespace or class scope (a block whose
declaration has a parameter list and no `=`), and reports those longer
than LIMIT lines, signature included. Exits 1 when there is one.

With --only REGEX, only functions whose declaration matches REGEX count
(the RPC edge's handlers: --only 'WebnnmService::' with a limit of 40).

usage: function_length.py [--only REGEX] LIMIT ROOT FOLDER...
"""
import os
import re
import sys


def strip(text):
    """The text with comments, strings and character literals blanked (line
    breaks kept, so line numbers stay)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = ")" + m.group(1) + '"'
            j = text.find(end, i)
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


CONTAINER = re.compile(
    r"^\s*(template\s*<.*>\s*)?(namespace|class|struct|enum|union|extern)\b",
    re.S)


def Outside(declaration):
    """The declaration's characters outside parentheses and angle-free of
    what they hold: where an `=` means an initializer, not a function."""
    out, depth = [], 0
    for c in declaration:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            out.append(c)
    # operator= and friends are functions.
    return re.sub(r"operator\s*\S+", "", "".join(out))


def functions(text):
    """(first line, last line, declaration) of each function body."""
    text = strip(text)
    # Preprocessor lines are not code of a scope.
    text = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), text,
                  flags=re.M)
    found = []
    stack = []  # for each open brace: True when it is a container scope
    statement_start = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        in_code_scope = any(not container for container in stack)
        if c == "{":
            declaration = text[statement_start:i]
            if in_code_scope:
                stack.append(False)
            elif CONTAINER.match(declaration):
                stack.append(True)
            else:
                if "(" in declaration and "=" not in Outside(declaration):
                    # A function body: find its end.
                    depth, j = 0, i
                    while j < n:
                        if text[j] == "{":
                            depth += 1
                        elif text[j] == "}":
                            depth -= 1
                            if depth == 0:
                                break
                        j += 1
                    start = statement_start + len(declaration) - len(
                        declaration.lstrip())
                    found.append((text.count("\n", 0, start) + 1,
                                  text.count("\n", 0, j) + 1,
                                  " ".join(declaration.split())[:80]))
                    i = j + 1
                    statement_start = i
                    continue
                stack.append(False)  # an initializer's braces
            statement_start = i + 1
        elif c == "}":
            if stack:
                stack.pop()
            statement_start = i + 1
        elif c == ";" and not any(not s for s in stack):
            statement_start = i + 1
        elif c == ":" and not in_code_scope and re.search(
                r"\b(public|private|protected)\s*$", text[statement_start:i]):
            statement_start = i + 1
        i += 1
    return found


def main(argv):
    only = None
    if len(argv) > 2 and argv[1] == "--only":
        only = re.compile(argv[2])
        argv = argv[:1] + argv[3:]
    limit, root, folders = int(argv[1]), argv[2], argv[3:]
    long = []
    for folder in folders:
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith((".cc", ".h")) or name.endswith("_test.cc"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for first, last, what in functions(f.read()):
                        if only and not only.search(what):
                            continue
                        if last - first + 1 > limit:
                            long.append((last - first + 1,
                                         os.path.relpath(path, root), first,
                                         what))
    for lines, path, first, what in sorted(long, reverse=True):
        print(f"{path}:{first}: {lines} lines: {what}")
    print(f"{len(long)} functions over {limit} lines")
    return 1 if long else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

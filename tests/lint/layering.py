#!/usr/bin/env python3
"""Each folder of the project includes only the folders below it.

Reads the quoted includes (#include "...") of every .cc and .h under
engine/, backends/, server/, client/ and proto/ (tests beside the code
included) and checks each against RULES: the rule of the longest folder
prefix of the file applies, and a file may always include the headers of its
own folder. Exits 1 listing every include that breaks its rule.

Checked includes are those of the project (engine/, backends/, server/,
client/, proto/, tests/) and of the generated protos (webnnm/v1/,
inference/), which only the folders whose rule names them may include. Any
other quoted include (absl/, gtest/, a shader's .spv.inc...) is a third
party's or generated beside the file, and is not checked.

usage: layering.py ROOT
"""
import os
import re
import sys

FOLDERS = ("engine", "backends", "server", "client", "proto")
CHECKED = FOLDERS + ("tests", "webnnm/v1", "inference")

# The training library (engine/train and engine/expert read each other).
TRAIN = ["engine/base", "engine/ir", "engine/ops", "engine/lang",
         "engine/model", "engine/dag", "engine/check.h", "engine/autodiff",
         "engine/data", "engine/train", "engine/expert", "backends/backend.h",
         "webnnm/v1"]

# Folder (or file) prefix -> what files under it may include: a folder (all
# that is under it) or a file. The longest prefix of a file's path applies.
RULES = {
    # The engine, bottom up.
    "engine/base": ["engine/base"],
    "engine/ir": ["engine/base", "engine/ir"],
    "engine/ops": ["engine/base", "engine/ir", "engine/ops"],
    "engine/lang": ["engine/base", "engine/ir", "engine/lang"],
    "engine/model": ["engine/base", "engine/ir", "engine/lang",
                     "engine/model"],
    "engine/dag": ["engine/base", "engine/ir", "engine/ops", "engine/lang",
                   "engine/model", "engine/dag"],
    # Files directly in engine/ (check.h, check.cc).
    "engine": ["engine/base", "engine/ir", "engine/lang", "engine/model",
               "engine/dag", "engine/check.h"],
    "engine/autodiff": ["engine/base", "engine/ir", "engine/ops",
                        "engine/autodiff"],
    "engine/data": ["engine/base", "engine/ir", "engine/data"],
    "engine/train": TRAIN,
    "engine/expert": TRAIN,
    "engine/collectives": ["engine/base", "engine/train",
                           "engine/collectives"],
    # The way out: a trained model (the DAG, a snapshot) as an ONNX file.
    "engine/interop": TRAIN + ["engine/interop"],
    # The API sets threads through the CPU backend.
    "engine/api": ["engine", "backends"],
    "engine/testing": ["engine"],
    # The backends: each one knows the IR and the common code, not the other.
    "backends": ["backends", "engine/base", "engine/ir"],
    "backends/common": ["engine/base", "engine/ir", "backends/common"],
    "backends/cpu": ["engine/base", "engine/ir", "backends/common",
                     "backends/backend.h", "backends/cpu"],
    "backends/vulkan": ["engine/base", "engine/ir", "backends/common",
                        "backends/backend.h", "backends/vulkan"],
    # The wire formats shared by the daemon and the client; the engine's
    # types as messages above both (proto/convert).
    "proto/wire": ["engine/base", "proto/wire", "webnnm/v1"],
    "proto/convert": ["engine/base", "engine/train", "proto/convert",
                      "proto/wire", "webnnm/v1"],
    # The daemon: core below store and rpc; main.cc and config.* on top.
    "server": ["server", "engine", "backends", "proto", "webnnm/v1",
               "inference"],
    "server/core": ["engine", "backends/backend.h", "server/core",
                    "proto/wire/sha256.h", "proto/wire/dataset_files.h",
                    "webnnm/v1"],
    # Core types as messages, for the edge and the stores alike.
    "server/convert": ["server/convert", "server/core", "engine", "proto",
                       "webnnm/v1"],
    "server/store": ["server/store", "server/core", "server/convert",
                     "engine", "proto/wire", "proto/convert", "webnnm/v1"],
    "server/rpc": ["server", "engine", "proto", "backends/backend.h",
                   "webnnm/v1", "inference"],
    # The client: the engine's API and what it reports, never a backend.
    "client": ["client", "engine/api", "engine/base", "engine/check.h",
               "engine/collectives", "engine/dag", "engine/data",
               "engine/expert", "engine/interop", "engine/train", "proto/wire",
               "proto/convert",
               "webnnm/v1",
               "inference"],
}

# What tests (*_test.cc, testing/ folders) may include besides their
# folder's rule, by top folder; any testing/ helper is allowed too.
TEST_EXTRA = {
    "engine": ["engine", "backends", "tests"],
    "backends": ["engine", "backends", "tests"],
    "server": ["tests"],
    "client": ["tests"],
    "proto": ["tests"],
}

# Generated or vendored folders that are not the project's code.
SKIPPED = {"node_modules", "dist", "gen"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def under(path, prefix):
    return path == prefix or path.startswith(prefix + "/")


def rule_of(path):
    """The key of RULES that applies to the file at path."""
    keys = [k for k in RULES if under(path, k)]
    return max(keys, key=len) if keys else None


def is_test(path):
    parts = path.split("/")
    return parts[-1].endswith("_test.cc") or "testing" in parts[:-1]


def allowed(path, include):
    """(ok, key, its rule, what a test may include besides) for one include
    of the file at path."""
    if not any(under(include, c) for c in CHECKED):
        return True, None, [], []
    if os.path.dirname(include) == os.path.dirname(path):
        return True, None, [], []
    key = rule_of(path)
    rule = RULES.get(key, [])
    extra = []
    if is_test(path):
        extra = TEST_EXTRA.get(path.split("/")[0], [])
        if "testing" in include.split("/")[:-1]:
            return True, key, rule, extra
    return any(under(include, a) for a in rule + extra), key, rule, extra


def shown(rule):
    """The allowed prefixes as a reader sees them: folders end with /."""
    return ", ".join(a if os.path.splitext(a)[1] else a + "/" for a in rule)


def describe(key):
    if key is None:
        return "(no rule)"
    if key in FOLDERS:
        # A top folder's rule: its own files, or all of it (client).
        if any(under(k, key) and k != key for k in RULES):
            return f"a file directly in {key}/"
    return f"{key}/"


def main(argv):
    root = argv[1]
    bad = []
    checked = 0
    for folder in FOLDERS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, folder)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED)
            rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
            for name in sorted(files):
                if not name.endswith((".cc", ".h")):
                    continue
                path = f"{rel}/{name}"
                checked += 1
                with open(os.path.join(dirpath, name), encoding="utf-8",
                          errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        ok, key, rule, extra = allowed(path, m.group(1))
                        if ok:
                            continue
                        test = (f" (a test: also {shown(extra)}, testing/ "
                                "helpers)") if is_test(path) else ""
                        bad.append(
                            f"{path}:{number}: includes {m.group(1)}, but "
                            f"{describe(key)} may include only "
                            f"{shown(rule)} and its own folder{test} "
                            f"[rule \"{key}\"]")
    for line in sorted(bad, key=lambda b: (b.split(":")[0],
                                           int(b.split(":")[1]))):
        print(line)
    if bad:
        print(f"{len(bad)} includes break the layering "
              "(rules: RULES in tests/lint/layering.py)")
        return 1
    print(f"ok: every include follows the layering (checked {checked} "
          "files)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Writes each case of the conformance vector files in WPT_DIR to its own
compact JSON file in OUT_DIR (the seeds of backend_fuzzer), skipping cases
longer than MAX_LEN bytes.

usage: split_vectors.py WPT_DIR OUT_DIR MAX_LEN
"""
import glob
import json
import os
import sys


def main():
    wpt_dir, out_dir, max_len = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    written = 0
    for path in sorted(glob.glob(os.path.join(wpt_dir, "*.json"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            tests = json.load(f)["tests"]
        for i, test in enumerate(tests):
            text = json.dumps(test, separators=(",", ":"))
            if len(text) <= max_len:
                with open(os.path.join(out_dir, f"{stem}-{i}.json"), "w") as f:
                    f.write(text)
                written += 1
    print(f"split_vectors: {written} seeds in {out_dir}")


if __name__ == "__main__":
    main()

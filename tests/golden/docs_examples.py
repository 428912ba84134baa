#!/usr/bin/env python3
"""Every complete model in a doc checks, and trains a few epochs.

A complete model is a fenced code block of the doc that declares an input
and an output block. Each is written to a file and checked with the real
`webnnmctl -o json check`, which must succeed. A model with parameters then
trains for three epochs through `webnnmctl -o json train --local` on data
generated for it: an .npz with one array per input (the declared type and
feature shape; eight steps for a sequenced input) and per output (class ids
when the model's text ends the output in softmax or sigmoid — one a step for
a sequenced output —, else values of the output's shape), which must finish with a finite, positive loss. The examples'
numbers mean nothing; what is tested is that the doc's models are models.

usage: docs_examples.py WEBNNMCTL DOC.md
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

SAMPLES = 64
STEPS = 8


def complete_models(doc):
    """(line, text) of each fenced block that declares an input and output."""
    models, block, start = [], None, 0
    with open(doc, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("```"):
                if block is None:
                    block, start = [], number + 1
                else:
                    text = "".join(block)
                    if re.search(r"^\s*\w+:input\b", text, re.M) and re.search(
                        r"^\s*\w+:output\b", text, re.M
                    ):
                        models.append((start, text))
                    block = None
            elif block is not None:
                block.append(line)
    return models


def array_for(spec, rng, classes):
    shape = [SAMPLES]
    if spec.get("sequenced"):
        shape.append(STEPS)
    shape += spec["shape"]
    dtype = spec["dataType"]
    if classes:  # a class id a sample (or a step, for a sequenced output)
        units = spec["shape"][-1] if spec["shape"] else 1
        return rng.integers(0, max(units, 2), size=shape[:-1] or [SAMPLES]
                            ).astype(np.int64)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(np.float32)
    if dtype == "uint8":  # conditions and masks: 0 or 1
        return rng.integers(0, 2, size=shape).astype(np.uint8)
    return rng.integers(0, 4, size=shape).astype(np.dtype(dtype))


def dataset_for(check, text, path):
    rng = np.random.default_rng(7)
    arrays = {}
    input_names = {i["name"] for i in check["inputs"]}
    single = len(check["inputs"]) == 1 and len(check["outputs"]) == 1
    for spec in check["inputs"]:
        arrays["x" if single else spec["name"]] = array_for(spec, rng, False)
    for spec in check["outputs"]:
        classes = re.search(
            r"activation\s*=\s*(softmax|sigmoid)|\b(softmax|sigmoid)\(\)\s*;", text
        )
        name = "y" if single else spec["name"]
        if not single and name in input_names:
            name += "_target"
        arrays[name] = array_for(spec, rng, bool(classes))
    np.savez(path, **arrays)


def run(ctl, *args):
    proc = subprocess.run(
        [ctl, "-o", "json", *args], capture_output=True, text=True, timeout=300
    )
    try:
        return proc.returncode, json.loads(proc.stdout), proc.stderr
    except json.JSONDecodeError:
        return proc.returncode, None, proc.stdout + proc.stderr


def main():
    ctl, doc = sys.argv[1], sys.argv[2]
    models = complete_models(doc)
    if not models:
        print(f"{doc}: no complete model found", file=sys.stderr)
        return 1
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for line, text in models:
            where = f"{os.path.basename(doc)}:{line}"
            model = os.path.join(tmp, f"example{line}.wnm")
            with open(model, "w", encoding="utf-8") as f:
                f.write(text)
            rc, check, err = run(ctl, "check", model)
            if rc != 0 or not check or not check.get("ok"):
                print(f"FAIL {where}: check failed\n{err}{check}")
                failures += 1
                continue
            if check.get("parameterCount", 0) == 0:
                print(f"ok   {where}: checks (no parameters to train)")
                continue
            data = os.path.join(tmp, f"example{line}.npz")
            dataset_for(check, text, data)
            rc, result, err = run(
                ctl, "train", "--local", model, "--dataset", data,
                "--epochs", "3", "--batch-size", "16", "--threads", "1",
                "--seed", "1",
            )
            loss = None if not result else result.get("finalTrainLoss")
            epochs = 0 if not result else result.get("epochs", 0)
            # Exactly 0 on random targets means they were never fed (as
            # when an input named 'mask' shadowed the batch's row mask).
            finite = (isinstance(loss, (int, float)) and math.isfinite(loss)
                      and loss > 0)
            if rc != 0 or not finite or epochs < 1:
                print(f"FAIL {where}: training failed (rc {rc}, epochs "
                      f"{epochs}, final train loss {loss})\n{err}")
                failures += 1
                continue
            print(f"ok   {where}: checks and trains ({epochs} epochs, final "
                  f"train loss {loss:.4g})")
    print(f"{len(models)} complete models, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Golden training runs: every model under tests/golden/train trains.

Each NAME.wnm says how it trains and what it must reach in its header:

    # train: --dataset configs/datasets/iris.csv --epochs 5 --lr 0.01
    # expect: testAccuracy >= 0.8

(`--dataset` paths are relative to the source tree). The runner calls the
real `webnnmctl -o json train --local NAME.wnm … --threads 1`, checks each
expectation (a key of the JSON result, or outputs.NAME.KEY / testMetrics.
NAME.KEY, compared with >=, <= or ==) and compares the run's outline with
NAME.golden: each output's keys and metrics, and the decisions the expert
system made (their `what`, with the scouting seed that won, the range
test's rate and the early-stopping epoch as "#"). The `why` texts, the
epochs trained and the metrics' digits are left out, so a golden file
states what a run decides, not its floating-point noise.

usage: train_golden.py WEBNNMCTL SOURCE_DIR NAME.wnm [--update]
"""
import json
import os
import re
import shlex
import subprocess
import sys

EXPECT = re.compile(r"^\s*([\w.:]+)\s*(>=|<=|==)\s*(-?[\d.eE+-]+)\s*$")


def header(model, key):
    values = []
    with open(model, encoding="utf-8") as f:
        for line in f:
            m = re.match(rf"#\s*{key}:\s*(.*)$", line.strip())
            if m:
                values.append(m.group(1))
    return values


def lookup(result, path):
    value = result
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


# Decisions whose numbers follow the run's floating point (which scouting
# seed won, the range test's rate, the early-stopping epoch): the outline
# keeps their words and the numbers the run did not compute (seeds "of N",
# the optimizer), the computed one as "#".
ROUNDED = {
    re.compile(r"^start from scouting seed \d+"): "start from scouting seed #",
    re.compile(r"^lr [\d.e+-]+ for"): "lr # for",
    re.compile(r"^stop after epoch \d+"): "stop after epoch #",
}


def outline(result):
    lines = []
    for name, out in result["outputs"].items():
        lines.append(f"output {name}: {', '.join(out)}")
    for name, metrics in (result.get("testMetrics") or {}).items():
        lines.append(f"metrics {name}: {', '.join(metrics)}")
    for d in result["decisions"]:
        what = d["what"]
        for pattern, replacement in ROUNDED.items():
            what = pattern.sub(replacement, what)
        lines.append(f"decision: {what}")
    for w in result["warnings"]:
        lines.append(f"warning: {w.split(':')[0]}")
    return "\n".join(lines) + "\n"


def main():
    webnnmctl, source, model = sys.argv[1], sys.argv[2], sys.argv[3]
    update = "--update" in sys.argv[4:]
    flags = []
    for line in header(model, "train"):
        flags += shlex.split(line)
    for i, flag in enumerate(flags[:-1]):
        if flag == "--dataset":
            flags[i + 1] = os.path.join(source, flags[i + 1])
    proc = subprocess.run(
        [webnnmctl, "-o", "json", "train", "--local", model, "--threads", "1",
         *flags], capture_output=True, text=True, timeout=240)
    if proc.returncode != 0:
        print(f"train exited {proc.returncode}:\n{proc.stderr}")
        return 1
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    failed = False
    for text in header(model, "expect"):
        m = EXPECT.match(text)
        if not m:
            print(f"bad expectation '{text}'")
            return 1
        key, op, bound = m.group(1), m.group(2), float(m.group(3))
        value = lookup(result, key)
        ok = value is not None and {
            ">=": value >= bound, "<=": value <= bound,
            "==": value == bound}[op]
        print(f"{'ok' if ok else 'FAILED'}: {key} = {value} ({op} {bound})")
        failed |= not ok
    golden = model[:-len(".wnm")] + ".golden"
    got = outline(result)
    if update:
        with open(golden, "w", encoding="utf-8") as f:
            f.write(got)
        print(f"updated {golden}")
    else:
        try:
            with open(golden, encoding="utf-8") as f:
                want = f.read()
        except FileNotFoundError:
            want = ""
        if got != want:
            print(f"the run's outline differs from {golden}:\n"
                  f"--- want\n{want}--- got\n{got}")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

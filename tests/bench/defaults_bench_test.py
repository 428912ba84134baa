#!/usr/bin/python3
"""The contract of `webnnm-bench defaults` on its two quickest sets: one
JSON line per set and framework with the issue's fields, both sides run in
the same invocation, five seeds of scores, and defaults that train (iris
well above chance, diabetes R² above 0: accuracy bounds far below the
targets, which the benchmark reports and docs/training.md records; no
timing is asserted).

usage: defaults_bench_test.py WEBNNM_BENCH
"""
import json
import subprocess
import sys

KEYS = {"bench", "set", "framework", "metric", "mean", "scores", "seconds"}


def main():
    bench = sys.argv[1]
    run = subprocess.run([bench, "defaults", "--only", "iris,diabetes"],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    seen = {(l["set"], l["framework"]): l for l in lines}
    assert set(seen) == {("iris", "webnnm"), ("iris", "sklearn"),
                         ("diabetes", "webnnm"), ("diabetes", "sklearn")}, seen
    for (name, framework), l in seen.items():
        missing = KEYS - set(l)
        assert not missing, (name, framework, missing)
        assert l["bench"] == "defaults", l
        assert l["metric"] == ("accuracy" if name == "iris" else "r2"), l
        assert len(l["scores"]) == 5, l
        mean = sum(l["scores"]) / 5
        assert abs(l["mean"] - mean) < 1e-3, l
        assert l["seconds"] > 0, l
        if framework == "webnnm":
            assert len(l["epochs"]) == 5, l
    assert seen[("iris", "webnnm")]["mean"] >= 0.9, seen[("iris", "webnnm")]
    assert seen[("diabetes", "webnnm")]["mean"] > 0.2, seen
    # The run told what it does on standard error.
    print(run.stderr[-2000:])
    print("ok: 4 lines")


if __name__ == "__main__":
    main()

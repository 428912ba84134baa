#!/usr/bin/python3
"""The contract of `webnnm-bench defaults --suite` on two small sets of the
benchmark suite (one per half; made by scripts/make-suite-datasets into a
temporary folder): one JSON line per set and framework — ours, scikit-learn's
MLP and HistGradientBoosting, trained on the same rows — and a summary line
per half with the issue's fields. No score or time is asserted but that our
side trains (above chance).

usage: suite_bench_test.py WEBNNM_BENCH
"""
import json
import subprocess
import sys
import tempfile

KEYS = {"bench", "set", "framework", "metric", "mean", "scores", "seconds"}
SUMMARY = {"bench", "summary", "sets", "webnnm", "sklearn-mlp", "sklearn-hgb",
           "best-of-sklearn", "below-mlp", "met"}


def main():
    bench = sys.argv[1]
    data = tempfile.mkdtemp()
    run = subprocess.run([bench, "defaults", "--suite", "--suite-data", data,
                          "--only", "iris,zoo", "--seeds", "2"],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [json.loads(l) for l in run.stdout.splitlines() if l.strip()]
    sets = {(l["set"], l["framework"]): l for l in lines if "set" in l}
    assert set(sets) == {(s, f) for s in ("iris", "zoo")
                         for f in ("webnnm", "sklearn-mlp", "sklearn-hgb")}, sets
    for (name, framework), l in sets.items():
        assert KEYS <= set(l), (name, framework, l)
        assert l["metric"] == "accuracy", l
        assert len(l["scores"]) == 2, l
        if framework == "webnnm":
            assert l["half"] == ("fitting" if name == "iris" else "held-out")
            assert l["mean"] > 0.6, l
            assert any("hidden layer" in m for m in l["model"]), l
    summaries = {l["summary"]: l for l in lines if "summary" in l}
    assert set(summaries) == {"fitting", "held-out"}, summaries
    for half, s in summaries.items():
        assert SUMMARY <= set(s), s
        assert s["sets"] == 1, s
        best = max(sets[(("iris" if half == "fitting" else "zoo"),
                         "sklearn-mlp")]["mean"],
                   sets[(("iris" if half == "fitting" else "zoo"),
                         "sklearn-hgb")]["mean"])
        assert abs(s["best-of-sklearn"] - best) < 1e-3, (s, best)
    print(f"ok: {len(lines)} lines")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The contract of `webnnm-bench train` (its roofline and peak memory
fields) and `webnnm-bench infer`, on quick runs: the JSON lines each side
prints, the comparison lines, and the step's FLOPs worked out by hand —
iris 4-3-3 at batch 16: forward 16·2·(4·3 + 3·3) = 672, weight gradients
the same, the second layer's input gradient 16·2·3·3 = 288: 1632; the
784-128-80-40-10 MLP at batch 64: 2·64·114,192 forward, the same for the
weight gradients, 2·64·13,840 for the input gradients of layers 2-4:
31,004,672. No timing is asserted.

usage: train_infer_bench_test.py WEBNNM_BENCH
"""
import json
import os
import subprocess
import sys

FASHION = "/usr/share/datasets/fashion-mnist"


def run(bench, *args):
    proc = subprocess.run([bench, *args], capture_output=True, text=True,
                          timeout=240,
                          env={**os.environ, "OMP_NUM_THREADS": "1",
                               "OMP_WAIT_POLICY": "PASSIVE"})
    assert proc.returncode == 0, proc.stderr
    return [json.loads(l) for l in proc.stdout.splitlines() if l.strip()]


def check_ours(line, flops):
    assert line["framework"] == "webnnm", line
    assert line["flopsPerStep"] == flops, line
    assert line["stepsPerSecond"] > 0, line
    assert line["rooflineGflopsPerSecond"] > 0, line
    assert line["rooflineStepsPerSecond"] > 0, line
    fraction = line["stepsPerSecond"] / line["rooflineStepsPerSecond"]
    assert abs(line["rooflineFraction"] - fraction) < 1e-6 * fraction, line
    assert sum(op["count"] for op in line["heavyOps"]) >= 5, line
    assert line["peakRssBytes"] > 1 << 20, line


def main():
    bench = sys.argv[1]
    lines = run(bench, "train", "--only", "iris", "--iris-steps", "200")
    by = {(l.get("framework") or l.get("compare")): l for l in lines}
    assert set(by) == {"webnnm", "pytorch", "webnnm/pytorch"}, lines
    check_ours(by["webnnm"], 1632)
    assert by["pytorch"]["peakRssBytes"] > 1 << 20, by["pytorch"]
    compare = by["webnnm/pytorch"]
    for key in ("ratio", "rooflineFraction", "webnnmPeakRssBytes",
                "pytorchPeakRssBytes", "rssRatio"):
        assert key in compare, (key, compare)
    assert abs(compare["rssRatio"] - compare["webnnmPeakRssBytes"] /
               compare["pytorchPeakRssBytes"]) < 1e-9, compare

    if os.path.isdir(FASHION):
        lines = run(bench, "train", "--only", "mlp784", "--no-pytorch")
        assert len(lines) == 1, lines
        check_ours(lines[0], 31004672)
        # 4 forward matmuls, 4 weight gradients, 3 input gradients: 11.
        assert sum(op["count"] for op in lines[0]["heavyOps"]) == 11, lines
    else:
        print(f"no {FASHION}: the MLP's figures not checked")

    lines = run(bench, "infer", "--calls", "40")
    seen = {(l["model"], l["batch"], l.get("framework") or l["compare"])
            for l in lines}
    for model in ("iris", "mlp784", "cnn"):
        for batch in (1, 64):
            for side in ("webnnm", "pytorch", "webnnm/pytorch"):
                assert (model, batch, side) in seen, (model, batch, side)
    for l in lines:
        if "framework" in l:
            assert 0 < l["p50Microseconds"] <= l["p99Microseconds"], l
            assert l["calls"] == (40 if l["batch"] == 1 else 10), l
    print("ok")


if __name__ == "__main__":
    main()

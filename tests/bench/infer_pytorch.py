#!/usr/bin/python3
"""The PyTorch side of `webnnm-bench infer`: in-process inference of the
same models at the same batch sizes, timed the same way, as JSON lines.

  infer_pytorch.py [--calls N]

Models (one thread, float32, eval mode under torch.inference_mode(), the
softmax of our models' outputs included): iris (4-3-3), mlp784
(784-128-80-40-10) and cnn (configs/models/fashion-cnn.wnm), each at
batch 1 and 64, on random inputs. A call is `model(x)` with x already a
tensor; each call is timed alone. Each line: {"bench":"infer","model":...,
"batch":...,"framework":"pytorch","calls":...,"p50Microseconds":...,
"p99Microseconds":...,"samplesPerSecond":...}.
Run it with OMP_WAIT_POLICY=PASSIVE and OPENBLAS_CORETYPE=SkylakeX (the
benchmark does).
"""
import argparse
import json
import time

import torch

from train_pytorch import cnn, mlp

torch.set_num_threads(1)


def measure(model, x, calls):
    """(p50, p99) seconds of one call."""
    times = []
    with torch.inference_mode():
        for _ in range(min(100, calls)):
            model(x)
        for _ in range(calls):
            start = time.perf_counter_ns()
            model(x)
            times.append(time.perf_counter_ns() - start)
    times.sort()
    return times[len(times) // 2] / 1e9, times[len(times) * 99 // 100] / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    torch.manual_seed(1)
    models = [("iris", lambda: mlp([4, 3, 3]), 4),
              ("mlp784", lambda: mlp([784, 128, 80, 40, 10]), 784),
              ("cnn", cnn, 784)]
    for name, make, features in models:
        model = torch.nn.Sequential(make(), torch.nn.Softmax(dim=1)).eval()
        for batch in (1, 64):
            x = torch.rand(batch, features)
            calls = args.calls if batch == 1 else max(10, args.calls // 8)
            p50, p99 = measure(model, x, calls)
            print(json.dumps({"bench": "infer", "model": name,
                              "batch": batch, "framework": "pytorch",
                              "calls": calls,
                              "p50Microseconds": p50 * 1e6,
                              "p99Microseconds": p99 * 1e6,
                              "samplesPerSecond": batch / p50}),
                  flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The PyTorch side of `webnnm-bench train`: the same training workloads,
timed the same way, printed as JSON lines.

  train_pytorch.py [--fashion DIR] [--iris CSV] [--iris-steps N]
                   [--only mlp784|cnn|lstm|iris]

Workloads (one thread, float32, SGD with momentum as sgdm):
  - mlp784: the specification's basic-model 784-128-80-40-10 (relu, softmax
    with cross-entropy) on one epoch of Fashion-MNIST, batch 64;
  - cnn: configs/models/fashion-cnn.wnm (3x3 convolutions of 8 and 16
    channels, each with relu and 2x2 max pooling, then dense 10) on one
    epoch of Fashion-MNIST, batch 64;
  - lstm: configs/models/fashion-lstm.wnm (an LSTM of 64 over the 28 rows
    of 28 pixels, its last hidden state into dense 10) on one epoch of
    Fashion-MNIST, batch 64;
  - iris: the specification's test-model 4-3-3 on iris, batch 16, N steps.
Each line: {"bench":"train","workload":...,"framework":"pytorch",
"samplesPerSecond":...,"stepsPerSecond":...,"steps":...,
"peakRssBytes":...} — the process's peak resident memory so far (run one
workload a process, --only, for each workload's own peak; webnnm-bench
does).
Run it with OMP_WAIT_POLICY=PASSIVE and OPENBLAS_CORETYPE=SkylakeX (the
benchmark does).
"""
import argparse
import csv
import gzip
import json
import resource
import struct
import time

import torch

torch.set_num_threads(1)


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = struct.unpack(">" + "I" * rank, data[4:4 + 4 * rank])
    return dims, data[4 + 4 * rank:]


def fashion(directory):
    dims, pixels = read_idx(f"{directory}/train-images-idx3-ubyte.gz")
    _, labels = read_idx(f"{directory}/train-labels-idx1-ubyte.gz")
    x = torch.frombuffer(bytearray(pixels), dtype=torch.uint8)
    x = x.reshape(dims[0], dims[1] * dims[2]).float() / 255.0
    y = torch.frombuffer(bytearray(labels), dtype=torch.uint8).long()
    return x, y


def iris(path):
    with open(path) as f:
        rows = list(csv.reader(f))[1:]
    names = sorted({r[4] for r in rows})
    x = torch.tensor([[float(v) for v in r[:4]] for r in rows])
    y = torch.tensor([names.index(r[4]) for r in rows])
    return x, y


def mlp(sizes):
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def cnn():
    return torch.nn.Sequential(
        torch.nn.Unflatten(1, (1, 28, 28)),
        torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(8, 16, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(400, 10))


class Lstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(28, 64, batch_first=True)
        self.dense = torch.nn.Linear(64, 10)

    def forward(self, x):
        _, (h, _) = self.lstm(x.reshape(-1, 28, 28))
        return self.dense(h[-1])


def train(model, x, y, batch, steps, lr):
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                          weight_decay=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = x.shape[0]
    order = torch.randperm(n)
    # Warm up allocations and kernels before timing.
    for _ in range(3):
        idx = order[:batch]
        opt.zero_grad()
        loss_fn(model(x[idx]), y[idx]).backward()
        opt.step()
    start = time.perf_counter()
    done = 0
    for step in range(steps):
        begin = (step * batch) % n
        idx = order[begin:begin + batch]
        opt.zero_grad()
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        opt.step()
        done += idx.shape[0]
    seconds = time.perf_counter() - start
    return done / seconds, steps / seconds


def peak_rss():
    """The process's peak resident memory in bytes (Linux: ru_maxrss in
    KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fashion", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--iris", default="configs/datasets/iris.csv")
    parser.add_argument("--iris-steps", type=int, default=20000)
    parser.add_argument("--only", default="")
    args = parser.parse_args()
    torch.manual_seed(1)
    wanted = lambda name: not args.only or args.only == name
    models = [(name, model) for name, model in
              [("mlp784", lambda: mlp([784, 128, 80, 40, 10])),
               ("cnn", cnn), ("lstm", Lstm)] if wanted(name)]
    if models:
        x, y = fashion(args.fashion)
        steps = (x.shape[0] + 63) // 64
    for name, model in models:
        sps, stps = train(model(), x, y, 64, steps, 0.05)
        print(json.dumps({"bench": "train", "workload": name,
                          "framework": "pytorch", "samplesPerSecond": sps,
                          "stepsPerSecond": stps, "steps": steps,
                          "peakRssBytes": peak_rss()}),
              flush=True)
    if not wanted("iris"):
        return
    x, y = iris(args.iris)
    sps, stps = train(mlp([4, 3, 3]), x, y, 16, args.iris_steps, 0.05)
    print(json.dumps({"bench": "train", "workload": "iris",
                      "framework": "pytorch", "samplesPerSecond": sps,
                      "stepsPerSecond": stps, "steps": args.iris_steps,
                      "peakRssBytes": peak_rss()}),
          flush=True)


if __name__ == "__main__":
    main()

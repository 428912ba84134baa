#!/usr/bin/python3
"""Writes optimizer_vectors.json beside this script: torch.optim.Adam's and
AdamW's steps (Debian's python3-torch 1.13, float32 on the CPU, the
single-tensor path) for a few parameters, gradients and learning-rate
schedules, 100 steps each: what tests/train/optimizer_vectors_test.cc holds
our update graphs (engine/train/optimizer.h) to, within 1e-6.

Each case: the optimizer and its settings, a freeze multiplier lrm (the
parameter group's rate is lr·lrm, as our update scales it), the initial
parameter, and per step the learning rate, the gradient, and the parameter
and both moments after the step. Gradients are drawn from a torch.Generator
seeded from the case's name (CRC-32), so the file is deterministic.

    /usr/bin/python3 tests/train/vectors/make_optimizer_vectors.py
"""
import json
import math
import os
import zlib

import torch

STEPS = 100


def schedule(kind, lr, step):
    if kind == "constant":
        return lr
    # Linear warmup over 10 steps, then a cosine to 0 (as our schedule).
    if step < 10:
        return lr * (step + 1) / 10
    progress = (step - 10) / (STEPS - 10)
    return lr * 0.5 * (1 + math.cos(math.pi * progress))


def case(name, optimizer, shape, lr, betas=(0.9, 0.999), eps=1e-8,
         weight_decay=None, lrm=1.0, lr_schedule="constant", zero=False):
    gen = torch.Generator().manual_seed(zlib.crc32(name.encode()))
    w0 = torch.randn(shape, generator=gen, dtype=torch.float32)
    w = w0.clone().requires_grad_(True)
    kwargs = dict(lr=lr * lrm, betas=betas, eps=eps, foreach=False)
    if weight_decay is not None:
        kwargs["weight_decay"] = weight_decay
    cls = torch.optim.Adam if optimizer == "adam" else torch.optim.AdamW
    opt = cls([w], **kwargs)
    steps = []
    for t in range(STEPS):
        rate = schedule(lr_schedule, lr, t)
        for group in opt.param_groups:
            group["lr"] = rate * lrm
        g = torch.randn(shape, generator=gen, dtype=torch.float32) * 0.5
        if zero:  # a component whose gradient is always 0
            g.view(-1)[0] = 0.0
        w.grad = g.clone()
        opt.step()
        state = opt.state[w]
        steps.append({
            "lr": rate,
            "gradient": g.flatten().tolist(),
            "weight": w.detach().flatten().tolist(),
            "m": state["exp_avg"].flatten().tolist(),
            "v": state["exp_avg_sq"].flatten().tolist(),
        })
    defaults = opt.defaults
    return {
        "name": name,
        "optimizer": optimizer,
        "shape": list(shape),
        "beta1": betas[0], "beta2": betas[1], "epsilon": eps,
        "weightDecay": defaults["weight_decay"],
        "lrm": lrm,
        "initial": w0.flatten().tolist(),
        "steps": steps,
    }


def main():
    cases = [
        case("adam defaults", "adam", [3, 4], 1e-3),
        case("adam l2 decay, warmup and cosine", "adam", [5], 3e-3,
             betas=(0.8, 0.99), eps=1e-6, weight_decay=0.01,
             lr_schedule="warmup-cosine", zero=True),
        case("adamw defaults", "adamw", [2, 3, 2], 1e-3),
        case("adamw decay 0.1 at half the rate", "adamw", [4, 4], 1e-2,
             betas=(0.9, 0.95), weight_decay=0.1, lrm=0.5,
             lr_schedule="warmup-cosine", zero=True),
    ]
    out = {
        "description": "torch.optim.Adam and AdamW, 100 steps each "
                       "(float32, foreach=False)",
        "generator": "tests/train/vectors/make_optimizer_vectors.py",
        "torch": torch.__version__,
        "cases": cases,
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "optimizer_vectors.json")
    with open(path, "w") as f:
        json.dump(out, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {path}: {len(cases)} cases of {STEPS} steps")


if __name__ == "__main__":
    main()

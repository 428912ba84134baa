#!/usr/bin/python3
"""Writes running-sum.npz beside this script, the data of the golden run
running-sum.wnm (a value a step): 400 ragged sequences of

  x          float32 [400, 8, 2]  3 to 8 steps of two values (noise)
  x_lengths  int64   [400]        each sequence's real steps
  y          float32 [400, 8]     at each step, 100 + 3 x the running sum
                                  of the first values so far; NaN in the
                                  padding (ignored)

Deterministic (numpy's RandomState(11)).
"""
import os

import numpy as np


def main():
    rng = np.random.RandomState(11)
    n, longest = 400, 8
    lengths = rng.randint(3, longest + 1, n).astype(np.int64)
    x = rng.normal(0, 1, (n, longest, 2)).astype(np.float32)
    y = (100 + 3 * np.cumsum(x[:, :, 0], axis=1)).astype(np.float32)
    for i in range(n):
        x[i, lengths[i]:] = 0
        y[i, lengths[i]:] = np.nan
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "running-sum.npz")
    np.savez_compressed(out, x=x, x_lengths=lengths, y=y)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""scikit-learn's side of `webnnm-bench defaults`: MLPClassifier() or
MLPRegressor() with every default, on features standardized with the
training rows' statistics (StandardScaler), trained on the training subset
of a 60/20/20 split (stratified for classification; scikit-learn uses no
validation subset by default, so the 20% held for ours goes unused), tested
on the test subset, for each seed. Prints one JSON line per set, as
webnnm-bench does for ours:

  {"bench":"defaults","set":"iris","framework":"sklearn","metric":"accuracy",
   "mean":0.94,"scores":[...],"seconds":1.2}

usage: defaults_sklearn.py --set NAME CSV LABEL TASK [--set ...] [--seeds N]
TASK: classification or regression; LABEL: the label column's name.
"""
import argparse
import csv
import json
import time
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score, r2_score
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.preprocessing import StandardScaler


def read(path, label):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    k = header.index(label)
    x = np.array([[float(v) for i, v in enumerate(r) if i != k]
                  for r in body])
    y = [r[k] for r in body]
    return x, y


def split(x, y, seed, stratify):
    # 60/20/20: the test fifth first, then the validation quarter of the rest.
    x_rest, x_test, y_rest, y_test = train_test_split(
        x, y, test_size=0.2, random_state=seed,
        stratify=y if stratify else None)
    x_train, _, y_train, _ = train_test_split(
        x_rest, y_rest, test_size=0.25, random_state=seed,
        stratify=y_rest if stratify else None)
    return x_train, y_train, x_test, y_test


def run(name, path, label, task, seeds):
    x, y = read(path, label)
    classify = task == "classification"
    if not classify:
        y = np.array([float(v) for v in y])
    scores = []
    start = time.perf_counter()
    for seed in range(1, seeds + 1):
        x_train, y_train, x_test, y_test = split(x, y, seed, classify)
        scaler = StandardScaler().fit(x_train)
        model = (MLPClassifier if classify else MLPRegressor)(
            random_state=seed)
        with warnings.catch_warnings():
            # The default 200 iterations often end before convergence: that
            # is the default being measured.
            warnings.simplefilter("ignore", ConvergenceWarning)
            model.fit(scaler.transform(x_train), y_train)
        predicted = model.predict(scaler.transform(x_test))
        scores.append(accuracy_score(y_test, predicted) if classify
                      else r2_score(y_test, predicted))
    seconds = time.perf_counter() - start
    print(json.dumps({"bench": "defaults", "set": name,
                      "framework": "sklearn",
                      "metric": "accuracy" if classify else "r2",
                      "mean": round(float(np.mean(scores)), 4),
                      "scores": [round(float(s), 4) for s in scores],
                      "seconds": round(seconds, 3)}), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--set", nargs=4, action="append", required=True,
                   metavar=("NAME", "CSV", "LABEL", "TASK"))
    p.add_argument("--seeds", type=int, default=5)
    a = p.parse_args()
    for name, path, label, task in a.set:
        run(name, path, label, task, a.seeds)


if __name__ == "__main__":
    main()

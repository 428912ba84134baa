#!/usr/bin/python3
"""scikit-learn's side of the benchmark suite (tests/bench/suite): two
models with every default, on one CSV set, for each split seed; prints one
JSON line per model:

  {"bench":"defaults","set":"glass","framework":"sklearn-mlp",
   "metric":"accuracy","mean":0.65,"scores":[...],"seconds":1.2}

usage:
  suite_sklearn.py --csv FILE --label COLUMN --task classification|regression
                   --name NAME --splits SPLITS.json
  suite_sklearn.py ... --own-splits [--seeds 5]

SPLITS.json, written by the other side so that both use the same rows:
  {"seeds": [{"seed": 1, "train": [...], "validation": [...],
              "test": [...]}, ...]}
with 0-based indices into the CSV's data rows (the header excluded).
--own-splits instead makes a 60/20/20 split per seed 1..N with
train_test_split (stratified for classification, random_state=seed): the
test fifth first, then a quarter of the rest as validation.

Both models train on the training rows only (scikit-learn's defaults use no
validation rows, so those go unused) and are scored on the test rows
(accuracy, or R² for regression):

  sklearn-mlp  MLPClassifier(random_state=seed) / MLPRegressor(...), every
               other argument default, after preprocessing fitted on the
               training rows: numeric columns -> SimpleImputer(median) ->
               StandardScaler; categorical columns -> SimpleImputer
               (most_frequent) -> OneHotEncoder(handle_unknown="ignore").
               Regression targets are not scaled (MLPRegressor's default).
  sklearn-hgb  HistGradientBoostingClassifier(random_state=seed) /
               HistGradientBoostingRegressor(...), defaults: numeric columns
               as they are (missing values as NaN, handled natively),
               categorical columns through OrdinalEncoder (unknown and
               missing -> NaN) and declared in categorical_features; a
               categorical column with more than 255 levels in the training
               rows is passed as its ordinal codes, as a numeric column.

A column is categorical when any present value in it does not read as a
number. Missing: an empty field, NA, N/A or NaN (any case). A row whose
label is missing is an error. Runs on one thread.
"""
import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
           "BLIS_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import csv  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402

import numpy as np  # noqa: E402
from sklearn.ensemble import (HistGradientBoostingClassifier,  # noqa: E402
                              HistGradientBoostingRegressor)
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.impute import SimpleImputer  # noqa: E402
from sklearn.metrics import accuracy_score, r2_score  # noqa: E402
from sklearn.model_selection import train_test_split  # noqa: E402
from sklearn.neural_network import MLPClassifier, MLPRegressor  # noqa: E402
from sklearn.preprocessing import (OneHotEncoder,  # noqa: E402
                                   OrdinalEncoder, StandardScaler)

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # pragma: no cover
    threadpool_limits = None

MISSING = {"", "na", "n/a", "nan"}
MAX_CATEGORIES = 255  # HistGradientBoosting's max_bins


def die(message):
    print(f"suite_sklearn.py: {message}", file=sys.stderr)
    sys.exit(1)


def is_missing(v):
    return v.strip().lower() in MISSING


def is_number(v):
    try:
        float(v)
        return True
    except ValueError:
        return False


class Data:
    """The features of a CSV set: numeric columns as a float matrix (NaN
    where missing), categorical columns as an object matrix (np.nan where
    missing); the labels as strings (classification) or floats."""

    def __init__(self, path, label, task):
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        if len(rows) < 2:
            die(f"{path}: no data rows")
        header, body = rows[0], rows[1:]
        if label not in header:
            die(f"{path}: no column {label!r} (columns: {', '.join(header)})")
        k = header.index(label)
        for i, r in enumerate(body):
            if len(r) != len(header):
                die(f"{path}: data row {i} has {len(r)} fields, the header "
                    f"{len(header)}")
        missing = [i for i, r in enumerate(body) if is_missing(r[k])]
        if missing:
            die(f"{path}: the label {label!r} is missing in {len(missing)} "
                f"rows (first: data row {missing[0]}); drop those rows when "
                "making the set")
        labels = [r[k].strip() for r in body]
        if task == "regression":
            try:
                self.y = np.array([float(v) for v in labels])
            except ValueError as e:
                die(f"{path}: a regression label is not a number: {e}")
        else:
            self.y = np.array(labels, dtype=object)
        self.rows = len(body)
        self.numeric, self.categorical = [], []
        num_cols, cat_cols = [], []
        for j, name in enumerate(header):
            if j == k:
                continue
            present = [r[j].strip() for r in body if not is_missing(r[j])]
            if all(is_number(v) for v in present):
                self.numeric.append(name)
                num_cols.append([np.nan if is_missing(r[j]) else float(r[j])
                                 for r in body])
            else:
                self.categorical.append(name)
                cat_cols.append([np.nan if is_missing(r[j]) else r[j].strip()
                                 for r in body])
        self.x_num = (np.array(num_cols, dtype=float).T if num_cols
                      else np.zeros((self.rows, 0)))
        self.x_cat = (np.array(cat_cols, dtype=object).T if cat_cols
                      else np.zeros((self.rows, 0), dtype=object))


def one_hot():
    try:
        return OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    except TypeError:  # scikit-learn < 1.2
        return OneHotEncoder(handle_unknown="ignore", sparse=False)


def mlp_features(data, train, test):
    parts_train, parts_test = [], []
    if data.x_num.shape[1]:
        imputer = SimpleImputer(strategy="median")
        scaler = StandardScaler()
        parts_train.append(scaler.fit_transform(
            imputer.fit_transform(data.x_num[train])))
        parts_test.append(scaler.transform(
            imputer.transform(data.x_num[test])))
    if data.x_cat.shape[1]:
        imputer = SimpleImputer(strategy="most_frequent",
                                missing_values=np.nan)
        encoder = one_hot()
        parts_train.append(encoder.fit_transform(
            imputer.fit_transform(data.x_cat[train])))
        parts_test.append(encoder.transform(
            imputer.transform(data.x_cat[test])))
    return np.hstack(parts_train), np.hstack(parts_test)


def hgb_features(data, train, test):
    parts_train, parts_test = [data.x_num[train]], [data.x_num[test]]
    mask = [False] * data.x_num.shape[1]
    if data.x_cat.shape[1]:
        encoder = OrdinalEncoder(handle_unknown="use_encoded_value",
                                 unknown_value=np.nan,
                                 encoded_missing_value=np.nan)
        parts_train.append(encoder.fit_transform(data.x_cat[train]))
        parts_test.append(encoder.transform(data.x_cat[test]))
        for categories in encoder.categories_:
            levels = sum(1 for c in categories
                         if not (isinstance(c, float) and np.isnan(c)))
            mask.append(levels <= MAX_CATEGORIES)
    return (np.hstack(parts_train), np.hstack(parts_test),
            np.array(mask, dtype=bool))


def fit_mlp(data, train, test, seed, classify):
    x_train, x_test = mlp_features(data, train, test)
    model = (MLPClassifier if classify else MLPRegressor)(random_state=seed)
    model.fit(x_train, data.y[train])
    return model.predict(x_test)


def fit_hgb(data, train, test, seed, classify):
    x_train, x_test, mask = hgb_features(data, train, test)
    model = (HistGradientBoostingClassifier if classify
             else HistGradientBoostingRegressor)(
        random_state=seed,
        categorical_features=mask if mask.any() else None)
    model.fit(x_train, data.y[train])
    return model.predict(x_test)


def own_splits(data, seeds, classify):
    index = np.arange(data.rows)
    out = []
    for seed in range(1, seeds + 1):
        rest, test = train_test_split(
            index, test_size=0.2, random_state=seed,
            stratify=data.y if classify else None)
        train, validation = train_test_split(
            rest, test_size=0.25, random_state=seed,
            stratify=data.y[rest] if classify else None)
        out.append({"seed": seed, "train": train, "validation": validation,
                    "test": test})
    return out


def read_splits(path, rows):
    with open(path) as f:
        doc = json.load(f)
    out = []
    for s in doc.get("seeds", []):
        split = {"seed": int(s["seed"])}
        for part in ("train", "validation", "test"):
            idx = np.array(s.get(part, []), dtype=np.int64)
            if idx.size and (idx.min() < 0 or idx.max() >= rows):
                die(f"{path}: seed {split['seed']}: a {part} index is "
                    f"outside 0..{rows - 1}")
            split[part] = idx
        if not split["train"].size or not split["test"].size:
            die(f"{path}: seed {split['seed']}: no training or test rows")
        if np.intersect1d(split["train"], split["test"]).size:
            die(f"{path}: seed {split['seed']}: training and test rows "
                "overlap")
        out.append(split)
    if not out:
        die(f"{path}: no seeds")
    return out


def run(name, data, splits, classify, framework, fit):
    scores = []
    start = time.perf_counter()
    for s in splits:
        with warnings.catch_warnings():
            # The default 200 iterations often end before convergence: that
            # is the default being measured.
            warnings.simplefilter("ignore", ConvergenceWarning)
            predicted = fit(data, s["train"], s["test"], s["seed"], classify)
        truth = data.y[s["test"]]
        scores.append(accuracy_score(truth, predicted) if classify
                      else r2_score(truth, predicted))
    seconds = time.perf_counter() - start
    print(json.dumps({"bench": "defaults", "set": name,
                      "framework": framework,
                      "metric": "accuracy" if classify else "r2",
                      "mean": round(float(np.mean(scores)), 4),
                      "scores": [round(float(v), 4) for v in scores],
                      "seconds": round(seconds, 3)}), flush=True)


def main():
    p = argparse.ArgumentParser(
        description="scikit-learn's side of the benchmark suite")
    p.add_argument("--csv", required=True)
    p.add_argument("--label", required=True)
    p.add_argument("--task", required=True,
                   choices=("classification", "regression"))
    p.add_argument("--name", required=True)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--splits", metavar="SPLITS.json")
    g.add_argument("--own-splits", action="store_true")
    p.add_argument("--seeds", type=int, default=5,
                   help="with --own-splits: seeds 1..N (default 5)")
    p.add_argument("--framework", choices=("sklearn-mlp", "sklearn-hgb"),
                   action="append",
                   help="run only this model (repeatable; default both)")
    a = p.parse_args()
    classify = a.task == "classification"
    data = Data(a.csv, a.label, a.task)
    splits = (own_splits(data, a.seeds, classify) if a.own_splits
              else read_splits(a.splits, data.rows))
    models = {"sklearn-mlp": fit_mlp, "sklearn-hgb": fit_hgb}
    for framework in a.framework or list(models):
        run(a.name, data, splits, classify, framework, models[framework])


if __name__ == "__main__":
    if threadpool_limits is not None:
        with threadpool_limits(limits=1):
            main()
    else:
        main()

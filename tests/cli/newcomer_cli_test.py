#!/usr/bin/env python3
"""A newcomer's journey through webnnmctl: a starter model for every shipped
dataset (`init`) that checks and trains with no flags; a CSV whose label is
not the last column, read without --label (a decision naming the right
column, or a refusal naming the candidates, exit 2 — never a feature);
text columns and missing values in a CSV, with no flags.

usage: newcomer_cli_test.py WEBNNMCTL CONFIGS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

WEBNNMCTL = None
CONFIGS = None


def run(*args, timeout=300):
    proc = subprocess.run([WEBNNMCTL, *args], capture_output=True, text=True,
                          timeout=timeout,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    return proc.returncode, proc.stdout, proc.stderr


def write(text, suffix):
    handle = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False,
                                         encoding="utf-8")
    handle.write(text)
    handle.close()
    return handle.name


def result_of(out):
    return json.loads(out.splitlines()[-1])


def decision(result, prefix):
    found = [d for d in result["decisions"] if d["what"].startswith(prefix)]
    return found[0] if found else None


class Init(unittest.TestCase):
    def test_every_shipped_dataset_gets_a_model_that_trains(self):
        folder = tempfile.mkdtemp()
        datasets = sorted(os.listdir(os.path.join(CONFIGS, "datasets")))
        self.assertGreaterEqual(len(datasets), 9)
        for name in datasets:
            with self.subTest(dataset=name):
                data = os.path.join(CONFIGS, "datasets", name)
                model = os.path.join(folder, name + ".wnm")
                code, out, err = run("-o", "json", "init", "--dataset", data,
                                     "--output", model)
                self.assertEqual(code, 0, err)
                said = json.loads(out)
                self.assertEqual(said["model"], model)
                self.assertGreater(said["parameters"], 0)
                self.assertEqual(run("check", model)[0], 0)
                # No flags at all (but a quick budget of seconds).
                code, out, err = run("-o", "json", "train", "--local", model,
                                     "--dataset", data)
                self.assertEqual(code, 0, err)
                result = result_of(out)
                if result["testAccuracy"] is not None:
                    self.assertGreater(result["testAccuracy"], 0.6, name)

    def test_refuses_to_overwrite_and_writes_to_standard_output(self):
        data = os.path.join(CONFIGS, "datasets", "iris.csv")
        model = write("# mine\n", ".wnm")
        code, _, err = run("init", "--dataset", data, "--output", model)
        self.assertEqual(code, 2)
        self.assertIn("--force", err)
        self.assertEqual(open(model).read(), "# mine\n")
        code, out, err = run("init", "--dataset", data, "--output", "-")
        self.assertEqual(code, 0, err)
        self.assertIn("model:input shape=[4];", out)
        self.assertIn("dense(shape=[3], activation=softmax);", out)
        self.assertIn("label 'species'", err)
        self.assertEqual(run("init", "--dataset", "/nonexistent.csv")[0], 2)


def species_first():
    rows = ["species,sepal_length,sepal_width,petal_length,petal_width"]
    with open(os.path.join(CONFIGS, "datasets", "iris.csv")) as f:
        lines = f.read().splitlines()[1:]
    for line in lines:
        values = line.split(",")
        rows.append(",".join([values[-1]] + values[:-1]))
    return write("\n".join(rows) + "\n", ".csv")


class Labels(unittest.TestCase):
    def test_a_first_column_label_is_found_and_named(self):
        data = species_first()
        code, out, err = run("-o", "json", "train", "--local",
                             os.path.join(CONFIGS, "models", "iris.wnm"),
                             "--dataset", data, "--epochs", "30")
        self.assertEqual(code, 0, err)
        label = decision(result_of(out), "label column")
        self.assertIsNotNone(label)
        self.assertEqual(label["what"], "label column 'species'")
        self.assertIn("setosa, versicolor, virginica", label["why"])

    def test_several_candidates_are_refused_by_name(self):
        # Two numeric columns of 3 values, the last column continuous: which
        # one is the label cannot be told.
        rows = ["a,b,c,d"] + [f"{i % 3},{(i * 7) % 3},{i * 0.5},{i}"
                              for i in range(60)]
        data = write("\n".join(rows) + "\n", ".csv")
        model = os.path.join(CONFIGS, "models", "iris.wnm")
        code, _, err = run("train", "--local", model, "--dataset", data)
        self.assertEqual(code, 2, err)
        self.assertIn("which column is the label? 'a', 'b'", err)
        self.assertIn("--label", err)


class TextAndGaps(unittest.TestCase):
    def test_text_columns_and_missing_values_train_with_no_flags(self):
        rows = ["age,port,fare,cabin,survived"]
        for i in range(300):
            age = "" if i % 17 == 3 else str(20 + i % 50)
            port = "CQS"[i % 3]
            survived = "yes" if i % 3 == 0 else "no"
            rows.append(f"{age},{port},{(i * 13) % 90},c{i % 3},{survived}")
        data = write("\n".join(rows) + "\n", ".csv")
        model = os.path.join(tempfile.mkdtemp(), "m.wnm")
        code, out, err = run("init", "--dataset", data, "--output", model)
        self.assertEqual(code, 0, err)
        self.assertIn("model:input shape=[8];", open(model).read())
        code, out, err = run("-o", "json", "train", "--local", model,
                             "--dataset", data)
        self.assertEqual(code, 0, err)
        result = result_of(out)
        self.assertIsNotNone(decision(result, "impute median"))
        text = decision(result, "one-hot encode 2 text columns")
        self.assertIsNotNone(text, result["decisions"])
        self.assertIn("'port' (3 categories: C, Q, S)", text["why"])
        self.assertGreater(result["testAccuracy"], 0.9)
        # predict reads a file's text columns as training did.
        snapshot = os.path.join(tempfile.mkdtemp(), "m.wnms")
        self.assertEqual(run("train", "--local", model, "--dataset", data,
                             "--save", snapshot)[0], 0)
        later = write("age,port,fare,cabin\n30,Q,5,c1\n,Z,7,c2\n", ".csv")
        code, out, err = run("-o", "json", "predict", "--local", model,
                             "--load", snapshot, "--dataset", later)
        self.assertEqual(code, 0, err)
        self.assertEqual(len(out.splitlines()), 2)


if __name__ == "__main__":
    WEBNNMCTL, CONFIGS = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)

#!/usr/bin/env python3
"""Contract tests of `webnnmctl train --local` (issue: the training engine).

Runs the real binary on the shipped datasets and on small files written
here: the JSON object's keys and their order, null where a value does not
apply, plain progress lines, determinism for a seed, and the exit codes of
bad data (1, with file and line) and bad usage (2).

usage: train_cli_test.py WEBNNMCTL CONFIGS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

WEBNNMCTL = None
CONFIGS = None
KEYS = ["epochs", "bestEpoch", "trainSamplesPerSecond", "trainedSamples",
        "finalTrainLoss",
        "validationLoss", "testLoss", "testAccuracy", "outputs", "decisions",
        "warnings", "testMetrics"]


def run(*args):
    proc = subprocess.run([WEBNNMCTL, *args], capture_output=True, text=True,
                          timeout=120)
    return proc.returncode, proc.stdout, proc.stderr


def write(text, suffix):
    handle = tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False,
                                         encoding="utf-8")
    handle.write(text)
    handle.close()
    return handle.name


def iris_args(*extra, epochs=5):
    return ["train", "--local", os.path.join(CONFIGS, "models", "iris.wnm"),
            "--dataset", os.path.join(CONFIGS, "datasets", "iris.csv"),
            "--epochs", str(epochs), "--seeds", "3", "--split", "60,20,20",
            *extra]


REGRESSION_MODEL = """
model:input shape=[2];
model:output shape=[1];
model:layers dense(shape=[4], activation=tanh), dense(shape=[1], activation=identity);
dense:layers matmul(w), add(b), activation();
"""


SEQUENCE_MODEL = """
model:input shape={sequence, features: 8};
model:output shape=[10];
model:layers
    lstm(w, r, hiddenSize=16, bias=b, recurrentBias=rb),
    dense(shape=[10], activation=softmax);
dense:layers matmul(w), add(b), activation();
"""


class TrainJson(unittest.TestCase):
    def last_json(self, *args):
        code, out, err = run(*args)
        lines = [line for line in out.splitlines() if line.strip()]
        self.assertTrue(lines, f"no output; stderr: {err}")
        return code, json.loads(lines[-1]), err

    def test_classification_contract(self):
        code, data, err = self.last_json(*iris_args("-o", "json"))
        self.assertEqual(code, 0, err)
        self.assertEqual(list(data.keys()), KEYS)
        self.assertEqual(data["epochs"], 5)
        self.assertTrue(1 <= data["bestEpoch"] <= 5)
        self.assertGreater(data["trainSamplesPerSecond"], 0)
        self.assertIsInstance(data["validationLoss"], float)
        self.assertTrue(0 <= data["testAccuracy"] <= 1)
        self.assertEqual(list(data["outputs"].keys()), ["model"])
        out = list(data["outputs"].values())[0]
        self.assertEqual(list(out.keys()), ["testLoss", "testAccuracy"])
        self.assertEqual(out["testAccuracy"], data["testAccuracy"])
        self.assertTrue(data["decisions"])
        for d in data["decisions"]:
            self.assertEqual(list(d.keys()), ["what", "why"])
        self.assertIsInstance(data["warnings"], list)
        # The test's metrics: per class, and a confusion matrix over the
        # 30 test rows whose diagonal is the accuracy.
        metrics = data["testMetrics"]["model"]
        self.assertEqual(list(metrics), ["accuracy", "classes", "precision",
                                         "recall", "f1", "confusionMatrix"])
        self.assertEqual(metrics["accuracy"], data["testAccuracy"])
        self.assertEqual(metrics["classes"],
                         ["setosa", "versicolor", "virginica"])
        matrix = metrics["confusionMatrix"]
        self.assertEqual(sum(map(sum, matrix)), 30)
        self.assertEqual(sum(matrix[i][i] for i in range(3)) / 30,
                         data["testAccuracy"])
        for c in range(3):
            predicted = sum(row[c] for row in matrix)
            precision = matrix[c][c] / predicted if predicted else 0
            self.assertAlmostEqual(metrics["precision"][c], precision)
            recall = matrix[c][c] / sum(matrix[c]) if sum(matrix[c]) else 0
            self.assertAlmostEqual(metrics["recall"][c], recall)
        # Progress went to stderr, so stdout is only the JSON object.
        self.assertIn("epoch 1/5", err)

    def test_same_seed_same_result(self):
        _, a, _ = self.last_json(*iris_args("-o", "json", "--seed", "9"))
        _, b, _ = self.last_json(*iris_args("-o", "json", "--seed", "9"))
        for key in ("trainSamplesPerSecond",):
            a.pop(key)
            b.pop(key)
        self.assertEqual(a, b)

    def test_regression_has_null_accuracy(self):
        model = write(REGRESSION_MODEL, ".wnm")
        rows = "\n".join(f"{i % 7},{i % 5},{(i % 7) * 0.5 - (i % 5)}"
                         for i in range(60))
        data = write("a,b,y\n" + rows + "\n", ".csv")
        code, out, err = self.last_json("train", "--local", model,
                                        "--dataset", data, "--epochs", "3",
                                        "--seeds", "2", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertIsNone(out["testAccuracy"])
        self.assertIsInstance(out["testLoss"], float)
        # One unit: numbers. The linear output trained on standardized
        # targets (a decision); its metrics are in the original units.
        metrics = out["testMetrics"]["model"]
        self.assertEqual(list(metrics), ["mae", "rmse", "r2"])
        self.assertLessEqual(metrics["mae"], metrics["rmse"] + 1e-12)
        self.assertLessEqual(metrics["r2"], 1)
        self.assertIn("standardize the targets of 'model'",
                      [d["what"] for d in out["decisions"]])
        # Without standardization MSE's test loss is the RMSE squared.
        code, plain, err = self.last_json("train", "--local", model,
                                          "--dataset", data, "--epochs", "3",
                                          "--seeds", "2", "--no-standardize",
                                          "-o", "json")
        self.assertEqual(code, 0, err)
        metrics = plain["testMetrics"]["model"]
        self.assertAlmostEqual(metrics["rmse"] ** 2, plain["testLoss"],
                               places=5)
        self.assertNotIn("standardize the targets of 'model'",
                         [d["what"] for d in plain["decisions"]])

    def test_a_sequence_model_trains_over_the_rows(self):
        # digits' 64 pixels into {sequence, features: 8}: 8 steps of 8.
        model = write(SEQUENCE_MODEL, ".wnm")
        code, out, err = self.last_json(
            "train", "--local", model, "--dataset",
            os.path.join(CONFIGS, "datasets", "digits.csv"), "--label",
            "digit", "--epochs", "4", "--seeds", "2", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertGreater(out["testAccuracy"], 0.5)  # chance: 0.1
        # 60 values are no whole number of steps of 8: exit 1, named.
        rows = "\n".join(",".join(str((i * k) % 5) for k in range(60)) +
                         f",{i % 2}" for i in range(20))
        data = write(",".join(f"p{k}" for k in range(60)) + ",y\n" + rows +
                     "\n", ".csv")
        code, _, err = run("train", "--local", model, "--dataset", data,
                           "--epochs", "1", "--seeds", "1")
        self.assertEqual(code, 1, err)
        self.assertIn("the model input 'model' is a sequence of steps of 8 "
                      "values ([8] a step), but the dataset's samples have 60 "
                      "features: not a whole number of steps", err)

    def test_two_inputs_and_two_outputs_from_an_npz(self):
        # The shipped multimodal model on its generated archive
        # (scripts/make-multimodal-npz): an image and a sound, a class and a
        # score, with every output's test metrics.
        code, out, err = self.last_json(
            "train", "--local",
            os.path.join(CONFIGS, "models", "multimodal.wnm"), "--dataset",
            os.path.join(CONFIGS, "datasets", "multimodal.npz"), "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(list(out["outputs"]), ["label", "score"])
        label = out["testMetrics"]["label"]
        self.assertEqual(label["classes"], ["0", "1", "2", "3", "4", "5"])
        self.assertGreater(label["accuracy"], 0.8)  # chance: 1/6
        self.assertEqual(list(out["testMetrics"]["score"]),
                         ["mae", "rmse", "r2"])
        self.assertGreater(out["testMetrics"]["score"]["r2"], 0.5)
        # A missing array is named with the archive's arrays.
        bad = self.path_in_temp("bad.npz")
        import zipfile
        with zipfile.ZipFile(bad, "w") as z:
            z.writestr("image.npy", b"not an array")
        code, _, err = run("train", "--local",
                           os.path.join(CONFIGS, "models", "multimodal.wnm"),
                           "--dataset", bad, "--epochs", "1")
        self.assertEqual(code, 1, err)
        self.assertIn("not a .npy array", err)

    def path_in_temp(self, name):
        return os.path.join(tempfile.mkdtemp(), name)

    def test_plain_output(self):
        code, out, err = run(*iris_args())
        self.assertEqual(code, 0, err)
        self.assertIn("epoch 1/5", out)
        self.assertIn("epoch 5/5", out)
        self.assertIn("test: 30 samples", out)


class TrainErrors(unittest.TestCase):
    def test_ragged_csv_names_file_and_line(self):
        data = write("a,b,c,d,species\n1,2,3,4,x\n1,2,3\n", ".csv")
        code, _, err = run("train", "--local",
                           os.path.join(CONFIGS, "models", "iris.wnm"),
                           "--dataset", data)
        self.assertEqual(code, 1)
        self.assertIn(f"{data}:3:", err)

    def test_text_feature_counts_a_feature_a_category(self):
        # A text column is one-hot encoded: 'd' becomes 2 features, so the
        # samples have 5 where iris's model takes 4; the error says why.
        rows = ["a,b,c,d,species"] + [
            f"{i},{i % 3},{i % 5},{'xy'[i % 2]},{'pqr'[i % 3]}"
            for i in range(30)]
        data = write("\n".join(rows) + "\n", ".csv")
        code, _, err = run("train", "--local",
                           os.path.join(CONFIGS, "models", "iris.wnm"),
                           "--dataset", data)
        self.assertEqual(code, 1)
        self.assertIn("the dataset's samples have 5 features (with its text "
                      "columns one-hot: 'd' (2 categories: x, y))", err)
        self.assertIn("webnnmctl init", err)

    def test_shape_mismatch_names_both_shapes(self):
        code, _, err = run("train", "--local",
                           os.path.join(CONFIGS, "models", "digits.wnm"),
                           "--dataset",
                           os.path.join(CONFIGS, "datasets", "iris.csv"),
                           "--epochs", "1", "--seeds", "1")
        self.assertEqual(code, 1)
        self.assertIn("[64]", err)
        self.assertIn("4 features", err)

    def test_a_diverging_run_fails(self):
        code, out, err = run(*iris_args("--optimizer", "sgdm", "--lr", "1e6",
                                        "-o", "json", epochs=20))
        self.assertEqual(code, 1, err)
        self.assertIn("webnnmctl: training diverged: the ", err)
        self.assertIn("a tenth of the learning rate", err)
        self.assertNotIn("testLoss", out)  # no result is printed

    def test_usage_errors(self):
        model = os.path.join(CONFIGS, "models", "iris.wnm")
        dataset = os.path.join(CONFIGS, "datasets", "iris.csv")
        self.assertEqual(run("train", "--local", model, "--dataset",
                             "/nonexistent.csv")[0], 2)
        self.assertEqual(run("train", "--local", model, "--dataset", dataset,
                             "--split", "70,30")[0], 2)
        self.assertEqual(run("train", "--local", model, "--dataset", dataset,
                             "--split", "70,30,30")[0], 2)
        # Without --local, train is submit --follow: no daemon, exit 1.
        code, _, err = run("--server", "127.0.0.1:1", "train", model,
                           "--dataset", dataset)
        self.assertEqual(code, 1)
        self.assertIn("cannot reach webnnmd", err)
        self.assertEqual(run("train", model, "--dataset", dataset,
                             "--resume", "x.wnms")[0], 2)
        self.assertEqual(run("train", "--local", model, "--dataset", dataset,
                             "--name", "x")[0], 2)
        self.assertEqual(run("train", "--local", model, "--dataset", dataset,
                             "--optimizer", "adagrad")[0], 2)
        self.assertEqual(run("train", "--local", "/nonexistent.wnm",
                             "--dataset", dataset)[0], 2)


class Snapshots(unittest.TestCase):
    """--save, --resume and `test --local --load`."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def path(self, name):
        return os.path.join(self.dir, name)

    def train_json(self, *args):
        code, out, err = run("-o", "json", *args)
        self.assertEqual(code, 0, err)
        return json.loads(out.splitlines()[-1])

    def test_save_then_test_reports_the_same_figures(self):
        snapshot = self.path("iris.wnms")
        trained = self.train_json(*iris_args("--standardize", "--save",
                                             snapshot))
        with open(snapshot, "rb") as f:
            self.assertEqual(f.read(8), b"WNNMSNAP")
        code, out, err = run("-o", "json", "test", "--local",
                             os.path.join(CONFIGS, "models", "iris.wnm"),
                             "--load", snapshot, "--dataset",
                             os.path.join(CONFIGS, "datasets", "iris.csv"))
        self.assertEqual(code, 0, err)
        tested = json.loads(out.splitlines()[-1])
        self.assertEqual(list(tested), ["samples", "testLoss", "testAccuracy",
                                        "outputs", "testMetrics"])
        self.assertEqual(tested["testMetrics"], trained["testMetrics"])
        self.assertEqual(tested["samples"], 30)  # 20% of 150, the saved split
        self.assertAlmostEqual(tested["testLoss"], trained["testLoss"],
                               places=6)
        self.assertEqual(tested["testAccuracy"], trained["testAccuracy"])
        self.assertEqual(list(tested["outputs"]), ["model"])

    def test_resume_continues_to_the_same_result(self):
        whole = self.train_json(*iris_args(epochs=8))
        part = self.path("part.wnms")
        first = self.train_json(*iris_args("--save", part,
                                           "--stop-after-epoch", "3",
                                           epochs=8))
        self.assertEqual(first["epochs"], 3)
        # The snapshot's hyperparameters rule (the same --epochs and split
        # may be given again).
        resumed = self.train_json(
            "train", "--local", os.path.join(CONFIGS, "models", "iris.wnm"),
            "--dataset", os.path.join(CONFIGS, "datasets", "iris.csv"),
            "--epochs", "8", "--split", "60,20,20", "--resume", part)
        for key in ["epochs", "bestEpoch", "finalTrainLoss", "validationLoss",
                    "testLoss", "testAccuracy"]:
            self.assertEqual(resumed[key], whole[key], key)

    def resume_args(self, snapshot, *extra):
        return ["train", "--local",
                os.path.join(CONFIGS, "models", "iris.wnm"),
                "--dataset", os.path.join(CONFIGS, "datasets", "iris.csv"),
                "--resume", snapshot, *extra]

    def test_resume_with_more_epochs_continues(self):
        done = self.path("done.wnms")
        whole = self.train_json(*iris_args("--save", done, epochs=8))
        self.assertEqual(whole["epochs"], 8)
        more = self.train_json(*self.resume_args(done, "--epochs", "12",
                                                 "--lr", "0.05"))
        self.assertEqual(more["epochs"], 12)
        whats = [d["what"] for d in more["decisions"]]
        self.assertIn("epochs 12 (was 8): a warm restart of the schedule "
                      "after epoch 8", whats)
        self.assertIn("lr 0.05 from epoch 9", whats)
        # Fewer epochs than were run: nothing left, tested as it is.
        same = self.train_json(*self.resume_args(done, "--epochs", "4"))
        self.assertEqual(same["epochs"], 8)
        self.assertEqual(same["testLoss"], whole["testLoss"])

    def test_resume_refuses_what_it_cannot_change(self):
        done = self.path("done.wnms")
        self.train_json(*iris_args("--save", done, epochs=3))
        for flags, named in [
                (["--seed", "9"], "seed (9; the snapshot's: 1)"),
                (["--batch-size", "8", "--optimizer", "sgdm"],
                 "batchSize (8; the snapshot's: 16), optimizer (sgdm; the "
                 "snapshot's: rlion)"),
                (["--split", "50,25,25"],
                 "split (50,25,25; the snapshot's: 60,20,20)")]:
            code, _, err = run(*self.resume_args(done, *flags))
            self.assertEqual(code, 2, err)
            self.assertIn("a resumed run keeps its model, data, split", err)
            self.assertIn(named, err)
        other = self.path("other.csv")
        with open(os.path.join(CONFIGS, "datasets", "iris.csv")) as f:
            lines = f.read().splitlines()
        with open(other, "w") as f:
            f.write("\n".join(lines[:1] + lines[1:][::-1]) + "\n")
        code, _, err = run("train", "--local",
                           os.path.join(CONFIGS, "models", "iris.wnm"),
                           "--dataset", other, "--resume", done)
        self.assertEqual(code, 2, err)
        self.assertIn("a resumed run keeps its data", err)

    def test_bad_snapshots(self):
        model = os.path.join(CONFIGS, "models", "iris.wnm")
        dataset = os.path.join(CONFIGS, "datasets", "iris.csv")
        snapshot = self.path("s.wnms")
        self.train_json(*iris_args("--save", snapshot))
        with open(snapshot, "rb") as f:
            data = bytearray(f.read())
        data[len(data) // 2] ^= 0xFF
        corrupt = self.path("corrupt.wnms")
        with open(corrupt, "wb") as f:
            f.write(data)
        code, _, err = run("test", "--local", model, "--load", corrupt,
                           "--dataset", dataset)
        self.assertEqual(code, 1)
        self.assertIn("checksum", err)
        code, _, err = run("test", "--local", model, "--load",
                           self.path("missing.wnms"), "--dataset", dataset)
        self.assertEqual(code, 2)
        other = write(REGRESSION_MODEL, ".wnm")
        code, _, err = run("train", "--local", other, "--dataset", dataset,
                           "--resume", snapshot)
        self.assertEqual(code, 1)
        self.assertIn("the snapshot's parameter", err)


class Predict(unittest.TestCase):
    """`predict --local`: every sample in file order, as CSV or JSON lines."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def path(self, name):
        return os.path.join(self.dir, name)

    def test_classification_csv_and_json_lines(self):
        model = os.path.join(CONFIGS, "models", "iris.wnm")
        data = os.path.join(CONFIGS, "datasets", "iris.csv")
        snapshot = self.path("iris.wnms")
        code, _, err = run(*iris_args("--save", snapshot, epochs=60))
        self.assertEqual(code, 0, err)
        out_csv = self.path("predictions.csv")
        code, out, err = run("predict", "--local", model, "--load", snapshot,
                             "--dataset", data, "--output", out_csv)
        self.assertEqual(code, 0, err)
        self.assertIn("predicted 150 samples", out)
        with open(out_csv) as f:
            rows = f.read().splitlines()
        self.assertEqual(rows[0], "model:class,model:setosa,"
                                  "model:versicolor,model:virginica")
        self.assertEqual(len(rows), 151)
        with open(data) as f:
            truth = [r.split(",")[-1] for r in f.read().splitlines()[1:]]
        predicted = [r.split(",")[0] for r in rows[1:]]
        right = sum(p == t for p, t in zip(predicted, truth))
        self.assertGreater(right, 120)  # a trained model, file order kept
        for r in rows[1:]:
            p = [float(v) for v in r.split(",")[1:]]
            self.assertAlmostEqual(sum(p), 1, places=5)
        # JSON lines on standard output: the same classes, in order.
        code, out, err = run("-o", "json", "predict", "--local", model,
                             "--load", snapshot, "--dataset", data)
        self.assertEqual(code, 0, err)
        lines = [json.loads(l) for l in out.splitlines()]
        self.assertEqual([l["index"] for l in lines], list(range(150)))
        self.assertEqual([l["model"]["class"] for l in lines], predicted)
        self.assertEqual(list(lines[0]["model"]), ["class", "probabilities"])
        # The features alone (no label column) predict the same.
        features = self.path("features.csv")
        with open(data) as f, open(features, "w") as g:
            for r in f.read().splitlines():
                g.write(",".join(r.split(",")[:-1]) + "\n")
        code, out, err = run("predict", "--local", model, "--load", snapshot,
                             "--dataset", features)
        self.assertEqual(code, 0, err)
        self.assertEqual(out.splitlines(), rows)
        # Bad requests: a feature count the model does not take (exit 1), an
        # output format we do not write (2), a missing file (2).
        narrow = self.path("narrow.csv")
        with open(narrow, "w") as f:
            f.write("a,b\n1,2\n")
        code, _, err = run("predict", "--local", model, "--load", snapshot,
                           "--dataset", narrow)
        self.assertEqual(code, 1, err)
        self.assertIn("2 features", err)
        code, _, err = run("predict", "--local", model, "--load", snapshot,
                           "--dataset", data, "--output", self.path("p.txt"))
        self.assertEqual(code, 2, err)
        self.assertEqual(run("predict", "--local", model, "--load", snapshot,
                             "--dataset", "/nonexistent.csv")[0], 2)

    def test_regression_values_are_in_the_targets_units(self):
        model = write(REGRESSION_MODEL, ".wnm")
        rows = [(i % 7, i % 5, 100 + 10 * (i % 7) - 3 * (i % 5))
                for i in range(120)]
        data = write("a,b,y\n" + "\n".join(f"{a},{b},{y}" for a, b, y in rows)
                     + "\n", ".csv")
        snapshot = self.path("r.wnms")
        code, _, err = run("train", "--local", model, "--dataset", data,
                           "--epochs", "200", "--optimizer", "sgdm", "--lr",
                           "0.05", "--seeds", "3", "--save", snapshot)
        self.assertEqual(code, 0, err)
        code, out, err = run("-o", "json", "predict", "--local", model,
                             "--load", snapshot, "--dataset", data)
        self.assertEqual(code, 0, err)
        lines = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(len(lines), 120)
        errors = [abs(l["model"]["value"] - y) for l, (_, _, y) in
                  zip(lines, rows)]
        self.assertLess(sum(errors) / len(errors), 3)  # targets 88..160
        code, out, err = run("predict", "--local", model, "--load", snapshot,
                             "--dataset", data)
        self.assertEqual(out.splitlines()[0], "model")
    def test_npz_inputs_several_outputs_and_npz_output(self):
        model = os.path.join(CONFIGS, "models", "multimodal.wnm")
        data = os.path.join(CONFIGS, "datasets", "multimodal.npz")
        snapshot = self.path("mm.wnms")
        code, _, err = run("train", "--local", model, "--dataset", data,
                           "--seeds", "5", "--save", snapshot)
        self.assertEqual(code, 0, err)
        code, out, err = run("predict", "--local", model, "--load", snapshot,
                             "--dataset", data)
        self.assertEqual(code, 0, err)
        rows = out.splitlines()
        self.assertEqual(rows[0], "label:class," + ",".join(
            f"label:{c}" for c in range(6)) + ",score")
        self.assertEqual(len(rows), 301)
        out_npz = self.path("mm.npz")
        code, out, err = run("-o", "json", "predict", "--local", model,
                             "--load", snapshot, "--dataset", data,
                             "--output", out_npz)
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out), {"samples": 300,
                                           "output": out_npz})
        arrays = read_npz(out_npz)
        self.assertEqual(sorted(arrays), ["label", "label_class",
                                          "label_classes", "score"])
        self.assertEqual(arrays["label"][0], "<f4")
        self.assertEqual(arrays["label"][1], [300, 6])
        self.assertEqual(arrays["label_class"][1], [300])
        self.assertEqual(arrays["label_classes"][2],
                         ["0", "1", "2", "3", "4", "5"])
        self.assertEqual(arrays["score"][1], [300, 1])
        # The classes agree with the CSV's, sample by sample.
        self.assertEqual([str(c) for c in arrays["label_class"][2]],
                         [r.split(",")[0] for r in rows[1:]])

    def test_ragged_sequences_predict_alike_in_any_batch(self):
        model = os.path.join(CONFIGS, "models", "ragged-lstm.wnm")
        data = os.path.join(CONFIGS, "datasets", "ragged.npz")
        snapshot = self.path("rg.wnms")
        code, _, err = run("train", "--local", model, "--dataset", data,
                           "--seeds", "3", "--epochs", "20", "--save",
                           snapshot)
        self.assertEqual(code, 0, err)
        outputs = []
        for batch in ("1", "7", "256"):
            code, out, err = run("predict", "--local", model, "--load",
                                 snapshot, "--dataset", data, "--batch-size",
                                 batch)
            self.assertEqual(code, 0, err)
            outputs.append(out)
        # The same classes, and probabilities within float rounding (a
        # larger batch may take other kernels).
        tables = [[r.split(",") for r in o.splitlines()[1:]] for o in outputs]
        self.assertEqual(len(tables[0]), 600)
        for table in tables[1:]:
            self.assertEqual([r[0] for r in table], [r[0] for r in tables[0]])
            worst = max(abs(float(a) - float(b))
                        for r, q in zip(table, tables[0])
                        for a, b in zip(r[1:], q[1:]))
            self.assertLess(worst, 1e-5)
        # Each sequence predicts as it would alone, unpadded: write the
        # first five at their own lengths, one archive each.
        source = read_npz(data)
        lengths = source["x_lengths"][2]
        steps = source["x"][1][1]
        for i in range(5):
            length = lengths[i]
            values = source["x"][2][i * steps * 2:(i * steps + length) * 2]
            alone = self.path(f"alone{i}.npz")
            write_npz(alone, {"x": ("<f4", [1, length, 2], values)})
            code, out, err = run("predict", "--local", model, "--load",
                                 snapshot, "--dataset", alone)
            self.assertEqual(code, 0, err)
            row = out.splitlines()[1].split(",")
            self.assertEqual(row[0], tables[0][i][0])
            for a, b in zip(row[1:], tables[0][i][1:]):
                self.assertAlmostEqual(float(a), float(b), places=5)


def read_npz(path):
    """{name: (descr, shape, values)} of an .npz of '<f4', '<i8' and '<U'
    arrays, without NumPy."""
    import ast
    import struct
    import zipfile
    arrays = {}
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            raw = z.read(name)
            assert raw[:6] == b"\x93NUMPY", name
            length = struct.unpack("<H", raw[8:10])[0]
            header = ast.literal_eval(raw[10:10 + length].decode("latin1"))
            body = raw[10 + length:]
            descr, shape = header["descr"], list(header["shape"])
            count = 1
            for d in shape:
                count *= d
            if descr == "<f4":
                values = list(struct.unpack(f"<{count}f", body))
            elif descr == "<f2":
                values = list(struct.unpack(f"<{count}e", body))
            elif descr == "<i8":
                values = list(struct.unpack(f"<{count}q", body))
            else:
                width = int(descr[2:])
                values = [body[i * 4 * width:(i + 1) * 4 * width]
                          .decode("utf-32-le").rstrip("\0")
                          for i in range(count)]
            arrays[name[:-4]] = (descr, shape, values)
    return arrays


def write_npz(path, arrays):
    """Writes {name: (descr, shape, values)} ('<f4' or '<i8') as an .npz."""
    import struct
    import zipfile
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, (descr, shape, values) in arrays.items():
            dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1
                                                        else "")
            header = (f"{{'descr': '{descr}', 'fortran_order': False, "
                      f"'shape': ({dims}), }}")
            header += " " * (-(10 + len(header) + 1) % 64) + "\n"
            code = "f" if descr == "<f4" else "q"
            body = struct.pack(f"<{len(values)}{code}", *values)
            z.writestr(name + ".npy", b"\x93NUMPY\x01\x00" +
                       struct.pack("<H", len(header)) + header.encode() +
                       body)


class Impute(unittest.TestCase):
    """Missing CSV values: filled by default (auto: the training subset's
    median, a decision); refused with `--impute none`, naming file, line and
    column; `--impute mean|median` fills them from the training subset, a
    decision kept with the model that `test` and `predict` apply to their
    files."""

    def test_refused_then_imputed_and_kept(self):
        model = write(REGRESSION_MODEL, ".wnm")
        lines = ["a,b,y"]
        for i in range(120):
            a, b = i % 7, i % 5
            y = 10 + 2 * a - 3 * b
            # Every 10th row misses a, every 15th b (empty, NA, NaN, N/A).
            fa = ["", "NA", "NaN", "n/a"][i // 10 % 4] if i % 10 == 3 else a
            fb = "NA" if i % 15 == 4 else b
            lines.append(f"{fa},{fb},{y}")
        data = write("\n".join(lines) + "\n", ".csv")
        code, out, err = run("train", "--local", model, "--dataset", data,
                             "--epochs", "2", "--impute", "none")
        self.assertEqual(code, 1, err)
        self.assertIn(":5: column 'a' is missing a value ('')", err)
        self.assertIn("--impute", err)
        # With no flag: the median, a decision saying how to choose otherwise.
        code, out, err = run("-o", "json", "train", "--local", model,
                             "--dataset", data, "--epochs", "2")
        self.assertEqual(code, 0, err)
        auto = [d for d in json.loads(out.splitlines()[-1])["decisions"]
                if d["what"] == "impute median"]
        self.assertEqual(len(auto), 1)
        self.assertIn("20 missing values in 2 features", auto[0]["why"])
        self.assertIn("--impute none refuses", auto[0]["why"])
        self.assertEqual(run("train", "--local", model, "--dataset", data,
                             "--impute", "mode")[0], 2)
        snapshot = tempfile.mktemp(suffix=".wnms")
        code, out, err = run("-o", "json", "train", "--local", model,
                             "--dataset", data, "--impute", "median",
                             "--epochs", "150", "--optimizer", "sgdm",
                             "--lr", "0.05", "--seeds", "2", "--save",
                             snapshot)
        self.assertEqual(code, 0, err)
        result = json.loads(out.splitlines()[-1])
        imputed = [d for d in result["decisions"]
                   if d["what"] == "impute median"]
        self.assertEqual(len(imputed), 1, result["decisions"])
        self.assertIn("20 missing values in 2 features", imputed[0]["why"])
        self.assertGreater(result["testMetrics"]["model"]["r2"], 0.7)
        # test and predict fill the same file's gaps from the snapshot.
        code, out, err = run("-o", "json", "test", "--local", model,
                             "--load", snapshot, "--dataset", data)
        self.assertEqual(code, 0, err)
        code, out, err = run("-o", "json", "predict", "--local", model,
                             "--load", snapshot, "--dataset", data)
        self.assertEqual(code, 0, err)
        values = [json.loads(l)["model"]["value"] for l in out.splitlines()]
        self.assertEqual(len(values), 120)
        self.assertTrue(all(v == v for v in values))  # no NaN


if __name__ == "__main__":
    WEBNNMCTL, CONFIGS = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)

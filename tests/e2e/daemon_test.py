#!/usr/bin/env python3
"""End-to-end tests of webnnmd (issue: the daemon): the real daemon on
127.0.0.1 with a temporary SQLite database, driven by webnnmctl and by a
Python gRPC client whose stubs are generated from proto/. The job
lifecycle, bad input, security and durability here; other clients, the
Vulkan backend, limits and concurrency in daemon_clients_test.py.

usage: daemon_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import json
import os
import signal
import sys
import time
import unittest

import daemon_harness as h
from daemon_harness import (Daemon, Temp, config, iris_flags, json_lines,
                            read_snapshot)

class Lifecycle(Temp):
    def test_a_job_from_submit_to_delete(self):
        # The documented configuration parses (flags override its address).
        d = self.daemon("db", "--config",
                        config("webnnmd.textproto"))
        self.assertRegex(d.ready_line, r"^webnnmd ready grpc=127\.0\.0\.1:\d+$")
        job = self.submit(d, *iris_flags(40))
        code, out, err = d.ctl("watch", job, "-o", "json")
        self.assertEqual(code, 0, err)
        events = json_lines(out)
        self.assertEqual([e["seq"] for e in events],
                         list(range(1, len(events) + 1)))
        types = [e["type"] for e in events]
        for t in ["STATE", "DECISION", "WARNING", "SCOUT", "EPOCH", "SNAPSHOT",
                  "TEST"]:
            self.assertIn(t, types)
        states = [e["state"] for e in events if e["type"] == "STATE"]
        self.assertEqual(states, ["QUEUED", "RUNNING", "SUCCEEDED"])
        epochs = [e for e in events if e["type"] == "EPOCH"]
        self.assertEqual([e["epoch"] for e in epochs], list(range(1, 41)))
        for key in ["epoch", "trainLoss", "validationLoss", "trainAccuracy",
                    "validationAccuracy", "lr", "samplesPerSecond"]:
            self.assertIn(key, epochs[0])
        self.assertTrue(0 <= epochs[-1]["trainAccuracy"] <= 1)
        self.assertRegex(events[0]["time"],
                         r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")

        got = self.get(d, job)
        for key in ["jobId", "state", "epoch", "bestEpoch", "testAccuracy",
                    "testLoss", "error", "trainSamplesPerSecond",
                    "finalTrainLoss", "validationLoss", "outputs",
                    "decisions", "warnings"]:
            self.assertIn(key, got)
        self.assertEqual(got["state"], "SUCCEEDED")
        self.assertEqual(got["epoch"], 40)
        self.assertIsNone(got["error"])

        # The daemon trains exactly as `train --local` does.
        code, out, err = d.ctl("train", "--local", *iris_flags(40), "-o",
                               "json")
        self.assertEqual(code, 0, err)
        local = json.loads(out.splitlines()[-1])
        for key in ["bestEpoch", "finalTrainLoss", "validationLoss",
                    "testLoss", "testAccuracy", "decisions", "warnings",
                    "testMetrics"]:
            self.assertEqual(got[key], local[key], key)
        self.assertEqual(got["testMetrics"]["model"]["accuracy"],
                         got["testAccuracy"])

        # Watching from a sequence number replays from there.
        code, out, _ = d.ctl("watch", job, "--from-seq", "5", "-o", "json")
        self.assertEqual(code, 0)
        self.assertEqual([e["seq"] for e in json_lines(out)],
                         list(range(5, len(events) + 1)))
        code, out, _ = d.ctl("logs", job)
        self.assertEqual(code, 0)
        self.assertIn("SUCCEEDED", out)

        code, out, _ = d.ctl("list", "-o", "json")
        self.assertEqual([j["jobId"] for j in json.loads(out)["jobs"]], [job])
        code, out, _ = d.ctl("list", "--state", "RUNNING", "-o", "json")
        self.assertEqual(json.loads(out)["jobs"], [])

        code, out, _ = d.ctl("metrics", job, "-o", "json")
        self.assertEqual(code, 0)
        metrics = json.loads(out)["metrics"]
        self.assertEqual(len(metrics["trainLoss"]), 40)
        self.assertEqual(metrics["trainLoss"][-1]["value"],
                         epochs[-1]["trainLoss"])
        code, out, _ = d.ctl("metrics", job, "--name", "trainAccuracy",
                             "-o", "json")
        self.assertEqual(code, 0)
        accuracy = json.loads(out)["metrics"]
        self.assertEqual(list(accuracy), ["trainAccuracy"])
        self.assertEqual([p["value"] for p in accuracy["trainAccuracy"]],
                         [e["trainAccuracy"] for e in epochs])

        code, out, err = d.ctl("infer", job, "--values", "5.1,3.5,1.4,0.2",
                               "--values", "6.7,3.0,5.2,2.3", "-o", "json")
        self.assertEqual(code, 0, err)
        answer = json.loads(out)
        self.assertEqual(answer["outputs"]["model"]["shape"], [2, 3])
        self.assertEqual(answer["outputs"]["model"]["predictions"],
                         ["setosa", "virginica"])

        # Export, import as a new job, infer there alike.
        path = os.path.join(self.dir, "iris.wnms")
        code, _, err = d.ctl("snapshot", "export", job, "-f", path)
        self.assertEqual(code, 0, err)
        header, tensors = read_snapshot(path)
        self.assertEqual(header.epoch, 40)
        code, out, err = d.ctl("snapshot", "import", path, "-o", "json")
        self.assertEqual(code, 0, err)
        imported = json.loads(out)["jobId"]
        self.assertEqual(self.get(d, imported)["state"], "SUCCEEDED")
        code, out2, _ = d.ctl("infer", imported, "--values",
                              "5.1,3.5,1.4,0.2", "--values",
                              "6.7,3.0,5.2,2.3", "-o", "json")
        self.assertEqual(json.loads(out2)["outputs"], answer["outputs"])

        # The same dataset is uploaded once.
        code, out, _ = d.ctl("dataset", "list", "-o", "json")
        self.assertEqual(len(json.loads(out)["datasets"]), 1)
        self.submit(d, *iris_flags(1))
        code, out, _ = d.ctl("dataset", "list", "-o", "json")
        self.assertEqual(len(json.loads(out)["datasets"]), 1)

        code, _, err = d.ctl("delete", job)
        self.assertEqual(code, 0, err)
        code, _, err = d.ctl("get", job)
        self.assertEqual(code, 1)
        self.assertIn("no job", err)
        self.assertEqual(d.stop(), 0)

    def test_health_says_the_daemons_version(self):
        # KServe's ServerMetadata gives webnnmd's version; a client without
        # the token a daemon asks for gets the status alone.
        d = self.daemon()
        code, out, err = d.ctl("-o", "json", "health")
        self.assertEqual(code, 0, err)
        health = json.loads(out)
        self.assertEqual(health["status"], "SERVING")
        self.assertEqual(health["server"], "webnnmd")
        self.assertRegex(health["version"], r"^\d+\.\d+\.\d+$")
        code, out, err = d.ctl("--version")
        self.assertEqual(out.split()[1], health["version"])
        code, out, err = d.ctl("health")
        self.assertEqual(out.strip(),
                         f"SERVING (webnnmd {health['version']})")
        self.assertEqual(d.stop(), 0)

    def test_a_failed_job_reports_its_error(self):
        d = self.daemon()
        # A label column the model cannot take fails at submit, not later.
        bad = os.path.join(self.dir, "bad.csv")
        with open(bad, "w") as f:
            f.write("a,b,c,d,label\n1,2,3,4,x\n1,2,3\n")
        code, _, err = d.ctl("submit", config("models", "iris.wnm"),
                             "--dataset", bad)
        self.assertEqual(code, 1)
        self.assertIn("bad.csv", err)
        self.assertIn("3", err)  # the line
        code, out, _ = d.ctl("list", "-o", "json")
        self.assertEqual(json.loads(out)["jobs"], [])
        # A run that diverges ends FAILED with the reason, not SUCCEEDED.
        flags = iris_flags(20)
        flags[flags.index("--lr") + 1] = "1e6"
        job = self.submit(d, *flags)
        code, out, _ = d.ctl("watch", job, "-o", "json")
        self.assertEqual(code, 1)
        got = self.get(d, job)
        self.assertEqual(got["state"], "FAILED")
        self.assertIn("training diverged", got["error"])
        events = json_lines(out)
        self.assertIn(got["error"], [e.get("message") for e in events
                                     if e["type"] == "ERROR"])
        self.assertTrue([e for e in events if e["type"] == "DECISION"
                         and e["what"].startswith("lr ")])


    def test_the_models_own_warnings_reach_train_and_the_jobs_events(self):
        # An unused constant is the model's warning (check shows it): train
        # --local prints it and lists it in its result, and a daemon job
        # records it as a WARNING event and in `get`.
        with open(config("models", "iris.wnm"), encoding="utf-8") as f:
            text = f.read()
        model = os.path.join(self.dir, "iris-unused.wnm")
        with open(model, "w", encoding="utf-8") as f:
            f.write("unused float32 3.5;\n" + text)
        flags = iris_flags(2)
        flags[0] = model
        warning = "iris-unused.wnm:1:1: constant 'unused' is never used"
        d = self.daemon()
        code, out, err = d.ctl("train", "--local", *flags)
        self.assertEqual(code, 0, err)
        self.assertIn(f"warning: {model}:1:1: constant 'unused' is never used",
                      out)
        code, out, err = d.ctl("train", "--local", *flags, "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertTrue(any(w.endswith(warning)
                            for w in json.loads(out)["warnings"]))
        job = self.submit(d, *flags)
        code, out, err = d.ctl("watch", job, "-o", "json")
        self.assertEqual(code, 0, err)
        warnings = [e.get("message", e.get("warning", "")) for e in
                    json_lines(out) if e["type"] == "WARNING"]
        self.assertTrue(any(w.endswith(warning) for w in warnings), warnings)
        self.assertTrue(any(w.endswith(warning)
                            for w in self.get(d, job)["warnings"]))
        self.assertEqual(d.stop(), 0)

    def test_submit_takes_an_uploaded_datasets_id(self):
        d = self.daemon()
        code, out, err = d.ctl("dataset", "upload",
                               config("datasets", "iris.csv"), "-o", "json")
        self.assertEqual(code, 0, err)
        dataset = json.loads(out)["datasetId"]
        flags = iris_flags(3)
        flags[flags.index("--dataset") + 1] = dataset
        job = self.submit(d, *flags)
        self.assertEqual(self.get(d, job)["datasetId"], dataset)
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        self.assertEqual(self.get(d, job)["state"], "SUCCEEDED")
        # Neither a file nor a dataset id: a usage error naming it.
        flags[flags.index("--dataset") + 1] = "d000000000000"
        code, _, err = d.ctl("submit", *flags)
        self.assertEqual(code, 2)
        self.assertIn("'d000000000000' is neither a dataset file", err)
        self.assertEqual(d.stop(), 0)


    def test_a_starter_model_and_the_label_chosen_for_a_newcomers_csv(self):
        # The species first: no --label. InitModel writes a model for the
        # uploaded file; the job's label is the one chosen, shown by get.
        rows = ["species,sepal_length,sepal_width,petal_length,petal_width"]
        with open(config("datasets", "iris.csv")) as f:
            for line in f.read().splitlines()[1:]:
                v = line.split(",")
                rows.append(",".join([v[-1]] + v[:-1]))
        path = os.path.join(self.dir, "flowers.csv")
        with open(path, "w") as f:
            f.write("\n".join(rows) + "\n")
        d = self.daemon()
        code, out, err = d.ctl("dataset", "upload", path, "-o", "json")
        self.assertEqual(code, 0, err)
        dataset = json.loads(out)["datasetId"]
        import grpc
        from webnnm.v1 import webnnm_pb2, webnnm_pb2_grpc
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        # Named like a label nowhere: the starter takes the last column
        # unless told; told, it writes three classes of species.
        started = stub.InitModel(webnnm_pb2.InitModelRequest(
            dataset_id=dataset, label="species"), timeout=60)
        self.assertEqual(started.label, "species")
        self.assertIn("model:output shape=[3];", started.model_text)
        self.assertIn("flowers.csv", started.model_text)
        self.assertTrue(any("3 classes" in n for n in started.notes))
        checked = stub.CheckModel(webnnm_pb2.CheckModelRequest(
            model_text=started.model_text), timeout=60)
        self.assertTrue(checked.ok)
        model = os.path.join(self.dir, "flowers.wnm")
        with open(model, "w") as f:
            f.write(started.model_text)
        job = self.submit(d, model, "--dataset", dataset, "--epochs", "20",
                          "--seeds", "3")
        got = self.get(d, job)
        self.assertEqual(got["data"]["label"], "species")
        self.assertTrue(got["data"]["labelChosen"])
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        got = self.get(d, job)
        label = [x for x in got["decisions"]
                 if x["what"] == "label column 'species'"]
        self.assertEqual(len(label), 1, got["decisions"])
        self.assertGreater(got["testAccuracy"], 0.8)
        # No such dataset: NOT_FOUND; data it cannot model: INVALID_ARGUMENT
        # naming the dataset, not the daemon's folder.
        with self.assertRaises(grpc.RpcError) as e:
            stub.InitModel(webnnm_pb2.InitModelRequest(dataset_id="d-none"),
                           timeout=60)
        self.assertEqual(e.exception.code(), grpc.StatusCode.NOT_FOUND)
        with self.assertRaises(grpc.RpcError) as e:
            stub.InitModel(webnnm_pb2.InitModelRequest(
                dataset_id=dataset, label="nosuch"), timeout=60)
        self.assertEqual(e.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("flowers.csv: no column 'nosuch'", e.exception.details())
        self.assertEqual(d.stop(), 0)

    def test_a_regression_job_predicts_in_the_targets_units(self):
        # y = 1000 + 50a - 30b: the linear output trains on standardized
        # targets, and infer and the test's metrics are in y's units.
        import random
        rng = random.Random(1)
        data = os.path.join(self.dir, "regression.csv")
        with open(data, "w") as f:
            f.write("a,b,y\n")
            for _ in range(200):
                a, b = rng.uniform(0, 10), rng.uniform(0, 10)
                f.write(f"{a:.3f},{b:.3f},{1000 + 50 * a - 30 * b:.3f}\n")
        model = os.path.join(self.dir, "regression.wnm")
        with open(model, "w") as f:
            f.write("model:input shape=[2];\nmodel:output shape=[1];\n"
                    "model:layers dense(shape=[8], activation=tanh), "
                    "dense(shape=[1], activation=identity);\n"
                    "dense:layers matmul(w), add(b), activation();\n")
        flags = [model, "--dataset", data, "--epochs", "200", "--optimizer",
                 "sgdm", "--lr", "0.05", "--seeds", "5"]
        d = self.daemon()
        job = self.submit(d, *flags)
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        got = self.get(d, job)
        self.assertIn("standardize the targets of 'model'",
                      [x["what"] for x in got["decisions"]])
        code, out, err = d.ctl("train", "--local", *flags, "-o", "json")
        self.assertEqual(code, 0, err)
        local = json.loads(out.splitlines()[-1])
        self.assertEqual(got["testMetrics"], local["testMetrics"])
        self.assertGreater(got["testMetrics"]["model"]["r2"], 0.99)
        code, out, err = d.ctl("infer", job, "--values", "5,5", "-o", "json")
        self.assertEqual(code, 0, err)
        predicted = json.loads(out)["outputs"]["model"]["values"][0]
        self.assertAlmostEqual(predicted, 1100, delta=30)
        self.assertEqual(d.stop(), 0)


    def test_a_sequence_job_trains_and_serves_over_its_steps(self):
        # digits' 64 pixels into {sequence, features: 8}: an LSTM over 8
        # rows of 8; the daemon's job equals train --local, and infer
        # takes a row's 64 values as 8 steps (or 8 steps of [8] each).
        model = os.path.join(self.dir, "rows.wnm")
        with open(model, "w") as f:
            f.write("model:input shape={sequence, features: 8};\n"
                    "model:output shape=[10];\n"
                    "model:layers lstm(w, r, hiddenSize=16, bias=b, "
                    "recurrentBias=rb), dense(shape=[10], "
                    "activation=softmax);\n"
                    "dense:layers matmul(w), add(b), activation();\n")
        flags = [model, "--dataset", config("datasets", "digits.csv"),
                 "--label", "digit", "--epochs", "4", "--seeds", "2"]
        d = self.daemon()
        job = self.submit(d, *flags)
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        got = self.get(d, job)
        self.assertEqual(got["state"], "SUCCEEDED")
        code, out, err = d.ctl("train", "--local", *flags, "-o", "json")
        self.assertEqual(code, 0, err)
        local = json.loads(out.splitlines()[-1])
        self.assertEqual(got["testMetrics"], local["testMetrics"])
        self.assertGreater(got["testAccuracy"], 0.5)
        with open(config("datasets", "digits.csv")) as f:
            row = f.read().splitlines()[1].split(",")[:-1]
        code, out, err = d.ctl("infer", job, "--values", ",".join(row),
                               "-o", "json")
        self.assertEqual(code, 0, err)
        probabilities = json.loads(out)["outputs"]["model"]["values"]
        self.assertEqual(len(probabilities), 10)
        self.assertAlmostEqual(sum(probabilities), 1, places=4)
        # 60 values are no whole number of steps of 8.
        code, _, err = d.ctl("infer", job, "--values", ",".join(row[:60]))
        self.assertNotEqual(code, 0)
        self.assertIn("is a sequence of steps of 8 values", err)
        self.assertEqual(d.stop(), 0)


    def test_a_two_input_model_trains_from_an_uploaded_npz(self):
        # multimodal.wnm (an image and a sound; a class and a score) on its
        # shipped archive: submit uploads it as NPZ; the job equals train
        # --local, with every output's metrics (one thread each: the
        # daemon's jobs default to its thread count, and oneDNN's
        # convolutions and recurrences round differently on two).
        flags = [config("models", "multimodal.wnm"), "--dataset",
                 config("datasets", "multimodal.npz"), "--epochs", "60",
                 "--seeds", "5", "--threads", "1"]
        d = self.daemon()
        job = self.submit(d, *flags)
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        got = self.get(d, job)
        self.assertEqual(got["state"], "SUCCEEDED")
        self.assertEqual(sorted(got["testMetrics"]), ["label", "score"])
        code, out, err = d.ctl("train", "--local", *flags, "-o", "json")
        self.assertEqual(code, 0, err)
        local = json.loads(out.splitlines()[-1])
        self.assertEqual(got["testMetrics"], local["testMetrics"])
        self.assertGreater(got["testMetrics"]["label"]["accuracy"], 0.8)
        code, out, err = d.ctl("dataset", "list", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["datasets"][0]["format"], "NPZ")
        self.assertEqual(d.stop(), 0)

    def test_infer_names_the_class_of_a_sigmoid_unit(self):
        model = os.path.join(self.dir, "binary.wnm")
        with open(model, "w") as f:
            f.write("model:input shape=[30];\nmodel:output shape=[1];\n"
                    "model:layers dense(shape=[8], activation=relu), "
                    "dense(shape=[1], activation=sigmoid);\n"
                    "dense:layers matmul(w), add(b), activation();\n")
        data = config("datasets", "breast-cancer.csv")
        d = self.daemon()
        job = self.submit(d, model, "--dataset", data, "--epochs", "20",
                          "--seeds", "2")
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        with open(data) as f:
            row = f.read().splitlines()[1].split(",")
        code, out, err = d.ctl("infer", job, "--values", ",".join(row[:-1]),
                               "-o", "json")
        self.assertEqual(code, 0, err)
        served = json.loads(out)
        self.assertEqual(served["classes"], ["benign", "malignant"])
        self.assertIn(served["outputs"]["model"]["predictions"][0],
                      served["classes"])
        self.assertEqual(d.stop(), 0)

    def test_infer_serves_every_batch_size_from_a_few_compilations(self):
        # Batches of 1..40 rows run on contexts compiled for powers of two
        # (padded with zero rows, cut back): each row as it is alone.
        from webnnm.v1 import webnnm_pb2, webnnm_pb2_grpc
        d = self.daemon()
        job = self.submit(d, *iris_flags(20))
        self.assertEqual(d.ctl("watch", job)[0], 0)
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        with open(config("datasets", "iris.csv")) as f:
            rows = [[float(v) for v in line.split(",")[:4]]
                    for line in f.read().splitlines()[1:41]]

        def infer(batch):
            served = stub.Infer(webnnm_pb2.InferRequest(
                job_id=job, inputs=[webnnm_pb2.Tensor(
                    shape=[len(batch), 4],
                    values=[v for r in batch for v in r])]), timeout=60)
            self.assertEqual(list(served.outputs[0].shape), [len(batch), 3])
            values = list(served.outputs[0].values)
            return [values[3 * i:3 * i + 3] for i in range(len(batch))]
        alone = [infer([r])[0] for r in rows]
        for size in range(1, 41):
            together = infer(rows[:size])
            for i in range(size):
                for a, b in zip(together[i], alone[i]):
                    self.assertAlmostEqual(a, b, places=5, msg=(size, i))
        self.assertEqual(d.stop(), 0)

    def test_infer_imputes_a_missing_value_as_training_did(self):
        import math
        from webnnm.v1 import webnnm_pb2, webnnm_pb2_grpc
        data = os.path.join(h.SOURCE, "tests", "golden", "train", "data",
                            "iris-missing.csv")
        d = self.daemon()
        job = self.submit(d, config("models", "iris.wnm"), "--dataset", data,
                          "--impute", "mean", "--epochs", "30", "--seeds", "2")
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        served = stub.Infer(webnnm_pb2.InferRequest(
            job_id=job, inputs=[webnnm_pb2.Tensor(
                shape=[1, 4], values=[5.1, float("nan"), 1.4, 0.2])]),
            timeout=60)
        probabilities = list(served.outputs[0].values)
        self.assertEqual(len(probabilities), 3)
        self.assertTrue(all(math.isfinite(p) for p in probabilities),
                        probabilities)
        self.assertAlmostEqual(sum(probabilities), 1.0, places=4)
        # The same as Predict on a file with that field empty (Predict
        # imputes from the snapshot too).
        row = os.path.join(self.dir, "one.csv")
        with open(row, "w") as f:
            f.write("sepal_length,sepal_width,petal_length,petal_width,"
                    "species\n5.1,,1.4,0.2,setosa\n")
        code, out, err = d.ctl("dataset", "upload", row, "-o", "json")
        self.assertEqual(code, 0, err)
        code, out, err = d.ctl("-o", "json", "predict", job, "--dataset",
                               json.loads(out)["datasetId"])
        self.assertEqual(code, 0, err)
        predicted = json.loads(out.splitlines()[0])["model"]["probabilities"]
        for a, b in zip(predicted, probabilities):
            self.assertAlmostEqual(a, b, places=5)
        self.assertEqual(d.stop(), 0)

    def test_predict_over_a_file_equals_infer_one_by_one(self):
        d = self.daemon()
        job = self.submit(d, *iris_flags(40))
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        snapshot = os.path.join(self.dir, "iris.wnms")
        code, _, err = d.ctl("snapshot", "export", job, "-f", snapshot)
        self.assertEqual(code, 0, err)
        data = config("datasets", "iris.csv")
        code, out, err = d.ctl("-o", "json", "predict", "--local",
                               config("models", "iris.wnm"), "--load",
                               snapshot, "--dataset", data)
        self.assertEqual(code, 0, err)
        predictions = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(len(predictions), 150)
        with open(data) as f:
            rows = f.read().splitlines()[1:]
        for i in (0, 60, 149):
            values = ",".join(rows[i].split(",")[:-1])
            code, out, err = d.ctl("infer", job, "--values", values, "-o",
                                   "json")
            self.assertEqual(code, 0, err)
            served = json.loads(out)["outputs"]["model"]["values"]
            local = predictions[i]["model"]["probabilities"]
            self.assertEqual(len(served), len(local))
            for a, b in zip(served, local):
                self.assertAlmostEqual(a, b, delta=1e-6)
        # The daemon's Predict over the uploaded file: the same JSON lines,
        # the same CSV as predict --local writes.
        code, out, err = d.ctl("-o", "json", "predict", job, "--dataset",
                               data)
        self.assertEqual(code, 0, err)
        remote = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(len(remote), 150)
        for a, b in zip(remote, predictions):
            self.assertEqual(a["model"]["class"], b["model"]["class"])
            for p, q in zip(a["model"]["probabilities"],
                            b["model"]["probabilities"]):
                self.assertAlmostEqual(p, q, delta=1e-6)
        local_csv = os.path.join(self.dir, "local.csv")
        remote_csv = os.path.join(self.dir, "remote.csv")
        code, _, err = d.ctl("predict", "--local", config("models", "iris.wnm"),
                             "--load", snapshot, "--dataset", data,
                             "--output", local_csv)
        self.assertEqual(code, 0, err)
        code, out, err = d.ctl("predict", job, "--dataset", data, "--output",
                               remote_csv)
        self.assertEqual(code, 0, err)
        self.assertIn("predicted 150 samples", out)
        with open(local_csv) as f, open(remote_csv) as g:
            local_rows = [r.split(",") for r in f.read().splitlines()]
            remote_rows = [r.split(",") for r in g.read().splitlines()]
        self.assertEqual(local_rows[0], remote_rows[0])
        self.assertEqual(len(local_rows), len(remote_rows))
        for a, b in zip(local_rows[1:], remote_rows[1:]):
            self.assertEqual(a[0], b[0])  # the class
            for p, q in zip(a[1:], b[1:]):
                self.assertAlmostEqual(float(p), float(q), delta=1e-6)
        # Errors: an unknown job, a job that is not finished, a wrong output.
        code, _, err = d.ctl("predict", "j-nope", "--dataset", data)
        self.assertEqual(code, 1)
        self.assertIn("j-nope", err)
        self.assertEqual(d.ctl("predict", job, "--dataset", data, "--output",
                               "x.txt")[0], 2)
        self.assertEqual(d.stop(), 0)

    def test_an_image_folder_uploads_zipped_trains_and_predicts(self):
        # 8x8 gray PNGs: class "left" bright on the left half, "right" on
        # the right, a little noise; one 12x12 image needs --resize.
        import random
        import struct
        import zlib
        rng = random.Random(3)

        def png(pixels, w, h):
            def chunk(kind, data):
                return (struct.pack(">I", len(data)) + kind + data +
                        struct.pack(">I", zlib.crc32(kind + data)))
            rows = b"".join(b"\0" + bytes(pixels[y * w:(y + 1) * w])
                            for y in range(h))
            return (b"\x89PNG\r\n\x1a\n" +
                    chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

        folder = os.path.join(self.dir, "halves")
        for cls in ("left", "right"):
            os.makedirs(os.path.join(folder, cls))
            for i in range(30):
                size = 12 if i == 0 and cls == "left" else 8
                pixels = []
                for y in range(size):
                    for x in range(size):
                        bright = (x < size // 2) == (cls == "left")
                        pixels.append(min(255, (200 if bright else 30) +
                                          rng.randrange(20)))
                with open(os.path.join(folder, cls, f"{i:02d}.png"), "wb") as f:
                    f.write(png(pixels, size, size))
        model = os.path.join(self.dir, "halves.wnm")
        with open(model, "w") as f:
            f.write("model:input shape={channels: 1, height: 8, width: 8};\n"
                    "model:output shape=[2];\n"
                    "model:layers reshape(newShape=[64]), "
                    "dense(shape=[2], activation=softmax);\n"
                    "dense:layers matmul(w), add(b), activation();\n")
        d = self.daemon()
        code, out, err = d.ctl("dataset", "upload", folder, "-o", "json")
        self.assertEqual(code, 0, err)
        uploaded = json.loads(out)
        self.assertEqual(uploaded["format"], "IMAGES")
        # dataset list counts the images and the classes.
        self.assertEqual((uploaded["rows"], uploaded["columns"]), (60, 2))
        # Again: the same content, the same dataset (zipped alike).
        code, out, err = d.ctl("dataset", "upload", folder, "-o", "json")
        self.assertEqual(json.loads(out)["datasetId"], uploaded["datasetId"])
        # The 12x12 image is refused, naming it, unless resized.
        code, _, err = d.ctl("submit", model, "--dataset",
                             uploaded["datasetId"], "--epochs", "5")
        self.assertEqual(code, 1)
        self.assertIn("left/00.png", err)
        job = self.submit(d, model, "--dataset", uploaded["datasetId"],
                          "--resize", "--epochs", "40", "--seeds", "3",
                          "--optimizer", "sgdm", "--lr", "0.1")
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        self.assertGreaterEqual(self.get(d, job)["testAccuracy"], 0.9)
        code, out, err = d.ctl("predict", job, "--dataset",
                               uploaded["datasetId"])
        self.assertEqual(code, 0, err)
        rows = out.splitlines()
        self.assertEqual(rows[0], "model:class,model:left,model:right")
        self.assertEqual(len(rows), 61)
        # A TEST job of the snapshot resizes as its training job did.
        from webnnm.v1 import webnnm_pb2, webnnm_pb2_grpc
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        test = stub.SubmitJob(webnnm_pb2.SubmitJobRequest(
            kind=webnnm_pb2.JOB_KIND_TEST, snapshot_job_id=job,
            data=webnnm_pb2.DataSpec(dataset_id=uploaded["datasetId"])),
            timeout=60).job.job_id
        code, _, err = d.ctl("watch", test)
        self.assertEqual(code, 0, err)
        self.assertGreaterEqual(self.get(d, test)["testAccuracy"], 0.9)
        self.assertEqual(d.stop(), 0)

    def test_predict_a_two_input_model_from_an_npz_upload(self):
        d = self.daemon()
        data = config("datasets", "multimodal.npz")
        job = self.submit(d, config("models", "multimodal.wnm"), "--dataset",
                          data, "--seeds", "3")
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        out_npz = os.path.join(self.dir, "p.npz")
        code, out, err = d.ctl("-o", "json", "predict", job, "--dataset",
                               data, "--output", out_npz)
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["samples"], 300)
        import zipfile
        with zipfile.ZipFile(out_npz) as z:
            self.assertEqual(sorted(z.namelist()),
                             ["label.npy", "label_class.npy",
                              "label_classes.npy", "score.npy"])
        code, out, err = d.ctl("-o", "json", "predict", job, "--dataset",
                               data)
        self.assertEqual(code, 0, err)
        first = json.loads(out.splitlines()[0])
        self.assertEqual(sorted(first), ["index", "label", "score"])
        self.assertEqual(len(first["label"]["probabilities"]), 6)
        self.assertIsInstance(first["score"]["value"], float)
        self.assertEqual(d.stop(), 0)

    def test_a_tagger_trains_and_predicts_a_class_a_word(self):
        # tagger.wnm (a sequenced output: a tag per word of ragged
        # sentences) on its shipped archive, with no flags but a short
        # run: the job equals train --local (one thread each), its metrics
        # count words; the daemon's predictions equal predict --local's,
        # a class per real word, in CSV, JSON lines and .npz.
        data = config("datasets", "tagging.npz")
        flags = [config("models", "tagger.wnm"), "--dataset", data,
                 "--epochs", "15", "--seeds", "3", "--threads", "1"]
        d = self.daemon()
        job = self.submit(d, *flags)
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        got = self.get(d, job)
        self.assertEqual(got["state"], "SUCCEEDED")
        code, out, err = d.ctl("train", "--local", *flags, "-o", "json",
                               "--save", os.path.join(self.dir, "t.wnms"))
        self.assertEqual(code, 0, err)
        local = json.loads(out.splitlines()[-1])
        self.assertEqual(got["testMetrics"], local["testMetrics"])
        self.assertGreater(got["testAccuracy"], 0.95)
        confusion = got["testMetrics"]["model"]["confusionMatrix"]
        # 180 test sentences of 4..16 words: many more words than samples.
        self.assertGreater(sum(map(sum, confusion)), 180 * 4)
        code, remote, err = d.ctl("-o", "json", "predict", job, "--dataset",
                                  data)
        self.assertEqual(code, 0, err)
        code, mine, err = d.ctl("-o", "json", "predict", "--local",
                                config("models", "tagger.wnm"), "--load",
                                os.path.join(self.dir, "t.wnms"),
                                "--dataset", data)
        self.assertEqual(code, 0, err)
        remote, mine = remote.splitlines(), mine.splitlines()
        self.assertEqual(len(remote), 1200)
        self.assertEqual(len(mine), 1200)
        import numpy as np
        arrays = np.load(data)
        for r, m in zip(remote[:50], mine[:50]):
            r, m = json.loads(r), json.loads(m)
            steps = r["model"]["steps"]
            self.assertEqual(len(steps), arrays["x_lengths"][r["index"]])
            self.assertEqual([s["class"] for s in steps],
                             [s["class"] for s in m["model"]["steps"]])
            for a, b in zip(steps, m["model"]["steps"]):
                for x, y in zip(a["probabilities"], b["probabilities"]):
                    self.assertAlmostEqual(x, y, places=5)
        out_npz = os.path.join(self.dir, "p.npz")
        code, out, err = d.ctl("-o", "json", "predict", job, "--dataset",
                               data, "--output", out_npz)
        self.assertEqual(code, 0, err)
        p = np.load(out_npz)
        self.assertEqual(p["model"].shape, (1200, 16, 3))
        self.assertEqual(p["model_class"].shape, (1200, 16))
        self.assertEqual(list(p["model_lengths"]), list(arrays["x_lengths"]))
        lengths, tags = arrays["x_lengths"], arrays["y"]
        right = sum((p["model_class"][i, :lengths[i]] ==
                     tags[i, :lengths[i]]).sum() for i in range(1200))
        self.assertGreater(right / lengths.sum(), 0.95)
        self.assertEqual(p["model_class"][0, lengths[0]:].tolist(),
                         [-1] * (16 - lengths[0]))
        # infer: a sentence of three words gets a tag a word.
        code, out, err = d.ctl("infer", job, "--values", "22,1,18",
                               "-o", "json")
        self.assertEqual(code, 0, err)
        tagged = json.loads(out)["outputs"]["model"]
        self.assertEqual(tagged["shape"], [1, 3, 3])
        self.assertEqual(tagged["predictions"], [["1", "2", "0"]])
        self.assertEqual(d.stop(), 0)


class BadInput(Temp):
    def test_data_errors_name_the_dataset_not_the_daemons_folders(self):
        bad = os.path.join(self.dir, "iris-bad.csv")
        with open(config("datasets", "iris.csv")) as f:
            lines = f.read().splitlines()
        lines[3] = "5.1,x,1.4,0.2,setosa"
        with open(bad, "w") as f:
            f.write("\n".join(lines) + "\n")
        d = self.daemon()
        code, out, err = d.ctl("dataset", "upload", bad, "-o", "json")
        self.assertEqual(code, 0, err)
        dataset = json.loads(out)["datasetId"]
        code, _, err = d.ctl("submit", config("models", "iris.wnm"),
                             "--dataset", dataset)
        self.assertEqual(code, 1)
        self.assertIn("iris-bad.csv:4:", err)
        self.assertNotIn(self.dir, err)  # the database and its data folder
        self.assertNotIn("datasets/", err)
        self.assertEqual(d.stop(), 0)

    def test_finishing_an_upload_is_idempotent(self):
        import grpc
        import hashlib
        import threading
        from webnnm.v1 import webnnm_pb2, webnnm_pb2_grpc
        d = self.daemon()
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        with open(config("datasets", "iris.csv"), "rb") as f:
            content = f.read()
        # A dataset's hash (proto/wire/sha256.h): per file, its name, NUL,
        # its size, NUL, its bytes.
        sha = hashlib.sha256(b"iris.csv\0" + str(len(content)).encode() +
                             b"\0" + content).hexdigest()
        start = stub.UploadDataset(webnnm_pb2.UploadDatasetRequest(
            name="iris.csv", format=1, sha256=sha,
            total_bytes=len(content)), timeout=30)
        stub.UploadDataset(webnnm_pb2.UploadDatasetRequest(
            upload_id=start.upload_id, file_name="iris.csv", data=content),
            timeout=30)
        # Two finishes at once, then a retry: one dataset, the same answer.
        answers, errors = [], []

        def finish():
            try:
                answers.append(stub.UploadDataset(
                    webnnm_pb2.UploadDatasetRequest(
                        upload_id=start.upload_id, finish=True),
                    timeout=30).dataset.dataset_id)
            except grpc.RpcError as e:
                errors.append(e.details())
        threads = [threading.Thread(target=finish) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        finish()
        self.assertEqual(errors, [])
        self.assertEqual(len(set(answers)), 1, answers)
        with self.assertRaises(grpc.RpcError) as caught:
            stub.UploadDataset(webnnm_pb2.UploadDatasetRequest(
                upload_id=start.upload_id, file_name="iris.csv", data=b"x"),
                timeout=30)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.FAILED_PRECONDITION)
        # A snapshot import finished twice is one job.
        job = self.submit(d, *iris_flags(3))
        self.assertEqual(d.ctl("watch", job)[0], 0)
        snapshot = os.path.join(self.dir, "s.wnms")
        self.assertEqual(d.ctl("snapshot", "export", job, "-f", snapshot)[0],
                         0)
        with open(snapshot, "rb") as f:
            blob = f.read()
        start = stub.ImportSnapshot(webnnm_pb2.ImportSnapshotRequest(
            total_bytes=len(blob), sha256=hashlib.sha256(blob).hexdigest()),
            timeout=30)
        stub.ImportSnapshot(webnnm_pb2.ImportSnapshotRequest(
            upload_id=start.upload_id, data=blob), timeout=30)
        jobs = {stub.ImportSnapshot(webnnm_pb2.ImportSnapshotRequest(
            upload_id=start.upload_id, finish=True), timeout=30).job.job_id
            for _ in range(2)}
        self.assertEqual(len(jobs), 1, jobs)
        self.assertEqual(len(stub.ListJobs(webnnm_pb2.ListJobsRequest(),
                                           timeout=30).jobs), 2)
        self.assertEqual(d.stop(), 0)

    def test_malformed_requests_get_clear_errors_and_queue_nothing(self):
        import grpc
        from webnnm.v1 import hyperparameters_pb2, webnnm_pb2, webnnm_pb2_grpc
        d = self.daemon()
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        model = os.path.join(self.dir, "bad.wnm")
        with open(model, "w") as f:
            f.write("model:input shape=[4];\nmodel:layers dense(shape=[3]);\n"
                    "model:output shape=[3]\n")
        code, _, err = d.ctl("submit", model, "--dataset",
                             config("datasets", "iris.csv"))
        self.assertEqual(code, 1)
        self.assertIn("bad.wnm:", err)

        def status(call, request):
            with self.assertRaises(grpc.RpcError) as caught:
                call(request, timeout=30)
            return caught.exception.code(), caught.exception.details()

        code, details = status(stub.GetJob,
                               webnnm_pb2.GetJobRequest(job_id="nope"))
        self.assertEqual(code, grpc.StatusCode.NOT_FOUND)
        code, details = status(stub.SubmitJob, webnnm_pb2.SubmitJobRequest(
            model_text="model:input shape=[4];", data=webnnm_pb2.DataSpec(
                dataset_id="d-unknown")))
        self.assertEqual(code, grpc.StatusCode.NOT_FOUND)
        code, details = status(stub.SubmitJob, webnnm_pb2.SubmitJobRequest(
            model_text="x", hyperparameters=hyperparameters_pb2.Hyperparameters(
                optimizer="adagrad"), data=webnnm_pb2.DataSpec(dataset_id="d")))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("optimizer", details)
        # 40 errors: the refusal's message (metadata) holds the first 10
        # and says how many more; CheckModel's body lists them all.
        many = ("model:input shape=[4];\nmodel:output shape=[3];\n"
                "model:layers " + ", ".join(f"nosuch{i}()" for i in range(40))
                + ";\n")
        code, out, err = d.ctl("dataset", "upload",
                               config("datasets", "iris.csv"), "-o", "json")
        self.assertEqual(code, 0, err)
        iris = json.loads(out)["datasetId"]
        code, details = status(stub.SubmitJob, webnnm_pb2.SubmitJobRequest(
            model_text=many, data=webnnm_pb2.DataSpec(dataset_id=iris)))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        import re
        shown = details.count("error: unknown operator")
        self.assertGreaterEqual(shown, 1)
        self.assertLessEqual(shown, 10)
        self.assertNotIn("unknown operator 'nosuch10'", details)
        more = re.search(r"… and (\d+) more \(CheckModel lists them all\)",
                         details)
        self.assertIsNotNone(more, details[-200:])
        self.assertEqual(shown + int(more.group(1)), 40)
        self.assertLessEqual(len(details.encode()), 4096 + 200)
        checked = stub.CheckModel(webnnm_pb2.CheckModelRequest(
            model_text=many), timeout=30)
        self.assertEqual(len(checked.diagnostics), 40)
        self.assertIn("nosuch39", checked.rendered)
        # An unknown impute: refused by submission and by the preview alike.
        bad_impute = webnnm_pb2.DataSpec(dataset_id="d", impute="mode")
        code, details = status(stub.SubmitJob, webnnm_pb2.SubmitJobRequest(
            model_text="x", data=bad_impute))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("data.impute must be auto, mean, median or none, not 'mode'",
                      details)
        code, details = status(stub.CheckModel, webnnm_pb2.CheckModelRequest(
            model_text="x", data=bad_impute))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("not 'mode'", details)
        code, details = status(stub.UploadDataset,
                               webnnm_pb2.UploadDatasetRequest(
                                   name="x", format=1, sha256="0" * 64,
                                   total_bytes=1 << 40))
        self.assertEqual(code, grpc.StatusCode.RESOURCE_EXHAUSTED)
        # Content that does not match its hash is refused.
        start = stub.UploadDataset(webnnm_pb2.UploadDatasetRequest(
            name="x.csv", format=1, sha256="0" * 64, total_bytes=4),
            timeout=30)
        stub.UploadDataset(webnnm_pb2.UploadDatasetRequest(
            upload_id=start.upload_id, file_name="x.csv", data=b"a,b\n"),
            timeout=30)
        code, details = status(stub.UploadDataset,
                               webnnm_pb2.UploadDatasetRequest(
                                   upload_id=start.upload_id, finish=True))
        self.assertEqual(code, grpc.StatusCode.DATA_LOSS)
        # A snapshot that is not one.
        garbage = b"WNNMSNAP" + b"\x01" * 100
        import hashlib
        start = stub.ImportSnapshot(webnnm_pb2.ImportSnapshotRequest(
            total_bytes=len(garbage),
            sha256=hashlib.sha256(garbage).hexdigest()), timeout=30)
        stub.ImportSnapshot(webnnm_pb2.ImportSnapshotRequest(
            upload_id=start.upload_id, data=garbage), timeout=30)
        code, details = status(stub.ImportSnapshot,
                               webnnm_pb2.ImportSnapshotRequest(
                                   upload_id=start.upload_id, finish=True))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        # Nothing was queued, and the daemon still serves.
        self.assertEqual(len(stub.ListJobs(webnnm_pb2.ListJobsRequest(),
                                           timeout=30).jobs), 0)
        job = self.submit(d, *iris_flags(3))
        code, _, _ = d.ctl("watch", job)
        self.assertEqual(code, 0)
        code, details = status(stub.Infer, webnnm_pb2.InferRequest(
            job_id=job, inputs=[webnnm_pb2.Tensor(shape=[1, 3],
                                                  values=[1, 2, 3])]))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("shape", details)
        self.assertEqual(d.stop(), 0)


class Security(Temp):
    def check_reflection_v1(self, d, services_v1alpha):
        """grpc.reflection.v1 (what newer grpcurl asks first) as a client
        that knows nothing else: the services, the files that describe
        webnnm.v1.Webnnm (with their imports, enough to build its
        descriptors), and NOT_FOUND for an unknown symbol."""
        from google.protobuf import descriptor_pb2, descriptor_pool
        from grpc_reflection.v1 import reflection_pb2, reflection_pb2_grpc
        reflect = reflection_pb2_grpc.ServerReflectionStub(d.channel())
        ask = reflection_pb2.ServerReflectionRequest
        answers = list(reflect.ServerReflectionInfo(iter([
            ask(list_services=""),
            ask(file_containing_symbol="webnnm.v1.Webnnm"),
            ask(file_containing_symbol="webnnm.v1.NoSuchThing"),
            ask(file_by_filename="inference/grpc_predict_v2.proto"),
            ask(all_extension_numbers_of_type="webnnm.v1.Job")]),
            timeout=10))
        self.assertEqual(len(answers), 5)
        self.assertEqual(
            {s.name for s in answers[0].list_services_response.service},
            services_v1alpha)
        pool = descriptor_pool.DescriptorPool()
        files = [descriptor_pb2.FileDescriptorProto.FromString(raw) for raw in
                 answers[1].file_descriptor_response.file_descriptor_proto]
        self.assertEqual(files[0].name, "webnnm/v1/webnnm.proto")
        added = set()
        for _ in files:  # imports first
            for f in files:
                if f.name not in added and set(f.dependency) <= added:
                    pool.Add(f)
                    added.add(f.name)
        # Every import came along (timestamp, hyperparameters).
        self.assertEqual(added, {f.name for f in files})
        self.assertIn("google/protobuf/timestamp.proto", added)
        service = pool.FindServiceByName("webnnm.v1.Webnnm")
        self.assertIn("SubmitJob", [m.name for m in service.methods])
        self.assertEqual(
            service.methods_by_name["SubmitJob"].input_type.full_name,
            "webnnm.v1.SubmitJobRequest")
        self.assertEqual(answers[2].error_response.error_code, 5)  # NOT_FOUND
        self.assertEqual(
            answers[2].original_request.file_containing_symbol,
            "webnnm.v1.NoSuchThing")
        names = [descriptor_pb2.FileDescriptorProto.FromString(raw).name
                 for raw in
                 answers[3].file_descriptor_response.file_descriptor_proto]
        self.assertEqual(names[0], "inference/grpc_predict_v2.proto")
        self.assertEqual(
            answers[4].all_extension_numbers_response.base_type_name,
            "webnnm.v1.Job")

    def test_tokens_principals_and_admins(self):
        tokens = os.path.join(self.dir, "tokens")
        with open(tokens, "w") as f:
            f.write("# who may call\nann-secret ann\nbob-secret bob\n\n"
                    "root-secret root admin\n")
        d = self.daemon(tokens=tokens)
        code, _, err = d.ctl("list")
        self.assertEqual(code, 1)
        self.assertIn("token", err)
        code, _, err = d.ctl("list", token="wrong")
        self.assertEqual(code, 1)
        self.assertIn("unknown token", err)
        job = self.submit(d, *iris_flags(2), token="ann-secret")
        code, _, err = d.ctl("get", job, token="bob-secret")
        self.assertEqual(code, 1)
        self.assertIn("no job", err)
        code, _, _ = d.ctl("cancel", job, token="bob-secret")
        self.assertEqual(code, 1)
        code, out, _ = d.ctl("list", "-o", "json", token="bob-secret")
        self.assertEqual(json.loads(out)["jobs"], [])
        code, out, _ = d.ctl("dataset", "list", "-o", "json",
                             token="bob-secret")
        self.assertEqual(json.loads(out)["datasets"], [])
        code, out, _ = d.ctl("list", "-o", "json", token="root-secret")
        self.assertEqual([j["jobId"] for j in json.loads(out)["jobs"]], [job])
        self.assertEqual(self.get(d, job, token="ann-secret")["principal"],
                         "ann")
        # Health needs no token.
        from grpc_health.v1 import health_pb2, health_pb2_grpc
        health = health_pb2_grpc.HealthStub(d.channel())
        self.assertEqual(health.Check(health_pb2.HealthCheckRequest(),
                                      timeout=10).status,
                         health_pb2.HealthCheckResponse.SERVING)
        self.assertEqual(health.Check(health_pb2.HealthCheckRequest(
            service="webnnm.v1.Webnnm"), timeout=10).status,
            health_pb2.HealthCheckResponse.SERVING)
        # So does webnnmctl health (the container's health check).
        code, out, _ = d.ctl("health")
        self.assertEqual((code, out.strip()), (0, "SERVING"))
        code, out, _ = d.ctl("health", "--service", "nope")
        self.assertEqual((code, out.strip()), (1, "SERVICE_UNKNOWN"))
        # Reflection needs no token either, and lists the services.
        from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
        reflect = reflection_pb2_grpc.ServerReflectionStub(d.channel())
        answers = list(reflect.ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
            timeout=10))
        services = {s.name for s in
                    answers[0].list_services_response.service}
        for name in ["webnnm.v1.Webnnm", "inference.GRPCInferenceService",
                     "grpc.health.v1.Health",
                     "grpc.reflection.v1.ServerReflection"]:
            self.assertIn(name, services)
        self.check_reflection_v1(d, services)
        # KServe calls need a token like webnnm.v1's.
        import grpc
        import grpc_predict_v2_pb2 as kpb
        import grpc_predict_v2_pb2_grpc as kpbg
        kserve = kpbg.GRPCInferenceServiceStub(d.channel())
        with self.assertRaises(grpc.RpcError) as caught:
            kserve.ModelReady(kpb.ModelReadyRequest(name=job), timeout=10)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.UNAUTHENTICATED)
        with self.assertRaises(grpc.RpcError) as caught:
            kserve.ModelReady(kpb.ModelReadyRequest(name=job), timeout=10,
                              metadata=[("authorization",
                                         "Bearer bob-secret")])
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
        # A model the owner has been served (and the daemon keeps) is still
        # nobody else's; an admin's too; gone once the job is deleted.
        code, _, err = d.ctl("watch", job, token="ann-secret")
        self.assertEqual(code, 0, err)
        row = ["--values", "5.1,3.5,1.4,0.2", "-o", "json"]
        code, answer, err = d.ctl("infer", job, *row, token="ann-secret")
        self.assertEqual(code, 0, err)
        code, _, err = d.ctl("infer", job, *row, token="bob-secret")
        self.assertEqual(code, 1)
        self.assertIn("no job", err)
        request = kpb.ModelInferRequest(model_name=job)
        tensor = request.inputs.add(name="model", datatype="FP32",
                                    shape=[1, 4])
        tensor.contents.fp32_contents.extend([5.1, 3.5, 1.4, 0.2])
        with self.assertRaises(grpc.RpcError) as caught:
            kserve.ModelInfer(request, timeout=10, metadata=[
                ("authorization", "Bearer bob-secret")])
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
        kserve.ModelInfer(request, timeout=10, metadata=[
            ("authorization", "Bearer ann-secret")])
        code, out, err = d.ctl("infer", job, *row, token="root-secret")
        self.assertEqual((code, out), (0, answer), err)
        code, _, err = d.ctl("delete", job, token="ann-secret")
        self.assertEqual(code, 0, err)
        code, _, err = d.ctl("infer", job, *row, token="ann-secret")
        self.assertEqual(code, 1)
        self.assertIn("no job", err)
        self.assertEqual(d.stop(), 0)

    def test_tls(self):
        cert, key = h.self_signed_certificate(self.dir)
        cfg = os.path.join(self.dir, "tls.textproto")
        with open(cfg, "w") as f:
            f.write(f'tls_certificate: "{cert}"\ntls_private_key: "{key}"\n')
        d = self.daemon("db", "--config", cfg)
        code, out, err = d.ctl("--ca", cert, "list", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["jobs"], [])
        code, _, err = d.ctl("list", timeout=60)
        self.assertEqual(code, 1)  # plaintext to a TLS port
        self.assertEqual(d.stop(), 0)

    def test_a_second_daemon_on_one_database_refuses_to_start(self):
        import subprocess
        d = self.daemon()
        job = self.submit(d, *iris_flags(3))
        result = subprocess.run(
            [h.WEBNNMD, "--listen", "127.0.0.1:0", "--db", d.db],
            capture_output=True, text=True, timeout=30)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn("is in use by another webnnmd (pid ", result.stderr)
        # The first goes on, and once it is gone the database opens again.
        self.assertEqual(d.ctl("watch", job)[0], 0)
        self.assertEqual(d.stop(), 0)
        again = self.daemon()
        self.assertEqual(self.get(again, job)["state"], "SUCCEEDED")
        self.assertEqual(again.stop(), 0)

    def test_without_tokens_only_loopback(self):
        proc = Daemon.__new__(Daemon)
        import subprocess
        result = subprocess.run(
            [h.WEBNNMD, "--listen", "0.0.0.0:0", "--db",
             os.path.join(self.dir, "x.db")], capture_output=True, text=True,
            timeout=30)
        self.assertEqual(result.returncode, 2)
        self.assertIn("loopback", result.stderr)
        # Loopback is an address literal in 127.0.0.0/8, ::1 or localhost;
        # a listening address is parsed strictly (a usage error, exit 2).
        for flags, why in (
                (["--listen", "127.example.invalid:0"], "loopback"),
                (["--listen", "127.0.0.1"], "has no port"),
                (["--listen", "127.0.0.1:0", "--http-listen", "127.0.0.1:abc"],
                 "no port number"),
                (["--listen", "127.0.0.1:70000"], "no port number")):
            result = subprocess.run(
                [h.WEBNNMD, *flags, "--db", os.path.join(self.dir, "x.db")],
                capture_output=True, text=True, timeout=30)
            self.assertEqual(result.returncode, 2, (flags, result.stderr))
            self.assertIn(why, result.stderr, flags)


class Durability(Temp):
    EPOCHS = 1500

    def reference(self, d):
        job = self.submit(d, *iris_flags(self.EPOCHS))
        code, _, err = d.ctl("watch", job, timeout=300)
        self.assertEqual(code, 0, err)
        return self.export(d, job)

    def export(self, d, job):
        path = os.path.join(self.dir, job + ".wnms")
        code, _, err = d.ctl("snapshot", "export", job, "-f", path)
        self.assertEqual(code, 0, err)
        header, tensors = read_snapshot(path)
        return header, {k: v for k, v in tensors.items()
                        if k.startswith(("param:", "best:", "momentum:"))}

    def test_sigkill_mid_training_then_restart_ends_as_uninterrupted(self):
        d = self.daemon("a")
        job = self.submit(d, *iris_flags(self.EPOCHS))
        self.wait_epoch(d, job, 200)
        d.stop(signal.SIGKILL)
        d2 = self.daemon("a")
        code, out, err = d2.ctl("watch", job, "-o", "json", timeout=300)
        self.assertEqual(code, 0, err)
        events = json_lines(out)
        self.assertEqual([e["seq"] for e in events],
                         list(range(1, len(events) + 1)))
        requeued = [e for e in events if e["type"] == "STATE"
                    and "interrupted" in e.get("message", "")]
        self.assertEqual(len(requeued), 1)
        # It continued from its checkpoint: the epochs after the restart
        # start where the stored ones stopped, none twice.
        after = [e["epoch"] for e in events[events.index(requeued[0]):]
                 if e["type"] == "EPOCH"]
        before = [e["epoch"] for e in events[:events.index(requeued[0])]
                  if e["type"] == "EPOCH"]
        self.assertGreaterEqual(len(before), 200)
        self.assertEqual(after[0], before[-1] + 1)
        # (Early stopping may end the run before EPOCHS.)
        self.assertEqual(before + after, list(range(1, after[-1] + 1)))
        self.assertEqual(after[-1], self.get(d2, job)["epoch"])
        got = self.get(d2, job)
        self.assertEqual(got["attempt"], 2)
        header, tensors = self.export(d2, job)
        ref_header, ref_tensors = self.reference(self.daemon("b"))
        self.assertEqual(header.step, ref_header.step)
        self.assertEqual(header.best_epoch, ref_header.best_epoch)
        self.assertEqual(sorted(tensors), sorted(ref_tensors))
        for name in tensors:
            self.assertEqual(tensors[name], ref_tensors[name], name)
        self.assertEqual(d2.stop(), 0)

    def test_the_restart_budget(self):
        cfg = os.path.join(self.dir, "budget.textproto")
        with open(cfg, "w") as f:
            f.write("restart_budget: 0\n")
        d = self.daemon("a", "--config", cfg)
        job = self.submit(d, *iris_flags(100000))
        self.wait_epoch(d, job, 5)
        d.stop(signal.SIGKILL)
        d2 = self.daemon("a", "--config", cfg)
        got = self.get(d2, job)
        self.assertEqual(got["state"], "FAILED")
        self.assertIn("restart budget", got["error"])
        self.assertEqual(d2.ctl("watch", job)[0], 1)
        self.assertEqual(d2.stop(), 0)

    def test_sigterm_checkpoints_and_cancel_resume_continue(self):
        # A clean stop does not spend the restart budget (even of 0).
        cfg = os.path.join(self.dir, "budget.textproto")
        with open(cfg, "w") as f:
            f.write("restart_budget: 0\n")
        d = self.daemon("a", "--config", cfg)
        job = self.submit(d, *iris_flags(self.EPOCHS))
        self.wait_epoch(d, job, 100)
        t0 = time.time()
        self.assertEqual(d.stop(signal.SIGTERM), 0)
        self.assertLess(time.time() - t0, 30)
        self.assertIn("checkpointing", d.log)
        d2 = self.daemon("a", "--config", cfg)
        self.wait_epoch(d2, job, 300)
        code, out, _ = d2.ctl("cancel", job, "-o", "json")
        self.assertEqual(code, 0)
        code, _, _ = d2.ctl("watch", job)
        self.assertEqual(code, 1)  # the job was cancelled
        cancelled = self.get(d2, job)
        self.assertEqual(cancelled["state"], "CANCELLED")
        code, _, _ = d2.ctl("cancel", job)
        self.assertEqual(code, 1)  # already ended
        code, _, err = d2.ctl("resume", job)
        self.assertEqual(code, 0, err)
        code, out, err = d2.ctl("watch", job, "-o", "json", timeout=300)
        self.assertEqual(code, 0, err)
        epochs = [e["epoch"] for e in json_lines(out) if e["type"] == "EPOCH"]
        # Each epoch ran once across the stop, the restart and the resume.
        self.assertEqual(epochs, list(range(1, self.get(d2, job)["epoch"] + 1)))
        header, tensors = self.export(d2, job)
        ref_header, ref_tensors = self.reference(d2)
        self.assertEqual(header.step, ref_header.step)
        self.assertEqual(sorted(tensors), sorted(ref_tensors))
        for name in tensors:
            self.assertEqual(tensors[name], ref_tensors[name], name)
        self.assertEqual(d2.stop(), 0)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

#!/usr/bin/env python3
"""End-to-end tests of runs a user can find and read (issue 24): names,
tags and notes, list filters, job ids by a unique prefix, what `get`
records (resolved and user-set hyperparameters, the data, the model, the
duration) and -o yaml, against the real webnnmd on 127.0.0.1.

usage: runs_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import json
import os
import re
import sys
import unittest

import yaml

import daemon_harness as h
from daemon_harness import Temp, iris_flags


class Runs(Temp):
    def test_names_tags_notes_and_filters(self):
        d = self.daemon()
        first = self.submit(d, *iris_flags(2), "--name", "baseline",
                            "--tag", "team=vision", "--tag", "stage=try",
                            "--note", "the first try")
        second = self.submit(d, *iris_flags(2, "--patience", "5"),
                             "--name", "bigger-lr", "--tag", "team=vision")
        third = self.submit(d, *iris_flags(2))  # named after its model
        for job in (first, second, third):
            code, _, err = d.ctl("watch", job, timeout=300)
            self.assertEqual(code, 0, err)

        got = self.get(d, first)
        self.assertEqual(got["name"], "baseline")
        self.assertEqual(got["tags"], {"stage": "try", "team": "vision"})
        self.assertEqual(got["note"], "the first try")
        self.assertEqual(self.get(d, third)["name"], "test-model")  # its model
        self.assertEqual(self.get(d, third)["tags"], {})

        def listed(*flags):
            code, out, err = d.ctl("list", *flags, "-o", "json")
            self.assertEqual(code, 0, err)
            jobs = json.loads(out)["jobs"]
            for j in jobs:
                for key in ["jobId", "name", "state", "tags"]:
                    self.assertIn(key, j)
            return [j["jobId"] for j in jobs]

        self.assertEqual(listed(), [third, second, first])
        self.assertEqual(listed("--tag", "team=vision"), [second, first])
        self.assertEqual(listed("--tag", "team=vision", "--tag", "stage=try"),
                         [first])
        self.assertEqual(listed("--tag", "team=audio"), [])
        self.assertEqual(listed("--name", "b*"), [second, first])
        self.assertEqual(listed("--name", "test-?odel"), [third])
        self.assertEqual(listed("--state", "SUCCEEDED", "--name", "base*"),
                         [first])
        # Pages of a filtered list hold only matches, and go on.
        code, out, _ = d.ctl("list", "--tag", "team=vision", "--limit", "1",
                             "-o", "json")
        self.assertEqual([j["jobId"] for j in json.loads(out)["jobs"]],
                         [second])
        code, _, err = d.ctl("list", "--tag", "novalue")
        self.assertEqual(code, 2)
        self.assertIn("KEY=VALUE", err)

        # The table: name, state, epochs, duration, best validation loss,
        # the test figure, the tags.
        code, out, _ = d.ctl("list")
        lines = out.splitlines()
        for column in ["JOB", "NAME", "STATE", "EPOCH", "DURATION",
                       "BEST VAL LOSS", "TEST", "TAGS"]:
            self.assertIn(column, lines[0])
        row = next(l for l in lines if l.startswith(first))
        self.assertIn("baseline", row)
        self.assertIn("2/2", row)
        self.assertRegex(row, r"acc 0\.\d{4}|acc 1\.0000")
        self.assertIn("stage=try,team=vision", row)

        # tag: set, change, remove; rename; the note.
        code, out, err = d.ctl("tag", first, "stage=final", "owner=ana",
                               "team-", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["tags"],
                         {"owner": "ana", "stage": "final"})
        code, _, err = d.ctl("tag", first, "--name", "baseline-2",
                             "--note", "")
        self.assertEqual(code, 0, err)
        got = self.get(d, first)
        self.assertEqual(got["name"], "baseline-2")
        self.assertIsNone(got["note"])
        self.assertEqual(listed("--tag", "team=vision"), [second])
        code, _, err = d.ctl("tag", first, "bad key=1")
        self.assertEqual(code, 1)
        self.assertIn("tag", err)
        code, _, err = d.ctl("tag", first, "novalue")
        self.assertEqual(code, 2)
        # Tags and names survive the daemon's restart (the SQLite store).
        self.assertEqual(d.stop(), 0)
        d = self.daemon()
        self.assertEqual(self.get(d, first)["tags"],
                         {"owner": "ana", "stage": "final"})

        # Refused labels queue nothing.
        code, _, err = d.ctl("submit", *iris_flags(1), "--tag", "k=" + "v" * 300)
        self.assertEqual(code, 1)
        self.assertIn("256", err)
        self.assertEqual(len(listed()), 3)
        self.assertEqual(d.stop(), 0)

    def test_a_job_by_a_unique_prefix_of_its_id(self):
        d = self.daemon()
        jobs = [self.submit(d, *iris_flags(1)) for _ in range(3)]
        for job in jobs:
            d.ctl("watch", job, timeout=300)
        # The shortest prefix of each that no other id starts with.
        for job in jobs:
            n = next(n for n in range(2, len(job))
                     if sum(j.startswith(job[:n]) for j in jobs) == 1)
            code, out, err = d.ctl("get", job[:n], "-o", "json")
            self.assertEqual(code, 0, err)
            self.assertEqual(json.loads(out)["jobId"], job)
            code, out, err = d.ctl("metrics", job[:n], "-o", "json")
            self.assertEqual(code, 0, err)
        # "j" starts every id: ambiguous, exit 2 listing them.
        code, _, err = d.ctl("get", "j")
        self.assertEqual(code, 2)
        self.assertIn("3 jobs", err)
        for job in jobs:
            self.assertIn(job, err)
        code, _, err = d.ctl("get", "jzzzz")
        self.assertEqual(code, 1)
        self.assertIn("no job", err)
        self.assertEqual(d.stop(), 0)

    def test_jobs_by_name_and_alias_and_states_in_any_case(self):
        d = self.daemon()
        first = self.submit(d, *iris_flags(1), "--name", "houses-price")
        d.ctl("watch", first, timeout=300)
        # A name is a reference wherever an id is.
        for command in (["get"], ["metrics"], ["logs"],
                        ["infer", "--values", "5.1,3.5,1.4,0.2"]):
            code, out, err = d.ctl(command[0], "houses-price", *command[1:],
                                   "-o", "json")
            self.assertEqual(code, 0, (command, err))
        code, out, _ = d.ctl("get", "houses-price", "-o", "json")
        self.assertEqual(json.loads(out)["jobId"], first)
        # Two jobs of one name: refused, listing both with their states.
        second = self.submit(d, *iris_flags(1), "--name", "houses-price")
        d.ctl("watch", second, timeout=300)
        code, _, err = d.ctl("get", "houses-price")
        self.assertEqual(code, 2)
        self.assertIn("'houses-price' is the name of 2 jobs", err)
        for job in (first, second):
            self.assertIn(job, err)
        self.assertIn("SUCCEEDED", err)
        # An alias names one of them, and moves when set on another.
        code, out, err = d.ctl("alias", first, "champion")
        self.assertEqual(code, 0, err)
        self.assertIn(f"alias champion -> job {first}", out)
        code, out, _ = d.ctl("get", "champion", "-o", "json")
        got = json.loads(out)
        self.assertEqual((got["jobId"], got["alias"]), (first, "champion"))
        code, out, err = d.ctl("alias", second, "champion")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(d.ctl("get", "champion", "-o",
                                          "json")[1])["jobId"], second)
        self.assertIsNone(self.get(d, first)["alias"])
        self.assertEqual(self.get(d, second)["tags"], {"alias": "champion"})
        # States in any case.
        for state in ("succeeded", "Succeeded", "SUCCEEDED"):
            code, out, err = d.ctl("list", "--state", state, "-o", "json")
            self.assertEqual(code, 0, err)
            self.assertEqual({j["jobId"] for j in json.loads(out)["jobs"]},
                             {first, second})
        code, _, err = d.ctl("list", "--state", "done")
        self.assertEqual(code, 2)
        self.assertIn("--state is one of", err)
        self.assertEqual(d.stop(), 0)

    def test_infer_names_the_classes_and_takes_empty_fields(self):
        d = self.daemon()
        plain = self.submit(d, *iris_flags(20))
        filled = self.submit(d, *iris_flags(20, "--impute", "median"))
        for job in (plain, filled):
            d.ctl("watch", job, timeout=300)
        code, out, err = d.ctl("infer", plain, "--values", "5.1,3.5,1.4,0.2",
                               "--values", "6.7,3.0,5.2,2.3")
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertEqual(len(lines), 2, out)
        self.assertRegex(lines[0], r"^model\[1\]: setosa [0-9.e-]+  "
                         r"versicolor [0-9.e-]+  virginica [0-9.e-]+  "
                         r"-> setosa$")
        self.assertTrue(lines[1].startswith("model[2]: setosa "), out)
        self.assertTrue(lines[1].endswith("-> virginica"), out)
        # An empty field is a missing value: filled as the job's training
        # filled them (the training median), refused by a job that fills
        # none.
        code, out, err = d.ctl("infer", filled, "--values", "6.7,3.0,,2.3",
                               "-o", "json")
        self.assertEqual(code, 0, err)
        missing = json.loads(out)["outputs"]["model"]["values"]
        code, out, err = d.ctl("infer", plain, "--values", "6.7,3.0,,2.3")
        self.assertEqual(code, 1)
        self.assertIn("sample 1 misses value 3 (NaN)", err)
        self.assertIn("--impute", err)
        code, out, err = d.ctl("infer", filled, "--values", "6.7,3.0,5.2,")
        self.assertEqual(code, 0, err)
        code, out, err = d.ctl("infer", filled, "--values", "6.7,x,5.2,2.3")
        self.assertEqual(code, 2)
        self.assertIn("not 'x'", err)
        self.assertEqual(len(missing), 3)
        self.assertAlmostEqual(sum(missing), 1, places=5)
        self.assertEqual(d.stop(), 0)

    def test_compare_marks_what_differs(self):
        d = self.daemon()
        a = self.submit(d, *iris_flags(5), "--name", "median")
        b = self.submit(d, *iris_flags(5, "--impute", "mean",
                                       "--patience", "7"), "--name", "mean")
        for job in (a, b):
            d.ctl("watch", job, timeout=300)
        code, out, err = d.ctl("compare", "median", "mean")
        self.assertEqual(code, 0, err)
        lines = out.splitlines()
        self.assertIn(a, lines[0])
        self.assertIn(b, lines[0])
        marked = {tuple(l.split()[1:3]) for l in lines if l.startswith("*")}
        self.assertIn(("data", "impute"), marked)
        self.assertIn(("hyperparameters", "patience"), marked)
        self.assertIn(("run", "name"), marked)
        self.assertNotIn(("hyperparameters", "optimizer"), marked)
        self.assertTrue(any(l.split()[:2] == ["hyperparameters", "optimizer"]
                            for l in lines), out)
        self.assertRegex(lines[-1], r"^\d+ of \d+ rows differ")
        code, out, err = d.ctl("compare", a, b, "--diff", "-o", "json")
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertEqual(got["jobs"], [a, b])
        self.assertTrue(all(r["differs"] for r in got["rows"]))
        impute = next(r for r in got["rows"] if r["name"] == "impute")
        self.assertEqual((impute["section"], impute["values"]),
                         ("data", ["auto", "mean"]))
        code, _, err = d.ctl("compare", a)
        self.assertEqual(code, 2)
        self.assertEqual(d.stop(), 0)

    def test_metrics_as_a_tensorboard_event_file(self):
        import crc32c
        import struct
        d = self.daemon()
        job = self.submit(d, *iris_flags(12))
        d.ctl("watch", job, timeout=300)
        folder = os.path.join(self.dir, "tb")
        code, out, err = d.ctl("export-metrics", job, "--tensorboard",
                               folder, "-o", "json")
        self.assertEqual(code, 0, err)
        written = json.loads(out)
        [name] = os.listdir(folder)
        self.assertTrue(name.startswith("events.out.tfevents."), name)
        self.assertEqual(os.path.join(folder, name), written["file"])

        def masked(data):
            crc = crc32c.crc32c(data)
            return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF

        def fields(data):
            """{field number: [values]} of a protobuf message."""
            out, at = {}, 0
            def varint():
                nonlocal at
                shift = value = 0
                while True:
                    byte = data[at]
                    at += 1
                    value |= (byte & 0x7F) << shift
                    shift += 7
                    if byte < 0x80:
                        return value
            while at < len(data):
                key = varint()
                number, kind = key >> 3, key & 7
                if kind == 0:
                    value = varint()
                elif kind == 1:
                    value = data[at:at + 8]
                    at += 8
                elif kind == 2:
                    n = varint()
                    value = data[at:at + n]
                    at += n
                elif kind == 5:
                    value = data[at:at + 4]
                    at += 4
                else:
                    self.fail(f"wire type {kind}")
                out.setdefault(number, []).append(value)
            return out

        events = []
        with open(written["file"], "rb") as f:
            raw = f.read()
        at = 0
        while at < len(raw):
            header = raw[at:at + 8]
            (length,) = struct.unpack("<Q", header)
            (length_crc,) = struct.unpack("<I", raw[at + 8:at + 12])
            self.assertEqual(length_crc, masked(header))
            data = raw[at + 12:at + 12 + length]
            (data_crc,) = struct.unpack("<I", raw[at + 12 + length:
                                                  at + 16 + length])
            self.assertEqual(data_crc, masked(data))
            events.append(fields(data))
            at += 16 + length
        self.assertEqual(at, len(raw))
        self.assertEqual(events[0][3], [b"brain.Event:2"])
        scalars = {}
        for e in events[1:]:
            (wall,) = struct.unpack("<d", e[1][0])
            step = e[2][0]
            [value] = fields(e[5][0])[1]
            v = fields(value)
            (number,) = struct.unpack("<f", v[2][0])
            scalars[(v[1][0].decode(), step)] = (number, wall)
        code, out, err = d.ctl("metrics", job, "-o", "json")
        metrics = json.loads(out)["metrics"]
        epochs = self.get(d, job)["epoch"]
        self.assertEqual(written["epochs"], epochs)
        for name in ("trainLoss", "validationLoss", "trainAccuracy",
                     "validationAccuracy", "lr"):
            points = metrics[name]
            self.assertEqual([p["epoch"] for p in points],
                             list(range(1, epochs + 1)))
            for p in points:
                number, wall = scalars[(name, p["epoch"])]
                self.assertAlmostEqual(number, p["value"], places=5)
                self.assertGreater(wall, 1.7e9)  # seconds since 1970
        self.assertEqual(written["scalars"], len(scalars))
        walls = [scalars[("trainLoss", e)][1] for e in range(1, epochs + 1)]
        self.assertEqual(walls, sorted(walls))
        self.assertEqual(d.stop(), 0)

    def test_get_evaluation_names_classes_units_and_speeds(self):
        d = self.daemon()
        iris = self.submit(d, *iris_flags(30))
        diabetes = self.submit(d, h.config("models", "diabetes.wnm"),
                               "--dataset", h.config("datasets",
                                                     "diabetes.csv"),
                               "--epochs", "5")
        for job in (iris, diabetes):
            d.ctl("watch", job, timeout=300)
        code, out, err = d.ctl("get", iris)
        self.assertEqual(code, 0, err)
        text = yaml.safe_load(out)["evaluation"]
        got = json.loads(d.ctl("get", iris, "-o", "json")[1])
        m = got["testMetrics"]["model"]
        self.assertIn("samples/s in the training steps", text)
        self.assertIn("samples/s over the run's", text)
        self.assertAlmostEqual(got["wallSamplesPerSecond"],
                               got["trainedSamples"] / got["durationSeconds"])
        self.assertLess(got["wallSamplesPerSecond"],
                        got["trainSamplesPerSecond"])
        lines = text.splitlines()
        for c, name in enumerate(m["classes"]):
            row = next(l.split() for l in lines
                       if l.split()[:1] == [name] and len(l.split()) == 5)
            self.assertAlmostEqual(float(row[1]), m["precision"][c], places=3)
            self.assertAlmostEqual(float(row[2]), m["recall"][c], places=3)
            self.assertEqual(int(row[4]), sum(m["confusionMatrix"][c]))
            matrix_row = next(l.split() for l in lines
                              if l.split()[:1] == [name] and
                              len(l.split()) == 1 + len(m["classes"]))
            self.assertEqual([int(v) for v in matrix_row[1:]],
                             m["confusionMatrix"][c])
        self.assertIn("true \\ predicted  setosa", text)
        code, out, err = d.ctl("get", diabetes)
        text = yaml.safe_load(out)["evaluation"]
        r = json.loads(d.ctl("get", diabetes, "-o", "json")[1])
        self.assertIn("regression, test loss", text)
        self.assertIn("on the standardized targets", text)
        self.assertIn(f"MAE {r['testMetrics']['model']['mae']:.4g}", text)
        self.assertIn("(in the target's own units)", text)
        # Two outputs weighed by learned uncertainties: a total below zero,
        # explained.
        both = self.submit(d, h.config("models", "multimodal.wnm"),
                           "--dataset", h.config("datasets", "multimodal.npz"),
                           "--epochs", "40")
        d.ctl("watch", both, timeout=300)
        got = json.loads(d.ctl("get", both, "-o", "json")[1])
        self.assertLess(got["testLoss"], 0)
        text = yaml.safe_load(d.ctl("get", both)[1])["evaluation"]
        self.assertIn("is below zero: with several outputs and lossWeights "
                      "auto", text)
        self.assertIn("label: classification", text)
        self.assertIn("score: regression", text)
        self.assertEqual(d.stop(), 0)

    def test_get_records_what_the_run_is(self):
        d = self.daemon()
        job = self.submit(d, *iris_flags(3), "--name", "recorded")
        code, _, err = d.ctl("watch", job, timeout=300)
        self.assertEqual(code, 0, err)
        got = self.get(d, job)
        # What the user set (iris_flags: split, optimizer, lr, batch size,
        # seeds, epochs), and every value as the run resolved it.
        self.assertEqual(got["userHyperparameters"],
                         {"epochs": 3, "lr": 0.05, "seeds": 20,
                          "optimizer": "sgdm", "batchSize": 16})
        hyper = got["hyperparameters"]
        for name in ["epochs", "lr", "warmupEpochs", "seeds", "patience",
                     "lossWeights", "optimizer", "regularization",
                     "optimizeFor", "gradientScaling", "gradientClipping",
                     "seed", "batchSize"]:
            self.assertIn(name, hyper)
        self.assertEqual(hyper["epochs"], 3)
        self.assertEqual(hyper["lr"], 0.05)
        self.assertEqual(hyper["optimizer"], "sgdm")
        self.assertNotEqual(hyper["regularization"], "auto")
        self.assertNotEqual(hyper["gradientClipping"], "auto")
        self.assertEqual(got["data"]["split"], "60,20,20")
        # No --label: the column chosen for the model, and that it was.
        self.assertEqual(got["data"]["label"], "species")
        self.assertTrue(got["data"]["labelChosen"])
        self.assertTrue(got["data"]["header"])
        self.assertEqual(got["dataset"]["name"], "iris.csv")
        self.assertEqual(got["dataset"]["format"], "CSV")
        with open(h.config("models", "iris.wnm")) as f:
            self.assertEqual(got["modelText"], f.read())
        self.assertGreater(got["durationSeconds"], 0)
        self.assertLess(got["durationSeconds"], 300)

        # Without -o: the same as YAML for reading (it loads as YAML):
        # the resolved values, the names the user set, the data, the model.
        code, out, _ = d.ctl("get", job)
        self.assertRegex(out, r"\nhyperparameters:\n(  \w+: .*\n)*  lr: 0\.05\n")
        self.assertRegex(out, r'\n  regularization: "?\w+"?\n')
        shown = yaml.safe_load(out)
        self.assertEqual(shown["jobId"], job)
        self.assertEqual(shown["state"], "SUCCEEDED")
        self.assertEqual(sorted(shown["set by the user"]),
                         ["batchSize", "epochs", "lr", "optimizer", "seeds"])
        self.assertEqual(shown["hyperparameters"]["lr"], 0.05)
        self.assertEqual(shown["data"]["split"], "60,20,20")
        self.assertTrue(shown["dataset"].startswith("iris.csv (CSV, "))
        self.assertEqual(shown["model"], got["modelText"])
        # Preparing's decisions first: the label column, the scaling.
        self.assertTrue(shown["decisions"][0].startswith(
            "label column 'species'"))
        self.assertTrue(shown["decisions"][1].startswith("standardize"))
        self.assertIn("model: |", out)

        # metrics: aligned columns (numbers right-aligned).
        code, out, _ = d.ctl("metrics", job)
        lines = out.splitlines()
        self.assertEqual(lines[0].split()[0], "epoch")
        self.assertEqual(len(lines), 4)
        self.assertEqual(len({len(l) for l in lines}), 1, lines)

        # -o yaml is the JSON, as YAML, for get, list and a stream.
        code, out, err = d.ctl("get", job, "-o", "yaml")
        self.assertEqual(code, 0, err)
        self.assertEqual(yaml.safe_load(out), got)
        code, out, _ = d.ctl("list", "-o", "yaml")
        self.assertEqual(yaml.safe_load(out)["jobs"][0]["jobId"], job)
        code, out, _ = d.ctl("watch", job, "-o", "json")
        events = [json.loads(l) for l in out.splitlines()]
        code, out, _ = d.ctl("watch", job, "-o", "yaml")
        self.assertEqual(list(yaml.safe_load_all(out)), events)
        self.assertEqual(d.stop(), 0)

    def test_follow_train_test_cancel_and_the_daemons_log(self):
        d = self.daemon()
        # train without --local is submit --follow, --save exports.
        snapshot = os.path.join(self.dir, "iris.wnms")
        code, out, err = d.ctl("train", *iris_flags(3), "--name", "followed",
                               "--tag", "via=train", "--save", snapshot)
        self.assertEqual(code, 0, err)
        self.assertRegex(out, r"^submitted job j[0-9a-f]+\n")
        self.assertIn("epoch 3/3", out)
        self.assertIn("SUCCEEDED", out)
        self.assertTrue(os.path.getsize(snapshot) > 0)
        job = self.get(d, out.split()[2][:6])["jobId"]
        self.assertEqual(self.get(d, job)["tags"], {"via": "train"})
        # submit --follow: the id, then the events as watch gives them.
        code, out, err = d.ctl("submit", *iris_flags(2), "--follow", "-o",
                               "json")
        self.assertEqual(code, 0, err)
        lines = [json.loads(l) for l in out.splitlines()]
        self.assertEqual(list(lines[0]), ["jobId"])
        self.assertEqual(lines[-1]["state"], "SUCCEEDED")
        code, out, _ = d.ctl("logs", lines[0]["jobId"], "-f")
        self.assertEqual(code, 0)
        self.assertIn("SUCCEEDED", out)

        # test JOB on the daemon: the figures test --local gives.
        code, out, err = d.ctl("test", job[:6], "--dataset",
                               h.config("datasets", "iris.csv"), "--split",
                               "60,20,20", "-o", "json")
        self.assertEqual(code, 0, err)
        remote = json.loads(out)
        code, out, err = d.ctl("test", "--local", "--load", snapshot,
                               "--dataset", h.config("datasets", "iris.csv"),
                               "--split", "60,20,20", "-o", "json")
        self.assertEqual(code, 0, err)
        local = json.loads(out)
        for key in ["samples", "testAccuracy", "testMetrics"]:
            self.assertEqual(remote[key], local[key], key)
        self.assertAlmostEqual(remote["testLoss"], local["testLoss"], 6)
        code, out, err = d.ctl("test", job, "--dataset",
                               h.config("datasets", "iris.csv"), "--all")
        self.assertEqual(code, 0, err)
        self.assertIn("test: 150 samples", out)
        # A model file that is not the snapshot's names both.
        code, _, err = d.ctl("test", "--local", h.config("models",
                                                        "diabetes.wnm"),
                             "--load", snapshot, "--dataset",
                             h.config("datasets", "iris.csv"))
        self.assertEqual(code, 2)
        self.assertIn("'test-model'", err)
        self.assertIn("'diabetes'", err)

        # cancel says when the job stops, then the state it reached. An iris
        # epoch takes well under a millisecond: the job may have stopped
        # before cancel's answer (then only the state is said).
        running = self.submit(d, *iris_flags(100000))
        h.wait_for(lambda: self.get(d, running)["epoch"] >= 1)
        code, out, err = d.ctl("cancel", running)
        self.assertEqual(code, 0, err)
        if out.startswith("cancelling job"):
            self.assertRegex(out, r"^cancelling job j[0-9a-f]+: it stops at "
                             r"the end of its current epoch \(\d+/100000 "
                             r"done\)\n")
        self.assertRegex(out, r"job j[0-9a-f]+ CANCELLED after epoch "
                         r"\d+/100000 \(resume continues it from there\)\n$")
        self.assertEqual(d.stop(), 0)

        # One logfmt line per state change (and error).
        logged = [l for l in d.log.splitlines() if l.startswith("time=")]
        fields = [dict(re.findall(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)', l))
                  for l in logged]
        for f in fields:
            for key in ["time", "level", "job", "principal", "msg"]:
                self.assertIn(key, f)
        states = [f["state"] for f in fields if f["job"] == job]
        self.assertEqual(states, ["QUEUED", "RUNNING", "SUCCEEDED"])
        cancelled = [f for f in fields if f["job"] == running]
        self.assertEqual(cancelled[-1]["state"], "CANCELLED")
        self.assertEqual(cancelled[-1]["level"], "warn")
        self.assertEqual(fields[0]["principal"], "local")

    def test_datasets_by_a_unique_prefix_of_their_id(self):
        d = self.daemon()
        ids = []
        for name in ["iris.csv", "wine.csv", "diabetes.csv"]:
            code, out, err = d.ctl("dataset", "upload",
                                   h.config("datasets", name), "-o", "json")
            self.assertEqual(code, 0, err)
            ids.append(json.loads(out.splitlines()[-1])["datasetId"])
        iris = ids[0]
        n = next(n for n in range(2, len(iris))
                 if sum(i.startswith(iris[:n]) for i in ids) == 1)
        job = self.submit(d, h.config("models", "iris.wnm"), "--dataset",
                          iris[:n], "--epochs", "1")
        self.assertEqual(self.get(d, job)["datasetId"], iris)
        code, out, _ = d.ctl("dataset", "list")
        lines = out.splitlines()
        self.assertEqual(lines[0].split()[:3], ["DATASET", "NAME", "FORMAT"])
        self.assertEqual(len(lines), 4)
        self.assertEqual(len({l.index(" CSV") for l in lines[1:]}), 1)
        code, _, err = d.ctl("submit", h.config("models", "iris.wnm"),
                             "--dataset", "d", "--epochs", "1")
        self.assertEqual(code, 2)
        self.assertIn("3 datasets", err)
        for i in ids:
            self.assertIn(i, err)
        self.assertEqual(d.stop(), 0)

    def test_dataset_list_says_what_each_holds_and_delete(self):
        d = self.daemon()
        headerless = os.path.join(self.dir, "numbers.csv")
        with open(headerless, "w") as f:
            f.write("1,2,0\n3,4,1\n5,6,0\n")
        for path in [h.config("datasets", "iris.csv"), headerless,
                     h.config("datasets", "multimodal.npz")]:
            code, _, err = d.ctl("dataset", "upload", path)
            self.assertEqual(code, 0, err)
        code, out, _ = d.ctl("dataset", "list", "-o", "json")
        listed = {x["name"]: x for x in json.loads(out)["datasets"]}
        iris = listed["iris.csv"]
        self.assertEqual((iris["rows"], iris["columns"]), (150, 5))
        self.assertEqual(iris["header"][-1], "species")
        numbers = listed["numbers.csv"]
        self.assertEqual((numbers["rows"], numbers["columns"]), (3, 3))
        self.assertIsNone(numbers["header"])
        npz = listed["multimodal.npz"]
        self.assertGreater(npz["rows"], 0)
        self.assertGreaterEqual(npz["columns"], 3)  # arrays: 2 inputs, 2 outputs
        code, out, _ = d.ctl("dataset", "list")
        lines = out.splitlines()
        self.assertEqual(lines[0].split(),
                         ["DATASET", "NAME", "FORMAT", "ROWS", "COLUMNS",
                          "BYTES", "CREATED", "HEADER"])
        row = next(l for l in lines if "iris.csv" in l)
        self.assertRegex(row, r"CSV +150 +5 ")
        self.assertIn("species", row)

        # Refused while a running job reads it; then deleted, files too.
        running = self.submit(d, *iris_flags(100000))
        h.wait_for(lambda: self.get(d, running)["state"] == "RUNNING")
        code, _, err = d.ctl("dataset", "delete", iris["datasetId"][:8])
        self.assertEqual(code, 1)
        self.assertIn(running, err)
        self.assertIn("RUNNING", err)
        code, _, err = d.ctl("cancel", running)
        self.assertEqual(code, 0, err)
        folder = os.path.join(self.dir, "db", "datasets", iris["sha256"])
        self.assertTrue(os.path.isdir(folder))
        code, out, err = d.ctl("dataset", "delete", iris["datasetId"], "-o",
                               "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out),
                         {"datasetId": iris["datasetId"], "deleted": True})
        self.assertFalse(os.path.exists(folder))
        code, out, _ = d.ctl("dataset", "list", "-o", "json")
        self.assertNotIn("iris.csv",
                         [x["name"] for x in json.loads(out)["datasets"]])
        code, _, err = d.ctl("dataset", "delete", iris["datasetId"])
        self.assertEqual(code, 2)
        self.assertIn("is not the id of a dataset", err)
        # The finished job keeps its record; its dataset is gone.
        self.assertNotIn("dataset", self.get(d, running))
        # Uploaded again, it is back (a new id).
        code, _, err = d.ctl("dataset", "upload", h.config("datasets",
                                                           "iris.csv"))
        self.assertEqual(code, 0, err)
        self.assertEqual(d.stop(), 0)

    def test_watch_can_follow_steps_within_an_epoch(self):
        # Fashion-MNIST one sample a step: epochs of 51,000 steps, seconds
        # long. A watcher that asks for progress gets PROGRESS events (seq
        # 0, never stored) between the job's own numbered events.
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        d = self.daemon()
        job = self.submit(d, h.config("models", "fashion-mlp.wnm"),
                          "--dataset", "/usr/share/datasets/fashion-mnist",
                          "--epochs", "2", "--batch-size", "1", "--seeds",
                          "1", "--lr", "0.001", "--optimizer", "sgdm")
        stub = pbg.WebnnmStub(d.channel())
        progress, numbered = [], []
        for e in stub.WatchJob(pb.WatchJobRequest(job_id=job, progress=True),
                               timeout=300):
            if e.type == pb.EVENT_TYPE_PROGRESS:
                progress.append(e)
                if len(progress) >= 3:
                    break
            else:
                numbered.append(e.seq)
        self.assertGreaterEqual(len(progress), 3)
        for e in progress:
            self.assertEqual(e.seq, 0)
            p = e.progress
            self.assertEqual(p.epochs, 2)
            self.assertGreater(p.steps, 40000)
            self.assertTrue(0 < p.step <= p.steps)
            self.assertGreater(p.rows, 0)
        steps = [(e.progress.epoch, e.progress.step) for e in progress]
        self.assertEqual(steps, sorted(steps))  # it moves forward
        self.assertEqual(numbered, list(range(1, len(numbered) + 1)))
        # Stored events hold none of them; a plain watcher gets none.
        code, out, _ = d.ctl("cancel", job, "-o", "json")
        self.assertEqual(code, 0)
        code, out, _ = d.ctl("logs", job, "-o", "json")
        events = [json.loads(l) for l in out.splitlines()]
        self.assertNotIn("PROGRESS", [e["type"] for e in events])
        self.assertEqual([e["seq"] for e in events],
                         list(range(1, len(events) + 1)))
        self.assertEqual(d.stop(), 0)

    def test_awkward_values_read_back_and_imports_have_names(self):
        d = self.daemon()
        job = self.submit(d, *iris_flags(2), "--patience", "7",
                          "--weight-decay", "1e-05", "--name", "exp*2",
                          "--note", "a\x7fb\u2028c \u00e9 # not: a comment")
        d.ctl("watch", job)
        code, as_json, _ = d.ctl("get", job, "-o", "json")
        code, as_yaml, _ = d.ctl("get", job, "-o", "yaml")
        self.assertEqual(yaml.safe_load(as_yaml), json.loads(as_json))
        got = json.loads(as_json)
        self.assertEqual(got["hyperparameters"]["weightDecay"], 1e-05)
        code, shown, _ = d.ctl("get", job)
        shown = yaml.safe_load(shown)
        self.assertEqual(shown["hyperparameters"]["weightDecay"], 1e-05)
        self.assertEqual(shown["note"], got["note"])
        # A '*' in a name matches a '*' of the glob too.
        code, out, _ = d.ctl("list", "--name", "exp*", "-o", "json")
        self.assertEqual([j["jobId"] for j in json.loads(out)["jobs"]], [job])
        # An imported snapshot's job has its model's name and the
        # snapshot's hyperparameters, and the name filter finds it.
        path = os.path.join(self.dir, "exp.wnms")
        code, _, err = d.ctl("snapshot", "export", job, "-f", path)
        self.assertEqual(code, 0, err)
        code, out, err = d.ctl("snapshot", "import", path, "-o", "json")
        self.assertEqual(code, 0, err)
        imported = self.get(d, json.loads(out)["jobId"])
        self.assertEqual(imported["name"], "test-model")
        self.assertEqual(imported["hyperparameters"]["patience"], 7)
        code, out, _ = d.ctl("list", "--name", "test-*", "-o", "json")
        self.assertEqual([j["jobId"] for j in json.loads(out)["jobs"]],
                         [imported["jobId"]])
        self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

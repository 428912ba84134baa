#!/usr/bin/env python3
"""Every bad hyperparameter is refused the same way everywhere.

The table is the one docs/training.md shows (a unit test keeps it equal to
the engine's). For every entry, bad values made from its type and range —
NaN and ±inf for numbers, just below and just above the range (zero or a
negative number where they are not allowed), an unknown choice, a bad
weight list — go through `webnnmctl train --local` (exit 2), SubmitJob
(INVALID_ARGUMENT, nothing queued) and CheckModel's preview
(preview_error), and all three must give the same message, naming the
field.

usage: hyperparameters_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import math
import os
import subprocess
import sys
import unittest

import daemon_harness as h


def table():
    """[(name, flag, type, range)] from docs/training.md."""
    path = os.path.join(h.SOURCE, "docs", "training.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    begin = text.index("<!-- hyperparameter table: begin -->")
    end = text.index("<!-- hyperparameter table: end -->")
    rows = []
    for line in text[begin:end].splitlines()[3:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append((cells[0].strip("`"), cells[1].strip("`"), cells[2],
                     cells[4]))
    return rows


def bad_values(kind, allowed):
    """[(CLI text, proto value)] outside what the entry accepts."""
    if kind == "integer":
        low, high = (int(v) for v in allowed.split(".."))
        values = [low - 1, high + 1]
        if low - 1 >= 0:
            values.append(-1)  # a negative number too
        return [(str(v), v) for v in values]
    if kind == "number":
        low, high = (float(v) for v in allowed.strip("[(]").split(", "))
        below = low if allowed.startswith("(") else low - 1
        values = [math.nan, math.inf, -math.inf, below, high * 2]
        if below != 0 and low <= 0:
            values.append(0.0 if allowed.startswith("(") else -0.5)
        return [(repr(v) if math.isfinite(v) else str(v), v) for v in values]
    if kind == "choice":
        return [("nonsense", "nonsense"), ("", "")]
    if kind == "weights":
        return [("1,-2", "1,-2"), ("abc", "abc"), ("1,,2", "1,,2")]
    return []  # seed: every uint64 is a seed


class BadHyperparameters(h.Temp):
    def test_every_bad_value_is_refused_alike_by_the_cli_submit_and_check(self):
        import grpc
        from webnnm.v1 import hyperparameters_pb2 as hp
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg

        d = self.daemon()
        code, out, err = d.ctl("dataset", "upload",
                               h.config("datasets", "iris.csv"), "-o", "json")
        self.assertEqual(code, 0, err)
        import json
        dataset = json.loads(out)["datasetId"]
        stub = pbg.WebnnmStub(d.channel())
        with open(h.config("models", "iris.wnm"), encoding="utf-8") as f:
            model = f.read()
        data = pb.DataSpec(dataset_id=dataset, split="60,20,20")

        rows = table()
        self.assertGreaterEqual(len(rows), 25)
        field_of = {f.name: f for f in hp.Hyperparameters.DESCRIPTOR.fields}
        checked = 0
        for name, flag, kind, allowed in rows:
            field = "".join("_" + c.lower() if c.isupper() else c
                            for c in name)
            self.assertIn(field, field_of, name)
            for text, value in bad_values(kind, allowed):
                with self.subTest(name=name, value=text):
                    # The CLI, before it reads anything.
                    proc = subprocess.run(
                        [h.WEBNNMCTL, "train", "--local",
                         h.config("models", "iris.wnm"), "--dataset",
                         h.config("datasets", "iris.csv"),
                         # --flag=-1 so that -1 is no flag of its own
                         *([f"{flag}={text}"] if text else [flag, text])],
                        capture_output=True, text=True, timeout=60)
                    self.assertEqual(proc.returncode, 2, proc.stderr)
                    prefix = "webnnmctl: "
                    self.assertTrue(proc.stderr.startswith(prefix),
                                    proc.stderr)
                    message = proc.stderr[len(prefix):].strip()
                    self.assertTrue(
                        message.startswith(f"hyperparameter {name}: "),
                        message)

                    hyper = hp.Hyperparameters(**{field: value})
                    with self.assertRaises(grpc.RpcError) as refused:
                        stub.SubmitJob(pb.SubmitJobRequest(
                            model_text=model, data=data,
                            hyperparameters=hyper), timeout=60)
                    self.assertEqual(refused.exception.code(),
                                     grpc.StatusCode.INVALID_ARGUMENT)
                    self.assertEqual(refused.exception.details(), message)

                    checked_model = stub.CheckModel(pb.CheckModelRequest(
                        model_text=model, data=data, hyperparameters=hyper),
                        timeout=60)
                    self.assertTrue(checked_model.ok)
                    self.assertEqual(checked_model.preview_error, message)
                    checked += 1
        self.assertGreater(checked, 80)
        # Nothing was queued.
        code, out, err = d.ctl("list", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["jobs"], [])

    def test_a_seed_that_is_no_number_is_a_usage_error(self):
        proc = subprocess.run(
            [h.WEBNNMCTL, "train", "--local", h.config("models", "iris.wnm"),
             "--dataset", h.config("datasets", "iris.csv"), "--seed=-1"],
            capture_output=True, text=True, timeout=60)
        self.assertEqual(proc.returncode, 2)
        self.assertEqual(proc.stderr.strip(), "webnnmctl: hyperparameter seed: "
                         "'-1' is not a non-negative integer")


if __name__ == "__main__":
    unittest.main(argv=h.setup(sys.argv))

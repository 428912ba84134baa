#!/usr/bin/env python3
"""Files written by an earlier main still open (compat/README.md).

compat/main-c7a257d holds a daemon's database (with its dataset folder) and
a `train --local --save` snapshot written by main at commit c7a257d, and
expected.json what that main reported for them. Today's webnnmd must open
the database, show and serve its jobs, and resume its cancelled job to the
same end; today's webnnmctl must test and resume the snapshot to the same
figures, bit for bit.

usage: compat_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import json
import os
import shutil
import subprocess
import sys
import unittest

import daemon_harness as h

OLD = "main-c7a257d"


def old(*parts):
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat",
                        OLD, *parts)


def expected():
    with open(old("expected.json"), encoding="utf-8") as f:
        return json.load(f)


class OldDatabase(h.Temp):
    def test_opens_shows_serves_and_resumes_an_old_database(self):
        want = expected()["daemon"]
        folder = os.path.join(self.dir, "db")
        shutil.copytree(old("db"), folder)
        d = self.daemon("db")
        code, out, err = d.ctl("list", "-o", "json")
        self.assertEqual(code, 0, err)
        ids = [j["jobId"] for j in json.loads(out)["jobs"]]
        self.assertEqual(sorted(ids),
                         sorted([want["succeeded_job"], want["cancelled_job"]]))

        job = self.get(d, want["succeeded_job"])
        for key, value in want["succeeded"].items():
            self.assertEqual(job[key], value, key)
        values = ",".join(str(v) for v in want["infer_values"])
        code, out, err = d.ctl("infer", want["succeeded_job"], "--values",
                               values, "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["outputs"]["model"], want["infer"])
        code, out, err = d.ctl("metrics", want["succeeded_job"], "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(len(json.loads(out)["metrics"]["trainLoss"]),
                         want["succeeded"]["epoch"])
        code, out, err = d.ctl("dataset", "list", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual([s["datasetId"] for s in json.loads(out)["datasets"]],
                         [want["dataset_id"]])

        # The cancelled job resumes from its old checkpoint to the end the
        # old main reached.
        self.assertEqual(self.get(d, want["cancelled_job"])["epoch"],
                         want["cancelled_epoch"])
        code, _, err = d.ctl("resume", want["cancelled_job"])
        self.assertEqual(code, 0, err)
        code, _, err = d.ctl("watch", want["cancelled_job"], timeout=300)
        self.assertEqual(code, 0, err)
        job = self.get(d, want["cancelled_job"])
        for key, value in want["resumed"].items():
            self.assertEqual(job[key], value, key)
        self.assertEqual(d.stop(), 0)


class OldSnapshot(h.Temp):
    def ctl(self, *args):
        proc = subprocess.run([h.WEBNNMCTL, *args], capture_output=True,
                              text=True, timeout=300)
        return proc.returncode, proc.stdout, proc.stderr

    def test_tests_and_resumes_an_old_snapshot(self):
        want = expected()["snapshot"]
        snapshot = os.path.join(self.dir, want["file"])
        shutil.copy(old(want["file"]), snapshot)
        model = h.config("models", "iris.wnm")
        data = ["--dataset", h.config("datasets", "iris.csv")]
        code, out, err = self.ctl("test", "--local", model, "--load", snapshot,
                                  *data, "-o", "json")
        self.assertEqual(code, 0, err)
        tested = json.loads(out)
        for key, value in want["test"].items():
            self.assertEqual(tested[key], value, key)
        # The flags of the original run (docs: the model, the data, the
        # split); the snapshot holds the rest.
        code, out, err = self.ctl(
            "train", "--local", model, *data, "--split", "60,20,20",
            "--resume", snapshot, "-o", "json")
        self.assertEqual(code, 0, err)
        resumed = json.loads(out.splitlines()[-1])
        for key, value in want["resumed"].items():
            self.assertEqual(resumed[key], value, key)


if __name__ == "__main__":
    unittest.main(argv=h.setup(sys.argv))

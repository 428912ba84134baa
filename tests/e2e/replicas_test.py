#!/usr/bin/env python3
"""Data-parallel training on one machine (issue 25): `webnnmctl train --local
--replicas N` runs N processes that share every batch and sum their
gradients with Gloo over loopback TCP.

  - On Fashion-MNIST (the MLP and the CNN, one epoch) two replicas end with
    bit-identical parameters and momenta, and within the documented bound
    (docs/training.md, "Data parallelism") of the one-process run of the
    same global batches; the same seed and replica count give the same bits
    on a rerun.
  - A replica killed mid-epoch makes the run fail within the replica
    timeout (10 s here) plus a margin, saying which replica went; nothing
    is left running.

usage: replicas_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import daemon_harness as h
from daemon_harness import config

FASHION = "/usr/share/datasets/fashion-mnist"
# After one epoch, for every parameter tensor (not the optimizer's momenta,
# near zero, whose relative differences are larger): |a - b| / |b| <=
# PARAM_BOUND in the 2-norm, and the test loss within TEST_BOUND of the
# one-process run's, relatively. Only the order of float sums differs
# (docs/training.md, "Data parallelism": measured 4e-4 and 2e-6 on the CNN
# with rlion's sign updates, 7e-7 and 1e-8 on the MLP).
PARAM_BOUND = 5e-3
TEST_BOUND = 1e-4


def tensors(path):
    import numpy as np
    _, t = h.read_snapshot(path)
    return {k: np.frombuffer(v, dtype=np.float32) for k, v in t.items()}


class Replicas(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="webnnm-replicas-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def train(self, model, replicas, tag, *extra, timeout=600):
        prefix = os.path.join(self.dir, tag)
        proc = subprocess.run(
            [h.WEBNNMCTL, "train", "--local", config("models", model),
             "--dataset", FASHION, "--epochs", "1", "--seeds", "3",
             "--lr", "0.0005", "--batch-size", "64", "--replicas",
             str(replicas), "--replica-save", prefix, "-o", "json", *extra],
            capture_output=True, text=True, timeout=timeout)
        self.assertEqual(proc.returncode, 0, proc.stderr[-3000:])
        import json
        test_loss = json.loads(proc.stdout.splitlines()[-1])["testLoss"]
        return [tensors(f"{prefix}.{r}.wnms") for r in range(replicas)], \
            test_loss

    def check_model(self, model):
        (alone,), alone_loss = self.train(model, 1, model + "-1")
        pair, pair_loss = self.train(model, 2, model + "-2")
        (again, _), again_loss = self.train(model, 2, model + "-2b")
        import numpy as np
        for name in pair[0]:
            self.assertTrue(np.array_equal(pair[0][name], pair[1][name]),
                            f"{model}: {name} differs between the replicas")
            self.assertTrue(np.array_equal(pair[0][name], again[name]),
                            f"{model}: {name} differs on a rerun")
            if name.startswith("momentum:"):
                continue
            a, b = pair[0][name], alone[name]
            norm = float(np.linalg.norm(b))
            if norm == 0:
                continue
            self.assertLessEqual(float(np.linalg.norm(a - b)) / norm,
                                 PARAM_BOUND,
                                 f"{model}: {name} beyond the bound")
        self.assertEqual(pair_loss, again_loss)
        self.assertLessEqual(abs(pair_loss - alone_loss) / abs(alone_loss),
                             TEST_BOUND)
        differs = any(not np.array_equal(pair[0][n], alone[n])
                      for n in alone)
        self.assertTrue(differs, "two replicas gave the one-process bits: "
                        "the batches were not shared")

    def test_the_mlp_on_two_replicas_is_the_one_process_run(self):
        self.check_model("fashion-mlp.wnm")

    def test_the_cnn_on_two_replicas_is_the_one_process_run(self):
        self.check_model("fashion-cnn.wnm")

    def test_a_killed_replica_fails_the_run_within_the_timeout(self):
        proc = subprocess.Popen(
            [h.WEBNNMCTL, "train", "--local", config("models",
                                                     "fashion-cnn.wnm"),
             "--dataset", FASHION, "--epochs", "20", "--seeds", "3",
             "--lr", "0.0005", "--batch-size", "64", "--replicas", "2",
             "--replica-timeout", "10"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def child():
            try:
                with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
                    pids = [int(p) for p in f.read().split()]
            except OSError:
                return None
            return pids[0] if pids else None
        replica = h.wait_for(child, timeout=60)
        # Killed once it trains: after its first epoch, in the second.
        line = ""
        deadline = time.time() + 300
        while not line.startswith("epoch "):
            line = proc.stdout.readline()
            self.assertTrue(line or proc.poll() is None, "replica 0 ended")
            self.assertLess(time.time(), deadline)
        os.kill(replica, signal.SIGKILL)
        killed = time.time()
        try:
            _, err = proc.communicate(timeout=10 + 30)
        except subprocess.TimeoutExpired:
            proc.kill()
            self.fail("replica 0 hung after its peer was killed")
        self.assertLess(time.time() - killed, 10 + 30)
        self.assertEqual(proc.returncode, 1, err)
        self.assertIn("replica", err)
        self.assertIn("no longer answer", err)


if __name__ == "__main__":
    argv = h.setup(sys.argv)
    unittest.main(argv=argv)

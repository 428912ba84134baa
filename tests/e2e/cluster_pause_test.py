#!/usr/bin/env python3
"""Pauses in cluster mode (issue 50, item 1): a daemon that stops running
without dying — SIGSTOP, as a VM migration, a stalled disk or a debugger
would — must not keep its job. Two daemons share a real PostgreSQL server
(lease 3 s); the one running a job with sub-millisecond epochs (so that it
is nearly always inside a transaction when paused) is SIGSTOPped: the other
takes the job over within the lease plus 5 s, three times in a row; woken
with SIGCONT, the paused one writes nothing more for the job (its fence)
and says in its log that it lost it. The job's events stay gapless and its
epochs contiguous, and it ends once. And PostgreSQL itself paused longer
than the lease: no daemon dies, the job goes on and ends once.

usage: cluster_pause_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import os
import signal
import sys
import time
import unittest

import daemon_harness as h
from cluster_test import LEASE_SECONDS, Cluster
from daemon_harness import wait_for


class Pauses(Cluster):
    def test_a_paused_daemons_job_is_taken_over_within_the_lease(self):
        nodes = {"a": self.node("a"), "b": self.node("b")}
        job = self.submit(nodes["a"], *h.iris_flags(1000000, "--patience",
                                                    "1000000"))
        self.wait_epoch(nodes["a"], job, 5, timeout=60)
        for run in range(3):
            got = self.get(nodes["a"] if run == 0 else awake, job)
            running, attempt = got["node"], got["attempt"]
            paused = nodes[running]
            awake = nodes["b" if running == "a" else "a"]
            os.kill(paused.proc.pid, signal.SIGSTOP)
            stopped = time.time()
            try:
                taken = wait_for(lambda: (lambda j: j if j["state"] ==
                                          "RUNNING" and j["node"] != running
                                          and j["attempt"] > attempt
                                          else None)(self.get(awake, job)),
                                 timeout=60, interval=0.1)
                took = time.time() - stopped
            finally:
                os.kill(paused.proc.pid, signal.SIGCONT)
            self.assertLess(took, LEASE_SECONDS + 5,
                            f"run {run + 1}: taken over after {took:.1f} s")
            print(f"run {run + 1}: job taken over from {running} by "
                  f"{taken['node']} in {took:.2f} s", file=sys.stderr)
            # Woken, the paused daemon writes nothing more for the job (its
            # epochs would break the new attempt's run of them: below).
            time.sleep(LEASE_SECONDS + 1)
            self.wait_epoch(awake, job, taken["epoch"] + 3, timeout=60)
        code, _, err = awake.ctl("cancel", job)
        self.assertEqual(code, 0, err)
        from webnnm.v1 import webnnm_pb2
        events = self.watch(awake, job)
        self.assertEqual([e.seq for e in events],
                         list(range(1, len(events) + 1)))
        states = [webnnm_pb2.JobState.Name(e.state) for e in events
                  if e.type == webnnm_pb2.EVENT_TYPE_STATE]
        self.assertEqual(states[-1], "JOB_STATE_CANCELLED")
        self.assertEqual(states.count("JOB_STATE_CANCELLED"), 1)
        # Within each attempt the epochs run on by one: no stale write of a
        # paused daemon among them.
        attempts, epochs = [], []
        for e in events:
            if (e.type == webnnm_pb2.EVENT_TYPE_STATE and
                    webnnm_pb2.JobState.Name(e.state) == "JOB_STATE_RUNNING"):
                epochs = []
                attempts.append(epochs)
            elif e.type == webnnm_pb2.EVENT_TYPE_EPOCH:
                epochs.append(e.epoch.epoch)
        self.assertEqual(len(attempts), 4)
        for run in attempts:
            self.assertEqual(run, list(range(run[0], run[0] + len(run))))
        self.assertEqual(self.get(awake, job)["attempt"], 4)
        for d in nodes.values():
            d.stop()
        logs = nodes["a"].log + nodes["b"].log
        self.assertIn("stopped here", logs)

    def postgres_pids(self):
        """The test's PostgreSQL server: its postmaster and every child."""
        with open(os.path.join(self.pg.dir, "data", "postmaster.pid")) as f:
            master = int(f.readline())
        pids = [master]
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parent = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if parent == master:
                pids.append(int(entry))
        return pids

    def test_a_paused_database_loses_no_job(self):
        """PostgreSQL itself stopped (SIGSTOP of the server and every
        backend) for longer than the lease: the daemons wait, nobody
        crashes, and once it runs again the job goes on (on either daemon)
        and ends once, its events gapless."""
        nodes = {"a": self.node("a"), "b": self.node("b")}
        job = self.submit(nodes["a"], *h.iris_flags(1000000, "--patience",
                                                    "1000000"))
        self.wait_epoch(nodes["a"], job, 5, timeout=60)
        pids = self.postgres_pids()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(LEASE_SECONDS + 3)
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
        for d in nodes.values():
            self.assertIsNone(d.proc.poll(), "a daemon died")
        epoch = self.get(nodes["a"], job)["epoch"]
        got = wait_for(lambda: (lambda j: j if j["state"] == "RUNNING" and
                                j["epoch"] >= epoch + 5 else None)(
            self.get(nodes["b"], job)), timeout=60)
        code, _, err = nodes[got["node"]].ctl("cancel", job)
        self.assertEqual(code, 0, err)
        from webnnm.v1 import webnnm_pb2
        events = self.watch(nodes["a"], job)
        self.assertEqual([e.seq for e in events],
                         list(range(1, len(events) + 1)))
        states = [webnnm_pb2.JobState.Name(e.state) for e in events
                  if e.type == webnnm_pb2.EVENT_TYPE_STATE]
        self.assertEqual(states.count("JOB_STATE_CANCELLED"), 1)
        self.assertEqual(states[-1], "JOB_STATE_CANCELLED")
        for d in nodes.values():
            self.assertEqual(d.stop(), 0)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

#!/usr/bin/env python3
"""Cluster mode end to end (issue 25): webnnmd daemons on loopback sharing a
real PostgreSQL server (started here, as the `postgres` user when run as
root, at a free port, stopped at the end).

  Failover  60 jobs submitted through three daemons; one daemon SIGKILLed
            while it runs jobs: every job ends SUCCEEDED exactly once with
            the parameters of an uninterrupted run of the same seed, and
            every job's events, watched from the surviving daemons, arrive
            numbered without a gap or a duplicate.
  Basics    nodes, a job on one daemon watched (with progress) and
            cancelled from another, its data and snapshot served by any,
            uploads capped across the cluster and expiring by lease, a
            clean stop's jobs taken over at once, bad URIs refused.
  Replicas  a data-parallel job (replicas 2) on two daemons; the daemon of
            its second replica SIGKILLed mid-epoch (Gloo timeout 10 s): the
            job goes back to the queue within the timeout plus a margin and
            resumes from its checkpoint on the daemons left, ending with
            the bits of an uninterrupted run; a job that needs more daemons
            than are live waits saying so; more than max_replicas is
            refused. A helper that hangs (SIGSTOP) instead makes rank 0
            fail within the timeout too; the job resumes elsewhere, and
            the helper, let go on, leaves its stale slot without writing.

usage: cluster_test.py WEBNNMD WEBNNMCTL SOURCE_DIR SUITE [unittest args]
"""
import json
import os
import signal
import sys
import threading
import time
import unittest

import daemon_harness as h
import postgres_harness
from daemon_harness import config, wait_for

LEASE_SECONDS = 3


class Cluster(h.Temp):
    def setUp(self):
        super().setUp()
        self.pg = postgres_harness.Postgres()
        self.uri = self.pg.create("webnnm")

    def tearDown(self):
        super().tearDown()
        self.pg.stop()

    def node(self, name, *extra_config, workers=1):
        cfg = os.path.join(self.dir, f"{name}.textproto")
        with open(cfg, "w") as f:
            f.write(f"lease_seconds: {LEASE_SECONDS}\nworkers: {workers}\n"
                    f'cache_folder: "{os.path.join(self.dir, "cache", name)}"\n')
            for line in extra_config:
                f.write(line + "\n")
        d = h.Daemon(self.uri, "--node", name, "--config", cfg)
        self.daemons.append(d)
        return d

    def stub(self, d):
        from webnnm.v1 import webnnm_pb2_grpc
        return webnnm_pb2_grpc.WebnnmStub(d.channel())

    def watch(self, d, job, progress=False):
        """Every event of `job` through daemon d's WatchJob, until it ends."""
        from webnnm.v1 import webnnm_pb2
        return list(self.stub(d).WatchJob(webnnm_pb2.WatchJobRequest(
            job_id=job, from_seq=1, progress=progress), timeout=300))

    def upload(self, d, path):
        code, out, err = d.ctl("dataset", "upload", path, "-o", "json")
        self.assertEqual(code, 0, err)
        return json.loads(out)["datasetId"]



class Failover(Cluster):
    def test_a_killed_daemons_jobs_end_once_as_uninterrupted_runs(self):
        daemons = [self.node(n) for n in ("a", "b", "c")]
        a, b, c = daemons
        dataset = self.upload(a, config("datasets", "iris.csv"))
        seeds = 4
        jobs = []  # (job, seed, daemon submitted to)
        for i in range(60):
            d = daemons[i % 3]
            seed = 1 + i % seeds
            jobs.append((self.submit(
                d, config("models", "iris.wnm"), "--dataset", dataset,
                "--split", "60,20,20", "--optimizer", "sgdm", "--lr", "0.05",
                "--batch-size", "16", "--seeds", "3", "--seed", str(seed),
                "--epochs", "150", "--patience", "100000"), seed, d))
        # Every job watched from a daemon that lives (a or b), from its
        # first event, while the cluster runs it.
        watched, errors = {}, []

        def follow(job, d):
            try:
                watched[job] = self.watch(d, job)
            except Exception as e:  # noqa: BLE001 (reported below)
                errors.append(f"{job}: {e}")
        threads = [threading.Thread(target=follow,
                                    args=(job, (a, b)[n % 2]))
                   for n, (job, _, _) in enumerate(jobs)]
        for t in threads:
            t.start()

        # c is killed while it runs a job past its first checkpoint.
        def c_runs_a_checkpointed_job():
            rows = self.pg.psql(
                "webnnm", "SELECT id FROM jobs WHERE state = 2 AND node = 'c'")
            for (job,) in rows:
                got = self.get(a, job)
                if got["epoch"] >= 2:
                    return job
            return None
        wait_for(c_runs_a_checkpointed_job, timeout=240, interval=0.02)
        c.proc.send_signal(signal.SIGKILL)
        c.proc.wait()
        killed_at = time.time()
        # What c ran when it died (RUNNING under its name until its lease
        # runs out, 3 s): the job found above, unless it ended meanwhile on
        # a loaded machine and c took the next.
        in_flight = [job for (job,) in self.pg.psql(
            "webnnm", "SELECT id FROM jobs WHERE state = 2 AND node = 'c'")]
        self.assertTrue(in_flight)

        for t in threads:
            t.join(timeout=400)
        self.assertFalse(any(t.is_alive() for t in threads), "watches hang")
        self.assertEqual(errors, [])
        # The survivors took c's jobs over once their leases ran out.
        self.assertLess(time.time() - killed_at, 300)
        code, out, err = a.ctl("list", "--limit", "1000", "-o", "json")
        self.assertEqual(code, 0, err)
        listed = {j["jobId"]: j for j in json.loads(out)["jobs"]}
        finals = {}
        interrupted = []
        for job, seed, _ in jobs:
            got = listed[job]
            self.assertEqual(got["state"], "SUCCEEDED", got)
            self.assertIn(got["node"], ("a", "b", "c"))
            events = watched[job]
            seqs = [e.seq for e in events]
            self.assertEqual(seqs, list(range(1, len(seqs) + 1)), job)
            self.assertEqual(seqs[-1], int(self.pg.psql(
                "webnnm", f"SELECT max(seq) FROM job_events WHERE job_id = "
                f"'{job}'")[0][0]))
            ended = [e for e in events if e.type == 1 and e.state == 3]
            self.assertEqual(len(ended), 1, job)  # SUCCEEDED once
            self.assertEqual(events[-1].state, 3)
            epochs = [e.epoch.epoch for e in events if e.type == 5]
            if any("interrupted by a daemon crash (c)" in e.message
                   for e in events):
                interrupted.append(job)
                # Resumed from its checkpoint: no epoch twice, none missed.
                self.assertEqual(epochs, list(range(1, epochs[-1] + 1)), job)
                self.assertIn(got["node"], ("a", "b"))
            path = os.path.join(self.dir, f"{job}.wnms")
            code, _, err = b.ctl("snapshot", "export", job, "-f", path)
            self.assertEqual(code, 0, err)
            _, tensors = h.read_snapshot(path)  # parameters and momenta
            finals.setdefault(seed, []).append((job, tensors))
        for victim in in_flight:
            self.assertIn(victim, interrupted,
                          [e.message for e in watched[victim]])
        print(f"failover: c killed running {in_flight}; {len(interrupted)} "
              f"job(s) resumed on a and b", file=sys.stderr)
        for seed, runs in finals.items():
            first_job, first = runs[0]
            for job, params in runs[1:]:
                self.assertEqual(params, first,
                                 f"{job} differs from {first_job} (seed "
                                 f"{seed})")
        # Each seed's runs include an uninterrupted one.
        for seed, runs in finals.items():
            self.assertTrue(any(job not in interrupted for job, _ in runs))
        # c is no longer listed among the live nodes; a and b are.
        def two_nodes():
            code, out, _ = a.ctl("nodes", "-o", "json")
            names = [n["name"] for n in json.loads(out)["nodes"]]
            return names if names == ["a", "b"] else None
        wait_for(two_nodes, timeout=30)


class Basics(Cluster):
    def test_nodes_list_every_daemon_and_what_it_runs(self):
        a, b = self.node("a", workers=2), self.node("b")
        code, out, err = a.ctl("nodes", "-o", "json")
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertTrue(got["cluster"])
        self.assertEqual([n["name"] for n in got["nodes"]], ["a", "b"])
        self.assertEqual(got["nodes"][0]["workers"], 2)
        self.assertEqual(got["nodes"][1]["address"], b.address)
        # A second daemon under a live one's name is refused.
        cfg = os.path.join(self.dir, "twin.textproto")
        with open(cfg, "w") as f:
            f.write(f'cache_folder: "{os.path.join(self.dir, "twin")}"\n')
        twin = h.Daemon(self.uri, "--node", "a", "--config", cfg,
                        expect_ready=False)
        self.daemons.append(twin)
        twin.proc.wait(timeout=60)
        self.assertEqual(twin.stop(), 1)
        self.assertIn("the node name 'a' is in use by a live webnnmd at "
                      f"{a.address}", twin.log)
        job = self.submit(b, *h.iris_flags(100000, "--patience", "100000"))
        running = wait_for(lambda: [n for n in json.loads(
            a.ctl("nodes", "-o", "json")[1])["nodes"] if job in n["running"]])
        self.assertEqual(running[0]["busy"], 1)
        code, out, _ = a.ctl("nodes")
        self.assertIn("NODE", out.splitlines()[0])
        self.assertIn(job, out)
        got = self.get(a, job)
        self.assertEqual(got["node"], running[0]["name"])
        code, out, _ = a.ctl("list")
        self.assertIn("NODE", out.splitlines()[0])
        # Watched from the daemon that does not run it, with progress, then
        # cancelled from there: its runner stops within a lease.
        other = a if got["node"] == "b" else b
        runner = b if other is a else a
        runner_name = got["node"]
        from webnnm.v1 import webnnm_pb2
        stream = self.stub(other).WatchJob(webnnm_pb2.WatchJobRequest(
            job_id=job, from_seq=1, progress=True), timeout=120)
        progress = 0
        for e in stream:
            progress += e.type == 9
            if progress >= 3:
                break
        stream.cancel()
        self.assertGreaterEqual(progress, 3)
        code, out, err = other.ctl("cancel", job, "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["state"], "CANCELLED")
        self.assertEqual(self.get(runner, job)["state"], "CANCELLED")
        events = self.watch(runner, job)
        self.assertIn(f"cancelled while running on {runner_name}",
                      events[-1].message)
        # Its runner lets go within a renewal (at most 2 s) and writes
        # nothing more.
        wait_for(lambda: not any(n["running"] for n in json.loads(
            runner.ctl("nodes", "-o", "json")[1])["nodes"]), timeout=10)
        last = self.get(runner, job)["lastSeq"]
        time.sleep(1)
        self.assertEqual(self.get(runner, job)["lastSeq"], last)

    def test_any_daemon_serves_data_snapshots_and_inference(self):
        a, b = self.node("a"), self.node("b")
        dataset = self.upload(a, config("datasets", "iris.csv"))
        # b reads the content from the database.
        code, out, err = b.ctl("dataset", "list", "-o", "json")
        self.assertEqual(code, 0, err)
        self.assertEqual(json.loads(out)["datasets"][0]["datasetId"], dataset)
        job = self.submit(b, config("models", "iris.wnm"), "--dataset",
                          dataset, "--epochs", "20", "--optimizer", "sgdm")
        code, out, err = a.ctl("watch", job, "-o", "json")
        self.assertEqual(code, 0, err)
        code, out, err = a.ctl("infer", job, "--values", "6.7,3.0,5.2,2.3",
                               "-o", "json")
        self.assertEqual(code, 0, err)
        code, out2, err = b.ctl("infer", job, "--values", "6.7,3.0,5.2,2.3",
                                "-o", "json")
        self.assertEqual(out, out2)
        code, out, err = a.ctl("metrics", job, "-o", "json")
        self.assertEqual(code, 0, err)
        # Deleted on one, gone on the other (its served model too).
        code, _, err = b.ctl("delete", job)
        self.assertEqual(code, 0, err)
        wait_for(lambda: a.ctl("infer", job, "--values", "6.7,3.0,5.2,2.3")[0]
                 != 0, timeout=10)
        code, _, err = a.ctl("dataset", "delete", dataset)
        self.assertEqual(code, 0, err)
        self.assertEqual(self.pg.psql(
            "webnnm", "SELECT count(*) FROM dataset_content")[0][0], "0")

    def test_uploads_are_capped_across_the_cluster_and_expire_by_lease(self):
        extra = ["max_open_uploads: 2", "upload_idle_timeout_seconds: 2"]
        a, b = self.node("a", *extra), self.node("b", *extra)
        from webnnm.v1 import webnnm_pb2
        import hashlib
        def sha(data):
            return hashlib.sha256(b"x.csv\0" + str(len(data)).encode() +
                                  b"\0" + data).hexdigest()
        data, other = b"x,y\n1,2\n", b"x,y\n3,4\n"

        def begin(d, content):
            return self.stub(d).UploadDataset(webnnm_pb2.UploadDatasetRequest(
                name="x.csv", format=webnnm_pb2.DATASET_FORMAT_CSV,
                sha256=sha(content), total_bytes=len(content)), timeout=10)
        import grpc
        u1 = begin(a, data).upload_id
        begin(b, other)
        with self.assertRaises(grpc.RpcError) as refused:
            begin(a, other)  # two open, one on each daemon: the cap holds
        self.assertEqual(refused.exception.code(),
                         grpc.StatusCode.RESOURCE_EXHAUSTED)
        self.assertIn("max_open_uploads", refused.exception.details())
        # Begun on a, continued and finished on b.
        r = self.stub(b).UploadDataset(webnnm_pb2.UploadDatasetRequest(
            upload_id=u1, file_name="x.csv", offset=0, data=data,
            finish=True), timeout=10)
        self.assertEqual(r.dataset.sha256, sha(data))
        # One finished: one more fits, then the cap holds again.
        begin(a, other)
        with self.assertRaises(grpc.RpcError):
            begin(b, other)
        # A restart does not end open uploads; their leases do.
        a.stop()
        a = self.node("a", *extra)
        with self.assertRaises(grpc.RpcError):
            begin(a, other)
        time.sleep(2.5)
        begin(b, other)

    def test_a_stopped_daemons_job_is_taken_over_at_once(self):
        a, b = self.node("a"), self.node("b")
        b.stop()  # a alone takes the job
        b = None
        job = self.submit(a, *h.iris_flags(3000, "--patience", "100000"))
        self.wait_epoch(a, job, 3)
        b = self.node("b")
        self.assertEqual(a.stop(), 0)  # SIGTERM: checkpoint, release
        stopped_at = time.time()
        got = wait_for(lambda: (lambda j: j if j["node"] == "b" and
                                j["state"] == "RUNNING" else None)(
            self.get(b, job)), timeout=20)
        # Well within the lease: the clean stop released it.
        self.assertLess(time.time() - stopped_at, LEASE_SECONDS)
        code, out, err = b.ctl("cancel", job)
        self.assertEqual(code, 0, err)
        messages = [e.message for e in self.watch(b, job)]
        self.assertTrue(any("interrupted by a daemon stop (a)" in m
                            for m in messages), messages)
        self.assertFalse(any("crash" in m for m in messages))

    def test_bad_database_uris_are_said(self):
        d = h.Daemon("postgresql://webnnm@127.0.0.1:1/none", expect_ready=False)
        self.daemons.append(d)
        d.proc.wait(timeout=30)
        self.assertEqual(d.stop(timeout=30), 1)
        self.assertIn("cannot connect to PostgreSQL at "
                      "postgresql://webnnm@127.0.0.1:1/none", d.log)
        d = h.Daemon("postgresql://webnnm:secret@127.0.0.1:1/none",
                     expect_ready=False)
        self.daemons.append(d)
        d.proc.wait(timeout=30)
        self.assertEqual(d.stop(timeout=30), 1)
        self.assertNotIn("secret", d.log)


class Replicas(Cluster):
    def test_a_killed_replica_requeues_the_job_to_the_same_end(self):
        extra = ["gloo_timeout_seconds: 10", "max_replicas: 4"]
        a, b, c = (self.node(n, *extra) for n in ("a", "b", "c"))
        dataset = self.upload(a, "/usr/share/datasets/fashion-mnist")
        flags = [config("models", "fashion-mlp.wnm"), "--dataset", dataset,
                 "--epochs", "4", "--seeds", "3", "--lr", "0.0005",
                 "--batch-size", "64", "--patience", "100000",
                 "--replicas", "2"]
        code, _, err = a.ctl("submit", *flags[:-1], "9", "-o", "json")
        self.assertEqual(code, 1)
        self.assertIn("more than the cluster allows (max_replicas 4)", err)
        reference = self.submit(a, *flags)
        code, out, err = b.ctl("watch", reference, "-o", "json", timeout=300)
        self.assertEqual(code, 0, err)
        events = h.json_lines(out)
        self.assertFalse(any("replica" in e.get("message", "")
                             for e in events),
                         [e for e in events if "replica" in
                          e.get("message", "")])
        job = self.submit(b, *flags)

        def helper():
            got = self.get(a, job)
            if got["state"] != "RUNNING" or got["epoch"] < 1:
                return None
            nodes = json.loads(a.ctl("nodes", "-o", "json")[1])["nodes"]
            names = [n["name"] for n in nodes if job in n["running"]
                     and n["name"] != got["node"]]
            return (names[0], got["node"]) if names else None
        helper_name, rank0 = h.wait_for(helper, timeout=240, interval=0.05)
        victim = {"a": a, "b": b, "c": c}[helper_name]
        victim.proc.send_signal(signal.SIGKILL)
        victim.proc.wait()
        killed = time.time()
        survivor = a if victim is not a else b

        def requeued():
            code, out, _ = survivor.ctl("logs", job, "-o", "json")
            return [e for e in h.json_lines(out)
                    if "a replica failed" in e.get("message", "")]
        failed = h.wait_for(requeued, timeout=10 + 30, interval=0.1)
        self.assertLess(time.time() - killed, 10 + 30)
        self.assertIn("resumes from its checkpoint after epoch",
                      failed[0]["message"])
        code, out, err = survivor.ctl("watch", job, "-o", "json",
                                      timeout=300)
        self.assertEqual(code, 0, err)
        got = self.get(survivor, job)
        self.assertEqual(got["state"], "SUCCEEDED")
        self.assertEqual(got["attempt"], 2)
        # Counted against the restart budget, as a crash.
        self.assertEqual(got.get("crashRestarts", 0), 1)
        # Resumed from its checkpoint: no epoch twice, none missed.
        events = h.json_lines(out)
        epochs = [e["epoch"] for e in events if e["type"] == "EPOCH"]
        self.assertEqual(epochs, list(range(1, epochs[-1] + 1)))
        # The bits of the uninterrupted run.
        files = {}
        for j in (reference, job):
            files[j] = os.path.join(self.dir, f"{j}.wnms")
            code, _, err = survivor.ctl("snapshot", "export", j, "-f",
                                        files[j])
            self.assertEqual(code, 0, err)
        _, ref = h.read_snapshot(files[reference])
        _, resumed = h.read_snapshot(files[job])
        self.assertEqual(ref, resumed)
        print(f"replicas: {helper_name} (helping {rank0}) killed; the job "
              f"was queued again and resumed to the reference's bits",
              file=sys.stderr)

        # Two daemons live: a job of three waits, saying so.
        three = self.submit(survivor, *flags[:-1], "3")
        waiting = h.wait_for(lambda: (lambda j: j if j["waiting"] else None)(
            self.get(survivor, three)), timeout=30)
        self.assertEqual(waiting["state"], "QUEUED")
        self.assertIn("waits for 3 daemons (replicas 3); 2 are live",
                      waiting["waiting"])
        code, _, err = survivor.ctl("cancel", three)
        self.assertEqual(code, 0, err)

    def test_a_hung_replica_fails_the_run_within_the_timeout(self):
        extra = ["gloo_timeout_seconds: 10", "max_replicas: 4"]
        a, b, c = (self.node(n, *extra) for n in ("a", "b", "c"))
        dataset = self.upload(a, "/usr/share/datasets/fashion-mnist")
        job = self.submit(a, config("models", "fashion-mlp.wnm"),
                          "--dataset", dataset, "--epochs", "3", "--seeds",
                          "2", "--lr", "0.0005", "--batch-size", "64",
                          "--patience", "100000", "--replicas", "2")

        def helper():
            got = self.get(a, job)
            if got["state"] != "RUNNING" or got["epoch"] < 1:
                return None
            nodes = json.loads(a.ctl("nodes", "-o", "json")[1])["nodes"]
            names = [n["name"] for n in nodes if job in n["running"]
                     and n["name"] != got["node"]]
            return names[0] if names else None
        helper_name = h.wait_for(helper, timeout=240, interval=0.05)
        hung = {"a": a, "b": b, "c": c}[helper_name]
        # The helper stops answering (its sockets stay open: no reset
        # tells rank 0; only Gloo's timeout can).
        hung.proc.send_signal(signal.SIGSTOP)
        stopped = time.time()
        others = [d for d in (a, b, c) if d is not hung]
        try:
            def requeued():
                code, out, _ = others[0].ctl("logs", job, "-o", "json")
                return [e for e in h.json_lines(out)
                        if "a replica failed" in e.get("message", "")]
            failed = h.wait_for(requeued, timeout=10 + 30, interval=0.1)
            self.assertLess(time.time() - stopped, 10 + 30)
            self.assertIn("resumes from its checkpoint after epoch",
                          failed[0]["message"])
        finally:
            hung.proc.send_signal(signal.SIGCONT)
        code, out, err = others[0].ctl("watch", job, "-o", "json",
                                       timeout=300)
        self.assertEqual(code, 0, err)
        got = self.get(others[0], job)
        self.assertEqual(got["state"], "SUCCEEDED")
        self.assertEqual(got.get("crashRestarts", 0), 1)
        events = h.json_lines(out)
        epochs = [e["epoch"] for e in events if e["type"] == "EPOCH"]
        self.assertEqual(epochs, list(range(1, epochs[-1] + 1)))
        # The helper that hung lives on, serves, and wrote nothing of the
        # attempt it lost.
        self.assertIsNone(hung.proc.poll())
        code, out, err = hung.ctl("get", job, "-o", "json")
        self.assertEqual(code, 0, err)


if __name__ == "__main__":
    argv = h.setup(sys.argv)
    suite = argv.pop(1) if len(argv) > 1 else "Failover"
    unittest.main(argv=argv, defaultTest=suite)

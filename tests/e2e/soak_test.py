#!/usr/bin/env python3
"""A bounded soak of the real daemon (issue 22): three principals submit
jobs at once (retrying with idempotency keys), watchers abandon gRPC and
grpc-web streams, Infer calls of every batch size, uploads cut off — and
the daemon is SIGKILLed twice under it. At the end every job ended once and
correctly, the daemon's memory and descriptors are back within a margin of
where they started, and no upload is left behind.

usage: soak_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import json
import os
import random
import socket
import struct
import sys
import threading
import time
import unittest

import daemon_harness as h
from daemon_harness import config, wait_for

PRINCIPALS = ["ann", "bob", "cy"]
JOBS_PER_PRINCIPAL = 4
SOAK_SECONDS = 40  # of load, the two kills inside it


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def open_fds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


class Soak(h.Temp):
    def setUp(self):
        super().setUp()
        self.tokens = os.path.join(self.dir, "tokens")
        with open(self.tokens, "w") as f:
            for p in PRINCIPALS:
                f.write(f"{p}-token {p}\n")
        self.cfg = os.path.join(self.dir, "soak.textproto")
        with open(self.cfg, "w") as f:
            f.write("workers: 2\nupload_idle_timeout_seconds: 3\n")
        self.lock = threading.Lock()
        self.current = None
        self.stop = threading.Event()
        self.errors = []
        self.counts = {"infer": 0, "watch": 0, "web": 0, "upload": 0}

    def start(self):
        d = self.daemon("db", "--config", self.cfg, "--http-listen",
                        "127.0.0.1:0", tokens=self.tokens)
        with self.lock:
            self.current = d
        return d

    def stub(self):
        import grpc
        from webnnm.v1 import webnnm_pb2_grpc
        with self.lock:
            d = self.current
        return d, webnnm_pb2_grpc.WebnnmStub(grpc.insecure_channel(d.address))

    @staticmethod
    def auth(principal):
        return [("authorization", f"Bearer {principal}-token")]

    def retrying(self, call):
        """call(stub) until it is answered; UNAVAILABLE (a kill) retries."""
        import grpc
        deadline = time.time() + 120
        while time.time() < deadline:
            _, stub = self.stub()
            try:
                return call(stub)
            except grpc.RpcError as e:
                if e.code() not in (grpc.StatusCode.UNAVAILABLE,
                                    grpc.StatusCode.CANCELLED,
                                    grpc.StatusCode.DEADLINE_EXCEEDED):
                    raise
                time.sleep(0.3)
        raise TimeoutError("the daemon never answered")

    # The load.

    def submitter(self, principal, dataset, model, jobs):
        from webnnm.v1 import webnnm_pb2 as pb, hyperparameters_pb2 as hp
        rng = random.Random(principal)
        for i in range(JOBS_PER_PRINCIPAL):
            epochs = rng.choice([300, 1000, 3000])
            request = pb.SubmitJobRequest(
                model_text=model, file_name="iris.wnm",
                data=pb.DataSpec(dataset_id=dataset, split="60,20,20"),
                hyperparameters=hp.Hyperparameters(
                    epochs=epochs, seeds=2, optimizer="sgdm", lr=0.05,
                    batch_size=16, patience=100000),
                idempotency_key=f"{principal}-{i}")
            answer = self.retrying(lambda s: s.SubmitJob(
                request, metadata=self.auth(principal), timeout=30))
            with self.lock:
                jobs.append((principal, answer.job.job_id, epochs))
            time.sleep(rng.uniform(0.5, 3))

    def watcher(self, jobs):
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb
        rng = random.Random(7)
        while not self.stop.is_set():
            with self.lock:
                known = list(jobs)
            if not known:
                time.sleep(0.2)
                continue
            principal, job, _ = rng.choice(known)
            _, stub = self.stub()
            stream = stub.WatchJob(pb.WatchJobRequest(job_id=job),
                                   metadata=self.auth(principal), timeout=30)
            try:
                for n, _ in enumerate(stream):
                    if n >= rng.randint(1, 5):
                        break
            except grpc.RpcError:
                pass
            stream.cancel()  # abandoned mid-stream
            self.counts["watch"] += 1

    def web_watcher(self, jobs):
        from webnnm.v1 import webnnm_pb2 as pb
        rng = random.Random(8)
        while not self.stop.is_set():
            with self.lock:
                known = list(jobs)
                d = self.current
            if not known:
                time.sleep(0.2)
                continue
            principal, job, _ = rng.choice(known)
            port = int(d.ready_line.split("http=")[1].rsplit(":", 1)[1])
            body = pb.WatchJobRequest(job_id=job).SerializeToString()
            body = b"\x00" + struct.pack(">I", len(body)) + body
            s = None
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall((f"POST /webnnm.v1.Webnnm/WatchJob HTTP/1.1\r\n"
                           f"Host: x\r\nauthorization: Bearer "
                           f"{principal}-token\r\ncontent-type: "
                           f"application/grpc-web+proto\r\ncontent-length: "
                           f"{len(body)}\r\n\r\n").encode() + body)
                s.recv(rng.choice([1, 100, 4096]))
                self.counts["web"] += 1
            except OSError:
                time.sleep(0.2)
            finally:
                if s is not None:
                    s.close()  # gone without a word

    def inferrer(self, served):
        from webnnm.v1 import webnnm_pb2 as pb
        import grpc
        rng = random.Random(9)
        while not self.stop.is_set():
            n = rng.randint(1, 40)
            values = [rng.uniform(0, 8) for _ in range(4 * n)]
            request = pb.InferRequest(job_id=served, inputs=[pb.Tensor(
                name="model", shape=[n, 4], values=values)])
            try:
                answer = self.retrying(lambda s: s.Infer(
                    request, metadata=self.auth("ann"), timeout=30))
                self.counts["infer"] += 1
                if list(answer.outputs[0].shape) != [n, 3]:
                    self.errors.append(f"infer of {n}: {answer.outputs[0].shape}")
            except (grpc.RpcError, TimeoutError) as e:
                self.errors.append(f"infer: {e}")

    def cut_uploader(self):
        from webnnm.v1 import webnnm_pb2 as pb
        import grpc
        rng = random.Random(10)
        while not self.stop.is_set():
            principal = rng.choice(PRINCIPALS)
            _, stub = self.stub()
            try:
                start = stub.UploadDataset(pb.UploadDatasetRequest(
                    name="cut.csv", format=1, sha256="0" * 64,
                    total_bytes=1000), metadata=self.auth(principal),
                    timeout=10)
                stub.UploadDataset(pb.UploadDatasetRequest(
                    upload_id=start.upload_id, file_name="cut.csv",
                    data=b"a,b\n" * 10), metadata=self.auth(principal),
                    timeout=10)
                self.counts["upload"] += 1
            except grpc.RpcError:
                pass  # refused (too many open) or the daemon is down
            time.sleep(0.5)

    # The checks.

    def check_job(self, stub, principal, job, epochs):
        from webnnm.v1 import webnnm_pb2 as pb
        got = stub.GetJob(pb.GetJobRequest(job_id=job),
                          metadata=self.auth(principal), timeout=30)
        self.assertEqual(got.state, pb.JOB_STATE_SUCCEEDED, (job, got.error))
        events = list(stub.WatchJob(pb.WatchJobRequest(job_id=job),
                                    metadata=self.auth(principal),
                                    timeout=60))
        self.assertEqual([e.seq for e in events],
                         list(range(1, len(events) + 1)), job)
        done = [e for e in events if e.state == pb.JOB_STATE_SUCCEEDED]
        self.assertEqual(len(done), 1, job)  # ended once
        # Each epoch once, in order, however often the job was resumed
        # (early stopping may end it before `epochs`).
        epoch_numbers = [e.epoch.epoch for e in events if e.HasField("epoch")]
        self.assertEqual(epoch_numbers, list(range(1, len(epoch_numbers) + 1)),
                         job)
        self.assertLessEqual(len(epoch_numbers), epochs, job)
        self.assertEqual(got.epoch, len(epoch_numbers), job)
        return any("interrupted by a daemon crash" in e.message for e in events)

    def test_soak(self):
        from webnnm.v1 import webnnm_pb2 as pb
        t_start = time.time()
        d = self.start()
        datasets = {}
        for p in PRINCIPALS:
            code, out, err = d.ctl("dataset", "upload",
                                   config("datasets", "iris.csv"), "-o",
                                   "json", token=f"{p}-token")
            self.assertEqual(code, 0, err)
            datasets[p] = json.loads(out)["datasetId"]
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        # A served model for the Infer calls.
        served = self.submit(d, *h.iris_flags(5), token="ann-token")
        self.assertEqual(d.ctl("watch", served, token="ann-token")[0], 0)

        jobs = []
        threads = [threading.Thread(target=self.submitter,
                                    args=(p, datasets[p], model, jobs))
                   for p in PRINCIPALS]
        threads += [threading.Thread(target=self.watcher, args=(jobs,)),
                    threading.Thread(target=self.web_watcher, args=(jobs,)),
                    threading.Thread(target=self.inferrer, args=(served,)),
                    threading.Thread(target=self.cut_uploader)]
        for t in threads:
            t.daemon = True
            t.start()
        # Two SIGKILLs under load; the second incarnation's start is the
        # baseline of memory and descriptors.
        for kill in range(2):
            time.sleep(SOAK_SECONDS / 3)
            with self.lock:
                victim = self.current
            victim.proc.kill()
            victim.proc.wait()
            d = self.start()
        _, stub = self.stub()
        stub.Infer(pb.InferRequest(job_id=served, inputs=[pb.Tensor(
            name="model", shape=[1, 4], values=[5, 3, 1, 0.2])]),
            metadata=self.auth("ann"), timeout=30)
        base_rss, base_fds = rss_mb(d.proc.pid), open_fds(d.proc.pid)
        time.sleep(SOAK_SECONDS / 3)
        self.stop.set()
        for t in threads:
            t.join(timeout=120)
        self.assertEqual(self.errors, [])
        self.assertEqual(len(jobs), len(PRINCIPALS) * JOBS_PER_PRINCIPAL)

        # Every job ends, once and correctly.
        for what, n in self.counts.items():
            self.assertGreater(n, 5, (what, self.counts))
        _, stub = self.stub()
        resumed = 0
        for principal, job, epochs in jobs:
            wait_for(lambda: stub.GetJob(
                pb.GetJobRequest(job_id=job), metadata=self.auth(principal),
                timeout=30).state in (pb.JOB_STATE_SUCCEEDED,
                                      pb.JOB_STATE_FAILED),
                timeout=120, interval=0.5)
            resumed += self.check_job(stub, principal, job, epochs)
        # The kills came while jobs ran: some were resumed, and still
        # ended as if uninterrupted.
        self.assertGreater(resumed, 0)
        print(f"soak: {len(jobs)} jobs, {resumed} resumed after a kill, "
              f"calls {self.counts}", file=sys.stderr)
        listed = stub.ListJobs(pb.ListJobsRequest(page_size=1000),
                               metadata=self.auth("ann"), timeout=30)
        self.assertEqual(len(listed.jobs), JOBS_PER_PRINCIPAL + 1)

        # Abandoned uploads expire (the next upload call sweeps them), the
        # ones the kills cut were deleted at start: none is left.
        time.sleep(3.5)
        folder = os.path.join(os.path.dirname(d.db), "datasets", "uploads")
        code, _, err = d.ctl("dataset", "upload", config("datasets",
                                                         "digits.csv"),
                             token="bob-token")
        self.assertEqual(code, 0, err)
        self.assertEqual(os.listdir(folder), [])

        # Memory and descriptors back within a margin of the baseline.
        time.sleep(1)
        self.assertLess(open_fds(d.proc.pid), base_fds + 16,
                        (base_fds, open_fds(d.proc.pid)))
        self.assertLess(rss_mb(d.proc.pid), base_rss + 200,
                        (base_rss, rss_mb(d.proc.pid)))
        self.assertEqual(d.stop(), 0)
        self.assertLess(time.time() - t_start, 300)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

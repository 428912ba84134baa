#!/usr/bin/env python3
"""Hostile input against the real daemon (issue 22): gzip-bombed IDX
datasets, uploads that are never finished, submissions docs/daemon.md says
are refused, diagnostics too big for gRPC's metadata.

usage: hostile_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import hashlib
import json
import os
import signal
import struct
import sys
import time
import unittest
import zlib

import daemon_harness as h
from daemon_harness import config, wait_for


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def write_gz_idx(path, dims, fill=0, count=None):
    """An IDX file of unsigned bytes, gzipped, streamed (a bomb costs the
    test no memory): its header claims `dims`; `count` bytes of `fill`
    follow (all of them by default)."""
    total = 1
    for n in dims:
        total *= n
    count = total if count is None else count
    z = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip
    with open(path, "wb") as f:
        f.write(z.compress(bytes([0, 0, 8, len(dims)]) +
                           b"".join(struct.pack(">I", n) for n in dims)))
        block = bytes([fill]) * (1 << 20)
        left = count
        while left > 0:
            n = min(left, len(block))
            f.write(z.compress(block[:n]))
            left -= n
        f.write(z.flush())


class Data(h.Temp):
    def test_npz_holes_are_refused_at_submit_and_locally(self):
        """The probe's .npz holes: NaN features, labels too large to stay
        distinct, an entry that inflates past its declared size — each
        refused by submit (nothing queued) and by train --local, naming
        what is wrong."""
        import io
        import numpy as np
        rng = np.random.default_rng(1)
        x = rng.normal(size=(60, 4)).astype(np.float32)
        y = np.arange(60) % 3

        def archive(name, **arrays):
            path = os.path.join(self.dir, name)
            np.savez_compressed(path, **arrays)
            return path

        nan = x.copy()
        nan[7, 2] = np.nan
        with open(archive("ok.npz", x=x, y=y), "rb") as f:
            damaged = bytearray(f.read())
        for sig, name_at, size_at in ((b"PK\x03\x04", 30, 22),
                                      (b"PK\x01\x02", 46, 24)):
            at = damaged.find(sig)
            while damaged[at + name_at:at + name_at + 5] != b"x.npy":
                at = damaged.find(sig, at + 4)
            damaged[at + size_at:at + size_at + 4] = struct.pack("<I", 128)
        damaged_path = os.path.join(self.dir, "damaged.npz")
        with open(damaged_path, "wb") as f:
            f.write(damaged)
        cases = [
            (archive("nan.npz", x=nan, y=y),
             "the input 'model' holds NaN at sample 8, value 3"),
            (archive("huge.npz", x=x, y=(np.arange(60) % 3 + 2**62)),
             "integer labels beyond 2^53 do not stay distinct"),
            (damaged_path, "'x.npy' is damaged: it inflates past its "
                           "declared 128 bytes"),
        ]
        d = self.daemon()
        model = config("models", "iris.wnm")
        for path, words in cases:
            code, _, err = d.ctl("submit", model, "--dataset", path)
            self.assertEqual(code, 1, (path, err))
            self.assertIn(words, err, path)
            proc = __import__("subprocess").run(
                [h.WEBNNMCTL, "train", "--local", model, "--dataset", path,
                 "--epochs", "1"], capture_output=True, text=True, timeout=120)
            self.assertEqual(proc.returncode, 1, (path, proc.stderr))
            self.assertIn(words, proc.stderr, path)
        code, out, _ = d.ctl("list", "-o", "json")
        self.assertEqual(json.loads(out)["jobs"], [])
        # Labels of 2^40 and on stay three distinct classes.
        big = archive("big.npz", x=x, y=(np.arange(60) % 3 + 2**40))
        job = self.submit(d, model, "--dataset", big, "--epochs", "2")
        self.assertEqual(d.ctl("watch", job)[0], 0)
        got = self.get(d, job)
        self.assertEqual(got["testMetrics"]["model"]["classes"],
                         [str(2**40), str(2**40 + 1), str(2**40 + 2)])
        self.assertEqual(d.stop(), 0)

    def test_a_gzip_bomb_is_refused_before_it_is_inflated(self):
        folder = os.path.join(self.dir, "bomb")
        os.makedirs(folder)
        # 300,000 images of 32x32: 307 MB inflated from ~300 KB, over the
        # daemon's 256 MiB dataset limit.
        write_gz_idx(os.path.join(folder, "train-images-idx3-ubyte.gz"),
                     [300000, 32, 32])
        write_gz_idx(os.path.join(folder, "train-labels-idx1-ubyte.gz"),
                     [300000])
        write_gz_idx(os.path.join(folder, "t10k-images-idx3-ubyte.gz"),
                     [10, 32, 32])
        write_gz_idx(os.path.join(folder, "t10k-labels-idx1-ubyte.gz"), [10])
        compressed = sum(os.path.getsize(os.path.join(folder, n))
                         for n in os.listdir(folder))
        self.assertLess(compressed, 2 << 20)
        d = self.daemon()
        code, out, err = d.ctl("dataset", "upload", folder, "-o", "json")
        self.assertEqual(code, 0, err)
        dataset = json.loads(out)["datasetId"]
        before = peak_rss_mb(d.proc.pid)
        code, _, err = d.ctl("submit", config("models", "iris.wnm"),
                             "--dataset", dataset)
        self.assertNotEqual(code, 0)
        self.assertIn("claims", err)
        self.assertIn("max_dataset_bytes", err)
        self.assertNotIn(self.dir, err)
        # CheckModel's preview reads it the same way.
        from webnnm.v1 import webnnm_pb2 as pb, webnnm_pb2_grpc
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        preview = stub.CheckModel(pb.CheckModelRequest(
            model_text=model, data=pb.DataSpec(dataset_id=dataset)),
            timeout=60)
        self.assertIn("claims", preview.preview_error)
        # Refused from the header: the daemon's peak memory barely moved.
        self.assertLess(peak_rss_mb(d.proc.pid) - before, 100,
                        (before, peak_rss_mb(d.proc.pid)))
        self.assertEqual(d.stop(), 0)

    def test_a_file_and_its_gzipped_twin_are_refused(self):
        folder = os.path.join(self.dir, "twins")
        os.makedirs(folder)
        for part, n in (("train", 20), ("t10k", 10)):
            write_gz_idx(os.path.join(folder, f"{part}-images-idx3-ubyte.gz"),
                         [n, 4, 4])
            write_gz_idx(os.path.join(folder, f"{part}-labels-idx1-ubyte.gz"),
                         [n])
        with open(os.path.join(folder, "train-labels-idx1-ubyte"), "wb") as f:
            f.write(bytes([0, 0, 8, 1]) + struct.pack(">I", 20) + bytes(20))
        d = self.daemon()
        code, _, err = d.ctl("dataset", "upload", folder)
        self.assertNotEqual(code, 0)
        self.assertIn("train-labels-idx1-ubyte", err)
        self.assertIn("same IDX file", err)
        # Read locally, the same refusal.
        code, _, err = d.ctl("train", config("models", "iris.wnm"),
                             "--dataset", folder, "--epochs", "1",
                             "--local")
        self.assertNotEqual(code, 0)
        self.assertIn("both train-labels-idx1-ubyte and", err)
        self.assertEqual(d.stop(), 0)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Memory(h.Temp):
    def test_memory_is_given_back_after_a_burst_of_large_bodies(self):
        """40 bodies of 20 MiB to the HTTP listener, 4 at a time, on
        keep-alive connections: the daemon's resident memory is back
        within 20 MiB of where it was before the burst within a minute
        (the probe: 131 MiB against 28 MiB, for good)."""
        import concurrent.futures
        import http.client
        d = self.daemon("db", "--http-listen", "127.0.0.1:0")
        host, port = d.ready_line.split("http=")[1].split()[0].rsplit(":", 1)
        body = b"\0" * (20 << 20)

        def post(_):
            c = http.client.HTTPConnection(host, int(port), timeout=60)
            try:
                for _ in range(10):
                    c.request("POST", "/webnnm.v1.Webnnm/ListJobs", body=body,
                              headers={"Content-Type":
                                       "application/grpc-web+proto"})
                    c.getresponse().read()
            finally:
                c.close()

        post(0)  # the first one grows what every later one reuses
        time.sleep(1)
        baseline = rss_mb(d.proc.pid)
        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(post, range(4)))
        peak = rss_mb(d.proc.pid)
        deadline = time.time() + 60
        while time.time() < deadline and rss_mb(d.proc.pid) > baseline + 20:
            time.sleep(0.5)
        after = rss_mb(d.proc.pid)
        print(f"RSS: {baseline:.0f} MiB before, {peak:.0f} MiB after the "
              f"burst, {after:.0f} MiB at the end", file=sys.stderr)
        self.assertLess(after, baseline + 20)
        self.assertEqual(d.stop(), 0)


class TlsStalls(h.Temp):
    def test_stalled_tls_handshakes_are_cut_and_hold_no_worker(self):
        """Clients that open TLS and send nothing, or stop in the middle of
        their ClientHello, on the gRPC, HTTP and metrics listeners: each
        connection is closed within the request deadline plus a margin
        (20 s), and while 40 such connections wait on the HTTP listener
        (more than its 32 workers) the daemon still answers over both."""
        import socket
        import ssl
        import urllib.request
        cert, key = h.self_signed_certificate(self.dir)
        cfg = os.path.join(self.dir, "tls.textproto")
        with open(cfg, "w") as f:
            f.write(f'tls_certificate: "{cert}"\ntls_private_key: "{key}"\n')
        d = self.daemon("db", "--config", cfg, "--http-listen", "127.0.0.1:0",
                        "--metrics-listen", "127.0.0.1:0")
        listeners = {name: d.ready_line.split(f"{name}=")[1].split()[0]
                     for name in ("grpc", "http", "metrics")}
        # A ClientHello's record header claiming 512 bytes, then 10 of them.
        partial = bytes([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01,
                         0xFC, 0x03, 0x03, 0, 0, 0, 0])

        def stall(address, send):
            host, port = address.rsplit(":", 1)
            s = socket.create_connection((host, int(port)), timeout=60)
            if send:
                s.sendall(send)
            return s

        def closed_within(s, limit):
            start = time.time()
            s.settimeout(limit)
            try:
                while s.recv(4096):
                    pass
            except socket.timeout:
                return None
            except OSError:
                pass
            finally:
                s.close()
            return time.time() - start

        for name, address in listeners.items():
            for send in (b"", partial):
                took = closed_within(stall(address, send), 40)
                self.assertIsNotNone(took, f"{name}: still open after 40 s")
                self.assertLess(took, 20, f"{name}: closed after {took:.1f} s")
        held = [stall(listeners["http"], partial if i % 2 else b"")
                for i in range(40)]
        try:
            context = ssl.create_default_context(cafile=cert)
            with urllib.request.urlopen(f"https://{listeners['http']}/readyz",
                                        context=context, timeout=10) as r:
                self.assertEqual(r.status, 200)
            code, _, err = d.ctl("--ca", cert, "list", timeout=30)
            self.assertEqual(code, 0, err)
        finally:
            for s in held:
                s.close()
        self.assertEqual(d.stop(), 0)


class Uploads(h.Temp):
    def start(self, stub, pb, size, name="x.csv"):
        return stub.UploadDataset(pb.UploadDatasetRequest(
            name=name, format=1, sha256="0" * 64, total_bytes=size),
            timeout=30).upload_id

    def uploads_folder(self, d):
        return os.path.join(os.path.dirname(d.db), "datasets", "uploads")

    def test_open_uploads_are_capped_expire_and_are_cleaned_at_start(self):
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb, webnnm_pb2_grpc
        cfg = os.path.join(self.dir, "uploads.textproto")
        with open(cfg, "w") as f:
            f.write("upload_idle_timeout_seconds: 2\nmax_open_uploads: 3\n"
                    "max_open_upload_bytes: 1000000\n")
        d = self.daemon("db", "--config", cfg)
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        ids = [self.start(stub, pb, 100) for _ in range(3)]
        # A fourth is refused, by count; a big one by bytes.
        for size in (100, 999000):
            with self.assertRaises(grpc.RpcError) as caught:
                self.start(stub, pb, size)
            self.assertEqual(caught.exception.code(),
                             grpc.StatusCode.RESOURCE_EXHAUSTED)
        self.assertIn("max_open_uploads", caught.exception.details())
        stub.UploadDataset(pb.UploadDatasetRequest(
            upload_id=ids[0], file_name="x.csv", data=b"a" * 50), timeout=30)
        folders = os.listdir(self.uploads_folder(d))
        self.assertEqual(sorted(folders), sorted(ids))
        # Idle past the timeout: gone, folders and all, and room again.
        time.sleep(2.5)
        fresh = self.start(stub, pb, 100)
        self.assertEqual(os.listdir(self.uploads_folder(d)), [fresh])
        with self.assertRaises(grpc.RpcError) as caught:
            stub.UploadDataset(pb.UploadDatasetRequest(
                upload_id=ids[0], file_name="x.csv", data=b"b"), timeout=30)
        self.assertEqual(caught.exception.code(), grpc.StatusCode.NOT_FOUND)
        stub.UploadDataset(pb.UploadDatasetRequest(
            upload_id=fresh, file_name="x.csv", data=b"c" * 60), timeout=30)
        # Cut off by SIGKILL: the next start deletes the folder.
        d.proc.kill()
        d.proc.wait()
        self.assertEqual(os.listdir(self.uploads_folder(d)), [fresh])
        d2 = self.daemon("db", "--config", cfg)
        self.assertEqual(os.listdir(self.uploads_folder(d2)), [])
        self.assertEqual(d2.stop(), 0)


class Submissions(h.Temp):
    """What docs/daemon.md says SubmitJob refuses is refused at submission
    (INVALID_ARGUMENT, nothing queued), not a FAILED job; diagnostics and
    echoed values fit gRPC's metadata, and webnnmctl shows them all."""

    def test_data_that_does_not_fit_is_refused_at_submission(self):
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb, webnnm_pb2_grpc
        from webnnm.v1 import hyperparameters_pb2 as hp
        d = self.daemon()
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        code, out, err = d.ctl("dataset", "upload",
                               config("datasets", "iris.csv"), "-o", "json")
        self.assertEqual(code, 0, err)
        iris = json.loads(out)["datasetId"]
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        two_classes = model.replace("model:output shape=[3]",
                                    "model:output shape=[2]").replace(
            "dense(shape=[3], activation=softmax)",
            "dense(shape=[2], activation=softmax)")
        five_features = model.replace("model:input shape=[4]",
                                      "model:input shape=[5]")
        cases = [
            (two_classes, {}, "3 classes but the output"),
            (five_features, {}, "but the dataset's samples have 4 features"),
            (model, {"split": "0,50,50"}, "training subset is empty"),
            (model, {"loss_weights": "1,2"}, "gives 2 weights for 1 outputs"),
        ]
        for text, extra, expected in cases:
            data = pb.DataSpec(dataset_id=iris,
                               split=extra.get("split", ""))
            hyper = hp.Hyperparameters(epochs=2)
            if "loss_weights" in extra:
                hyper.loss_weights = extra["loss_weights"]
            with self.assertRaises(grpc.RpcError) as caught:
                stub.SubmitJob(pb.SubmitJobRequest(
                    model_text=text, data=data, hyperparameters=hyper),
                    timeout=60)
            self.assertEqual(caught.exception.code(),
                             grpc.StatusCode.INVALID_ARGUMENT, expected)
            self.assertIn(expected, caught.exception.details())
        self.assertEqual(len(stub.ListJobs(pb.ListJobsRequest(),
                                           timeout=30).jobs), 0)
        self.assertEqual(d.stop(), 0)

    def test_refusals_fit_the_metadata_and_the_cli_lists_them_all(self):
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb, webnnm_pb2_grpc
        d = self.daemon()
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        # A 100 KB option value is not echoed back whole.
        huge = "x" * 100000
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        bad = model.replace("activation=softmax", "activation=" + huge)
        checked = stub.CheckModel(pb.CheckModelRequest(model_text=bad),
                                  timeout=30)
        self.assertFalse(checked.ok)
        for diagnostic in checked.diagnostics:
            self.assertLess(len(diagnostic.message), 1000)
        self.assertLess(len(checked.rendered), 4000)
        self.assertNotIn("x" * 201, checked.rendered)
        with self.assertRaises(grpc.RpcError) as caught:
            stub.SubmitJob(pb.SubmitJobRequest(
                model_text=bad, data=pb.DataSpec(dataset_id="nope")),
                timeout=30)
        self.assertLess(len(caught.exception.details()), 4096 + 200)
        # 40 errors: webnnmctl submit prints CheckModel's whole list.
        many = os.path.join(self.dir, "many.wnm")
        with open(many, "w") as f:
            f.write("model:input shape=[4];\nmodel:output shape=[3];\n"
                    "model:layers " +
                    ", ".join(f"nosuch{i}()" for i in range(40)) + ";\n")
        code, _, err = d.ctl("submit", many, "--dataset",
                             config("datasets", "iris.csv"))
        self.assertEqual(code, 1)
        self.assertIn("unknown operator 'nosuch39'", err)
        self.assertEqual(err.count("error: unknown operator"), 40)
        self.assertNotIn("CheckModel lists them all", err)
        self.assertEqual(d.stop(), 0)


class Also(h.Temp):
    """The issue's list of smaller defects, each against the real daemon."""

    def trained(self, d, epochs=3):
        job = self.submit(d, *h.iris_flags(epochs))
        self.assertEqual(d.ctl("watch", job)[0], 0)
        return job

    def test_infer_refuses_types_shapes_and_both_encodings(self):
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb, webnnm_pb2_grpc
        d = self.daemon()
        job = self.trained(d)
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())

        def infer(tensor):
            return stub.Infer(pb.InferRequest(job_id=job, inputs=[tensor]),
                              timeout=30)
        ok = infer(pb.Tensor(name="model", shape=[1, 4],
                             values=[5.1, 3.5, 1.4, 0.2]))
        self.assertEqual(list(ok.outputs[0].shape), [1, 3])
        raw = struct.pack("<4f", 5.1, 3.5, 1.4, 0.2)
        for tensor, expected in [
                (pb.Tensor(name="model", shape=[1, 4], data_type="complex64",
                           values=[1, 2, 3, 4]), "not a numeric type"),
                (pb.Tensor(name="model", shape=[1, 4], data_type="string",
                           raw=raw), "not a numeric type"),
                (pb.Tensor(name="model", shape=[1, 4], raw=raw,
                           values=[1, 2, 3, 4]), "not both"),
                (pb.Tensor(name="model", shape=[1, 2, 2],
                           values=[1, 2, 3, 4]), "got shape [1, 2, 2]")]:
            with self.assertRaises(grpc.RpcError) as caught:
                infer(tensor)
            self.assertEqual(caught.exception.code(),
                             grpc.StatusCode.INVALID_ARGUMENT, expected)
            self.assertIn(expected, caught.exception.details())
        self.assertEqual(d.stop(), 0)

    def test_damaged_rows_and_snapshots_and_an_empty_database(self):
        import grpc
        import sqlite3
        from webnnm.v1 import webnnm_pb2 as pb, webnnm_pb2_grpc
        d = self.daemon()
        damaged, kept = self.trained(d), self.trained(d)
        self.assertEqual(d.stop(), 0)
        db = sqlite3.connect(d.db)
        db.execute("UPDATE jobs SET job = x'ffffffff' WHERE id = ?",
                   (damaged,))
        (blob,) = db.execute("SELECT data FROM snapshots WHERE job_id = ? "
                             "ORDER BY id DESC LIMIT 1", (kept,)).fetchone()
        flipped = bytearray(blob)
        flipped[len(flipped) // 2] ^= 0xFF
        db.execute("UPDATE snapshots SET data = ? WHERE job_id = ?",
                   (bytes(flipped), kept))
        db.commit()
        db.close()
        d = self.daemon()
        stub = webnnm_pb2_grpc.WebnnmStub(d.channel())
        # The damaged row is skipped, not the whole list, and said.
        listed = stub.ListJobs(pb.ListJobsRequest(), timeout=30)
        self.assertEqual([j.job_id for j in listed.jobs], [kept])
        # A snapshot whose checksum no longer verifies is not exported.
        with self.assertRaises(grpc.RpcError) as caught:
            list(stub.ExportSnapshot(pb.ExportSnapshotRequest(job_id=kept),
                                     timeout=30))
        self.assertEqual(caught.exception.code(), grpc.StatusCode.DATA_LOSS)
        self.assertIn("damaged", caught.exception.details())
        self.assertEqual(d.stop(), 0)
        self.assertIn(f"job {damaged} in the database does not read", d.log)
        # A database of zero bytes starts, empty, with a warning.
        empty = os.path.join(self.dir, "empty", "webnnm.db")
        os.makedirs(os.path.dirname(empty))
        open(empty, "w").close()
        e = h.Daemon(empty)
        self.daemons.append(e)
        self.assertEqual(e.stop(), 0)
        self.assertIn("is empty (0 bytes)", e.log)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

#!/usr/bin/env python3
"""End-to-end tests of webnnmd (issue: the daemon): the real daemon on
127.0.0.1 with a temporary SQLite database, driven by webnnmctl and by a
Python gRPC client whose stubs are generated from proto/.

usage: daemon_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import unittest

import daemon_harness as h
from daemon_harness import Daemon, config, read_snapshot, wait_for

IRIS = ["--dataset", None, "--split", "60,20,20", "--optimizer", "sgdm",
        "--lr", "0.05", "--batch-size", "16", "--seeds", "20"]


def iris_flags(epochs, *extra):
    flags = list(IRIS)
    flags[1] = config("datasets", "iris.csv")
    return [config("models", "iris.wnm"), *flags, "--epochs", str(epochs),
            *extra]


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class Temp(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="webnnm-e2e-")
        self.daemons = []

    def tearDown(self):
        for d in self.daemons:
            if d.proc.poll() is None:
                d.proc.kill()
                d.proc.wait()
            d.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def daemon(self, name="db", *args, **kwargs):
        d = Daemon(os.path.join(self.dir, name, "webnnm.db"), *args, **kwargs)
        self.daemons.append(d)
        return d

    def submit(self, d, *flags, token=None):
        code, out, err = d.ctl("submit", *flags, "-o", "json", token=token)
        self.assertEqual(code, 0, err)
        return json.loads(out.splitlines()[-1])["jobId"]

    def get(self, d, job, token=None):
        code, out, err = d.ctl("get", job, "-o", "json", token=token)
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def wait_epoch(self, d, job, epoch, timeout=60):
        return wait_for(lambda: self.get(d, job)["epoch"] >= epoch, timeout)


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
        for key in ["epoch", "trainLoss", "validationLoss", "lr",
                    "samplesPerSecond"]:
            self.assertIn(key, epochs[0])
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
                    "testLoss", "testAccuracy", "decisions", "warnings"]:
            self.assertEqual(got[key], local[key], key)

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


class BadInput(Temp):
    def test_malformed_requests_get_clear_errors_and_queue_nothing(self):
        import grpc
        from webnnm.v1 import webnnm_pb2, webnnm_pb2_grpc
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
            model_text="x", hyperparameters=webnnm_pb2.Hyperparameters(
                optimizer="adam"), data=webnnm_pb2.DataSpec(dataset_id="d")))
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertIn("optimizer", details)
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
                     "grpc.health.v1.Health"]:
            self.assertIn(name, services)
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
        self.assertEqual(d.stop(), 0)

    def test_tls(self):
        import subprocess
        key = os.path.join(self.dir, "server.key")
        cert = os.path.join(self.dir, "server.crt")
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
             "-keyout", key, "-out", cert, "-days", "2", "-subj",
             "/CN=localhost", "-addext",
             "subjectAltName=IP:127.0.0.1,DNS:localhost"],
            check=True, capture_output=True, timeout=60)
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

    def test_without_tokens_only_loopback(self):
        proc = Daemon.__new__(Daemon)
        import subprocess
        result = subprocess.run(
            [h.WEBNNMD, "--listen", "0.0.0.0:0", "--db",
             os.path.join(self.dir, "x.db")], capture_output=True, text=True,
            timeout=30)
        self.assertEqual(result.returncode, 2)
        self.assertIn("loopback", result.stderr)


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


class OtherClients(Temp):
    def trained_iris(self, d):
        job = self.submit(d, *iris_flags(60))
        code, _, err = d.ctl("watch", job)
        self.assertEqual(code, 0, err)
        return job

    def test_kserve_v2_client_from_the_protocol_proto_alone(self):
        import struct
        import grpc
        import grpc_predict_v2_pb2 as pb
        import grpc_predict_v2_pb2_grpc as pbg
        d = self.daemon()
        job = self.trained_iris(d)
        stub = pbg.GRPCInferenceServiceStub(d.channel())
        self.assertTrue(stub.ServerLive(pb.ServerLiveRequest(),
                                        timeout=10).live)
        self.assertTrue(stub.ServerReady(pb.ServerReadyRequest(),
                                         timeout=10).ready)
        meta = stub.ServerMetadata(pb.ServerMetadataRequest(), timeout=10)
        self.assertEqual(meta.name, "webnnmd")
        self.assertTrue(stub.ModelReady(pb.ModelReadyRequest(name=job),
                                        timeout=10).ready)
        m = stub.ModelMetadata(pb.ModelMetadataRequest(name=job), timeout=10)
        self.assertEqual(list(m.versions), ["1"])
        self.assertEqual([(t.name, t.datatype, list(t.shape))
                          for t in m.inputs], [("model", "FP32", [-1, 4])])
        self.assertEqual([(t.name, t.datatype, list(t.shape))
                          for t in m.outputs], [("model", "FP32", [-1, 3])])
        samples = [5.1, 3.5, 1.4, 0.2, 6.7, 3.0, 5.2, 2.3]
        typed = stub.ModelInfer(pb.ModelInferRequest(
            model_name=job, id="r1", inputs=[
                pb.ModelInferRequest.InferInputTensor(
                    name="model", datatype="FP32", shape=[2, 4],
                    contents=pb.InferTensorContents(fp32_contents=samples))]),
            timeout=30)
        self.assertEqual(typed.id, "r1")
        self.assertEqual(list(typed.outputs[0].shape), [2, 3])
        probs = list(typed.outputs[0].contents.fp32_contents)
        self.assertEqual(len(probs), 6)
        self.assertAlmostEqual(sum(probs[:3]), 1.0, places=5)
        # The same through raw FP16 contents (within float16's precision).
        half = struct.pack("<8e", *samples)
        raw = stub.ModelInfer(pb.ModelInferRequest(
            model_name=job, inputs=[pb.ModelInferRequest.InferInputTensor(
                name="model", datatype="FP16", shape=[2, 4])],
            raw_input_contents=[half]), timeout=30)
        raw_probs = struct.unpack("<6f", raw.raw_output_contents[0])
        for a, b in zip(raw_probs, probs):
            self.assertAlmostEqual(a, b, places=2)
        # webnnm.v1's Infer answers alike.
        code, out, _ = d.ctl("infer", job, "--values", "5.1,3.5,1.4,0.2",
                             "--values", "6.7,3.0,5.2,2.3", "-o", "json")
        for a, b in zip(json.loads(out)["outputs"]["model"]["values"], probs):
            self.assertAlmostEqual(a, b, places=6)
        for bad, code in [
                (pb.ModelInferRequest(model_name="nope"),
                 grpc.StatusCode.NOT_FOUND),
                (pb.ModelInferRequest(model_name=job, inputs=[
                    pb.ModelInferRequest.InferInputTensor(
                        name="model", datatype="FP32", shape=[1, 3],
                        contents=pb.InferTensorContents(
                            fp32_contents=[1, 2, 3]))]),
                 grpc.StatusCode.INVALID_ARGUMENT),
                (pb.ModelInferRequest(model_name=job, inputs=[
                    pb.ModelInferRequest.InferInputTensor(
                        name="model", datatype="FP16", shape=[1, 4],
                        contents=pb.InferTensorContents(
                            fp32_contents=[1, 2, 3, 4]))]),
                 grpc.StatusCode.INVALID_ARGUMENT)]:
            with self.assertRaises(grpc.RpcError) as caught:
                stub.ModelInfer(bad, timeout=30)
            self.assertEqual(caught.exception.code(), code)
        self.assertEqual(d.stop(), 0)

    def test_a_test_job_tests_a_trained_snapshot(self):
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        d = self.daemon()
        job = self.trained_iris(d)
        trained = self.get(d, job)
        stub = pbg.WebnnmStub(d.channel())
        # A job still running cannot be deleted.
        running = self.submit(d, *iris_flags(100000))
        wait_for(lambda: self.get(d, running)["state"] == "RUNNING")
        code, _, err = d.ctl("delete", running)
        self.assertEqual(code, 1)
        self.assertIn("cancel it", err)
        d.ctl("cancel", running)
        test = stub.SubmitJob(pb.SubmitJobRequest(
            kind=pb.JOB_KIND_TEST, snapshot_job_id=job,
            data=pb.DataSpec(dataset_id=trained["datasetId"],
                             split="60,20,20")), timeout=30).job.job_id
        code, out, err = d.ctl("watch", test, "-o", "json")
        self.assertEqual(code, 0, err)
        tests = [e for e in json_lines(out) if e["type"] == "TEST"]
        self.assertEqual(len(tests), 1)
        self.assertEqual(tests[0]["samples"], 30)
        tested = self.get(d, test)
        self.assertEqual(tested["kind"], "TEST")
        self.assertEqual(tested["testAccuracy"], trained["testAccuracy"])
        self.assertEqual(tested["testLoss"], trained["testLoss"])
        self.assertEqual(d.stop(), 0)

    def test_python_client_submits_and_watches(self):
        import hashlib
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        d = self.daemon()
        stub = pbg.WebnnmStub(d.channel())
        path = config("datasets", "iris.csv")
        with open(path, "rb") as f:
            content = f.read()
        digest = hashlib.sha256(b"iris.csv\0" + str(len(content)).encode() +
                                b"\0" + content).hexdigest()
        start = stub.UploadDataset(pb.UploadDatasetRequest(
            name="iris.csv", format=pb.DATASET_FORMAT_CSV, sha256=digest,
            total_bytes=len(content)), timeout=30)
        stub.UploadDataset(pb.UploadDatasetRequest(
            upload_id=start.upload_id, file_name="iris.csv", data=content),
            timeout=30)
        done = stub.UploadDataset(pb.UploadDatasetRequest(
            upload_id=start.upload_id, finish=True), timeout=30)
        self.assertEqual(done.dataset.sha256, digest)
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        submitted = stub.SubmitJob(pb.SubmitJobRequest(
            model_text=model, file_name="iris.wnm",
            data=pb.DataSpec(dataset_id=done.dataset.dataset_id,
                             split="60,20,20"),
            hyperparameters=pb.Hyperparameters(
                epochs=20, optimizer="sgdm", lr=0.05, batch_size=16,
                seeds=20)), timeout=30)
        events = list(stub.WatchJob(pb.WatchJobRequest(
            job_id=submitted.job.job_id), timeout=120))
        self.assertEqual(events[-1].state, pb.JOB_STATE_SUCCEEDED)
        self.assertEqual(sum(e.type == pb.EVENT_TYPE_EPOCH for e in events),
                         20)
        job = stub.GetJob(pb.GetJobRequest(job_id=submitted.job.job_id),
                          timeout=30)
        self.assertEqual(job.state, pb.JOB_STATE_SUCCEEDED)
        self.assertTrue(job.HasField("test_accuracy"))
        # webnnmctl's upload of the same file finds the content there.
        code, out, _ = d.ctl("dataset", "upload", path, "-o", "json")
        self.assertEqual(json.loads(out)["datasetId"],
                         done.dataset.dataset_id)
        self.assertEqual(d.stop(), 0)


    def test_check_model_previews_what_a_job_decides(self):
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        d = self.daemon()
        stub = pbg.WebnnmStub(d.channel())
        code, out, err = d.ctl("dataset", "upload",
                               config("datasets", "digits.csv"), "-o", "json")
        self.assertEqual(code, 0, err)
        dataset = json.loads(out)["datasetId"]
        with open(config("models", "digits.wnm")) as f:
            model = f.read()
        data = pb.DataSpec(dataset_id=dataset, split="60,20,20")
        hyper = pb.Hyperparameters(epochs=2, seeds=2)
        # Without data: the losses and the DAG's heuristics only.
        bare = stub.CheckModel(pb.CheckModelRequest(model_text=model),
                               timeout=30)
        self.assertTrue(bare.ok)
        self.assertEqual(bare.preview_error, "")
        whats = [x.what for x in bare.decisions]
        self.assertTrue(any("loss" in w for w in whats), whats)
        self.assertFalse(any("standardize" in w for w in whats), whats)
        self.assertEqual(bare.resolved.optimizer, "rlion")
        self.assertAlmostEqual(bare.resolved.lr, 5e-4)
        self.assertNotEqual(bare.resolved.regularization, "auto")
        self.assertNotEqual(bare.resolved.gradient_clipping, "auto")
        # With the data: the pixels (0..16) are far from unit scale.
        preview = stub.CheckModel(pb.CheckModelRequest(
            model_text=model, data=data, hyperparameters=hyper), timeout=30)
        self.assertTrue(preview.ok)
        self.assertEqual(preview.preview_error, "")
        self.assertIn("standardize the features",
                      [x.what for x in preview.decisions])
        self.assertEqual(preview.resolved.epochs, 2)
        # A job with the same request decides exactly that, in that order.
        submitted = stub.SubmitJob(pb.SubmitJobRequest(
            model_text=model, data=data, hyperparameters=hyper), timeout=30)
        events = list(stub.WatchJob(pb.WatchJobRequest(
            job_id=submitted.job.job_id), timeout=120))
        self.assertEqual(events[-1].state, pb.JOB_STATE_SUCCEEDED)
        decided = [(e.decision.what, e.decision.why) for e in events
                   if e.type == pb.EVENT_TYPE_DECISION]
        previewed = [(x.what, x.why) for x in preview.decisions]
        self.assertEqual(decided[:len(previewed)], previewed)
        # The warnings before training are the preview's; after it, the
        # run adds what only its history shows (2 epochs, still improving).
        first_epoch = next(i for i, e in enumerate(events)
                           if e.type == pb.EVENT_TYPE_EPOCH)
        warned = [e.warning for e in events[:first_epoch]
                  if e.type == pb.EVENT_TYPE_WARNING]
        self.assertEqual(warned, list(preview.warnings))
        self.assertIn("raise --epochs", " ".join(warned))
        later = [e.warning for e in events[first_epoch:]
                 if e.type == pb.EVENT_TYPE_WARNING]
        self.assertTrue(all("last epoch" in w for w in later), later)
        # Data that does not suit the model: no preview, the model checks.
        bad = stub.CheckModel(pb.CheckModelRequest(
            model_text=model, data=pb.DataSpec(dataset_id=dataset,
                                               label="nope")), timeout=30)
        self.assertTrue(bad.ok)
        self.assertIn("nope", bad.preview_error)
        self.assertEqual(len(bad.decisions), 0)
        bad = stub.CheckModel(pb.CheckModelRequest(
            model_text=model, hyperparameters=pb.Hyperparameters(
                optimizer="adam")), timeout=30)
        self.assertIn("optimizer", bad.preview_error)
        self.assertEqual(d.stop(), 0)


class Vulkan(Temp):
    def test_jobs_on_vulkan_match_the_cpu(self):
        d = self.daemon()
        flags = (config("models", "iris.wnm"), "--dataset",
                 config("datasets", "iris.csv"), "--epochs", "15",
                 "--optimizer", "sgdm", "--lr", "0.05", "--batch-size", "16",
                 "--seeds", "5", "--split", "60,20,20")
        cpu = self.submit(d, *flags, "--backend", "cpu")
        vulkan = self.submit(d, *flags, "--backend", "vulkan")
        for job in (cpu, vulkan):
            code, _, err = d.ctl("watch", job, timeout=300)
            self.assertEqual(code, 0, err)
        a, b = self.get(d, cpu), self.get(d, vulkan)
        self.assertEqual(b["backend"], "vulkan")
        self.assertEqual(a["bestEpoch"], b["bestEpoch"])
        self.assertEqual(a["testAccuracy"], b["testAccuracy"])
        self.assertAlmostEqual(a["testLoss"], b["testLoss"], places=4)
        self.assertAlmostEqual(a["validationLoss"], b["validationLoss"],
                               places=4)
        # Inference on the vulkan job's snapshot.
        code, out, err = d.ctl("infer", vulkan, "--values", "6.7,3.0,5.2,2.3")
        self.assertEqual(code, 0, err)
        self.assertEqual(d.stop(), 0)

    def test_a_missing_device_fails_at_submission(self):
        d = self.daemon(env={"WEBNNM_VULKAN_DEVICE": "99"})
        code, _, err = d.ctl("submit", config("models", "iris.wnm"),
                             "--dataset", config("datasets", "iris.csv"),
                             "--backend", "vulkan")
        self.assertEqual(code, 1)
        self.assertIn("vulkan backend is not available", err)
        self.assertIn("WEBNNM_VULKAN_DEVICE=99", err)
        code, out, _ = d.ctl("list", "-o", "json")
        self.assertEqual(json.loads(out)["jobs"], [])
        self.assertEqual(d.stop(), 0)


class Limits(Temp):
    def test_queued_jobs_per_principal_and_idempotency(self):
        cfg = os.path.join(self.dir, "webnnmd.textproto")
        with open(cfg, "w") as f:
            f.write("max_queued_jobs: 2\n")
        d = self.daemon("db", "--config", cfg)
        first = self.submit(d, *iris_flags(3000))
        wait_for(lambda: self.get(d, first)["state"] == "RUNNING")
        self.submit(d, *iris_flags(5))
        self.submit(d, *iris_flags(5))
        code, _, err = d.ctl("submit", *iris_flags(5))
        self.assertEqual(code, 1)
        self.assertIn("limit", err)
        d.ctl("cancel", first)
        # Idempotency: the same key gives the same job.
        d2 = self.daemon("other")
        a = self.submit(d2, *iris_flags(2), "--idempotency-key", "k1")
        b = self.submit(d2, *iris_flags(2), "--idempotency-key", "k1")
        self.assertEqual(a, b)

    def test_sizes(self):
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        cfg = os.path.join(self.dir, "webnnmd.textproto")
        with open(cfg, "w") as f:
            f.write("max_model_bytes: 2000\nmax_dataset_bytes: 3000\n"
                    "max_message_bytes: 2097152\nmax_infer_elements: 100\n")
        d = self.daemon("db", "--config", cfg)
        code, _, err = d.ctl("dataset", "upload",
                             config("datasets", "iris.csv"))
        self.assertEqual(code, 1)
        self.assertIn("limit", err)
        small = os.path.join(self.dir, "small.csv")
        with open(config("datasets", "iris.csv")) as f:
            lines = f.read().splitlines()
        with open(small, "w") as f:
            f.write("\n".join(lines[:1] + lines[1:150:3]) + "\n")
        big_model = os.path.join(self.dir, "big.wnm")
        with open(config("models", "iris.wnm")) as f:
            text = f.read()
        with open(big_model, "w") as f:
            f.write("# padding\n" * 300 + text)
        code, _, err = d.ctl("submit", big_model, "--dataset", small)
        self.assertEqual(code, 1)
        self.assertIn("limit", err)
        stub = pbg.WebnnmStub(d.channel())
        with self.assertRaises(grpc.RpcError) as caught:
            stub.CheckModel(pb.CheckModelRequest(model_text="#" * (3 << 20)),
                            timeout=30)
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.RESOURCE_EXHAUSTED)
        job = self.submit(d, config("models", "iris.wnm"), "--dataset", small,
                          "--epochs", "2", "--seeds", "2")
        self.assertEqual(d.ctl("watch", job)[0], 0)
        code, _, err = d.ctl("infer", job, *(["--values", "1,2,3,4"] * 26))
        self.assertEqual(code, 1)
        self.assertIn("limit", err)
        self.assertEqual(d.ctl("infer", job, "--values", "1,2,3,4")[0], 0)


class Concurrency(Temp):
    def test_many_watchers_and_submits_lose_nothing(self):
        import concurrent.futures
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        d = self.daemon("db", "--workers", "2")
        code, out, err = d.ctl("dataset", "upload",
                               config("datasets", "iris.csv"), "-o", "json")
        self.assertEqual(code, 0, err)
        dataset = json.loads(out)["datasetId"]
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        channel = d.channel()
        stub = pbg.WebnnmStub(channel)

        def submit(i):
            return stub.SubmitJob(pb.SubmitJobRequest(
                model_text=model, data=pb.DataSpec(dataset_id=dataset),
                hyperparameters=pb.Hyperparameters(epochs=2, seeds=2, seed=i),
                idempotency_key=f"job-{i}"), timeout=60).job.job_id

        def watch(job):
            events = list(stub.WatchJob(pb.WatchJobRequest(job_id=job),
                                        timeout=300))
            return job, events

        with concurrent.futures.ThreadPoolExecutor(max_workers=30) as pool:
            jobs = list(pool.map(submit, range(50)))
            self.assertEqual(len(set(jobs)), 50)
            watched = list(pool.map(watch, jobs[:20]))
        for job, events in watched:
            self.assertEqual([e.seq for e in events],
                             list(range(1, len(events) + 1)), job)
            self.assertEqual(events[-1].state, pb.JOB_STATE_SUCCEEDED, job)
        wait_for(lambda: all(
            stub.GetJob(pb.GetJobRequest(job_id=j), timeout=30).state ==
            pb.JOB_STATE_SUCCEEDED for j in jobs), timeout=300, interval=0.5)
        listed = stub.ListJobs(pb.ListJobsRequest(page_size=1000), timeout=30)
        self.assertEqual(len(listed.jobs), 50)
        # Submitting again with the same keys creates nothing.
        with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
            again = list(pool.map(submit, range(50)))
        self.assertEqual(again, jobs)
        self.assertEqual(len(stub.ListJobs(pb.ListJobsRequest(page_size=1000),
                                           timeout=30).jobs), 50)
        self.assertEqual(d.stop(), 0)

    def test_the_queue_limit_holds_under_concurrent_submits(self):
        import concurrent.futures
        import grpc
        from webnnm.v1 import webnnm_pb2 as pb
        from webnnm.v1 import webnnm_pb2_grpc as pbg
        cfg = os.path.join(self.dir, "webnnmd.textproto")
        with open(cfg, "w") as f:
            f.write("max_queued_jobs: 10\n")
        d = self.daemon("db", "--config", cfg)
        first = self.submit(d, *iris_flags(100000))
        wait_for(lambda: self.get(d, first)["state"] == "RUNNING")
        dataset = self.get(d, first)["datasetId"]
        with open(config("models", "iris.wnm")) as f:
            model = f.read()
        stub = pbg.WebnnmStub(d.channel())

        def submit(i):
            try:
                stub.SubmitJob(pb.SubmitJobRequest(
                    model_text=model, data=pb.DataSpec(dataset_id=dataset),
                    hyperparameters=pb.Hyperparameters(epochs=2)), timeout=60)
                return "ok"
            except grpc.RpcError as e:
                return e.code()

        with concurrent.futures.ThreadPoolExecutor(max_workers=30) as pool:
            results = list(pool.map(submit, range(30)))
        self.assertEqual(results.count("ok"), 10)
        self.assertEqual(results.count(grpc.StatusCode.RESOURCE_EXHAUSTED), 20)
        d.ctl("cancel", first)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

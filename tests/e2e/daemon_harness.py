"""Shared pieces of the end-to-end tests: the real webnnmd on 127.0.0.1 with
a temporary database, webnnmctl, Python gRPC stubs generated from proto/
with protoc and grpc_python_plugin, and a reader of .wnms snapshots.
"""
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import unittest

WEBNNMD = None
WEBNNMCTL = None
SOURCE = None
STUBS = None


def setup(argv):
    """argv: WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args...]; returns the rest."""
    global WEBNNMD, WEBNNMCTL, SOURCE, STUBS
    WEBNNMD, WEBNNMCTL, SOURCE = argv[1], argv[2], argv[3]
    STUBS = tempfile.mkdtemp(prefix="webnnm-stubs-")
    protos = ["webnnm/v1/webnnm.proto", "webnnm/v1/snapshot.proto",
              "webnnm/v1/hyperparameters.proto"]
    # grpc.health.v1 under another module path (the grpc package is taken).
    health = os.path.join(STUBS, "include", "grpc_health", "v1")
    os.makedirs(health)
    shutil.copy("/usr/share/grpc-proto/grpc/health/v1/health.proto", health)
    reflection = os.path.join(STUBS, "include", "grpc_reflection", "v1alpha")
    os.makedirs(reflection)
    shutil.copy("/usr/share/grpc-proto/grpc/reflection/v1alpha/"
                "reflection.proto", reflection)
    reflection_v1 = os.path.join(STUBS, "include", "grpc_reflection", "v1")
    os.makedirs(reflection_v1)
    shutil.copy("/usr/share/grpc-proto/grpc/reflection/v1/reflection.proto",
                reflection_v1)
    subprocess.run(
        ["protoc", "-I", os.path.join(SOURCE, "proto"),
         "-I", os.path.join(STUBS, "include"), "--python_out", STUBS,
         "--grpc_python_out", STUBS,
         "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
         *protos, "grpc_health/v1/health.proto",
         "grpc_reflection/v1alpha/reflection.proto",
         "grpc_reflection/v1/reflection.proto"],
        check=True)
    # A KServe client knows only the protocol's proto: its own folder.
    kserve = os.path.join(STUBS, "kserve")
    os.makedirs(kserve)
    subprocess.run(
        ["protoc", "-I", os.path.join(SOURCE, "proto", "inference"),
         "--python_out", kserve, "--grpc_python_out", kserve,
         "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin",
         "grpc_predict_v2.proto"],
        check=True)
    sys.path.insert(0, kserve)
    sys.path.insert(0, STUBS)
    return [argv[0], *argv[4:]]


def config(*parts):
    return os.path.join(SOURCE, "configs", *parts)


class Daemon:
    """webnnmd on a free loopback port; stop() with a signal."""

    def __init__(self, db, *args, tokens=None, expect_ready=True, env=None):
        self.db = db
        cmd = [WEBNNMD, "--listen", "127.0.0.1:0", "--db", db, *args]
        if tokens:
            cmd += ["--tokens", tokens]
        self.stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=self.stderr, text=True,
                                     env={**os.environ, **(env or {})})
        self.address = None
        if expect_ready:
            line = self.proc.stdout.readline()
            if not line.startswith("webnnmd ready grpc="):
                self.proc.kill()
                self.stderr.seek(0)
                raise RuntimeError(f"webnnmd did not start: {line!r} "
                                   f"{self.stderr.read()}")
            self.ready_line = line.rstrip("\n")
            self.address = line.split("grpc=")[1].split()[0]

    def ctl(self, *args, token=None, timeout=120):
        env = dict(os.environ)
        env["WEBNNM_SERVER"] = self.address
        env.pop("WEBNNM_TOKEN", None)
        if token:
            env["WEBNNM_TOKEN"] = token
        proc = subprocess.run([WEBNNMCTL, *args], capture_output=True,
                              text=True, timeout=timeout, env=env)
        return proc.returncode, proc.stdout, proc.stderr

    def channel(self):
        import grpc
        return grpc.insecure_channel(self.address)

    def stop(self, sig=signal.SIGTERM, timeout=60):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=timeout)
        self.stderr.seek(0)
        self.log = self.stderr.read()
        self.close()
        return code

    def close(self):
        for f in (self.proc.stdout, self.stderr):
            if f and not f.closed:
                f.close()


def read_snapshot(path):
    """{tensor name: bytes} of a .wnms file (docs/snapshot-format.md)."""
    from webnnm.v1 import snapshot_pb2
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"WNNMSNAP", data[:8]
    version, header_len, data_len = struct.unpack_from("<IIQ", data, 8)
    assert version == 1
    header = snapshot_pb2.SnapshotHeader()
    header.ParseFromString(data[24:24 + header_len])
    start = 24 + header_len
    start += (-start) % 64
    tensors = {}
    for t in header.tensors:
        tensors[t.name] = data[start + t.offset:start + t.offset + t.length]
    return header, tensors


def self_signed_certificate(folder):
    """(certificate, private key): PEM files of a one-day self-signed
    certificate for localhost and 127.0.0.1, made with openssl."""
    cert = os.path.join(folder, "server.crt")
    key = os.path.join(folder, "server.key")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
         "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost",
         "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
        check=True, capture_output=True, timeout=60)
    return cert, key


def wait_for(predicate, timeout=60, interval=0.05):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise TimeoutError("condition not reached")


# Shared by the suites of daemon_test.py and daemon_clients_test.py.

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

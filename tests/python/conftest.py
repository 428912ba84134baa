"""The Python client's tests: the real webnnmd (WEBNNMD) on a loopback port
with a temporary database, and the webnnm package from the build tree
(PYTHONPATH, laid out by the webnnm-python target) or from an install.
WEBNNM_SOURCE is the source tree (configs/, client/python)."""
import os
import signal
import socket
import subprocess
import tempfile
import time

import pytest

WEBNNMD = os.environ.get("WEBNNMD", "")
SOURCE = os.environ.get("WEBNNM_SOURCE",
                        os.path.join(os.path.dirname(__file__), "..", ".."))


def config(*parts):
    return os.path.join(SOURCE, "configs", *parts)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Daemon:
    """webnnmd on 127.0.0.1:port (a free one unless given)."""

    def __init__(self, folder, port=None, tokens=None):
        self.folder = folder
        self.port = port or 0
        cmd = [WEBNNMD, "--listen", f"127.0.0.1:{self.port}", "--db",
               os.path.join(folder, "webnnm.db")]
        if tokens:
            cmd += ["--tokens", tokens]
        self.log = open(os.path.join(folder, "webnnmd.log"), "a")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                     stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        if not line.startswith("webnnmd ready grpc="):
            self.proc.kill()
            raise RuntimeError(f"webnnmd did not start: {line!r}")
        self.address = line.split("grpc=")[1].split()[0]
        self.port = int(self.address.rsplit(":", 1)[1])

    def stop(self, sig=signal.SIGTERM):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        code = self.proc.wait(timeout=60)
        self.proc.stdout.close()
        self.log.close()
        return code


@pytest.fixture
def folder():
    with tempfile.TemporaryDirectory(prefix="webnnm-py-") as d:
        yield d


@pytest.fixture(scope="module")
def daemon():
    with tempfile.TemporaryDirectory(prefix="webnnm-py-") as d:
        server = Daemon(d)
        yield server
        assert server.stop() == 0


@pytest.fixture
def client(daemon):
    import webnnm
    with webnnm.Client(daemon.address) as c:
        yield c


@pytest.fixture(scope="module")
def iris_run(daemon):
    """A finished iris job (trained once for the module)."""
    import webnnm
    c = webnnm.Client(daemon.address)
    run = c.submit(config("models", "iris.wnm"), config("datasets", "iris.csv"),
                   name="iris-py", tags={"suite": "python"}, epochs=40,
                   optimizer="sgdm", lr=0.05, batch_size=16, seed=7)
    return run.wait(timeout=120)


def wait_until(predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise TimeoutError("condition not reached")

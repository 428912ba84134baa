"""The container, for real: docker/Dockerfile built with podman and run.

    container_test.py WEBNNMCTL SOURCE_DIR [unittest args]

1. The base image `debian:12-slim` is made locally when missing (no
   registry is reachable): mmdebstrap's apt variant of bookworm without
   docs and man pages, imported into podman.
2. `podman build` of docker/Dockerfile (both stages; the bootstrap layer
   and the compiler cache persist between runs); the runtime image's size
   is printed.
3. The image runs with a named volume for the database and a tokens file,
   its ports published on loopback only; the test waits for its health
   check (curl /readyz inside the container), trains iris from the host's
   webnnmctl through the published port and watches it to SUCCEEDED.
4. The container is stopped with SIGTERM (exit 0, "stopped" in its log)
   and a new one starts on the same volume: the job, its metrics and its
   snapshot are still there (Infer answers from the snapshot).
5. docker/compose.yaml comes up under podman-compose on the same image,
   healthy, and goes down again.
6. Its cluster profile: docker/postgres.Dockerfile built, PostgreSQL and
   three daemons in cluster mode come up; every daemon lists the three
   nodes, a job submitted through one is followed through another and read
   from the third; all go down with their volumes.

podman runs as root here: with runc (the default crun refuses this
machine's hybrid cgroups) and lowered ulimits, set through a
containers.conf of the test's own (CONTAINERS_CONF), so that the machine's
configuration is left alone. Exits 77 (ctest: skipped) where podman is
missing, saying so.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request

WEBNNMCTL = None
SOURCE = None
IMAGE = "localhost/webnnm:test"
BUILD_IMAGE = "localhost/webnnm-build:test"
BASE = "localhost/debian:12-slim"
PG_IMAGE = "localhost/webnnm-postgres:test"
TOKEN = "container-test-token-0123456789"
# Each step's bound, in seconds (the image build compiles the daemon).
BUILD_TIMEOUT = 2400
RUN_TIMEOUT = 300


def log(message):
    print(f"container_test: {message}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Podman:
    """podman with the test's containers.conf."""

    def __init__(self, folder):
        conf = os.path.join(folder, "containers.conf")
        with open(conf, "w") as f:
            f.write('[containers]\n'
                    'default_ulimits = ["nofile=1024:1024", '
                    '"nproc=1024:1024"]\n'
                    '[engine]\n'
                    'runtime = "runc"\n')
        self.env = {**os.environ, "CONTAINERS_CONF": conf}

    def run(self, *args, timeout=RUN_TIMEOUT, check=True, stream=False):
        """(exit code, stdout) of `podman ARGS`; raises on failure when
        `check`. With `stream`, output goes to the test's log as it comes."""
        cmd = ["podman", *args]
        if stream:
            proc = subprocess.run(cmd, env=self.env, timeout=timeout,
                                  stdout=sys.stdout, stderr=subprocess.STDOUT)
            out = ""
        else:
            proc = subprocess.run(cmd, env=self.env, timeout=timeout,
                                  capture_output=True, text=True)
            out = proc.stdout + proc.stderr
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(cmd)} failed "
                                 f"({proc.returncode}):\n{out[-4000:]}")
        return proc.returncode, out


def make_base(podman, folder):
    """debian:12-slim from Debian's mirror, unless podman has it."""
    if podman.run("image", "exists", BASE, check=False)[0] == 0:
        return
    if shutil.which("mmdebstrap") is None:
        raise AssertionError(f"no {BASE} image and no mmdebstrap to make it "
                             "(scripts/bootstrap installs it)")
    tar = os.path.join(folder, "debian12.tar")
    log(f"making {BASE} with mmdebstrap")
    subprocess.run(
        ["mmdebstrap", "--variant=apt", "--quiet",
         "--dpkgopt=path-exclude=/usr/share/man/*",
         "--dpkgopt=path-exclude=/usr/share/doc/*",
         "--dpkgopt=path-include=/usr/share/doc/*/copyright",
         "--dpkgopt=path-exclude=/usr/share/locale/*",
         "bookworm", tar],
        check=True, timeout=900)
    podman.run("import", "--change", "CMD [\"bash\"]", tar, BASE)
    os.remove(tar)


class Container(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="webnnm-container-")
        cls.podman = Podman(cls.dir)
        make_base(cls.podman, cls.dir)
        log("building docker/Dockerfile (this compiles the daemon once; "
            "later runs reuse the cached layers and objects)")
        start = time.time()
        build = ["build", "--isolation", "chroot", "--format", "docker",
                 "--pull=never", "-f",
                 os.path.join(SOURCE, "docker", "Dockerfile")]
        # The build stage tagged too, so that pruning dangling images at the
        # end keeps its layers (the bootstrap layer above all) as a cache.
        cls.podman.run(*build, "--target", "build", "-t", BUILD_IMAGE,
                       SOURCE, timeout=BUILD_TIMEOUT, stream=True)
        cls.podman.run(*build, "-t", IMAGE, SOURCE, timeout=BUILD_TIMEOUT,
                       stream=True)
        _, size = cls.podman.run("image", "inspect", "--format", "{{.Size}}",
                                 IMAGE)
        log(f"image built in {time.time() - start:.0f} s; runtime image "
            f"size {int(size.strip()) / 1e6:.0f} MB")
        cls.tokens = os.path.join(cls.dir, "tokens")
        with open(cls.tokens, "w") as f:
            f.write(f"{TOKEN} alice admin\n")
        os.chmod(cls.tokens, 0o644)  # read by the image's webnnm user

    @classmethod
    def tearDownClass(cls):
        # Dangling layers of earlier builds of the tag (the cache stays).
        cls.podman.run("image", "prune", "-f", check=False)
        shutil.rmtree(cls.dir, ignore_errors=True)

    def setUp(self):
        self.name = f"webnnm-test-{os.getpid()}"
        self.volume = f"webnnm-test-data-{os.getpid()}"
        self.podman.run("volume", "create", self.volume)

    def tearDown(self):
        for suffix in ("", "-again"):
            self.podman.run("rm", "-f", "-t", "0", self.name + suffix,
                            check=False)
        self.podman.run("volume", "rm", "-f", self.volume, check=False)

    def start(self, name):
        """Runs the image as `name` on the volume; (grpc, http) addresses
        once its health check passes."""
        grpc_port, http_port = free_port(), free_port()
        self.podman.run(
            "run", "-d", "--name", name,
            "-p", f"127.0.0.1:{grpc_port}:50051",
            "-p", f"127.0.0.1:{http_port}:8080",
            "-v", f"{self.volume}:/var/lib/webnnm",
            "-v", f"{self.tokens}:/etc/webnnm/tokens:ro",
            IMAGE)
        deadline = time.time() + 60
        while True:
            code, out = self.podman.run("healthcheck", "run", name,
                                        check=False)
            if code == 0:
                break
            if time.time() > deadline:
                _, logs = self.podman.run("logs", name, check=False)
                self.fail(f"{name} never became healthy: {out}\n{logs}")
            time.sleep(0.5)
        return f"127.0.0.1:{grpc_port}", f"127.0.0.1:{http_port}"

    def ctl(self, server, *args, timeout=120):
        env = {**os.environ, "WEBNNM_SERVER": server, "WEBNNM_TOKEN": TOKEN}
        proc = subprocess.run([WEBNNMCTL, *args], capture_output=True,
                              text=True, timeout=timeout, env=env)
        self.assertEqual(proc.returncode, 0,
                         f"webnnmctl {' '.join(args)}: {proc.stderr}")
        return proc.stdout

    def test_trains_stops_and_keeps_its_data(self):
        grpc, http = self.start(self.name)
        # The image's health check is /readyz; /healthz answers too.
        _, out = self.podman.run("exec", self.name, "curl", "-fsS",
                                 "http://127.0.0.1:8080/healthz")
        self.assertEqual(out, "ok\n")

        config = os.path.join(SOURCE, "configs")
        out = self.ctl(grpc, "submit",
                       os.path.join(config, "models", "iris.wnm"),
                       "--dataset", os.path.join(config, "datasets",
                                                 "iris.csv"),
                       "--epochs", "20", "-o", "json")
        job = json.loads(out.splitlines()[-1])["jobId"]
        self.ctl(grpc, "watch", job, timeout=180)
        before = json.loads(self.ctl(grpc, "get", job, "-o", "json"))
        self.assertEqual(before["state"], "SUCCEEDED")
        self.assertIsNotNone(before["testAccuracy"])
        answer = self.ctl(grpc, "infer", job, "--values", "5.1,3.5,1.4,0.2",
                          "-o", "json")

        # SIGTERM: the daemon stops cleanly.
        self.podman.run("stop", "-t", "60", self.name, timeout=90)
        _, code = self.podman.run("inspect", "--format",
                                  "{{.State.ExitCode}}", self.name)
        self.assertEqual(code.strip(), "0")
        _, logs = self.podman.run("logs", self.name)
        self.assertIn("SIGTERM", logs)
        self.assertIn("webnnmd: stopped", logs)

        # A new container on the same volume has the job and its snapshot.
        grpc, http = self.start(self.name + "-again")
        after = json.loads(self.ctl(grpc, "get", job, "-o", "json"))
        for key in ("state", "testAccuracy", "testLoss", "epoch",
                    "trainedSamples"):
            self.assertEqual(after[key], before[key], key)
        self.assertEqual(
            self.ctl(grpc, "infer", job, "--values", "5.1,3.5,1.4,0.2",
                     "-o", "json"), answer)
        metrics = self.ctl(grpc, "metrics", job, "-o", "json")
        self.assertIn("trainLoss", metrics)

    @unittest.skipIf(shutil.which("podman-compose") is None,
                     "no podman-compose here")
    def test_z_compose_brings_the_daemon_up(self):
        grpc_port, http_port = free_port(), free_port()
        project = f"webnnmtest{os.getpid()}"
        env = {**self.podman.env, "WEBNNM_IMAGE": IMAGE,
               "WEBNNM_TOKENS": self.tokens,
               "WEBNNM_GRPC_PORT": str(grpc_port),
               "WEBNNM_HTTP_PORT": str(http_port)}
        compose = ["podman-compose", "-p", project, "-f",
                   os.path.join(SOURCE, "docker", "compose.yaml")]

        def run(*args, check=True):
            proc = subprocess.run([*compose, *args], env=env, timeout=300,
                                  capture_output=True, text=True)
            if check:
                self.assertEqual(proc.returncode, 0,
                                 proc.stdout[-3000:] + proc.stderr[-3000:])
            return proc
        try:
            # The service named: podman-compose 1.0 ignores profiles, and
            # would start the cluster's services too.
            run("up", "-d", "--no-build", "webnnmd")
            server = f"127.0.0.1:{grpc_port}"
            deadline = time.time() + 60
            while True:
                proc = subprocess.run(
                    [WEBNNMCTL, "--server", server, "health"],
                    capture_output=True, text=True, timeout=30)
                if proc.returncode == 0:
                    break
                self.assertLess(time.time(), deadline, proc.stderr)
                time.sleep(0.5)
            # grpc-web's port too: the probe answers there.
            with urllib.request.urlopen(
                    f"http://127.0.0.1:{http_port}/readyz", timeout=10) as r:
                self.assertEqual(r.status, 200)
            self.assertEqual(
                json.loads(self.ctl(server, "list", "-o", "json"))["jobs"],
                [])
        finally:
            run("down", "-v", check=False)


    @unittest.skipIf(shutil.which("podman-compose") is None,
                     "no podman-compose here")
    def test_zz_compose_cluster_profile_shares_one_database(self):
        log("building docker/postgres.Dockerfile")
        self.podman.run("build", "--isolation", "chroot", "--format",
                        "docker", "--pull=never", "-f",
                        os.path.join(SOURCE, "docker", "postgres.Dockerfile"),
                        "-t", PG_IMAGE, SOURCE, timeout=BUILD_TIMEOUT,
                        stream=True)
        ports = [free_port() for _ in range(3)]
        project = f"webnnmcluster{os.getpid()}"
        env = {**self.podman.env, "WEBNNM_IMAGE": IMAGE,
               "WEBNNM_PG_IMAGE": PG_IMAGE, "WEBNNM_TOKENS": self.tokens,
               "WEBNNM_PG_PASSWORD": "cluster-test-password",
               "WEBNNM_CLUSTER_PORT": str(ports[0]),
               "WEBNNM_CLUSTER_PORT_B": str(ports[1]),
               "WEBNNM_CLUSTER_PORT_C": str(ports[2])}
        compose = ["podman-compose", "-p", project, "-f",
                   os.path.join(SOURCE, "docker", "compose.yaml")]

        def run(*args, check=True):
            proc = subprocess.run([*compose, *args], env=env, timeout=300,
                                  capture_output=True, text=True)
            if check:
                self.assertEqual(proc.returncode, 0,
                                 proc.stdout[-3000:] + proc.stderr[-3000:])
            return proc
        servers = [f"127.0.0.1:{p}" for p in ports]
        try:
            run("up", "-d", "--no-build", "postgres", "webnnmd-a",
                "webnnmd-b", "webnnmd-c")
            # Every daemon answers and lists the three (they restart until
            # PostgreSQL is up).
            deadline = time.time() + 120
            while True:
                env_ctl = {**os.environ, "WEBNNM_SERVER": servers[2],
                           "WEBNNM_TOKEN": TOKEN}
                proc = subprocess.run([WEBNNMCTL, "nodes", "-o", "json"],
                                      capture_output=True, text=True,
                                      timeout=30, env=env_ctl)
                names = (sorted(n["name"] for n in
                                json.loads(proc.stdout)["nodes"])
                         if proc.returncode == 0 else [])
                if names == ["a", "b", "c"]:
                    break
                if time.time() > deadline:
                    logs = run("logs", check=False)
                    self.fail(f"the cluster never listed three nodes: "
                              f"{proc.stderr} {names}\n"
                              f"{logs.stdout[-3000:]}")
                time.sleep(1)
            # A job submitted through a, followed through b, listed by c.
            out = self.ctl(servers[0], "submit",
                           os.path.join(SOURCE, "configs", "models",
                                        "iris.wnm"),
                           "--dataset", os.path.join(SOURCE, "configs",
                                                     "datasets", "iris.csv"),
                           "--epochs", "20", "-o", "json")
            job = json.loads(out.splitlines()[-1])["jobId"]
            self.ctl(servers[1], "watch", job, timeout=300)
            got = json.loads(self.ctl(servers[2], "get", job, "-o", "json"))
            self.assertEqual(got["state"], "SUCCEEDED")
            self.assertIn(got["node"], ["a", "b", "c"])
        finally:
            run("down", "-v", check=False)


if __name__ == "__main__":
    if shutil.which("podman") is None:
        print("container_test: SKIPPED: podman is not installed here "
              "(scripts/bootstrap installs it)")
        sys.exit(77)
    WEBNNMCTL, SOURCE = sys.argv[1], os.path.abspath(sys.argv[2])
    unittest.main(argv=[sys.argv[0], *sys.argv[3:]], verbosity=2)

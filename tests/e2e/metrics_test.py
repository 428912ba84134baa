"""webnnmd's Prometheus metrics, scraped by a real Prometheus (Debian's
`prometheus`, scrape interval 1 s, on loopback), and its probes.

    metrics_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]

The metrics listener binds all interfaces with bearer tokens, so /metrics
asks for a token there and Prometheus scrapes with one; the grpc-web
listener on loopback serves /metrics without. A job trains iris; the test
asserts on /api/v1/query results: the samples counter rose by exactly the
rows the job trained, the job-state gauge counts it SUCCEEDED, the epoch
histogram counted its epochs, SubmitJob was counted with code OK. The
exposition passes `promtool check metrics`.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import daemon_harness as h

TOKEN = "metrics-test-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, token=None, timeout=10):
    """(status, body) of a GET."""
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


class Prometheus:
    """A real Prometheus on a free loopback port scraping `target` every
    second with the bearer token; stopped by stop()."""

    def __init__(self, folder, target, token):
        self.port = free_port()
        config = os.path.join(folder, "prometheus.yml")
        with open(config, "w") as f:
            f.write(f"""global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: webnnmd
    authorization:
      credentials: {token}
    static_configs:
      - targets: ["{target}"]
""")
        check = subprocess.run(["promtool", "check", "config", config],
                               capture_output=True, text=True, timeout=60)
        if check.returncode != 0:
            raise RuntimeError(f"promtool check config: {check.stdout}"
                               f"{check.stderr}")
        self.log = open(os.path.join(folder, "prometheus.log"), "w+")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={config}",
             f"--storage.tsdb.path={os.path.join(folder, 'tsdb')}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        h.wait_for(self.ready, timeout=30, interval=0.2)

    def ready(self):
        if self.proc.poll() is not None:
            self.log.seek(0)
            raise RuntimeError(f"prometheus exited: {self.log.read()[-2000:]}")
        try:
            return http_get(self.url + "/-/ready", timeout=2)[0] == 200
        except OSError:
            return False

    def query(self, expression):
        """The instant vector's values of `expression`: {labels: value}."""
        status, body = http_get(
            self.url + "/api/v1/query?" +
            urllib.parse.urlencode({"query": expression}))
        if status != 200:
            raise RuntimeError(f"query {expression}: {status} {body}")
        data = json.loads(body)["data"]["result"]
        return {json.dumps(r["metric"], sort_keys=True): float(r["value"][1])
                for r in data}

    def value(self, expression):
        """The single value of `expression`, or None when it has none."""
        values = list(self.query(expression).values())
        return values[0] if len(values) == 1 else None

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@unittest.skipIf(shutil.which("prometheus") is None,
                 "no prometheus here (scripts/bootstrap installs it)")
class Metrics(h.Temp):
    def setUp(self):
        super().setUp()
        tokens = os.path.join(self.dir, "tokens")
        with open(tokens, "w") as f:
            f.write(f"{TOKEN} alice admin\n")
        # gRPC and grpc-web on loopback; the metrics listener on every
        # interface (so /metrics asks for a token there).
        self.d = self.daemon("db", "--http-listen", "127.0.0.1:0",
                             "--metrics-listen", "0.0.0.0:0",
                             tokens=tokens)
        ready = self.d.ready_line
        self.http = "http://" + ready.split("http=")[1].split()[0]
        metrics_port = ready.split("metrics=")[1].split()[0].rsplit(":", 1)[1]
        self.metrics = f"http://127.0.0.1:{metrics_port}"
        self.prometheus = None

    def tearDown(self):
        if self.prometheus:
            self.prometheus.stop()
        super().tearDown()

    def test_probes_and_tokens(self):
        self.assertEqual(http_get(self.metrics + "/healthz"), (200, "ok\n"))
        self.assertEqual(http_get(self.metrics + "/readyz"), (200, "ready\n"))
        self.assertEqual(http_get(self.http + "/readyz"), (200, "ready\n"))
        status, body = http_get(self.metrics + "/metrics")
        self.assertEqual(status, 401, body)
        self.assertIn("bearer token", body)
        self.assertEqual(http_get(self.metrics + "/metrics", "wrong")[0], 401)
        self.assertEqual(http_get(self.metrics + "/metrics", TOKEN)[0], 200)
        # On loopback no token is needed.
        status, body = http_get(self.http + "/metrics")
        self.assertEqual(status, 200)
        self.assertIn("# TYPE webnnm_jobs gauge", body)
        self.assertEqual(http_get(self.metrics + "/")[0], 404)

    def test_prometheus_scrapes_a_training_job(self):
        self.prometheus = Prometheus(self.dir, self.metrics.split("//")[1],
                                     TOKEN)
        p = self.prometheus
        h.wait_for(lambda: p.value('up{job="webnnmd"}') == 1, timeout=30,
                   interval=0.2)
        self.assertEqual(p.value('webnnm_jobs{state="SUCCEEDED"}'), 0)
        samples = 'webnnm_training_samples_total{backend="cpu"}'
        before = p.value(samples) or 0

        epochs = 30
        job = self.submit(self.d, *h.iris_flags(epochs), token=TOKEN)
        code, out, err = self.d.ctl("watch", job, token=TOKEN, timeout=120)
        self.assertEqual(code, 0, err)
        got = self.get(self.d, job, token=TOKEN)
        self.assertEqual(got["state"], "SUCCEEDED")
        trained = got["trainedSamples"]
        ran = got["epoch"]
        self.assertGreater(trained, 0)
        self.assertEqual(trained % ran, 0)  # the same rows every epoch

        def scraped():
            return (p.value(samples) == before + trained and
                    p.value('webnnm_jobs{state="SUCCEEDED"}') == 1)
        h.wait_for(scraped, timeout=15, interval=0.2)
        self.assertEqual(p.value('webnnm_jobs{state="RUNNING"}'), 0)
        self.assertEqual(p.value("webnnm_queue_depth"), 0)
        self.assertEqual(
            p.value('webnnm_job_ends_total{state="SUCCEEDED"}'), 1)
        self.assertEqual(p.value('webnnm_job_starts_total{kind="train"}'), 1)
        self.assertEqual(
            p.value('webnnm_epoch_duration_seconds_count{backend="cpu"}'),
            ran)
        self.assertEqual(
            p.value('webnnm_training_steps_total{backend="cpu"}'),
            ran * -(-(trained // ran) // 16))  # batches of 16
        self.assertEqual(
            p.value('webnnm_rpc_calls_total{method="/webnnm.v1.Webnnm/'
                    'SubmitJob",code="OK"}'), 1)
        self.assertGreater(
            p.value("webnnm_store_write_duration_seconds_count"), ran)
        self.assertGreater(p.value("webnnm_database_size_bytes"), 0)
        self.assertGreater(p.value("process_resident_memory_bytes"), 1e6)
        self.assertGreater(p.value("process_threads"), 1)

        # An Infer call lands in the inference histogram.
        code, out, err = self.d.ctl("infer", job, "--values",
                                    "5.1,3.5,1.4,0.2", token=TOKEN)
        self.assertEqual(code, 0, err)
        h.wait_for(lambda: p.value(
            'webnnm_infer_duration_seconds_count{method='
            '"/webnnm.v1.Webnnm/Infer"}') == 1, timeout=15, interval=0.2)

        # The exposition itself is valid.
        status, text = http_get(self.metrics + "/metrics", TOKEN)
        self.assertEqual(status, 200)
        check = subprocess.run(["promtool", "check", "metrics"], input=text,
                               capture_output=True, text=True, timeout=60)
        self.assertEqual(check.returncode, 0, check.stdout + check.stderr)


if __name__ == "__main__":
    sys.argv = h.setup(sys.argv)
    unittest.main()

#!/usr/bin/env python3
"""grpc-web tests of webnnmd's HTTP/1.1 bridge (issue: the browser front
end): the grpc-web interop list (empty unary, large unary, server streaming,
custom metadata, status code and message, unimplemented method), binary and
text modes, deadlines, CORS, and a browser that disconnects mid-stream —
against the real daemon, with Python's http.client as the browser.

usage: grpc_web_test.py WEBNNMD WEBNNMCTL SOURCE_DIR [unittest args]
"""
import base64
import http.client
import json
import os
import signal
import struct
import sys
import time
import unittest

import daemon_harness as h
from daemon_harness import config, wait_for


def frame(message):
    return b"\x00" + struct.pack(">I", len(message)) + message


def parse_frames(body):
    frames = []
    while body:
        flags = body[0]
        (n,) = struct.unpack(">I", body[1:5])
        frames.append((flags, body[5:5 + n]))
        body = body[5 + n:]
    return frames


def decode_text(body):
    # Each flushed chunk is base64 on its own (padded): decode by groups.
    out = b""
    for i in range(0, len(body), 4):
        out += base64.b64decode(body[i:i + 4])
    return out


class Web:
    def __init__(self, daemon):
        host, port = daemon.ready_line.split("http=")[1].split()[0].rsplit(
            ":", 1)
        self.host, self.port = host, int(port)

    def connect(self, timeout=60):
        return http.client.HTTPConnection(self.host, self.port,
                                          timeout=timeout)

    def call(self, path, message, text=False, headers=None):
        conn = self.connect()
        body = frame(message)
        ctype = "application/grpc-web+proto"
        if text:
            body = base64.b64encode(body)
            ctype = "application/grpc-web-text"
        conn.request("POST", path, body,
                     {"content-type": ctype, "x-grpc-web": "1",
                      **(headers or {})})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        if text:
            data = decode_text(data)
        return resp, parse_frames(data)


def trailers(payload):
    out = {}
    for line in payload.decode().split("\r\n"):
        if line:
            k, v = line.split(":", 1)
            out[k] = v
    return out


class Temp(h.Temp):
    """The daemon test case with the HTTP/1.1 bridge listening too."""

    def daemon(self, *args, **kwargs):
        return super().daemon("db", "--http-listen", "127.0.0.1:0", *args,
                              **kwargs)

    def submit_iris(self, d, epochs, token=None):
        code, out, err = d.ctl(
            "submit", config("models", "iris.wnm"), "--dataset",
            config("datasets", "iris.csv"), "--epochs", str(epochs),
            "--seeds", "3", "-o", "json", token=token)
        self.assertEqual(code, 0, err)
        return json.loads(out)["jobId"]


class Interop(Temp):
    def test_unary_streaming_status_and_modes(self):
        from webnnm.v1 import webnnm_pb2 as pb
        d = self.daemon()
        self.assertRegex(d.ready_line,
                         r"^webnnmd ready grpc=127\.0\.0\.1:\d+ "
                         r"http=127\.0\.0\.1:\d+$")
        web = Web(d)
        # Empty unary.
        resp, frames = web.call("/webnnm.v1.Webnnm/ListDatasets", b"")
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.getheader("content-type"),
                         "application/grpc-web+proto")
        self.assertEqual([f[0] for f in frames], [0, 0x80])
        self.assertEqual(trailers(frames[-1][1])["grpc-status"], "0")
        # Large unary: a model of ~900 KB.
        text = "# " + "x" * 78 + "\n"
        with open(config("models", "iris.wnm")) as f:
            model = text * 11000 + f.read()
        resp, frames = web.call("/webnnm.v1.Webnnm/CheckModel",
                                pb.CheckModelRequest(
                                    model_text=model).SerializeToString())
        answer = pb.CheckModelResponse.FromString(frames[0][1])
        self.assertTrue(answer.ok)
        self.assertEqual(answer.parameters, 4 * 3 + 3 + 3 * 3 + 3)
        # Text mode, both ways.
        resp, frames = web.call("/webnnm.v1.Webnnm/CheckModel",
                                pb.CheckModelRequest(
                                    model_text=model[-400:]).SerializeToString(),
                                text=True)
        self.assertEqual(resp.getheader("content-type"),
                         "application/grpc-web-text+proto")
        self.assertEqual(trailers(frames[-1][1])["grpc-status"], "0")
        # Status code and message: trailers-only.
        resp, frames = web.call("/webnnm.v1.Webnnm/GetJob",
                                pb.GetJobRequest(job_id="nope 1").SerializeToString())
        self.assertEqual(resp.status, 200)
        self.assertEqual(frames, [])
        self.assertEqual(resp.getheader("grpc-status"), "5")
        self.assertEqual(resp.getheader("grpc-message"), "no job nope 1")
        # Unimplemented: unknown methods, services off the allow-list.
        for path in ["/webnnm.v1.Webnnm/Nope",
                     "/grpc.reflection.v1alpha.ServerReflection/"
                     "ServerReflectionInfo", "/x/y"]:
            resp, _ = web.call(path, b"")
            self.assertEqual(resp.getheader("grpc-status"), "12", path)
        # Not grpc-web at all.
        conn = web.connect()
        conn.request("POST", "/webnnm.v1.Webnnm/ListJobs", b"{}",
                     {"content-type": "application/json"})
        self.assertEqual(conn.getresponse().status, 415)
        conn.close()
        # Health needs no token.
        resp, frames = web.call("/grpc.health.v1.Health/Check", b"")
        self.assertEqual(frames[0][1], b"\x08\x01")  # SERVING
        # Server streaming: a finished job's whole history.
        job = self.submit_iris(d, 10)
        self.assertEqual(d.ctl("watch", job)[0], 0)
        for text_mode in (False, True):
            resp, frames = web.call(
                "/webnnm.v1.Webnnm/WatchJob",
                pb.WatchJobRequest(job_id=job).SerializeToString(),
                text=text_mode)
            events = [pb.JobEvent.FromString(p) for f, p in frames if f == 0]
            self.assertEqual([e.seq for e in events],
                             list(range(1, len(events) + 1)))
            self.assertEqual(events[-1].state, pb.JOB_STATE_SUCCEEDED)
            self.assertEqual(frames[-1][0], 0x80)
            self.assertEqual(trailers(frames[-1][1])["grpc-status"], "0")
        self.assertEqual(d.stop(), 0)

    def test_streams_flush_deadlines_and_disconnects(self):
        from webnnm.v1 import webnnm_pb2 as pb
        d = self.daemon()
        web = Web(d)
        job = self.submit_iris(d, 100000)
        wait_for(lambda: json.loads(d.ctl("get", job, "-o", "json")[1])
                 ["epoch"] >= 1)
        # Events arrive while the job runs, not at its end.
        conn = web.connect()
        conn.request("POST", "/webnnm.v1.Webnnm/WatchJob",
                     frame(pb.WatchJobRequest(job_id=job).SerializeToString()),
                     {"content-type": "application/grpc-web+proto"})
        resp = conn.getresponse()
        first = resp.read1(65536)
        self.assertGreater(len(first), 5)
        self.assertEqual(first[0], 0)
        self.assertEqual(json.loads(d.ctl("get", job, "-o", "json")[1])
                         ["state"], "RUNNING")
        # The browser goes away mid-stream; the daemon goes on.
        conn.sock.close()
        conn.close()
        # grpc-timeout ends a stream with DEADLINE_EXCEEDED.
        t0 = time.time()
        resp, frames = web.call(
            "/webnnm.v1.Webnnm/WatchJob",
            pb.WatchJobRequest(job_id=job).SerializeToString(),
            headers={"grpc-timeout": "700m"})
        self.assertLess(time.time() - t0, 10)
        self.assertEqual(trailers(frames[-1][1])["grpc-status"], "4")
        # A valid timeout too long to add to the clock is clamped (to a
        # year): the call runs instead of failing at once.
        for timeout in ("99999999H", "9999999H"):
            resp, frames = web.call(
                "/webnnm.v1.Webnnm/ListJobs",
                pb.ListJobsRequest().SerializeToString(),
                headers={"grpc-timeout": timeout})
            self.assertEqual(trailers(frames[-1][1])["grpc-status"], "0",
                             timeout)
        self.assertEqual(d.ctl("cancel", job)[0], 0)
        t0 = time.time()
        self.assertEqual(d.stop(), 0)
        self.assertLess(time.time() - t0, 30)


class Security(Temp):
    def test_tokens_and_cors(self):
        from webnnm.v1 import webnnm_pb2 as pb
        tokens = os.path.join(self.dir, "tokens")
        with open(tokens, "w") as f:
            f.write("ann-secret ann\n")
        cfg = os.path.join(self.dir, "web.textproto")
        with open(cfg, "w") as f:
            f.write('cors_origins: "http://app.example"\n')
        d = self.daemon("--config", cfg, tokens=tokens)
        web = Web(d)
        resp, frames = web.call("/webnnm.v1.Webnnm/ListJobs", b"")
        self.assertEqual(resp.getheader("grpc-status"), "16")  # no token
        resp, frames = web.call("/webnnm.v1.Webnnm/ListJobs", b"",
                                headers={"authorization":
                                         "Bearer ann-secret"})
        self.assertEqual(trailers(frames[-1][1])["grpc-status"], "0")
        resp, frames = web.call("/grpc.health.v1.Health/Check", b"")
        self.assertEqual(frames[0][1], b"\x08\x01")
        # CORS: the configured origin only.
        conn = web.connect()
        conn.request("OPTIONS", "/webnnm.v1.Webnnm/ListJobs", headers={
            "origin": "http://app.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,authorization"})
        pre = conn.getresponse()
        pre.read()
        self.assertEqual(pre.status, 204)
        self.assertEqual(pre.getheader("access-control-allow-origin"),
                         "http://app.example")
        self.assertIn("authorization",
                      pre.getheader("access-control-allow-headers"))
        conn.request("OPTIONS", "/webnnm.v1.Webnnm/ListJobs",
                     headers={"origin": "http://evil.example"})
        bad = conn.getresponse()
        bad.read()
        self.assertEqual(bad.status, 403)
        self.assertIsNone(bad.getheader("access-control-allow-origin"))
        conn.close()
        resp, _ = web.call("/webnnm.v1.Webnnm/ListJobs", b"",
                           headers={"origin": "http://app.example",
                                    "authorization": "Bearer ann-secret"})
        self.assertEqual(resp.getheader("access-control-allow-origin"),
                         "http://app.example")
        self.assertIn("grpc-status",
                      resp.getheader("access-control-expose-headers"))
        self.assertEqual(d.stop(), 0)

    def test_without_tokens_http_only_on_loopback(self):
        import subprocess
        result = subprocess.run(
            [h.WEBNNMD, "--listen", "127.0.0.1:0", "--http-listen",
             "0.0.0.0:0", "--db", os.path.join(self.dir, "x.db")],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 2)
        self.assertIn("loopback", result.stderr)


def raw_request(port, path, body=b"", headers=None, timeout=10):
    """A socket that has sent one grpc-web POST (left open)."""
    import socket
    sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    head = (f"POST {path} HTTP/1.1\r\nHost: x\r\n"
            "content-type: application/grpc-web+proto\r\n"
            f"content-length: {len(frame(body))}\r\n")
    for k, v in (headers or {}).items():
        head += f"{k}: {v}\r\n"
    sock.sendall(head.encode() + b"\r\n" + frame(body))
    return sock


def first_answer(sock):
    """'open' once a stream's first message arrives, else the grpc-status of
    a trailers-only refusal."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return "closed"
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    for line in head.decode().split("\r\n"):
        if line.lower().startswith("grpc-status:"):
            return line.split(":", 1)[1].strip()
    return "open"


def answers_get(web, timeout=3):
    """Whether GET / answers 200 within `timeout` seconds."""
    conn = web.connect(timeout=timeout)
    try:
        conn.request("GET", "/")
        resp = conn.getresponse()
        resp.read()
        return resp.status == 200
    except OSError:
        return False
    finally:
        conn.close()


def write_config(dirname, text):
    path = os.path.join(dirname, "hostile.textproto")
    with open(path, "w") as f:
        f.write(text)
    return path


class Hostile(Temp):
    """Issue 22, item 1 and item 6: streams and slow clients cannot take the
    listener; TLS covers it."""

    WATCH = "/grpc.health.v1.Health/Watch"

    def test_streams_are_bounded_and_freed_on_disconnect(self):
        d = self.daemon()
        web = Web(d)
        socks = [raw_request(web.port, self.WATCH) for _ in range(40)]
        answers = [first_answer(s) for s in socks]
        # Without a token every stream is this address's: 8 at most.
        self.assertEqual(answers.count("open"), 8, answers)
        self.assertEqual(answers.count("8"), 32, answers)  # RESOURCE_EXHAUSTED
        t0 = time.time()
        self.assertTrue(answers_get(web))
        self.assertLess(time.time() - t0, 3)
        # The clients go away without a word: their streams end (noticed
        # without a write, since a health watch sends nothing more).
        for s in socks:
            s.close()

        def all_free():
            fresh = [raw_request(web.port, self.WATCH) for _ in range(8)]
            got = [first_answer(s) for s in fresh]
            for s in fresh:
                s.close()
            return got.count("open") == 8
        wait_for(all_free, timeout=10, interval=0.5)
        self.assertEqual(d.stop(), 0)

    def test_anonymous_streams_bounded_when_tokens_are_required(self):
        tokens = os.path.join(self.dir, "tokens")
        with open(tokens, "w") as f:
            f.write("ann-secret ann\n")
        d = self.daemon(tokens=tokens)
        web = Web(d)
        anonymous = [raw_request(web.port, self.WATCH) for _ in range(6)]
        got = [first_answer(s) for s in anonymous]
        self.assertEqual(got.count("open"), 4, got)
        self.assertEqual(got.count("8"), 2, got)
        # An invented token is no one: still anonymous, still refused.
        bogus = raw_request(web.port, self.WATCH,
                            headers={"authorization": "Bearer made-up"})
        self.assertEqual(first_answer(bogus), "8")
        bogus.close()
        # A caller with a valid token is counted as itself.
        ann = raw_request(web.port, self.WATCH,
                          headers={"authorization": "Bearer ann-secret"})
        self.assertEqual(first_answer(ann), "open")
        self.assertTrue(answers_get(web))
        for s in anonymous + [ann]:
            s.close()
        self.assertEqual(d.stop(), 0)

    def test_slow_headers_do_not_hold_the_listener(self):
        import socket
        cfg = write_config(self.dir, "http_request_timeout_seconds: 2\n")
        d = self.daemon("--config", cfg)
        web = Web(d)
        slow = []
        for _ in range(60):
            s = socket.create_connection(("127.0.0.1", web.port), timeout=10)
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # never finished
            slow.append(s)
        t0 = time.time()
        self.assertTrue(answers_get(web))
        self.assertLess(time.time() - t0, 2)
        # One more drips a byte every 0.3 s: the deadline is the request's,
        # not each read's.
        drip = socket.create_connection(("127.0.0.1", web.port), timeout=10)
        t0 = time.time()
        closed_after = None
        for ch in b"GET / HTTP/1.1\r\nHost: " + b"x" * 200:
            try:
                drip.sendall(bytes([ch]))
            except OSError:
                closed_after = time.time() - t0
                break
            time.sleep(0.3)
            drip.setblocking(False)
            try:
                if drip.recv(4096) is not None:
                    closed_after = time.time() - t0
                    break
            except BlockingIOError:
                pass
            finally:
                drip.setblocking(True)
        self.assertIsNotNone(closed_after, "a dripping request was never cut")
        self.assertLess(closed_after, 5)
        # The slow ones were dropped at their deadline (a 408, then the end).
        for s in slow:
            s.settimeout(5)
            data = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            self.assertTrue(data == b"" or b" 408 " in data, data[:80])
            s.close()
        drip.close()
        self.assertEqual(d.stop(), 0)

    def test_tls_covers_the_http_listener(self):
        import ssl
        cert, key = h.self_signed_certificate(self.dir)
        tokens = os.path.join(self.dir, "tokens")
        with open(tokens, "w") as f:
            f.write("ann-secret ann\n")
        cfg = write_config(self.dir, f'tls_certificate: "{cert}"\n'
                                     f'tls_private_key: "{key}"\n')
        d = self.daemon("--config", cfg, tokens=tokens)
        web = Web(d)
        # Plain HTTP carrying a token gets no HTTP answer.
        conn = web.connect(timeout=10)
        with self.assertRaises((http.client.HTTPException, OSError)):
            conn.request("POST", "/webnnm.v1.Webnnm/ListJobs", frame(b""),
                         {"content-type": "application/grpc-web+proto",
                          "authorization": "Bearer ann-secret"})
            conn.getresponse().read()
        conn.close()
        # HTTPS with the daemon's certificate: the API and the front end.
        context = ssl.create_default_context(cafile=cert)
        conn = http.client.HTTPSConnection("127.0.0.1", web.port,
                                           timeout=30, context=context)
        conn.request("POST", "/webnnm.v1.Webnnm/ListJobs", frame(b""),
                     {"content-type": "application/grpc-web+proto",
                      "authorization": "Bearer ann-secret"})
        resp = conn.getresponse()
        frames = parse_frames(resp.read())
        self.assertEqual(trailers(frames[-1][1])["grpc-status"], "0")
        conn.request("GET", "/")  # the same connection, kept alive
        resp = conn.getresponse()
        self.assertEqual(resp.status, 200)
        self.assertIn(b"<html", resp.read().lower())
        conn.close()
        self.assertEqual(d.stop(), 0)

    def test_swapped_certificate_and_key_said_as_such(self):
        import subprocess
        cert, key = h.self_signed_certificate(self.dir)
        cfg = write_config(self.dir, f'tls_certificate: "{key}"\n'
                                     f'tls_private_key: "{cert}"\n')
        result = subprocess.run(
            [h.WEBNNMD, "--config", cfg, "--listen", "127.0.0.1:0",
             "--db", os.path.join(self.dir, "x.db")],
            capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("swapped", result.stderr)
        self.assertNotIn("address in use", result.stderr)


if __name__ == "__main__":
    rest = h.setup(sys.argv)
    unittest.main(argv=rest, verbosity=2)

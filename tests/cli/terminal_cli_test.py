#!/usr/bin/env python3
"""webnnmctl on a terminal (issue 24): train --local's progress under a
pseudo-terminal of 60 columns (kept epoch lines, the status line within the
width, steps within an epoch), colour only on a terminal and never with
NO_COLOR, and Ctrl-C (the first stops at the end of the step, saves and
prints the summary, exit 130; a second exits at once).

usage: terminal_cli_test.py WEBNNMCTL CONFIGS_DIR
"""
import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unittest

WEBNNMCTL = None
CONFIGS = None
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def on_terminal(args, columns=60, env=None, timeout=120):
    """Runs webnnmctl with stdout and stderr on a pty of `columns`."""
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.update(env or {})
        os.environ.pop("COLUMNS", None)
        os.execv(WEBNNMCTL, [WEBNNMCTL, *args])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    out = b""
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace")


def visible_lines(raw):
    """What a terminal shows: each line's text after its last carriage
    return, without escape codes."""
    lines = []
    for line in raw.replace("\r\n", "\n").split("\n"):
        lines.append(ANSI.sub("", line.split("\r")[-1]))
    return lines


def model(name):
    return os.path.join(CONFIGS, "models", name)


def dataset(name):
    return os.path.join(CONFIGS, "datasets", name)


class Progress(unittest.TestCase):
    def test_epochs_kept_and_the_status_line_fits_60_columns(self):
        code, raw = on_terminal(["train", "--local", model("iris.wnm"),
                                 "--dataset", dataset("iris.csv"),
                                 "--epochs", "5"])
        self.assertEqual(code, 0, raw)
        shown = visible_lines(raw)
        for n in range(1, 6):
            self.assertTrue(any(l.startswith(f"epoch {n}/5") for l in shown),
                            (n, shown))
        self.assertTrue(any(re.match(r"test: \d+ samples", l) for l in shown))
        # Every progress piece drawn fits the width (not only what stays;
        # messages such as decisions wrap as text does).
        pieces = raw.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        progress = [ANSI.sub("", p) for p in pieces
                    if ANSI.sub("", p).startswith(("epoch ", "["))]
        self.assertGreater(len(progress), 5)
        for piece in progress:
            self.assertLessEqual(len(piece), 59, piece)
        # Decisions and warnings are whole lines, never drawn over.
        for line in shown:
            if "decision:" in line or "warning:" in line:
                self.assertTrue(line.startswith(("decision:", "warning:")),
                                line)
        # The status line showed steps within an epoch and the speed.
        self.assertRegex(raw, r"step \d+/\d+")
        self.assertIn("ETA", raw)

    def test_a_long_run_keeps_every_nth_epoch(self):
        code, raw = on_terminal(["train", "--local", model("iris.wnm"),
                                 "--dataset", dataset("iris.csv"),
                                 "--epochs", "200", "--patience", "1000"],
                                columns=120)
        self.assertEqual(code, 0, raw)
        kept = [l for l in visible_lines(raw) if l.startswith("epoch ")]
        self.assertGreaterEqual(len(kept), 50)
        self.assertLessEqual(len(kept), 52)
        self.assertTrue(kept[0].startswith("epoch 1/200"))
        self.assertTrue(kept[-1].startswith("epoch 200/200"))
        # At 120 columns every figure fits.
        self.assertIn("samples/s", kept[-1])
        self.assertIn("lr ", kept[-1])

    def test_colour_on_a_terminal_never_with_no_color_or_a_pipe(self):
        args = ["train", "--local", model("iris.wnm"), "--dataset",
                dataset("iris.csv"), "--epochs", "3"]
        code, raw = on_terminal(args)
        self.assertEqual(code, 0)
        self.assertIn("\x1b[33mwarning:\x1b[0m", raw)
        code, raw = on_terminal(args, env={"NO_COLOR": "1"})
        self.assertEqual(code, 0)
        self.assertNotRegex(raw, r"\x1b\[3\dm")
        self.assertIn("warning:", raw)
        piped = subprocess.run([WEBNNMCTL, *args], capture_output=True,
                               text=True, timeout=120)
        self.assertNotIn("\x1b", piped.stdout + piped.stderr)
        # An error's prefix is painted on a terminal too.
        code, raw = on_terminal(["--server", "127.0.0.1:1", "list"])
        self.assertEqual(code, 1)
        self.assertIn("\x1b[31mwebnnmctl:\x1b[0m cannot reach", raw)


class Interrupt(unittest.TestCase):
    def start(self, snapshot):
        return subprocess.Popen(
            [WEBNNMCTL, "train", "--local", model("digits.wnm"), "--dataset",
             dataset("digits.csv"), "--epochs", "100000", "--patience",
             "100000", "--batch-size", "16", "--save", snapshot],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def wait_for_epoch(self, proc):
        # Plain output prints epoch 1: training has begun.
        for line in proc.stdout:
            if line.startswith("epoch 1/"):
                return
        self.fail("no epoch line: " + proc.stderr.read())

    def test_ctrl_c_stops_at_a_step_saves_and_summarizes(self):
        snapshot = os.path.join(tempfile.mkdtemp(), "digits.wnms")
        proc = self.start(snapshot)
        self.wait_for_epoch(proc)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 130, err)
        self.assertRegex(err, r"interrupted: stopped after epoch \d+ of "
                              r"100000 \(saved to .*digits\.wnms")
        self.assertRegex(out, r"trained \d+ epochs")
        self.assertRegex(out, r"test: \d+ samples")
        epochs = int(re.search(r"stopped after epoch (\d+)", err).group(1))
        self.assertGreaterEqual(epochs, 1)
        # The snapshot holds the last whole epoch: it tests as the summary.
        code = subprocess.run(
            [WEBNNMCTL, "test", "--local", "--load", snapshot, "--dataset",
             dataset("digits.csv")], capture_output=True, text=True,
            timeout=120)
        self.assertEqual(code.returncode, 0, code.stderr)
        summary = re.search(r"test: .*", out).group(0)
        self.assertEqual(code.stdout.strip(), summary)

    def test_a_second_ctrl_c_exits_at_once(self):
        snapshot = os.path.join(tempfile.mkdtemp(), "digits.wnms")
        proc = self.start(snapshot)
        self.wait_for_epoch(proc)
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130)


if __name__ == "__main__":
    WEBNNMCTL, CONFIGS = sys.argv[1], sys.argv[2]
    unittest.main(argv=sys.argv[:1], verbosity=2)

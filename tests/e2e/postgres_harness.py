"""A private PostgreSQL server for the end-to-end tests: initdb and pg_ctl
in a temporary folder, on 127.0.0.1 at a free port, run as the `postgres`
user when the test runs as root (PostgreSQL refuses root), fsync off.
stop() (or the context manager's exit) stops it and removes the folder.
"""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile


def _bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found:
        raise RuntimeError("PostgreSQL is not installed (scripts/bootstrap "
                           "installs it)")
    return os.path.dirname(found[-1])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self):
        self.bin = _bin()
        self.dir = tempfile.mkdtemp(prefix="webnnm-pg-")
        self.prefix = []
        if os.geteuid() == 0:
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        data = os.path.join(self.dir, "data")
        subprocess.run([*self.prefix, os.path.join(self.bin, "initdb"), "-D",
                        data, "-A", "trust", "-U", "webnnm", "-E", "UTF8",
                        "--no-sync"], check=True, capture_output=True)
        self.port = None
        for _ in range(5):
            port = _free_port()
            started = subprocess.run(
                [*self.prefix, os.path.join(self.bin, "pg_ctl"), "-D", data,
                 "-w", "-t", "60", "-l", os.path.join(self.dir, "server.log"),
                 "-o", f"-h 127.0.0.1 -p {port} -k {self.dir} -c fsync=off "
                 "-c synchronous_commit=off -c full_page_writes=off "
                 "-c max_connections=300", "start"],
                capture_output=True)
            if started.returncode == 0:
                self.port = port
                break
        if self.port is None:
            raise RuntimeError("PostgreSQL did not start: " + self.log())

    def uri(self, db="postgres"):
        return f"postgresql://webnnm@127.0.0.1:{self.port}/{db}"

    def create(self, name):
        """A new, empty database; its URI."""
        self.psql("postgres", f"DROP DATABASE IF EXISTS {name}")
        self.psql("postgres", f"CREATE DATABASE {name}")
        return self.uri(name)

    def psql(self, db, sql):
        """Runs `sql`; the rows as lists of strings."""
        out = subprocess.run(
            ["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v",
             "ON_ERROR_STOP=1", self.uri(db), "-c", sql],
            check=True, capture_output=True, text=True).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def log(self):
        try:
            with open(os.path.join(self.dir, "server.log")) as f:
                return f.read()
        except OSError:
            return ""

    def stop(self):
        if self.port is not None:
            subprocess.run([*self.prefix, os.path.join(self.bin, "pg_ctl"),
                            "-D", os.path.join(self.dir, "data"), "-m",
                            "immediate", "-w", "stop"], capture_output=True)
            self.port = None
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

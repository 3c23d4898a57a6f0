"""Helpers for the web tests: ``nardy serve`` as a subprocess on a free port."""

from __future__ import annotations

import http.cookiejar
import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def stop_background_rounds(client) -> None:
    """Stop the background rounds of ``client``'s app (the clock keeper, the lobby's presence keeper and the
    tournament runner, each querying the database on its own period), so that a test counting what one request
    costs counts that request alone (the runner's round every second was counted with an action now and then)."""
    state = client.app.state
    for task in (state.clock_keeper, state.presence_keeper, state.tour_runner):
        client.portal.call(task.stop)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_schema(prefix: str = "nardy_test"):
    """A PostgreSQL schema of its own, named ``{prefix}_{8 hex digits}``, in the test database that
    ``NARDY_TEST_POSTGRES_URL`` names: returns ``(url, drop)``, the database URL with that schema as its
    ``search_path`` and a function that drops the schema. Skips the test when the variable is not set or
    psycopg is missing."""
    import pytest

    url = os.environ.get("NARDY_TEST_POSTGRES_URL")
    if not url:
        pytest.skip("NARDY_TEST_POSTGRES_URL is not set (a PostgreSQL database for the tests)")
    pytest.importorskip("psycopg")
    import sqlalchemy as sa

    from nardy.web.store.db import normalise_url

    schema = f"{prefix}_{secrets.token_hex(4)}"
    admin = sa.create_engine(normalise_url(url))
    with admin.begin() as c:
        c.execute(sa.text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in url else "?"

    def drop():
        with admin.begin() as c:
            c.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()

    return f"{url}{sep}options={quote(f'-csearch_path={schema}')}", drop


def serve_sqlite(tmp_path_factory, folder: str, name: str = "games.db"):
    """The body of a module-scoped ``server`` fixture (``yield from serve_sqlite(tmp_path_factory, "web")``):
    yields a started :class:`Server` on a new SQLite file ``name`` in a fresh temporary folder named after
    ``folder``, and stops it at the end."""
    s = Server(f"sqlite:///{tmp_path_factory.mktemp(folder) / name}")
    s.start()
    try:
        yield s
    finally:
        s.stop()


def serve_with_grace(tmp_path_factory, folder: str, grace: float):
    """As :func:`serve_sqlite`, a server whose claims' grace period (:data:`nardy.web.presence.ABANDON_GRACE`,
    120 s in play) is ``grace`` seconds."""
    s = Server(f"sqlite:///{tmp_path_factory.mktemp(folder) / 'games.db'}")
    s.setup = f"import nardy.web.presence as m; m.ABANDON_GRACE = {grace}"
    s.start()
    try:
        yield s
    finally:
        s.stop()


class Server:
    """``nardy serve`` in a subprocess; :meth:`restart` keeps the port and the database. :meth:`get` and
    :meth:`post` behave like the page of one player: they keep the server's cookies and send the CSRF token."""

    def __init__(self, database: str, port: int | None = None, extra: tuple = (), preexec_fn=None):
        self.database = database
        self.extra = tuple(extra)
        self.preexec_fn = preexec_fn  # run in the child before it starts (e.g. lower its file limit)
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = None
        self.log = None
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    #: Python run in the server process before ``nardy serve`` starts (set on an instance: a test's lower limit, e.g.
    #: ``"import nardy.web.live as m; m.MAX_CONNECTIONS = 40"``); empty: ``python -m nardy.cli``.
    setup: str = ""

    def start(self, timeout: float = 300):
        self.log = open(Path(os.environ.get("TMPDIR", "/tmp")) / f"nardy-serve-{self.port}.log", "ab")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        run = ["-c", f"{self.setup}\nfrom nardy.cli import main\nmain()"] if self.setup else ["-m", "nardy.cli"]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                *run,
                "serve",
                "--port",
                str(self.port),
                "--database",
                self.database,
                "--allow-seeded-dice",
                *self.extra,
            ],
            cwd=str(ROOT),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=self.preexec_fn,
        )
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"nardy serve exited with {self.proc.returncode}; log {self.log.name}")
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, OSError):
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"nardy serve did not answer in {timeout} s; log {self.log.name}")

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc = None
        if self.log:
            self.log.close()
            self.log = None

    def restart(self):
        self.stop()
        return self.start()

    def get(self, path: str):
        with self.opener.open(self.url + path, timeout=120) as r:
            return json.loads(r.read())

    def post(self, path: str, body) -> dict:
        headers = {"Content-Type": "application/json"}
        csrf = next((c.value for c in self.jar if c.name == "nardy_csrf"), None)
        if csrf:
            headers["X-CSRF-Token"] = csrf
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST", headers=headers)
        with self.opener.open(req, timeout=120) as r:
            return json.loads(r.read())

    def rss_mb(self) -> float:
        return self.memory_mb()["VmRSS"]

    def memory_mb(self) -> dict:
        """The server's ``VmRSS``, ``RssAnon`` (its own heap and compiled code) and ``RssFile`` (mapped files such as
        shared libraries, whose resident share depends on the page cache) from ``/proc/PID/status``, in MB."""
        out = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                key = line.split(":")[0]
                if key in ("VmRSS", "RssAnon", "RssFile"):
                    out[key] = int(line.split()[1]) / 1024
        if "VmRSS" not in out:
            raise RuntimeError("no VmRSS")
        return out


class HttpPlayer:
    """One player's browser against a server at ``url``: its own cookies, the CSRF token on every POST."""

    def __init__(self, url: str):
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def request(self, method: str, path: str, body=None) -> tuple[int, dict]:
        """``(status, JSON answer)``; an error status is returned, not raised."""
        headers = {"Content-Type": "application/json"}
        csrf = next((c.value for c in self.jar if c.name == "nardy_csrf"), None)
        if csrf and method != "GET":
            headers["X-CSRF-Token"] = csrf
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method, headers=headers)
        try:
            with self.opener.open(req, timeout=120) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def get(self, path: str) -> dict:
        status, out = self.request("GET", path)
        assert status == 200, (status, out)
        return out

    def post(self, path: str, body=None, status: int = 200) -> dict:
        got, out = self.request("POST", path, body if body is not None else {})
        assert got == status, (got, out)
        return out

"""Replay every finding of the outside security test (issue 41) against a served ``nardy serve``: HELD or BROKEN.

One line per finding: its id, a short name, ``HELD``, ``BROKEN``, ``SKIPPED`` (with why) or ``ERROR`` (the check
could not run: the reason), and the evidence (status codes, counts, timings). Exit code 0 when no check is
BROKEN or ERROR (a SKIPPED one is listed, not failed; ``--strict``: skips fail too), 1 otherwise. The next outside
test starts from this list; each check is written to the issue's definition of "fixed":

====  ======================  ===================================================================================
id    finding                 HELD when
====  ======================  ===================================================================================
1     forwarded-address       through the shipped deploy/nginx.conf (and deploy/compose.yaml's
                              ``FORWARDED_ALLOW_IPS``), failed log-ins from one client with a forged
                              ``X-Forwarded-For`` each hit the per-address limit as soon as the same tries
                              without the header do (nginx needed, else SKIPPED: nginx not found)
2     name-lockout            after wrong passwords for a name from another address (until that address is
                              refused), the owner still logs in from their own address; the guesser is refused
3     claim-present           a claim of abandonment is refused against an absent opponent on the claimer's own
                              turn, and against one who is to act but keeps making requests over HTTP; it
                              succeeds (the control) against one to act and silent past the grace period
4     dice-order              in each way a game starts (invitation, challenge, quick pairing) each player got
                              the commitment that the record ends with before sending their client seed
5     rating-farm             challenge, accept and an immediate resignation change no rating, and the winner
                              is not on the leaderboard
6     huge-header             a 100 MB header (an HTTP request, and a WebSocket handshake) is refused (431, or the
                              connection closed, or the server stops reading) long before it is read whole, and
                              ``/api/health`` answers within 1 s meanwhile
7     slowloris               hundreds of half-sent requests (headers, and bodies) are timed out within
                              ``--slow-seconds``, one address's connections are capped, and meanwhile health
                              answers within 1 s from another address, new guests are stored, and a game's clock
                              still runs out on time (own server: its open-file limit lowered to
                              ``--server-nofile``, so a few hundred sockets reach the limit the finding reached
                              with 20,000)
8     ws-rebinding            a WebSocket handshake with ``Host: evil.example`` (and a matching Origin) is refused
9     analysis-fairness       while one anonymous client's long analysis runs, another anonymous client's short
                              analysis and then an account's wait (no 503) and are answered 200 once the long one's
                              client goes, the account's first (signed-in players have priority)
10    terminal-escapes        ``nardy replay`` of a .mat whose player name holds ``ESC ] 0 ; ... BEL`` prints no
                              ESC or BEL byte
11a   private-game-exists     a stranger gets from every route of a private game the same answer as for a game
                              that does not exist (/hints, the view, record, mat, fairness, analysis, tutor,
                              actions, join, claim, cancel, delete, the live channel)
11b   frame-headers           pages and API answers carry ``X-Frame-Options`` or CSP ``frame-ancestors``, and
                              ``X-Content-Type-Options: nosniff``
11c   guest-lookalike         a guest can take neither an account's exact name nor a Cyrillic/Latin look-alike
x1    races                   many concurrent actions of both players (duplicates with one seq) through every
                              server process: at most one applied per seq, seqs increase, both processes show the
                              same stored game, no 5xx
x2    ws-limits               a game's 65th live connection is refused cleanly, the server keeps serving, and the
                              slots free up when clients go (``--ws-global``: the 4,096 in all, too)
x3    restart-clock           SIGKILL and restart with clocks running: the downtime is not charged (docs/online.md:
                              "while the server is down nobody's time runs"), and a clock still runs out on time
                              (own server only)
x4    block-quick-pairing     two players one of whom blocks the other are never paired by quick pairing
====  ======================  ===================================================================================

Server: by default the bench starts ``nardy serve`` itself (a temporary SQLite file; with ``--database
postgresql://...`` or ``NARDY_TEST_POSTGRES_URL``, a schema of its own there, dropped at the end, and two server
processes on it for x1), with ``--insecure-password-hashing`` (its accounts are made in milliseconds), its
abandonment grace set to ``--grace`` seconds (a launcher sets ``app.state.abandon_grace``, the app's documented
override; item 3's control says when that did not take), and its open-file limit set to ``--server-nofile``.
``--url`` points it at a running server instead (loopback only): then ``--grace`` must be that server's grace
(default 120 s: item 3 waits that long), x3 is skipped (it restarts the server) and item 1 still starts a server of
its own behind nginx (item 1 is about the shipped deployment).

Clients: each person of a check has a loopback source address of its own (127.41.C.N: C the check, N the person),
so the server's per-address limits see different people without any forwarded header; uvicorn believes
``X-Forwarded-For`` from 127.0.0.1 only (its default), which these addresses are not. Everything stays on
loopback; every attack is bounded in time and count and stops by itself (the slowloris: ``--slow-sockets`` a
source address over ``--slow-addresses`` addresses for ``--slow-seconds``).

    python bench/attack.py                         # every check against a server of its own
    python bench/attack.py --only 6,8,11b          # some checks
    python bench/attack.py --url http://127.0.0.1:8000 --grace 120
    python bench/attack.py --database postgresql://nardy:nardy@127.0.0.1:5432/nardy_test   # x1 on two processes
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import random
import re
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import httpx

ROOT = Path(__file__).resolve().parent.parent
for _path in (ROOT, ROOT / "bench"):  # nardy itself, and the checks beside this file
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

from online_load import Schema  # noqa: E402  (a PostgreSQL schema of the bench's own, as the load bench makes it)

HELD, BROKEN, SKIPPED, ERROR = "HELD", "BROKEN", "SKIPPED", "ERROR"
PASSWORD = "attack-bench-password"
#: The abandonment grace the bench gives a server of its own (seconds): longer than any sensible throttle of
#: presence writes, short enough to wait.
OWN_GRACE = 20.0
#: Seconds a single request may take before the bench gives up on it.
REQUEST_TIMEOUT = 30.0


# ----- results ------------------------------------------------------------------------------------------------------
@dataclass
class Result:
    """One finding's verdict: ``status`` one of HELD, BROKEN, SKIPPED, ERROR; ``evidence`` what was seen."""

    id: str
    name: str
    status: str
    evidence: str
    seconds: float = 0.0

    def line(self) -> str:
        return f"{self.id:<4} {self.name:<20} {self.status:<8} {self.evidence} [{self.seconds:.1f} s]"


class Trouble(Exception):
    """A step a check needs failed in a way that tells nothing about the finding (the check is ERROR)."""


class Verdict(Exception):
    """Raised by a check to end with a verdict (``status``, ``evidence``)."""

    def __init__(self, status: str, evidence: str):
        super().__init__(evidence)
        self.status = status
        self.evidence = evidence


# ----- people -------------------------------------------------------------------------------------------------------
class Answer(NamedTuple):
    """An HTTP answer: status, JSON body (text when not JSON), headers, seconds taken."""

    status: int
    body: Any
    headers: httpx.Headers
    seconds: float

    def code(self) -> str | None:
        """The error body's ``code`` (or ``error``), when there is one."""
        if isinstance(self.body, dict):
            return self.body.get("code") or self.body.get("error")
        return None


class Person:
    """One person at the server: an own loopback source address, own cookies, the CSRF token sent on unsafe
    requests as the page does. Every answer is kept with when it came (``seen``), for item 4."""

    def __init__(self, base: str, source: str, timeout: float = REQUEST_TIMEOUT):
        self.base = base
        self.source = source
        self.http = httpx.Client(
            base_url=base,
            transport=httpx.HTTPTransport(local_address=source, verify=False),
            timeout=timeout,
            verify=False,
        )
        self.seen: list[tuple[float, Any]] = []
        self.sent: list[tuple[float, str, Any]] = []
        self.id: str | None = None
        self.name: str | None = None

    def close(self) -> None:
        self.http.close()

    def call(self, method: str, path: str, body: Any = None, headers: dict | None = None, timeout=None) -> Answer:
        """``method path`` with ``body`` as JSON; an error status is returned, not raised (a network failure
        raises httpx's error)."""
        h = dict(headers or {})
        csrf = self.http.cookies.get("nardy_csrf")
        if csrf and method not in ("GET", "HEAD"):
            h.setdefault("X-CSRF-Token", csrf)
        t0 = time.monotonic()
        self.sent.append((t0, f"{method} {path}", body))
        kw: dict[str, Any] = {"headers": h}
        if body is not None:
            kw["json"] = body
        if timeout is not None:
            kw["timeout"] = timeout
        r = self.http.request(method, path, **kw)
        t1 = time.monotonic()
        try:
            data = r.json()
        except ValueError:
            data = r.text
        self.seen.append((t1, data))
        return Answer(r.status_code, data, r.headers, t1 - t0)

    def ok(self, method: str, path: str, body: Any = None, want: tuple = (200, 201), **kw) -> Any:
        """The answer's body; :class:`Trouble` unless its status is in ``want``."""
        a = self.call(method, path, body, **kw)
        if a.status not in want:
            raise Trouble(f"{method} {path}: {a.status} {str(a.body)[:160]}")
        return a.body

    def guest(self, name: str) -> dict:
        user = self.ok("POST", "/api/auth/guest", {"name": name})["user"]
        self.id, self.name = user["id"], user["name"]
        return user

    def register(self, name: str, password: str = PASSWORD) -> dict:
        user = self.ok("POST", "/api/auth/register", {"name": name, "password": password})["user"]
        self.id, self.name = user["id"], user["name"]
        return user

    def login(self, name: str, password: str) -> Answer:
        return self.call("POST", "/api/auth/login", {"name": name, "password": password})


# ----- games --------------------------------------------------------------------------------------------------------
def first_action(view: dict) -> dict:
    """The action body a player to act sends on ``view``: the first legal play of its roll, else roll, else the
    first action offered."""
    from nardy.rules.position import Position

    if view["phase"] == "move" and view.get("dice"):
        pos = Position.from_id(view["position_id"], view["game"])
        plays = pos.legal_plays(tuple(view["dice"]))
        return {"action": "play", "play": str(plays[0]), "seq": view["seq"]}
    acts = view.get("actions") or []
    action = "roll" if "roll" in acts else (acts[0] if acts else "roll")
    return {"action": action, "seq": view["seq"]}


def act_once(p: Person, gid: str) -> dict:
    """``p`` reads the game and makes the first legal action on it; the new view."""
    v = p.ok("GET", f"/api/games/{gid}")
    return p.ok("POST", f"/api/games/{gid}/actions", first_action(v))


def side_of(view: dict) -> int:
    """The side the viewer of ``view`` plays (its ``you``)."""
    you = view.get("you")
    return you[0] if isinstance(you, list) else int(you)


def online_pair(a: Person, b: Person, **options) -> tuple[str, dict]:
    """An online game made by ``a`` (invitation), joined by ``b``: ``(id, b's first view)``."""
    body = {"game": "long", "opponent": "online", "length": 1, **options}
    g = a.ok("POST", "/api/games", body)
    v = b.ok("POST", f"/api/games/{g['id']}/join", {"invite": g["invite"]})
    return g["id"], v


def rated_pair(owner: Person, taker: Person, clock: dict | None = None, **extra) -> tuple[str, dict]:
    """A rated lobby match: ``owner``'s open challenge taken by ``taker``; ``(game id, taker's view)``."""
    body = {"game": "backgammon", "length": 1, "clock": clock or {"initial": 900}, "rated": True, **extra}
    ch = owner.ok("POST", "/api/lobby/challenges", body)["challenge"]
    v = taker.ok("POST", f"/api/lobby/challenges/{ch['id']}/accept", {})
    return v["id"], v


# ----- raw connections ----------------------------------------------------------------------------------------------
def ws_handshake(
    host: str,
    port: int,
    path: str,
    headers: dict[str, str],
    source: str | None = None,
    timeout: float = 5.0,
) -> tuple[int | None, str]:
    """A WebSocket handshake written byte for byte (client libraries set ``Host`` themselves): ``(HTTP status or
    None, what followed)``, where what followed is the first message's text, ``close CODE`` or the error."""
    s = socket.create_connection((host, port), timeout=timeout, source_address=(source, 0) if source else None)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        lines = [f"GET {path} HTTP/1.1"]
        head = {
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": "13",
            **headers,
        }
        lines += [f"{k}: {v}" for k, v in head.items()]
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                return None, "closed before an answer"
            data += chunk
        head_text, _, rest = data.partition(b"\r\n\r\n")
        m = re.match(rb"HTTP/1\.[01] (\d{3})", head_text)
        status = int(m.group(1)) if m else None
        if status != 101:
            return status, rest[:200].decode("utf-8", "replace")
        return status, _first_frame(s, rest)
    except OSError as e:
        return None, f"{type(e).__name__}: {e}"
    finally:
        s.close()


def _first_frame(s: socket.socket, data: bytes) -> str:
    """The first server frame after a 101: its text, or ``close CODE``."""
    while len(data) < 2:
        chunk = s.recv(4096)
        if not chunk:
            return "closed"
        data += chunk
    opcode, n = data[0] & 0x0F, data[1] & 0x7F
    start = 2
    if n == 126:
        while len(data) < 4:
            data += s.recv(4096)
        n, start = int.from_bytes(data[2:4], "big"), 4
    elif n == 127:
        while len(data) < 10:
            data += s.recv(4096)
        n, start = int.from_bytes(data[2:10], "big"), 10
    while len(data) < start + min(n, 4096):
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    payload = data[start : start + n]
    if opcode == 8:
        return f"close {int.from_bytes(payload[:2], 'big') if len(payload) >= 2 else 'no code'}"
    return payload[:300].decode("utf-8", "replace")


def long_record(seed: int = 9, length: int = 11) -> str:
    """A match's .mat of random legal plays (no cube; at most 12 games): the default 11 points, hundreds of
    decisions to analyse."""
    from nardy.flow.match import Match
    from nardy.records.mat import write_mat
    from nardy.rules.dice import DiceSource

    rng = random.Random(seed)
    m = Match("backgammon", length=length, dice=DiceSource(seed), players=("Anna", "Boris"))
    while not m.is_over and len(m.games) < 12:
        g = m.new_game(start=True)
        while not g.is_over:
            if g.phase == "roll":
                g.roll()
            else:
                g.play(rng.choice(g.legal_plays()))
    return write_mat(m)


def health_latency(base: str, source: str, timeout: float = 10.0) -> float | str:
    """Seconds ``GET /api/health`` took from ``source`` (a string naming the failure when it failed)."""
    t0 = time.monotonic()
    try:
        with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=timeout) as c:
            r = c.get(base + "/api/health")
        if r.status_code != 200:
            return f"status {r.status_code}"
        return time.monotonic() - t0
    except httpx.HTTPError as e:
        return f"{type(e).__name__}"


# ----- the server ---------------------------------------------------------------------------------------------------
#: Starts ``nardy serve`` with the abandonment grace (argv[1]) set as the app's documented override,
#: ``app.state.abandon_grace``, on the app ``nardy serve`` makes; the rest of argv is the command line.
LAUNCHER = (
    "import sys\n"
    "import nardy.web.app as web_app\n"
    "grace = float(sys.argv.pop(1))\n"
    "made = web_app.create_app\n"
    "def create_app(*args, **kw):\n"
    "    app = made(*args, **kw)\n"
    "    app.state.abandon_grace = grace\n"
    "    return app\n"
    "web_app.create_app = create_app\n"
    "from nardy.cli import main\n"
    "sys.argv[0] = 'nardy'\n"
    "main()\n"
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OwnServer:
    """A ``nardy serve`` process the bench started: one process on ``database``, on a port of its own, kept
    for :meth:`restart` (SIGKILL and start again on the same port and database)."""

    def __init__(
        self,
        database: str,
        log_dir: Path,
        grace: float = OWN_GRACE,
        nofile: int | None = None,
        extra: tuple[str, ...] = (),
        env: dict | None = None,
    ):
        self.database = database
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.grace = grace
        self.nofile = nofile
        self.extra = extra
        self.env = env or {}
        self.log_path = log_dir / f"serve-{self.port}.log"
        self.proc: subprocess.Popen | None = None

    def _limit(self) -> None:  # in the child, before exec
        if self.nofile:
            hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
            resource.setrlimit(resource.RLIMIT_NOFILE, (self.nofile, hard))

    def start(self, timeout: float = 300) -> OwnServer:
        cmd = [sys.executable, "-c", LAUNCHER, str(self.grace), "serve", "--port", str(self.port)]
        cmd += ["--database", self.database, "--no-warm-up", "--insecure-password-hashing", *self.extra]
        env = dict(os.environ, PYTHONUNBUFFERED="1", PYTHONPATH=str(ROOT), **self.env)
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(
                cmd, cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT, env=env, preexec_fn=self._limit
            )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise SystemExit(f"nardy serve exited with {self.proc.returncode}; log {self.log_path}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200:
                    return self
            time.sleep(0.2)
        self.stop()
        raise SystemExit(f"nardy serve did not answer in {timeout} s; log {self.log_path}")

    def kill(self) -> None:
        """SIGKILL, as a crash."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def file_limit(self) -> int | None:
        """The server process's open-file limit (soft) now: it may have raised the one it was started with."""
        try:
            with open(f"/proc/{self.proc.pid}/limits") as f:
                line = next(x for x in f if x.startswith("Max open files"))
            return int(line.split()[3])
        except (OSError, StopIteration, ValueError, AttributeError):
            return None

    def open_files(self) -> int | None:
        """File descriptors the server process has open now."""
        try:
            return len(os.listdir(f"/proc/{self.proc.pid}/fd")) if self.proc else None
        except OSError:
            return None


# ----- what the checks get ------------------------------------------------------------------------------------------
@dataclass
class Target:
    """The server under attack and the bench's settings: ``urls`` its processes (the first is the one most
    checks use), ``servers`` the processes the bench started (empty with ``--url``)."""

    urls: list[str]
    servers: list[OwnServer]
    args: argparse.Namespace
    work: Path
    database: str | None = None
    tag: str = field(default_factory=lambda: secrets.token_hex(3))
    people: list[Person] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.urls[0]

    @property
    def host_port(self) -> tuple[str, int]:
        u = urlsplit(self.url)
        return u.hostname or "127.0.0.1", u.port or 80

    @property
    def owned(self) -> bool:
        return bool(self.servers)

    @property
    def grace(self) -> float:
        return self.args.grace

    def address(self, check: int, n: int) -> str:
        """The loopback source address of person ``n`` (1-250) of check number ``check`` (1-250)."""
        return f"127.41.{check}.{n}"

    def person(self, check: int, n: int, url: str | None = None) -> Person:
        p = Person(url or self.url, self.address(check, n))
        self.people.append(p)
        return p

    def name(self, what: str) -> str:
        """A name of this run (unique on a server reused between runs)."""
        return f"{what}{self.tag}"

    def close(self) -> None:
        for p in self.people:
            with contextlib.suppress(Exception):
                p.close()
        self.people.clear()


@dataclass
class Check:
    id: str
    name: str
    run: Callable[[Target], Result | tuple[str, str]]


def run_check(check: Check, target: Target) -> Result:
    t0 = time.monotonic()
    try:
        out = check.run(target)
        status, evidence = (out.status, out.evidence) if isinstance(out, Result) else out
    except Verdict as v:
        status, evidence = v.status, v.evidence
    except Trouble as e:
        status, evidence = ERROR, str(e)
    except Exception as e:  # a bench bug or a server that went away: said, and the next check runs
        status, evidence = ERROR, f"{type(e).__name__}: {e}"
    finally:
        target.close()
    return Result(check.id, check.name, status, evidence, time.monotonic() - t0)


# ----- the command line ---------------------------------------------------------------------------------------------
def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description="Replay issue 41's findings against nardy serve: HELD or BROKEN per finding (see the docstring)."
    )
    ap.add_argument("--url", help="a running server (loopback only); default: the bench starts one")
    ap.add_argument(
        "--database",
        default=os.environ.get("NARDY_TEST_POSTGRES_URL"),
        help="own server's database: postgresql://... (a schema of its own; two processes for x1); default: "
        "$NARDY_TEST_POSTGRES_URL, else a temporary SQLite file",
    )
    ap.add_argument("--only", default="", help="comma-separated ids to run (e.g. 2,6,11a); default: all")
    ap.add_argument("--skip", default="", help="comma-separated ids not to run")
    ap.add_argument("--list", action="store_true", help="list the checks and exit")
    ap.add_argument("--strict", action="store_true", help="a SKIPPED check fails the run too")
    ap.add_argument(
        "--grace",
        type=float,
        default=None,
        help=f"the server's abandonment grace in seconds (own server: set to it, default {OWN_GRACE:g}; "
        "--url: that server's, default 120)",
    )
    ap.add_argument("--nginx", default=None, help="nginx binary for item 1 (default: found on PATH or /usr/sbin)")
    ap.add_argument("--login-tries", type=int, default=60, help="failed log-ins item 1 and 2 try at most")
    ap.add_argument("--header-mb", type=int, default=100, help="size of item 6's header (MB)")
    ap.add_argument("--slow-sockets", type=int, default=300, help="item 7: half-sent requests per address")
    ap.add_argument("--slow-addresses", type=int, default=2, help="item 7: source addresses of the slow requests")
    ap.add_argument(
        "--slow-seconds",
        type=float,
        default=45.0,
        help="item 7: how long the slow requests trickle (longer than the server's head and body timeouts)",
    )
    ap.add_argument(
        "--server-nofile",
        type=int,
        default=512,
        help="own server's open-file limit (soft), so that item 7's few hundred sockets can reach it",
    )
    ap.add_argument(
        "--analysis-wait",
        type=float,
        default=150.0,
        help="item 9: seconds the queued analyses may take (the long one's budget, 90 s, and theirs)",
    )
    ap.add_argument("--races", type=int, default=40, help="x1: rounds of concurrent duplicate actions")
    ap.add_argument("--ws-global", action="store_true", help="x2: also fill the 4,096 live connections in all")
    ap.add_argument("--json", dest="json_out", help="write the results as JSON to this file")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (the servers' logs) and say where")
    args = ap.parse_args(argv)
    if args.url:
        host = urlsplit(args.url).hostname
        if host not in ("127.0.0.1", "localhost", "::1"):
            ap.error(f"--url {host}: this bench attacks loopback addresses only")
        args.url = args.url.rstrip("/")
    if args.database and not args.url:
        host = urlsplit(args.database).hostname if "://" in args.database else None
        if args.database.startswith("postgres") and host not in (None, "", "127.0.0.1", "localhost", "::1"):
            ap.error(f"--database {host}: loopback databases only")
    if args.grace is None:
        args.grace = 120.0 if args.url else OWN_GRACE
    for name in ("login_tries", "header_mb", "slow_sockets", "slow_addresses", "races", "server_nofile"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.slow_addresses > 200 or args.slow_sockets > 5000:
        ap.error("--slow-addresses at most 200, --slow-sockets at most 5000 (a bounded attack)")
    if not 1 <= args.slow_seconds <= 300:
        ap.error("--slow-seconds: 1 to 300")
    return args


def selected(checks: list[Check], args: argparse.Namespace) -> list[Check]:
    ids = {c.id for c in checks}
    only = {x.strip() for x in args.only.split(",") if x.strip()}
    skip = {x.strip() for x in args.skip.split(",") if x.strip()}
    unknown = (only | skip) - ids
    if unknown:
        raise SystemExit(f"unknown check ids: {', '.join(sorted(unknown))} (known: {', '.join(c.id for c in checks)})")
    return [c for c in checks if (not only or c.id in only) and c.id not in skip]


def start_target(args: argparse.Namespace, work: Path, cleanup: list) -> Target:
    if args.url:
        return Target([args.url], [], args, work)
    schema = None
    if args.database and args.database.startswith("postgres"):
        schema = Schema(args.database, prefix="nardy_attack")
        cleanup.append(schema.drop)
        database = schema.url
    else:
        database = f"sqlite:///{work / 'attack.db'}"
    first = OwnServer(database, work, grace=args.grace, nofile=args.server_nofile)
    cleanup.append(first.stop)
    first.start()
    servers = [first]
    if schema is not None:  # a second process on the same database (x1)
        second = OwnServer(database, work, grace=args.grace, nofile=args.server_nofile)
        cleanup.append(second.stop)
        servers.append(second.start())
    return Target([s.url for s in servers], servers, args, work, database=database)


def main(argv=None) -> int:
    from attack_checks import CHECKS

    args = parse_args(argv)
    if args.list:
        for c in CHECKS:
            print(f"{c.id:<4} {c.name}")
        return 0
    checks = selected(CHECKS, args)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 8192))
    if want > soft:  # the slowloris' and the live connections' sockets
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    work = Path(tempfile.mkdtemp(prefix="nardy-attack-"))
    cleanup: list[Callable[[], None]] = []
    results: list[Result] = []
    try:
        target = start_target(args, work, cleanup)
        shown = re.sub(r"//[^/@]*@", "//", target.database or "")  # no password printed
        where = target.url if args.url else f"{', '.join(target.urls)} (own server, {shown})"
        print(f"# nardy attack bench against {where}; grace {args.grace:g} s; run {target.tag}", flush=True)
        for check in checks:
            r = run_check(check, target)
            results.append(r)
            print(r.line(), flush=True)
    finally:
        for fn in reversed(cleanup):
            with contextlib.suppress(Exception):
                fn()
        if args.keep:
            print(f"# kept {work} (the servers' logs: serve-PORT.log)")
        else:
            shutil.rmtree(work, ignore_errors=True)
    counts = {s: sum(1 for r in results if r.status == s) for s in (HELD, BROKEN, SKIPPED, ERROR)}
    print("# " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps([r.__dict__ for r in results], indent=1))
    failed = counts[BROKEN] + counts[ERROR] + (counts[SKIPPED] if args.strict else 0)
    return 1 if failed else 0


if __name__ == "__main__":
    import attack  # the checks import this module by that name: one copy of its classes

    sys.exit(attack.main())

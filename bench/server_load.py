"""Load on ``nardy serve``: many people playing the strongest computer at once, and how cheap requests fare.

Starts ``nardy serve`` in a subprocess (a free loopback port, a fresh SQLite database in a temporary
folder; or ``--url`` for a server already running), then for each client count of ``--clients`` runs
that many simulated people for ``--seconds``. Each plays a money session against the computer at
``--level`` (grandmaster by default; backgammon, short and long nardy in turn) through the HTTP API as
the web page does: create the game, then act on the view the last answer gave (roll when it may, a
random legal step from ``moves``, confirm, take or drop a double, next when a game ends), always with
the view's ``seq``; a 409 reloads the view, a 429 or 503 waits its ``Retry-After`` and tries again.

Beside them, a prober in a process of its own (so the load generator's own work does not show in its
figures) GETs a saved game's view and ``/api/health`` every ``--probe-interval`` seconds; its figures
for the ``--baseline`` seconds before any load are the reference line. The server's resident memory
(VmRSS of the server and its children) is sampled every 0.2 s.

Printed per client count: actions/s, action latency (all, the person's own steps, and the ones the
computer answers), cheap-request latency and its ratio to the reference, the counts of 409/429/503
and other errors (5xx other than 503 listed loudly: they are bugs), the server's peak RSS, CPU, and
the load generator's own CPU and event-loop lag (to show it was not the bottleneck). Targets are
printed beside the figures; nothing is asserted.

Clients come from distinct loopback addresses (127.1.x.y) by default, so that the server's fair
share per client address treats them as different people; ``--source shared`` sends them all from
127.0.0.1 (many people behind one address: a NAT or a proxy).

    python bench/server_load.py                                   # 20, 100, 300 clients, 60 s each
    python bench/server_load.py --clients 20,100,300 --seconds 30 --json /tmp/load.json
    python bench/server_load.py --url http://127.0.0.1:8000 --server-pid 1234 --clients 50

Only loopback addresses are used; every loop is bounded in time and count.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("backgammon", "short", "long")

#: Targets printed beside the figures.
TARGET_CHEAP_P99 = 0.5  # s, cheap requests under any computer load
TARGET_RSS_MB = 400  # MB, with 300 games under way
TARGET_RSS_CLIENTS = 300

#: Other processes busier than this share of one core during a run: its figures are marked disturbed.
DISTURBED_SHARE = 0.15

#: Bounds of every loop (besides its deadline).
MAX_REQUESTS_PER_CLIENT = 200_000
REQUEST_TIMEOUT = 60.0


# ----- small helpers ---------------------------------------------------------------------------------------
def pct(xs, p):
    """The p-th percentile (nearest rank) of ``xs``, or None."""
    if not xs:
        return None
    s = sorted(xs)
    k = min(len(s) - 1, max(0, int(round(p / 100 * len(s) + 0.5)) - 1))
    return s[k]


def lat_summary(xs) -> dict:
    return {"n": len(xs), "p50": pct(xs, 50), "p95": pct(xs, 95), "p99": pct(xs, 99), "max": max(xs) if xs else None}


def ms(x) -> str:
    return "-" if x is None else (f"{x * 1000:.0f} ms" if x < 10 else f"{x:.1f} s")


def source_address(i: int) -> str:
    """A loopback address of its own for client ``i`` (127.1.0.1, 127.1.0.2, ...); bench/online_load.py's
    players use it too."""
    return f"127.1.{i // 250}.{i % 250 + 1}"


def retry_after(r: httpx.Response, default: float = 1.0) -> float:
    try:
        return max(0.05, float(r.headers.get("retry-after", default)))
    except ValueError:
        return default


# ----- the server's memory and CPU ------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/children") as f:
                    out += [int(x) for x in f.read().split()]
            except OSError:
                pass
    except OSError:
        pass
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and its descendants (bounded)."""
    seen, todo = [], [pid]
    while todo and len(seen) < 256:
        p = todo.pop()
        if p not in seen:
            seen.append(p)
            todo += _children(p)
    return seen


def rss_mb(pids) -> float:
    """The resident memory of the processes ``pids`` together, in MB (0 for one that is gone); also used by
    bench/online_load.py."""
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        total += int(line.split()[1])
                        break
        except OSError:
            pass
    return total / 1024


def cpu_seconds(pids) -> float:
    """The CPU seconds (user + system) the processes ``pids`` have used together (0 for one that is gone);
    also used by bench/online_load.py."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def machine_busy_s() -> tuple[float, int]:
    """CPU seconds the whole machine has been busy (all cores), and its core count (/proc/stat)."""
    tick = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    v = [int(x) for x in lines[0].split()[1:]]
    idle = v[3] + (v[4] if len(v) > 4 else 0)
    cores = sum(1 for ln in lines if re.match(r"cpu\d", ln))
    return (sum(v[:8]) - idle) / tick, cores


def wait_quiet(limit_s: float, pids=(), window: float = 3.0, threshold: float = 0.15) -> float | None:
    """Wait (at most ``limit_s`` seconds) until processes other than ``pids`` and this one keep the
    machine busy under ``threshold`` of one core over ``window`` seconds; that share (None: never)."""
    end = time.monotonic() + limit_s
    share = None
    for _ in range(100_000):
        if time.monotonic() >= end:
            break
        b0, _ = machine_busy_s()
        own0 = cpu_seconds([os.getpid(), *pids])
        time.sleep(window)
        b1, _ = machine_busy_s()
        own1 = cpu_seconds([os.getpid(), *pids])
        share = max(0.0, (b1 - b0) - (own1 - own0)) / window
        if share < threshold:
            return share
    return None


def loadavg() -> str:
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


class MemorySampler(threading.Thread):
    """VmRSS of the server's process tree every ``interval`` seconds; ``peak`` since the last ``reset``."""

    def __init__(self, pid: int | None, interval: float = 0.2, limit_s: float = 24 * 3600):
        super().__init__(daemon=True)
        self.pid, self.interval, self.limit_s = pid, interval, limit_s
        self.stop_event = threading.Event()
        self.peak = 0.0
        self.last = 0.0
        self.lock = threading.Lock()

    def sample(self) -> float:
        if self.pid is None:
            return 0.0
        v = rss_mb(tree(self.pid))
        with self.lock:
            self.last = v
            self.peak = max(self.peak, v)
        return v

    def reset(self):
        with self.lock:
            self.peak = self.last

    def run(self):
        end = time.monotonic() + self.limit_s
        while not self.stop_event.is_set() and time.monotonic() < end:
            self.sample()
            self.stop_event.wait(self.interval)


# ----- the server -----------------------------------------------------------------------------------------
class ServerProcess:
    """``nardy serve`` on a free loopback port with a fresh SQLite database in ``folder``."""

    def __init__(self, folder: Path, extra: list[str], wal: bool = False):
        self.folder = folder
        self.wal = wal
        self.log_path = folder / "serve.log"
        self.db = f"sqlite:///{folder / 'bench.db'}"
        self.extra = extra
        self.proc = None
        self.url = None

    def start(self, timeout: float = 900):
        if self.wal:
            # journal_mode=WAL is kept in the database file: the server opens it so (an experiment: the
            # server itself does not set it)
            import sqlite3

            with contextlib.closing(sqlite3.connect(self.folder / "bench.db")) as c:
                c.execute("PRAGMA journal_mode=WAL").fetchall()
        log = open(self.log_path, "wb")
        cmd = [
            sys.executable,
            "-m",
            "nardy.cli",
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--database",
            self.db,
            *self.extra,
        ]
        self.proc = subprocess.Popen(
            cmd, cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, PYTHONUNBUFFERED="1")
        )
        log.close()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise SystemExit(f"nardy serve exited with {self.proc.returncode}:\n{self.log_tail()}")
            m = re.search(r"http://[^/\s]+:(\d+)/", self.log_path.read_text(errors="replace"))
            if m:
                url = f"http://127.0.0.1:{m.group(1)}"
                try:
                    if httpx.get(url + "/api/health", timeout=5).status_code == 200:
                        self.url = url
                        return self
                except httpx.HTTPError:
                    pass
            time.sleep(0.3)
        self.stop()
        raise SystemExit(f"nardy serve did not answer in {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def errors_in_log(self) -> list[str]:
        """Lines of the server's log that report an internal error or a traceback."""
        try:
            lines = self.log_path.read_text(errors="replace").splitlines()
        except OSError:
            return []
        return [ln for ln in lines if re.search(r"internal error|Traceback|Exception|Error:", ln)]

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


# ----- the prober (a process of its own) -----------------------------------------------------------------
def prober_main(url: str, gid: str, interval: float, stop, out_q, limit_s: float, cookies: dict):
    """GET the view of ``gid`` (as its owner: ``cookies``) and /api/health in turn every ``interval`` s until
    ``stop`` is set; put [(wall time, kind, seconds, status)] on ``out_q``."""
    rows = []
    end = time.monotonic() + limit_s
    with httpx.Client(base_url=url, timeout=30.0, cookies=cookies) as c:
        i = 0
        while not stop.is_set() and time.monotonic() < end and i < 10_000_000:
            kind = "view" if i % 2 == 0 else "health"
            path = f"/api/games/{gid}" if kind == "view" else "/api/health"
            t0 = time.perf_counter()
            wall = time.time()
            try:
                status = c.get(path).status_code
            except httpx.HTTPError as e:
                status = f"error:{type(e).__name__}"
            rows.append((wall, kind, time.perf_counter() - t0, status))
            i += 1
            time.sleep(max(0.0, interval - (time.perf_counter() - t0)))
    out_q.put(rows)


def probe_summary(rows, t0: float, t1: float) -> dict:
    sel = [r for r in rows if t0 <= r[0] < t1]
    ok = [r[2] for r in sel if r[3] == 200]
    bad = {}
    for r in sel:
        if r[3] != 200:
            bad[str(r[3])] = bad.get(str(r[3]), 0) + 1
    out = {"all": lat_summary(ok), "errors": bad}
    for kind in ("view", "health"):
        out[kind] = lat_summary([r[2] for r in sel if r[1] == kind and r[3] == 200])
    return out


# ----- the load -------------------------------------------------------------------------------------------
class Stats:
    def __init__(self):
        self.actions = []  # (seconds, action, answered_by_computer, game id)
        self.creates = []  # seconds
        self.views = []  # seconds (reloads after 409 and the like)
        self.status = {}  # status -> count (every request)
        self.bugs = []  # 5xx other than 503: (method, path, body, status, text)
        self.transport = {}  # exception name -> count
        self.games_created = 0
        self.games_finished = 0
        self.cut = 0  # requests under way at the deadline (dropped)

    def count(self, status):
        self.status[status] = self.status.get(status, 0) + 1


class Player:
    """One simulated person: a game against the computer, played as the page plays it."""

    def __init__(
        self, i: int, client: httpx.AsyncClient, stats: Stats, deadline: float, level: str, seed: int, think: float
    ):
        self.i = i
        self.client = client
        self.stats = stats
        self.deadline = deadline
        self.level = level
        self.rng = random.Random(seed * 100_003 + i)
        self.think = think
        self.requests = 0
        self.in_flight = False
        self.gid = None
        self.view = None
        # this person's log-in (the guest the server makes for their first game), sent as the page sends it
        self.cookie: str | None = None
        self.csrf: str | None = None

    def left(self) -> float:
        return self.deadline - time.monotonic()

    async def request(self, method: str, path: str, body=None):
        """One request, with 429/503 retried after Retry-After; None when time ran out."""
        while self.left() > 0 and self.requests < MAX_REQUESTS_PER_CLIENT:
            self.requests += 1
            t0 = time.perf_counter()
            self.in_flight = True
            try:
                headers = {}
                if self.cookie:
                    headers["Cookie"] = self.cookie
                if self.csrf and method != "GET":
                    headers["X-CSRF-Token"] = self.csrf
                r = await self.client.request(method, path, json=body, headers=headers, timeout=REQUEST_TIMEOUT)
            except httpx.HTTPError as e:
                name = type(e).__name__
                self.stats.transport[name] = self.stats.transport.get(name, 0) + 1
                await asyncio.sleep(min(1.0, max(0.0, self.left())))
                return None
            finally:
                self.in_flight = False
            dt = time.perf_counter() - t0
            if "nardy_session" in r.cookies:
                self.cookie = f"nardy_session={r.cookies['nardy_session']}; nardy_csrf={r.cookies['nardy_csrf']}"
                self.csrf = r.cookies["nardy_csrf"]
            self.stats.count(r.status_code)
            if r.status_code >= 500 and r.status_code != 503:
                self.stats.bugs.append((method, path, body, r.status_code, r.text[:500]))
            if r.status_code in (429, 503):
                await asyncio.sleep(min(retry_after(r), max(0.0, self.left())))
                continue
            return r, dt
        return None

    async def new_game(self) -> bool:
        body = {
            "game": GAMES[self.i % len(GAMES)],
            "opponent": "bot",
            "level": self.level,
            "colour": "white" if (self.i // len(GAMES)) % 2 == 0 else "black",
        }
        got = await self.request("POST", "/api/games", body)
        if got is None:
            return False
        r, dt = got
        if r.status_code != 201:
            return False
        self.stats.creates.append(dt)
        self.stats.games_created += 1
        self.view = r.json()
        self.gid = self.view["id"]
        return True

    async def reload(self) -> bool:
        got = await self.request("GET", f"/api/games/{self.gid}")
        if got is None or got[0].status_code != 200:
            return False
        self.stats.views.append(got[1])
        self.view = got[0].json()
        return True

    def choose(self) -> dict | None:
        v = self.view
        acts = v.get("actions", [])
        moves = v.get("moves") or {}
        rng = self.rng
        if "take" in acts:
            return {"action": "take" if rng.random() < 0.7 else "drop"}
        if "decline" in acts:
            return {"action": "decline"}
        if "roll" in acts:
            if "double" in acts and rng.random() < 0.03:
                return {"action": "double"}
            return {"action": "roll"}
        if moves:
            frm = rng.choice(sorted(moves, key=int))
            return {"action": "step", "from": int(frm), "to": rng.choice(moves[frm])}
        if "confirm" in acts:
            return {"action": "confirm"}
        if "next" in acts:
            return {"action": "next"}
        return None

    def computer_acted(self, new: dict, action: str) -> bool:
        """Whether the computer played, doubled, took... in the same request (its events in the history)."""
        bot = 1 - int(self.view.get("viewer", 0))
        old = self.view.get("history") or []
        events = (new.get("history") or []) if action == "next" else (new.get("history") or [])[len(old) :]
        return any(e.get("player") == bot and e.get("kind") != "opening" for e in events)

    async def run(self):
        for _ in range(20):
            if self.left() <= 0:
                return
            if await self.new_game():
                break
        else:
            return
        idle = 0
        while self.left() > 0 and self.requests < MAX_REQUESTS_PER_CLIENT:
            if self.view.get("status") == "over":  # a finished match (money sessions never are)
                if not await self.new_game():
                    await asyncio.sleep(min(0.5, max(0.0, self.left())))
                    continue
            body = self.choose()
            if body is None:
                # nothing for the person to do (should not happen: the computer answers at once)
                idle += 1
                await asyncio.sleep(min(0.2 * idle, 2.0, max(0.0, self.left())))
                await self.reload()
                continue
            idle = 0
            body["seq"] = self.view["seq"]
            got = await self.request("POST", f"/api/games/{self.gid}/actions", body)
            if got is None:
                continue
            r, dt = got
            if r.status_code == 200:
                new = r.json()
                self.stats.actions.append((dt, body["action"], self.computer_acted(new, body["action"]), self.gid))
                if body["action"] == "next":
                    self.stats.games_finished += 1
                self.view = new
            elif r.status_code == 404:
                await self.new_game()
            else:  # 409 (the page reloads), 400, others
                if not await self.reload():
                    await asyncio.sleep(min(0.5, max(0.0, self.left())))
            if self.think:
                await asyncio.sleep(min(self.think, max(0.0, self.left())))


async def loop_lag(stop: asyncio.Event, out: list, interval: float = 0.05):
    """How late the load generator's own event loop wakes up (its saturation)."""
    for _ in range(10_000_000):
        if stop.is_set():
            return
        t = time.perf_counter()
        await asyncio.sleep(interval)
        out.append(time.perf_counter() - t - interval)


async def run_load(url: str, n: int, seconds: float, level: str, seed: int, source: str, think: float) -> dict:
    stats = Stats()
    clients = []
    if source == "distinct":
        ssl_ctx = httpx.create_ssl_context()  # plain http: one context for all (building 300 takes seconds)
        for i in range(n):
            tr = httpx.AsyncHTTPTransport(
                local_address=source_address(i),
                verify=ssl_ctx,
                limits=httpx.Limits(max_connections=2, max_keepalive_connections=2),
            )
            clients.append(httpx.AsyncClient(base_url=url, transport=tr))
    else:
        shared = httpx.AsyncClient(
            base_url=url, limits=httpx.Limits(max_connections=n + 8, max_keepalive_connections=n + 8)
        )
        clients = [shared] * n
    deadline = time.monotonic() + seconds
    players = [Player(i, clients[i], stats, deadline, level, seed, think) for i in range(n)]
    lag: list = []
    stop = asyncio.Event()
    lag_task = asyncio.create_task(loop_lag(stop, lag))
    ru0 = resource.getrusage(resource.RUSAGE_SELF)
    t0 = time.time()
    tasks = [asyncio.create_task(p.run()) for p in players]
    # at the deadline every request still under way is dropped (the server sees the client go)
    await asyncio.wait(tasks, timeout=max(0.0, deadline - time.monotonic()))
    t1 = time.time()
    stats.cut = sum(1 for p in players if p.in_flight)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    stop.set()
    await lag_task
    ru1 = resource.getrusage(resource.RUSAGE_SELF)
    for c in {id(c): c for c in clients}.values():
        await c.aclose()
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return {"stats": stats, "t0": t0, "t1": t1, "client_cpu_s": cpu, "loop_lag": lag}


def wait_idle(url: str, limit_s: float = 90) -> dict:
    """Wait until the server has no computer work waiting or running; its last health answer."""
    end = time.monotonic() + limit_s
    last = {}
    while time.monotonic() < end:
        try:
            last = httpx.get(url + "/api/health", timeout=10).json()
            w = last.get("bot_work", {})
            if not w.get("waiting") and not w.get("running"):
                return last
        except (httpx.HTTPError, ValueError):
            pass
        time.sleep(0.5)
    return last


def check_sources(url: str) -> bool:
    try:
        tr = httpx.HTTPTransport(local_address=source_address(0))
        with httpx.Client(base_url=url, transport=tr, timeout=10) as c:
            return c.get("/api/health").status_code == 200
    except httpx.HTTPError:
        return False


# ----- main -----------------------------------------------------------------------------------------------
def main(argv=None):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--clients", default="20,100,300", help="client counts, run in turn (default 20,100,300)")
    ap.add_argument("--seconds", type=float, default=60.0, help="seconds of load per client count (default 60)")
    ap.add_argument("--level", default="grandmaster", help="the computer's level (default grandmaster)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the clients' choices")
    ap.add_argument("--think", type=float, default=0.0, help="seconds a person waits between actions (default 0)")
    ap.add_argument(
        "--source",
        choices=["distinct", "shared"],
        default="distinct",
        help="distinct: each client from its own 127.1.x.y address (default); shared: all from 127.0.0.1",
    )
    ap.add_argument("--baseline", type=float, default=5.0, help="seconds of probes with no load first (default 5)")
    ap.add_argument("--probe-interval", type=float, default=0.1, help="seconds between probes (default 0.1)")
    ap.add_argument("--url", help="a running server (http://127.0.0.1:PORT) instead of starting one")
    ap.add_argument("--server-pid", type=int, help="with --url: the server's process, for its memory and CPU")
    ap.add_argument("--bot-workers", type=int, help="nardy serve --bot-workers")
    ap.add_argument("--bot-queue", type=int, help="nardy serve --bot-queue")
    ap.add_argument("--no-warm-up", action="store_true", help="nardy serve --no-warm-up")
    ap.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="on a shared machine: before the reference and each client count, wait up to this long "
        "for other processes to go quiet (under 15%% of one core)",
    )
    ap.add_argument(
        "--retry-disturbed",
        type=int,
        default=0,
        metavar="N",
        help="on a shared machine: run a client count up to N more times while other processes took "
        "more than 15%% of a core during it; the least disturbed run is reported",
    )
    ap.add_argument(
        "--db-dir",
        help="where the temporary folder (SQLite database, server log) goes "
        "(default: the system's temp folder; /dev/shm: no disk syncs)",
    )
    ap.add_argument(
        "--sqlite-wal",
        action="store_true",
        help="experiment: create the database in SQLite's WAL journal mode before the server opens it",
    )
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (database, server log)")
    ap.add_argument("--json", dest="json_path", help="write the results to this file")
    args = ap.parse_args(argv)
    counts = [int(x) for x in args.clients.split(",") if x.strip()]
    if not counts or min(counts) < 1 or max(counts) > 5000:
        ap.error("--clients: counts between 1 and 5000")
    if args.url and not re.match(r"^http://(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?/?$", args.url):
        ap.error("--url: a loopback address only (http://127.0.0.1:PORT)")

    folder = Path(tempfile.mkdtemp(prefix="nardy-load-", dir=args.db_dir))
    server = None
    try:
        if args.url:
            url, pid = args.url.rstrip("/"), args.server_pid
        else:
            extra = []
            if args.bot_workers:
                extra += ["--bot-workers", str(args.bot_workers)]
            if args.bot_queue:
                extra += ["--bot-queue", str(args.bot_queue)]
            if args.no_warm_up:
                extra.append("--no-warm-up")
            print(f"starting nardy serve (database in {folder}) ...", flush=True)
            t = time.monotonic()
            server = ServerProcess(folder, extra, wal=args.sqlite_wal).start()
            url, pid = server.url, server.proc.pid
            print(f"  {url} pid {pid}, up in {time.monotonic() - t:.1f} s", flush=True)
        return run_all(args, counts, url, pid, server)
    finally:
        if server is not None:
            server.stop()
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def run_all(args, counts, url, pid, server) -> int:
    source = args.source
    if source == "distinct" and not check_sources(url):
        print("note: cannot send from 127.1.x.y addresses here; all clients share 127.0.0.1", flush=True)
        source = "shared"
    mem = MemorySampler(pid)
    mem.start()
    health0 = httpx.get(url + "/api/health", timeout=10).json()
    # the game the prober views (a saved game against the same computer)
    r = httpx.post(
        url + "/api/games", json={"game": "backgammon", "opponent": "bot", "level": args.level}, timeout=REQUEST_TIMEOUT
    )
    r.raise_for_status()
    probe_gid = r.json()["id"]
    probe_cookies = dict(r.cookies)  # the guest made for that game: the game is theirs alone
    ctx = mp.get_context("spawn")
    stop, out_q = ctx.Event(), ctx.Queue()
    attempts = 1 + max(0, args.retry_disturbed)
    total_s = (
        args.baseline
        + len(counts) * attempts * (args.seconds + REQUEST_TIMEOUT + 200 + args.wait_quiet)
        + args.wait_quiet
        + 120
    )
    prober = ctx.Process(
        target=prober_main, args=(url, probe_gid, args.probe_interval, stop, out_q, total_s, probe_cookies), daemon=True
    )
    prober.start()
    time.sleep(1.0)  # the prober's start-up is not part of the reference
    mem.sample()
    rss_idle = mem.last
    quiet(args, pid, prober)
    b0 = time.time()
    time.sleep(args.baseline)
    b1 = time.time()
    phases = []
    for n in counts:
        best = None
        for attempt in range(attempts):
            ph = run_phase(args, url, pid, prober, mem, n, source)
            others = ph["others_share"]
            if best is None or others < best["others_share"]:
                best = ph
            if others <= DISTURBED_SHARE:
                break
            if attempt + 1 < attempts:
                print(f"  other processes took {others * 100:.0f}% of a core: running {n} clients again", flush=True)
        best["attempts"] = attempt + 1
        phases.append(best)
    stop.set()
    rows = out_q.get(timeout=60)
    prober.join(10)
    mem.stop_event.set()

    baseline = probe_summary(rows, b0, b1)
    out = {
        "url_started": server is not None,
        "database": server.db if server else None,
        "sqlite_wal": bool(args.sqlite_wal),
        "bot_workers": args.bot_workers,
        "source": source,
        "level": args.level,
        "seconds": args.seconds,
        "think": args.think,
        "server": health0,
        "rss_idle_mb": rss_idle,
        "baseline": baseline,
        "phases": [],
    }
    print_report(args, source, baseline, rss_idle, phases, rows, out)
    if server is not None:
        errs = server.errors_in_log()
        out["server_log_errors"] = errs[:200]
        if errs:
            print(f"\n!!! the server's log has {len(errs)} error lines; the first:")
            for ln in errs[:15]:
                print("    " + ln)
    if args.json_path:
        Path(args.json_path).write_text(json.dumps(out, indent=1, default=str))
        print(f"\nresults: {args.json_path}")
    return 0


def run_phase(args, url, pid, prober, mem, n, source) -> dict:
    """One client count: the load, and what the server and the machine did meanwhile."""
    wait_idle(url)
    quiet(args, pid, prober)
    mem.reset()
    rss_before = mem.sample()
    before = httpx.get(url + "/api/health", timeout=10).json().get("bot_work", {})
    cpu0 = cpu_seconds(tree(pid)) if pid else None
    prober_cpu0 = cpu_seconds([prober.pid])
    busy0, cores = machine_busy_s()
    load0 = loadavg()
    print(f"\n{n} clients for {args.seconds:g} s (load average before: {load0}) ...", flush=True)
    res = asyncio.run(run_load(url, n, args.seconds, args.level, args.seed, source, args.think))
    cpu1 = cpu_seconds(tree(pid)) if pid else None
    busy1, _ = machine_busy_s()
    prober_cpu = cpu_seconds([prober.pid]) - prober_cpu0
    peak = mem.peak
    after = wait_idle(url).get("bot_work", {})
    mem.sample()
    dur = res["t1"] - res["t0"]
    server_cpu = None if cpu0 is None else cpu1 - cpu0
    others = (busy1 - busy0) - (server_cpu or 0) - res["client_cpu_s"] - prober_cpu
    print(
        f"  done: {len(res['stats'].actions)} actions; other processes {max(0.0, others) / dur * 100:.0f}% of a core",
        flush=True,
    )
    return {
        "clients": n,
        "res": res,
        "rss_before": rss_before,
        "rss_peak": peak,
        "rss_after": mem.last,
        "work_before": before,
        "work_after": after,
        "server_cpu_s": server_cpu,
        "machine_busy_s": busy1 - busy0,
        "cores": cores,
        "prober_cpu_s": prober_cpu,
        "load_before": load0,
        "load_after": loadavg(),
        "others_share": max(0.0, others) / dur,
    }


def quiet(args, pid, prober):
    if args.wait_quiet <= 0:
        return
    t = time.monotonic()
    share = wait_quiet(args.wait_quiet, ([*tree(pid)] if pid else []) + [prober.pid])
    if share is None:
        print(f"  (the machine did not go quiet in {args.wait_quiet:g} s: going on)", flush=True)
    elif time.monotonic() - t > 5:
        print(f"  (waited {time.monotonic() - t:.0f} s for other processes to go quiet)", flush=True)


def print_report(args, source, baseline, rss_idle, phases, rows, out):
    b = baseline["all"]
    print("\n" + "=" * 100)
    print(
        f"nardy serve under load: level {args.level}, {args.seconds:g} s per client count, clients from "
        f"{'distinct loopback addresses' if source == 'distinct' else 'one address'}, think {args.think:g} s"
        + (f", database in {args.db_dir}" if args.db_dir else "")
        + (", SQLite WAL" if args.sqlite_wal else "")
        + (f", {args.bot_workers} computer workers" if args.bot_workers else "")
    )
    print(
        f"reference (no load, {args.baseline:g} s, {b['n']} probes): cheap p50 {ms(b['p50'])}, p99 {ms(b['p99'])};"
        f" server RSS idle {rss_idle:.0f} MB"
    )
    print(
        f"targets: cheap p99 < {TARGET_CHEAP_P99 * 1000:.0f} ms under any load; server RSS < {TARGET_RSS_MB} MB "
        f"with {TARGET_RSS_CLIENTS} games"
    )
    for ph in phases:
        n, res = ph["clients"], ph["res"]
        st: Stats = res["stats"]
        dur = res["t1"] - res["t0"]
        acts = [a[0] for a in st.actions]
        own = [a[0] for a in st.actions if not a[2]]
        answered = [a[0] for a in st.actions if a[2]]
        probe = probe_summary(rows, res["t0"], res["t1"])
        p = probe["all"]
        ratio50 = (p["p50"] / b["p50"]) if (p["p50"] and b["p50"]) else None
        ratio99 = (p["p99"] / b["p99"]) if (p["p99"] and b["p99"]) else None
        s = st.status
        other4 = {k: v for k, v in s.items() if 400 <= k < 500 and k not in (409, 429)}
        other5 = {k: v for k, v in s.items() if k >= 500 and k != 503}
        wb, wa = ph["work_before"], ph["work_after"]
        work = {k: wa.get(k, 0) - wb.get(k, 0) for k in ("done", "refused", "expired", "cancelled")}
        lag = res["loop_lag"]
        cheap_ok = p["p99"] is not None and p["p99"] < TARGET_CHEAP_P99
        print("\n" + "-" * 100)
        print(
            f"{n} clients ({dur:.1f} s): {len(acts)} actions, {len(acts) / dur:.1f} actions/s; "
            f"{st.games_created} games created, {st.games_finished} finished"
        )
        print(
            f"  actions      p50 {ms(pct(acts, 50))}  p95 {ms(pct(acts, 95))}  p99 {ms(pct(acts, 99))}  "
            f"max {ms(max(acts) if acts else None)}"
        )
        print(f"    person only p50 {ms(pct(own, 50))}  p95 {ms(pct(own, 95))}  p99 {ms(pct(own, 99))}  ({len(own)})")
        print(
            f"    answered   p50 {ms(pct(answered, 50))}  p95 {ms(pct(answered, 95))}  p99 {ms(pct(answered, 99))}"
            f"  ({len(answered)}: the computer acted in the same request)"
        )
        print(
            f"  new games    p50 {ms(pct(st.creates, 50))}  p95 {ms(pct(st.creates, 95))}  "
            f"p99 {ms(pct(st.creates, 99))}"
        )
        print(
            f"  cheap probes p50 {ms(p['p50'])}  p95 {ms(p['p95'])}  p99 {ms(p['p99'])}  max {ms(p['max'])}  "
            f"({p['n']}; x{ratio50 or 0:.1f} / x{ratio99 or 0:.1f} the reference)   "
            f"[target p99 < {TARGET_CHEAP_P99 * 1000:.0f} ms: {'met' if cheap_ok else 'MISSED'}]"
        )
        print(
            f"    view       p50 {ms(probe['view']['p50'])}  p99 {ms(probe['view']['p99'])};  "
            f"health p50 {ms(probe['health']['p50'])}  p99 {ms(probe['health']['p99'])}"
            + (f";  probe errors {probe['errors']}" if probe["errors"] else "")
        )
        print(
            f"  answers      409: {s.get(409, 0)}  429: {s.get(429, 0)}  503: {s.get(503, 0)}  "
            f"other 4xx: {other4 or 0}  5xx (not 503): {sum(other5.values())}  "
            f"transport errors: {st.transport or 0}"
        )
        print(f"               requests under way at the end (dropped): {st.cut}")
        print(
            f"  computer     done {work['done']}, refused {work['refused']}, expired {work['expired']}, "
            f"cancelled {work['cancelled']} (server counters over the run)"
        )
        rss_line = (
            f"  server RSS   peak {ph['rss_peak']:.0f} MB (before {ph['rss_before']:.0f}, after {ph['rss_after']:.0f})"
        )
        if n >= TARGET_RSS_CLIENTS:
            rss_line += f"   [target < {TARGET_RSS_MB} MB: {'met' if ph['rss_peak'] < TARGET_RSS_MB else 'MISSED'}]"
        print(rss_line)
        if ph["server_cpu_s"] is not None:
            print(
                f"  server CPU   {ph['server_cpu_s'] / dur * 100:.0f}% of one core;  load generator CPU "
                f"{res['client_cpu_s'] / dur * 100:.0f}%, its loop lag p50 {ms(pct(lag, 50))} p99 {ms(pct(lag, 99))}"
            )
        others = ph["others_share"] * dur
        print(
            f"  machine      {ph['cores']} cores, busy {ph['machine_busy_s'] / dur * 100:.0f}% of one core in all; "
            f"other processes {ph['others_share'] * 100:.0f}% (load average {ph['load_before']} -> "
            f"{ph['load_after']})"
            + (f"; best of {ph['attempts']} runs" if ph.get("attempts", 1) > 1 else "")
            + ("   !!! other work on the machine: figures disturbed" if ph["others_share"] > DISTURBED_SHARE else "")
        )
        if other5:
            print(f"  !!! {sum(other5.values())} server errors (5xx other than 503): BUGS")
            for m, path, body, code, text in st.bugs[:20]:
                print(f"  !!!   {code} {m} {path} {json.dumps(body)} -> {text[:200]}")
        out["phases"].append(
            {
                "clients": n,
                "seconds": dur,
                "actions": len(acts),
                "actions_per_s": len(acts) / dur,
                "games_created": st.games_created,
                "games_finished": st.games_finished,
                "action_latency": lat_summary(acts),
                "own_step_latency": lat_summary(own),
                "answered_latency": lat_summary(answered),
                "create_latency": lat_summary(st.creates),
                "cheap": probe,
                "cheap_ratio_p50": ratio50,
                "cheap_ratio_p99": ratio99,
                "status_counts": {str(k): v for k, v in sorted(s.items())},
                "transport_errors": st.transport,
                "cut_at_end": st.cut,
                "server_errors": [
                    {"method": m, "path": pa, "body": bo, "status": c, "response": t}
                    for m, pa, bo, c, t in st.bugs[:200]
                ],
                "computer_work": work,
                "rss_peak_mb": ph["rss_peak"],
                "rss_before_mb": ph["rss_before"],
                "rss_after_mb": ph["rss_after"],
                "server_cpu_s": ph["server_cpu_s"],
                "client_cpu_s": res["client_cpu_s"],
                "client_loop_lag": lat_summary(lag),
                "machine_busy_s": ph["machine_busy_s"],
                "cores": ph["cores"],
                "other_processes_cpu_s": others,
                "load_average": [ph["load_before"], ph["load_after"]],
                "disturbed": ph["others_share"] > DISTURBED_SHARE,
                "attempts": ph.get("attempts", 1),
                "targets": {
                    "cheap_p99_s": TARGET_CHEAP_P99,
                    "cheap_p99_met": cheap_ok,
                    "rss_mb": TARGET_RSS_MB,
                    "rss_met": ph["rss_peak"] < TARGET_RSS_MB,
                },
            }
        )
    print("=" * 100)


if __name__ == "__main__":
    sys.exit(main())

"""Load on the online part of ``nardy serve``: many people playing each other live, over WebSockets, on one or
several server processes sharing one PostgreSQL.

Starts ``nardy serve --workers N`` in a subprocess (a free loopback port, a PostgreSQL schema of its own in
``--database``, dropped at the end), then simulated players for ``--seconds``. Each player has a loopback
address of its own (127.1.x.y: the server's per-address limits, registrations' among them, treat them as
different people) and its own cookies. By default (``--pairing quick``) each registers an account (``POST
/api/auth/register``; the server runs with ``--insecure-password-hashing`` so that hundreds of accounts are
made in seconds: a benchmark-only flag, off by default), opens the lobby's live channel (``WS
/api/lobby/live``) as the page does, and asks for quick pairing (``POST /api/lobby/quick``: long nardy to 1
point, ``--clock`` blitz, rated); the server pairs it with another waiting player and it learns its game from
the answer or, when it was the one waiting, from the lobby's channel (the page's way; after ``PAIR_POLL``
seconds of silence it asks ``GET /api/lobby/quick``, counted). With ``--pairing invite``, guests in fixed
pairs meet by invitation (one makes an online game, the other joins it: the first version of this
benchmark, to compare servers that lack the lobby). Both players open the game's live channel (``WS
/api/games/{id}/live``) and play the match to its end (some 90 actions: a random legal play on each roll
after ``--think`` seconds, 2 on average by default), sending their actions on that channel as the page does
(``{"type": "action", "id", "body"}``, answered ``{"type": "answer", ...}`` once stored; ``--actions http``:
by ``POST /api/games/{id}/actions``, the route kept for other clients and the first versions of this
benchmark): a rated match's result changes both ratings. Then they
seek another game. Only ``--games`` pairs play at once; the other players wait, connected to the lobby
(quick) or logged in (invite), for a game (players over 2 x games are the waiting room).

Measured, from the load generator's side:

* **games finished per second**, actions per second;
* **action latency**: from an action sent (its message, or its HTTP request) to the *opponent* having the new state over
  its WebSocket (p50/p95/p99/max) for the actions sent in the measured window (those sent while the first
  games were still being set up are counted apart, not timed), and the p99 of each tenth of the window (a tail
  at the start is a backlog, a steady one is the server's pace): the figure that says whether people feel they
  play live. The players'
  connections land on the server processes as the kernel hands them out (one listening socket), so with
  several processes most moves cross from one process to the other through PostgreSQL NOTIFY;
* **lost actions**: acknowledged (200) actions whose state never reached the opponent within
  ``LOST_AFTER`` seconds (the run's last few seconds are left out: still under way);
* **presence** (issue 43; always on: every game connection's player is a seat whose coming and going the
  server pushes to the game's channels): the presence messages received, and the time from a player closing
  its game channel to the opponent being told (p50/p99);
* **reconnects** (a live connection that closed by itself and was made again), errors by status;
* the **pairing audit**, from the server's database at the end: players seated at two or more unfinished games
  at once (paired twice: the other game's actions are lost to a player who is elsewhere; 0 is the target),
  and games a player left unfinished on an error (it seeks again, and the server's answer sends it back);
* the **server processes' RSS** (each worker, and the supervisor) and CPU seconds, the load generator's own
  CPU (when it is near a core, it is the bottleneck, not the server).

With ``--workers 1,2`` the runs are made one after the other and the work ratio printed (2 processes doing
about twice the work of 1 is the target; on a machine whose cores are shared or taken by the load generator
itself they cannot: the CPU figures say why). ``--kill-at S`` SIGKILLs one worker S seconds into each run
(uvicorn starts a new one): its players reconnect to the others, and no acknowledged action may be lost.

    python bench/online_load.py --players 100 --seconds 30                      # a small run
    python bench/online_load.py --players 1000 --games 500 --workers 2 --seconds 60   # the target run
    python bench/online_load.py --players 200 --workers 1,2 --seconds 30 --think 0.3  # scaling
    python bench/online_load.py --players 20 --seconds 60 --think 0                   # games to their end
    python bench/online_load.py --players 100 --workers 2 --seconds 30 --kill-at 10   # a worker dies

Targets (printed beside the figures, nothing asserted): 1,000 connected players and 500 games in progress
with the action-to-opponent p99 under 250 ms and no lost action. Only loopback addresses are used (the
database too); every loop is bounded in time and count; the server is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import random
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import chat_load  # noqa: E402  (chat under load: bench/chat_load.py)
from server_load import cpu_seconds, pct, rss_mb, source_address  # noqa: E402  (the same measures)

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = os.environ.get("NARDY_TEST_POSTGRES_URL", "postgresql://nardy:nardy@127.0.0.1:5432/nardy_test")

TARGET_P99 = 0.250  # s, action sent -> opponent notified
TARGET_PLAYERS = 1000
TARGET_GAMES = 500
#: An acknowledged action whose state has not reached the opponent after this many seconds is lost.
LOST_AFTER = 10.0
#: Bounds besides the deadline.
MAX_ACTIONS_PER_GAME = 2000
#: Seconds the first games may take to be set up before the measured window opens anyway.
SETUP_LIMIT = 120.0
REQUEST_TIMEOUT = 30.0
#: Seconds a player waiting to be paired trusts the lobby's channel before asking (GET /api/lobby/quick).
PAIR_POLL = 10.0
#: The players' password (accounts of a schema made for the run and dropped after it).
PASSWORD = "bench-password-not-secret"


def children(pid: int) -> list[int]:
    out = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    return out


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def workers_of(pid: int) -> list[int]:
    """The worker processes of ``nardy serve`` ``pid`` (itself when it has none: one process)."""
    ws = [c for c in children(pid) if "multiprocessing" in cmdline(c) and "resource_tracker" not in cmdline(c)]
    return ws or [pid]


# ----- the database and the server -------------------------------------------------------------------------
def check_loopback(url: str) -> None:
    host = urlsplit(url).hostname
    if host not in (None, "", "127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"--database {host}: this benchmark uses loopback addresses only")


class Schema:
    """A schema of its own in the PostgreSQL database ``url`` (``search_path``), dropped on :meth:`drop`."""

    def __init__(self, url: str, prefix: str = "nardy_bench"):
        import sqlalchemy as sa

        from nardy.web.store.storage import normalise_url

        self.name = f"{prefix}_{secrets.token_hex(4)}"
        self.engine = sa.create_engine(normalise_url(url))
        with self.engine.begin() as c:
            c.execute(sa.text(f"CREATE SCHEMA {self.name}"))
        sep = "&" if "?" in url else "?"
        self.url = f"{url}{sep}options={quote(f'-csearch_path={self.name}')}"

    def audit(self) -> dict:
        """What the server's database says at the end of a run: the players seated at two or more unfinished
        games at once (a player paired twice), the games they are in, and games with one player in both seats."""
        import sqlalchemy as sa

        live = "status IN ('waiting', 'playing', 'game-over') AND seat0 IS NOT NULL AND seat1 IS NOT NULL"
        with self.engine.connect() as c:
            rows = c.execute(sa.text(f"SELECT id, seat0, seat1 FROM {self.name}.nardy_games WHERE {live}")).all()
        games_of: dict[str, set[str]] = {}
        for r in rows:
            if r.seat0 != r.seat1:
                games_of.setdefault(r.seat0, set()).add(r.id)
                games_of.setdefault(r.seat1, set()).add(r.id)
        twice = {u: g for u, g in games_of.items() if len(g) > 1}
        return {
            "unfinished_games_at_end": len(rows),
            "players_in_two_games": len(twice),
            "games_of_players_in_two": len(set().union(*twice.values())) if twice else 0,
            "games_with_one_player": sum(1 for r in rows if r.seat0 == r.seat1),
        }

    def drop(self):
        import sqlalchemy as sa

        with self.engine.begin() as c:
            c.execute(sa.text(f"DROP SCHEMA {self.name} CASCADE"))
        self.engine.dispose()


class ServerProc:
    """``nardy serve --workers N`` on a free loopback port."""

    def __init__(self, database: str, workers: int, log_dir: Path, cheap_passwords: bool = False):
        import socket

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = open(log_dir / f"serve-{self.port}.log", "ab")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "nardy.cli", "serve", "--port", str(self.port), "--database", database]
            + ["--workers", str(workers), "--no-warm-up"]
            # the players' accounts are made in seconds, not the minutes argon2's real cost would take
            + (["--insecure-password-hashing"] if cheap_passwords else []),
            cwd=str(ROOT),
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONUNBUFFERED="1"),
        )
        self.workers = workers

    def wait_ready(self, timeout: float = 300) -> None:
        end = time.time() + timeout
        while time.time() < end:
            if self.proc.poll() is not None:
                raise SystemExit(f"nardy serve exited with {self.proc.returncode}; log {self.log.name}")
            try:
                if httpx.get(self.url + "/api/health", timeout=2).status_code == 200 and (
                    len(workers_of(self.proc.pid)) >= self.workers or self.workers == 1
                ):
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        raise SystemExit(f"nardy serve did not answer in {timeout} s; log {self.log.name}")

    def pids(self) -> list[int]:
        return workers_of(self.proc.pid)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


# ----- the players -------------------------------------------------------------------------------------------
@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    sent_at: list[float] = field(default_factory=list)  # each latency's action: seconds into the window
    before_window: int = 0  # actions sent before the window opened, seen in it (not timed)
    actions: int = 0
    games_finished: int = 0
    games_started: int = 0
    reconnects: int = 0
    lost: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    in_progress: int = 0
    in_progress_peak: int = 0
    connected: int = 0
    connected_peak: int = 0
    lobby_connected: int = 0
    lobby_connected_peak: int = 0
    lobby_messages: int = 0
    pair_polls: int = 0
    on_connect: int = 0  # actions whose state the opponent got on opening the game's channel (not timed)
    left_unfinished: int = 0  # games a player left on an error, unfinished (it seeks, and goes back to them)
    presence_messages: int = 0  # seats' comings and goings pushed on the games' channels (issue 43)
    presence_lat: list[float] = field(default_factory=list)  # a channel closed -> the opponent told so

    def reset(self) -> None:
        """Start the measured window: the counts of what was done before it are dropped (not the gauges)."""
        self.latencies.clear()
        self.sent_at.clear()
        self.before_window = 0
        self.actions = self.games_finished = self.games_started = self.reconnects = 0
        self.lobby_messages = self.pair_polls = self.on_connect = self.left_unfinished = 0
        self.presence_messages = 0
        self.presence_lat.clear()
        self.errors.clear()
        self.connected_peak, self.in_progress_peak = self.connected, self.in_progress
        self.lobby_connected_peak = self.lobby_connected

    def error(self, what) -> None:
        self.errors[str(what)] = self.errors.get(str(what), 0) + 1


class Player:
    def __init__(self, i: int, base: str, run: Run):
        self.i = i
        self.run = run
        self.name = f"p{i}"
        self.addr = source_address(i)
        self.client = httpx.AsyncClient(
            base_url=base,
            transport=httpx.AsyncHTTPTransport(local_address=self.addr, retries=0),
            timeout=run.args.request_timeout,
            # idle connections are dropped before the server's keep-alive (5 s) would close them under a request
            limits=httpx.Limits(max_connections=2, max_keepalive_connections=1, keepalive_expiry=3.0),
        )
        self.ws_base = base.replace("http://", "ws://")
        self.view: dict | None = None
        self.changed = asyncio.Event()
        self.side: int | None = None
        self.gid: str | None = None
        self.ws = None
        self.reader: asyncio.Task | None = None
        self.closing = False
        self.counted = False
        self.lobby_ws = None
        self.lobby_reader: asyncio.Task | None = None
        self.paired: str | None = None
        self.paired_event = asyncio.Event()
        self.played: set[str] = set()
        self.answers: dict[int, asyncio.Future] = {}  # actions sent on the game's live channel, by id
        self.next_id = 0

    async def request(self, method: str, path: str, body=None) -> tuple[int, dict | None]:
        headers = {}
        csrf = self.client.cookies.get("nardy_csrf")
        if csrf and method != "GET":
            headers["X-CSRF-Token"] = csrf
        for _ in range(20):  # 429/503 are waited out (Retry-After), a bounded number of times
            try:
                r = await self.client.request(method, path, json=body, headers=headers)
            except httpx.HTTPError as e:
                self.run.fig.error(type(e).__name__)
                self.run.sent_again(method, path, type(e).__name__)
                await asyncio.sleep(0.2)
                continue
            if r.status_code in (429, 503):
                self.run.fig.error(r.status_code)
                self.run.sent_again(method, path, str(r.status_code))
                await asyncio.sleep(min(5.0, float(r.headers.get("retry-after", "1"))))
                continue
            try:
                return r.status_code, r.json()
            except ValueError:
                return r.status_code, None
        return 0, None

    async def login(self) -> None:
        """A guest (invitation pairing), or an account (lobby pairing: rated games need one on both sides)."""
        if self.run.args.pairing == "invite":
            status, out = await self.request("POST", "/api/auth/guest", {"name": self.name})
            if status != 200:
                raise RuntimeError(f"guest {self.name}: {status} {out}")
            return
        status, out = await self.request("POST", "/api/auth/register", {"name": self.name, "password": PASSWORD})
        if status != 201:
            raise RuntimeError(f"account {self.name}: {status} {out}")

    # the lobby's live channel (WS /api/lobby/live), as the page opens it while its player waits to be paired
    async def _open_ws(self, path: str, max_size: int):
        """A WebSocket to ``path`` with this player's cookies, from its own loopback address."""
        from websockets.asyncio.client import connect

        cookies = "; ".join(f"{k}={v}" for k, v in self.client.cookies.items())
        return await connect(
            f"{self.ws_base}{path}",
            additional_headers={"Cookie": cookies},
            local_addr=(self.addr, 0),
            open_timeout=REQUEST_TIMEOUT,
            max_size=max_size,
        )

    async def open_lobby(self) -> None:
        self.lobby_ws = await self._open_ws("/api/lobby/live", 2**22)
        self.run.fig.lobby_connected += 1
        self.run.fig.lobby_connected_peak = max(self.run.fig.lobby_connected_peak, self.run.fig.lobby_connected)
        self.run.fig.connected += 1
        self.run.fig.connected_peak = max(self.run.fig.connected_peak, self.run.fig.connected)
        self.lobby_reader = asyncio.get_running_loop().create_task(self._read_lobby(self.lobby_ws))

    async def _read_lobby(self, ws) -> None:
        with contextlib.suppress(Exception):
            async for msg in ws:
                if not (isinstance(msg, str) and msg.startswith("{")):
                    continue
                m = json.loads(msg)
                if m.get("type") not in ("lobby", "lobby-delta"):
                    continue
                self.run.fig.lobby_messages += 1
                lobby = m["lobby"] if m["type"] == "lobby" else m  # a delta: seek/taken when they changed
                # the page opens the game of a seek paired (or a challenge taken) while it waited
                for c in (lobby.get("seek"), lobby.get("taken")):
                    if c and c.get("status") == "accepted" and c.get("game_id") and c["game_id"] not in self.played:
                        self.paired = c["game_id"]
                        self.paired_event.set()

    async def close_lobby(self) -> None:
        if self.lobby_ws is not None:
            with contextlib.suppress(Exception):
                await self.lobby_ws.close()
            self.run.fig.lobby_connected -= 1
            self.run.fig.connected -= 1
        if self.lobby_reader is not None:
            self.lobby_reader.cancel()
            with contextlib.suppress(BaseException):
                await self.lobby_reader
        self.lobby_ws = self.lobby_reader = None

    async def find_game(self) -> str | None:
        """Quick pairing through the lobby, as the page does it: the lobby's channel open, ``POST
        /api/lobby/quick`` (paired at once with a player waiting on the same terms, or waiting), then the game
        named by the answer or by the lobby's channel when someone takes the seek. ``None``: the run ended."""
        self.paired = None
        self.paired_event.clear()
        await self.open_lobby()
        try:
            a = self.run.args
            terms = {"game": a.game, "length": 1, "clock": a.clock, "rated": a.rated}
            status, out = await self.request("POST", "/api/lobby/quick", terms)
            if status != 200:
                self.run.fig.error(f"quick {status}")
                await asyncio.sleep(1)
                return None
            if out["status"] == "paired" and out["game"] not in self.played:
                return out["game"]
            asked = time.monotonic()
            while not self.run.stopping and time.monotonic() < self.run.deadline:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.paired_event.wait(), 1.0)
                if self.paired is not None:
                    return self.paired
                if time.monotonic() - asked > PAIR_POLL:  # the channel said nothing for long: ask (as on a reload)
                    asked = time.monotonic()
                    self.run.fig.pair_polls += 1
                    status, out = await self.request("GET", "/api/lobby/quick")
                    if status == 200 and out["status"] == "paired" and out["game"] not in self.played:
                        return out["game"]
                    if status == 200 and out["status"] == "none":
                        status, out = await self.request("POST", "/api/lobby/quick", terms)
            return None
        finally:
            await self.close_lobby()

    async def seek_and_play(self, rng: random.Random) -> None:
        """Be paired through the lobby, play the game to its end, again, until the run ends."""
        while not self.run.stopping and time.monotonic() < self.run.deadline:
            gid = await self.find_game()
            if gid is None:
                continue
            self.run.started_game(gid)
            self.side = None
            try:
                await self.open_live(gid)
                if await self.play(rng):
                    self.run.finished_game(gid)
            except Exception as e:
                self.run.fig.error(type(e).__name__)
                self.run.fig.left_unfinished += 1
                await asyncio.sleep(0.5)
            finally:
                # a game left unfinished (an error here) is not done with: the server's next answer to quick
                # pairing names it again, and the player goes back to it, as a page reloaded does
                if self.view is not None and self.view["status"] in ("over", "cancelled", "declined"):
                    self.played.add(gid)
                self.run.left_game(gid)
                await self.close_live()

    async def wait_in_lobby(self) -> None:
        """A player of the waiting room: connected to the lobby (its messages), playing nothing."""
        await self.open_lobby()
        try:
            while not self.run.stopping:
                await asyncio.sleep(1.0)
        finally:
            await self.close_lobby()

    # the live channel
    async def connect(self, gid: str) -> None:
        self.ws = await self._open_ws(f"/api/games/{gid}/live", 2**20)

    async def open_live(self, gid: str) -> None:
        self.gid, self.closing, self.view = gid, False, None
        self.changed.clear()
        await self.connect(gid)
        self.counted = True
        self.run.fig.connected += 1
        self.run.fig.connected_peak = max(self.run.fig.connected_peak, self.run.fig.connected)
        self.reader = asyncio.get_running_loop().create_task(self._read())

    def heard_presence(self, m: dict, t: float) -> None:
        """A seat came or went (the server's push, issue 43): the time from the opponent's channel closing."""
        self.run.fig.presence_messages += 1
        if self.side is not None and not m["presence"][1 - self.side]:
            closed = self.run.closed_at.pop((m.get("id"), 1 - self.side), None)
            if closed is not None:
                self.run.fig.presence_lat.append(t - closed)

    async def close_live(self) -> None:
        self.closing = True
        if self.gid is not None and self.side is not None and self.ws is not None:
            self.run.closed_at[(self.gid, self.side)] = time.monotonic()
            if len(self.run.closed_at) > 100_000:
                self.run.closed_at.clear()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(BaseException):
                await self.reader
        self.ws = self.reader = None
        if self.counted:
            self.counted = False
            self.run.fig.connected -= 1

    async def _read(self) -> None:
        while not self.closing:
            try:
                async for msg in self.ws:
                    if isinstance(msg, str) and msg.startswith("{"):
                        m = json.loads(msg)
                        if m.get("type") == "chat":
                            chat_load.got(self, m.get("message"), time.monotonic())
                        elif m.get("type") == "answer":
                            fut = self.answers.get(m.get("id"))
                            if fut is not None and not fut.done():
                                fut.set_result(m)
                        elif m.get("type") == "presence":
                            self.heard_presence(m, time.monotonic())
                        else:
                            self.got(m["view"], time.monotonic())
            except asyncio.CancelledError:
                raise
            except Exception:
                pass
            if self.closing or self.run.stopping:
                return
            # closed by itself: make it again (a worker may have died); the first view is the current state
            self.run.fig.reconnects += 1
            for pause in (0.05, 0.2, 0.5, 1, 2, 2, 2, 2, 2, 2):
                try:
                    await self.connect(self.gid)
                    break
                except Exception:
                    await asyncio.sleep(pause)
            else:
                self.run.fig.error("reconnect_failed")
                return

    def got(self, view: dict, t: float) -> None:
        if self.view is not None and view["seq"] <= self.view["seq"]:
            return
        first = self.view is None
        self.view = view
        if self.side is None and view.get("you"):
            self.side = view["you"][0]  # paired in the lobby: the side is the one the server gave
        if self.side is not None:
            # the first view of a game's channel brings what the opponent did before this player came (a
            # player paired in the lobby may come a moment after the other has moved): delivered, not timed
            self.run.seen(self.gid, 1 - self.side, view["seq"], t, timed=not first)
        self.changed.set()

    async def play(self, rng: random.Random) -> bool:
        """Play the current game to its end; True when it ended (False: the run stopped first)."""
        from nardy.rules.position import Position

        acted = -1
        for _ in range(MAX_ACTIONS_PER_GAME):
            while not self.run.stopping and (self.view is None or self._idle(acted)):
                self.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), 1.0)
            if self.run.stopping:
                return False
            v = self.view
            if v["status"] in ("over", "cancelled", "declined"):
                return v["status"] == "over"
            if self.run.think:
                await asyncio.sleep(rng.uniform(0.5, 1.5) * self.run.think)
            if v["phase"] == "move":
                plays = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))
                body = {"action": "play", "play": str(rng.choice(plays)), "seq": v["seq"]} if plays else None
                body = body or {"action": "confirm", "seq": v["seq"]}
            else:
                action = next((a for a in ("roll", "take", "accept", "confirm") if a in v["actions"]), None)
                if action is None:
                    acted = v["seq"]
                    continue
                body = {"action": action, "seq": v["seq"]}
            acted = v["seq"]
            sent = self.run.sent(self.gid, self.side, v["seq"])
            if self.run.args.actions == "socket":
                status, out = await self.act_on_socket(body)
            else:
                status, out = await self.request("POST", f"/api/games/{self.gid}/actions", body)
            if status == 200:
                self.run.fig.actions += 1
                self.run.acked(self.gid, sent, out["seq"])
                self.got(out, time.monotonic())
            else:
                self.run.unsent(self.gid, sent)
                self.run.fig.error(status)
                if status in (409, 403, 0):  # stale or not ours any more: read the state again
                    s2, fresh = await self.request("GET", f"/api/games/{self.gid}")
                    if s2 == 200:
                        self.view = None
                        self.got(fresh, time.monotonic())
        return False

    async def act_on_socket(self, body: dict) -> tuple[int, dict | None]:
        """Send an action on the game's live channel (``{"type": "action", "id", "body"}``) and wait for its
        answer there: (status, view or error body) as the HTTP route would answer; (0, None) when the
        connection failed or no answer came within the request timeout (the state is read again)."""
        rid = self.next_id = self.next_id + 1
        fut = asyncio.get_running_loop().create_future()
        self.answers[rid] = fut
        try:
            await self.ws.send(json.dumps({"type": "action", "id": rid, "body": body}))
            m = await asyncio.wait_for(fut, self.run.args.request_timeout)
        except Exception as e:
            self.run.fig.error(f"socket {type(e).__name__}")
            return 0, None
        finally:
            self.answers.pop(rid, None)
        return m["status"], m.get("view") if m["status"] == 200 else m.get("error")

    def _idle(self, acted: int) -> bool:
        v = self.view
        if v["status"] in ("over", "cancelled", "declined"):
            return False
        return v["to_act"] != self.side or v["seq"] <= acted or not (v["actions"] or v["phase"] == "move")


class Run:
    def __init__(self, args, base: str):
        self.args = args
        self.base = base
        self.fig = Figures()
        self.pending: dict[str, list[list]] = {}
        self.stopping = False
        self.think = args.think
        self.started = time.monotonic()
        self.deadline = self.started + args.seconds
        self.live: dict[str, int] = {}
        self.finished: set[str] = set()
        self.retried: dict[str, int] = {}  # requests sent again, the whole run (not reset with the window)
        self.closed_at: dict[tuple[str, int], float] = {}  # a seat's game channel closed by its player, when

    def sent_again(self, method: str, path: str, why: str) -> None:
        """A request sent again (after ``why``: a transport error or timeout, 429, 503), counted over the whole
        run, set-up included: a repeated POST the server had done already must be answered the same."""
        what = "POST /api/lobby/quick" if path == "/api/lobby/quick" and method == "POST" else "other"
        key = f"{what} after {why}"
        self.retried[key] = self.retried.get(key, 0) + 1

    # latency: an action sent by ``side`` on state ``seq`` is seen by the opponent at the first later state
    def sent(self, gid: str, side: int, seq: int) -> list:
        entry = [time.monotonic(), seq, side, None]
        self.pending.setdefault(gid, []).append(entry)
        return entry

    def acked(self, gid: str, entry: list, seq_after: int) -> None:
        entry[3] = (time.monotonic(), seq_after)

    def unsent(self, gid: str, entry: list) -> None:
        lst = self.pending.get(gid, [])
        if entry in lst:
            lst.remove(entry)

    def seen(self, gid: str, sender: int, seq: int, t: float, timed: bool = True) -> None:
        lst = self.pending.get(gid)
        if not lst:
            return
        keep = []
        for e in lst:
            if e[2] == sender and seq > e[1]:
                if timed and e[0] < self.started:
                    # sent before the measured window opened (while games were still being set up): its wait
                    # belongs to the set-up, not to play
                    self.fig.before_window += 1
                elif timed:
                    self.fig.latencies.append(t - e[0])
                    self.fig.sent_at.append(e[0] - self.started)
                else:
                    self.fig.on_connect += 1
            else:
                keep.append(e)
        self.pending[gid] = keep

    def count_lost(self, now: float) -> int:
        lost = 0
        for lst in self.pending.values():
            for e in lst:
                if e[3] is not None and now - e[3][0] > LOST_AFTER:
                    lost += 1
        return lost

    # games paired in the lobby: each player reports what it saw (a game counts once)
    def started_game(self, gid: str) -> None:
        if gid not in self.live:
            self.live[gid] = 0
            self.fig.games_started += 1
        self.live[gid] += 1
        self.fig.in_progress = len(self.live)
        self.fig.in_progress_peak = max(self.fig.in_progress_peak, self.fig.in_progress)

    def finished_game(self, gid: str) -> None:
        if gid not in self.finished:
            self.finished.add(gid)
            self.fig.games_finished += 1

    def left_game(self, gid: str) -> None:
        self.live[gid] = self.live.get(gid, 1) - 1
        if self.live[gid] <= 0:
            del self.live[gid]
        self.fig.in_progress = len(self.live)

    async def pair(self, a: Player, b: Player, seed: int) -> None:
        rng = random.Random(seed)
        owner, guest = a, b
        while not self.stopping and time.monotonic() < self.deadline:
            status, g = await owner.request(
                "POST",
                "/api/games",
                {"game": self.args.game, "opponent": "online", "length": 1},
            )
            if status != 201:
                self.fig.error(f"create {status}")
                await asyncio.sleep(1)
                continue
            gid = g["id"]
            owner.side, guest.side = 0, 1
            status, _ = await guest.request("POST", f"/api/games/{gid}/join", {"invite": g["invite"]})
            if status != 200:
                self.fig.error(f"join {status}")
                await asyncio.sleep(1)
                continue
            self.fig.games_started += 1
            self.fig.in_progress += 1
            self.fig.in_progress_peak = max(self.fig.in_progress_peak, self.fig.in_progress)
            try:
                await owner.open_live(gid)
                await guest.open_live(gid)
                done = await asyncio.gather(owner.play(rng), guest.play(rng))
                if all(done):
                    self.fig.games_finished += 1
            except Exception as e:
                self.fig.error(type(e).__name__)
                await asyncio.sleep(0.5)
            finally:
                self.fig.in_progress -= 1
                await owner.close_live()
                await guest.close_live()
            owner, guest = guest, owner  # the other makes the next invitation


# ----- one run -----------------------------------------------------------------------------------------------
async def drive(args, server: ServerProc) -> dict:
    from nardy.rules.position import Position

    # the engine's kernels are loaded (numba) before any player waits on them
    Position.start(args.game).legal_plays((3, 1))
    run = Run(args, server.url)
    players = [Player(i, server.url, run) for i in range(args.players)]
    t0 = time.monotonic()
    sem = asyncio.Semaphore(50)

    async def login(p):
        async with sem:
            await p.login()

    await asyncio.gather(*(login(p) for p in players))
    login_s = time.monotonic() - t0
    # every pair starts its first game (invitation, join, both live channels); the measured window opens once
    # all have (or after SETUP_LIMIT seconds), so that setting up does not count as play
    games = min(args.games, args.players // 2)
    waiting = players[2 * games :]
    pairs = [(players[2 * k], players[2 * k + 1]) for k in range(games)]
    run.deadline = time.monotonic() + SETUP_LIMIT + args.seconds
    t1 = time.monotonic()
    tasks = []
    loop = asyncio.get_running_loop()
    for k, (a, b) in enumerate(pairs):
        if args.pairing == "invite":
            tasks.append(loop.create_task(run.pair(a, b, args.seed * 100003 + k)))
        else:  # each player seeks a game in the lobby by itself: the server pairs them
            for j, p in enumerate((a, b)):
                tasks.append(loop.create_task(p.seek_and_play(random.Random(args.seed * 100003 + 2 * k + j))))
        if k % 20 == 19:
            await asyncio.sleep(0.05)  # a gentle ramp
    if args.pairing != "invite":
        tasks += [loop.create_task(p.wait_in_lobby()) for p in waiting]
    while run.fig.games_started < games and time.monotonic() - t1 < SETUP_LIMIT:
        await asyncio.sleep(0.2)
    setup_s = time.monotonic() - t1
    # the load generator is one process standing for 1,000 browsers: its own full garbage collections (all the
    # players' objects walked at once) would stall its loop and be timed as the server's latency; they are
    # tuned as the server tunes its own (nardy.web.app.settle_gc)
    gc.collect()
    gc.freeze()
    gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], 50)
    run.fig.reset()
    run.started = time.monotonic()
    run.deadline = run.started + args.seconds
    tasks += chat_load.start(run, players, args)
    pids = server.pids()
    cpu0 = {p: cpu_seconds([p]) for p in pids}
    me0 = resource.getrusage(resource.RUSAGE_SELF)
    rss_peak = dict.fromkeys(pids, 0.0)
    cpu_last = dict(cpu0)  # a worker killed meanwhile keeps its last figure
    killed = None
    lag_max = 0.0
    while time.monotonic() < run.deadline:
        t = time.monotonic()
        await asyncio.sleep(0.5)
        lag_max = max(lag_max, time.monotonic() - t - 0.5)
        for p in server.pids():
            rss_peak[p] = max(rss_peak.get(p, 0.0), rss_mb([p]))
            cpu_last[p] = cpu_seconds([p])
        if args.kill_at is not None and killed is None and time.monotonic() - run.started >= args.kill_at:
            victims = [p for p in server.pids() if p != server.proc.pid]
            if victims:
                killed = victims[0]
                os.kill(killed, signal.SIGKILL)
    elapsed = time.monotonic() - run.started
    run.stopping = True
    cpu1 = {**cpu_last, **{p: cpu_seconds([p]) for p in server.pids()}}
    me1 = resource.getrusage(resource.RUSAGE_SELF)
    now = time.monotonic()
    await asyncio.sleep(0)  # let the last pushes in
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    lost = run.count_lost(now)
    for p in players:
        with contextlib.suppress(Exception):
            await p.client.aclose()
    f = run.fig
    lat = f.latencies
    server_cpu = {p: cpu1.get(p, 0) - cpu0.get(p, 0) for p in set(cpu0) | set(cpu1)}
    return {
        "workers": args.workers_now,
        "players": args.players,
        "games_at_once": games,
        "waiting_players": len(waiting),
        "seconds": round(elapsed, 1),
        "login_s": round(login_s, 1),
        "setup_s": round(setup_s, 1),
        "games_started": f.games_started,
        "games_finished": f.games_finished,
        "games_per_s": round(f.games_finished / elapsed, 3),
        "actions": f.actions,
        "actions_per_s": round(f.actions / elapsed, 1),
        "latency_ms": {
            k: (round(1000 * v, 1) if v is not None else None)
            for k, v in (
                ("p50", pct(lat, 50)),
                ("p95", pct(lat, 95)),
                ("p99", pct(lat, 99)),
                ("max", max(lat) if lat else None),
            )
        },
        "latency_samples": len(lat),
        "presence_messages": f.presence_messages,
        "presence_ms": {
            k: (round(1000 * v, 1) if v is not None else None)
            for k, v in (("p50", pct(f.presence_lat, 50)), ("p99", pct(f.presence_lat, 99)))
        },
        "presence_samples": len(f.presence_lat),
        "latency_p99_ms_by_window_tenth": windows(lat, f.sent_at, elapsed),
        "sent_before_window": f.before_window,
        "connected_peak": f.connected_peak,
        "lobby_connected_peak": f.lobby_connected_peak,
        "lobby_messages": f.lobby_messages,
        "pair_polls": f.pair_polls,
        "delivered_on_connect": f.on_connect,
        "left_unfinished": f.left_unfinished,
        "sent_again": dict(sorted(run.retried.items())),
        "pairing": args.pairing,
        "actions_by": args.actions,
        "in_progress_peak": f.in_progress_peak,
        "reconnects": f.reconnects,
        "lost_actions": lost,
        "errors": f.errors,
        "killed_worker": killed,
        "server_rss_mb_peak": {str(p): round(v, 1) for p, v in rss_peak.items() if v},
        "server_cpu_s": {str(p): round(v, 1) for p, v in server_cpu.items()},
        "server_cpu_share": round(sum(server_cpu.values()) / elapsed, 2),
        "server_cpu_ms_per_action": round(1000 * sum(server_cpu.values()) / f.actions, 1) if f.actions else None,
        "loadgen_cpu_share": round(
            (me1.ru_utime + me1.ru_stime - me0.ru_utime - me0.ru_stime) / elapsed,
            2,
        ),
        "loadgen_loop_lag_max_ms": round(1000 * lag_max, 1),
        "loadavg": open("/proc/loadavg").read().split()[:3],
        "chat": chat_load.figures(run),
    }


def windows(lat: list[float], at: list[float], elapsed: float, parts: int = 10) -> list[float | None]:
    """The p99 latency (ms) of the actions sent in each tenth of the window: whether a tail is the run's start
    (a backlog) or steady."""
    out: list[float | None] = []
    for k in range(parts):
        lo, hi = k * elapsed / parts, (k + 1) * elapsed / parts
        part = [x for x, t in zip(lat, at) if lo <= t < hi]
        v = pct(part, 99)
        out.append(round(1000 * v, 1) if v is not None else None)
    return out


def raise_file_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, needed)) if hard != resource.RLIM_INFINITY else max(soft, needed)
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    if want < needed:
        print(f"warning: open-file limit {want} < {needed} wanted (raise the hard limit: ulimit -Hn)", file=sys.stderr)


def show(r: dict) -> None:
    lat = r["latency_ms"]
    ok = lat["p99"] is not None and lat["p99"] < 1000 * TARGET_P99
    print(
        f"\n== {r['workers']} worker(s), {r['players']} players, {r['games_at_once']} games at once, "
        f"{r['seconds']} s (before it: logins {r['login_s']} s, first games set up {r['setup_s']} s) =="
    )
    print(
        f"  games finished {r['games_finished']} ({r['games_per_s']}/s), started {r['games_started']}; "
        f"actions {r['actions']} ({r['actions_per_s']}/s)"
    )
    print(
        f"  action -> opponent's WebSocket: p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms "
        f"(target < {1000 * TARGET_P99:.0f}: {'met' if ok else 'NOT met'}), max {lat['max']} ms, "
        f"{r['latency_samples']} samples (actions sent in the window; {r['sent_before_window']} sent before it "
        f"not timed); p99 by tenth of the window: {r['latency_p99_ms_by_window_tenth']} ms"
    )
    print(
        f"  presence (each seat's live connection pushed to the game's channels): {r['presence_messages']} "
        f"messages; a channel closed -> the opponent told: p50 {r['presence_ms']['p50']} ms, p99 "
        f"{r['presence_ms']['p99']} ms ({r['presence_samples']} samples; target < 2000)"
    )
    print(
        f"  connected peak {r['connected_peak']} (target {TARGET_PLAYERS}), games in progress peak "
        f"{r['in_progress_peak']} (target {TARGET_GAMES}); reconnects {r['reconnects']}; "
        f"lost actions {r['lost_actions']} (target 0); errors {r['errors'] or 'none'}"
        + (f"; worker {r['killed_worker']} SIGKILLed" if r["killed_worker"] else "")
    )
    if r["pairing"] != "invite":
        print(
            f"  lobby: {r['pairing']} pairing, rated games; lobby channel peak {r['lobby_connected_peak']} "
            f"connections, {r['lobby_messages']} lobby messages received, {r['pair_polls']} pairings asked for "
            f"after {PAIR_POLL:.0f} s of silence; {r['delivered_on_connect']} actions made before the opponent "
            f"opened the game (delivered on connecting, not timed)"
        )
        print(
            f"  pairing audit (the database at the end): {r['unfinished_games_at_end']} unfinished games; "
            f"{r['players_in_two_games']} players seated at two or more at once (in {r['games_of_players_in_two']} "
            f"games; target 0), {r['games_with_one_player']} with one player in both seats; "
            f"{r['left_unfinished']} games left unfinished by a player on an error; requests sent again over the "
            f"whole run (set-up included) {r['sent_again'] or 'none'}"
        )
    print(
        f"  server RSS peak MB {r['server_rss_mb_peak']}; server CPU s {r['server_cpu_s']} "
        f"(x{r['server_cpu_share']} of a core, {r['server_cpu_ms_per_action']} ms a stored action); "
        f"load generator x{r['loadgen_cpu_share']} of a core, "
        f"loop lag max {r['loadgen_loop_lag_max_ms']} ms; load average {' '.join(r['loadavg'])}"
    )
    chat_load.show(r)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=100)
    ap.add_argument("--games", type=int, default=None, help="pairs playing at once (default: players / 2)")
    ap.add_argument("--workers", default="1", help="server processes, or a list: 1,2 (runs one after the other)")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument(
        "--think",
        type=float,
        default=2.0,
        help="mean seconds a player thinks before acting (uniform 0.5-1.5 times it; 2 s: a quick player)",
    )
    ap.add_argument("--game", default="long", choices=["long", "short", "backgammon"])
    ap.add_argument(
        "--pairing",
        default="quick",
        choices=["quick", "invite"],
        help="quick: accounts paired by the lobby's quick pairing (rated, with --clock); invite: guests paired by "
        "invitation (the pairing of the first version of this benchmark, to compare with it)",
    )
    ap.add_argument(
        "--actions",
        default="socket",
        choices=["socket", "http"],
        help="how players send their actions: on the game's live channel (the page's way) or POST "
        "/api/games/{id}/actions (the route kept for other clients; the first versions of this benchmark)",
    )
    ap.add_argument("--clock", default="blitz", choices=["blitz", "rapid", "classic"], help="the lobby games' clock")
    ap.add_argument("--unrated", action="store_true", help="lobby games unrated (default: rated)")
    ap.add_argument("--database", default=DEFAULT_DB, help="PostgreSQL URL (loopback); a schema of its own is made")
    ap.add_argument("--kill-at", type=float, default=None, help="SIGKILL one worker this many seconds into a run")
    ap.add_argument(
        "--request-timeout",
        type=float,
        default=REQUEST_TIMEOUT,
        help="seconds an HTTP request may take before it is sent again (as a client gives up on a slow server; "
        "short: the repeats of requests the server did already, a quick pairing among them)",
    )
    ap.add_argument("--seed", type=int, default=1)
    chat_load.add_options(ap)
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--log-dir", default=None, help="keep the servers' logs here (default: a temporary folder)")
    args = ap.parse_args(argv)
    if not 2 <= args.players <= 5000 or not 1 <= args.seconds <= 600:
        ap.error("--players 2..5000, --seconds 1..600")
    args.games = args.players // 2 if args.games is None else max(1, args.games)
    args.rated = not args.unrated
    workers = [int(x) for x in str(args.workers).split(",") if x.strip()]
    if not workers or any(not 1 <= w <= 16 for w in workers):
        ap.error("--workers: 1..16, or a list")
    check_loopback(args.database)
    # each player: an HTTP connection or two and a WebSocket, here and in the server
    raise_file_limit(4 * args.players + 256)
    results = []
    with tempfile.TemporaryDirectory(prefix="nardy-online-load-") as tmp:
        if args.log_dir:
            tmp = args.log_dir
            Path(tmp).mkdir(parents=True, exist_ok=True)
        for w in workers:
            args.workers_now = w
            schema = Schema(args.database)
            server = ServerProc(schema.url, w, Path(tmp), cheap_passwords=args.pairing != "invite")
            try:
                server.wait_ready()
                r = asyncio.run(drive(args, server))
                r.update(schema.audit())
            finally:
                server.stop()
                schema.drop()
            show(r)
            results.append(r)
    if len(results) > 1:
        base = results[0]
        for r in results[1:]:
            ratio = r["actions_per_s"] / base["actions_per_s"] if base["actions_per_s"] else None
            print(
                f"\n{r['workers']} worker(s) vs {base['workers']}: x{ratio:.2f} the actions/s "
                f"(server CPU x{r['server_cpu_share']} vs x{base['server_cpu_share']} of a core, load generator "
                f"x{r['loadgen_cpu_share']} vs x{base['loadgen_cpu_share']}, {os.cpu_count()} cores)"
                if ratio
                else "no actions to compare"
            )
    print(
        "\n(figures from a machine shared with other work: see the load average and the load generator's CPU; "
        + ("pairing by invitation, not the lobby)" if args.pairing == "invite" else "players paired by the lobby)")
    )
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

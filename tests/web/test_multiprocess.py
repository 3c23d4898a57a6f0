"""Several server processes on one PostgreSQL (docs/deploy.md, nardy/web/cluster.py): players connected to
different processes see each other's moves at once over their WebSockets, a process killed mid-game (SIGKILL)
loses nothing and its players finish on the other one, exactly one process ends a game whose clock ran out,
and several processes with SQLite are refused.

Real ``nardy serve`` subprocesses on loopback ports; PostgreSQL from ``NARDY_TEST_POSTGRES_URL`` (each test a
schema of its own), skipped with a reason when it is not set."""

from __future__ import annotations

import json
import os
import queue
import signal
import statistics
import subprocess
import sys
import threading
import time

import pytest

from nardy.rules.position import Position

from .helpers import ROOT, HttpPlayer, Server, pg_schema

PG_URL = os.environ.get("NARDY_TEST_POSTGRES_URL")
#: Seconds within which a move must reach the other player's WebSocket (a loaded, shared 2-core machine:
#: typically a few milliseconds).
PROMPT = 3.0


@pytest.fixture
def pg_db():
    """The URL of a schema of the test's own in the PostgreSQL test database, dropped at the end."""
    url, drop = pg_schema("nardy_mp")
    yield url
    drop()


@pytest.fixture(scope="module")
def two_servers():
    """Two ``nardy serve`` processes on one PostgreSQL schema, shared by this module's tests (the test that
    kills one runs last)."""
    url, drop = pg_schema("nardy_mp")
    servers = [Server(url, extra=("--no-warm-up",)) for _ in range(2)]
    try:
        # the first one makes the schema; then both run at once
        servers[0].start()
        servers[1].start()
        yield servers
    finally:
        for s in servers:
            s.stop()
        drop()


class Live:
    """A player's WebSocket on a game (``WS /api/games/{id}/live``): every view it gets, with when."""

    def __init__(self, server_url: str, player: HttpPlayer, gid: str):
        from websockets.sync.client import connect

        cookies = "; ".join(f"{c.name}={c.value}" for c in player.jar)
        url = server_url.replace("http://", "ws://") + f"/api/games/{gid}/live"
        self.ws = connect(url, additional_headers={"Cookie": cookies}, open_timeout=30)
        self.views: queue.Queue = queue.Queue()
        self.presence: list[list[bool]] = []
        self.closed = threading.Event()
        self.latest: tuple[float, dict] | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for msg in self.ws:
                if isinstance(msg, str) and msg.startswith("{"):
                    m = json.loads(msg)
                    if m.get("type") == "presence":  # the seats' comings and goings (services/seats.py)
                        self.presence.append(m["presence"])
                    elif "view" in m:
                        self.views.put((time.monotonic(), m["view"]))
        except Exception:
            pass
        finally:
            self.closed.set()

    def wait_for(self, seq: int, timeout: float = PROMPT) -> tuple[float, dict]:
        """The first view at state ``seq`` or later, and when it came; AssertionError after ``timeout``."""
        if self.latest is not None and self.latest[1]["seq"] >= seq:
            return self.latest
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no view at seq {seq} within {timeout} s")
            try:
                t, v = self.views.get(timeout=left)
            except queue.Empty:
                continue
            self.latest = (t, v)
            if v["seq"] >= seq:
                return t, v

    def close(self):
        self.ws.close()
        self.thread.join(5)


def _guests(url: str):
    a, b = HttpPlayer(url), HttpPlayer(url)
    a.post("/api/auth/guest", {"name": "Ann"})
    b.post("/api/auth/guest", {"name": "Bob"})
    return a, b


def _move(p: HttpPlayer, gid: str, v: dict) -> dict:
    """The mover's first legal play on its view ``v`` (or the action it is offered when not moving)."""
    if v["phase"] == "move":
        pos = Position.from_id(v["position_id"], v["game"])
        play = pos.legal_plays(tuple(v["dice"]))[0]
        return p.post(f"/api/games/{gid}/actions", {"action": "play", "play": str(play), "seq": v["seq"]})
    action = "roll" if "roll" in v["actions"] else v["actions"][0]
    return p.post(f"/api/games/{gid}/actions", {"action": action, "seq": v["seq"]})


def test_players_on_two_processes_play_a_whole_game_each_seeing_the_others_moves_at_once(two_servers):
    s1, s2 = two_servers
    a, b = _guests(s1.url)
    b.url = s2.url  # Bob's browser is sent to the other process (cookies hold: the same database)
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
    gid = g["id"]
    live = {0: Live(s1.url, a, gid)}  # Ann is White (0), on process 1
    live[0].wait_for(0)
    v = b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    live[1] = Live(s2.url, b, gid)  # Bob, seated now, on process 2
    # Ann learns on process 1 that Bob joined on process 2
    _, seen = live[0].wait_for(v["seq"])
    assert seen["status"] == "playing" and seen["seats"][1]["taken"]
    # Bob's connection to process 2 reaches Ann on process 1 as presence (NOTIFY kind "seats", issue 43)
    until = time.monotonic() + PROMPT
    while [True, True] not in live[0].presence and time.monotonic() < until:
        time.sleep(0.05)
    assert [True, True] in live[0].presence, live[0].presence
    players = {0: a, 1: b}
    latencies = []
    for _ in range(600):
        if v["status"] == "over":
            break
        mover = v["to_act"]
        mv = players[mover].get(f"/api/games/{gid}")
        sent = time.monotonic()
        v = _move(players[mover], gid, mv)
        t, other = live[1 - mover].wait_for(v["seq"])
        latencies.append(t - sent)
        # the other process shows the same state, from the other side
        assert other["seq"] == v["seq"] and other["pips"] == v["pips"][::-1] and other["history"] == v["history"]
    assert v["status"] == "over" and v["match_winner"] in (0, 1), v["status"]
    # both connections end on the finished match
    for side in (0, 1):
        _, last = live[side].wait_for(v["seq"], timeout=PROMPT)
        assert last["match_over"] and last["match_winner"] == v["match_winner"]
        live[side].close()
    assert len(latencies) > 20
    assert statistics.median(latencies) < 1.0, statistics.median(latencies)


def test_exactly_one_process_ends_a_game_whose_clock_ran_out_and_both_players_hear_it(two_servers):
    s1, s2 = two_servers
    a, b = _guests(s1.url)
    b.url = s2.url
    g = a.post(
        "/api/games",
        {"game": "long", "opponent": "online", "length": 3, "clock": {"initial": 2}},
        status=201,
    )
    gid = g["id"]
    v = b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    live = [Live(s1.url, a, gid), Live(s2.url, b, gid)]
    loser = v["to_act"]
    # nobody acts: within the 2 s and a keeper's round (1 s) the match is over on time, on both processes
    ends = [w.wait_for(v["seq"] + 1, timeout=2 + 1 + PROMPT)[1] for w in live]
    for e in ends:
        assert e["match_over"] and e["online"]["ended"] == {"reason": "time", "winner": 1 - loser, "loser": loser}
    time.sleep(2.5)  # both keepers have had rounds since: neither changes the game again
    after = a.get(f"/api/games/{gid}")
    record = a.get(f"/api/games/{gid}/record")
    assert after["seq"] == ends[0]["seq"] == ends[1]["seq"], (after["seq"], ends[0]["seq"])
    assert [e["type"] for e in record["log"]].count("time") == 1, record["log"][-3:]
    for w in live:
        w.close()


def _with_cookies(url: str, method: str, path: str, cookies: dict, body=None) -> tuple[int, dict]:
    """A request with exactly these cookies (and the CSRF header of ``nardy_csrf``): an old cookie kept after
    the browser was told to drop it."""
    import urllib.error
    import urllib.request

    headers = {"Content-Type": "application/json", "Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    if method != "GET" and "nardy_csrf" in cookies:
        headers["X-CSRF-Token"] = cookies["nardy_csrf"]
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def test_a_logged_out_session_is_refused_at_once_on_every_process_despite_their_caches(two_servers):
    # each process keeps the sessions it has read (nardy.web.routers.auth.SessionCache); a logout on one process must
    # be refused by the other on the very next request, however recently that one read the session
    s1, s2 = two_servers
    a, b = _guests(s1.url)
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
    b.post(f"/api/games/{g['id']}/join", {"invite": g["invite"]})
    for here, there in ((s1, s2), (s2, s1), (s1, s2), (s2, s1)):
        p = HttpPlayer(here.url)
        p.post("/api/auth/guest", {"name": "Cleo"})
        cookies = {c.name: c.value for c in p.jar}
        for server in (s1, s2, s1, s2):  # both processes read the session, and keep it
            status, me = _with_cookies(server.url, "GET", "/api/me", cookies)
            assert status == 200 and me["user"]["name"] == "Cleo"
        assert p.post("/api/auth/logout")["ok"] is True
        # at once, on the other process: nobody, and an unsafe request of the old session acts for nobody
        status, me = _with_cookies(there.url, "GET", "/api/me", cookies)
        assert status == 200 and me["user"] is None, me
        status, out = _with_cookies(there.url, "POST", "/api/lobby/quick", cookies, {"game": "long", "rated": False})
        assert status == 401 and out["code"] == "login_needed", out
        status, me = _with_cookies(here.url, "GET", "/api/me", cookies)
        assert me["user"] is None


def test_a_process_killed_mid_game_loses_nothing_and_its_players_finish_on_the_other(two_servers):
    s1, s2 = two_servers
    a, b = _guests(s1.url)
    b.url = s2.url
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
    gid = g["id"]
    v = b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    live_b = Live(s2.url, b, gid)
    players = {0: a, 1: b}
    for _ in range(10):
        v = _move(players[v["to_act"]], gid, players[v["to_act"]].get(f"/api/games/{gid}"))
    acked = a.get(f"/api/games/{gid}")
    s1.proc.send_signal(signal.SIGKILL)  # Ann's process dies mid-game
    s1.proc.wait(10)
    # Ann's page reconnects to the other process (a load balancer sends her there) and sees every acked move
    a.url = s2.url
    live_a = Live(s2.url, a, gid)
    _, now = live_a.wait_for(acked["seq"])
    assert now["seq"] == acked["seq"] and now["board"] == acked["board"] and now["history"] == acked["history"]
    for _ in range(600):
        if v["status"] == "over":
            break
        mover = v["to_act"]
        v = _move(players[mover], gid, players[mover].get(f"/api/games/{gid}"))
        _, other = [live_a, live_b][1 - mover].wait_for(v["seq"])
        assert other["seq"] == v["seq"]
    assert v["status"] == "over" and v["match_over"]
    record = b.get(f"/api/games/{gid}/record")
    assert record["status"] == "over" and len(record["log"]) > 10
    live_a.close()
    live_b.close()


def test_game_locks_are_one_writer_across_processes(pg_db):
    """Two processes' :class:`Cluster` (each its own lock connection): while one holds a game, the other
    cannot take it without waiting, and takes it once it is given back; other games are free."""
    import asyncio

    from nardy.web.cluster import Cluster
    from nardy.web.deps import GameLocks
    from nardy.web.store.storage import Storage

    async def run():
        stores = [Storage(pg_db), Storage(pg_db)]
        clusters = [Cluster(st) for st in stores]
        locks = [GameLocks(c) for c in clusters]
        try:
            async with locks[0].lock_for("g1") as held:
                assert held
                async with locks[1].lock_for("g1", wait=False) as other:
                    assert other is False
                async with locks[1].lock_for("g2", wait=False) as free:
                    assert free is True
            async with locks[1].lock_for("g1", wait=False) as later:
                assert later is True
        finally:
            for c in clusters:
                await c.stop()
            for st in stores:
                st.close()

    asyncio.run(run())


def _two_keepers_on_an_expired_clock(pg_db, together: bool) -> None:
    """A clocked online match stored on ``pg_db`` whose clock runs out, reached by two server processes'
    keepers (``together``: at the same moment, else one after the other): one ends the match, the other
    passes, and the game is stored once with one ``time`` entry in its log."""
    import asyncio

    from nardy.web.app import create_app
    from nardy.web.gamecache import columns
    from nardy.web.routers import online
    from nardy.web.sessions import new_session
    from nardy.web.store.storage import Storage

    s = new_session("long", length=3, opponent="online", owner="ann", client_seed="a", clock={"initial": 5})
    t0 = time.time()
    s.join("bob", "Bob", "b", t0)
    s.run_bots()
    apps = [create_app(storage=Storage(pg_db)), create_app(storage=Storage(pg_db))]
    store = apps[0].state.storage
    saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s))

    async def run():
        try:
            if together:
                return await asyncio.gather(*(online.expire(app, saved.id, t0 + 60) for app in apps))
            return [await online.expire(app, saved.id, t0 + 60) for app in apps]
        finally:
            for app in apps:
                await app.state.cluster.stop()

    results = asyncio.run(run())
    if together:
        assert sorted(results) == [False, True]
    else:
        assert results == [True, False]  # the first ended it, the second passed
    after = store.get(saved.id)
    assert after.revision == saved.revision + 1 and after.status == "over" and after.clock_due is None
    assert [e["type"] for e in after.data["table"]["log"]].count("time") == 1
    for app in apps:
        app.state.storage.close()


def test_two_keepers_at_once_on_one_expired_clock_end_the_match_exactly_once(pg_db):
    """Two processes' keepers reach one expired clock at the same moment: one ends the match, the other
    passes (the game's lock), and the game is stored once."""
    _two_keepers_on_an_expired_clock(pg_db, together=True)


def test_a_keeper_coming_just_after_another_ended_the_match_on_time_passes(pg_db):
    """The other process's keeper reaches the expired clock a moment after the first one ended the match and
    released the game's lock (a loaded machine: how CI failed the test above): it reads the ended match and
    passes; nothing is stored or published again."""
    _two_keepers_on_an_expired_clock(pg_db, together=False)


def test_notifications_reach_the_other_process_and_not_the_sender(pg_db):
    import asyncio

    from nardy.web.cluster import Cluster
    from nardy.web.store.storage import Storage

    async def run():
        stores = [Storage(pg_db), Storage(pg_db)]
        clusters = [Cluster(st) for st in stores]
        got: list[list[str]] = [[], []]
        for i, c in enumerate(clusters):

            async def handler(key, i=i):
                got[i].append(key)

            c.on("lobby", handler)
            await c.start()
        try:
            await asyncio.to_thread(stores[0].notify, "lobby", "seek-1")
            for _ in range(100):
                if got[1]:
                    break
                await asyncio.sleep(0.05)
            assert got == [[], ["seek-1"]]
        finally:
            for c in clusters:
                await c.stop()
            for st in stores:
                st.close()

    asyncio.run(run())


def test_several_workers_with_sqlite_are_refused_with_a_clear_message(tmp_path):
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "nardy.cli",
            "serve",
            "--workers",
            "2",
            "--no-warm-up",
            "--database",
            str(tmp_path / "x.db"),
        ],
        cwd=str(ROOT),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode != 0
    assert "--workers 2 needs PostgreSQL" in r.stderr and "SQLite" in r.stderr, r.stderr


def test_serve_with_two_workers_on_postgresql_serves_from_two_processes(pg_db):
    s = Server(pg_db, extra=("--no-warm-up", "--workers", "2"))
    s.start()
    try:
        children = _children(s.proc.pid)
        workers = [pid for pid in children if "multiprocessing" in _cmdline(pid)]
        assert len(workers) >= 2, [_cmdline(p) for p in children]
        a, b = _guests(s.url)
        g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
        v = b.post(f"/api/games/{g['id']}/join", {"invite": g["invite"]})
        assert v["status"] == "playing"
    finally:
        s.stop()


def _children(pid: int) -> list[int]:
    out = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            out += [int(x) for x in f.read().split()]
    return out


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode()
    except OSError:
        return ""

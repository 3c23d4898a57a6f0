"""What one stored action of an online game costs the server (bench/online_load.py measures the whole): its
database round trips on PostgreSQL are bounded (no ping per checkout, the session kept by the process, one
transaction), the mover's answer is the view its own live connection gets, and the process's cache of log-in
sessions (nardy/web/routers/auth.py SessionCache) never keeps a session past a drop."""

from __future__ import annotations

import asyncio
import collections
import datetime as _dt
import json

import pytest
from sqlalchemy import event

from nardy.rules.position import Position
from nardy.web.app import create_app
from nardy.web.routers.auth import SessionCache
from nardy.web.store.logins import Login
from nardy.web.store.storage import Storage
from nardy.web.store.users import User

from .helpers import pg_schema, stop_background_rounds
from .players import PlayerClient


def _recv(ws) -> dict:
    """The next message on a game's live channel, the seats' presence pushes skipped (services/seats.py)."""
    for _ in range(10):
        m = ws.receive_json()
        if m.get("type") != "presence":
            return m
    raise AssertionError("only presence messages")


def _body(v: dict) -> dict:
    """The first legal action of the side to act on view ``v``."""
    if v["phase"] == "move":
        plays = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))
        return (
            {"action": "play", "play": str(plays[0]), "seq": v["seq"]}
            if plays
            else {"action": "confirm", "seq": v["seq"]}
        )
    return {"action": next(a for a in ("roll", "take", "accept", "confirm") if a in v["actions"]), "seq": v["seq"]}


@pytest.fixture
def pg_pair():
    url, drop = pg_schema("nardy_cost")
    store = Storage(url)
    app = create_app(storage=store)
    a, b = PlayerClient(app, base_url="http://testserver"), PlayerClient(app, base_url="http://testserver")
    try:
        for c, name in ((a, "Ann"), (b, "Bob")):
            c.__enter__()  # the app's lifespan: the cluster listens (the session cache is trusted only then)
            c.guest(name)
        yield app, a, b
    finally:
        for c in (a, b):
            c.__exit__(None, None, None)
        store.close()
        drop()


def test_a_stored_action_costs_one_connection_one_transaction_and_three_statements_on_postgresql(pg_pair):
    app, a, b = pg_pair
    # the background rounds (clocks, presence, tournaments) query the database too: stopped, so only the
    # actions count
    stop_background_rounds(a)
    engine = app.state.storage.engine
    assert not engine.pool._pre_ping  # a busy server's connections are not pinged on every checkout
    seen: collections.Counter = collections.Counter()
    event.listen(engine, "before_cursor_execute", lambda *args: seen.update(["statements"]))
    app.state.storage.on_raw = lambda sql: seen.update(["statements"])  # those run on the driver (pg_rows)
    event.listen(engine, "commit", lambda conn: seen.update(["commits"]))
    event.listen(engine.pool, "checkout", lambda *args: seen.update(["checkouts"]))
    event.listen(engine.pool, "connect", lambda *args: seen.update(["new connections"]))
    cluster = app.state.cluster
    for name in ("lock", "unlock"):
        real = getattr(cluster, name)

        async def counted(*args, real=real, **kwargs):
            seen.update(["lock connection"])
            return await real(*args, **kwargs)

        setattr(cluster, name, counted)
    g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 3}).json()
    v = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).json()
    gid, players = g["id"], [a, b]
    cache = app.state.session_cache
    costs = []
    for _ in range(12):
        if v["status"] != "playing":
            break
        mover = players[v["to_act"]]
        reads = cache.reads
        seen.clear()
        r = mover.post(f"/api/games/{gid}/actions", json=_body(v))
        assert r.status_code == 200, r.text
        costs.append({**seen, "session reads": cache.reads - reads})
        v = r.json()
    assert len(costs) >= 8
    for cost in costs:
        # the game's lock taken in the transaction, its revision read, the action stored with its log row and
        # NOTIFY in one statement; one connection, one commit, nothing on the lock connection (no lock and
        # unlock round trips there); the player's session kept by the process (read once in SESSION_CACHE_TTL s)
        assert cost.get("statements", 0) <= 3, costs
        assert cost.get("lock connection", 0) == 0, costs
        assert cost.get("checkouts", 0) <= 1 and cost.get("commits", 0) == 1, costs
        assert cost["session reads"] == 0, costs
    # the pool keeps its connections (none made and closed again per action: a PostgreSQL backend each)
    assert sum(cost.get("new connections", 0) for cost in costs) <= 2, costs


def test_the_movers_answer_is_the_view_its_own_live_connection_gets_and_the_opponent_gets_its_own(pg_pair):
    app, a, b = pg_pair
    g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    v = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).json()
    gid, players = g["id"], [a, b]
    with a.websocket_connect(f"/api/games/{gid}/live") as wa, b.websocket_connect(f"/api/games/{gid}/live") as wb:
        live = [wa, wb]
        for w in live:
            assert _recv(w)["view"]["seq"] == v["seq"]
        for _ in range(4):
            side = v["to_act"]
            r = players[side].post(f"/api/games/{gid}/actions", json=_body(v))
            assert r.status_code == 200, r.text
            v = r.json()
            mine, theirs = _recv(live[side])["view"], _recv(live[1 - side])["view"]
            assert mine == v  # the same view, made once
            assert theirs["seq"] == v["seq"] and theirs["you"] == [1 - side] and theirs["pips"] == v["pips"][::-1]


class _Cluster:
    """What SessionCache asks of a cluster: active, listening or not, handlers."""

    def __init__(self, active: bool = True):
        self.active = active
        self.listening = asyncio.Event()
        self.listening.set()
        self.now: dict = {}
        self.resync: list = []

    def on_now(self, kind, handler):
        self.now[kind] = handler

    def on_resync(self, handler):
        self.resync.append(handler)


def _session(uid: str = "u1", days: float = 30) -> Login:
    now = _dt.datetime.now(_dt.UTC)
    return Login(User(uid, "Ann", "guest", now), "csrf", now + _dt.timedelta(days=days))


def test_the_session_cache_keeps_nothing_read_before_a_drop_nor_past_its_time_nor_while_deaf():
    t = [0.0]
    cluster = _Cluster()
    cache = SessionCache(cluster, ttl=20, clock=lambda: t[0])
    gen = cache.generation
    cache.put("h1", _session(), gen)
    assert cache.get("h1") is not None
    # a session read before another process's logout notification and kept after it is not kept
    gen = cache.generation
    cluster.now["auth"]("t:h1")
    assert cache.get("h1") is None
    cache.put("h1", _session(), gen)
    assert cache.get("h1") is None and len(cache) == 0
    # a guest renamed elsewhere: their sessions are read again
    cache.put("h2", _session("u2"), cache.generation)
    cache.put("h3", _session("u3"), cache.generation)
    cluster.now["auth"]("u:u2")
    assert cache.get("h2") is None and cache.get("h3") is not None
    # trusted for ttl seconds, and never past the session's own end
    t[0] = 21.0
    assert cache.get("h3") is None
    cache.put("h4", _session(days=-1), cache.generation)
    assert cache.get("h4") is None
    # the listening connection down: nothing is trusted; made again: everything is forgotten
    cache.put("h5", _session(), cache.generation)
    cluster.listening.clear()
    assert cache.get("h5") is None
    cluster.listening.set()
    asyncio.run(cluster.resync[0]())
    assert cache.get("h5") is None and len(cache) == 0


def test_the_session_cache_keeps_nothing_without_a_cluster_that_listens():
    # SQLite (one process): the session is read from the database on every request, as before
    cache = SessionCache(_Cluster(active=False))
    cache.put("h1", _session(), cache.generation)
    assert cache.get("h1") is None and not cache.enabled


def test_another_process_follows_an_action_by_two_statements(pg_pair):
    # a second server process on the database (here a second Storage) keeps the game and follows each action
    # by its log: the row without its snapshot (its revision told it changed) and the logged actions
    from nardy.web.gamecache import cache_of

    app, a, b = pg_pair
    g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 3}).json()
    v = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).json()
    gid, players = g["id"], [a, b]
    other = Storage(app.state.storage.url)
    try:
        kept = cache_of(other).read(gid)
        statements = []
        event.listen(other.engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
        for _ in range(4):
            r = players[v["to_act"]].post(f"/api/games/{gid}/actions", json=_body(v))
            assert r.status_code == 200, r.text
            v = r.json()
            statements.clear()
            applied = cache_of(other).applied
            followed = cache_of(other).read(gid)
            assert followed is kept and followed.saved.revision == v["seq"]
            assert cache_of(other).applied == applied + 1 and len(statements) == 2, statements
            # the same game as the process that stored the action keeps
            assert followed.session.to_dict() == cache_of(app.state.storage).peek(gid).session.to_dict()
    finally:
        other.close()


def test_a_served_process_leaves_its_start_up_objects_out_of_full_collections_and_collects_fully_less_often(
    tmp_path,
):
    # in a process of its own (a freeze is for the rest of a process's life): the app `nardy serve` makes, started
    # as uvicorn starts it (the lifespan); an app made in-process, as tests make them, is left as it was
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent(
        f"""
        import gc, json
        from fastapi.testclient import TestClient
        from nardy.web.app import FULL_GC_EVERY, create_app
        from nardy.web.server import _make_app
        from nardy.web.store.storage import Storage
        before = gc.get_threshold()
        with TestClient(create_app(storage=Storage("sqlite://"))):
            plain = (gc.get_freeze_count(), gc.get_threshold())
        settings = dict(database={str(tmp_path / "g.db")!r}, allowed_hosts=None, allow_seeds=False, bot_workers=1,
                        bot_queue=4, secure_cookies=False)
        app = _make_app(settings)
        with TestClient(app) as c:
            assert c.get("/api/health").status_code == 200
            served = (gc.get_freeze_count(), gc.get_threshold())
        print(json.dumps(dict(before=before, plain=plain, served=served, every=FULL_GC_EVERY)))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["plain"] == [0, r["before"]]  # in-process apps: nothing frozen, CPython's thresholds
    frozen, threshold = r["served"]
    assert frozen > 50_000  # the app, its models and the engine's kernels
    assert threshold == [r["before"][0], r["before"][1], r["every"]] and r["every"] > r["before"][2]

"""One game from the lobby at a time (docs/online.md "Lobby"): a player paired by quick pairing or by an accepted
challenge is never paired again while that game is unfinished: a repeated quick request (a lost answer, a
second tab, a retry) answers the same game, their other challenges and seeks are withdrawn, taking another
challenge meanwhile is refused (409 ``already_playing``); and many quick requests at once, repeated, from the
same and different players, against two server processes on one PostgreSQL, pair every player at most once,
always with another player."""

from __future__ import annotations

import secrets
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from nardy.web.app import create_app
from nardy.web.store.storage import Storage

from .helpers import HttpPlayer, Server, pg_schema
from .test_lobby import BLITZ, account, challenge, finish_by_resignation, refused


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'pairing.db'}"))


@pytest.fixture
def four(app):
    cs = [account(app, n) for n in ("Ann", "Bob", "Cat", "Dan")]
    yield cs
    for c in cs:
        c.__exit__(None, None, None)


def quick(c, **kw) -> dict:
    r = c.post("/api/lobby/quick", json={**BLITZ, **kw})
    assert r.status_code == 200, r.text
    return r.json()


def test_a_repeated_quick_request_answers_the_game_already_paired(four):
    ann, bob, cat, _ = four
    assert quick(ann)["status"] == "waiting"
    first = quick(bob)
    assert first["status"] == "paired"
    gid = first["game"]
    assert quick(cat)["status"] == "waiting"
    # Ann (whose seek Bob took) and Bob (who took it) ask again: the same game, never Cat's seek
    for c in (ann, bob, ann, bob):
        again = quick(c)
        assert again["status"] == "paired" and again["game"] == gid, again
        assert c.get("/api/lobby/quick").json()["game"] == gid
    assert bob.get("/api/lobby/quick").json()["status"] == "paired"  # the taker too, not only the seek's owner
    assert cat.get("/api/lobby/quick").json()["status"] == "waiting"
    # the game over, Ann is paired anew: with Cat, who waited
    finish_by_resignation(ann, bob, gid)
    nxt = quick(ann)
    assert nxt["status"] == "paired" and nxt["game"] != gid and nxt["seek"]["owner"] == cat.me["id"]
    assert quick(bob)["status"] == "waiting"


def test_a_player_plays_one_game_from_the_lobby_at_a_time(four):
    ann, bob, cat, dan = four
    c1, c2 = challenge(ann), challenge(ann, length=3)
    assert quick(ann)["status"] == "waiting"
    r = bob.post(f"/api/lobby/challenges/{c1['id']}/accept", json={})
    assert r.status_code == 200, r.text
    gid = r.json()["id"]
    # Ann's other challenge and her seek are withdrawn: Cat cannot take them
    refused(cat.post(f"/api/lobby/challenges/{c2['id']}/accept", json={}), 404, "no_challenge")
    assert quick(cat)["status"] == "waiting"
    assert ann.get("/api/lobby/quick").json()["status"] == "none"
    # Bob plays: no quick pairing and no other challenge for him (the message names his game); his own
    # challenge accepted again is the same game
    body = refused(bob.post("/api/lobby/quick", json=BLITZ), 409, "already_playing")
    assert body["params"]["game"] == gid
    c3 = challenge(dan)
    body = refused(bob.post(f"/api/lobby/challenges/{c3['id']}/accept", json={}), 409, "already_playing")
    assert body["params"]["game"] == gid
    refused(ann.post("/api/lobby/quick", json=BLITZ), 409, "already_playing")
    again = bob.post(f"/api/lobby/challenges/{c1['id']}/accept", json={})
    assert again.status_code == 200 and again.json()["id"] == gid
    # the match over, both may play again: Bob takes Dan's challenge, Ann is paired with Cat
    finish_by_resignation(bob, ann, gid)
    assert bob.post(f"/api/lobby/challenges/{c3['id']}/accept", json={}).status_code == 200
    assert quick(ann)["status"] == "paired"


# ----- two processes, many requests at once --------------------------------------------------------------------
PLAYERS = 8
REQUESTS = 4  # each player's quick requests at once (half to each process), plus a GET each


@pytest.fixture
def two_servers():
    url, drop = pg_schema("nardy_pair")
    servers = [Server(url, extra=("--no-warm-up", "--insecure-password-hashing")) for _ in range(2)]
    try:
        servers[0].start()
        servers[1].start()
        yield url, servers
    finally:
        for s in servers:
            s.stop()
        drop()


def _unfinished_seats(url: str) -> list[tuple[str, str, str]]:
    import sqlalchemy as sa

    from nardy.web.store.db import normalise_url

    engine = sa.create_engine(normalise_url(url))
    try:
        with engine.connect() as c:
            rows = c.execute(
                sa.text("SELECT id, seat0, seat1 FROM nardy_games WHERE status IN ('waiting', 'playing', 'game-over')")
            ).all()
    finally:
        engine.dispose()
    return [(r.id, r.seat0, r.seat1) for r in rows]


def test_quick_requests_at_once_on_two_processes_pair_each_player_once(two_servers):
    url, servers = two_servers
    players = []
    for i in range(PLAYERS):  # half of the accounts made on each process (each counts registrations apart)
        p = HttpPlayer(servers[i % 2].url)
        body = {"name": f"P{i}{secrets.token_hex(2)}", "password": "x" * 12}
        status, out = p.request("POST", "/api/auth/register", body)
        assert status == 201, out
        p.me = out["user"]["id"]
        players.append(p)
    # the same log-in on both processes (the cookies are the host's, whatever the port)
    twins = []
    for p in players:
        q = HttpPlayer(servers[1].url if p.url == servers[0].url else servers[0].url)
        q.jar, q.opener, q.me = p.jar, p.opener, p.me
        twins.append(q)
    for p in players:  # online on the lobby (a seek is paired only while its owner is)
        p.get("/api/lobby")
    answers: dict[str, list] = {p.me: [] for p in players}
    lock = threading.Lock()
    barrier = threading.Barrier(PLAYERS * (REQUESTS + 1))

    def ask(p: HttpPlayer, how: str):
        barrier.wait(60)
        if how == "GET":
            status, out = p.request("GET", "/api/lobby/quick")
        else:
            status, out = p.request("POST", "/api/lobby/quick", BLITZ)
        with lock:
            answers[p.me].append((how, status, out))

    jobs = []
    for p, q in zip(players, twins, strict=True):
        jobs += [(p if k % 2 == 0 else q, "POST") for k in range(REQUESTS)] + [(q, "GET")]
    with ThreadPoolExecutor(len(jobs)) as pool:
        list(pool.map(lambda j: ask(*j), jobs))
    # every answer a clear 200, never a 5xx; a player's paired answers all name one game
    seats = _unfinished_seats(url)
    games_of: dict[str, set] = {p.me: set() for p in players}
    for gid, s0, s1 in seats:
        assert s0 and s1 and s0 != s1, (gid, s0, s1)  # two different players
        games_of[s0].add(gid)
        games_of[s1].add(gid)
    for who, got in answers.items():
        assert all(status == 200 for _, status, _ in got), got
        assert len(games_of[who]) <= 1, (who, games_of[who], got)  # at most one unfinished game
        named = {out["game"] for how, _, out in got if out["status"] == "paired"}
        assert named <= games_of[who] and len(named) <= 1, (who, named, games_of[who])
    # each player's quick pairing, asked once more, states where they are: their game, or their seek
    for p in players:
        now = p.get("/api/lobby/quick")
        if games_of[p.me]:
            assert now["status"] == "paired" and {now["game"]} == games_of[p.me], now
        else:
            assert now["status"] == "waiting", now
    # with 8 players asking at once, at least one pair was made, and at most one player waits
    assert len(seats) >= 1 and sum(1 for g in games_of.values() if not g) <= 1

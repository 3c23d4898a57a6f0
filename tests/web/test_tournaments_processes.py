"""A tournament on two server processes sharing one PostgreSQL (issue 44): each step runs once (the runner's
advisory lock), and when the process stepping it is killed (SIGKILL) mid-tournament the other takes it over: the
tournament finishes, every board has its game and result, no game is lost.

Real ``nardy serve`` subprocesses; PostgreSQL from ``NARDY_TEST_POSTGRES_URL`` (a schema of its own), skipped when it
is not set. The games are played over HTTP by both seats (first legal plays, then the weaker player resigns)."""

from __future__ import annotations

import os
import secrets
import time

import pytest
import sqlalchemy as sa

from nardy import Position
from nardy.web.store.db import games, normalise_url
from nardy.web.store.tournaments import pairings, tournaments

from .helpers import HttpPlayer, Server, pg_schema

PG_URL = os.environ.get("NARDY_TEST_POSTGRES_URL")

pytestmark = [pytest.mark.skipif(not PG_URL, reason="NARDY_TEST_POSTGRES_URL is not set"), pytest.mark.slow]


@pytest.fixture
def two_servers():
    url, drop = pg_schema("nardy_tour_mp")
    servers = [Server(url, extra=("--no-warm-up",)) for _ in range(2)]
    try:
        for s in servers:
            s.start()
        yield url, servers
    finally:
        for s in servers:
            s.stop()
        drop()


def decide(players: list[HttpPlayer], gid: str) -> None:
    """Both seats play (first legal plays) until each has moved once, then the weaker (later in ``players``)
    resigns and the other accepts."""
    seats = {}
    for p in players:
        for side in p.get(f"/api/games/{gid}").get("you") or []:
            seats[side] = p
    loser = 0 if players.index(seats[0]) > players.index(seats[1]) else 1
    moved = [0, 0]
    for _ in range(60):
        side = seats[0].get(f"/api/games/{gid}")["to_act"]
        p = seats[side]
        v = p.get(f"/api/games/{gid}")
        if side == loser and min(moved) >= 1:
            p.post(f"/api/games/{gid}/actions", {"action": "resign", "level": 0, "seq": v["seq"]})
            w = seats[1 - side]
            v = w.get(f"/api/games/{gid}")
            assert w.post(f"/api/games/{gid}/actions", {"action": "accept", "seq": v["seq"]})["match_over"]
            return
        if v["phase"] == "roll":
            body = {"action": "roll", "seq": v["seq"]}
        else:
            play = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))[0]
            body = {"action": "play", "play": str(play), "seq": v["seq"]}
            moved[side] += 1
        p.post(f"/api/games/{gid}/actions", body)
    raise AssertionError("not decided")


def wait_for(p: HttpPlayer, tid: str, check, timeout: float = 60.0) -> dict:
    end = time.monotonic() + timeout
    while True:
        body = p.get(f"/api/tournaments/{tid}")
        if check(body):
            return body
        assert time.monotonic() < end, body
        time.sleep(0.2)


def test_the_other_process_takes_over_when_the_stepping_one_is_killed(two_servers):
    url, (s1, s2) = two_servers
    players = [HttpPlayer(s1.url) for _ in range(4)]
    for i, p in enumerate(players):
        p.post("/api/auth/register", {"name": f"p{i}{secrets.token_hex(2)}", "password": "correct horse"}, status=201)
    terms = {"game": "long", "format": "swiss", "rounds": 3, "length": 1, "clock": "blitz", "players": 4}
    tid = players[0].post("/api/tournaments", terms, status=201)["id"]
    for p in players:
        p.post(f"/api/tournaments/{tid}/join")
    body = wait_for(players[0], tid, lambda b: b["status"] == "playing" and b["round"] == 1)
    eng = sa.create_engine(normalise_url(url), poolclass=sa.pool.NullPool)
    with eng.connect() as c:
        owner = c.execute(sa.select(tournaments.c.lease_owner).where(tournaments.c.id == tid)).scalar()
    pid = int(owner.split("-")[0])
    victim, survivor = (s1, s2) if pid == s1.proc.pid else (s2, s1)
    assert pid == victim.proc.pid
    victim.proc.kill()  # SIGKILL mid-tournament: round 1's games are being played
    victim.proc.wait(10)
    for p in players:
        p.url = survivor.url  # the players' pages reconnect to the process left
    for r in (1, 2, 3):
        body = wait_for(players[0], tid, lambda b, r=r: b["round"] == r and b["status"] == "playing")
        for b in body["pairings"]:
            if b["round"] == r and b["result"] is None:
                decide(players, b["game"])
    body = wait_for(players[0], tid, lambda b: b["status"] == "finished")
    assert [s["points"] for s in body["standings"]] == [3.0, 2.0, 1.0, 0.0]
    with eng.connect() as c:
        rows = c.execute(sa.select(pairings).where(pairings.c.tournament_id == tid)).all()
        owner = c.execute(sa.select(tournaments.c.lease_owner).where(tournaments.c.id == tid)).scalar()
        gids = [r.game_id for r in rows]
        stored = {r.id: r.status for r in c.execute(sa.select(games.c.id, games.c.status).where(games.c.id.in_(gids)))}
    assert len(rows) == 6 and len(set(gids)) == 6 and all(r.result for r in rows)  # each step once: no board twice
    assert stored == dict.fromkeys(gids, "over")  # no game lost
    assert int(owner.split("-")[0]) == survivor.proc.pid

"""Claims of abandonment count every sign of a present player (docs/online.md "Fair play", issue 41 item 3).

A rated match may be claimed only while the opponent is to act (never on the claimer's own turn) and the
opponent has been absent past the grace period; absent means nothing of theirs at the game: no request for it
over HTTP, no live connection, no action, written per seat in the database (so every server process sees it).
The server's time is injected (``app.state.wall_clock``) instead of waiting minutes.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from starlette.websockets import WebSocketDisconnect

from nardy.web.app import create_app
from nardy.web.routers.fairplay import ABANDON_GRACE
from nardy.web.store.storage import Storage

from .rated_play import play_turns
from .test_lobby import BLITZ, account, refused


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'claims.db'}"


@pytest.fixture
def app(db):
    return create_app(storage=Storage(db))


class Clock:
    """The server's wall clock for presence and claims: real time plus ``offset`` seconds."""

    def __init__(self):
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


@pytest.fixture
def clock(app):
    c = app.state.wall_clock = Clock()
    return c


@pytest.fixture
def pair(app):
    """A rated long nardy match of two accounts made by quick pairing: ``(gid, to_act, other)``, the clients of
    the player to act now and of the other."""
    ann, bob = account(app, "Ann"), account(app, "Bob")
    ann.post("/api/lobby/quick", json=BLITZ)
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
    v = ann.get(f"/api/games/{gid}").json()
    to_act, other = (ann, bob) if v["to_act"] in v["you"] else (bob, ann)
    yield gid, to_act, other
    for c in (ann, bob):
        c.__exit__(None, None, None)


def status(c, gid: str) -> str:
    return c.get(f"/api/games/{gid}").json()["status"]


def test_a_claim_is_refused_against_a_player_who_acts_over_http_only(app, pair):
    gid, x, y = pair
    app.state.abandon_grace = 1.0
    time.sleep(1.1)  # the match began more than the grace period ago
    # the player to act has no live connection: they read their game over HTTP, as a client without sockets does
    assert x.get(f"/api/games/{gid}").status_code == 200
    body = refused(y.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    assert body["params"]["seconds"] >= 1
    assert status(x, gid) == "playing"


def test_a_refused_action_over_http_counts_as_presence_too(app, pair):
    gid, x, y = pair
    app.state.abandon_grace = 1.0
    time.sleep(1.1)
    seq = y.get(f"/api/games/{gid}").json()["seq"]
    # only the player to act's own requests count for them: Y's request is Y's
    r = x.post(f"/api/games/{gid}/actions", json={"action": "confirm", "seq": seq})
    assert r.status_code in (400, 409), r.text  # nothing to confirm yet: refused, yet they are there
    refused(y.post(f"/api/games/{gid}/claim"), 409, "opponent_present")


def test_a_claim_is_refused_on_the_claimers_own_turn(app, pair):
    gid, x, y = pair
    app.state.abandon_grace = 0.5
    time.sleep(0.6)  # the other player has never been seen at the game, for longer than the grace period
    body = refused(x.post(f"/api/games/{gid}/claim"), 409, "claim_own_turn")
    assert "opponent is to act" in body["detail"]
    assert status(y, gid) == "playing"


def test_a_claim_is_allowed_when_the_other_side_is_to_act_and_absent_past_the_grace_period(app, clock, pair):
    gid, x, y = pair
    v = play_turns((x, y), gid)  # a real game: the abandonment is rated
    gone, claimer = (x, y) if v["to_act"] in x.get(f"/api/games/{gid}").json()["you"] else (y, x)
    gone.get(f"/api/games/{gid}")  # seen now
    body = refused(claimer.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    assert ABANDON_GRACE - 5 <= body["params"]["seconds"] <= ABANDON_GRACE + 1
    clock.offset = ABANDON_GRACE / 2
    body = refused(claimer.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    assert body["params"]["seconds"] <= ABANDON_GRACE / 2 + 1
    clock.offset = ABANDON_GRACE + 2  # away for the whole grace period
    r = claimer.post(f"/api/games/{gid}/claim")
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["match_over"] and v["online"]["ended"]["reason"] == "abandoned"
    assert v["online"]["ended"]["loser"] in gone.get(f"/api/games/{gid}").json()["you"]
    fp = claimer.get(f"/api/players/{gone.me['id']}").json()["fair_play"]
    assert fp == {"rated": 1, "abandoned": 1, "time": 0}
    h = gone.get(f"/api/players/{gone.me['id']}/history").json()["history"]
    assert [(x["reason"], x["won"]) for x in h] == [("abandoned", False)] and h[0]["after"] < h[0]["before"]


def test_a_live_connection_counts_while_it_is_open(app, clock, pair):
    gid, x, y = pair
    with x.websocket_connect(f"/api/games/{gid}/live") as ws:
        ws.receive_json()
        clock.offset = ABANDON_GRACE + 60
        asyncio.run(app.state.presence_keeper.tick())  # the presence round of a connected player
        refused(y.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    clock.offset = 2 * ABANDON_GRACE + 61  # the connection closed a grace period ago: nothing since
    r = y.post(f"/api/games/{gid}/claim")
    assert r.status_code == 200, r.text
    # a match decided before a real game is not rated, whoever left it
    assert y.get(f"/api/players/{x.me['id']}").json()["fair_play"] == {"rated": 0, "abandoned": 0, "time": 0}


def test_presence_written_by_one_server_process_counts_on_another(app, db, clock, pair):
    gid, x, y = pair
    other = create_app(storage=Storage(db))  # a second server process on the same database
    other.state.wall_clock = clock
    clock.offset = ABANDON_GRACE + 30
    assert x.get(f"/api/games/{gid}").status_code == 200  # X is seen by the first process
    from .players import PlayerClient

    with PlayerClient(other, base_url="http://testserver", cookies=dict(y.cookies)) as y2:
        refused(y2.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
        clock.offset = 2 * ABANDON_GRACE + 31
        assert y2.post(f"/api/games/{gid}/claim").status_code == 200


def test_a_stranger_cannot_claim_and_a_private_match_is_as_missing_to_them(app, pair):
    gid, x, y = pair
    eve = account(app, "Eve")
    refused(eve.post(f"/api/games/{gid}/claim"), 403, "not_seated")  # a lobby match is open to watchers
    g = x.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    refused(eve.post(f"/api/games/{g['id']}/claim"), 404, "not_found")
    with pytest.raises(WebSocketDisconnect) as e:
        with eve.websocket_connect(f"/api/games/{g['id']}/live") as ws:
            ws.receive_json()
    assert e.value.code == 4404
    eve.__exit__(None, None, None)

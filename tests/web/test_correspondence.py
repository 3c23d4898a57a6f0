"""Correspondence games through the API (docs/online.md, "Correspondence"): a clock of days per move
(``{"days": N}``, N in 1, 2, 3, 7) in challenges and invitations, rated in their own clock class; the
games on a player's turn (``GET /api/games?turn=mine``); a move whose days run out loses on time (the
clock keeper's ``expire`` with an injected ``now``, never a sleep)."""

from __future__ import annotations

import asyncio
import time

from nardy.flow.clock import DAY
from nardy.web.routers.online import expire

from .rated_play import play_turns
from .test_lobby import account, app, refused  # noqa: F401  (the app fixture)

CORR = {"game": "long", "length": 1, "clock": {"days": 3}, "rated": True}


def _pair(app):  # noqa: F811
    ann, bob = account(app, "Ann"), account(app, "Bob")
    r = ann.post("/api/lobby/challenges", json={**CORR, "colour": "white"})
    assert r.status_code == 201, r.text
    ch = r.json()["challenge"]
    assert ch["clock_class"] == "correspondence" and ch["clock"] == {"days": 3}
    v = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}).json()
    return ann, bob, v


def test_a_correspondence_challenge_is_rated_in_its_own_class_with_days_per_move(app):  # noqa: F811
    ann, bob, v = _pair(app)
    assert v["online"]["rating_class"] == "correspondence"
    assert v["clock"]["days"] == 3 and v["clock"]["initial"] == 3 * DAY
    assert ann.get("/api/ratings", params={"game": "long", "clock": "correspondence"}).status_code == 200
    # days other than 1, 2, 3, 7 are refused at the edge
    r = ann.post("/api/lobby/challenges", json={**CORR, "clock": {"days": 5}})
    assert r.status_code == 422, r.text
    # an invitation (a new online game) takes the days too
    r = ann.post("/api/games", json={"game": "long", "opponent": "online", "clock": {"days": 7}})
    assert r.status_code == 201, r.text
    assert r.json()["clock"]["days"] == 7


def test_your_turn_lists_the_games_where_the_asker_is_to_act_and_only_those(app):  # noqa: F811
    ann, bob, v = _pair(app)
    gid = v["id"]
    v = play_turns((ann, bob), gid, turns=1)
    mover, other = (ann, bob) if v["to_act"] == 0 else (bob, ann)
    mine = mover.get("/api/games", params={"turn": "mine"}).json()["games"]
    assert [g["id"] for g in mine] == [gid]
    assert mine[0]["opponent"] == other.me["name"] and mine[0]["you"] == v["to_act"]
    due = mine[0]["clock_due"]
    assert due is not None and 3 * DAY - 60 < _ts(due) - time.time() <= 3 * DAY
    assert other.get("/api/games", params={"turn": "mine"}).json()["games"] == []
    assert mover.get("/api/games", params={"turn": "theirs"}).status_code == 422
    # the mover rolls (still their turn) and plays: the game moves to the other's list
    v = play_turns((ann, bob), gid, turns=2)
    now_mover = ann if v["to_act"] == 0 else bob
    assert [g["id"] for g in now_mover.get("/api/games?turn=mine").json()["games"]] == [gid]


def test_a_move_whose_days_run_out_loses_the_match_on_time(app):  # noqa: F811
    ann, bob, v = _pair(app)
    gid = v["id"]
    mover = ann if v["to_act"] in ann.get(f"/api/games/{gid}").json()["you"] else bob
    assert asyncio.run(expire(app, gid, time.time() + 3 * DAY - 120)) is False  # still in time
    assert asyncio.run(expire(app, gid, time.time() + 3 * DAY + 5)) is True
    v = mover.get(f"/api/games/{gid}").json()
    assert v["match_over"] and v["online"]["ended"]["reason"] == "time"
    assert v["match_winner"] not in v["you"]
    assert mover.get("/api/games?turn=mine").json()["games"] == []


def _ts(iso: str) -> float:
    import datetime as dt

    return dt.datetime.fromisoformat(iso).timestamp()

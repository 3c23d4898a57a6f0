"""The pause between the games of a clocked online match (issue 43 "Between games and after the match";
docs/online.md "Between games"): the server holds it (the view's ``"pause": {"until", "seconds"}``, nobody to act,
no clock running), a seated player's ``next`` starts the next game at once, and the clock keeper starts it by
itself at ``until`` (the stored game's ``clock_due`` is then). An unclocked match starts its next game at once."""

from __future__ import annotations

import datetime as _dt

import pytest

from nardy.flow.table import BETWEEN_GAMES
from nardy.web.app import create_app
from nardy.web.routers.online import expire
from nardy.web.store.storage import Storage

from .test_lobby import guest


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(storage=Storage(f"sqlite:///{tmp_path_factory.mktemp('between') / 'between.db'}"))


@pytest.fixture
def pair(app):
    ann, bob = guest(app, "Ann"), guest(app, "Bob")
    yield ann, bob
    for c in (ann, bob):
        c.__exit__(None, None, None)


def start(ann, bob, clock="blitz") -> str:
    body = {"game": "long", "opponent": "online", "length": 3, "clock": clock}
    g = ann.post("/api/games", json=body).json()
    assert bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).status_code == 200
    return g["id"]


def end_first_game(ann, bob, gid: str) -> dict:
    """The side to act resigns game 1 (a single game), the other accepts; returns the accepter's view."""
    v = ann.get(f"/api/games/{gid}").json()
    mover, other = (ann, bob) if v["to_act"] in v["you"] else (bob, ann)
    v = mover.get(f"/api/games/{gid}").json()
    r = mover.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = other.get(f"/api/games/{gid}").json()
    r = other.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200, r.text
    return r.json()


def _t(iso: str) -> float:
    return _dt.datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def test_a_clocked_match_pauses_between_games_with_no_clock_running_until_a_player_continues(app, pair):
    ann, bob = pair
    gid = start(ann, bob)
    v = end_first_game(ann, bob, gid)
    assert v["match_over"] is False and v["game_number"] == 1 and v["last_game"]["number"] == 1
    assert v["pause"]["seconds"] == BETWEEN_GAMES
    assert 0 < _t(v["pause"]["until"]) - v["clock"]["server_time"] <= BETWEEN_GAMES
    assert v["clock"]["running"] is None and v["to_act"] is None
    left = v["clock"]["remaining"]
    seen = ann.get(f"/api/games/{gid}").json()  # the other player sees the same pause
    assert seen["pause"] == v["pause"] and seen["clock"]["remaining"] == left
    stored = app.state.storage.get(gid)
    assert stored.clock_due is not None and abs(stored.clock_due.timestamp() - _t(v["pause"]["until"])) < 0.01
    r = ann.post(f"/api/games/{gid}/actions", json={"action": "next", "seq": seen["seq"]})
    assert r.status_code == 200, r.text
    nv = r.json()
    assert nv["game_number"] == 2 and nv["pause"] is None and nv["to_act"] in (0, 1)
    assert nv["clock"]["running"] == nv["to_act"]
    assert nv["clock"]["remaining"][1 - nv["to_act"]] == pytest.approx(left[1 - nv["to_act"]], abs=0.01)


def test_the_server_starts_the_next_game_by_itself_when_the_pause_is_over(app, pair):
    ann, bob = pair
    gid = start(ann, bob)
    v = end_first_game(ann, bob, gid)
    until = _t(v["pause"]["until"])
    assert ann.portal.call(expire, app, gid, until - 0.5) is False  # not yet
    assert ann.get(f"/api/games/{gid}").json()["game_number"] == 1
    assert ann.portal.call(expire, app, gid, until + 0.1) is True
    nv = bob.get(f"/api/games/{gid}").json()
    assert nv["game_number"] == 2 and nv["pause"] is None and nv["clock"]["running"] == nv["to_act"]
    stale = ann.post(f"/api/games/{gid}/actions", json={"action": "next", "seq": v["seq"]})
    assert stale.status_code == 409  # a Continue sent after the server went on: a stale state, nothing done


def test_an_unclocked_match_starts_its_next_game_at_once(pair):
    ann, bob = pair
    gid = start(ann, bob, clock="none")
    v = end_first_game(ann, bob, gid)
    assert v["game_number"] == 2 and v["pause"] is None and v["last_game"]["number"] == 1

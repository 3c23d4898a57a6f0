"""Ending online matches with someone gone (docs/online.md "Fair play", issue 43 item 2): either player may abort
a match, rated or casual, before each side has taken 2 turns (no result, unrated, idempotent); a casual match can
be claimed too once the absent player's grace time is over (won by the claimer, unrated)."""

from __future__ import annotations

import time

from nardy.web.store.community import Community

from .rated_play import play_turns
from .test_lobby import BLITZ, account, app, refused  # noqa: F401  (fixtures)

CASUAL = {**BLITZ, "rated": False}


def _pair(app, settings):  # noqa: F811
    ann, bob = account(app, "Ann"), account(app, "Bob")
    ann.post("/api/lobby/quick", json=settings)
    gid = bob.post("/api/lobby/quick", json=settings).json()["game"]
    return ann, bob, gid


def test_either_player_may_abort_a_rated_match_in_its_first_plays_with_no_result(app):  # noqa: F811
    ann, bob, gid = _pair(app, BLITZ)
    play_turns((ann, bob), gid, turns=1)  # one turn each: still abortable
    cat = account(app, "Cat")
    refused(cat.post(f"/api/games/{gid}/abort"), 403, "not_seated")
    r = bob.post(f"/api/games/{gid}/abort")
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["match_over"] and v["match_winner"] is None
    assert v["online"]["ended"] == {"reason": "aborted", "winner": None, "loser": None}
    again = bob.post(f"/api/games/{gid}/abort")  # idempotent: the same ending
    assert again.status_code == 200 and again.json()["online"]["ended"]["reason"] == "aborted"
    assert ann.get(f"/api/games/{gid}").json()["online"]["ended"]["reason"] == "aborted"  # stored
    refused(ann.post(f"/api/games/{gid}/claim"), 409, "match_over")
    for c in (ann, bob):  # no rating, no fair-play count
        fp = c.get(f"/api/players/{c.me['id']}").json()["fair_play"]
        assert fp["rated"] == 0 and fp["abandoned"] == 0, fp
        assert c.get(f"/api/players/{c.me['id']}/history").json()["history"] == []


def test_a_match_cannot_be_aborted_once_each_side_has_taken_two_turns(app):  # noqa: F811
    ann, bob, gid = _pair(app, CASUAL)
    play_turns((ann, bob), gid, turns=2)
    body = refused(ann.post(f"/api/games/{gid}/abort"), 409, "too_late")
    assert body["params"]["turns"] == 2
    assert ann.get(f"/api/games/{gid}").json()["status"] == "playing"


def test_a_casual_match_is_claimed_after_the_grace_period_and_won_unrated(app):  # noqa: F811
    ann, bob, gid = _pair(app, CASUAL)
    v = play_turns((ann, bob), gid)
    gone, claimer = (ann, bob) if v["to_act"] in ann.get(f"/api/games/{gid}").json()["you"] else (bob, ann)
    app.state.abandon_grace = 0.5
    Community(app.state.storage).touch([(gone.me["id"], gid)])
    refused(claimer.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    time.sleep(0.7)
    r = claimer.post(f"/api/games/{gid}/claim")
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["online"]["ended"]["reason"] == "abandoned" and not v["online"]["rated"]
    assert v["match_winner"] == claimer.get(f"/api/games/{gid}").json()["you"][0]
    assert claimer.get(f"/api/players/{claimer.me['id']}/history").json()["history"] == []  # unrated


def test_the_view_tells_who_won_the_last_game_and_how_in_the_pause_and_after_the_next_one_began(app):  # noqa: F811
    ann, bob, gid = _pair(app, {**CASUAL, "length": 3})
    v = ann.get(f"/api/games/{gid}").json()
    assert v["last_game"] is None and v["game_number"] == 1
    mover, other = (ann, bob) if v["to_act"] in v["you"] else (bob, ann)
    r = mover.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = other.get(f"/api/games/{gid}").json()
    r = other.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = r.json()
    # a clocked match: the server holds the pause between games (tests/web/test_between_games.py)
    assert v["game_number"] == 1 and v["pause"] is not None and not v["match_over"]
    won = other.get(f"/api/games/{gid}").json()["you"][0]
    last = {
        "number": 1,
        "winner": won,
        "level_name": v["result_names"][0],
        "points": 1,
        "cube": 1,
        "reason": "resign",
    }
    assert v["last_game"] == last and v["score"][won] == 1
    r = mover.post(f"/api/games/{gid}/actions", json={"action": "next", "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["game_number"] == 2 and v["pause"] is None  # the next game began
    assert v["last_game"] == last and v["score"][won] == 1

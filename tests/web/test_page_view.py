"""What the game view tells the page for a player's sake (issue 19): why a checker cannot move (the rule,
docs/rules.md), what a resignation loses (level x cube, Jacoby), the match's settings for a new match,
the strongest computer by default, a guest named in the player's language."""

from __future__ import annotations

import pytest

from nardy.web.app import create_app
from nardy.web.routers.games import NewGame
from nardy.web.sessions import new_session
from nardy.web.store.storage import Storage
from tests.web.players import PlayerClient


def test_a_second_checker_from_the_head_is_blocked_by_the_head_rule():
    # long nardy, 5-3 (not a doubles exception): after 24/21 the head may not give another checker
    s = new_session("long", level="random", seed=3)
    v = s.view(numbering="absolute")
    assert v["dice"] == [3, 5] and v["blocked"] == {}
    s.act("step", frm=24, to=21)
    v = s.view(numbering="absolute")
    assert v["moves"] == {"21": [16]}
    assert v["blocked"] == {"24": [{"code": "head_limit", "params": {}}]}


def test_a_checker_whose_points_are_closed_says_which():
    # backgammon 5-3 after 24/21: the 5 from 24 lands on the opponent's point 19, the 5 from 6 on point 1
    s = new_session("backgammon", level="random", seed=5)
    s.act("step", frm=24, to=21)
    v = s.view()
    assert v["blocked"]["24"] == [{"code": "closed_point", "params": {"point": "19"}}]
    assert v["blocked"]["6"] == [{"code": "closed_point", "params": {"point": "1"}}]
    assert "13" not in v["blocked"] and "13" in v["moves"]


def test_resigning_loses_the_level_times_the_cube():
    s = new_session("backgammon", opponent="human", seed=2, options={"cube": True})
    v = s.view()
    while "double" not in v["actions"]:
        g = s.game
        if v["phase"] == "move":
            s.act("play", play=str(g.legal_plays()[0]))
        else:
            s.act("roll")
        v = s.view()
    assert v["resign_points"] == [1, 2, 3]
    s.act("double")
    s.act("take")
    assert s.view()["resign_points"] == [2, 4, 6]


def test_jacoby_counts_a_single_game_until_the_cube_is_turned():
    s = new_session("backgammon", opponent="human", seed=2, jacoby=True, options={"cube": True})
    v = s.view()
    assert v["settings"]["jacoby"] and "resign" in v["actions"] and v["resign_points"] == [1, 1, 1]


def test_the_view_carries_the_match_settings_for_a_new_match():
    s = new_session("short", level="random", seed=1, length=3, crawford=False, auto_roll=False)
    st = s.view()["settings"]
    assert st == {
        "opponent": "bot",
        "crawford": False,
        "jacoby": False,
        "beavers": False,
        "cube_limit": None,
        "auto_roll": False,
    }


def test_the_strongest_computer_by_default_as_in_nardy_play():
    assert NewGame().level == "grandmaster"
    assert new_session("backgammon", seed=1, run=False).settings["level"] == "grandmaster"


@pytest.mark.parametrize(("lang", "name"), [("en", "Guest"), ("ru", "Гость")])
def test_a_guest_made_by_a_first_game_is_named_in_the_players_language(tmp_path, lang, name):
    app = create_app(storage=Storage(f"sqlite:///{tmp_path / 'g.db'}"), allow_seeds=True)
    with PlayerClient(app) as c:
        r = c.post("/api/games", json={"game": "long", "level": "random", "seed": 1}, headers={"Accept-Language": lang})
        assert r.status_code in (200, 201), r.text
        assert c.get("/api/me").json()["user"]["name"] == name

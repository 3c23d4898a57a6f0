"""Cube decisions on clear-cut positions (money and match), and the match equity tables."""

from __future__ import annotations

import dataclasses

import pytest

from nardy import Position
from nardy.bots import Bot
from nardy.bots.cubeful import CubeState, janowski_equity
from nardy.bots.met import get_met


def _huge_race_lead():
    # mover: 4 checkers on the 1- and 2-points (2 rolls at most); opponent: 8 checkers on its 6-point
    # and 7 off (no gammon, needs 4 rolls or more)
    m = [11, 2, 2] + [0] * 23
    o = [7, 0, 0, 0, 0, 0, 8] + [0] * 19
    return Position.from_boards(m, o, "backgammon")


def test_huge_racing_lead_doubles_and_is_passed():
    pos = _huge_race_lead()
    d = Bot("backgammon", level="advanced").cube_action(pos)
    assert d.probabilities.win > 0.9
    assert d.double and not d.take and d.action == "double"


def test_opening_position_no_double_take():
    d = Bot("backgammon", level="advanced").cube_action(Position.start("backgammon"))
    assert not d.double and d.take and d.action == "no double"


def test_game_and_match_states():
    from nardy.game import Game
    from nardy.match import Match

    bot = Bot("backgammon", level="advanced")
    g = Game("backgammon")
    g.start()
    d = bot.cube_action(g)
    assert d.action in ("double", "no double") and not d.double
    m = Match("backgammon", length=5)
    m.new_game(start=True)
    d = bot.cube_action(m)
    assert not d.double and d.take
    assert 0.0 <= d.equities["no double"] <= 1.0


def test_match_huge_lead_and_crawford():
    pos = _huge_race_lead()
    bot = Bot("backgammon", level="advanced")

    state = CubeState(pos)  # the side on roll is player 0, centred cube
    d = bot.cube_action(state, score=(0, 0), match_length=7)
    assert d.double and not d.take
    d = bot.cube_action(dataclasses.replace(state, crawford=True, score=(0, 6), length=7))
    assert not d.double and d.reason == "Crawford game: nobody may double"
    with pytest.raises(TypeError):
        bot.cube_action(object())


def test_met_tables():
    met = get_met("backgammon")
    assert met.name == "Kazaross-XG2"
    assert met.mwc(1, 2) == pytest.approx(0.67736)
    assert met.mwc(2, 1, post_crawford=True) == pytest.approx(0.48803)
    assert met.mwc(5, 5) == pytest.approx(0.5)
    for game in ("short", "long"):
        t = get_met(game)
        assert t.mwc(3, 3) == pytest.approx(0.5)
        assert t.mwc(1, 5) > t.mwc(2, 5) > t.mwc(3, 5) > 0.5 > t.mwc(5, 3)
        assert t.mwc(4, 7) + t.mwc(7, 4) == pytest.approx(1.0)


def test_janowski_limits():
    # dead cube = cubeless equity; live cube at the take point = -1
    assert janowski_equity(0.6, 1.0, 1.0, 0.0, "centre") == pytest.approx(0.2)
    assert janowski_equity(0.2, 1.0, 1.0, 1.0, "centre") == pytest.approx(-1.0)
    assert janowski_equity(0.8, 1.0, 1.0, 1.0, "centre") == pytest.approx(1.0)


def test_game_in_double_phase_gets_take_or_pass():
    from nardy.game import Game

    bot = Bot("backgammon", level="advanced")
    g = Game.from_position(_huge_race_lead(), turn=1)
    d = bot.cube_action(g)
    assert d.action == "double" and d.double
    g.double()
    d = bot.cube_action(g)
    assert d.action == "pass" and not d.take
    g = Game.from_position(Position.start("backgammon"), turn=0)
    g.double()
    assert bot.cube_action(g).action == "take"


def test_nardy_cube_off_by_default():
    from nardy.game import Game

    g = Game.from_position(Position.start("short"), turn=0)
    d = Bot("short", level="advanced").cube_action(g)
    assert not d.double and d.reason


def test_double_match_point_cube_is_dead():
    from nardy.bots.cubeful import decide, match_cube_decision

    probs = [0.52385, 0.15, 0.01, 0.12, 0.01]
    eqs = match_cube_decision(probs, (1, 2, 3), 0.68, "centre", 1, 1, 1, get_met("backgammon"))
    assert eqs["no double"] == pytest.approx(0.52385)  # any win decides the match: cubeless chances
    assert eqs["double/take"] == pytest.approx(0.52385)
    assert decide(eqs) == (False, True)

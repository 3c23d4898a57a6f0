"""Cube decisions on clear-cut positions (money and match), and the match equity tables."""

from __future__ import annotations

import dataclasses

import pytest

from nardy import Position
from nardy.flow.bot import Bot
from nardy.flow.cubetheory import CubeState, janowski_equity
from nardy.flow.met import get_met


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
    from nardy.flow.game import Game
    from nardy.flow.match import Match

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
    from nardy.flow.game import Game

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
    from nardy.flow.game import Game

    g = Game.from_position(Position.start("short"), turn=0)
    d = Bot("short", level="advanced").cube_action(g)
    assert not d.double and d.reason


def test_double_match_point_cube_is_dead():
    from nardy.flow.cubetheory import decide, match_cube_decision

    probs = [0.52385, 0.15, 0.01, 0.12, 0.01]
    eqs = match_cube_decision(probs, (1, 2, 3), 0.68, "centre", 1, 1, 1, get_met("backgammon"))
    assert eqs["no double"] == pytest.approx(0.52385)  # any win decides the match: cubeless chances
    assert eqs["double/take"] == pytest.approx(0.52385)
    assert decide(eqs) == (False, True)


# Match play: live take points by cube level from the match equity table (gnubg's Cl2CfMatch model).
# Reference figures: bgsage 1-ply ``batch_cube_action`` (jacoby=False, beaver=False) on positions of gnubg
# self-play, its normalised match equities (a win of the current cube = +1, a loss = -1); the same model
# with the same Kazaross-XG2 table, so they agree to float precision.
_BGSAGE_MATCH = [
    # (away me, away opponent), cubeless probs (win, wg, wbg, lg, lbg), ND, DT, bgsage's action
    ((5, 2), (0.5592911, 0.1942645, 0.0175466, 0.1245014, 0.0055143), 0.4180387, 0.4471357, "Double/Take"),
    ((4, 4), (0.6448095, 0.2171625, 0.0085063, 0.0755084, 0.0032237), 0.6924801, 0.8262029, "Double/Take"),
    ((2, 3), (0.9229097, 0.0466896, 0.0018177, 0.0012923, 0.0), 1.0270110, 2.4354396, "No Double"),
    ((3, 5), (0.9229097, 0.0466896, 0.0018177, 0.0012923, 0.0), 0.9941684, 1.8110294, "Double/Pass"),
]


def _normalised(v, away_me, away_opp, met):
    win, lose = met.mwc(away_me - 1, away_opp), met.mwc(away_me, away_opp - 1)
    return 2 * (v - lose) / (win - lose) - 1


@pytest.mark.parametrize("away,probs,nd,dt,action", _BGSAGE_MATCH)
def test_match_cubeful_equity_uses_live_match_take_points(away, probs, nd, dt, action):
    from nardy.flow.cubetheory import decide, match_cube_decision

    met = get_met("backgammon")
    eqs = match_cube_decision(probs, (1, 2, 3), 0.68, "centre", away[0], away[1], 1, met)
    assert _normalised(eqs["no double"], *away, met) == pytest.approx(nd, abs=2e-5)
    assert _normalised(eqs["double/take"], *away, met) == pytest.approx(dt, abs=2e-5)
    assert _normalised(eqs["double/pass"], *away, met) == pytest.approx(1.0)
    double, take = decide(eqs)
    assert action == ("No Double" if not double else "Double/Take" if take else "Double/Pass")


def test_match_too_good_to_double_at_two_away_three_away():
    # 92% with 5% gammons at 2-away 3-away: playing on for the gammon (which wins the match) beats cashing
    from nardy.flow.cubetheory import CubeDecision, decide, match_cube_decision

    away, probs = _BGSAGE_MATCH[2][0], _BGSAGE_MATCH[2][1]
    eqs = match_cube_decision(probs, (1, 2, 3), 0.68, "centre", away[0], away[1], 1, get_met("backgammon"))
    double, take = decide(eqs)
    assert not double and not take
    assert CubeDecision(double, take, "no double", eqs).too_good


def test_match_take_point_two_away_two_away_is_the_crawford_equity():
    # gammonless at 2-away 2-away the redoubled cube is dead (double match point): the taker needs
    # 1 - MWC(1-away, 2-away Crawford) = 32.264% (Kazaross-XG2); below it the double is a pass
    from nardy.flow.cubetheory import decide, match_cube_decision

    met = get_met("backgammon")
    for p, expect in ((0.55, (True, True)), (0.67, (True, True)), (0.69, (True, False))):
        eqs = match_cube_decision((p, 0.0, 0.0, 0.0, 0.0), (1, 2, 3), 0.68, "centre", 2, 2, 1, met)
        assert decide(eqs) == expect
        assert eqs["double/take"] == pytest.approx(p)  # dead cube after the double: cubeless chances
    eqs = match_cube_decision((0.67736, 0.0, 0.0, 0.0, 0.0), (1, 2, 3), 0.68, "centre", 2, 2, 1, met)
    assert eqs["double/take"] == pytest.approx(eqs["double/pass"], abs=1e-9)


def test_cube_decisions_use_the_level_search_depth():
    # the cube formula is fed the level's own depth: 0-ply advanced, 1-ply expert, 2-ply grandmaster
    pos = Position.from_id("4HPwATDgc/ABMA", "backgammon")
    for level, ply in (("advanced", 0), ("expert", 1), ("grandmaster", 2)):
        bot = Bot("backgammon", level=level)
        got = bot.cube_action(pos).probabilities.array
        assert list(got) == pytest.approx(list(bot.evaluate(pos, ply=ply).array), abs=1e-6)
    gm = Bot("backgammon", level="grandmaster")
    assert gm.cube_action(pos).probabilities.win != pytest.approx(gm.evaluate(pos, ply=1).win, abs=1e-6)


# Post-Crawford (docs/rules.md "Doubling cube and matches", the Crawford rule): the leader 1 away, the trailer on roll.
def test_post_crawford_trailer_doubles_at_once():
    # the trailer's cube can only gain: at the opening position every trailer 2..7 away doubles
    from nardy.flow.cubetheory import CubeState

    bot = Bot("backgammon", level="advanced")
    pos = Position.start("backgammon")
    for away in range(2, 8):
        d = bot.cube_action(CubeState(pos, score=(7 - away, 6), length=7))
        assert d.double and d.action == "double", away


def test_post_crawford_leader_take_point_is_the_dead_cube_mwc():
    # trailer 2 away: after the double any game decides the match (the cube is dead for both sides), so
    # DT is the trailer's cubeless chance and DP the double-match-point 50%: the leader takes exactly
    # when the trailer's P(win) is at most 1/2
    from nardy.flow.cubetheory import decide, match_cube_decision

    met = get_met("backgammon")
    for p, take in ((0.49, True), (0.51, False)):
        eqs = match_cube_decision((p, 0.0, 0.0, 0.0, 0.0), (1, 2, 3), 0.68, "centre", 2, 1, 1, met)
        assert eqs["double/take"] == pytest.approx(p)
        assert eqs["double/pass"] == pytest.approx(0.5)
        assert decide(eqs) == (True, take)


def test_post_crawford_free_drop_at_four_away_not_three_away():
    # dropping leaves the trailer 4 away at 3 away post-Crawford, 32.264% against 31.002% at 4 away
    # (Kazaross-XG2): the drop gains it a little, so the leader passes a 55% game that it takes when the
    # trailer is 3 away (dropping then leaves it 2 away, 48.8%)
    from nardy.flow.cubetheory import decide, match_cube_decision

    met = get_met("backgammon")
    assert met.mwc(3, 1, post_crawford=True) > met.mwc(4, 1, post_crawford=True)
    probs = (0.55, 0.13, 0.005, 0.13, 0.005)
    eqs = match_cube_decision(probs, (1, 2, 3), 0.68, "centre", 4, 1, 1, met)
    assert eqs["double/pass"] == pytest.approx(met.mwc(3, 1, post_crawford=True))
    assert decide(eqs) == (True, False)
    eqs = match_cube_decision(probs, (1, 2, 3), 0.68, "centre", 3, 1, 1, met)
    assert eqs["double/pass"] == pytest.approx(met.mwc(2, 1, post_crawford=True))
    assert decide(eqs) == (True, True)


def test_decision_margins_are_in_units_of_the_current_cube():
    from nardy.flow.cubetheory import decision_margins

    money = {"no double": 0.7, "double/take": 0.9, "double/pass": 1.0}
    assert decision_margins(money) == pytest.approx((0.2, 0.1))
    # match winning chances: losing the cube 0.3, winning it 0.7 -> a margin of 0.02 MWC is 0.1 normalised
    match = {"no double": 0.6, "double/take": 0.62, "double/pass": 0.7}
    assert decision_margins(match, lose1=0.3, win1=0.7) == pytest.approx((0.1, 0.4))


def test_champion_decides_a_close_cube_again_at_three_ply():
    # money, centred cube: at 2-ply the take is close (margin 0.004 < CUBE_CLOSE_MARGIN) and taken; the
    # 3-ply probabilities make it a pass (margin -0.006), as bgsage 3-ply says (DT 1.003 against DP 1.00;
    # bench/results/backgammon/bg-cube-match-bgsage3-seed17-2026-12-06.json)
    from nardy.flow.bot import CUBE_CLOSE_MARGIN

    pos = Position.from_id("au9DBADs3icAAA", "backgammon")
    gm = Bot("backgammon", level="grandmaster").cube_action(pos)
    assert gm.double and gm.take and abs(gm.margins[1]) < CUBE_CLOSE_MARGIN
    champion = Bot("backgammon", level="champion")
    d = champion.cube_action(pos)
    assert d.double and not d.take
    assert list(d.probabilities.array) == pytest.approx(list(champion.evaluate(pos, ply=3).array), abs=1e-6)


def test_champion_keeps_a_clear_cube_decision_at_two_ply():
    champion = Bot("backgammon", level="champion")
    pos = Position.start("backgammon")
    d = champion.cube_action(pos)
    assert d.action == "no double" and d.margins[0] < -0.2
    assert list(d.probabilities.array) == pytest.approx(list(champion.evaluate(pos, ply=2).array), abs=1e-6)

"""The check of a set-up position (nardy.rules.setup): each impossible thing named by its code."""

from __future__ import annotations

import pytest

from nardy.rules.errors import InvalidPositionError
from nardy.rules.position import Position
from nardy.rules.setup import Setup, boards_from_points, setup_position, setup_problems


def codes(s: Setup) -> list[str]:
    return [p.code for p in setup_problems(s)]


def start(game: str) -> Setup:
    p = Position.start(game)
    return Setup(game, p.mover, p.opponent)


def with_(s: Setup, **kw) -> Setup:
    return Setup(**{**s.__dict__, **kw})


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_the_starting_position_has_no_problem(game):
    s = start(game)
    assert setup_problems(s) == []
    assert setup_position(s) == Position.start(game)


def test_fifteen_checkers_a_side_counting_bar_and_off():
    s = start("backgammon")
    m = list(s.mover)
    m[6] -= 1  # 14 checkers
    assert codes(with_(s, mover=m)) == ["checker_count"]
    m[25] += 1  # one on the bar: 15 again
    assert codes(with_(s, mover=m)) == []
    o = list(s.opponent)
    o[0] = 1  # one borne off besides the 15 on the board: 16
    problems = setup_problems(with_(s, opponent=o))
    assert [p.code for p in problems] == ["checker_count"]
    assert "opponent has 16 checkers" in problems[0].detail


def test_a_point_held_by_both_sides_backgammon():
    s = start("backgammon")
    m, o = list(s.mover), list(s.opponent)
    m[6] -= 1
    m[5] = 1  # mover's 5 is the opponent's 20
    assert codes(with_(s, mover=m)) == []
    o[13] -= 1
    o[20] = 1
    problems = setup_problems(with_(s, mover=m, opponent=o))
    assert [p.code for p in problems] == ["both_sides_on_point"]
    assert "point 5 (the opponent's 20)" in problems[0].detail


def test_long_nardy_a_point_held_by_both_sides_uses_long_nardys_mapping():
    # the opponent's head (own 24) is the mover's 12: one mover checker there makes it held by both
    s = start("long")
    m = list(s.mover)
    m[24] -= 1
    m[12] = 1
    problems = setup_problems(with_(s, mover=m))
    assert [p.code for p in problems] == ["both_sides_on_point"]
    assert "point 12 (the opponent's 24)" in problems[0].detail


def test_long_nardy_has_no_bar():
    s = start("long")
    m = list(s.mover)
    m[24] -= 1
    m[25] = 1
    assert codes(with_(s, mover=m)) == ["bar_in_long_nardy"]
    m = list(start("backgammon").mover)
    m[24] -= 1
    m[25] = 1
    assert codes(with_(start("backgammon"), mover=m)) == []


def test_finished_sides():
    s = start("backgammon")
    off = [15] + [0] * 25
    assert codes(with_(s, mover=off)) == ["mover_finished"]
    assert codes(with_(s, opponent=off)) == ["opponent_finished"]
    assert codes(with_(s, mover=off, opponent=off)) == ["both_borne_off"]


def test_long_nardy_six_block_with_no_opponent_checker_ahead():
    # the mover holds its 13..18 (the opponent's 1..6, its home) while all 15 of the opponent's are on its
    # head: six points in a row with nobody ahead, which the six-block rule never lets be made
    m = [0] * 26
    for p in range(13, 19):
        m[p] = 2
    m[24] = 3
    s = Setup("long", m, Position.start("long").opponent)
    problems = setup_problems(s)
    assert [p.code for p in problems] == ["six_block"]
    assert "6 points in a row" in problems[0].detail
    # one opponent checker past the block (borne off) makes it legal
    o = [1] + [0] * 23 + [14, 0]
    assert codes(Setup("long", m, o)) == []
    # five points in a row are always allowed
    m5 = list(m)
    m5[13], m5[24] = 0, 5
    assert codes(Setup("long", m5, Position.start("long").opponent)) == []


def test_dice_cube_and_score():
    s = start("backgammon")
    assert codes(with_(s, dice=(0, 7))) == ["dice_range"]
    assert codes(with_(s, dice=(6, 6))) == []
    assert codes(with_(s, cube=3)) == ["cube_value"]
    assert codes(with_(s, cube=8192)) == ["cube_value"]
    assert codes(with_(s, cube=4, cube_owner=1)) == []
    assert codes(with_(s, score=(3, 1), length=3)) == ["score_not_below_length"]
    assert codes(with_(s, score=(2, 1), length=3)) == []
    assert codes(with_(s, score=(1, 0))) == ["score_in_money"]
    assert codes(with_(s, crawford=True)) == ["crawford_needs_match"]
    assert codes(with_(s, score=(1, 0), length=3, crawford=True)) == ["crawford_score"]
    assert codes(with_(s, score=(2, 0), length=3, crawford=True)) == []
    assert codes(with_(s, score=(2, 0), length=3, crawford=True, cube=2)) == ["cube_in_crawford"]


def test_long_nardy_is_set_up_without_the_cube():
    s = start("long")
    assert codes(with_(s, cube=2)) == ["cube_in_long_nardy"]
    assert codes(with_(s, cube_owner=0)) == ["cube_in_long_nardy"]
    assert codes(with_(start("short"), cube=2, cube_owner=0)) == []


def test_setup_position_refuses_with_every_problem_listed():
    s = start("backgammon")
    m = list(s.mover)
    m[6] -= 1
    with pytest.raises(InvalidPositionError) as e:
        setup_position(with_(s, mover=m, cube=3))
    assert e.value.code == "checker_count"
    assert [p["code"] for p in e.value.params["problems"]] == ["checker_count", "cube_value"]


def test_boards_from_wildbg_points():
    pts = [0] * 26
    pts[6], pts[19], pts[25], pts[0] = 5, -3, 1, -2
    m, o = boards_from_points(pts, "backgammon")
    assert m[6] == 5 and m[25] == 1 and m[0] == 9
    assert o[6] == 3 and o[25] == 2 and o[0] == 10
    m, o = boards_from_points(pts, "backgammon", off=(0, 0))
    assert m[0] == 0 and codes(Setup("backgammon", m, o)) == ["checker_count", "checker_count"]
    # long nardy: the mover's 12 is the opponent's head
    pts = [0] * 26
    pts[24], pts[12] = 15, -15
    m, o = boards_from_points(pts, "long")
    assert m[24] == 15 and o[24] == 15

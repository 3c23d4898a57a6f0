"""The rules of docs/rules.md, one test (or a few) per rule, with the worked examples it gives."""

import pytest

from nardy import (
    IllegalPlayError,
    InvalidDiceError,
    InvalidOptionError,
    InvalidPositionError,
    Position,
    UnknownGameError,
    get_rules,
)
from nardy.flow.game import Game
from nardy.rules.dice import FixedDice
from tests.helpers import plays, pos

START_BG = "4HPwATDgc/ABMA"


# ----- Board, points, views ---------------------------------------------------------------------


def test_start_position_backgammon_id():
    assert Position.start("backgammon").id() == START_BG
    assert Position.start("short").id() == START_BG


def test_start_position_layout_and_pips():
    p = Position.start("backgammon")
    assert p.mover == (0,) + tuple({24: 2, 13: 5, 8: 3, 6: 5}.get(i, 0) for i in range(1, 25)) + (0,)
    assert p.pip_count() == (167, 167)
    lp = Position.start("long")
    assert lp.mover[24] == 15 and lp.opponent[24] == 15
    assert lp.pip_count() == (360, 360)
    assert lp.first_turn == (True, True)


def test_long_nardy_opponent_head_is_my_point_12():
    lp = Position.start("long")
    assert lp.board[12] == -15 and lp.board[24] == 15


def test_mirror_is_an_involution_and_swaps_sides():
    for game in ("backgammon", "short", "long"):
        p = Position.start(game).legal_plays((6, 2))[0].result
        m = p.mirror()
        assert m.mirror() == p
        assert m.mover == p.opponent and m.opponent == p.mover
        assert m.pip_count() == p.pip_count()[::-1]


def test_mirror_equals_position_built_with_sides_swapped():
    p = pos("backgammon", {25: 1, 20: 2, 6: 3}, {25: 2, 3: 1, 18: 4})
    q = Position.from_boards(p.opponent, p.mover, "backgammon")
    assert p.mirror() == q
    assert plays(p.mirror(), (4, 2)) == plays(q, (4, 2))


def test_validation_fifteen_checkers_and_shared_points():
    with pytest.raises(InvalidPositionError, match="at most 15"):
        pos("backgammon", {6: 16})
    with pytest.raises(InvalidPositionError, match="both sides"):
        pos("backgammon", {6: 2}, {19: 1})  # opponent's 19 is my 6
    with pytest.raises(InvalidPositionError, match="bar"):
        pos("long", {25: 1})
    with pytest.raises(InvalidPositionError, match="both sides"):
        pos("long", {12: 1}, {24: 1})  # opponent's head is my 12
    with pytest.raises(InvalidPositionError, match="first turn"):
        pos("long", {24: 14, 1: 1}, {24: 15}, first_turn=(True, True))


def test_rules_lookup_by_alias_and_options():
    assert get_rules("long-nardy").name == "long"
    assert get_rules("narde").name == "long"
    assert get_rules("trictrac").name == "short"
    assert get_rules("Short-Nardy").strict_bear_off is True
    assert get_rules("backgammon").cube is True and get_rules("long").cube is False
    assert get_rules("backgammon").opening == "use-opening-dice" and get_rules("long").opening == "reroll"
    assert get_rules("short").scoring == (1, 2, 4, 8)
    assert get_rules("long", **{"head-exception": "none"}).head_exception == "none"
    assert get_rules("short", scoring="1/2/3/4").scoring == (1, 2, 3, 4)
    with pytest.raises(UnknownGameError, match="'chess'"):
        get_rules("chess")
    with pytest.raises(InvalidOptionError, match="opening"):
        get_rules("long", opening="first")
    with pytest.raises(InvalidOptionError, match="unknown option"):
        get_rules("long", colour="red")


def test_dice_must_be_two_integers_one_to_six():
    p = Position.start()
    for bad in ((0, 1), (7, 1), (1,), "x", None, (1.5, 2), (True, 2)):
        with pytest.raises(InvalidDiceError):
            p.legal_plays(bad)
    assert plays(p, "31") == plays(p, (1, 3))


# ----- Rules shared by all three games ----------------------------------------------------------


def test_rule1_double_gives_four_steps():
    p = Position.start("backgammon")
    assert "24/18(2) 13/7(2)" in plays(p, (6, 6)) and "13/7(2) 8/2(2)" in plays(p, (6, 6))
    assert all(len(pl.steps) == 4 for pl in p.legal_plays((6, 6)))
    lp = pos("long", {24: 10, 20: 5}, {24: 15}, first_turn=(False, True))
    assert all(len(pl.steps) == 4 for pl in lp.legal_plays((1, 1)))


def test_rule2_step_passes_over_anything_but_never_lands_on_two_opponent_checkers():
    # opponent's 19 = my 6 (two checkers: closed), opponent's 18 = my 7 (a blot: may be hit)
    p = pos("backgammon", {10: 1, 1: 14}, {19: 2, 18: 1})
    assert plays(p, (4, 3)) == ["10/7*/3"]
    assert plays(p, (4, 4)) == [""]
    # long nardy: a single opponent checker closes the point (opponent's 16 = my 4)
    lp = pos("long", {10: 1, 1: 14}, {16: 1, 24: 14}, first_turn=(False, False))
    assert plays(lp, (6, 1)) == ["10/3"]
    assert [s.to for s in lp.legal_plays((6, 1))[0].steps] == [9, 3]


def test_rule3_as_many_dice_as_possible():
    # 13/7 alone would leave the 1 unplayable (my 6 closed, checkers on 1 cannot bear off): not a play
    p = pos("backgammon", {13: 1, 20: 1, 1: 13}, {19: 2, 1: 13})
    assert plays(p, (6, 1)) == ["20/13", "20/14 13/12", "20/19 13/7"]


def test_rule3_larger_die_must_be_played_if_either_but_not_both():
    # Mover: one checker on my 8 only (rest borne off is impossible before home... use long nardy, no bar)
    # Long nardy: mover has 14 off? We need 15 checkers: put 14 checkers on my 1 (home) and one on 8.
    # Opponent blocks my 2 and my 3: 8/2 (6) closed, 8/3 (5) closed -> neither die from 8 directly...
    # Instead: opponent on my 7 and my 1? my 1 holds mine. Let 8/2 open, 8/3 open, then 2-5 / 3-6 need
    # bear-off with a checker left on... all home after the first step, so bear-off is allowed: both dice.
    # Use the bar: backgammon, checker on the bar, entry 6 -> my 19, entry 5 -> my 20, both open, and after
    # entering every further step is blocked.
    opp = {25 - p: 2 for p in (13, 14, 15, 16, 17, 18)}  # my 13..18 closed
    opp.update({25 - 24: 3})  # my 24 closed (opponent's 1)
    p = pos("backgammon", {25: 1, 1: 14}, opp)
    # enter with 6 -> my 19 then 5 from 19 -> 14 closed; enter with 5 -> my 20 then 6 from 20 -> 14 closed
    # 1-point checkers cannot move (bar first, then 1/off is not allowed: not all home)
    assert plays(p, (6, 5)) == ["bar/19"]


def test_rule3_smaller_die_when_only_it_can_be_played():
    opp = {25 - p: 2 for p in (13, 14, 15, 16, 17)}  # my 13..17 closed
    opp[25 - 19] = 2  # my 19 closed: the 6 cannot enter
    p = pos("backgammon", {25: 1, 1: 14}, opp)
    assert plays(p, (6, 5)) == ["bar/20"]


def test_rule3_no_play_passes_the_turn():
    opp = {25 - p: 2 for p in (19, 20, 21, 22, 23)}
    opp[25 - 24] = 5
    p = pos("backgammon", {25: 2, 1: 13}, opp)
    (only,) = p.legal_plays((6, 5))
    assert only.steps == () and only.result == p and str(only) == ""


def test_rule3_applies_to_the_game_ending_play_backgammon():
    p = pos("backgammon", {6: 1}, {24: 1, 1: 14})  # opponent's 24 = my 1
    assert plays(p, (6, 5)) == ["6/1*/off"]


def test_rule4_same_position_is_one_play_and_any_spelling_parses():
    p = pos("backgammon", {4: 1}, {12: 15})
    assert plays(p, (2, 2)) == ["4/off"]
    pl = p.legal_plays((2, 2))[0]
    assert p.parse_play("4/off", (2, 2)) == pl
    assert p.parse_play("4/2/off", (2, 2)) == pl
    assert p.parse_play("4/0", (2, 2)) == pl
    s = Position.start()
    assert len({x.result for x in s.legal_plays((3, 1))}) == len(s.legal_plays((3, 1))) == 16


def test_rule5_bear_off_checked_before_every_step():
    # a checker comes home with one die and the next die bears off: 7/6/off (= 7/1/off)
    assert plays(pos("backgammon", {7: 1, 6: 2}, {12: 15}), (1, 6)) == ["7/1 6/5", "7/off"]


def test_rule5_larger_die_bears_off_from_highest_and_must_move_inside_otherwise():
    assert plays(pos("backgammon", {4: 1, 2: 1}, {12: 15}), (6, 5)) == ["4/off 2/off"]
    # the 4-point is empty and the 6 is occupied: the 4 must move 6/2, it cannot bear off from 2
    q = pos("backgammon", {6: 1, 2: 1}, {12: 15})
    assert plays(q, (4, 1)) == ["6/1"]
    assert plays(q, (4, 3)) == ["6/off"]


def test_rule6_game_ends_when_last_checker_is_off():
    p = pos("backgammon", {1: 1}, {12: 15})
    (pl,) = p.legal_plays((6, 6))
    assert len(pl.steps) == 1 and pl.result.is_game_over()
    assert Position.start().legal_plays((3, 1))[0].result.is_game_over() is False


def test_rule6_finished_game_has_no_plays():
    p = pos("backgammon", {}, {12: 15})
    assert p.legal_plays((3, 1)) == []


# ----- Hitting games ----------------------------------------------------------------------------


def test_hit_sends_blot_to_bar():
    p = pos("backgammon", {13: 1, 6: 14}, {15: 1, 1: 14})  # opponent's 15 = my 10
    assert plays(p, (3, 2)) == ["13/10* 6/4", "13/10*/8", "13/11 6/3", "13/8", "6/1", "6/4 6/3"]
    hit = p.parse_play("13/10*/8", (3, 2))
    assert hit.result.opponent[25] == 1 and hit.result.board[10] == 0 and hit.hits == 1


def test_bar_must_enter_before_any_other_checker_moves():
    p = Position.from_id("4HPwATDgc/ABMA")
    m = list(p.mover)
    m[24] -= 1
    m[25] += 1
    q = Position.from_boards(m, p.opponent)
    for pl in q.legal_plays((6, 4)):
        assert pl.steps[0].frm == 25


def test_entry_on_point_25_minus_die():
    opp = {25 - 20: 2}  # my 20 closed: the 5 cannot enter
    p = pos("backgammon", {25: 1, 6: 14}, {**opp, 1: 13})
    assert all(pl.steps[0].to != 20 for pl in p.legal_plays((5, 3)))
    assert plays(p, (5, 5)) == [""]


def test_hitting_is_not_compulsory():
    p = pos("backgammon", {13: 2, 6: 13}, {15: 1, 1: 14})
    assert plays(p, (3, 1)) == ["13/10* 6/5", "13/10*/9", "13/12 13/10*", "13/12 6/3", "13/9", "6/2", "6/5 6/3"]


def test_hit_checker_on_bar_blocks_bear_off():
    p = pos("backgammon", {25: 1, 2: 14}, {12: 15})
    assert all(pl.steps[0].frm == 25 for pl in p.legal_plays((2, 1)))
    assert plays(p, (2, 1)) == ["bar/22", "bar/23 2/1"]


# ----- Short nardy strict bear-off (seed 003 rule 26) -------------------------------------------


def test_short_strict_bear_off_six_one():
    p = pos("short", {6: 1, 3: 2, 2: 2}, {12: 15})
    res = plays(p, (6, 1))
    assert all(r.startswith("6/off") for r in res)
    assert "6/5/off" not in res and "6/off 3/2" in res
    assert "6/off" not in res  # in backgammon 6/5/off would print as 6/off
    assert "6/off" in plays(p.__class__.from_boards(p.mover, p.opponent, "backgammon"), (6, 1))


def test_short_strict_bear_off_game_ending_blot():
    p = pos("short", {6: 1}, {24: 1, 1: 14})
    assert plays(p, (6, 5)) == ["6/off"]


def _left_and_steps(position, dice):
    """Each legal play as (the mover's checkers left {point: count}, its steps (from, to, die))."""
    out = []
    for pl in position.legal_plays(dice):
        left = {q: int(n) for q, n in enumerate(pl.result.mover) if 1 <= q <= 24 and n}
        out.append((left, [(st.frm, st.to, st.die) for st in pl.steps]))
    return sorted(out, key=repr)


@pytest.mark.parametrize(
    ("mine", "expected", "backgammon_left"),
    [
        # 5/1 joins the unmoved checker on 1: one 4 bears that one off; the checker that moved may not be
        # borne off by the 4 (larger than its point 1), so the last two 4s are lost
        ({5: 1, 1: 1}, [({1: 1}, [(5, 1, 4), (1, 0, 4)])], {}),
        # two unmoved checkers on 1: two 4s bear them off, the moved one stays
        ({5: 1, 1: 2}, [({1: 1}, [(5, 1, 4), (1, 0, 4), (1, 0, 4)])], {}),
        # both checkers from 5 join one unmoved checker on 1: only that one is borne off
        ({5: 2, 1: 1}, [({1: 2}, [(5, 1, 4), (5, 1, 4), (1, 0, 4)])], {1: 1}),
    ],
)
def test_short_strict_bear_off_moved_checker_joining_unmoved_ones_is_not_borne_off_by_a_larger_die(
    mine, expected, backgammon_left
):
    # docs/rules.md, short nardy bear-off: a checker that has already moved this turn may not be borne off
    # by a die larger than the point it stands on, even where unmoved checkers share its point
    p = pos("short", mine, {6: 5, 7: 5, 8: 5})
    assert _left_and_steps(p, (4, 4)) == expected
    # backgammon's standard rule (GNU Backgammon): any checker goes off, as many as the four 4s allow
    bg = pos("backgammon", mine, {6: 5, 7: 5, 8: 5})
    assert [left for left, _ in _left_and_steps(bg, (4, 4))] == [backgammon_left]
    # entered step by step: after the steps of the legal play no step is left (the moved checker stays)
    g = Game.from_position(p, dice=FixedDice([4, 4]))
    g.roll()
    for frm, to, _die in expected[0][1]:
        g.step(frm, to)
    assert g.legal_steps() == [] and g.can_confirm()


def test_strict_bear_off_is_an_option():
    p = pos(get_rules("short", strict_bear_off=False), {6: 1}, {24: 1, 1: 14})
    assert plays(p, (6, 5)) == ["6/1*/off"]
    q = pos(get_rules("backgammon", strict_bear_off=True), {6: 1}, {24: 1, 1: 14})
    assert plays(q, (6, 5)) == ["6/off"]


# ----- Long nardy ---------------------------------------------------------------------------------


def test_long_head_rule_one_checker_per_turn():
    p = pos("long", {24: 14, 18: 1}, {24: 15}, first_turn=(False, True))
    for pl in p.legal_plays((5, 2)):
        assert sum(1 for s in pl.steps if s.frm == 24) <= 1


@pytest.mark.parametrize(
    "dice,expected",
    [
        ((6, 6), ["24/18(2)"]),
        ((4, 4), ["24/16(2)"]),
        ((3, 3), ["24/21 24/15", "24/18(2)"]),
        ((5, 5), ["24/4"]),
    ],
)
def test_long_head_exception_first_turn(dice, expected):
    assert plays(Position.start("long"), dice) == sorted(expected)


def test_long_seed002_example_black_44_after_white_55():
    white = Position.start("long")
    after = white.parse_play("24/4", (5, 5)).result.mirror()
    assert after.first_turn == (True, False)
    assert plays(after, (4, 4)) == ["24/20"]


def test_long_head_exception_options():
    always = get_rules("long", head_exception="always")
    none = get_rules("long", head_exception="none")
    white = Position.start(always)
    after = white.parse_play("24/4", (5, 5)).result.mirror()
    assert plays(after, (4, 4)) == ["24/20(2)"]  # two may leave; White's checker stops both
    assert plays(Position.start(none), (6, 6)) == ["24/12"][:0] + plays(Position.start(none), (6, 6))
    assert all(sum(s.frm == 24 for s in pl.steps) == 1 for pl in Position.start(none).legal_plays((6, 6)))
    assert plays(Position.start(none), (6, 6)) == ["24/18"]


def test_long_head_exception_only_on_first_turn():
    p = Position.start("long").with_first_turn((False, True))
    assert plays(p, (6, 6)) == ["24/18"]


def test_long_no_hitting_single_opponent_checker_closes_point():
    p = pos("long", {24: 14, 20: 1}, {24: 14, 9: 1}, first_turn=(False, False))  # opp 9 -> my 21
    assert not any(s.to == 21 for pl in p.legal_plays((3, 1)) for s in pl.steps)


def test_long_six_block_forbidden_without_opponent_checker_ahead():
    # my 1..5 occupied; moving a checker to 6 makes a six-block 1..6 (opponent route 13..18 of theirs)
    mover = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 9: 1, 24: 4}
    # all opponent checkers behind the block: on their 24 (my 12) and their 20 (my 8): q numbers 24, 20
    p = pos("long", mover, {24: 14, 20: 1})
    assert not any(pl.result.board[6] > 0 for pl in p.legal_plays((3, 1)))


def test_long_six_block_allowed_with_opponent_checker_ahead():
    mover = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 9: 1, 24: 4}
    # opponent checker on their 10 = my ((10+11)%24)+1 = 22; the run 1..6 is their 13..18; 10 < 13: ahead
    p = pos("long", mover, {24: 14, 10: 1})
    assert any(pl.result.board[6] > 0 for pl in p.legal_plays((3, 1)))


def test_long_six_block_in_passing_is_forbidden():
    # 7/6/5 would make the six-block 1..6 "in passing" (the 6 step) even though 6/5 breaks it again
    mover = {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 7: 1, 24: 4}
    p = pos("long", mover, {24: 15}, first_turn=(False, True))
    res = plays(p, (1, 1))
    assert "24/22 7/5" not in res and "24/22 2/1(2)" in res and "7/5 2/1(2)" in res
    # with an opponent checker ahead of the run (their 5 = my 17, past their 13..18) it is legal
    q = pos("long", mover, {24: 14, 5: 1}, first_turn=(False, False))
    assert "24/22 7/5" in plays(q, (1, 1))


def test_long_six_block_across_opponent_start_is_two_runs():
    import numpy as np

    from nardy.rules import _movegen as _core

    b = np.zeros(28, np.int8)
    b[1] = 9
    b[8] = -15  # opponent's 20: behind every run below
    for p in (9, 10, 11, 12, 13, 14):  # six points in a row on the board, across my 12|13
        b[p] = 1
    assert not _core.six_block_illegal(b, 14)  # their 21..24 and their 1..2: two runs
    b[9:15] = 0
    for p in (13, 14, 15, 16, 17, 18):  # their 1..6: one run, nobody ahead
        b[p] = 1
    assert _core.six_block_illegal(b, 18)
    b[27] = 1  # a borne-off opponent checker counts as ahead
    b[8] = -14
    assert not _core.six_block_illegal(b, 18)


def test_long_bear_off_home_is_points_1_to_6():
    p = pos("long", {6: 1, 1: 1}, {24: 15}, first_turn=(False, True))
    assert plays(p, (6, 1)) == ["6/off", "6/off 1/off"]  # 6/5/off, or both off
    q = pos("long", {7: 1, 1: 1}, {24: 15}, first_turn=(False, True))
    assert plays(q, (6, 1)) == ["7/off"]


# ----- Notation -----------------------------------------------------------------------------------


def test_notation_prints_standard_forms():
    p = Position.start()
    assert "8/4(2) 6/2(2)" in plays(p, (4, 4)) and "24/16(2)" in plays(p, (4, 4))
    assert "24/18/13" not in plays(p, (6, 5)) and "24/13" in plays(p, (6, 5))


def test_parse_play_accepts_bar_25_and_hit_marks_optional():
    opp = {1: 14, 25 - 22: 1}
    p = pos("backgammon", {25: 1, 6: 14}, opp)
    a = p.parse_play("bar/22* 6/5", (3, 1))
    assert p.parse_play("25/22 6/5", (1, 3)) == a
    assert p.parse_play("bar/22 6/5", (3, 1)) == a
    assert str(p.parse_play("25/22 6/5", (3, 1))) == "bar/22* 6/5"


def test_parse_play_multi_pip_hop_with_doubles():
    p = Position.start()
    assert str(p.parse_play("13/3 13/8 8/3", (5, 5))) == "13/3(2)"
    assert p.parse_play("13/3(2)", (5, 5)) == p.parse_play("13/8/3 13/3", (5, 5))
    assert p.parse_play("13/8 13/8 8/3 8/3", (5, 5)) == p.parse_play("13/3(2)", (5, 5))


def test_parse_play_errors_quote_input_roll_and_id():
    p = Position.start()
    with pytest.raises(IllegalPlayError) as e:
        p.parse_play("13/7", (6, 1))
    msg = str(e.value)
    assert "'13/7'" in msg and "6-1" in msg and START_BG in msg
    with pytest.raises(IllegalPlayError, match="no checker"):
        p.parse_play("20/14 8/7", (6, 1))
    with pytest.raises(IllegalPlayError):
        p.parse_play("13/7 13/7", (6, 1))
    with pytest.raises(IllegalPlayError, match="bad point|not a point"):
        p.parse_play("13/x", (6, 1))
    with pytest.raises(IllegalPlayError, match="backwards"):
        p.parse_play("7/13", (6, 1))


def test_parse_play_ambiguous_hop_needs_hit_mark():
    # 13/8 with 3-2: through 10 (blot: hit) or through 11 (empty) -> two different positions
    p = pos("backgammon", {13: 1, 6: 14}, {25 - 10: 1, 1: 14})
    # standard notation writes a hit in passing, so plain "13/8" is the quiet reading
    assert p.parse_play("13/8", (3, 2)).hits == 0
    assert p.parse_play("13/10*/8", (3, 2)).hits == 1
    assert p.parse_play("13/11/8", (3, 2)).hits == 0


def test_long_nardy_absolute_numbering():
    black = Position.start("long").parse_play("24/4", (5, 5)).result.mirror()
    pl = black.parse_play("12/8", (4, 4), numbering="absolute", side="black")
    assert str(pl) == "24/20" and pl.notation("absolute", "black") == "12/8"


def test_validation_rejects_fractional_counts_and_non_boolean_first_turn_flags():
    with pytest.raises(InvalidPositionError, match="whole numbers"):
        Position.from_boards([0.5] * 26, [0] * 26)
    with pytest.raises(InvalidPositionError, match="booleans"):
        Position.start("long").with_first_turn("no")


def test_scoring_option_must_be_a_non_decreasing_scale():
    with pytest.raises(InvalidOptionError, match="never decreasing"):
        get_rules("short", scoring=[3, 2, 1, 1])
    with pytest.raises(InvalidOptionError):
        get_rules("backgammon", scoring=[1, 2, 10**30])


def test_parse_play_bear_off_before_all_home_says_why():
    with pytest.raises(IllegalPlayError, match="cannot bear off"):
        Position.start().parse_play("6/off", (3, 1))

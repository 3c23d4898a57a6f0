"""FIBS board lines (nardy.records.fibsboard): GNU Backgammon's own lines read and written back byte for byte,
boards built from positions met in play read back to the same position, and plays written in GNU Backgammon's
move notation read back to the same legal play."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.records.fibsboard import board_for, format_board, parse_board, play_text, read_play
from nardy.rules.errors import IllegalPlayError, InvalidDiceError, InvalidPositionError, NotationError
from nardy.rules.position import Position
from tests.helpers import random_positions

# lines GNU Backgammon 1.07.001 sent to an external player (tests/external/test_external.py has their stories)
GNUBG_LINES = [
    "board:gnubg:root:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:3:6:3:1:1:1:0:1:-1:0:25:"
    "0:0:0:0:0:0:1:1",
    "board:gnubg:root:5:0:0:0:0:0:0:-1:0:6:0:3:0:0:-1:-4:3:-1:0:0:-2:2:-4:-2:0:0:0:0:1:1:3:5:3:5:1:1:1:0:1:-1:0:25:"
    "0:0:0:0:0:0:0:1",
    "board:gnubg:root:3:0:0:0:1:1:1:-2:2:4:0:2:0:2:0:0:0:0:-2:0:-3:0:-3:2:-3:-2:0:0:0:1:0:0:0:0:2:1:0:0:1:-1:0:25:"
    "0:0:0:0:0:0:0:1",
    "board:root:gnubg:5:1:0:0:0:1:0:3:2:3:0:0:-2:0:0:0:2:0:0:0:-2:-2:-2:-3:2:-2:-2:2:0:-1:0:0:0:0:1:1:1:1:1:-1:0:25:"
    "0:0:0:0:0:0:0:1",
]


@pytest.mark.parametrize("line", GNUBG_LINES)
def test_a_gnubg_line_is_written_back_byte_for_byte(line):
    fb = parse_board(line)
    assert format_board(fb) == line
    assert parse_board(format_board(fb)) == fb


def test_the_counts_fields_of_a_built_board_follow_the_board():
    # root on the bar (1 checker): field 46 (the player's bar) of a built board is worked out from the board
    fb = parse_board(GNUBG_LINES[1])
    assert fb.checkers(1)[25] == 1
    assert fb.counts == (0, 0, 0, 0)  # gnubg writes zeros, kept as read
    built = format_board(board_for(fb.checkers(1), fb.checkers(-1), dice=(3, 5)))
    assert built.split(":")[1 + 46] == "1" and built.split(":")[1 + 44] == "0"


def test_the_start_position_for_6_3_is_the_fibs_start_board():
    start = Position.start("backgammon")
    fb = board_for(start.mover, start.opponent, dice=(6, 3), length=1, names=("nardy", "bot"))
    line = format_board(fb)
    assert line.startswith("board:nardy:bot:1:0:0:")
    assert fb.board == (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)
    assert (fb.turn, fb.dice, fb.opponent_dice, fb.request, fb.actor, fb.crawford) == (
        1,
        (6, 3),
        (6, 3),
        "move",
        1,
        False,
    )
    assert (fb.non_crawford, fb.post_crawford) == (1, 1)  # a 1-point match: both 1-away, no Crawford game


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_a_board_built_from_a_position_reads_back_to_it(seed):
    for pos, dice in random_positions("backgammon", 3, seed):
        fb = parse_board(
            format_board(board_for(pos.mover, pos.opponent, dice=dice, cube=4, owner=1, score=(2, 4), length=7))
        )
        assert Position.from_boards(fb.checkers(fb.actor), fb.checkers(-fb.actor)) == pos
        assert fb.dice_of(fb.actor) == dice and fb.may_double == (False, True) and fb.cube == 4
        assert fb.score_of(1) == 2 and fb.length == 7 and not fb.crawford


def test_a_waiting_double_names_the_doubler_on_turn_and_the_player_to_answer():
    pos = Position.start("backgammon")
    fb = parse_board(
        format_board(board_for(pos.mover, pos.opponent, doubled=True, cube=2, score=(0, 2), length=3, crawford=False))
    )
    assert (fb.request, fb.turn, fb.actor, fb.doubled, fb.cube) == ("take", -1, 1, 1, 2)
    assert (fb.non_crawford, fb.post_crawford) == (1, 1) and not fb.crawford
    crawford = board_for(pos.mover, pos.opponent, score=(0, 2), length=3, crawford=True)
    assert crawford.crawford and crawford.request == "double"


def test_bad_boards_are_refused():
    pos = Position.start("backgammon")
    with pytest.raises(InvalidDiceError):
        board_for(pos.mover, pos.opponent, dice=(7, 1))
    with pytest.raises(NotationError):
        board_for(pos.mover, pos.opponent, dice=(3, 1), doubled=True)
    with pytest.raises(NotationError):
        board_for(pos.mover, pos.opponent, cube=3)
    clash = list(pos.opponent)
    clash[1] = 1  # the opponent's 1 point is the player's 24, where the player has 2
    with pytest.raises(InvalidPositionError):
        board_for(pos.mover, clash)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_every_play_written_in_gnubg_notation_reads_back_to_itself(seed):
    for pos, dice in random_positions("backgammon", 4, seed, doubles_share=0.3):
        for play in pos.legal_plays(dice):
            assert read_play(pos, dice, play_text(play)).result == play.result


def test_gnubg_answers_with_a_trailing_space_and_hit_marks_are_read():
    pos = Position.start("backgammon")
    assert play_text(read_play(pos, (6, 3), "24/18 13/10 ")) == "24/18 13/10"
    assert play_text(read_play(pos, (6, 1), "13/7 8/7")) == "13/7 8/7"
    with pytest.raises(IllegalPlayError):
        read_play(pos, (6, 1), "24/18 24/23 6/5")

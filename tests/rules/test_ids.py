"""Tests of nardy.rules.ids: GNU Backgammon Position ID / Match ID, long nardy suffix, XGID."""

from __future__ import annotations

import base64
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.rules.errors import InvalidIdError, InvalidPositionError
from nardy.rules.ids import (
    START_POSITION_ID,
    START_XGID,
    MatchState,
    XgidState,
    boards_from_position_id,
    format_xgid,
    long_id_suffix,
    match_id_from_state,
    parse_xgid,
    position_id_from_boards,
    split_long_id,
    state_from_match_id,
)

gnubg_nn = pytest.importorskip("gnubg_nn")

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
START_BOARD = (0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
EMPTY = (0,) * 25


# ----------------------------------------------------------------------------
# helpers and strategies


def pid_from_bits(bits: str) -> str:
    """An ID from an arbitrary bit string (first bit = LSB of byte 0), independent of nardy."""
    bits = bits.ljust(80, "0")
    data = bytes(int(bits[i : i + 8][::-1], 2) for i in range(0, 80, 8))
    return base64.b64encode(data).decode()[:14]


def mid_from_key(key: int) -> str:
    return base64.b64encode(key.to_bytes(9, "little")).decode()


def decode_or_invalid(fn, text):
    """Call a decoder; an InvalidIdError is an allowed outcome, any other exception fails."""
    try:
        return fn(text)
    except InvalidIdError:
        return None


def board_from_points(points) -> list[int]:
    board = [0] * 25
    for p in points:
        board[p] += 1
    return board


@st.composite
def bg_boards(draw):
    """Legal-ish backgammon boards: <= 15 checkers a side, mover point p and opponent
    point 25 - p (indexes i and 23 - i) never both occupied; bars and off free."""
    mover = board_from_points(draw(st.lists(st.integers(0, 24), max_size=15)))
    opp_points = draw(st.lists(st.integers(0, 24), max_size=15))
    opponent = board_from_points(p for p in opp_points if p == 24 or not mover[23 - p])
    return tuple(mover), tuple(opponent)


def random_board(rng: random.Random) -> list[int]:
    board = [0] * 25
    for _ in range(rng.randint(0, 15)):
        board[rng.randrange(25)] += 1
    return board


match_states = st.builds(
    MatchState,
    cube_value=st.integers(0, 15).map(lambda e: 1 << e),
    cube_owner=st.sampled_from([-1, 0, 1]),
    player_on_roll=st.integers(0, 1),
    game_state=st.integers(0, 4),
    turn=st.integers(0, 1),
    double_offered=st.booleans(),
    resignation=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.just(0),
    score=st.tuples(st.integers(0, 0x7FFF), st.integers(0, 0x7FFF)),
    no_jacoby=st.booleans(),
)


@st.composite
def any_match_state(draw):
    base = draw(match_states)
    length = draw(st.integers(0, 0x7FFF))
    if length == 0:
        return base
    score = (draw(st.integers(0, length)), draw(st.integers(0, length)))
    return MatchState(**{**base.__dict__, "match_length": length, "score": score, "crawford": draw(st.booleans())})


@st.composite
def xgid_states(draw):
    mover, opponent = draw(bg_boards())
    cube_log = draw(st.integers(0, 15))
    max_log = draw(st.one_of(st.none(), st.integers(cube_log, 15)))
    length = draw(st.integers(0, 99))
    top_score = length - 1 if length else 200
    action = draw(st.sampled_from(["", "", "D", "B", "R"]))
    dice = (0, 0) if action else draw(st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))))
    return XgidState(
        mover=mover,
        opponent=opponent,
        cube_value=1 << cube_log,
        cube_owner=draw(st.sampled_from([-1, 0, 1])),
        turn=draw(st.sampled_from([-1, 1])),
        dice=dice,
        cube_action=action,
        score_bottom=draw(st.integers(0, top_score)),
        score_top=draw(st.integers(0, top_score)),
        crawford_jacoby=draw(st.integers(0, 1 if length else 3)),
        match_length=length,
        max_cube=None if max_log is None else 1 << max_log,
    )


# Bad inputs of every kind for the decoders.
NON_STR = [None, 123, 4.5, b"4HPwATDgc/ABMA", bytearray(b"cAgAAAAAAAAA"), ["4HPwATDgc/ABMA"], object()]
fuzz_text = st.one_of(
    st.text(),
    st.binary().map(lambda b: b.decode("latin-1")),
    st.binary().map(lambda b: b.decode("utf-8", errors="replace")),
    st.text(alphabet=B64, min_size=10, max_size=20),
)


# ----------------------------------------------------------------------------
# Position ID


def test_start_position_encodes_to_gnubg_start_id():
    assert position_id_from_boards(START_BOARD, START_BOARD) == "4HPwATDgc/ABMA" == START_POSITION_ID


def test_start_position_id_decodes_to_start_boards():
    assert boards_from_position_id("4HPwATDgc/ABMA") == (START_BOARD, START_BOARD)


def test_position_id_writes_opponent_before_mover_like_gnubg():
    opp = [0] * 25
    opp[0] = 1  # one opponent checker on its ace point: the very first bit
    assert position_id_from_boards(EMPTY, opp) == "AQAAAAAAAAAAAA"
    assert gnubg_nn.position_id([opp, list(EMPTY)]) == "AQAAAAAAAAAAAA"
    assert boards_from_position_id("AQAAAAAAAAAAAA") == (EMPTY, tuple(opp))


def test_position_id_empty_board_is_all_zero_bits():
    assert position_id_from_boards(EMPTY, EMPTY) == "AAAAAAAAAAAAAA"
    assert boards_from_position_id("AAAAAAAAAAAAAA") == (EMPTY, EMPTY)


def test_position_id_uses_all_80_bits_with_15_checkers_each_on_the_bar():
    bar15 = (0,) * 24 + (15,)
    pid = position_id_from_boards(bar15, bar15)
    assert pid == gnubg_nn.position_id([list(bar15), list(bar15)])
    assert boards_from_position_id(pid) == (bar15, bar15)


@given(bg_boards())
def test_position_id_round_trips_random_boards(boards):
    mover, opponent = boards
    pid = position_id_from_boards(mover, opponent)
    assert len(pid) == 14 and set(pid) <= set(B64)
    assert boards_from_position_id(pid) == (mover, opponent)


def test_position_id_agrees_with_gnubg_nn_on_random_boards():
    rng = random.Random(20240611)
    for _ in range(3000):
        mover, opponent = random_board(rng), random_board(rng)
        pid = position_id_from_boards(mover, opponent)
        assert pid == gnubg_nn.position_id([opponent, mover])
        opp_g, mov_g = gnubg_nn.board_from_position_id(pid)
        assert boards_from_position_id(pid) == (tuple(mov_g), tuple(opp_g))


def test_position_id_encoder_accepts_numpy_boards():
    np = pytest.importorskip("numpy")
    board = np.array(START_BOARD, dtype=np.int8)
    assert position_id_from_boards(board, board) == START_POSITION_ID


@pytest.mark.parametrize(
    "board",
    [
        [1] * 16 + [0] * 9,  # 16 checkers
        [-1] + [0] * 24,  # negative count
        [0] * 24,  # 24 slots
        [0] * 26,  # Position's 26-slot layout is not gnubg's
        [0.5] + [0] * 24,  # not an integer
        None,
    ],
)
def test_position_id_encoder_rejects_impossible_boards(board):
    with pytest.raises(InvalidPositionError):
        position_id_from_boards(board, EMPTY)
    with pytest.raises(InvalidPositionError):
        position_id_from_boards(EMPTY, board)


@pytest.mark.parametrize(
    "pid, reason",
    [
        ("", "14 characters"),
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("4HPwATDgc/ABMA==", "14 characters"),
        ("4HPwATDgc/AB=A", "base64"),
        ("4HPwATDgc-ABMA", "base64"),
        ("4HPwATDgc_ABMA", "base64"),
        ("4HPwATDgc ABMA", "base64"),
        ("4HPwATDgc/ABMé", "base64"),
        ("4HPwATDgc/ABMB", "unused low bits"),  # padding bits of the last character
        ("4HPwATDgc/ABMP", "unused low bits"),
    ],
)
def test_position_id_decoder_rejects_bad_length_and_characters(pid, reason):
    with pytest.raises(InvalidIdError, match=reason) as info:
        boards_from_position_id(pid)
    assert repr(pid) in str(info.value)  # the message quotes the input


def test_position_id_decoder_rejects_more_than_15_checkers_a_side():
    sixteen = "1" * 16 + "0" * 50  # 16 opponent checkers on its ace point
    with pytest.raises(InvalidIdError, match="16 checkers"):
        boards_from_position_id(pid_from_bits(sixteen))
    mover16 = "0" * 25 + "1" * 16 + "0" * 25
    with pytest.raises(InvalidIdError, match="mover has 16"):
        boards_from_position_id(pid_from_bits(mover16))


def test_position_id_decoder_rejects_fewer_than_50_separators():
    # 31 ones leave only 49 zeros within 80 bits
    bits = "1" * 15 + "0" * 24 + "1" * 16 + "0" * 25
    with pytest.raises(InvalidIdError, match="separators"):
        boards_from_position_id(pid_from_bits(bits))


def test_position_id_decoder_rejects_junk_bits_after_the_50th_separator():
    bits = "0" * 50 + "1"  # a one after the last slot
    with pytest.raises(InvalidIdError, match="after the 50th"):
        boards_from_position_id(pid_from_bits(bits))
    last_bit = "0" * 79 + "1"
    with pytest.raises(InvalidIdError):
        boards_from_position_id(pid_from_bits(last_bit))


@pytest.mark.parametrize("value", NON_STR)
def test_position_id_decoder_rejects_non_str(value):
    with pytest.raises(InvalidIdError, match="must be a str"):
        boards_from_position_id(value)


@settings(max_examples=300)
@given(fuzz_text)
def test_position_id_decoder_raises_only_invalid_id_error(text):
    decode_or_invalid(boards_from_position_id, text)


@settings(max_examples=300)
@given(st.text(alphabet=B64, min_size=14, max_size=14))
def test_position_id_accepted_ids_are_canonical(text):
    boards = decode_or_invalid(boards_from_position_id, text)
    if boards is not None:
        assert position_id_from_boards(*boards) == text


# ----------------------------------------------------------------------------
# long nardy suffix


@pytest.mark.parametrize(
    "mover_first, opponent_first, suffix",
    [
        (True, True, ":F11"),
        (True, False, ":F10"),
        (False, True, ":F01"),
        (False, False, ":F00"),
    ],
)
def test_long_suffix_holds_first_turn_flags_mover_then_opponent(mover_first, opponent_first, suffix):
    assert long_id_suffix(mover_first, opponent_first) == suffix
    assert split_long_id(START_POSITION_ID + suffix) == (START_POSITION_ID, (mover_first, opponent_first))


def test_long_suffix_absent_gives_no_flags():
    assert split_long_id(START_POSITION_ID) == (START_POSITION_ID, None)


def test_long_nardy_start_position_encodes_with_own_numbering():
    head = (0,) * 23 + (15, 0)  # both sides: 15 on their own 24 (the head)
    pid = position_id_from_boards(head, head)
    assert pid == "AACA/z8AAID/Pw"
    assert boards_from_position_id(pid) == (head, head)
    text = pid + long_id_suffix(True, True)
    assert split_long_id(text) == (pid, (True, True))


@pytest.mark.parametrize(
    "text",
    [
        START_POSITION_ID + ":F1",
        START_POSITION_ID + ":F102",
        START_POSITION_ID + ":F12",
        START_POSITION_ID + ":f10",
        START_POSITION_ID + ":G10",
        START_POSITION_ID + "xF10",
        START_POSITION_ID + ":cAgAAAAAAAAA",
        START_POSITION_ID + ":F10\n",
        "4HPwATDgc/ABM:F10",
        "",
    ],
)
def test_long_suffix_rejects_malformed_suffixes(text):
    with pytest.raises(InvalidIdError):
        split_long_id(text)


@pytest.mark.parametrize("value", NON_STR)
def test_long_suffix_split_rejects_non_str(value):
    with pytest.raises(InvalidIdError):
        split_long_id(value)


@given(fuzz_text)
def test_long_suffix_split_raises_only_invalid_id_error(text):
    decode_or_invalid(split_long_id, text)


# ----------------------------------------------------------------------------
# Match ID


def test_match_id_manual_example_9_point_match_2_4_player_0_owns_2_cube_player_1_rolled_52():
    state = MatchState(
        cube_value=2,
        cube_owner=0,
        player_on_roll=1,
        crawford=False,
        game_state=1,
        turn=1,
        double_offered=False,
        resignation=0,
        dice=(5, 2),
        match_length=9,
        score=(2, 4),
    )
    assert match_id_from_state(state) == "QYkqASAAIAAA"
    assert state_from_match_id("QYkqASAAIAAA") == state


def test_match_id_cAgAAAAAAAAA_is_money_centred_cube_no_game_player_1_to_act():
    state = state_from_match_id("cAgAAAAAAAAA")
    assert state == MatchState(
        cube_value=1,
        cube_owner=-1,
        player_on_roll=1,
        crawford=False,
        game_state=0,
        turn=1,
        double_offered=False,
        resignation=0,
        dice=(0, 0),
        match_length=0,
        score=(0, 0),
    )
    assert match_id_from_state(state) == "cAgAAAAAAAAA"


def test_match_id_bit_66_jacoby_off_extension_is_kept():
    plain = state_from_match_id("cAgAAAAAAAAA")
    extended = MatchState(**{**plain.__dict__, "no_jacoby": True})
    mid = match_id_from_state(extended)
    assert mid == "cAgAAAAAAAAE"
    assert state_from_match_id(mid) == extended


@given(any_match_state())
def test_match_id_round_trips_random_states(state):
    mid = match_id_from_state(state)
    assert len(mid) == 12 and set(mid) <= set(B64)
    assert state_from_match_id(mid) == state


@pytest.mark.parametrize(
    "key, reason",
    [
        (2 << 4, "cube owner"),  # owner bits 10
        (5 << 8, "game state"),
        (7 << 8, "game state"),
        (7 << 15 | 1 << 18, "out of range"),  # die 7
        (3 << 15, "both"),  # one die rolled, the other 0
        (5 << 21 | 6 << 36, "exceeds the match length"),  # score 6 in a 5-point match
        (5 << 21 | 6 << 51, "exceeds the match length"),
        (1 << 7, "Crawford"),  # Crawford flag in money play
        (1 << 67, "bits 67-71"),
        (1 << 71, "bits 67-71"),
    ],
)
def test_match_id_decoder_rejects_impossible_fields(key, reason):
    mid = mid_from_key(key | 3 << 4)  # centred cube unless the case sets owner bits
    if reason == "cube owner":
        mid = mid_from_key(key)
    with pytest.raises(InvalidIdError, match=reason) as info:
        state_from_match_id(mid)
    assert repr(mid) in str(info.value)


@pytest.mark.parametrize(
    "mid", ["", "cAgAAAAAAAA", "cAgAAAAAAAAAA", "cAgAAAAAAAA=", "cAgAAAAA-AAA", "cAgAAAAAAAA\n", "4HPwATDgc/ABMA"]
)
def test_match_id_decoder_rejects_bad_length_and_characters(mid):
    with pytest.raises(InvalidIdError):
        state_from_match_id(mid)


@pytest.mark.parametrize("value", NON_STR)
def test_match_id_decoder_rejects_non_str(value):
    with pytest.raises(InvalidIdError, match="must be a str"):
        state_from_match_id(value)


@settings(max_examples=300)
@given(st.one_of(fuzz_text, st.text(alphabet=B64, min_size=12, max_size=12)))
def test_match_id_decoder_raises_only_invalid_id_error(text):
    state = decode_or_invalid(state_from_match_id, text)
    if state is not None:
        assert match_id_from_state(state) == text


@pytest.mark.parametrize(
    "fields",
    [
        {"cube_value": 3},
        {"cube_value": 0},
        {"cube_value": 1 << 16},
        {"cube_owner": 2},
        {"player_on_roll": 2},
        {"turn": -1},
        {"game_state": 5},
        {"resignation": 4},
        {"dice": (0, 3)},
        {"dice": (7, 1)},
        {"dice": (1, 2, 3)},
        {"match_length": -1},
        {"match_length": 1 << 15},
        {"match_length": 5, "score": (6, 0)},
        {"score": (-1, 0)},
        {"crawford": True},
        {"crawford": "yes"},
        {"cube_value": "2"},
    ],
)
def test_match_state_rejects_fields_the_match_id_cannot_hold(fields):
    with pytest.raises(InvalidIdError):
        MatchState(**fields)


def test_match_id_encoder_rejects_non_state():
    with pytest.raises(InvalidIdError):
        match_id_from_state({"cube_value": 1})


# ----------------------------------------------------------------------------
# XGID


def test_xgid_start_position_example_parses_to_the_start():
    state = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert state.mover == START_BOARD and state.opponent == START_BOARD
    assert (state.cube_value, state.cube_owner, state.turn, state.dice, state.cube_action) == (1, 0, 1, (0, 0), "")
    assert (state.score_bottom, state.score_top, state.crawford_jacoby) == (0, 0, 0)
    assert (state.match_length, state.max_cube) == (0, 1024)
    assert format_xgid(state) == START_XGID
    assert position_id_from_boards(state.mover, state.opponent) == START_POSITION_ID


def test_xgid_prefix_is_optional_on_input_and_always_written():
    state = parse_xgid(START_XGID[len("XGID=") :])
    assert format_xgid(state) == START_XGID


def test_xgid_first_char_is_top_bar_last_is_bottom_bar_and_turn_names_the_mover():
    #          top bar 'b', bottom 1 on its point 3, top 3 on bottom point 1 (= top's 24), bottom bar 'C'
    pos = "b" + "c" + "-" + "A" + "-" * 21 + "C"
    assert len(pos) == 26
    bottom = [0] * 25
    bottom[2], bottom[24] = 1, 3
    top = [0] * 25
    top[24], top[23] = 2, 3
    on_bottom = parse_xgid(f"XGID={pos}:1:1:1:52:0:0:0:0:10")
    assert on_bottom.mover == tuple(bottom) and on_bottom.opponent == tuple(top)
    assert on_bottom.cube_holder == "mover"
    on_top = parse_xgid(f"XGID={pos}:1:1:-1:52:0:0:0:0:10")
    assert on_top.mover == tuple(top) and on_top.opponent == tuple(bottom)
    assert on_top.cube_holder == "opponent"
    assert format_xgid(on_top) == f"XGID={pos}:1:1:-1:52:0:0:0:0:10"


def test_xgid_crawford_jacoby_field_means_crawford_in_a_match_jacoby_and_beaver_in_money():
    crawford = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:2:1:7:10")
    assert crawford.crawford and not crawford.jacoby
    money = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:3:0:10")
    assert money.jacoby and money.beaver and not money.crawford


@pytest.mark.parametrize(
    "text",
    [
        "XGID=-b----E-C---eE---c-e----B-:1:1:1:D:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:2:-1:-1:B:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:3:1:1:R:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:-1:31:2:4:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0",  # old form: no max cube
        "XGID=--------------------------:0:0:1:00:0:0:0:0:10",  # everything borne off
        "XGID=o------------------------O:0:0:1:66:0:0:0:0:10",  # 15 each on the bar
    ],
)
def test_xgid_examples_round_trip_exactly(text):
    assert format_xgid(parse_xgid(text)) == text


@given(xgid_states())
def test_xgid_round_trips_random_states(state):
    text = format_xgid(state)
    assert parse_xgid(text) == state
    assert format_xgid(parse_xgid(text)) == text


START_BODY = "-b----E-C---eE---c-e----B-"


@pytest.mark.parametrize(
    "text, reason",
    [
        (f"XGID={START_BODY}:0:0:1:00:0:0:0", "fields"),
        (f"XGID={START_BODY}:0:0:1:00:0:0:0:0:10:1", "fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "26 characters"),
        ("XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10", "not '-'"),  # 16 checkers
        ("XGID=-b----E-C---eE---c-e----z-:0:0:1:00:0:0:0:0:10", "not '-'"),
        ("XGID=-b----E-C---eE---c-e----2-:0:0:1:00:0:0:0:0:10", "not '-'"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "top player's bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "bottom player's bar"),
        ("XGID=-b----E-C---eE---c-e----BA:0:0:1:00:0:0:0:0:10", "16 checkers"),
        (f"XGID={START_BODY}:16:0:1:00:0:0:0:0:10", "cube exponent"),
        (f"XGID={START_BODY}:-1:0:1:00:0:0:0:0:10", "cube exponent"),
        (f"XGID={START_BODY}:4:0:1:00:0:0:0:0:3", "exceeds the max cube"),
        (f"XGID={START_BODY}:0:2:1:00:0:0:0:0:10", "cube_owner"),
        (f"XGID={START_BODY}:0:0:0:00:0:0:0:0:10", "turn"),
        (f"XGID={START_BODY}:0:0:1:07:0:0:0:0:10", "dice"),
        (f"XGID={START_BODY}:0:0:1:0:0:0:0:0:10", "dice"),
        (f"XGID={START_BODY}:0:0:1:d:0:0:0:0:10", "dice"),
        (f"XGID={START_BODY}:0:0:1:123:0:0:0:0:10", "dice"),
        (f"XGID={START_BODY}:0:0:1:00:7:0:0:7:10", "below the match length"),
        (f"XGID={START_BODY}:0:0:1:00:0:2:2:7:10", "crawford_jacoby"),
        (f"XGID={START_BODY}:0:0:1:00:0:0:4:0:10", "crawford_jacoby"),
        (f"XGID={START_BODY}:0:0:1:00:01:0:0:0:10", "not an integer"),
        (f"XGID={START_BODY}:0:0:+1:00:0:0:0:0:10", "not an integer"),
        (f"XGID={START_BODY}:0:-0:1:00:0:0:0:0:10", "not an integer"),
        (f"XGID={START_BODY}:0:0:1:00: 1:0:0:0:10", "not an integer"),
        (f"XGID={START_BODY}:0:0:1:00:0:0:0:0:١٠", "not an integer"),  # Arabic-Indic digits
        (f"XGID={START_BODY}:0:0:1:00:0:0:0:0:16", "max cube"),
        (f"xgid={START_BODY}:0:0:1:00:0:0:0:0:10", "26 characters"),
    ],
)
def test_xgid_parser_rejects_malformed_fields(text, reason):
    with pytest.raises(InvalidIdError, match=re.escape(reason)) as info:
        parse_xgid(text)
    assert text[:60] in str(info.value)  # the message quotes the input


@pytest.mark.parametrize("value", NON_STR)
def test_xgid_parser_rejects_non_str(value):
    with pytest.raises(InvalidIdError, match="must be a str"):
        parse_xgid(value)


@settings(max_examples=300)
@given(
    st.one_of(
        fuzz_text,
        st.text(alphabet="-ABCOPabcop:0123456789DBR", min_size=30, max_size=60),
        st.text(alphabet=":-019DXGI=Aa", max_size=60).map(lambda t: "XGID=" + START_BODY + t),
    )
)
def test_xgid_parser_raises_only_invalid_id_error(text):
    state = decode_or_invalid(parse_xgid, text)
    if state is not None:
        assert parse_xgid(format_xgid(state)) == state


def test_xgid_state_rejects_both_sides_on_one_point():
    mover = [0] * 25
    mover[5] = 2  # mover's 6 point ...
    opponent = [0] * 25
    opponent[18] = 1  # ... is the opponent's 19 point
    with pytest.raises(InvalidPositionError):
        XgidState(mover=mover, opponent=opponent)


@pytest.mark.parametrize(
    "fields",
    [
        {"cube_value": 3},
        {"cube_owner": 2},
        {"turn": 0},
        {"dice": (0, 4)},
        {"cube_action": "X"},
        {"cube_action": "D", "dice": (3, 1)},
        {"max_cube": 6},
        {"cube_value": 8, "max_cube": 4},
        {"match_length": 5, "score_top": 5},
        {"match_length": 5, "crawford_jacoby": 2},
        {"crawford_jacoby": 4},
    ],
)
def test_xgid_state_rejects_fields_the_xgid_cannot_hold(fields):
    with pytest.raises(InvalidIdError):
        XgidState(mover=START_BOARD, opponent=START_BOARD, **fields)


def test_xgid_formatter_rejects_non_state():
    with pytest.raises(InvalidIdError):
        format_xgid(START_XGID)

"""Point numbering (``nardy.rules.numbering``): docs/rules.md "Board, points, views" and "Notation".

The map between the two sides' own numberings, the numberings each game allows and their labels, and
the head-rule modes, each checked against the rule it implements and against every user of it (the
compiled core, :class:`~nardy.Position`, ``nardy play``'s :class:`~nardy.rules.numbering.Numbering`,
the web page's sessions).
"""

from __future__ import annotations

import numpy as np
import pytest

from nardy import InvalidOptionError, NotationError, Position, get_rules
from nardy.engine.search import Searcher, mirror_boards
from nardy.rules import _movegen as _core
from nardy.rules import numbering as N
from nardy.rules.numbering import Numbering
from nardy.rules.variants import GAMES

from ..helpers import random_positions

HITTING = {"backgammon": True, "short": True, "long": False}
POINTS = range(1, 25)


# ----- Board, points, views: the other side's point -----------------------------------------------------
def test_hitting_games_opponent_point_q_is_my_point_25_minus_q():
    assert [N.opponent_point(q, True) for q in POINTS] == [25 - q for q in POINTS]
    # the entry points: die d enters on own 25-d, which is the opponent's home point d
    assert [N.opponent_point(25 - d, True) for d in range(1, 7)] == list(range(1, 7))


def test_long_nardy_opponent_point_q_is_my_point_q_plus_11_mod_24_plus_1():
    assert [N.opponent_point(q, False) for q in POINTS] == [((q + 11) % 24) + 1 for q in POINTS]
    # the opponent's head (their 24) is my 12; their home 1-6 is my 13-18
    assert N.opponent_point(24, False) == 12
    assert sorted(N.opponent_point(q, False) for q in range(1, 7)) == list(range(13, 19))


@pytest.mark.parametrize("hitting", [True, False])
def test_each_map_is_its_own_inverse_and_a_permutation_of_the_24_points(hitting):
    image = [N.opponent_point(q, hitting) for q in POINTS]
    assert sorted(image) == list(POINTS)
    assert all(N.opponent_point(N.opponent_point(q, hitting), hitting) == q for q in POINTS)
    for owner in (0, 1):
        for viewer in (0, 1):
            for p in range(26):
                assert N.view_point(N.view_point(p, owner, viewer, hitting), owner, viewer, hitting) == p


def test_bar_25_and_off_0_are_each_sides_own_and_stay():
    for hitting in (True, False):
        assert N.opponent_point(N.BAR, hitting) == 25 and N.opponent_point(N.OFF, hitting) == 0
        assert N.view_point(25, 0, 1, hitting) == 25 and N.view_point(0, 1, 0, hitting) == 0
    for bad in (-1, 26, 100):
        with pytest.raises(ValueError):
            N.opponent_point(bad, True)
        with pytest.raises(ValueError):
            N.label("own", 0, bad)


@pytest.mark.parametrize("game", GAMES)
def test_the_map_agrees_with_position_mirror_on_every_point(game):
    hitting = HITTING[game]
    for p in POINTS:
        mover = [0] * 26
        mover[p] = 1
        pos = Position.from_boards(mover, [0] * 26, game)
        m = pos.mirror()
        # the mover's checker on p is on the other side's point opponent_point(p) after the turn passes
        assert m.array[N.opponent_point(p, hitting)] == -1
        assert m.opponent[p] == 1 and pos.mirror().mirror() == pos
    for pos, _ in random_positions(game, 40, seed=7):
        a, r = pos.array, pos.mirror().array
        assert all(int(r[N.opponent_point(p, hitting)]) == -int(a[p]) for p in POINTS)
        # the opponent's own numbering, as Position reports it
        assert all(pos.opponent[N.opponent_point(p, hitting)] == -int(a[p]) for p in POINTS if a[p] < 0)


@pytest.mark.parametrize("game", GAMES)
def test_the_compiled_map_is_the_core_map(game):
    hitting = HITTING[game]
    assert [_core.opp_point(p, hitting) for p in POINTS] == [N.opponent_point(p, hitting) for p in POINTS]
    boards = np.stack([p.array for p, _ in random_positions(game, 30, seed=3)])
    mirrored = mirror_boards(boards, hitting)
    single = _core.mirror_hitting if hitting else _core.mirror_long
    assert all((mirrored[i] == single(boards[i])).all() for i in range(len(boards)))
    for b in boards:
        assert _core.pip_counts(b, hitting) == Position(b.tobytes(), get_rules(game)).pip_count()


# ----- Notation: the numberings each game allows -----------------------------------------------------------
def test_each_game_allows_exactly_its_numberings():
    assert set(N.NUMBERINGS) == set(GAMES)
    assert N.NUMBERINGS["backgammon"] == N.NUMBERINGS["short"] == ("own", "traditional")
    assert N.NUMBERINGS["long"] == ("own", "absolute")
    assert N.games_with("absolute") == ("long",) and N.games_with("traditional") == ("backgammon", "short")
    assert N.games_with("own") == GAMES and N.games_with("roman") == ()
    for game in GAMES:
        for kind in N.SCHEMES + ("roman",):
            if kind in N.NUMBERINGS[game]:
                assert N.check_numbering(kind, game) == kind
                assert Numbering(kind, game).kind == kind
            else:
                with pytest.raises(InvalidOptionError, match=f"not available for {game}"):
                    N.check_numbering(kind, game)
                with pytest.raises(ValueError):
                    Numbering(kind, game)


def test_refused_numberings_keep_their_messages():
    with pytest.raises(ValueError, match=r"^absolute numbering is for long nardy; use own or traditional$"):
        Numbering("absolute", "backgammon")
    with pytest.raises(
        ValueError,
        match=r"^traditional numbering is for backgammon and short nardy; "
        r"use own or absolute$",
    ):
        Numbering("traditional", "long")
    with pytest.raises(ValueError, match=r"^numbering 'roman': expected one of own, absolute, traditional$"):
        Numbering("roman", "short")
    play = Position.start("short").legal_plays((3, 1))[0]
    with pytest.raises(NotationError):
        Position.start("short").parse_play("8/5 6/5", (3, 1), numbering="absolute", side="white")
    with pytest.raises(NotationError):
        play.notation("absolute", "white")
    # a play is written in traditional numbering where the game allows it (short nardy), never elsewhere
    assert str(play) == "24/23 24/21"
    assert play.notation("traditional", "white") == "01/02 01/04" and play.notation("traditional", "black") == "1/2 1/4"
    with pytest.raises(NotationError):
        Position.start("long").legal_plays((3, 1))[0].notation("traditional", "white")
    with pytest.raises(NotationError):
        play.notation("traditional", "grey")


def test_the_web_pages_numberings_are_the_core_table():
    from nardy.web import sessions

    assert sessions.NUMBERINGS is N.NUMBERINGS
    assert sessions._check_numbering(None, "long") == "own"
    with pytest.raises(InvalidOptionError, match="expected one of own, absolute"):
        sessions._check_numbering("traditional", "long")


# ----- Notation: labels ------------------------------------------------------------------------------------------
def test_own_numbering_labels_are_the_own_points_bar_and_off():
    for side in (0, 1):
        assert N.labels("own", side) == [str(p) for p in POINTS]
        for kind in N.SCHEMES:
            assert N.label(kind, side, 25) == "bar" and N.label(kind, side, 0) == "off"
            assert N.own_point(kind, side, "bar") == 25 and N.own_point(kind, side, " OFF ") == 0
    assert N.label_fn("own", 1) is None


def test_long_nardy_absolute_white_1_to_24_black_head_12_black_home_13_to_18():
    assert N.labels("absolute", 0) == [str(p) for p in POINTS]
    black = N.labels("absolute", 1)
    assert black[24 - 1] == "12"  # Black's head
    assert black[:6] == [str(a) for a in range(13, 19)]  # Black's home 1-6
    assert black == [str(((p + 11) % 24) + 1) for p in POINTS]
    assert N.label_fn("absolute", 0) is None and N.label_fn("absolute", 1)(24) == "12"
    # a fixed board numbering: both sides give the same place the same label
    assert all(N.label("absolute", 0, p) == N.label("absolute", 1, N.opponent_point(p, False)) for p in POINTS)
    for side in (0, 1):
        assert all(N.own_point("absolute", side, N.label("absolute", side, p)) == p for p in POINTS)
    # 0 and numbers out of range go through for the play parser to accept or report
    assert N.own_point("absolute", 1, "0") == 0 and N.own_point("absolute", 1, "30") == 30
    with pytest.raises(NotationError, match="is not a number"):
        N.own_point("absolute", 0, "XII")


def test_traditional_white_half_1_to_12_black_half_01_to_012_seed_003():
    # White travels 01..012 then 12..1; Black 1..12 then 012..01 (seed 003)
    assert [N.label("traditional", 0, p) for p in range(24, 0, -1)] == [f"0{i}" for i in range(1, 13)] + [
        str(i) for i in range(12, 0, -1)
    ]
    assert [N.label("traditional", 1, p) for p in range(24, 0, -1)] == [str(i) for i in range(1, 13)] + [
        f"0{i}" for i in range(12, 0, -1)
    ]
    assert N.labels("traditional", 0)[:6] == ["1", "2", "3", "4", "5", "6"]  # White's home 1-6
    assert N.labels("traditional", 1)[:6] == ["01", "02", "03", "04", "05", "06"]  # Black's home 01-06
    assert all(N.label("traditional", 0, p) == N.label("traditional", 1, N.opponent_point(p, True)) for p in POINTS)
    for side in (0, 1):
        assert all(N.own_point("traditional", side, N.label("traditional", side, p)) == p for p in POINTS)


def test_traditional_accepts_roman_numerals_for_the_black_half():
    roman = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]
    for n, r in enumerate(roman, 1):
        for word in (r, r.lower(), f"0{n}"):
            assert N.own_point("traditional", 1, word) == n
            assert N.own_point("traditional", 0, word) == 25 - n
    assert N.own_point("traditional", 0, "0") == 0 and N.own_point("traditional", 1, "25") == 25
    for bad in ("13", "013", "00", "XIII", "x1"):
        with pytest.raises(NotationError, match="point"):
            N.own_point("traditional", 0, bad)


def test_unknown_numbering_names_are_refused():
    with pytest.raises(ValueError, match="expected one of own, absolute, traditional"):
        N.label("roman", 0, 3)
    with pytest.raises(ValueError):
        N.label_fn("roman", 0)
    with pytest.raises(ValueError):
        N.own_point("roman", 0, "3")


def test_play_numbering_builds_on_the_core_labels():
    for game in GAMES:
        for kind in N.NUMBERINGS[game]:
            n = Numbering(kind, game)
            for side in (0, 1):
                assert [n.label(side, p) for p in range(26)] == [N.label(kind, side, p) for p in range(26)]
                if kind != "own":
                    assert all(n.own_point(N.label(kind, side, p), side) == p for p in POINTS)
    # the bar and off words pass through as written (the play parser reads them)
    assert Numbering("traditional", "short").own_point("B", 0) == "b"


def test_absolute_play_notation_round_trips_through_the_core_map():
    pos = Position.start("long")
    for play in pos.legal_plays((6, 5)):
        text = play.notation("absolute", "black")
        assert text == Numbering("absolute", "long").play_text(play.steps, 1)
        assert pos.parse_play(text, (6, 5), numbering="absolute", side="black") == play


# ----- Long nardy head rule: the modes ---------------------------------------------------------------------------
def test_head_exception_modes_map_one_to_one_onto_the_core_codes():
    assert N.HEAD_EXCEPTIONS == ("head-block", "always", "none")  # the default first
    assert sorted(N.HEAD_MODES.values()) == [0, 1, 2] and len(set(N.HEAD_MODES.values())) == 3
    assert (N.HEAD_MODES["none"], N.HEAD_MODES["head-block"], N.HEAD_MODES["always"]) == (
        _core.HEAD_NONE,
        _core.HEAD_BLOCK,
        _core.HEAD_ALWAYS,
    )
    assert get_rules("long").head_exception == "head-block"
    from nardy.rules import variants as rules

    assert rules.HEAD_EXCEPTIONS is N.HEAD_EXCEPTIONS
    for mode, code in N.HEAD_MODES.items():
        r = get_rules("long", head_exception=mode)
        assert N.head_mode(mode, False) == code
        assert Position.start(r)._params()[2] == code and Searcher(None, r).head_mode == code
        assert (r.code_base >> 9) & 3 == code + 1
    for game in ("backgammon", "short"):
        r = get_rules(game)
        assert N.head_mode(r.head_exception, True) == N.NO_HEAD_RULE == -1
        assert Position.start(r)._params()[2] == -1 and Searcher(None, r).head_mode == -1
        assert (r.code_base >> 9) & 3 == 0
    with pytest.raises(InvalidOptionError, match="head-exception"):
        N.head_mode("sometimes", False)


def test_head_exception_first_turn_doubles():
    # 6-6 on the first turn: two checkers from the head with head-block and always, one with none
    limits = {m: Position.start(get_rules("long", head_exception=m)).head_limit((6, 6)) for m in N.HEAD_EXCEPTIONS}
    assert limits == {"head-block": 2, "always": 2, "none": 1}
    # 5-5 is not one of the doubles: one checker whatever the mode
    assert {Position.start(get_rules("long", head_exception=m)).head_limit((5, 5)) for m in N.HEAD_EXCEPTIONS} == {1}


def test_the_terminals_old_numbering_path_is_the_one_numbering_module():
    """``nardy.tui.numbering`` (before the layer packages) is an alias of :mod:`nardy.rules.numbering`, where the
    terminal's ``Numbering`` joined the rules' numbering: one module, one ``NUMBERINGS``."""
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("nardy.tui.numbering")
    assert old.Numbering is Numbering and old.NUMBERINGS is N.NUMBERINGS
    assert Numbering("absolute", "long").relabel("24/18", 1) == "12/6"

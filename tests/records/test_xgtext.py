"""XG's text export of a position: nardy.records.xgtext reads XG's own exports (tests/data/xgtext, sources in
SOURCES.md) and writes the same layout, read back equal."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.records.xgtext import (
    XGCube,
    XGPlay,
    XGPosition,
    parse_xg_text,
    write_xg_text,
    xg_cube_from_decision,
    xg_play_from_hint,
)
from nardy.rules.errors import InvalidIdError, RecordError
from nardy.rules.position import Position

DATA = Path(__file__).resolve().parents[1] / "data" / "xgtext"


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


def _without_xgid(text: str) -> str:
    return "\n".join(ln for ln in text.splitlines() if not ln.startswith("XGID="))


# ----- XG's own exports ------------------------------------------------------------------------------


def test_checker_play_export_reads_position_dice_cube_score_and_candidates():
    x = parse_xg_text(_text("checker_match_en.txt"))
    assert x.position == Position.from_xgid("XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:10")
    assert x.position.pip_count() == (111, 52)  # as the export's "Pip count  X: 111  O: 52"
    assert (x.dice, x.cube, x.owner, x.score, x.length, x.crawford) == ((2, 1), 2, 1, (3, 6), 7, False)
    assert x.names == ("Player 1", "Player 2")
    assert [(p.play, p.equity, p.level) for p in x.plays] == [
        ("19/18 14/12", -0.491, "4-ply"),
        ("19/18 3/1", -0.556, "4-ply"),
    ]
    assert x.plays[0].probs == (0.2545, 0.0, 0.0, 0.3109, 0.0009)
    assert x.cube_analysis is None


def test_french_export_reads_the_same_as_english():
    en = parse_xg_text(_text("checker_match_en.txt"))
    fr = parse_xg_text(_text("checker_match_fr.txt"))
    assert fr.position == en.position and fr.dice == en.dice and fr.score == en.score and fr.owner == en.owner
    assert fr.plays == (XGPlay("19/18 14/12", -0.491, (0.2545, 0.0, 0.0, 0.3109, 0.0009), "4-plis"),)


def test_cube_export_reads_equities_chances_and_the_proper_action():
    x = parse_xg_text(_text("cube_match_en.txt"))
    assert x.dice is None and x.score == (0, 5) and x.length == 9 and x.plays == ()
    c = x.cube_analysis
    assert c == XGCube(
        0.337, 0.215, 1.0, cubeless=(0.103, 0.259), probs=(0.544, 0.1822, 0.0053, 0.1271, 0.0051), level="XG Roller++"
    )
    assert c.action == "no double/take"  # XG: "Best Cube action: No double / Take"


def test_redouble_export_without_diagram_names_x_the_side_on_roll():
    # XGID turn -1 (top on roll) and owner -1 (top): XG writes "X on roll" and "X own cube"
    x = parse_xg_text(_text("redouble_money_en.txt"))
    assert x.owner == 0 and x.cube == 2 and x.length == 0 and x.score is None
    assert x.names == ("Player 1", "Player 2")
    assert x.position == Position.from_xgid("XGID=--BBbBB-----aE----Be-c-bb-:1:-1:-1:00:0:0:0:0:8")
    assert x.cube_analysis.action == "no double/take"
    assert (x.cube_analysis.no_double, x.cube_analysis.double_take) == (0.172, -0.361)


def test_bar_checkers_book_level_and_money_rules_are_read():
    x = parse_xg_text(_text("bar_money_en.txt"))
    assert x.position.mover[25] == 1 and x.position.opponent[25] == 1
    assert (x.jacoby, x.beaver, x.length, x.score) == (True, True, 0, None)
    assert [(p.level, p.play, p.equity) for p in x.plays] == [
        ("Book¹", "Bar/20 13/11", 0.095),
        ("XG Roller++", "Bar/23 13/8", 0.085),
    ]


def test_crawford_export_sets_crawford():
    x = parse_xg_text(_text("crawford_match_en.txt"))
    assert (x.score, x.length, x.crawford) == ((4, 1), 5, True)
    assert x.plays[0].play == "13/7(4)" and x.plays[1].play == "13/7(2) 8/2(2)"


@pytest.mark.parametrize(
    "name",
    ["checker_match_en.txt", "checker_match_fr.txt", "cube_match_en.txt", "bar_money_en.txt", "crawford_match_en.txt"],
)
def test_diagram_alone_reads_the_same_as_the_xgid(name):
    text = _text(name)
    assert parse_xg_text(_without_xgid(text)) == parse_xg_text(text)


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.txt")))
def test_writing_an_export_reads_back_equal(name):
    x = parse_xg_text(_text(name))
    assert parse_xg_text(write_xg_text(x)) == x


def test_written_text_has_xgs_own_lines():
    """Ours is XG's layout: every line of XG's export up to the analysis comes out the same."""
    text = _text("checker_match_en.txt")
    ours = write_xg_text(parse_xg_text(text)).splitlines()
    theirs = text.splitlines()
    cut = theirs.index("eXtreme Gammon Version: 2.10, MET: Kazaross XG2")
    assert ours[:cut] == theirs[:cut]
    assert ours[cut].startswith("nardy Version: ")


def test_written_cube_analysis_has_xgs_lines():
    ours = write_xg_text(parse_xg_text(_text("cube_match_en.txt"))).splitlines()
    for line in (
        "X on roll, cube action",
        "Analyzed in XG Roller++",
        "Player Winning Chances:   54.40% (G:18.22% B:0.53%)",
        "Opponent Winning Chances: 45.60% (G:12.71% B:0.51%)",
        "Cubeless Equities: No Double=+0.103, Double=+0.259",
        "       No double:     +0.337",
        "       Double/Take:   +0.215 (-0.122)",
        "       Double/Pass:   +1.000 (+0.663)",
        "Best Cube action: No double / Take",
    ):
        assert line in ours


# ----- pasted text -------------------------------------------------------------------------------------


def test_forum_post_around_the_export_with_crlf_is_read():
    export = _text("checker_match_en.txt")
    post = (
        "Re: what's the play?\r\n\r\nI played 13/11 6/5 here.\r\n\r\n" + export.replace("\n", "\r\n") + "\r\n-- \r\nme"
    )
    assert parse_xg_text(post) == parse_xg_text(export)


def test_bare_xgid_is_a_position_without_analysis():
    x = parse_xg_text("  XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10  ")
    assert x.position == Position.start() and x.dice == (5, 2) and x.jacoby and x.beaver and x.plays == ()


def test_only_the_first_of_two_exports_is_read():
    a = _text("checker_match_en.txt")
    b = _text("cube_match_en.txt")
    assert parse_xg_text(a + "\n" + b) == parse_xg_text(a)


def test_candidate_with_whitespace_lost_in_a_web_page_is_split_into_level_and_play():
    text = (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:55:0:0:3:0:10\n"
        "1.XG Roller++Bar/10 13/8eq: +0.105\n54.21% (G:7.39% B:0.19%)\n45.79% (G:16.46% B:0.23%)\n"
    )
    (p,) = parse_xg_text(text).plays
    assert (p.level, p.play, p.equity, p.probs) == (
        "XG Roller++",
        "Bar/10 13/8",
        0.105,
        (0.5421, 0.0739, 0.0019, 0.1646, 0.0023),
    )


def test_decimal_comma_is_read():
    text = _text("checker_match_en.txt").replace("eq:-0.491", "eq:-0,491").replace("25.45%", "25,45%")
    assert parse_xg_text(text).plays[0].equity == -0.491
    assert parse_xg_text(text).plays[0].probs[0] == 0.2545


# ----- errors ------------------------------------------------------------------------------------------


def test_text_without_xgid_or_diagram_is_a_record_error_quoting_it():
    with pytest.raises(RecordError, match="no XGID line.*'hello there'"):
        parse_xg_text("hello there")


def test_malformed_xgid_is_an_invalid_id_error_quoting_it():
    with pytest.raises(InvalidIdError, match="XGID=-b----E-C---eE---c-e----Z-"):
        parse_xg_text("XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:3:0:10")


def test_pending_double_is_refused():
    with pytest.raises(RecordError, match="double is waiting"):
        parse_xg_text("XGID=-b----E-C---eE---c-e----B-:1:0:1:D:0:0:0:0:10")


def test_diagram_with_x_and_o_in_one_column_is_refused():
    text = _without_xgid(_text("checker_match_en.txt")).replace(
        " |       O          |   | X  X  X  X     X |", " |       O          |   | O  X  X  X     X |"
    )
    with pytest.raises(RecordError, match="X and O in the same column at point 6"):
        parse_xg_text(text)


def test_diagram_with_sixteen_checkers_is_refused():
    text = _without_xgid(_text("checker_match_en.txt")).replace(
        " |                  |   |          X       |", " |    X             |   |          X       |"
    )
    with pytest.raises(RecordError, match="not a backgammon position"):
        parse_xg_text(text)


def test_too_long_text_is_refused():
    with pytest.raises(RecordError, match="at most"):
        parse_xg_text("x" * 200_001)


def test_unreadable_cube_values_are_refused():
    with pytest.raises(RecordError, match="power of two"):
        XGPosition(Position.start(), cube=3)
    with pytest.raises(RecordError, match="not the Crawford game"):
        XGPosition(Position.start(), score=(1, 1), length=5, crawford=True)


# ----- the proper cube action --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nd", "dt", "dp", "action"),
    [
        (0.337, 0.215, 1.0, "no double/take"),
        (0.6, 0.7, 1.0, "double/take"),
        (0.8, 1.2, 1.0, "double/pass"),
        (1.1, 1.5, 1.0, "too good/pass"),
        (0.2, 0.5, 0.4, "double/pass"),
        (0.5, 0.3, 0.2, "too good/pass"),
    ],
)
def test_proper_cube_action_follows_the_three_equities(nd, dt, dp, action):
    assert XGCube(nd, dt, dp).action == action


# ----- from nardy's analysis ---------------------------------------------------------------------------


def test_hint_becomes_a_candidate_rounded_as_xg_writes_it():
    probs = {
        "win": 0.528712,
        "win_gammon": 0.150349,
        "win_backgammon": 0.006911,
        "lose_gammon": 0.124901,
        "lose_backgammon": 0.005804,
    }
    hint = SimpleNamespace(
        play="13/11 13/8", equity=0.06249, ply=2, probabilities=SimpleNamespace(as_dict=lambda: probs)
    )
    p = xg_play_from_hint(hint)
    assert p == XGPlay("13/11 13/8", 0.062, (0.5287, 0.1503, 0.0069, 0.1249, 0.0058), "2-ply")


def test_cube_decision_becomes_a_cube_analysis():
    d = SimpleNamespace(equities={"no double": 0.4321, "double/take": 0.5119, "double/pass": 1.0}, probabilities=None)
    c = xg_cube_from_decision(d, level="2-ply")
    assert c == XGCube(0.432, 0.512, 1.0, level="2-ply") and c.action == "double/take"


# ----- round trip: parse(write(x)) == x ----------------------------------------------------------------


def _random_position(rng: random.Random) -> Position:
    while True:
        mover = [0] * 26
        opp = [0] * 26
        for _ in range(15):
            mover[rng.choice([0, 25] + [rng.randint(1, 24)] * 4 + [rng.randint(1, 6)] * 3)] += 1
        free = [p for p in range(1, 25) if not mover[p]]
        for _ in range(15):
            r = rng.random()
            if r < 0.05:
                opp[0] += 1
            elif r < 0.12:
                opp[25] += 1
            else:
                opp[25 - rng.choice(free)] += 1
        try:
            return Position.from_boards(mover, opp)
        except Exception:
            continue


_prob = st.integers(0, 10_000).map(lambda k: round(k / 10_000, 6))
_eq = st.integers(-3_000, 3_000).map(lambda k: round(k / 1000, 6))
_level = st.sampled_from(["XG Roller+", "XG Roller++", "3-ply", "2-ply", "Rollout", "1-ply", ""])
_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.é", min_size=1, max_size=12)
_name = st.lists(_word, min_size=1, max_size=3).map(" ".join)
_play = st.sampled_from(["13/11 13/8", "24/18*", "Bar/20 6/off", "8/2(2) 6/off(2)", "", "25/23 13/8*(2)"])


@st.composite
def xg_positions(draw):
    pos = _random_position(random.Random(draw(st.integers(0, 2**32))))
    length = draw(st.sampled_from([0, 0, 1, 3, 5, 7, 11, 25]))
    score = None
    crawford = False
    if length:
        score = (draw(st.integers(0, length - 1)), draw(st.integers(0, length - 1)))
        crawford = list(score).count(length - 1) == 1 and draw(st.booleans())
    owner = draw(st.sampled_from([None, 0, 1]))
    cube = 1 if owner is None else 2 ** draw(st.integers(1, 8))
    dice = draw(st.none() | st.tuples(st.integers(1, 6), st.integers(1, 6)))
    plays: tuple = ()
    cube_analysis = None
    if dice is not None:
        plays = tuple(
            XGPlay(draw(_play), draw(_eq), draw(st.none() | st.tuples(*[_prob] * 5)), draw(_level))
            for _ in range(draw(st.integers(0, 6)))
        )
    elif draw(st.booleans()):
        cube_analysis = XGCube(
            draw(_eq),
            draw(_eq),
            draw(_eq),
            cubeless=draw(st.none() | st.tuples(_eq, _eq)),
            probs=draw(st.none() | st.tuples(*[_prob] * 5)),
            level=draw(_level),
        )
    return XGPosition(
        pos,
        dice=dice,
        cube=cube,
        owner=owner,
        score=score,
        length=length,
        crawford=crawford,
        jacoby=not length and draw(st.booleans()),
        beaver=not length and draw(st.booleans()),
        names=(draw(_name), draw(_name)),
        plays=plays,
        cube_analysis=cube_analysis,
    )


@settings(max_examples=300, deadline=None)
@given(xg_positions())
def test_parse_of_write_is_the_same_position_and_analysis(x):
    assert parse_xg_text(write_xg_text(x)) == x


@settings(max_examples=200, deadline=None)
@given(xg_positions())
def test_diagram_of_write_alone_is_the_same_position(x):
    """Without the XGID line the diagram, pip, cube and "to play" lines carry the position (a forum
    reader's copy): read back equal but for the analysis-free fields the diagram cannot hold."""
    y = parse_xg_text(_without_xgid(write_xg_text(x)))
    assert (y.position, y.dice, y.cube, y.owner, y.score, y.length, y.crawford) == (
        x.position,
        x.dice,
        x.cube,
        x.owner,
        x.score,
        x.length,
        x.crawford,
    )
    assert (y.jacoby, y.beaver, y.names, y.plays, y.cube_analysis) == (
        x.jacoby,
        x.beaver,
        x.names,
        x.plays,
        x.cube_analysis,
    )


def test_xgid_after_a_long_line_of_forum_text_is_still_found():
    line = "I was wondering about this one for a long time, " * 10 + _text("checker_match_en.txt")
    assert parse_xg_text(line).position == parse_xg_text(_text("checker_match_en.txt")).position


def test_a_line_is_read_only_up_to_max_line_characters():
    from nardy.records.xgtext import MAX_LINE

    export = _text("checker_match_en.txt")
    padded = export.replace("    1. 4-ply", "    1. 4-ply" + " " * MAX_LINE)
    # the first candidate's equity is beyond the cut: only the second candidate is read
    assert [p.play for p in parse_xg_text(padded).plays] == ["19/18 3/1"]

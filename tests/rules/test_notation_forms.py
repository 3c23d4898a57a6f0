"""The ways players write plays and rolls (docs/rules.md "Notation"): the dash form ``24-18 13-11``,
rolls as ``31`` / ``3-1`` / ``3 1``, hit marks that must be true, the larger die first."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy import IllegalPlayError, Position
from nardy.cli import main
from nardy.rules.notation import dash_to_slash, dice_text
from nardy.terminal.commands import Kind, parse
from tests.helpers import pos, random_positions


def run_nardy(*args):
    """``nardy ARGS`` in this process: ``(exit status, standard output, standard error)``."""
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


POOLS = {g: random_positions(g, 200, seed=11, doubles_share=0.3) for g in ("backgammon", "short", "long")}
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def position_and_dice(draw):
    pool = POOLS[draw(st.sampled_from(sorted(POOLS)))]
    return pool[draw(st.integers(0, len(pool) - 1))]


DASHES = st.sampled_from(["-", "\u2013", "\u2014", "\u2212"])  # hyphen, en dash, em dash, minus


@SETTINGS
@given(position_and_dice(), DASHES, st.sampled_from([" ", ", ", "  "]))
def test_dash_form_reads_as_the_slash_form_for_every_legal_play(pd, dash, sep):
    p, d = pd
    for play in p.legal_plays(d):
        text = str(play)
        if not text:
            continue
        dashed = sep.join(tok.replace("/", dash) for tok in text.split(" "))
        assert p.parse_play(dashed, d) == play, dashed
        assert parse(dashed, p.game).kind is Kind.PLAY, dashed  # the terminal reads it as a play


def test_dash_form_examples_russian_players_write():
    p = Position.start("backgammon")
    assert str(p.parse_play("24-18 13-11", (6, 2))) == "24/18 13/11"
    assert str(p.parse_play("13-7-4", (6, 3))) == "13/4"
    assert str(p.parse_play("8-5, 6-5", (3, 1))) == "8/5 6/5"
    long = Position.start("long")
    assert str(long.parse_play("24-18-15", (6, 3))) == "24/15"
    assert str(long.parse_play("24-18 24-18", (6, 6))) == "24/18(2)"
    assert dash_to_slash("bar-22* 6-off 8-4(2)") == "bar/22* 6/off 8/4(2)"
    assert dash_to_slash("-") == "-"  # a lone dash is "no play"


def test_dash_form_is_a_play_in_the_terminal_not_an_unknown_command():
    assert parse("24-18 13-11", "backgammon").kind is Kind.PLAY
    assert parse("24–18", "long").kind is Kind.PLAY
    assert parse("resign", "long").kind is Kind.RESIGN
    assert parse("7", "long").kind is Kind.PICK


def _marks_a_point_not_hit(play) -> list[str]:
    """The play's notation with a ``*`` added on a destination it does not hit, one variant per path."""
    hit = {s.to for s in play.steps if s.hit}
    toks = str(play).split(" ")
    out = []
    for i, tok in enumerate(toks):
        m = re.fullmatch(r"(?P<path>.*?/)(?P<last>\d+)(?P<star>\*?)(?P<count>\(\d\))?", tok)
        if not m or m.group("star") or int(m.group("last")) in hit:
            continue
        marked = f"{m.group('path')}{m.group('last')}*{m.group('count') or ''}"
        out.append(" ".join(toks[:i] + [marked] + toks[i + 1 :]))
    return out


@SETTINGS
@given(position_and_dice())
def test_a_hit_mark_where_nothing_is_hit_is_refused_naming_the_step(pd):
    p, d = pd
    for play in p.legal_plays(d)[:40]:
        for text in _marks_a_point_not_hit(play):
            with pytest.raises(IllegalPlayError) as e:
                p.parse_play(text, d)
            assert e.value.code == ("false_hit" if p.rules.hitting else "no_hitting"), text
            step = f"{e.value.params['from'] if e.value.params['from'] != 25 else 'bar'}/{e.value.params['to']}*"
            assert step in str(e.value), (text, str(e.value))


def test_false_hit_example_from_the_issue():
    p = Position.start("backgammon")
    with pytest.raises(IllegalPlayError, match=r"6/5\* is marked as a hit.*no opposing blot to hit on 5") as e:
        p.parse_play("13/10 6/5*", (3, 1))
    assert e.value.code == "false_hit" and e.value.params == {"from": 6, "to": 5}
    assert str(p.parse_play("13/10 6/5", (3, 1))) == "13/10 6/5"  # marks stay optional


def test_a_true_hit_mark_is_accepted_and_printed():
    # a blot of the opponent on the mover's 5 point
    p = pos("backgammon", {13: 5, 8: 3, 6: 5, 24: 2}, {20: 1, 24: 2, 13: 5, 8: 3, 6: 4})
    play = p.parse_play("6/5* 13/10", (3, 1))
    assert str(play) == "13/10 6/5*" and play.hits == 1
    assert p.parse_play("13-10 6-5*", (3, 1)) == play


def test_long_nardy_has_no_hit_to_mark():
    p = Position.start("long")
    with pytest.raises(IllegalPlayError) as e:
        p.parse_play("24/18* 24/18", (6, 6))
    assert e.value.code == "no_hitting" and "24/18*" in str(e.value)


def test_dice_are_written_larger_first():
    assert dice_text((1, 2)) == "2-1" and dice_text((5, 5)) == "5-5" and dice_text([3, 6]) == "6-3"
    p = Position.start("backgammon")
    with pytest.raises(IllegalPlayError, match="roll 3-1 "):
        p.parse_play("24/20*", (1, 3))


@pytest.mark.parametrize("dice", [("3", "1"), ("31",), ("3-1",), ("3,1",), ("1", "3")])
def test_nardy_moves_takes_the_roll_in_every_usual_spelling(dice):
    status, out, err = run_nardy("moves", "--dice", *dice)
    assert status == 0, err
    assert out.splitlines()[0].split()[:2] == ["24/23", "24/21"]
    assert len(out.splitlines()) == 16


def test_nardy_moves_bad_roll_names_it():
    status, _, err = run_nardy("moves", "--dice", "3", "7")
    assert status == 2 and "dice '37': each die must be an integer 1-6" in err

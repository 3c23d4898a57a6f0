"""``nardy play`` in a pseudo-terminal (pexpect): the finished-experience items of issue 19.

Plays in the dash form, false hit marks refused naming the step, a resignation confirmed with what it
loses, a double beyond what the match needs warned about, another game offered at the end, Russian side
names in lower case inside a sentence, the other side's play also in the board's numbers, help texts that
fit the game and the numbering, and the notice while the engine is prepared.
"""

from __future__ import annotations

import io
import re
import time

import pytest

from nardy.rules.errors import IllegalPlayError
from nardy.rules.numbering import opponent_point
from nardy.terminal import warmup
from nardy.terminal.render import Output
from tests.terminal.driver import Driver

pytest.importorskip("pexpect")

PROMPT_WHO = re.compile(r"(White|Black)[ ,][^\n]*> $")


def who_is_asked(d: Driver) -> str:
    """The side named in the current prompt."""
    m = PROMPT_WHO.search(d.last)
    assert m, d.last[-300:]
    return m.group(1)


def until(d: Driver, kinds, limit=400):
    """Answer the plain way until a prompt of one of ``kinds``."""
    for _ in range(limit):
        if d.kind in kinds:
            return d.kind
        assert d.kind != "eof", d.output[-2000:]
        d.respond()
    raise AssertionError(f"no prompt of {kinds}")


def mark_a_point_not_hit(play: str) -> str | None:
    """``play`` with a ``*`` on a destination it does not hit (None: every destination is a hit or off)."""
    toks = play.split(" ")
    for i, tok in enumerate(toks):
        m = re.fullmatch(r"(?P<path>.*/)(?P<last>\d+)(?P<count>\(\d\))?", tok)
        if m:
            toks[i] = f"{m.group('path')}{m.group('last')}*{m.group('count') or ''}"
            return " ".join(toks)
    return None


def test_a_play_in_the_dash_form_is_played_and_a_false_hit_mark_is_refused():
    d = Driver("play", "--game", "backgammon", "--black", "bot:beginner", "--seed", "5", "--lang", "en")
    d.wait()
    until(d, ("play",))
    first = d.first_play()
    marked = mark_a_point_not_hit(first)
    if marked is not None:
        d.send(marked)
        step = re.search(r"\S+\*", marked).group(0)
        assert d.kind == "play" and f"{step} is marked as a hit, but there is no opposing blot" in d.last
        assert "White plays" not in d.last
    dashed = first.replace("/", "-")
    d.send(dashed)
    assert re.search(rf"White plays \d-\d: {re.escape(first)}", d.last), d.last
    assert "Unknown command" not in d.output
    d.child.terminate(force=True)


def test_resigning_asks_first_naming_the_points_with_the_cube_then_another_game_is_offered():
    d = Driver("play", "--game", "backgammon", "--white", "human", "--black", "human", "--seed", "2", "--lang", "en")
    d.wait()
    until(d, ("roll",))
    doubler = who_is_asked(d)
    assert d.send("double") == "take"
    d.send("take")
    until(d, ("play",))
    assert who_is_asked(d) == doubler
    assert d.send("resign gammon") == "resign_confirm"
    assert "Resign (gammon) with the cube at 2: you lose 4 points. Offer it? (y/n)> " in d.last
    d.send("n")
    assert d.kind == "play" and "No resignation: play goes on." in d.last
    assert "offers to resign" not in d.last
    d.send("resign gammon")
    assert d.send("y") == "resign"
    assert f"{doubler} offers to resign: gammon (4 points)." in d.last
    assert d.send("accept") == "again"
    winner = "Black" if doubler == "White" else "White"
    assert f"{winner} wins by resignation: gammon, 4 points (cube 2)." in d.last
    assert "Play another game? (y/n)> " in d.last
    d.send("y")
    assert "Game 2" in d.last and "Opening roll" in d.last
    assert d.kind in ("play", "roll", "forced")
    d.send("quit")
    d.send("y")
    assert d.send("") == "eof"


def test_a_double_the_match_does_not_need_is_warned_about():
    # a 3-point match: once a player owns the cube at 4, a redouble to 8 only helps the other side
    d = Driver(
        "play",
        "--game",
        "backgammon",
        "--match",
        "3",
        "--white",
        "human",
        "--black",
        "human",
        "--seed",
        "4",
        "--lang",
        "en",
    )
    d.wait()
    until(d, ("roll",))
    first = who_is_asked(d)
    d.send("double")
    d.send("take")  # the other side owns the cube at 2
    d.respond()
    until(d, ("roll",))
    assert who_is_asked(d) != first
    d.send("double")
    assert d.kind == "take"
    d.send("take")  # the first doubler owns it at 4
    d.respond()
    until(d, ("roll",))
    assert who_is_asked(d) == first
    d.send("double")
    assert d.kind == "yesno"
    assert "The cube at 4 already wins you the match (you need 3 points): a double to 8 can only help" in d.last
    d.send("n")
    assert d.kind == "roll" and "doubles to 8" not in d.last
    d.send("double")
    d.send("y")
    assert d.kind == "take" and f"{first} doubles to 8." in d.last
    d.child.terminate(force=True)


def test_russian_side_names_are_lower_case_inside_a_sentence():
    d = Driver("play", "--game", "short", "--black", "bot:beginner", "--seed", "3", "--lang", "ru", lang="ru")
    d.wait()
    until(d, ("play", "forced"))
    out = d.output
    assert re.search(r"Начинают (белые|чёрные)\.", out), out[:800]
    assert re.search(r"Ходят белые: \d-\d", out)
    assert not re.search(r"(Начинают|Ходят|Бросают зары) (Белые|Чёрные)", out)
    assert re.search(r"^Белые \d-\d, ход> ", d.last.splitlines()[-1]) or "Белые" in d.last.splitlines()[-1]
    d.child.terminate(force=True)


def test_rolls_are_shown_larger_die_first():
    d = Driver("play", "--game", "long", "--black", "bot:beginner", "--seed", "1", "--lang", "en")
    d.wait()
    for _ in range(6):
        until(d, ("play", "forced"))
        d.respond()
    rolls = re.findall(r"(?:rolls|plays|to play) (\d)-(\d)", d.output)
    assert len(rolls) >= 6 and all(a >= b for a, b in rolls), rolls
    d.child.terminate(force=True)


def test_in_own_numbering_the_computers_play_is_also_given_in_the_boards_numbers():
    d = Driver("play", "--game", "long", "--black", "bot:beginner", "--seed", "1", "--lang", "en")
    d.wait()
    for _ in range(4):
        until(d, ("play", "forced"))
        d.respond()
    pairs = re.findall(r"Black plays \d-\d: (.+?) \(board numbers: (.+?)\)", d.output)
    assert pairs, d.output[-1500:]
    for own, board in pairs:
        a = [int(x) for x in re.findall(r"\d+", re.sub(r"\(\d\)", "", own))]
        b = [int(x) for x in re.findall(r"\d+", re.sub(r"\(\d\)", "", board))]
        assert b == [opponent_point(p, False) for p in a], (own, board)
    assert "White plays" in d.output
    assert not re.search(r"White plays [^\n]*board numbers", d.output)  # the viewer's own plays need none
    d.child.terminate(force=True)


def test_long_nardy_help_has_no_bar_hits_or_cube():
    d = Driver("play", "--game", "long", "--black", "bot:beginner", "--seed", "1", "--lang", "en")
    d.wait()
    d.send("help")
    text = d.last
    assert "Commands:" in text and "24/18 19/17" in text and "24-18 19-17" in text
    for word in ("bar", "hits?", "double", "beaver", "roll the dice"):
        assert not re.search(rf"\b{word}\b", text), word
    d.child.terminate(force=True)


def test_traditional_numbering_help_shows_plays_it_accepts():
    d = Driver(
        "play",
        "--game",
        "short",
        "--numbering",
        "traditional",
        "--black",
        "bot:beginner",
        "--seed",
        "3",
        "--lang",
        "en",
    )
    d.wait()
    until(d, ("play",))
    d.send("help")
    m = re.search(r"^  (\S+ \S+)\s+a whole play in notation", d.last, re.M)
    assert m and m.group(1) == "01/07 012/11", d.last
    assert "24/18" not in d.last
    d.send(m.group(1))  # legal or not with this roll, it is read as a play in this numbering
    assert "cannot read" not in d.last and "traditional numbering uses" not in d.last
    assert ("White plays" in d.last) or ("Illegal play '01/07 012/11'" in d.last)
    d.child.terminate(force=True)


def test_the_engine_is_prepared_with_a_notice_when_it_takes_long(monkeypatch):
    from nardy.texts.i18n import Texts

    monkeypatch.setattr(warmup, "NOTICE_AFTER", 0.05)
    monkeypatch.setattr(warmup, "exercise", lambda game, levels: time.sleep(0.4))
    buf = io.StringIO()
    warmup.prepare("long", ["beginner"], Output("never", stream=buf), Texts("en"))
    lines = buf.getvalue().splitlines()
    assert lines[0].startswith("Preparing the computer player") and re.fullmatch(r"Ready \(\d+ s\)\.", lines[1])
    buf = io.StringIO()
    monkeypatch.setattr(warmup, "exercise", lambda game, levels: None)
    warmup.prepare("long", ["beginner"], Output("never", stream=buf), Texts("ru"))
    assert buf.getvalue() == ""  # quick (the compiled code is in the cache): nothing to say


def test_after_the_preparation_the_engine_answers_without_compiling():
    """The preparation runs what the first turns need: afterwards no numba kernel gets a new signature
    while a game is played by the table (the 15 s first computer play and 10 s first refusal of issue 19)."""
    numba = pytest.importorskip("numba")
    import importlib

    from nardy.flow.bot import bot_player
    from nardy.flow.match import Match
    from nardy.flow.table import Seat, SeatKind, Table
    from nardy.rules.dice import DiceSource

    mods = [importlib.import_module(m) for m in ("nardy.rules._movegen", "nardy.engine._kernels")]

    def signatures():
        return {
            (m.__name__, k): set(v.signatures)
            for m in mods
            for k, v in vars(m).items()
            if isinstance(v, numba.core.registry.CPUDispatcher)
        }

    warmup.exercise("long", ["grandmaster"])
    before = signatures()
    m = Match("long", dice=DiceSource(3))
    seats = [Seat(SeatKind.PERSON, "W"), Seat(SeatKind.COMPUTER, "B", level="grandmaster")]
    t = Table(m, seats, auto_roll=True, computer=bot_player)
    t.start()
    g = m.current
    for _ in range(12):
        if g.is_over:
            break
        if t.computer_to_act():
            t.computer_act()
        elif g.phase == "move":
            with pytest.raises(IllegalPlayError):
                t.act(g.to_act, "play", play="24/1")
            t.act(g.to_act, "play", play=g.legal_plays()[-1])
    after = signatures()
    new = {k: after[k] - before.get(k, set()) for k in after if after[k] - before.get(k, set())}
    assert not new, new

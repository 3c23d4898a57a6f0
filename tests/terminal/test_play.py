"""``nardy play``: the terminal front end (issue 5).

Whole games are typed into ``nardy play`` running in a pseudo-terminal (pexpect, see
``tests/terminal/driver.py``): the driver answers each prompt, asking ``moves`` for the legal plays and
typing the first one. The commands (illegal entry, take-back, hint, double, take, save, resume,
resign, quit) are checked on the way; each finished game's ``.mat`` record must replay with
``nardy replay``. In-process tests drive :class:`nardy.terminal.play.TerminalGame` with scripted input for the
situations a random game may not reach (forced plays, no play, the explanations of refused steps).
"""

from __future__ import annotations

import io
import json
import re

import pytest
from click.testing import CliRunner

from nardy import Position
from nardy.cli import main as nardy_main
from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.records.mat import parse_mat, replay
from nardy.rules.dice import FixedDice
from nardy.rules.numbering import Numbering
from nardy.rules.variants import get_rules
from nardy.terminal.board import board_lines, plain
from nardy.terminal.play import TerminalGame
from nardy.terminal.players import PlayerSpec, parse_player
from nardy.terminal.render import Output
from nardy.texts.i18n import Texts, detect_lang, plural_points

from ..helpers import pos
from .driver import LISTING, Driver, run_nardy

RESULT_EN = re.compile(r"(White|Black) wins(?: by resignation)?: ([a-z ]+), (\d+) points?")
RESULT_RU = re.compile(r"Победили (белые|чёрные)(?:, соперник сдался)?: ([а-я ]+), (\d+) очк")


def replayed(path):
    """The match a record replays to (through ``nardy replay``'s reader and the rules)."""
    r = run_nardy("replay", "--json", str(path))
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# ----- pieces -------------------------------------------------------------------------------------
def test_traditional_numbering_follows_seed_003():
    n = Numbering("traditional", "short")
    # White travels 01..012 then 12..1; Black 1..12 then 012..01 (seed 003)
    assert [n.label(0, p) for p in range(24, 0, -1)] == (
        [f"0{i}" for i in range(1, 13)] + [str(i) for i in range(12, 0, -1)]
    )
    assert [n.label(1, p) for p in range(24, 0, -1)] == (
        [str(i) for i in range(1, 13)] + [f"0{i}" for i in range(12, 0, -1)]
    )
    for side in (0, 1):
        for p in range(1, 25):
            assert n.own_point(n.label(side, p), side) == p
    assert n.own_point("XII", 0) == 13 and n.own_point("iii", 1) == 3
    assert n.to_own("01/07 12/9*(2)", 0) == "24/18 12/9*(2)"
    assert n.to_own("1/07", 1) == "24/7"
    with pytest.raises(ValueError):
        n.to_own("13/7", 0)


def test_absolute_numbering_of_long_nardy():
    n = Numbering("absolute", "long")
    assert n.label(0, 24) == "24" and n.label(1, 24) == "12" and n.label(1, 1) == "13"
    assert n.to_own("12/6 1/off", 1) == "24/18 13/off"
    with pytest.raises(ValueError):
        Numbering("absolute", "backgammon")
    with pytest.raises(ValueError):
        Numbering("traditional", "long")


def test_long_nardy_board_has_both_heads_in_place():
    lines = [plain(ln) for ln in board_lines(Position.start("long"), 0, Numbering("absolute", "long"))]
    assert lines[0].split() == [str(i) for i in range(13, 25)]
    assert lines[-1].split() == [str(i) for i in range(12, 0, -1)]
    # White's head (24) at the top right, Black's head (12) at the bottom left, 15 each
    assert lines[2].rstrip().endswith("O |") and "15 |" in lines[6]
    assert lines[12].startswith("|  X") and lines[8].startswith("| 15")
    # from Black's view the labels are still absolute: Black's home 13-18 at the bottom right
    black = [plain(ln) for ln in board_lines(Position.start("long"), 1, Numbering("absolute", "long"))]
    assert black[-1].split() == [str(i) for i in range(24, 12, -1)]


def test_player_specs_and_language():
    assert parse_player("human").human and parse_player("bot:beginner").level == "beginner"
    assert parse_player("bot").level == "champion"  # the strongest level by default
    with pytest.raises(ValueError):
        parse_player("bot:nobody")
    assert detect_lang({"LANG": "ru_RU.UTF-8"}) == "ru"
    assert detect_lang({"LC_ALL": "C", "LANG": "ru_RU.UTF-8"}) == "en"
    assert detect_lang({"LANGUAGE": "ru:en", "LANG": "en_US.UTF-8"}) == "ru"
    assert plural_points(1, "ru") == "1 очко" and plural_points(3, "ru") == "3 очка"
    assert plural_points(8, "ru") == "8 очков"
    assert plural_points(0.5, "en") == "0.5 points"
    t = Texts("ru")
    assert [t.level_name("short", i) for i in range(4)] == ["оюн", "марс", "домашний марс", "кокс"]
    assert t.level_name("long", 0) == "ойн"


# ----- in-process sessions with scripted input --------------------------------------------------
def match_at(position, rolls, turn=0, **kw):
    """A one-game match set up at ``position`` (``turn`` to roll) with fixed dice."""
    dice = FixedDice(rolls)
    g = Game.from_position(position, turn=turn, dice=dice)
    d = Match(position.rules, dice=dice, **kw).to_dict()
    d["games"] = [g.to_dict()]
    return Match.from_dict(d, dice=dice)


def session_output(match, script, players=(PlayerSpec("human"), PlayerSpec("bot", "random")), **kw):
    buf = io.StringIO()
    lines = list(script)

    def read(prompt):
        buf.write(prompt)
        if not lines:
            raise EOFError
        line = lines.pop(0)
        buf.write(line + "\n")
        return line

    s = TerminalGame(match, players, out=Output("never", stream=buf), read=read, seed=1, **kw)
    assert s.run() == 0
    return buf.getvalue(), s


def test_no_legal_play_is_announced_and_passes_after_enter():
    p = pos("backgammon", mover={25: 1, 6: 14}, opponent={1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    m = match_at(p, [(3, 1), (6, 5)])
    out, _ = session_output(m, ["", ""])
    assert "White cannot move with 3-1: the turn passes." in out
    assert out.index("the turn passes") < out.index("Press Enter to continue> ") < out.index("Black plays 6-5")
    assert [e.type for e in m.current.history][-4:] == ["roll", "pass", "roll", "play"]


def test_forced_play_is_shown_and_played_on_enter():
    m = Match("long", dice=FixedDice([5, 2, (6, 6), (3, 1), (2, 1)]))
    out, _ = session_output(m, [""])
    assert "Only one legal play: 24/18(2)." in out
    assert "White 6-6, Enter to play it> " in out
    assert m.current.history[2].play == "24/18(2)"


def test_steps_take_back_confirm_and_refusals_explained():
    # long nardy: five points 11..6 held, a checker on 13 and two on the head; Black all on its head
    p = pos("long", mover={24: 2, 11: 1, 10: 1, 9: 1, 8: 1, 6: 1, 13: 1, 1: 7}, opponent={24: 15})
    m = match_at(p, [(6, 1), (2, 1), (3, 3)])
    script = ["13/7", "24/18", "13/12", "24/23", "undo", "3/2", "1/off", "24/18", "6/5", "", "quit", "y", ""]
    out, _ = session_output(m, script)
    assert "Illegal play '13/7': six points in a row with no opponent checker ahead" in out
    assert "Steps so far: 24/18; dice left: 1" in out
    assert "Illegal play '13/12': point 12 is closed" in out
    assert "Illegal play '24/23': only one checker may leave the head per turn" in out
    assert "Taken back: 24/18." in out
    assert "you have no checker on point 3" in out
    assert "you may bear off only when all your checkers are home" in out
    assert "That makes the play 24/18 6/5" in out
    assert "White 6-1, confirm (Enter) or undo> " in out
    assert "White plays 6-1: 24/18 6/5" in out
    assert "Black cannot move with 2-1" in out


def test_hitting_game_refusals_explained():
    p = pos("backgammon", mover={25: 1, 13: 14}, opponent={6: 2, 13: 13})  # White on the bar; Black's 6 = White's 19
    m = match_at(p, [(6, 3), (2, 1), (3, 1)])
    out, _ = session_output(m, ["", "13/7", "bar/19", "bar/22 13/7", "quit", "y", ""])
    assert "a checker on the bar must enter first" in out
    assert "point 19 is closed" in out
    assert "White plays 6-3: bar/22 13/7" in out


def test_resignation_accepted_by_the_computer_ends_the_game():
    m = Match("short", dice=FixedDice([4, 2, (3, 1)]))
    out, _ = session_output(m, ["resign koks", "y"], players=(PlayerSpec("human"), PlayerSpec("bot", "beginner")))
    assert "White offers to resign: koks (8 points)." in out
    assert "Black accepts the resignation." in out
    assert m.current.result.points == 8 and m.current.result.reason == "resign"


def test_save_and_resume_keep_partial_steps_and_dice(tmp_path):
    save = tmp_path / "g.json"
    m = Match("long", dice=FixedDice([5, 2, (6, 5), (3, 1), (4, 2)]))
    out, s = session_output(m, ["24/18", f"save {save}", "quit", "y", ""])
    assert f"Saved to {save}" in out
    data = json.loads(save.read_text())
    # version 2: the table (seats, seed, event log, match) beside the terminal's settings
    assert data["format"] == "nardy-play" and data["version"] == 2 and "match" not in data
    seats = data["table"]["seats"]
    assert [(x["kind"], x["level"]) for x in seats] == [("person", None), ("computer", "random")]
    assert data["table"]["seed"] == 1
    acts = [(e["side"], e["action"]) for e in data["table"]["log"] if e["type"] == "act"]
    assert acts == [(0, "roll"), (0, "step")]  # White starts; the table rolls 6-5 (no cube); 24/18
    from nardy.terminal.saving import load_saved_game

    m2, data2 = load_saved_game(str(save))
    assert data2["players"] == ["human", "bot:random"] and data2["seed"] == 1
    assert m2.current.steps_taken == m.current.steps_taken and m2.current.dice == (6, 5)
    out2, s2 = session_output(m2, ["18/13", "", "quit", "y", ""], log=data2["log"])
    assert "Steps so far: 24/18; dice left: 5" in out2
    assert "White plays 6-5: 24/13" in out2
    assert "Black plays 3-1" in out2 and "White 4-2, play> " in out2
    # the table's log goes on from the saved one: White's step and confirm, then the computer's play
    log = s2.table.log
    assert log[: len(data2["log"])] == data2["log"]
    assert [(e["side"], e["action"], e.get("computer")) for e in log[len(data2["log"]) :]] == [
        (0, "step", None),
        (0, "confirm", None),
        (1, "roll", True),
        (1, "play", True),
        (0, "roll", False),  # the table rolls for White, who cannot double in long nardy
    ]


def test_resume_file_that_is_not_utf8_is_a_usage_error_naming_it(tmp_path):
    import click

    from nardy.terminal.saving import load_saved_game

    path = tmp_path / "latin1.mat"
    path.write_bytes(" 1 point match\n\n Game 1\n Jos\xe9 : 0    B : 0\n".encode("latin-1"))
    with pytest.raises(click.UsageError, match=re.escape(f"{path} is not UTF-8 text (byte 28)")):
        load_saved_game(str(path))


def test_resume_mat_record_is_replayed_from_its_text(tmp_path):
    from nardy.terminal.saving import load_saved_game

    path = tmp_path / "m.mat"
    path.write_text(" 3 point match\n\n Game 1\n Anna : 0    Boris : 0\n  1) 31: 8/5 6/5\n")
    m, data = load_saved_game(str(path))
    assert data == {} and m.length == 3 and m.players == ("Anna", "Boris")
    assert [e.play for e in m.current.history if e.type == "play"] == ["8/5 6/5"]


# ----- --auto --------------------------------------------------------------------------------------
AUTO = {"backgammon": ["--seed", "11"], "short": ["--seed", "12"], "long": ["--seed", "13"]}


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_auto_gives_the_same_record_twice_and_it_replays(game, tmp_path):
    args = ["play", "--auto", "--game", game, "--white", "bot:beginner", "--black", "bot:random", *AUTO[game]]
    runner = CliRunner()
    first = runner.invoke(nardy_main, args)
    second = runner.invoke(nardy_main, args)
    assert first.exit_code == 0, first.output
    assert second.exit_code == 0
    assert first.stdout == second.stdout
    m = replay(parse_mat(first.stdout))
    assert len(m.games) == 1 and m.games[0].is_over
    assert first.stdout.startswith('; [Site "nardy"]')


def test_auto_from_the_shell_exits_0_and_prints_the_record(tmp_path):
    rec = tmp_path / "m.mat"
    r = run_nardy(
        "play",
        "--auto",
        "--game",
        "long",
        "--match",
        "3",
        "--seed",
        "5",
        "--white",
        "bot:random",
        "--black",
        "bot:beginner",
        "--record",
        str(rec),
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == rec.read_text()
    summary = replayed(rec)
    assert max(summary["score"]) >= 3 and summary["winner"] in (0, 1)


# ----- typed games in a pseudo-terminal -----------------------------------------------------------
def _two_token_play(listing: str) -> str | None:
    """A listed play of two or more checker paths (so that its first path alone is not a whole play)."""
    for m in re.finditer(r"^\s+\d+\) (\S.*?)\s*$", listing, re.M):
        play = m.group(1)
        if " " in play and "(" not in play:
            return play
    return None


def backgammon_opening(d: Driver):
    """At the starter's first play: an illegal entry, a hint, a step taken back, then a whole play;
    then the other side doubles and the starter takes."""
    assert d.kind == "play"
    mover = re.search(r"(White|Black) \d-\d, play> $", d.last).group(1)
    d.send("24/10")
    assert "Illegal play '24/10'" in d.last and d.kind == "play"
    d.send("hint")
    assert "Best plays (equity for" in d.last and LISTING.search(d.last)
    d.send("moves")
    play = _two_token_play(d.last)
    assert play, d.last
    first = play.split()[0].replace("*", "")
    d.send(first)
    assert "Steps so far: " in d.last and d.kind == "play"
    d.send("undo")
    assert f"Taken back: {first}" in d.last
    d.send(play)
    assert f"{mover} plays" in d.last
    other = "Black" if mover == "White" else "White"
    assert d.kind == "roll"
    d.send("double")
    assert f"{other} doubles to 2." in d.last and d.kind == "take"
    d.send("take")
    assert f"{mover} takes: the cube is at 2, owned by {mover}." in d.last
    assert f"Cube: 2, {mover} owns it" in d.last
    return mover


def test_backgammon_commands_save_resume_and_resign_in_a_terminal(tmp_path):
    save, rec = tmp_path / "bg.json", tmp_path / "bg.mat"
    d = Driver(
        "play",
        "--game",
        "backgammon",
        "--white",
        "human",
        "--black",
        "human",
        "--seed",
        "21",
        "--lang",
        "en",
        "--record",
        str(rec),
    )
    d.wait()
    taker = backgammon_opening(d)
    for _ in range(6):
        d.respond()
    while d.kind != "play":
        d.respond()
    on_turn = re.search(r"(White|Black) \d-\d, play> $", d.last).group(1)
    d.send("moves")
    two = _two_token_play(d.last)
    step = two.split()[0].replace("*", "") if two else None
    if step:
        d.send(step)
    d.send(f"save {save}")
    assert "Saved to" in d.last
    d.send("quit")
    assert d.kind == "yesno"
    d.send("y")
    assert d.kind == "savename"
    assert d.send("") == "eof"
    d.child.close()
    assert d.exitstatus == 0

    r = Driver("play", "--resume", str(save))
    r.wait()
    assert "Resumed from" in r.last and f"Cube: 2, {taker} owns it" in r.last
    if step:
        assert f"Steps so far: {step}" in r.last
    assert r.kind == "play" and f"{on_turn} " in r.last.splitlines()[-1]
    assert r.send("resign gammon") == "resign_confirm" and "you lose 4 points" in r.last
    r.send("y")
    assert r.kind == "resign" and f"{on_turn} offers to resign: gammon (4 points)." in r.last
    assert r.send("accept") == "again"
    winner = "Black" if on_turn == "White" else "White"
    assert f"{winner} wins by resignation: gammon, 4 points (cube 2)." in r.last
    assert r.send("n") == "eof"
    summary = replayed(rec)
    res = summary["games"][0]["result"]
    assert res["points"] == 4 and res["reason"] == "resign" and res["cube"] == 2
    assert res["winner"] == (0 if winner == "White" else 1)


def test_colour_board_and_computer_double_answer():
    d = Driver("play", "--game", "backgammon", "--black", "bot:beginner", "--seed", "3", colour=True)
    d.wait()
    assert "\x1b[" in d.last  # rich colour in a colour terminal
    while d.kind != "roll":
        d.respond()
    d.send("double")
    assert re.search(r"Black (takes|passes)", d.last)
    if "passes" in d.last:
        assert d.kind == "eof" and "White wins 1 point: the double was passed." in d.last
    else:
        d.send("quit")
        d.send("y")
        assert d.send("") == "eof"


def finish(d: Driver, rec, result_re):
    out = d.play_out()
    assert d.exitstatus == 0
    m = result_re.findall(out)
    assert m, out[-2000:]
    who, level, points = m[-1]
    summary = replayed(rec)
    res = summary["games"][-1]["result"]
    assert res["points"] == int(points)
    return who, level, res


@pytest.mark.slow
def test_full_backgammon_game_typed_by_two_players(tmp_path):
    rec = tmp_path / "bg.mat"
    d = Driver(
        "play",
        "--game",
        "backgammon",
        "--white",
        "human",
        "--black",
        "human",
        "--seed",
        "8",
        "--lang",
        "en",
        "--record",
        str(rec),
    )
    d.wait()
    backgammon_opening(d)
    who, level, res = finish(d, rec, RESULT_EN)
    assert res["cube"] >= 2 and level in ("single game", "gammon", "backgammon")
    assert res["points"] == res["cube"] * {"single game": 1, "gammon": 2, "backgammon": 3}[level]


@pytest.mark.slow
def test_full_short_nardy_game_in_russian_traditional_numbering_with_save_and_resume(tmp_path):
    rec, save = tmp_path / "short.mat", tmp_path / "short.json"
    d = Driver(
        "play",
        "--game",
        "short",
        "--black",
        "bot:beginner",
        "--seed",
        "4",
        "--numbering",
        "traditional",
        "--lang",
        "ru",
        "--record",
        str(rec),
        lang="ru",
    )
    d.wait()
    assert "Нумерация: традиционная" in d.last
    d.send("24/10")
    assert "Недопустимый ход" in d.last or "Сейчас нельзя" in d.last
    for _ in range(12):
        d.respond()
    d.send(f"сохранить {save}")
    assert "Сохранено в" in d.last
    d.send("выход")
    d.send("д")
    assert d.send("") == "eof"
    d.child.close()
    r = Driver("play", "--resume", str(save), lang="ru")
    r.wait()
    assert "Игра продолжена" in r.last
    who, level, res = finish(r, rec, RESULT_RU)
    assert level in ("оюн", "марс", "домашний марс", "кокс")
    assert res["points"] == {"оюн": 1, "марс": 2, "домашний марс": 4, "кокс": 8}[level]


@pytest.mark.slow
def test_full_long_nardy_game_absolute_numbering_human_black(tmp_path):
    rec = tmp_path / "long.mat"
    d = Driver(
        "play",
        "--game",
        "long",
        "--white",
        "bot:beginner",
        "--black",
        "human",
        "--seed",
        "4",
        "--numbering",
        "absolute",
        "--record",
        str(rec),
    )
    d.wait()
    while d.kind != "play":
        d.respond()
    # Black's plays are written in absolute numbering: Black's head is 12
    d.send("moves")
    assert re.search(r"^\s+1\) .*\b12/", d.last, re.M) or "13/" in d.last
    who, level, res = finish(d, rec, RESULT_EN)
    assert level in ("oyn", "mars") and res["points"] == {"oyn": 1, "mars": 2}[level]


@pytest.mark.slow
def test_match_to_three_typed(tmp_path):
    rec = tmp_path / "m.mat"
    d = Driver("play", "--game", "long", "--match", "3", "--black", "bot:random", "--seed", "6", "--record", str(rec))
    d.wait()
    out = d.play_out()
    assert re.search(r"(White|Black) wins the match \d-\d\.", out)
    summary = replayed(rec)
    assert max(summary["score"]) >= 3


# ----- regressions: edited save files, unwritable record ------------------------------------------------
def _saved_game(tmp_path, version=2):
    save = tmp_path / "g.json"
    m = Match("long", dice=FixedDice([5, 2, (6, 5), (3, 1), (4, 2)]))
    session_output(m, ["24/18", f"save {save}", "quit", "y", ""])
    d = json.loads(save.read_text())
    return d if version == 2 else _as_version_1(d)


def _as_version_1(d):
    """The same saved game as ``nardy play`` wrote it before the table (format version 1): the match, the
    players, the seed and the bots' random states beside the settings."""
    import numpy as np

    t = d["table"]
    return {
        "format": "nardy-play",
        "version": 1,
        "players": ["human" if x["kind"] == "person" else f"bot:{x['level']}" for x in t["seats"]],
        **{k: d[k] for k in ("single", "lang", "numbering", "record", "hint_level")},
        "seed": t["seed"],
        "bots": {"1": np.random.default_rng([1, 1]).bit_generator.state},
        "match": t["match"],
    }


def _edit_turn(d):
    (d["table"] if d["version"] == 2 else d)["match"]["games"][-1]["state"]["turn"] = 5


def _edit_phase(d):
    (d["table"] if d["version"] == 2 else d)["match"]["games"][-1]["state"]["phase"] = "zzz"


def _unstarted(d):
    from nardy.flow.match import Match

    d["table"]["match"] = Match("long").to_dict()
    d["table"]["match"]["games"] = [Match("long").new_game().to_dict()]  # phase "opening"


def _edit_seat(i, **kw):
    return lambda d: d["table"]["seats"][i].update(kw)


def _clock(d):
    from nardy.flow.clock import CLOCK_PRESETS, Clock

    d["table"]["clock"] = Clock(CLOCK_PRESETS["blitz"]).to_dict()


@pytest.mark.parametrize(
    "version, name, edit, words",
    [
        (2, "turn", _edit_turn, ["'table'", "match", "turn"]),
        (2, "seed", lambda d: d["table"].update(seed="abc"), ["'table'", "seed", "abc"]),
        (2, "seat-kind", _edit_seat(0, kind="alien"), ["'table'", "alien"]),
        (2, "seat-level", _edit_seat(1, level="nobody"), ["'table.seats[1].level'", "nobody"]),
        (2, "seat-remote", _edit_seat(1, kind="remote", level=None, player="p1"), ["'table.seats[1]'", "remote"]),
        (2, "negative-seed", lambda d: d["table"].update(seed=-4), ["'table.seed'", "-4"]),
        (2, "clock", _clock, ["'table.clock'"]),
        (2, "phase", _edit_phase, ["match", "phase", "zzz"]),
        (2, "opening", _unstarted, ["'table.match.games[0].state.phase'", "opening was not played"]),
        (2, "no-table", lambda d: d.pop("table"), ["'table'", "missing"]),
        (2, "lang", lambda d: d.update(lang="klingon"), ["'lang'"]),
        (2, "version", lambda d: d.update(version=3), ["'version'", "3"]),
        (1, "turn", _edit_turn, ["match", "turn"]),
        (1, "seed", lambda d: d.update(seed="abc"), ["'seed'", "abc"]),
        (1, "players", lambda d: d.update(players=["alien", "human"]), ["'players'", "alien"]),
        (1, "phase", _edit_phase, ["match", "phase", "zzz"]),
        (1, "no-match", lambda d: d.pop("match"), ["'match'", "missing"]),
        (1, "lang", lambda d: d.update(lang="klingon"), ["'lang'"]),
        (None, "empty", None, ["empty"]),
    ],
)
def test_resume_edited_save_file_exits_2_naming_the_field(tmp_path, version, name, edit, words):
    path = tmp_path / f"{name}.json"
    if edit is None:
        path.write_text("")
    else:
        d = _saved_game(tmp_path, version)
        edit(d)
        path.write_text(json.dumps(d))
    r = run_nardy("play", "--resume", str(path), timeout=60)
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr and str(path) in r.stderr
    for w in words:
        assert w in r.stderr, r.stderr


def test_version_1_save_still_resumes_and_saves_again_as_a_table(tmp_path):
    from nardy.terminal.saving import load_saved_game

    old = tmp_path / "v1.json"
    old.write_text(json.dumps(_saved_game(tmp_path, version=1)))
    m, data = load_saved_game(str(old))
    assert data["version"] == 1 and data["players"] == ["human", "bot:random"]  # "bots" is not used
    assert m.current.steps_taken and m.current.dice == (6, 5)
    new = tmp_path / "v2.json"
    players = [parse_player(p) for p in data["players"]]
    out, s = session_output(m, ["18/13", "", f"save {new}", "quit", "y", ""], players=players)
    assert "White plays 6-5: 24/13" in out and "Black plays 3-1" in out
    d = json.loads(new.read_text())
    assert d["version"] == 2 and [x["kind"] for x in d["table"]["seats"]] == ["person", "computer"]
    # from the shell
    r = Driver("play", "--resume", str(old))
    r.wait()
    assert "Resumed from" in r.last and "Steps so far: 24/18" in r.last and r.kind == "play"
    assert r.send("18/13") == "confirm"
    r.send("")
    assert "White plays 6-5: 24/13" in r.last and "Black plays 3-1" in r.last and r.kind == "play"
    r.send("quit")
    r.send("y")
    assert r.send("") == "eof"
    r.child.close()
    assert r.exitstatus == 0


def test_auto_record_to_unwritable_path_fails(tmp_path):
    rec = tmp_path / "no-such-dir" / "x.mat"
    r = CliRunner().invoke(
        nardy_main,
        [
            "play",
            "--auto",
            "--game",
            "long",
            "--seed",
            "3",
            "--white",
            "bot:random",
            "--black",
            "bot:random",
            "--record",
            str(rec),
        ],
    )
    assert r.exit_code == 1 and not rec.exists()
    assert "Cannot write the record" in r.stderr and str(rec) in r.stderr
    assert r.stdout.startswith("; [Site")


def test_traditional_numbering_black_example_and_backwards_step_explained():
    m = Match("short", dice=FixedDice([2, 5, (3, 1), (4, 2)]))
    out, _ = session_output(
        m, ["", "12/9", "quit", "y", ""], players=(PlayerSpec("human"), PlayerSpec("human")), numbering="traditional"
    )
    assert "Black starts" in out
    assert "(e.g. 1/7 12/011)" in out and "01/07 012/11" not in out
    assert "Illegal play '12/9': 12/9 goes backwards: Black moves 1…12, 012…01" in out
    assert "cannot read it as a play" not in out


@pytest.mark.parametrize("game", ["long", "short"])
def test_double_without_cube_says_the_cube_is_not_used(game):
    m = Match(game, dice=FixedDice([5, 2, (6, 5), (3, 1), (4, 2)]))
    out, _ = session_output(m, ["double", "quit", "y", ""])
    assert "You cannot double" in out and "a double is offered before rolling" not in out
    assert "You cannot double: the doubling cube is not used in this game" in out


def test_refusals_reach_a_russian_player_in_russian():
    d = Driver(
        "play",
        "--game",
        "backgammon",
        "--white",
        "human",
        "--black",
        "human",
        "--seed",
        "21",
        "--lang",
        "ru",
        lang="ru",
    )
    d.wait()
    while d.kind not in ("play", "roll"):
        d.respond()
    if d.kind == "roll":
        d.send("")
    assert d.kind == "play"
    d.send("удвоить")  # a double after the roll
    assert "удвоение" in d.last.lower() or "удвоить" in d.last.lower()
    d.send("22/18 22/21")  # no checker on 22 at the start
    assert "Недопустимый ход" in d.last and "нет ваших шашек" in d.last, d.last
    d.send("13/x")
    assert "Недопустимый ход" in d.last, d.last
    for english in ("checker", "point ", "dice", "cannot", "phase"):
        assert english not in d.last, (english, d.last)
    d.child.close()


def test_the_old_play_module_path_still_gives_its_public_names():
    """``nardy.play`` (before the layer packages; an alias of :mod:`nardy.terminal.play`) still has the names it
    exported, now defined in the terminal's modules; the game itself is ``TerminalGame``."""
    import importlib
    import warnings

    from nardy.terminal import players, saving

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        old = importlib.import_module("nardy.play")
    assert old.PlayerSpec is players.PlayerSpec and old.parse_player is players.parse_player
    assert old.SAVE_FORMAT == saving.SAVE_FORMAT == "nardy-play" and old.Output is Output
    assert old.TerminalGame is TerminalGame


def test_hint_in_long_nardy_last_roll_ranks_the_plays_exactly():
    """docs/rules.md long nardy, option last-roll: Black (the starter) bears off its last checker, White has one
    roll left; 6-5 bears off both its checkers for a draw (equity 0), any other play loses an oyn (-1). The
    hint shows the exact results (flow's hints_for, as the web's), not the net's view of the position."""
    rules = get_rules("long", last_roll="half")
    mover = [14, 1] + [0] * 24  # Black, to roll: one checker on its 1 point
    opponent = [13] + [0] * 25
    opponent[6] = opponent[5] = 1  # White: checkers on 6 and 5, 13 off
    m = match_at(Position.from_boards(mover, opponent, rules), [(2, 1), (6, 5)], turn=1)
    out, _ = session_output(m, ["hint"])
    lines = out[out.index("Best plays (equity for White") :].splitlines()
    assert re.fullmatch(r"\s+1\) 6/off 5/off\s+\+0\.000", lines[1])
    assert re.fullmatch(r"\s+2\) 6/1 5/off\s+-1\.000  \(-1\.000\)", lines[2])
    assert "win 0.0%" in lines[3]


def test_ambiguous_typed_play_is_refused_naming_its_readings():
    """13/9 with 3-1 can hit the blot on 10 or the one on 12 (two different plays): the terminal refuses it and
    names both (flow's entry path), instead of taking steps that pick one reading."""
    m = match_at(pos("backgammon", {13: 1, 6: 14}, {15: 1, 13: 1, 1: 13}), [(3, 1)], turn=0)
    out, s = session_output(m, ["", "13/9"])
    assert "Illegal play '13/9': ambiguous: it can mean 13/10*/9 or 13/12*/9" in out
    assert s.table.game.steps_taken == [] and s.table.game.phase == "move"

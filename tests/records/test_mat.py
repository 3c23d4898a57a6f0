"""Jellyfish .mat records: GNU Backgammon's self-play matches, round trips of all three games,
malformed and rule-breaking files, import into GNU Backgammon."""

import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from nardy.cli.replay import replay as replay_cmd
from nardy.flow.match import Match
from nardy.records.mat import parse_mat, read_mat, replay, write_mat
from nardy.rules.dice import DiceSource
from nardy.rules.errors import RecordError
from tests.helpers import SHARED, shared_path

#: GNU Backgammon's matches in ../shared (none in a clone without it: the tests that read them skip).
GNUBG_FILES = sorted((SHARED / "data" / "gnubg-matches").glob("*.mat"))


def gnubg_match(*name: str) -> Path:
    """``../shared/data/gnubg-matches/<name>``; skips the test when ../shared is missing."""
    return shared_path("data", "gnubg-matches", *name)


def stated_final_score(text: str):
    """The final score a record states: the last game's score line plus its last 'Wins' line
    (read straight from the text, independently of the reader)."""
    score_lines = re.findall(r"^\s*\S.*?:\s*(\d+)\s+\S.*?:\s*(\d+)\s*$", text, re.M)
    s = [int(score_lines[-1][0]), int(score_lines[-1][1])]
    last_game = text[text.rindex(" Game ") :]
    wins = [
        (m.start() - last_game.rfind("\n", 0, m.start()) - 1, int(m.group(1)))
        for m in re.finditer(r"Wins (\d+) points?", last_game)
    ]
    col, pts = wins[-1]
    s[1 if col > 20 else 0] += pts
    return tuple(s)


def test_gnubg_match_folder_is_there():
    folder = gnubg_match()  # skips without ../shared; fails when ../shared lacks the matches
    assert len(GNUBG_FILES) >= 10, f"no GNU Backgammon matches found in {folder}"


# Without ../shared one case (path None) that skips naming the folder, instead of an empty parameter set.
@pytest.mark.parametrize(
    "path", GNUBG_FILES if SHARED.is_dir() else [None], ids=lambda p: getattr(p, "name", "no-shared")
)
def test_gnubg_self_play_match_replays_legally_to_the_stated_final_score(path):
    gnubg_match()  # skips without ../shared
    text = path.read_text()
    rec = read_mat(path)
    m = replay(rec)
    assert m.score == stated_final_score(text)
    assert m.is_over and m.winner == (0 if m.score[0] > m.score[1] else 1)
    n_moves = sum(1 for g in rec.games for a in g.actions if a.kind == "move")
    n_played = sum(1 for g in m.games for e in g.history if e.type in ("play", "pass"))
    assert n_played == n_moves + 0  # every roll of the record was played through the rules


def random_match(game, length, seed, cube=None, resign_rate=0.01):
    rng = random.Random(seed)
    m = Match(game, length=length, dice=DiceSource(seed), cube=cube, players=("Anna", "Boris"))
    while not m.is_over and len(m.games) < 6:
        g = m.new_game(start=True)
        while not g.is_over:
            if g.phase == "roll":
                if g.may_double and rng.random() < 0.08:
                    g.double()
                elif rng.random() < resign_rate:
                    g.resign(rng.randrange(len(g.rules.result_names)))
                    g.accept_resignation()
                else:
                    g.roll()
            elif g.phase == "double":
                (g.take if rng.random() < 0.7 else g.drop)()
            else:
                g.play(rng.choice(g.legal_plays()))
    return m


def _events(m):
    out = []
    for g in m.games:
        for e in g.history:
            e = e.to_dict()
            e.pop("rolls", None)  # opening tie rolls are not part of a .mat record
            out.append(e)
    return out


@pytest.mark.parametrize(
    "game,cube", [("backgammon", None), ("short", None), ("short", True), ("long", None), ("long", True)]
)
def test_mat_export_import_round_trip(game, cube):
    m = random_match(game, 5, seed=len(game) + bool(cube), cube=cube)
    text = write_mat(m)
    if game != "backgammon":
        assert '; [Variation "' in text and ("Short Nardy" in text or "Long Nardy" in text)
    back = replay(text)
    assert back.rules.with_options(cube=False) == m.rules.with_options(cube=False) and back.cube == m.cube
    assert back.length == m.length and back.players == m.players
    assert back.score == m.score
    assert _events(back) == _events(m)
    assert write_mat(back) == text


def test_gnubg_match_export_reads_back_identically():
    gnubg_match()  # skips without ../shared
    for path in GNUBG_FILES[:4]:
        m = replay(path)
        back = replay(write_mat(m))
        assert _events(back) == _events(m) and back.score == m.score


# ----- errors ------------------------------------------------------------------------------------
def _base():
    return gnubg_match("gnubg-1005.mat").read_text()


def test_illegal_play_error_names_game_move_player_and_keeps_the_valid_part():
    text = _base().replace("  2) 43: 24/21 21/17*", "  2) 43: 24/20 20/17*")
    with pytest.raises(RecordError) as ei:
        replay(text)
    e = ei.value
    assert (e.game, e.move, e.player) == (1, 2, "gnubg")
    assert "illegal play" in e.reason and "game 1, move 2, gnubg" in str(e)
    partial = e.partial
    assert isinstance(partial, Match) and len(partial.games) == 1
    plays = [h for h in partial.games[0].history if h.type == "play"]
    assert [p.play for p in plays] == ["8/4 6/4", "8/7(2) 6/5(2)"]


def test_wrong_wins_line_is_an_error():
    # game 3 ends with gnubg bearing off its last checker: a single at cube 2
    text = _base().replace(
        " 20) 66: 1/0                     \n      Wins 2 points",
        " 20) 66: 1/0                     \n      Wins 4 points",
    )
    assert text != _base()
    with pytest.raises(RecordError, match="'Wins 4' but the game is worth 2") as ei:
        replay(text)
    assert ei.value.game == 3 and ei.value.partial.score == (3, 2)  # game 3 as the rules scored it


def test_wins_line_before_the_end_must_match_a_resignation_level():
    # game 1 ends with gnubg resigning a single at cube 2: 'Wins 3' fits no level
    text = _base().replace(
        "                                  Wins 2 points\n\n Game 2",
        "                                  Wins 3 points\n\n Game 2",
    )
    assert text != _base()
    with pytest.raises(RecordError, match="no resignation level"):
        replay(text, strict=True)
    # read as GNU Backgammon reads it, the smallest resignation worth 3 or more (a gammon, 4 points):
    # the next game's stated score 0-2 then disagrees
    with pytest.raises(RecordError, match="states the score 0-2 but the games before give 0-4") as ei:
        replay(text)
    assert [w.code for w in ei.value.partial.warnings] == ["resign_value"]


def test_wrong_score_line_is_an_error():
    text = _base().replace(" gnubg : 0                      root : 2", " gnubg : 1                      root : 2", 1)
    with pytest.raises(RecordError, match="states the score 1-2") as ei:
        replay(text)
    assert ei.value.game == 2 and ei.value.partial.score == (0, 2)


def test_out_of_turn_double_in_a_record_is_an_error():
    text = _base().replace(
        "  4)  Doubles => 2                Takes\n  5) 32: 13/10 10/8",
        "  4)                              Doubles => 2\n  5) 32: 13/10 10/8",
    )
    assert text != _base()
    with pytest.raises(RecordError, match="cannot double") as ei:
        replay(text)
    assert ei.value.game == 4 and ei.value.player == "root"


def test_double_in_the_crawford_game_is_an_error():
    text = gnubg_match("gnubg-1009.mat").read_text()
    bad = text.replace(
        "  1) 21: 24/22 22/21             55: 8/3 8/3 6/1* 6/1",
        "  1) 21: 24/22 22/21              Doubles => 2\n  2)  Takes",
    )
    assert bad != text
    with pytest.raises(RecordError, match="Crawford") as ei:
        replay(bad)
    assert ei.value.game == 3


def test_wrong_cube_value_is_an_error():
    text = _base().replace(
        " 12) 53: 8/3* 6/3                 Doubles => 2", " 12) 53: 8/3* 6/3                 Doubles => 4"
    )
    with pytest.raises(RecordError, match="cube is at 1"):
        replay(text)


@pytest.mark.parametrize(
    "text,reason",
    [
        (" 3 point match\n\n  1) 31: 8/5 6/5\n", "before the first"),
        (" 3 point match\n\n Game 2\n A : 0    B : 0\n", "Game 2 follows game 0"),
        (" 3 point match\n\n Game 1\n A : 0     B : 0\n  1) 31: 8/5 6/5 ??? \n", "cannot read"),
        (" 3 point match\n\n Game 1\n A : 0     B : 0\n  1) 31: 8/5 6/5\n  3) 42: 8/4 6/4\n", "move 3 follows move 1"),
        (
            '; [Variation "Chess"]\n 3 point match\n\n Game 1\n A : 0     B : 0\n  1) 31: 8/5 6/5\n',
            "unknown Variation 'Chess'",
        ),
    ],
)
def test_malformed_files_give_clear_errors(text, reason):
    with pytest.raises(RecordError, match=reason) as ei:
        replay(text)
    assert ei.value.partial is not None


def test_unfinished_last_game_replays_the_valid_part():
    text = _base()
    cut = text[: text.index(" 13)  Takes")]
    m = replay(cut)
    assert len(m.games) == 1 and m.current.phase == "double" and m.score == (0, 0)


# ----- command line ------------------------------------------------------------------------------
def test_cli_replay_prints_games_and_final_score(tmp_path):
    r = CliRunner().invoke(replay_cmd, [str(gnubg_match("gnubg-1003.mat"))])
    assert r.exit_code == 0, r.output
    assert "Game 2" in r.output and "Final score: gnubg 8, root 2" in r.output
    r = CliRunner().invoke(replay_cmd, [str(gnubg_match("gnubg-1003.mat")), "--json"])
    assert r.exit_code == 0 and '"score": [\n  8,\n  2\n ]' in r.output


def test_cli_replay_exits_non_zero_on_a_rule_violation(tmp_path):
    bad = tmp_path / "bad.mat"
    bad.write_text(_base().replace("  2) 43: 24/21 21/17*", "  2) 43: 24/20 20/17*"))
    r = CliRunner().invoke(replay_cmd, [str(bad)])
    assert r.exit_code == 1
    assert "game 1, move 2, gnubg" in r.output


# ----- GNU Backgammon imports our export ---------------------------------------------------------
def _gnubg():
    return shutil.which("gnubg") or ("/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None)


@pytest.mark.skipif(_gnubg() is None, reason="gnubg not installed (apt-get install -y gnubg)")
def test_gnubg_imports_our_backgammon_export(tmp_path):
    matches = [random_match("backgammon", 5, seed=21), replay(gnubg_match("gnubg-1005.mat"))]
    for i, m in enumerate(matches):
        ours = tmp_path / f"ours{i}.mat"
        ours.write_text(write_mat(m))
        theirs = tmp_path / f"theirs{i}.mat"
        cmds = f"import mat {ours}\nexport match mat {theirs}\n"
        p = subprocess.run(
            [_gnubg(), "-t", "-q"],
            input=cmds,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        assert theirs.exists(), p.stdout[-2000:] + p.stderr[-2000:]
        back = replay(theirs)  # what GNU Backgammon understood, through our rules
        assert back.score == m.score
        pos = [
            [(e.type, getattr(e, "position", None), getattr(e, "dice", None)) for e in g.history if e.type != "opening"]
            for g in m.games
        ]
        pos_back = [
            [(e.type, getattr(e, "position", None), getattr(e, "dice", None)) for e in g.history if e.type != "opening"]
            for g in back.games
        ]
        assert pos_back == pos


def test_long_nardy_last_roll_draw_round_trips():
    m = Match("long", length=0, dice=DiceSource(20), **{"last-roll": "half"})
    g = m.new_game(start=True)
    while not g.is_over:  # greedy bear-off play; this seed ends in a last-roll draw
        if g.phase == "roll":
            g.roll()
        else:
            g.play(max(g.legal_plays(), key=lambda p: (p.result.mover[0], -p.result.pip_count()[0])))
    assert g.result.winner is None and m.score == (0.5, 0.5)
    text = write_mat(m)
    assert "Draw 0.5 points each" in text and '; [Last Roll "half"]' in text
    back = replay(text)
    assert back.score == (0.5, 0.5) and _events(back) == _events(m)


def test_resignation_before_any_play_round_trips():
    from nardy.flow.match import Match
    from nardy.rules.dice import DiceSource

    m = Match("backgammon", length=3, dice=DiceSource(5))
    g = m.new_game() if not m.games else m.current
    g.start()
    g.resign(0, player=g.turn)
    g.accept_resignation()
    back = replay(parse_mat(write_mat(m)))
    assert back.score == m.score and sum(m.score) == 1


@pytest.mark.parametrize("text", ["", "; [EventDa", "\n\n"])
def test_empty_record_is_an_error(text):
    with pytest.raises(RecordError, match="empty record"):
        parse_mat(text)


def test_absurd_match_length_is_an_error():
    with pytest.raises(RecordError, match="out of range"):
        parse_mat(" 99999999 point match\n")


def test_record_error_message_names_game_once():
    text = " 1 point match\n\n Game 1\n White : 0                      Black : 0\n  1) 31: 8/5 6/5\n"
    rec = parse_mat(text)
    rec.games[0].actions[0].kind = "double"
    with pytest.raises(RecordError) as e:
        replay(rec)
    assert str(e.value).count("game 1") == 1

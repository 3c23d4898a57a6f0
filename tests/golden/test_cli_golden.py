"""Golden files of the command line (issue 42, step 0): what ``nardy play``, ``nardy replay`` and ``nardy analyse``
print, and the files they write, for seeded games and the shipped sample records.

Every command runs in-process through click's ``CliRunner`` on :func:`nardy.cli.main` (the ``nardy`` entry point),
with ``--lang`` and ``--color never`` given, so the locale and the terminal do not matter. The computer plays at
cheap levels (random to expert, 0- and 1-ply) so the whole file takes seconds. Normalised: the terminal's
warm-up notice (printed only when numba compiles, after an install), the seconds an analysis took, the dice
sources' states and the times (``"t"``) of the table's log in saved files (see :mod:`tests.golden.golden`).
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from nardy.cli import main
from tests.golden.golden import check_json, check_text, shorten_dice_states, zero_keys

#: ``nardy play --auto`` runs: name -> arguments. All three games, money and matches, the cube in backgammon
#: (and short nardy with --cube), a rules option, bots of every cheap level.
PLAY_RUNS = {
    "backgammon-match3-seed1": "-g backgammon -m 3 --seed 1 -w bot:intermediate -b bot:advanced",
    "backgammon-money-seed7": "-g backgammon --seed 7 -w bot:beginner -b bot:expert",
    "short-match3-seed5": "-g short -m 3 --seed 5 -w bot:casual -b bot:advanced",
    "short-cube-seed9": "-g short --cube --seed 9 -w bot:heuristic -b bot:intermediate",
    "long-money-seed4": "-g long --seed 4 -w bot:random -b bot:advanced",
    "long-match3-lastroll-seed6": "-g long -m 3 --seed 6 -w bot:beginner -b bot:expert -o last-roll=half",
}

#: The terminal's notice while numba compiles (only after an install: it depends on the cache, not on nardy's
#: behaviour) and its "ready" line, in both languages: removed from transcripts before they are compared.
WARM_UP = re.compile(
    r"^(Preparing the computer player .*|Подготовка компьютерного игрока .*|Ready \(\d+ s\)\.|Готово \(\d+ с\)\.)\n",
    re.M,
)


def nardy(*args: str, input: str | None = None) -> str:
    """Run ``nardy ARGS`` in-process; return its standard output (failing on a non-zero exit)."""
    r = CliRunner().invoke(main, list(args), input=input)
    assert r.exit_code == 0, f"nardy {' '.join(args)} exited {r.exit_code}: {r.stderr[-2000:]} {r.exception!r}"
    return r.stdout


@pytest.mark.parametrize("name", sorted(PLAY_RUNS))
def test_play_auto_transcript_is_unchanged(name):
    out = nardy("play", "--auto", *PLAY_RUNS[name].split(), "--lang", "en", "--color", "never")
    assert " Game 1" in out and "Wins" in out
    check_text(f"play/{name}.mat", out)


def test_play_record_files_are_unchanged(tmp_path, monkeypatch):
    """``--record``: the .mat (the same text --auto prints) and GNU Backgammon's SGF, as written to disk."""
    monkeypatch.chdir(tmp_path)
    args = PLAY_RUNS["backgammon-match3-seed1"].split()
    out = nardy("play", "--auto", *args, "--record", "match.mat", "--lang", "en", "--color", "never")
    assert (tmp_path / "match.mat").read_text(encoding="utf-8") == out
    nardy("play", "--auto", *args, "--record", "match.sgf", "--lang", "en", "--color", "never")
    check_text("play/backgammon-match3-seed1.sgf", (tmp_path / "match.sgf").read_text(encoding="utf-8"))


#: Terminal sessions of a person against the computer: (arguments, the lines typed). They roll, list and pick
#: plays, ask for a hint and an estimate, redraw the board, make a refused play, undo, double, decline their own
#: resignation, save the game and quit.
TERMINAL_RUNS = {
    "backgammon-en": (
        "-g backgammon -b bot:beginner --seed 3 --lang en --hint-level expert",
        ["", "moves", "1", "", "hint", "1", "", "eval", "moves", "2", "board", "", "24/23", "undo", "moves", "1"]
        + ["double", "", "moves", "1", "resign", "n", "save game.json", "quit", "y", ""],
    ),
    "short-ru": (
        "-g short -m 3 -b bot:casual --seed 12 --lang ru --hint-level advanced",
        ["", "moves", "1", "", "hint", "2", "", "eval", "moves", "3", "help", "", "13/7", "undo", "moves", "1"]
        + ["", "moves", "1", "save game.json", "quit", "y", ""],
    ),
    "long-en-absolute": (
        "-g long -b bot:intermediate --seed 21 --lang en --numbering absolute --hint-level advanced",
        ["", "moves", "1", "", "hint", "1", "", "24/18", "moves", "1", "", "moves", "2", "", "board"]
        + ["moves", "1", "", "moves", "1", "save game.json", "quit", "y", ""],
    ),
}


@pytest.mark.parametrize("name", sorted(TERMINAL_RUNS))
def test_terminal_session_and_saved_game_are_unchanged(name, tmp_path, monkeypatch):
    """A person's session in the terminal (every text and board drawn), the game it saved (``save FILE``: the
    terminal's format, dice state shortened, log times zeroed), and that game resumed with the computer in both
    seats (--auto)."""
    monkeypatch.chdir(tmp_path)
    args, lines = TERMINAL_RUNS[name]
    out = nardy("play", *args.split(), "--color", "never", input="\n".join(lines) + "\n")
    check_text(f"terminal/{name}.txt", WARM_UP.sub("", out))
    saved = json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))
    check_json(f"terminal/{name}-saved.json", zero_keys(shorten_dice_states(saved), {"t"}))  # "t": log times
    resumed = nardy("play", "--resume", "game.json", "--auto", "-w", "bot:advanced", "--color", "never")
    check_text(f"terminal/{name}-resumed.mat", resumed)


def sample_paths() -> dict[str, str]:
    """``nardy samples``: name -> path of each sample record shipped with nardy."""
    return dict(line.split(None, 1) for line in nardy("samples").splitlines() if line.strip())


def test_samples_list_is_unchanged():
    check_text("samples.txt", "\n".join(sorted(sample_paths())) + "\n")


@pytest.mark.parametrize("name", ["backgammon-match", "long-nardy-game", "short-nardy-match"])
def test_replay_of_the_samples_is_unchanged(name):
    check_text(f"replay/{name}.txt", nardy("replay", "--sample", name, "--lang", "en"))


def test_replay_json_of_a_sample_is_unchanged():
    check_text("replay/backgammon-match.json", nardy("replay", "--sample", "backgammon-match", "--json"))


#: ``nardy analyse --json -`` runs: (sample, level). Backgammon's match (cube decisions through the match equity
#: table) at 1-ply, short nardy's match at 0-ply.
ANALYSE_RUNS = [("backgammon-match", "expert"), ("short-nardy-match", "advanced")]

#: The seconds the analysis took (the only time in its JSON): replaced by 0.0.
SECONDS = re.compile(r'^ "seconds": [0-9.e+-]+,$', re.M)


@pytest.mark.parametrize("sample, level", ANALYSE_RUNS)
def test_analyse_json_of_a_sample_is_unchanged(sample, level):
    path = sample_paths()[sample]
    out = nardy("analyse", "--json", "-", "--level", level, "--quiet", path)
    assert len(SECONDS.findall(out)) == 1, "the analysis JSON has one top-level 'seconds'"
    check_text(f"analyse/{sample}-{level}.json", SECONDS.sub(' "seconds": 0.0,', out))

"""Text from records reaches a terminal printable only (nardy.texts.printable.terminal_text; issue 41, item 10).

A player name holding ``ESC ] 0 ; ... BEL`` (the terminal's "set the title" sequence), a bidirectional override
or rich markup, in a crafted ``.mat``: ``nardy replay``, ``nardy analyse``, ``nardy play --resume`` (and the
error paths, which quote a file's name) print it as visible escapes; ``--json`` and records keep it as written.
"""

from __future__ import annotations

import io
import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import nardy
from nardy.cli import main
from nardy.terminal.render import Output
from nardy.texts.printable import terminal_text

SAMPLE = Path(nardy.__file__).parent / "data" / "samples" / "backgammon-match.mat"
REPO = Path(__file__).resolve().parents[2]
#: A name that retitles the terminal, reverses the rest of the line and asks rich for bold.
EVIL = "Evil\x1b]0;pwned\x07[bold]X\u202e"
SHOWN = "Evil\\x1b]0;pwned\\x07[bold]X\\u202e"
#: What no output may hold: ESC, BEL, the right-to-left override, a C1 control (CSI).
FORBIDDEN = ("\x1b", "\x07", "\u202e", "\x9b")


def clean(text: str) -> None:
    for ch in FORBIDDEN:
        assert ch not in text, (ch, text[:500])


@pytest.fixture
def evil_mat(tmp_path) -> Path:
    p = tmp_path / "evil.mat"
    p.write_text(SAMPLE.read_text().replace("nardy-advanced", EVIL), encoding="utf-8")
    return p


@pytest.fixture
def evil_part(tmp_path) -> Path:
    """The first three moves of game 1 only: a match to resume, quick to analyse."""
    lines = []
    for line in SAMPLE.read_text().replace("nardy-advanced", EVIL).splitlines():
        lines.append(line)
        if line.strip().startswith("3)"):
            break
    p = tmp_path / "part.mat"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return p


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


# ----- the helper -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, shown",
    [
        (EVIL, SHOWN),
        ("a\tb\rc\nd", "a\\x09b\\x0dc\\x0ad"),
        ("del\x7f c1\x9b[2J nel\x85", "del\\x7f c1\\x9b[2J nel\\x85"),
        ("\u202dLRO \u2066LRI\u2069 \u200fRLM \u061cALM", "\\u202dLRO \\u2066LRI\\u2069 \\u200fRLM \\u061cALM"),
        ("line\u2028sep", "line\\u2028sep"),
        ("bad bytes \udcff", "bad bytes \\udcff"),
    ],
)
def test_control_characters_become_visible_escapes(text, shown):
    assert terminal_text(text) == shown


@pytest.mark.parametrize("text", ["Ann", "Иван Петров", "Σωκράτης", "李小龍", "[bold]red[/bold]", "🎲 x", "a\u00a0b"])
def test_printable_text_of_every_script_is_kept(text):
    assert terminal_text(text) == text


def test_line_breaks_are_kept_only_when_asked():
    assert terminal_text("a\nb", lines=True) == "a\nb"
    assert terminal_text("a\nb\x1b", lines=True) == "a\nb\\x1b"
    assert terminal_text("a\nb") == "a\\x0ab"


def test_the_terminal_output_of_nardy_play_prints_names_as_text_not_escapes_or_markup():
    plain, coloured = io.StringIO(), io.StringIO()
    Output("never", stream=plain).line(f"{EVIL} wins")
    Output("always", stream=coloured).line([(EVIL, "bold"), (" wins", None)])
    assert plain.getvalue() == f"{SHOWN} wins\n"
    out = coloured.getvalue()
    assert SHOWN in out and "\x07" not in out and "\x1b]" not in out and "\u202e" not in out  # rich's colours only


# ----- nardy replay -----------------------------------------------------------------------------------------------
def test_replay_prints_the_names_printable(evil_mat):
    r = run("replay", evil_mat)
    assert r.exit_code == 0, r.output
    clean(r.output)
    first = r.output.splitlines()[0]
    assert first == f"backgammon 3 point match: {SHOWN} (White) vs nardy-intermediate (Black)"


def test_replay_json_keeps_the_name_as_written(evil_mat):
    r = run("replay", "--json", evil_mat)
    assert r.exit_code == 0, r.output
    clean(r.output)  # JSON's own escapes (\u001b...)
    assert json.loads(r.output)["players"] == [EVIL, "nardy-intermediate"]


def test_an_error_naming_a_crafted_file_prints_it_printable(tmp_path):
    bad = tmp_path / "x\x1b]0;t\x07.mat"
    bad.write_text("not a record\n", encoding="utf-8")
    for args in (("replay", bad), ("convert", bad, tmp_path / "out.sgf"), ("play", "--resume", bad)):
        r = run(*args)
        assert r.exit_code != 0
        clean(r.output)
        assert "x\\x1b]0;t\\x07.mat" in r.output, r.output


# ----- nardy analyse ------------------------------------------------------------------------------------------------
def test_analyse_prints_the_names_printable_and_its_json_keeps_them(evil_part, tmp_path):
    r = run("analyse", "-q", "--level", "advanced", "--json", tmp_path / "a.json", evil_part)
    assert r.exit_code == 0, r.output
    clean(r.output)
    assert SHOWN[:24] in r.output
    assert json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))["players"][0]["name"] == EVIL
    r = run("analyse", "-q", "--level", "advanced", "--json", "-", evil_part)  # to a pipe: as written
    assert json.loads(r.output)["players"][0]["name"] == EVIL


# ----- nardy play --resume ----------------------------------------------------------------------------------------
def play_auto_args(path: Path) -> list[str]:
    return ["play", "--resume", str(path), "--auto", "-w", "bot:beginner", "-b", "bot:beginner", "--seed", "3"]


def test_play_resume_auto_prints_the_record_as_written_to_a_pipe(evil_part):
    r = run(*play_auto_args(evil_part))
    assert r.exit_code == 0, r.output
    assert f'[Player 1 "{EVIL}"]' in r.output  # a record, kept as written


def test_play_resume_auto_prints_the_record_printable_to_a_terminal(evil_part):
    """The same through a pseudo-terminal: what reaches a terminal is printable."""
    leader, follower = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(REPO), "NO_COLOR": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "nardy.cli", *play_auto_args(evil_part)],
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        cwd=REPO,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # the other end closed (Linux: EIO)
            break
        if not data:
            break
        chunks.append(data)
    os.close(leader)
    assert proc.wait(timeout=300) == 0
    out = b"".join(chunks).decode("utf-8")
    clean(out)
    assert f'[Player 1 "{SHOWN}"]' in out

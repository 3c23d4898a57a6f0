"""``nardy diagram``: a position drawn as SVG or PNG (issue 47), an XGID's cube, score and dice used unless an
option overrides them, and clear errors (exit 2) for bad input."""

from __future__ import annotations

import io
import os
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from nardy import Position
from nardy.cli import main
from nardy.rules.diagram import WIDTH

SVG = "{http://www.w3.org/2000/svg}"
REPO = Path(__file__).resolve().parents[2]
START = "4HPwATDgc/ABMA"
#: The starting position, 1 to play 5-2 (the top player on turn, XGID turn -1), cube 2 owned by the bottom
#: player, score bottom 3 top 1 in a 7-point match.
XGID = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:3:1:0:7:10"


def run(*args):
    return CliRunner().invoke(main, list(args))


def texts(svg: str, cls: str) -> list[str]:
    root = ET.fromstring(svg)
    return [e.text or "" for e in root.iter(SVG + "text") if cls in (e.get("class") or "").split()]


def count(svg: str, tag: str, cls: str) -> int:
    root = ET.fromstring(svg)
    return sum(1 for e in root.iter(SVG + tag) if cls in (e.get("class") or "").split())


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_diagram_of_the_starting_position_prints_an_svg_with_30_checkers(game):
    pid = Position.start(game).id()
    r = run("diagram", pid, "--game", game, "--dice", "6-4")
    assert r.exit_code == 0, r.output
    assert count(r.output, "circle", "checker") == 30
    assert count(r.output, "rect", "die") == 2
    # a cube only in backgammon by default
    assert texts(r.output, "cube") == (["64"] if game == "backgammon" else [])


def test_diagram_options_draw_cube_score_names_and_numbering():
    r = run(
        "diagram",
        START,
        "--cube",
        "4",
        "--owner",
        "opponent",
        "--score",
        "2-5",
        "--length",
        "7",
        "--names",
        "Ann,Bob",
        "--numbering",
        "traditional",
        "--title",
        "Puzzle 1",
    )
    assert r.exit_code == 0, r.output
    assert texts(r.output, "cube") == ["4"]
    assert texts(r.output, "score") == ["2-5, match to 7"]
    assert texts(r.output, "name") == ["Bob", "Ann"]
    assert texts(r.output, "title") == ["Puzzle 1"]
    assert texts(r.output, "label")[12] == "012"


def test_diagram_of_an_xgid_uses_its_dice_cube_and_score_from_the_side_on_turn():
    r = run("diagram", XGID)
    assert r.exit_code == 0, r.output
    assert texts(r.output, "score") == ["1-3, match to 7"]  # the top player on turn: its 1 first
    assert texts(r.output, "cube") == ["2"]
    root = ET.fromstring(r.output)
    cube_y = [float(e.get("y")) for e in root.iter(SVG + "rect") if e.get("class") == "cube"][0]
    assert cube_y < 300  # owned by the bottom player, the opponent of the side on turn: drawn at the top
    assert count(r.output, "circle", "die-pip") == 5 + 2
    # options override the XGID's fields
    r = run("diagram", XGID, "--score", "0-0", "--cube", "1", "--owner", "centre", "--dice", "1-1")
    assert texts(r.output, "score") == ["0-0, match to 7"]
    assert texts(r.output, "cube") == ["64"]
    assert count(r.output, "circle", "die-pip") == 2


def test_diagram_png_to_a_file_has_the_scaled_size(tmp_path):
    from PIL import Image

    out = tmp_path / "board.png"
    r = run("diagram", START, "--png", "--theme", "print", "--scale", "0.5", "-o", str(out))
    assert r.exit_code == 0, r.output
    img = Image.open(out)
    assert img.format == "PNG" and img.size == (round(WIDTH * 0.5), round(630 * 0.5))


def test_diagram_png_goes_to_stdout_when_it_is_not_a_terminal():
    from PIL import Image

    r = CliRunner().invoke(main, ["diagram", START, "--png"])
    assert r.exit_code == 0
    assert Image.open(io.BytesIO(r.stdout_bytes)).size == (WIDTH, 630)


def test_diagram_svg_to_a_file(tmp_path):
    out = tmp_path / "board.svg"
    r = run("diagram", START, "--theme", "dark", "-o", str(out))
    assert r.exit_code == 0 and r.output == ""
    assert count(out.read_text(encoding="utf-8"), "circle", "checker") == 30


def test_diagram_png_refuses_a_terminal():
    pexpect = pytest.importorskip("pexpect")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    child = pexpect.spawn(
        sys.executable, ["-m", "nardy.cli", "diagram", START, "--png"], cwd=str(REPO), env=env, timeout=60
    )
    child.expect(pexpect.EOF)
    child.close()
    assert b"not written to a terminal" in child.before
    assert child.exitstatus == 2
    assert b"\x89PNG" not in child.before


@pytest.mark.parametrize(
    "args,words",
    [
        (["xyz"], "'xyz'"),
        ([START, "--dice", "7-1"], "1-6"),
        ([START, "--numbering", "absolute"], "absolute"),
        ([START, "--game", "long", "--numbering", "traditional"], "traditional"),
        ([START, "--owner", "left"], "owner"),
        ([START, "--score", "two-one"], "score"),
        ([START, "--cube", "3"], "power of two"),
        ([START, "--names", "a,b,c"], "names"),
        ([START, "--names", "x" * 41], "40"),
        ([START, "--theme", "neon"], "neon"),
        ([START, "--game", "chess"], "'chess'"),
        (["XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "--game", "long"], "XGID"),
    ],
)
def test_diagram_bad_input_exits_2_with_a_clear_message(args, words):
    r = run("diagram", *args)
    assert r.exit_code == 2, r.output
    assert words in r.output

"""The analysis report's board (``nardy.analysis.report.board_svg``) is the one board renderer
(:mod:`nardy.rules.diagram`, issue 47): its old signature kept, the Diagram's fields passed through."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from nardy import Position
from nardy.analysis.report import board_svg
from nardy.rules.diagram import Diagram, diagram_svg

SVG = "{http://www.w3.org/2000/svg}"


def test_board_svg_draws_the_renderers_diagram_420_px_wide():
    pid = Position.start("long").id()
    svg = board_svg(pid, "long", [6, 5], title="game 1 move 1")
    root = ET.fromstring(svg)
    assert root.get("width") == "420"
    assert root.get("viewBox") == "0 0 790 660"
    same = diagram_svg(Diagram(Position.start("long"), dice=(6, 5), title="game 1 move 1"), width=420)
    assert svg == same
    assert len([c for c in root.iter(SVG + "circle") if "checker" in (c.get("class") or "")]) == 30


def test_board_svg_passes_cube_score_and_numbering_through():
    pid = Position.start("backgammon").id()
    svg = board_svg(pid, "backgammon", None, cube=4, cube_owner=0, score=(1, 3), length=5, numbering="traditional")
    root = ET.fromstring(svg)
    texts = {e.get("class"): e.text for e in root.iter(SVG + "text")}
    assert texts["score"] == "1-3, match to 5"
    labels = [e.text for e in root.iter(SVG + "text") if e.get("class") == "label"]
    assert labels[12] == "012"


def test_board_svg_of_an_unreadable_id_is_a_question_mark():
    assert ">?</text>" in board_svg("not an id", "backgammon")

"""The position editor in a real browser (issue 47): Playwright driving Debian's chromium against ``nardy serve``
(as ``tests/web/test_browser.py`` does).

A position set up by dragging checkers with the mouse: one of White's checkers dragged off the board into
the spare box makes 14 (the check names ``checker_count``), dragged back onto another point the position is
legal again; with the roll 3-1 the hint lists plays, the XGID box shows the position (read back here by the
rules library), and "Play against the computer" starts a saved game at that very position and roll.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from nardy.rules.ids import parse_xgid
from nardy.rules.position import Position

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser import pytestmark, shot  # noqa: F401

browser = tb.browser

#: eXtreme Gammon's text exports (tests/records/test_xgtext.py reads them too)
SHARED_XG = Path(__file__).resolve().parents[1] / "data" / "xgtext"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "editor")


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1100, "height": 900}, locale="en-GB")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def client_xy(page, x: float, y: float) -> tuple[float, float]:
    """A point of the editor's SVG (its viewBox units) on the screen."""
    return page.evaluate(
        """([x, y]) => { const svg = document.querySelector('#ed-board'); const p = svg.createSVGPoint();
        p.x = x; p.y = y; const r = p.matrixTransform(svg.getScreenCTM()); return [r.x, r.y]; }""",
        [x, y],
    )


def point_xy(page, p: int) -> tuple[float, float]:
    """The middle of point ``p``'s stack area (White's numbering, White at the bottom)."""
    x, y = page.evaluate("(p) => [pointX(p) + G.pointW / 2, isTop(p) ? G.top + 40 : G.bottom - 40]", p)
    return client_xy(page, x, y)


def spare_xy(page, colour: str) -> tuple[float, float]:
    x = page.evaluate("(c) => (c === 'white' ? G.fieldL : G.fieldR) + 150", colour)
    return client_xy(page, x, 610)


def checked(page, before: int) -> dict:
    """Wait for the check that follows a change; its answer."""
    page.wait_for_function("(n) => window.editor.checks > n", arg=before, timeout=30_000)
    page.wait_for_timeout(300)  # a later change's check, if one was queued
    return page.evaluate("window.editor.last")


def drag(page, a: tuple[float, float], b: tuple[float, float]) -> dict:
    before = page.evaluate("window.editor.checks")
    page.mouse.move(*a)
    page.mouse.down()
    page.mouse.move(*b, steps=10)
    page.mouse.up()
    return checked(page, before)


def test_set_up_check_hint_export_and_play_from_the_position(server, page):
    page.goto(f"{server.url}/")
    page.click("#editor-link")  # reachable from the main page
    page.wait_for_function("window.editor && window.editor.checks > 0 && window.editor.last")
    assert page.evaluate("window.editor.last.position") == "4HPwATDgc/ABMA"
    assert page.is_visible("#ed-ok")

    # White's checker from its 6 into the spare box: 14 checkers, an error named on the page
    out = drag(page, point_xy(page, 6), spare_xy(page, "white"))
    assert [e["code"] for e in out["errors"]] == ["checker_count"]
    assert page.inner_text("#ed-errors").strip() != "" and not page.is_visible("#ed-ok")
    assert page.is_disabled("#ed-hint") and page.is_disabled("#ed-play")
    assert page.text_content("#ed-spare-white") == "1 not placed"
    shot(page, "editor-error")

    # dragged back onto White's 4: legal again
    out = drag(page, spare_xy(page, "white"), point_xy(page, 4))
    assert out["ok"] and out["errors"] == []
    m = [0] * 26
    m[24], m[13], m[8], m[6], m[4] = 2, 5, 3, 4, 1
    expected = Position.from_boards(m, list(Position.start("backgammon").opponent), "backgammon")
    assert out["position"] == expected.id()

    # the roll 3-1, a hint
    before = page.evaluate("window.editor.checks")
    page.select_option("#ed-die1", "3")
    page.select_option("#ed-die2", "1")
    out = checked(page, before)
    assert out["dice"] == [3, 1]
    page.click("#ed-hint")
    page.wait_for_selector("#ed-answer.ed-moves p", timeout=60_000)
    first = page.inner_text("#ed-answer p:first-child")
    assert first.startswith("1. ") and "/" in first

    # the XGID export: the same position and roll, read back by the rules library
    xgid = page.input_value("#ed-xgid")
    assert Position.from_xgid(xgid, "backgammon") == expected
    assert parse_xgid(xgid).dice == (3, 1)
    assert page.input_value("#ed-pid") == expected.id()
    # the diagram of the set-up (GET /api/diagram.svg) is shown as an image
    page.wait_for_function(
        "() => { const i = document.querySelector('#ed-diagram-img'); return i.complete && i.naturalWidth > 0; }"
    )
    href = page.get_attribute("#ed-diagram", "href")
    assert f"position={expected.id().replace('/', '%2F')}" in href and "dice=3-1" in href
    shot(page, "editor-legal")

    # a game against the computer from here: White (the person) to play 3-1 at this position
    page.select_option("#ed-colour", "white")
    page.click("#ed-play")
    page.wait_for_function("window.nardy && window.nardy.view && window.nardy.id && !window.nardy.busy", timeout=60_000)
    v = page.evaluate("window.nardy.view")
    assert (v["position_id"], v["dice"], v["phase"], v["turn"]) == (expected.id(), [3, 1], "move", 0)
    assert v["humans"] == [True, False]
    shot(page, "editor-game")


def test_long_nardy_by_clicks_names_a_point_held_by_both_and_the_bar(server, page):
    page.goto(f"{server.url}/editor?game=long")
    page.wait_for_function("window.editor && window.editor.last && window.editor.last.ok")
    assert page.is_hidden("#ed-cube-row") and page.is_hidden("#ed-xgid-row")
    # a click in "adds a black checker" mode on White's head (its 24): both sides on one point, 16 black
    page.check("input[name=ed-mode][value=black]")
    before = page.evaluate("window.editor.checks")
    page.mouse.click(*point_xy(page, 24))
    out = checked(page, before)
    assert [e["code"] for e in out["errors"]] == ["checker_count", "both_sides_on_point"]
    codes = page.eval_on_selector_all("#ed-errors li", "els => els.map(e => e.dataset.code)")
    assert codes == ["checker_count", "both_sides_on_point"]
    # "removes the top checker": the black one goes, the start is legal again
    page.check("input[name=ed-mode][value=remove]")
    before = page.evaluate("window.editor.checks")
    page.mouse.click(*point_xy(page, 24))
    out = checked(page, before)
    assert out["ok"] and out["position"] == Position.start("long").id()
    # long nardy has no bar: a white checker dragged there is named
    out = drag(page, point_xy(page, 24), client_xy(page, *page.evaluate("[(G.bar + G.fieldR) / 2, G.mid - 60]")))
    assert [e["code"] for e in out["errors"]] == ["bar_in_long_nardy"]
    # in Russian the page words the problem itself
    page.select_option("#lang", "ru")
    page.wait_for_timeout(500)
    assert "бар" in page.inner_text("#ed-errors")


def test_xg_text_pasted_is_set_up_with_its_roll_cube_and_score(server, page):
    # eXtreme Gammon's text export (its XGID line left out: the diagram itself is read)
    text = (SHARED_XG / "checker_match_en.txt").read_text(encoding="utf-8").split("\n", 2)[2]
    page.goto(f"{server.url}/editor")
    page.wait_for_function("window.editor && window.editor.last && window.editor.last.ok")
    page.fill("#ed-paste", text)
    before = page.evaluate("window.editor.checks")
    page.click("#ed-load")
    out = checked(page, before)
    want = Position.from_xgid("XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:10", "backgammon")
    assert out["ok"] and out["position"] == want.id()
    assert (out["dice"], out["cube"], out["owner"], out["score"], out["length"]) == ([2, 1], 2, "opponent", [3, 6], 7)
    assert out["pips"] == [111, 52]  # as the export says
    assert page.input_value("#ed-owner") == "black" and page.input_value("#ed-score-white") == "3"

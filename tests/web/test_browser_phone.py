"""The board on a phone held upright (issue 43: tap targets of at least 40 px), in a real browser: Playwright
driving Debian's chromium against ``nardy serve`` on a 390x844 touch screen.

On a narrow screen the board is turned a quarter clockwise (board.js, ``G_PHONE``): every point, the bar and
the off tray take taps over at least 40 x 40 CSS pixels, the checkers are at least 36 px across, the board
fits the screen's width with the score, the status and the controls still in view, and a whole play is
made by tapping checkers and points. The desktop keeps its landscape board. Skipped when chromium or the
playwright package is missing.
"""

from __future__ import annotations

import pytest

from . import test_browser as tb
from .helpers import ARTIFACTS, serve_sqlite

pytestmark = tb.pytestmark
browser = tb.browser
pick_step = tb.pick_step
view = tb.view

PHONE = {"width": 390, "height": 844}
#: The least tap target (CSS px, both ways) and the least checker diameter (CSS px) on the phone.
MIN_TAP = 40
MIN_CHECKER = 36


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "phone")


@pytest.fixture
def open_page(browser, server):
    """open_page(touch): a fresh visitor on the phone (touch, mobile) or the desktop, English, no animation."""
    made = []

    def make(phone: bool = True):
        if phone:
            ctx = browser.new_context(
                viewport=PHONE, has_touch=True, is_mobile=True, device_scale_factor=3, locale="en-GB"
            )
        else:
            ctx = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-GB")
        ctx.add_init_script(
            "localStorage.setItem('nardy.lang', 'en'); localStorage.setItem('nardy.animate', 'off');"
            " localStorage.setItem('nardy.sound', 'off');"
        )
        pg = ctx.new_page()
        pg.errors = []
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        pg.goto(server.url + "/")
        pg.wait_for_selector("body[data-ready] #home:not([hidden])")
        pg.wait_for_function("window.nardy.updates > 0")
        made.append((ctx, pg))
        return pg

    yield make
    for ctx, pg in made:
        ctx.close()
        assert not pg.errors, f"JavaScript errors on the page: {pg.errors}"


def start(page, seed: int) -> None:
    """A backgammon game against the computer, made as the page makes it, then opened."""
    body = {"game": "backgammon", "length": 0, "opponent": "bot", "level": "beginner", "colour": "white"}
    body |= {"seed": seed, "options": {"cube": False}}
    gid = page.evaluate("async (b) => (await api('POST', '/api/games', b)).id", body)
    page.evaluate("(id) => { location.hash = '#/game/' + id; }", gid)
    page.wait_for_function("(id) => window.nardy.view && window.nardy.id === id && !window.nardy.busy", arg=gid)


def rects(page, selector: str) -> list[dict]:
    """getBoundingClientRect of each element matching selector, with its data-loc."""
    return page.eval_on_selector_all(
        selector,
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {loc: e.dataset.loc, x: r.x, y: r.y, w: r.width, h: r.height}; })",
    )


def tap_and_wait(page, selector: str) -> None:
    before = page.evaluate("window.nardy.updates")
    page.tap(selector)
    tb.wait_answer(page, before)


def test_each_point_bar_and_tray_takes_taps_over_40_px_and_checkers_are_36_px_on_a_phone(open_page):
    page = open_page(phone=True)
    start(page, seed=4)
    targets = rects(page, "#board [data-loc]")
    locs = sorted(int(t["loc"]) for t in targets)
    # the 24 points, the bar (25) and the mover's off tray (0) each take taps
    assert locs == list(range(26)), locs
    small = [(t["loc"], round(t["w"], 1), round(t["h"], 1)) for t in targets if min(t["w"], t["h"]) < MIN_TAP]
    assert not small, f"tap targets under {MIN_TAP} px (loc, width, height): {small}"
    # all of them on the screen, none beyond its width
    assert all(t["x"] >= 0 and t["x"] + t["w"] <= PHONE["width"] + 0.5 for t in targets)
    checkers = rects(page, "#board circle.checker")
    assert len(checkers) == 30
    smallest = min(min(c["w"], c["h"]) for c in checkers)
    assert smallest >= MIN_CHECKER, f"checkers {smallest:.1f} px across"
    # the score, the board, the status and the controls still in view without scrolling
    for sel in ("#scoreboard", "#board", "#status", "#controls"):
        b = page.query_selector(sel).bounding_box()
        assert b["y"] >= 0 and b["y"] + b["height"] <= PHONE["height"], f"{sel} below the fold: {b}"
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "phone-board.png"))


def test_a_whole_play_is_made_by_taps_on_the_phone_board(open_page):
    page = open_page(phone=True)
    start(page, seed=4)
    v = view(page)
    if "roll" in v["actions"]:
        tap_and_wait(page, "#btn-roll")
        v = view(page)
    assert v["phase"] == "move" and v["human_to_act"], (v["phase"], v["actions"])
    history = len(v["history"])
    points = list(v["board"]["points"])
    for _ in range(8):
        v = view(page)
        if v["phase"] != "move" or not v["human_to_act"]:
            break
        if v["can_confirm"]:
            tap_and_wait(page, "#btn-confirm")
            break
        frm, to = pick_step(v["moves"])
        page.tap(f'#board [data-loc="{frm}"]')
        assert page.query_selector_all("#board .dest"), "a tapped checker shows where it may go"
        tap_and_wait(page, f'#board [data-loc="{to}"]')
    else:
        raise AssertionError("a play took more than 8 taps")
    after = view(page)
    # the play is made: the turn moved on (the computer's answer may follow) and the board changed
    assert len(after["history"]) > history, after["history"]
    assert after["board"]["points"] != points


def test_the_desktop_keeps_its_landscape_board(open_page):
    page = open_page(phone=False)
    start(page, seed=4)
    assert page.get_attribute("#board", "viewBox") == "0 0 790 570"
    assert page.query_selector("#board g.turned") is None
    board = page.query_selector("#board").bounding_box()
    assert board["width"] > board["height"]
    # the landscape geometry: point 1's column 50 of 790 units wide, 250 of 570 high
    p1 = rects(page, '#board [data-loc="1"]')[0]
    scale = board["width"] / 790
    assert p1["w"] == pytest.approx(50 * scale, abs=0.5) and p1["h"] == pytest.approx(250 * scale, abs=0.5)


def test_the_board_is_drawn_again_when_the_phone_turns_to_landscape(open_page):
    page = open_page(phone=True)
    start(page, seed=4)
    assert page.query_selector("#board g.turned") is not None
    page.set_viewport_size({"width": 844, "height": 390})
    page.wait_for_function("document.querySelector('#board').getAttribute('viewBox') === '0 0 790 570'")
    assert page.query_selector("#board g.turned") is None
    page.set_viewport_size(PHONE)
    page.wait_for_function("document.querySelector('#board g.turned') !== null")
    assert min(min(t["w"], t["h"]) for t in rects(page, "#board [data-loc]")) >= MIN_TAP

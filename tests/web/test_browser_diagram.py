"""The review page's "Image" button (issue 47) in a real browser (Playwright driving Debian's chromium against
``nardy serve``, as ``tests/web/test_browser_review.py``): one click opens the board diagram of the position
shown (``GET /api/diagram.svg``: its position, dice, cube, score, names, the page's numbering) in a new tab
and copies the link (a permalink for forums)."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.helpers import shared_path

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser import pytestmark  # noqa: F401

#: test_browser's chromium (the fixture, by name)
browser = tb.browser

RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")
FAST = "localStorage.setItem('nardy.review.level', 'advanced');"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "diagram")


@pytest.fixture
def context(browser, server):
    ctx = browser.new_context(viewport={"width": 1100, "height": 820}, locale="en-GB")
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    yield ctx
    ctx.close()


def test_the_image_button_opens_the_diagram_of_the_shown_position_and_copies_its_link(context, server):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(FAST + "localStorage.setItem('nardy.rules.numbering.backgammon', 'traditional');")
    page.goto(f"{server.url}/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.wait_for_function("window.nardy.info && window.nardy.updates > 0 && !window.nardy.busy")
    page.set_input_files("#analyse-upload", str(shared_path(*RECORD)))
    page.wait_for_selector("#review:not([hidden])", timeout=90_000)
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy")
    # a checker play of the second player (Black) with the cube owned by the first (the opponent, drawn at the top)
    index = page.evaluate(
        "nardyReview.data.decisions.findIndex((d) => d.kind === 'checker' && d.dice && d.player === 1"
        " && d.cube.owner === 0)"
    )
    assert index > 0
    page.evaluate(f"go({index})")
    d = page.evaluate("nardyReview.data.decisions[nardyReview.index]")
    names = [p["name"] for p in page.evaluate("nardyReview.data.players")]
    score = page.evaluate("nardyReview.data.review.steps[nardyReview.index].score")
    href = page.get_attribute("#rv-image", "href")
    url = urlsplit(href)
    q = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert url.path == "/api/diagram.svg"
    assert q["game"] == "backgammon" and q["position"] == d["position"]
    assert q["dice"] == f"{d['dice'][0]}-{d['dice'][1]}"
    assert q["names"] == f"{names[1]},{names[0]}"  # the side on roll first
    assert q["score"] == f"{score[1]}-{score[0]}" and q["length"] == "3"
    assert q["numbering"] == "traditional" and q["side"] == "black"
    assert q["cube"] == str(d["cube"]["value"]) and int(q["cube"]) >= 2 and q["owner"] == "opponent"
    assert q["title"] == f"Game {d['game']}, move {d['move']}"
    assert page.inner_text("#rv-image") == "Image"
    # one click: the diagram in a new tab, the link on the clipboard
    with context.expect_page() as opened:
        page.click("#rv-image")
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url == href
    assert tab.locator("circle.checker").count() == 30
    assert tab.locator("text.score").text_content() == f"{score[1]}-{score[0]}, match to 3"
    assert tab.locator("text.cube").text_content() == q["cube"]
    assert tab.locator("text.name").all_text_contents() == [names[0], names[1]]  # the opponent above
    page.wait_for_function("document.querySelector('#rv-status').textContent !== ''")
    assert page.inner_text("#rv-status") == "Link to the image copied"
    assert page.evaluate("navigator.clipboard.readText()") == href
    # the next position: the link follows it; in Russian the button's word changes
    page.click("#rv-next")
    assert page.get_attribute("#rv-image", "href") != href
    page.select_option("#lang", "ru")
    page.wait_for_function("document.querySelector('#rv-image').textContent === 'Картинка'")
    assert not errors, errors

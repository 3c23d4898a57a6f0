"""The analysis report (a self-contained HTML page) opens in chromium and shows the summary, the graph and
every decision with its board, per game in a <details> that opens and closes; it asks for nothing from
the network. Skipped without chromium
or the playwright package (as tests/web/test_browser.py)."""

from __future__ import annotations

import os
import shutil

import pytest

from nardy.analysis import analyse_match, match_of_game
from nardy.analysis.report import html_report
from nardy.flow.bot import Bot
from nardy.flow.game import Game
from nardy.rules.dice import DiceSource
from nardy.texts.catalogue import page_texts

CHROMIUM = os.environ.get("NARDY_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)),
    reason=f"chromium not installed ({CHROMIUM}); apt-get install chromium",
)
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (Python package) not installed")


def test_the_report_opens_in_chromium_and_shows_the_graph(tmp_path):
    g = Game("backgammon", dice=DiceSource(seed=4), cube=False, players=("Ann", "Bob"))
    bots = [Bot("backgammon", "intermediate", seed=1), Bot("backgammon", "beginner", seed=2)]
    g.start()
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.play(bots[g.turn].choose_play(g.position, g.dice))
    data = analyse_match(match_of_game(g), level="advanced").to_dict()
    page_file = tmp_path / "report.html"
    page_file.write_text(html_report(data, page_texts("en"), "en"), encoding="utf-8")
    marked = sum(1 for d in data["decisions"] if d["mark"])
    assert marked > 0  # the beginner errs
    requests = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1000, "height": 900})
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_file.as_uri())
        assert "Ann" in page.locator("#summary").inner_text() and "Bob" in page.locator("#summary").inner_text()
        graph = page.locator("#graph")
        assert graph.is_visible()
        box = graph.bounding_box()
        assert box["width"] > 300 and box["height"] > 100
        assert page.locator("#graph polyline.equity").count() == 1
        n_points = len(page.locator("#graph polyline.equity").get_attribute("points").split())
        assert n_points == sum(1 for d in data["decisions"] if d["value_before"] is not None)
        # every numbered move has its board, hidden until its game is opened
        numbers = {(d["game"], d["number"]) for d in data["decisions"]}
        boards = page.locator("section.entry svg.board")
        assert boards.count() == len(numbers) and not boards.first.is_visible()
        page.locator("details.game > summary").first.click()
        assert boards.first.is_visible()
        assert boards.first.locator("circle").count() >= 20
        # the caption is drawn above the board (the diagram's first text)
        assert boards.first.locator("text").first.text_content().startswith("Move 1: ")
        # the marked decisions' index leads to them
        assert page.locator("ul.marked li").count() == marked
        # printing opens every game
        page.locator("details.game > summary").first.click()
        assert not boards.first.is_visible()
        page.emulate_media(media="print")
        page.evaluate("window.dispatchEvent(new Event('beforeprint'))")
        assert page.locator("details.game[open]").count() == page.locator("details.game").count()
        browser.close()
    assert all(u.startswith("file:") for u in requests), requests

"""Review mode and the tutor in a real browser (issue 16): Playwright driving Debian's chromium against
``nardy serve`` (as ``tests/web/test_browser.py`` does).

* A real record (``gnubg-matches/gnubg-1002.mat``, a 3-point match GNU Backgammon won) imported through
  the home screen, its "Analyse" button, the review: stepping forward and back, the jump to the next
  mistake, the graph drawn with its mistakes coloured, a click on the graph jumping there, a candidate's
  board shown.
* The tutor in a game against the computer (seed 5: the person opens with 5-3): 8/5 8/3 is warned of as
  a blunder before it is confirmed, with the best play 8/3 6/3; "think again" leaves the play
  unconfirmed, "go ahead anyway" plays it; then a double at the next roll is warned of (no double).

The analysis runs at 0-ply (the page's level set to ``advanced``) to keep the module quick.
"""

from __future__ import annotations

import pytest

from tests.helpers import shared_path

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser import pytestmark, shot, view, wait_answer  # noqa: F401

#: test_browser's chromium (the fixture, by name)
browser = tb.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "review")


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1100, "height": 820}, locale="en-GB")
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")
FAST = "localStorage.setItem('nardy.review.level', 'advanced');"


def home(page, server, query: str = ""):
    """The home screen, once the page is ready (its handlers bound: /api/info answered, the list drawn)."""
    page.goto(f"{server.url}/{query}")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.wait_for_function("window.nardy.info && window.nardy.updates > 0 && !window.nardy.busy")


def new_game(page, server, game: str, level: str, seed: int):
    home(page, server, f"?seed={seed}")
    page.click("#btn-new")
    page.select_option("#ng-game", game)
    page.fill("#ng-length", "0")
    page.select_option("#ng-opponent", "bot")
    page.select_option("#ng-level", level)
    page.select_option("#ng-colour", "white")
    page.click("#ng-start")
    page.wait_for_selector("#play:not([hidden])")
    page.wait_for_function("window.nardy.view && window.nardy.id && !window.nardy.busy")


def review(page) -> dict:
    return page.evaluate(
        "({index: nardyReview.index, n: nardyReview.data ? nardyReview.data.decisions.length : 0,"
        " marks: nardyReview.data ? nardyReview.data.decisions.map((d) => d.mark) : [],"
        " level: nardyReview.data ? nardyReview.data.engine.level : null})"
    )


def click_review(page, selector: str):
    before = page.evaluate("nardyReview.updates")
    page.click(selector)
    page.wait_for_function("(n) => nardyReview.updates > n", arg=before)


def test_review_of_a_finished_game_steps_jumps_and_draws_the_graph(page, server):
    record = shared_path(*RECORD)
    page.add_init_script(FAST)
    home(page, server)
    page.set_input_files("#import", str(record))
    page.wait_for_selector("#play:not([hidden])")
    page.wait_for_function("window.nardy.view && window.nardy.view.match_over")
    page.wait_for_selector("#btn-analyse:visible")
    gid = page.evaluate("window.nardy.id")
    page.click("#btn-analyse")
    page.wait_for_selector("#review:not([hidden])")
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy", timeout=90_000)
    assert page.evaluate("location.hash") == f"#/review/{gid}"
    r = review(page)
    assert r["level"] == "advanced" and r["n"] > 50 and r["index"] == 0
    assert page.inner_text("#rv-pos") == f"1 / {r['n']}"
    assert "gnubg" in page.inner_text("#rv-title") and "root" in page.inner_text("#rv-title")
    # the first play: 31 played 8/5 6/5, the best plays listed with their equities
    assert "8/5 6/5" in page.inner_text("#rv-decision .rv-played")
    assert len(page.query_selector_all("#rv-candidates tbody tr")) >= 2
    assert len(page.query_selector_all("#rv-board circle.checker")) == 30
    # the graph: a line over every decision, a coloured dot per mistake
    assert page.query_selector("#rv-graph polyline.rv-graph-line") is not None
    mistakes = [i for i, m in enumerate(r["marks"]) if m in ("doubtful", "error", "blunder")]
    assert mistakes, "the record has mistakes"
    assert len(page.query_selector_all("#rv-graph circle.rv-graph-mark")) == len(mistakes)
    assert page.query_selector_all("#rv-graph .mark-blunder")
    # forward and back
    click_review(page, "#rv-next")
    click_review(page, "#rv-next")
    assert review(page)["index"] == 2
    click_review(page, "#rv-prev")
    assert review(page)["index"] == 1
    # the next mistake, and the one after it, each marked in the panel
    click_review(page, "#rv-next-error")
    first = next(i for i in mistakes if i > 1)
    assert review(page)["index"] == first
    mark = r["marks"][first]
    assert page.inner_text("#rv-decision .rv-mark") == mark and page.query_selector(f"#rv-decision .mark-{mark}")
    later = [i for i in mistakes if i > first]
    if later:
        click_review(page, "#rv-next-error")
        assert review(page)["index"] == later[0]
        click_review(page, "#rv-prev-error")
        assert review(page)["index"] == first
    # keyboard: the arrow steps on
    page.keyboard.press("ArrowRight")
    assert review(page)["index"] == first + 1
    # a click on the graph's last mistake jumps to it
    dot = page.query_selector_all("#rv-graph circle.rv-graph-mark")[-1]
    box = dot.bounding_box()
    before = page.evaluate("nardyReview.updates")
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_function("(n) => nardyReview.updates > n", arg=before)
    assert review(page)["index"] == mistakes[-1]
    shot(page, "review")
    # a checker play's candidate: its board after the play is shown
    checker = page.evaluate(
        "nardyReview.data.decisions.findIndex((d) => d.kind === 'checker' && d.candidates.length > 1)"
    )
    page.evaluate(f"go({checker})")
    board_before = page.evaluate("nardyReview.data.review.steps[nardyReview.index].board.points")
    click_review(page, "#rv-candidates tbody tr:nth-child(2)")
    assert page.query_selector("#rv-candidates tr.rv-shown") is not None
    assert page.evaluate("nardyReview.shown") == 1 and board_before is not None
    # back to the game, then to the review again: the analysis is kept (no second wait)
    page.click("#rv-back")
    page.wait_for_selector("#play:not([hidden])")
    page.click("#btn-analyse")
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy")
    assert review(page)["n"] == r["n"]


def test_the_review_rolls_out_the_marked_decisions_and_shows_their_figures(page, server):
    page.add_init_script(FAST + "localStorage.setItem('nardy.review.rollout', 'trials=6&truncate=1&candidates=1');")
    home(page, server)
    page.set_input_files("#import", str(shared_path(*RECORD)))
    page.wait_for_function("window.nardy.view && window.nardy.view.match_over")
    page.wait_for_selector("#btn-analyse:visible")
    page.click("#btn-analyse")
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy", timeout=90_000)
    assert page.query_selector("#rv-rollout") is None  # no rollout figures yet
    page.click("#rv-rollout-btn")
    page.wait_for_function(
        "nardyReview.data.rollout_status && nardyReview.data.rollout_status.complete && !nardyReview.rolling",
        timeout=120_000,
    )
    first = page.evaluate("nardyReview.data.decisions.findIndex((d) => d.rollout)")
    page.evaluate(f"go({first})")
    text = page.inner_text("#rv-rollout")
    assert "6 trials" in text and "±" in text
    assert "13 of 13" in page.inner_text("#rv-summary")
    assert page.query_selector("#rv-rollout-btn") is None  # complete: no button left


def test_an_uploaded_record_is_analysed_by_the_server_and_reviewed(page, server):
    page.add_init_script(FAST)
    home(page, server)
    page.set_input_files("#analyse-upload", str(shared_path(*RECORD)))
    page.wait_for_selector("#review:not([hidden])", timeout=90_000)
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy")
    assert page.evaluate("location.hash") == "#/review/record"
    r = review(page)
    assert r["n"] > 50 and page.evaluate("nardyReview.data.source") == "upload"
    click_review(page, "#rv-last")
    assert review(page)["index"] == r["n"] - 1
    # in Russian: the panel's words change, the figures stay
    page.select_option("#lang", "ru")
    page.wait_for_function("document.querySelector('#rv-summary h3').textContent === 'Итоги'")
    assert page.inner_text("#rv-next-error") == "Ошибка ▶"


def test_tutor_warns_of_a_blunder_before_it_is_confirmed(page, server):
    page.add_init_script(FAST + "localStorage.setItem('nardy.tutor', '1');")
    new_game(page, server, "backgammon", "advanced", seed=5)
    v = view(page)
    assert v["phase"] == "move" and v["dice"] == [5, 3] and v["human_to_act"]
    assert page.is_checked("#tutor")
    for frm, to in ((8, 5), (8, 3)):
        before = page.evaluate("window.nardy.updates")
        page.evaluate(f"step({frm}, {to})")
        wait_answer(page, before)
    assert view(page)["can_confirm"]
    seq = view(page)["seq"]
    page.click("#btn-confirm")
    page.wait_for_selector("#tutor-dialog[open]")
    text = page.inner_text("#tutor-text")
    assert "8/5 8/3" in text and "blunder" in text and "8/3 6/3" in text
    judged = page.evaluate("window.nardy.tutor")
    assert judged["warn"] and judged["mark"] == "blunder" and judged["loss"] > 0.3
    shot(page, "tutor")
    page.click("#tutor-back")
    page.wait_for_selector("#tutor-dialog:not([open])", state="attached")
    v = view(page)
    assert v["seq"] == seq and v["can_confirm"], "taken back: the play waits for its confirmation"
    # asked again, confirmed anyway: the play is made and the computer answers
    page.click("#btn-confirm")
    page.wait_for_selector("#tutor-dialog[open]")
    before = page.evaluate("window.nardy.updates")
    page.click("#tutor-confirm")
    wait_answer(page, before)
    page.wait_for_function("(s) => window.nardy.view.seq > s && !window.nardy.busy", arg=seq)
    hist = view(page)["history"]
    assert any("8/5 8/3" in (h.get("text") or "") for h in hist), hist
    # the computer has answered; the person's turn to roll: a double now is warned of as well
    page.wait_for_function("window.nardy.view.phase === 'roll' && window.nardy.view.human_to_act")
    seq = view(page)["seq"]
    page.click("#btn-double")
    page.wait_for_selector("#tutor-dialog[open]")
    assert "No double" in page.inner_text("#tutor-text")
    assert page.evaluate("window.nardy.tutor.kind") == "cube"
    page.click("#tutor-back")
    page.wait_for_selector("#tutor-dialog:not([open])", state="attached")
    assert view(page)["seq"] == seq and view(page)["phase"] == "roll"


def test_an_uploaded_xg_file_is_reviewed_with_xgs_figures(page, server, tmp_path):
    """An eXtreme Gammon .xg file (its first six turns, tests/data/xg) is sent as bytes; each decision shows
    XG's best play beside nardy's, in a line of its own."""
    from nardy.records.xgfile import RECORD_SIZE, read_archive
    from tests.helpers import DATA
    from tests.records.test_xg import pack

    body = read_archive((DATA / "xg" / "charlot.xg").read_bytes())["temp.xg"]
    short = tmp_path / "start.xg"
    short.write_bytes(pack({"temp.xg": body[: 14 * RECORD_SIZE]}))
    page.add_init_script(FAST)
    home(page, server)
    page.set_input_files("#analyse-upload", str(short))
    page.wait_for_selector("#review:not([hidden])", timeout=90_000)
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy")
    assert page.evaluate("nardyReview.data.review.players") == ["charlot1", "charlot2"]
    assert page.inner_text("#rv-decision .rv-xg") == "XG: 24/23 13/9"


def test_the_review_shows_the_cube_block_and_every_decision_per_game(page, server):
    """The cube block (issue 45): gnubg's move 5 of gnubg-1002.mat (gnubg doubles; gnubg's proper action
    "Double, take") with the analysis' three equities, the proper action in words and the error; every
    decision listed per game in a <details>, a click on one jumps to it; moves numbered as gnubg's."""
    page.add_init_script(FAST)
    home(page, server)
    page.set_input_files("#analyse-upload", str(shared_path(*RECORD)))
    page.wait_for_selector("#review:not([hidden])", timeout=90_000)
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy")
    ds = page.evaluate("nardyReview.data.decisions")
    i = next(k for k, d in enumerate(ds) if d["action"] == "double" and d["played"] == "double")
    d = ds[i]
    assert d["number"] == 5
    # the list: one <details> per game, every decision in it; a click jumps there
    assert page.locator("#rv-list details.rv-game").count() == len({x["game"] for x in ds})
    assert page.locator("#rv-list li.rv-item").count() == len(ds)
    click_review(page, f"#rv-list li.rv-item[data-index='{i}']")
    assert review(page)["index"] == i
    assert "Game 1, move 5" in page.inner_text("#rv-decision .rv-dhead")
    rows = page.evaluate(
        "[...document.querySelectorAll('#rv-cube tr')]"
        ".map((r) => [r.dataset.action, r.querySelector('.rv-eq').textContent])"
    )
    assert dict(rows) == {k: f"{v:+.3f}" for k, v in d["candidates"].items()}
    assert rows[0][0] == "double/take"  # the proper action first, as gnubg lists it
    assert page.inner_text("#rv-proper") == "Proper cube action: Double, take"
    assert f"{d['cube_analysis']['cubeless_equity']:+.3f}" in page.inner_text("#rv-cube .rv-cubeless")
    assert page.locator("#rv-cube .rv-cube-error").inner_text() == "Error: no error"
    page.select_option("#lang", "ru")
    page.wait_for_function("document.querySelector('#rv-proper').textContent.startsWith('Правильное решение')")
    assert "Удвоить, принять" in page.inner_text("#rv-proper")


def test_the_review_words_a_resignation_and_its_answer_with_their_equities(page, server):
    """Resignations are judged (docs/analysis.md): gnubg's roll-then-resign record reviewed; the resignation is
    worded "Resign: single game" with its block of answers (best first), and the list words the acceptance."""
    page.add_init_script(FAST)
    home(page, server)
    page.set_input_files(
        "#analyse-upload",
        str(shared_path("data", "real-mat", "gnubgparser-gnubg-made", "gnubg_roll_then_resign_1p.mat")),
    )
    page.wait_for_selector("#review:not([hidden])", timeout=90_000)
    page.wait_for_function("nardyReview.data !== null && !nardyReview.busy")
    ds = page.evaluate("nardyReview.data.decisions")
    i = next(k for k, d in enumerate(ds) if d["kind"] == "resign" and d["action"] == "resign")
    click_review(page, f"#rv-list li.rv-item[data-index='{i}']")
    assert "Resign: single game" in page.inner_text("#rv-decision .rv-played")
    rows = page.evaluate(
        "[...document.querySelectorAll('#rv-resign tr')]"
        ".map((r) => [r.dataset.action, r.querySelector('.rv-eq').textContent])"
    )
    cands = ds[i]["candidates"]
    assert rows == [["play on", f"{cands['play on']:+.3f}"], ["resign", f"{cands['resign']:+.3f}"]]
    assert "Accept" in page.inner_text(f"#rv-list li.rv-item[data-index='{i + 1}']")

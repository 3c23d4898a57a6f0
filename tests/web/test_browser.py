"""The page in a real browser: Playwright driving Debian's chromium against ``nardy serve``.

A person's games by clicking: a full game of long nardy and a backgammon game with a double against the
computer (fast levels, fixed seeds), the result shown and stored, a restart of the server and the resume
of a saved game. A screenshot of each board goes to ``test-artifacts/``. Skipped when chromium or the
playwright package is missing (CI installs Debian's ``chromium``; Playwright's own browser download is
not used).
"""

from __future__ import annotations

import os
import shutil

import pytest

from .helpers import ARTIFACTS, Server, serve_sqlite

CHROMIUM = os.environ.get("NARDY_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.skipif(
        not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)),
        reason=f"chromium not installed ({CHROMIUM}); apt-get install chromium",
    ),
]
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright (Python package) not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "web", "games.db")


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    ctx = browser.new_context(viewport={"width": 1100, "height": 820}, locale="en-GB")
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def view(page) -> dict:
    return page.evaluate("window.nardy.view")


def wait_answer(page, before: int):
    page.wait_for_function("(n) => window.nardy.updates > n && !window.nardy.busy", arg=before, timeout=60_000)
    err = page.query_selector("#message.error")
    assert err is None, f"the server refused an action: {err.inner_text()}"


def click_and_wait(page, selector: str):
    before = page.evaluate("window.nardy.updates")
    page.click(selector)
    wait_answer(page, before)


def new_game(page, server, game: str, level: str, seed: int, length: int = 0):
    page.goto(f"{server.url}/?seed={seed}")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.click("#btn-new")
    page.select_option("#ng-game", game)
    page.fill("#ng-length", str(length))
    page.select_option("#ng-opponent", "bot")
    page.select_option("#ng-level", level)
    page.select_option("#ng-colour", "white")
    page.click("#ng-start")
    page.wait_for_selector("#play:not([hidden])")
    page.wait_for_function("window.nardy.view && window.nardy.id && !window.nardy.busy")
    return page.evaluate("window.nardy.id")


def pick_step(moves: dict) -> tuple[int, int]:
    """A racing person: bear off when possible, else move the farthest-back checker the farthest."""
    best = None
    for frm, tos in moves.items():
        for to in tos:
            f = int(frm)
            key = (to == 0, f, f - to)
            if best is None or key > best[0]:
                best = (key, f, to)
    return best[1], best[2]


def drag(page, frm: int, to: int):
    """Drag the top checker of ``frm`` to ``to`` with the mouse."""
    a = page.query_selector(f'#board [data-loc="{frm}"]').bounding_box()
    b = page.query_selector(f'#board [data-loc="{to}"]').bounding_box()
    before = page.evaluate("window.nardy.updates")
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] / 2, b["y"] + b["height"] / 2, steps=8)
    page.mouse.up()
    wait_answer(page, before)


def play_turn(page):
    """Enter the person's whole play by clicking checkers and destinations, then confirm."""
    for _ in range(8):
        v = view(page)
        if v["phase"] != "move" or not v["human_to_act"]:
            return
        if v["can_confirm"]:
            click_and_wait(page, "#btn-confirm")
            return
        frm, to = pick_step(v["moves"])
        page.click(f'#board [data-loc="{frm}"]')  # select: destinations are highlighted
        assert page.evaluate("window.nardy.selected") == str(frm)
        assert page.query_selector_all("#board .dest"), "no destination highlighted"
        click_and_wait(page, f'#board [data-loc="{to}"]')
    raise AssertionError("a turn took more than 8 steps")


def play_out(
    page, take_doubles: bool = True, double_once: bool = False, max_turns: int = 400, after_double=None
) -> dict:
    doubled = False
    for _ in range(max_turns):
        v = view(page)
        if v["phase"] == "over":
            return {"view": v, "doubled": doubled}
        assert v["human_to_act"], f"the page waits for the computer: {v['phase']}"
        acts = v["actions"]
        if "double" in acts and double_once and not doubled:
            click_and_wait(page, "#btn-double")
            doubled = True
            if after_double:
                after_double()
        elif "take" in acts:
            click_and_wait(page, "#btn-take" if take_doubles else "#btn-drop")
        elif "roll" in acts:
            click_and_wait(page, "#btn-roll")
        elif v["phase"] == "move":
            play_turn(page)
        else:
            raise AssertionError(f"nothing to do in phase {v['phase']} with actions {acts}")
    raise AssertionError("the game did not end")


def stored(page, gid):
    """The saved game's record as the page's player reads it (their cookies: a game is its owner's)."""
    return page.evaluate("async (u) => (await fetch(u)).json()", f"/api/games/{gid}/record")


def test_long_nardy_full_game(server, page):
    gid = new_game(page, server, "long", "random", seed=7)
    v = view(page)
    assert v["game"] == "long" and v["numbering"] == "absolute"
    assert v["labels"][23] == "24" and v["history"][0]["kind"] == "opening"
    shot(page, "long-nardy-start")
    out = play_out(page)
    v = out["view"]
    res = v["result"]
    assert res["reason"] == "bear-off" and res["level_name"] in ("oyn", "mars")
    status = page.inner_text("#status-main")
    # the page names the person "You" and the computer "nardy" (its level is on the scoreboard)
    assert ("You win" if v["humans"][res["winner"]] else "nardy wins") in status and str(res["points"]) in status
    # the list of plays on the page ends with the result
    assert "wins" in page.inner_text("#history li:last-child")
    shot(page, "long-nardy-end")
    rec = stored(page, gid)
    assert rec["status"] in ("over", "game-over")
    g = rec["record"]["games"][-1]
    assert g["result"]["winner"] == res["winner"] and g["result"]["points"] == res["points"]
    assert sum(1 for e in g["events"] if e["type"] == "play") > 20
    # the .mat record downloads
    with page.expect_download() as dl:
        page.click("#download")
    text = open(dl.value.path(), encoding="utf-8").read()
    assert 'Variation "Long Nardy"' in text and "Wins" in text


def test_backgammon_with_a_double(server, page):
    gid = new_game(page, server, "backgammon", "beginner", seed=3)
    out = play_out(page, double_once=True, after_double=lambda: shot(page, "backgammon-after-double"))
    v = out["view"]
    assert out["doubled"], "the person never had the chance to double"
    kinds = [e["kind"] for e in v["history"]]
    assert "double" in kinds and ("take" in kinds or "drop" in kinds)
    res = v["result"]
    if "take" in kinds:
        assert res["cube"] >= 2 and res["points"] >= 2
    status = page.inner_text("#status-main")
    assert ("You win" if v["humans"][res["winner"]] else "nardy wins") in status
    shot(page, "backgammon-end")
    rec = stored(page, gid)
    g = rec["record"]["games"][-1]
    assert g["result"] == {k: res[k] for k in g["result"]}
    assert any(e["type"] == "double" for e in g["events"])


def test_restart_and_resume(tmp_path, browser):
    srv = Server(f"sqlite:///{tmp_path / 'resume.db'}").start()
    try:
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="ru-RU")  # a phone, in Russian
        page = ctx.new_page()
        gid = new_game(page, srv, "short", "beginner", seed=5)
        assert page.inner_text("#btn-new") == "Новая партия"
        v = view(page)
        assert v["phase"] == "move" and v["human_to_act"] and not v["can_confirm"]
        frm, to = pick_step(v["moves"])
        drag(page, frm, to)  # a step by drag and drop
        before = view(page)
        assert before["steps"] and before["board"] != v["board"]
        box = page.query_selector("#board").bounding_box()
        assert box["width"] >= 370, "the board does not use the phone's width"
        shot(page, "short-nardy-phone")
        srv.restart()
        page.goto(srv.url + "/")
        page.wait_for_selector(f'.game-card[data-id="{gid}"]')
        page.click(f'.game-card[data-id="{gid}"] .open-game')
        page.wait_for_function("window.nardy.view && !window.nardy.busy")
        after = view(page)
        for key in ("board", "dice", "dice_left", "steps", "phase", "to_act", "history", "score", "moves"):
            assert after[key] == before[key], key
        # go on playing after the restart
        play_turn(page)
        v = view(page)
        assert v["history"] != before["history"]
        shot(page, "short-nardy-resumed")
        # a hint lists plays with equities; then resign a single game: the computer accepts
        while v["phase"] != "move" and v["phase"] != "over":
            click_and_wait(page, "#btn-roll")
            v = view(page)
        if v["phase"] == "move":
            click_and_wait(page, "#btn-hint")
            assert len(page.query_selector_all("#hints li")) >= 1
            assert "Подсказки" in page.inner_text("#hints")
        page.select_option("#resign-level", "0")
        page.click("#btn-resign")  # the page first says what resigning loses
        page.wait_for_selector("#resign-dialog[open]")
        click_and_wait(page, "#resign-ok")
        v = view(page)
        assert v["phase"] == "over" and v["result"]["reason"] == "resign"
        assert "победа" in page.inner_text("#status-main")
        assert stored(page, gid)["record"]["games"][0]["result"]["reason"] == "resign"
        ctx.close()
    finally:
        srv.stop()

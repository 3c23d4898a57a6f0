"""Playing faster in the page (docs/online.md, "Playing faster"): a checker's step is drawn on the player's own
board at once, before the server answers (the action's request is held back here with Playwright's
``page.route``), and undone with the refusal's message when the server refuses it; a play typed in the game
screen's box (board numbers, dashes) is sent as one action and played. Skipped when chromium or the
playwright package is missing, like tests/web/test_browser.py."""

from __future__ import annotations

import json

from nardy import Position

from . import test_browser as tb
from .helpers import serve_sqlite

pytestmark = tb.pytestmark
browser, page = tb.browser, tb.page
view, new_game, click_and_wait, pick_step, stored = tb.view, tb.new_game, tb.click_and_wait, tb.pick_step, tb.stored

import pytest  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "fastplay-web", "fastplay.db")


def to_move(page) -> dict:
    """Roll until the person has a roll to play with no step taken; returns the view."""
    for _ in range(40):
        v = view(page)
        if v["phase"] == "move" and v["human_to_act"] and v["moves"] and not v["steps"]:
            return v
        if "roll" in v["actions"]:
            click_and_wait(page, "#btn-roll")
        else:
            page.wait_for_timeout(100)
    raise AssertionError("no roll to play")


def test_a_step_is_drawn_before_the_server_answers_and_a_refused_one_is_undone(server, page):
    new_game(page, server, "long", "beginner", seed=7)
    v = to_move(page)
    frm, to = pick_step(v["moves"])
    held = []
    page.route("**/api/games/*/actions*", lambda route: held.append(route))
    page.click(f'#board [data-loc="{frm}"]')
    page.click(f'#board [data-loc="{to}"]')
    page.wait_for_function("() => document.querySelector('#board').dataset.optimistic")
    shown = page.evaluate("window.nardy.view.board")
    assert len(held) == 1 and page.evaluate("window.nardy.busy") is True  # the server has not answered yet
    assert shown["points"][to] != v["board"]["points"][to] and shown["points"][frm] != v["board"]["points"][frm]
    before = page.evaluate("window.nardy.updates")
    held[0].continue_()
    page.unroute("**/api/games/*/actions*")
    tb.wait_answer(page, before)
    assert view(page)["board"] == shown  # the server's answer is the board already drawn
    # a refused step: drawn, then undone with the refusal's message
    v = view(page)
    if not v["moves"]:
        return
    frm, to = pick_step(v["moves"])
    refusal = {"message": "refused by the test", "code": "illegal_step", "error": "IllegalPlayError"}
    page.route(
        "**/api/games/*/actions*",
        lambda route: route.fulfill(status=400, content_type="application/json", body=json.dumps(refusal)),
    )
    before = page.evaluate("window.nardy.updates")
    page.click(f'#board [data-loc="{frm}"]')
    page.click(f'#board [data-loc="{to}"]')
    page.wait_for_function("(n) => window.nardy.updates > n && !window.nardy.busy", arg=before)
    page.unroute("**/api/games/*/actions*")
    assert page.evaluate("window.nardy.view.board") == v["board"]
    assert "refused by the test" in page.inner_text("#status")


def test_a_typed_play_in_board_numbers_with_dashes_is_played(server, page):
    gid = new_game(page, server, "long", "beginner", seed=11)
    v = to_move(page)
    play = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))[0]
    page.fill("#fast-typed", str(play).replace("/", "-"))
    click_and_wait(page, "#fast-go")
    assert str(play) in json.dumps(stored(page, gid))


def test_with_auto_roll_on_the_page_rolls_for_the_player_even_where_a_double_is_possible(server, page):
    # backgammon to 3: from the player's second turn on they could double, so the server does not roll for them
    new_game(page, server, "backgammon", "beginner", seed=5, length=3)
    to_move(page)
    page.check("#fast-auto-roll")  # kept in this browser
    assert page.evaluate("localStorage.getItem('nardy.fast.roll')") == "on"
    tb.play_turn(page)
    # the computer plays, then the page rolls for the person by itself (no click), though they could double
    page.wait_for_function(
        "() => window.nardy.view.phase === 'move' && window.nardy.view.human_to_act && !window.nardy.busy",
        timeout=30_000,
    )
    page.reload()
    page.wait_for_selector("#fast-auto-roll")
    assert page.is_checked("#fast-auto-roll")


def test_with_forced_plays_on_the_page_plays_a_forced_step_and_confirms_it(server, page):
    # White's last checker on their 1 point with 6-5: the one legal play is 1/off, taken and confirmed alone
    mover, other = [0] * 26, [0] * 26
    mover[1], other[6] = 1, 15
    pid = Position.from_boards(mover, other, "backgammon").id()
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.evaluate("localStorage.setItem('nardy.fast.forced', 'on')")
    body = {"game": "backgammon", "opponent": "bot", "level": "beginner", "start": {"position": pid, "dice": [6, 5]}}
    gid = page.evaluate(
        """async (b) => (await (await fetch('/api/games', {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify(b)})).json()).id""",
        body,
    )
    page.evaluate("(id) => { location.hash = '#/game/' + id; }", gid)
    # no click: the step and its confirmation are the page's own; the game is won
    page.wait_for_function("() => window.nardy.view && window.nardy.view.result && !window.nardy.busy", timeout=30_000)
    assert "1/off" in json.dumps(stored(page, gid))

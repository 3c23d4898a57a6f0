"""Tournament pages in a real browser (Playwright, Debian's chromium, against ``nardy serve``; issue 44).

The knockout bracket's drawing is checked on a tournament whose state the test gives the page (a fixed body of
``GET /api/tournaments/{id}`` and frames of its live channel, routed by Playwright): eight entrants seeded 1 v 8,
first round played, semi-finals paired, the final still empty. Skipped when chromium or the playwright package
is missing, like tests/web/test_browser.py."""

from __future__ import annotations

import json
import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_lobby import people, register, shots  # noqa: F401  (fixtures)
from .test_browser_online import shot

pytestmark = [*tb.pytestmark, pytest.mark.slow]
browser = tb.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "tournaments-web", "tournaments.db")


def drawn(page, before: int):
    page.wait_for_function("(n) => window.nardyTour.updates > n", arg=before)


def updates(page) -> int:
    return page.evaluate("window.nardyTour.updates")


# ----- a knockout of eight given to the page -----------------------------------------------------------------
def _entrants(n: int) -> list[dict]:
    return [
        {"id": f"u{i}", "name": f"Seed{i}", "bot": i == 8, "rating": 2000 - 50 * i, "withdrawn": False}
        for i in range(1, n + 1)
    ]


def knockout_body(me: str | None = None) -> dict:
    es = _entrants(8)
    p = {e["id"]: {"id": e["id"], "name": e["name"], "bot": e["bot"]} for e in es}
    r1 = [("u1", "u8", (3, 1)), ("u4", "u5", (2, 3)), ("u2", "u7", (3, 0)), ("u3", "u6", (1, 3))]
    pairings = [
        {"round": 1, "game": f"g1{i}", "players": [p[a], p[b]], "result": list(res)} for i, (a, b, res) in enumerate(r1)
    ]
    pairings += [
        {"round": 2, "game": "g20", "players": [p["u1"], p["u5"]], "result": None},
        {"round": 2, "game": "g21", "players": [p["u2"], p["u6"]], "result": None},
    ]
    standings = [
        {"rank": i + 1, "id": e["id"], "name": e["name"], "points": 1.0 if i < 4 else 0.0, "tiebreaks": {}}
        for i, e in enumerate(es)
    ]
    return {
        "id": "ko8", "name": "Cup of eight", "game": "backgammon", "format": "knockout",
        "settings": {
            "length": 3, "lengths": [3, 3, 5], "clock": "blitz", "rated": True, "players": 8, "cube": True,
            "crawford": True,
        },
        "status": "playing", "round": 2, "rounds": 3, "entrants": es, "pairings": pairings, "standings": standings,
        "you": {"joined": me is not None, "next_game": None, "starts_in": None},
    }  # fmt: skip


def give(page, body: dict):
    """Route the page's requests for the tournament ``body`` to it, and its live channel to the test."""
    page.route(
        f"**/api/tournaments/{body['id']}",
        lambda route: route.fulfill(status=200, content_type="application/json", body=json.dumps(body)),
    )
    socks: list = []
    page.route_web_socket(f"**/api/tournaments/{body['id']}/live", lambda ws: socks.append(ws))
    return socks


def test_a_knockout_bracket_is_drawn_round_by_round_with_links_and_in_russian(server, people, shots):  # noqa: F811
    (page,) = people(1)
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    body = knockout_body()
    socks = give(page, body)
    n = updates(page)
    page.evaluate("location.hash = '#/tournament/ko8'")
    page.wait_for_selector("#tournament:not([hidden]) #tn-bracket")
    drawn(page, n)
    assert page.inner_text("#tn-title") == "Cup of eight"
    # three columns: 4 quarter-finals, 2 semi-finals, the final (not yet paired: an empty box)
    slots = page.eval_on_selector_all(
        "#tn-bracket g.tn-match", "(gs) => gs.map((g) => [g.dataset.round, g.dataset.slot, g.dataset.game])"
    )
    assert slots == [
        ["1", "0", "g10"], ["1", "1", "g11"], ["1", "2", "g12"], ["1", "3", "g13"],
        ["2", "0", "g20"], ["2", "1", "g21"], ["3", "0", ""],
    ]  # fmt: skip
    assert page.locator("#tn-bracket g.tn-empty").count() == 1
    # the winners in bold: seeds 1, 5, 2, 6
    won = page.eval_on_selector_all("#tn-bracket text.tn-bracket-name.won", "(ts) => ts.map((x) => x.dataset.player)")
    assert won == ["u1", "u5", "u2", "u6"]
    # each paired box links to its game; the games' table links to the game and, once played, its analysis
    assert page.get_attribute("#tn-bracket a:has(g[data-game='g11'])", "href") == "#/game/g11"
    assert page.get_attribute("#tn-games a.tn-analysis[data-game='g11']", "href") == "#/review/g11"
    assert page.locator("#tn-games a.tn-analysis[data-game='g20']").count() == 0
    assert page.get_attribute("#tn-games a.tn-game[data-game='g20']", "href") == "#/game/g20"
    # the bot is marked; the settings are shown to all; the downloads
    assert "BOT" in page.inner_text("#tn-entrants li[data-entrant='u8']")
    assert page.inner_text("#tn-settings dd[data-key='lengths']") == "3, 3, 5"
    assert page.get_attribute("#tn-csv", "href") == "/api/tournaments/ko8/results.csv"
    assert page.get_attribute("#tn-zip", "href") == "/api/tournaments/ko8/records.zip"
    shot(page, shots, "tournament-knockout")

    # a live frame: the first semi-final won by seed 5; the final gets its first player's box filled
    page.wait_for_function("() => window.nardyTour.ws && window.nardyTour.ws.readyState === 1")
    assert socks
    body["pairings"][4]["result"] = [1, 3]
    p5 = body["pairings"][4]["players"][1]
    body["pairings"].append({"round": 3, "game": "g30", "players": [p5, None], "result": None})
    frames = page.evaluate("window.nardyTour.frames")
    socks[0].send(json.dumps({"type": "tournament", "tournament": body}))
    page.wait_for_function("(n) => window.nardyTour.frames > n", arg=frames)
    assert page.get_attribute("#tn-bracket g.tn-match[data-round='3']", "data-game") == "g30"
    assert "u5" in page.eval_on_selector_all("#tn-bracket text.won", "(ts) => ts.map((x) => x.dataset.player)")

    # in Russian
    n = updates(page)
    page.select_option("#lang", "ru")
    drawn(page, n)
    assert page.inner_text("#tn-board-title") == "Сетка"
    assert "БОТ" in page.inner_text("#tn-entrants li[data-entrant='u8']")
    assert page.inner_text("#btn-tournaments") == "Турниры"
    assert "Финал" in page.text_content("#tn-bracket")
    shot(page, shots, "tournament-knockout-ru")
    page.select_option("#lang", "en")


def test_the_countdown_takes_the_player_to_their_game(server, people):  # noqa: F811
    (page,) = people(1)
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    body = knockout_body()
    body["you"] = {"joined": True, "next_game": "g20", "starts_in": None}
    give(page, body)
    page.evaluate("location.hash = '#/tournament/ko8'")
    page.wait_for_selector("#tn-next:not([hidden]) #tn-countdown")
    assert int(page.get_attribute("#tn-countdown", "data-left")) in (4, 5)
    t0 = time.monotonic()
    page.wait_for_function("() => location.hash === '#/game/g20'", timeout=10000)
    assert 3 < time.monotonic() - t0 < 7

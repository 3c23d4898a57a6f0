"""Tournament pages in a real browser (Playwright, Debian's chromium, against ``nardy serve``; issue 44).

Against the real server: a player signed in in the browser makes a Swiss of four with the page's form and
joins; three accounts join over HTTP; the tournament starts, the page shows the pairings and, live, the
standings as games end; the countdown takes the player to each of their games; the texts in Russian. A knockout
of four made over HTTP shows its bracket, whose final fills in live. The drawing of a bigger bracket (eight
seeded 1 v 8, a bot) is checked on a state the test gives the page (``GET /api/tournaments/{id}`` and frames of
its live channel routed by Playwright). Skipped when chromium or the playwright package is missing, like
tests/web/test_browser.py."""

from __future__ import annotations

import json
import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_lobby import people, register, shots  # noqa: F401  (fixtures)
from .test_browser_online import shot
from .test_browser_profile import Player
from .test_lobby import finish_by_resignation

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


# ----- against the real server ---------------------------------------------------------------------------------
def wait_body(c, tid: str, check, timeout: float = 30.0) -> dict:
    """GET the tournament until ``check(body)`` holds (the server's runner steps it every second)."""
    end = time.monotonic() + timeout
    while True:
        body = c.get(f"/api/tournaments/{tid}").json()
        if check(body):
            return body
        assert time.monotonic() < end, body
        time.sleep(0.2)


def board_of(body: dict, uid: str, rnd: int) -> dict:
    return next(p for p in body["pairings"] if p["round"] == rnd and uid in [x and x["id"] for x in p["players"]])


def standings(page) -> list[tuple[str, str]]:
    """The standings' rows as shown: (player id, points)."""
    rows = page.eval_on_selector_all(
        "#tn-standings tr[data-id]",
        "(trs) => trs.map((tr) => [tr.dataset.id, tr.querySelector('.tn-pts').textContent])",
    )
    return [tuple(r) for r in rows]


def page_resigns(page, gid: str):
    """The browser's player resigns their 1-point match (through the page's own api())."""
    page.evaluate(
        """async (g) => { const v = await api("GET", `/api/games/${g}`);
        await api("POST", `/api/games/${g}/actions`, { action: "resign", level: 0, seq: v.seq }); }""",
        gid,
    )


def accepts(c, gid: str):
    v = c.get(f"/api/games/{gid}").json()
    r = c.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200 and r.json()["match_over"], r.text


def test_a_swiss_made_on_the_page_starts_updates_live_and_takes_the_player_to_their_games(server, people, shots):  # noqa: F811
    stamp = int(time.time() * 1000) % 100000
    (page,) = people(1)
    me = f"Tia{stamp}"
    register(page, server, me)
    uid = page.evaluate("window.nardy.me.id")
    # the form: a Swiss of four, two rounds, 1-point matches, blitz, unrated
    page.click("#btn-tournaments")
    page.wait_for_selector("#tournaments:not([hidden])")
    page.click("#tn-new")
    page.wait_for_selector("#tn-form:not([hidden])")
    assert page.is_hidden("#tn-duration") and page.is_hidden("#tn-lengths") and page.is_visible("#tn-rounds")
    page.select_option("#tn-game", "long")
    assert page.is_visible("#tn-draw")
    page.select_option("#tn-format", "arena")
    assert page.is_visible("#tn-duration") and page.is_visible("#tn-berserk") and page.is_hidden("#tn-rounds")
    page.select_option("#tn-format", "swiss")
    page.fill("#tn-name", f"Swiss {stamp}")
    page.fill("#tn-rounds", "2")
    page.fill("#tn-length", "1")
    page.select_option("#tn-clock", "blitz")
    page.fill("#tn-players", "4")
    page.set_checked("#tn-rated", False)
    page.click("#tn-create")
    page.wait_for_function("() => /^#\\/tournament\\/[0-9A-Za-z_-]+$/.test(location.hash)")
    tid = page.evaluate("location.hash").split("/")[-1]
    page.wait_for_function("(id) => window.nardyTour.data && window.nardyTour.data.id === id", arg=tid)
    assert page.inner_text("#tn-title") == f"Swiss {stamp}"
    assert page.inner_text("#tn-settings dd[data-key='rounds']") == "2"
    assert page.inner_text("#tn-settings dd[data-key='draw_points']") == "½ each"
    assert page.is_visible("#tn-join") and page.is_hidden("#tn-leave")
    # join on the page: the entrant is listed live (the page's own frame), "Leave" instead of "Join"
    page.click("#tn-join")
    page.wait_for_selector(f"#tn-entrants li[data-entrant='{uid}']")
    page.wait_for_selector("#tn-leave:not([hidden])")
    # the list shows it
    others = [Player(server.url, f"{n}{stamp}") for n in ("Uma", "Vic", "Wes")]
    frames = page.evaluate("window.nardyTour.frames")
    for c in others:
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    # the fourth makes it start: the pairings appear live, and the countdown takes the player to their game
    page.wait_for_function("(n) => window.nardyTour.frames > n", arg=frames)
    page.wait_for_selector("#tn-games table.tn-round[data-round='1'] tr[data-game]", timeout=20000)
    page.wait_for_selector("#tn-next:not([hidden]) #tn-countdown[data-left]")
    assert page.is_visible("#tn-withdraw") and page.is_hidden("#tn-join")
    shot(page, shots, "tournament-swiss-paired")
    body = others[0].get(f"/api/tournaments/{tid}").json()
    mine = board_of(body, uid, 1)
    assert len([p for p in body["pairings"] if p["round"] == 1]) == 2
    assert page.get_attribute("#tn-next-link", "href") == f"#/game/{mine['game']}"
    page.wait_for_function("(g) => location.hash === '#/game/' + g", arg=mine["game"], timeout=10000)
    page.wait_for_selector("#play:not([hidden])")
    # back on the tournament's page the same game is not opened again
    page.evaluate("(id) => { location.hash = '#/tournament/' + id; }", tid)
    page.wait_for_selector("#tournament:not([hidden]) #tn-next:not([hidden])")
    page.wait_for_function("() => window.nardyTour.nextAt && window.nardyTour.nextAt.at === null")
    assert page.inner_text("#tn-countdown") == "Your game is on"
    # the other board ends: its result and the standings change live
    by_id = {c.me["id"]: c for c in others}
    rival = next(x["id"] for x in mine["players"] if x["id"] != uid)
    other = next(p for p in body["pairings"] if p["round"] == 1 and p is not mine)
    a, b = (by_id[x["id"]] for x in other["players"])
    frames = page.evaluate("window.nardyTour.frames")
    finish_by_resignation(b, a, other["game"])  # the second resigns
    page.wait_for_function("(n) => window.nardyTour.frames > n", arg=frames)
    page.wait_for_selector(f"#tn-games tr[data-game='{other['game']}'] a.tn-analysis")
    assert page.inner_text(f"#tn-games tr[data-game='{other['game']}'] .tn-result") == "1–0"
    assert standings(page)[0] == (a.me["id"], "1")
    # the player's own board: they resign, the rival accepts; round 2 is paired and the countdown opens it
    page_resigns(page, mine["game"])
    accepts(by_id[rival], mine["game"])
    page.wait_for_selector("#tn-games table.tn-round[data-round='2'] tr[data-game]", timeout=20000)
    pts = dict(standings(page))
    assert (pts[uid], pts[rival], pts[a.me["id"]], pts[b.me["id"]]) == ("0", "1", "1", "0")
    assert page.locator("#tn-standings th[data-tb='buchholz']").count() == 1
    body = others[0].get(f"/api/tournaments/{tid}").json()
    second = board_of(body, uid, 2)
    assert rival not in [x["id"] for x in second["players"]]  # no rematch; score groups: 0 v 0
    shot(page, shots, "tournament-swiss-round2")
    page.wait_for_function("(g) => location.hash === '#/game/' + g", arg=second["game"], timeout=10000)
    # in Russian
    page.evaluate("(id) => { location.hash = '#/tournament/' + id; }", tid)
    page.wait_for_selector("#tournament:not([hidden]) #tn-standings")
    n = updates(page)
    page.select_option("#lang", "ru")
    drawn(page, n)
    assert page.inner_text("#tn-board-title") == "Турнирная таблица"
    assert page.inner_text("#tn-status") == "идёт"
    assert "Бухгольц" in page.inner_text("#tn-standings")
    assert page.inner_text("#tn-withdraw") == "Сняться с турнира"
    assert page.inner_text("#btn-tournaments") == "Турниры"
    shot(page, shots, "tournament-swiss-ru")
    page.select_option("#lang", "en")
    # the list, filtered by status
    page.click("#btn-tournaments")
    page.wait_for_selector(f"#tn-list tr[data-tournament='{tid}']")
    n = updates(page)
    page.select_option("#tn-filter", "finished")
    drawn(page, n)
    assert page.locator(f"#tn-list tr[data-tournament='{tid}']").count() == 0
    n = updates(page)
    page.select_option("#tn-filter", "playing")
    drawn(page, n)
    assert page.get_attribute(f"#tn-list tr[data-tournament='{tid}'] a.tn-open", "href") == f"#/tournament/{tid}"


def test_a_knockout_of_four_shows_its_bracket_and_the_final_fills_in_live(server, people, shots):  # noqa: F811
    stamp = int(time.time() * 1000) % 100000
    four = [Player(server.url, f"{n}{stamp}") for n in ("Kai", "Lea", "Max", "Ned")]
    terms = {"game": "backgammon", "format": "knockout", "length": 1, "lengths": [1, 1], "clock": "blitz", "players": 4}
    r = four[0].post("/api/tournaments", json={**terms, "name": f"Cup {stamp}"})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    for c in four:
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    body = wait_body(four[0], tid, lambda b: b["status"] == "playing" and len(b["pairings"]) == 2)
    (page,) = people(1)
    page.goto(server.url + f"/#/tournament/{tid}")
    page.wait_for_selector("#tournament:not([hidden]) #tn-bracket g.tn-match")
    slots = page.eval_on_selector_all(
        "#tn-bracket g.tn-match", "(gs) => gs.map((g) => [g.dataset.round, g.dataset.game])"
    )
    semis = [p["game"] for p in body["pairings"]]
    assert slots == [["1", semis[0]], ["1", semis[1]], ["2", ""]]
    assert page.inner_text("#tn-board-title") == "Bracket" and page.is_hidden("#tn-join")  # under way
    # both semi-finals end: the winners are bold and the final is paired, live
    by_id = {c.me["id"]: c for c in four}
    winners = []
    for p in body["pairings"]:
        w, loser = (by_id[x["id"]] for x in p["players"])
        finish_by_resignation(loser, w, p["game"])
        winners.append(w.me["id"])
    page.wait_for_function(
        "() => { const g = document.querySelector('#tn-bracket g.tn-match[data-round=\"2\"]');"
        " return g && g.dataset.game; }",
        timeout=20000,
    )
    bold = page.eval_on_selector_all(
        "#tn-bracket g[data-round='1'] text.tn-bracket-name.won", "(ts) => ts.map((t) => t.dataset.player)"
    )
    assert bold == winners
    final = page.eval_on_selector_all(
        "#tn-bracket g[data-round='2'] text.tn-bracket-name", "(ts) => ts.map((t) => t.dataset.player)"
    )
    assert sorted(final) == sorted(winners)
    shot(page, shots, "tournament-knockout-live")


def test_an_arena_shows_its_leaderboard_its_end_and_the_berserk_button(server, people):  # noqa: F811
    stamp = int(time.time() * 1000) % 100000
    (page,) = people(1)
    register(page, server, f"Ari{stamp}")
    uid = page.evaluate("window.nardy.me.id")
    terms = {"game": "short", "format": "arena", "duration_min": 30, "berserk": True, "length": 1, "players": 2}
    tid = page.evaluate("(b) => api('POST', '/api/tournaments', b).then((r) => r.id)", terms)
    page.evaluate("(id) => { location.hash = '#/tournament/' + id; }", tid)
    page.wait_for_selector("#tournament:not([hidden]) #tn-join:not([hidden])")
    page.click("#tn-join")
    page.wait_for_selector("#tn-leave:not([hidden])")
    rival = Player(server.url, f"Bea{stamp}")
    assert rival.post(f"/api/tournaments/{tid}/join").status_code == 200
    page.wait_for_selector("#tn-next:not([hidden]) #tn-berserk-now", timeout=20000)
    assert page.inner_text("#tn-board-title") == "Leaderboard"
    assert page.locator("#tn-standings th[data-tb='performance']").count() == 1
    assert page.inner_text("#tn-when").startswith("The arena ends in 29:") or "30:00" in page.inner_text("#tn-when")
    gid = page.get_attribute("#tn-next-link", "href").split("/")[-1]
    page.click("#tn-berserk-now")
    page.wait_for_function(
        "(u) => window.nardyTour.data.pairings.some((p) => p.berserk[p.players.findIndex((x) => x && x.id === u)])",
        arg=uid,
    )
    assert page.locator("#tn-berserk-now").count() == 0 and page.inner_text("#tn-error") == ""
    page.wait_for_function("(g) => location.hash === '#/game/' + g", arg=gid, timeout=10000)


@pytest.fixture(scope="module")
def server5(tmp_path_factory):
    """A served process of its own: the module's server has made ten accounts from this address by now (10 an
    hour per address, ``too_many_new_players``)."""
    yield from serve_sqlite(tmp_path_factory, "tournaments-five", "tournaments.db")


def test_a_knockout_of_five_gives_the_top_three_seeds_byes_in_the_bracket(server5, people):  # noqa: F811
    server = server5
    stamp = int(time.time() * 1000) % 100000
    five = [Player(server.url, f"{n}{stamp}") for n in ("Oda", "Pia", "Quin", "Rex", "Sol")]
    terms = {"game": "backgammon", "format": "knockout", "length": 1, "clock": "blitz", "players": 5}
    tid = five[0].post("/api/tournaments", json=terms).json()["id"]
    for c in five:
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    body = wait_body(five[0], tid, lambda b: b["status"] == "playing" and b["pairings"])
    first = [p for p in body["pairings"] if p["round"] == 1]
    assert len(first) == 4 and sum(p["players"][1] is None for p in first) == 3
    (page,) = people(1)
    page.goto(server.url + f"/#/tournament/{tid}")
    page.wait_for_selector("#tournament:not([hidden]) #tn-bracket g.tn-match")
    rounds = page.eval_on_selector_all("#tn-bracket g.tn-match", "(gs) => gs.map((g) => g.dataset.round)")
    assert rounds.count("1") == 4 and rounds.count("2") == 2 and rounds.count("3") == 1
    names = page.eval_on_selector_all(
        "#tn-bracket g[data-round='1'] text.tn-bracket-name", "(ts) => ts.map((t) => t.textContent)"
    )
    assert names.count("bye") == 3
    played = next(p for p in first if p["players"][1] is not None)
    assert page.locator(f"#tn-bracket g.tn-match[data-game='{played['game']}']").count() == 1

"""A player's page in a real browser (Playwright, Debian's chromium, against ``nardy serve``; issue 43): three
accounts play real rated matches through the API (rated_play.py); one of them, signed in in the browser, opens
their own page from the header, goes to an opponent's page from a name in the games table, and sees a point of
the rating graph per rated match (one line per game and clock class), the games filtered by result, game and
opponent with links to the record and the analysis, the head-to-head record against them, and all of it in
Russian; in a new game the opponent's rating stands beside their name. Skipped when chromium or the playwright
package is missing, like tests/web/test_browser.py."""

from __future__ import annotations

import json
import time

import pytest

from . import test_browser as tb
from .helpers import HttpPlayer, serve_sqlite
from .rated_play import play_turns
from .test_browser_lobby import people, shots  # noqa: F401  (fixtures)
from .test_browser_online import shot

pytestmark = tb.pytestmark
browser = tb.browser

PASSWORD = "a long password"
BLITZ = {"length": 1, "clock": "blitz", "rated": True}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "profile-web", "profile.db")


class Answer:
    def __init__(self, status: int, body):
        self.status_code, self.body = status, body
        self.text = json.dumps(body)

    def json(self):
        return self.body


class Player(HttpPlayer):
    """An account over HTTP with the test clients' ``get``/``post`` (``status_code``, ``json()``)."""

    def __init__(self, url: str, name: str):
        super().__init__(url)
        status, out = self.request("POST", "/api/auth/register", {"name": name, "password": PASSWORD})
        assert status == 201, out
        self.me = out["user"]

    def get(self, path: str, params=None) -> Answer:  # type: ignore[override]
        return Answer(*self.request("GET", path))

    def post(self, path: str, json=None) -> Answer:  # type: ignore[override]
        return Answer(*self.request("POST", path, json if json is not None else {}))


def rated_match(winner: Player, loser: Player, game: str) -> str:
    terms = {**BLITZ, "game": game}
    assert winner.post("/api/lobby/quick", json=terms).json()["status"] == "waiting"
    gid = loser.post("/api/lobby/quick", json=terms).json()["game"]
    play_turns((winner, loser), gid)
    v = loser.get(f"/api/games/{gid}").json()
    assert (
        loser.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]}).status_code
        == 200
    )
    v = winner.get(f"/api/games/{gid}").json()
    r = winner.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200 and r.json()["match_over"], r.text
    return gid


def log_in(page, server, name: str):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.click("#btn-account")
    page.fill("#acc-name", name)
    page.fill("#acc-password", PASSWORD)
    page.click("#acc-login")
    page.wait_for_function("(n) => window.nardy.me && window.nardy.me.name === n", arg=name)


def drawn(page, before: int):
    page.wait_for_function("(n) => window.nardyProfile.updates > n && window.nardyProfile.games", arg=before)


def updates(page) -> int:
    return page.evaluate("window.nardyProfile.updates")


def rows(page) -> list[str]:
    return page.eval_on_selector_all("#pf-games tr[data-game]", "(trs) => trs.map((tr) => tr.dataset.game)")


def test_a_players_page_graph_filters_head_to_head_and_russian(server, people, shots):  # noqa: F811
    stamp = int(time.time() * 1000) % 100000
    ann, bob, cat = (Player(server.url, f"{n}{stamp}") for n in ("Ann", "Bob", "Cat"))
    g1 = rated_match(ann, bob, "long")  # Ann beats Bob
    g2 = rated_match(bob, ann, "backgammon")  # Bob beats Ann
    g3 = rated_match(ann, cat, "long")  # Ann beats Cat
    (page,) = people(1)
    log_in(page, server, bob.me["name"])

    # the header links to one's own page
    n = updates(page)
    page.click("#btn-profile")
    page.wait_for_selector("#profile:not([hidden])")
    drawn(page, n)
    assert page.inner_text("#pf-name") == bob.me["name"] and rows(page) == [g2, g1]
    assert page.eval_on_selector_all("#pf-graph circle.pf-point", "(cs) => cs.map((c) => c.dataset.gameId)") == [g1, g2]

    # a name in the games table opens that player's page (with "Challenge" where the page offers challenges)
    assert page.locator("#pf-challenge").count() == 0  # not on one's own page; nor without nardyChallenge
    page.evaluate("() => { window.nardyChallenge = (name) => { window.challenged = name; }; }")
    n = updates(page)
    page.click(f"#pf-games tr[data-game='{g2}'] a.profile-link")
    page.wait_for_function(
        "(n) => window.nardyProfile.player && window.nardyProfile.player.name === n", arg=ann.me["name"]
    )
    drawn(page, n)
    assert page.evaluate("location.hash") == "#/player/" + ann.me["name"]
    assert rows(page) == [g3, g2, g1]
    page.click("#pf-challenge")
    assert page.evaluate("window.challenged") == ann.me["name"]
    # the graph: a point per rated match, one line per game and clock class, dates on the x axis
    points = page.eval_on_selector_all("#pf-graph circle.pf-point", "(cs) => cs.map((c) => c.dataset.gameId)")
    assert sorted(points) == sorted([g1, g2, g3])
    series = page.eval_on_selector_all("#pf-graph g.pf-series", "(gs) => gs.map((g) => g.dataset.series)")
    assert series == ["long/blitz", "backgammon/blitz"]
    assert page.eval_on_selector_all("#pf-graph .pf-xtick", "(ts) => ts.length") == 5
    ratings = page.eval_on_selector_all("#pf-ratings tr[data-series]", "(trs) => trs.map((tr) => tr.dataset.series)")
    assert sorted(ratings) == ["backgammon/blitz", "long/blitz"]
    # the head-to-head, from the viewer's side: Bob won one, lost one
    assert page.get_attribute("#pf-versus", "data-won") == "1" and page.get_attribute("#pf-versus", "data-lost") == "1"
    assert "you won 1, lost 1" in page.inner_text("#pf-versus")
    # links to the record and the analysis
    assert page.get_attribute(f"tr[data-game='{g3}'] a.pf-mat", "href") == f"/api/games/{g3}/mat"
    assert page.get_attribute(f"tr[data-game='{g3}'] a.pf-analysis", "href") == f"#/review/{g3}"
    shot(page, shots, "01-ann-page")

    # filters: result, game, opponent (by name)
    n = updates(page)
    page.select_option("#pf-result", "won")
    drawn(page, n)
    assert rows(page) == [g3, g1]
    n = updates(page)
    page.fill("#pf-opponent", cat.me["name"])
    page.press("#pf-opponent", "Tab")
    drawn(page, n)
    assert rows(page) == [g3]
    n = updates(page)
    page.select_option("#pf-result", "")
    page.fill("#pf-opponent", "")
    page.select_option("#pf-game", "backgammon")
    page.wait_for_function(
        "(g) => { const x = window.nardyProfile.games.games; return x.length === 1 && x[0].id === g; }", arg=g2
    )
    page.wait_for_function("(g) => document.querySelector(`#pf-games tr[data-game='${g}']`)", arg=g2)
    assert rows(page) == [g2]

    # in Russian
    n = updates(page)
    page.select_option("#lang", "ru")
    drawn(page, n)
    heads = page.eval_on_selector_all("#pf-body h3", "(hs) => hs.map((h) => h.textContent)")
    assert "Рейтинг по времени" in heads and "Партии" in heads
    assert page.inner_text(f"tr[data-game='{g2}'] td.pf-result") == "поражение"
    assert "вы выиграли 1, проиграли 1" in page.inner_text("#pf-versus")
    assert page.inner_text("#btn-profile") == "Моя страница"
    shot(page, shots, "02-ann-page-ru")

    # a page for a name nobody has
    page.evaluate("() => { location.hash = '#/player/nobody' + Date.now(); }")
    page.wait_for_function("() => document.querySelector('#pf-error').textContent.startsWith('Игрока с именем')")

    # a new rated match: the opponent's rating stands beside their name
    ann_rating = round(
        next(r["rating"] for r in ann.get(f"/api/players/{ann.me['id']}").json()["ratings"] if r["game"] == "long")
    )
    assert ann.post("/api/lobby/quick", json={**BLITZ, "game": "long"}).json()["status"] == "waiting"
    gid = bob.post("/api/lobby/quick", json={**BLITZ, "game": "long"}).json()["game"]
    page.evaluate("(g) => { location.hash = '#/game/' + g; }", gid)
    page.wait_for_function("(g) => window.nardy.view && window.nardy.view.id === g", arg=gid)
    row = page.locator(".player-row", has=page.locator("a.profile-link", has_text=ann.me["name"]))
    assert row.locator(".prating").inner_text() == f"({ann_rating})"

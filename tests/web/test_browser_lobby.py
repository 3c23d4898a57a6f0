"""The lobby in real browsers (Playwright, Debian's chromium, against ``nardy serve``): two players register,
open the lobby, find each other by quick pairing (long nardy, 1 point, blitz, rated), play a rated game (five
turns each, a real game, then the player to act resigns a single game: the match), and each sees their new
rating on their player page: the Glicko-2 ratings of docs/online.md for a 1-point match between two new
players; the leaderboard lists neither yet (provisional: one opponent). Skipped when chromium or the
playwright package is missing, like tests/web/test_browser.py."""

from __future__ import annotations

import time

import pytest

from nardy.web.ratings import MIN_TURNS, START, match_update

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_online import PUSH_WAIT, act_once, click_and_wait, settle, shot, view

pytestmark = tb.pytestmark
browser = tb.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "lobby-web", "lobby.db")


@pytest.fixture
def people(browser):
    made = []

    def make(n: int):
        out = []
        for _ in range(n):
            ctx = browser.new_context(viewport={"width": 1100, "height": 900}, locale="en-GB")
            pg = ctx.new_page()
            pg.errors = []
            pg.on("pageerror", lambda e, pg=pg: pg.errors.append(str(e)))
            made.append(ctx)
            out.append(pg)
        return out

    yield make
    errors = [e for ctx in made for pg in ctx.pages for e in pg.errors]
    for ctx in made:
        ctx.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lobby-screenshots")
    print(f"\nscreenshots of the lobby browser tests: {folder}")
    return folder


def register(page, server, name: str):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.click("#btn-account")
    page.fill("#acc-name", name)
    page.fill("#acc-password", "a long password")
    page.click("#acc-register")
    page.wait_for_function("(n) => window.nardy.me && window.nardy.me.name === n && !window.nardy.me.guest", arg=name)


def open_lobby(page):
    before = page.evaluate("window.nardyLobby.updates")
    page.click("#btn-lobby")
    page.wait_for_selector("#lobby:not([hidden])")
    page.wait_for_function("(n) => window.nardyLobby.updates > n && window.nardyLobby.state", arg=before)


def quick_terms(page):
    page.select_option("#lq-game", "long")
    page.fill("#lq-length", "1")
    page.select_option("#lq-clock", "blitz")
    page.set_checked("#lq-rated", True)


def board_rows(page) -> dict[str, dict]:
    return page.evaluate(
        "() => Object.fromEntries((window.nardyLobby.board ? window.nardyLobby.board.players : [])"
        ".map((p) => [p.name, p]))"
    )


def test_two_players_pair_quickly_play_a_rated_game_and_see_their_new_ratings(server, people, shots):
    stamp = int(time.time() * 1000) % 100000
    ann_name, bob_name = f"Ann{stamp}", f"Bob{stamp}"
    ann, bob = people(2)
    register(ann, server, ann_name)
    register(bob, server, bob_name)
    open_lobby(ann)
    open_lobby(bob)
    # each sees the other online
    ann.wait_for_function("(n) => window.nardyLobby.state.online.some((u) => u.name === n)", arg=bob_name)
    assert ann.is_visible("#leaderboard")

    # Ann asks for a game and waits; Bob asks on the same terms: they are paired, both pages open the game
    quick_terms(ann)
    ann.click("#btn-quick")
    ann.wait_for_selector("#lq-status:not([hidden])")
    shot(ann, shots, "01-ann-looking")
    quick_terms(bob)
    bob.click("#btn-quick")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)
        settle(p)
    va, vb = view(ann), view(bob)
    assert va["id"] == vb["id"] and va["online"]["rated"] and va["online"]["rating_class"] == "blitz"
    assert sorted(va["you"] + vb["you"]) == [0, 1] and va["clock"] is not None
    assert ann.is_hidden("#lobby") and bob.is_hidden("#lobby")
    shot(bob, shots, "02-bob-paired")

    # a real game: five turns each (a result before it would not be rated)
    seats = {va["you"][0]: ann, vb["you"][0]: bob}
    played = [0, 0]
    while min(played) < MIN_TURNS:
        side = view(ann)["to_act"]
        if act_once(seats) == "play":
            played[side] += 1
    settle(ann, view(bob)["seq"])
    settle(bob, view(ann)["seq"])
    va = view(ann)
    # the player to act resigns a single game (a 1-point match: the match is over); the other accepts
    side = va["to_act"]
    loser, winner = (ann, bob) if side in va["you"] else (bob, ann)
    # the page says the match is rated; no claim is offered while the opponent is there
    winner.wait_for_selector("#rated-box:not([hidden])")
    assert "Rated match (Blitz)" in winner.inner_text("#rated-box")
    assert winner.is_hidden("#btn-claim")
    loser.select_option("#resign-level", "0")
    loser.click("#btn-resign")  # the page first says what resigning loses
    loser.wait_for_selector("#resign-dialog[open]")
    click_and_wait(loser, "#resign-ok")
    settle(winner, view(loser)["seq"])
    click_and_wait(winner, "#btn-accept")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.match_over", timeout=PUSH_WAIT * 1000)
    winner_name = view(winner)["players"][view(winner)["match_winner"]]
    assert winner_name == (ann_name if winner is ann else bob_name)

    # both open the lobby: the leaderboard of long nardy blitz lists established players only, not them yet
    want_w, want_l = match_update(START, START, 1)
    for p in (ann, bob):
        open_lobby(p)
        p.select_option("#lb-game", "long")
        p.select_option("#lb-clock", "blitz")
        p.wait_for_function(
            "() => window.nardyLobby.board && window.nardyLobby.board.game === 'long' && "
            "window.nardyLobby.board.clock_class === 'blitz'",
            timeout=PUSH_WAIT * 1000,
        )
        rows = board_rows(p)
        assert ann_name not in rows and bob_name not in rows
        if not rows:
            assert "3 different opponents" in p.inner_text("#leaderboard")
    shot(ann, shots, "03-leaderboard")
    # in Russian: the lobby's own texts too
    ann.select_option("#lang", "ru")
    ann.wait_for_function("document.querySelector('#btn-lobby').textContent === 'Лобби'")
    ann.wait_for_function("document.querySelector('#leaderboard').textContent.includes('Рейтинг')")
    assert "Быстрый подбор" in ann.inner_text("#lobby") and "Блиц" in ann.inner_text("#lobby")
    ann.select_option("#lang", "en")

    # the loser's player page: their rating, and their history with the lost match and its record to download
    loser.evaluate("() => showPlayer(window.nardy.me.id)")  # (the leaderboard, which links it, lists them not)
    loser.wait_for_selector("#lobby-player:not([hidden])")
    box = loser.inner_text("#lobby-player")
    assert f"{round(want_l.rating)}" in box
    assert "lost" in box and winner_name in box and f"1500 → {round(want_l.rating)}" in box
    href = loser.get_attribute("#lobby-player a[download]", "href")
    assert href.startswith("/api/games/") and href.endswith("/mat")
    shot(loser, shots, "04-loser-history")


def test_a_challenge_appears_for_another_player_and_goes_when_withdrawn_or_taken_through_deltas(server, people, shots):
    """docs/online.md, "The lobby's live channel": each page gets the lobby whole once, then only what changed;
    one player's challenge appears on another's page and goes when it is withdrawn or taken, with no second
    snapshot."""
    stamp = int(time.time() * 1000) % 100000
    ann_name, bob_name = f"Ada{stamp}", f"Ben{stamp}"
    ann, bob = people(2)
    register(ann, server, ann_name)
    register(bob, server, bob_name)
    open_lobby(ann)
    open_lobby(bob)
    bob.wait_for_function("(n) => window.nardyLobby.state.online.some((u) => u.name === n)", arg=ann_name)
    counts = "() => [window.nardyLobby.snapshots, window.nardyLobby.deltas]"
    assert bob.evaluate(counts)[0] == 1 and ann.evaluate(counts)[0] == 1

    def bobs_challenges():
        return bob.evaluate(
            "() => [...document.querySelectorAll('#lobby-challenges li[data-challenge]')].map((li) => li.textContent)"
        )

    # Ann posts a challenge (short nardy to 3, rapid, unrated, ratings within 200 of hers): it appears on Bob's
    # page with its range and "Accept"
    ann.select_option("#lq-game", "short")
    ann.fill("#lq-length", "3")
    ann.select_option("#lq-clock", "rapid")
    ann.set_checked("#lq-rated", False)
    ann.fill("#lq-range", "200")
    before = bob.evaluate(counts)[1]
    ann.click("#btn-challenge")
    bob.wait_for_selector("#lobby-challenges li[data-challenge] button.accept", timeout=PUSH_WAIT * 1000)
    [text] = bobs_challenges()
    assert ann_name in text and "Short nardy" in text and "to 3" in text and "unrated" in text, text
    assert "rated 1300–1700" in text, text
    assert bob.evaluate(counts)[1] > before
    ann.wait_for_selector("#lobby-challenges li[data-challenge] button.withdraw")  # hers: "Withdraw"
    shot(bob, shots, "05-bob-sees-the-challenge")

    # she withdraws it: it goes from Bob's page
    ann.click("#lobby-challenges button.withdraw")
    bob.wait_for_function("!document.querySelector('#lobby-challenges li[data-challenge]')", timeout=PUSH_WAIT * 1000)
    assert bob.is_visible("#lobby-challenges li.empty")

    # posted again, Bob takes it: both pages open the game; Ann's learnt it from her own part of a delta
    ann.click("#btn-challenge")
    bob.wait_for_selector("#lobby-challenges button.accept", timeout=PUSH_WAIT * 1000)
    assert ann.evaluate(counts)[0] == 1 and bob.evaluate(counts)[0] == 1  # no second snapshot for either
    bob.click("#lobby-challenges button.accept")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)
    assert view(ann)["id"] == view(bob)["id"] and sorted(view(ann)["you"] + view(bob)["you"]) == [0, 1]
    assert ann.evaluate(counts)[0] == 1 and ann.evaluate(counts)[1] >= 3


def test_a_challenge_whose_rating_range_leaves_a_player_out_is_shown_so_without_an_accept_button(server, people):
    """docs/online.md, the lobby: a challenge names the ratings that may accept it; a player outside its range
    sees it marked so (with their own rating at its terms: a new player's 1500) instead of an Accept button
    the server would refuse, and one inside sees the button."""
    stamp = int(time.time() * 1000) % 100000
    ann_name = f"Ida{stamp}"
    ann, bob, cid = *people(2), None
    register(ann, server, ann_name)
    register(bob, server, f"Jon{stamp}")
    open_lobby(ann)
    open_lobby(bob)
    bob.wait_for_function("(n) => window.nardyLobby.state.online.some((u) => u.name === n)", arg=ann_name)
    bob.wait_for_function("window.nardyLobby.mine !== null")  # Bob's own ratings: none yet (1500 at any terms)
    body = {"game": "long", "length": 1, "clock": "blitz", "rated": True, "rating_min": 1600}
    cid = ann.evaluate("(b) => api('POST', '/api/lobby/challenges', b).then((r) => r.challenge.id)", body)
    row = f"#lobby-challenges li[data-challenge='{cid}']"
    bob.wait_for_selector(row + " .out-of-range", timeout=PUSH_WAIT * 1000)
    text = bob.text_content(row)
    assert "rated 1600–…" in text and "outside your rating range (yours: 1500)" in text, text
    assert bob.query_selector(row + " button.accept") is None
    # withdrawn and posted again with a range that takes him: the Accept button
    assert ann.evaluate(f"api('DELETE', '/api/lobby/challenges/{cid}').then(() => true)")
    cid = ann.evaluate(
        "(b) => api('POST', '/api/lobby/challenges', b).then((r) => r.challenge.id)", {**body, "rating_min": 1400}
    )
    bob.wait_for_selector(f"#lobby-challenges li[data-challenge='{cid}'] button.accept", timeout=PUSH_WAIT * 1000)
    assert ann.evaluate(f"api('DELETE', '/api/lobby/challenges/{cid}').then(() => true)")

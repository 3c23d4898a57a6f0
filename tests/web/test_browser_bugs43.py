"""Issue 43's bugs of online play, each seen in a real browser (Playwright, Debian's chromium) against
``nardy serve``: a stranger at a private game's address, deleting an online game under way from the saved
games, the Crawford label (docs/online.md). Skipped like tests/web/test_browser_online.py."""

from __future__ import annotations

import re
import time

import pytest

from . import test_browser_lobby as tbl
from . import test_browser_online as tbo
from .helpers import serve_with_grace

#: test_browser_online's skips, its fixtures (by name: chromium, the server, the people) and its page helpers.
pytestmark = tbo.pytestmark
browser = tbo.browser
server = tbo.server
people = tbo.people
join_by_link = tbo.join_by_link
new_online_game = tbo.new_online_game
settle = tbo.settle
sign_in_as_guest = tbo.sign_in_as_guest
view = tbo.view


def seated_pair(people, server, game: str = "long", length: int = 1):
    """Ann (a guest) invites, Bob (a guest) joins a private online match; returns (ann, bob, game id)."""
    ann, bob = people(2)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, game, length)
    join_by_link(bob, link, "Bob")
    settle(ann)
    gid = view(ann)["id"]
    return ann, bob, gid


def test_a_stranger_at_a_private_games_address_sees_only_the_refusal_and_a_way_back(server, people):
    _, _, gid = seated_pair(people, server)
    (carol,) = people(1)
    sign_in_as_guest(carol, server, "Carol")
    carol.goto(f"{server.url}/#/game/{gid}")
    carol.wait_for_selector("#refused:not([hidden])")
    assert carol.inner_text("#refused-text").strip()  # the server's refusal, worded for the page
    for hidden in ("#play", "#board", "#btn-resign", "#download", "#home"):
        assert carol.is_hidden(hidden), hidden
    carol.click("#refused-back")
    carol.wait_for_selector("#home:not([hidden])")
    assert carol.is_hidden("#refused")


def test_deleting_an_online_game_under_way_is_refused_on_the_card_with_a_way_to_resign(server, people):
    ann, _, gid = seated_pair(people, server)
    ann.goto(server.url + "/")
    card = f'#games .game-card[data-id="{gid}"]'
    ann.wait_for_selector(card)
    ann.once("dialog", lambda d: d.accept())
    ann.click(f"{card} button.secondary")
    ann.wait_for_selector(f"{card} .card-refusal")
    text = ann.inner_text(f"{card} .card-refusal")
    assert "cannot be deleted while it is played" in text and "resign" in text
    assert ann.is_visible("#home") and ann.is_visible(card)  # still there, nothing deleted
    ann.click(f"{card} .card-refusal button.open-to-end")
    ann.wait_for_selector("#play:not([hidden])")
    ann.wait_for_function("(g) => window.nardy.view && window.nardy.view.id === g", arg=gid)
    assert ann.is_visible("#btn-resign")


def test_a_one_point_match_is_never_labelled_the_crawford_game(server, people):
    for game in ("long", "backgammon"):
        ann, bob, _ = seated_pair(people, server, game, 1)
        for p in (ann, bob):
            meta = p.inner_text("#scoreboard .match-meta")
            assert "match to 1" in meta and view(p)["crawford"], meta  # the server marks it; the page does not
            assert "Crawford" not in meta, (game, meta)
            assert p.query_selector("#board .crawford-label") is None, game  # nor on the board's tray


#: The claims' grace period of the claim test's server (seconds; 120 in play).
CLAIM_GRACE = 40.0


@pytest.fixture(scope="module")
def claim_server(tmp_path_factory):
    """A server whose claims' grace period is :data:`CLAIM_GRACE` seconds."""
    yield from serve_with_grace(tmp_path_factory, "claim-web", CLAIM_GRACE)


def test_the_claim_shows_only_once_possible_after_the_time_left_while_the_opponent_is_away(claim_server, people):
    stamp = int(time.time() * 1000) % 100000
    ann, bob = people(2)
    for page, name in ((ann, f"Ann{stamp}"), (bob, f"Bob{stamp}")):
        tbl.register(page, claim_server, name)
        tbl.open_lobby(page)
        tbl.quick_terms(page)
        page.select_option("#lq-clock", "rapid")  # 300 s: no loss on time while the opponent is away
    ann.click("#btn-quick")
    ann.wait_for_selector("#lq-status:not([hidden])")
    bob.click("#btn-quick")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=20_000)
        settle(p)
    v = view(ann)
    assert v["online"]["rated"]
    claimer, leaver = (bob, ann) if v["to_act"] in v["you"] else (ann, bob)
    claimer.wait_for_selector("#rated-box:not([hidden])")
    # the opponent is there: the page has asked the server (it answers the whole grace period left) and
    # offers no claim and no count
    claimer.wait_for_function("document.querySelector('#claim-wait') !== null")
    time.sleep(6)
    assert claimer.is_hidden("#btn-claim") and claimer.is_hidden("#claim-wait")
    # the opponent leaves: first the time left is shown, then the claim, which ends the match
    leaver.goto("about:blank")
    claimer.wait_for_selector("#claim-wait:not([hidden])", timeout=CLAIM_GRACE * 1000)
    text = claimer.inner_text("#claim-wait")
    left = int(re.search(r"claim the match in (\d+) s", text).group(1))
    assert 0 < left <= CLAIM_GRACE - 25, text
    assert claimer.is_hidden("#btn-claim")
    claimer.wait_for_selector("#btn-claim:not([hidden])", timeout=(left + 15) * 1000)
    assert claimer.is_hidden("#claim-wait")
    claimer.click("#btn-claim")
    claimer.wait_for_function("window.nardy.view.match_over", timeout=20_000)
    assert view(claimer)["online"]["ended"]["reason"] == "abandoned"
    assert claimer.inner_text("#claim-msg") == ""


def test_nardys_own_words_and_the_ratings_letters_are_explained_on_the_page(server, people):
    ann, bob, _ = seated_pair(people, server, "long", 1)
    # the levels a long nardy player may resign at: oyn is explained
    page = next(p for p in (ann, bob) if "resign" in view(p)["actions"])
    options = page.eval_on_selector_all("#resign-level option", "os => os.map((o) => o.textContent)")
    assert any(o.lower().startswith("oyn (single win)") for o in options), options
    # the leaderboard's columns: the rating deviation is named and both it and the provisional "?" explained
    tbl.open_lobby(ann)
    ann.wait_for_selector("#leaderboard th")
    heads = ann.eval_on_selector_all("#leaderboard th", "hs => hs.map((h) => [h.textContent, h.title])")
    by_text = dict(heads)
    assert "Uncertainty (RD)" in by_text and "Rating deviation" in by_text["Uncertainty (RD)"], heads
    assert '"?" is provisional' in by_text["Rating"], heads
    assert "RD" not in by_text


def test_people_not_signed_in_pair_quickly_as_guests_unrated_and_never_see_rated_ticked(server, people):
    gus, gil = people(2)
    for page, name in ((gus, "Gus"), (gil, "Gil")):
        page.goto(server.url + "/")
        page.wait_for_selector("body[data-ready] #home:not([hidden])")
        assert page.evaluate("window.nardy.me") is None
        tbl.open_lobby(page)
        assert not page.is_checked("#lq-rated") and page.is_disabled("#lq-rated")
        assert "register" in page.get_attribute("label:has(#lq-rated)", "title")
        page.select_option("#lq-game", "short")
        page.fill("#lq-length", "1")
        page.select_option("#lq-clock", "none")
        page.fill("#lq-name", name)
    gus.click("#btn-quick")
    gus.wait_for_selector("#lq-status:not([hidden])")
    assert gus.evaluate("window.nardy.me.guest") and gus.evaluate("window.nardy.me.name") == "Gus"
    assert gus.inner_text("#lobby-error") == ""
    gil.click("#btn-quick")
    for p in (gus, gil):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=20_000)
    v = view(gus)
    assert v["online"]["rated"] is False and sorted(v["players"]) == ["Gil", "Gus"]


def test_a_delay_clock_shows_its_delay_counting_down_while_the_main_time_stands_still(server, people):
    ann, bob = people(2)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "short", 1, clock="custom", custom={"initial": 60, "increment": 0, "delay": 6})
    join_by_link(bob, link, "Bob")
    settle(ann)
    v = view(ann)
    assert v["clock"]["delay"] == 6 and v["clock"]["running"] == v["to_act"]
    row = f'#scoreboard .player-row[data-player="{v["to_act"]}"] .pclock'
    ann.wait_for_selector(f"{row}.in-delay .pdelay")
    text = ann.inner_text(row)
    assert re.fullmatch(r"1:00\s*delay [1-6]", text), text
    # once the delay is spent the main time runs
    ann.wait_for_function(f"!document.querySelector('{row}').classList.contains('in-delay')", timeout=15_000)
    ann.wait_for_function(f"document.querySelector('{row}').textContent.startsWith('0:5')", timeout=5_000)
    assert ann.query_selector(f"{row} .pdelay") is None


def test_a_used_invitation_opened_by_a_third_person_offers_to_watch_not_to_join(server, people):
    ann, bob, carol = people(3)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "long", 1, watchers=True)
    join_by_link(bob, link, "Bob")
    carol.goto(link)
    carol.wait_for_selector("#join-watch:not([hidden])")
    assert carol.is_hidden("#btn-join") and carol.is_hidden("#btn-join-decline")
    assert "invitation has been used" in carol.inner_text("#join-desc")
    carol.click("#join-watch")
    carol.wait_for_selector("#play:not([hidden])")
    carol.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'")
    w = view(carol)
    assert w["you"] == [] and sorted(w["players"]) == ["Ann", "Bob"]

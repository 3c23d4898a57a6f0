"""Online play in real browsers: Playwright drives Debian's chromium, one browser context per person,
against ``nardy serve`` (docs/fairness.md, /work/online-plan.md's interface).

Ann (a guest named on the page) creates an online long nardy match of 1 and copies the invitation link;
Bob opens it, names himself and joins; a registered watcher follows; Ann and Bob play by clicking on the
board (the legal steps are taken from each page's own view), Bob's page reloads mid-game and catches up
from the server; after the match the dice are verified in the page (SubtleCrypto) and the downloaded
record with ``nardy verify-dice``; a rematch is offered and accepted. Then a backgammon match where Ann
doubles and Bob takes, a blitz game lost on time (a 2 s clock), and the dice self-test page.

CI plays a sample of the long nardy match (a dozen turns by clicking, then a resignation); the whole game
to the last checker is marked slow. Screenshots go to a temporary folder printed at the start (``-s``).
Skipped when chromium or the playwright package is missing, like tests/web/test_browser.py.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite

#: test_browser's skips (no chromium, no playwright), its chromium (the fixture, by name) and its racing player.
pytestmark = tb.pytestmark
browser = tb.browser
pick_step = tb.pick_step

#: Turns played by clicking in CI's sample of the long nardy match before a resignation ends it.
SAMPLE_TURNS = 12
#: How long a page may take to show what another page did (seconds).
PUSH_WAIT = 20


# ----- fixtures --------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    folder = tmp_path_factory.mktemp("online-screenshots")
    print(f"\nscreenshots of the online browser tests: {folder}")
    return folder


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "online-web", "online.db")


@pytest.fixture
def people(browser):
    """``people(n)``: n pages, each in a browser context of its own (its own cookies: its own player)."""
    made = []

    def make(n: int, locale: str = "en-GB"):
        out = []
        for _ in range(n):
            ctx = browser.new_context(viewport={"width": 1100, "height": 820}, locale=locale)
            pg = ctx.new_page()
            pg.errors = []
            pg.on("pageerror", lambda e, pg=pg: pg.errors.append(str(e)))
            made.append((ctx, pg))
            out.append(pg)
        return out

    yield make
    errors = [e for _, pg in made for e in pg.errors]
    for ctx, _ in made:
        ctx.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


# ----- driving a page ---------------------------------------------------------------------------------------
def view(page) -> dict:
    return page.evaluate("window.nardy.view")


def settle(page, seq: int = 0, timeout: float = PUSH_WAIT):
    """Wait until the page shows state ``seq`` or later, is not waiting for an answer, and has finished
    showing the opponent's move."""
    page.wait_for_function(
        "(s) => window.nardy.view && window.nardy.view.seq >= s && !window.nardy.busy && !window.nardy.animating",
        arg=seq,
        timeout=timeout * 1000,
    )


def click_and_wait(page, selector: str):
    before = page.evaluate("window.nardy.updates")
    page.click(selector)
    page.wait_for_function("(n) => window.nardy.updates > n && !window.nardy.busy", arg=before, timeout=60_000)
    err = page.query_selector("#message.error")
    assert err is None, f"the server refused an action: {err.inner_text()}"


def shot(page, folder, name: str):
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


def sign_in_as_guest(page, server, name: str):
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    page.click("#btn-account")
    page.fill("#acc-name", name)
    page.click("#acc-guest")
    page.wait_for_function("(n) => window.nardy.me && window.nardy.me.name === n", arg=name)
    assert page.inner_text("#btn-account") == f"{name} (guest)"


def new_online_game(page, game: str, length: int, clock: str = "none", watchers: bool = False, custom=None) -> str:
    """Fill the new-game dialog for a person online; returns the invitation link the page shows."""
    page.click("#btn-new")
    page.select_option("#ng-game", game)
    page.fill("#ng-length", str(length))
    page.select_option("#ng-opponent", "online")
    assert page.is_visible("#ng-clock") and page.is_hidden("#ng-level")
    page.select_option("#ng-clock", clock)
    if custom:
        for k, x in custom.items():
            page.fill(f"#ng-clock-{k}", str(x))
    page.set_checked("#ng-watchers", watchers)
    page.click("#ng-start")
    page.wait_for_selector("#invite-box:not([hidden])")
    page.wait_for_function("window.nardy.view && window.nardy.view.status === 'waiting'")
    assert "Waiting for the opponent" in page.inner_text("#invite-box")
    return page.input_value("#invite-link")


def join_by_link(page, link: str, name: str):
    """Open the invitation link as a newcomer: name yourself, join; the game shows from your side."""
    page.goto(link)
    page.wait_for_selector("#join:not([hidden])")
    page.fill("#join-name", name)
    page.click("#btn-join")
    page.wait_for_function("window.nardy.view && window.nardy.view.status !== 'waiting'")
    settle(page)


def play_turn(page):
    """Enter the player's whole play by clicking a checker and a highlighted destination, then confirm."""
    for _ in range(8):
        v = view(page)
        if v["phase"] != "move" or not v["human_to_act"]:
            return
        if v["can_confirm"]:
            click_and_wait(page, "#btn-confirm")
            return
        frm, to = pick_step(v["moves"])
        page.click(f'#board [data-loc="{frm}"]')
        assert page.evaluate("window.nardy.selected") == str(frm)
        click_and_wait(page, f'#board [data-loc="{to}"]')
    raise AssertionError("a turn took more than 8 steps")


def sync_all(pages):
    """Wait until every page shows the newest state any of them has."""
    target = max(view(p)["seq"] for p in pages)
    for p in pages:
        settle(p, target)
    return target


def act_once(seats: dict, double_by=None) -> str:
    """The player to act does one thing on their page: double (``double_by``'s first chance), take, roll,
    or a whole play. Returns what was done."""
    pages = list(seats.values())
    sync_all(pages)
    v = view(pages[0])
    page = seats[v["to_act"]]
    mine = view(page)
    assert mine["human_to_act"] and mine["you"] == [v["to_act"]], mine["you"]
    acts = mine["actions"]
    if "double" in acts and double_by == v["to_act"]:
        click_and_wait(page, "#btn-double")
        return "double"
    if "take" in acts:
        click_and_wait(page, "#btn-take")
        return "take"
    if "roll" in acts:
        click_and_wait(page, "#btn-roll")
        return "roll"
    if mine["phase"] == "move":
        play_turn(page)
        return "play"
    raise AssertionError(f"nothing to do in phase {mine['phase']} with actions {acts}")


def verify_dice_file(path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "nardy.cli", "verify-dice", str(path)], capture_output=True, text=True, timeout=120
    )


# ----- the tests ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "whole",
    [pytest.param(False, id="sample"), pytest.param(True, id="whole-game", marks=pytest.mark.slow)],
)
def test_two_people_play_long_nardy_online_by_link_with_a_watcher(server, people, shots, tmp_path, whole):
    ann, bob, cat = people(3)
    ann.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "long", 1, watchers=True)
    gid = view(ann)["id"]
    assert link == f"{server.url}/join/{gid}#" + link.split("#", 1)[1] and len(link.split("#", 1)[1]) >= 16
    # the Copy button puts the link on the clipboard
    ann.click("#btn-copy")
    ann.wait_for_function("document.querySelector('#btn-copy').textContent === 'Copied'")
    assert ann.evaluate("navigator.clipboard.readText()") == link
    v = view(ann)
    assert v["you"] == [0] and v["online"]["owner"] and len(v["online"]["commitment"]) == 64
    shot(ann, shots, "01-ann-invitation")
    # a reload (or another of Ann's browsers) still shows the link: the owner's view carries the invitation
    ann.evaluate(f"localStorage.removeItem('nardy.invite.{gid}')")
    ann.reload()
    ann.wait_for_selector("#invite-box:not([hidden])")
    assert ann.input_value("#invite-link") == link

    # Bob opens the link, gives his name and joins; the game shows him its commitment, then his page sends its
    # seed with it (Ann's page sent hers once the game was made): the game shows from his side
    join_by_link(bob, link, "Bob")
    assert bob.url.endswith(f"/#/game/{gid}")
    vb = view(bob)
    assert vb["you"] == [1] and vb["viewer"] == 1 and vb["status"] == "playing"
    assert [s["name"] for s in vb["seats"]] == ["Ann", "Bob"]
    seed = bob.evaluate(f"localStorage.getItem('nardy.seed.{gid}')")
    assert len(seed) == 32 and int(seed, 16) >= 0
    # Ann's page hears of it over the live channel, without reloading
    settle(ann, vb["seq"])
    assert view(ann)["status"] == "playing" and ann.is_hidden("#invite-box")
    assert "live" in ann.inner_text("#live-state")
    shot(bob, shots, "02-bob-joined")

    # Cat registers an account and watches (the game allows watchers): she sees it, she cannot act
    cat.goto(server.url + "/")
    cat.wait_for_selector("body[data-ready] #home:not([hidden])")
    cat.click("#btn-account")
    cat.fill("#acc-name", f"Cat{int(time.time() * 1000) % 100000}")
    cat.fill("#acc-password", "a long password")
    cat.click("#acc-register")
    cat.wait_for_function("window.nardy.me && window.nardy.me.guest === false")
    cat.goto(f"{server.url}/#/game/{gid}")
    settle(cat)
    vc = view(cat)
    assert vc["you"] == [] and vc["actions"] == [] and vc["moves"] == {}
    assert "watching" in cat.inner_text("#live-state")
    assert all(cat.is_hidden(f"#btn-{a}") for a in ("roll", "confirm", "undo", "double", "resign"))

    seats = {0: ann, 1: bob}
    pages = [ann, bob, cat]
    turns = 0
    reloaded = False
    limit = 10_000 if whole else SAMPLE_TURNS
    while not view(ann)["match_over"] and turns < limit:
        if act_once(seats) == "play":
            turns += 1
        if turns == 4 and not reloaded:
            # Bob's page reloads mid-game: it reads the game and opens the live channel again
            before = sync_all(pages)
            bob.reload()
            settle(bob, before)
            assert view(bob)["seq"] == before and view(bob)["you"] == [1]
            reloaded = True
            shot(bob, shots, "03-bob-reloaded")
        if turns == 6:
            # the watcher's page: a click on the board selects nothing
            sync_all(pages)
            cat.click('#board [data-loc="24"]')
            assert cat.evaluate("window.nardy.selected") is None
    assert reloaded
    if not view(ann)["match_over"]:
        # the sample: whoever is to act resigns (the highest level), the other accepts
        sync_all(pages)
        side = view(ann)["to_act"]
        loser, winner = seats[side], seats[1 - side]
        loser.select_option("#resign-level", str(len(view(loser)["result_names"]) - 1))
        loser.click("#btn-resign")  # the page first says what resigning loses
        loser.wait_for_selector("#resign-dialog[open]")
        click_and_wait(loser, "#resign-ok")
        settle(winner, view(loser)["seq"])
        click_and_wait(winner, "#btn-accept")
    final = sync_all(pages)
    v = view(ann)
    assert v["match_over"] and v["match_winner"] in (0, 1)
    winner = v["players"][v["match_winner"]]
    for p in pages:
        # the winner's own page says "You win the match", the others name the winner
        mine = view(p)["you"] == [v["match_winner"]]
        assert (f"{winner} wins the match" if not mine else "You win the match") in p.inner_text("#status-main")
        assert view(p)["seq"] == final
    # the opponent's moves were shown checker by checker on the other pages
    assert ann.evaluate("window.nardy.animated") > 0 and bob.evaluate("window.nardy.animated") > 0
    assert cat.evaluate("window.nardy.animated") > 0
    shot(ann, shots, "04-ann-match-over")
    shot(cat, shots, "05-cat-watched")

    # fair dice: the panel shows the seeds, and the server seed now; Verify checks every roll in the page
    ann.click("#fair summary")
    ann.wait_for_function("document.querySelector('#fair-server-seed').textContent.length === 64")
    assert ann.inner_text("#fair-commitment") == v["online"]["commitment"]
    assert seed in ann.inner_text("#fair-seeds")
    before = bob.evaluate("window.nardy.verified || 0")
    bob.click("#fair summary")
    bob.wait_for_function("document.querySelector('#fair-server-seed').textContent.length === 64")
    bob.click("#btn-verify")
    bob.wait_for_function("(n) => (window.nardy.verified || 0) > n", arg=before)
    result = bob.inner_text("#fair-result")
    assert bob.get_attribute("#fair-result", "class") == "fair-ok", result
    assert "Verified" in result and "Your browser's seed is in the record" in result
    assert "The order checks: the commitment came first, each seed after it." in result
    shot(bob, shots, "06-bob-dice-verified")
    # the record downloads and nardy verify-dice checks it
    with ann.expect_download() as dl:
        ann.click("#fair-record")
    path = tmp_path / "record.json"
    dl.value.save_as(str(path))
    rec = json.loads(path.read_text(encoding="utf-8"))
    assert rec["fairness"]["client_seeds"][1] == seed and rec["fairness"]["server_seed"]
    # each browser sent its seed after the game showed it the commitment, and with it (docs/fairness.md)
    order = rec["fairness"]["order"]
    assert [(e["event"], e.get("seat"), e.get("by")) for e in order] == [
        ("commit", None, None),
        ("seed", 0, "player"),
        ("seed", 1, "player"),
    ]
    assert all(e["commitment"] == rec["fairness"]["commitment"] for e in order)
    assert bob.evaluate(f"localStorage.getItem('nardy.commitment.{gid}')") == rec["fairness"]["commitment"]
    out = verify_dice_file(path)
    assert out.returncode == 0, out.stdout + out.stderr

    # a rematch: Ann offers it (a new game, colours swapped), Bob sees the offer and accepts it
    ann.click("#btn-rematch")
    ann.wait_for_function("(g) => window.nardy.view && window.nardy.view.id !== g", arg=gid)
    rid = view(ann)["id"]
    assert view(ann)["status"] == "waiting" and view(ann)["you"] == [1]
    bob.wait_for_selector("#btn-rematch-accept:not([hidden])", timeout=PUSH_WAIT * 1000)
    assert view(bob)["online"]["rematch"] == rid and "Rematch offered" in bob.inner_text("#rematch-box")
    shot(bob, shots, "07-bob-rematch-offered")
    bob.click("#btn-rematch-accept")
    bob.wait_for_function("(g) => window.nardy.view && window.nardy.view.id === g", arg=rid)
    # the new game shows its commitment, each page sends its seed with it, and the match begins
    bob.wait_for_function("window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)
    settle(bob)
    assert view(bob)["you"] == [0] and view(bob)["status"] == "playing"
    ann.wait_for_function("window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)


def test_backgammon_online_double_and_take_then_resign(server, people, shots):
    ann, bob = people(2)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "backgammon", 2)
    join_by_link(bob, link, "Bob")
    seats = {0: ann, 1: bob}
    # play until Ann may double; Bob rolls when he may
    done = []
    for _ in range(60):
        done.append(act_once(seats, double_by=0))
        if done[-1] == "double":
            break
    assert done[-1] == "double", "Ann never had the chance to double"
    sync_all([ann, bob])
    vb = view(bob)
    assert vb["phase"] == "double" and "take" in vb["actions"] and "drop" in vb["actions"]
    assert "doubles to 2" in bob.inner_text("#status-main")
    shot(bob, shots, "08-bob-double-offered")
    click_and_wait(bob, "#btn-take")
    sync_all([ann, bob])
    v = view(ann)
    assert v["cube"]["value"] == 2 and v["cube"]["owner"] == 1
    kinds = [e["kind"] for e in v["history"]]
    assert "double" in kinds and "take" in kinds
    # Ann resigns a single game (2 points with the cube: the match); Bob accepts
    ann.select_option("#resign-level", "0")
    ann.click("#btn-resign")
    ann.wait_for_selector("#resign-dialog[open]")
    assert ann.inner_text("#resign-text") == "You lose 2 points (single game, cube 2)."
    click_and_wait(ann, "#resign-ok")
    settle(bob, view(ann)["seq"])
    assert "accept" in view(bob)["actions"]
    click_and_wait(bob, "#btn-accept")
    final = sync_all([ann, bob])
    for p in (ann, bob):
        v = view(p)
        assert v["seq"] == final and v["match_over"] and v["match_winner"] == 1 and v["score"] == [0, 2]
        assert ("You win the match 0-2" if p is bob else "Bob wins the match 0-2") in p.inner_text("#status-main")
    shot(ann, shots, "09-backgammon-resigned")


def test_a_blitz_clock_runs_out_and_both_pages_show_the_loss_on_time(server, people, shots):
    ann, bob = people(2)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "short", 1, clock="custom", custom={"initial": 2, "increment": 0, "delay": 0})
    join_by_link(bob, link, "Bob")
    settle(ann)
    v = view(ann)
    assert v["clock"]["initial"] == 2 and v["clock"]["running"] == v["to_act"]
    loser = v["to_act"]
    # the running clock ticks down on the page between the server's views
    row = f'#scoreboard .player-row[data-player="{loser}"] .pclock'
    ann.wait_for_function(f"parseFloat(document.querySelector('{row}').textContent) < 1.5")
    assert "running" in ann.get_attribute(row, "class")
    # nobody moves: the server ends the match on time and pushes it to both pages
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view.match_over", timeout=PUSH_WAIT * 1000)
        w = view(p)
        assert w["online"]["ended"] == {"reason": "time", "winner": 1 - loser, "loser": loser}
        text = p.inner_text("#status-main")
        # the loser's page says "You"; both show the score the match ended at
        who = "You" if loser in w["you"] else w["players"][loser]
        assert f"{who} lost on time at 0–0" in text and w["players"][1 - loser] in text, text
        assert p.inner_text(row) == "0.0" and w["actions"] == []
    shot(bob, shots, "10-lost-on-time")


def test_the_pages_verify_refuses_a_record_whose_order_is_wrong(server, people):
    """The page's Verify (online.js verifyRecord, SubtleCrypto) checks the order as nardy verify-dice does: a
    seed recorded before the commitment, or a player shown another commitment than the one revealed, fails;
    a record in order passes; a record without an order passes saying the order was not checked; and the
    commitment this browser kept when it sent its seed must be the record's."""
    from nardy.rules.fairdice import FairDice, commit_event, commitment, public_record, seed_event

    (page,) = people(1)
    page.goto(server.url + "/")
    page.wait_for_selector("body[data-ready] #home:not([hidden])")
    key, seeds = bytes(range(32)), ("a1b2c3", "d4e5f6")
    c = commitment(key)
    dice = FairDice(key, seeds)
    dice.roll_one()
    dice.roll_one()
    for _ in range(10):
        dice.roll()
    order = [
        commit_event(c, 1000.0),
        seed_event(0, seeds[0], "player", 1001.0, c),
        seed_event(1, seeds[1], "player", 1002.0, c),
    ]
    good = public_record(dice, True, order)
    other = commitment(bytes(32))

    def check(rec, seed=None, side=None, shown=None) -> dict:
        return page.evaluate("([r, s, d, c]) => verifyRecord(r, s, d, c)", [rec, seed, side, shown])

    r = check(good, seeds[1], 1, c)
    assert r["ok"] is True and "The order checks" in r["text"] and "Your browser's seed is in the record" in r["text"]
    early = dict(good, order=[order[2], order[0], order[1]])  # Black's seed before the commitment
    r = check(early)
    assert r["ok"] is False and r["text"] == (
        "Check failed: wrong order: event 0 should be the commitment, published once and before any seed."
    )
    shown_other = dict(good, order=[order[0], order[1], {**order[2], "commitment": other}])
    r = check(shown_other)
    assert r["ok"] is False and f"Black gave their seed after being shown the commitment {other}" in r["text"]
    late = dict(good, order=[order[0], order[1], {**order[2], "t": 999.0}])
    assert check(late)["ok"] is False
    # this browser was shown another commitment than the record's when it sent its seed
    r = check(good, seeds[1], 1, other)
    assert r["ok"] is False and f"your browser was shown the commitment {other}" in r["text"]
    # the record says the server made this browser's seed, though it sent one
    made = dict(good, order=[order[0], order[1], seed_event(1, seeds[1], "server", 1002.0)])
    assert check(made, seeds[1], 1, c)["ok"] is False and check(made)["ok"] is True
    # before the reveal a wrong order fails all the same
    assert check(dict(early, server_seed=None))["ok"] is False
    # a record from before the order was kept: the rolls check, the page says the order was not checked
    old = {k: x for k, x in good.items() if k != "order"}
    r = check(old)
    assert r["ok"] is True and "does not show the order of the commitment and the seeds" in r["text"]


def test_the_dice_self_test_page_counts_fair_rolls(server, people, shots):
    (page,) = people(1, locale="ru-RU")
    page.goto(server.url + "/dice")
    page.wait_for_function("window.diceTest && window.diceTest.runs >= 1")
    r = page.evaluate("window.diceTest.last")
    assert r["n"] == 36000 and sum(map(sum, r["pairs"])) == 36000 and sum(r["faces"]) == 72000
    assert len(page.query_selector_all("#pairs td")) == 36 and len(r["rolls21"]) == 21
    assert "χ² =" in page.inner_text("#chi-pairs") and "степеней свободы: 35" in page.inner_text("#chi-pairs")
    assert page.inner_text("h2") == "Самопроверка костей"
    # another run, of 100,000 rolls (the most one request may ask for)
    page.fill("#dice-n", "100000")
    page.click("#dice-run")
    page.wait_for_function("window.diceTest.runs >= 2")
    assert page.evaluate("window.diceTest.last.n") == 100000
    # the rolls of the online games finished on this server (by the tests above)
    page.select_option("#dice-source", "played")
    page.wait_for_function("window.diceTest.runs >= 3")
    played = page.evaluate("window.diceTest.last")
    assert played["games"] >= 2 and played["n"] > 0 and "партий:" in page.inner_text("#dice-played-info")
    shot(page, shots, "11-dice-self-test")


def test_the_pages_reconnect_by_themselves_after_the_server_restarts(server, people, shots):
    ann, bob = people(2)
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "short", 1)
    join_by_link(bob, link, "Bob")
    seats = {0: ann, 1: bob}
    act_once(seats)
    sync_all([ann, bob])
    server.restart()
    # the channel dropped: each page says so, and connects again by itself (waiting 1 s, 2 s, 4 s...)
    for p in (ann, bob):
        p.wait_for_function(
            "window.nardy.drops >= 1 && document.querySelector('#live-state').textContent.includes('live')",
            timeout=60_000,
        )
    shot(ann, shots, "12-reconnected")
    # what one player does now reaches the other page over the new channel
    act_once(seats)
    sync_all([ann, bob])
    assert view(ann)["history"] == view(bob)["history"]

"""Named challenges and turn alerts in real browsers (Playwright, Debian's chromium, against ``nardy serve``;
issue 43, docs/online.md "Friends and challenges", "Turn alerts"): Ann challenges Bob by name from the lobby's
online list while Bob is on the home screen; Bob's page shows a toast with Accept and Decline, and its tab's
title and icon change, and (notifications granted and opted in, the setting kept with his account) the
browser's Notification is called; he accepts, both pages open the game; when Ann's move makes it Bob's turn,
his title and icon change again and a notification comes, and hers go back. Skipped like
tests/web/test_browser.py."""

from __future__ import annotations

import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_lobby import open_lobby, register
from .test_browser_online import PUSH_WAIT, act_once, settle, view

pytestmark = tb.pytestmark
browser = tb.browser

#: Counts the page's calls of the Notification API (the real one still runs: permission is granted).
NOTE_SPY = """
(() => {
  const N = window.Notification;
  if (!N) return;
  window.__notes = [];
  const Spy = function (title, opts) { window.__notes.push((opts && opts.body) || ""); return new N(title, opts); };
  Object.defineProperty(Spy, "permission", { get: () => N.permission });
  Spy.requestPermission = (...a) => N.requestPermission(...a);
  window.Notification = Spy;
})();
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "social-web", "social.db")


@pytest.fixture
def people(browser, server):
    made = []

    def make(n: int, locale: str = "en-GB"):
        out = []
        for _ in range(n):
            ctx = browser.new_context(viewport={"width": 1100, "height": 900}, locale=locale)
            ctx.grant_permissions(["notifications"], origin=server.url)
            ctx.add_init_script(NOTE_SPY)
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


def alert_state(page) -> dict:
    return page.evaluate(
        "() => ({title: document.title, icon: document.querySelector(\"link[rel~='icon']\").href,"
        " notes: window.__notes.slice(), raised: [...window.nardyAlerts.raised.keys()]})"
    )


def test_a_named_challenge_reaches_its_player_elsewhere_and_turns_alert_the_tab(server, people):
    stamp = int(time.time() * 1000) % 100000
    ann_name, bob_name = f"Ana{stamp}", f"Bo{stamp}"
    ann, bob = people(2)
    register(ann, server, ann_name)
    register(bob, server, bob_name)
    # Bob opts in to notifications: kept with his account, read again by a fresh page
    r = bob.evaluate("() => api('PUT', '/api/me/settings', {alerts: {title: true, notifications: true, sound: true}})")
    assert r["alerts"]["notifications"] is True
    bob.reload()
    bob.wait_for_selector("body[data-ready] #home:not([hidden])")
    bob.wait_for_function("window.nardyAlerts.settings.notifications === true && window.nardy.me")
    plain = alert_state(bob)
    assert plain["title"] == "nardy" and not plain["icon"].startswith("data:image/svg") and plain["notes"] == []

    # Ann, in the lobby, sees Bob online (his page keeps the lobby's channel on the home screen) and
    # challenges him by name: long nardy, 1 point, blitz, unrated
    open_lobby(ann)
    button = f'#lobby-online li:has-text("{bob_name}") button.challenge'
    ann.wait_for_selector(button, timeout=PUSH_WAIT * 1000)
    ann.click(button)
    ann.wait_for_selector("#challenge-dialog[open]")
    assert bob_name in ann.inner_text("#ch-title")
    ann.select_option("#ch-game", "long")
    ann.fill("#ch-length", "1")
    ann.select_option("#ch-clock", "blitz")
    ann.set_checked("#ch-rated", False)
    ann.click("#ch-send")
    ann.wait_for_function("!document.getElementById('challenge-dialog').open")
    # not in the lobby's open list (Ann's own page included): only the named part of Bob's channel has it
    assert ann.query_selector("#lobby-challenges li[data-challenge]") is None

    toast = "#toasts .toast[data-challenge]"
    bob.wait_for_selector(toast, timeout=PUSH_WAIT * 1000)
    text = bob.inner_text(toast)
    assert f"{ann_name} challenges you" in text and "Long nardy" in text and "Decline" in text, text
    st = alert_state(bob)
    assert st["title"].startswith("(1) ") and ann_name in st["title"], st
    assert st["icon"].startswith("data:image/svg+xml"), st
    assert len(st["notes"]) == 1 and ann_name in st["notes"][0], st
    assert bob.is_visible("#home")  # still where he was

    # he accepts: both pages open the game; the challenge's alert goes
    bob.click(f"{toast} button.toast-accept")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)
        settle(p)
    assert view(ann)["id"] == view(bob)["id"]
    # (a turn's alert may stand: the game began at his turn)
    assert [k for k in alert_state(bob)["raised"] if k.startswith("challenge")] == []

    # play until Ann's action hands Bob the turn: his tab alerts (title, icon, a notification), hers is plain
    seats = {view(ann)["you"][0]: ann, view(bob)["you"][0]: bob}
    bob_seat = view(bob)["you"][0]
    notes_before = len(alert_state(bob)["notes"])
    handed = False
    for _ in range(12):
        before = view(ann)
        acted_by_ann = before["to_act"] != bob_seat
        act_once(seats)
        if acted_by_ann:
            settle(bob, view(ann)["seq"])
            if view(bob)["to_act"] == bob_seat:
                handed = True
                break
    assert handed, "Ann never handed Bob the turn in 12 actions"
    bob.wait_for_function("document.title.startsWith('(1) Your turn')", timeout=PUSH_WAIT * 1000)
    st = alert_state(bob)
    assert st["raised"] == ["turn"] and st["icon"].startswith("data:image/svg+xml"), st
    assert len(st["notes"]) == notes_before + 1 and st["notes"][-1] == "Your turn", st
    assert bob.evaluate("window.nardyAlerts.sounds") >= 0  # the chime is WebAudio (no sound device here)
    assert alert_state(ann)["title"] == "nardy" and alert_state(ann)["raised"] == []
    # Bob rolls: the same turn goes on, no second alert
    act_once(seats)
    settle(ann, view(bob)["seq"])
    assert len(alert_state(bob)["notes"]) == notes_before + 1


def test_a_player_reading_russian_declines_a_challenge_and_its_owner_is_told(server, people):
    """The toast in Russian; Decline closes it (and its alert), and the challenger's page says so."""
    stamp = int(time.time() * 1000) % 100000
    ann_name, ivan_name = f"Ann{stamp}", f"Ivan{stamp}"
    [ann] = people(1)
    [ivan] = people(1, locale="ru-RU")
    register(ann, server, ann_name)
    register(ivan, server, ivan_name)
    ann.evaluate("(n) => nardyChallenge(n)", ivan_name)
    ann.wait_for_selector("#challenge-dialog[open]")
    ann.set_checked("#ch-rated", False)
    ann.click("#ch-send")
    toast = "#toasts .toast[data-challenge]"
    ivan.wait_for_selector(toast, timeout=PUSH_WAIT * 1000)
    text = ivan.inner_text(toast)
    assert f"{ann_name} вызывает вас" in text and "Отклонить" in text and "Принять" in text, text
    assert ivan.evaluate("document.title").startswith("(1) ")
    ivan.click(f"{toast} button.toast-decline")
    ivan.wait_for_function("!document.querySelector('#toasts .toast[data-challenge]')")
    assert ivan.evaluate("document.title") == "nardy"
    ann.wait_for_selector(
        f'#toasts .toast.note:has-text("{ivan_name} declined your challenge")', timeout=PUSH_WAIT * 1000
    )

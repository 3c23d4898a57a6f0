"""Issue 43's measure, end to end in real browsers (Playwright, Debian's chromium, against ``nardy serve``): two
players find each other by name (Ann challenges Bob by name from the lobby's list of who is online; Bob,
elsewhere on the site, accepts from the toast), chat in the game, Bob leaves (his tab closes) and Ann's page
shows him away within 2 s, then, the grace period over, offers the claim, which ends the casual match won by
Ann. The server's grace is shortened to :data:`GRACE` seconds (120 in play). Skipped like
tests/web/test_browser.py."""

from __future__ import annotations

import time

import pytest

from . import test_browser as tb
from .helpers import serve_with_grace
from .test_browser_chat import pair  # noqa: F401  (a fixture)
from .test_browser_lobby import open_lobby, register
from .test_browser_online import PUSH_WAIT, act_once, settle, view
from .test_browser_presence import wait_seat

pytestmark = tb.pytestmark
browser = tb.browser

#: The claims' grace period of this test's server (seconds).
GRACE = 12.0
#: The most seconds a page may take to show that the opponent left (the issue's target).
AWAY_WITHIN = 2.0


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_with_grace(tmp_path_factory, "loop-web", GRACE)


def _shows(page, text: str) -> None:
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('.chat-panel .chat-text')].some(e => e.textContent === t)",
        arg=text,
        timeout=PUSH_WAIT * 1000,
    )


def test_two_players_find_each_other_by_name_chat_and_one_claims_when_the_other_leaves(server, pair):  # noqa: F811
    ann, bob = pair
    stamp = int(time.time() * 1000) % 100000
    ann_name, bob_name = f"Ann{stamp}", f"Bob{stamp}"
    register(ann, server, ann_name)
    register(bob, server, bob_name)

    # found by name: Ann sees Bob in the lobby's online list and challenges him (casual, a slow clock)
    open_lobby(ann)
    button = f'#lobby-online li:has-text("{bob_name}") button.challenge'
    ann.wait_for_selector(button, timeout=PUSH_WAIT * 1000)
    ann.click(button)
    ann.wait_for_selector("#challenge-dialog[open]")
    ann.select_option("#ch-game", "long")
    ann.fill("#ch-length", "1")
    ann.select_option("#ch-clock", "rapid")
    ann.set_checked("#ch-rated", False)
    ann.click("#ch-send")
    toast = "#toasts .toast[data-challenge]"
    bob.wait_for_selector(toast, timeout=PUSH_WAIT * 1000)
    assert f"{ann_name} challenges you" in bob.inner_text(toast)
    bob.click(f"{toast} button.toast-accept")
    for p in (ann, bob):
        p.wait_for_function("window.nardy.view && window.nardy.view.status === 'playing'", timeout=PUSH_WAIT * 1000)
        settle(p)
    v = view(ann)
    assert v["id"] == view(bob)["id"] and not v["online"]["rated"]

    # they chat
    for p in (ann, bob):
        p.wait_for_selector(".chat-panel .chat-preset")
    ann.click(".chat-panel .chat-preset >> text=Good luck")
    _shows(bob, "Good luck")
    bob.fill(".chat-panel .chat-input", "Thanks, you too")
    bob.click(".chat-panel .chat-send")
    _shows(ann, "Thanks, you too")

    # Ann must be the one waiting for Bob to act: whoever is to act acts until it is Bob
    a = view(ann)["you"][0]
    b = 1 - a
    seats = {a: ann, b: bob}
    for _ in range(8):
        settle(ann)
        if view(ann)["to_act"] == b:
            break
        act_once(seats)
    assert view(ann)["to_act"] == b, view(ann)

    # Bob leaves: Ann's page shows him away within 2 s
    wait_seat(ann, b, "on")
    t0 = time.monotonic()
    bob.close()
    wait_seat(ann, b, "away")
    took = time.monotonic() - t0
    print(f"\nthe opponent's leaving shown after {took * 1000:.0f} ms")
    assert took < AWAY_WITHIN, took

    # the grace period over, the claim is offered and ends the match: Ann wins, unrated
    ann.wait_for_selector("#btn-claim:not([hidden])", timeout=(GRACE + 20) * 1000)
    ann.click("#btn-claim")
    ann.wait_for_function("window.nardy.view.match_over", timeout=20_000)
    end = view(ann)
    assert end["online"]["ended"]["reason"] == "abandoned" and end["match_winner"] == a

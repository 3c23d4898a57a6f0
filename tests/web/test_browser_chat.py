"""Chat in real browsers (issue 43): two players of an online game chat live (one sends a preset phrase with a
button, the other types), each sees the other's message pushed without reloading, and a folded panel shows the
unread mark. Skipped when chromium or the playwright package is missing, like tests/web/test_browser.py."""

from __future__ import annotations

import time

import pytest

from . import test_browser as tb
from .helpers import serve_sqlite
from .test_browser_online import PUSH_WAIT, join_by_link, new_online_game, settle, sign_in_as_guest

pytestmark = tb.pytestmark
browser = tb.browser


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "chat-web", "chat.db")


@pytest.fixture
def pair(browser):
    made = []
    for _ in range(2):
        ctx = browser.new_context(viewport={"width": 1100, "height": 820}, locale="en-GB")
        pg = ctx.new_page()
        pg.errors = []
        pg.on("pageerror", lambda e, pg=pg: pg.errors.append(str(e)))
        made.append((ctx, pg))
    yield [pg for _, pg in made]
    errors = [e for _, pg in made for e in pg.errors]
    for ctx, _ in made:
        ctx.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


def messages(page) -> list[str]:
    return page.eval_on_selector_all(".chat-panel .chat-message .chat-text", "els => els.map(e => e.textContent)")


def test_two_players_chat_live_with_a_preset_and_typed_text(server, pair):
    ann, bob = pair
    sign_in_as_guest(ann, server, "Ann")
    link = new_online_game(ann, "long", 1)
    join_by_link(bob, link, "Bob")
    settle(ann)
    for p in (ann, bob):
        p.wait_for_selector(".chat-panel .chat-preset")
    # Ann taps the preset "Good luck"; Bob's page shows it live
    ann.click(".chat-panel .chat-preset >> text=Good luck")
    bob.wait_for_function(
        "() => [...document.querySelectorAll('.chat-panel .chat-text')].some(e => e.textContent === 'Good luck')",
        timeout=PUSH_WAIT * 1000,
    )
    # Bob folds his panel, Ann types: Bob's fold shows one unread message, then the text when unfolded
    bob.click(".chat-panel .chat-toggle")
    ann.fill(".chat-panel .chat-input", "Удачи тебе")
    ann.press(".chat-panel .chat-input", "Enter")
    bob.wait_for_selector(".chat-panel .chat-unread:not([hidden])", timeout=PUSH_WAIT * 1000)
    assert bob.inner_text(".chat-panel .chat-unread") == "1 new"
    bob.click(".chat-panel .chat-toggle")
    assert bob.is_hidden(".chat-panel .chat-unread")
    assert messages(bob) == ["Good luck", "Удачи тебе"]
    # Bob answers; Ann's page shows it live, after her own two
    bob.fill(".chat-panel .chat-input", "Well played")
    bob.click(".chat-panel .chat-send")
    ann.wait_for_function(
        "() => document.querySelectorAll('.chat-panel .chat-message').length === 3", timeout=PUSH_WAIT * 1000
    )
    assert messages(ann) == ["Good luck", "Удачи тебе", "Well played"]
    # the messages are stored: a reload reads them back
    bob.reload()
    bob.wait_for_function(
        "() => document.querySelectorAll('.chat-panel .chat-message').length === 3", timeout=PUSH_WAIT * 1000
    )
    assert messages(bob) == ["Good luck", "Удачи тебе", "Well played"]
    # the match ends (Ann resigns, Bob accepts); the record's review shows the game's chat
    gid = ann.evaluate("window.nardy.id")
    ann.evaluate(
        """async (gid) => { const v = await api("GET", `/api/games/${gid}`);
        await api("POST", `/api/games/${gid}/actions`, {action: "resign", level: 0, seq: v.seq}); }""",
        gid,
    )
    bob.evaluate(
        """async (gid) => { const v = await api("GET", `/api/games/${gid}`);
        await api("POST", `/api/games/${gid}/actions`, {action: "accept", seq: v.seq}); }""",
        gid,
    )
    ann.goto(server.url + f"/#/review/{gid}")
    ann.wait_for_selector("#rv-chat:not([hidden]) .chat-message", timeout=PUSH_WAIT * 1000)
    texts = ann.eval_on_selector_all("#rv-chat .chat-text", "els => els.map(e => e.textContent)")
    assert texts == ["Good luck", "Удачи тебе", "Well played"]


#: The lobby's chat panel shows a message of this text.
SHOWS = "(x) => [...document.querySelectorAll('#lobby .chat-panel .chat-text')].some(e => e.textContent === x)"


def test_the_lobby_chat_is_live_and_a_muted_players_messages_go(server, pair):
    from .test_browser_lobby import open_lobby, register

    ann, bob = pair
    stamp = str(int(time.time() * 1000) % 100000)
    register(ann, server, f"Ann{stamp}")
    register(bob, server, f"Bob{stamp}")
    for p in (ann, bob):
        open_lobby(p)
        p.wait_for_selector("#lobby .chat-panel .chat-preset")
    ann.click("#lobby .chat-panel .chat-preset >> text=Well played")
    bob.wait_for_function(SHOWS, arg="Well played", timeout=PUSH_WAIT * 1000)
    # Bob mutes Ann from her message: it goes from his panel, and her next one never comes
    bob.click("#lobby .chat-panel .chat-message .chat-mute")
    bob.wait_for_function("() => !document.querySelector('#lobby .chat-panel .chat-message')")
    ann.fill("#lobby .chat-panel .chat-input", "still here")
    ann.press("#lobby .chat-panel .chat-input", "Enter")
    ann.wait_for_function(SHOWS, arg="still here")
    bob.wait_for_timeout(1500)
    assert bob.query_selector("#lobby .chat-panel .chat-message") is None

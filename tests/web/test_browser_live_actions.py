"""The page sends an online game's actions on its open live channel (``WS /api/games/{id}/live``, docs/online.md),
and by ``POST /api/games/{id}/actions`` when the channel is not open or does not answer.

Two pages (Ann, Bob) play a short nardy match set up by invitation, as in tests/web/test_browser_online.py; each
page's requests and the frames it sends on its WebSockets are recorded. Skipped when chromium or the playwright
package is missing, like tests/web/test_browser.py.
"""

from __future__ import annotations

import pytest

from . import test_browser as tb
from . import test_browser_online as tbo
from .helpers import serve_sqlite

pytestmark = tb.pytestmark
browser = tb.browser
people = tbo.people
view, settle, sync_all, act_once = tbo.view, tbo.settle, tbo.sync_all, tbo.act_once
click_and_wait = tbo.click_and_wait

#: The page's live channel is open for the shown game.
LIVE_OPEN = "ONLINE.ws && ONLINE.ws.readyState === WebSocket.OPEN && ONLINE.key && ONLINE.key.startsWith(S.id + '?')"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "live-actions-web", "live-actions.db")


class Log:
    """What a page sent: its HTTP requests (method, path), the answers to them (status, path) and the text
    frames it sent on its WebSockets."""

    def __init__(self, page):
        self.requests: list[tuple[str, str]] = []
        self.responses: list[tuple[int, str, str]] = []
        self.frames: list[str] = []
        page.on("request", lambda r: self.requests.append((r.method, r.url)))
        page.on("response", lambda r: self.responses.append((r.status, r.request.method, r.url)))
        page.on("websocket", lambda ws: ws.on("framesent", lambda data: self.frames.append(str(data))))

    def action_posts(self, gid: str) -> list[str]:
        return [url for method, url in self.requests if method == "POST" and f"/api/games/{gid}/actions" in url]

    def action_frames(self) -> list[str]:
        return [f for f in self.frames if '"type":"action"' in f]


def start_match(server, people):
    """Ann invites, Bob joins; both pages have their live channel open. Returns the game's id, the seats
    and the two pages' logs (recording from before the game is made)."""
    ann, bob = people(2)
    logs = {ann: Log(ann), bob: Log(bob)}
    tbo.sign_in_as_guest(ann, server, "Ann")
    link = tbo.new_online_game(ann, "short", 1)
    tbo.join_by_link(bob, link, "Bob")
    gid = view(ann)["id"]
    sync_all([ann, bob])
    for p in (ann, bob):
        p.wait_for_function(LIVE_OPEN, timeout=tbo.PUSH_WAIT * 1000)
    return gid, {0: ann, 1: bob}, logs


def one_action(page):
    """The page's player does one thing: a roll, or one step of their play, or the confirmation."""
    v = view(page)
    if "roll" in v["actions"]:
        click_and_wait(page, "#btn-roll")
    elif v["phase"] == "move" and v["can_confirm"]:
        click_and_wait(page, "#btn-confirm")
    else:
        frm, to = tb.pick_step(v["moves"])
        page.click(f'#board [data-loc="{frm}"]')
        click_and_wait(page, f'#board [data-loc="{to}"]')


def test_an_online_games_moves_go_on_the_live_channel_not_by_post(server, people):
    gid, seats, logs = start_match(server, people)
    ann, bob = seats[0], seats[1]
    plays = 0
    for _ in range(40):
        if act_once(seats) == "play":
            plays += 1
        if plays == 4:
            break
    assert plays == 4
    final = sync_all([ann, bob])
    va, vb = view(ann), view(bob)
    # both boards show the moves: the same state, history and position (the board seen from each side)
    assert va["seq"] == vb["seq"] == final and va["history"] == vb["history"]
    assert sum(e["kind"] == "play" for e in va["history"]) >= 4
    assert va["pips"] == vb["pips"][::-1]
    for p in (ann, bob):
        # every action went on the channel, none by POST (the game was made and joined by POST)
        assert logs[p].action_posts(gid) == [], logs[p].action_posts(gid)
        assert p.query_selector("#message.error") is None
    sent = logs[ann].action_frames() + logs[bob].action_frames()
    assert len(sent) >= 4 + 4  # a roll or the opening's dice, then at least a step and a confirmation a play
    assert all('"seq":' in f and '"id":' in f for f in sent)


def test_an_action_goes_by_post_while_the_channel_is_not_open(server, people):
    gid, seats, logs = start_match(server, people)
    mover = seats[view(seats[0])["to_act"]]
    # the channel closes and does not reconnect by itself (closeLive forgets the game's channel)
    mover.evaluate("closeLive()")
    assert mover.evaluate("ONLINE.ws") is None
    before = view(mover)["seq"]
    one_action(mover)
    assert len(logs[mover].action_posts(gid)) == 1
    assert view(mover)["seq"] == before + 1
    sync_all(list(seats.values()))
    assert view(seats[0])["history"] == view(seats[1])["history"]
    # the new view opened the channel again: the next action goes on it
    mover.wait_for_function(LIVE_OPEN, timeout=tbo.PUSH_WAIT * 1000)
    sent = sum(len(log.action_frames()) for log in logs.values())
    one_action(seats[view(mover)["to_act"]])
    sync_all(list(seats.values()))
    assert sum(len(log.action_frames()) for log in logs.values()) == sent + 1
    assert sum(len(log.action_posts(gid)) for log in logs.values()) == 1


def test_an_action_whose_answer_is_lost_is_sent_once_by_post_and_refused_as_stale(server, people):
    gid, seats, logs = start_match(server, people)
    mover = seats[view(seats[0])["to_act"]]
    other = seats[1 - view(seats[0])["to_act"]]
    # the channel takes the action, but its answer never reaches the page: after the wait, the page sends it
    # again by POST with the same seq, which the server refuses (it was applied) and the page shows the game
    mover.evaluate(
        """() => {
        ONLINE.actionWait = 500;
        const ws = ONLINE.ws, on = ws.onmessage;
        ws.onmessage = (ev) => { if (!String(ev.data).includes('"type":"answer"')) on(ev); };
    }"""
    )
    before = view(mover)["seq"]
    one_action(mover)
    assert len(logs[mover].action_frames()) == 1
    posts = [(s, url) for s, m, url in logs[mover].responses if m == "POST" and f"/api/games/{gid}/actions" in url]
    assert [s for s, _ in posts] == [409], posts
    # applied once: one state further, on both pages, and no error shown
    settle(mover, before + 1)
    assert view(mover)["seq"] == before + 1
    settle(other, before + 1)
    assert view(other)["seq"] == before + 1 and view(other)["history"] == view(mover)["history"]
    assert mover.query_selector("#message.error") is None
    assert not mover.evaluate("S.busy") and mover.evaluate("ONLINE.pending.size") == 0


def test_a_refusal_on_the_channel_reads_as_the_posts_in_the_pages_language(server, people):
    gid, seats, logs = start_match(server, people)
    idle = seats[1 - view(seats[0])["to_act"]]
    # the page in Russian: the channel opens again, its refusals worded in Russian
    idle.select_option("#lang", "ru")
    idle.wait_for_function(LIVE_OPEN + " && ONLINE.key.includes('lang=ru')", timeout=tbo.PUSH_WAIT * 1000)
    body = "{action: 'roll', seq: S.view.seq}"
    on_channel = idle.evaluate(
        f"liveAction({body}, () => Promise.reject(new Error('posted')))"
        ".then(() => null, (e) => [e.status, e.code, e.message])"
    )
    by_post = idle.evaluate(
        f"api('POST', `/api/games/${{S.id}}/actions?${{gameQuery()}}`, {body})"
        ".then(() => null, (e) => [e.status, e.code, e.message])"
    )
    assert on_channel == by_post and on_channel[:2] == [403, "not_your_turn"], (on_channel, by_post)
    assert any("а" <= c <= "я" for c in on_channel[2].lower()), on_channel
    # a click of the page's own (out of turn) shows it through the same error path
    idle.evaluate("act('roll')")
    idle.wait_for_selector("#message.error")
    assert idle.inner_text("#message.error") == on_channel[2]
    assert not idle.evaluate("S.busy") and len(logs[idle].action_posts(gid)) == 1

"""What one chat message costs the server on PostgreSQL (issue 43; docs/online.md "Chat"): the rate limit is counted
in the process, the message is numbered, capped, stored and announced to the other processes in one statement of
one transaction, and its fan-out to the live connections asks the database who hides the sender only once for a
game's readers (then from the process's :class:`nardy.web.services.chat.HiddenCache`, emptied by a mute or block).
bench/online_load.py ``--chat-fraction`` measures the whole under load."""

from __future__ import annotations

import collections
import os

import pytest
from sqlalchemy import event

from nardy.web.app import create_app
from nardy.web.store.chat import RATE_COUNT, RATE_WINDOW, RateBook
from nardy.web.store.storage import Storage

from .helpers import pg_schema, stop_background_rounds
from .players import PlayerClient

PG_URL = os.environ.get("NARDY_TEST_POSTGRES_URL")


def _recv_chat(ws) -> dict:
    """The next chat message on a game's live channel (views and presence skipped)."""
    for _ in range(20):
        m = ws.receive_json()
        if m.get("type") == "chat":
            return m["message"]
    raise AssertionError("no chat message")


@pytest.fixture
def pg_pair():
    if not PG_URL:
        pytest.skip("NARDY_TEST_POSTGRES_URL is not set")
    url, drop = pg_schema("nardy_chat_cost")
    store = Storage(url)
    app = create_app(storage=store)
    a, b = PlayerClient(app, base_url="http://testserver"), PlayerClient(app, base_url="http://testserver")
    try:
        for c, name in ((a, "Ann"), (b, "Bob")):
            c.__enter__()
            c.guest(name)
        yield app, a, b
    finally:
        for c in (a, b):
            c.__exit__(None, None, None)
        store.close()
        drop()


def test_a_chat_message_costs_two_statements_and_one_commit_on_postgresql(pg_pair):
    app, a, b = pg_pair
    stop_background_rounds(a)  # the background rounds query too: only the messages count
    engine = app.state.storage.engine
    seen: collections.Counter = collections.Counter()
    sql: list[str] = []
    event.listen(engine, "before_cursor_execute", lambda *args: (seen.update(["statements"]), sql.append(args[2])))
    app.state.storage.on_raw = lambda s: (seen.update(["statements"]), sql.append(s))
    event.listen(engine, "commit", lambda conn: seen.update(["commits"]))
    g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 3}).json()
    gid = g["id"]
    assert b.post(f"/api/games/{gid}/join", json={"invite": g["invite"]}).status_code == 200
    costs, notified, statements = [], [], []
    with b.websocket_connect(f"/api/games/{gid}/live") as bws:
        for i in range(RATE_COUNT):
            seen.clear()
            sql.clear()
            r = a.post(f"/api/games/{gid}/chat", json={"text": f"gl {i}", "key": f"k{i}"})
            assert r.status_code == 201, r.text
            assert _recv_chat(bws) == r.json()  # the opponent's socket got it, as answered
            costs.append(dict(seen))
            statements.append(list(sql))
            notified.append(sum("pg_notify" in s and "nardy_chat_messages" in s for s in sql))
        # the sixth within the window: refused by the process's count, without a query
        seen.clear()
        r = a.post(f"/api/games/{gid}/chat", json={"text": "one more"})
        assert (r.status_code, r.json()["code"]) == (429, "chat_rate")
        refused = dict(seen)
    # the game's revision read (who may write which channel), then one statement: numbered, capped, inserted and
    # announced (pg_notify, sent at the commit); the first message's fan-out asks who of the readers hides Ann (its
    # cost also holds the opening of Bob's socket: his presence stored and announced), the next ones do not
    assert [sum("nardy_chat_mutes" in s for s in sql) for sql in statements] == [1] + [0] * (RATE_COUNT - 1)
    assert [sum("INSERT INTO nardy_chat_messages" in s for s in sql) for sql in statements] == [1] * RATE_COUNT
    for cost in costs[1:]:
        assert cost.get("statements") == 2 and cost.get("commits") == 1, costs
    assert notified == [1] * RATE_COUNT
    assert refused.get("statements", 0) <= 1 and refused.get("commits", 0) == 0, refused
    listed = b.get(f"/api/games/{gid}/chat").json()["messages"]
    assert [(m["seq"], m["text"]) for m in listed] == [(i + 1, f"gl {i}") for i in range(RATE_COUNT)]


def test_a_mute_empties_the_process_memory_of_who_hides_whom_at_once(pg_pair):
    app, a, b = pg_pair
    g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    gid = g["id"]
    assert b.post(f"/api/games/{gid}/join", json={"invite": g["invite"]}).status_code == 200
    with b.websocket_connect(f"/api/games/{gid}/live") as bws:
        a.post(f"/api/games/{gid}/chat", json={"text": "heard 1"})
        assert _recv_chat(bws)["text"] == "heard 1"
        assert b.post("/api/mutes", json={"uid": a.get("/api/me").json()["user"]["id"]}).status_code == 200
        a.post(f"/api/games/{gid}/chat", json={"text": "muted"})
        assert b.delete(f"/api/mutes/{a.get('/api/me').json()['user']['id']}").status_code == 204
        a.post(f"/api/games/{gid}/chat", json={"text": "heard 2"})
        assert _recv_chat(bws)["text"] == "heard 2"  # "muted" never came


def test_the_rate_limit_counts_five_a_window_per_sender_room_and_channel_and_gives_back_unstored_ones():
    rate, w = RateBook(), RATE_WINDOW.total_seconds()
    key = ("ann", "g1", "players")
    assert [rate.take(key, 100.0 + i) for i in range(RATE_COUNT)] == [0] * RATE_COUNT
    assert rate.take(key, 100.0 + RATE_COUNT) == 5  # the first of the five leaves the window at 100 + 10
    assert rate.take(("ann", "g1", "watchers"), 105.0) == 0 and rate.take(("bob", "g1", "players"), 105.0) == 0
    rate.give_back(key, 104.0)  # the fifth was not stored (a resent key, the cap): not counted
    assert rate.take(key, 105.5) == 0
    assert rate.take(key, 100.0 + w + 0.5) == 0  # the first left the window

"""Chat across server processes on one PostgreSQL (issue 43): a message posted to one process is stored once and
reaches the live connections of the other process at once, and both processes read the same chat.

Real ``nardy serve`` subprocesses on loopback ports; PostgreSQL from ``NARDY_TEST_POSTGRES_URL`` (a schema of its
own), skipped when it is not set."""

from __future__ import annotations

import json
import os
import queue
import threading
import time

import pytest

from .helpers import HttpPlayer, Server, pg_schema

PG_URL = os.environ.get("NARDY_TEST_POSTGRES_URL")
PROMPT = 3.0

pytestmark = pytest.mark.skipif(not PG_URL, reason="NARDY_TEST_POSTGRES_URL is not set")


class Socket:
    """A player's live WebSocket on a game: the chat messages it gets."""

    def __init__(self, server_url: str, player: HttpPlayer, gid: str):
        from websockets.sync.client import connect

        cookies = "; ".join(f"{c.name}={c.value}" for c in player.jar)
        url = server_url.replace("http://", "ws://") + f"/api/games/{gid}/live"
        self.ws = connect(url, additional_headers={"Cookie": cookies}, open_timeout=30)
        self.chat: queue.Queue = queue.Queue()
        self.views = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for msg in self.ws:
                m = json.loads(msg)
                if m.get("type") == "chat":
                    self.chat.put(m["message"])
                elif m.get("type") == "view":
                    self.views.set()
        except Exception:
            pass

    def next_chat(self, timeout: float = PROMPT) -> dict:
        return self.chat.get(timeout=timeout)

    def close(self):
        self.ws.close()
        self.thread.join(5)


@pytest.fixture(scope="module")
def two_servers():
    url, drop = pg_schema("nardy_chat_mp")
    servers = [Server(url, extra=("--no-warm-up",)) for _ in range(2)]
    try:
        servers[0].start()
        servers[1].start()
        yield servers
    finally:
        for s in servers:
            s.stop()
        drop()


def test_a_message_posted_on_one_process_reaches_the_other_players_socket_on_the_other(two_servers):
    s1, s2 = two_servers
    a, b, w = HttpPlayer(s1.url), HttpPlayer(s1.url), HttpPlayer(s1.url)
    a.post("/api/auth/guest", {"name": "Ann"})
    b.post("/api/auth/guest", {"name": "Bob"})
    w.post("/api/auth/guest", {"name": "Wes"})
    b.url = s2.url  # Bob's browser is on the other process
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1, "watchers": True}, status=201)
    gid = g["id"]
    b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    bob_live = Socket(s2.url, b, gid)
    wes_live = Socket(s2.url, w, gid)  # a watcher on process 2: not sent the players' channel
    assert bob_live.views.wait(PROMPT) and wes_live.views.wait(PROMPT)
    try:
        for text in ("Good luck", "Удачи"):
            sent = time.monotonic()
            m = a.post(f"/api/games/{gid}/chat", {"text": text}, status=201)
            got = bob_live.next_chat()
            assert time.monotonic() - sent < PROMPT
            assert got == m and got["text"] == text and got["channel"] == "players"
        # Bob answers on process 2, Ann reads it on process 1: one chat in the database
        b.post(f"/api/games/{gid}/chat", {"text": "Well played"}, status=201)
        listed = a.get(f"/api/games/{gid}/chat")["messages"]
        assert [(x["seq"], x["text"]) for x in listed] == [(1, "Good luck"), (2, "Удачи"), (3, "Well played")]
        # the watcher's own message reaches them; the players' messages never did
        w.post(f"/api/games/{gid}/chat", {"text": "nice"}, status=201)
        assert wes_live.next_chat()["text"] == "nice"
        with pytest.raises(queue.Empty):
            wes_live.chat.get(timeout=0.5)
    finally:
        bob_live.close()
        wes_live.close()


def test_messages_posted_at_once_on_two_processes_are_numbered_without_gaps_or_repeats(two_servers):
    s1, s2 = two_servers
    a, b = HttpPlayer(s1.url), HttpPlayer(s2.url)
    a.post("/api/auth/guest", {"name": "Ann"})
    b.url = s1.url
    b.post("/api/auth/guest", {"name": "Bob"})
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
    gid = g["id"]
    b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    b.url = s2.url
    errors: list = []

    def say(p: HttpPlayer, who: str):
        try:
            for i in range(5):
                p.post(f"/api/games/{gid}/chat", {"text": f"{who}{i}"}, status=201)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=say, args=(p, n)) for p, n in ((a, "a"), (b, "b"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    listed = a.get(f"/api/games/{gid}/chat")["messages"]
    assert [x["seq"] for x in listed] == list(range(1, 11))
    assert sorted(x["text"] for x in listed) == sorted([f"a{i}" for i in range(5)] + [f"b{i}" for i in range(5)])


def test_a_mute_made_on_one_process_hides_the_next_messages_pushed_by_the_other(two_servers):
    s1, s2 = two_servers
    a, b = HttpPlayer(s2.url), HttpPlayer(s2.url)
    a.post("/api/auth/guest", {"name": "Ann"})
    b.post("/api/auth/guest", {"name": "Bob"})
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 1}, status=201)
    gid = g["id"]
    b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    bob_live = Socket(s2.url, b, gid)  # Bob's socket and Ann's messages on process 2
    assert bob_live.views.wait(PROMPT)
    try:
        a.post(f"/api/games/{gid}/chat", {"text": "heard 1"}, status=201)
        assert bob_live.next_chat()["text"] == "heard 1"  # process 2 now knows Bob does not hide Ann
        b.url = s1.url  # Bob mutes Ann through process 1: process 2 is told ("hides")
        ann = a.get("/api/me")["user"]["id"]
        b.post("/api/mutes", {"uid": ann})
        time.sleep(0.5)  # the notification's way to process 2
        a.post(f"/api/games/{gid}/chat", {"text": "muted"}, status=201)
        assert b.request("DELETE", f"/api/mutes/{ann}")[0] == 204
        time.sleep(0.5)
        a.post(f"/api/games/{gid}/chat", {"text": "heard 2"}, status=201)
        assert bob_live.next_chat()["text"] == "heard 2"
    finally:
        bob_live.close()

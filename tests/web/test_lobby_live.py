"""The lobby's live channel (docs/online.md, "The lobby's live channel"): a snapshot with a version when it
opens, then only what changed, each delta naming the version it moves from and to; a page that missed one
gets the lobby whole again; each viewer's deltas keep to what they may see (the challenges and presence of
players they block or are blocked by are never sent, their own seek and taken challenge only to them); a
presence round that changes nothing sends nothing; and two server processes on one PostgreSQL send their own
connections the changes made through the other."""

from __future__ import annotations

import asyncio
import json
import time

import pytest

from nardy.web.app import create_app
from nardy.web.routers import lobby as lobby_module
from nardy.web.store.community import LOBBY
from nardy.web.store.storage import Storage

from .helpers import HttpPlayer, Server, pg_schema
from .lobby_page import LISTS, Page, ids
from .test_lobby import BLITZ, account, challenge, client, guest


def same_as_asked(page: Page, c) -> None:
    """The lobby the page built from its deltas is the lobby ``GET /api/lobby`` answers its player."""
    asked = c.get("/api/lobby").json()
    for key in (*LISTS, "seek", "taken", "me"):
        assert page.lobby[key] == asked[key], key


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'lobby-live.db'}"))


@pytest.fixture
def three(app):
    cs = [account(app, "Ann"), account(app, "Bob"), guest(app, "Cat")]
    yield cs
    for c in cs:
        c.__exit__(None, None, None)


def viewer_of(app, uid: str):
    feed = lobby_module.lobby_feed(app)
    return next(v for c, v in feed.viewers.items() if c.user == uid)


def test_one_snapshot_then_deltas_whose_versions_chain_rebuild_the_lobby(app, three):
    ann, bob, _ = three
    page = Page()
    with bob.websocket_connect("/api/lobby/live") as ws:
        first = page.receive(ws)
        assert first["type"] == "lobby" and first["lobby"]["me"] == bob.me["id"] and isinstance(first["v"], int)
        ch = challenge(ann)
        page.until(ws, lambda lobby: ch["id"] in ids(lobby))
        made = next(c for c in page.lobby["challenges"] if c["id"] == ch["id"])
        assert made["owner"]["id"] == ann.me["id"] and made["owner_rating"] == 1500 and "client_seed" not in made
        assert ann.me["id"] in ids(page.lobby, "online")  # Ann came online with her challenge
        second = challenge(ann, length=3)
        page.until(ws, lambda lobby: ids(lobby) == [ch["id"], second["id"]])  # oldest first
        assert ann.delete(f"/api/lobby/challenges/{ch['id']}").status_code == 200
        page.until(ws, lambda lobby: ids(lobby) == [second["id"]])
        # Bob takes the other: it leaves the list, its game is to watch
        r = bob.post(f"/api/lobby/challenges/{second['id']}/accept", json={})
        assert r.status_code == 200, r.text
        gid = r.json()["id"]
        page.until(ws, lambda lobby: not lobby["challenges"] and gid in ids(lobby, "live"))
        assert page.snapshots == 1 and page.deltas >= 4 and page.gaps == 0
        same_as_asked(page, bob)
    # the owner's page hears that her challenge was taken (the game to open), through her own part only
    ann_page = Page()
    with ann.websocket_connect("/api/lobby/live") as ws:
        lobby = ann_page.until(ws, lambda lobby: lobby["taken"] is not None)
        assert lobby["taken"]["id"] == second["id"] and lobby["taken"]["game_id"] == gid


def test_a_presence_round_that_changes_nothing_sends_nothing(app, three):
    ann, bob, _ = three
    page = Page()
    feed = lobby_module.lobby_feed(app)
    with bob.websocket_connect("/api/lobby/live") as ws:
        page.receive(ws)
        keeper = app.state.presence_keeper
        asyncio.run(keeper.tick())
        sent = feed.sent_messages, feed.sent_bytes
        asyncio.run(keeper.tick())
        assert (feed.sent_messages, feed.sent_bytes) == sent
        # a change after it: one delta, small (not the lobby again)
        ch = challenge(ann)
        msg = page.receive(ws)
        while ch["id"] not in ids(page.lobby):
            msg = page.receive(ws)
        assert msg["type"] == "lobby-delta" and len(json.dumps(msg)) < 1000
        assert page.snapshots == 1


def test_a_page_that_missed_a_delta_gets_a_snapshot(app, three, monkeypatch):
    ann, bob, _ = three
    page = Page()
    with bob.websocket_connect("/api/lobby/live") as ws:
        page.receive(ws)
        # the page asks (it saw a delta from a version it does not hold): the lobby whole, a later version
        v0 = page.v
        ws.send_text("snapshot")
        again = page.receive(ws)
        assert again["type"] == "lobby" and again["v"] > v0 and page.snapshots == 2
        # a message the server could not send: the next one to that page is the lobby whole
        real = lobby_module._send
        lost = []

        async def lose_once(conn, text):
            if conn.user == bob.me["id"] and not lost:
                lost.append(text)
                return False
            return await real(conn, text)

        monkeypatch.setattr(lobby_module, "_send", lose_once)
        c1 = challenge(ann)
        for _ in range(100):  # the round goes on after the answer
            if lost and viewer_of(app, bob.me["id"]).v is None:
                break
            time.sleep(0.05)
        assert lost and json.loads(lost[0])["type"] == "lobby-delta"
        assert viewer_of(app, bob.me["id"]).v is None
        c2 = challenge(ann, length=5)
        msg = page.receive(ws)
        assert msg["type"] == "lobby" and ids(msg["lobby"]) == [c1["id"], c2["id"]] and page.gaps == 0
        same_as_asked(page, bob)


def test_the_page_detects_a_gap_in_the_versions():
    page = Page()
    page.take({"type": "lobby", "v": 3, "lobby": {"challenges": [], "online": [], "live": [], "seek": None}})
    page.take({"type": "lobby-delta", "from": 3, "v": 5, "seek": {"id": "s"}})
    assert page.v == 5 and page.lobby["seek"] == {"id": "s"}
    page.take({"type": "lobby-delta", "from": 6, "v": 7, "seek": None})
    assert page.gaps == 1 and page.v is None and page.lobby["seek"] == {"id": "s"}  # not applied


def test_deltas_keep_to_what_each_viewer_may_see(app, three):
    ann, bob, cat = three
    bob_page, cat_page = Page(), Page()
    with bob.websocket_connect("/api/lobby/live") as bws, cat.websocket_connect("/api/lobby/live") as cws:
        bob_page.receive(bws)
        cat_page.until(cws, lambda lobby: bob.me["id"] in ids(lobby, "online"))
        bob_page.until(bws, lambda lobby: cat.me["id"] in ids(lobby, "online"))
        # Ann blocks Bob: Bob's page gets the lobby whole again (his blocks changed), without Ann
        assert ann.post("/api/blocks", json={"user": bob.me["id"]}).status_code == 200
        msg = bob_page.receive(bws)
        while msg["type"] != "lobby":
            msg = bob_page.receive(bws)
        assert ann.me["id"] not in ids(bob_page.lobby, "online")
        # Ann's challenge: Cat sees it; Bob's messages never name it, nor Ann
        bob_texts = []
        real = lobby_module._send

        async def spy(conn, text):
            if conn.user == bob.me["id"]:
                bob_texts.append(text)
            return await real(conn, text)

        lobby_module._send = spy
        try:
            hidden = challenge(ann)
            cat_page.until(cws, lambda lobby: hidden["id"] in ids(lobby))
            shown = challenge(cat, rated=False)  # a guest's, unrated
            bob_page.until(bws, lambda lobby: shown["id"] in ids(lobby))
            assert ann.delete(f"/api/lobby/challenges/{hidden['id']}").status_code == 200
            cat_page.until(cws, lambda lobby: hidden["id"] not in ids(lobby))
        finally:
            lobby_module._send = real
        assert bob_texts and not any(hidden["id"] in t or ann.me["id"] in t for t in bob_texts)
        assert ids(bob_page.lobby) == [shown["id"]] and ids(cat_page.lobby) == [shown["id"]]
        # Cat's quick seek is hers alone: in her delta, not in Bob's
        assert cat.post("/api/lobby/quick", json={**BLITZ, "rated": False}).status_code == 200
        cat_page.until(cws, lambda lobby: lobby["seek"] is not None and lobby["seek"]["status"] == "open")
        assert viewer_of(app, bob.me["id"]).seek == "null"
        same_as_asked(bob_page, bob)
        same_as_asked(cat_page, cat)
        # Bob's quick request on the same terms pairs them: Cat's page learns her game from her seek
        gid = bob.post("/api/lobby/quick", json={**BLITZ, "rated": False}).json()["game"]
        cat_page.until(cws, lambda lobby: lobby["seek"] and lobby["seek"]["game_id"] == gid)


def test_the_http_lobby_is_the_whole_lobby_in_the_channels_orders(app, three):
    ann, bob, cat = three
    for c in three:
        c.get("/api/lobby")  # online
    a1, c1, a2 = challenge(ann), challenge(cat, rated=False), challenge(ann, length=7)
    lobby = bob.get("/api/lobby").json()
    assert ids(lobby) == [a1["id"], c1["id"], a2["id"]]
    names = [u["name"] for u in lobby["online"]]
    assert names == sorted(names) and len(names) == 3
    anon = client(app)
    assert anon.get("/api/lobby").json()["me"] is None
    anon.__exit__(None, None, None)


def test_presence_keeper_connection_state_is_forgotten_when_a_page_leaves(app, three):
    _, bob, _ = three
    feed = lobby_module.lobby_feed(app)
    with bob.websocket_connect("/api/lobby/live") as ws:
        ws.receive_json()
        assert [c.user for c in feed.viewers] == [bob.me["id"]]
    for _ in range(50):
        if not feed.viewers:
            break
        time.sleep(0.02)
    assert not feed.viewers and not any(c for c in lobby_module._LOOPS if c.user == bob.me["id"])
    assert LOBBY not in app.state.hub.games


# ----- two processes on one PostgreSQL ---------------------------------------------------------------------------
@pytest.fixture
def two_servers():
    url, drop = pg_schema("nardy_lobby")
    servers = [Server(url, extra=("--no-warm-up", "--insecure-password-hashing")) for _ in range(2)]
    try:
        servers[0].start()
        servers[1].start()
        yield servers
    finally:
        for s in servers:
            s.stop()
        drop()


def _register(url: str, name: str) -> HttpPlayer:
    import secrets

    p = HttpPlayer(url)
    status, out = p.request(
        "POST", "/api/auth/register", {"name": f"{name}{secrets.token_hex(2)}", "password": "x" * 12}
    )
    assert status == 201, out
    p.me = out["user"]["id"]
    return p


class _Ws:
    """A WebSocket client with the player's cookies (the ``websockets`` package), read like TestClient's."""

    def __init__(self, player: HttpPlayer, path: str):
        from websockets.sync.client import connect

        cookies = "; ".join(f"{c.name}={c.value}" for c in player.jar)
        self.ws = connect(player.url.replace("http", "ws") + path, additional_headers={"Cookie": cookies})

    def receive_json(self) -> dict:
        return json.loads(self.ws.recv(timeout=20))

    def close(self) -> None:
        self.ws.close()


def test_two_processes_send_each_others_changes_as_deltas(two_servers):
    a, b = two_servers
    ann, bob = _register(a.url, "Ann"), _register(b.url, "Bob")
    page = Page()
    ws = _Ws(bob, "/api/lobby/live")  # Bob on the second process
    try:
        page.receive(ws)
        out = ann.post("/api/lobby/challenges", {**BLITZ}, status=201)  # Ann's challenge through the first
        cid = out["challenge"]["id"]
        page.until(ws, lambda lobby: cid in ids(lobby))
        assert ann.request("DELETE", f"/api/lobby/challenges/{cid}")[0] == 200
        page.until(ws, lambda lobby: cid not in ids(lobby))
        assert page.snapshots == 1 and page.deltas >= 2 and page.gaps == 0
        asked = bob.get("/api/lobby")
        for key in (*LISTS, "seek", "taken", "me"):
            assert page.lobby[key] == asked[key], key
    finally:
        ws.close()

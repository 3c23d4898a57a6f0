"""Chat (issue 43): a game's two channels, the lobby's, limits, mutes, blocks and reports (docs/online.md "Chat").

Who reads what: the seated players their channel, everyone else who may see the game the watchers' channel; while
the game is played neither reads the other's; once it is over both are open to all who may see it. A stranger of a
private game is answered as for a missing game (404). Live: a stored message is pushed on the game's channel as
``{"type": "chat", "message": {...}}`` to the connections that may read it and do not mute or block its sender."""

from __future__ import annotations

import pytest

from nardy.web.app import create_app
from nardy.web.store.chat import RATE_COUNT, ChatBook
from nardy.web.store.storage import Storage

from .players import PlayerClient
from .test_lobby import account, finish_by_resignation, guest


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(storage=Storage(f"sqlite:///{tmp_path_factory.mktemp('chat') / 'chat.db'}"))


def online_game(ann, bob, watchers: bool = False) -> str:
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1, "watchers": watchers}).json()
    assert bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).status_code == 200
    return g["id"]


def texts(c, gid: str) -> list[tuple[str, str]]:
    r = c.get(f"/api/games/{gid}/chat")
    assert r.status_code == 200, r.text
    return [(m["channel"], m["text"]) for m in r.json()["messages"]]


@pytest.fixture(scope="module")
def cast(app):
    people = [account(app, n) for n in ("Ann", "Bob", "Wes")]
    yield people
    for c in people:
        c.__exit__(None, None, None)


def test_players_chat_is_stored_numbered_and_read_back(cast):
    ann, bob, _ = cast
    gid = online_game(ann, bob)
    r = ann.post(f"/api/games/{gid}/chat", json={"text": "  Good luck  "})
    assert r.status_code == 201, r.text
    m = r.json()
    assert (m["seq"], m["text"], m["channel"], m["from"]["id"]) == (1, "Good luck", "players", ann.me["id"])
    assert set(m) == {"id", "seq", "from", "text", "at", "channel"}
    bob.post(f"/api/games/{gid}/chat", json={"text": "Удачи"})
    assert texts(bob, gid) == [("players", "Good luck"), ("players", "Удачи")]
    after = bob.get(f"/api/games/{gid}/chat", params={"after": 1}).json()["messages"]
    assert [x["text"] for x in after] == ["Удачи"]


def test_a_stranger_of_a_private_game_is_answered_as_for_a_missing_game(app, cast):
    ann, bob, wes = cast
    gid = online_game(ann, bob)
    ann.post(f"/api/games/{gid}/chat", json={"text": "secret"})
    anon = PlayerClient(app, base_url="http://testserver")
    for c in (wes, anon):
        r = c.get(f"/api/games/{gid}/chat")
        missing = c.get("/api/games/0123456789abcdef/chat")
        assert (r.status_code, r.json()["code"]) == (404, "not_found") == (missing.status_code, missing.json()["code"])
    r = wes.post(f"/api/games/{gid}/chat", json={"text": "hello?"})
    assert r.status_code == 404
    assert anon.post(f"/api/games/{gid}/chat", json={"text": "hello?"}).status_code == 401


def test_watchers_write_in_their_own_channel_which_players_read_only_after_the_game(cast):
    ann, bob, wes = cast
    gid = online_game(ann, bob, watchers=True)
    assert ann.post(f"/api/games/{gid}/chat", json={"text": "gl"}).json()["channel"] == "players"
    assert wes.post(f"/api/games/{gid}/chat", json={"text": "ann is winning"}).json()["channel"] == "watchers"
    assert texts(ann, gid) == [("players", "gl")]
    assert texts(wes, gid) == [("watchers", "ann is winning")]
    assert ann.get(f"/api/games/{gid}/chat").json()["write"] == "players"
    finish_by_resignation(ann, bob, gid)
    assert texts(ann, gid) == [("players", "gl"), ("watchers", "ann is winning")]
    assert texts(wes, gid) == [("players", "gl"), ("watchers", "ann is winning")]


def test_a_guest_chats_in_the_game_they_sit_at_but_not_in_the_lobby(app, cast):
    ann = cast[0]
    gus = guest(app, "Gus")
    gid = online_game(ann, gus)
    assert gus.post(f"/api/games/{gid}/chat", json={"text": "hi"}).status_code == 201
    r = gus.post("/api/lobby/chat", json={"text": "hi all"})
    assert (r.status_code, r.json()["code"]) == (403, "chat_account_needed")
    r = ann.post("/api/lobby/chat", json={"text": "anyone for long nardy?"})
    assert r.status_code == 201 and r.json()["channel"] == "lobby"
    assert "anyone for long nardy?" in [m["text"] for m in gus.get("/api/lobby/chat").json()["messages"]]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "chat_empty"),
        ("   ", "chat_empty"),
        ("x" * 301, "chat_too_long"),
        ("a\x07b", "chat_control"),
        ("a\u202eb", "chat_control"),
    ],
)
def test_a_message_is_1_to_300_characters_without_control_characters(cast, text, code):
    ann, bob, _ = cast
    gid = online_game(ann, bob)
    r = ann.post(f"/api/games/{gid}/chat", json={"text": text})
    assert (r.status_code, r.json()["code"]) == (422, code)
    assert texts(ann, gid) == []


def test_text_is_stored_nfc_and_300_characters_pass(cast):
    ann, bob, _ = cast
    gid = online_game(ann, bob)
    assert ann.post(f"/api/games/{gid}/chat", json={"text": "e\u0301"}).json()["text"] == "\u00e9"
    assert ann.post(f"/api/games/{gid}/chat", json={"text": "y" * 300}).status_code == 201


def test_a_sixth_message_in_ten_seconds_is_refused_429_with_retry_after(cast):
    ann, bob, _ = cast
    gid = online_game(ann, bob)
    for i in range(RATE_COUNT):
        assert ann.post(f"/api/games/{gid}/chat", json={"text": f"m{i}"}).status_code == 201
    r = ann.post(f"/api/games/{gid}/chat", json={"text": "one more"})
    assert (r.status_code, r.json()["code"]) == (429, "chat_rate")
    assert 1 <= int(r.headers["Retry-After"]) <= 10
    assert bob.post(f"/api/games/{gid}/chat", json={"text": "mine"}).status_code == 201  # per user
    assert len(texts(ann, gid)) == RATE_COUNT + 1


def test_a_resent_message_with_its_key_is_stored_once(cast):
    ann, bob, _ = cast
    gid = online_game(ann, bob)
    a = ann.post(f"/api/games/{gid}/chat", json={"text": "gl", "key": "k-1"})
    b = ann.post(f"/api/games/{gid}/chat", json={"text": "gl", "key": "k-1"})
    assert (a.status_code, b.status_code) == (201, 200)
    assert a.json() == b.json()
    assert texts(bob, gid) == [("players", "gl")]


def test_a_game_keeps_at_most_its_cap_of_messages(app, cast, monkeypatch):
    ann, bob, _ = cast
    gid = online_game(ann, bob)
    monkeypatch.setattr("nardy.web.store.chat.MAX_PER_GAME", 2)
    ann.post(f"/api/games/{gid}/chat", json={"text": "1"})
    bob.post(f"/api/games/{gid}/chat", json={"text": "2"})
    r = ann.post(f"/api/games/{gid}/chat", json={"text": "3"})
    assert (r.status_code, r.json()["code"]) == (409, "chat_full")


def test_mute_hides_the_muted_players_messages_from_the_muter_only(cast):
    ann, bob, wes = cast
    gid = online_game(ann, bob, watchers=True)
    finish_by_resignation(ann, bob, gid)
    bob.post(f"/api/games/{gid}/chat", json={"text": "gg"})
    r = ann.post("/api/mutes", json={"uid": bob.me["id"]})
    assert r.status_code == 200 and r.json()["new"] is True
    assert ann.get("/api/mutes").json()["mutes"] == [{"id": bob.me["id"], "name": bob.me["name"]}]
    assert texts(ann, gid) == []
    assert texts(wes, gid) == [("players", "gg")]
    assert ann.post("/api/mutes", json={"uid": ann.me["id"]}).status_code == 422
    assert ann.delete(f"/api/mutes/{bob.me['id']}").status_code == 204
    assert texts(ann, gid) == [("players", "gg")]


def test_a_block_hides_messages_both_ways(cast):
    ann, bob, wes = cast
    gid = online_game(ann, bob, watchers=True)
    finish_by_resignation(ann, bob, gid)
    ann.post(f"/api/games/{gid}/chat", json={"text": "from ann"})
    wes.post(f"/api/games/{gid}/chat", json={"text": "from wes"})
    assert ann.post("/api/blocks", json={"user": wes.me["id"]}).status_code == 200
    assert texts(ann, gid) == [("players", "from ann")]
    assert texts(wes, gid) == [("watchers", "from wes")]
    assert texts(bob, gid) == [("players", "from ann"), ("watchers", "from wes")]
    assert ann.delete(f"/api/blocks/{wes.me['id']}").status_code == 204


def test_a_report_is_stored_for_a_moderator_once_per_reporter(app, cast):
    ann, bob, wes = cast
    gid = online_game(ann, bob)
    mid = bob.post(f"/api/games/{gid}/chat", json={"text": "rude words"}).json()["id"]
    r = ann.post(f"/api/chat/{mid}/report", json={"reason": "insults  me"})
    assert r.status_code == 201 and r.json()["reason"] == "insults me"
    assert ann.post(f"/api/chat/{mid}/report", json={"reason": "again"}).status_code == 200
    assert wes.post(f"/api/chat/{mid}/report", json={"reason": "x"}).status_code == 404  # cannot read it
    assert ann.post("/api/chat/0123456789abcdef/report", json={"reason": "x"}).status_code == 404
    stored = [x for x in ChatBook(app.state.storage).reports() if x["message_id"] == mid]
    assert [(x["reporter"], x["reason"], x["text"], x["sender"]) for x in stored] == [
        (ann.me["id"], "insults me", "rude words", bob.me["id"])
    ]


def test_a_message_is_pushed_live_to_players_but_not_to_watchers_nor_muters(app, cast):
    ann, bob, wes = cast
    gid = online_game(ann, bob, watchers=True)
    with bob.websocket_connect(f"/api/games/{gid}/live") as bws, wes.websocket_connect(f"/api/games/{gid}/live") as wws:
        assert bws.receive_json()["type"] == "view"
        assert wws.receive_json()["type"] == "view"
        ann.post(f"/api/games/{gid}/chat", json={"text": "Good luck"})
        got = bws.receive_json()
        assert got["type"] == "chat" and got["message"]["text"] == "Good luck"
        wes.post(f"/api/games/{gid}/chat", json={"text": "watching"})
        got = wws.receive_json()  # the watcher's own message, not the players'
        assert got["type"] == "chat" and got["message"]["text"] == "watching"
        bob.post("/api/mutes", json={"uid": ann.me["id"]})
        ann.post(f"/api/games/{gid}/chat", json={"text": "muted one"})
        ann.post(f"/api/games/{gid}/chat", json={"text": "muted two"})
        bob.delete(f"/api/mutes/{ann.me['id']}")
        ann.post(f"/api/games/{gid}/chat", json={"text": "heard"})
        got = bws.receive_json()
        assert got["message"]["text"] == "heard"


def test_a_lobby_message_is_pushed_on_the_lobby_channel_except_to_a_blocker(cast):
    ann, bob, wes = cast
    assert wes.post("/api/blocks", json={"user": ann.me["id"]}).status_code == 200
    try:
        with bob.websocket_connect("/api/lobby/live") as bws, wes.websocket_connect("/api/lobby/live") as wws:
            ann.post("/api/lobby/chat", json={"text": "who plays?"})
            bob.post("/api/lobby/chat", json={"text": "me"})
            for ws, want in ((bws, ["who plays?", "me"]), (wws, ["me"])):
                got = []
                while len(got) < len(want):
                    m = ws.receive_json()
                    if m["type"] == "chat":
                        got.append(m["message"]["text"])
                assert got == want
    finally:
        wes.delete(f"/api/blocks/{ann.me['id']}")

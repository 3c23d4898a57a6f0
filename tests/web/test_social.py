"""Named challenges, follows and settings through the API (issue 43, docs/online.md "Friends and challenges"):
a challenge made to a player reaches that player only (the lobby, its live channel, accepting it), blocked
players cannot challenge each other, the lobby's rate limits apply, follows show who is online and the game
they play (never a private game, never to a blocked player), settings are kept per account."""

from __future__ import annotations

import pytest

from nardy.web.store.community import MAX_OPEN
from nardy.web.store.social import MAX_FOLLOWS

from .lobby_page import Page
from .test_lobby import BLITZ, account, app, refused  # noqa: F401  (fixtures)

UNRATED = {"game": "long", "length": 1, "clock": "blitz", "rated": False}


@pytest.fixture
def trio(app):  # noqa: F811
    cs = [account(app, n) for n in ("Ann", "Bob", "Eve")]
    yield cs
    for c in cs:
        c.__exit__(None, None, None)


def named(c, to: str, **kw) -> dict:
    r = c.post("/api/lobby/challenges", json={**BLITZ, **kw, "to": to})
    assert r.status_code == 201, r.text
    return r.json()["challenge"]


def test_a_named_challenge_is_seen_and_accepted_by_its_player_only(trio):
    ann, bob, eve = trio
    ch = named(ann, bob.me["name"])
    assert ch["to"] == bob.me["id"]
    # not in anyone's open list; in the two players' "named" list only
    for c in trio:
        lob = c.get("/api/lobby").json()
        assert ch["id"] not in [x["id"] for x in lob["challenges"]]
    assert [x["id"] for x in bob.get("/api/lobby").json()["named"]] == [ch["id"]]
    assert bob.get("/api/lobby").json()["named"][0]["owner"]["name"] == ann.me["name"]
    assert [x["id"] for x in ann.get("/api/lobby").json()["named"]] == [ch["id"]]
    assert eve.get("/api/lobby").json()["named"] == []
    # another may neither accept nor decline it: as if it did not exist
    refused(eve.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 404, "no_challenge")
    refused(eve.post(f"/api/lobby/challenges/{ch['id']}/decline"), 404, "no_challenge")
    r = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={})
    assert r.status_code == 200, r.text
    game = r.json()
    assert sorted(game["players"]) == sorted([ann.me["name"], bob.me["name"]])


def test_the_live_channel_sends_a_named_challenge_to_its_two_players_only(trio):
    ann, bob, eve = trio
    pages = {}
    with bob.websocket_connect("/api/lobby/live") as wb, eve.websocket_connect("/api/lobby/live") as we:
        for name, ws in (("bob", wb), ("eve", we)):
            pages[name] = Page()
            pages[name].until(ws, lambda lob: lob is not None)
        ch = named(ann, bob.me["name"])
        pages["bob"].until(wb, lambda lob: [x["id"] for x in lob.get("named", [])] == [ch["id"]])
        assert pages["bob"].lobby["named"][0]["to"]["id"] == bob.me["id"]
        # Eve's channel carries the lobby's changes (Ann came online) but never the challenge
        r = ann.post("/api/lobby/challenges", json=BLITZ)  # an open one: Eve sees that one
        pages["eve"].until(we, lambda lob: r.json()["challenge"]["id"] in [x["id"] for x in lob["challenges"]])
        assert pages["eve"].lobby["named"] == []
        assert ch["id"] not in [x["id"] for x in pages["eve"].lobby["challenges"]]


def test_declining_tells_the_owner_and_closes_the_challenge(trio):
    ann, bob, _ = trio
    ch = named(ann, bob.me["name"])
    r = bob.post(f"/api/lobby/challenges/{ch['id']}/decline")
    assert r.status_code == 200 and r.json()["challenge"]["status"] == "declined"
    assert bob.post(f"/api/lobby/challenges/{ch['id']}/decline").json()["challenge"]["status"] == "declined"
    assert bob.get("/api/lobby").json()["named"] == []
    assert [(x["id"], x["status"]) for x in ann.get("/api/lobby").json()["named"]] == [(ch["id"], "declined")]
    refused(bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 404, "no_challenge")


def test_blocked_players_cannot_challenge_each_other(trio):
    ann, bob, _ = trio
    assert bob.post("/api/blocks", json={"user": ann.me["id"]}).status_code == 200
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "to": bob.me["name"]}), 403, "blocked")
    refused(bob.post("/api/lobby/challenges", json={**BLITZ, "to": ann.me["name"]}), 403, "blocked")


def test_a_challenge_made_before_a_block_is_hidden_and_refused(trio):
    ann, bob, _ = trio
    ch = named(ann, bob.me["name"])
    assert ann.post("/api/blocks", json={"user": bob.me["id"]}).status_code == 200
    assert bob.get("/api/lobby").json()["named"] == []
    refused(bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 403, "blocked")


def test_a_named_challenge_to_nobody_or_oneself_is_refused(trio):
    ann, _, _ = trio
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "to": "nobody-at-all"}), 404, "no_player")
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "to": ann.me["name"]}), 422, "self_challenge")


def test_named_challenges_count_against_the_lobbys_limits(trio):
    ann, bob, _ = trio
    for _ in range(MAX_OPEN):
        named(ann, bob.me["name"], **UNRATED)
    refused(ann.post("/api/lobby/challenges", json={**UNRATED, "to": bob.me["name"]}), 409, "too_many_open")


def test_follows_show_online_and_a_public_game_only(trio):
    ann, bob, eve = trio
    r = ann.post("/api/follows", json={"name": bob.me["name"]})
    assert r.status_code == 200 and r.json() == {"followed": bob.me["id"], "new": True}
    assert ann.post("/api/follows", json={"name": bob.me["name"]}).json()["new"] is False
    refused(ann.post("/api/follows", json={"name": ann.me["name"]}), 422, "self_follow")
    refused(ann.post("/api/follows", json={"name": "nobody-at-all"}), 404, "no_player")
    bob.get("/api/lobby")  # Bob is online now
    assert ann.get("/api/follows").json() == {
        "follows": [{"uid": bob.me["id"], "name": bob.me["name"], "online": True, "playing": None}]
    }
    # Bob plays Eve from the lobby (a game open to watchers): Ann sees which
    ch = eve.post("/api/lobby/challenges", json=BLITZ).json()["challenge"]
    gid = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}).json()["id"]
    assert ann.get("/api/follows").json()["follows"][0]["playing"] == gid
    # Bob blocks Ann: she sees him offline, playing nothing
    assert bob.post("/api/blocks", json={"user": ann.me["id"]}).status_code == 200
    assert ann.get("/api/follows").json()["follows"][0] | {"uid": 0} == {
        "uid": 0,
        "name": bob.me["name"],
        "online": False,
        "playing": None,
    }
    assert ann.delete(f"/api/follows/{bob.me['id']}").status_code == 204
    assert ann.get("/api/follows").json() == {"follows": []}


def test_a_private_game_is_never_named_to_followers(trio):
    ann, bob, _ = trio
    ann.post("/api/follows", json={"name": bob.me["name"]})
    r = bob.post("/api/games", json={"game": "long", "opponent": "online"})
    assert r.status_code in (200, 201), r.text
    assert ann.get("/api/follows").json()["follows"][0]["playing"] is None


def test_follows_are_bounded(trio, monkeypatch):
    ann, bob, eve = trio
    import nardy.web.store.social as social_store

    monkeypatch.setattr(social_store, "MAX_FOLLOWS", 1)
    assert ann.post("/api/follows", json={"name": bob.me["name"]}).status_code == 200
    refused(ann.post("/api/follows", json={"name": eve.me["name"]}), 409, "too_many_follows")
    assert ann.post("/api/follows", json={"name": bob.me["name"]}).json()["new"] is False
    assert MAX_FOLLOWS == 200


def test_settings_are_kept_per_account(trio):
    ann, bob, _ = trio
    assert ann.get("/api/me/settings").json() == {"alerts": {"title": True, "notifications": False, "sound": True}}
    r = ann.put("/api/me/settings", json={"alerts": {"title": False, "notifications": True, "sound": False}})
    assert r.status_code == 200 and r.json()["alerts"] == {"title": False, "notifications": True, "sound": False}
    assert ann.get("/api/me/settings").json()["alerts"]["notifications"] is True
    assert bob.get("/api/me/settings").json()["alerts"]["notifications"] is False
    assert ann.put("/api/me/settings", json={"alerts": {"title": "x" * 9}}).status_code == 422
    assert ann.put("/api/me/settings", json={"theme": "dark"}).status_code == 422


def test_a_guest_keeps_settings_in_the_browser(app):  # noqa: F811
    from .test_lobby import guest

    g = guest(app, "Cat")
    refused(g.get("/api/me/settings"), 403, "guest_settings")
    refused(g.put("/api/me/settings", json={"alerts": {"sound": False}}), 403, "guest_settings")

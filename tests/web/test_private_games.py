"""A private game's existence is never confirmed to strangers (docs/security.md "Games are their players'",
issue 41 item 11): every route of ``/api/games/{id}/...`` in the OpenAPI schema, and the live channel's
handshake, answers a stranger (signed in or not) about a private game exactly as about a game that does not
exist: the same status, error, code, params, message and detail (the id aside), the same close code.

Private: a game against the computer (its owner's), an online match without watchers (its two players'), an
online invitation still waiting (its owner's and whoever holds the link), such a match once finished."""

from __future__ import annotations

import pytest
from starlette.websockets import WebSocketDisconnect

from nardy.web.app import create_app
from nardy.web.store.storage import Storage

from .players import PlayerClient
from .test_lobby import account, finish_by_resignation

MISSING = "0123456789abcdef"  # an id of the same shape as the games' ids, of no game

#: Every ``/api/games/{gid}`` route with a request a player would send (a valid body and query, so that the
#: route goes past validation to the game itself). The test fails when the schema has a route not here.
REQUESTS = {
    ("get", "/api/games/{gid}"): {},
    ("delete", "/api/games/{gid}"): {},
    ("post", "/api/games/{gid}/actions"): {"json": {"action": "roll", "seq": 1}},
    ("get", "/api/games/{gid}/hints"): {"params": {"n": 3}},
    ("get", "/api/games/{gid}/mat"): {},
    ("get", "/api/games/{gid}/record"): {},
    ("post", "/api/games/{gid}/join"): {"json": {"invite": "a-guess"}},
    ("post", "/api/games/{gid}/seed"): {"json": {"client_seed": "seed", "commitment": "0" * 64}},
    ("post", "/api/games/{gid}/decline"): {"json": {"invite": "a-guess"}},
    ("post", "/api/games/{gid}/cancel"): {},
    ("post", "/api/games/{gid}/rematch"): {"json": {}},
    ("get", "/api/games/{gid}/fairness"): {},
    ("post", "/api/games/{gid}/claim"): {},
    ("get", "/api/games/{gid}/claim"): {},
    ("post", "/api/games/{gid}/abort"): {},
    ("get", "/api/games/{gid}/analysis"): {},
    ("post", "/api/games/{gid}/analysis"): {"params": {"level": "advanced"}},
    ("get", "/api/games/{gid}/tutor"): {"params": {"level": "advanced"}},
    ("post", "/api/games/{gid}/analysis/rollout"): {"params": {"trials": 6, "truncate": 2}},
    ("get", "/api/games/{gid}/analysis/rollout"): {},
    ("get", "/api/games/{gid}/chat"): {},
    ("post", "/api/games/{gid}/chat"): {"json": {"text": "hello"}},
}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app(storage=Storage(f"sqlite:///{tmp_path_factory.mktemp('private') / 'private.db'}"))


@pytest.fixture(scope="module")
def cast(app):
    """Ann and Bob's private games, and two strangers: Eve (signed in) and a client without a session."""
    ann, bob, eve = account(app, "Ann"), account(app, "Bob"), account(app, "Eve")
    anon = PlayerClient(app, base_url="http://testserver")
    bot = ann.post("/api/games", json={"game": "backgammon", "opponent": "bot", "level": "random"}).json()
    waiting = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    playing = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    assert bob.post(f"/api/games/{playing['id']}/join", json={"invite": playing["invite"]}).status_code == 200
    over = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    assert bob.post(f"/api/games/{over['id']}/join", json={"invite": over["invite"]}).status_code == 200
    finish_by_resignation(ann, bob, over["id"])
    games = {"bot": bot["id"], "waiting": waiting["id"], "playing": playing["id"], "over": over["id"]}
    for gid in games.values():  # they exist, for their players
        assert ann.get(f"/api/games/{gid}").status_code == 200
    yield {"games": games, "strangers": {"eve": eve, "anonymous": anon}, "ann": ann}
    for c in (ann, bob, eve):  # (the client without a session has no lifespan of its own to leave)
        c.__exit__(None, None, None)


def answer(c, method: str, path: str, gid: str) -> tuple:
    r = c.request(method.upper(), path.replace("{gid}", gid), **REQUESTS[(method, path)])
    body = r.json() if r.headers.get("content-type", "").startswith("application/json") else r.text
    if isinstance(body, dict):
        body = {k: (v.replace(gid, "ID") if isinstance(v, str) else v) for k, v in body.items()}
    return r.status_code, r.headers.get("content-type"), body


def test_every_game_route_of_the_schema_is_walked(app):
    paths = app.openapi()["paths"]
    routes = {(m, p) for p, ops in paths.items() if p.startswith("/api/games/{gid}") for m in ops}
    assert routes == set(REQUESTS)


@pytest.mark.parametrize("kind", ["bot", "waiting", "playing", "over"])
@pytest.mark.parametrize("who", ["eve", "anonymous"])
def test_a_stranger_is_answered_about_a_private_game_as_about_a_missing_one(app, cast, kind, who):
    c = cast["strangers"][who]
    gid = cast["games"][kind]
    before = cast["ann"].get(f"/api/games/{gid}").json()
    for method, path in sorted(REQUESTS):
        private = answer(c, method, path, gid)
        missing = answer(c, method, path, MISSING)
        assert private == missing, (method, path, private, missing)
        assert private[0] in (401, 404), (method, path, private)  # 401: a route for players only
    # the private game is still there, unchanged by all of it
    after = cast["ann"].get(f"/api/games/{gid}").json()
    assert (after["seq"], after["status"]) == (before["seq"], before["status"])


@pytest.mark.parametrize("kind", ["bot", "waiting", "playing", "over"])
def test_the_live_channel_closes_on_a_stranger_as_on_a_missing_game(cast, kind):
    codes = []
    for gid in (cast["games"][kind], MISSING):
        with pytest.raises(WebSocketDisconnect) as e:
            with cast["strangers"]["eve"].websocket_connect(f"/api/games/{gid}/live") as ws:
                ws.receive_json()
        codes.append(e.value.code)
    assert codes == [4404, 4404]


def test_a_game_open_to_watchers_is_still_shown_to_strangers(cast):
    ann, eve = cast["ann"], cast["strangers"]["eve"]
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1, "watchers": True}).json()
    assert eve.get(f"/api/games/{g['id']}").status_code == 200
    r = eve.post(f"/api/games/{g['id']}/join", json={"invite": "a-guess"})
    assert r.status_code == 403 and r.json()["code"] == "bad_invite"


def test_whoever_holds_a_spent_invitation_is_told_what_became_of_it(cast):
    ann, eve = cast["ann"], cast["strangers"]["eve"]
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    assert ann.post(f"/api/games/{g['id']}/cancel").status_code == 200
    r = eve.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]})
    assert r.status_code == 409 and r.json()["code"] == "invite_closed"
    r = eve.post(f"/api/games/{g['id']}/join", json={"invite": "a-guess"})
    assert r.status_code == 404 and r.json()["code"] == "not_found"

"""API tokens (issue 44, docs/bots.md "Server"): made by a signed-in account and shown once, kept only as their
sha256, listed without the secret, revoked; ``Authorization: Bearer`` acts for the account without a CSRF token,
with the scopes the token has (``read``: GET and streams, ``play``: everything else)."""

from __future__ import annotations

import hashlib

import pytest
from sqlalchemy import select

from nardy.web.app import create_app
from nardy.web.store.storage import Storage
from nardy.web.store.tokens import api_tokens

from .test_lobby import BLITZ, account, client, refused


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'tokens.db'}"))


@pytest.fixture
def ann(app):
    c = account(app, "Ann")
    yield c
    c.__exit__(None, None, None)


def make_token(c, name="bot", **kw) -> dict:
    r = c.post("/api/auth/tokens", json={"name": name, **kw})
    assert r.status_code == 201, r.text
    return r.json()


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_a_token_is_shown_once_and_kept_only_as_its_sha256(app, ann):
    made = make_token(ann, "my program")
    assert made["token"].startswith("nardy_") and len(made["token"]) > 40
    assert made["name"] == "my program" and made["scopes"] == ["play", "read"] and made["created"]
    listed = ann.get("/api/auth/tokens").json()["tokens"]
    assert listed == [
        {
            "id": made["id"],
            "name": "my program",
            "scopes": ["play", "read"],
            "created": made["created"],
            "last_used": None,
        }
    ]
    store = app.state.storage
    with store.engine.connect() as c:
        row = c.execute(select(api_tokens).where(api_tokens.c.id == made["id"])).one()
    assert row.hash == hashlib.sha256(made["token"].encode()).hexdigest()
    assert made["token"] not in str(tuple(row))


def test_bearer_acts_for_the_account_without_csrf(app, ann):
    token = make_token(ann)["token"]
    with client(app) as bare:  # no cookies at all
        me = bare.get("/api/me", headers=bearer(token)).json()["user"]
        assert me["id"] == ann.me["id"] and me["bot"] is False
        r = bare.post("/api/lobby/challenges", json=BLITZ, headers=bearer(token))
        assert r.status_code == 201, r.text
        assert r.json()["challenge"]["owner"] == ann.me["id"]
    used = ann.get("/api/auth/tokens").json()["tokens"][0]["last_used"]
    assert used is not None


def test_an_unknown_token_is_refused_401(app):
    with client(app) as bare:
        refused(bare.get("/api/me", headers=bearer("nardy_" + "x" * 43)), 401, "token_invalid")
        refused(bare.get("/api/me", headers=bearer("")), 401, "token_invalid")
        refused(bare.post("/api/lobby/challenges", json=BLITZ, headers=bearer("garbage")), 401, "token_invalid")


def test_a_token_without_the_scope_is_refused_403(app, ann):
    read_only = make_token(ann, "reader", scopes=["read"])["token"]
    play_only = make_token(ann, "player", scopes=["play"])["token"]
    with client(app) as bare:
        assert bare.get("/api/lobby", headers=bearer(read_only)).status_code == 200
        body = refused(bare.post("/api/lobby/challenges", json=BLITZ, headers=bearer(read_only)), 403, "token_scope")
        assert body["params"] == {"scope": "play"}
        refused(bare.get("/api/lobby", headers=bearer(play_only)), 403, "token_scope")
        assert bare.post("/api/lobby/challenges", json=BLITZ, headers=bearer(play_only)).status_code == 201
        # a token of one scope may not make or revoke tokens
        refused(bare.post("/api/auth/tokens", json={"name": "x"}, headers=bearer(play_only)), 403, "token_scope")


def test_a_token_of_both_scopes_may_make_tokens(app, ann):
    token = make_token(ann)["token"]
    with client(app) as bare:
        r = bare.post("/api/auth/tokens", json={"name": "second"}, headers=bearer(token))
        assert r.status_code == 201, r.text
        names = [t["name"] for t in bare.get("/api/auth/tokens", headers=bearer(token)).json()["tokens"]]
        assert names == ["bot", "second"]


def test_a_revoked_token_is_refused(app, ann):
    made = make_token(ann)
    with client(app) as bare:
        assert bare.get("/api/me", headers=bearer(made["token"])).status_code == 200
        r = ann.delete(f"/api/auth/tokens/{made['id']}")
        assert r.status_code == 204, r.text
        refused(bare.get("/api/me", headers=bearer(made["token"])), 401, "token_invalid")
    assert ann.get("/api/auth/tokens").json()["tokens"] == []
    refused(ann.delete(f"/api/auth/tokens/{made['id']}"), 404, "no_token")


def test_tokens_need_a_signed_in_account(app):
    with client(app) as bare:
        refused(bare.post("/api/auth/tokens", json={"name": "x"}), 401, "login_needed")
        refused(bare.get("/api/auth/tokens"), 401, "login_needed")
        bare.guest("Cat")
        refused(bare.post("/api/auth/tokens", json={"name": "x"}), 403, "token_account_needed")


def test_a_cookie_request_still_needs_csrf(app, ann):
    r = ann.post("/api/auth/tokens", json={"name": "x"}, headers={"X-CSRF-Token": "wrong"})
    refused(r, 403, "csrf")


def test_another_accounts_token_cannot_be_revoked(app, ann):
    made = make_token(ann)
    bob = account(app, "Bob")
    refused(bob.delete(f"/api/auth/tokens/{made['id']}"), 404, "no_token")
    assert len(ann.get("/api/auth/tokens").json()["tokens"]) == 1
    bob.__exit__(None, None, None)


def test_a_bearer_websocket_needs_a_valid_token(app, ann):
    from starlette.websockets import WebSocketDisconnect

    token = make_token(ann)["token"]
    with client(app) as bare:
        with bare.websocket_connect("/api/lobby/live", headers=bearer(token)) as ws:
            assert ws.receive_json()["type"] == "lobby"
        with pytest.raises(WebSocketDisconnect) as e:
            with bare.websocket_connect("/api/lobby/live", headers=bearer("nardy_nope")):
                pass
        assert e.value.code == 4401

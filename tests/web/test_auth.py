"""Guests, accounts and log-in sessions (nardy.web.routers.auth), through the HTTP API against an SQLite file.

Each rule of the contract: the cookies' flags, guest / register / login / logout / me, one 401 for an
unknown name and a wrong password (and the same work done for both), log-in and sign-up rate limits (429
with Retry-After), the CSRF token of a request made with a log-in session, requests from other sites,
sessions that expire, passwords kept only as argon2 hashes, a guest who registers keeps their id.
"""

from __future__ import annotations

import datetime as dt
import warnings

import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import sqlalchemy as sa  # noqa: E402
from argon2 import PasswordHasher  # noqa: E402

from nardy.web.app import create_app  # noqa: E402
from nardy.web.routers.auth import AuthLimits, CurrentUser, SignedIn  # noqa: E402
from nardy.web.store.db import auth_sessions, users  # noqa: E402

from .helpers import Server  # noqa: E402

#: Real argon2id, with the least work it allows (the rate-limit tests make dozens of attempts).
CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
THIRTY_DAYS = 30 * 24 * 3600


class CountingHasher(PasswordHasher):
    """argon2-cffi's hasher, counting the verifications it does."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.verified = 0

    def verify(self, hash, password):
        self.verified += 1
        return super().verify(hash, password)


def make_app(tmp_path, hasher=CHEAP, **kw):
    app = create_app(f"sqlite:///{tmp_path / 'auth.db'}", **kw)
    app.state.password_hasher = hasher

    # routes of the test's own, to see what other routers get from the dependencies
    @app.get("/api/test/whoami")
    async def whoami(user: CurrentUser):
        return {"user": user.public() if user else None}

    @app.post("/api/test/signed-in")
    async def signed_in(user: SignedIn):
        return {"id": user.id}

    return app


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path)


@pytest.fixture
def client(app):
    with TestClient(app) as c:
        yield c


def cookies_of(r) -> dict[str, dict[str, str | bool]]:
    """``Set-Cookie`` headers: {name: {"value", attribute (lower case): value or True}}."""
    out = {}
    for header in r.headers.get_list("set-cookie"):
        first, *attrs = [p.strip() for p in header.split(";")]
        name, value = first.split("=", 1)
        entry: dict[str, str | bool] = {"value": value}
        for a in attrs:
            k, _, v = a.partition("=")
            entry[k.lower()] = v or True
        out[name] = entry
    return out


def refusal(r, status, code):
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code and body["message"] and body["detail"], body
    return body


def csrf_of(c) -> dict[str, str]:
    return {"X-CSRF-Token": c.get("/api/me").json()["csrf"]}


def db_rows(app, table):
    with app.state.storage.engine.connect() as c:
        return c.execute(sa.select(table)).all()


# ----- cookies ---------------------------------------------------------------------------------------------
def test_guest_gets_an_httponly_lax_session_cookie_and_a_csrf_cookie_the_page_can_read(client):
    r = client.post("/api/auth/guest", json={"name": "  Anna   K "})
    assert r.status_code == 200
    body = r.json()
    assert body["user"]["name"] == "Anna K" and body["user"]["guest"] is True and len(body["user"]["id"]) == 32
    ck = cookies_of(r)
    s, t = ck["nardy_session"], ck["nardy_csrf"]
    assert s["httponly"] is True and s["samesite"] == "lax" and s["path"] == "/" and "secure" not in s
    assert s["max-age"] == str(THIRTY_DAYS) and len(s["value"]) >= 43
    assert "httponly" not in t and t["samesite"] == "lax" and t["path"] == "/" and t["value"] == body["csrf"]
    assert client.get("/api/me").json() == body


def test_cookies_are_secure_over_https_and_when_the_server_says_so(tmp_path):
    with TestClient(make_app(tmp_path), base_url="https://testserver") as c:
        ck = cookies_of(c.post("/api/auth/guest", json={"name": "S"}))
        assert ck["nardy_session"]["secure"] is True and ck["nardy_csrf"]["secure"] is True
    with TestClient(make_app(tmp_path, secure_cookies=True)) as c:  # http, behind a TLS proxy
        ck = cookies_of(c.post("/api/auth/guest", json={"name": "S"}))
        assert ck["nardy_session"]["secure"] is True and ck["nardy_csrf"]["secure"] is True


def test_nardy_serve_secure_cookies_option_marks_the_cookies_secure(tmp_path):
    import json
    import urllib.request

    s = Server(f"sqlite:///{tmp_path / 'serve.db'}", extra=("--secure-cookies", "--no-warm-up"))
    s.start()
    try:
        req = urllib.request.Request(
            s.url + "/api/auth/guest",
            data=json.dumps({"name": "Srv"}).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=60) as r:
            headers = r.headers.get_all("Set-Cookie")
            assert json.loads(r.read())["user"]["name"] == "Srv"
    finally:
        s.stop()
    assert len(headers) == 2 and all("Secure" in h for h in headers), headers


# ----- guests -----------------------------------------------------------------------------------------------
def test_guest_names_need_not_be_unique_and_a_guest_asking_again_is_renamed(app):
    with TestClient(app) as a, TestClient(app) as b:
        ua = a.post("/api/auth/guest", json={"name": "Guest"}).json()["user"]
        ub = b.post("/api/auth/guest", json={"name": "guest"}).json()["user"]
        assert ua["id"] != ub["id"]
        again = a.post("/api/auth/guest", json={"name": "Renamed"}, headers=csrf_of(a)).json()["user"]
        assert again == {"id": ua["id"], "name": "Renamed", "guest": True, "bot": False}


@pytest.mark.parametrize(
    "name",
    ["", "   ", "a" * 41, "ß" * 21, "line\nbreak", "tab\there", "zero\u200bwidth", "\u202eright-to-left", "nul\x00"],
)
def test_bad_names_are_refused_in_both_languages(client, name):
    body = refusal(client.post("/api/auth/guest", json={"name": name}), 422, "bad_name")
    assert body["params"] == {"most": 40} and "40" in body["message"]
    ru = refusal(client.post("/api/auth/guest?lang=ru", json={"name": name}), 422, "bad_name")
    assert ru["message"].startswith("имя")
    refusal(client.post("/api/auth/register", json={"name": name, "password": "password1"}), 422, "bad_name")


def test_names_up_to_forty_characters_are_taken(client):
    assert client.post("/api/auth/guest", json={"name": "Ж" * 40}).json()["user"]["name"] == "Ж" * 40


# ----- accounts ---------------------------------------------------------------------------------------------
def test_register_then_logout_then_login_by_any_case_of_the_name(client):
    r = client.post("/api/auth/register", json={"name": "Vera", "password": "correct horse"})
    assert r.status_code == 201
    user = r.json()["user"]
    assert user["name"] == "Vera" and user["guest"] is False
    assert client.get("/api/test/whoami").json() == {"user": user}
    first_token = cookies_of(r)["nardy_session"]["value"]
    out = client.post("/api/auth/logout", headers=csrf_of(client))
    assert out.status_code == 200 and out.json() == {"ok": True}
    assert cookies_of(out)["nardy_session"]["max-age"] == "0"
    assert client.get("/api/me").json() == {"user": None, "csrf": None}
    r = client.post("/api/auth/login", json={"name": " VERA ", "password": "correct horse"})
    assert r.status_code == 200 and r.json()["user"] == user
    assert cookies_of(r)["nardy_session"]["value"] != first_token
    # the session logged out is over, whoever sends its cookie again
    with TestClient(client.app) as other:
        other.cookies.set("nardy_session", first_token)
        assert other.get("/api/me").json()["user"] is None


def test_a_taken_name_is_refused_whatever_its_case(client):
    assert client.post("/api/auth/register", json={"name": "Boris", "password": "password1"}).status_code == 201
    client.cookies.clear()
    body = refusal(
        client.post("/api/auth/register", json={"name": "BORIS", "password": "password2"}), 409, "name_taken"
    )
    assert body["params"] == {"name": "BORIS"}


@pytest.mark.parametrize(
    ("password", "status"), [("1234567", 422), ("12345678", 201), ("x" * 200, 201), ("x" * 201, 422)]
)
def test_passwords_have_8_to_200_characters(client, password, status):
    r = client.post("/api/auth/register", json={"name": f"P{len(password)}", "password": password})
    assert r.status_code == status, r.text
    if status == 422:
        assert r.json()["code"] == "bad_password" and r.json()["params"] == {"least": 8, "most": 200}


def test_wrong_password_and_unknown_name_get_the_same_401_and_cost_one_hash_each(tmp_path):
    hasher = CountingHasher(time_cost=1, memory_cost=8, parallelism=1)
    with TestClient(make_app(tmp_path, hasher=hasher)) as c:
        c.post("/api/auth/register", json={"name": "Dina", "password": "right password"})
        c.cookies.clear()
        c.post("/api/auth/guest", json={"name": "Guesty"})
        c.cookies.clear()
        answers = []
        for name in ("Dina", "Nobody", "Guesty"):  # wrong password, unknown name, a guest's name
            before = hasher.verified
            r = c.post("/api/auth/login", json={"name": name, "password": "wrong password"})
            assert hasher.verified == before + 1, name
            answers.append((r.status_code, r.json(), r.headers.get("set-cookie")))
        assert answers[0] == answers[1] == answers[2]
        assert answers[0][0] == 401 and answers[0][1]["code"] == "bad_login" and answers[0][2] is None


def test_passwords_are_stored_only_as_argon2id_hashes_and_tokens_only_as_sha256(tmp_path):
    app = make_app(tmp_path, hasher=PasswordHasher())  # the server's own parameters
    with TestClient(app) as c:
        r = c.post("/api/auth/register", json={"name": "Lev", "password": "s3cret-passw0rd"})
        token = cookies_of(r)["nardy_session"]["value"]
    (row,) = db_rows(app, users)
    assert row.password_hash.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert "s3cret" not in row.password_hash and PasswordHasher().verify(row.password_hash, "s3cret-passw0rd")
    (sess,) = db_rows(app, auth_sessions)
    assert token not in [str(v) for v in sess]
    raw = (tmp_path / "auth.db").read_bytes()
    assert b"s3cret-passw0rd" not in raw and token.encode() not in raw


def test_a_hash_made_with_older_parameters_is_replaced_at_log_in(tmp_path):
    app = make_app(tmp_path, hasher=CHEAP)
    with TestClient(app) as c:
        c.post("/api/auth/register", json={"name": "Old", "password": "old parameters"})
        assert db_rows(app, users)[0].password_hash.startswith("$argon2id$v=19$m=8,t=1,p=1$")
        app.state.password_hasher = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
        c.cookies.clear()
        assert c.post("/api/auth/login", json={"name": "old", "password": "old parameters"}).status_code == 200
        assert db_rows(app, users)[0].password_hash.startswith("$argon2id$v=19$m=16,t=2,p=1$")
        c.cookies.clear()
        assert c.post("/api/auth/login", json={"name": "old", "password": "old parameters"}).status_code == 200


def test_a_guest_who_registers_keeps_their_id_and_gets_a_new_session(app, client):
    g = client.post("/api/auth/guest", json={"name": "Visitor"})
    gid, old_token = g.json()["user"]["id"], cookies_of(g)["nardy_session"]["value"]
    r = client.post(
        "/api/auth/register",
        json={"name": "Member", "password": "password1"},
        headers={"X-CSRF-Token": g.json()["csrf"]},
    )
    assert r.status_code == 201 and r.json()["user"] == {"id": gid, "name": "Member", "guest": False, "bot": False}
    assert cookies_of(r)["nardy_session"]["value"] != old_token
    assert [(u.id, u.kind) for u in db_rows(app, users)] == [(gid, "account")]
    assert len(db_rows(app, auth_sessions)) == 1  # the guest's session ended


# ----- rate limits ------------------------------------------------------------------------------------------
def test_five_failed_log_ins_for_a_name_from_an_address_lock_it_there_for_fifteen_minutes_with_retry_after(tmp_path):
    now = [1000.0]
    app = make_app(tmp_path)
    app.state.auth_limits = AuthLimits(clock=lambda: now[0])
    with TestClient(app) as c:
        c.post("/api/auth/register", json={"name": "Victim", "password": "the right one"})
        c.cookies.clear()
        for _ in range(5):
            refusal(c.post("/api/auth/login", json={"name": "victim", "password": "guess"}), 401, "bad_login")
            now[0] += 10
        r = c.post("/api/auth/login?lang=ru", json={"name": "VICTIM", "password": "the right one"})
        body = refusal(r, 429, "too_many_logins")
        assert r.headers["Retry-After"] == "850" and body["params"] == {"retry_after": 850, "minutes": 15}
        assert "15 мин" in body["message"]
        # another name from the same address is not locked
        refusal(c.post("/api/auth/login", json={"name": "someone", "password": "guess"}), 401, "bad_login")
        now[0] += 850
        assert c.post("/api/auth/login", json={"name": "Victim", "password": "the right one"}).status_code == 200


def test_twenty_failed_log_ins_from_an_address_lock_it_and_not_other_addresses(app):
    with TestClient(app, client=("203.0.113.7", 4000)) as c:
        for i in range(20):
            refusal(c.post("/api/auth/login", json={"name": f"user{i}", "password": "guess"}), 401, "bad_login")
        r = c.post("/api/auth/login", json={"name": "fresh name", "password": "guess"})
        refusal(r, 429, "too_many_logins")
        assert 895 <= int(r.headers["Retry-After"]) <= 900
    with TestClient(app, client=("198.51.100.9", 4000)) as other:
        refusal(other.post("/api/auth/login", json={"name": "fresh name", "password": "guess"}), 401, "bad_login")


def test_a_successful_log_in_forgets_the_names_failures(client):
    client.post("/api/auth/register", json={"name": "Owner", "password": "owner's password"})
    client.cookies.clear()
    for _ in range(4):
        refusal(client.post("/api/auth/login", json={"name": "Owner", "password": "nope"}), 401, "bad_login")
    assert client.post("/api/auth/login", json={"name": "Owner", "password": "owner's password"}).status_code == 200
    client.cookies.clear()
    for _ in range(5):
        refusal(client.post("/api/auth/login", json={"name": "Owner", "password": "nope"}), 401, "bad_login")
    refusal(client.post("/api/auth/login", json={"name": "Owner", "password": "nope"}), 429, "too_many_logins")


def test_registrations_are_limited_per_address(client):
    for i in range(10):
        client.cookies.clear()
        assert client.post("/api/auth/register", json={"name": f"N{i}", "password": "password1"}).status_code == 201
    client.cookies.clear()
    r = client.post("/api/auth/register", json={"name": "N10", "password": "password1"})
    body = refusal(r, 429, "too_many_new_players")
    assert 3595 <= int(r.headers["Retry-After"]) <= 3600 and body["params"]["minutes"] == 60


def test_new_guests_are_limited_per_address(client):
    for i in range(30):
        client.cookies.clear()
        assert client.post("/api/auth/guest", json={"name": f"G{i}"}).status_code == 200
    client.cookies.clear()
    refusal(client.post("/api/auth/guest", json={"name": "G30"}), 429, "too_many_new_players")


# ----- CSRF and other sites ---------------------------------------------------------------------------------
def test_an_unsafe_request_with_a_session_needs_the_sessions_csrf_token(client):
    csrf = client.post("/api/auth/guest", json={"name": "Tok"}).json()["csrf"]
    new_game = {"opponent": "human"}
    body = refusal(client.post("/api/games", json=new_game), 403, "csrf")
    assert body["error"] == "CsrfRefused"
    refusal(client.post("/api/games", json=new_game, headers={"X-CSRF-Token": csrf[:-1]}), 403, "csrf")
    refusal(client.post("/api/games", json=new_game, headers={"X-CSRF-Token": ""}), 403, "csrf")
    refusal(client.post("/api/auth/logout"), 403, "csrf")
    r = client.post("/api/games", json=new_game, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    refusal(client.delete(f"/api/games/{gid}"), 403, "csrf")
    assert client.get(f"/api/games/{gid}").status_code == 200  # safe requests need no token
    assert client.delete(f"/api/games/{gid}", headers={"X-CSRF-Token": csrf}).status_code in (200, 204)
    # the token comes before the body is checked: a malformed body with no token is a 403, not a 422
    refusal(client.post("/api/games", json={"opponent": 5}), 403, "csrf")


def test_requests_without_a_valid_session_need_no_token(client, app):
    assert client.post("/api/games", json={"opponent": "human"}).status_code == 201
    client.cookies.set("nardy_session", "not-a-session-token")
    assert client.post("/api/games", json={"opponent": "human"}).status_code == 201
    me = client.get("/api/me")
    assert me.json() == {"user": None, "csrf": None} and cookies_of(me)["nardy_session"]["max-age"] == "0"


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "https://testserver.evil.example", "http://testserver:8080", "garbage"]
)
def test_a_request_from_another_site_is_refused(client, origin):
    body = refusal(client.post("/api/games", json={"opponent": "human"}, headers={"Origin": origin}), 403, "csrf")
    assert "Origin" in body["detail"]
    refusal(client.get("/api/me", headers={"Origin": origin}), 403, "csrf")
    refusal(
        client.post("/api/auth/login", json={"name": "a", "password": "b"}, headers={"Origin": origin}), 403, "csrf"
    )


def test_a_request_from_the_servers_own_page_is_accepted(tmp_path):
    with TestClient(make_app(tmp_path)) as c:
        assert (
            c.post("/api/games", json={"opponent": "human"}, headers={"Origin": "http://testserver"}).status_code == 201
        )
        assert c.get("/api/me", headers={"Origin": "http://TestServer:80"}).status_code == 200
    with TestClient(make_app(tmp_path), base_url="https://nardy.example.org") as c:
        assert c.get("/api/me", headers={"Origin": "https://nardy.example.org"}).status_code == 200
        assert c.get("/api/me", headers={"Origin": "https://nardy.example.org:443"}).status_code == 200
        refusal(c.get("/api/me", headers={"Origin": "https://nardy.example.org:8443"}), 403, "csrf")


# ----- sessions ---------------------------------------------------------------------------------------------
def test_a_session_ends_after_thirty_days(app, client):
    store = app.state.storage
    user = store.create_user("Expiring")
    past = dt.datetime.now(dt.UTC) - dt.timedelta(days=30, seconds=5)
    old = store.create_session(user.id, now=past)
    fresh = store.create_session(user.id, now=past + dt.timedelta(seconds=10))
    client.cookies.set("nardy_session", old.token)
    assert client.get("/api/me").json()["user"] is None
    body = refusal(client.post("/api/test/signed-in"), 401, "login_needed")
    assert body["error"] == "LoginNeeded"
    client.cookies.set("nardy_session", fresh.token)
    assert client.get("/api/me").json()["user"]["id"] == user.id
    assert client.post("/api/test/signed-in", headers={"X-CSRF-Token": fresh.csrf}).json() == {"id": user.id}
    assert fresh.expires - past - dt.timedelta(seconds=10) == dt.timedelta(days=30)


def test_signed_in_routes_answer_401_without_a_session_in_both_languages(client):
    assert refusal(client.post("/api/test/signed-in"), 401, "login_needed")["message"].startswith("log in")
    ru = refusal(client.post("/api/test/signed-in", headers={"Accept-Language": "ru"}), 401, "login_needed")
    assert ru["message"].startswith("сначала")

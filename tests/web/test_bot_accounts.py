"""Bot accounts (issue 44, docs/bots.md "Server"): ``register`` with ``"bot": true`` or ``POST /api/me/bot``
before any rated match; every public user JSON says ``"bot"``; a bot of the pool ``bots`` is rated among bots
(``GET /api/ratings?pool=bots``) and a rated match across the pools is refused 409 ``other_pool``."""

from __future__ import annotations

import datetime as dt
import secrets

import pytest

from nardy.web.app import create_app
from nardy.web.store.ratingbook import ratings
from nardy.web.store.storage import Storage

from .rated_play import play_turns
from .test_lobby import BLITZ, account, client, finish_by_resignation, refused

UNRATED = {**BLITZ, "rated": False}


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'bots.db'}"))


def bot_account(app, name: str):
    c = client(app)
    r = c.post(
        "/api/auth/register", json={"name": f"{name}{secrets.token_hex(2)}", "password": "correct horse", "bot": True}
    )
    assert r.status_code == 201, r.text
    c.me = r.json()["user"]
    return c


@pytest.fixture
def people(app):
    cs = [account(app, n) for n in ("Ann", "Bob")]
    yield cs
    for c in cs:
        c.__exit__(None, None, None)


@pytest.fixture
def robo(app):
    c = bot_account(app, "Robo")
    yield c
    c.__exit__(None, None, None)


def test_a_bot_account_says_bot_in_its_public_json(app, robo, people):
    ann, _ = people
    assert robo.me["bot"] is True and ann.me["bot"] is False
    assert robo.get("/api/me").json()["user"]["bot"] is True
    p = ann.get("/api/players", params={"name": robo.me["name"]}).json()
    assert p["id"] == robo.me["id"] and p["bot"] is True
    assert ann.get(f"/api/players/{robo.me['id']}").json()["bot"] is True
    robo.get("/api/lobby")
    online = {u["id"]: u for u in ann.get("/api/lobby").json()["online"]}
    assert online[robo.me["id"]]["bot"] is True and online[ann.me["id"]]["bot"] is False


def test_the_seats_of_a_game_with_a_bot_say_so(app, robo, people):
    ann, _ = people
    ch = ann.post("/api/lobby/challenges", json={**UNRATED, "to": robo.me["name"]}).json()["challenge"]
    v = robo.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}).json()
    bots = {v["seats"][i]["name"] for i in v["online"]["bots"]}
    assert bots == {robo.me["name"]} and len(v["online"]["bots"]) == 1


def test_an_account_becomes_a_bot_before_any_rated_match(app, people):
    ann, bob = people
    r = ann.post("/api/me/bot", json={"pool": "people"})
    assert r.status_code == 200, r.text
    assert r.json()["user"]["bot"] is True and r.json()["user"]["pool"] == "people"
    assert ann.get("/api/me").json()["user"]["bot"] is True
    # a rated match played: no more
    bob.post("/api/lobby/quick", json=BLITZ)
    with client(app) as carl:
        carl.post("/api/auth/register", json={"name": f"Carl{secrets.token_hex(2)}", "password": "correct horse"})
        carl.me = carl.get("/api/me").json()["user"]
        gid = carl.post("/api/lobby/quick", json=BLITZ).json()["game"]
        play_turns((bob, carl), gid)
        finish_by_resignation(carl, bob, gid)
        refused(carl.post("/api/me/bot", json={"pool": "bots"}), 409, "has_games")
        assert carl.get("/api/me").json()["user"]["bot"] is False
    with client(app) as guest:
        guest.guest("Cat")
        refused(guest.post("/api/me/bot", json={}), 403, "bot_account_needed")


def test_a_rated_challenge_across_the_pools_is_refused(app, robo, people):
    ann, bob = people
    # named: refused when made
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "to": robo.me["name"]}), 409, "other_pool")
    # open: refused when accepted, by either side
    ch = ann.post("/api/lobby/challenges", json=BLITZ).json()["challenge"]
    refused(robo.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 409, "other_pool")
    mine = robo.post("/api/lobby/challenges", json=BLITZ).json()["challenge"]
    refused(bob.post(f"/api/lobby/challenges/{mine['id']}/accept", json={}), 409, "other_pool")
    # unrated: fine; a bot of the pool "people" is rated with people
    ok = ann.post("/api/lobby/challenges", json={**UNRATED, "to": robo.me["name"]})
    assert ok.status_code == 201, ok.text
    assert bob.post("/api/me/bot", json={"pool": "people"}).status_code == 200
    r = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={})
    assert r.status_code == 200, r.text


def test_quick_pairing_rated_stays_within_a_pool(app, robo, people):
    ann, _ = people
    assert robo.post("/api/lobby/quick", json=BLITZ).json()["status"] == "waiting"
    assert ann.post("/api/lobby/quick", json=BLITZ).json()["status"] == "waiting"
    with bot_account(app, "Tin") as tin:
        r = tin.post("/api/lobby/quick", json=BLITZ).json()
        assert r["status"] == "paired"
        seats = {s["name"] for s in tin.get(f"/api/games/{r['game']}").json()["seats"]}
        assert seats == {robo.me["name"], tin.me["name"]}


def test_the_leaderboard_of_the_bots_pool_lists_bots_only(app, robo, people):
    ann, _ = people
    now = dt.datetime.now(dt.UTC)
    with app.state.storage.engine.begin() as c:
        for uid, rating in ((robo.me["id"], 1700.0), (ann.me["id"], 1600.0)):
            c.execute(
                ratings.insert().values(
                    user_id=uid,
                    game="long",
                    clock_class="blitz",
                    rating=rating,
                    rd=60.0,
                    vol=0.06,
                    matches=9,
                    wins=5,
                    updated=now,
                    opponents=4,
                )
            )
    q = {"game": "long", "clock": "blitz"}
    bots = ann.get("/api/ratings", params={**q, "pool": "bots"}).json()
    assert bots["pool"] == "bots"
    assert [(p["id"], p["bot"], p["rating"]) for p in bots["players"]] == [(robo.me["id"], True, 1700.0)]
    folk = ann.get("/api/ratings", params=q).json()
    assert folk["pool"] == "people" and [p["id"] for p in folk["players"]] == [ann.me["id"]]
    refused(ann.get("/api/ratings", params={**q, "pool": "robots"}), 422, "invalid_request")

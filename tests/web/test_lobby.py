"""The lobby, ratings and fair play through the API (docs/online.md "Lobby", "Ratings", "Fair play"): open
challenges, quick pairing, rated results on the leaderboard and in each player's history, blocks, rate
limits, abandoning and running out of time in a rated match; every route authorised, idempotent, 4xx JSON."""

from __future__ import annotations

import secrets
import time

import pytest

from nardy.web.app import create_app
from nardy.web.ratings import START, match_update
from nardy.web.store.community import LOBBY, MAX_OPEN, Community
from nardy.web.store.storage import Storage

from .lobby_page import Page, ids
from .players import PlayerClient
from .rated_play import play_turns

BLITZ = {"game": "long", "length": 1, "clock": "blitz", "rated": True}


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'lobby.db'}"))


def client(app) -> PlayerClient:
    c = PlayerClient(app, base_url="http://testserver")
    c.__enter__()
    return c


def account(app, name: str) -> PlayerClient:
    c = client(app)
    r = c.post("/api/auth/register", json={"name": f"{name}{secrets.token_hex(2)}", "password": "correct horse"})
    assert r.status_code == 201, r.text
    c.me = r.json()["user"]
    return c


def guest(app, name: str) -> PlayerClient:
    c = client(app)
    c.me = c.guest(name)
    return c


@pytest.fixture
def ann(app):
    c = account(app, "Ann")
    yield c
    c.__exit__(None, None, None)


@pytest.fixture
def bob(app):
    c = account(app, "Bob")
    yield c
    c.__exit__(None, None, None)


@pytest.fixture
def cat(app):
    c = guest(app, "Cat")
    yield c
    c.__exit__(None, None, None)


def refused(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code and body["message"] and body["error"], body
    return body


def challenge(c, **kw) -> dict:
    r = c.post("/api/lobby/challenges", json={**BLITZ, **kw})
    assert r.status_code == 201, r.text
    return r.json()["challenge"]


def lobby(c) -> dict:
    r = c.get("/api/lobby")
    assert r.status_code == 200, r.text
    return r.json()


def finish_by_resignation(loser, winner, gid):
    """``loser`` resigns a single game (a 1-point match: the match) and ``winner`` accepts."""
    v = loser.get(f"/api/games/{gid}").json()
    r = loser.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = winner.get(f"/api/games/{gid}").json()
    r = winner.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200, r.text
    assert r.json()["match_over"] is True
    return r.json()


# ----- open challenges ---------------------------------------------------------------------------------------
def test_an_open_challenge_is_listed_accepted_once_and_the_match_begins(ann, bob, cat):
    ch = challenge(ann, colour="white")
    assert bob.post("/api/lobby/quick", json={**BLITZ, "length": 3}).json()["status"] == "waiting"
    assert ch["status"] == "open" and ch["clock_class"] == "blitz" and ch["game"] == "long"
    assert "client_seed" not in ch  # the owner's dice seed is never shown
    seen = lobby(bob)
    mine = [c for c in seen["challenges"] if c["id"] == ch["id"]]
    assert mine and mine[0]["owner"]["id"] == ann.me["id"] and mine[0]["owner_rating"] == 1500
    assert {ann.me["id"], bob.me["id"]} <= {u["id"] for u in seen["online"]}
    # a guest may not take a rated challenge; the owner may not take their own
    refused(cat.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 403, "guest_unrated")
    refused(ann.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 409, "own_challenge")
    r = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={})
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["status"] == "playing" and v["you"] == [1] and v["online"]["rated"] is True
    assert v["online"]["rating_class"] == "blitz" and v["online"]["watchers"] is True
    assert v["players"][0] == ann.me["name"] and v["players"][1] == bob.me["name"]
    # a repeated accept answers the same game; anyone else is told it is taken
    again = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={})
    assert again.status_code == 200 and again.json()["id"] == v["id"]
    refused(ann.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 409, "challenge_taken")
    # the challenge has left the lobby; the game is there to watch; the owner's view is their side
    seen = lobby(cat)
    assert ch["id"] not in {c["id"] for c in seen["challenges"]}
    assert v["id"] in {g["id"] for g in seen["live"]}
    assert ann.get(f"/api/games/{v['id']}").json()["you"] == [0]
    # the owner's lobby says which game their taken challenge became (their page opens it)
    assert lobby(ann)["taken"]["game_id"] == v["id"] and lobby(bob)["taken"] is None
    # Bob plays now: his quick-pairing seek was withdrawn (nobody is paired with him meanwhile)
    assert bob.get("/api/lobby/quick").json()["status"] == "none"
    # withdrawing a taken challenge changes nothing
    r = ann.delete(f"/api/lobby/challenges/{ch['id']}")
    assert r.status_code == 200 and r.json()["challenge"]["status"] == "accepted"


def test_a_third_player_is_told_the_challenge_is_taken(app, ann, bob):
    ch = challenge(ann)
    assert bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}).status_code == 200
    dan = account(app, "Dan")
    refused(dan.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 409, "challenge_taken")
    refused(dan.post("/api/lobby/challenges/nosuch/accept", json={}), 404, "no_challenge")
    dan.__exit__(None, None, None)


def test_who_may_challenge_what(ann, cat):
    refused(cat.post("/api/lobby/challenges", json=BLITZ), 403, "guest_unrated")
    r = cat.post("/api/lobby/challenges", json={**BLITZ, "rated": False, "clock": "none"})
    assert r.status_code == 201 and r.json()["challenge"]["clock_class"] == "untimed"
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "clock": None}), 422, "rated_needs_clock")
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "game": "chess"}), 422, "unknown_game")
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "length": 0}), 422, "invalid_request")
    upside_down = {**BLITZ, "rating_min": 1600, "rating_max": 1400}
    refused(ann.post("/api/lobby/challenges", json=upside_down), 422, "invalid_request")
    # nobody signed in: 401 everywhere a player acts
    with PlayerClient(cat.app, base_url="http://testserver") as nobody:
        refused(nobody.post("/api/lobby/challenges", json=BLITZ), 401, "login_needed")
        refused(nobody.post("/api/lobby/quick", json=BLITZ), 401, "login_needed")
        refused(nobody.post("/api/blocks", json={"user": "x"}), 401, "login_needed")
        refused(nobody.get("/api/blocks"), 401, "login_needed")
        assert nobody.get("/api/lobby").json()["seek"] is None  # anyone may look


def test_a_rating_range_keeps_others_out(ann, bob):
    ch = challenge(ann, rating_min=1600)
    body = refused(bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 403, "out_of_range")
    assert body["params"]["rating"] == 1500


def test_a_challenges_rating_range_is_fixed_around_its_owners_rating(app, ann, bob):
    # rating_range: points either side of the owner's rating for the game and clock class (Ann: a new 1500)
    ch = challenge(ann, rating_range=200)
    assert (ch["rating_min"], ch["rating_max"]) == (1300, 1700)
    [listed] = lobby(bob)["challenges"]
    assert (listed["id"], listed["rating_min"], listed["rating_max"]) == (ch["id"], 1300, 1700)
    refused(
        ann.post("/api/lobby/challenges", json={**BLITZ, "rating_range": 200, "rating_min": 1000}),
        422,
        "invalid_request",
    )
    # Bob, rated 1800 at long nardy blitz, is outside it; at 1500 he was inside
    rate(app, bob, 1800)
    body = refused(bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 403, "out_of_range")
    assert body["params"]["rating"] == 1800


def test_challenges_are_rate_limited(app, ann):
    made = [challenge(ann) for _ in range(MAX_OPEN)]
    refused(ann.post("/api/lobby/challenges", json=BLITZ), 409, "too_many_open")
    # withdrawn ones still count towards the hour's limit
    for ch in made:
        assert ann.delete(f"/api/lobby/challenges/{ch['id']}").json()["challenge"]["status"] == "cancelled"
    assert ann.delete(f"/api/lobby/challenges/{made[0]['id']}").status_code == 200  # again: nothing
    refused(ann.delete("/api/lobby/challenges/nosuch"), 404, "no_challenge")
    n = MAX_OPEN
    while True:
        r = ann.post("/api/lobby/challenges", json=BLITZ)
        if r.status_code == 429:
            break
        assert r.status_code == 201, r.text
        ann.delete(f"/api/lobby/challenges/{r.json()['challenge']['id']}")
        n += 1
    assert n == 30
    body = refused(r, 429, "too_many_challenges")
    assert 1 <= int(r.headers["Retry-After"]) <= 3600 and body["params"]["minutes"] >= 1


# ----- quick pairing and ratings -----------------------------------------------------------------------------
def test_quick_pairing_pairs_two_players_on_the_same_terms(ann, bob, cat):
    r = ann.post("/api/lobby/quick", json={**BLITZ, "own_seed": True})
    assert r.status_code == 200 and r.json()["status"] == "waiting"
    seek = r.json()["seek"]
    again = ann.post("/api/lobby/quick", json={**BLITZ, "own_seed": True}).json()
    assert again["status"] == "waiting" and again["seek"]["id"] == seek["id"]  # the same seek
    # other terms do not pair; a guest cannot seek a rated match
    assert cat.post("/api/lobby/quick", json={**BLITZ, "rated": False}).json()["status"] == "waiting"
    refused(cat.post("/api/lobby/quick", json=BLITZ), 403, "guest_unrated")
    assert seek["id"] not in {c["id"] for c in lobby(bob)["challenges"]}  # seeks are not listed
    r = bob.post("/api/lobby/quick", json={**BLITZ, "own_seed": True})
    assert r.status_code == 200 and r.json()["status"] == "paired"
    gid = r.json()["game"]
    waiting = ann.get("/api/lobby/quick").json()
    assert waiting["status"] == "paired" and waiting["game"] == gid
    assert lobby(ann)["seek"]["game_id"] == gid
    v = ann.get(f"/api/games/{gid}").json()
    assert v["status"] == "waiting" and v["online"]["rated"] and v["online"]["seed_wanted"]
    assert sorted(v["you"] + bob.get(f"/api/games/{gid}").json()["you"]) == [0, 1]
    # each gives their own seed, with the commitment the game showed them: the match begins with the last
    for c, seed in ((ann, "annseed"), (bob, "bobseed")):
        shown = c.get(f"/api/games/{gid}").json()["online"]["commitment"]
        r = c.post(f"/api/games/{gid}/seed", json={"client_seed": seed, "commitment": shown})
        assert r.status_code == 200, r.text
    assert r.json()["status"] == "playing"
    # the dice are both players' (fair dice: each seed is in the record)
    assert sorted(ann.get(f"/api/games/{gid}/fairness").json()["client_seeds"]) == ["annseed", "bobseed"]
    # leaving the queue: nothing to leave now; Cat's seek is withdrawn (again: nothing)
    assert cat.delete("/api/lobby/quick").json()["seek"]["status"] == "cancelled"
    assert cat.delete("/api/lobby/quick").json()["seek"] is None
    assert cat.get("/api/lobby/quick").json()["status"] == "none"


def rate(app, player, rating: float) -> None:
    """Give ``player`` a long nardy blitz rating (5 matches played)."""
    from nardy.web.store.community import ratings

    with Community(app.state.storage).engine.begin() as c:
        c.execute(
            ratings.insert().values(
                user_id=player.me["id"],
                game="long",
                clock_class="blitz",
                rating=rating,
                rd=60,
                vol=0.06,
                matches=5,
                wins=5,
                updated=time_now(),
            )
        )


def test_quick_pairing_keeps_to_the_rating_range(app, ann, bob):
    # Bob is rated 1800 at long nardy blitz: a range of 100 around Ann's 1500 does not take him
    rate(app, bob, 1800)
    assert ann.post("/api/lobby/quick", json={**BLITZ, "rating_range": 100}).json()["status"] == "waiting"
    assert bob.post("/api/lobby/quick", json=BLITZ).json()["status"] == "waiting"
    assert bob.post("/api/lobby/quick", json={**BLITZ, "rating_range": 400}).json()["status"] == "waiting"
    # without a range on Ann's side they pair
    assert ann.post("/api/lobby/quick", json=BLITZ).json()["status"] == "paired"


def time_now():
    import datetime as dt

    return dt.datetime.now(dt.UTC)


def test_a_rated_match_changes_both_ratings_once(ann, bob):
    ann.post("/api/lobby/quick", json=BLITZ)
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
    play_turns((ann, bob), gid)  # a real game (a result before it is not rated: test_rating_farming.py)
    finish_by_resignation(bob, ann, gid)
    want_w, want_l = match_update(START, START, 1)
    mine = ann.get(f"/api/players/{ann.me['id']}").json()["ratings"]
    assert [(r["game"], r["clock_class"], r["rating"], r["matches"], r["wins"]) for r in mine] == [
        ("long", "blitz", round(want_w.rating, 2), 1, 1)
    ]
    assert mine[0]["provisional"] is True and mine[0]["established"] is False and mine[0]["opponents"] == 1
    theirs = ann.get(f"/api/players/{bob.me['id']}").json()["ratings"]
    assert theirs[0]["rating"] == round(want_l.rating, 2) and theirs[0]["wins"] == 0
    # one match against one opponent establishes nobody: the leaderboard lists established players only
    assert ann.get("/api/ratings", params={"game": "long", "clock": "blitz"}).json()["players"] == []
    # the history of each player has the match, once
    h = bob.get(f"/api/players/{bob.me['id']}/history").json()["history"]
    assert len(h) == 1 and h[0]["game_id"] == gid and h[0]["won"] is False and h[0]["reason"] == "points"
    assert h[0]["before"] == 1500 and h[0]["opponent"]["id"] == ann.me["id"] and h[0]["after"] < 1500
    p = ann.get(f"/api/players/{bob.me['id']}").json()
    assert p["name"] == bob.me["name"] and p["ratings"][0]["rating"] < 1500
    assert p["fair_play"] == {"rated": 1, "abandoned": 0, "time": 0}
    # finished games, with their records to download (public: anyone may)
    games = ann.get(f"/api/players/{bob.me['id']}/games").json()["games"]
    assert [g["id"] for g in games] == [gid] and games[0]["rated"] is True
    assert ann.get(games[0]["record"]).status_code == 200
    assert "Match" in ann.get(games[0]["mat"]).text or ann.get(games[0]["mat"]).status_code == 200
    # storing the finished game again (a rematch offer writes it) rates nothing twice
    assert ann.post(f"/api/games/{gid}/rematch", json={}).status_code == 201
    assert len(ann.get(f"/api/players/{ann.me['id']}/history").json()["history"]) == 1
    refused(ann.get("/api/players/nosuch"), 404, "no_player")
    refused(ann.get("/api/ratings", params={"game": "chess"}), 422, "invalid_request")


# ----- blocks -------------------------------------------------------------------------------------------------
def test_a_blocked_players_challenges_are_hidden_and_refused_both_ways(app, ann, bob):
    ch = challenge(ann)
    r = bob.post("/api/blocks", json={"user": ann.me["id"]})
    assert r.status_code == 200 and r.json()["new"] is True
    assert bob.post("/api/blocks", json={"user": ann.me["id"]}).json()["new"] is False  # again: nothing
    assert [b["id"] for b in bob.get("/api/blocks").json()["blocks"]] == [ann.me["id"]]
    assert ch["id"] not in {c["id"] for c in lobby(bob)["challenges"]}
    refused(bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 403, "blocked")
    theirs = challenge(bob)
    assert theirs["id"] not in {c["id"] for c in lobby(ann)["challenges"]}
    refused(ann.post(f"/api/lobby/challenges/{theirs['id']}/accept", json={}), 403, "blocked")
    # quick pairing never pairs them
    assert ann.post("/api/lobby/quick", json=BLITZ).json()["status"] == "waiting"
    assert bob.post("/api/lobby/quick", json=BLITZ).json()["status"] == "waiting"
    refused(bob.post("/api/blocks", json={"user": bob.me["id"]}), 422, "self_block")
    refused(bob.post("/api/blocks", json={"user": "nosuch"}), 404, "no_player")
    assert bob.delete(f"/api/blocks/{ann.me['id']}").status_code == 204
    assert bob.delete(f"/api/blocks/{ann.me['id']}").status_code == 204  # again: nothing
    assert ch["id"] in {c["id"] for c in lobby(bob)["challenges"]}


# ----- fair play ----------------------------------------------------------------------------------------------
def test_abandoning_a_rated_match_past_the_grace_period_loses_it(app, ann, bob, cat):
    ann.post("/api/lobby/quick", json=BLITZ)
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
    v = play_turns((ann, bob), gid)
    gone, claimer = (ann, bob) if v["to_act"] in ann.get(f"/api/games/{gid}").json()["you"] else (bob, ann)
    app.state.abandon_grace = 0.5
    com = Community(app.state.storage)
    com.touch([(gone.me["id"], gid)])  # the player to act is connected to the game
    body = refused(claimer.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    assert body["params"]["seconds"] >= 1
    refused(cat.post(f"/api/games/{gid}/claim"), 403, "not_seated")
    time.sleep(0.7)  # the player to act has been away past the grace period
    r = claimer.post(f"/api/games/{gid}/claim")
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["match_over"] and v["online"]["ended"]["reason"] == "abandoned"
    assert v["match_winner"] == claimer.get(f"/api/games/{gid}").json()["you"][0]
    refused(claimer.post(f"/api/games/{gid}/claim"), 409, "match_over")  # again: nothing
    fp = ann.get(f"/api/players/{gone.me['id']}").json()["fair_play"]
    assert fp == {"rated": 1, "abandoned": 1, "time": 0}
    h = gone.get(f"/api/players/{gone.me['id']}/history").json()["history"]
    assert h[0]["reason"] == "abandoned" and h[0]["after"] < 1500
    # an unrated game can be claimed too (issue 43): tests/web/test_abort_and_casual_claims.py


#: A clock that leaves time for a real game played by the tests (a second free each turn), then runs out 3 s after.
SHORT_CLOCK = {"initial": 2, "increment": 0, "delay": 1}


def test_running_out_of_time_in_a_rated_match_is_a_rated_loss(ann, bob):
    ann.post("/api/lobby/quick", json={**BLITZ, "clock": SHORT_CLOCK})
    gid = bob.post("/api/lobby/quick", json={**BLITZ, "clock": SHORT_CLOCK}).json()["game"]
    play_turns((ann, bob), gid)
    v = ann.get(f"/api/games/{gid}").json()
    mover = ann if v["to_act"] in v["you"] else bob
    time.sleep(3.2)
    v = mover.get(f"/api/games/{gid}").json()
    r = mover.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    refused(r, 400, "time_out")
    loser = mover.me["id"]
    fp = ann.get(f"/api/players/{loser}").json()["fair_play"]
    assert fp["time"] == 1 and fp["rated"] == 1


# ----- the live lobby -----------------------------------------------------------------------------------------
def test_the_lobby_channel_sends_the_lobby_and_each_change(app, ann, bob):
    anon = client(app)  # nobody signed in may watch the lobby too
    page, page2 = Page(), Page()
    with bob.websocket_connect("/api/lobby/live") as ws, anon.websocket_connect("/api/lobby/live") as ws2:
        first = page.receive(ws)
        assert first["type"] == "lobby" and first["lobby"]["me"] == bob.me["id"]
        assert page2.receive(ws2)["lobby"]["me"] is None
        ch = challenge(ann)
        for p, w in ((page, ws), (page2, ws2)):  # (another change may come first: someone came online)
            lobby = p.until(w, lambda lobby: ch["id"] in ids(lobby))
        assert lobby["seek"] is None and lobby["me"] is None
        ws.send_text("ping")
        assert ws.receive_text() == "pong"
        # Ann's quick seek and Bob's pairing: Bob is told through the channel too (his seek is paired)
        ann.post("/api/lobby/quick", json=BLITZ)
        gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
        page.until(ws, lambda lobby: lobby["seek"] is None and gid in ids(lobby, "live"))
    anon.__exit__(None, None, None)
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect):
        with ann.websocket_connect("/api/lobby/live", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()


def test_presence_is_kept_in_the_database(app, ann):
    com = Community(app.state.storage)
    assert com.seen(ann.me["id"], LOBBY) is None
    lobby(ann)
    assert com.seen(ann.me["id"], LOBBY) is not None


def test_a_players_finished_games_others_see_only_those_open_to_watchers(ann, bob, cat):
    # a private online match (an invitation without watchers), finished; and a game against the computer
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    assert bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).status_code == 200
    finish_by_resignation(ann, bob, g["id"])
    assert ann.post("/api/games", json={"game": "long", "opponent": "bot", "level": "beginner"}).status_code == 201
    mine = ann.get(f"/api/players/{ann.me['id']}/games").json()["games"]
    assert [x["id"] for x in mine] == [g["id"]] and mine[0]["rated"] is False
    assert cat.get(f"/api/players/{ann.me['id']}/games").json()["games"] == []
    assert cat.get(mine[0]["record"]).status_code == 404  # and its record stays the players' (as if none)


def test_the_presence_round_writes_who_is_connected_to_a_game(app, ann, bob):
    import asyncio

    ann.post("/api/lobby/quick", json=BLITZ)
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
    com = Community(app.state.storage)
    assert com.seen(bob.me["id"], gid) is None
    with bob.websocket_connect(f"/api/games/{gid}/live") as ws:
        ws.receive_json()
        asyncio.run(app.state.presence_keeper.tick())
    assert com.seen(bob.me["id"], gid) is not None and com.seen(ann.me["id"], gid) is None


def test_the_lobby_channel_takes_more_connections_than_a_game(app, ann, monkeypatch):
    from starlette.websockets import WebSocketDisconnect

    from nardy.web.routers import lobby as lobby_module
    from nardy.web.services.live import MAX_PER_GAME, Conn

    hub = app.state.hub
    # more than a game may have (connections whose sockets are gone: sending to them does nothing)
    hub.games[LOBBY] = {Conn(None, None, [], None, "own", "en") for _ in range(MAX_PER_GAME + 1)}
    with ann.websocket_connect("/api/lobby/live") as ws:
        assert ws.receive_json()["type"] == "lobby"
    monkeypatch.setattr(lobby_module, "MAX_LOBBY", MAX_PER_GAME + 1)
    with pytest.raises(WebSocketDisconnect):
        with ann.websocket_connect("/api/lobby/live") as ws:
            ws.receive_json()
    del hub.games[LOBBY]


def test_a_rated_match_ended_by_the_clock_keeper_is_rated_too(app, ann, bob):
    import asyncio

    ann.post("/api/lobby/quick", json={**BLITZ, "clock": SHORT_CLOCK})
    gid = bob.post("/api/lobby/quick", json={**BLITZ, "clock": SHORT_CLOCK}).json()["game"]
    play_turns((ann, bob), gid)
    time.sleep(3.2)  # nobody acts: the keeper's round (in the app, every second; or this one) ends it on time
    asyncio.run(app.state.clock_keeper.tick())
    v = ann.get(f"/api/games/{gid}").json()
    assert v["match_over"] and v["online"]["ended"]["reason"] == "time"
    loser = ann if v["match_winner"] not in v["you"] else bob
    h = loser.get(f"/api/players/{loser.me['id']}/history").json()["history"]
    assert [x["reason"] for x in h] == ["time"] and h[0]["won"] is False


def test_the_clock_keeper_passes_a_game_another_writer_stored_meanwhile_and_ends_it_next_round(
    app, ann, bob, monkeypatch
):
    """Two keepers (two server processes) may read a due game at once; the one whose store comes second
    finds a newer revision (409). That is not an error of the round: it passes, and the next round (which
    reads what the other stored) has nothing or the rest to do. Other due games are not held up."""
    import asyncio

    from nardy.web.routers import online as online_module

    keeper = app.state.clock_keeper
    keeper.period = 3600.0  # the app's own rounds: one more at most, within the second, then none
    time.sleep(1.1)
    clock = {"initial": 1, "increment": 0, "delay": 0}
    ann.post("/api/lobby/quick", json={**BLITZ, "clock": clock})
    gid = bob.post("/api/lobby/quick", json={**BLITZ, "clock": clock}).json()["game"]
    real = online_module.store_game
    calls = []

    def conflict(store, game):
        calls.append(game.saved.id)
        raise online_module.HTTPException(409, "the game changed while this action was under way; reload it")

    time.sleep(1.2)
    monkeypatch.setattr(online_module, "store_game", conflict)
    assert asyncio.run(keeper.tick()) == 0 and calls == [gid]
    monkeypatch.setattr(online_module, "store_game", real)
    assert asyncio.run(keeper.tick()) == 1
    v = ann.get(f"/api/games/{gid}").json()
    assert v["match_over"] and v["online"]["ended"]["reason"] == "time"

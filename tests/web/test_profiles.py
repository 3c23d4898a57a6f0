"""A player's page through the API (docs/online.md "Player pages", issue 43): found by name, their games filtered
by game, opponent and result, private games never listed to strangers, the rating graph's points (one per
rated match), the head-to-head record, the players' ratings in the game's view. Rated games are real ones,
played through the API (rated_play.py)."""

from __future__ import annotations

import pytest

from nardy.web.app import create_app
from nardy.web.ratings import START, match_update
from nardy.web.store.storage import Storage

from .rated_play import play_turns
from .test_lobby import BLITZ, account, client, finish_by_resignation, guest, refused


@pytest.fixture
def app(empty_db):
    """The server on SQLite and on PostgreSQL (the winner is read from the stored summary's JSON by each's own
    functions)."""
    return create_app(storage=Storage(empty_db))


@pytest.fixture
def people(app):
    made = {n: account(app, n) for n in ("Ann", "Bob", "Dan")}
    made["cat"] = guest(app, "Cat")
    yield made
    for c in made.values():
        c.__exit__(None, None, None)


def rated_match(winner, loser, game: str = "long") -> str:
    """A real rated 1-point blitz match of ``game`` between the two, won by ``winner`` (the loser resigns
    after both have taken enough turns)."""
    terms = {**BLITZ, "game": game}
    assert winner.post("/api/lobby/quick", json=terms).json()["status"] == "waiting"
    gid = loser.post("/api/lobby/quick", json=terms).json()["game"]
    play_turns((winner, loser), gid)
    finish_by_resignation(loser, winner, gid)
    return gid


def private_match(winner, loser) -> str:
    """A private (no watchers) unrated online match by invitation, won by ``winner``."""
    g = loser.post("/api/games", json={"game": "short", "opponent": "online", "length": 1}).json()
    assert winner.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).status_code == 200
    finish_by_resignation(loser, winner, g["id"])
    return g["id"]


def games_of(c, uid: str, **q) -> list[str]:
    r = c.get(f"/api/players/{uid}/games", params=q)
    assert r.status_code == 200, r.text
    return [g["id"] for g in r.json()["games"]]


def test_a_player_is_found_by_name_and_guests_are_not(people):
    ann, cat = people["Ann"], people["cat"]
    r = cat.get("/api/players", params={"name": ann.me["name"].upper()})
    assert r.status_code == 200 and r.json() == {
        "id": ann.me["id"],
        "name": ann.me["name"],
        "guest": False,
        "bot": False,
    }
    refused(ann.get("/api/players", params={"name": cat.me["name"]}), 404, "no_player")
    refused(ann.get("/api/players", params={"name": "nobody-at-all"}), 404, "no_player")
    refused(ann.get("/api/players"), 422, "invalid_request")


def test_games_are_filtered_by_game_opponent_and_result_with_links(people):
    ann, bob, dan = people["Ann"], people["Bob"], people["Dan"]
    g1 = rated_match(ann, bob)  # Ann beats Bob at long nardy
    g2 = rated_match(bob, ann, game="backgammon")  # Bob beats Ann at backgammon
    g3 = rated_match(ann, dan)  # Ann beats Dan at long nardy
    a = ann.me["id"]
    assert games_of(dan, a) == [g3, g2, g1]  # most recent first
    assert games_of(dan, a, game="long") == [g3, g1]
    assert games_of(dan, a, game="backgammon") == [g2]
    assert games_of(dan, a, opponent=bob.me["id"]) == [g2, g1]
    assert games_of(dan, a, result="won") == [g3, g1]
    assert games_of(dan, a, result="lost") == [g2]
    assert games_of(dan, a, result="lost", opponent=dan.me["id"]) == []
    assert games_of(dan, bob.me["id"], result="won") == [g2]
    page = dan.get(f"/api/players/{a}/games", params={"limit": 2}).json()
    assert [g["id"] for g in page["games"]] == [g3, g2] and page["more"] is True
    rest = dan.get(f"/api/players/{a}/games", params={"limit": 2, "offset": 2}).json()
    assert [g["id"] for g in rest["games"]] == [g1] and rest["more"] is False
    row = page["games"][0]
    assert row["opponent"] == {"id": dan.me["id"], "name": dan.me["name"]} and row["result"] == "won"
    assert row["rated"] is True and row["clock_class"] == "blitz"
    want_w, _ = match_update(START, START, 1)
    assert row["rating"]["after"] > row["rating"]["before"]
    first = rest["games"][0]
    assert first["rating"] == {"before": 1500, "after": round(want_w.rating, 2)}
    assert row["mat"] == f"/api/games/{g3}/mat" and dan.get(row["mat"]).status_code == 200
    assert row["analysis"] == f"/api/games/{g3}/analysis"
    refused(dan.get(f"/api/players/{a}/games", params={"limit": 101}), 422, "invalid_request")
    refused(dan.get(f"/api/players/{a}/games", params={"result": "draw"}), 422, "invalid_request")
    refused(dan.get(f"/api/players/{a}/games", params={"game": "chess"}), 422, "invalid_request")
    refused(dan.get("/api/players/nosuch/games"), 404, "no_player")


def test_private_games_are_listed_only_to_those_who_sat_at_them(people):
    ann, bob, dan, cat = people["Ann"], people["Bob"], people["Dan"], people["cat"]
    gid = private_match(ann, bob)
    a = ann.me["id"]
    assert games_of(ann, a) == [gid] and games_of(bob, a) == [gid]  # the two players see it
    assert games_of(dan, a) == [] and games_of(cat, a) == []  # strangers do not, signed in or not
    anon = client(ann.app)  # nor a client that never signed in
    assert games_of(anon, a) == []
    anon.__exit__(None, None, None)
    assert games_of(dan, a, opponent=bob.me["id"], result="won") == []
    # the head-to-head counts it only for them too
    assert bob.get(f"/api/players/{a}/versus/{bob.me['id']}").json()["games"] == {"played": 1, "won": 1, "lost": 0}
    assert dan.get(f"/api/players/{a}/versus/{bob.me['id']}").json()["games"] == {"played": 0, "won": 0, "lost": 0}


def test_the_rating_graph_has_a_point_per_rated_match(people):
    ann, bob, dan = people["Ann"], people["Bob"], people["Dan"]
    g1 = rated_match(ann, bob)
    g2 = rated_match(ann, dan)
    g3 = rated_match(bob, ann, game="backgammon")
    private_match(ann, bob)  # unrated: no point
    r = dan.get(f"/api/players/{ann.me['id']}/ratings").json()
    assert [p["game_id"] for p in r["points"]] == [g1, g2, g3]  # oldest first
    assert [(p["game"], p["clock_class"], p["won"]) for p in r["points"]] == [
        ("long", "blitz", True),
        ("long", "blitz", True),
        ("backgammon", "blitz", False),
    ]
    assert r["points"][0]["before"] == 1500 and r["points"][1]["before"] == r["points"][0]["rating"]
    assert r["points"][0]["opponent"] == {"id": bob.me["id"], "name": bob.me["name"]}
    now = {(x["game"], x["clock_class"]): x["rating"] for x in r["ratings"]}
    assert now == {("long", "blitz"): r["points"][1]["rating"], ("backgammon", "blitz"): r["points"][2]["rating"]}
    only = dan.get(f"/api/players/{ann.me['id']}/ratings", params={"game": "backgammon", "clock": "blitz"}).json()
    assert [p["game_id"] for p in only["points"]] == [g3]
    refused(dan.get(f"/api/players/{ann.me['id']}/ratings", params={"limit": 1001}), 422, "invalid_request")


def test_head_to_head_counts_games_and_rated_results(people):
    ann, bob, dan = people["Ann"], people["Bob"], people["Dan"]
    rated_match(ann, bob)
    rated_match(bob, ann, game="backgammon")
    rated_match(ann, bob, game="short")
    rated_match(ann, dan)  # another opponent: not counted
    a, b = ann.me["id"], bob.me["id"]
    r = dan.get(f"/api/players/{a}/versus/{b}").json()
    assert r["player"]["id"] == a and r["opponent"]["name"] == bob.me["name"]
    assert r["games"] == {"played": 3, "won": 2, "lost": 1}
    assert r["by_game"] == {
        "backgammon": {"played": 1, "won": 0, "lost": 1},
        "long": {"played": 1, "won": 1, "lost": 0},
        "short": {"played": 1, "won": 1, "lost": 0},
    }
    assert r["rated"] == {"played": 3, "won": 2, "lost": 1}
    back = dan.get(f"/api/players/{b}/versus/{a}").json()
    assert back["games"] == {"played": 3, "won": 1, "lost": 2} and back["rated"]["won"] == 1
    refused(dan.get(f"/api/players/{a}/versus/nosuch"), 404, "no_player")


def test_the_game_view_shows_both_players_ratings_as_the_match_began(people):
    ann, bob = people["Ann"], people["Bob"]
    rated_match(ann, bob)
    a_now = ann.get(f"/api/players/{ann.me['id']}").json()["ratings"][0]["rating"]
    b_now = ann.get(f"/api/players/{bob.me['id']}").json()["ratings"][0]["rating"]
    ann.post("/api/lobby/quick", json=BLITZ)
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
    v = ann.get(f"/api/games/{gid}").json()
    rating_of = {ann.me["name"]: round(a_now), bob.me["name"]: round(b_now)}
    assert v["online"]["ratings"] == [rating_of[v["players"][0]], rating_of[v["players"][1]]]
    assert round(a_now) != round(b_now)
    # a new player in a rated match is at the start (1500); in an unrated one without a rating: unknown
    dan, eve = people["Dan"], account(ann.app, "Eve")
    dan.post("/api/lobby/quick", json={**BLITZ, "game": "short"})
    gid = eve.post("/api/lobby/quick", json={**BLITZ, "game": "short"}).json()["game"]
    assert dan.get(f"/api/games/{gid}").json()["online"]["ratings"] == [1500, 1500]
    finish_by_resignation(dan, eve, gid)
    dan.post("/api/lobby/quick", json={**BLITZ, "game": "short", "rated": False})
    gid = eve.post("/api/lobby/quick", json={**BLITZ, "game": "short", "rated": False}).json()["game"]
    assert dan.get(f"/api/games/{gid}").json()["online"]["ratings"] == [None, None]
    eve.__exit__(None, None, None)

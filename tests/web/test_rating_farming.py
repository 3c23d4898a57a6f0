"""Ratings cannot be farmed with accounts one controls (docs/online.md "Ratings", issue 41 item 5).

The outside test gave one account +162 and first place in two requests (a challenge accepted, resigned at
once). Now a rated result needs a real game (each side has taken ``MIN_TURNS`` turns), repeated results of the
same two players within 24 hours weigh 1, 1/2, 1/4 and then nothing, and the leaderboard lists only
established players (``ESTABLISHED_MATCHES`` rated matches against ``ESTABLISHED_OPPONENTS`` opponents).
"""

from __future__ import annotations

import datetime as dt
import secrets
import time

import pytest
import sqlalchemy as sa

from nardy.web.app import create_app
from nardy.web.ratings import (
    ESTABLISHED_MATCHES,
    ESTABLISHED_OPPONENTS,
    MIN_TURNS,
    PAIR_WEIGHTS,
    START,
    Rating,
    match_update,
)
from nardy.web.store.community import Community, RatedMatch
from nardy.web.store.storage import Storage

from .rated_play import play_turns
from .test_lobby import BLITZ, account, finish_by_resignation

T0 = dt.datetime(2030, 1, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'farm.db'}"))


@pytest.fixture
def two(app):
    made = [account(app, "Farm"), account(app, "Sock")]
    yield made
    for c in made:
        c.__exit__(None, None, None)


def nothing_rated(c, *players) -> None:
    for p in players:
        info = c.get(f"/api/players/{p.me['id']}").json()
        assert info["ratings"] == [] and info["fair_play"] == {"rated": 0, "abandoned": 0, "time": 0}, info
        assert c.get(f"/api/players/{p.me['id']}/history").json()["history"] == []
    assert c.get("/api/ratings", params={"game": "long", "clock": "blitz"}).json()["players"] == []


def test_the_two_request_farm_changes_no_rating(two):
    farm, sock = two
    r = farm.post("/api/lobby/challenges", json=BLITZ)
    assert r.status_code == 201, r.text
    gid = sock.post(f"/api/lobby/challenges/{r.json()['challenge']['id']}/accept", json={}).json()["id"]
    out = finish_by_resignation(sock, farm, gid)  # resigned at once: the match is over...
    assert out["match_over"] and out["online"]["rated"]
    nothing_rated(farm, farm, sock)  # ...and rated for nobody


def test_a_match_decided_one_turn_short_of_a_real_game_is_not_rated(two):
    farm, sock = two
    farm.post("/api/lobby/quick", json=BLITZ)
    gid = sock.post("/api/lobby/quick", json=BLITZ).json()["game"]
    play_turns((farm, sock), gid, MIN_TURNS - 1)
    finish_by_resignation(sock, farm, gid)
    nothing_rated(sock, farm, sock)


def test_an_early_abandonment_claim_is_not_rated(app, two):
    farm, sock = two
    farm.post("/api/lobby/quick", json=BLITZ)
    gid = sock.post("/api/lobby/quick", json=BLITZ).json()["game"]
    v = farm.get(f"/api/games/{gid}").json()
    claimer = sock if v["to_act"] in v["you"] else farm
    app.state.wall_clock = lambda: time.time() + 1000  # the player to act left at once
    r = claimer.post(f"/api/games/{gid}/claim")
    assert r.status_code == 200 and r.json()["online"]["ended"]["reason"] == "abandoned", r.text
    nothing_rated(farm, farm, sock)


@pytest.fixture
def store(empty_db):
    st = Storage(empty_db)
    yield st
    st.close()


def people(st: Storage, *names: str) -> list[str]:
    return [st.create_user(f"{n}{secrets.token_hex(2)}", "argon2-hash-not-checked-here").id for n in names]


def rate(com: Community, winner: str, loser: str, at: dt.datetime, game: str = "long", klass: str = "blitz") -> str:
    gid = secrets.token_hex(8)
    with com.engine.begin() as c:
        com._rate_in(c, RatedMatch(gid, game, klass, 1, winner, loser, "points"), at)
    return gid


def test_repeated_results_of_one_pair_weigh_less_then_nothing_within_a_day(store):
    com = Community(store)
    a, b, c = people(store, "Ann", "Bob", "Cat")
    assert PAIR_WEIGHTS == (1.0, 0.5, 0.25)
    want_a, want_b = START, START
    for i, weight in enumerate(PAIR_WEIGHTS):  # a beats b three times within a day: each weighs half the last
        want_a, want_b = match_update(want_a, want_b, 1, weight=weight)
        rate(com, a, b, T0 + dt.timedelta(hours=i))
        assert com.rating(a, "long", "blitz") == pytest.approx(want_a)
        assert com.rating(b, "long", "blitz") == pytest.approx(want_b)
    assert [h["weight"] for h in com.history(a)] == [0.25, 0.5, 1.0]
    gain = [h["after"] - h["before"] for h in reversed(com.history(a))]
    assert gain[0] > gain[1] > gain[2] > 0
    # a fourth result within the day is not rated at all, in another game and clock class too
    rate(com, a, b, T0 + dt.timedelta(hours=3))
    rate(com, b, a, T0 + dt.timedelta(hours=4), "backgammon", "rapid")
    assert com.rating(a, "long", "blitz") == pytest.approx(want_a) and len(com.history(a)) == 3
    assert com.rating(b, "backgammon", "rapid") == START and com.fair_play(b)["rated"] == 3
    # another pair at the same time weighs in full
    rate(com, c, a, T0 + dt.timedelta(hours=4))
    assert com.history(c)[0]["weight"] == 1.0
    # the window rolls: 24 h after the first result, two of the pair's results remain in it (weight 1/4)
    rate(com, a, b, T0 + dt.timedelta(hours=24, minutes=30))
    assert com.history(a)[0]["weight"] == 0.25
    # a day after the last, the pair weighs in full again
    rate(com, a, b, T0 + dt.timedelta(hours=49))
    assert com.history(a)[0]["weight"] == 1.0


def test_a_provisional_player_is_not_on_the_leaderboard(app):
    store = app.state.storage
    com = Community(store)
    clients = [account(app, n) for n in ("Ace", "Ben", "Cid", "Dot", "Eli", "Fay")]
    ace, ben, cid, dot, eli, fay = (c.me["id"] for c in clients)
    assert (ESTABLISHED_MATCHES, ESTABLISHED_OPPONENTS) == (5, 3)
    day = dt.timedelta(days=1)
    # Ace: 5 rated matches against 3 opponents (established); Ben, Cid, Dot: 2 or 1 (provisional)
    for i, opp in enumerate((ben, cid, dot, ben, cid)):
        rate(com, ace, opp, T0 + i * day)
    # Eli: 5 rated matches, a day apart (each weighs in full), all against Fay: one opponent, provisional
    for i in range(5):
        rate(com, eli, fay, T0 + i * day)
    board = clients[0].get("/api/ratings", params={"game": "long", "clock": "blitz"}).json()["players"]
    assert [(p["rank"], p["id"], p["matches"], p["opponents"], p["established"]) for p in board] == [
        (1, ace, 5, 3, True)
    ]
    eli_rating = clients[0].get(f"/api/players/{eli}").json()["ratings"][0]
    assert eli_rating["matches"] == 5 and eli_rating["opponents"] == 1 and eli_rating["provisional"] is True
    assert eli_rating["established"] is False and eli_rating["rating"] > 1500  # rated, but not listed
    # a second opponent is not enough; a third establishes Eli
    rate(com, eli, cid, T0 + 6 * day)
    assert [p["id"] for p in com.leaderboard("long", "blitz")] == [ace]
    rate(com, eli, dot, T0 + 7 * day)
    board = clients[0].get("/api/ratings", params={"game": "long", "clock": "blitz"}).json()["players"]
    assert sorted(p["id"] for p in board) == sorted([eli, ace]) and [p["rank"] for p in board] == [1, 2]
    for c in clients:
        c.__exit__(None, None, None)


def test_the_schema_upgrade_counts_the_opponents_of_ratings_already_stored(empty_db):
    from alembic import command

    from nardy.web.store.db import _alembic_config, normalise_url

    st = Storage(empty_db)
    a, b, c = people(st, "Ann", "Bob", "Cat")
    eng = sa.create_engine(normalise_url(empty_db), poolclass=sa.pool.NullPool)
    with eng.begin() as conn:
        cfg = _alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0005")
    with eng.begin() as conn:  # what 0005's server stored: a rating and its history (no opponents column)
        conn.execute(
            sa.text(
                "INSERT INTO nardy_ratings (user_id, game, clock_class, rating, rd, vol, matches, wins, updated)"
                " VALUES (:u, 'long', 'blitz', 1600, 200, 0.06, 3, 3, :t)"
            ),
            {"u": a, "t": T0},
        )
        for i, opp in enumerate((b, c, b)):
            conn.execute(
                sa.text(
                    "INSERT INTO nardy_rating_history (game_id, user_id, game, clock_class, opponent, length, won,"
                    " reason, before, after, rd, at) VALUES (:g, :u, 'long', 'blitz', :o, 1, :w, 'points',"
                    " 1500, 1600, 200, :t)"
                ),
                {"g": f"g{i}", "u": a, "o": opp, "w": True, "t": T0},
            )
    eng.dispose()
    st.close()
    st = Storage(empty_db)  # upgraded to the newest revision when opened
    com = Community(st)
    row = com.ratings_of(a)[0]
    assert (row["matches"], row["opponents"], row["established"]) == (3, 2, False)
    assert [h["weight"] for h in com.history(a)] == [1.0, 1.0, 1.0]
    assert com.rating(a, "long", "blitz") == Rating(1600, 200, 0.06)
    st.close()

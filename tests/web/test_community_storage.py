"""The lobby's tables on SQLite and PostgreSQL (nardy/web/store/community.py): presence, challenges and their
limits, a challenge taken once when two take it at once, quick pairing by two servers at once, rated results
(once per match, both players' rows locked in order), blocks. Each test has a database of its own
(``empty_db``: an SQLite file, or a PostgreSQL schema when ``NARDY_TEST_POSTGRES_URL`` is set)."""

from __future__ import annotations

import datetime as dt
import threading

import pytest

from nardy.web.ratings import START, Rating, match_update
from nardy.web.store.community import (
    CHALLENGE_TTL,
    LOBBY,
    MAX_OPEN,
    PRESENCE_FRESH,
    ChallengeLimit,
    ChallengeRefused,
    Community,
    RatedMatch,
)
from nardy.web.store.storage import Storage

TERMS = {"game": "long", "length": 3, "clock": "blitz", "clock_class": "blitz", "rated": True}


@pytest.fixture
def store(empty_db):
    st = Storage(empty_db)
    yield st
    st.close()


def players(st: Storage, *names: str) -> list[str]:
    return [st.create_user(n, "argon2-hash-not-checked-here").id for n in names]


def builder(st: Storage, made: list):
    def build(ch, conn) -> str:
        g = st.create({"challenge": ch.id}, ch.game, "playing", "t", {}, None, conn=conn)
        made.append(g.id)
        return g.id

    return build


def test_presence_is_fresh_for_a_while(store):
    com = Community(store)
    a, b = players(store, "Ann", "Bob")
    t0 = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    com.touch([(a, LOBBY), (a, "g1"), (b, LOBBY), (a, LOBBY)], t0)
    com.touch([(b, LOBBY)], t0 + dt.timedelta(seconds=30))
    assert com.seen(a, "g1") == t0 and com.seen(b, "g1") is None
    assert [u["name"] for u in com.online(t0 + dt.timedelta(seconds=30))] == ["Ann", "Bob"]  # by name
    assert [u["name"] for u in com.online(t0 + PRESENCE_FRESH + dt.timedelta(seconds=1))] == ["Bob"]
    # a day later the rows are forgotten
    assert com.prune(t0 + dt.timedelta(days=1, seconds=20)) == 2 and com.seen(a, "g1") is None
    assert com.seen(b, LOBBY) == t0 + dt.timedelta(seconds=30)


def test_challenges_listed_while_their_owner_is_online_and_limited(store):
    com = Community(store)
    a, b = players(store, "Ann", "Bob")
    now = dt.datetime.now(dt.UTC)
    ch = com.create_challenge(a, {**TERMS, "colour": "white", "client_seed": "s", "rating_min": 1400}, now)
    assert ch.clock == "blitz" and ch.rating_min == 1400 and ch.rating_max is None
    assert com.open_challenges(now) == []  # Ann is not online
    com.touch([(a, LOBBY)], now)
    assert [c.id for c in com.open_challenges(now)] == [ch.id]
    assert com.open_challenges(now + CHALLENGE_TTL + dt.timedelta(seconds=1)) == []  # lapsed
    for _ in range(MAX_OPEN - 1):
        com.create_challenge(a, TERMS, now)
    with pytest.raises(ChallengeLimit) as e:
        com.create_challenge(a, TERMS, now)
    assert e.value.kind == "too_many_open"
    assert com.cancel_challenge(ch.id, b) is None  # not Bob's
    assert com.cancel_challenge(ch.id, a).status == "cancelled"
    assert com.cancel_challenge(ch.id, a).status == "cancelled"  # again: the same


def test_a_challenge_taken_by_two_at_once_goes_to_one(empty_db, store):
    a, b, c = players(store, "Ann", "Bob", "Cat")
    com = Community(store)
    ch = com.create_challenge(a, TERMS)
    other = Storage(empty_db)  # a second server process on the same database
    made: list = []
    results: dict = {}
    barrier = threading.Barrier(2)

    def take(com_, who):
        barrier.wait()
        try:
            results[who] = com_.take_challenge(ch.id, who, builder(com_.storage, made))
        except ChallengeRefused as e:
            results[who] = e.code

    threads = [
        threading.Thread(target=take, args=(com, b)),
        threading.Thread(target=take, args=(Community(other), c)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [w for w, r in results.items() if not isinstance(r, str)]
    assert len(won) == 1 and len(made) in (1, 2)
    lost = ({b, c} - set(won)).pop()
    assert results[lost] == "challenge_taken"
    stored = com.challenge(ch.id)
    assert stored.status == "accepted" and stored.taken_by == won[0] and store.get(stored.game_id) is not None
    # a game made by the loser's attempt was rolled back with it
    assert sum(store.get(g) is not None for g in made) == 1
    # the winner's repeat answers the same game
    again, new = com.take_challenge(ch.id, won[0], builder(store, made))
    assert not new and again.game_id == stored.game_id
    other.close()


def test_quick_pairing_from_two_servers_at_once_pairs_them_once(empty_db, store):
    a, b = players(store, "Ann", "Bob")
    coms = [Community(store), Community(Storage(empty_db))]
    now = dt.datetime.now(dt.UTC)
    coms[0].touch([(a, LOBBY), (b, LOBBY)], now)
    made: list = []
    out: dict = {}
    barrier = threading.Barrier(2)

    def seek(i, who):
        barrier.wait()
        out[who] = coms[i].quick_pair(who, TERMS, 1500.0, builder(coms[i].storage, made))

    threads = [threading.Thread(target=seek, args=(0, a)), threading.Thread(target=seek, args=(1, b))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    paired = [w for w, (_, p) in out.items() if p]
    assert len(paired) == 1 and len(made) == 1
    waiting = ({a, b} - set(paired)).pop()
    seek_of_waiting = coms[0].seek(waiting)
    assert seek_of_waiting.status == "accepted" and seek_of_waiting.game_id == made[0]
    assert coms[0].seek(paired[0]) is None  # the one who paired never waited
    coms[1].storage.close()


def test_quick_pairing_respects_terms_ranges_and_blocks(store):
    com = Community(store)
    a, b, c = players(store, "Ann", "Bob", "Cat")
    now = dt.datetime.now(dt.UTC)
    com.touch([(a, LOBBY), (b, LOBBY), (c, LOBBY)], now)
    made: list = []
    ranged = {**TERMS, "rating_min": 1450, "rating_max": 1550}
    first, paired = com.quick_pair(a, ranged, 1500.0, builder(store, made))
    assert not paired
    # other terms: no pairing; the same seek kept when asked again, replaced when asked on other terms
    assert not com.quick_pair(b, {**TERMS, "length": 5}, 1500.0, builder(store, made))[1]
    assert com.quick_pair(a, ranged, 1500.0, builder(store, made))[0].id == first.id
    # out of Ann's range: Cat is 1600
    assert not com.quick_pair(c, TERMS, 1600.0, builder(store, made))[1]
    assert made == []
    # Bob blocks Ann: he is paired with Cat, who came after her
    com.block(b, a)
    seek, paired = com.quick_pair(b, TERMS, 1500.0, builder(store, made))
    assert paired and seek.owner == c and made == [seek.game_id]
    com.unblock(b, a)
    seek, paired = com.quick_pair(b, TERMS, 1500.0, builder(store, made))
    assert paired and seek.id == first.id and seek.taken_by == b and made[1:] == [seek.game_id]


def test_a_rated_match_is_rated_once_with_both_rows_updated(store):
    com = Community(store)
    a, b = players(store, "Ann", "Bob")
    g = store.create({}, "backgammon", "over")
    m = RatedMatch(g.id, "backgammon", "rapid", 5, a, b, "points")
    for _ in range(2):  # a repeat changes nothing
        with store.engine.begin() as c:
            com.rate_match(m)(c)
    w, lo = match_update(START, START, 5)
    assert com.rating(a, "backgammon", "rapid") == pytest.approx(w)
    assert com.rating(b, "backgammon", "rapid") == pytest.approx(lo)
    assert com.rating(a, "backgammon", "blitz") == START  # another clock class: untouched
    mine = com.ratings_of(a)
    assert [(r["matches"], r["wins"], r["opponents"], r["established"]) for r in mine] == [(1, 1, 1, False)]
    assert com.leaderboard("backgammon", "rapid") == []  # one match against one opponent: not established
    assert [h["won"] for h in com.history(b)] == [False] and com.fair_play(b) == {"rated": 1, "abandoned": 0, "time": 0}
    # the ratings' update rides the save of the finished game: a stale save stores neither
    g2 = store.create({}, "backgammon", "playing")
    stale = store.get(g2.id)
    store.save(store.get(g2.id))
    from nardy.web.store.db import StaleRevision

    with pytest.raises(StaleRevision):
        store.save(stale, also=com.rate_match(RatedMatch(g2.id, "backgammon", "rapid", 1, b, a, "time")))
    assert len(com.history(a)) == 1


def test_rated_matches_finishing_at_once_for_one_player_are_both_counted(empty_db, store):
    a, b, c = players(store, "Ann", "Bob", "Cat")
    other = Storage(empty_db)
    g1, g2 = store.create({}, "long", "over"), store.create({}, "long", "over")
    barrier = threading.Barrier(2)

    def rate(st, m):
        barrier.wait()
        with st.engine.begin() as conn:
            Community(st).rate_match(m)(conn)

    ms = [RatedMatch(g1.id, "long", "blitz", 1, a, b, "points"), RatedMatch(g2.id, "long", "blitz", 1, a, c, "points")]
    threads = [threading.Thread(target=rate, args=(st, m)) for st, m in zip((store, other), ms)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    row = Community(store).ratings_of(a)[0]
    assert row["matches"] == 2 and row["wins"] == 2 and row["rating"] > match_update(START, START, 1)[0].rating
    other.close()


def test_idle_players_come_back_less_certain(store):
    com = Community(store)
    a, b = players(store, "Ann", "Bob")
    g1, g2 = store.create({}, "short", "over"), store.create({}, "short", "over")
    t0 = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    with store.engine.begin() as c:
        com._rate_in(c, RatedMatch(g1.id, "short", "classic", 1, a, b, "points"), t0)
    after_one = com.rating(a, "short", "classic")
    with store.engine.begin() as c:
        com._rate_in(c, RatedMatch(g2.id, "short", "classic", 1, a, b, "points"), t0 + dt.timedelta(days=70))
    h = com.history(a)
    assert h[0]["before"] == pytest.approx(after_one.rating, abs=0.01)
    assert isinstance(com.rating(a, "short", "classic"), Rating)


def test_blocks_both_ways(store):
    com = Community(store)
    a, b, c = players(store, "Ann", "Bob", "Cat")
    assert com.block(a, b) and not com.block(a, b)
    assert com.avoided([a, b, c]) == {a: {b}, b: {a}, c: set()}
    assert [u["name"] for u in com.blocked_by(a)] == ["Bob"] and com.blocked_by(b) == []
    assert com.unblock(a, b) and not com.unblock(a, b)
    assert com.avoided([a]) == {a: set()}

"""An online game's actions are stored as a log, and each server process keeps the games it has loaded
(nardy/web/gamecache.py, migration 0004): the log replays to the same game, a kept game follows another
process's actions by the log, a game changed otherwise is rebuilt whole, a refused action leaves the stored
game as it was, and games stored whole (before the log) still load."""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from nardy.web.app import create_app
from nardy.web.deps import read_game, read_locked
from nardy.web.gamecache import SNAPSHOT_EVERY, cache_of, columns, materialise
from nardy.web.services.saving import store_session
from nardy.web.sessions import new_session
from nardy.web.store.db import StorageUnavailable, pg_rows
from nardy.web.store.storage import Storage

from .players import PlayerClient
from .test_online import joined, play_first, play_out, view


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'log.db'}"


@pytest.fixture
def pair(db):
    app = create_app(storage=Storage(db))
    a, b = PlayerClient(app, base_url="http://testserver"), PlayerClient(app, base_url="http://testserver")
    for c, name in ((a, "Ann"), (b, "Bob")):
        c.__enter__()
        c.guest(name)
    yield app, a, b
    for c in (a, b):
        c.__exit__(None, None, None)
    app.state.storage.close()


def rows(store: Storage, gid: str) -> tuple[int, int, int]:
    """(revision, base_revision, logged actions) of game ``gid`` as stored."""
    with store.engine.connect() as c:
        q = sa.text("SELECT revision, base_revision FROM nardy_games WHERE id = :g")
        rev, base = c.execute(q, {"g": gid}).one()
        n = c.execute(sa.text("SELECT count(*) FROM nardy_game_actions WHERE game_id = :g"), {"g": gid}).scalar()
    return rev, base, n


def mover_of(a, b, gid):
    v = view(a, gid)
    return [a, b][v["to_act"]]


def test_an_online_game_stores_each_action_as_a_log_row_and_its_snapshot_only_now_and_then(pair):
    app, a, b = pair
    store = app.state.storage
    gid, _ = joined(a, b)
    rev0, base0, n0 = rows(store, gid)
    assert (base0, n0) == (rev0, 0)  # the join stored the game whole
    for _ in range(3):
        play_first(mover_of(a, b, gid), gid)
    rev, base, n = rows(store, gid)
    assert (rev, base, n) == (rev0 + 3, rev0, 3)  # three rows appended; the snapshot untouched
    for _ in range(SNAPSHOT_EVERY):
        if view(a, gid)["status"] == "over":
            break
        play_first(mover_of(a, b, gid), gid)
    rev, base, n = rows(store, gid)
    # a snapshot every SNAPSHOT_EVERY actions (its action logged with it), so a rebuild replays fewer
    assert rev0 < base <= rev and rev - base < SNAPSHOT_EVERY and n == rev - rev0


def test_the_log_replays_to_the_same_game_as_the_one_kept_and_the_match_ends_stored_whole(pair):
    app, a, b = pair
    store = app.state.storage
    gid, _ = joined(a, b)
    for _ in range(5):
        play_first(mover_of(a, b, gid), gid)
    kept = cache_of(store).peek(gid)
    fresh = read_game(store, gid)  # snapshot + log, rebuilt from the database
    assert fresh.saved.revision == kept.saved.revision and fresh.saved.actions
    assert fresh.session.to_dict() == kept.session.to_dict()
    assert fresh.session.view(0, sides=[0]) == kept.session.view(0, sides=[0])
    end = play_out(a, b, gid)
    assert end["status"] == "over"
    rev, base, _ = rows(store, gid)
    assert base == rev  # the finished match is stored whole (its records, the ratings)
    assert read_game(store, gid).session.to_dict() == cache_of(store).peek(gid).session.to_dict()


def test_a_kept_game_follows_another_processs_actions_by_the_log_and_is_rebuilt_when_changed_otherwise(db):
    one, two = Storage(db), Storage(db)  # two server processes on one database
    s = new_session("long", length=1, opponent="online", owner="ann", client_seed="a", players=["Ann", "?"])
    s.join("bob", "Bob", "b", 1000.0)
    s.run_bots(now=1000.0)
    saved = one.create(s.to_dict(), "long", s.status, s.title(), s.summary(), columns(s))
    first, second = cache_of(one), cache_of(two)
    assert first.read(saved.id).saved.revision == 0 and first.rebuilt == 1
    assert first.read(saved.id) is first.peek(saved.id) and first.hits == 1  # nothing new: one small query
    # the other process acts twice, each action appended to the log
    for k in range(2):
        game = second.read(saved.id)
        g = game.session.game
        play = g.position.legal_plays(g.dice)[0]
        done = game.session.act("play", play=str(play), player=g.to_act, run=False, now=1001.0 + k)
        game.session.run_bots(now=1001.0 + k)
        store_session(two, game, done["entry"])
    assert rows(one, saved.id)[1:] == (0, 2)
    mine = first.read(saved.id)
    assert (first.applied, first.rebuilt, mine.saved.revision) == (1, 1, 2)  # the two actions applied, no rebuild
    assert mine.session.to_dict() == second.peek(saved.id).session.to_dict()
    # a change that is no logged action (stored whole without one): the kept game is rebuilt
    other = second.read(saved.id)
    other.session.table.forfeit(0, "abandoned", 1010.0)
    store_session(two, other)
    again = first.read(saved.id)
    assert first.rebuilt == 2 and again.session.table.is_over and again.session.table.ended["reason"] == "abandoned"
    one.close()
    two.close()


def test_a_refused_action_leaves_the_stored_game_as_it_was(pair):
    app, a, b = pair
    store = app.state.storage
    gid, _ = joined(a, b)
    play_first(mover_of(a, b, gid), gid)
    mover = mover_of(a, b, gid)
    before = view(mover, gid)
    r = mover.post(f"/api/games/{gid}/actions", json={"action": "play", "play": "24/1 24/1", "seq": before["seq"]})
    assert r.status_code == 400, r.text
    # the kept game was forgotten (it may be half changed): the next read rebuilds the stored one
    assert cache_of(store).peek(gid) is None
    assert view(mover, gid) == before
    play_first(mover, gid)
    assert view(mover, gid)["seq"] == before["seq"] + 1


def test_a_game_stored_whole_before_the_log_still_loads_and_takes_logged_actions(db):
    store = Storage(db)
    s = new_session("long", length=1, opponent="online", owner="ann", client_seed="a", players=["Ann", "?"])
    s.join("bob", "Bob", "b", 1000.0)
    s.run_bots(now=1000.0)
    saved = store.create(s.to_dict(), "long", s.status, s.title(), s.summary(), columns(s))
    # as revision 0003 stored it: no base revision, the whole game in data, at revision 7
    with store.engine.begin() as c:
        c.execute(
            sa.text("UPDATE nardy_games SET revision = 7, base_revision = NULL, data = :d WHERE id = :g"),
            {"d": json.dumps(s.to_dict()), "g": saved.id},
        )
    got = store.get(saved.id)
    assert (got.revision, got.base, got.actions) == (7, 7, [])
    game = read_locked(store, saved.id)
    assert game.saved.revision == 7 and game.session.to_dict() == s.to_dict()
    g = game.session.game
    done = game.session.act("play", play=str(g.position.legal_plays(g.dice)[0]), player=g.to_act, run=False)
    game.session.run_bots(now=done["entry"]["t"])
    store_session(store, game, done["entry"])
    assert rows(store, saved.id) == (8, 7, 1)
    assert materialise(store.get(saved.id)).to_dict() == game.session.to_dict()
    store.close()


def test_the_history_shown_is_the_same_whether_made_whole_or_from_the_items_kept(pair):
    app, a, b = pair
    gid, _ = joined(a, b)
    for _ in range(4):
        play_first(mover_of(a, b, gid), gid)
    kept = cache_of(app.state.storage).peek(gid).session
    shown_kept = kept.history("own")
    assert shown_kept == read_game(app.state.storage, gid).session.history("own")
    assert [h["kind"] for h in shown_kept].count("play") >= 4


def test_a_statement_run_on_the_driver_that_fails_is_storage_unavailable_and_the_pool_recovers():
    # the hot statements of an action (the lock, the revision, the store) run on psycopg directly (pg_rows):
    # a killed database connection is still answered 503 (StorageUnavailable), never as the driver's own error
    from .helpers import pg_schema

    url, drop = pg_schema("nardy_raw")
    store = Storage(url)
    try:
        s = new_session("long", length=1, opponent="online", owner="ann", client_seed="a", players=["Ann", "?"])
        s.join("bob", "Bob", "b", 1000.0)
        s.run_bots(now=1000.0)
        saved = store.create(s.to_dict(), "long", s.status, s.title(), s.summary(), columns(s))
        assert store.changes(saved.id, 0).kind == "same"
        assert store.changes("no-such-game", 0) is None
        with pytest.raises(StorageUnavailable):
            with store.unit() as c:
                c.execute(sa.text("SELECT pg_terminate_backend(pg_backend_pid())"))
        with pytest.raises(StorageUnavailable):
            with store.unit() as c:
                pg_rows(c, "SELECT no_such_function()", ())
        with pytest.raises(StorageUnavailable):
            with store.unit() as c:
                pid = pg_rows(c, "SELECT pg_backend_pid()", ())[0][0]
                with store.engine.connect() as other:
                    other.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid})
                store.changes(saved.id, 0)
        # the pool hands out working connections again: the game is stored and read as before
        game = read_game(store, saved.id)
        g = game.session.game
        done = game.session.act("play", play=str(g.legal_plays()[0]), player=g.to_act, run=False, now=1001.0)
        game.session.run_bots(now=1001.0)
        store_session(store, game, done["entry"])
        assert store.changes(saved.id, 0).kind == "actions" and store.changes(saved.id, 1).kind == "same"
    finally:
        store.close()
        drop()

"""The database schema is kept by Alembic (nardy/web/migrations): a fresh database is made at the newest
revision, a database made before Alembic (``metadata.create_all`` of the first server) is recognised,
stamped 0001 and upgraded in place with every saved game kept, reopening changes nothing, and servers
opening one fresh database at once migrate it once.

SQLite files, and PostgreSQL when ``NARDY_TEST_POSTGRES_URL`` names a database (the ``empty_db`` fixture:
there, a schema of the test's own).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from nardy.web.sessions import new_session
from nardy.web.store import community as _community  # noqa: F401  (its tables in the metadata)
from nardy.web.store import social as _social  # noqa: F401  (its tables in the metadata)
from nardy.web.store.db import SCHEMA_HEAD, StorageError, metadata, migrate, normalise_url
from nardy.web.store.storage import Storage

ROOT = Path(__file__).resolve().parents[2]

NEW_TABLES = {"nardy_users", "nardy_auth_sessions", "nardy_server"} | {
    "nardy_challenges",
    "nardy_ratings",
    "nardy_rating_history",
    "nardy_blocks",
    "nardy_presence",
    "nardy_game_actions",
    "nardy_analyses",
    "nardy_follows",
    "nardy_user_settings",
    "nardy_chat_messages",
    "nardy_chat_mutes",
    "nardy_chat_reports",
    "nardy_api_tokens",
}
NEW_GAME_COLUMNS = {"owner", "seat0", "seat1", "visibility", "invite_hash", "clock_due", "base_revision"}


def old_games_table(md: sa.MetaData) -> sa.Table:
    """``nardy_games`` exactly as the storage defined it before Alembic (revision 0001)."""
    return sa.Table(
        "nardy_games",
        md,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("title", sa.String(200), nullable=False, default=""),
        sa.Column("summary", sa.Text, nullable=False, default="{}"),
        sa.Column("revision", sa.Integer, nullable=False, default=0),
        sa.Column("data", sa.Text, nullable=False),
    )


def engine_for(url: str) -> sa.Engine:
    return sa.create_engine(normalise_url(url), poolclass=sa.pool.NullPool)


def schema_of(url: str) -> tuple[set[str], set[str], str | None]:
    """(tables, columns of nardy_games, the alembic revision)."""
    eng = engine_for(url)
    with eng.connect() as c:
        insp = sa.inspect(c)
        tables = set(insp.get_table_names())
        cols = {col["name"] for col in insp.get_columns("nardy_games")} if "nardy_games" in tables else set()
        rev = None
        if "alembic_version" in tables:
            rev = c.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    eng.dispose()
    return tables, cols, rev


def test_a_fresh_database_is_made_at_the_newest_revision_and_matches_the_storage_tables(empty_db):
    url = empty_db
    st = Storage(url)
    tables, cols, rev = schema_of(url)
    assert rev == SCHEMA_HEAD == "0011"
    assert tables == {"alembic_version", "nardy_games"} | NEW_TABLES
    assert NEW_GAME_COLUMNS <= cols
    # what the revisions made is what nardy.web.store.storage's tables describe (names, types, indexes)
    with st.engine.connect() as c:
        diff = compare_metadata(MigrationContext.configure(c), metadata)
    assert diff == []
    g = st.create({"x": 1}, "long", "playing", "A")
    with st.engine.connect() as c:
        q = sa.text("SELECT visibility, owner, clock_due FROM nardy_games WHERE id = :i")
        row = c.execute(q, {"i": g.id}).one()
    assert tuple(row) == ("private", None, None)
    st.close()


def test_a_database_made_before_alembic_is_upgraded_in_place_and_keeps_its_games(empty_db):
    url = empty_db
    md = sa.MetaData()
    old = old_games_table(md)
    eng = engine_for(url)
    md.create_all(eng)
    s = new_session("long", level="beginner", seed=3)
    t0 = dt.datetime(2024, 5, 1, 12, 0, tzinfo=dt.UTC)
    rows = [
        dict(
            id=f"old{i}",
            created=t0,
            updated=t0 + dt.timedelta(minutes=i),
            game="long",
            status=s.status,
            title=f"game {i}",
            summary=json.dumps(s.summary()),
            revision=i,
            data=json.dumps(s.to_dict()),
        )
        for i in range(3)
    ]
    with eng.begin() as c:
        c.execute(old.insert(), rows)
    eng.dispose()
    assert schema_of(url) == ({"nardy_games"}, {c.name for c in old.columns}, None)

    st = Storage(url)
    tables, cols, rev = schema_of(url)
    assert rev == SCHEMA_HEAD and tables == {"alembic_version", "nardy_games"} | NEW_TABLES
    assert cols == {c.name for c in old.columns} | NEW_GAME_COLUMNS
    with st.engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), metadata) == []
    assert st.count() == 3
    got = st.get("old1")
    assert got.data == s.to_dict() and got.revision == 1 and got.title == "game 1" and got.created == t0
    # a game stored whole is its own snapshot: nothing to replay
    assert got.base == 1 and got.actions == []
    assert [g.id for g in st.list()] == ["old2", "old1", "old0"]
    got.status = "over"
    st.save(got)  # the upgraded table takes writes
    assert st.get("old1").revision == 2
    st.close()


def test_reopening_an_upgraded_database_changes_nothing(empty_db):
    url = empty_db
    st = Storage(url)
    g = st.create({"y": 2}, "backgammon", "playing", "B")
    st.close()
    for _ in range(2):
        st = Storage(url)
        assert migrate(st.engine) == SCHEMA_HEAD  # nothing to do
        assert st.get(g.id).data == {"y": 2} and st.count() == 1
        st.close()
    eng = engine_for(url)
    with eng.connect() as c:
        assert c.execute(sa.text("SELECT count(*) FROM alembic_version")).scalar() == 1
    eng.dispose()


def test_two_storages_opening_one_fresh_database_at_once_in_one_process(empty_db):
    url = empty_db
    opened, failed = [], []
    start = threading.Barrier(4)

    def open_it():
        start.wait()
        try:
            opened.append(Storage(url))
        except Exception as e:  # reported by the assertion below
            failed.append(repr(e))

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failed == [] and len(opened) == 4
    assert schema_of(url)[2] == SCHEMA_HEAD
    g = opened[0].create({"z": 3}, "short", "playing")
    assert all(st.get(g.id).data == {"z": 3} for st in opened)
    for st in opened:
        st.close()


def test_servers_opening_one_fresh_database_at_once_migrate_it_once(empty_db):
    url = empty_db
    """Three processes open the database at the same instant (each waits for a shared start time)."""
    at = time.time() + 4
    code = (
        "import sys, time; from nardy.web.store.storage import Storage; "
        "time.sleep(max(0, float(sys.argv[2]) - time.time())); Storage(sys.argv[1]).close(); print('ok')"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, url, str(at)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        for _ in range(3)
    ]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0, 0], [e.decode()[-2000:] for _, e in outs]
    assert all(o.strip() == b"ok" for o, _ in outs)
    tables, _, rev = schema_of(url)
    assert rev == SCHEMA_HEAD and tables == {"alembic_version", "nardy_games"} | NEW_TABLES


def test_downgrading_to_0001_and_upgrading_again_keeps_the_games(empty_db):
    url = empty_db
    from alembic import command

    from nardy.web.store.db import _alembic_config

    st = Storage(url)
    g = st.create({"w": 4}, "long", "playing", "W")
    eng = engine_for(url)
    with eng.begin() as c:
        cfg = _alembic_config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "0001")
    tables, cols, rev = schema_of(url)
    assert rev == "0001" and tables == {"alembic_version", "nardy_games"} and not cols & NEW_GAME_COLUMNS
    eng.dispose()
    st.close()
    st = Storage(url)
    assert schema_of(url)[2] == SCHEMA_HEAD and st.get(g.id).data == {"w": 4}
    st.close()


def test_a_database_from_a_newer_nardy_is_refused_with_its_revision(empty_db):
    url = empty_db
    Storage(url).close()
    eng = engine_for(url)
    with eng.begin() as c:
        c.execute(sa.text("UPDATE alembic_version SET version_num = '0099'"))
    eng.dispose()
    with pytest.raises(StorageError, match="0099"):
        Storage(url)


def test_an_in_memory_database_is_migrated_too():
    st = Storage("sqlite://")
    with st.engine.connect() as c:
        assert set(sa.inspect(c).get_table_names()) == {"alembic_version", "nardy_games"} | NEW_TABLES
    st.close()


def test_challenges_made_before_0007_read_as_the_server_making_their_owners_seed(empty_db):
    """0007 adds ``nardy_challenges.own_seed`` (docs/fairness.md, the order): a challenge stored before it (its
    owner's seed, if any, taken with it) is kept and reads as not awaiting its owner's own seed."""
    url = empty_db
    from alembic import command

    from nardy.web.store.community import Community
    from nardy.web.store.db import _alembic_config

    st = Storage(url)
    eng = engine_for(url)
    with eng.begin() as c:
        cfg = _alembic_config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "0004")
    with eng.begin() as c:
        assert "own_seed" not in {col["name"] for col in sa.inspect(c).get_columns("nardy_challenges")}
        c.execute(
            sa.text(
                "INSERT INTO nardy_challenges (id, owner, kind, game, length, clock_class, rated, colour,"
                " client_seed, status, created) VALUES ('c1', 'u1', 'open', 'long', 1, 'blitz', :t, 'white',"
                " 'oldseed', 'open', :now)"
            ),
            {"t": True, "now": dt.datetime.now(dt.UTC)},
        )
    eng.dispose()
    st.close()
    st = Storage(url)
    assert schema_of(url)[2] == SCHEMA_HEAD
    ch = Community(st).challenge("c1")
    assert ch is not None and ch.own_seed is False and ch.status == "open" and ch.client_seed == "oldseed"
    st.close()


def test_0008_adds_the_stored_analyses_and_a_downgrade_drops_them_keeping_the_games(empty_db):
    """0008 makes ``nardy_analyses`` (:mod:`nardy.web.store.analyses`): an analysis stored at the head is read
    back; downgraded to 0007 the table is gone (the analyses with it) and the games are kept; upgraded again the
    table is back, empty, and takes analyses."""
    url = empty_db
    from alembic import command

    from nardy.web.store.db import _alembic_config

    st = Storage(url)
    g = st.create({"v": 8}, "backgammon", "over", "V", columns={"owner": "u1", "seat0": "u1", "seat1": "u2"})
    assert st.put_analysis(g.id, 0, "advanced", {"decisions": [1, 2]}, ("u1", "u2"), {"version": 1}) is not None
    assert st.get_analysis(g.id, 0).data == {"decisions": [1, 2]}
    eng = engine_for(url)
    with eng.begin() as c:
        cfg = _alembic_config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "0007")
    tables, _, rev = schema_of(url)
    assert rev == "0007" and "nardy_analyses" not in tables and "nardy_games" in tables
    eng.dispose()
    st.close()
    st = Storage(url)
    tables, _, rev = schema_of(url)
    assert rev == SCHEMA_HEAD == "0011" and "nardy_analyses" in tables
    assert st.get(g.id).data == {"v": 8}
    assert st.get_analysis(g.id, 0) is None
    assert st.put_analysis(g.id, 0, "expert", {"decisions": []}) is not None
    assert [i.level for i in st.analysis_levels(g.id, 0)] == ["expert"]
    with st.engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), metadata) == []
    st.close()


def test_0009_adds_the_chat_tables_and_a_downgrade_drops_them_keeping_the_games(empty_db):
    """0009 makes the chat's tables (:mod:`nardy.web.store.chat`): a message stored at the head is read back;
    downgraded to 0008 they are gone (0010 with them) and the games kept; upgraded again they are back, empty."""
    url = empty_db
    from alembic import command

    from nardy.web.store.chat import ChatBook
    from nardy.web.store.db import _alembic_config

    st = Storage(url)
    g = st.create({"v": 9}, "backgammon", "over", "V")
    book = ChatBook(st)
    message, new = book.post(g.id, "players", "u1", "gl")
    assert new and [m["text"] for m in book.messages(g.id, ["players"], None)] == ["gl"]
    eng = engine_for(url)
    with eng.begin() as c:
        cfg = _alembic_config()
        cfg.attributes["connection"] = c
        command.downgrade(cfg, "0008")
    tables, _, rev = schema_of(url)
    assert rev == "0008" and "nardy_chat_messages" not in tables and "nardy_games" in tables
    eng.dispose()
    st.close()
    st = Storage(url)
    tables, _, rev = schema_of(url)
    assert rev == SCHEMA_HEAD and {"nardy_chat_messages", "nardy_chat_mutes", "nardy_chat_reports"} <= tables
    assert st.get(g.id).data == {"v": 9}
    assert ChatBook(st).messages(g.id, ["players"], None) == []
    with st.engine.connect() as c:
        assert compare_metadata(MigrationContext.configure(c), metadata) == []

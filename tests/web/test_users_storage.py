"""Users and log-in sessions in the database (nardy.web.store.storage): accounts unique by casefolded name, guests
not; a guest who registers keeps their id; a session's cookie token is stored only as its sha256; sessions
expire; ``last_seen`` is written at most once a minute; the heartbeat; a failing database is
``StorageUnavailable``. SQLite, and PostgreSQL when ``NARDY_TEST_POSTGRES_URL`` is set (``empty_db``)."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
import sqlalchemy as sa

from nardy.web.store.db import StorageUnavailable, auth_sessions, users
from nardy.web.store.storage import NameTaken, Storage, name_key

T0 = dt.datetime(2025, 3, 1, 12, 0, tzinfo=dt.UTC)


@pytest.fixture
def store(empty_db):
    st = Storage(empty_db)
    yield st
    st.close()


def test_account_names_are_unique_by_casefold_and_guest_names_are_not(store):
    a = store.create_user("Straße", password_hash="$argon2id$x")
    assert not a.guest and a.kind == "account" and len(a.id) == 32
    for other in ("STRASSE", "straße", "ｓｔｒａｓｓｅ"):
        with pytest.raises(NameTaken):
            store.create_user(other, password_hash="$argon2id$y")
    assert store.user_by_name("strasse").id == a.id
    assert store.user_by_name("STRASSE").id == a.id
    g1, g2 = store.create_user("Straße"), store.create_user("Straße")
    assert g1.guest and g2.guest and g1.id != g2.id
    assert store.user(g1.id).name == "Straße" and store.user(g1.id).password_hash is None
    assert store.user_by_name("nobody") is None
    assert name_key("ǅemal") == name_key("DŽEMAL") == "džemal"


def test_guests_are_never_found_by_name(store):
    store.create_user("Anna")
    assert store.user_by_name("Anna") is None


def test_a_guest_who_registers_keeps_their_id_and_a_taken_name_is_refused(store):
    store.create_user("Boris", password_hash="h0")
    g = store.create_user("Guest 1")
    with pytest.raises(NameTaken):
        store.register_guest(g.id, "BORIS", "h1")
    assert store.user(g.id).guest  # nothing changed
    acc = store.register_guest(g.id, "Vera", "h2")
    assert (acc.id, acc.name, acc.kind, acc.password_hash) == (g.id, "Vera", "account", "h2")
    assert store.user_by_name("vera").id == g.id
    with pytest.raises(KeyError):
        store.register_guest(g.id, "Vera2", "h3")  # an account is not a guest any more
    assert store.rename_guest(store.create_user("x").id, "Gleb").name == "Gleb"
    store.set_password(g.id, "h4")
    assert store.user(g.id).password_hash == "h4"
    assert "h4" not in repr(store.user(g.id))


def test_a_session_token_is_stored_only_as_its_sha256(store):
    u = store.create_user("Dina")
    new = store.create_session(u.id, now=T0)
    assert new.expires == T0 + dt.timedelta(days=30) and len(new.token) >= 43 and new.csrf != new.token
    with store.engine.connect() as c:
        rows = c.execute(sa.select(auth_sessions)).all()
    assert len(rows) == 1
    assert rows[0].token_hash == hashlib.sha256(new.token.encode()).hexdigest()
    assert new.token not in [str(v) for v in rows[0]]
    got = store.session_user(new.token, now=T0 + dt.timedelta(days=1))
    assert got.user.id == u.id and got.csrf == new.csrf and got.expires == new.expires
    wrong = new.token[:-1] + ("A" if new.token[-1] != "A" else "B")
    assert store.session_user(wrong, now=T0) is None
    assert store.session_user("", now=T0) is None and store.session_user("x" * 1000, now=T0) is None


def test_a_session_ends_when_it_expires_or_is_deleted(store):
    u = store.create_user("Egor")
    a = store.create_session(u.id, now=T0)
    b = store.create_session(u.id, lifetime=dt.timedelta(hours=1), now=T0)
    assert store.session_user(b.token, now=T0 + dt.timedelta(minutes=59)) is not None
    assert store.session_user(b.token, now=T0 + dt.timedelta(hours=1)) is None
    with store.engine.connect() as c:
        assert c.execute(sa.select(sa.func.count()).select_from(auth_sessions)).scalar() == 1  # b was deleted
    assert store.delete_session(a.token) and not store.delete_session(a.token)
    assert store.session_user(a.token, now=T0) is None


def test_last_seen_is_written_at_most_once_a_minute(store):
    u = store.create_user("Fima")
    s = store.create_session(u.id, now=T0)

    def last_seen():
        with store.engine.connect() as c:
            t = c.execute(sa.select(auth_sessions.c.last_seen)).scalar()
        return t if t.tzinfo else t.replace(tzinfo=dt.UTC)

    store.session_user(s.token, now=T0 + dt.timedelta(seconds=59))
    assert last_seen() == T0
    store.session_user(s.token, now=T0 + dt.timedelta(seconds=61))
    assert last_seen() == T0 + dt.timedelta(seconds=61)
    store.session_user(s.token, now=T0 + dt.timedelta(seconds=100))
    assert last_seen() == T0 + dt.timedelta(seconds=61)


def test_expired_sessions_of_a_user_go_when_they_log_in_again(store):
    u = store.create_user("Gala")
    store.create_session(u.id, lifetime=dt.timedelta(minutes=5), now=T0)
    store.create_session(u.id, now=T0 + dt.timedelta(hours=1))
    with store.engine.connect() as c:
        assert c.execute(sa.select(sa.func.count()).select_from(auth_sessions)).scalar() == 1


def test_heartbeat_round_trips(store):
    assert store.heartbeat() is None
    store.set_heartbeat(T0)
    assert store.heartbeat() == T0
    later = dt.datetime(2025, 3, 1, 15, 0, tzinfo=dt.timezone(dt.timedelta(hours=3)))
    store.set_heartbeat(later)
    assert store.heartbeat() == later and store.heartbeat().tzinfo == dt.UTC
    assert store.server_value("nothing") is None


def test_user_and_session_calls_on_a_broken_database_are_storage_unavailable(tmp_path):
    path = tmp_path / "broken.db"
    st = Storage(f"sqlite:///{path}")
    u = st.create_user("Ira")
    s = st.create_session(u.id)
    st.engine.dispose()
    path.write_bytes(b"this is not an SQLite database" * 200)
    for call in (
        lambda: st.create_user("Kim"),
        lambda: st.user_by_name("Ira"),
        lambda: st.session_user(s.token),
        lambda: st.create_session(u.id),
        lambda: st.delete_session(s.token),
        lambda: st.set_heartbeat(),
    ):
        with pytest.raises(StorageUnavailable):
            call()


def test_users_table_holds_what_the_storage_says(store):
    u = store.create_user("Lev", password_hash="$argon2id$v=19$...")
    with store.engine.connect() as c:
        row = c.execute(sa.select(users).where(users.c.id == u.id)).one()
    assert (row.name, row.name_key, row.kind, row.password_hash) == ("Lev", "lev", "account", "$argon2id$v=19$...")

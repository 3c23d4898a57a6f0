"""Saved games: SQLite (default) and PostgreSQL (when ``NARDY_TEST_POSTGRES_URL`` names a database, e.g.
``postgresql://nardy:nardy@127.0.0.1:5432/nardy_test``); games survive a restart of the storage and of
the app."""

from __future__ import annotations

import os
import time
import warnings

import pytest

from nardy.web.sessions import HostedGame, new_session
from nardy.web.store.db import StorageError, default_database_url, normalise_url
from nardy.web.store.storage import Storage
from tests.web.players import PlayerClient

PG_URL = os.environ.get("NARDY_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'games.db'}"
    if not PG_URL:
        pytest.skip("NARDY_TEST_POSTGRES_URL is not set (a PostgreSQL database for the tests)")
    pytest.importorskip("psycopg")
    return PG_URL


@pytest.fixture
def created(url):
    """Ids created by a test, deleted at its end (the PostgreSQL database is shared)."""
    ids = []
    yield ids
    st = Storage(url)
    for gid in ids:
        st.delete(gid)
    st.close()


def test_urls(tmp_path, monkeypatch):
    assert normalise_url("postgresql://u:p@h/db") == "postgresql+psycopg://u:p@h/db"
    assert normalise_url("postgres://u@h:5433/db") == "postgresql+psycopg://u@h:5433/db"
    assert normalise_url("sqlite:///x.db") == "sqlite:///x.db"
    assert normalise_url(str(tmp_path / "a.db")) == f"sqlite:///{tmp_path / 'a.db'}"
    with pytest.raises(StorageError):
        normalise_url("")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    u = default_database_url()
    assert u.startswith("sqlite:///") and u.endswith("nardy.db") and str(tmp_path / "xdg") in u
    assert (tmp_path / "xdg" / "nardy").is_dir()
    st = Storage()  # the default: SQLite in the user data directory
    assert st.backend == "sqlite" and st.url == u
    st.close()


def test_bad_urls(tmp_path):
    with pytest.raises(StorageError, match="database URL"):
        Storage("nosuchdb://x/y")
    with pytest.raises(StorageError) as e:
        Storage("postgresql://nardy:secret@127.0.0.1:1/none")
    assert "secret" not in str(e.value)
    (tmp_path / "dir.db").mkdir()
    with pytest.raises(StorageError):
        Storage(f"sqlite:///{tmp_path / 'dir.db'}")


def test_crud_and_restart(url, created):
    st = Storage(url)
    a = st.create({"x": 1, "text": "ночь"}, "long", "playing", "A", {"score": [0, 0]})
    created.append(a.id)
    time.sleep(0.01)
    b = st.create({"y": [1, 2]}, "backgammon", "over", "B", {"score": [1, 0]})
    created.append(b.id)
    got = st.get(a.id)
    assert got.data == {"x": 1, "text": "ночь"} and got.game == "long" and got.summary == {"score": [0, 0]}
    assert got.created.tzinfo is not None
    got.data["x"] = 2
    got.status = "over"
    got.summary = {"score": [1, 0]}
    st.save(got)
    assert got.revision == 1
    ids = [r.id for r in st.list(limit=500)]
    assert ids.index(a.id) < ids.index(b.id), "the game saved last comes first"
    assert all(r.data == {} for r in st.list())
    assert a.id in [r.id for r in st.list(status="over", limit=500)]
    assert st.get("nope") is None
    st.close()
    # a new Storage (a restarted server) sees the same games
    st2 = Storage(url)
    again = st2.get(a.id)
    assert again.data == {"x": 2, "text": "ночь"} and again.status == "over" and again.revision == 1
    assert st2.delete(b.id) and not st2.delete(b.id) and st2.get(b.id) is None
    with pytest.raises(KeyError):
        st2.save(st2.get(a.id).__class__(b.id, again.created, again.updated, "long", "x", "", 0, {}, {}))
    n = st2.count()
    assert n >= 1
    st2.close()


def test_session_round_trip(url, created):
    st = Storage(url)
    s = new_session("backgammon", level="beginner", seed=21)
    saved = st.create(s.to_dict(), "backgammon", s.status, s.title(), s.summary())
    created.append(saved.id)
    v = s.view()
    if v["moves"]:
        frm = max(v["moves"], key=int)
        s.act("step", frm=int(frm), to=v["moves"][frm][0])
    saved.data = s.to_dict()
    st.save(saved)
    st.close()
    st2 = Storage(url)
    s2 = HostedGame.from_dict(st2.get(saved.id).data)
    assert s2.view() == s.view()
    # the dice go on exactly as they would have
    while s.game.phase == "move" and not s.view()["can_confirm"]:
        vv = s.view()
        frm = max(vv["moves"], key=int)
        for x in (s, s2):
            x.act("step", frm=int(frm), to=vv["moves"][frm][0])
    for x in (s, s2):
        if x.game.phase == "move":
            x.act("confirm")
    assert s2.view() == s.view()
    st2.close()


def test_app_over_storage_survives_restart(url, created):
    pytest.importorskip("httpx")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
    from nardy.web.app import create_app

    with PlayerClient(create_app(url, allow_seeds=True)) as c:
        assert c.get("/api/health").json()["database"] == ("sqlite" if url.startswith("sqlite") else "postgresql")
        v = c.post("/api/games", json={"game": "long", "level": "random", "seed": 5}).json()
        created.append(v["id"])
        frm = max(v["moves"], key=int)
        v = c.post(
            f"/api/games/{v['id']}/actions",
            json={"action": "step", "from": int(frm), "to": v["moves"][frm][0], "seq": v["seq"]},
        ).json()
        cookies = dict(c.cookies)
    with PlayerClient(create_app(url), cookies=cookies) as c:  # a new app: the server restarted; the same player
        again = c.get(f"/api/games/{v['id']}").json()
        assert again["board"] == v["board"] and again["steps"] == v["steps"] and again["dice"] == v["dice"]
        assert v["id"] in [g["id"] for g in c.get("/api/games", params={"limit": 500}).json()["games"]]


def test_games_are_found_by_player_and_by_when_their_clock_runs_out(url, created):
    """The listing columns: a player's games (owned or seated), the games whose clock is due, on both
    databases (time zones included)."""
    import datetime as dt

    st = Storage(url)
    now = dt.datetime.now(dt.UTC)
    tag = secrets_tag()
    a = st.create({"x": 1}, "long", "playing", columns={"owner": f"{tag}a", "seat0": f"{tag}a", "seat1": f"{tag}b"})
    b = st.create({"x": 2}, "long", "playing", columns={"owner": f"{tag}c", "clock_due": now + dt.timedelta(hours=1)})
    c = st.create({"x": 3}, "long", "playing", columns={"owner": f"{tag}c", "clock_due": now - dt.timedelta(seconds=1)})
    created.extend([a.id, b.id, c.id])
    assert [g.id for g in st.list(player=f"{tag}b")] == [a.id]
    assert {g.id for g in st.list(player=f"{tag}c")} == {b.id, c.id}
    assert st.list(player=f"{tag}nobody") == []
    due = st.due_games(now)
    assert c.id in due and b.id not in due and a.id not in due
    assert {b.id, c.id} <= set(st.clocked_games())
    got = st.get(c.id)
    assert (
        got.owner == f"{tag}c" and got.clock_due is not None and abs((got.clock_due - c.clock_due).total_seconds()) < 1
    )
    st.clear_clock_due(c.id)
    assert c.id not in st.due_games(now)
    # a save keeps the columns it is given
    got.seat1 = f"{tag}d"
    st.save(got)
    assert [g.id for g in st.list(player=f"{tag}d")] == [c.id]
    st.close()


def secrets_tag() -> str:
    import secrets

    return secrets.token_hex(4)

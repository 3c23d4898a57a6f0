"""Analyses stored in the database with their game (issue 45, :mod:`nardy.web.store.analyses`,
:mod:`nardy.web.services.analyses`): one row per game, revision and level (another level sits beside, the same
level replaces, an older revision's are dropped), compressed, deleted with the game, read back by another storage
on the same database; the routes answer the stored ones (gzip-compressed when asked for); a player's statistics
count only the analyses of the games the asker may see.

SQLite files, and PostgreSQL when ``NARDY_TEST_POSTGRES_URL`` names a database (``empty_db``).
"""

from __future__ import annotations

import gzip
import json
import zlib

import pytest

pytest.importorskip("httpx")

from nardy.web.app import create_app  # noqa: E402
from nardy.web.store.analyses import analyses  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.helpers import shared_path  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")


def _game(st: Storage, owner="u1", seats=("u1", "u2"), visibility="private") -> str:
    cols = {"owner": owner, "seat0": seats[0], "seat1": seats[1], "visibility": visibility}
    return st.create({"x": 1}, "backgammon", "over", "T", columns=cols).id


def _bump(st: Storage, gid: str) -> None:
    saved = st.get(gid)
    st.save(saved)


def _analysis(n: int) -> dict:
    return {"game": "backgammon", "decisions": [{"n": i, "played": "8/5 6/5"} for i in range(n)]}


# ----- the store --------------------------------------------------------------------------------------------
def test_an_analysis_is_stored_compressed_and_read_back_by_another_storage(empty_db):
    st = Storage(empty_db)
    gid = _game(st)
    data = _analysis(400)
    info = st.put_analysis(gid, 0, "expert", data, ("u1", "u2"), {"version": 1})
    raw = json.dumps(data, separators=(",", ":")).encode()
    assert info is not None and info.size == len(raw) and info.stored < info.size / 5
    with st.engine.connect() as c:
        blob = c.execute(analyses.select()).one().data
    assert json.loads(zlib.decompress(blob)) == data  # what is stored is the JSON, zlib-compressed
    other = Storage(empty_db)  # another process's storage on the same database
    got = other.get_analysis(gid, 0)
    assert got is not None and got.data == data and got.info.level == "expert" and got.info.stored == len(blob)
    other.close()
    st.close()


def test_another_level_sits_beside_the_same_level_replaces_and_the_newest_is_answered(empty_db):
    st = Storage(empty_db)
    gid = _game(st)
    st.put_analysis(gid, 0, "advanced", _analysis(1))
    st.put_analysis(gid, 0, "expert", _analysis(2))
    assert [i.level for i in st.analysis_levels(gid, 0)] == ["expert", "advanced"]
    assert len(st.get_analysis(gid, 0).data["decisions"]) == 2  # the newest
    assert len(st.get_analysis(gid, 0, "advanced").data["decisions"]) == 1
    st.put_analysis(gid, 0, "advanced", _analysis(3))  # the same level again: replaces its row
    assert [i.level for i in st.analysis_levels(gid, 0)] == ["advanced", "expert"]
    assert len(st.get_analysis(gid, 0, "advanced").data["decisions"]) == 3
    with st.engine.connect() as c:
        assert len(c.execute(analyses.select()).all()) == 2
    st.close()


def test_a_newer_revisions_analysis_drops_the_older_ones_and_an_older_one_is_not_stored_after_it(empty_db):
    st = Storage(empty_db)
    gid = _game(st)
    st.put_analysis(gid, 0, "advanced", _analysis(1))
    _bump(st, gid)
    assert st.put_analysis(gid, 1, "expert", _analysis(2)) is not None
    assert st.analysis_levels(gid, 0) == [] and st.get_analysis(gid, 0) is None
    assert st.put_analysis(gid, 0, "grandmaster", _analysis(3)) is None  # made of a state already gone
    assert st.put_analysis(gid, 2, "expert", _analysis(3)) is None  # a revision the game has not reached
    assert st.put_analysis("nosuchgame", 0, "expert", _analysis(3)) is None
    assert [i.level for i in st.analysis_levels(gid, 1)] == ["expert"]
    st.close()


def test_an_analysis_stored_by_another_process_at_the_same_moment_is_replaced_not_a_failure(empty_db, monkeypatch):
    from sqlalchemy.exc import IntegrityError

    st = Storage(empty_db)
    gid = _game(st)
    real = type(st)._put_row
    calls = []

    def racing(self, *args):
        calls.append(1)
        if len(calls) == 1:  # the other process's row lands between our delete and our insert
            real(self, *args)
            raise IntegrityError("INSERT", {}, Exception("duplicate key"))
        return real(self, *args)

    monkeypatch.setattr(type(st), "_put_row", racing)
    assert st.put_analysis(gid, 0, "expert", _analysis(2)) is not None and len(calls) == 2
    assert [i.level for i in st.analysis_levels(gid, 0)] == ["expert"]
    st.close()


def test_deleting_a_game_deletes_its_analyses(empty_db):
    st = Storage(empty_db)
    gid, keep = _game(st), _game(st)
    st.put_analysis(gid, 0, "advanced", _analysis(1))
    st.put_analysis(keep, 0, "advanced", _analysis(1))
    assert st.delete(gid)
    with st.engine.connect() as c:
        assert [r.game_id for r in c.execute(analyses.select()).all()] == [keep]
    st.close()


def test_a_players_digests_leave_out_the_private_games_of_others_for_a_stranger(empty_db):
    st = Storage(empty_db)
    private = _game(st, "u1", ("u1", "u2"))
    public = _game(st, "u1", ("u1", "u3"), visibility="public")
    bot = _game(st, "u1", ("u1", "u1"))  # against the computer: the computer's side has no player id
    st.put_analysis(private, 0, "advanced", _analysis(1), ("u1", "u2"), {"version": 1, "n": "private"})
    st.put_analysis(public, 0, "advanced", _analysis(1), ("u3", "u1"), {"version": 1, "n": "public"})
    st.put_analysis(bot, 0, "advanced", _analysis(1), ("u1", None), {"version": 1, "n": "bot"})

    def seen(viewer):
        return sorted((r["digest"]["n"], tuple(r["sides"])) for r in st.analysis_digests("u1", viewer))

    mine = [("bot", (0,)), ("private", (0,)), ("public", (1,))]
    assert seen("u1") == mine
    assert seen("u2") == [("private", (0,)), ("public", (1,))]  # u2 sat at the private game
    assert seen("u9") == seen(None) == [("public", (1,))]
    st.close()


# ----- the routes ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def app(tmp_path_factory):
    db = tmp_path_factory.mktemp("anstore") / "anstore.db"
    return create_app(storage=Storage(f"sqlite:///{db}"), allow_seeds=True)


@pytest.fixture(scope="module")
def ann(app):
    with PlayerClient(app) as c:
        c.guest("Ann")
        yield c


@pytest.fixture(scope="module")
def bob(app):
    with PlayerClient(app) as c:
        c.guest("Bob")
        yield c


@pytest.fixture(scope="module")
def stored(ann):
    text = shared_path(*RECORD).read_text()
    r = ann.post("/api/mat?save=true", content=text, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, r.text
    return r.json()["id"]


def test_a_stored_games_analysis_is_in_the_database_not_only_in_the_processs_cache(app, ann, stored):
    r = ann.post(f"/api/games/{stored}/analysis?level=advanced")
    assert r.status_code == 200, r.text
    made = r.json()
    assert made["cached"] is False and [i["level"] for i in made["levels"]] == ["advanced"]
    app.state.analysis_cache._items.clear()  # as after a restart: only the database has it
    again = ann.get(f"/api/games/{stored}/analysis")
    assert again.status_code == 200, again.text
    got = again.json()
    assert got["decisions"] == made["decisions"] and got["review"] == made["review"] and got["cached"] is True
    assert got["levels"][0]["size"] > 5 * got["levels"][0]["stored"] > 0  # zlib: the JSON is some 7x smaller
    # a second ask of the same level: answered from the database, not analysed again
    app.state.analysis_cache._items.clear()
    assert ann.post(f"/api/games/{stored}/analysis?level=advanced").json()["cached"] is True


def test_another_level_sits_beside_and_level_picks_one(app, ann, stored):
    r = ann.post(f"/api/games/{stored}/analysis?level=expert")
    assert r.status_code == 200, r.text
    assert r.json()["engine"]["level"] == "expert"
    assert sorted(i["level"] for i in r.json()["levels"]) == ["advanced", "expert"]
    assert ann.get(f"/api/games/{stored}/analysis").json()["engine"]["level"] == "expert"  # the newest
    low = ann.get(f"/api/games/{stored}/analysis?level=advanced").json()
    assert low["engine"]["level"] == "advanced" and low["engine"]["ply"] == 0
    r = ann.get(f"/api/games/{stored}/analysis?level=grandmaster")
    assert r.status_code == 404 and r.json()["code"] == "not_analysed"


def test_the_analysis_answer_is_gzip_compressed_for_a_client_that_accepts_it(ann, stored):
    plain = ann.get(f"/api/games/{stored}/analysis", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers and plain.headers["vary"] == "Accept-Encoding"
    # the raw bytes on the wire (httpx would decode them): read without decoding
    with ann.stream("GET", f"/api/games/{stored}/analysis", headers={"Accept-Encoding": "gzip"}) as r:
        wire = b"".join(r.iter_raw())
    assert r.headers["content-encoding"] == "gzip" and len(wire) * 5 < len(plain.content)
    assert json.loads(gzip.decompress(wire)) == plain.json()
    refused = ann.get(f"/api/games/{stored}/analysis", headers={"Accept-Encoding": "gzip;q=0"})
    assert "content-encoding" not in refused.headers


def test_a_players_stats_count_their_analysed_games_and_never_a_private_one_for_a_stranger(app, ann, bob, stored):
    me = ann.get("/api/me").json()["user"]["id"]
    mine = ann.get(f"/api/players/{me}/stats")
    assert mine.status_code == 200, mine.text
    s = mine.json()
    # a record uploaded by Ann: both of its sides are hers (a game at one screen)
    assert s["analysed"] == 1 and s["rows"][0]["period"] == "all" and s["rows"][0]["game"] == "backgammon"
    stored_answer = ann.get(f"/api/games/{stored}/analysis").json()
    assert s["rows"][0]["decisions"] == sum(p["decisions"] for p in stored_answer["players"])
    assert s["rows"][0]["matches"] == 2 and s["kinds"], s  # both sides counted; kinds of error ranked
    assert s["kinds"][0]["errors"] >= s["kinds"][-1]["errors"]
    theirs = bob.get(f"/api/players/{me}/stats").json()
    assert theirs == {"id": me, "analysed": 0, "rows": [], "kinds": []}
    r = bob.get("/api/players/nosuchplayer/stats")
    assert r.status_code == 404 and r.json()["code"] == "no_player"


def test_deleting_a_game_deletes_its_stored_analyses(app, ann):
    text = shared_path(*RECORD).read_text()
    gid = ann.post("/api/mat?save=true", content=text, headers={"Content-Type": "text/plain"}).json()["id"]
    assert ann.post(f"/api/games/{gid}/analysis?level=advanced").status_code == 200
    st = app.state.storage
    assert st.analysis_levels(gid, st.revision(gid))
    r = ann.delete(f"/api/games/{gid}")
    assert r.status_code in (200, 204), r.text
    with st.engine.connect() as c:
        assert c.execute(analyses.select().where(analyses.c.game_id == gid)).all() == []


def _finished_online_game(ann, bob, watchers: bool) -> str:
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1, "watchers": watchers}).json()
    r = bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]})
    assert r.status_code == 200, r.text
    v = ann.get(f"/api/games/{g['id']}").json()
    r = ann.post(f"/api/games/{g['id']}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    r = bob.post(f"/api/games/{g['id']}/actions", json={"action": "accept", "seq": r.json()["seq"]})
    assert r.status_code == 200 and r.json()["match_over"], r.text
    r = bob.post(f"/api/games/{g['id']}/analysis?level=advanced")
    assert r.status_code == 200, r.text
    return g["id"]


def test_an_online_games_analysis_counts_for_its_players_and_for_others_only_when_watchers_may_see_it(app):
    with PlayerClient(app) as cid, PlayerClient(app) as dan, PlayerClient(app) as eve:
        for c, name in ((cid, "Cid"), (dan, "Dan"), (eve, "Eve")):
            c.guest(name)
        private = _finished_online_game(cid, dan, watchers=False)
        ids = {n: c.get("/api/me").json()["user"]["id"] for n, c in (("cid", cid), ("dan", dan))}
        st = app.state.storage
        with st.engine.connect() as c:
            row = c.execute(analyses.select().where(analyses.c.game_id == private)).one()
        assert (row.player0, row.player1) == (ids["cid"], ids["dan"])  # the seats' players, side by side

        def stats(asker, who):
            r = asker.get(f"/api/players/{ids[who]}/stats")
            assert r.status_code == 200, r.text
            return r.json()

        assert stats(cid, "cid")["analysed"] == 1 and stats(cid, "cid")["rows"][0]["game"] == "long"
        assert stats(dan, "cid")["analysed"] == 1  # Dan sat at it
        assert stats(eve, "cid") == {"id": ids["cid"], "analysed": 0, "rows": [], "kinds": []}  # private: not for Eve
        _finished_online_game(cid, dan, watchers=True)
        seen = stats(eve, "dan")
        assert seen["analysed"] == 1 and seen["rows"][0]["matches"] == 1  # the game open to watchers only
        assert stats(dan, "dan")["analysed"] == 2

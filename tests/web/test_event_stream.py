"""The streams of programs as players (issue 44, docs/bots.md "Server"): a challenge named to a bot arrives on
its event stream (NDJSON and WebSocket), its withdrawal too; accepting it starts the game there (``gameStart``);
the game's stream gives its views and ends with the match, whose end the event stream tells (``gameFinish``);
streams need a log-in with the scope ``read`` and are bounded per account."""

from __future__ import annotations

import pytest

from nardy.web.app import create_app
from nardy.web.services import events
from nardy.web.store.storage import Storage

from .streaming import Lines, Player, Served, SocketLines

UNRATED = {"game": "long", "length": 1, "clock": "blitz", "rated": False}


@pytest.fixture
def served(tmp_path):
    s = Served(create_app(storage=Storage(f"sqlite:///{tmp_path / 'streams.db'}")))
    yield s
    s.stop()


@pytest.fixture
def pair(served):
    ann, robo = Player(served.url, "Ann"), Player(served.url, "Robo", bot=True)
    yield ann, robo
    ann.close()
    robo.close()


def named(ann: Player, robo: Player) -> dict:
    r = ann.post("/api/lobby/challenges", json={**UNRATED, "to": robo.me["name"]})
    assert r.status_code == 201, r.text
    return r.json()["challenge"]


def resign_and_accept(loser: Player, winner: Player, gid: str) -> None:
    v = loser.get(f"/api/games/{gid}").json()
    r = loser.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = winner.get(f"/api/games/{gid}").json()
    r = winner.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200 and r.json()["match_over"] is True, r.text


def test_a_named_challenge_reaches_the_bots_stream_and_accepting_starts_the_game(served, pair):
    ann, robo = pair
    stream = Lines(served.url, "/api/stream/events", robo.headers)
    sock = SocketLines(served.url, "/api/stream/events/live", robo.headers)
    try:
        assert stream.status == 200 and sock.status == 101
        ch = named(ann, robo)
        for s in (stream, sock):
            ev = s.next()
            assert ev["type"] == "challenge"
            got = ev["challenge"]
            assert got["id"] == ch["id"] and got["game"] == "long" and got["length"] == 1 and got["rated"] is False
            assert got["from"]["id"] == ann.me["id"] and got["from"]["name"] == ann.me["name"]
            assert got["from"]["bot"] is False and got["clock"] == "blitz"
        r = robo.post(f"/api/lobby/challenges/{ch['id']}/accept", json={})
        assert r.status_code == 200, r.text
        gid = r.json()["id"]
        for s in (stream, sock):
            ev = s.next()
            assert ev["type"] == "gameStart"
            assert ev["game"] == {"id": gid, "game": "long", "seat": r.json()["you"][0], "status": r.json()["status"]}
        # the game's stream: its view now, the same as GET /api/games/{id}
        game = Lines(served.url, f"/api/stream/game/{gid}", robo.headers)
        first = game.next()
        assert first["id"] == gid and first["seq"] == robo.get(f"/api/games/{gid}").json()["seq"]
        assert first["you"] == r.json()["you"] and first["online"]["bots"] == r.json()["you"]
        resign_and_accept(ann, robo, gid)
        views = []
        while (v := game.next()) is not None:
            views.append(v)
        assert views and views[-1]["match_over"] is True and views[-1]["seq"] > first["seq"]
        assert [v["seq"] for v in views] == sorted({v["seq"] for v in views})  # each view once, in order
        for s in (stream, sock):
            ev = s.next()
            assert ev["type"] == "gameFinish" and ev["game"]["id"] == gid
    finally:
        stream.close()
        sock.close()


def test_a_withdrawn_challenge_is_cancelled_on_the_stream(served, pair):
    ann, robo = pair
    stream = Lines(served.url, "/api/stream/events", robo.headers)
    try:
        ch = named(ann, robo)
        assert stream.next()["challenge"]["id"] == ch["id"]
        assert ann.client.delete(f"/api/lobby/challenges/{ch['id']}").status_code == 200
        assert stream.next() == {"type": "challengeCanceled", "id": ch["id"]}
    finally:
        stream.close()


def test_on_connect_the_stream_sends_the_games_in_progress_and_the_challenges_waiting(served, pair):
    ann, robo = pair
    first = named(ann, robo)
    gid = robo.post(f"/api/lobby/challenges/{first['id']}/accept", json={}).json()["id"]
    waiting = named(ann, robo)
    stream = Lines(served.url, "/api/stream/events", robo.headers)
    try:
        got = [stream.next(), stream.next()]
        assert {(e["type"], (e.get("game") or e.get("challenge"))["id"]) for e in got} == {
            ("gameStart", gid),
            ("challenge", waiting["id"]),
        }
    finally:
        stream.close()


def test_streams_need_the_read_scope_and_are_bounded_per_account(served, pair):
    _, robo = pair
    anon = Lines(served.url, "/api/stream/events", {})
    assert anon.status == 401 and '"login_needed"' in anon.body
    with robo.client as c:
        r = c.post("/api/auth/tokens", json={"name": "player only", "scopes": ["play"]})
        play_only = r.json()["token"]
    denied = Lines(served.url, "/api/stream/events", {"Authorization": f"Bearer {play_only}"})
    assert denied.status == 403 and '"token_scope"' in denied.body
    opened = [Lines(served.url, "/api/stream/events", robo.headers) for _ in range(events.MAX_STREAMS)]
    try:
        assert all(s.status == 200 for s in opened)
        more = Lines(served.url, "/api/stream/events", robo.headers)
        assert more.status == 429 and '"too_many_streams"' in more.body
    finally:
        for s in opened:
            s.close()


def test_a_game_stream_of_a_game_one_may_not_see_is_missing(served, pair):
    ann, robo = pair
    r = ann.post("/api/games", json={"game": "long", "opponent": "bot"})
    assert r.status_code in (200, 201), r.text
    missing = Lines(served.url, f"/api/stream/game/{r.json()['id']}", robo.headers)
    assert missing.status == 404

"""Actions sent on an online game's live channel (``WS /api/games/{id}/live``: ``{"type": "action", "id",
"body"}``, docs/online.md): the same checks and answers as ``POST /api/games/{id}/actions`` (the player of the
connection's log-in session, seated, on their turn; a stale ``seq`` is 409 ``stale_action`` and changes
nothing, so a resend is harmless), answered on the channel only once stored, pushed to the opponent, and as
cheap in database work as the route (3 statements, 1 commit)."""

from __future__ import annotations

import collections
import json

import pytest
from sqlalchemy import event

from nardy import Position
from nardy.web.app import create_app
from nardy.web.store.db import StorageUnavailable
from nardy.web.store.storage import Storage

from .helpers import pg_schema, stop_background_rounds
from .players import PlayerClient
from .test_action_cost import _body


def _recv(ws) -> dict:
    """The next message on a game's live channel, the seats' presence pushes skipped (services/seats.py)."""
    for _ in range(10):
        m = ws.receive_json()
        if m.get("type") != "presence":
            return m
    raise AssertionError("only presence messages")


@pytest.fixture
def pair():
    url, drop = pg_schema("nardy_sock")
    store = Storage(url)
    app = create_app(storage=store)
    a, b = PlayerClient(app, base_url="http://testserver"), PlayerClient(app, base_url="http://testserver")
    try:
        for c, name in ((a, "Ann"), (b, "Bob")):
            c.__enter__()
            c.guest(name)
        g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 3}).json()
        v = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).json()
        yield app, [a, b], g["id"], v
    finally:
        for c in (a, b):
            c.__exit__(None, None, None)
        store.close()
        drop()


def _send(ws, body, rid=1) -> None:
    ws.send_text(json.dumps({"type": "action", "id": rid, "body": body}))


def _answer(ws) -> dict:
    m = _recv(ws)
    assert m["type"] == "answer", m
    return m


def _live(players, gid):
    return [p.websocket_connect(f"/api/games/{gid}/live") for p in players]


def test_an_action_on_the_socket_is_answered_with_the_movers_view_and_pushed_to_the_opponent(pair):
    app, players, gid, v = pair
    with _live(players, gid)[0] as wa, _live(players, gid)[1] as wb:
        live = [wa, wb]
        for w in live:
            assert _recv(w)["view"]["seq"] == v["seq"]
        for rid in range(1, 7):
            side = v["to_act"]
            _send(live[side], _body(v), rid)
            m = _answer(live[side])
            assert m["id"] == rid and m["status"] == 200, m
            mine, theirs = m["view"], _recv(live[1 - side])["view"]
            assert mine["seq"] == v["seq"] + 1 and mine["you"] == [side]
            # the opponent's own view of the same state (the mover's connection is not sent it again)
            assert theirs["seq"] == mine["seq"] and theirs["you"] == [1 - side] and theirs["pips"] == mine["pips"][::-1]
            # the same view as the route would answer now
            assert players[side].get(f"/api/games/{gid}").json() == mine
            v = mine


def test_a_stale_or_repeated_action_on_the_socket_is_refused_as_the_route_refuses_it_and_changes_nothing(pair):
    app, players, gid, v = pair
    side = v["to_act"]
    store = app.state.storage
    with players[side].websocket_connect(f"/api/games/{gid}/live") as ws:
        assert _recv(ws)["view"]["seq"] == v["seq"]
        body = _body(v)
        # chosen on a state the game is not at: 409 stale_action with the current seq, nothing done
        _send(ws, {**body, "seq": v["seq"] + 5}, "stale")
        m = _answer(ws)
        assert m["id"] == "stale" and m["status"] == 409, m
        assert m["error"]["code"] == "stale_action" and m["error"]["error"] == "StaleAction"
        assert m["error"]["seq"] == v["seq"] and m["error"]["message"]
        assert store.revision(gid) == v["seq"]
        _send(ws, body, "first")
        assert _answer(ws)["status"] == 200
        revision = store.revision(gid)
        assert revision == v["seq"] + 1
        # the same action again (a resend after a lost answer): stale, nothing done
        _send(ws, body, "again")
        m = _answer(ws)
        assert m["id"] == "again" and m["status"] == 409 and m["error"]["code"] == "stale_action", m
        assert store.revision(gid) == revision
        # the route answers the same
        r = players[side].post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == m["status"] and r.json()["code"] == m["error"]["code"]
        r = players[side].post(f"/api/games/{gid}/actions", json={**body, "seq": v["seq"] + 5})
        assert store.revision(gid) == revision


def test_a_resent_play_that_ended_the_turn_is_stale_not_out_of_turn(pair):
    # the page's fallback: an action whose answer was lost is sent once more (by POST) with the same seq; when
    # that action passed the turn, the resend must read as stale (409 with the game's seq: the page reads the
    # game again), not as "not your turn" (403: shown as an error), and change nothing
    app, players, gid, v = pair
    store = app.state.storage
    while v["phase"] != "move" or not Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"])):
        v = players[v["to_act"]].post(f"/api/games/{gid}/actions", json=_body(v)).json()
    side, body = v["to_act"], _body(v)
    assert body["action"] == "play"
    with players[side].websocket_connect(f"/api/games/{gid}/live") as ws:
        assert _recv(ws)["view"]["seq"] == v["seq"]
        _send(ws, body, "first")
        done = _answer(ws)["view"]
        assert done["to_act"] != side  # the play passed the turn
        revision = store.revision(gid)
        _send(ws, body, "again")
        m = _answer(ws)
        assert (m["status"], m["error"]["code"], m["error"]["seq"]) == (409, "stale_action", revision), m
    r = players[side].post(f"/api/games/{gid}/actions", json=body)
    assert (r.status_code, r.json()["code"]) == (409, "stale_action"), r.text
    assert store.revision(gid) == revision
    # a current seq out of turn is still 403 not_your_turn
    r = players[side].post(f"/api/games/{gid}/actions", json={**body, "seq": revision})
    assert (r.status_code, r.json()["code"]) == (403, "not_your_turn"), r.text


def test_socket_actions_are_authorised_as_the_route_authorises_them(pair):
    app, players, gid, v = pair
    side = v["to_act"]
    other = players[1 - side]
    stranger = PlayerClient(app, base_url="http://testserver")
    stranger.__enter__()
    try:
        stranger.guest("Eve")
        with other.websocket_connect(f"/api/games/{gid}/live") as ws:
            _recv(ws)
            # out of turn
            _send(ws, _body(v))
            m = _answer(ws)
            assert m["status"] == 403 and m["error"]["code"] == "not_your_turn", m
            # a side that is not theirs
            _send(ws, {**_body(v), "player": side})
            m = _answer(ws)
            assert m["status"] == 403 and m["error"]["code"] == "not_your_side", m
            # malformed: answered 422, the connection kept
            _send(ws, {"action": "fly", "seq": v["seq"]}, 9)
            m = _answer(ws)
            assert m["id"] == 9 and m["status"] == 422 and m["error"]["code"] == "invalid_request", m
            ws.send_text('{"type": "action", "id": [1], "body": {}}')
            m = _answer(ws)
            assert m["id"] is None and m["status"] == 422, m
            ws.send_text("[" * 1500 + "]" * 1500)  # not an object: ignored, as other messages are
            # an action too long to be one: answered 413, not read (nothing done), the connection kept
            ws.send_text(json.dumps({"type": "action", "id": 5, "body": {**_body(v), "play": "24/18 " * 400}}))
            m = _answer(ws)
            assert m["id"] is None and m["status"] == 413 and m["error"]["code"] == "too_large", m
            ws.send_text("ping")
            assert ws.receive_text() == "pong"
            # logged out meanwhile: the connection's player is looked at again for each action (nobody now, to
            # whom a private game is answered as a missing one is: docs/security.md)
            assert other.post("/api/auth/logout").status_code in (200, 204)
            _send(ws, _body(v))
            m = _answer(ws)
            assert m["status"] == 404 and m["error"]["code"] == "not_found", m
        assert app.state.storage.revision(gid) == v["seq"]
    finally:
        stranger.__exit__(None, None, None)


def test_a_socket_action_is_answered_only_once_stored(pair, monkeypatch):
    app, players, gid, v = pair
    side = v["to_act"]
    store = app.state.storage

    def down(*args, **kwargs):
        raise StorageUnavailable("the database is unavailable; try again shortly")

    with _live(players, gid)[0] as wa, _live(players, gid)[1] as wb:
        live = [wa, wb]
        for w in live:
            _recv(w)
        with monkeypatch.context() as m:
            m.setattr(store, "append", down)
            m.setattr(store, "save", down)
            _send(live[side], _body(v))
            ans = _answer(live[side])
        assert ans["status"] == 503 and ans["error"]["code"] == "database_unavailable", ans
        assert store.revision(gid) == v["seq"]
        # the same action once the database is back: stored, then answered (the stored revision is the answer's)
        _send(live[side], _body(v), 2)
        ans = _answer(live[side])
        assert ans["status"] == 200 and store.revision(gid) == ans["view"]["seq"] == v["seq"] + 1
        # the opponent had nothing of the refused one: its next view is the stored state
        assert _recv(live[1 - side])["view"]["seq"] == v["seq"] + 1


def test_a_socket_action_costs_three_statements_and_one_commit(pair):
    app, players, gid, v = pair
    stop_background_rounds(players[0])
    engine = app.state.storage.engine
    seen: collections.Counter = collections.Counter()
    event.listen(engine, "before_cursor_execute", lambda *args: seen.update(["statements"]))
    event.listen(engine, "commit", lambda conn: seen.update(["commits"]))
    with _live(players, gid)[0] as wa, _live(players, gid)[1] as wb:
        live = [wa, wb]
        for w in live:
            _recv(w)
        costs = []
        for rid in range(8):
            side = v["to_act"]
            seen.clear()
            _send(live[side], _body(v), rid)
            m = _answer(live[side])
            assert m["status"] == 200, m
            costs.append(dict(seen))
            _recv(live[1 - side])
            v = m["view"]
    for cost in costs:
        # the game's lock (in the transaction), its revision, the action stored with its NOTIFY
        assert cost.get("statements", 0) <= 3 and cost.get("commits", 0) == 1, costs


def test_another_process_follows_a_logged_action_from_its_notification_without_a_query():
    # two server processes on one database (here two apps in this process, each with its storage, listener
    # and game cache): Ann acts on the first; Bob's live connection is on the second, which keeps the game and
    # brings it to the new revision from the notification's payload, with no statement of its own
    from nardy.web.gamecache import cache_of

    url, drop = pg_schema("nardy_follow")
    stores = [Storage(url), Storage(url)]
    apps = [create_app(storage=st) for st in stores]
    a, b = PlayerClient(apps[0], base_url="http://testserver"), PlayerClient(apps[1], base_url="http://testserver")
    try:
        for c, name in ((a, "Ann"), (b, "Bob")):
            c.__enter__()
            stop_background_rounds(c)
            c.guest(name)
        g = a.post("/api/games", json={"game": "long", "opponent": "online", "length": 3}).json()
        v = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).json()
        gid = g["id"]
        statements: list = []
        event.listen(stores[1].engine, "before_cursor_execute", lambda *args: statements.append(args[2]))
        with a.websocket_connect(f"/api/games/{gid}/live") as wa, b.websocket_connect(f"/api/games/{gid}/live") as wb:
            for w in (wa, wb):
                assert _recv(w)["view"]["seq"] == v["seq"]
            followed = cache_of(stores[1]).followed
            seen = 0
            for rid in range(8):
                side = v["to_act"]
                ws = (wa, wb)[side]
                statements.clear()
                _send(ws, _body(v), rid)
                m = _answer(ws)
                assert m["status"] == 200, m
                theirs = _recv((wa, wb)[1 - side])["view"]
                assert theirs["seq"] == m["view"]["seq"] and theirs["you"] == [1 - side]
                if side == 0:  # Ann's action, on the first process: the second followed it without a query
                    assert [s for s in statements if "nardy_games" in s or "nardy_game_actions" in s] == []
                    seen += 1
                v = m["view"]
            assert seen >= 3 and cache_of(stores[1]).followed >= followed + seen
            # the followed game is the stored one (read whole, afresh) and the first process's kept one
            kept = cache_of(stores[1]).peek(gid)
            fresh = Storage(url)
            try:
                from nardy.web.gamecache import materialise

                stored = fresh.get(gid)
                assert kept.saved.revision == stored.revision == v["seq"] and kept.saved.base == stored.base
                assert kept.session.to_dict() == materialise(stored).to_dict()
                assert kept.saved.status == stored.status and kept.saved.clock_due == stored.clock_due
                assert kept.saved.summary == stored.summary and kept.saved.title == stored.title
            finally:
                fresh.close()
    finally:
        for c in (a, b):
            c.__exit__(None, None, None)
        for st in stores:
            st.close()
        drop()


def test_an_action_waits_for_the_game_held_by_another_process_and_is_stored_after_it(pair):
    # another server process holding the game (its clock keeper, a join: the session lock of its lock
    # connection) keeps this process's action waiting: the transaction's lock excludes it; once given back,
    # the action is stored on the latest state
    import threading
    import time

    import psycopg

    from nardy.web.cluster import LOCK_CLASS, game_lock_key, libpq_url

    app, players, gid, v = pair
    store = app.state.storage
    side = v["to_act"]
    other = psycopg.connect(libpq_url(store.url), autocommit=True)
    try:
        assert other.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, game_lock_key(gid))).fetchone()[0]
        out: dict = {}
        t = threading.Thread(
            target=lambda: out.update(r=players[side].post(f"/api/games/{gid}/actions", json=_body(v))), daemon=True
        )
        t.start()
        time.sleep(0.6)
        assert "r" not in out and store.revision(gid) == v["seq"]  # waiting: nothing stored meanwhile
        other.execute("SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, game_lock_key(gid)))
        t.join(10)
        assert out["r"].status_code == 200, out["r"].text
        assert store.revision(gid) == out["r"].json()["seq"] == v["seq"] + 1
        # and while this process's action holds the game, the other process cannot take it
        cluster = app.state.cluster
        with store.unit() as c:
            cluster.lock_in(c, gid)
            assert not other.execute(
                "SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, game_lock_key(gid))
            ).fetchone()[0]
        # given back with the transaction
        assert other.execute("SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, game_lock_key(gid))).fetchone()[0]
    finally:
        other.close()


def test_the_live_views_json_is_the_saved_views_own_json_text():
    # the live channel's and the socket answer's view text is made without the SavedGameView (view_json): the
    # same object as the model's own JSON (id and seq first, the kept history text last), for the side to act
    # (moves, blocked checkers), the other side, a name that is not ASCII, a waiting seat
    import time

    from nardy.web.sessions import new_session
    from nardy.web.view import SavedGameView, view_json

    def same(gid, seq, *args):
        now = time.time()  # the clock's server_time: both views made at one time
        text = view_json(gid, seq, s.game_view(*args, now=now, for_json=True))
        model = SavedGameView.of(gid, seq, s.game_view(*args, now=now)).model_dump_json(by_alias=True)
        assert text.startswith(model[: model.index(',"game":')]) and json.loads(text) == json.loads(model)
        return 1

    s = new_session("long", length=3, opponent="online", players=["Аня", 'Bo"b'], owner="u0", clock="blitz")
    checked = 0
    for side in (0, 1):
        same("g-1", 0, side, "own", [side])
    s.join("u1", 'Bo"b', None, time.time())
    s.run_bots()
    for _ in range(6):
        for side in (0, 1):
            for numbering in ("own", "absolute"):
                checked += same("abc_-9", 41, side, numbering, [side])
        g = s.game
        plays = g.legal_plays() if g.phase == "move" else []
        if not plays:
            break
        s.act("play", play=str(plays[0]), player=s.table.to_act, run=False, now=time.time())
        s.run_bots(now=time.time())
    assert checked >= 8


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_the_kept_history_text_is_the_history_models_json_through_every_kind_of_event(game):
    # matches at one screen played by random page actions (cube, resignations, whole games to the match's end):
    # each view's kept history text is what its models write, and each view's JSON the saved view's
    import random

    from nardy.web.sessions import new_session
    from nardy.web.view import HISTORY_ITEM, SavedGameView, view_json

    rng = random.Random(7)
    kinds: set[str] = set()
    for match in range(4):
        s = new_session(game, length=3, opponent="human", seed=match, options={"cube": True} if game != "long" else {})
        for _ in range(600):
            if s.table.is_over:
                break
            for numbering in ("own", "absolute") if game == "long" else ("own",):
                v = s.game_view(None, numbering)
                j = s.game_view(None, numbering, for_json=True)
                models = "[" + ",".join(HISTORY_ITEM.dump_json(h).decode() for h in v.history) + "]"
                assert j.history == [] and j._history_json == models and v._history_json is None
                text = view_json("g", 3, j)
                assert json.loads(text) == json.loads(SavedGameView.of("g", 3, v).model_dump_json(by_alias=True))
                kinds |= {h.kind for h in v.history}
            g = s.game
            acts = [a for a in v.actions if a not in ("hint", "undo")]
            if g.phase == "move" and rng.random() < 0.9:
                s.act("play", play=str(rng.choice(g.legal_plays())), player=g.turn, run=False)
            elif acts:
                a = rng.choice(acts)
                s.act(a, level=1 if a == "resign" else None, player=s.table.to_act, run=False)
            s.run_bots()
    assert {"opening", "play", "end"} <= kinds
    if game != "long":
        assert {"double"} <= kinds

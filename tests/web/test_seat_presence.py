"""Each seat's connection to an online game (docs/online.md "Presence", issue 43 item 1): the view carries
``presence`` and ``away_since``, and the game's live connections are pushed a seat's coming and going at once;
a process hears the seats of the others (kind ``seats``)."""

from __future__ import annotations

import asyncio

from nardy.web.services import seats
from nardy.web.services.seats import SeatBook

from .test_lobby import BLITZ, account, app, refused  # noqa: F401  (fixtures)


def _pair(app):  # noqa: F811
    ann, bob = account(app, "Ann"), account(app, "Bob")
    ann.post("/api/lobby/quick", json=BLITZ)
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]
    side = {c: c.get(f"/api/games/{gid}").json()["you"][0] for c in (ann, bob)}
    return ann, bob, gid, side


def _view(ws) -> dict:
    """The next view on the live channel (presence messages before it skipped)."""
    for _ in range(5):
        m = ws.receive_json()
        if m["type"] == "view":
            return m["view"]
    raise AssertionError("no view")


def _until_presence(ws, want):
    """The next presence message whose ``presence`` is ``want`` (views between are skipped)."""
    for _ in range(20):
        m = ws.receive_json()
        if m["type"] == "presence" and m["presence"] == want:
            return m
    raise AssertionError(f"no presence {want}")


def test_a_player_sees_at_once_that_the_opponent_connected_and_left(app):  # noqa: F811
    ann, bob, gid, side = _pair(app)
    a, b = side[ann], side[bob]
    v = ann.get(f"/api/games/{gid}").json()
    assert v["presence"] == [False, False] and v["away_since"] == [None, None]
    with ann.websocket_connect(f"/api/games/{gid}/live") as wa:
        first = _view(wa)
        want = [False, False]
        want[a] = True
        assert first["presence"] == want
        with bob.websocket_connect(f"/api/games/{gid}/live") as wb:
            _view(wb)
            m = _until_presence(wa, [True, True])
            assert m["id"] == gid and m["away_since"] == [None, None]
            now = ann.get(f"/api/games/{gid}").json()
            assert now["presence"] == [True, True]
            # when that presence came about: the message's "at" is the view's "presence_at", and stays so
            assert m["at"] == now["presence_at"] > first["presence_at"]
            assert ann.get(f"/api/games/{gid}").json()["presence_at"] == m["at"]
        m = _until_presence(wa, want)  # Bob's tab closed: pushed to Ann at once
        assert m["away_since"][b] is not None and m["away_since"][b].endswith("Z") and m["away_since"][a] is None
        v = ann.get(f"/api/games/{gid}").json()
        assert v["presence"] == want and v["away_since"][b] == m["away_since"][b]


def test_a_watcher_connection_is_not_a_seat_but_receives_the_presence(app):  # noqa: F811
    ann, bob, gid, side = _pair(app)
    eve = account(app, "Eve")
    with eve.websocket_connect(f"/api/games/{gid}/live") as we:
        assert _view(we)["presence"] == [False, False]  # a watcher is nobody's seat
        with ann.websocket_connect(f"/api/games/{gid}/live") as wa:
            _view(wa)
            want = [False, False]
            want[side[ann]] = True
            _until_presence(we, want)


def test_a_private_game_shows_its_presence_to_nobody_else(app):  # noqa: F811
    ann, eve = account(app, "Ann"), account(app, "Eve")
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    assert ann.get(f"/api/games/{g['id']}").json()["presence"] == [False, False]
    refused(eve.get(f"/api/games/{g['id']}"), 404, "not_found")


def test_the_seats_of_another_server_process_count_and_their_end_is_an_absence():
    book = SeatBook(clock=lambda: 1_000_000.0)
    assert book.change("g", [0], +1)  # here: White connected
    assert not book.hear("g", "other", (1, 0))  # White elsewhere too: no change
    assert book.hear("g", "other", (0, 1))  # Black connected on the other process
    assert book.state("g") == ([True, True], [None, None])
    assert book.change("g", [0], -1)  # White's last connection (here) closed
    assert book.state("g") == ([False, True], ["1970-01-12T13:46:40Z", None])
    assert book.hear("g", "other", (0, 0))
    assert book.state("g")[0] == [False, False]


def test_the_time_presence_came_about_moves_only_when_a_seat_comes_or_goes():
    now = [100.0]
    book = SeatBook(clock=lambda: now[0])
    assert book.changed_at("g") == 0.0  # never seen
    book.change("g", [0], +1)
    assert book.changed_at("g") == 100.0
    now[0] = 105.0
    assert not book.change("g", [0], +1)  # a second tab of White's: no change, no new time
    assert not book.hear("g", "other", (1, 0))
    assert book.changed_at("g") == 100.0
    assert book.hear("g", "other", (1, 1))  # Black came (on another process)
    assert book.changed_at("g") == 105.0
    now[0] = 107.0
    book.change("g", [0], -1)  # one of White's two here closed: still connected (here and there)
    assert book.changed_at("g") == 105.0


def test_a_notification_of_seats_from_this_process_or_malformed_is_ignored(app):  # noqa: F811
    book = app.state.seat_book = SeatBook()
    asyncio.run(seats.heard(app, f"g1 {seats.ORIGIN} 1 0"))
    asyncio.run(seats.heard(app, "g1 other x 0"))
    asyncio.run(seats.heard(app, "g1 other 1"))
    assert book.state("g1")[0] == [False, False]
    asyncio.run(seats.heard(app, "g1 other 0 2"))
    assert book.state("g1")[0] == [False, True]

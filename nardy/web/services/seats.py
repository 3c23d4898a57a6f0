"""Who is connected to an online game now (docs/online.md "Presence"): each seat's live connections, shown in
the game's view (``"presence": [bool, bool]``, ``"away_since": [iso | null, iso | null]``) and pushed to the
game's live connections at once when a seat comes or goes: ``{"type": "presence", "id", "presence",
"away_since", "at"}``. Both say when the presence they carry came about (``presence_at`` in the view, ``at`` in
the message: Unix seconds, the last change of the game's presence the serving process knew of; a view read again
with nothing changed is the same), so a page keeps the latest whatever order they arrive in: a view read just
before a seat came, sent just after the seat's message, must not show the seat away again.

A seat is connected while its player has at least one open ``WS /api/games/{id}/live`` connection to the game,
on any server process: each process counts its own (:func:`joined`, :func:`left`, called by the live route) and,
when a seat's count here changes between none and some, tells the others (a notification of kind ``seats``, key
``"<id> <origin> <n0> <n1>"``: this process's counts), which keep them (:func:`heard`) and push the change to
their own connections of the game. ``away_since``: when the seat's last connection closed, as this process heard
it (``null`` while connected, and for a seat not seen connected since this process started: the claims of
abandonment read the database's presence instead, :mod:`nardy.web.presence`).

Only connections of the game receive its presence, and a connection is opened only by those who may see the
game (a private game's: its players and invited watchers; :meth:`HostedGame.may_watch`), as its views are.
A process that dies leaves its counts with the others until they restart (at worst a seat shown connected);
the counts of a process are sent again to the others when its connection to the database is made again
(:func:`resend`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import logging
import secrets
import time
from dataclasses import dataclass, field

from ...flow.table import BETWEEN_GAMES
from .. import ratings as _r
from .live import announce, encode

log = logging.getLogger("nardy.web")

__all__ = [
    "ABORT_TURNS",
    "may_abort",
    "SeatBook",
    "book",
    "joined",
    "left",
    "heard",
    "stamp",
    "pause_of",
    "presence_message",
    "ORIGIN",
]

#: Games a book keeps (beyond, those nobody is connected to are forgotten).
_MAX_GAMES = 100_000
#: This process's name in the notifications of seats (made once; random, never reused).
ORIGIN = secrets.token_hex(6)


@dataclass
class _Game:
    local: list[int] = field(default_factory=lambda: [0, 0])  # this process's connections of each seat
    remote: dict[str, tuple[int, int]] = field(default_factory=dict)  # other processes' counts, by origin
    away: list[float | None] = field(default_factory=lambda: [None, None])  # when each seat's last one closed
    changed: float = 0.0  # when a seat's presence last changed here (0: never)

    def connected(self) -> list[bool]:
        return [self.local[i] + sum(r[i] for r in self.remote.values()) > 0 for i in (0, 1)]


class SeatBook:
    """The connections of each seat of each game this process knows of (see the module docstring). Used on the
    event loop only (no lock). ``clock``: Unix seconds (tests inject one)."""

    def __init__(self, clock=time.time):
        self.games: dict[str, _Game] = {}
        self.clock = clock

    def state(self, gid: str) -> tuple[list[bool], list[str | None]]:
        """``(presence, away_since)`` of ``gid`` now: each seat connected, and since when each absent seat is
        away (ISO 8601, UTC; ``None`` while connected or not known)."""
        g = self.games.get(gid)
        if g is None:
            return [False, False], [None, None]
        on = g.connected()
        return on, [None if on[i] or g.away[i] is None else _iso(g.away[i]) for i in (0, 1)]

    def changed_at(self, gid: str) -> float:
        """When a seat of ``gid`` last came or went as this process knows (its clock's seconds; 0.0: never):
        what :meth:`state` says is as of then."""
        g = self.games.get(gid)
        return g.changed if g is not None else 0.0

    def change(self, gid: str, sides: list[int], delta: int) -> bool:
        """This process's connections of ``sides`` of ``gid`` change by ``delta`` (+1, -1); returns whether a
        seat's presence changed."""
        g = self.games.setdefault(gid, _Game())
        before = g.connected()
        for i in sides:
            if i in (0, 1):
                g.local[i] = max(0, g.local[i] + delta)
        return self._settled(gid, g, before)

    def hear(self, gid: str, origin: str, counts: tuple[int, int]) -> bool:
        """Another process's counts of ``gid``; returns whether a seat's presence changed."""
        g = self.games.setdefault(gid, _Game())
        before = g.connected()
        if counts == (0, 0):
            g.remote.pop(origin, None)
        else:
            g.remote[origin] = counts
        return self._settled(gid, g, before)

    def _settled(self, gid: str, g: _Game, before: list[bool]) -> bool:
        after = g.connected()
        now = self.clock()
        for i in (0, 1):
            if before[i] and not after[i]:
                g.away[i] = now
        if before != after:
            g.changed = now
        if len(self.games) > _MAX_GAMES:  # forget the games nobody is connected to (their away times)
            self.games = {k: v for k, v in self.games.items() if any(v.connected())}
        return before != after


def _iso(t: float) -> str:
    return _dt.datetime.fromtimestamp(t, _dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


#: The process's book: one a process, as its connections are (the views read it without the app at hand;
#: game ids are unique, so apps of one process, in tests, do not meet in it).
BOOK = SeatBook()


def book(app=None) -> SeatBook:
    """The process's :class:`SeatBook` (``app.state.seat_book`` when a test set one)."""
    b = getattr(app.state, "seat_book", None) if app is not None else None
    return b if b is not None else BOOK


#: A match may be aborted until each side has taken this many turns (docs/online.md "Fair play").
ABORT_TURNS = 2


def may_abort(s) -> bool:
    """Whether the online match of session ``s`` may still be aborted: under way (both seats taken, not over)
    and some side has taken fewer than :data:`ABORT_TURNS` turns (:func:`nardy.web.ratings.turns_taken`)."""
    return bool(s.online and not s.table.is_over and not s.table.waiting and min(_r.turns_taken(s.match)) < ABORT_TURNS)


def stamp(gid: str, view, s=None) -> None:
    """Set ``view``'s ``presence``, ``away_since`` and (given its session ``s``) ``abortable`` (a
    :class:`~nardy.web.view.GameView` of the online game ``gid``; others are left without)."""
    if getattr(view, "online", None) is None:
        return
    on, away = BOOK.state(gid)
    view.presence = on
    view.away_since = away
    view.presence_at = BOOK.changed_at(gid)
    if s is not None:
        view.abortable = may_abort(s)
        view.last_game = last_game(s)
        view.pause = pause_of(s)


def pause_of(s) -> dict | None:
    """The pause between games session ``s``'s table holds (:attr:`nardy.flow.table.Table.pause_until`):
    ``{"until": ISO 8601, "seconds": its length}``, or ``None``."""
    if not s.table.paused:
        return None
    until = _dt.datetime.fromtimestamp(s.table.pause_until, _dt.UTC).isoformat().replace("+00:00", "Z")
    return {"until": until, "seconds": BETWEEN_GAMES}


def last_game(s) -> dict | None:
    """The last finished game of session ``s``'s match, for the page's pause between games and the match's
    summary: ``{"number", "winner", "level_name", "points", "cube", "reason"}`` (``reason``: ``bear-off``,
    ``drop``, ``resign`` or ``draw``; a match ended on time, abandoned or aborted says so in ``online.ended``);
    ``None`` before any game ended."""
    games = s.match.games
    for i in range(len(games) - 1, max(-1, len(games) - 3), -1):
        res = games[i].result
        if res is not None:
            d = res.to_dict()
            return {"number": i + 1, **{k: d[k] for k in ("winner", "level_name", "points", "cube", "reason")}}
    return None


def presence_message(app, gid: str) -> str:
    """The live channel's message of ``gid``'s presence now, as JSON text."""
    b = book(app)
    on, away = b.state(gid)
    return encode({"type": "presence", "id": gid, "presence": on, "away_since": away, "at": b.changed_at(gid)})


async def _push(app, gid: str, skip=None) -> None:
    text = presence_message(app, gid)
    for conn in app.state.hub.connections(gid):
        if conn is skip:
            continue
        async with conn.lock:  # beside the views, never holding one back (no seq of its own)
            with contextlib.suppress(Exception):
                await conn.ws.send_text(text)


async def _tell(app, gid: str) -> None:
    g = book(app).games.get(gid)
    local = g.local if g is not None else [0, 0]
    try:
        await announce(app, "seats", f"{gid} {ORIGIN} {local[0]} {local[1]}")
    except Exception:
        log.info("presence: the other processes could not be told of game %s", gid)


async def joined(app, gid: str, sides: list[int], conn=None) -> None:
    """A live connection of ``gid`` opened for ``sides`` (its user's seats; none: a watcher); ``conn``, that
    connection, is not pushed the change (its first view, sent next, carries it)."""
    if sides and book(app).change(gid, sides, +1):
        await _push(app, gid, conn)
        await _tell(app, gid)


async def left(app, gid: str, sides: list[int]) -> None:
    """A live connection of ``gid`` for ``sides`` closed."""
    if sides and book(app).change(gid, sides, -1):
        await _push(app, gid)
        await _tell(app, gid)


async def heard(app, key: str) -> None:
    """A ``seats`` notification from another process (``"<id> <origin> <n0> <n1>"``); a malformed one is
    ignored."""
    try:
        gid, origin, n0, n1 = key.split(" ")
        counts = (max(0, int(n0)), max(0, int(n1)))
    except ValueError:
        return
    if origin == ORIGIN:
        return
    if book(app).hear(gid, origin, counts):
        await _push(app, gid)


async def resend(app) -> None:
    """Tell the other processes this process's counts of every game again (after notifications may have been
    lost)."""
    for gid, g in list(book(app).games.items()):
        if any(g.local):
            await _tell(app, gid)

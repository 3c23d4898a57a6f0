"""When a seated player is present at their online game (docs/online.md, "Fair play"): what a claim of
abandonment (:mod:`nardy.web.routers.fairplay`) is measured against.

A seated player is present at their online game while they do anything with it, by any way and on any server
process: a request for the game over HTTP (its view, record, fairness, hints, an action, refused or not), a
live connection to it (written when it opens, then every :data:`~nardy.web.routers.lobby.PRESENCE_EVERY` seconds
while open), an action stored in the game's log. The database keeps when each seat was last seen
(``nardy_presence``, channel: the game's id), written by :func:`seat_seen` at most once every
:data:`SEEN_EVERY` seconds per player and game in a process (a player polling the game costs one small write
every few seconds, not one a request); the game's log keeps the time of every action. The time is
:func:`wall_clock` (tests inject their own).
"""

from __future__ import annotations

import datetime as _dt
import logging
import time

from starlette.concurrency import run_in_threadpool

from .sessions import HostedGame
from .store.community import community

__all__ = ["ABANDON_GRACE", "SEEN_EVERY", "SeatPresence", "seat_seen", "absent_since", "wall_clock", "grace"]

log = logging.getLogger("nardy.web")

#: Seconds a player may be absent from a rated match while it is theirs to act before the opponent may claim
#: it (:mod:`nardy.web.routers.fairplay`); ``app.state.abandon_grace`` overrides it.
ABANDON_GRACE = 120.0
#: Seconds between two writes of one seat's presence by one process (at most a tenth of the grace period).
SEEN_EVERY = 5.0
#: Seats whose last write a process remembers (beyond, the oldest are forgotten: at worst one more write).
_MAX_KEPT = 50_000


def grace(app) -> float:
    """The grace period of claims (seconds): ``app.state.abandon_grace``, else :data:`ABANDON_GRACE`."""
    return float(getattr(app.state, "abandon_grace", ABANDON_GRACE))


def wall_clock(app) -> float:
    """The server's time for presence and claims (Unix seconds): ``app.state.wall_clock()`` when a test set
    one, else :func:`time.time`."""
    clock = getattr(app.state, "wall_clock", None)
    return float(clock()) if clock is not None else time.time()


class SeatPresence:
    """When this process last wrote each ``(player, game)``'s presence (:func:`wall_clock` seconds), so that it
    writes at most one a :data:`SEEN_EVERY` seconds each (a clock that went back makes the next one due)."""

    def __init__(self, every: float = SEEN_EVERY):
        self.every = every
        self.written: dict[tuple[str, str], float] = {}

    def due(self, uid: str, gid: str, now: float, every: float | None = None) -> bool:
        """Whether ``uid``'s presence at ``gid`` is to be written at ``now``, its last write ``every`` seconds
        ago or more (default: the presence's own); then it counts as written."""
        every = self.every if every is None else every
        key = (uid, gid)
        last = self.written.get(key)
        if last is not None and 0.0 <= now - last < every:
            return False
        if len(self.written) >= _MAX_KEPT:
            self.written = {k: t for k, t in self.written.items() if 0.0 <= now - t < self.every}
            if len(self.written) >= _MAX_KEPT:
                self.written.clear()
        self.written[key] = now
        return True


def _presence(app) -> SeatPresence:
    p = getattr(app.state, "seat_presence", None)
    if p is None:
        p = app.state.seat_presence = SeatPresence()
    return p


async def seat_seen(app, s: HostedGame | None, uid: str | None, gid: str) -> None:
    """Player ``uid`` did something with game ``gid`` (session ``s``): when they sit at it and it is an online
    match under way, their presence there is written (at most once a :data:`SEEN_EVERY` seconds per process, a
    tenth of the grace period when that is shorter, so what a claim reads is never older than that).
    A database that fails here fails nothing else (the request goes on)."""
    if s is None or uid is None or not s.online or s.table.is_over or not s.sides_of(uid):
        return
    now = wall_clock(app)
    if not _presence(app).due(uid, gid, now, min(SEEN_EVERY, grace(app) / 10)):
        return
    when = _dt.datetime.fromtimestamp(now, _dt.UTC)
    try:
        await run_in_threadpool(community(app).touch, [(uid, gid)], when)
    except Exception:
        _presence(app).written.pop((uid, gid), None)
        log.info("presence: could not write a seat's presence")


def absent_since(com, s: HostedGame, side: int, gid: str) -> float:
    """Since when (Unix seconds) side ``side`` of the online game ``gid`` has been absent: the latest of its
    player's presence there (:func:`seat_seen`, live connections) and the last entry of the game's log (any
    action, by either side: the turn has been theirs since at most then). Blocking (reads the database)."""
    player = s.table.seats[side].player or ""
    seen = com.seen(player, gid)
    t = seen.timestamp() if seen is not None else 0.0
    if s.table.log:
        t = max(t, float(s.table.log[-1].get("t", 0.0)))
    return t

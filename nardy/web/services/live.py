"""Live games: the WebSocket hub that pushes each stored change to the players and watchers, and the clock
keeper that ends a match when the side to act runs out of time.

* :class:`Hub`: the open ``WS /api/games/{id}/live`` connections of this process, by game (and the lobby's,
  ``WS /api/lobby/live``, under the key ``":lobby"``, which no game id can be: :func:`nardy.web.routers.lobby.
  publish_lobby` makes each of its connections' messages from the database, so a notification of the lobby
  from another process needs to carry only that key; without one, every process sends its lobby pages the
  lobby again every :data:`nardy.web.routers.lobby.PRESENCE_EVERY` seconds). After a change is
  stored, :meth:`Hub.publish` sends every connection of that game its own view (its side, numbering and
  language): ``{"type": "view", "view": {...}}``. A page that loses its connection reconnects and gets the
  current view first, so nothing is missed; the view's ``seq`` tells it whether anything changed.
* :class:`ClockKeeper`: a background task. Every second it ends the matches whose clock has run out
  (``Storage.due_games``), stores them and publishes; every second it writes a heartbeat, so that after
  a restart the time the server was down is given back to the running clocks (:meth:`ClockKeeper.resume`,
  run once at start-up: nobody loses on time because the server was down).

Several processes (``nardy serve --workers N``, several machines, one PostgreSQL): each process's hub holds its
own connections; a change stored by another process reaches them through that change's ``NOTIFY``
(:mod:`nardy.web.cluster`: kind ``game``), and every process's keeper sweeps the due clocks, the game's lock
letting exactly one of them act on each.

Bounds: at most :data:`MAX_PER_GAME` connections a game and :data:`MAX_CONNECTIONS` in all; a client's
messages are at most 256 bytes (``"ping"`` is answered ``"pong"``; anything else is ignored).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as _dt
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from ..gamecache import cache_of
from .loading import read_locked

log = logging.getLogger("nardy.web")

__all__ = ["Hub", "Conn", "ClockKeeper", "announce", "encode", "view_message", "MAX_PER_GAME", "MAX_CONNECTIONS"]

MAX_PER_GAME = 64
MAX_CONNECTIONS = 4096
#: Seconds between two heartbeats (the clocks' pause after a restart is measured from the last one). A gap of over
#: two is downtime given back at start-up (a shorter one: another server process is alive, the clocks ran); at 5 s a
#: restart of a few seconds (under 10) was charged to the running clocks whole.
HEARTBEAT = 1.0


@dataclass(eq=False)
class Conn:
    """One live connection: its socket, whose it is, the sides it may act for, how it draws."""

    ws: WebSocket
    user: str | None
    sides: list[int]
    viewer: int | None
    numbering: str
    lang: str
    sent: int = -1  # the last seq sent
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class Hub:
    """The live connections of this process (see the module docstring)."""

    def __init__(self):
        self.games: dict[str, set[Conn]] = {}

    @property
    def count(self) -> int:
        return sum(len(c) for c in self.games.values())

    def room(self, gid: str) -> bool:
        """Whether one more connection to ``gid`` is allowed."""
        return self.count < MAX_CONNECTIONS and len(self.games.get(gid, ())) < MAX_PER_GAME

    def add(self, gid: str, conn: Conn) -> None:
        self.games.setdefault(gid, set()).add(conn)

    def remove(self, gid: str, conn: Conn) -> None:
        conns = self.games.get(gid)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                del self.games[gid]

    async def send(self, conn: Conn, seq: int, view: dict[str, Any] | str) -> None:
        """Send ``view`` (state ``seq``: a dict, or its JSON text) unless this connection has it, or a later one,
        already (a change pushed twice, by this process and after a notification, goes once); a failed send
        drops nothing but the message (the page reconnects and reads the current view)."""
        async with conn.lock:
            if seq <= conn.sent:
                return
            conn.sent = seq
            with contextlib.suppress(Exception):
                await conn.ws.send_text(view_message(view if isinstance(view, str) else encode(view)))

    def connections(self, gid: str) -> list[Conn]:
        """The live connections of ``gid`` now (taken on the event loop; a writer takes them before it changes
        the game, and a connection added later reads its first view after the change: :meth:`publish`)."""
        return list(self.games.get(gid, ()))

    @staticmethod
    def messages(conns: list[Conn], shown, game, made: dict | None = None) -> list[tuple[Conn, str]]:
        """Each connection's view of ``game`` as JSON text: one view made and encoded per (user, viewer,
        numbering), however many tabs share it; ``made``: texts made already by that key (the view the
        writer answers with is its own connection's). ``shown(game, conn)`` makes a view (a dict, or its JSON
        text). Blocking
        (call it on a worker thread, under the game's lock)."""
        texts: dict[tuple, str] = dict(made or {})
        out = []
        for conn in conns:
            key = (conn.user, conn.viewer, conn.numbering)
            try:
                if key not in texts:
                    view = shown(game, conn)
                    texts[key] = view if isinstance(view, str) else encode(view)
                out.append((conn, texts[key]))
            except Exception:
                log.exception("live: no view of game %s for a connection", game.id)
        return out

    async def push(self, seq: int, made: list[tuple[Conn, str]]) -> None:
        """Send the views :meth:`messages` made (state ``seq``)."""
        for conn, text in made:
            await self.send(conn, seq, text)

    async def deliver(self, conn: Conn, seq: int, message: dict[str, Any] | str) -> None:
        """Send ``message`` (a dict, or its JSON text; made at ``seq``, e.g. :func:`time.time_ns`) unless this
        connection has had a later one: the lobby's channel (:mod:`nardy.web.routers.lobby`), whose messages are made
        afresh from the database for each notification."""
        async with conn.lock:
            if seq < conn.sent:
                return
            conn.sent = seq
            with contextlib.suppress(Exception):
                if isinstance(message, str):  # JSON text made already
                    await conn.ws.send_text(message)
                else:
                    await conn.ws.send_json(message)

    async def publish(
        self, gid: str, store, shown, game=None, lock: asyncio.Lock | None = None, notice: tuple | None = None
    ) -> None:
        """Send every connection of ``gid`` its view of the stored game. ``shown(game, conn)`` makes one
        connection's view (a dict) from the loaded game: the process's kept game, read under the game's
        in-process ``lock`` (:mod:`nardy.web.gamecache`), all the views made in one go; ``game``: the
        :class:`~nardy.web.deps.Loaded` just stored, used as it is when it is still the kept one (else the
        game is read: it has changed since, and its newer state is what is sent); ``notice``: ``(revision, base,
        entry)``, the change another process stored, as its notification told it: the kept game follows it
        without a query when it can (:meth:`nardy.web.gamecache.GameCache.follow`), else it is read."""
        conns = self.connections(gid)
        if not conns:
            return

        def views(read: bool):
            cache = cache_of(store)
            current = game if (game is not None and cache.peek(gid) is game) else None
            if current is None and notice is not None:
                current = cache.follow(gid, *notice)
            if current is None:
                if not read:
                    return None
                current = read_locked(store, gid)
            return current.saved.revision, self.messages(conns, shown, current)

        try:
            async with lock if lock is not None else contextlib.nullcontext():
                # a game that needs no query (just stored here, or followed from its notification) is shown on the
                # event loop: the work is the interpreter's either way, and a trip to a worker thread costs more
                # than a view; one that must be read goes to a worker thread (blocking I/O)
                out = views(False) if (game is not None or notice is not None) else None
                seq, made = out if out is not None else await run_in_threadpool(views, True)
        except Exception:  # deleted meanwhile, or the database is down: the pages reconnect and see
            log.info("live: game %s could not be read for its watchers", gid)
            return
        await self.push(seq, made)


def encode(data: Any) -> str:
    """JSON text as the answers and the live channel send it (UTF-8, no spaces)."""
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def view_message(view_json: str) -> str:
    """The live channel's message of a view given as JSON text: ``{"type": "view", "view": {...}}``."""
    return '{"type":"view","view":' + view_json + "}"


async def announce(app, kind: str, key: str) -> None:
    """Tell the other server processes that ``key`` of ``kind`` changed (a game's change is announced by its
    save already): their handlers registered with ``app.state.cluster.on(kind, handler)`` run with ``key``
    (:mod:`nardy.web.cluster`; nothing with SQLite, one process). The caller pushes to this process's own
    connections itself."""
    await run_in_threadpool(app.state.storage.notify, kind, key)


def _when(t: float) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(t, _dt.UTC)


class PeriodicTask:
    """A round run every ``period`` seconds in one task of the running event loop (the clock keeper here, the
    lobby's presence keeper, the tournament runner): a subclass sets ``self.task = None`` and ``self.period`` and
    defines ``tick()``, one round; the default :meth:`run` calls it, then sleeps ``period`` s, for ever: a round
    that fails is logged as ``failed`` (one of ``quiet``: not logged) and the next round tries again.
    :meth:`start` starts it once (a second call does nothing); :meth:`stop` cancels it and waits for it."""

    task: asyncio.Task | None
    period: float
    failed = "a periodic round failed"
    quiet: tuple[type[Exception], ...] = ()

    async def tick(self) -> object:
        raise NotImplementedError

    async def run(self) -> None:
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except self.quiet:
                pass
            except Exception:  # the database may be down a moment, a game unreadable...: next round again
                log.warning(self.failed, exc_info=True)
            await asyncio.sleep(self.period)

    def start(self) -> None:
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
            self.task = None


class ClockKeeper(PeriodicTask):
    """Ends the matches whose clock has run out, and keeps the heartbeat (see the module docstring).

    Args:
        app: the FastAPI app (its ``state``: ``storage``, ``hub``, ``game_locks``).
        expire: ``expire(app, gid, now)`` coroutine: load the game, end it on time if due, store, publish.
        shift: ``shift(app, gid, seconds, now)`` coroutine: move the game's running clock on by ``seconds`` (the
            server was down until ``now``).
    """

    failed = "clock keeper: a round failed"

    def __init__(self, app, expire, shift, period: float = 1.0):
        self.app = app
        self.expire = expire
        self.shift = shift
        self.period = period
        self.task: asyncio.Task | None = None
        self._last_beat = 0.0

    async def resume(self, now: float | None = None) -> int:
        """Give back to the running clocks the time since the last heartbeat (the server was down); returns
        the number of games whose clock was moved."""
        store = self.app.state.storage
        now = time.time() if now is None else now
        # read and replaced in one step: of server processes starting at once, only the first finds the old one
        beat = await run_in_threadpool(store.swap_heartbeat, _when(now))
        if beat is None or now - beat.timestamp() <= HEARTBEAT * 2:
            return 0
        down = now - beat.timestamp()
        n = 0
        for gid in await run_in_threadpool(store.clocked_games):
            if await self.shift(self.app, gid, down, now):
                n += 1
        log.info("clocks: %d running clock(s) given back %.0f s the server was down", n, down)
        return n

    async def tick(self, now: float | None = None) -> int:
        """One round: expire the due games, beat the heart. Returns the number of games ended."""
        store = self.app.state.storage
        now = time.time() if now is None else now
        if now - self._last_beat >= HEARTBEAT:
            await run_in_threadpool(store.set_heartbeat, _when(now))
            self._last_beat = now
        due = await run_in_threadpool(store.due_games, _when(now))
        n = 0
        for gid in due:
            try:
                if await self.expire(self.app, gid, now):
                    n += 1
            except asyncio.CancelledError:
                raise
            except Exception:  # one game's trouble does not hold up the others' clocks: next round again
                log.warning("clock keeper: game %s could not be ended on time this round", gid, exc_info=True)
        return n

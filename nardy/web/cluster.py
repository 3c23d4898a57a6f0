"""Several server processes on one PostgreSQL: live notifications between them and one writer per game.

``nardy serve --workers N``, and several machines behind a load balancer, share one PostgreSQL database and
nothing else (no broker): a player connected to one process must see at once what was done through another,
and a game must have exactly one writer at a time (its dice, its clock). Both go through PostgreSQL:

* **Notifications** (``LISTEN``/``NOTIFY`` on the channel :data:`CHANNEL`): every stored change of a game
  sends ``NOTIFY`` *in the transaction that stores it* (:meth:`nardy.web.store.storage.Storage.save`), so a change
  is announced if and only if it is committed, even when its process is killed right after. Each process
  listens on a connection of its own (:class:`Cluster`, psycopg 3 async) and hands each notification to the
  handler of its *kind* (``"game"``: push the stored game to this process's live connections,
  :func:`nardy.web.services.publishing.publish`; other parts of the server register kinds of their own with
  :meth:`Cluster.on` and send with :meth:`nardy.web.store.storage.Storage.notify`). A process skips the
  notifications it sent itself (it has pushed its own connections already). When the listening connection
  is lost (PostgreSQL restarted), it is made again and the *resync* handlers run (every game with live
  connections here is pushed again), so nothing missed meanwhile stays missed.
* **Game locks** (PostgreSQL advisory locks, :meth:`Cluster.lock`): whoever changes a game (an action, a
  join, the clock keeper) holds the game's lock from reading it to storing it, so one process at a time
  writes a game, always on its latest state. Locks are session locks of one connection per process, so a
  killed process's locks go with its connection at once. The revision check of ``Storage.save`` stays
  beneath as a last guard (a second writer is refused with 409, never stored).

Payloads are ``"<kind> <origin> <key>"`` (:data:`nardy.web.store.storage.NOTIFY_CHANNEL`): ``origin`` names the
sending process (:attr:`Storage.origin`), ``key`` what changed (a game id). With SQLite (one process)
:class:`Cluster` is inactive: the process's own pushes are all there is, and the locks are the in-process ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable

from sqlalchemy.engine import make_url

from .store.storage import NOTIFY_CHANNEL, Storage, StorageUnavailable, pg_rows

__all__ = ["Cluster", "CHANNEL", "LOCK_CLASS", "game_lock_key"]

log = logging.getLogger("nardy.web")

CHANNEL = NOTIFY_CHANNEL
#: The first key of the games' advisory locks (two-key form; the migration lock uses the one-key form,
#: whose key space PostgreSQL keeps apart).
LOCK_CLASS = 0x6E617264  # "nard"
#: Seconds a writer waits for a game's lock held by another process before answering 503.
LOCK_WAIT = 10.0
#: Seconds between two attempts to make the listening connection again.
RECONNECT = (0.2, 5.0)

Handler = Callable[[str], Awaitable[None]]


def game_lock_key(gid: str) -> int:
    """The second key of game ``gid``'s advisory lock: a signed 32-bit number from its sha256 (two games
    sharing one only wait for each other a moment, never act on each other)."""
    return int.from_bytes(hashlib.sha256(gid.encode("utf-8", "surrogatepass")).digest()[:4], "big", signed=True)


def libpq_url(url: str) -> str:
    """The libpq URL (``postgresql://...``, password kept) of a SQLAlchemy ``postgresql+psycopg`` URL."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class Cluster:
    """This process's part in a group of server processes on one PostgreSQL (see the module docstring).

    Args:
        storage: the server's storage; inactive (every method does nothing, locks are always granted) unless
            it is PostgreSQL.
    """

    def __init__(self, storage: Storage):
        self.storage = storage
        self.origin = storage.origin
        self.active = storage.backend == "postgresql"
        self._url = libpq_url(storage.url) if self.active else None
        self.handlers: dict[str, Handler] = {}
        self.now_handlers: dict[str, Callable[[str], None]] = {}
        self._expected: dict[str, list[asyncio.Future]] = {}
        self.resync: list[Callable[[], Awaitable[None]]] = []
        self._listener: asyncio.Task | None = None
        self._lock_conn = None
        self._lock_gate: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._tasks: set[asyncio.Task] = set()
        #: set once the listening connection is up (tests and start-up wait for it)
        self.listening = asyncio.Event()
        #: notifications received from other processes (figures for tests and benchmarks)
        self.received = 0

    # ----- notifications -----------------------------------------------------------------------------------
    def on(self, kind: str, handler: Handler) -> None:
        """Call ``await handler(key)`` for every notification of ``kind`` sent by another process."""
        if not kind or " " in kind:
            raise ValueError(f"notification kind {kind!r}: one word")
        self.handlers[kind] = handler

    def on_now(self, kind: str, handler: Callable[[str], None]) -> None:
        """Call ``handler(key)`` for every notification of ``kind`` sent by another process, at once as it is
        read (on the event loop, before anything else runs: it must be quick and must not block), not in a
        task of its own as :meth:`on` does: a cache's invalidation (:class:`nardy.web.routers.auth.SessionCache`)."""
        if not kind or " " in kind:
            raise ValueError(f"notification kind {kind!r}: one word")
        self.now_handlers[kind] = handler

    def expect(self, kind: str, key: str) -> asyncio.Future:
        """A future resolved when this process's own notification ``kind key`` comes back to its listener: sent
        by a transaction committed after this call (made before it, so that the echo cannot be missed). By
        then PostgreSQL has handed the notification to every listening process (a logout waits for it before
        it answers: :func:`nardy.web.routers.auth.end_session`). Resolved with ``False`` at once when inactive."""
        fut = asyncio.get_running_loop().create_future()
        if not self.active or not self.listening.is_set():
            fut.set_result(False)
            return fut
        self._expected.setdefault(f"{kind} {key}", []).append(fut)

        def _gone(f, name=f"{kind} {key}"):
            waiting = self._expected.get(name)
            if waiting is not None and f in waiting:
                waiting.remove(f)
                if not waiting:
                    del self._expected[name]

        fut.add_done_callback(_gone)
        return fut

    def on_resync(self, handler: Callable[[], Awaitable[None]]) -> None:
        """Call ``await handler()`` after the listening connection was lost and made again (notifications
        may have been missed meanwhile)."""
        self.resync.append(handler)

    async def start(self, wait: float = 10.0) -> None:
        """Start listening (PostgreSQL only); waits up to ``wait`` seconds for the first connection (a
        database that is down is retried in the background)."""
        if not self.active or self._listener is not None:
            return
        self.listening = asyncio.Event()
        self._listener = asyncio.get_running_loop().create_task(self._listen())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.listening.wait(), wait)

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
            self._listener = None
        for t in list(self._tasks):
            t.cancel()
        if self._lock_conn is not None and self._lock_loop is asyncio.get_running_loop():
            with contextlib.suppress(Exception):
                await self._lock_conn.close()
        self._lock_conn = self._lock_gate = self._lock_loop = None

    async def _listen(self) -> None:
        import psycopg

        pause = RECONNECT[0]
        first = True
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(self._url, autocommit=True) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening.set()
                    pause = RECONNECT[0]
                    if not first:
                        log.info("live: listening again on %s; pushing the live games again", CHANNEL)
                        for h in self.resync:
                            self._spawn(h())
                    first = False
                    async for n in conn.notifies():
                        self._dispatch(n.payload)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                self.listening.clear()
                log.warning("live: the notification connection failed (%s); again in %.1f s", type(e).__name__, pause)
                await asyncio.sleep(pause)
                pause = min(pause * 2, RECONNECT[1])
                first = False

    def _dispatch(self, payload: str) -> None:
        parts = payload.split(" ", 2)
        if len(parts) != 3:
            return
        kind, origin, key = parts
        if origin == self.origin:
            for fut in self._expected.pop(f"{kind} {key}", ()):
                if not fut.done():
                    fut.set_result(True)
            return
        now = self.now_handlers.get(kind)
        if now is not None:
            try:
                now(key)
            except Exception:
                log.warning("live: a notification's handler failed", exc_info=True)
        handler = self.handlers.get(kind)
        if handler is None:
            return
        self.received += 1
        self._spawn(handler(key))

    def _spawn(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("live: a notification's handler failed", exc_info=task.exception())

    # ----- game locks --------------------------------------------------------------------------------------
    async def _locks(self):
        if self._lock_conn is None or self._lock_conn.closed:
            import psycopg

            self._lock_conn = await psycopg.AsyncConnection.connect(self._url, autocommit=True)
        return self._lock_conn

    def _gate(self) -> asyncio.Lock:
        """The lock connection's gate, for the running event loop (an app driven by a test client may see
        several loops one after the other: a connection made in another loop is left, and made again)."""
        loop = asyncio.get_running_loop()
        if self._lock_gate is None or self._lock_loop is not loop:
            self._lock_gate, self._lock_loop, self._lock_conn = asyncio.Lock(), loop, None
        return self._lock_gate

    async def _try(self, gid: str) -> bool:
        async with self._gate():
            for attempt in (1, 2):  # a connection lost since the last call is made again once
                try:
                    conn = await self._locks()
                    cur = await conn.execute(
                        "SELECT pg_try_advisory_lock(%s, %s)", (LOCK_CLASS, game_lock_key(gid)), prepare=True
                    )
                    row = await cur.fetchone()
                    return bool(row and row[0])
                except Exception as e:
                    self._lock_conn = None
                    if attempt == 2:
                        log.warning("live: game lock for %s failed: %s", gid, type(e).__name__)
                        raise StorageUnavailable("the database is unavailable; try again shortly") from None
        return False  # pragma: no cover

    async def lock(self, gid: str, wait: bool = True) -> bool:
        """Take game ``gid``'s lock for this process (the caller holds the game's in-process lock, so one task
        of this process at a time asks for it). ``wait=False``: give up at once if another process holds it.

        Returns whether it was taken (always True when inactive or ``wait``).
        Raises:
            StorageUnavailable: the database does not answer, or the lock stayed held for :data:`LOCK_WAIT`
                seconds (503 with Retry-After).
        """
        if not self.active:
            return True
        loop = asyncio.get_running_loop()
        end = loop.time() + LOCK_WAIT
        pause = 0.002
        while True:
            if await self._try(gid):
                return True
            if not wait:
                return False
            if loop.time() > end:
                raise StorageUnavailable("the game is busy in another server process; try again shortly")
            await asyncio.sleep(pause)
            pause = min(pause * 2, 0.05)

    def lock_in(self, conn, gid: str, wait: float = LOCK_WAIT) -> None:
        """Take game ``gid``'s lock for the transaction of ``conn`` (a SQLAlchemy connection in a unit of work,
        :meth:`Storage.unit`, on a worker thread): PostgreSQL's transaction-level advisory lock on the same key
        as :meth:`lock`'s (the two exclude each other across processes), given back by the commit or rollback
        that ends the unit (a killed process's with its connection). One statement when the game is free,
        no round trip at the end, and no turn at the lock connection's gate: an action read, applied and
        stored in one unit of work (:func:`nardy.web.services.actions.perform`) holds the game from reading it to
        storing it so. Nothing when inactive (the caller holds the in-process lock).

        Raises:
            StorageUnavailable: another process held the game for ``wait`` seconds (503 with Retry-After)."""
        if not self.active:
            return

        end = time.monotonic() + wait
        pause = 0.002
        key = (LOCK_CLASS, game_lock_key(gid))
        hook = self.storage.on_raw
        while not pg_rows(conn, "SELECT pg_try_advisory_xact_lock(%s, %s)", key, hook)[0][0]:
            if time.monotonic() > end:
                raise StorageUnavailable("the game is busy in another server process; try again shortly")
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    async def unlock(self, gid: str) -> None:
        """Give game ``gid``'s lock back (a lock whose connection was lost is gone already)."""
        if not self.active or self._lock_conn is None or self._lock_loop is not asyncio.get_running_loop():
            return
        async with self._gate():
            try:
                await self._lock_conn.execute(
                    "SELECT pg_advisory_unlock(%s, %s)", (LOCK_CLASS, game_lock_key(gid)), prepare=True
                )
            except Exception:
                self._lock_conn = None  # its locks went with it

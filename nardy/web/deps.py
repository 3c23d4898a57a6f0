"""What the routes need from the app, as FastAPI dependencies, and the request parameters they share.

The app's state lives on ``app.state`` (:func:`nardy.web.app.create_app` sets it up): ``storage`` (the
saved games), ``bot_work`` (the scheduler of the computer's work), ``game_locks`` (one game's actions
one at a time) and ``allow_seeds``. Routes reach it through the dependencies here (``Annotated`` types:
``store: StorageDep``), never through closures or globals, so every router can be read, and tested, on
its own.

A dependency runs before FastAPI checks the route's own parameters and body; so those here have no side
effects, except :func:`load_game` (used by routes with no other parameters): a route with parameters of
its own calls it in its body, after they are checked (an unknown game asked for with a bad parameter
answers 422, not 404, and nothing is read for a request that is refused).
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

import anyio
import anyio.to_thread
from fastapi import Depends, Path, Query, Request
from starlette.concurrency import run_in_threadpool

from ..engine.search import Deadline
from ..rules.numbering import SCHEMES
from ..texts import catalogue
from .botwork import BotWork
from .gamecache import Loaded, cache_of
from .lang import language
from .services.loading import missing, read_game, read_locked
from .sessions import BOT_LEVELS
from .store.storage import Storage

__all__ = [
    "StorageDep",
    "BotWorkDep",
    "ComputeDep",
    "Compute",
    "SeedsAllowed",
    "GameLock",
    "GameLocks",
    "HeldGame",
    "LoadedGame",
    "Loaded",
    "GameId",
    "Level",
    "Numbering",
    "GAME_QUERY",
    "client_key",
    "language",
    "load_game",
    "read_game",
    "read_locked",
    "missing",
]

# ----- shared request parameters ---------------------------------------------------------------------------
Level = Literal[tuple(BOT_LEVELS)]
Numbering = Literal[SCHEMES]

GAME_QUERY = Query(
    "backgammon",
    max_length=40,
    description="backgammon, short (short nardy) or long (long nardy); "
    "aliases such as long-nardy, narde, trictrac accepted",
)
#: A saved game's id in a route's path.
GameId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[0-9A-Za-z_-]+$", description="saved game id")]


# ----- the request --------------------------------------------------------------------------------------------
def client_key(request: Request) -> str:
    """Whom a request's computer work is counted against (fair share): the peer address."""
    return request.client.host if request.client else "unknown"


def guest_name(request: Request) -> str:
    """The name of a guest the server makes by itself (a first game, a first import), in the player's language
    (the catalogue's ``common.guest``: Guest, Гость)."""
    return catalogue.text("common", "guest", language(request))


# ----- the app's state ----------------------------------------------------------------------------------------
# (coroutines, though they only read an attribute: FastAPI runs a plain function dependency on a worker thread,
# a trip per dependency and request that costs more than everything they do)
async def get_storage(request: Request) -> Storage:
    return request.app.state.storage


async def get_bot_work(request: Request) -> BotWork:
    return request.app.state.bot_work


async def seeds_allowed(request: Request) -> bool:
    """The server accepts ``seed`` for new games (``nardy serve --allow-seeded-dice``)."""
    return bool(request.app.state.allow_seeds)


StorageDep = Annotated[Storage, Depends(get_storage)]
BotWorkDep = Annotated[BotWork, Depends(get_bot_work)]
SeedsAllowed = Annotated[bool, Depends(seeds_allowed)]


class Compute:
    """Runs ``fn(deadline)`` as computer work of one request's client (:meth:`BotWork.run`: queued fairly
    per client, on the computer's own workers, within a time budget, dropped or cut short when the client
    goes away)."""

    def __init__(self, work: BotWork, client: str, is_disconnected: Callable[[], Awaitable[bool]]):
        self.work = work
        self.client = client
        self.is_disconnected = is_disconnected

    async def __call__(self, fn: Callable[[Deadline], Any], budget: float | None = None) -> Any:
        return await self.work.run(self.client, fn, is_disconnected=self.is_disconnected, budget=budget)


async def get_compute(request: Request, work: BotWorkDep) -> Compute:
    return Compute(work, client_key(request), request.is_disconnected)


ComputeDep = Annotated[Compute, Depends(get_compute)]


class ActionLane:
    """Runs the rules' part of actions and new games (load, act, store) on at most ``size`` threads at once.

    Cheap reads (a saved game's view, the health check) use the server's general thread pool; actions, which
    validate a saved game, apply the rules and write it back, queue here instead (waiting costs no thread),
    so that however many actions arrive at once, a read never waits behind them for a thread, and shares
    the interpreter with at most ``size`` of them (``bench/server_load.py`` measures the effect).
    """

    def __init__(self, size: int = 4):
        self.size = size
        self._limiters: dict[int, anyio.CapacityLimiter] = {}

    async def __call__(self, fn: Callable[..., Any], *args) -> Any:
        key = id(asyncio.get_running_loop())
        limiter = self._limiters.get(key)
        if limiter is None:
            limiter = self._limiters[key] = anyio.CapacityLimiter(self.size)
        return await anyio.to_thread.run_sync(functools.partial(fn, *args), limiter=limiter)


async def get_action_lane(request: Request) -> ActionLane:
    return request.app.state.action_lane


LaneDep = Annotated[ActionLane, Depends(get_action_lane)]


class GameLocks:
    """One game's changes run one at a time: in this process one asyncio lock per game (per event loop), kept
    only while someone holds or waits for it, so two games never wait for each other; across the server
    processes on one PostgreSQL, the game's advisory lock as well (:meth:`nardy.web.cluster.Cluster.lock`),
    taken after the in-process one. Beneath both, the revision check of :meth:`Storage.save` refuses a second
    writer (409).

    Args:
        cluster: the process's :class:`~nardy.web.cluster.Cluster` (``None`` or inactive: in-process locks only).
    """

    def __init__(self, cluster=None, storage: Storage | None = None):
        self.cluster = cluster
        self.storage = storage if storage is not None else getattr(cluster, "storage", None)
        self._locks: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock] = weakref.WeakValueDictionary()

    def _local(self, gid: str) -> asyncio.Lock:
        key = (id(asyncio.get_running_loop()), gid)
        lock = self._locks.get(key)
        if lock is None:
            lock = asyncio.Lock()
            self._locks[key] = lock
        return lock

    def lock_for(self, gid: str, wait: bool = True) -> HeldGame:
        """The lock of game ``gid``, to hold with ``async with``; it gives whether it was taken (always, unless
        ``wait`` is False and another process holds it: then the block runs without it and must do nothing).

        Raises (on entering): StorageUnavailable: the database does not answer, or another process held the
        game for too long (503)."""
        return HeldGame(self._local(gid), self.cluster, gid, wait, self.storage)

    def local_held(self, gid: str) -> HeldGame:
        """The in-process lock of game ``gid`` alone, held to change it (as :meth:`lock_for`: a kept game left
        half changed by an exception is forgotten) by a writer that takes the cross-process lock itself, in
        the transaction that stores the change (:meth:`nardy.web.cluster.Cluster.lock_in`)."""
        return HeldGame(self._local(gid), None, gid, True, self.storage)

    def local(self, gid: str) -> asyncio.Lock:
        """The in-process lock of game ``gid`` alone, held to read the process's kept game
        (:func:`read_locked`) without changing it."""
        return self._local(gid)


class HeldGame:
    """A game's lock being held (:meth:`GameLocks.lock_for`): the in-process lock, then the cross-process one."""

    def __init__(self, local: asyncio.Lock, cluster, gid: str, wait: bool, storage: Storage | None = None):
        self.local, self.cluster, self.gid, self.wait = local, cluster, gid, wait
        self.storage = storage
        self.held = False

    async def __aenter__(self) -> bool:
        await self.local.acquire()
        if self.cluster is None:
            self.held = True
            return True
        try:
            self.held = await self.cluster.lock(self.gid, self.wait)
        except BaseException:
            self.local.release()
            raise
        return self.held

    async def __aexit__(self, *exc) -> None:
        if exc[0] is not None and self.storage is not None:
            # the kept game may be half changed (refused, or not stored): the next read rebuilds it
            cache_of(self.storage).forget(self.gid)
        try:
            if self.held and self.cluster is not None:
                await self.cluster.unlock(self.gid)
        finally:
            self.held = False
            self.local.release()


async def game_lock(request: Request, gid: GameId) -> HeldGame:
    """The lock of the saved game ``gid`` (not taken: the route holds it around its work)."""
    return request.app.state.game_locks.lock_for(gid)


GameLock = Annotated[HeldGame, Depends(game_lock)]


# ----- saved games --------------------------------------------------------------------------------------------
async def load_game(gid: GameId, store: StorageDep) -> Loaded:
    """The saved game of the route's ``gid`` (404 when there is none), read on a worker thread (a copy of its
    own: the route may change it)."""
    return await run_in_threadpool(read_game, store, gid)


LoadedGame = Annotated[Loaded, Depends(load_game)]

"""The tournament runner: started in the app's lifespan, it moves every unfinished tournament on.

Every :attr:`TourRunner.period` seconds each server process looks at the tournaments not finished and steps each
one it can take (:meth:`nardy.web.store.tournaments.TournamentBook.stepping`: PostgreSQL's advisory lock on the
tournament, taken without waiting; the step is one transaction, :func:`nardy.web.services.tournaments.step`).
So each step runs once whatever the number of processes, and a process that dies (a restart, a SIGKILL) leaves
the tournament to the others: its lock goes with its connection, and what it had not committed never happened;
the games it did commit are on the boards and go on being played through any process.

It also forfeits the boards of absent players (:func:`nardy.web.services.tournaments.absent_side`: nothing
played ``grace_s`` after the board began), under the game's lock, once per board, and tells the tournament's live
channel (:func:`publish`) about every change: this process's connections at once, the others by a notification
of kind ``tour``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time

from sqlalchemy import update
from starlette.concurrency import run_in_threadpool

from .services.live import Conn, PeriodicTask, announce
from .services.loading import read_locked
from .services.publishing import publish as publish_game
from .services.saving import store_session
from .services.tournaments import absent_side, public, step
from .store.db import StorageUnavailable
from .store.tournaments import pairings, tournament_book

__all__ = ["TourRunner", "publish", "follow", "push", "live_rooms", "PERIOD"]


#: Seconds between two rounds of the runner.
PERIOD = 1.0


def live_rooms(app) -> dict[str, set[Conn]]:
    """This process's live connections by tournament id (``app.state.tour_conns``)."""
    rooms = getattr(app.state, "tour_conns", None)
    if rooms is None:
        rooms = app.state.tour_conns = {}
    return rooms


async def push(app, tid: str) -> None:
    """Send tournament ``tid`` as each of this process's live connections to it sees it:
    ``{"type": "tournament", "tournament": <GET body>}``."""
    conns = list(live_rooms(app).get(tid, ()))
    if not conns:
        return
    try:
        t = await run_in_threadpool(tournament_book(app).get, tid)
    except Exception:  # the database is down: the pages read it again when it is back
        return
    if t is None:
        return
    for conn in conns:
        text = json.dumps({"type": "tournament", "tournament": public(t, conn.user)}, separators=(",", ":"))
        async with conn.lock:
            with contextlib.suppress(Exception):
                await conn.ws.send_text(text)


async def publish(app, tid: str) -> None:
    """Tournament ``tid`` changed here: push it to this process's connections, tell the other processes."""
    await push(app, tid)
    with contextlib.suppress(Exception):
        await announce(app, "tour", tid)


async def follow(app, key: str) -> None:
    """A ``tour`` notification from another process: push the tournament to this process's connections."""
    await push(app, key.split(" ", 1)[0])


class TourRunner(PeriodicTask):
    """Steps the unfinished tournaments every ``period`` seconds (see the module docstring)."""

    failed = "the tournament runner's round failed"
    quiet = (StorageUnavailable,)  # the database is down: the next round tries again (logged by the store)

    def __init__(self, app, period: float = PERIOD):
        self.app = app
        self.period = period
        self.task: asyncio.Task | None = None
        self.owner = f"{os.getpid()}-{secrets.token_hex(4)}"
        self.steps = 0  # steps that changed something here (tests, bench)

    def _step(self, tid: str) -> bool:
        book = tournament_book(self.app)
        with book.stepping(tid, self.owner) as got:
            if got is None:
                return False
            c, t = got
            return step(c, self.app.state.storage, t)

    async def tick(self) -> int:
        """One round: step every unfinished tournament this process can take, forfeit absent players; returns
        the number of tournaments that changed."""
        app = self.app
        changed = 0
        for tid in await run_in_threadpool(tournament_book(app).active):
            if await run_in_threadpool(self._step, tid):
                changed += 1
                self.steps += 1
                await publish(app, tid)
            await self._absences(tid)
        return changed

    async def _absences(self, tid: str) -> None:
        """Forfeit the boards of ``tid`` whose side to act has not acted within ``grace_s`` of the board's start."""
        app = self.app
        book = tournament_book(app)
        t = await run_in_threadpool(book.get, tid)
        if t is None or t.status != "playing":
            return
        grace = float(t.settings.get("grace_s") or 120)
        now = time.time()
        for b in t.boards:
            if b.result is not None or b.game is None or b.created is None or b.extra.get("checked"):
                continue
            since = b.created.timestamp()
            if now - since < grace:
                continue
            gid = b.game
            async with app.state.game_locks.lock_for(gid, wait=False) as held:
                if not held:
                    continue
                game = await run_in_threadpool(read_locked, app.state.storage, gid)
                side = absent_side(game.session, since, grace, now)
                if side is not None:
                    game.session.table.forfeit(side, "abandoned", now)
                    await run_in_threadpool(store_session, app.state.storage, game)
            if side is not None:
                await publish_game(app, gid)
            b.extra["checked"] = True
            await run_in_threadpool(self._mark, tid, b.seq, b.extra)

    def _mark(self, tid: str, seq: int, extra: dict) -> None:
        with tournament_book(self.app).engine.begin() as c:
            c.execute(
                update(pairings)
                .where(pairings.c.tournament_id == tid, pairings.c.seq == seq)
                .values(extra=json.dumps(extra))
            )

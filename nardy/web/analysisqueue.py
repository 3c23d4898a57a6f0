"""The queue of analyses (``POST /api/analyse``, ``POST /api/games/{id}/analysis``): fair per client, signed-in
players first, every wait bounded.

An analysis takes up to :data:`~nardy.web.routers.review.ANALYSE_BUDGET` seconds of the computer's work, so only
``at_once`` run at a time in a process (the computer's other workers stay free for its moves in live games).
The others wait here instead of being refused:

* **fair**: waiting analyses are queued per client (the caller's address, as the computer's moves are:
  :mod:`nardy.web.botwork`) and started one client at a time in turn (round robin), so one client's analyses
  delay another's by at most one each;
* **signed-in players first**: analyses asked for by an account (not a guest, not a request without a log-in)
  are started before any other waiting one, fairly among themselves;
* **bounded**: a client (an address, and an account from any address) has at most ``per_client`` analyses
  running or waiting (more: :class:`~nardy.web.botwork.Busy` 429); at most ``max_waiting`` wait in all (more:
  503); one not started within ``max_wait`` seconds is dropped unstarted (503); all three with ``Retry-After``.
  A client that goes away has its waiting analysis dropped.

The queue is shared by the event loops of a process (a slot is handed over under a lock, and the waiting
request is woken in its own loop), per server process.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Awaitable, Callable

from .botwork import Busy, ClientGone

__all__ = ["AnalysisQueue"]

#: The two tiers, in the order they are served: accounts, then everyone else.
SIGNED_IN, OTHERS = 0, 1


class _Waiter:
    __slots__ = ("client", "keys", "tier", "loop", "future", "state", "queued_at")

    def __init__(self, client: str, keys: tuple[str, ...], tier: int):
        self.client = client
        self.keys = keys
        self.tier = tier
        self.loop = asyncio.get_running_loop()
        self.future: asyncio.Future = self.loop.create_future()
        self.state = "waiting"  # waiting -> running (given a slot) | dropped
        self.queued_at = time.monotonic()


class AnalysisQueue:
    """Admission to the analyses of one process; see the module docstring.

    Args:
        at_once: analyses running at once.
        per_client: analyses one client (address, account) may have running or waiting.
        max_waiting: analyses waiting in all.
        max_wait: seconds an analysis may wait before it is dropped unstarted.
        service: the first guess of an analysis' seconds (for ``Retry-After``; then a moving average).
    """

    def __init__(
        self,
        at_once: int = 1,
        per_client: int = 1,
        max_waiting: int = 16,
        max_wait: float = 300.0,
        service: float = 30.0,
    ):
        self.at_once = at_once
        self.per_client = per_client
        self.max_waiting = max_waiting
        self.max_wait = float(max_wait)
        self._service = float(service)
        self._lock = threading.Lock()
        self._tiers: tuple[OrderedDict[str, deque[_Waiter]], ...] = (OrderedDict(), OrderedDict())
        self._active: dict[str, int] = {}  # per key (address, account): running + waiting
        self._waiting = 0
        self._running = 0
        #: Counters: analyses started, refused at admission, dropped after waiting too long, left by their client.
        self.counts = {"started": 0, "refused": 0, "expired": 0, "cancelled": 0}

    # ----- under the lock ---------------------------------------------------------------------------------
    def _retry_after(self) -> int:
        # about how long the analyses running and waiting take
        ahead = self._waiting + self._running
        return max(1, min(600, int(ahead * self._service / max(1, self.at_once)) + 1))

    def _next(self) -> _Waiter | None:
        for queues in self._tiers:
            while queues:
                client, q = next(iter(queues.items()))
                w = q.popleft()
                if q:
                    queues.move_to_end(client)
                else:
                    del queues[client]
                self._waiting -= 1
                if w.state == "waiting":
                    return w
        return None

    def _release_keys(self, keys: tuple[str, ...]) -> None:
        for k in keys:
            n = self._active.get(k, 0) - 1
            if n <= 0:
                self._active.pop(k, None)
            else:
                self._active[k] = n

    def _hand_over(self) -> list[_Waiter]:
        """Give the free slots to the next waiting analyses; returns them (to be woken outside the lock)."""
        woken = []
        while self._running < self.at_once:
            w = self._next()
            if w is None:
                break
            w.state = "running"
            self._running += 1
            self.counts["started"] += 1
            woken.append(w)
        return woken

    def _drop(self, w: _Waiter) -> bool:
        """Take a waiting analysis out of the queue; False when it was given a slot meanwhile."""
        if w.state != "waiting":
            return False
        w.state = "dropped"
        queues = self._tiers[w.tier]
        q = queues.get(w.client)
        if q is not None and w in q:
            q.remove(w)
            if not q:
                del queues[w.client]
            self._waiting -= 1
        self._release_keys(w.keys)
        return True

    # ----- outside it ---------------------------------------------------------------------------------------
    @staticmethod
    def _wake(ws: list[_Waiter]) -> None:
        for w in ws:
            with contextlib.suppress(RuntimeError):  # its loop closed: the request is gone, and so is its slot
                w.loop.call_soon_threadsafe(lambda f=w.future: f.done() or f.set_result(None))

    def _admit(self, client: str, user: str | None, signed_in: bool) -> _Waiter:
        keys = (client,) if user is None else (client, "user:" + user)
        w = _Waiter(client, keys, SIGNED_IN if signed_in else OTHERS)
        with self._lock:
            if any(self._active.get(k, 0) >= self.per_client for k in keys):
                self.counts["refused"] += 1
                raise Busy(
                    429,
                    f"you have {self.per_client} analysis running or waiting already; wait for its answer",
                    self._retry_after(),
                )
            if self._running >= self.at_once and self._waiting >= self.max_waiting:
                self.counts["refused"] += 1
                raise Busy(
                    503, "the computer is busy: too many analyses are waiting; try again later", self._retry_after()
                )
            for k in keys:
                self._active[k] = self._active.get(k, 0) + 1
            self._tiers[w.tier].setdefault(client, deque()).append(w)
            self._waiting += 1
            woken = self._hand_over()
        self._wake([x for x in woken if x is not w])
        return w

    def _finish(self, w: _Waiter, seconds: float | None) -> None:
        with self._lock:
            self._running -= 1
            self._release_keys(w.keys)
            if seconds is not None:
                self._service = 0.8 * self._service + 0.2 * seconds
            woken = self._hand_over()
        self._wake(woken)

    @contextlib.asynccontextmanager
    async def slot(
        self,
        client: str,
        *,
        user: str | None = None,
        signed_in: bool = False,
        is_disconnected: Callable[[], Awaitable[bool]] | None = None,
        poll: float = 0.25,
    ) -> AsyncIterator[None]:
        """Wait for a turn to run an analysis, then hold it while the ``async with`` body runs.

        ``client``: the caller's address; ``user``: the id of their log-in's user (``None``: no log-in);
        ``signed_in``: an account (served first); ``is_disconnected``: polled every ``poll`` seconds while
        waiting (Starlette's ``request.is_disconnected``).

        Raises:
            Busy: 429 the client has ``per_client`` analyses already; 503 ``max_waiting`` wait already, or this
                one waited ``max_wait`` seconds (both with ``retry_after``).
            ClientGone: the client went away while its analysis waited.
        """
        w = self._admit(client, user, signed_in)
        try:
            while w.state == "waiting":
                await asyncio.wait({w.future}, timeout=poll)
                if w.state != "waiting":
                    break
                gone = is_disconnected is not None and await is_disconnected()
                late = time.monotonic() - w.queued_at > self.max_wait
                if not (gone or late):
                    continue
                with self._lock:
                    dropped = self._drop(w)
                    if dropped:
                        self.counts["cancelled" if gone else "expired"] += 1
                        retry = self._retry_after()
                if not dropped:
                    break  # given a slot meanwhile
                if gone:
                    raise ClientGone()
                raise Busy(
                    503, f"the computer is busy: the analysis waited {self.max_wait:g} s; try again later", retry
                )
        except BaseException:
            with self._lock:
                dropped = self._drop(w)
            if not dropped and w.state == "running":
                self._finish(w, None)
            raise
        t = time.monotonic()
        ok = False
        try:
            yield
            ok = True
        finally:
            self._finish(w, time.monotonic() - t if ok else None)

    def stats(self) -> dict:
        """Analyses running and waiting (signed-in players' among them), and the counters."""
        with self._lock:
            return {
                "at_once": self.at_once,
                "running": self._running,
                "waiting": self._waiting,
                "waiting_signed_in": sum(len(q) for q in self._tiers[SIGNED_IN].values()),
                **self.counts,
            }

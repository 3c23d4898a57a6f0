"""Bounded, fair scheduling of the server's expensive work (the computer thinking, records replayed).

Computer work runs on a fixed number of worker threads of its own, never on the threads that serve
cheap requests, so a page load or a saved game's view never waits behind a search. Work is queued per
*client* (the caller's address): the workers take one job from each waiting client in turn (round
robin), so a client that sends a hundred requests delays the others by at most one job each.

Every job is bounded:

* **admission**: at most ``per_client`` jobs of one client wait or run at once (more: :class:`Busy`
  with status 429) and at most ``max_queued`` jobs wait in all (more: :class:`Busy` with status 503);
* **waiting**: a job not started within ``max_wait`` seconds is dropped unstarted (:class:`Busy`, 503);
* **running**: a job gets a :class:`~nardy.engine.search.Deadline` of ``budget`` seconds; searches stop
  there and return their best so far;
* **the client going away**: a waiting job is dropped, a running one is cancelled through its deadline.

:class:`Busy` carries ``retry_after`` (seconds) for the ``Retry-After`` header.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from typing import Any

from ..engine.search import Deadline

__all__ = ["BotWork", "Busy", "ClientGone"]


class Busy(Exception):
    """The work cannot be taken now: ``status`` 429 (this client has too much waiting) or 503 (the
    server is saturated); ``retry_after`` in seconds; ``message`` for the client."""

    def __init__(self, status: int, message: str, retry_after: int):
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after


class ClientGone(Exception):
    """The client disconnected while its work waited or ran; the work was dropped or cut short."""


class _Job:
    __slots__ = ("client", "fn", "budget", "future", "cancel", "queued_at", "started")

    def __init__(self, client: str, fn: Callable[[Deadline], Any], budget: float | None):
        self.client = client
        self.fn = fn
        self.budget = budget
        self.future: concurrent.futures.Future = concurrent.futures.Future()
        self.cancel = threading.Event()
        self.queued_at = time.monotonic()
        self.started = False


class BotWork:
    """The scheduler; see the module docstring.

    Args:
        workers: worker threads (computer jobs running at once); default 2.
        max_queued: jobs waiting (not yet running) in all, over every client.
        per_client: jobs one client may have waiting or running at once.
        max_wait: seconds a job may wait before it is dropped unstarted.
        budget: default seconds a running job's searches may take (its :class:`Deadline`).
    """

    def __init__(
        self, workers: int = 2, max_queued: int = 512, per_client: int = 4, max_wait: float = 30.0, budget: float = 3.0
    ):
        if workers < 1 or max_queued < 1 or per_client < 1 or max_wait <= 0:
            raise ValueError("workers, max_queued and per_client must be at least 1 and max_wait positive")
        self.workers = workers
        self.max_queued = max_queued
        self.per_client = per_client
        self.max_wait = float(max_wait)
        self.budget = budget
        self._cond = threading.Condition()
        self._queues: OrderedDict[str, deque[_Job]] = OrderedDict()  # round-robin order of waiting clients
        self._active: dict[str, int] = {}  # per client: waiting + running
        self._waiting = 0
        self._running = 0
        self._closed = False
        self._gen = 0  # the workers' generation: close() retires the running ones
        self._threads: list[threading.Thread] = []
        #: Counters: jobs done, refused at admission, dropped after waiting too long, cancelled.
        self.counts = {"done": 0, "refused": 0, "expired": 0, "cancelled": 0}
        self._service = 1.0  # moving average of a job's run time (s), for Retry-After

    # ----- threads --------------------------------------------------------------------------------
    def _start(self):
        if self._threads:
            return
        for i in range(self.workers):
            t = threading.Thread(target=self._worker, args=(self._gen,), name=f"nardy-bot-{i}", daemon=True)
            t.start()
            self._threads.append(t)

    def close(self):
        """Stop the workers after the running jobs; waiting jobs fail with :class:`Busy`."""
        with self._cond:
            self._closed = True
            for q in self._queues.values():
                for job in q:
                    job.future.set_exception(Busy(503, "the server is shutting down", 5))
            self._queues.clear()
            self._waiting = 0
            self._gen += 1
            self._threads = []
            self._cond.notify_all()

    def open(self):
        """Accept work again after :meth:`close` (an app whose lifespan starts again: new workers start with the
        next job; the old ones leave after their running job)."""
        with self._cond:
            self._closed = False

    def _next(self) -> _Job | None:
        # the first waiting client in round-robin order gives one job, then goes to the back
        while self._queues:
            client, q = next(iter(self._queues.items()))
            job = q.popleft()
            if q:
                self._queues.move_to_end(client)
            else:
                del self._queues[client]
            self._waiting -= 1
            if job.cancel.is_set() or job.future.done():
                self._release(job)
                continue
            return job
        return None

    def _release(self, job: _Job):
        n = self._active.get(job.client, 0) - 1
        if n <= 0:
            self._active.pop(job.client, None)
        else:
            self._active[job.client] = n

    def _worker(self, gen: int):
        while True:
            with self._cond:
                job = None
                while not self._closed and gen == self._gen:
                    job = self._next()
                    if job is not None:
                        break
                    self._cond.wait()
                if job is None:
                    return
                job.started = True
                self._running += 1
            t = time.monotonic()
            outcome: tuple = ("cancelled",)
            try:
                if job.future.set_running_or_notify_cancel():
                    try:
                        outcome = ("result", job.fn(Deadline(job.budget, job.cancel)))
                    except BaseException as e:  # handed to the request that waits for it
                        outcome = ("error", e)
            finally:
                # the client's slot is free before its request hears the answer, so that the client's next
                # request (sent as soon as this one is answered) is never refused for this one
                with self._cond:
                    self._running -= 1
                    self._release(job)
                    self.counts["done"] += 1
                    self._service = 0.9 * self._service + 0.1 * (time.monotonic() - t)
                if outcome[0] == "result":
                    job.future.set_result(outcome[1])
                elif outcome[0] == "error":
                    job.future.set_exception(outcome[1])

    # ----- submitting -----------------------------------------------------------------------------
    def _retry_after(self) -> int:
        # about how long the queue ahead takes to drain on the workers
        return max(1, min(60, int(self._waiting * self._service / self.workers) + 1))

    def submit(self, client: str, fn: Callable[[Deadline], Any], budget: float | None = None) -> _Job:
        """Queue ``fn(deadline)`` for ``client``; returns the job (``job.future`` gives the result).

        Raises:
            Busy: this client has ``per_client`` jobs already (429), or ``max_queued`` jobs wait (503).
        """
        job = _Job(client, fn, self.budget if budget is None else budget)
        with self._cond:
            if self._closed:
                raise Busy(503, "the server is shutting down", 5)
            self._start()
            if self._active.get(client, 0) >= self.per_client:
                self.counts["refused"] += 1
                raise Busy(
                    429,
                    f"too many computer requests from you at once (at most {self.per_client}); "
                    "wait for the ones under way",
                    self._retry_after(),
                )
            if self._waiting >= self.max_queued:
                self.counts["refused"] += 1
                raise Busy(
                    503, "the computer is busy: too many requests are waiting; try again shortly", self._retry_after()
                )
            self._queues.setdefault(client, deque()).append(job)
            self._active[client] = self._active.get(client, 0) + 1
            self._waiting += 1
            self._cond.notify()
        return job

    def _drop(self, job: _Job) -> bool:
        """Take a waiting job out of its queue; False when it already started."""
        with self._cond:
            if job.started:
                return False
            q = self._queues.get(job.client)
            if q is not None and job in q:
                q.remove(job)
                if not q:
                    del self._queues[job.client]
                self._waiting -= 1
                self._release(job)
            job.cancel.set()
            job.future.cancel()
            return True

    async def run(
        self,
        client: str,
        fn: Callable[[Deadline], Any],
        *,
        is_disconnected=None,
        budget: float | None = None,
        poll: float = 0.25,
    ):
        """Run ``fn(deadline)`` on a worker and return its result, from a coroutine.

        ``is_disconnected``: an async callable (Starlette's ``request.is_disconnected``) polled every
        ``poll`` seconds; when it says the client left, a waiting job is dropped and a running one is
        cancelled (its deadline expires), and :class:`ClientGone` is raised.

        Raises:
            Busy: refused at admission, or not started within ``max_wait`` seconds (503).
            ClientGone: the client disconnected.
            Exception: whatever ``fn`` raised.
        """
        job = self.submit(client, fn, budget)
        fut = asyncio.wrap_future(job.future)
        try:
            while True:
                done, _ = await asyncio.wait({fut}, timeout=poll)
                if done:
                    return fut.result()
                if not job.started and time.monotonic() - job.queued_at > self.max_wait:
                    if self._drop(job):
                        with self._cond:
                            self.counts["expired"] += 1
                            retry = self._retry_after()
                        raise Busy(
                            503,
                            f"the computer is busy: the request waited {self.max_wait:g} s; try again shortly",
                            retry,
                        )
                if is_disconnected is not None and await is_disconnected():
                    if not self._drop(job):
                        job.cancel.set()  # running: its searches stop at the next check
                    with self._cond:
                        self.counts["cancelled"] += 1
                    raise ClientGone()
        except asyncio.CancelledError:
            if not self._drop(job):
                job.cancel.set()
            raise

    def stats(self) -> dict:
        """Jobs waiting and running, clients waiting, and the counters."""
        with self._cond:
            return {
                "workers": self.workers,
                "waiting": self._waiting,
                "running": self._running,
                "clients": len(self._queues),
                **self.counts,
            }

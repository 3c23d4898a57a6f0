"""Rollouts of a stored game's analysis over HTTP (issue 45): the review's "Roll out" button.

Routes:

* ``POST /api/games/{gid}/analysis/rollout?trials=&truncate=&candidates=``: roll out the marked decisions of the
  game's analysis (:func:`nardy.analysis.rollouts.rollout_analysis`). Only the game's players may ask (403
  ``not_seated``), only once the analysis exists (409 ``not_analysed``: ask ``POST /api/games/{gid}/analysis``
  first), and a game against another person only after its match (409 ``analysis_after_match``). The work is
  bounded: at most :data:`MAX_TRIALS` trials a play, each game truncated after 1 to :data:`MAX_TRUNCATE` plies
  (never to the end), at most :data:`MAX_CANDIDATES` candidates, :data:`ROLLOUT_BUDGET` seconds of one
  kernel thread (the decisions not reached by then are left for a second ask, which goes on where the first
  stopped). It runs through the server's analysis queue (:class:`~nardy.web.analysisqueue.AnalysisQueue`: fair,
  one per client, 429/503 with ``Retry-After``) and its computer work (:mod:`nardy.web.botwork`), one rollout
  at a time per player (429 ``rollout_running``). Out-of-range settings are 422. The answer comes at once
  (202, the state below); the rollout goes on in the server.
* ``GET /api/games/{gid}/analysis/rollout``: how far it is: ``{"state": "waiting" | "running" | "done" |
  "failed", "done", "total", "complete", "trials", "truncate", "candidates", "seconds"}``, and once done the
  analysis with the rollout figures (``analysis``: the JSON of ``GET /api/games/{gid}/analysis``, the
  decisions rolled out carrying ``rollout`` and ``nply``, docs/analysis.md). 404 ``no_rollout`` when none was
  asked for at the game's present state. A finished complete rollout also replaces the analysis kept for the
  game, so ``GET /api/games/{gid}/analysis`` then answers with it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import OrderedDict
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from ...analysis.rollouts import RolloutError, rollout_analysis
from ...rules.errors import NardyError
from ..botwork import Busy
from ..deps import ComputeDep, GameId, StorageDep, load_game
from ..errors import Refused
from ..services import analyses as stored
from ..services.access import check_reader
from .auth import current_user
from .online import user_id
from .review import _cache, _check_analysable, analysis_queue

__all__ = ["router", "MAX_TRIALS", "MAX_TRUNCATE", "MAX_CANDIDATES", "ROLLOUT_BUDGET", "RolloutJobs"]

#: The most trials per play a rollout asked over HTTP may have.
MAX_TRIALS = 144
#: The longest truncation (plies per trial) a rollout asked over HTTP may have (0, to the end, is refused).
MAX_TRUNCATE = 30
#: The most candidates per checker decision (plus the play made).
MAX_CANDIDATES = 3
#: Seconds of computing one ask may take; the decisions not reached are left for the next ask.
ROLLOUT_BUDGET = 60.0
#: Rollouts kept per process (the most recent; one per game).
KEEP = 64

router = APIRouter()
log = logging.getLogger("nardy.web")


class _Job:
    """One game's rollout: its settings, where it stands, the decisions done (kept in memory to go on)."""

    def __init__(self, gid: str, revision: int, user: str, settings: dict):
        self.gid = gid
        self.revision = revision
        self.user = user
        self.settings = settings
        self.state = "waiting"
        self.done = 0
        self.total = 0
        self.complete = False
        self.result: dict | None = None
        self.error: dict | None = None
        self.memory: dict = {}
        #: the n-ply analysis rolled out (kept: the analysis the server keeps is replaced by the rolled-out one)
        self.source: dict = {}
        self.started = time.monotonic()
        self.seconds = 0.0
        self.task: asyncio.Task | None = None

    def status(self) -> dict:
        out: dict[str, Any] = {
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "complete": self.complete,
            **self.settings,
            "seconds": round(self.seconds if self.state in ("done", "failed") else time.monotonic() - self.started, 1),
        }
        if self.error is not None:
            out["error"] = self.error
        if self.state == "done" and self.result is not None:
            out["analysis"] = self.result
        return out


class RolloutJobs:
    """The rollouts of one process: the latest per game (:data:`KEEP` at most), under a lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self._jobs: OrderedDict[str, _Job] = OrderedDict()

    def get(self, gid: str) -> _Job | None:
        with self._lock:
            return self._jobs.get(gid)

    def busy_for(self, user: str) -> _Job | None:
        """A rollout of ``user``'s waiting or running, if any."""
        with self._lock:
            return next((j for j in self._jobs.values() if j.user == user and j.state in ("waiting", "running")), None)

    def put(self, job: _Job) -> None:
        with self._lock:
            self._jobs[job.gid] = job
            self._jobs.move_to_end(job.gid)
            for gid in list(self._jobs):
                if len(self._jobs) <= KEEP:
                    break
                if self._jobs[gid].state not in ("waiting", "running"):
                    del self._jobs[gid]

    def drop(self, job: _Job) -> None:
        with self._lock:
            if self._jobs.get(job.gid) is job:
                del self._jobs[job.gid]


def _jobs(app) -> RolloutJobs:
    jobs = getattr(app.state, "rollout_jobs", None)
    if jobs is None:
        jobs = app.state.rollout_jobs = RolloutJobs()
    return jobs


def _error(e: Exception) -> dict:
    code = getattr(e, "code", None) or "rollout_failed"
    return {"code": code, "detail": str(e) if isinstance(e, NardyError) else "the rollout could not be made"}


async def _run(app, job: _Job, compute, signed_in: bool, analysis: dict, s, level: str, store) -> None:
    """Wait for a turn in the analysis queue, then roll out on the computer's work within the budget; a complete
    rollout is stored with the game as its analysis at ``level`` (:mod:`nardy.web.services.analyses`)."""
    queue = analysis_queue(app)
    match = s.match

    def progress(done, total):
        job.done, job.total = done, total

    def work(deadline):
        return rollout_analysis(
            analysis,
            match,
            trials=job.settings["trials"],
            truncate=job.settings["truncate"],
            candidates=job.settings["candidates"],
            workers=1,
            threads=1,
            checkpoint=job.memory,
            resume=True,
            progress=progress,
            deadline=deadline,
        )

    try:
        async with queue.slot(compute.client, user=job.user, signed_in=signed_in):
            job.state = "running"
            job.started = time.monotonic()
            out = await compute.work.run(compute.client, work, budget=ROLLOUT_BUDGET)
    except Busy as e:  # refused at admission (the request's answer) or waited too long (the job's)
        job.state, job.error = "failed", {"code": "busy", "detail": str(e)}
        raise
    except Exception as e:  # the job's answer says what went wrong; never an unhandled task error
        if not isinstance(e, (RolloutError, NardyError)):
            log.exception("rollout of game %s failed", job.gid)
        job.state, job.error = "failed", _error(e)
        job.seconds = time.monotonic() - job.started
        return
    st = out.get("rollout_status", {})
    job.done, job.total, job.complete = st.get("done", 0), st.get("total", 0), bool(st.get("complete"))
    job.result = {**out, "id": job.gid, "cached": True}
    job.seconds = time.monotonic() - job.started
    job.state = "done"
    if job.complete:
        out.pop("cached", None)
        out.pop("id", None)
        _cache_put(app, ("game", job.gid, job.revision, level), out)
        await run_in_threadpool(stored.store_analysis, store, job.gid, job.revision, level, out, s)


def _cache_put(app, key: tuple, value: dict) -> None:
    cache = getattr(app.state, "analysis_cache", None)
    if cache is not None:
        cache.put(key, value)


async def _seated(request: Request, store, gid: str):
    uid = await user_id(request)
    game = await load_game(gid, store)
    s = game.session
    check_reader(s, uid, gid)  # a private game: as if there were none
    if not s.sides_of(uid):
        raise Refused(403, "only the game's players may roll out its analysis", code="not_seated", kind="Forbidden")
    return uid, game, s


@router.post(
    "/api/games/{gid}/analysis/rollout",
    tags=["analysis"],
    summary="Roll out the marked decisions of a saved game's analysis (its players; bounded; poll with GET)",
    status_code=202,
)
async def post_rollout(
    request: Request,
    store: StorageDep,
    compute: ComputeDep,
    gid: GameId,
    trials: int = Query(36, ge=1, le=MAX_TRIALS, description=f"trials per play, 1 to {MAX_TRIALS}"),
    truncate: int = Query(10, ge=1, le=MAX_TRUNCATE, description=f"plies per trial, 1 to {MAX_TRUNCATE}"),
    candidates: int = Query(2, ge=1, le=MAX_CANDIDATES, description="best plays rolled out, and the play made"),
):
    uid, game, s = await _seated(request, store, gid)
    _check_analysable(s)
    revision = game.saved.revision
    cache = _cache(request)
    found = await run_in_threadpool(
        stored.read_analysis, store, gid, revision, None, lambda lv: cache.get(("game", gid, revision, lv))
    )
    analysis = None if found is None else found[0]
    if analysis is None:
        raise Refused(
            409, "analyse the game first: its rollouts start from the analysis", code="not_analysed", kind="Conflict"
        )
    settings = {"trials": trials, "truncate": truncate, "candidates": candidates}
    jobs = _jobs(request.app)
    old = jobs.get(gid)
    same = old is not None and old.revision == revision and old.settings == settings
    if same and old is not None and (old.state in ("waiting", "running") or (old.state == "done" and old.complete)):
        return JSONResponse(old.status(), status_code=200 if old.state == "done" else 202)
    mine = jobs.busy_for(uid) if uid is not None else None
    if mine is not None:
        raise Refused(
            429,
            "you have a rollout running already; wait for it to finish",
            code="rollout_running",
            kind="TooManyRequests",
            headers={"Retry-After": "5"},
        )
    source = {k: v for k, v in analysis.items() if k not in ("cached", "id")}
    if analysis.get("rollout_status"):
        # the analysis kept is a rolled-out one: start again from the n-ply analysis it came from
        if old is None or old.revision != revision or not old.source:
            raise Refused(
                409,
                "this analysis has been rolled out already; analyse the game again",
                code="rolled_out_already",
                kind="Conflict",
            )
        source = old.source
    job = _Job(gid, revision, uid or "", settings)
    job.source = source
    if same and old is not None:
        job.memory = old.memory  # go on where the last ask stopped
    user = await current_user(request)
    signed_in = user is not None and not user.guest
    level = source.get("engine", {}).get("level", "")
    jobs.put(job)
    task = job.task = asyncio.create_task(_run(request.app, job, compute, signed_in, source, s, level, store))
    task.add_done_callback(lambda t: t.cancelled() or t.exception())  # a late refusal is the job's, not a log's
    # the queue admits or refuses at once: a refusal (429/503) is this request's answer
    for _ in range(3):
        await asyncio.sleep(0)
    if task.done() and not task.cancelled() and task.exception() is not None:
        jobs.drop(job)
        raise task.exception()  # type: ignore[misc]
    return JSONResponse(job.status(), status_code=202)


@router.get(
    "/api/games/{gid}/analysis/rollout",
    tags=["analysis"],
    summary="How far the rollout of a saved game's analysis is; the analysis with its figures once done",
)
async def get_rollout(request: Request, store: StorageDep, gid: GameId):
    _, game, _ = await _seated(request, store, gid)
    job = _jobs(request.app).get(gid)
    if job is None or job.revision != game.saved.revision:
        raise Refused(404, "no rollout was asked for at this game's state", code="no_rollout", kind="NotFound")
    return job.status()

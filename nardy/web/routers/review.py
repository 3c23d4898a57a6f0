"""Analysis and review over HTTP (issue 16): a record or a stored game analysed, and the tutor's check.

Routes:

* ``POST /api/analyse``: analyse a record sent as text (``{"text", "level", "format"}``; a ``.mat``
  record, or SGF where :mod:`nardy.records.files` reads it). The text is only ever parsed as a record,
  never taken for a path; it is bounded (:data:`ANALYSE_LIMIT` characters) and so is the work: at most
  :data:`ANALYSES_AT_ONCE` analyses run at once so that the computer's moves in live games always have a
  worker, the others wait their turn in :class:`~nardy.web.analysisqueue.AnalysisQueue` (fair per client,
  signed-in players first, one analysis per client, bounded: 429/503 with ``Retry-After``), and an analysis
  runs on the computer's work queue (:mod:`nardy.web.botwork`) within :data:`ANALYSE_BUDGET` seconds (more:
  422 ``analysis_too_long``).
* ``POST /api/analyse/xg?level=``: the same for eXtreme Gammon's ``.xg`` file, its bytes as the body (at most
  :data:`XG_LIMIT`; read by :mod:`nardy.records.xg`, never taken for a path); XG's own analysis in the file
  is put beside nardy's in each decision (``"xg"``, :func:`nardy.analysis.xgbeside.attach_xg`).
* ``POST /api/games/{gid}/analysis``: analyse a stored game (the match so far) and store the analysis in the
  database with the game (:mod:`nardy.web.services.analyses`: one per revision and level; another level sits
  beside, the same level replaces); ``GET`` gives the stored one of the game's revision, the newest or the
  ``level`` asked for (404 ``not_analysed`` when there is none), from any server process and after a restart.
  Both answers list the ``levels`` stored. Authorised as the game's record is (its players, or watchers where
  the game allows them); a game against another person online is analysed only once its match is over (no
  help during a live game).
* ``GET /api/players/{uid}/stats``: a player's statistics over the stored analyses of their games (error rate,
  PR, luck per game type and month; the kinds of decision they err in most: :mod:`nardy.analysis.stats`); only
  the analyses of games the asker may see are counted (a private game's never for anyone but its players).
* ``GET /api/games/{gid}/tutor``: the tutor's judgement of the play about to be confirmed (the steps
  taken so far, a complete play), or of a cube action about to be made (``action=double|take|drop``), in a
  game against the computer or at one screen: the loss against the best and its mark
  (:class:`nardy.analysis.tutor.Tutor`, the analysis' thresholds).

Results are cached in the process too (:class:`AnalysisCache`: by the record's SHA-256 or the stored game's
id and revision, and the level), so a second ask is instant; for stored games the database is the truth.
Answers are gzip-compressed for a client that accepts it (:func:`nardy.web.services.analyses.json_answer`).

Every answer is the analysis JSON of :meth:`nardy.analysis.MatchAnalysis.to_dict` (docs/analysis.md)
with ``review`` added: per decision the board to draw (:func:`review_steps`, the page's
:class:`~nardy.web.view.BoardView` shape from White's side), and for a checker play the board after
the play made and after each candidate.
"""

from __future__ import annotations

import hashlib
import importlib
import logging
import threading
import time
from collections import OrderedDict
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...analysis import AnalysisError, analyse_match
from ...analysis.xgbeside import attach_xg
from ...rules.errors import GameStateError, NardyError
from ...rules.numbering import NUMBERINGS, view_point
from ...rules.position import Position
from ..analysisqueue import AnalysisQueue
from ..deps import ComputeDep, GameId, Numbering, StorageDep, load_game
from ..errors import Refused
from ..services import analyses as stored
from ..services.access import check_reader
from ..sessions import _numbering_fn, format_steps
from .auth import current_user
from .online import user_id

__all__ = [
    "router",
    "ANALYSE_LIMIT",
    "XG_LIMIT",
    "ANALYSE_BUDGET",
    "ANALYSES_AT_ONCE",
    "DEFAULT_WEB_LEVEL",
    "AnalysisCache",
    "analysis_queue",
    "review_steps",
]

#: Largest record text analysed (characters): a long match record is about 10-50 KB.
ANALYSE_LIMIT = 256 * 1024
#: The request body limit of ``/api/analyse`` (bytes: JSON escapes each newline of the text in 2 bytes).
ANALYSE_BODY_LIMIT = 2 * ANALYSE_LIMIT + 4096
#: Largest .xg file analysed (bytes): an analysed 25-point match with its thumbnail is about 1 MB.
XG_LIMIT = 2 * 1024 * 1024
#: Seconds of computing one analysis may take (its turns are checked against it as they are analysed).
ANALYSE_BUDGET = 90.0
#: Analyses running at once in this process (the other workers stay free for the computer's moves).
ANALYSES_AT_ONCE = 1
#: The server's default analysis level: 1-ply (``grandmaster``, 2-ply, may be asked for).
DEFAULT_WEB_LEVEL: Literal["expert"] = "expert"

#: The analysis levels (those of :data:`nardy.analysis.ANALYSIS_LEVELS`; a test checks they agree).
AnalysisLevel = Literal["advanced", "expert", "grandmaster"]

router = APIRouter()
log = logging.getLogger("nardy.web")


class AnalysisTooLong(NardyError):
    """The analysis passed its time budget (``seconds``) after ``done`` of ``total`` turns."""

    default_code = "analysis_too_long"


class _Stopped(Exception):
    """The client went away or the budget ran out while the analysis ran."""


class AnalysisCache:
    """Analyses made in this process, most recent kept: ``size`` entries, a lock around each use.

    Keys are tuples (``("record", sha256, level)`` or ``("game", gid, revision, level)``); values are the
    JSON dicts answered."""

    def __init__(self, size: int = 64):
        self.size = size
        self._items: OrderedDict[tuple, dict] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple) -> dict | None:
        with self._lock:
            out = self._items.get(key)
            if out is not None:
                self._items.move_to_end(key)
            return out

    def put(self, key: tuple, value: dict) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


def _cache(request: Request) -> AnalysisCache:
    state = request.app.state
    cache = getattr(state, "analysis_cache", None)
    if cache is None:
        cache = state.analysis_cache = AnalysisCache()
    return cache


def analysis_queue(app) -> AnalysisQueue:
    """The app's :class:`~nardy.web.analysisqueue.AnalysisQueue` (``app.state.analysis_queue``, made on first
    use: :data:`ANALYSES_AT_ONCE` at once)."""
    queue = getattr(app.state, "analysis_queue", None)
    if queue is None:
        queue = app.state.analysis_queue = AnalysisQueue(at_once=ANALYSES_AT_ONCE)
    return queue


# ----- the boards of a review ---------------------------------------------------------------------------
def _board(pos: Position, mover: int) -> dict:
    """``pos`` (from ``mover``'s view) from White's side, in :class:`~nardy.web.view.BoardView`'s shape."""
    p = pos if mover == 0 else pos.mirror()
    a = [int(x) for x in p.array]
    return {"points": [0] + a[1:25], "bar": [a[25], a[26]], "off": [a[0], a[27]]}


def _after(pos: Position, dice, text: str, mover: int) -> dict | None:
    """The board after ``text`` (the mover's own numbering) is played, with ``steps``: the play's
    ``[from, to]`` in White's numbering (25 the mover's bar, 0 off); ``None`` when it cannot be read."""
    try:
        play = pos.parse_play(text, tuple(dice))
    except (NardyError, ValueError):
        return None
    hitting = pos.rules.hitting
    out = _board(play.result, mover)
    out["steps"] = [[view_point(st.frm, mover, 0, hitting), view_point(st.to, mover, 0, hitting)] for st in play.steps]
    return out


def review_steps(match, data: dict) -> list[dict]:
    """Per decision of ``data`` (an analysis of ``match``): what the review page draws.

    Returns one dict per decision: ``board`` (before the decision, White's side: ``points[1..24]`` in
    White's numbering, + White's checkers, - Black's; ``bar``/``off`` as ``[White, Black]``), ``turn``
    (the side whose decision it is: for a take the doubler's position with the taker to answer),
    ``after`` (checker plays: the board after the play made) and ``candidates_after`` (the board after
    each candidate, in the order of ``candidates``), ``score`` (before the game) and ``pips``
    (``[White, Black]``)."""
    game = match.rules.name
    scores = {g["game"]: g["score"] for g in data.get("games", [])}
    out = []
    for d in data["decisions"]:
        seen = d["player"] if d["action"] != "take" else 1 - d["player"]
        try:
            pos = Position.from_id(d["position"], game)
        except (NardyError, ValueError):
            out.append({"board": None})
            continue
        pips = pos.pip_count()
        step: dict[str, Any] = {
            "board": _board(pos, seen),
            "turn": d["player"],
            "score": scores.get(d["game"], [0, 0]),
            "pips": [pips[0], pips[1]] if seen == 0 else [pips[1], pips[0]],
        }
        if d["kind"] == "checker" and d.get("dice"):
            step["after"] = _after(pos, d["dice"], d["played"] or "", seen) if d["played"] else _board(pos, seen)
            step["candidates_after"] = [_after(pos, d["dice"], c["play"], seen) for c in d.get("candidates") or []]
        out.append(step)
    return out


def _labels(game: str) -> list[str]:
    # White's own numbering at the bottom (the records' numbering for White's plays)
    return [str(p) for p in range(1, 25)]


def analysis_answer(match, level: str, deadline=None, source: str = "") -> dict:
    """The analysis of ``match`` at ``level`` with its review boards (blocking: run it on a worker).

    Raises:
        AnalysisTooLong: ``deadline`` ran out (its time budget) before the end.
        _Stopped: the work was cancelled (the client went away).
    """
    start = time.monotonic()

    def progress(done, total):
        if deadline is not None and deadline.expired():
            if deadline.cancel is not None and deadline.cancel.is_set():
                raise _Stopped()
            raise AnalysisTooLong(
                f"the analysis took more than {ANALYSE_BUDGET:g} s ({done} of {total} turns analysed); "
                "choose a lower level or a shorter record",
                params={"seconds": int(ANALYSE_BUDGET), "done": done, "total": total},
            )

    try:
        result = analyse_match(match, level=level, progress=progress, source=source)
        # an .xg file's own analysis (nardy.records.xg), beside nardy's in each decision
        attach_xg(result, getattr(match, "xg_analysis", None))
        data = result.to_dict()
        steps = review_steps(match, data)
    except (NardyError, _Stopped):
        raise
    except Exception:  # a record the rules replayed but the analysis cannot follow: a 422, never a 500
        log.exception("analysis failed (%s)", source)
        raise AnalysisError("the analysis could not follow this record") from None
    data["review"] = {
        "steps": steps,
        "labels": _labels(match.rules.name),
        "players": list(match.players),
        "seconds": round(time.monotonic() - start, 3),
        "cube": bool(match.rules.cube),
    }
    return data


async def _run_analysis(
    request: Request, compute, match_fn, level: str, source: str, key: tuple, lookup=None, keep=None
) -> tuple[dict, bool]:
    """The analysis of ``key`` once its turn in the queue came: ``(answer, cached)`` (another client may have
    asked for the same meanwhile: then it is answered from the cache, or from ``lookup()``: a blocking read of
    the database, ``None`` when not there). ``keep(answer)``: blocking, stores a new analysis."""
    user = await current_user(request)
    queue = analysis_queue(request.app)
    async with queue.slot(
        compute.client,
        user=user.id if user is not None else None,
        signed_in=user is not None and not user.guest,
        is_disconnected=request.is_disconnected,
    ):
        hit = _cache(request).get(key)
        if hit is None and lookup is not None:
            hit = await run_in_threadpool(lookup)
            if hit is not None:
                _cache(request).put(key, hit)
        if hit is not None:
            return hit, True

        def work(deadline):
            return analysis_answer(match_fn(), level, deadline, source)

        out = await compute(work, budget=ANALYSE_BUDGET)
        if keep is not None:
            await run_in_threadpool(keep, out)
    _cache(request).put(key, out)
    return out, False


# ----- records sent as text -----------------------------------------------------------------------------
class AnalyseBody(BaseModel):
    """A record to analyse: its text (never a path), the level and the record's format."""

    model_config = ConfigDict(extra="forbid")
    # the limit is checked by the route (413 too_large, as a body over the server's limit is answered)
    text: str = Field(
        ...,
        description=f"the record's text (.mat, or SGF), at most {ANALYSE_LIMIT} characters",
        json_schema_extra={"maxLength": ANALYSE_LIMIT},
    )
    level: AnalysisLevel = Field(
        DEFAULT_WEB_LEVEL, description="advanced (0-ply), expert (1-ply) or grandmaster (2-ply)"
    )
    format: Literal["auto", "mat", "sgf"] = Field("auto", description="the record's format; auto: read from the text")


def _match_of_text(text: str, fmt: str):
    """The replayed :class:`~nardy.flow.match.Match` of a record's text (parsed, never opened as a file):
    ``fmt`` ``"mat"``, ``"sgf"`` or ``"auto"`` (SGF when the text starts with ``(``, as
    :func:`nardy.records.files.parse_record` reads it)."""
    from ...records.mat import parse_mat, replay

    try:
        files = importlib.import_module("nardy.records.files")
    except ImportError:  # a version without SGF records
        if fmt == "sgf" or (fmt == "auto" and text.lstrip().startswith("(")):
            raise AnalysisError("SGF records are not supported by this version; send a .mat record") from None
        return replay(parse_mat(text))
    return replay(files.parse_record(text, None if fmt == "auto" else fmt))


@router.post(
    "/api/analyse",
    tags=["analysis"],
    summary="Analyse a record (.mat or SGF text): every decision judged, luck, error rates (docs/analysis.md)",
)
async def analyse_record(request: Request, body: AnalyseBody, compute: ComputeDep):
    text = body.text
    if len(text) > ANALYSE_LIMIT:
        raise Refused(
            413,
            f"record too large ({len(text)} characters; at most {ANALYSE_LIMIT})",
            code="too_large",
            kind="RequestTooLarge",
            params={"most": ANALYSE_LIMIT},
        )
    if not text.strip():
        raise AnalysisError("empty record: send the record's text")
    key = ("record", hashlib.sha256(f"{body.format}\n{text}".encode()).hexdigest(), body.level)
    cache = _cache(request)
    hit = cache.get(key)
    if hit is not None:
        return stored.json_answer(request, {**hit, "cached": True})
    # the record is replayed first (cheap): a record the rules refuse is answered before any analysis
    match = await compute(lambda deadline: _match_of_text(text, body.format))
    out, cached = await _run_analysis(request, compute, lambda: match, body.level, "upload", key)
    return stored.json_answer(request, {**out, "cached": cached})


def _match_of_xg(raw: bytes):
    """The replayed match of an ``.xg`` file's bytes, XG's own analysis kept on it (``xg_analysis``)."""
    from ...records.mat import replay
    from ...records.xg import parse_xg

    record = parse_xg(raw)
    match = replay(record)
    match.xg_analysis = record.analysis
    return match


@router.post(
    "/api/analyse/xg",
    tags=["analysis"],
    summary="Analyse an eXtreme Gammon .xg file (its bytes as the body): nardy's figures with XG's beside them",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary", "maxLength": XG_LIMIT}}
            },
        }
    },
)
async def analyse_xg(
    request: Request,
    compute: ComputeDep,
    level: AnalysisLevel = Query(DEFAULT_WEB_LEVEL, description="advanced, expert or grandmaster"),
):
    raw = await request.body()
    if len(raw) > XG_LIMIT:
        raise Refused(
            413,
            f"file too large ({len(raw)} bytes; at most {XG_LIMIT})",
            code="too_large",
            kind="RequestTooLarge",
            params={"most": XG_LIMIT},
        )
    if not raw:
        raise AnalysisError("empty file: send the .xg file's bytes as the request body")
    key = ("xg", hashlib.sha256(raw).hexdigest(), level)
    cache = _cache(request)
    hit = cache.get(key)
    if hit is not None:
        return stored.json_answer(request, {**hit, "cached": True})
    # the file is read and replayed first (cheap): a file the reader or the rules refuse is answered at once
    match = await compute(lambda deadline: _match_of_xg(raw))
    out, cached = await _run_analysis(request, compute, lambda: match, level, "upload", key)
    return stored.json_answer(request, {**out, "cached": cached})


# ----- stored games ---------------------------------------------------------------------------------------
def _check_analysable(s) -> None:
    """A game against another person online is analysed only once its match is over."""
    if s.online and not s.table.is_over:
        raise Refused(
            409,
            "a game against another person is analysed once the match is over",
            code="analysis_after_match",
            kind="Conflict",
        )


def _levels(levels) -> list[dict]:
    return [i.to_dict() for i in levels]


@router.get(
    "/api/games/{gid}/analysis",
    tags=["analysis"],
    summary="The stored analysis of a saved game at its revision: the newest, or the level asked for "
    "(404 not_analysed when there is none); levels: those stored",
)
async def get_analysis(
    request: Request,
    store: StorageDep,
    gid: GameId,
    level: AnalysisLevel | None = Query(None, description="the level wanted (default: the newest analysis stored)"),
):
    uid = await user_id(request)
    game = await load_game(gid, store)
    check_reader(game.session, uid, gid)
    revision = game.saved.revision
    cache = _cache(request)
    found = await run_in_threadpool(
        stored.read_analysis, store, gid, revision, level, lambda lv: cache.get(("game", gid, revision, lv))
    )
    if found is None:
        raise Refused(
            404, f"saved game {gid!r} has not been analysed at this state", code="not_analysed", kind="NotFound"
        )
    data, chosen, levels = found
    cache.put(("game", gid, revision, chosen), data)
    return stored.json_answer(request, {**data, "cached": True, "id": gid, "levels": _levels(levels)})


@router.post(
    "/api/games/{gid}/analysis",
    tags=["analysis"],
    summary="Analyse a saved game (the match so far) and store the analysis with it: its players, or watchers "
    "where the game allows",
)
async def post_analysis(
    request: Request,
    store: StorageDep,
    compute: ComputeDep,
    gid: GameId,
    level: AnalysisLevel = Query(DEFAULT_WEB_LEVEL, description="advanced, expert or grandmaster"),
):
    uid = await user_id(request)
    game = await load_game(gid, store)
    s = game.session
    check_reader(s, uid, gid)
    _check_analysable(s)
    revision = game.saved.revision
    key = ("game", gid, revision, level)

    def lookup():
        found = stored.read_analysis(store, gid, revision, level)
        return None if found is None else found[0]

    def keep(answer):
        stored.store_analysis(store, gid, revision, level, answer, s)

    hit = _cache(request).get(key)
    if hit is None:
        hit = await run_in_threadpool(lookup)
    if hit is not None:
        out, cached = hit, True
    else:
        out, cached = await _run_analysis(request, compute, lambda: s.match, level, f"game {gid}", key, lookup, keep)
    levels = await run_in_threadpool(store.analysis_levels, gid, revision)
    return stored.json_answer(request, {**out, "cached": cached, "id": gid, "levels": _levels(levels)})


@router.get(
    "/api/players/{uid}/stats",
    tags=["analysis"],
    summary="A player's statistics over the stored analyses of their games the asker may see: error rate, PR "
    "and luck per game type and month, the most frequent kinds of error",
)
async def player_stats(request: Request, store: StorageDep, uid: GameId):
    if await run_in_threadpool(store.user, uid) is None:
        raise Refused(404, "no such player", code="no_player", kind="NotFound")
    viewer = await user_id(request)
    return await run_in_threadpool(stored.player_stats, store, uid, viewer)


# ----- the tutor ----------------------------------------------------------------------------------------------
def _pending_play(g):
    """The legal play the steps taken this turn make (``None`` unless they are a complete play)."""
    if g is None or g.phase != "move" or g.dice is None or not g.can_confirm:
        return None
    target = g.partial_position.id()
    for play in g.position.legal_plays(g.dice):
        if play.result.id() == target:
            return play
    return None


def tutor_check(s, level: str, numbering: str, action: str = "confirm") -> dict:
    """The tutor's judgement of an action about to be made (blocking; see the module docstring).

    ``action``: ``"confirm"`` judges the play the steps taken make; ``"double"``, ``"take"`` and ``"drop"``
    judge that cube action of the player who must act (:meth:`nardy.analysis.tutor.Tutor.check_cube`).

    Returns ``{"warn", "kind", "loss", "mark", "played", "best", "played_text", "best_text", "level"}``:
    ``warn`` is true when the action loses at least a doubtful decision's 0.03 (normalised equity,
    docs/analysis.md's thresholds); ``kind`` ``"play"`` or ``"cube"``; plays in the mover's own numbering
    (``*_text``: in ``numbering``), cube actions as ``"no double"``, ``"double"``, ``"take"``, ``"pass"``.

    Raises:
        GameStateError ``tutor_no_play``: ``confirm`` before the steps make a complete play.
    """
    from ...analysis.tutor import Tutor

    m = s.match
    g = m.current
    tutor = Tutor(m.rules, level, warn_at="doubtful")
    out: dict[str, Any] = {"warn": False, "level": level, "loss": 0.0, "mark": ""}
    if action != "confirm":
        chosen = "pass" if action == "drop" else action
        advice = tutor.check_cube(m, chosen)
        out.update(kind="cube", played=chosen, played_text=chosen, best=chosen, best_text=chosen)
        if advice is not None:
            right = str(advice.best)
            out.update(warn=True, loss=round(advice.loss, 4), mark=advice.mark, best=right, best_text=right)
        return out
    play = _pending_play(g)
    if play is None:
        raise GameStateError(
            "the steps taken are not a complete play yet: finish the play, then ask",
            code="tutor_no_play",
        )
    advice = tutor.check_play(m, play)
    fn = _numbering_fn(numbering, m.rules.name, g.turn)
    text = format_steps(play.steps, fn)
    out.update(kind="play", played=str(play), played_text=text, best=str(play), best_text=text)
    if advice is not None:
        best = advice.best
        out.update(
            warn=True,
            loss=round(advice.loss, 4),
            mark=advice.mark,
            best=str(best),
            best_text=format_steps(best.steps, fn),  # type: ignore[attr-defined]
        )
    return out


@router.get(
    "/api/games/{gid}/tutor",
    tags=["analysis"],
    summary="The tutor: how much the play about to be confirmed (or a cube action) loses against the best (not online)",
)
async def tutor(
    request: Request,
    store: StorageDep,
    compute: ComputeDep,
    gid: GameId,
    level: AnalysisLevel = Query(DEFAULT_WEB_LEVEL),
    numbering: Numbering = Query("own"),
    action: Literal["confirm", "double", "take", "drop"] = Query(
        "confirm", description="confirm (the play the steps taken make) or a cube action"
    ),
):
    uid = await user_id(request)
    s = (await load_game(gid, store)).session
    check_reader(s, uid, gid)  # a private game: as if there were none
    if s.online:
        raise Refused(403, "no tutor in a game against another person", code="no_hints_online", kind="Forbidden")
    if not s.sides_of(uid):
        raise Refused(403, "you do not sit at this game", code="not_seated", kind="Forbidden")
    request.state.wording = s.wording(numbering)

    numbering = numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"
    return await compute(lambda deadline: tutor_check(s, level, numbering, action))

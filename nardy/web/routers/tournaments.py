"""Tournament routes (issue 44; docs/tournaments.md "Server"): making, joining and following tournaments.

* ``POST /api/tournaments`` (an account, not a guest) -> 201 ``{"id"}``: Swiss (``rounds``), arena
  (``duration_min``, ``berserk``) or knockout (``lengths`` per round); it starts when ``players`` have joined, or
  at ``starts_at`` with two or more.
* ``POST /api/tournaments/{id}/join``, ``/leave`` (before the start: the entry is removed; during: a withdrawal,
  paired no more). ``POST /api/tournaments/{id}/berserk {"game"}`` (arena with berserk): half one's clock in
  that board's game before one's first move, for a point more when won.
* ``GET /api/tournaments?status=``, ``GET /api/tournaments/{id}`` (terms, entrants, pairings, standings, and
  ``you``: joined, the game to play now, seconds to the start).
* ``GET /api/tournaments/{id}/results.csv`` (the standings), ``/records.zip`` (a .mat of every finished game).
* ``WS /api/tournaments/{id}/live``: ``{"type": "tournament", "tournament": <GET body>}`` when it opens and on each
  change (across processes: a notification of kind ``tour``, :mod:`nardy.web.tourrunner`).

Refusals are JSON with a code of the catalogue (``tour_*``).
"""

from __future__ import annotations

import asyncio
import csv
import datetime as _dt
import io
import json
import zipfile
from typing import Literal

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, model_validator
from starlette.concurrency import run_in_threadpool

from ...rules.variants import get_rules
from ..deps import GameId, language
from ..errors import Refused
from ..services.live import MAX_CONNECTIONS, Conn
from ..services.loading import read_locked
from ..services.saving import store_session
from ..services.tournaments import public, settings_of
from ..store.community import community
from ..store.storage import User
from ..store.tournaments import MAX_ENTRANTS, TourRefused, tournament_book
from ..tourrunner import live_rooms, publish
from .auth import current_user, require_user
from .games import ClockBody, DaysBody

__all__ = ["router"]

router = APIRouter()

TourId = GameId  # the same shape: [0-9A-Za-z_-], at most 32

#: Live connections to one tournament at most (in this process).
MAX_LIVE = 512

_REFUSALS = {
    "tour_not_found": (404, "no such tournament", "NotFound"),
    "tour_started": (409, "the tournament has started; joining is closed", "Conflict"),
    "tour_full": (409, "the tournament is full", "Conflict"),
    "tour_not_joined": (409, "you have not joined this tournament", "Conflict"),
    "tour_finished": (409, "the tournament is over", "Conflict"),
    "tour_too_many": (409, "you have too many tournaments not finished; wait for one to end", "Conflict"),
    "tour_account_needed": (403, "guests cannot make or join tournaments; register first", "Forbidden"),
    "tour_rated_needs_clock": (422, "a rated tournament has a clock", "InvalidOptionError"),
    "tour_bad_terms": (422, "these tournament terms do not fit together", "InvalidOptionError"),
    "tour_no_berserk": (409, "berserk is not possible in this game now", "Conflict"),
}


def refused(code: str, **params) -> Refused:
    """The refusal of ``code`` (:data:`_REFUSALS`)."""
    status, detail, kind = _REFUSALS[code]
    return Refused(status, detail, code=code, kind=kind, params=params)


class CreateBody(BaseModel):
    """A new tournament's terms (docs/tournaments.md "Server")."""

    model_config = ConfigDict(extra="forbid")
    name: str | None = Field(None, min_length=1, max_length=80, description="its name (default: game and format)")
    game: Literal["backgammon", "short", "long"] = "backgammon"
    format: Literal["swiss", "arena", "knockout"] = "swiss"
    rounds: int | None = Field(None, ge=1, le=15, description="Swiss: the number of rounds")
    length: int = Field(1, ge=1, le=25, description="match length in points")
    lengths: list[int] | None = Field(None, max_length=8, description="knockout: the match length of each round")
    duration_min: float | None = Field(None, ge=0.1, le=24 * 60, description="arena: minutes of play")
    clock: Literal["none", "blitz", "rapid", "classic"] | ClockBody | DaysBody | None = Field(
        "blitz", description="as lobby challenges: a preset, times in seconds, or {days}"
    )
    rated: bool = Field(False, description="the matches change the players' ratings")
    players: int = Field(..., ge=2, le=MAX_ENTRANTS, description="it starts when this many have joined")
    starts_at: _dt.datetime | None = Field(None, description="ISO time: it starts then with two or more joined")
    berserk: bool = Field(False, description="arena: players may berserk (half their clock, +1 a win)")
    draw_points: Literal["half", "one"] = Field("half", description="long nardy's last-roll draw: ½-½ or 1-1")
    crawford: bool = Field(True, description="the Crawford rule in matches")
    cube: bool | None = Field(None, description="the doubling cube (default: the game's own)")
    grace_s: int = Field(120, ge=5, le=7 * 86400, description="seconds a player may be absent at a board's start")

    @model_validator(mode="after")
    def _fit(self):
        if self.format == "swiss" and self.rounds is None:
            raise ValueError("a Swiss tournament needs rounds")
        if self.format == "arena" and self.duration_min is None:
            raise ValueError("an arena needs duration_min")
        if self.lengths is not None and any(not 1 <= x <= 25 for x in self.lengths):
            raise ValueError("lengths are 1..25 points")
        return self


class BerserkBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: GameId = Field(..., description="the board's game")


async def _account(conn) -> User:
    user = await require_user(await current_user(conn))
    if user.guest:
        raise refused("tour_account_needed")
    return user


def _tour_refused(e: TourRefused) -> Refused:
    return refused(e.code)


async def _get(request: Request, tid: str):
    t = await run_in_threadpool(tournament_book(request.app).get, tid)
    if t is None:
        raise refused("tour_not_found")
    return t


@router.post("/api/tournaments", tags=["tournaments"], status_code=201, summary="Make a tournament")
async def create_tournament(request: Request, body: CreateBody):
    user = await _account(request)
    game = get_rules(body.game).name
    data = body.model_dump()
    data["clock"] = body.clock.model_dump() if isinstance(body.clock, (ClockBody, DaysBody)) else body.clock
    settings = settings_of(data, game)
    if body.rated and settings["clock"] is None:
        raise refused("tour_rated_needs_clock")
    starts = body.starts_at
    if starts is not None and starts.tzinfo is None:
        starts = starts.replace(tzinfo=_dt.UTC)
    name = body.name or f"{game} {body.format}"
    try:
        tid = await run_in_threadpool(
            tournament_book(request.app).create, user.id, name, game, body.format, settings, starts
        )
    except TourRefused as e:
        raise _tour_refused(e) from None
    return {"id": tid}


@router.get("/api/tournaments", tags=["tournaments"], summary="Tournaments, the newest first")
async def list_tournaments(request: Request, status: Literal["waiting", "playing", "finished"] | None = Query(None)):
    return {"tournaments": await run_in_threadpool(tournament_book(request.app).listing, status)}


@router.get("/api/tournaments/{tid}", tags=["tournaments"], summary="A tournament: terms, pairings, standings")
async def get_tournament(request: Request, tid: TourId):
    user = await current_user(request)
    t = await _get(request, tid)
    return public(t, user.id if user else None)


async def _rating_for(request: Request, t, uid: str) -> float:
    r = await run_in_threadpool(community(request.app).rating, uid, t.game, t.settings.get("clock_class") or "untimed")
    return float(r.rating)


@router.post("/api/tournaments/{tid}/join", tags=["tournaments"], summary="Join a tournament before it starts")
async def join_tournament(request: Request, tid: TourId):
    user = await _account(request)
    t = await _get(request, tid)
    rating = await _rating_for(request, t, user.id)
    try:
        new = await run_in_threadpool(tournament_book(request.app).join, tid, user.id, rating)
    except TourRefused as e:
        raise _tour_refused(e) from None
    if new:
        await publish(request.app, tid)
    return {"joined": True, "new": new}


@router.post("/api/tournaments/{tid}/leave", tags=["tournaments"], summary="Leave (before the start) or withdraw")
async def leave_tournament(request: Request, tid: TourId):
    user = await _account(request)
    try:
        how = await run_in_threadpool(tournament_book(request.app).leave, tid, user.id)
    except TourRefused as e:
        raise _tour_refused(e) from None
    await publish(request.app, tid)
    return {"left": how}


@router.post(
    "/api/tournaments/{tid}/berserk",
    tags=["tournaments"],
    summary="Arena: berserk in a board's game before your first move (half your clock, +1 point if you win)",
)
async def berserk(request: Request, tid: TourId, body: BerserkBody):
    user = await _account(request)
    app = request.app
    t = await _get(request, tid)
    board = next((b for b in t.boards if b.game == body.game and user.id in b.players), None)
    if t.format != "arena" or not t.settings.get("berserk") or board is None or board.result is not None:
        raise refused("tour_no_berserk")
    side = board.players.index(user.id)
    async with app.state.game_locks.lock_for(body.game) as held:
        if not held:
            raise refused("tour_no_berserk")
        game = await run_in_threadpool(read_locked, app.state.storage, body.game)
        s = game.session
        clock = s.table.clock
        moved = any(e.get("type") == "act" and e.get("side") == side and e.get("action") != "roll" for e in s.table.log)
        flags = list(board.extra.get("berserk", [False, False]))
        if clock is None or moved or s.table.is_over or flags[side]:
            raise refused("tour_no_berserk")
        clock.remaining[side] = clock.remaining[side] / 2
        await run_in_threadpool(store_session, app.state.storage, game)
    flags[side] = True
    board.extra["berserk"] = flags
    await run_in_threadpool(_save_extra, app, tid, board)
    await publish(app, tid)
    return {"berserk": True, "game": body.game}


def _save_extra(app, tid: str, board) -> None:
    from sqlalchemy import update

    from ..store.tournaments import pairings

    with tournament_book(app).engine.begin() as c:
        c.execute(
            update(pairings)
            .where(pairings.c.tournament_id == tid, pairings.c.round == board.round, pairings.c.board == board.board)
            .values(extra=json.dumps(board.extra))
        )


@router.get("/api/tournaments/{tid}/results.csv", tags=["tournaments"], summary="The standings as CSV")
async def results_csv(request: Request, tid: TourId):
    t = await _get(request, tid)
    body = public(t, None)
    keys = sorted({k for s in body["standings"] for k in s["tiebreaks"]})
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["rank", "id", "name", "points", *keys])
    for s in body["standings"]:
        name = s["name"]
        if name[:1] in ("=", "+", "-", "@"):  # no formula when opened in a spreadsheet
            name = "'" + name
        w.writerow([s["rank"], s["id"], name, s["points"], *(s["tiebreaks"].get(k, "") for k in keys)])
    return Response(
        out.getvalue(),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="tournament-{tid}.csv"'},
    )


#: Games a records.zip holds at most.
MAX_RECORDS = 600


@router.get("/api/tournaments/{tid}/records.zip", tags=["tournaments"], summary="A .mat record of every finished game")
async def records_zip(request: Request, tid: TourId):
    from ...records.mat import write_mat

    t = await _get(request, tid)
    store = request.app.state.storage
    done = [b for b in t.boards if b.game is not None and b.result is not None][:MAX_RECORDS]

    def build() -> bytes:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
            for b in done:
                try:
                    game = read_locked(store, b.game)
                    text = write_mat(game.session.match)
                except Exception:  # a game that cannot be written (deleted): left out
                    continue
                z.writestr(f"round{b.round:02d}-board{b.board + 1:03d}-{b.game}.mat", text)
        return buf.getvalue()

    data = await run_in_threadpool(build)
    return Response(
        data,
        media_type="application/zip",
        headers={"Content-Disposition": f'attachment; filename="tournament-{tid}.zip"'},
    )


@router.websocket("/api/tournaments/{tid}/live")
async def tournament_live(ws: WebSocket, tid: TourId):
    """The tournament's live channel: the tournament when it opens, then on each change; ``"ping"`` is answered
    ``"pong"``. The handshake's Origin is checked by :func:`nardy.web.routers.auth.check_request`."""
    app = ws.app
    user = await current_user(ws)
    rooms = live_rooms(app)
    if len(rooms.get(tid, ())) >= MAX_LIVE or sum(len(v) for v in rooms.values()) >= MAX_CONNECTIONS:
        await ws.close(code=4429)
        return
    t = await run_in_threadpool(tournament_book(app).get, tid)
    if t is None:
        await ws.close(code=4404)
        return
    conn = Conn(ws, user.id if user else None, [], None, "own", language(ws))
    await ws.accept()
    rooms.setdefault(tid, set()).add(conn)
    try:
        first = json.dumps({"type": "tournament", "tournament": public(t, conn.user)}, separators=(",", ":"))
        async with conn.lock:
            await ws.send_text(first)
        while True:
            msg = (await ws.receive_text())[:64]
            if msg == "ping":
                async with conn.lock:
                    await ws.send_text("pong")
    except (WebSocketDisconnect, RuntimeError, asyncio.CancelledError):
        pass
    finally:
        conns = rooms.get(tid)
        if conns is not None:
            conns.discard(conn)
            if not conns:
                rooms.pop(tid, None)

"""A player's page (docs/online.md "Player pages"): find a player by name, their finished games with filters,
the points of their rating graph, and their record against another player.

Routes:

* ``GET /api/players?name=NAME``: the account of that name (compared as names are: case and width folded);
  404 ``no_player`` (guests are never found by name).
* ``GET /api/players/{uid}/games?game=&opponent=&result=&limit=&offset=``: their finished online games the asker
  may see, most recent first (``limit`` at most 100), each with its record's and analysis' links; ``more``: rows
  follow.
* ``GET /api/players/{uid}/ratings?game=&clock=&limit=``: their ratings now and one point per rated match
  (oldest first), the graph's data.
* ``GET /api/players/{uid}/versus/{other}``: their record against ``other`` (games the asker may see; rated
  results).

A private game is listed and counted only to the players who sat at it (:mod:`nardy.web.store.profiles`).
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from starlette.concurrency import run_in_threadpool

from ..deps import GameId
from ..errors import Refused
from ..store.community import community
from ..store.profiles import MAX_GAMES, MAX_POINTS, Profiles
from ..store.storage import User
from .auth import current_user

__all__ = ["router"]

router = APIRouter()

UserId = GameId  # the same shape: [0-9A-Za-z_-], at most 32
_GAMES = Literal["backgammon", "short", "long"]
_CLASSES = Literal["blitz", "rapid", "classic", "correspondence"]


def _no_player() -> Refused:
    return Refused(404, "no such player", code="no_player", kind="NotFound")


async def _player(request: Request, uid: str) -> User:
    u = await run_in_threadpool(request.app.state.storage.user, uid)
    if u is None:
        raise _no_player()
    return u


def _profiles(request: Request) -> Profiles:
    p = getattr(request.app.state, "profiles", None)
    if p is None:
        p = request.app.state.profiles = Profiles(request.app.state.storage)
    return p


async def _asker(request: Request) -> str | None:
    me = await current_user(request)
    return me.id if me is not None else None


@router.get("/api/players", tags=["ratings"], summary="Find a player (an account) by name")
async def find_player(request: Request, name: str = Query(..., min_length=1, max_length=40)):
    u = await run_in_threadpool(request.app.state.storage.user_by_name, name)
    if u is None:
        raise _no_player()
    return u.public()


@router.get(
    "/api/players/{uid}/games",
    tags=["ratings"],
    summary="A player's finished online games the asker may see, filtered by game, opponent and result",
)
async def player_games(
    request: Request,
    uid: UserId,
    game: _GAMES | None = Query(None),
    opponent: UserId | None = Query(None, description="only the games against this player (an id)"),
    result: Literal["won", "lost"] | None = Query(None, description="the player's result"),
    limit: int = Query(50, ge=1, le=MAX_GAMES),
    offset: int = Query(0, ge=0, le=100_000),
):
    await _player(request, uid)
    viewer = await _asker(request)
    rows, more = await run_in_threadpool(_profiles(request).games, uid, viewer, game, opponent, result, limit, offset)
    for r in rows:
        gid = r["id"]
        r.update(record=f"/api/games/{gid}/record", mat=f"/api/games/{gid}/mat", analysis=f"/api/games/{gid}/analysis")
    return {"games": rows, "more": more, "offset": offset}


@router.get(
    "/api/players/{uid}/ratings",
    tags=["ratings"],
    summary="A player's ratings now and one point per rated match, oldest first (the rating graph)",
)
async def player_ratings(
    request: Request,
    uid: UserId,
    game: _GAMES | None = Query(None),
    clock: _CLASSES | None = Query(None),
    limit: int = Query(MAX_POINTS, ge=1, le=MAX_POINTS),
):
    await _player(request, uid)
    now = await run_in_threadpool(community(request.app).ratings_of, uid)
    points = await run_in_threadpool(_profiles(request).rating_points, uid, game, clock, limit)
    return {"ratings": now, "points": points}


@router.get(
    "/api/players/{uid}/versus/{other}",
    tags=["ratings"],
    summary="A player's record against another: the games between them the asker may see, their rated results",
)
async def player_versus(request: Request, uid: UserId, other: UserId):
    u = await _player(request, uid)
    o = await _player(request, other)
    viewer = await _asker(request)
    record = await run_in_threadpool(_profiles(request).versus, uid, other, viewer)
    return {"player": u.public(), "opponent": o.public(), **record}

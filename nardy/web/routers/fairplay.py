"""Claiming a match the opponent left (``POST /api/games/{id}/claim``; docs/online.md, "Fair play").

A seated player may claim a match, rated or casual, against the opponent only while the opponent is to act (never on
their own turn) and the opponent has been absent for the grace period (:data:`ABANDON_GRACE`): nothing of
theirs seen at the game (:mod:`nardy.web.presence`: any request for it, a live connection, an action) and no
action by anyone in it for that long (:func:`~nardy.web.presence.absent_since`). The match then ends
``abandoned``, lost by the absent player (a casual match too: it is won by the claimer, unrated, so no
game hangs forever); a rated one is rated only when it was a real game (:func:`nardy.web.ratings.too_short`).
"""

from __future__ import annotations

import math
import time

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from ..deps import GameId, GameLock, LaneDep, StorageDep, missing, read_locked
from ..presence import ABANDON_GRACE, absent_since, grace, seat_seen, wall_clock
from ..services.publishing import publish, shown
from ..services.saving import store_session
from ..store.community import community
from ..view import SavedGameView
from .lobby import _refused, _signed_in

__all__ = ["router", "ABANDON_GRACE"]

router = APIRouter()


class ClaimState(BaseModel):
    """When the asker may claim the match (``GET /api/games/{id}/claim``): the page shows the claim only then."""

    claim_in: float | None = Field(
        description="seconds until this player may claim the match (0: now); null when no claim is possible "
        "(over, not seated alone, the asker's own turn)"
    )
    grace: float = Field(description="seconds the opponent must be away (the claims' grace period)")


@router.get(
    "/api/games/{gid}/claim",
    tags=["lobby"],
    response_model=ClaimState,
    summary="When you may claim a match your opponent left (seconds left; null when no claim is possible)",
)
async def claim_state(request: Request, store: StorageDep, lane: LaneDep, gid: GameId):
    user = await _signed_in(request)
    app = request.app
    period = grace(app)
    game = await lane(read_locked, store, gid)
    s = game.session
    if not s.may_watch(user.id):
        raise missing(gid)  # a private game: as if there were none
    sides = s.sides_of(user.id)
    if not s.online or not sides:
        raise _refused(403, "not_seated", "you do not sit at this game", "Forbidden")
    await seat_seen(app, s, user.id, gid)  # the asker is there
    if s.table.is_over or s.table.waiting or len(sides) != 1 or s.table.to_act != 1 - sides[0]:
        return ClaimState(claim_in=None, grace=period)
    since = await run_in_threadpool(absent_since, community(app), s, 1 - sides[0], gid)
    left = max(0.0, period - (wall_clock(app) - since))
    return ClaimState(claim_in=math.ceil(left * 10) / 10, grace=period)  # 0 only once a claim is taken


@router.post(
    "/api/games/{gid}/claim",
    tags=["lobby"],
    response_model=SavedGameView,
    summary="Claim a match (rated or casual) your opponent left: they are to act and away past the grace period",
)
async def claim(request: Request, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):

    user = await _signed_in(request)
    app = request.app
    period = grace(app)
    async with lock:
        game = await lane(read_locked, store, gid)
        s = game.session
        if not s.may_watch(user.id):
            raise missing(gid)  # a private game: as if there were none
        sides = s.sides_of(user.id)
        if not s.online or not sides:
            raise _refused(403, "not_seated", "you do not sit at this game", "Forbidden")
        await seat_seen(app, s, user.id, gid)  # the claimer is there
        if s.table.is_over:
            raise _refused(409, "match_over", "the match is over", "Conflict")
        if s.table.waiting or len(sides) != 1:
            raise _refused(409, "seat_empty", "the other player has not joined yet", "Conflict")
        other = 1 - sides[0]
        if s.table.to_act != other:
            raise _refused(
                409,
                "claim_own_turn",
                "a claim is possible only while your opponent is to act, not on your own turn",
                "Conflict",
            )
        since = await run_in_threadpool(absent_since, community(app), s, other, gid)
        now = wall_clock(app)
        if now - since < period:
            wait = max(1, int(period - (now - since)) + 1)
            raise _refused(
                409,
                "opponent_present",
                f"your opponent was here {int(max(0.0, now - since))} s ago; a claim is possible after "
                f"{int(period)} s away",
                "Conflict",
                seconds=wait,
            )

        def run():
            s.table.forfeit(other, "abandoned", time.time())
            store_session(store, game)
            return shown(game, user.id, None, "own")

        out = await lane(run)
    await publish(app, gid)
    return out

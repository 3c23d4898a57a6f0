"""Aborting an online match in its first plays (``POST /api/games/{id}/abort``; docs/online.md, "Fair play").

Either seated player may abort a match, rated or casual, until each side has taken :data:`ABORT_TURNS` turns
(plays, and rolls that could not be played: :func:`nardy.web.ratings.turns_taken`, all games of the match): a
player who does not show up, or leaves at once, holds nobody. The match ends ``aborted``, with no winner, no
result and no rating (:meth:`nardy.flow.table.Table.abort`); it is stored before it is answered, and asking
again once it is aborted answers the same view (idempotent). Later in the match a player gone is claimed
instead (:mod:`nardy.web.routers.fairplay`).
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request

from ..deps import GameId, GameLock, LaneDep, StorageDep, missing, read_locked
from ..presence import seat_seen
from ..services.publishing import publish, shown
from ..services.saving import store_session
from ..services.seats import ABORT_TURNS, may_abort
from ..view import SavedGameView
from .lobby import _refused, _signed_in

__all__ = ["router", "ABORT_TURNS", "may_abort"]

router = APIRouter()


@router.post(
    "/api/games/{gid}/abort",
    tags=["lobby"],
    response_model=SavedGameView,
    summary="Abort a match in its first plays (before each side has taken 2 turns): it ends with no result, unrated",
)
async def abort(request: Request, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):
    """Abort the match: 200 with the view (``online.ended.reason == "aborted"``, no winner); again: the same.
    403 ``not_seated``; 404 a game one may not see; 409 ``seat_empty`` (nobody to play yet: cancel the
    challenge instead), ``match_over`` (ended otherwise), ``too_late`` (each side took 2 turns: claim instead)."""
    user = await _signed_in(request)
    app = request.app
    async with lock:
        game = await lane(read_locked, store, gid)
        s = game.session
        if not s.may_watch(user.id):
            raise missing(gid)  # a private game: as if there were none
        sides = s.sides_of(user.id)
        if not s.online or not sides:
            raise _refused(403, "not_seated", "you do not sit at this game", "Forbidden")
        ended = s.table.ended
        if ended is not None and ended.get("reason") == "aborted":
            return shown(game, user.id, None, "own")  # asked again: already done
        await seat_seen(app, s, user.id, gid)
        if s.table.is_over:
            raise _refused(409, "match_over", "the match is over", "Conflict")
        if s.table.waiting or len(sides) != 1:
            raise _refused(409, "seat_empty", "the other player has not joined yet", "Conflict")
        if not may_abort(s):
            raise _refused(
                409,
                "too_late",
                f"a match can be aborted only before each player has taken {ABORT_TURNS} turns",
                "Conflict",
                turns=ABORT_TURNS,
            )

        def run():
            s.table.abort(sides[0], time.time())
            store_session(store, game)
            return shown(game, user.id, None, "own")

        out = await lane(run)
    await publish(app, gid)
    return out

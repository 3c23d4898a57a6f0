"""The route that takes a player's own seed for an online game's provably fair dice, after the commitment.

``POST /api/games/{id}/seed`` ``{"client_seed", "commitment"}``: a seated player whose seat awaits their seed
(they took it with ``own_seed``; the view says ``online.seed_wanted``) sends it together with the commitment
the game showed them (``online.commitment`` of any view of the game: the answer that made or seated them, a
``GET``, the live channel). The seed is refused unless that commitment is the game's (409
``commitment_mismatch``), so the server has published its commitment to the player before it has their seed.
The match begins with the last seed awaited (:mod:`nardy.web.seeds`); the answer is the player's view of the
game. The same seed sent again answers the same (idempotent); another one, 409 ``seed_given``. A stranger to
a private game gets the answer of a missing game (404), a watcher 403 ``not_seated``. Stored before it is
answered, then pushed to the game's live connections.
"""

from __future__ import annotations

import time

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...rules.errors import GameStateError
from .. import seeds
from ..deps import GameId, GameLock, LaneDep, StorageDep, read_locked
from ..services.access import conflict, forbidden
from ..services.loading import missing
from ..services.publishing import publish, shown
from ..services.saving import store_game
from ..view import SavedGameView
from .auth import current_user, require_user

__all__ = ["router", "SeedBody"]

router = APIRouter()


class SeedBody(BaseModel):
    """A player's seed for the dice, with the commitment they were shown."""

    model_config = ConfigDict(extra="forbid")
    client_seed: str = Field(
        ..., min_length=1, max_length=64, pattern=r"^[0-9A-Za-z_-]+$", description="your seed: 1-64 of [0-9A-Za-z_-]"
    )
    commitment: str = Field(
        ...,
        min_length=64,
        max_length=64,
        pattern=r"^[0-9a-f]+$",
        description="the game's commitment as the game showed it to you (online.commitment)",
    )


@router.post(
    "/api/games/{gid}/seed",
    tags=["online"],
    response_model=SavedGameView,
    summary="Give your seed for the fair dice with the commitment you were shown; the match begins with the last",
)
async def give_seed(request: Request, body: SeedBody, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):
    user = await require_user(await current_user(request))
    async with lock:
        game = await run_in_threadpool(read_locked, store, gid)
        s = game.session
        if not s.may_watch(user.id):  # a stranger to a private game: the answer to a missing game
            raise missing(gid)
        if not s.online:
            raise conflict("not_online", "only a game against another person online has that")
        sides = s.sides_of(user.id)
        if not sides:
            raise forbidden("not_seated", "you do not sit at this game")
        side = next((i for i in sides if seeds.awaited(s, i)), sides[0])

        def run():
            try:
                taken = seeds.give_seed(s, side, body.client_seed, body.commitment, time.time())
            except GameStateError as e:
                raise conflict(e.code, str(e), **e.params) from None
            if taken:
                s.run_bots()  # the automatic rolls of the first turn (no computer plays online)
                store_game(store, game)
            return taken, shown(game, user.id, None, "own")

        taken, out = await lane(run)
    if taken:
        await publish(request.app, gid, game)
    return out

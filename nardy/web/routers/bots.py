"""Bot accounts (issue 44, docs/bots.md "Server: tokens, bot accounts, streams").

* ``POST /api/auth/register {..., "bot": true}`` (:mod:`nardy.web.routers.auth`) makes a bot account, rated in the
  pool ``bots``;
* ``POST /api/me/bot {"pool": "bots"|"people"}`` turns the signed-in account into a bot before it has played a
  rated match (409 ``has_games``; 403 ``bot_account_needed`` for a guest);
* every public user JSON has ``"bot"``; the pages show a BOT mark (``static/bots.js``);
* ``GET /api/ratings?pool=bots`` (:mod:`nardy.web.routers.lobby`) lists the bots' pool; a rated match between the
  pools is refused 409 ``other_pool`` (:func:`check_same_pool`).
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..errors import Refused
from ..store.bots import HasGames, pool_of, set_bot
from .auth import current_user, require_user, session_cache

__all__ = ["router", "check_same_pool", "other_pool"]

router = APIRouter(prefix="/api", tags=["players"])


class BotBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    pool: Literal["bots", "people"] = Field(
        "bots", description="the rating pool of its rated matches: bots (among bots) or people"
    )


def other_pool() -> Refused:
    """409 ``other_pool``: a rated match between a bot of the pool ``bots`` and a player of the pool ``people``."""
    return Refused(
        409,
        "bots and people are rated in different pools: play this match unrated",
        code="other_pool",
        kind="Conflict",
    )


async def check_same_pool(app, a: str, b: str) -> None:
    """Players ``a`` and ``b`` (ids) are rated in the same pool. Raises Refused: 409 ``other_pool``."""
    pools = await run_in_threadpool(pool_of, app.state.storage, [a, b])
    if pools.get(a, "people") != pools.get(b, "people"):
        raise other_pool()


@router.post("/me/bot", summary="Make your account a bot (before any rated match)")
async def become_bot(request: Request, body: BotBody) -> dict:
    """The signed-in account becomes a bot rated in ``pool``: ``{"user": {"id", "name", "guest", "bot", "pool"}}``.
    403 ``bot_account_needed`` (a guest), 409 ``has_games`` (it has played rated matches)."""
    user = await require_user(await current_user(request))
    try:
        made = await run_in_threadpool(set_bot, request.app.state.storage, user.id, body.pool)
    except KeyError:
        raise Refused(
            403, "only a registered account can be a bot", code="bot_account_needed", kind="Forbidden"
        ) from None
    except HasGames:
        raise Refused(
            409, "an account that has played rated games cannot become a bot", code="has_games", kind="Conflict"
        ) from None
    session_cache(request.app).drop_user(user.id)
    return {"user": {**made.public(), "pool": made.pool}}

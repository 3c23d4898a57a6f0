"""The social loop's checks shared by the lobby's and the follows' routes (issue 43): whom a named challenge
or a follow is for.

:func:`addressee` turns the name a player gave into the id of the account it names, refusing (before anything
is stored) a name of nobody, oneself, and a player either of the two blocks: a blocked player can neither
challenge nor be challenged by the other, and learns no more than "you cannot play this player".
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from ..errors import Refused
from ..store.community import community
from ..store.storage import User

__all__ = ["addressee"]


async def addressee(app, user: User, name: str, *, action: str = "challenge") -> str:
    """The id of the account named ``name`` (by its name key: guests have no name to be found by) whom ``user``
    may ``action`` ("challenge" or "follow").

    Raises :class:`~nardy.web.errors.Refused`: 404 ``no_player`` (no account of that name), 422 ``self_<action>``
    (oneself), 403 ``blocked`` (either blocks the other; only for a challenge: one may follow whom one blocks,
    and sees them offline)."""
    other = await run_in_threadpool(app.state.storage.user_by_name, name.strip())
    if other is None:
        raise Refused(404, "no such player", code="no_player", kind="NotFound")
    if other.id == user.id:
        raise Refused(422, f"you cannot {action} yourself", code=f"self_{action}", kind="InvalidOptionError")
    if action == "challenge":
        avoid = await run_in_threadpool(community(app).avoided, [user.id])
        if other.id in avoid[user.id]:
            raise Refused(403, "you cannot play this player", code="blocked", kind="Forbidden")
    return other.id

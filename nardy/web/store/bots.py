"""Bot accounts (schema revision 0011, issue 44): an account that is a program (``nardy_users.bot``), and the
rating pool it plays rated games in (``nardy_users.pool``: ``people`` or ``bots``).

A bot in the pool ``bots`` is rated among bots only (``GET /api/ratings?pool=bots``); a rated match between the
two pools is refused (:mod:`nardy.web.routers.bots`), so the pools' ratings never mix. An account becomes a bot
only before it has played a rated match (its rating would otherwise have been earned in the other pool).
"""

from __future__ import annotations

from sqlalchemy import func, select, update

from .db import _guarded, users
from .ratingbook import history
from .users import User, UserRows

__all__ = ["POOLS", "HasGames", "set_bot", "pool_of"]

#: The rating pools.
POOLS = ("people", "bots")


class HasGames(Exception):
    """The account has played rated matches: it cannot become a bot."""


@_guarded
def set_bot(storage, user_id: str, pool: str) -> User:
    """Make the account ``user_id`` a bot rated in ``pool`` (again: its pool changed), telling every server
    process to read its sessions again (``NOTIFY auth u:<id>``).

    Raises:
        KeyError: no such account (a guest is not one); HasGames: it has played rated matches;
        ValueError: ``pool`` is not one of :data:`POOLS`.
    """
    if pool not in POOLS:
        raise ValueError(pool)
    with storage.engine.begin() as c:
        row = c.execute(select(users).where(users.c.id == user_id, users.c.kind == "account")).first()
        if row is None:
            raise KeyError(user_id)
        played = c.execute(select(func.count()).select_from(history).where(history.c.user_id == user_id)).scalar_one()
        if played:
            raise HasGames(user_id)
        c.execute(update(users).where(users.c.id == user_id).values(bot=True, pool=pool))
        storage._notify(c, "auth", "u:" + user_id)
        row = c.execute(select(users).where(users.c.id == user_id)).one()
    return UserRows._user(row)


@_guarded
def pool_of(storage, user_ids: list[str]) -> dict[str, str]:
    """``{id: pool}`` of the users among ``user_ids`` that exist."""
    with storage.engine.connect() as c:
        rows = c.execute(select(users.c.id, users.c.pool).where(users.c.id.in_(sorted(set(user_ids))))).all()
    return {r.id: r.pool for r in rows}

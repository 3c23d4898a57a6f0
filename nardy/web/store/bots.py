"""Bot accounts (schema revision 0011, issue 44): an account that is a program (``nardy_users.bot``), and the
rating pool it plays rated games in (``nardy_users.pool``: ``people`` or ``bots``).

A bot in the pool ``bots`` is rated among bots only (``GET /api/ratings?pool=bots``); a rated match between the
two pools is refused (:mod:`nardy.web.routers.bots`), so the pools' ratings never mix. An account becomes a bot
only before it has played a rated match (its rating would otherwise have been earned in the other pool).
"""

from __future__ import annotations

from sqlalchemy import func, or_, select, update

from .db import _guarded, games, users
from .ratingbook import history
from .users import User, UserRows

__all__ = ["POOLS", "HasGames", "set_bot", "pool_of", "games_in_progress", "IN_PROGRESS"]

#: The statuses of a match in progress (both seats taken): a seed awaited, playing, a game of it over (the next to
#: come).
IN_PROGRESS = ("waiting", "playing", "game-over")

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


@_guarded
def games_in_progress(storage, user_ids: list[str]) -> dict[str, dict[str, dict]]:
    """The online matches each of ``user_ids`` is seated at and plays now (:data:`IN_PROGRESS`), by player:
    ``{uid: {game id: {"id", "game", "seat": 0|1, "status"}}}`` (the event streams' ``gameStart``)."""
    out: dict[str, dict[str, dict]] = {u: {} for u in user_ids}
    if not user_ids:
        return out
    q = select(games.c.id, games.c.game, games.c.status, games.c.seat0, games.c.seat1).where(
        or_(games.c.seat0.in_(user_ids), games.c.seat1.in_(user_ids)),
        games.c.seat0.is_not(None),
        games.c.seat1.is_not(None),
        games.c.status.in_(IN_PROGRESS),
    )
    with storage.engine.connect() as c:
        rows = c.execute(q).all()
    for r in rows:
        for seat, uid in enumerate((r.seat0, r.seat1)):
            if uid in out:
                out[uid][r.id] = {"id": r.id, "game": r.game, "seat": seat, "status": r.status}
    return out

"""The online games where it is a player's turn (``GET /api/games?turn=mine``, the home page's "Your turn" list;
docs/online.md, "Correspondence").

A game is the player's turn when it is being played (status ``playing``), the player sits at one seat and
another player at the other (an online game: a game at one device has the same player at both), and its
summary's ``to_act`` is the player's seat. The candidates are read by the indexed seat columns, at most
:data:`SCAN` of them, most urgent first (the soonest ``clock_due``, untimed last).
"""

from __future__ import annotations

import json

from sqlalchemy import or_, select

from .db import _aware, _guarded, games

__all__ = ["my_turn", "SCAN"]

#: The most playing games of one player read to find those on their turn.
SCAN = 500


@_guarded
def my_turn(store, player: str, limit: int = 50) -> list[dict]:
    """The online games where it is ``player``'s turn, soonest clock first: dicts ``{"id", "game",
    "updated", "you" (seat 0/1), "opponent" (their name), "players", "length", "score", "clock_due"
    (aware datetime or None)}``; at most ``limit``. ``store``: a :class:`~nardy.web.store.storage.Storage`.

    Raises:
        StorageUnavailable: the database cannot be reached."""
    q = (
        select(
            games.c.id,
            games.c.game,
            games.c.updated,
            games.c.summary,
            games.c.seat0,
            games.c.seat1,
            games.c.clock_due,
        )
        .where(
            games.c.status == "playing",
            games.c.seat0.is_not(None),
            games.c.seat1.is_not(None),
            games.c.seat0 != games.c.seat1,
            or_(games.c.seat0 == player, games.c.seat1 == player),
        )
        .order_by(games.c.clock_due.is_(None), games.c.clock_due, games.c.updated.desc())
        .limit(SCAN)
    )
    with store.engine.connect() as c:
        rows = c.execute(q).all()
    out: list[dict] = []
    for r in rows:
        summary = json.loads(r.summary or "{}")
        you = 0 if r.seat0 == player else 1
        if summary.get("to_act") != you:
            continue
        names = summary.get("players") or ["", ""]
        due = _aware(r.clock_due) if r.clock_due is not None else None
        out.append(
            {
                "id": r.id,
                "game": r.game,
                "updated": _aware(r.updated),
                "you": you,
                "opponent": names[1 - you],
                "players": names,
                "length": summary.get("length"),
                "score": summary.get("score"),
                "clock_due": due,
            }
        )
        if len(out) >= limit:
            break
    return out

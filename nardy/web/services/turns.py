"""The games on a player's turn (``GET /api/games?turn=mine``: the home page's "Your turn" list)."""

from __future__ import annotations

from ..store.turns import my_turn

__all__ = ["my_turn_listing"]


def my_turn_listing(store, uid: str, limit: int) -> list[dict]:
    """The online games where it is ``uid``'s turn (:func:`nardy.web.store.turns.my_turn`), soonest clock first,
    times as ISO 8601 strings (``clock_due``: when the move's time runs out, null for an untimed game).

    Raises:
        StorageUnavailable: the database cannot be reached."""
    rows = my_turn(store, uid, limit)
    for r in rows:
        r["updated"] = r["updated"].isoformat()
        r["clock_due"] = r["clock_due"].isoformat() if r["clock_due"] is not None else None
    return rows

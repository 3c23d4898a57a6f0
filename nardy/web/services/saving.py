"""Storing a hosted game after a change: its row, listing columns, logged action and a rated match's ratings."""

from __future__ import annotations

from fastapi import HTTPException

from ..gamecache import SNAPSHOT_EVERY, Loaded, cache_of, columns
from ..store.storage import StaleRevision, Storage
from .ratings import rating_step

__all__ = ["store_session", "store_game"]


def store_session(store: Storage, game: Loaded, entry: dict | None = None) -> None:
    """Store the session over its saved row, with its listing columns (status, owner, seats, when its clock
    runs out), and the ratings of a rated match that ends with this save, in one transaction; 404 when the game
    was deleted meanwhile, 409 when another writer stored it first (the revision check). Once stored, the game
    is this process's kept one of its new revision (:mod:`nardy.web.gamecache`).

    ``entry``: the one action (:meth:`HostedGame.act`'s ``entry``) that made this change, when that is all that
    changed. An online game (:attr:`HostedGame.loggable`) then appends it to its log (a row of its own:
    :meth:`Storage.append`) instead of storing the whole game again, but every
    :data:`~nardy.web.gamecache.SNAPSHOT_EVERY` actions and when the match ends (then it is stored whole, the
    action logged with it)."""
    saved, s = game.saved, game.session
    also = rating_step(store, game)  # a rated match that ends: its ratings are stored with it
    saved.status = s.status
    saved.title = s.title()
    saved.summary = s.summary()
    for k, v in columns(s).items():
        setattr(saved, k, v)
    logged = entry is not None and s.loggable
    base = saved.base if saved.base is not None else saved.revision
    try:
        if logged and also is None and not s.table.is_over and saved.revision + 1 - base < SNAPSHOT_EVERY:
            store.append(saved, entry)
        else:
            saved.data = s.to_dict()
            store.save(saved, also=also, entry=entry if logged else None)
    except KeyError:
        raise HTTPException(404, f"no saved game {saved.id!r}: it was deleted") from None
    except StaleRevision:
        raise HTTPException(409, "the game changed while this action was under way; reload it") from None
    cache_of(store).stored(game)


def store_game(store: Storage, game: Loaded) -> None:
    """Store the session over its saved row with its listing columns (status, seats, clock due): a change that
    is no one action (a join, a clock, a close), so it is stored whole (:func:`store_session`)."""
    store_session(store, game)

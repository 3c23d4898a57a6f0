"""Reading a stored game for a request: the process's kept game under its lock, or a copy of its own.

The 404 of a missing game (:func:`missing`) is the same for a game that does not exist and for one its asker
may not know of (docs/security.md). Blocking functions: call them on a worker thread.
"""

from __future__ import annotations

from fastapi import HTTPException

from ..gamecache import Loaded, cache_of, materialise
from ..store.storage import Storage

__all__ = ["missing", "read_game", "read_locked"]


def missing(gid: str) -> HTTPException:
    """The answer to a saved game that does not exist, and to one its asker may not know of (a private game:
    the same status, code and body, so a stranger cannot tell that it exists; docs/security.md): 404
    ``not_found``."""
    return HTTPException(404, f"no saved game {gid!r}")


def read_game(store: Storage, gid: str) -> Loaded:
    """The saved game ``gid``, a copy of its own read from the database (blocking: call it on a worker thread):
    for code that holds none of the game's locks; 404 when there is none."""
    saved = store.get(gid)
    if saved is None:
        raise missing(gid)
    return Loaded(gid, saved, materialise(saved))


def read_locked(store: Storage, gid: str) -> Loaded:
    """The saved game ``gid``, the process's kept one (:meth:`GameCache.read`: one small query when nothing
    changed; blocking). The caller holds the game's lock (:meth:`GameLocks.lock_for` to change it and store it
    with :func:`nardy.web.services.saving.store_session`, or :meth:`GameLocks.local` to read it) until it is done with
    it; 404 when there is none."""
    game = cache_of(store).read(gid)
    if game is None:
        raise missing(gid)
    return game

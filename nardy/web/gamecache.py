"""The games this server process has loaded, kept by (game id, revision), and how a stored game is rebuilt.

A stored game (:mod:`nardy.web.store.storage`) is a *snapshot* (its whole state at revision ``base``) and the *log*
of the actions stored after it (:meth:`~nardy.web.store.storage.Storage.append`: an online game stores each
action as a row of its own, not the whole game again). :func:`materialise` makes the game at its revision:
the snapshot rebuilt (:meth:`HostedGame.from_dict`, a few milliseconds for a long match) and the logged actions
applied (:meth:`HostedGame.replay`).

:class:`GameCache` keeps the games a process has rebuilt, so that the next request on a game costs one small
query (:meth:`~nardy.web.store.storage.Storage.changes`: is the stored revision still the one loaded?) instead of a
rebuild; when another process has stored actions since, only those are read and applied; only a game
changed in some other way (a join, a clock, a snapshot without its action) is rebuilt whole. Every read
asks the database, so a process never serves a state older than the stored one.

A kept game is one object per process, read and changed in place, so every use of it holds the game's
in-process lock (:meth:`nardy.web.deps.GameLocks.local`; writers hold it with the cross-process lock:
:meth:`~nardy.web.deps.GameLocks.lock_for`): a reader never sees a change under way, nor one that is not
stored. A writer that fails (the rules refuse, the store fails) leaves the game half changed: leaving the
lock with an exception forgets it (:meth:`GameCache.forget`), and the next read rebuilds it from the
database. Code that holds no lock reads a game of its own (:func:`nardy.web.services.loading.read_game`).

Bounds: at most :data:`CACHE_SIZE` games a process (the least recently used go first).
"""

from __future__ import annotations

import datetime as _dt
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass

from ..rules.errors import GameStateError
from . import seeds
from .sessions import HostedGame
from .store.storage import SavedGame, Storage

__all__ = ["GameCache", "Loaded", "materialise", "cache_of", "columns", "CACHE_SIZE", "SNAPSHOT_EVERY"]

log = logging.getLogger("nardy.web")

#: Games kept per process.
CACHE_SIZE = 2048
#: A logged game is stored whole again after this many logged actions (a rebuild replays at most this many).
SNAPSHOT_EVERY = 32


@dataclass
class Loaded:
    """A stored game as loaded: ``id``, ``saved`` (its row; ``data`` emptied) and ``session`` (the game)."""

    id: str
    saved: SavedGame
    session: HostedGame


def columns(s: HostedGame) -> dict:
    """The columns a saved game is found by (:meth:`SavedGame.columns`): its owner and seated players, who may
    watch, when its clock runs out (or its pause between games ends)."""
    seats = [x.player for x in s.table.seats] if s.online else [s.owner, s.owner]
    c = s.table.clock
    due = c.due() if (c is not None and not s.table.is_over) else None
    if s.table.paused:
        due = s.table.pause_until  # the pause between games: the keeper starts the next game then (Table.wake)
    if s.online and due is None:
        due = seeds.due(s)  # the seeds awaited: the keeper aborts the game at that time
    return {
        "owner": s.owner,
        "seat0": seats[0],
        "seat1": seats[1],
        "visibility": "public" if s.watchable else "private",
        "clock_due": _dt.datetime.fromtimestamp(due, _dt.UTC) if due is not None else None,
    }


def materialise(saved: SavedGame) -> HostedGame:
    """The game of a stored row at its revision: the snapshot ``saved.data`` with ``saved.actions`` applied.

    The row is this server's own (every stored game was made and checked by it): the snapshot is rebuilt
    without the save validator's whole check (``check=False``: :meth:`HostedGame.from_dict`), which costs more
    than the rebuild itself (bench/web_rebuild.py).

    Raises:
        GameStateError: not a saved game, or a logged action that does not apply (a corrupt log)."""
    s = HostedGame.from_dict(saved.data, check=False)
    for entry in saved.actions:
        s.replay(entry)
    return s


class GameCache:
    """The games of one process (see the module docstring). Its own bookkeeping is thread-safe; the games it
    gives are used under their locks.

    Args:
        storage: the database the games are read from.
        size: games kept at most.
    """

    def __init__(self, storage: Storage, size: int = CACHE_SIZE):
        self.storage = storage
        self.size = size
        self._games: OrderedDict[str, Loaded] = OrderedDict()
        self._lock = threading.Lock()
        #: figures (tests, benchmarks): reads answered as kept, by applying logged actions, by a rebuild
        self.hits = self.applied = self.rebuilt = 0
        #: changes followed from a notification's payload, with no query (:meth:`follow`)
        self.followed = 0

    def peek(self, gid: str) -> Loaded | None:
        """The kept game ``gid``, as it is (no query), or ``None``."""
        with self._lock:
            game = self._games.get(gid)
            if game is not None:
                self._games.move_to_end(gid)
            return game

    def _keep(self, game: Loaded) -> None:
        with self._lock:
            self._games[game.id] = game
            self._games.move_to_end(game.id)
            while len(self._games) > self.size:
                self._games.popitem(last=False)

    def forget(self, gid: str) -> None:
        """Drop the kept game ``gid`` (changed but not stored, deleted): the next read rebuilds it."""
        with self._lock:
            self._games.pop(gid, None)

    def __len__(self) -> int:
        return len(self._games)

    def read(self, gid: str) -> Loaded | None:
        """Game ``gid`` at its stored revision, the process's one (the caller holds its lock: see the module
        docstring). ``None``: no such game.

        Raises:
            StorageUnavailable: the database failed; GameStateError: the stored game cannot be rebuilt."""
        kept = self.peek(gid)
        changes = self.storage.changes(gid, kept.saved.revision if kept is not None else None)
        if changes is None:
            self.forget(gid)
            return None
        if changes.kind == "same" and kept is not None:
            self.hits += 1
            return kept
        if changes.kind == "actions" and kept is not None and changes.saved is not None:
            try:
                for entry in changes.actions:
                    kept.session.replay(entry)
            except GameStateError:
                log.warning("game %s: logged actions did not apply to the kept game; rebuilt whole", gid)
                self.forget(gid)
                changes = self.storage.changes(gid, None)
                if changes is None:
                    return None
            else:
                kept.saved = changes.saved
                self.applied += 1
                return kept
        saved = changes.saved
        assert saved is not None
        session = materialise(saved)
        saved.data, saved.actions = {}, []
        game = Loaded(gid, saved, session)
        self.rebuilt += 1
        self._keep(game)
        return game

    def follow(self, gid: str, revision: int, base: int, entry: dict) -> Loaded | None:
        """The kept game ``gid`` brought to ``revision`` by the logged action ``entry`` another process stored
        (its notification's payload, sent in the transaction that stored it: :meth:`Storage.append`), with no
        query: when it is kept at ``revision - 1``; as it is when kept at ``revision`` or later (it was read
        since). ``None``: not kept, kept at an older revision, or the action did not apply (then forgotten):
        the caller reads it (:meth:`read`). The caller holds the game's lock; ``base``: the revision of the
        stored snapshot after the change (a writer of the kept game later stores its actions against it)."""
        kept = self.peek(gid)
        if kept is None:
            return None
        saved = kept.saved
        if saved.revision >= revision:
            return kept
        if saved.revision != revision - 1:
            return None
        s = kept.session
        try:
            s.replay(entry)
        except Exception:
            log.warning("game %s: a notified action did not apply to the kept game; read again", gid)
            self.forget(gid)
            return None
        # the row as the writer stored it (store_session: the same values from the same game)
        saved.revision, saved.base = revision, base
        saved.status, saved.title, saved.summary = s.status, s.title(), s.summary()
        for k, v in columns(s).items():
            setattr(saved, k, v)
        saved.updated = _dt.datetime.now(_dt.UTC)
        self.followed += 1
        return kept

    def stored(self, game: Loaded) -> None:
        """``game`` was stored at ``game.saved.revision`` (by the holder of its lock): keep it as the process's
        one."""
        game.saved.data, game.saved.actions = {}, []
        self._keep(game)


_ATTR = "_nardy_game_cache"
_MADE = threading.Lock()


def cache_of(storage: Storage) -> GameCache:
    """The game cache of ``storage`` (one per :class:`Storage`: one per server process, and one per app in
    tests that run several in one process)."""
    cache = getattr(storage, _ATTR, None)
    if cache is None:
        with _MADE:
            cache = getattr(storage, _ATTR, None)
            if cache is None:
                cache = GameCache(storage)
                setattr(storage, _ATTR, cache)
    return cache

"""Saved games' rows: a game is stored as JSON text (a *snapshot*, at revision ``base_revision``) beside a few
columns for the list of saved games; an online game's actions after the snapshot are rows of
``nardy_game_actions`` (:meth:`GameRows.append`: one short row an action, not the whole game again), and
:meth:`GameRows.changes` says what changed since a revision a process has loaded (:mod:`nardy.web.gamecache`
rebuilds and keeps the games).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import re
import secrets
from dataclasses import dataclass, field

from sqlalchemy import (
    bindparam,
    delete,
    func,
    or_,
    select,
    update,
)

from .analyses import analyses
from .db import (
    NOTICE_MAX,
    NOTIFY_CHANNEL,
    StaleRevision,
    StorageUnavailable,
    _aware,
    _guarded,
    _now,
    game_actions,
    games,
    log,
    pg_rows,
)


@dataclass
class SavedGame:
    """One row: ``data`` is the decoded JSON (match and session settings)."""

    id: str
    created: _dt.datetime
    updated: _dt.datetime
    game: str
    status: str
    title: str
    revision: int
    data: dict
    summary: dict
    owner: str | None = None
    seat0: str | None = None
    seat1: str | None = None
    visibility: str = "private"
    clock_due: _dt.datetime | None = None
    #: the revision whose whole state ``data`` is (``None``: ``revision``, a game stored whole)
    base: int | None = None
    #: the logged actions ``base + 1 .. revision`` to apply to ``data`` (:mod:`nardy.web.gamecache`)
    actions: list[dict] = field(default_factory=list)

    def columns(self) -> dict:
        """The columns a game is found by (who it belongs to, who sits at it, who may watch, when its clock
        runs out)."""
        return {
            "owner": self.owner,
            "seat0": self.seat0,
            "seat1": self.seat1,
            "visibility": self.visibility,
            "clock_due": self.clock_due,
        }


@dataclass
class GameChanges:
    """What :meth:`Storage.changes` found: ``kind`` ``same`` (nothing new), ``actions`` (``saved``: the row
    without its ``data``; ``actions``: the logged actions after the known revision) or ``whole`` (``saved``:
    the whole stored game, as :meth:`Storage.get` gives it; ``actions``: its actions after its snapshot)."""

    kind: str
    saved: SavedGame | None
    actions: list[dict]


#: A game's stored revision (a statement made once: its compiled form is cached by SQLAlchemy).
_REVISION_OF = select(games.c.revision).where(games.c.id == bindparam("gid"))


_PG_REVISION_OF = f"SELECT revision FROM {games.name} WHERE id = %(gid)s"


#: A game's row without its snapshot (what a process that keeps the game needs to follow it).
_ROW_OF = select(*[col for col in games.c if col.name != "data"]).where(games.c.id == bindparam("gid"))


#: A game's logged actions after revision ``after`` up to ``upto``, in order.
_ACTIONS_OF = (
    select(game_actions.c.revision, game_actions.c.entry)
    .where(
        game_actions.c.game_id == bindparam("gid"),
        game_actions.c.revision > bindparam("after"),
        game_actions.c.revision <= bindparam("upto"),
    )
    .order_by(game_actions.c.revision)
)


_PG_STORE: dict[tuple, str] = {}


def _pg_store(columns: tuple[str, ...], logged: bool) -> str:
    """PostgreSQL's statement storing a game's change (:meth:`Storage.save`, :meth:`Storage.append`) in one round
    trip: ``columns`` of ``nardy_games`` set where the row is still at revision ``:_old``, the action
    ``:_entry`` logged at the new ``:revision`` (``logged``), and ``NOTIFY`` sent; a row comes back when the
    game was stored (none: deleted, or stored by someone else first). Made once per shape, with psycopg's
    placeholders (:func:`pg_rows` runs it)."""
    stmt = _PG_STORE.get((columns, logged))
    if stmt is None:
        sets = ", ".join(f"{c} = :{c}" for c in columns)
        sql = f"WITH u AS (UPDATE {games.name} SET {sets} WHERE id = :_id AND revision = :_old RETURNING id)"
        if logged:
            sql += (
                f", a AS (INSERT INTO {game_actions.name} (game_id, revision, entry) "
                "SELECT id, CAST(:revision AS INTEGER), CAST(:_entry AS TEXT) FROM u)"
            )
        sql += " SELECT pg_notify(:_channel, :_payload) FROM u"
        # psycopg's placeholders: the statement runs on the driver (pg_rows); each :name is a word of its own
        stmt = _PG_STORE[(columns, logged)] = re.sub(r":(\w+)", r"%(\1)s", sql)
    return stmt


class GameRows:
    """The saved games of a :class:`~nardy.web.store.storage.Storage` (a part of it: its engine is
    :class:`~nardy.web.store.db.Database`'s)."""

    @_guarded
    def create(
        self,
        data: dict,
        game: str,
        status: str,
        title: str = "",
        summary: dict | None = None,
        columns: dict | None = None,
        conn=None,
    ) -> SavedGame:
        """Store a new game; ``columns``: its :meth:`SavedGame.columns` (owner, seats, visibility, clock due);
        ``conn``: a connection whose transaction the insert joins (a challenge taken and its game made
        together), else a transaction of its own."""
        gid = secrets.token_hex(8)
        now = _now()
        summary = summary or {}
        saved = SavedGame(gid, now, now, game, status, title[:200], 0, data, summary, **(columns or {}), base=0)
        with contextlib.nullcontext(conn) if conn is not None else self.engine.begin() as c:
            c.execute(
                games.insert().values(
                    id=gid,
                    created=now,
                    updated=now,
                    game=game,
                    status=status,
                    title=title[:200],
                    summary=json.dumps(summary),
                    revision=0,
                    data=json.dumps(data),
                    base_revision=0,
                    **saved.columns(),
                )
            )
        return saved

    @staticmethod
    def _saved(row, data: dict, actions: list[dict] | None = None) -> SavedGame:
        base = row.base_revision if row.base_revision is not None else row.revision
        return SavedGame(
            row.id,
            _aware(row.created),
            _aware(row.updated),
            row.game,
            row.status,
            row.title,
            row.revision,
            data,
            json.loads(row.summary or "{}"),
            row.owner,
            row.seat0,
            row.seat1,
            row.visibility,
            _aware(row.clock_due) if row.clock_due is not None else None,
            base,
            list(actions or []),
        )

    @staticmethod
    def _actions(c, gid: str, after: int, upto: int) -> list[dict] | None:
        """The logged actions of ``gid`` making revisions ``after + 1 .. upto``, in order; ``None`` when one of
        them is missing (the log has a gap there: a snapshot was stored instead)."""
        if upto <= after:
            return []
        rows = c.execute(_ACTIONS_OF, {"gid": gid, "after": after, "upto": upto}).all()
        if [r.revision for r in rows] != list(range(after + 1, upto + 1)):
            return None
        return [json.loads(r.entry) for r in rows]

    @_guarded
    def get(self, gid: str) -> SavedGame | None:
        """The stored game ``gid``: ``data`` is its snapshot at revision ``base``, ``actions`` the logged
        actions after it (empty for a game stored whole: :meth:`save`); ``None`` when there is no such game.
        :func:`nardy.web.gamecache.materialise` makes the game at ``revision`` of it."""
        with self._reading() as c:
            row = c.execute(select(games).where(games.c.id == gid)).first()
            if row is None:
                return None
            saved = self._saved(row, json.loads(row.data))
            actions = self._actions(c, gid, saved.base or 0, saved.revision)
        if actions is None:
            log.warning("game %s: its action log lacks revisions after %s", gid, saved.base)
            raise StorageUnavailable("the game's stored actions are incomplete")
        saved.actions = actions
        return saved

    @_guarded
    def changes(self, gid: str, known: int | None) -> GameChanges | None:
        """What changed in game ``gid`` since revision ``known`` (the one a process has loaded; ``None``:
        none): nothing (one query: the stored revision is ``known``), the logged actions after
        ``known`` when they reach back to it, else the whole game (:meth:`get`). ``None``: no such game."""
        with self._reading() as c:
            if known is not None:
                if c.dialect.name == "postgresql":
                    # the usual answer (nothing new) from the revision alone, in one short statement
                    rev = pg_rows(c, _PG_REVISION_OF, {"gid": gid}, self.on_raw)
                    if not rev:
                        return None
                    if rev[0][0] == known:
                        return GameChanges("same", None, [])
                row = c.execute(_ROW_OF, {"gid": gid}).first()
                if row is None:
                    return None
                if row.revision == known:
                    return GameChanges("same", None, [])
                if known < row.revision:
                    actions = self._actions(c, gid, known, row.revision)
                    if actions is not None:
                        return GameChanges("actions", self._saved(row, {}), actions)
        saved = self.get(gid)
        return None if saved is None else GameChanges("whole", saved, saved.actions)

    @_guarded
    def save(self, saved: SavedGame, also=None, entry: dict | None = None) -> SavedGame:
        """Write back ``saved.data``/``status``/``title``/``summary`` whole (a snapshot: the game's ``base``
        becomes its new revision); bumps the revision and the update time. ``entry``: the action that made
        this revision, logged too (as :meth:`append` does), so that processes following the game by its log
        go on doing so across a snapshot.

        The write happens only if the stored revision is still ``saved.revision`` (optimistic locking:
        two servers, or two requests, acting on one game cannot both win). ``also(connection)``: more writes
        in the same transaction (the ratings of a rated match that ends: both are stored, or neither).

        With PostgreSQL, the same transaction sends ``NOTIFY`` (kind ``game``, :mod:`nardy.web.cluster`), so
        the other server processes hear of the change exactly when it is committed.

        Raises:
            KeyError: the game was deleted; StaleRevision: it was saved by someone else since it was read.
        """
        return self._store(saved, entry, also, whole=True)

    @_guarded
    def append(self, saved: SavedGame, entry: dict, also=None) -> SavedGame:
        """Store one action of the game: ``entry`` (JSON-able) is appended to its log as the next revision and
        the listing columns (status, title, summary, seats, clock due) are written; ``data`` is not (the
        snapshot stays at ``saved.base``). The same checks, transaction and ``NOTIFY`` as :meth:`save`.

        Raises:
            KeyError: the game was deleted; StaleRevision: it was saved by someone else since it was read.
        """
        return self._store(saved, entry, also, whole=False)

    def _store(self, saved: SavedGame, entry: dict | None, also, whole: bool) -> SavedGame:
        now = _now()
        values: dict = dict(
            updated=now,
            status=saved.status,
            title=saved.title[:200],
            summary=json.dumps(saved.summary),
            revision=saved.revision + 1,
            **saved.columns(),
        )
        if whole:
            values.update(data=json.dumps(saved.data), base_revision=saved.revision + 1)
        else:  # the snapshot stays: say which revision it is (a row stored before the log has none written)
            values["base_revision"] = saved.base if saved.base is not None else saved.revision
        with self._writing() as c:
            if c.dialect.name == "postgresql":
                # one statement: the row updated if still at its revision, the action logged, NOTIFY sent
                params = {
                    **values,
                    "_id": saved.id,
                    "_old": saved.revision,
                    "_channel": NOTIFY_CHANNEL,
                    "_payload": f"game {self.origin} {saved.id}",
                }
                if entry is not None:
                    params["_entry"] = json.dumps(entry)
                    # the change itself, for the processes that keep the game at the revision before: they follow
                    # it without reading it again (:func:`nardy.web.services.publishing.follow`)
                    rev = saved.revision + 1
                    notice = f"{params['_payload']} {rev} {values['base_revision']} {params['_entry']}"
                    if len(notice.encode()) <= NOTICE_MAX:
                        params["_payload"] = notice
                stored = len(pg_rows(c, _pg_store(tuple(values), entry is not None), params, self.on_raw)) == 1
            else:
                stored = (
                    c.execute(
                        update(games).where(games.c.id == saved.id, games.c.revision == saved.revision).values(**values)
                    ).rowcount
                    == 1
                )
                if stored and entry is not None:
                    c.execute(
                        game_actions.insert().values(
                            game_id=saved.id, revision=saved.revision + 1, entry=json.dumps(entry)
                        )
                    )
            if not stored:
                if c.execute(_REVISION_OF, {"gid": saved.id}).first() is None:
                    raise KeyError(saved.id)
                raise StaleRevision(f"game {saved.id} changed since revision {saved.revision}")
            if also is not None:
                also(c)
            if c.dialect.name != "postgresql":
                self._notify(c, "game", saved.id)
        saved.updated = now
        saved.revision += 1
        if whole:
            saved.base = saved.revision
        return saved

    @_guarded
    def revision(self, gid: str) -> int | None:
        """The stored revision of game ``gid`` (``None``: no such game)."""
        with self.engine.connect() as c:
            return c.execute(select(games.c.revision).where(games.c.id == gid)).scalar()

    @_guarded
    def delete(self, gid: str) -> bool:
        with self.engine.begin() as c:
            res = c.execute(delete(games).where(games.c.id == gid))
            c.execute(delete(game_actions).where(game_actions.c.game_id == gid))
            c.execute(delete(analyses).where(analyses.c.game_id == gid))  # its analyses go with it
        return res.rowcount == 1

    @_guarded
    def list(
        self, limit: int = 100, offset: int = 0, status: str | None = None, player: str | None = None
    ) -> list[SavedGame]:
        """Saved games, most recently played first (``data`` is left empty: only the summary is read);
        ``player``: only the games that player id owns or sits at."""
        q = (
            select(
                games.c.id,
                games.c.created,
                games.c.updated,
                games.c.game,
                games.c.status,
                games.c.title,
                games.c.revision,
                games.c.summary,
            )
            .order_by(games.c.updated.desc())
            .limit(limit)
            .offset(offset)
        )
        if status:
            q = q.where(games.c.status == status)
        if player is not None:
            q = q.where(or_(games.c.owner == player, games.c.seat0 == player, games.c.seat1 == player))
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [
            SavedGame(
                r.id,
                _aware(r.created),
                _aware(r.updated),
                r.game,
                r.status,
                r.title,
                r.revision,
                {},
                json.loads(r.summary or "{}"),
            )
            for r in rows
        ]

    @_guarded
    def count(self) -> int:

        with self.engine.connect() as c:
            return int(c.execute(select(func.count()).select_from(games)).scalar_one())

    @_guarded
    def due_games(self, now: _dt.datetime, limit: int = 100) -> list[str]:
        """Ids of the games whose clock runs out by ``now`` (their ``clock_due``), soonest first."""
        q = (
            select(games.c.id)
            .where(games.c.clock_due.is_not(None), games.c.clock_due <= now)
            .order_by(games.c.clock_due)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [r.id for r in c.execute(q).all()]

    @_guarded
    def clocked_games(self) -> list[str]:
        """Ids of the games whose clock runs (a ``clock_due``)."""
        with self.engine.connect() as c:
            return [r.id for r in c.execute(select(games.c.id).where(games.c.clock_due.is_not(None))).all()]

    @_guarded
    def clear_clock_due(self, gid: str) -> None:
        """Forget a game's ``clock_due`` (a row that cannot be read any more is not swept again)."""
        with self.engine.begin() as c:
            c.execute(update(games).where(games.c.id == gid).values(clock_due=None))

"""The database of ``nardy serve``: saved games, users and log-in sessions; SQLAlchemy 2 (SQLite by default,
PostgreSQL by URL), the schema kept by Alembic (:mod:`nardy.web.migrations`).

A saved game is a :class:`~nardy.flow.match.Match` (a match to N points, or a money session) with the
settings of the web session (who is a person, the computer's level...). It is stored as JSON text (a
*snapshot*, at revision ``base_revision``) beside a few columns for the list of saved games; an online game's
actions after the snapshot are rows of ``nardy_game_actions`` (:meth:`Storage.append`: one short row an
action, not the whole game again), and :meth:`Storage.changes` says what changed since a revision a process
has loaded (:mod:`nardy.web.gamecache` rebuilds and keeps the games).

* :func:`default_database_url`: an SQLite file in the user's data directory (``platformdirs``).
* :func:`normalise_url`: ``postgresql://`` URLs use the psycopg (v3) driver (extra ``nardy[postgres]``).
* :func:`migrate`: bring a database to the current schema (run by :class:`Storage`; a database made
  before Alembic is recognised and upgraded in place, its games kept).
* :class:`Storage`: games ``create``, ``get``, ``save``, ``append``, ``changes``, ``delete``, ``list``, ``ping``; users
  ``create_user``, ``user``, ``user_by_name``, ``account_like``, ``register_guest``, ``rename_guest``, ``set_password``;
  log-in sessions ``create_session``, ``session_user``, ``delete_session``; the server's ``heartbeat``.

A database that is down, locked or failing raises :class:`StorageUnavailable` (its message names no
driver error, statement or password: the server answers 503 with it); a save that lost a race with
another writer raises :class:`StaleRevision` (the server answers 409).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import hashlib
import json
import logging
import re
import secrets
import threading
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import (
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    inspect,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import NullPool

from .names import name_look

__all__ = [
    "Storage",
    "SavedGame",
    "GameChanges",
    "User",
    "AuthSession",
    "NewSession",
    "name_key",
    "migrate",
    "SCHEMA_HEAD",
    "NameTaken",
    "default_database_url",
    "normalise_url",
    "StorageError",
    "StorageUnavailable",
    "StaleRevision",
    "NOTIFY_CHANNEL",
    "token_hash",
]

log = logging.getLogger("nardy.web")

metadata = MetaData()

games = Table(
    "nardy_games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("updated", DateTime(timezone=True), nullable=False, index=True),
    Column("game", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("title", String(200), nullable=False, default=""),
    Column("summary", Text, nullable=False, default="{}"),
    Column("revision", Integer, nullable=False, default=0),
    Column("data", Text, nullable=False),
    # online play (revision 0002): users' ids; NULL for a game on one screen
    Column("owner", String(32), nullable=True, index=True),
    Column("seat0", String(32), nullable=True, index=True),
    Column("seat1", String(32), nullable=True, index=True),
    Column("visibility", String(8), nullable=False, server_default=text("'private'")),
    Column("invite_hash", String(64), nullable=True),
    Column("clock_due", DateTime(timezone=True), nullable=True, index=True),
    # the action log (revision 0004): the revision whose whole state ``data`` is (NULL: ``revision``)
    Column("base_revision", Integer, nullable=True),
)

#: The action log (revision 0004): the actions stored after a game's snapshot, one row each, keyed by the
#: revision they made (:meth:`Storage.append`); ``entry`` is JSON (:meth:`nardy.web.sessions.Session.replay`).
game_actions = Table(
    "nardy_game_actions",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("revision", Integer, primary_key=True),
    Column("entry", Text, nullable=False),
)

#: Guests and accounts. ``name_key``: an account's casefolded name (:func:`name_key`), unique; NULL for a
#: guest. ``name_look``: an account's name as it looks (:func:`nardy.web.names.name_look`: no two accounts look
#: alike), NULL for a guest (revision 0005). ``password_hash``: argon2 (:mod:`nardy.web.auth`), NULL for a guest.
#: ``kind``: guest|account.
users = Table(
    "nardy_users",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(40), nullable=False),
    Column("name_key", String(40), nullable=True, unique=True, index=True),
    Column("name_look", String(40), nullable=True, unique=True, index=True),
    Column("password_hash", Text, nullable=True),
    Column("kind", String(8), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
)

#: Log-in sessions: the cookie's token is stored only as its sha256 hex digest.
auth_sessions = Table(
    "nardy_auth_sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("user_id", String(32), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("expires", DateTime(timezone=True), nullable=False),
    Column("last_seen", DateTime(timezone=True), nullable=False),
)

#: ``key -> value`` of the server (the heartbeat).
server = Table(
    "nardy_server",
    metadata,
    Column("key", String(40), primary_key=True),
    Column("value", Text, nullable=False),
)

#: The newest schema revision (:mod:`nardy.web.migrations`); a database is brought to it when opened.
SCHEMA_HEAD = "0007"
#: The revision that matches a database made before Alembic (only ``nardy_games``, no ``alembic_version``).
_BEFORE_ALEMBIC = "0001"
#: PostgreSQL advisory lock held while migrating (servers starting at once migrate one after the other).
_MIGRATION_LOCK = 0x6E617264  # "nard"
#: PostgreSQL ``NOTIFY`` channel of stored changes (:mod:`nardy.web.cluster`): payload ``"<kind> <origin> <key>"``.
NOTIFY_CHANNEL = "nardy_live"
#: Bytes of a game's notification carrying its change (PostgreSQL's limit is 8000): ``"game <origin> <id>
#: <revision> <base revision> <logged action JSON>"``; a longer one is sent as ``"game <origin> <id>"``.
NOTICE_MAX = 7000
#: PostgreSQL advisory lock (one-key form) held while the heartbeat is read and replaced.
_HEARTBEAT_LOCK = 0x6E617265
#: Alembic's ``context`` is one per process: migrations in one process run one at a time.
_MIGRATING = threading.Lock()


class StorageError(RuntimeError):
    """The database URL is unusable or the database cannot be reached."""


class StorageUnavailable(StorageError):
    """The database failed a query (down, locked, out of space...); the details go to the log only."""


class StaleRevision(StorageError):
    """A save was based on an older revision of the game than the stored one (someone else wrote first)."""


class NameTaken(ValueError):
    """An account already has this name (names of accounts are unique by :func:`name_key`)."""


def _guarded(method):
    """Turn any database failure of a :class:`Storage` method into :class:`StorageUnavailable`."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except SQLAlchemyError as e:
            log.warning("database %s failed in %s: %s", self._safe_url(), method.__name__, e)
            raise StorageUnavailable("the database is unavailable; try again shortly") from None

    return run


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


@dataclass
class User:
    """A guest (``kind == "guest"``: a name, no password) or an account (a unique name and a password).

    ``password_hash`` is the argon2 hash (``None`` for a guest); it is left out of ``repr``."""

    id: str
    name: str
    kind: str
    created: _dt.datetime
    password_hash: str | None = field(default=None, repr=False)

    @property
    def guest(self) -> bool:
        return self.kind == "guest"

    def public(self) -> dict:
        """What the API shows of a user: ``{"id", "name", "guest"}``."""
        return {"id": self.id, "name": self.name, "guest": self.guest}


@dataclass
class AuthSession:
    """A valid log-in session: its user, the CSRF token requests must send, when it ends (UTC)."""

    user: User
    csrf: str
    expires: _dt.datetime


@dataclass
class NewSession:
    """A log-in session just made: ``token`` goes in the cookie (the database keeps only its sha256),
    ``csrf`` is the token unsafe requests must send, ``expires`` when it ends (UTC)."""

    token: str
    csrf: str
    expires: _dt.datetime


def name_key(name: str) -> str:
    """What makes account names the same: NFKC, then casefolded (``"Ivan" == "IVAN" == "ｉｖａｎ"``)."""
    return unicodedata.normalize("NFKC", name).casefold()


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_hash(token: str) -> str:
    """What the database keeps of a log-in session's cookie token (its sha256, hex), and what names the session
    in the ``auth`` notifications (:meth:`Storage.delete_session`)."""
    return _token_hash(token)


def default_database_url() -> str:
    """``sqlite:///<user data dir>/nardy.db`` (the folder is created)."""
    from platformdirs import user_data_dir

    folder = Path(user_data_dir("nardy", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'nardy.db'}"


def normalise_url(url: str) -> str:
    """A SQLAlchemy URL for ``url``: ``postgresql://`` and ``postgres://`` get the psycopg (v3) driver;
    a bare file path becomes an SQLite URL."""
    if not isinstance(url, str) or not url.strip():
        raise StorageError(f"database URL {url!r}: expected sqlite:///PATH or postgresql://...")
    url = url.strip()
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    if "://" not in url:
        return f"sqlite:///{Path(url).expanduser().resolve()}"
    return url


def _now() -> _dt.datetime:
    return _dt.datetime.now(_dt.UTC)


def _aware(t: _dt.datetime) -> _dt.datetime:
    # SQLite gives naive datetimes back; they were written in UTC.
    return t if t.tzinfo is not None else t.replace(tzinfo=_dt.UTC)


def _alembic_config():
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", "nardy.web:migrations")
    return cfg


def _revision_of(conn) -> str | None:
    """The database's schema revision: the one in ``alembic_version``, ``0001`` for a database made before
    Alembic (a ``nardy_games`` table alone), ``None`` for an empty database."""
    names = set(inspect(conn).get_table_names())
    if "alembic_version" in names:
        return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return _BEFORE_ALEMBIC if "nardy_games" in names else None


def migrate(engine: Engine) -> str:
    """Bring the database of ``engine`` to :data:`SCHEMA_HEAD` and say from which revision (``"none"`` for an
    empty database, ``"0001"`` for one made before Alembic, the head when there was nothing to do).

    One transaction, held exclusively (PostgreSQL: an advisory lock; SQLite: ``BEGIN IMMEDIATE`` on a
    connection of its own; within a process, a lock), so servers opening one database at once migrate it
    once; a database made
    before Alembic is stamped ``0001`` first; no row is rewritten, so every saved game is kept.

    Raises:
        StorageError: the database has a revision this version of nardy does not know (made by a newer one).
        SQLAlchemyError: the database failed.
    """
    from alembic import command

    migrator = engine
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        migrator = create_engine(engine.url, poolclass=NullPool, connect_args={"timeout": 30})

        @event.listens_for(migrator, "connect")
        def _own_transactions(dbapi_connection, record):
            dbapi_connection.isolation_level = None  # pysqlite would not put DDL in a transaction

        @event.listens_for(migrator, "begin")
        def _immediate(conn):
            conn.exec_driver_sql("BEGIN IMMEDIATE")

    try:
        with _MIGRATING, migrator.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            found = _revision_of(conn)
            if found == SCHEMA_HEAD:
                return found
            cfg = _alembic_config()
            cfg.attributes["connection"] = conn
            if found is not None:
                from alembic.script import ScriptDirectory

                try:
                    ScriptDirectory.from_config(cfg).get_revision(found)
                except Exception:
                    raise StorageError(
                        f"the database has schema revision {found!r}, unknown to this version of nardy "
                        f"(made by a newer one?); upgrade nardy"
                    ) from None
            if found == _BEFORE_ALEMBIC and not inspect(conn).has_table("alembic_version"):
                command.stamp(cfg, _BEFORE_ALEMBIC)
            command.upgrade(cfg, "head")
            if found is None:
                log.info("database: schema created (revision %s)", SCHEMA_HEAD)
            else:
                log.info("database: schema upgraded from revision %s to %s", found, SCHEMA_HEAD)
            return found or "none"
    finally:
        if migrator is not engine:
            migrator.dispose()


#: Connections a PostgreSQL storage keeps open, and how many more it may open for a while.
POOL_SIZE = 16
POOL_OVERFLOW = 16
#: Seconds a pooled connection may lie unused before it is pinged when taken again (a database restarted
#: meanwhile is noticed there, not by the request); a busy server's connections are never pinged.
IDLE_PING = 10.0


def _ping_when_idle(engine: Engine, idle: float = IDLE_PING) -> None:
    """Ping a pooled connection when it is taken after lying unused for ``idle`` seconds, and replace it
    when the ping fails (SQLAlchemy's ``pool_pre_ping`` pings on every checkout: a round trip for each
    request). A connection that fails in use (the database restarted under load) makes SQLAlchemy invalidate
    the pool's connections, and that one request answers 503; the next ones get new connections."""
    from sqlalchemy import exc

    @event.listens_for(engine.pool, "checkin")
    def _checkin(dbapi_connection, record):
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine.pool, "checkout")
    def _checkout(dbapi_connection, record, proxy):
        since = record.info.get("idle_since")
        if since is not None and time.monotonic() - since > idle:
            try:
                ok = engine.dialect.do_ping(dbapi_connection)
            except Exception:
                ok = False
            if not ok:
                raise exc.DisconnectionError("a pooled connection did not answer its ping")


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


def pg_rows(c, sql: str, params, hook=None) -> list[tuple]:
    """Run ``sql`` (psycopg's ``%(name)s``/``%s`` placeholders) on the psycopg connection under SQLAlchemy
    connection ``c``, in its transaction, and return the rows (tuples; none for a statement without them): the
    few statements every stored action runs (PostgreSQL only) skip SQLAlchemy's statement machinery, some 55 us
    of CPU each (psycopg still prepares them on the server after a few runs). ``hook(sql)``, if given, is told
    of each statement (tests count them). A failure is raised as SQLAlchemy's :class:`OperationalError` (so
    that :func:`_guarded` and :meth:`Storage.unit` answer it as the others), the connection dropped when the
    failure broke it."""
    dc = c.connection.driver_connection
    if hook is not None:
        hook(sql)
    try:
        cur = dc.execute(sql, params)
        return cur.fetchall() if cur.description is not None else []
    except Exception as e:
        if getattr(dc, "broken", False) or getattr(dc, "closed", False):
            c.invalidate()
        raise OperationalError(sql, params, e) from e


class Storage:
    """Saved games in a database given by URL (default: :func:`default_database_url`).

    Thread-safe (SQLAlchemy's pool); each call is one short transaction. The schema is created or
    upgraded when the storage is opened (:func:`migrate`).

    Raises:
        StorageError: a malformed URL, a missing driver (``pip install 'nardy[postgres]'`` for
            PostgreSQL) or a database that cannot be reached.
    """

    def __init__(self, url: str | None = None):
        self.url = normalise_url(url) if url else default_database_url()
        #: this process's name in the notifications it sends (:mod:`nardy.web.cluster` skips its own)
        self.origin = secrets.token_hex(6)
        #: the connection of this thread's unit of work (:meth:`unit`), if any
        self._units = threading.local()
        #: told of each statement run on the driver directly (:func:`pg_rows`; tests count them)
        self.on_raw = None
        try:
            u = make_url(self.url)
            kwargs = {}
            if u.get_backend_name() == "sqlite":
                kwargs["connect_args"] = {"check_same_thread": False, "timeout": 10}
                if u.database and u.database != ":memory:":
                    Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
                else:
                    from sqlalchemy.pool import StaticPool

                    kwargs["poolclass"] = StaticPool
            else:
                # connections kept open for the request threads and the action lane (an overflow connection is
                # made and closed again each time: a new PostgreSQL backend), recycled now and then; no ping on
                # every checkout (a round trip each), only on one idle for a while (:func:`_ping_when_idle`)
                kwargs.update(pool_timeout=10, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW, pool_recycle=1800)
            self.engine = create_engine(u, **kwargs)
            if u.get_backend_name() != "sqlite":
                _ping_when_idle(self.engine)
            #: the same pool for reads outside a unit of work, without BEGIN/ROLLBACK round trips (PostgreSQL; at
            #: READ COMMITTED each statement sees what was committed before it began, inside a transaction too)
            pg = u.get_backend_name() == "postgresql"
            self.autocommit = self.engine.execution_options(isolation_level="AUTOCOMMIT") if pg else self.engine
            migrate(self.engine)
        except StorageError:
            raise
        except (ArgumentError, NoSuchModuleError) as e:
            raise StorageError(f"database URL {self._safe_url()}: {e}") from None
        except ImportError as e:
            raise StorageError(
                f"database URL {self._safe_url()}: driver missing ({e}); for PostgreSQL "
                f"install the extra: pip install 'nardy[postgres]'"
            ) from None
        except Exception as e:  # OperationalError and friends: say which database
            raise StorageError(f"cannot open the database {self._safe_url()}: {e}") from None

    # ----- one connection for a unit of work -------------------------------------------------------------
    @contextlib.contextmanager
    def unit(self):
        """One connection and one transaction for the game reads and writes of this thread within the block
        (:meth:`get`, :meth:`changes`, :meth:`save`, :meth:`append`): an action read, applied and stored takes
        one connection from the pool, not one per call. Committed when the block ends (so a write is stored
        when the block is left, and not before), rolled back when it raises; a block within one joins it."""
        if getattr(self._units, "conn", None) is not None:
            yield self._units.conn
            return
        try:
            with self.engine.begin() as c:
                self._units.conn = c
                try:
                    yield c
                finally:
                    self._units.conn = None
        except SQLAlchemyError as e:
            log.warning("database %s failed in a unit of work: %s", self._safe_url(), e)
            raise StorageUnavailable("the database is unavailable; try again shortly") from None

    def _reading(self):
        conn = getattr(self._units, "conn", None)
        return contextlib.nullcontext(conn) if conn is not None else self.autocommit.connect()

    def _writing(self):
        conn = getattr(self._units, "conn", None)
        return contextlib.nullcontext(conn) if conn is not None else self.engine.begin()

    @property
    def safe_url(self) -> str:
        """The URL without the password."""
        return self._safe_url()

    def _safe_url(self) -> str:
        try:
            return make_url(self.url).render_as_string(hide_password=True)
        except Exception:
            return "(unparsable URL)"

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    @_guarded
    def ping(self) -> None:
        """Read the games table (one row at most); raises :class:`StorageUnavailable` when the database
        does not answer or cannot read it."""
        with self.engine.connect() as c:
            c.execute(select(games.c.id).limit(1)).all()

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

    def _notify(self, c, kind: str, key: str) -> None:
        if c.dialect.name == "postgresql":
            c.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": NOTIFY_CHANNEL, "payload": f"{kind} {self.origin} {key}"},
            )

    @_guarded
    def notify(self, kind: str, key: str) -> None:
        """Tell the other server processes on this database that ``key`` of ``kind`` changed (PostgreSQL
        ``NOTIFY``, delivered to their :meth:`nardy.web.cluster.Cluster.on` handlers; nothing with SQLite, a
        one-process database). ``kind``: one word; ``key``: at most 200 characters."""
        if self.backend != "postgresql":
            return
        if not kind or " " in kind or len(key) > 200:
            raise ValueError(f"notification {kind!r} {key[:40]!r}: a one-word kind and a key of 200 characters at most")
        with self.engine.begin() as c:
            self._notify(c, kind, key)

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
        from sqlalchemy import func

        with self.engine.connect() as c:
            return int(c.execute(select(func.count()).select_from(games)).scalar_one())

    # ----- users ---------------------------------------------------------------------------------------------
    @staticmethod
    def _user(row) -> User:
        return User(row.id, row.name, row.kind, _aware(row.created), row.password_hash)

    @_guarded
    def create_user(self, name: str, password_hash: str | None = None) -> User:
        """A new user: a guest without ``password_hash``, else an account (unique by :func:`name_key` and by
        :func:`~nardy.web.names.name_look`).

        ``name`` is stored as given (the caller checks it: :func:`nardy.web.auth.check_name`).

        Raises:
            NameTaken: an account has this name, or one that looks the same, already.
        """
        uid = secrets.token_hex(16)
        kind = "guest" if password_hash is None else "account"
        now = _now()
        try:
            with self.engine.begin() as c:
                c.execute(
                    users.insert().values(
                        id=uid,
                        name=name,
                        name_key=None if password_hash is None else name_key(name),
                        name_look=None if password_hash is None else name_look(name),
                        password_hash=password_hash,
                        kind=kind,
                        created=now,
                    )
                )
        except IntegrityError:
            raise NameTaken(name) from None
        return User(uid, name, kind, now, password_hash)

    @_guarded
    def user(self, user_id: str) -> User | None:
        with self.engine.connect() as c:
            row = c.execute(select(users).where(users.c.id == user_id)).first()
        return None if row is None else self._user(row)

    @_guarded
    def user_by_name(self, name: str) -> User | None:
        """The account named ``name`` (compared by :func:`name_key`); guests are never found by name."""
        key = name_key(name)
        if len(key) > 40:
            return None
        with self.engine.connect() as c:
            row = c.execute(select(users).where(users.c.name_key == key)).first()
        return None if row is None else self._user(row)

    @_guarded
    def account_like(self, name: str) -> User | None:
        """The account whose name looks like ``name`` (the same :func:`~nardy.web.names.name_look`: the same
        name in any case, or a Cyrillic or Greek look-alike), if any."""
        look = name_look(name)
        if len(look) > 40:
            return None
        with self.engine.connect() as c:
            row = c.execute(select(users).where(users.c.name_look == look)).first()
        return None if row is None else self._user(row)

    @_guarded
    def register_guest(self, user_id: str, name: str, password_hash: str) -> User:
        """Turn the guest ``user_id`` into an account named ``name`` (same id: their games stay theirs).

        Raises:
            NameTaken: an account has this name (or one that looks the same) already; KeyError: ``user_id`` is not
                a guest.
        """
        try:
            with self.engine.begin() as c:
                res = c.execute(
                    update(users)
                    .where(users.c.id == user_id, users.c.kind == "guest")
                    .values(
                        name=name,
                        name_key=name_key(name),
                        name_look=name_look(name),
                        password_hash=password_hash,
                        kind="account",
                    )
                )
                if res.rowcount != 1:
                    raise KeyError(user_id)
                row = c.execute(select(users).where(users.c.id == user_id)).one()
                self._notify(c, "auth", "u:" + user_id)  # the user's sessions kept by other processes are read again
        except IntegrityError:
            raise NameTaken(name) from None
        return self._user(row)

    @_guarded
    def rename_guest(self, user_id: str, name: str) -> User:
        """Give the guest ``user_id`` another name. Raises KeyError: ``user_id`` is not a guest."""
        with self.engine.begin() as c:
            res = c.execute(update(users).where(users.c.id == user_id, users.c.kind == "guest").values(name=name))
            if res.rowcount != 1:
                raise KeyError(user_id)
            row = c.execute(select(users).where(users.c.id == user_id)).one()
            self._notify(c, "auth", "u:" + user_id)
        return self._user(row)

    @_guarded
    def set_password(self, user_id: str, password_hash: str) -> None:
        """Store a new password hash for the account ``user_id`` (a new password, or a rehash with newer
        parameters). Raises KeyError: no such account."""
        with self.engine.begin() as c:
            res = c.execute(
                update(users)
                .where(users.c.id == user_id, users.c.kind == "account")
                .values(password_hash=password_hash)
            )
        if res.rowcount != 1:
            raise KeyError(user_id)

    # ----- log-in sessions -------------------------------------------------------------------------------
    @_guarded
    def create_session(
        self, user_id: str, lifetime: _dt.timedelta = _dt.timedelta(days=30), now: _dt.datetime | None = None
    ) -> NewSession:
        """A log-in session for ``user_id`` lasting ``lifetime`` from ``now`` (default: the time now, UTC).

        Returns the cookie's token (random, 256 bits; only its sha256 is stored, so a copy of the database
        opens no session) and the session's CSRF token. The user's expired sessions are deleted.
        """
        now = now or _now()
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires = now + lifetime
        with self.engine.begin() as c:
            c.execute(delete(auth_sessions).where(auth_sessions.c.user_id == user_id, auth_sessions.c.expires <= now))
            c.execute(
                auth_sessions.insert().values(
                    token_hash=_token_hash(token),
                    user_id=user_id,
                    csrf=csrf,
                    created=now,
                    expires=expires,
                    last_seen=now,
                )
            )
        return NewSession(token, csrf, expires)

    @_guarded
    def session_user(self, token: str, now: _dt.datetime | None = None) -> AuthSession | None:
        """The session of the cookie token ``token`` with its user; ``None`` when there is none or it has
        expired at ``now`` (an expired one is deleted). Its ``last_seen`` is brought up to ``now`` when it is
        a minute old or more (at most one write a minute per session)."""
        if not token or len(token) > 200:
            return None
        now = now or _now()
        th = _token_hash(token)
        with self.autocommit.connect() as c:
            row = c.execute(
                select(auth_sessions.c.csrf, auth_sessions.c.expires, auth_sessions.c.last_seen, users)
                .join(users, users.c.id == auth_sessions.c.user_id)
                .where(auth_sessions.c.token_hash == th)
            ).first()
        if row is None:
            return None
        if _aware(row.expires) <= now:
            with self.engine.begin() as c:
                c.execute(delete(auth_sessions).where(auth_sessions.c.token_hash == th))
            return None
        if now - _aware(row.last_seen) >= _dt.timedelta(minutes=1):
            with self.engine.begin() as c:
                c.execute(
                    update(auth_sessions)
                    .where(auth_sessions.c.token_hash == th, auth_sessions.c.last_seen < now - _dt.timedelta(minutes=1))
                    .values(last_seen=now)
                )
        return AuthSession(self._user(row), row.csrf, _aware(row.expires))

    @_guarded
    def delete_session(self, token: str) -> bool:
        """End the session of the cookie token ``token``; ``False`` when there was none."""
        th = _token_hash(token)
        with self.engine.begin() as c:
            res = c.execute(delete(auth_sessions).where(auth_sessions.c.token_hash == th))
            # the other server processes forget the session at once (their caches: nardy.web.auth.SessionCache)
            self._notify(c, "auth", "t:" + th)
        return res.rowcount == 1

    # ----- the server ------------------------------------------------------------------------------------
    @_guarded
    def server_value(self, key: str) -> str | None:
        with self.engine.connect() as c:
            return c.execute(select(server.c.value).where(server.c.key == key)).scalar()

    @_guarded
    def set_server_value(self, key: str, value: str) -> None:
        for attempt in (1, 2):
            try:
                with self.engine.begin() as c:
                    res = c.execute(update(server).where(server.c.key == key).values(value=value))
                    if res.rowcount == 0:
                        c.execute(server.insert().values(key=key, value=value))
                return
            except IntegrityError:  # another server inserted the key meanwhile: update it
                if attempt == 2:
                    raise

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

    def heartbeat(self) -> _dt.datetime | None:
        """When the server that sweeps clocks last said it was alive (UTC), ``None`` if never."""
        value = self.server_value("heartbeat")
        return None if value is None else _aware(_dt.datetime.fromisoformat(value))

    def set_heartbeat(self, when: _dt.datetime | None = None) -> None:
        """Record that the server is alive at ``when`` (default: now, UTC)."""
        self.set_server_value("heartbeat", (when or _now()).astimezone(_dt.UTC).isoformat())

    @_guarded
    def swap_heartbeat(self, when: _dt.datetime) -> _dt.datetime | None:
        """Record the heartbeat ``when`` and return the one it replaces, in one step that server processes
        starting at once take one after the other (PostgreSQL: an advisory lock; SQLite: ``BEGIN``), so only the
        first of them finds an old heartbeat and gives the clocks back the time the servers were all down."""
        with self.engine.begin() as c:
            if c.dialect.name == "postgresql":
                c.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _HEARTBEAT_LOCK})
            value = c.execute(select(server.c.value).where(server.c.key == "heartbeat")).scalar()
            new = when.astimezone(_dt.UTC).isoformat()
            if value is None:
                c.execute(server.insert().values(key="heartbeat", value=new))
            else:
                c.execute(update(server).where(server.c.key == "heartbeat").values(value=new))
        return None if value is None else _aware(_dt.datetime.fromisoformat(value))

    def close(self):
        self.engine.dispose()


# the lobby's, ratings' and fair play's tables (revision 0003) are defined there, on this module's metadata
from . import community as _community  # noqa: E402, F401

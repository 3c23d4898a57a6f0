"""The database of ``nardy serve``: its tables, the engine and its pool, the schema kept by Alembic.

* :func:`default_database_url`, :func:`normalise_url`: where the database is (SQLite by default, PostgreSQL by URL).
* :func:`migrate`: bring a database to :data:`SCHEMA_HEAD` (:mod:`nardy.web.migrations`).
* :class:`Database`: the engine, units of work, notifications and the server's own values (the heartbeat); the
  rows of games, users and logins are :mod:`nardy.web.store.games`, :mod:`~nardy.web.store.users`,
  :mod:`~nardy.web.store.logins`, and :class:`nardy.web.store.storage.Storage` is them all.

A database that is down, locked or failing raises :class:`StorageUnavailable` (its message names no
driver error, statement or password: the server answers 503 with it); a save that lost a race with
another writer raises :class:`StaleRevision` (the server answers 409).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import logging
import secrets
import threading
import time
from pathlib import Path

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    create_engine,
    event,
    exc,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError, OperationalError, SQLAlchemyError
from sqlalchemy.pool import NullPool, StaticPool

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
#: revision they made (:meth:`Storage.append`); ``entry`` is JSON (:meth:`nardy.web.sessions.HostedGame.replay`).
game_actions = Table(
    "nardy_game_actions",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("revision", Integer, primary_key=True),
    Column("entry", Text, nullable=False),
)


#: Guests and accounts. ``name_key``: an account's casefolded name (:func:`name_key`), unique; NULL for a
#: guest. ``name_look``: an account's name as it looks (:func:`nardy.web.names.name_look`: no two accounts look
#: alike), NULL for a guest (revision 0005). ``password_hash``: argon2 (:mod:`nardy.web.routers.auth`), NULL for
#: a guest. ``kind``: guest|account.
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
    # bot accounts (revision 0011, issue 44): a program's account, and the rating pool it plays rated games in
    Column("bot", Boolean, nullable=False, server_default=text("false")),
    Column("pool", String(8), nullable=False, server_default=text("'people'")),
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
SCHEMA_HEAD = "0011"


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


class Database:
    """The engine of a database given by URL (default: :func:`default_database_url`), opened and brought to the
    current schema (:func:`migrate`); see :class:`nardy.web.store.storage.Storage`.

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

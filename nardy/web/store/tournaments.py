"""Tournaments' part of the database (schema revision 0012): the tournaments, their entrants and pairings.

Everything is in the database, so several server processes share the tournaments: joining and leaving are one
short transaction each, checked under the row's lock; a tournament is stepped (started, its results read, the
next round paired and its games made) by one process at a time (:meth:`TournamentBook.stepping`: PostgreSQL's
advisory transaction lock on the tournament, taken without waiting, so a process that dies mid-step, even by
SIGKILL, releases it with its connection and leaves nothing half done: the round's games and pairings are
written in the one transaction that pairs it). ``lease_owner``/``lease_until`` tell which process stepped it
last (for the record and the tests); the lock is what decides.

Every method raises :class:`~nardy.web.store.db.StorageUnavailable` when the database fails (``_guarded``).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import secrets
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from sqlalchemy import (
    Boolean,
    Column,
    DateTime,
    Float,
    Index,
    Integer,
    String,
    Table,
    Text,
    func,
    select,
    text,
    update,
)

from .db import _aware, _guarded, _now, metadata, users
from .storage import Storage

__all__ = [
    "TournamentBook",
    "TourRefused",
    "Tournament",
    "Entrant",
    "Board",
    "tournaments",
    "entrants",
    "pairings",
    "tournament_book",
    "MAX_ENTRANTS",
]

#: Entrants a tournament may have at most.
MAX_ENTRANTS = 256
#: Tournaments not finished that one account may have made at once.
MAX_OWN_OPEN = 5

tournaments = Table(
    "nardy_tournaments",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("name", String(80), nullable=False),
    Column("game", String(16), nullable=False),
    Column("format", String(16), nullable=False),
    Column("status", String(16), nullable=False),
    Column("settings", Text, nullable=False),
    Column("round", Integer, nullable=False, server_default="0"),
    Column("revision", Integer, nullable=False, server_default="0"),
    Column("created_by", String(32), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("starts_at", DateTime(timezone=True), nullable=True),
    Column("started", DateTime(timezone=True), nullable=True),
    Column("round_started", DateTime(timezone=True), nullable=True),
    Column("finished", DateTime(timezone=True), nullable=True),
    Column("standings", Text, nullable=True),
    Column("lease_owner", String(64), nullable=True),
    Column("lease_until", DateTime(timezone=True), nullable=True),
)
Index("ix_nardy_tournaments_status", tournaments.c.status, tournaments.c.created)

entrants = Table(
    "nardy_tournament_entrants",
    metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("user_id", String(32), primary_key=True),
    Column("seq", Integer, nullable=False),
    Column("rating", Float, nullable=False),
    Column("withdrawn", Boolean, nullable=False, server_default=text("false")),
    Column("joined", DateTime(timezone=True), nullable=False),
)
Index("ix_nardy_tournament_entrants_user", entrants.c.user_id)

pairings = Table(
    "nardy_tournament_pairings",
    metadata,
    Column("tournament_id", String(32), primary_key=True),
    Column("round", Integer, primary_key=True),
    Column("board", Integer, primary_key=True),
    Column("player0", String(32), nullable=False),
    Column("player1", String(32), nullable=True),
    Column("game_id", String(32), nullable=True),
    Column("result", Text, nullable=True),
    Column("extra", Text, nullable=False, server_default="{}"),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("finished", DateTime(timezone=True), nullable=True),
)
Index("ix_nardy_tournament_pairings_game", pairings.c.game_id)


class TourRefused(Exception):
    """A join, leave or step the tournament's state refuses: ``code`` (``tour_*``, :mod:`nardy.web.routers.tournaments`
    words it)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


@dataclass
class Entrant:
    """One entrant: user id, name, whether a bot account, rating when they joined, withdrawn."""

    id: str
    name: str
    rating: float
    withdrawn: bool = False
    bot: bool = False
    seq: int = 0


@dataclass
class Board:
    """One pairing: ``round`` (1-based), ``board`` (0-based), ``players`` (``(p0, None)``: a bye), the game made
    for it, the ``result`` in points (``(p0, p1)``) once decided, ``extra`` (berserk, absence checked)."""

    round: int
    board: int
    players: tuple[str, str | None]
    game: str | None = None
    result: tuple[float, float] | None = None
    extra: dict = field(default_factory=dict)
    created: _dt.datetime | None = None
    finished: _dt.datetime | None = None


@dataclass
class Tournament:
    """A tournament as stored, with its entrants (in joining order) and boards (by round, board)."""

    id: str
    name: str
    game: str
    format: str
    status: str
    settings: dict
    round: int
    revision: int
    created_by: str
    created: _dt.datetime
    starts_at: _dt.datetime | None
    started: _dt.datetime | None
    round_started: _dt.datetime | None
    finished: _dt.datetime | None
    standings: list | None
    lease_owner: str | None
    entrants: list[Entrant] = field(default_factory=list)
    boards: list[Board] = field(default_factory=list)

    def entrant(self, uid: str) -> Entrant | None:
        return next((e for e in self.entrants if e.id == uid), None)


def _opt(t: _dt.datetime | None) -> _dt.datetime | None:
    return None if t is None else _aware(t)


def _tournament(row) -> Tournament:
    return Tournament(
        id=row.id,
        name=row.name,
        game=row.game,
        format=row.format,
        status=row.status,
        settings=json.loads(row.settings),
        round=row.round,
        revision=row.revision,
        created_by=row.created_by,
        created=_aware(row.created),
        starts_at=_opt(row.starts_at),
        started=_opt(row.started),
        round_started=_opt(row.round_started),
        finished=_opt(row.finished),
        standings=json.loads(row.standings) if row.standings else None,
        lease_owner=row.lease_owner,
    )


def lock_key(tid: str) -> int:
    """The PostgreSQL advisory lock key of tournament ``tid`` (a signed 64-bit number of its own range)."""
    return (0x746F7572 << 32 | zlib.crc32(tid.encode())) - (1 << 63)


class TournamentBook:
    """The tournaments' rows on a :class:`~nardy.web.store.storage.Storage`'s engine."""

    def __init__(self, storage: Storage):
        self.storage = storage
        self.engine = storage.engine

    def _safe_url(self) -> str:  # for _guarded's log line
        return self.storage._safe_url()

    # ----- reading ---------------------------------------------------------------------------------------
    @staticmethod
    def read_in(c, tid: str) -> Tournament | None:
        """The tournament ``tid`` with its entrants and boards, read on connection ``c``; ``None`` if unknown."""
        row = c.execute(select(tournaments).where(tournaments.c.id == tid)).first()
        if row is None:
            return None
        t = _tournament(row)
        q = (
            select(entrants, users.c.name, users.c.kind)
            .join(users, users.c.id == entrants.c.user_id, isouter=True)
            .where(entrants.c.tournament_id == tid)
            .order_by(entrants.c.seq)
        )
        rows = c.execute(q).all()
        bots = _bots(c, [r.user_id for r in rows])
        t.entrants = [
            Entrant(
                id=r.user_id,
                name=r.name or "?",
                rating=float(r.rating),
                withdrawn=bool(r.withdrawn),
                bot=r.user_id in bots,
                seq=r.seq,
            )
            for r in rows
        ]
        q2 = select(pairings).where(pairings.c.tournament_id == tid).order_by(pairings.c.round, pairings.c.board)
        t.boards = [
            Board(
                round=r.round,
                board=r.board,
                players=(r.player0, r.player1),
                game=r.game_id,
                result=tuple(json.loads(r.result)) if r.result else None,  # type: ignore[arg-type]
                extra=json.loads(r.extra or "{}"),
                created=_opt(r.created),
                finished=_opt(r.finished),
            )
            for r in c.execute(q2).all()
        ]
        return t

    @_guarded
    def get(self, tid: str) -> Tournament | None:
        """:meth:`read_in` on a connection of its own."""
        with self.engine.connect() as c:
            return self.read_in(c, tid)

    @_guarded
    def listing(self, status: str | None = None, limit: int = 100) -> list[dict]:
        """The newest tournaments (``status``: only those): ``{"id", "name", "game", "format", "status", "players",
        "joined", "round", "rounds", "starts_at", "created_by"}`` (``players``: the number that starts it;
        ``created_by``: ``{"id", "name"}``)."""
        joined = select(entrants.c.tournament_id, func.count().label("n")).group_by(entrants.c.tournament_id).subquery()
        q = (
            select(tournaments, joined.c.n, users.c.name.label("owner_name"))
            .join(joined, joined.c.tournament_id == tournaments.c.id, isouter=True)
            .join(users, users.c.id == tournaments.c.created_by, isouter=True)
            .order_by(tournaments.c.created.desc(), tournaments.c.id)
            .limit(limit)
        )
        if status is not None:
            q = q.where(tournaments.c.status == status)
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        out = []
        for r in rows:
            s = json.loads(r.settings)
            out.append(
                {
                    "id": r.id,
                    "name": r.name,
                    "game": r.game,
                    "format": r.format,
                    "status": r.status,
                    "players": s.get("players"),
                    "joined": int(r.n or 0),
                    "round": r.round,
                    "rounds": s.get("rounds"),
                    "starts_at": None if r.starts_at is None else _iso(r.starts_at),
                    "created_by": {"id": r.created_by, "name": r.owner_name or "?"},
                }
            )
        return out

    @_guarded
    def active(self) -> list[str]:
        """Ids of the tournaments not finished (the runner's work), oldest first."""
        q = (
            select(tournaments.c.id)
            .where(tournaments.c.status.in_(("waiting", "playing")))
            .order_by(tournaments.c.created)
            .limit(1000)
        )
        with self.engine.connect() as c:
            return [r.id for r in c.execute(q).all()]

    @_guarded
    def of_game(self, gid: str) -> str | None:
        """The tournament whose board game ``gid`` is, or ``None``."""
        with self.engine.connect() as c:
            return c.execute(select(pairings.c.tournament_id).where(pairings.c.game_id == gid).limit(1)).scalar()

    # ----- writing ---------------------------------------------------------------------------------------
    @_guarded
    def create(
        self,
        owner: str,
        name: str,
        game: str,
        fmt: str,
        settings: dict,
        starts_at: _dt.datetime | None,
        now: _dt.datetime | None = None,
    ) -> str:
        """Store a new tournament (status ``waiting``); returns its id. Raises :class:`TourRefused`
        ``tour_too_many`` when ``owner`` has :data:`MAX_OWN_OPEN` unfinished ones."""
        now = now or _now()
        tid = secrets.token_hex(6)
        with self.engine.begin() as c:
            n = c.execute(
                select(func.count())
                .select_from(tournaments)
                .where(tournaments.c.created_by == owner, tournaments.c.status.in_(("waiting", "playing")))
            ).scalar()
            if (n or 0) >= MAX_OWN_OPEN:
                raise TourRefused("tour_too_many")
            c.execute(
                tournaments.insert().values(
                    id=tid,
                    name=name,
                    game=game,
                    format=fmt,
                    status="waiting",
                    settings=json.dumps(settings, sort_keys=True),
                    round=0,
                    revision=0,
                    created_by=owner,
                    created=now,
                    starts_at=starts_at,
                )
            )
        return tid

    @staticmethod
    def _lock_row(c, tid: str):
        """The tournament's row, locked to the end of ``c``'s transaction (SQLite: its write lock, taken by a
        write that changes nothing)."""
        if c.dialect.name == "postgresql":
            return c.execute(select(tournaments).where(tournaments.c.id == tid).with_for_update()).first()
        c.execute(update(tournaments).where(tournaments.c.id == "").values(revision=0))
        return c.execute(select(tournaments).where(tournaments.c.id == tid)).first()

    @staticmethod
    def bump(c, tid: str, **values) -> None:
        """Write ``values`` to the tournament's row and bump its ``revision`` (the live channel's version)."""
        c.execute(
            update(tournaments).where(tournaments.c.id == tid).values(revision=tournaments.c.revision + 1, **values)
        )

    @_guarded
    def join(self, tid: str, uid: str, rating: float, now: _dt.datetime | None = None) -> bool:
        """``uid`` joins tournament ``tid`` (at ``rating``); returns False when they had joined already.
        Raises :class:`TourRefused`: ``tour_not_found``, ``tour_started`` (not waiting any more), ``tour_full``."""
        now = now or _now()
        with self.engine.begin() as c:
            row = self._lock_row(c, tid)
            if row is None:
                raise TourRefused("tour_not_found")
            have = c.execute(
                select(entrants.c.user_id).where(entrants.c.tournament_id == tid, entrants.c.user_id == uid)
            ).first()
            if have is not None:
                return False
            if row.status != "waiting":
                raise TourRefused("tour_started")
            n = c.execute(select(func.count()).select_from(entrants).where(entrants.c.tournament_id == tid)).scalar()
            most = min(MAX_ENTRANTS, int(json.loads(row.settings).get("players") or MAX_ENTRANTS))
            if (n or 0) >= most:
                raise TourRefused("tour_full")
            last = c.execute(select(func.max(entrants.c.seq)).where(entrants.c.tournament_id == tid)).scalar()
            c.execute(
                entrants.insert().values(
                    tournament_id=tid, user_id=uid, seq=(last or 0) + 1, rating=rating, withdrawn=False, joined=now
                )
            )
            self.bump(c, tid)
        return True

    @_guarded
    def leave(self, tid: str, uid: str) -> str:
        """``uid`` leaves tournament ``tid``: before it starts their entry is removed (``"left"``); while it is
        played they withdraw (``"withdrawn"``: their later rounds are byes to their opponents... they are paired no
        more). Raises :class:`TourRefused`: ``tour_not_found``, ``tour_not_joined``, ``tour_finished``."""
        with self.engine.begin() as c:
            row = self._lock_row(c, tid)
            if row is None:
                raise TourRefused("tour_not_found")
            me = c.execute(select(entrants).where(entrants.c.tournament_id == tid, entrants.c.user_id == uid)).first()
            if me is None:
                raise TourRefused("tour_not_joined")
            if row.status == "finished":
                raise TourRefused("tour_finished")
            if row.status == "waiting":
                c.execute(entrants.delete().where(entrants.c.tournament_id == tid, entrants.c.user_id == uid))
                self.bump(c, tid)
                return "left"
            if not me.withdrawn:
                c.execute(
                    update(entrants)
                    .where(entrants.c.tournament_id == tid, entrants.c.user_id == uid)
                    .values(withdrawn=True)
                )
                self.bump(c, tid)
            return "withdrawn"

    @contextlib.contextmanager
    def stepping(self, tid: str, owner: str, lease_s: float = 30.0) -> Iterator[tuple[object, Tournament] | None]:
        """A transaction in which this process alone steps tournament ``tid``: yields ``(conn, tournament)``, or
        ``None`` when another process is stepping it now (PostgreSQL: its advisory lock is held; the caller
        passes) or it is gone or finished. Everything written on ``conn`` is committed together when the block
        ends (rolled back on an exception). The lease columns name ``owner`` for ``lease_s`` seconds."""
        with self.engine.begin() as c:
            if c.dialect.name == "postgresql":
                got = c.execute(text("SELECT pg_try_advisory_xact_lock(:k)"), {"k": lock_key(tid)}).scalar()
                if not got:
                    yield None
                    return
            row = self._lock_row(c, tid)
            if row is None or row.status == "finished":
                yield None
                return
            t = self.read_in(c, tid)
            assert t is not None
            now = _now()
            c.execute(
                update(tournaments)
                .where(tournaments.c.id == tid)
                .values(lease_owner=owner[:64], lease_until=now + _dt.timedelta(seconds=lease_s))
            )
            yield c, t


def _bots(c, uids: list[str]) -> set[str]:
    """Which of ``uids`` are bot accounts (the ``bot`` column of the bot API's revision 0011, when there is one)."""
    col = users.c.get("bot")
    if col is None or not uids:
        return set()
    return {r.id for r in c.execute(select(users.c.id).where(users.c.id.in_(uids), col.is_(True))).all()}


def _iso(t: _dt.datetime) -> str:
    return _aware(t).astimezone(_dt.UTC).isoformat()


def tournament_book(app) -> TournamentBook:
    """The app's :class:`TournamentBook` (made on first use, kept on ``app.state.tournament_book``)."""
    b = getattr(app.state, "tournament_book", None)
    if b is None:
        b = app.state.tournament_book = TournamentBook(app.state.storage)
    return b

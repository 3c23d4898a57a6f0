"""The lobby's, the ratings' and fair play's part of the database (schema revision 0003): challenges and
quick-pairing seeks, Glicko-2 ratings and their history (the methods of :class:`~nardy.web.store.ratingbook.RatingBook`,
which rated results count and how much), blocks, presence.

Everything here is in the database, nothing in a process's memory, so several server processes share one
lobby: a challenge is taken and a quick pairing made under one lock of the database (PostgreSQL: an advisory
transaction lock; SQLite has one writer) and by a conditional update (two players accepting at once: one
wins, the other is told it is taken); a player plays one game from the lobby at a time (checked under that
lock from the games' seats; a pairing withdraws both players' other challenges and seeks); a rated result is
written in the transaction that stores the finished match (:meth:`Community.rate_match`, given to
:meth:`nardy.web.store.storage.Storage.save`) and at most once per match.

:class:`Community` wraps a :class:`~nardy.web.store.storage.Storage` (its engine); every method is one short
transaction and raises :class:`~nardy.web.store.storage.StorageUnavailable` when the database fails.
"""

from __future__ import annotations

import datetime as _dt
import json
import secrets
import threading
from dataclasses import dataclass

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
    and_,
    delete,
    func,
    or_,
    select,
    text,
    true,
    update,
)

from .db import _aware, _guarded, _now, games, metadata, users
from .ratingbook import RatedMatch, RatingBook, history, insert_of, ratings
from .storage import Storage

__all__ = [
    "Community",
    "Challenge",
    "ChallengeLimit",
    "ChallengeRefused",
    "RatedMatch",
    "ratings",
    "history",
    "MAX_OPEN",
    "MAX_PER_HOUR",
    "PRESENCE_FRESH",
    "CHALLENGE_TTL",
]

#: Open challenges and seeks a player may have at once.
MAX_OPEN = 3
#: Challenges and seeks a player may make in an hour (the rate limit).
MAX_PER_HOUR = 30
#: A player is online while a channel of theirs was seen this recently (the server refreshes connected
#: players every :data:`nardy.web.routers.lobby.PRESENCE_EVERY` seconds).
PRESENCE_FRESH = _dt.timedelta(seconds=45)
#: An open challenge lapses after this long.
CHALLENGE_TTL = _dt.timedelta(hours=1)
#: A paired seek is shown to its owner this long (the page opens the game).
PAIRED_SHOWN = _dt.timedelta(minutes=5)
#: PostgreSQL advisory lock of pairing ("pair"): quick pairing and taking a challenge, one at a time.
_PAIRING_LOCK = 0x70616972
#: A game's statuses while it is unfinished (its players are playing it).
UNFINISHED = ("waiting", "playing", "game-over")

challenges = Table(
    "nardy_challenges",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("owner", String(32), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("game", String(16), nullable=False),
    Column("length", Integer, nullable=False),
    Column("clock", Text, nullable=True),
    Column("clock_class", String(16), nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("rating_min", Float, nullable=True),
    Column("rating_max", Float, nullable=True),
    Column("colour", String(8), nullable=False),
    Column("client_seed", String(64), nullable=True),
    Column("status", String(16), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("closed", DateTime(timezone=True), nullable=True),
    Column("game_id", String(32), nullable=True),
    Column("taken_by", String(32), nullable=True),
    # the owner gives their own dice seed after the game's commitment (migration 0007; NULL: no, the server's)
    Column("own_seed", Boolean, nullable=True),
    # the one player it is made to (migration 0010; NULL: an open challenge anyone may accept)
    Column("to_user", String(32), nullable=True),
)
Index("ix_nardy_challenges_to_user", challenges.c.to_user)
Index("ix_nardy_challenges_owner", challenges.c.owner, challenges.c.created)
Index("ix_nardy_challenges_open", challenges.c.status, challenges.c.kind, challenges.c.game)

blocks = Table(
    "nardy_blocks",
    metadata,
    Column("blocker", String(32), primary_key=True),
    Column("blocked", String(32), primary_key=True),
    Column("created", DateTime(timezone=True), nullable=False),
)
Index("ix_nardy_blocks_blocked", blocks.c.blocked)

presence = Table(
    "nardy_presence",
    metadata,
    Column("user_id", String(32), primary_key=True),
    Column("channel", String(40), primary_key=True),
    Column("seen", DateTime(timezone=True), nullable=False),
)
Index("ix_nardy_presence_seen", presence.c.seen)

#: The lobby's presence channel (a game's is its id).
LOBBY = ":lobby"


class ChallengeLimit(Exception):
    """Too many challenges: ``kind`` ``too_many_open`` (:data:`MAX_OPEN` open at once) or ``too_many_challenges``
    (:data:`MAX_PER_HOUR` an hour: ``retry_after`` seconds)."""

    def __init__(self, kind: str, retry_after: int = 0):
        super().__init__(kind)
        self.kind = kind
        self.retry_after = retry_after


class ChallengeRefused(Exception):
    """A challenge that cannot be taken: ``code`` ``no_challenge``, ``challenge_taken``, ``own_challenge``,
    ``blocked``, ``out_of_range``, ``already_playing`` (the taker sits at an unfinished game made in the lobby:
    ``game_id``)."""

    def __init__(self, code: str, game_id: str | None = None):
        super().__init__(code)
        self.code = code
        self.game_id = game_id


@dataclass
class Challenge:
    """One row of ``nardy_challenges`` (``clock``: the clock as the game takes it, ``None`` untimed)."""

    id: str
    owner: str
    kind: str
    game: str
    length: int
    clock: str | dict | None
    clock_class: str
    rated: bool
    rating_min: float | None
    rating_max: float | None
    colour: str
    client_seed: str | None
    status: str
    created: _dt.datetime
    closed: _dt.datetime | None = None
    game_id: str | None = None
    taken_by: str | None = None
    own_seed: bool = False
    to: str | None = None

    @classmethod
    def of(cls, row) -> Challenge:
        return cls(
            row.id,
            row.owner,
            row.kind,
            row.game,
            row.length,
            json.loads(row.clock) if row.clock else None,
            row.clock_class,
            bool(row.rated),
            row.rating_min,
            row.rating_max,
            row.colour,
            row.client_seed,
            row.status,
            _aware(row.created),
            _aware(row.closed) if row.closed is not None else None,
            row.game_id,
            row.taken_by,
            bool(row.own_seed),
            row.to_user,
        )

    def public(self) -> dict:
        """What the lobby shows (never the owner's dice seed)."""
        return {
            "id": self.id,
            "kind": self.kind,
            "owner": self.owner,
            "game": self.game,
            "length": self.length,
            "clock": self.clock,
            "clock_class": self.clock_class,
            "rated": self.rated,
            "rating_min": self.rating_min,
            "rating_max": self.rating_max,
            "colour": self.colour,
            "status": self.status,
            "created": _utc(self.created),
            "game_id": self.game_id,
            "to": self.to,
        }

    def same_terms(self, other: dict) -> bool:
        return all(getattr(self, k) == other[k] for k in ("game", "length", "clock", "rated"))


#: An INSERT of the connection's dialect (for ON CONFLICT).
_insert = insert_of


class Community(RatingBook):
    """The lobby's tables of one database (see the module docstring)."""

    def __init__(self, storage: Storage):
        self.storage = storage
        self.engine = storage.engine
        self._pairing = threading.Lock()

    def _safe_url(self) -> str:  # for _guarded's log line
        return self.storage.safe_url

    # ----- presence ----------------------------------------------------------------------------------
    @_guarded
    def touch(self, seen: list[tuple[str, str]], now: _dt.datetime | None = None) -> None:
        """Record that each ``(player id, channel)`` is connected at ``now`` (channel :data:`LOBBY` or a game's
        id)."""
        if not seen:
            return
        now = now or _now()
        rows = [{"user_id": u, "channel": ch[:40], "seen": now} for u, ch in dict.fromkeys(seen)]
        with self.engine.begin() as c:
            stmt = _insert(c, presence).values(rows)
            c.execute(stmt.on_conflict_do_update(index_elements=["user_id", "channel"], set_={"seen": now}))

    @_guarded
    def prune(self, now: _dt.datetime | None = None) -> int:
        """Forget presence older than a day and challenges closed or lapsed more than a day ago (the hour's rate
        limit and the lobby never read them); returns the rows deleted."""
        day = (now or _now()) - _dt.timedelta(days=1)
        with self.engine.begin() as c:
            n = c.execute(delete(presence).where(presence.c.seen < day)).rowcount
            n += c.execute(delete(challenges).where(challenges.c.created < day - CHALLENGE_TTL)).rowcount
        return max(0, n)

    @_guarded
    def seen(self, user_id: str, channel: str) -> _dt.datetime | None:
        """When ``user_id`` was last connected to ``channel``."""
        with self.engine.connect() as c:
            t = c.execute(
                select(presence.c.seen).where(presence.c.user_id == user_id, presence.c.channel == channel)
            ).scalar()
        return _aware(t) if t is not None else None

    @_guarded
    def online(self, now: _dt.datetime | None = None, limit: int = 200) -> list[dict]:
        """Players connected within :data:`PRESENCE_FRESH` of ``now``, by name (then id; by code point):
        ``{"id", "name", "guest", "bot"}``, at most ``limit``. A stable order: the presence rounds rewrite everyone's
        ``seen`` every few seconds, so an order by it would change the list (and the lobby's live deltas) all the
        time."""
        since = (now or _now()) - PRESENCE_FRESH
        fresh = select(presence.c.user_id).where(presence.c.user_id == users.c.id, presence.c.seen >= since).exists()
        q = (
            select(users.c.id, users.c.name, users.c.kind, users.c.bot)
            .where(fresh)
            .order_by(users.c.name, users.c.id)
            .limit(limit)
        )
        with self.engine.connect() as c:
            out = [
                {"id": r.id, "name": r.name, "guest": r.kind == "guest", "bot": bool(r.bot)} for r in c.execute(q).all()
            ]
        return sorted(out, key=lambda u: (u["name"], u["id"]))  # by code point, as the page orders (not collation)

    @_guarded
    def names(self, user_ids: list[str]) -> dict[str, dict]:
        """``{id: {"id", "name", "guest"}}`` of the players among ``user_ids`` that exist."""
        if not user_ids:
            return {}
        q = select(users.c.id, users.c.name, users.c.kind, users.c.bot).where(users.c.id.in_(sorted(set(user_ids))))
        with self.engine.connect() as c:
            return {
                r.id: {"id": r.id, "name": r.name, "guest": r.kind == "guest", "bot": bool(r.bot)}
                for r in c.execute(q).all()
            }

    # ----- blocks ------------------------------------------------------------------------------------
    @_guarded
    def block(self, blocker: str, blocked: str, now: _dt.datetime | None = None) -> bool:
        """``blocker`` blocks ``blocked``; False when it was so already. Their open challenges to each other
        are not withdrawn (they are hidden and refused)."""
        with self.engine.begin() as c:
            stmt = _insert(c, blocks).values(blocker=blocker, blocked=blocked, created=now or _now())
            stmt = stmt.on_conflict_do_nothing(index_elements=["blocker", "blocked"]).returning(blocks.c.blocker)
            return c.execute(stmt).first() is not None

    @_guarded
    def unblock(self, blocker: str, blocked: str) -> bool:
        with self.engine.begin() as c:
            res = c.execute(delete(blocks).where(blocks.c.blocker == blocker, blocks.c.blocked == blocked))
        return res.rowcount == 1

    @_guarded
    def blocked_by(self, blocker: str) -> list[dict]:
        """Whom ``blocker`` blocks: ``{"id", "name", "guest", "bot"}``, most recent first."""
        q = (
            select(users.c.id, users.c.name, users.c.kind, users.c.bot)
            .join(blocks, blocks.c.blocked == users.c.id)
            .where(blocks.c.blocker == blocker)
            .order_by(blocks.c.created.desc())
        )
        with self.engine.connect() as c:
            return [
                {"id": r.id, "name": r.name, "guest": r.kind == "guest", "bot": bool(r.bot)} for r in c.execute(q).all()
            ]

    @_guarded
    def avoided(self, user_ids: list[str]) -> dict[str, set[str]]:
        """For each player id: the players they block or are blocked by (neither sees nor takes the other's
        challenges)."""
        out: dict[str, set[str]] = {u: set() for u in user_ids}
        if not user_ids:
            return out
        q = select(blocks.c.blocker, blocks.c.blocked).where(
            or_(blocks.c.blocker.in_(user_ids), blocks.c.blocked.in_(user_ids))
        )
        with self.engine.connect() as c:
            for r in c.execute(q).all():
                if r.blocker in out:
                    out[r.blocker].add(r.blocked)
                if r.blocked in out:
                    out[r.blocked].add(r.blocker)
        return out

    @staticmethod
    def _avoid(c, a: str, b: str) -> bool:
        q = select(blocks.c.blocker).where(
            or_(and_(blocks.c.blocker == a, blocks.c.blocked == b), and_(blocks.c.blocker == b, blocks.c.blocked == a))
        )
        return c.execute(q.limit(1)).first() is not None

    # ----- challenges --------------------------------------------------------------------------------
    @staticmethod
    def _check_limits(c, owner: str, now: _dt.datetime) -> None:
        open_n = c.execute(
            select(func.count())
            .select_from(challenges)
            .where(
                challenges.c.owner == owner,
                challenges.c.status == "open",
                challenges.c.created > now - CHALLENGE_TTL,
            )
        ).scalar()
        if open_n >= MAX_OPEN:
            raise ChallengeLimit("too_many_open")
        hour = now - _dt.timedelta(hours=1)
        made = c.execute(
            select(challenges.c.created)
            .where(challenges.c.owner == owner, challenges.c.created > hour)
            .order_by(challenges.c.created.desc())
            .limit(MAX_PER_HOUR)
        ).all()
        if len(made) >= MAX_PER_HOUR:
            oldest = _aware(made[-1].created)
            raise ChallengeLimit("too_many_challenges", max(1, int((oldest - hour).total_seconds()) + 1))

    @staticmethod
    def _new_row(owner: str, kind: str, terms: dict, now: _dt.datetime) -> dict:
        return {
            "id": secrets.token_hex(8),
            "owner": owner,
            "kind": kind,
            "game": terms["game"],
            "length": terms["length"],
            "clock": json.dumps(terms["clock"]) if terms["clock"] is not None else None,
            "clock_class": terms["clock_class"],
            "rated": bool(terms["rated"]),
            "rating_min": terms.get("rating_min"),
            "rating_max": terms.get("rating_max"),
            "colour": terms.get("colour", "random"),
            "client_seed": None,  # kept for old rows: a seed is given to the game, after its commitment
            "own_seed": bool(terms.get("own_seed")),
            "to_user": terms.get("to"),
            "status": "open",
            "created": now,
        }

    @_guarded
    def create_challenge(self, owner: str, terms: dict, now: _dt.datetime | None = None) -> Challenge:
        """An open challenge of ``owner`` on ``terms`` (game, length, clock, clock_class, rated, rating_min,
        rating_max, colour, own_seed). Raises :class:`ChallengeLimit`."""
        now = now or _now()
        with self.engine.begin() as c:
            self._check_limits(c, owner, now)
            row = self._new_row(owner, "open", terms, now)
            c.execute(challenges.insert().values(**row))
            return Challenge.of(c.execute(select(challenges).where(challenges.c.id == row["id"])).one())

    @_guarded
    def challenge(self, cid: str) -> Challenge | None:
        with self.engine.connect() as c:
            row = c.execute(select(challenges).where(challenges.c.id == cid)).first()
        return None if row is None else Challenge.of(row)

    @_guarded
    def open_challenges(self, now: _dt.datetime | None = None, limit: int = 200) -> list[Challenge]:
        """Open challenges (not seeks) whose owner is online and which have not lapsed, oldest first."""
        now = now or _now()
        fresh = (
            select(presence.c.user_id)
            .where(presence.c.user_id == challenges.c.owner, presence.c.seen >= now - PRESENCE_FRESH)
            .exists()
        )
        q = (
            select(challenges)
            .where(
                challenges.c.status == "open",
                challenges.c.kind == "open",
                challenges.c.to_user.is_(None),  # a named challenge: only its two players see it (:meth:`mine`)
                challenges.c.created > now - CHALLENGE_TTL,
                fresh,
            )
            .order_by(challenges.c.created, challenges.c.id)
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [Challenge.of(r) for r in c.execute(q).all()]

    @_guarded
    def cancel_challenge(self, cid: str, owner: str, now: _dt.datetime | None = None) -> Challenge | None:
        """Withdraw ``owner``'s challenge or seek ``cid`` (nothing when it is not open any more); returns it,
        ``None`` when ``owner`` has no such challenge."""
        with self.engine.begin() as c:
            c.execute(
                update(challenges)
                .where(challenges.c.id == cid, challenges.c.owner == owner, challenges.c.status == "open")
                .values(status="cancelled", closed=now or _now())
            )
            row = c.execute(select(challenges).where(challenges.c.id == cid, challenges.c.owner == owner)).first()
        return None if row is None else Challenge.of(row)

    @_guarded
    def take_challenge(self, cid: str, taker: str, build, now: _dt.datetime | None = None) -> tuple[Challenge, bool]:
        """``taker`` takes the open challenge ``cid``: ``build(challenge, conn) -> game id`` makes the game on
        the same connection, and the challenge is marked taken, in one transaction. Returns the challenge and
        whether it was taken now (False: ``taker`` had taken it already, its game is ``game_id``: a repeat).

        Raises :class:`ChallengeRefused`: ``no_challenge`` (unknown, withdrawn or lapsed), ``own_challenge``,
        ``challenge_taken`` (by someone else), ``blocked``."""
        now = now or _now()
        with self._pairing, self.engine.begin() as c:
            self._lock_pairing(c)
            row = c.execute(select(challenges).where(challenges.c.id == cid)).first()
            if row is None:
                raise ChallengeRefused("no_challenge")
            ch = Challenge.of(row)
            if ch.status == "accepted":
                if ch.taken_by == taker:
                    return ch, False
                raise ChallengeRefused("challenge_taken")
            if ch.status != "open" or ch.created <= now - CHALLENGE_TTL:
                raise ChallengeRefused("no_challenge")
            if ch.owner == taker:
                raise ChallengeRefused("own_challenge")
            if ch.to is not None and ch.to != taker:  # made to another player: as if it were not there
                raise ChallengeRefused("no_challenge")
            if self._avoid(c, ch.owner, taker):
                raise ChallengeRefused("blocked")
            playing = self._playing(c, taker)
            if playing is not None:
                raise ChallengeRefused("already_playing", playing.game_id)
            if self._playing(c, ch.owner) is not None:  # cannot happen while every pairing withdraws the rest
                c.execute(update(challenges).where(challenges.c.id == ch.id).values(status="cancelled", closed=now))
                raise ChallengeRefused("no_challenge")
            return self._take_in(c, ch, taker, build, now), True

    @staticmethod
    def _lock_pairing(c) -> None:
        """One pairing at a time across processes, to the end of ``c``'s transaction: PostgreSQL's advisory
        lock; SQLite's write lock, taken at once by a write that changes nothing (a pairing that only read
        first would miss a seek stored meanwhile by another process)."""
        if c.dialect.name == "postgresql":
            c.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PAIRING_LOCK})
        else:
            c.execute(update(challenges).where(challenges.c.id == "").values(status="open"))

    @staticmethod
    def _playing(c, user_id: str) -> Challenge | None:
        """The challenge or seek (accepted) whose game ``user_id`` sits at, unfinished (status
        :data:`UNFINISHED`), the newest; ``None`` when they play no game made in the lobby. Read under the
        pairing lock, it is what keeps a player to one game from the lobby at a time (a rated match among
        them): every pairing checks it and withdraws both players' other challenges and seeks."""
        live = c.execute(
            select(games.c.id, games.c.seat0, games.c.seat1)
            .where(
                or_(games.c.seat0 == user_id, games.c.seat1 == user_id),
                games.c.seat0 != games.c.seat1,
                games.c.status.in_(UNFINISHED),
            )
            .limit(100)
        ).all()
        if not live:
            return None
        people = sorted({p for r in live for p in (r.seat0, r.seat1) if p})
        row = c.execute(
            select(challenges)
            .where(
                challenges.c.owner.in_(people),
                challenges.c.game_id.in_([r.id for r in live]),
                challenges.c.status == "accepted",
                or_(challenges.c.owner == user_id, challenges.c.taken_by == user_id),
            )
            .order_by(challenges.c.closed.desc())
            .limit(1)
        ).first()
        return None if row is None else Challenge.of(row)

    @_guarded
    def playing(self, user_id: str) -> Challenge | None:
        """:meth:`_playing` on a connection of its own (``GET /api/lobby/quick``)."""
        with self.engine.connect() as c:
            return self._playing(c, user_id)

    @staticmethod
    def _take_in(c, ch: Challenge, taker: str, build, now: _dt.datetime) -> Challenge:
        res = c.execute(
            update(challenges)
            .where(challenges.c.id == ch.id, challenges.c.status == "open")
            .values(status="accepted", taken_by=taker, closed=now)
        )
        if res.rowcount != 1:  # taken by another process between the read and here
            raise ChallengeRefused("challenge_taken")
        gid = build(ch, c)
        c.execute(update(challenges).where(challenges.c.id == ch.id).values(game_id=gid))
        # the two players are playing now: their other seeks and challenges are withdrawn (no second pairing
        # meanwhile; :meth:`_playing` refuses one anyway)
        c.execute(
            update(challenges)
            .where(challenges.c.owner.in_((ch.owner, taker)), challenges.c.status == "open")
            .values(status="cancelled", closed=now)
        )
        ch.status, ch.taken_by, ch.closed, ch.game_id = "accepted", taker, now, gid
        return ch

    # ----- quick pairing -----------------------------------------------------------------------------
    @_guarded
    def seek(self, user_id: str, now: _dt.datetime | None = None) -> Challenge | None:
        """``user_id``'s quick-pairing seek: the open one, or the one paired within the last few minutes."""
        now = now or _now()
        q = (
            select(challenges)
            .where(
                challenges.c.owner == user_id,
                challenges.c.kind == "quick",
                or_(
                    challenges.c.status == "open",
                    and_(challenges.c.status == "accepted", challenges.c.closed > now - PAIRED_SHOWN),
                ),
            )
            .order_by(challenges.c.created.desc())
            .limit(1)
        )
        with self.engine.connect() as c:
            row = c.execute(q).first()
        return None if row is None else Challenge.of(row)

    @_guarded
    def mine(self, user_ids: list[str], now: _dt.datetime | None = None) -> dict[str, dict]:
        """For many players at once (the lobby's connections): ``{id: {"seek": Challenge | None, "taken":
        Challenge | None}}``, as :meth:`seek` and :meth:`taken` give them, in one query."""
        now = now or _now()
        out: dict[str, dict] = {u: {"seek": None, "taken": None, "named": []} for u in user_ids}
        if not user_ids:
            return out
        for uid, entries in self.named(user_ids, now).items():
            out[uid]["named"] = entries
        q = (
            select(challenges)
            .where(
                challenges.c.owner.in_(user_ids),
                or_(
                    and_(challenges.c.kind == "quick", challenges.c.status == "open"),
                    and_(challenges.c.status == "accepted", challenges.c.closed > now - PAIRED_SHOWN),
                ),
            )
            .order_by(challenges.c.created)
        )
        with self.engine.connect() as c:
            for row in c.execute(q).all():
                ch = Challenge.of(row)
                key = "seek" if ch.kind == "quick" else "taken"
                out[ch.owner][key] = ch  # the newest wins (ordered by creation)
        return out

    @_guarded
    def named(self, user_ids: list[str], now: _dt.datetime | None = None) -> dict[str, list[dict]]:
        """The named challenges each of ``user_ids`` made or was made (``"to"``), open and not lapsed, or
        declined within :data:`PAIRED_SHOWN` (its owner is told), between players neither of whom blocks the
        other, oldest first: ``{id: [challenge's public dict with "owner" and "to" as {"id", "name",
        "guest"}]}``. Nobody else ever sees them (the lobby's shared lists leave them out)."""
        now = now or _now()
        out: dict[str, list[dict]] = {u: [] for u in user_ids}
        if not user_ids:
            return out
        q = (
            select(challenges)
            .where(
                challenges.c.to_user.is_not(None),
                or_(challenges.c.owner.in_(user_ids), challenges.c.to_user.in_(user_ids)),
                challenges.c.created > now - CHALLENGE_TTL,
                or_(
                    challenges.c.status == "open",
                    and_(challenges.c.status == "declined", challenges.c.closed > now - PAIRED_SHOWN),
                ),
            )
            .order_by(challenges.c.created, challenges.c.id)
            .limit(50 * len(user_ids))
        )
        with self.engine.connect() as c:
            chs = [Challenge.of(r) for r in c.execute(q).all()]
        people = sorted({p for ch in chs for p in (ch.owner, ch.to or "")} - {""})
        names = self.names(people)
        avoid = self.avoided(people)
        for ch in chs:
            if ch.to in avoid.get(ch.owner, ()):
                continue
            entry = {**ch.public(), "owner": names.get(ch.owner), "to": names.get(ch.to or "")}
            for uid in (ch.owner, ch.to):
                if uid in out and (ch.status == "open" or uid == ch.owner):
                    out[uid].append(entry)
        return out

    @_guarded
    def decline(self, cid: str, user_id: str, now: _dt.datetime | None = None) -> Challenge | None:
        """``user_id`` declines the open challenge ``cid`` made to them (again: nothing changes); ``None`` when
        no challenge ``cid`` was made to them (whoever else asks is told nothing about it)."""
        with self.engine.begin() as c:
            c.execute(
                update(challenges)
                .where(challenges.c.id == cid, challenges.c.to_user == user_id, challenges.c.status == "open")
                .values(status="declined", closed=now or _now())
            )
            row = c.execute(select(challenges).where(challenges.c.id == cid, challenges.c.to_user == user_id)).first()
        return None if row is None else Challenge.of(row)

    @_guarded
    def taken(self, user_id: str, now: _dt.datetime | None = None) -> Challenge | None:
        """``user_id``'s open challenge accepted within the last few minutes (its page opens the game)."""
        now = now or _now()
        q = (
            select(challenges)
            .where(
                challenges.c.owner == user_id,
                challenges.c.kind == "open",
                challenges.c.status == "accepted",
                challenges.c.closed > now - PAIRED_SHOWN,
            )
            .order_by(challenges.c.closed.desc())
            .limit(1)
        )
        with self.engine.connect() as c:
            row = c.execute(q).first()
        return None if row is None else Challenge.of(row)

    @_guarded
    def quick_pair(
        self, user_id: str, terms: dict, rating: float, build, now: _dt.datetime | None = None
    ) -> tuple[Challenge, bool]:
        """Quick pairing: pair ``user_id`` (rating ``rating`` at these terms) with the longest-waiting seek of
        another online player on the same terms (game, length, clock, rated) whose range takes ``rating`` and
        whose rating ``terms``' range takes, neither blocking the other nor playing a game from the lobby;
        ``build(seek, conn)`` makes the game. Without one, ``user_id``'s own seek is stored (an earlier one on
        the same terms is kept, one on other terms withdrawn). Returns (the seek, paired).

        A player who already plays a game of a quick pairing (its game unfinished) is not paired again: the
        answer is that seek and its game, ``(seek, True)`` (a repeated request, one whose answer was
        lost, two tabs: the same game). Raises :class:`ChallengeLimit` (a new seek over the limits),
        :class:`ChallengeRefused` ``already_playing`` (they play a game of an open challenge)."""
        now = now or _now()
        with self._pairing, self.engine.begin() as c:
            self._lock_pairing(c)
            playing = self._playing(c, user_id)
            if playing is not None:
                if playing.kind == "quick":
                    return playing, True
                raise ChallengeRefused("already_playing", playing.game_id)
            mine = c.execute(
                select(challenges).where(
                    challenges.c.owner == user_id, challenges.c.kind == "quick", challenges.c.status == "open"
                )
            ).all()
            keep = None
            for row in mine:
                ch = Challenge.of(row)
                if keep is None and ch.same_terms(terms):
                    keep = ch
                else:
                    c.execute(update(challenges).where(challenges.c.id == ch.id).values(status="cancelled", closed=now))
            fresh = (
                select(presence.c.user_id)
                .where(presence.c.user_id == challenges.c.owner, presence.c.seen >= now - PRESENCE_FRESH)
                .exists()
            )
            clock = json.dumps(terms["clock"]) if terms["clock"] is not None else None
            # a rated pairing within one rating pool only (issue 44: bots of the pool "bots" apart from people)
            pool = select(users.c.pool).where(users.c.id == user_id).scalar_subquery()
            same_pool = select(users.c.id).where(users.c.id == challenges.c.owner, users.c.pool == pool).exists()
            q = (
                select(challenges)
                .where(
                    challenges.c.kind == "quick",
                    challenges.c.status == "open",
                    challenges.c.owner != user_id,
                    challenges.c.game == terms["game"],
                    challenges.c.length == terms["length"],
                    (challenges.c.clock == clock) if clock is not None else challenges.c.clock.is_(None),
                    challenges.c.rated == bool(terms["rated"]),
                    challenges.c.created > now - CHALLENGE_TTL,
                    fresh,
                    same_pool if terms["rated"] else true(),
                )
                .order_by(challenges.c.created)
                .limit(50)
            )
            lo, hi = terms.get("rating_min"), terms.get("rating_max")
            for row in c.execute(q).all():
                other = Challenge.of(row)
                if other.rating_min is not None and rating < other.rating_min:
                    continue
                if other.rating_max is not None and rating > other.rating_max:
                    continue
                theirs = self._rating_in(c, other.owner, other.game, other.clock_class)[0].rating
                if (lo is not None and theirs < lo) or (hi is not None and theirs > hi):
                    continue
                if self._avoid(c, other.owner, user_id):
                    continue
                if self._playing(c, other.owner) is not None:  # cannot happen while pairings withdraw the rest
                    c.execute(
                        update(challenges).where(challenges.c.id == other.id).values(status="cancelled", closed=now)
                    )
                    continue
                return self._take_in(c, other, user_id, build, now), True
            if keep is not None:
                return keep, False
            self._check_limits(c, user_id, now)
            new = self._new_row(user_id, "quick", terms, now)
            c.execute(challenges.insert().values(**new))
            seek = Challenge.of(c.execute(select(challenges).where(challenges.c.id == new["id"])).one())
            return seek, False

    # ----- games -------------------------------------------------------------------------------------
    @_guarded
    def live_games(self, limit: int = 50) -> list[dict]:
        """Online games open to watchers and being played, the most recently begun first: ``{"id", "game",
        "title", "players", "length", "score", "status", "winner", "rated", "started"}`` (``started``: ISO 8601,
        UTC). Ordered by when they began, not by their last move, so the list changes when a game begins or
        ends (or its score), not with every move."""
        q = (
            select(games.c.id, games.c.game, games.c.title, games.c.summary, games.c.created)
            .where(games.c.visibility == "public", games.c.status.in_(("playing", "game-over")))
            .order_by(games.c.created.desc(), games.c.id)
            .limit(limit)
        )
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [{**_game_row(r), "started": _utc(r.created)} for r in rows]


def _utc(t: _dt.datetime) -> str:
    """ISO 8601 in UTC (``+00:00``): strings of one form, so the page may order by them as text."""
    return _aware(t).astimezone(_dt.UTC).isoformat()


def _game_row(r) -> dict:
    s = json.loads(r.summary or "{}")
    return {
        "id": r.id,
        "game": r.game,
        "title": r.title,
        "players": s.get("players"),
        "length": s.get("length"),
        "score": s.get("score"),
        "status": s.get("status"),
        "winner": s.get("winner"),
        "rated": bool(s.get("rated")),
    }


def community(app) -> Community:
    """The app's :class:`Community` (made on first use, kept on ``app.state.community``)."""
    c = getattr(app.state, "community", None)
    if c is None:
        c = app.state.community = Community(app.state.storage)
    return c

"""Chat's tables (revision 0009): the messages of each game's two channels and of the lobby, mutes, reports.

* :class:`ChatBook`: ``post`` (stored before it is acknowledged; idempotent by the sender's ``key``; the rate limit
  counted in the process (:class:`RateBook`), the cap per game checked, the row inserted and the other processes
  notified in one statement of one transaction on PostgreSQL), ``messages`` (a room's channels after a ``seq``, without
  the senders the reader mutes, blocks or is blocked by), ``hidden_from`` (who of some readers must not be sent a
  sender's message), ``mute``/``unmute``/``mutes``, ``report``/``reports``.

The rows are the database's, so every server process on one PostgreSQL sees the same chat; a new message reaches
the live connections of the other processes through a notification (:mod:`nardy.web.services.chat`).
"""

from __future__ import annotations

import collections
import datetime as _dt
import json
import math
import secrets
import threading

from sqlalchemy import (
    Column,
    DateTime,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    delete,
    func,
    select,
    union_all,
)
from sqlalchemy.exc import IntegrityError

from .community import blocks
from .db import NOTIFY_CHANNEL, _aware, _guarded, _now, metadata, pg_rows, users
from .ratingbook import insert_of
from .storage import Storage

__all__ = [
    "ChatBook",
    "ChatLimit",
    "RateBook",
    "notice_key",
    "chat_messages",
    "chat_mutes",
    "chat_reports",
    "RATE_COUNT",
    "RATE_WINDOW",
    "MAX_PER_GAME",
    "MAX_LOBBY_KEPT",
]

chat_messages = Table(
    "nardy_chat_messages",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("room", String(32), nullable=False),
    Column("channel", String(8), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("sender", String(32), nullable=False),
    Column("text", Text, nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("client_key", String(64), nullable=True),
    UniqueConstraint("room", "seq", name="uq_nardy_chat_room_seq"),
    UniqueConstraint("sender", "room", "client_key", name="uq_nardy_chat_client_key"),
)
Index("ix_nardy_chat_sender_created", chat_messages.c.sender, chat_messages.c.created)

chat_mutes = Table(
    "nardy_chat_mutes",
    metadata,
    Column("muter", String(32), primary_key=True),
    Column("muted", String(32), primary_key=True),
    Column("created", DateTime(timezone=True), nullable=False),
)

chat_reports = Table(
    "nardy_chat_reports",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("message_id", String(32), nullable=False, index=True),
    Column("reporter", String(32), nullable=False),
    Column("reason", String(200), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    UniqueConstraint("message_id", "reporter", name="uq_nardy_chat_report"),
)

#: A player sends at most :data:`RATE_COUNT` messages a :data:`RATE_WINDOW` to one channel of one room (429 beyond).
RATE_COUNT = 5
RATE_WINDOW = _dt.timedelta(seconds=10)
#: Messages a game keeps (both channels together): one more is refused (409 ``chat_full``).
MAX_PER_GAME = 1000
#: Messages the lobby keeps: the oldest are deleted as new ones come.
MAX_LOBBY_KEPT = 500
LOBBY = ":lobby"


class ChatLimit(Exception):
    """A message refused by a limit: ``kind`` ``rate`` (``retry_after`` seconds) or ``full`` (the game's cap)."""

    def __init__(self, kind: str, retry_after: int = 0):
        super().__init__(kind)
        self.kind = kind
        self.retry_after = retry_after


class RateBook:
    """The rate limit's counts, kept by this process: the times of each ``(sender, room, channel)``'s messages in
    the last :data:`RATE_WINDOW` (thread-safe; the keys of senders quiet for a window are dropped now and then).

    With several server processes each counts the messages posted to it, so a player whose requests are spread over
    ``n`` processes may send up to ``n`` times :data:`RATE_COUNT` a window (2 processes: 10 in 10 s): the limit is
    against floods, and a database count per message cost more than the messages themselves (docs/online.md)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._times: dict[tuple[str, str, str], collections.deque[float]] = {}
        self._swept = 0.0

    def take(self, key: tuple[str, str, str], now: float) -> int:
        """Count a message of ``key`` at ``now`` (seconds) and return 0, or, when :data:`RATE_COUNT` were sent in
        the window already, count nothing and return the seconds to wait (1 at least)."""
        window = RATE_WINDOW.total_seconds()
        with self._lock:
            if now - self._swept > window:
                self._sweep(now - window)
                self._swept = now
            times = self._times.setdefault(key, collections.deque())
            while times and times[0] <= now - window:
                times.popleft()
            if len(times) >= RATE_COUNT:
                return max(1, math.ceil(times[-RATE_COUNT] + window - now))
            times.append(now)
            return 0

    def give_back(self, key: tuple[str, str, str], now: float) -> None:
        """Uncount the message of ``key`` counted at ``now`` (it was not stored)."""
        with self._lock:
            times = self._times.get(key)
            if times and now in times:
                times.remove(now)

    def _sweep(self, before: float) -> None:
        for key in [k for k, t in self._times.items() if not t or t[-1] <= before]:
            del self._times[key]


#: One message on PostgreSQL: its seq numbered (the room's last + 1) under the game's cap and the row inserted, in
#: one statement; nothing returned when it was not stored (a clash on the seq or the sender's key, or the cap).
_PG_POST_INSERT = """
WITH top AS (SELECT coalesce(max(seq), 0) AS s FROM nardy_chat_messages WHERE room = %(room)s),
ins AS (
    INSERT INTO nardy_chat_messages (id, room, channel, seq, sender, text, created, client_key)
    SELECT %(id)s, %(room)s, %(channel)s, top.s + 1, %(sender)s, %(text)s, %(created)s, %(client_key)s
    FROM top WHERE top.s < %(cap)s
    ON CONFLICT DO NOTHING
    RETURNING seq
)"""
_PG_POST = _PG_POST_INSERT + " SELECT seq FROM ins"
#: The same, and the notification to the other processes (sent at the commit).
_PG_POST_NOTIFY = (
    _PG_POST_INSERT + " SELECT seq, pg_notify(%(channel_name)s, %(head)s::text || seq::text || %(tail)s::text) FROM ins"
)


def notice_key(key: str) -> tuple[str, str, dict] | None:
    """The ``(room, notice, message)`` of a ``chat`` notification's key sent by :meth:`ChatBook.post`, its seq put
    back in the message; ``None`` when it is not one."""
    try:
        room, notice, seq, body = key.split(" ", 3)
        message = json.loads(body)
        n = int(seq)
    except ValueError:
        return None
    if not room or not isinstance(message, dict) or not isinstance(message.get("from"), dict):
        return None
    return room, notice, {"id": message.get("id"), "seq": n, **{k: v for k, v in message.items() if k != "id"}}


def _utc(t: _dt.datetime) -> str:
    return _aware(t).astimezone(_dt.UTC).isoformat().replace("+00:00", "Z")


class _Row:
    """A row just inserted, read as a result row is (attributes)."""

    def __init__(self, values: dict):
        self.__dict__.update(values)


def _message(r, name: str | None) -> dict:
    return {
        "id": r.id,
        "seq": r.seq,
        "from": {"id": r.sender, "name": name or "?"},
        "text": r.text,
        "at": _utc(r.created),
        "channel": r.channel,
    }


class ChatBook:
    """Chat's rows of one database (see the module docstring)."""

    def __init__(self, storage: Storage):
        self.storage = storage
        self.engine = storage.engine
        #: the rate limit's counts of this process (:class:`RateBook`)
        self.rate = RateBook()

    def _safe_url(self) -> str:  # for _guarded's log line
        return self.storage.safe_url

    @_guarded
    def post(
        self,
        room: str,
        channel: str,
        sender: str,
        text: str,
        key: str | None = None,
        now: _dt.datetime | None = None,
        name: str | None = None,
        notice: str | None = None,
    ) -> tuple[dict, bool]:
        """Store ``sender``'s message ``text`` (checked already) in ``room``'s ``channel``; returns ``(message,
        new)``: a message with the same ``key`` from the same sender in the room is returned as stored
        (``new`` False). Raises :class:`ChatLimit` (``rate``: :data:`RATE_COUNT` in :data:`RATE_WINDOW` already,
        counted by this process: :class:`RateBook`; ``full``: a game's :data:`MAX_PER_GAME`). ``name``: the
        sender's name (else read).

        ``notice`` (PostgreSQL): a notification of kind ``chat`` with the key ``"<room> <notice> <seq> <message
        JSON without its seq>"`` is sent in the same statement, so with the commit (:func:`notice_key` reads it
        back). On PostgreSQL the whole message is one statement in one transaction (its seq numbered, the cap
        checked, the row inserted, the notification sent); two processes numbering at once: the loser of the
        unique ``(room, seq)`` tries again."""
        now_t = now or _now()
        wait = self.rate.take((sender, room, channel), now_t.timestamp())
        if wait:
            old = self._by_key(room, sender, key) if key is not None else None
            if old is not None:
                return old, False
            raise ChatLimit("rate", wait)
        try:
            out = self._store(room, channel, sender, text, key, now_t, name, notice)
        except BaseException:
            self.rate.give_back((sender, room, channel), now_t.timestamp())
            raise
        if not out[1]:
            self.rate.give_back((sender, room, channel), now_t.timestamp())
        return out

    def _by_key(self, room: str, sender: str, key: str) -> dict | None:
        m = chat_messages
        with self.storage.autocommit.connect() as c:
            old = c.execute(select(m).where(m.c.sender == sender, m.c.room == room, m.c.client_key == key)).first()
            return _message(old, self._name(c, sender)) if old is not None else None

    def _store(self, room, channel, sender, text, key, now_t, name, notice) -> tuple[dict, bool]:
        row = {
            "id": secrets.token_hex(8),
            "room": room,
            "channel": channel,
            "seq": 0,
            "sender": sender,
            "text": text,
            "created": now_t,
            "client_key": key,
        }
        cap = MAX_PER_GAME if room != LOBBY else 2**31 - 1
        pg = self.engine.dialect.name == "postgresql"
        if name is None:
            with self.storage.autocommit.connect() as c:
                name = self._name(c, sender)
        for _ in range(8):
            try:
                with self.engine.begin() as c:
                    seq = self._insert_pg(c, row, cap, name, notice) if pg else self._insert(c, row, cap)
                    if seq is not None:
                        row["seq"] = seq
                        if room == LOBBY and seq > MAX_LOBBY_KEPT:
                            c.execute(
                                delete(chat_messages).where(
                                    chat_messages.c.room == LOBBY, chat_messages.c.seq <= seq - MAX_LOBBY_KEPT
                                )
                            )
                        return _message(_Row(row), name), True
            except IntegrityError:
                pass  # (SQLite) the key's message is stored already, or another writer took this seq
            # nothing stored: a resend of a stored key, the game's cap, or another writer took this seq
            old = self._by_key(room, sender, key) if key is not None else None
            if old is not None:
                return old, False
            with self.storage.autocommit.connect() as c:
                top = c.execute(select(func.max(chat_messages.c.seq)).where(chat_messages.c.room == room)).scalar()
            if (top or 0) >= cap:
                raise ChatLimit("full")
        raise ChatLimit("rate", 1)

    def _insert_pg(self, c, row: dict, cap: int, name: str | None, notice: str | None) -> int | None:
        params = {**row, "cap": cap}
        sql = _PG_POST
        if notice is not None:
            body = {k: v for k, v in _message(_Row(row), name).items() if k != "seq"}
            params["channel_name"] = NOTIFY_CHANNEL
            params["head"] = f"chat {self.storage.origin} {row['room']} {notice} "
            params["tail"] = " " + json.dumps(body, ensure_ascii=False, separators=(",", ":"))
            sql = _PG_POST_NOTIFY
        rows = pg_rows(c, sql, params, self.storage.on_raw)
        return rows[0][0] if rows else None

    @staticmethod
    def _insert(c, row: dict, cap: int) -> int | None:
        top = c.execute(select(func.max(chat_messages.c.seq)).where(chat_messages.c.room == row["room"])).scalar()
        if (top or 0) >= cap:
            return None
        c.execute(chat_messages.insert().values({**row, "seq": (top or 0) + 1}))
        return (top or 0) + 1

    @staticmethod
    def _name(c, uid: str) -> str | None:
        return c.execute(select(users.c.name).where(users.c.id == uid)).scalar()

    @_guarded
    def messages(
        self, room: str, channels: list[str], reader: str | None, after: int = 0, limit: int = 200
    ) -> list[dict]:
        """``room``'s messages in ``channels`` with ``seq > after``, oldest first, at most ``limit``; without the
        senders ``reader`` mutes, blocks, or is blocked by."""
        m = chat_messages
        q = (
            select(m, users.c.name)
            .join(users, users.c.id == m.c.sender, isouter=True)
            .where(m.c.room == room, m.c.channel.in_(channels), m.c.seq > after)
            .order_by(m.c.seq)
            .limit(limit)
        )
        if reader is not None:
            q = q.where(
                ~m.c.sender.in_(select(chat_mutes.c.muted).where(chat_mutes.c.muter == reader)),
                ~m.c.sender.in_(select(blocks.c.blocked).where(blocks.c.blocker == reader)),
                ~m.c.sender.in_(select(blocks.c.blocker).where(blocks.c.blocked == reader)),
            )
        with self.engine.connect() as c:
            return [_message(r, r.name) for r in c.execute(q).all()]

    @_guarded
    def message(self, mid: str) -> dict | None:
        """The stored message ``mid`` with its ``room`` (``None``: none)."""
        with self.engine.connect() as c:
            r = c.execute(select(chat_messages).where(chat_messages.c.id == mid)).first()
            if r is None:
                return None
            return {**_message(r, self._name(c, r.sender)), "room": r.room}

    @_guarded
    def hidden_from(self, sender: str, readers: list[str]) -> set[str]:
        """Those of ``readers`` who mute ``sender``, block them, or are blocked by them (not sent their message):
        one query."""
        readers = sorted({r for r in readers if r and r != sender})
        if not readers:
            return set()
        q = union_all(
            select(chat_mutes.c.muter.label("who")).where(
                chat_mutes.c.muted == sender, chat_mutes.c.muter.in_(readers)
            ),
            select(blocks.c.blocked.label("who")).where(blocks.c.blocker == sender, blocks.c.blocked.in_(readers)),
            select(blocks.c.blocker.label("who")).where(blocks.c.blocked == sender, blocks.c.blocker.in_(readers)),
        )
        with self.storage.autocommit.connect() as c:  # one statement, no BEGIN/ROLLBACK round trips
            out = set(c.execute(q).scalars())
        return out

    @_guarded
    def mute(self, muter: str, muted: str, now: _dt.datetime | None = None) -> bool:
        """``muter`` mutes ``muted``; False when so already."""
        with self.engine.begin() as c:
            stmt = insert_of(c, chat_mutes).values(muter=muter, muted=muted, created=now or _now())
            stmt = stmt.on_conflict_do_nothing(index_elements=["muter", "muted"]).returning(chat_mutes.c.muter)
            return c.execute(stmt).first() is not None

    @_guarded
    def unmute(self, muter: str, muted: str) -> bool:
        """``muter`` hears ``muted`` again; False when they were not muted."""
        with self.engine.begin() as c:
            res = c.execute(delete(chat_mutes).where(chat_mutes.c.muter == muter, chat_mutes.c.muted == muted))
        return res.rowcount == 1

    @_guarded
    def mutes(self, muter: str) -> list[dict]:
        """Whom ``muter`` mutes: ``{"id", "name"}``, most recent first."""
        q = (
            select(users.c.id, users.c.name)
            .join(chat_mutes, chat_mutes.c.muted == users.c.id)
            .where(chat_mutes.c.muter == muter)
            .order_by(chat_mutes.c.created.desc())
        )
        with self.engine.connect() as c:
            return [{"id": r.id, "name": r.name} for r in c.execute(q).all()]

    @_guarded
    def report(self, mid: str, reporter: str, reason: str, now: _dt.datetime | None = None) -> tuple[dict, bool]:
        """Store ``reporter``'s report of message ``mid``; returns ``(report, new)`` (one report a message and
        reporter: a second is answered with the first)."""
        with self.engine.begin() as c:
            row = {
                "id": secrets.token_hex(8),
                "message_id": mid,
                "reporter": reporter,
                "reason": reason,
                "created": now or _now(),
            }
            stmt = insert_of(c, chat_reports).values(row)
            stmt = stmt.on_conflict_do_nothing(index_elements=["message_id", "reporter"]).returning(chat_reports.c.id)
            new = c.execute(stmt).first() is not None
            r = c.execute(
                select(chat_reports).where(chat_reports.c.message_id == mid, chat_reports.c.reporter == reporter)
            ).one()
        return {"id": r.id, "message_id": r.message_id, "reason": r.reason, "at": _utc(r.created)}, new

    @_guarded
    def reports(self, limit: int = 200) -> list[dict]:
        """The stored reports, newest first, with their messages (for a moderator: ``nardy`` has no admin role
        on the web, so these are read from the database; docs/security.md)."""
        q = (
            select(chat_reports, chat_messages.c.text, chat_messages.c.sender, chat_messages.c.room)
            .join(chat_messages, chat_messages.c.id == chat_reports.c.message_id, isouter=True)
            .order_by(chat_reports.c.created.desc())
            .limit(limit)
        )
        with self.engine.connect() as c:
            return [
                {
                    "id": r.id,
                    "message_id": r.message_id,
                    "reporter": r.reporter,
                    "reason": r.reason,
                    "at": _utc(r.created),
                    "text": r.text,
                    "sender": r.sender,
                    "room": r.room,
                }
                for r in c.execute(q).all()
            ]


def chat_book(app) -> ChatBook:
    """The app's :class:`ChatBook` (made on first use, kept on ``app.state.chat_book``)."""
    b = getattr(app.state, "chat_book", None)
    if b is None:
        b = app.state.chat_book = ChatBook(app.state.storage)
    return b

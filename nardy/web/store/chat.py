"""Chat's tables (revision 0009): the messages of each game's two channels and of the lobby, mutes, reports.

* :class:`ChatBook`: ``post`` (stored before it is acknowledged; idempotent by the sender's ``key``; the rate limit
  and the cap per game checked in the same unit of work), ``messages`` (a room's channels after a ``seq``, without
  the senders the reader mutes, blocks or is blocked by), ``hidden_from`` (who of some readers must not be sent a
  sender's message), ``mute``/``unmute``/``mutes``, ``report``/``reports``.

The rows are the database's, so every server process on one PostgreSQL sees the same chat; a new message reaches
the live connections of the other processes through a notification (:mod:`nardy.web.services.chat`).
"""

from __future__ import annotations

import datetime as _dt
import math
import secrets

from sqlalchemy import (
    Column,
    DateTime,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    and_,
    delete,
    func,
    or_,
    select,
)
from sqlalchemy.exc import IntegrityError

from .community import blocks
from .db import _aware, _guarded, _now, metadata, users
from .ratingbook import insert_of
from .storage import Storage

__all__ = [
    "ChatBook",
    "ChatLimit",
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
    ) -> tuple[dict, bool]:
        """Store ``sender``'s message ``text`` (checked already) in ``room``'s ``channel``; returns ``(message,
        new)``: a message with the same ``key`` from the same sender in the room is returned as stored
        (``new`` False). Raises :class:`ChatLimit` (``rate``: :data:`RATE_COUNT` in :data:`RATE_WINDOW` already;
        ``full``: a game's :data:`MAX_PER_GAME`). ``name``: the sender's name (else read). Two processes numbering at
        once: the loser of the unique ``(room, seq)`` tries again."""
        for _ in range(8):
            now_t = now or _now()
            try:
                with self.engine.begin() as c:
                    if key is not None:
                        old = c.execute(
                            select(chat_messages).where(
                                chat_messages.c.sender == sender,
                                chat_messages.c.room == room,
                                chat_messages.c.client_key == key,
                            )
                        ).first()
                        if old is not None:
                            return _message(old, self._name(c, sender)), False
                    recent = (
                        c.execute(
                            select(chat_messages.c.created)
                            .where(
                                chat_messages.c.sender == sender,
                                chat_messages.c.room == room,
                                chat_messages.c.channel == channel,
                                chat_messages.c.created > now_t - RATE_WINDOW,
                            )
                            .order_by(chat_messages.c.created)
                        )
                        .scalars()
                        .all()
                    )
                    if len(recent) >= RATE_COUNT:
                        oldest = _aware(recent[-RATE_COUNT])
                        wait = (oldest + RATE_WINDOW - now_t).total_seconds()
                        raise ChatLimit("rate", max(1, math.ceil(wait)))
                    top, count = c.execute(
                        select(func.max(chat_messages.c.seq), func.count()).where(chat_messages.c.room == room)
                    ).one()
                    if room != LOBBY and (count or 0) >= MAX_PER_GAME:
                        raise ChatLimit("full")
                    seq = (top or 0) + 1
                    row = {
                        "id": secrets.token_hex(8),
                        "room": room,
                        "channel": channel,
                        "seq": seq,
                        "sender": sender,
                        "text": text,
                        "created": now_t,
                        "client_key": key,
                    }
                    c.execute(chat_messages.insert().values(row))
                    if room == LOBBY and seq > MAX_LOBBY_KEPT:
                        c.execute(
                            delete(chat_messages).where(
                                chat_messages.c.room == LOBBY, chat_messages.c.seq <= seq - MAX_LOBBY_KEPT
                            )
                        )
                    return _message(_Row(row), name or self._name(c, sender)), True
            except IntegrityError:
                continue  # another writer took this seq (or this key) meanwhile: read again
        raise ChatLimit("rate", 1)

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
        """Those of ``readers`` who mute ``sender``, block them, or are blocked by them (not sent their message)."""
        readers = sorted({r for r in readers if r and r != sender})
        if not readers:
            return set()
        with self.engine.connect() as c:
            out = set(
                c.execute(
                    select(chat_mutes.c.muter).where(chat_mutes.c.muted == sender, chat_mutes.c.muter.in_(readers))
                ).scalars()
            )
            for r in c.execute(
                select(blocks.c.blocker, blocks.c.blocked).where(
                    or_(
                        and_(blocks.c.blocker == sender, blocks.c.blocked.in_(readers)),
                        and_(blocks.c.blocked == sender, blocks.c.blocker.in_(readers)),
                    )
                )
            ):
                out.add(r.blocked if r.blocker == sender else r.blocker)
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

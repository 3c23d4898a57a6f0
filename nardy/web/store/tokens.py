"""API tokens (schema revision 0011, issue 44): a program acts for its account with ``Authorization: Bearer``.

A token is ``nardy_`` and 43 random URL-safe characters (256 bits); it is shown once, when it is made, and the
database keeps only its sha256 (hex), so a copy of the database opens nothing. Each has a name (1-40
characters), scopes (``play``, ``read``), when it was made and last used (brought up to date at most once a
minute), and when it was revoked (a revoked token is kept, refused, and no longer listed).

Every method is one short transaction and raises :class:`~nardy.web.store.db.StorageUnavailable` when the database
fails. A revocation tells the other server processes (``NOTIFY auth t:<hash>``: they forget the token at once,
as a logout's session: :class:`nardy.web.routers.auth.SessionCache`).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import Column, DateTime, Index, String, Table, func, select, update

from .db import _aware, _guarded, _now, metadata, users
from .logins import Login
from .users import UserRows

__all__ = [
    "ApiTokens",
    "ApiToken",
    "TokenLogin",
    "TokenLimit",
    "api_tokens",
    "tokens_of",
    "token_hash",
    "SCOPES",
    "PREFIX",
    "MAX_TOKENS",
]

#: What a token may do: ``read`` (GET requests and streams), ``play`` (everything else).
SCOPES = ("play", "read")
#: Every token starts with it (so a leaked one is easy to recognise and search for).
PREFIX = "nardy_"
#: Tokens an account holds at most (revoked ones not counted).
MAX_TOKENS = 20

api_tokens = Table(
    "nardy_api_tokens",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("user_id", String(32), nullable=False),
    Column("name", String(40), nullable=False),
    Column("hash", String(64), nullable=False, unique=True),
    Column("scopes", String(40), nullable=False),
    Column("created", DateTime(timezone=True), nullable=False),
    Column("last_used", DateTime(timezone=True), nullable=True),
    Column("revoked", DateTime(timezone=True), nullable=True),
)
Index("ix_nardy_api_tokens_user_id", api_tokens.c.user_id)


def token_hash(token: str) -> str:
    """The sha256 (hex) of ``token``: what the database keeps."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class TokenLimit(Exception):
    """The account holds :data:`MAX_TOKENS` tokens already."""


@dataclass
class ApiToken:
    """A token as listed: no secret (``token`` only right after :meth:`ApiTokens.create`)."""

    id: str
    name: str
    scopes: tuple[str, ...]
    created: _dt.datetime
    last_used: _dt.datetime | None = None
    token: str | None = None

    def public(self) -> dict:
        """``{"id", "name", "scopes", "created", "last_used"}`` (ISO times, UTC), with ``token`` when just made."""
        out = {
            "id": self.id,
            "name": self.name,
            "scopes": list(self.scopes),
            "created": self.created.isoformat(),
            "last_used": self.last_used.isoformat() if self.last_used else None,
        }
        return ({"token": self.token} | out) if self.token else out


@dataclass
class TokenLogin(Login):
    """A request made with a token: its user, the token's id and scopes (``csrf`` is empty: none is needed)."""

    token_id: str = ""
    scopes: frozenset[str] = frozenset()


def _scopes(text: str) -> tuple[str, ...]:
    return tuple(s for s in SCOPES if s in text.split())


class ApiTokens:
    """The API tokens on the database of a :class:`~nardy.web.store.storage.Storage`."""

    def __init__(self, storage):
        self.storage = storage
        self.engine = storage.engine

    def _safe_url(self) -> str:  # for _guarded's log line
        return self.storage.safe_url

    @_guarded
    def create(self, user_id: str, name: str, scopes: tuple[str, ...], now: _dt.datetime | None = None) -> ApiToken:
        """A new token of ``user_id`` (``name`` as given: the caller checks it; ``scopes`` among :data:`SCOPES`);
        its ``token`` is the secret, never stored. Raises TokenLimit: :data:`MAX_TOKENS` held already."""
        now = now or _now()
        token = PREFIX + secrets.token_urlsafe(32)
        tid = secrets.token_hex(8)
        kept = tuple(s for s in SCOPES if s in scopes)
        with self.engine.begin() as c:
            held = c.execute(
                select(func.count())
                .select_from(api_tokens)
                .where(api_tokens.c.user_id == user_id, api_tokens.c.revoked.is_(None))
            ).scalar_one()
            if held >= MAX_TOKENS:
                raise TokenLimit(user_id)
            c.execute(
                api_tokens.insert().values(
                    id=tid, user_id=user_id, name=name, hash=token_hash(token), scopes=" ".join(kept), created=now
                )
            )
        return ApiToken(tid, name, kept, now, None, token)

    @_guarded
    def list(self, user_id: str) -> list[ApiToken]:
        """``user_id``'s tokens not revoked, oldest first."""
        q = (
            select(api_tokens)
            .where(api_tokens.c.user_id == user_id, api_tokens.c.revoked.is_(None))
            .order_by(api_tokens.c.created, api_tokens.c.id)
        )
        with self.engine.connect() as c:
            rows = c.execute(q).all()
        return [
            ApiToken(r.id, r.name, _scopes(r.scopes), _aware(r.created), _aware(r.last_used) if r.last_used else None)
            for r in rows
        ]

    @_guarded
    def revoke(self, user_id: str, token_id: str, now: _dt.datetime | None = None) -> str | None:
        """Revoke ``user_id``'s token ``token_id`` (every server process forgets it at once: ``NOTIFY auth
        t:<hash>``); its hash, ``None`` when the account has no such token not yet revoked."""
        with self.engine.begin() as c:
            th = c.execute(
                select(api_tokens.c.hash).where(
                    api_tokens.c.id == token_id, api_tokens.c.user_id == user_id, api_tokens.c.revoked.is_(None)
                )
            ).scalar()
            if th is None:
                return None
            c.execute(update(api_tokens).where(api_tokens.c.id == token_id).values(revoked=now or _now()))
            self.storage._notify(c, "auth", "t:" + th)
        return th

    @_guarded
    def login(self, token: str, now: _dt.datetime | None = None) -> TokenLogin | None:
        """The request's login of bearer token ``token``: its user, id and scopes; ``None`` for an unknown or
        revoked token (or one of no user). ``last_used`` is brought up to ``now`` when a minute old or more."""
        if not token.startswith(PREFIX) or len(token) > 100:
            return None
        now = now or _now()
        th = token_hash(token)
        q = (
            select(
                api_tokens.c.id.label("token_id"),
                api_tokens.c.scopes,
                api_tokens.c.revoked,
                api_tokens.c.last_used,
                users,
            )
            .join(users, users.c.id == api_tokens.c.user_id)
            .where(api_tokens.c.hash == th)
        )
        with self.storage.autocommit.connect() as c:
            row = c.execute(q).first()
        if row is None or row.revoked is not None:
            return None
        if row.last_used is None or now - _aware(row.last_used) >= _dt.timedelta(minutes=1):
            with self.engine.begin() as c:
                c.execute(update(api_tokens).where(api_tokens.c.id == row.token_id).values(last_used=now))
        user = UserRows._user(row)
        # a token lasts until revoked: the login's end is only how long a process may keep it (SessionCache)
        return TokenLogin(user, "", now + _dt.timedelta(days=1), row.token_id, frozenset(_scopes(row.scopes)))


def tokens_of(storage) -> ApiTokens:
    """The :class:`ApiTokens` of ``storage`` (made once, kept on it)."""
    found = getattr(storage, "_api_tokens", None)
    if found is None:
        found = storage._api_tokens = ApiTokens(storage)
    return found

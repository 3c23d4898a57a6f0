"""Logins' rows (log-in sessions: table ``nardy_sessions``): the cookie token's hash, the CSRF token, when
it ends.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy import (
    delete,
    select,
    update,
)

from .db import _aware, _guarded, _now, auth_sessions, users
from .users import User


@dataclass
class Login:
    """A valid login (a log-in session; ``AuthSession`` before issue 42): its user, the CSRF token requests
    must send, when it ends (UTC)."""

    user: User
    csrf: str
    expires: _dt.datetime


@dataclass
class NewLogin:
    """A login just made (``NewSession`` before issue 42): ``token`` goes in the cookie (the database keeps
    only its sha256), ``csrf`` is the token unsafe requests must send, ``expires`` when it ends (UTC)."""

    token: str
    csrf: str
    expires: _dt.datetime


#: The names of :class:`Login` and :class:`NewLogin` before issue 42 (kept one release).
AuthSession = Login
NewSession = NewLogin


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_hash(token: str) -> str:
    """What the database keeps of a log-in session's cookie token (its sha256, hex), and what names the session
    in the ``auth`` notifications (:meth:`Storage.delete_session`)."""
    return _token_hash(token)


class LoginRows:
    """The logins of a :class:`~nardy.web.store.storage.Storage` (a part of it)."""

    # ----- log-in sessions -------------------------------------------------------------------------------
    @_guarded
    def create_session(
        self, user_id: str, lifetime: _dt.timedelta = _dt.timedelta(days=30), now: _dt.datetime | None = None
    ) -> NewLogin:
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
        return NewLogin(token, csrf, expires)

    @_guarded
    def session_user(self, token: str, now: _dt.datetime | None = None) -> Login | None:
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
        return Login(self._user(row), row.csrf, _aware(row.expires))

    @_guarded
    def delete_session(self, token: str) -> bool:
        """End the session of the cookie token ``token``; ``False`` when there was none."""
        th = _token_hash(token)
        with self.engine.begin() as c:
            res = c.execute(delete(auth_sessions).where(auth_sessions.c.token_hash == th))
            # the other server processes forget the session at once (their caches: nardy.web.routers.auth.SessionCache)
            self._notify(c, "auth", "t:" + th)
        return res.rowcount == 1

"""Users' rows: guests (a name) and accounts (a unique name and a password hash)."""

from __future__ import annotations

import datetime as _dt
import secrets
import unicodedata
from dataclasses import dataclass, field

from sqlalchemy import (
    select,
    update,
)
from sqlalchemy.exc import IntegrityError

from ..names import name_look
from .db import _aware, _guarded, _now, users


class NameTaken(ValueError):
    """An account already has this name (names of accounts are unique by :func:`name_key`)."""


@dataclass
class User:
    """A guest (``kind == "guest"``: a name, no password) or an account (a unique name and a password).

    ``password_hash`` is the argon2 hash (``None`` for a guest); it is left out of ``repr``."""

    id: str
    name: str
    kind: str
    created: _dt.datetime
    password_hash: str | None = field(default=None, repr=False)
    #: A program's account (issue 44: shown with a BOT mark).
    bot: bool = False
    #: The rating pool of its rated games: ``people`` or ``bots``.
    pool: str = "people"

    @property
    def guest(self) -> bool:
        return self.kind == "guest"

    def public(self) -> dict:
        """What the API shows of a user: ``{"id", "name", "guest", "bot"}``."""
        return {"id": self.id, "name": self.name, "guest": self.guest, "bot": self.bot}


def name_key(name: str) -> str:
    """What makes account names the same: NFKC, then casefolded (``"Ivan" == "IVAN" == "ｉｖａｎ"``)."""
    return unicodedata.normalize("NFKC", name).casefold()


class UserRows:
    """The users of a :class:`~nardy.web.store.storage.Storage` (a part of it)."""

    # ----- users ---------------------------------------------------------------------------------------------
    @staticmethod
    def _user(row) -> User:
        return User(row.id, row.name, row.kind, _aware(row.created), row.password_hash, bool(row.bot), row.pool)

    @_guarded
    def create_user(self, name: str, password_hash: str | None = None, bot: bool = False) -> User:
        """A new user: a guest without ``password_hash``, else an account (unique by :func:`name_key` and by
        :func:`~nardy.web.names.name_look`); ``bot``: a program's account, rated in the pool ``bots`` (issue 44).

        ``name`` is stored as given (the caller checks it: :func:`nardy.web.routers.auth.check_name`).

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
                        bot=bot,
                        pool="bots" if bot else "people",
                    )
                )
        except IntegrityError:
            raise NameTaken(name) from None
        return User(uid, name, kind, now, password_hash, bot, "bots" if bot else "people")

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
    def register_guest(self, user_id: str, name: str, password_hash: str, bot: bool = False) -> User:
        """Turn the guest ``user_id`` into an account named ``name`` (same id: their games stay theirs); ``bot``:
        a program's account, rated in the pool ``bots``.

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
                        bot=bot,
                        pool="bots" if bot else "people",
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

"""Who asks: guests, accounts and log-in sessions of ``nardy serve`` (``/api/auth/...``, ``/api/me``), the
CSRF and Origin checks, and log-in rate limits.

People
    A *guest* has a name (1-40 characters, not unique, but never an account's name nor a look-alike of it:
    :func:`check_guest_name`) and no password: ``POST /api/auth/guest``. An *account* has a name unique by
    :func:`~nardy.web.store.storage.name_key` (NFKC, casefolded) and by its look (:func:`~nardy.web.names.name_look`:
    no ``Аnn`` with a Cyrillic ``А`` beside ``Ann``; the server's own name for guests is not to be had) and a password
    (8-200 characters, stored only as an argon2id hash): ``POST /api/auth/register`` (a guest who registers
    keeps their id, so their games stay theirs), ``POST /api/auth/login``, ``POST /api/auth/logout``,
    ``GET /api/me``.

Log-in sessions
    30 days. The cookie ``nardy_session`` (HttpOnly, SameSite=Lax, Path=/, Secure when the request came
    over https or the server runs with ``--secure-cookies``) holds a random token; the database keeps only
    its sha256. Each log-in (guest, register, login) starts a new session and ends the one the request
    came with. The cookie ``nardy_csrf`` (readable by the page) holds the session's CSRF token.

Other routers
    ``user: CurrentUser`` (the :class:`~nardy.web.store.storage.User` of the request's session, or ``None``),
    ``user: SignedIn`` (the same, 401 ``login_needed`` when there is none); both work for WebSocket routes
    too. The session is read once per request (kept in ``request.state``).

CSRF and Origin (:func:`check_request`, a dependency of every route: ``create_app`` gives it to the app)
    A request whose ``Origin`` header names another site than the ``Host`` it was sent to is refused 403
    ``csrf`` (a WebSocket handshake is closed with 1008); an unsafe request (POST, PUT, PATCH, DELETE)
    that carries a valid session cookie must send ``X-CSRF-Token`` equal to its session's token, else 403
    ``csrf``. A request without a valid session cookie acts for nobody, so it needs no token (the API
    without accounts works as before). A request with ``Authorization: Bearer TOKEN`` (an API token,
    :mod:`nardy.web.routers.tokens`) acts for the token's account instead, needs no CSRF token, and is refused
    401 ``token_invalid`` (unknown or revoked token) or 403 ``token_scope`` (``read``: GET and streams;
    ``play``: everything else). It is a dependency rather than a part of :class:`~nardy.web.guard.Guard`
    because it reads the session from the database (on a worker thread, once per request, shared with
    :data:`CurrentUser`) and answers with the app's worded errors.

Rate limits (:class:`AuthLimits`, in memory: per server process)
    Failed log-ins slow the guesser, never the owner from an address of their own: 5 per 15 minutes per name
    (casefolded) and client address (:func:`~nardy.web.deps.client_key`), 20 per 15 minutes per address
    whatever the names; a name with 5 failures in 15 minutes from all addresses together is tried by addresses
    that failed a log-in in the last hour only in its turn, one try a minute (an address without failures is
    not slowed); more: 429 ``too_many_logins`` with ``Retry-After`` (:class:`AuthLimits` says what a guesser
    gets an hour). An attempt counts from its start (concurrent guesses cannot overtake the count); a success
    takes back its own attempt and the name's failures from that address. New players per client address: 10
    registrations an hour (refused ones count too: asking for taken names tells which exist), 30 new guests and
    renames an hour (a guest's name is checked against the accounts'); more: 429 ``too_many_new_players``.

Passwords
    argon2-cffi's :class:`~argon2.PasswordHasher` (argon2id, RFC 9106 low-memory parameters), at most two
    hashes at once (each takes 64 MiB), on worker threads; a hash made with older parameters is replaced
    at the next log-in. A log-in for an unknown name (or a guest's name) verifies against a dummy hash,
    so the time taken does not tell names apart; both answer 401 ``bad_login`` with the same body.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import datetime as _dt
import functools
import hmac
import math
import time
import unicodedata
from collections.abc import Callable
from typing import Annotated, NamedTuple
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import APIRouter, Depends, Request, WebSocketException
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection

from ...texts import catalogue
from ...texts.messages import LANGS
from ..deps import ActionLane, client_key
from ..errors import Refused
from ..names import name_look
from ..store.logins import Login, NewLogin, token_hash
from ..store.tokens import TokenLogin, tokens_of
from ..store.users import NameTaken, User, name_key

__all__ = [
    "router",
    "CurrentUser",
    "SignedIn",
    "current_user",
    "require_user",
    "session_of",
    "session_cache",
    "SessionCache",
    "end_session",
    "check_request",
    "bearer_token",
    "token_scope_needed",
    "origin_allowed",
    "check_name",
    "check_guest_name",
    "server_guest_looks",
    "AuthLimits",
    "LoginAttempt",
    "Window",
    "SESSION_COOKIE",
    "CSRF_COOKIE",
    "CSRF_HEADER",
    "User",
]

SESSION_COOKIE = "nardy_session"
CSRF_COOKIE = "nardy_csrf"
CSRF_HEADER = "X-CSRF-Token"
#: How long a log-in lasts.
SESSION_DAYS = 30
NAME_MAX = 40
PASSWORD_MIN, PASSWORD_MAX = 8, 200
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

#: argon2-cffi's defaults: argon2id, t=3, m=64 MiB, p=4 (RFC 9106's second recommended option).
DEFAULT_HASHER = PasswordHasher()
#: argon2id at its cheapest (1 pass over 1 MiB): ``nardy serve --insecure-password-hashing``, for load benchmarks
#: that make hundreds of accounts; never the default (a hash made with it is replaced by a default one at the
#: next log-in of a server without the flag).
INSECURE_HASHER = PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
#: At most two hashes at once (64 MiB each), off the event loop.
_HASHING = ActionLane(size=2)
#: A hash of a password nobody has, per hasher parameters: what an unknown name is verified against.
_DUMMY: dict[tuple, str] = {}


# ----- rate limits --------------------------------------------------------------------------------------------
class Window:
    """Events per key within a sliding window: at most ``limit`` in ``period`` seconds.

    Kept in memory (one server process); ``clock`` gives seconds (``time.monotonic``). Keys whose events
    have all left the window are dropped now and then, so memory follows recent use only.
    """

    def __init__(self, limit: int, period: float, clock: Callable[[], float] = time.monotonic):
        self.limit = limit
        self.period = period
        self.clock = clock
        self._events: dict[str, collections.deque[float]] = {}
        self._since_sweep = 0

    def _recent(self, key: str, now: float) -> collections.deque[float] | None:
        q = self._events.get(key)
        if q is None:
            return None
        while q and q[0] <= now - self.period:
            q.popleft()
        if not q:
            del self._events[key]
            return None
        return q

    def retry_after(self, key: str) -> int:
        """0 when ``key`` may have another event now, else whole seconds until it may (at least 1)."""
        now = self.clock()
        q = self._recent(key, now)
        if q is None or len(q) < self.limit:
            return 0
        return max(1, math.ceil(q[-self.limit] + self.period - now))

    def count(self, key: str) -> int:
        """Events of ``key`` within the window now."""
        q = self._recent(key, self.clock())
        return 0 if q is None else len(q)

    def times(self, key: str) -> list[float]:
        """The times of ``key``'s events within the window now, oldest first."""
        q = self._recent(key, self.clock())
        return [] if q is None else list(q)

    def hit(self, key: str, at: float | None = None) -> float:
        """Count an event of ``key`` now (or at ``at``, a time of :attr:`clock` given by the caller so that one
        attempt has the same time in several windows); returns its time (for :meth:`forget`)."""
        now = self.clock() if at is None else at
        self._events.setdefault(key, collections.deque()).append(now)
        self._since_sweep += 1
        if self._since_sweep >= 1024:
            self._since_sweep = 0
            for k in list(self._events):
                self._recent(k, now)
        return now

    def forget(self, key: str, at: float | None = None) -> None:
        """Take back the event of ``key`` at time ``at``, or all of ``key``'s events."""
        q = self._events.get(key)
        if q is None:
            return
        if at is None:
            del self._events[key]
            return
        try:
            q.remove(at)
        except ValueError:
            pass
        if not q:
            del self._events[key]


class LoginAttempt(NamedTuple):
    """A log-in attempt counted by :meth:`AuthLimits.login_start`: the name's key, the address, its time and
    whether it took the name's turn (:attr:`AuthLimits.login_turn`)."""

    key: str
    address: str
    at: float
    took_turn: bool


class AuthLimits:
    """The log-in and sign-up limits of one app (``app.state.auth_limits``); see the module docstring.

    Failed log-ins slow the guesser, never the owner at an address of their own: they are counted per (name,
    address) (:attr:`login_pair`: 5 in 15 minutes) and per address (:attr:`login_address`: 20 in 15 minutes,
    whatever the names), never per name for every address. A name is *under attack* once it has
    :data:`ATTACKED_AT` failures in 15 minutes from all addresses together (:attr:`login_name`); then an address
    that has failed any log-in in the last hour (:attr:`login_failed`) may try that name only in the name's turn,
    one try a minute shared by all such addresses (:attr:`login_turn`), while an address without failures (the
    owner's own, as a rule) is not slowed at all. Per hour a guesser gets: from one address at most 80 tries in
    all and 20 at one name; against one name from many addresses, one try per address that has not failed in the
    hour (after it, the address has failed) plus 60 in the name's turns, plus the few before the name counts as
    under attack.
    """

    #: Failures of a name, from all addresses, in 15 minutes that put it under attack.
    ATTACKED_AT = 5

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.login_pair = Window(5, 15 * 60, clock)
        self.login_address = Window(20, 15 * 60, clock)
        self.login_name = Window(self.ATTACKED_AT, 15 * 60, clock)
        self.login_failed = Window(1, 60 * 60, clock)
        self.login_turn = Window(1, 60, clock)
        self.accounts = Window(10, 60 * 60, clock)
        self.guests = Window(30, 60 * 60, clock)

    @staticmethod
    def _pair(key: str, address: str) -> str:
        return key + "\x00" + address

    def _needs_turn(self, key: str, address: str) -> bool:
        return self.login_name.count(key) >= self.ATTACKED_AT and self.login_failed.count(address) > 0

    def login_wait(self, key: str, address: str) -> int:
        """Seconds before ``address`` may try to log in to the name of key ``key`` (0: now)."""
        wait = max(self.login_pair.retry_after(self._pair(key, address)), self.login_address.retry_after(address))
        if not wait and self._needs_turn(key, address):
            wait = self.login_turn.retry_after(key)
        return wait

    def login_start(self, key: str, address: str) -> LoginAttempt:
        """Count a log-in attempt as a failure from its start (concurrent guesses cannot overtake the count);
        :meth:`login_ok` takes it back when it succeeds."""
        now = self.clock()
        took_turn = self._needs_turn(key, address)
        if took_turn:
            self.login_turn.hit(key, now)
        self.login_pair.hit(self._pair(key, address), now)
        self.login_address.hit(address, now)
        self.login_name.hit(key, now)
        self.login_failed.hit(address, now)
        return LoginAttempt(key, address, now, took_turn)

    def login_ok(self, attempt: LoginAttempt) -> None:
        """The attempt succeeded: it and the earlier failures of its name from its address are forgotten (the
        owner proved the password from there); the name's failures from other addresses stay counted."""
        key, address, at, took_turn = attempt
        pair = self._pair(key, address)
        for t in self.login_pair.times(pair):  # this attempt's time among them
            self.login_address.forget(address, t)
            self.login_name.forget(key, t)
            self.login_failed.forget(address, t)
        self.login_pair.forget(pair)
        if took_turn:
            self.login_turn.forget(key, at)


def _too_many(detail: str, wait: int, *, code: str, kind: str) -> Refused:
    return Refused(
        429,
        f"{detail}; try again in {wait} s",
        code=code,
        kind=kind,
        params={"retry_after": wait, "minutes": max(1, math.ceil(wait / 60))},
        headers={"Retry-After": str(wait)},
    )


# ----- names and passwords -------------------------------------------------------------------------------------
def check_name(text: str) -> str:
    """The name a person asked for, as it is kept: NFC, trimmed, runs of spaces made one space.

    Raises:
        Refused: 422 ``bad_name``: empty, over 40 characters (or its casefolded form is), or with a
            control, format or unassigned character (line breaks, zero-width or direction marks).
    """
    name = unicodedata.normalize("NFC", text).strip()
    bad = any(unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in ("Zl", "Zp") for ch in name)
    name = " ".join(name.split())
    if bad or not 1 <= len(name) <= NAME_MAX or max(len(name_key(name)), len(name_look(name))) > NAME_MAX:
        raise Refused(
            422,
            f"a name has 1 to {NAME_MAX} characters and no control characters",
            code="bad_name",
            kind="InvalidName",
            params={"most": NAME_MAX},
        )
    return name


@functools.cache
def server_guest_looks() -> frozenset[str]:
    """The looks (:func:`~nardy.web.names.name_look`) of the names the server gives guests by itself (the
    catalogue's ``common.guest`` in every language: Guest, Гость): kept for guests, never an account's."""
    return frozenset(name_look(catalogue.text("common", "guest", lang)) for lang in LANGS)


def _name_taken(name: str, detail: str) -> Refused:
    return Refused(409, detail, code="name_taken", kind="NameTaken", params={"name": name})


async def check_guest_name(conn: HTTPConnection, name: str) -> None:
    """A guest may not be called by an account's name or a look-alike of it (the same
    :func:`~nardy.web.names.name_look`: any case, Cyrillic or Greek letters for Latin ones); the names the
    server gives guests itself are always allowed.

    Raises:
        Refused: 409 ``name_taken``; StorageUnavailable: the database failed.
    """
    if name_look(name) in server_guest_looks():
        return
    if await run_in_threadpool(conn.app.state.storage.account_like, name) is not None:
        raise _name_taken(name, f"the name {name!r} is a registered player's (or looks like it): choose another")


def _check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise Refused(
            422,
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters",
            code="bad_password",
            kind="InvalidPassword",
            params={"least": PASSWORD_MIN, "most": PASSWORD_MAX},
        )


def _dummy_hash(hasher: PasswordHasher) -> str:
    key = (hasher.time_cost, hasher.memory_cost, hasher.parallelism, hasher.hash_len, hasher.salt_len, hasher.type)
    if key not in _DUMMY:
        _DUMMY[key] = hasher.hash("not a password anyone has: " + "x" * 16)
    return _DUMMY[key]


def _verify(hasher: PasswordHasher, stored: str | None, password: str) -> tuple[bool, str | None]:
    """(the password matches, a new hash when the stored one was made with other parameters). With no
    stored hash it still spends one verification (against a dummy hash) and says no."""
    try:
        hasher.verify(stored or _dummy_hash(hasher), password)
    except (VerificationError, InvalidHashError):
        return False, None
    if stored is None:
        return False, None
    return True, hasher.hash(password) if hasher.check_needs_rehash(stored) else None


def _hasher(conn: HTTPConnection) -> PasswordHasher:
    return getattr(conn.app.state, "password_hasher", None) or DEFAULT_HASHER


# ----- the request's session --------------------------------------------------------------------------------
_UNREAD = "unread"
#: Seconds a server process trusts a log-in session it has read (see :class:`SessionCache`).
SESSION_CACHE_TTL = 300.0
#: Sessions a process keeps at most.
SESSION_CACHE_SIZE = 20000
#: Seconds a logout waits for its notification to come back (every process has been told by then).
LOGOUT_ECHO = 2.0


class SessionCache:
    """The log-in sessions this server process has read lately (by the sha256 of their token), so that a
    player's every action is not a trip to the database for their session (:func:`session_of`).

    Only where several processes hear of each other (PostgreSQL, :class:`~nardy.web.cluster.Cluster` listening;
    with SQLite, one process, the session is read each time). A session ended anywhere
    (:meth:`Storage.delete_session <nardy.web.store.storage.Storage.delete_session>`: a logout, a new log-in) sends
    ``NOTIFY auth t:<hash>`` in its transaction, and a guest renamed or registered ``auth u:<id>``; each process
    drops the session (or the user's sessions) as it reads the notification, before anything else runs
    (:meth:`Cluster.on_now`), and a logout answers only once its own notification came back to its process
    (:func:`end_session`): by then PostgreSQL has handed it to every process. While the listening connection is
    down nothing is trusted, and when it is made again (notifications may have been missed) everything is
    forgotten. A session read before a drop and kept after it is not kept (the drops are counted: a read that
    saw one meanwhile keeps nothing). An entry lasts :data:`SESSION_CACHE_TTL` seconds (the session's
    ``last_seen`` is written when it is read again), never past the session's own end.

    Args:
        cluster: the process's :class:`~nardy.web.cluster.Cluster` (inactive: the cache keeps nothing).
        ttl, size: seconds an entry is trusted; entries kept at most (the oldest go first).
        clock: monotonic seconds (tests).
    """

    def __init__(self, cluster, ttl: float = SESSION_CACHE_TTL, size: int = SESSION_CACHE_SIZE, clock=time.monotonic):
        self.cluster = cluster
        self.ttl, self.size, self.clock = ttl, size, clock
        self._entries: collections.OrderedDict[str, tuple[float, Login]] = collections.OrderedDict()
        #: drops so far (a read that saw one meanwhile keeps nothing)
        self.generation = 0
        #: figures (tests, benchmarks): sessions answered from the cache, and read from the database
        self.hits = self.reads = 0
        if self.enabled:
            cluster.on_now("auth", self._notified)
            cluster.on_resync(self._resync)

    @property
    def enabled(self) -> bool:
        return bool(self.cluster is not None and self.cluster.active)

    def _trusted(self) -> bool:
        return self.enabled and self.cluster.listening.is_set()

    def get(self, th: str) -> Login | None:
        """The kept session of token hash ``th``, if it is still to be trusted."""
        if not self._trusted():
            return None
        entry = self._entries.get(th)
        if entry is None:
            return None
        at, s = entry
        if self.clock() - at > self.ttl or s.expires <= _dt.datetime.now(_dt.UTC):
            self._entries.pop(th, None)
            return None
        self.hits += 1
        return s

    def put(self, th: str, s: Login, generation: int) -> None:
        """Keep ``s``, read when :attr:`generation` was ``generation`` (nothing is kept if a drop came since)."""
        if not self._trusted() or generation != self.generation:
            return
        self._entries[th] = (self.clock(), s)
        self._entries.move_to_end(th)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def drop(self, th: str) -> None:
        self.generation += 1
        self._entries.pop(th, None)

    def drop_user(self, user_id: str) -> None:
        self.generation += 1
        for th in [k for k, (_, s) in self._entries.items() if s.user.id == user_id]:
            del self._entries[th]

    def clear(self) -> None:
        self.generation += 1
        self._entries.clear()

    def _notified(self, key: str) -> None:
        if key.startswith("t:"):
            self.drop(key[2:])
        elif key.startswith("u:"):
            self.drop_user(key[2:])
        else:
            self.clear()

    async def _resync(self) -> None:
        self.clear()

    def __len__(self) -> int:
        return len(self._entries)


def session_cache(app) -> SessionCache:
    """The app's :class:`SessionCache` (made on first use, with the app's cluster)."""
    cache = getattr(app.state, "session_cache", None)
    if cache is None:
        cache = app.state.session_cache = SessionCache(getattr(app.state, "cluster", None))
    return cache


async def session_of(conn: HTTPConnection) -> Login | None:
    """The valid log-in session of the request's ``nardy_session`` cookie (``None``: no cookie, or one of
    no session, or of an expired one), read once per request (on a worker thread), or kept by the process
    (:class:`SessionCache`).

    Raises:
        StorageUnavailable: the database failed (503).
    """
    cached: Login | None | str = getattr(conn.state, "auth_session", _UNREAD)
    if not isinstance(cached, str):
        return cached
    bearer = bearer_token(conn)
    if bearer is not None:  # a program's API token acts for its account instead of the cookie (issue 44)
        found = await _token_login(conn, bearer)
        conn.state.auth_session = found
        return found
    token = conn.cookies.get(SESSION_COOKIE)
    found = None
    if token and len(token) <= 200:
        cache = session_cache(conn.app)
        th = token_hash(token)
        found = cache.get(th)
        if found is None:
            generation = cache.generation
            found = await run_in_threadpool(conn.app.state.storage.session_user, token)
            cache.reads += 1
            if found is not None:
                cache.put(th, found, generation)
    conn.state.auth_session = found
    return found


def bearer_token(conn: HTTPConnection) -> str | None:
    """The token of the request's ``Authorization: Bearer TOKEN`` header (``""`` for a malformed one), ``None``
    without such a header."""
    header = conn.headers.get("authorization")
    if header is None or header[:7].lower() != "bearer ":
        return None
    token = header[7:].strip()
    return token if 0 < len(token) <= 100 else ""


async def _token_login(conn: HTTPConnection, token: str) -> Login | None:
    """The login of API token ``token`` (``None``: unknown or revoked), kept by the process as a session is."""
    if not token:
        return None
    cache = session_cache(conn.app)
    th = token_hash(token)
    found = cache.get(th)
    if found is None:
        generation = cache.generation
        found = await run_in_threadpool(tokens_of(conn.app.state.storage).login, token)
        cache.reads += 1
        if found is not None:
            cache.put(th, found, generation)
    return found


def token_scope_needed(conn: HTTPConnection) -> str:
    """The scope a request made with a token needs: ``read`` for GET (and HEAD) requests and streams
    (WebSockets), ``play`` for everything else."""
    if conn.scope["type"] == "websocket" or conn.scope.get("method") in ("GET", "HEAD"):
        return "read"
    return "play"


async def _check_token(conn: HTTPConnection) -> None:
    """A request with ``Authorization: Bearer``: a token not revoked, with the scope the request needs; no CSRF
    token is needed (a browser never sends the header by itself).

    Raises:
        Refused: 401 ``token_invalid``, 403 ``token_scope`` (a WebSocket handshake: closed with 4401, 4403)."""
    s = await session_of(conn)
    ws = conn.scope["type"] == "websocket"
    if not isinstance(s, TokenLogin):
        if ws:
            raise WebSocketException(4401, "unknown or revoked API token")
        raise Refused(401, "unknown or revoked API token", code="token_invalid", kind="TokenInvalid")
    need = token_scope_needed(conn)
    if need not in s.scopes:
        if ws:
            raise WebSocketException(4403, f"this API token lacks the scope {need!r}")
        raise Refused(
            403,
            f"this API token lacks the scope {need!r}",
            code="token_scope",
            kind="Forbidden",
            params={"scope": need},
        )


async def end_session(app, token: str) -> None:
    """End the log-in session of cookie token ``token`` (a logout, or a new log-in replacing it): deleted, and
    forgotten by every server process before this returns (:class:`SessionCache`)."""
    cache = session_cache(app)
    th = token_hash(token)
    echo = app.state.cluster.expect("auth", "t:" + th) if cache.enabled else None
    try:
        await run_in_threadpool(app.state.storage.delete_session, token)
    finally:
        cache.drop(th)
    if echo is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(echo, LOGOUT_ECHO)


async def current_user(conn: HTTPConnection) -> User | None:
    """The user of the request's log-in session, ``None`` without one."""
    s = await session_of(conn)
    return s.user if s is not None else None


CurrentUser = Annotated[User | None, Depends(current_user)]


async def require_user(user: CurrentUser) -> User:
    """The user of the request's log-in session. Raises Refused: 401 ``login_needed`` without one."""
    if user is None:
        raise Refused(
            401, "log in or choose a guest name first (POST /api/auth/guest)", code="login_needed", kind="LoginNeeded"
        )
    return user


SignedIn = Annotated[User, Depends(require_user)]


def origin_allowed(conn: HTTPConnection) -> bool:
    """No ``Origin`` header, or one that names the host the request was sent to (``Host``, with the default
    port of the origin's scheme when it names none); ``Origin: null`` names no host."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    try:
        o = urlsplit(origin.strip().lower())
        o_port = o.port or {"http": 80, "https": 443}.get(o.scheme)
        h = urlsplit("//" + conn.headers.get("host", "").strip().lower())
        h_port = h.port or {"http": 80, "https": 443}.get(o.scheme)
    except ValueError:
        return False
    return bool(o.scheme in ("http", "https") and o.hostname and o.hostname == h.hostname and o_port == h_port)


async def check_request(conn: HTTPConnection) -> None:
    """The CSRF and Origin checks of every route (see the module docstring).

    Raises:
        Refused: 403 ``csrf``; WebSocketException: 1008 for a WebSocket handshake from another site;
        StorageUnavailable: the database failed (503).
    """
    if conn.scope["type"] == "websocket":
        if not origin_allowed(conn):
            raise WebSocketException(1008, "another site may not open this connection (Origin)")
        if bearer_token(conn) is not None:
            await _check_token(conn)
        return
    if not origin_allowed(conn):
        raise Refused(403, "a request from another site (Origin) is refused", code="csrf", kind="CsrfRefused")
    if bearer_token(conn) is not None:
        await _check_token(conn)
        return
    if conn.scope.get("method") not in UNSAFE_METHODS or SESSION_COOKIE not in conn.cookies:
        return
    s = await session_of(conn)
    if s is None:
        return
    sent = conn.headers.get(CSRF_HEADER, "")
    if not hmac.compare_digest(sent.encode("utf-8", "surrogateescape"), s.csrf.encode()):
        raise Refused(
            403,
            f"missing or wrong {CSRF_HEADER} header: send the token of the nardy_csrf cookie (or of /api/me)",
            code="csrf",
            kind="CsrfRefused",
        )


# ----- cookies -------------------------------------------------------------------------------------------------
def _secure(conn: HTTPConnection) -> bool:
    return conn.url.scheme in ("https", "wss") or bool(getattr(conn.app.state, "secure_cookies", False))


def _set_cookies(response: Response, conn: HTTPConnection, new: NewLogin) -> None:
    age = SESSION_DAYS * 24 * 3600
    secure = _secure(conn)
    response.set_cookie(SESSION_COOKIE, new.token, max_age=age, path="/", httponly=True, samesite="lax", secure=secure)
    response.set_cookie(CSRF_COOKIE, new.csrf, max_age=age, path="/", httponly=False, samesite="lax", secure=secure)


def _clear_cookies(response: JSONResponse, conn: HTTPConnection) -> None:
    secure = _secure(conn)
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="lax", secure=secure)
    response.delete_cookie(CSRF_COOKIE, path="/", httponly=False, samesite="lax", secure=secure)


async def _start_session(conn: HTTPConnection, user: User, status: int = 200) -> JSONResponse:
    """A new log-in session for ``user`` (the request's old one ends): the answer with its cookies."""
    store = conn.app.state.storage
    new = await run_in_threadpool(store.create_session, user.id)
    old = conn.cookies.get(SESSION_COOKIE)
    if old:
        await end_session(conn.app, old)
    response = JSONResponse({"user": user.public(), "csrf": new.csrf}, status_code=status)
    _set_cookies(response, conn, new)
    return response


async def user_or_guest(conn: HTTPConnection, name: str) -> tuple[User, NewLogin | None]:
    """The request's user, or a new guest called ``name`` (a player who starts a game without a session:
    one click, as the page's first game) with a new log-in session, whose cookies the caller sets on its
    answer with :func:`set_session_cookies`.

    Raises:
        Refused: 422 ``bad_name``, 409 ``name_taken`` (an account's name or a look-alike:
            :func:`check_guest_name`); StorageUnavailable: the database failed."""
    user = await current_user(conn)
    if user is not None:
        return user, None
    store = conn.app.state.storage
    name = check_name(name)
    await check_guest_name(conn, name)
    user = await run_in_threadpool(store.create_user, name)
    new = await run_in_threadpool(store.create_session, user.id)
    return user, new


def set_session_cookies(response: Response, conn: HTTPConnection, new: NewLogin | None) -> None:
    """Set the cookies of a log-in session made by :func:`user_or_guest` (nothing when ``new`` is None)."""
    if new is not None:
        _set_cookies(response, conn, new)


# ----- the routes ----------------------------------------------------------------------------------------------
router = APIRouter(prefix="/api", tags=["players"])

_SIGNED_IN = {
    "description": 'Signed in: `{"user": {"id", "name", "guest"}, "csrf"}`; cookies `nardy_session` and '
    "`nardy_csrf` set (send the csrf token as `X-CSRF-Token` with unsafe requests)."
}


class GuestBody(BaseModel):
    name: str = Field(description="the guest's name: 1-40 characters, need not be unique")


class Credentials(BaseModel):
    name: str = Field(description="the account's name: 1-40 characters, unique regardless of case")
    password: str = Field(description="8-200 characters")


@router.post("/auth/guest", responses={200: _SIGNED_IN})
async def guest(body: GuestBody, request: Request):
    """Play as a guest named ``name``: not an account's name nor a look-alike of it (409 ``name_taken``). A guest
    asking again is renamed (same id); anyone else gets a new guest (30 new guests and renames an hour per
    client address: 429 ``too_many_new_players``; a refused name counts, as it tells that an account has it)."""
    name = check_name(body.name)
    store = request.app.state.storage
    current = await session_of(request)
    limits: AuthLimits = request.app.state.auth_limits
    address = client_key(request)
    wait = limits.guests.retry_after(address)
    if wait:
        raise _too_many(
            "too many new players from this address", wait, code="too_many_new_players", kind="TooManyNewPlayers"
        )
    limits.guests.hit(address)
    await check_guest_name(request, name)
    if current is not None and current.user.guest:
        user = await run_in_threadpool(store.rename_guest, current.user.id, name)
        session_cache(request.app).drop_user(user.id)
        return JSONResponse({"user": user.public(), "csrf": current.csrf})
    user = await run_in_threadpool(store.create_user, name)
    return await _start_session(request, user)


class Registration(Credentials):
    bot: bool = Field(False, description="a program's account (shown with a BOT mark, rated among bots)")


@router.post("/auth/register", status_code=201, responses={201: _SIGNED_IN})
async def register(body: Registration, request: Request):
    """Make an account (a guest who registers keeps their id and games). 409 ``name_taken`` (an account has
    this name or one that looks the same: :func:`~nardy.web.names.name_look`; or it is the server's name for
    guests); 422
    ``bad_name``/``bad_password``; 429 ``too_many_new_players`` (10 tries an hour per client address)."""
    name = check_name(body.name)
    _check_password(body.password)
    limits: AuthLimits = request.app.state.auth_limits
    address = client_key(request)
    wait = limits.accounts.retry_after(address)
    if wait:
        raise _too_many(
            "too many new accounts from this address", wait, code="too_many_new_players", kind="TooManyNewPlayers"
        )
    limits.accounts.hit(address)
    store = request.app.state.storage
    taken = _name_taken(name, f"the name {name!r} is taken (an account has it, or a name that looks the same)")
    if name_look(name) in server_guest_looks() or await run_in_threadpool(store.account_like, name) is not None:
        raise taken
    password_hash = await _HASHING(_hasher(request).hash, body.password)
    current = await session_of(request)
    try:
        if current is not None and current.user.guest:
            user = await run_in_threadpool(store.register_guest, current.user.id, name, password_hash, body.bot)
            session_cache(request.app).drop_user(user.id)
        else:
            user = await run_in_threadpool(store.create_user, name, password_hash, body.bot)
    except NameTaken:
        raise taken from None
    return await _start_session(request, user, 201)


@router.post("/auth/login", responses={200: _SIGNED_IN})
async def login(body: Credentials, request: Request):
    """Log in to an account. 401 ``bad_login`` for an unknown name and a wrong password alike; 429
    ``too_many_logins`` with ``Retry-After`` after 5 failures in 15 minutes for a name from an address, 20 from
    an address, or for a name under attack tried again from an address that failed (:class:`AuthLimits`)."""
    limits: AuthLimits = request.app.state.auth_limits
    name = " ".join(body.name.split())
    key = name_key(name)[:100]
    address = client_key(request)
    wait = limits.login_wait(key, address)
    if wait:
        raise _too_many("too many failed log-ins", wait, code="too_many_logins", kind="TooManyLogins")
    attempt = limits.login_start(key, address)
    store = request.app.state.storage
    user = await run_in_threadpool(store.user_by_name, name) if len(key) <= NAME_MAX else None
    hasher = _hasher(request)
    ok, new_hash = await _HASHING(_verify, hasher, user.password_hash if user else None, body.password)
    if not ok or user is None:
        raise Refused(401, "wrong name or password", code="bad_login", kind="BadLogin")
    limits.login_ok(attempt)  # the owner is in: their failures from this address are forgotten
    if new_hash is not None:
        await run_in_threadpool(store.set_password, user.id, new_hash)
    return await _start_session(request, user)


@router.post("/auth/logout")
async def logout(request: Request):
    """End the request's log-in session: ``{"ok": true}``, cookies cleared."""
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await end_session(request.app, token)
    response = JSONResponse({"ok": True})
    _clear_cookies(response, request)
    return response


@router.get("/me")
async def me(request: Request):
    """Who the request's session is: ``{"user": {"id", "name", "guest", "bot"} | null, "csrf": token | null}``
    (a cookie of no valid session is cleared)."""
    s = await session_of(request)
    response = JSONResponse({"user": s.user.public() if s else None, "csrf": s.csrf if s else None})
    if s is None and SESSION_COOKIE in request.cookies:
        _clear_cookies(response, request)
    return response

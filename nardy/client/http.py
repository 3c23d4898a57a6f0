"""The HTTP API of a nardy server for a program: :class:`Client` (docs/bots.md "Write a bot for a nardy server").

Requests carry ``Authorization: Bearer TOKEN`` (an API token, ``POST /api/auth/tokens``); without a token a
client may :meth:`Client.login` with a name and password and then acts with the session's cookie and CSRF
token, as a page does. Every answer with a 4xx or 5xx status raises :class:`ClientError` quoting the
server's ``{"error", "code"}``; a connection that fails raises :class:`httpx.TransportError` (the caller
decides whether to retry: :class:`nardy.client.bot.BotRunner` reconnects).

Streams (``GET /api/stream/events``, ``GET /api/stream/game/{id}``) are NDJSON: one JSON object a line,
blank lines to keep the connection alive; :meth:`Client.events` and :meth:`Client.game_stream` yield the
objects and skip the blank lines.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

__all__ = ["Client", "ClientError", "MAX_LINE"]

#: Bytes of one stream line read at most (a game view is a few kilobytes).
MAX_LINE = 1 << 20
_CSRF_COOKIE = "nardy_csrf"
_CSRF_HEADER = "X-CSRF-Token"


class ClientError(ValueError):
    """The server refused a request: ``status`` (HTTP), ``code`` (the server's error code, e.g. ``token_invalid``,
    ``stale_action``; ``"http_<status>"`` when the answer had none), ``message`` (the server's ``error``) and
    ``body`` (the whole JSON answer, or ``None``)."""

    def __init__(self, status: int, code: str, message: str, body: Any = None, what: str = ""):
        self.status, self.code, self.message, self.body = status, code, message, body
        super().__init__(f"{what + ': ' if what else ''}{status} {code}: {message}")


def _error(r: httpx.Response, what: str) -> ClientError:
    try:
        body = r.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        code = str(body.get("code") or f"http_{r.status_code}")
        msg = body.get("error") or body.get("detail") or r.reason_phrase
        if not isinstance(msg, str):
            msg = json.dumps(msg)[:300]
        return ClientError(r.status_code, code, msg, body, what)
    return ClientError(r.status_code, f"http_{r.status_code}", (r.text or r.reason_phrase)[:300], None, what)


class Client:
    """One account's client of the server at ``server`` (``http://host:port``).

    Args:
        server: the server's base URL.
        token: an API token (``nardy_...``); ``None``: no token (:meth:`login` first, or only public reads).
        timeout: seconds to connect and to wait for an answer (streams: for the next line; the server sends a
            keep-alive line every ~20 s).
        http: an :class:`httpx.Client` to use instead of a new one (tests: a FastAPI ``TestClient``).
    """

    def __init__(self, server: str, token: str | None = None, timeout: float = 60.0, http: httpx.Client | None = None):
        self.server = server.rstrip("/")
        self.token = token
        headers = {"User-Agent": "nardy-client", "Accept": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        if http is None:
            self.http = httpx.Client(base_url=self.server, headers=headers, timeout=timeout)
        else:
            self.http = http
            self.http.headers.update(headers)
        self.timeout = timeout

    def close(self) -> None:
        """Close the connections (the client may not be used after)."""
        self.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ----- plain requests -------------------------------------------------------------------------
    def _headers(self, method: str) -> dict:
        if self.token or method in ("GET", "HEAD"):
            return {}
        csrf = self.http.cookies.get(_CSRF_COOKIE)
        return {_CSRF_HEADER: csrf} if csrf else {}

    def request(self, method: str, path: str, body: Any = None, params: dict | None = None) -> Any:
        """``method path`` with the JSON ``body``; the JSON answer (``None`` for an empty one, e.g. 204).

        Raises:
            ClientError: a 4xx/5xx answer; httpx.TransportError: the connection failed.
        """
        r = self.http.request(method, path, json=body, params=params, headers=self._headers(method))
        if r.status_code >= 400:
            raise _error(r, f"{method} {path}")
        if not r.content:
            return None
        return r.json()

    def get(self, path: str, params: dict | None = None) -> Any:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Any = None) -> Any:
        return self.request("POST", path, {} if body is None else body)

    # ----- accounts -------------------------------------------------------------------------------
    def register(self, name: str, password: str, bot: bool = False) -> dict:
        """Register an account (``bot``: a bot account, rated in the bots' pool) and sign in with a cookie."""
        body: dict = {"name": name, "password": password}
        if bot:
            body["bot"] = True
        self.get("/api/me")  # a session (and its CSRF cookie) first
        return self.post("/api/auth/register", body)

    def login(self, name: str, password: str) -> dict:
        """Sign in with a name and password (a cookie session; unsafe requests then send its CSRF token)."""
        self.get("/api/me")
        return self.post("/api/auth/login", {"name": name, "password": password})

    def create_token(self, name: str = "bot", scopes: tuple[str, ...] = ("play", "read")) -> str:
        """A new API token of this account (needs a cookie session or a token with both scopes); from now on
        this client uses it. Returns the token (shown once by the server)."""
        made = self.post("/api/auth/tokens", {"name": name, "scopes": list(scopes)})
        self.token = made["token"]
        self.http.headers["Authorization"] = f"Bearer {self.token}"
        return self.token

    def me(self) -> dict:
        """``GET /api/me``: the account this client acts for."""
        return self.get("/api/me")

    # ----- challenges and games -------------------------------------------------------------------
    def challenge(
        self,
        to: str | None = None,
        game: str = "backgammon",
        length: int = 1,
        clock: Any = "blitz",
        rated: bool = True,
        **terms: Any,
    ) -> dict:
        """Make a challenge (``to``: a player's name, only they may accept; ``None``: open to anyone). ``clock``:
        ``"none"``, ``"blitz"``, ``"rapid"``, ``"classic"`` or a dict of times; ``terms``: the lobby's other
        fields (``colour``, ``rating_range``...). Returns the challenge (``id``...)."""
        body = {"game": game, "length": length, "clock": clock, "rated": rated, **terms}
        if to is not None:
            body["to"] = to
        made = self.post("/api/lobby/challenges", body)
        return made.get("challenge", made) if isinstance(made, dict) else made

    def accept(self, cid: str) -> dict:
        """Accept challenge ``cid``: the game's view (its ``id``)."""
        return self.post(f"/api/lobby/challenges/{cid}/accept", {})

    def decline(self, cid: str) -> Any:
        """Decline challenge ``cid`` made to this account."""
        return self.post(f"/api/lobby/challenges/{cid}/decline", {})

    def cancel(self, cid: str) -> Any:
        """Withdraw this account's challenge ``cid``."""
        return self.request("DELETE", f"/api/lobby/challenges/{cid}")

    def game(self, gid: str) -> dict:
        """``GET /api/games/{gid}``: the game's view for this account (``seq``, ``phase``, ``you``...)."""
        return self.get(f"/api/games/{gid}")

    def act(self, gid: str, action: dict) -> dict:
        """``POST /api/games/{gid}/actions`` with ``action`` (``{"action": "roll", "seq": ...}``...): the new view.

        Raises:
            ClientError: refused (409 ``stale_action`` when the game moved on since ``seq``...).
        """
        return self.post(f"/api/games/{gid}/actions", action)

    def give_seed(self, gid: str, seed: str, commitment: str) -> dict:
        """Give this seat's seed for the fair dice with the ``commitment`` shown (``online.seed_wanted``)."""
        return self.post(f"/api/games/{gid}/seed", {"client_seed": seed, "commitment": commitment})

    # ----- streams --------------------------------------------------------------------------------
    def stream(self, path: str) -> Iterator[dict]:
        """The JSON objects of the NDJSON stream at ``path`` until the server ends it (blank lines skipped).

        Raises:
            ClientError: the stream was refused; httpx.TransportError: the connection failed or dropped;
            ValueError: a line longer than :data:`MAX_LINE` or not a JSON object.
        """
        with self.http.stream("GET", path, headers={"Accept": "application/x-ndjson"}) as r:
            if r.status_code >= 400:
                r.read()
                raise _error(r, f"GET {path}")
            for line in r.iter_lines():
                if len(line) > MAX_LINE:
                    raise ValueError(f"GET {path}: a line of {len(line)} characters")
                if not line.strip():
                    continue
                obj = json.loads(line)
                if not isinstance(obj, dict):
                    raise ValueError(f"GET {path}: a line that is not a JSON object: {line[:80]!r}")
                if obj:
                    yield obj

    def events(self) -> Iterator[dict]:
        """``GET /api/stream/events``: this account's events (``challenge``, ``challengeCanceled``,
        ``gameStart``, ``gameFinish``...); first a ``gameStart`` for each game in progress."""
        return self.stream("/api/stream/events")

    def game_stream(self, gid: str) -> Iterator[dict]:
        """``GET /api/stream/game/{gid}``: the game's view now, then each new view; ends after the match."""
        return self.stream(f"/api/stream/game/{gid}")

"""The server's edge: what every request passes before the app sees it (a pure ASGI middleware).

:class:`Guard` answers, with a JSON body ``{"detail", "error"}`` like every other error of the API:

* **400** to a ``Host`` header that is not one of the names the server was started for (DNS
  rebinding: a web page on another site must not reach a server on ``localhost`` through a name of its
  own); ``allowed_hosts=None`` accepts any;
* **413** to a request body over its route's limit, before it is read when ``Content-Length`` says so,
  else as soon as the streamed body passes the limit (nothing larger is ever buffered);
* **500** ``internal error`` (with no detail of the exception, which goes to the log) instead of letting
  an unexpected exception drop the connection, so the client's next request on it still works.

The ``Host`` check applies to WebSocket handshakes too (the game's and the lobby's live channels): a handshake
naming another host is refused before the app sees it, with the same 400 JSON answer where the server can
send an answer to a handshake (uvicorn can), else closed with 1008.

Every answer carries :data:`SECURITY_HEADERS`: it may not be shown in another site's frame (``X-Frame-Options:
DENY`` and CSP ``frame-ancestors 'none'``: clickjacking), its type is as declared (``X-Content-Type-Options:
nosniff``), and other sites are not told which page linked to them (``Referrer-Policy: same-origin``).

It also answers ``HEAD`` on every ``GET`` route (the ``GET`` response without its body).
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from starlette.exceptions import HTTPException

__all__ = ["Guard", "host_names_for", "BODY_LIMIT", "SECURITY_HEADERS"]

log = logging.getLogger("nardy.web")

#: Default request body limit in bytes (JSON bodies of the API are a few hundred bytes).
BODY_LIMIT = 64 * 1024

#: Headers of every answer (a route's own value of one of them is kept): no framing by any site, no guessing
#: of content types, no page address sent to other sites. Only ``frame-ancestors`` of CSP: the page's scripts
#: and styles are not restricted by it.
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
_SECURITY_NAMES = frozenset(k for k, _ in SECURITY_HEADERS)


def _secured(headers) -> list:
    """``headers`` (an ASGI list) with :data:`SECURITY_HEADERS` added where it does not have them."""
    out = list(headers or [])
    have = {bytes(k).lower() for k, _ in out} & _SECURITY_NAMES
    out.extend((k, v) for k, v in SECURITY_HEADERS if k not in have)
    return out


class _TooLarge(HTTPException):
    """A streamed body passed its limit (an HTTPException, so the app's body parsing passes it on)."""

    def __init__(self, limit: int):
        super().__init__(413, f"request body too large (more than {limit} bytes)")


_CODES = {
    "InvalidHost": "invalid_host",
    "RequestTooLarge": "too_large",
    "BadRequest": "bad_request",
    "InternalError": "internal_error",
}


def _json(status: int, detail: str, error: str, headers: list | None = None, lang: str = "en"):
    from ..texts.messages import describe

    code = _CODES[error]
    body = json.dumps(
        {"detail": detail, "error": error, "code": code, "params": {}, "message": describe(code, {}, lang)}
    ).encode()
    head = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    return {"type": "http.response.start", "status": status, "headers": _secured(head + (headers or []))}, {
        "type": "http.response.body",
        "body": body,
    }


def _lang_of(scope, headers) -> str:
    """``ru`` or ``en``: ``lang=`` in the query string, else ``Accept-Language``, else English."""

    q = parse_qs(scope.get("query_string", b"")[:2000].decode("latin-1")).get("lang", [""])[0]
    if q in ("en", "ru"):
        return q
    for part in headers.get(b"accept-language", b"")[:200].decode("latin-1").split(","):
        tag = part.split(";")[0].strip().lower()[:2]
        if tag in ("en", "ru"):
            return tag
    return "en"


def host_names_for(bind_host: str) -> list[str] | None:
    """The ``Host`` names a server listening on ``bind_host`` answers by default: the loopback names for a
    loopback address, the address itself otherwise; ``None`` (any) for a wildcard address (0.0.0.0, ::),
    where the names people use are not known (give them with ``--allowed-host``)."""
    h = bind_host.strip().lower().strip("[]")
    if h in ("0.0.0.0", "::", ""):
        return None
    if h in ("127.0.0.1", "localhost", "::1") or h.startswith("127."):
        return sorted({"localhost", "127.0.0.1", "::1", h})
    return [h]


def _host_of(value: str) -> str:
    """``Host`` header value without the port, lower case, IPv6 without brackets."""
    v = value.strip().lower()
    if v.startswith("["):
        return v[1 : v.find("]")] if "]" in v else v
    if v.count(":") == 1:
        v = v.split(":", 1)[0]
    return v.rstrip(".")


class Guard:
    """ASGI middleware; see the module docstring.

    Args:
        app: the ASGI app.
        allowed_hosts: host names (no port) accepted in the ``Host`` header; ``None`` for any.
        body_limit: default body limit in bytes.
        route_limits: ``{path prefix: limit}`` for routes that take larger bodies (records).
    """

    def __init__(self, app, allowed_hosts=None, body_limit: int = BODY_LIMIT, route_limits: dict | None = None):
        self.app = app
        self.allowed = None if allowed_hosts is None else {_host_of(h) for h in allowed_hosts}
        self.body_limit = body_limit
        self.route_limits = dict(route_limits or {})

    def _limit(self, path: str) -> int:
        for prefix, limit in self.route_limits.items():
            if path.startswith(prefix):
                return limit
        return self.body_limit

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        headers = {k.lower(): v for k, v in scope.get("headers", [])}
        lang = _lang_of(scope, headers)
        if self.allowed is not None:
            host = _host_of(headers.get(b"host", b"").decode("latin-1"))
            if host not in self.allowed:
                start, body = _json(
                    400,
                    "this server does not answer to that host name (Host header); "
                    "start it with --allowed-host NAME to allow it",
                    "InvalidHost",
                    lang=lang,
                )
                if scope["type"] == "websocket":
                    return await _refuse_handshake(scope, receive, send, start, body)
                await send(start)
                await send(body)
                return
        if scope["type"] == "websocket":
            return await self.app(scope, receive, _secured_handshake(send))
        limit = self._limit(scope.get("path", ""))
        length = headers.get(b"content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                n = -1
            if n < 0 or n > limit:
                msg = (
                    f"request body too large ({n} bytes; at most {limit})"
                    if n >= 0
                    else "malformed Content-Length header"
                )
                start, body = _json(
                    413 if n >= 0 else 400, msg, "RequestTooLarge" if n >= 0 else "BadRequest", lang=lang
                )
                await send(start)
                await send(body)
                return
        head = scope["method"] == "HEAD"
        if head:
            scope = dict(scope, method="GET")
        seen = 0
        started = False

        async def limited_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise _TooLarge(limit)
            return message

        async def guarded_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = dict(message, headers=_secured(message.get("headers")))
            elif head and message["type"] == "http.response.body":
                message = dict(message, body=b"")
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except _TooLarge:
            if not started:
                start, body = _json(
                    413, f"request body too large (more than {limit} bytes)", "RequestTooLarge", lang=lang
                )
                await send(start)
                await send(body)
        except Exception:
            log.exception("internal error on %s %s", scope.get("method"), scope.get("path"))
            if not started:
                start, body = _json(
                    500, "internal error: the server could not answer this request", "InternalError", lang=lang
                )
                await send(start)
                await send(body)


async def _refuse_handshake(scope, receive, send, start: dict, body: dict) -> None:
    """Refuse a WebSocket handshake before it is accepted: the HTTP answer ``start``/``body`` where the server
    lets an app answer a handshake (the ASGI ``websocket.http.response`` extension), else a close (1008: uvicorn
    answers 403)."""
    message = await receive()
    if message["type"] != "websocket.connect":
        return
    if "websocket.http.response" in scope.get("extensions", {}):
        await send(dict(start, type="websocket.http.response.start"))
        await send(dict(body, type="websocket.http.response.body"))
    else:
        await send({"type": "websocket.close", "code": 1008, "reason": "host name not allowed"})


def _secured_handshake(send):
    """``send`` adding :data:`SECURITY_HEADERS` to a handshake's refusal answered in HTTP."""

    async def secured(message):
        if message["type"] == "websocket.http.response.start":
            message = dict(message, headers=_secured(message.get("headers")))
        await send(message)

    return secured

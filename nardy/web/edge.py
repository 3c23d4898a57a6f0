"""The connection edge of ``nardy serve``: what a connection passes before its request reaches the app.

uvicorn's HTTP protocol (httptools) reads a request head of any size and waits for it for ever, and
accepts every connection it is offered; an outside test sent a 100 MB header (read whole, answered 200)
and 20,000 half-sent requests (the process ran out of file handles: SQLite could not open its file, the
clock keeper failed). :func:`uvicorn_protocols` gives uvicorn a protocol of its own, a small subclass of
uvicorn's, that bounds each connection (:class:`EdgeLimits`, set by ``nardy serve`` options):

* **request head** (request line and headers, WebSocket handshakes too): at most ``max_header_bytes``;
  more is answered **431** ``headers_too_large`` and the connection closed, as soon as the bytes received
  for an unfinished head pass the limit (at most one read, 256 KiB, is held beyond it);
* **slow heads**: a head must arrive whole within ``header_timeout`` seconds of the connection (or of the
  first byte after the previous answer); else **408** ``request_timeout`` and the connection is closed;
* **slow bodies**: a request's body must arrive whole within ``body_timeout`` seconds of its head; else
  408 (when no answer has started) and the connection is closed;
* **connections**: at most ``max_connections`` open at once in the process (HTTP and WebSocket) and
  ``per_address`` from one client address; a connection over either is answered **503**
  ``too_many_connections`` (in all) or **429** (from one address) at once and closed. The trusted proxies
  (``--forwarded-allow-ips``) carry many clients: the per-address bound does not apply to them (the proxy
  bounds its clients itself: ``limit_conn`` in deploy/nginx.conf), the bound in all does;
* **file handles**: :func:`raise_file_limit` raises the process's soft ``RLIMIT_NOFILE`` to its hard limit,
  and :func:`connection_cap` keeps :data:`FD_RESERVE` handles out of the connections' reach, for the
  database, the clock keeper, logs and the engine's files.

Between requests uvicorn's keep-alive timeout (5 s) closes an idle connection; a WebSocket's liveness is
uvicorn's ping (every 20 s, closed without a pong within 20 s).
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
import logging
from dataclasses import dataclass
from typing import Any

__all__ = [
    "EdgeLimits",
    "Gate",
    "raise_file_limit",
    "connection_cap",
    "uvicorn_protocols",
    "refusal",
    "FD_RESERVE",
]

log = logging.getLogger("nardy.web")

#: File handles kept out of the connections' reach (``max_connections`` is at most the soft limit less these):
#: the database (SQLite's file and journal, or a PostgreSQL pool of up to 15 and 2 connections of its own),
#: the event loop's own handles, logs, numba's cache files and the worker threads' files.
FD_RESERVE = 256


@dataclass(frozen=True)
class EdgeLimits:
    """The bounds of :mod:`nardy.web.edge` (the defaults are ``nardy serve``'s).

    Attributes:
        max_header_bytes: bytes of a request head (request line and headers) at most: 32 KiB (a page's head
            is under 1 KiB; nginx lets 4 lines of 8 KiB through).
        header_timeout: seconds a request head may take to arrive whole.
        body_timeout: seconds a request body may take to arrive whole after its head (the largest, a 1 MB
            record, in 30 s: 35 KB/s).
        max_connections: connections open at once in one server process (lowered to the file limit less
            :data:`FD_RESERVE` by :func:`connection_cap`).
        per_address: connections open at once from one client address (not a trusted proxy).
        trusted: the trusted proxies, as ``--forwarded-allow-ips`` gives them (addresses or networks,
            comma-separated; ``*``: every peer).
    """

    max_header_bytes: int = 32 * 1024
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 4096
    per_address: int = 64
    trusted: str = "127.0.0.1"


class Gate:
    """Counts the open connections of one server process, in all and per client address.

    Args:
        max_connections: connections at once in all.
        per_address: connections at once from one address, except from ``trusted``.
        trusted: addresses and networks (``"10.0.0.5, 172.30.0.0/24"``), ``"*"`` for every peer: the
            proxies, whose connections count in all only.
    """

    def __init__(self, max_connections: int, per_address: int, trusted: str = ""):
        if max_connections < 1 or per_address < 1:
            raise ValueError("max_connections and per_address must be at least 1")
        self.max_connections = max_connections
        self.per_address = per_address
        self._all_trusted = trusted.strip() == "*"
        self._trusted: list[Any] = []
        self._literals: set[str] = set()
        for item in (t.strip() for t in trusted.split(",")):
            if not item or item == "*":
                continue
            try:
                self._trusted.append(ipaddress.ip_network(item, strict=False))
            except ValueError:
                self._literals.add(item)  # a name (a unix socket's peer): compared as written
        self.total = 0
        self._by_address: dict[str, int] = {}
        self._holders: dict[object, str | None] = {}

    def is_trusted(self, host: str | None) -> bool:
        """Whether ``host`` (a peer address; ``None`` for a unix socket) is a trusted proxy."""
        if host is None or self._all_trusted:
            return True
        if host in self._literals:
            return True
        try:
            ip = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(ip in net for net in self._trusted)

    def admit(self, key: object, host: str | None) -> int:
        """Count connection ``key`` from ``host``: 0 when admitted, else the status to refuse it with (503: the
        process has ``max_connections``; 429: ``host`` has ``per_address``); a refused one is not counted."""
        if self.total >= self.max_connections:
            return 503
        capped = not self.is_trusted(host)
        if capped and self._by_address.get(host or "", 0) >= self.per_address:
            return 429
        self.total += 1
        self._holders[key] = host if capped else None
        if capped:
            self._by_address[host or ""] = self._by_address.get(host or "", 0) + 1
        return 0

    def release(self, key: object) -> None:
        """Uncount connection ``key`` (nothing when it was not counted or already released)."""
        if key not in self._holders:
            return
        host = self._holders.pop(key)
        self.total -= 1
        if host is not None:
            n = self._by_address[host] - 1
            if n:
                self._by_address[host] = n
            else:
                del self._by_address[host]

    def from_address(self, host: str) -> int:
        """Connections counted now from ``host`` (0 for a trusted proxy)."""
        return self._by_address.get(host, 0)


def raise_file_limit() -> int:
    """Raise this process's soft limit of open files (``RLIMIT_NOFILE``) to its hard limit; returns the soft
    limit now in force (a large number where the platform has no such limit)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return 1 << 20
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft == resource.RLIM_INFINITY or soft >= want:
        return soft if soft != resource.RLIM_INFINITY else 1 << 20
    for target in (want, 65536, 10240):  # macOS refuses more than its per-process maximum
        if soft < target <= want:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
                return target
            except (ValueError, OSError):
                continue
    return soft


def connection_cap(requested: int, file_limit: int, reserve: int = FD_RESERVE) -> int:
    """The connections one process may hold: ``requested``, at most ``file_limit - reserve`` (and at least 16,
    which a file limit under ``reserve + 16`` makes tight for the database: the caller warns)."""
    return max(16, min(requested, file_limit - reserve))


# ----- uvicorn's protocols --------------------------------------------------------------------------------
_CODES = {431: "headers_too_large", 408: "request_timeout", 503: "too_many_connections", 429: "too_many_connections"}
_KINDS = {431: "HeadersTooLarge", 408: "RequestTimeout", 503: "TooManyConnections", 429: "TooManyConnections"}
_REASONS = {
    431: b"Request Header Fields Too Large",
    408: b"Request Timeout",
    503: b"Service Unavailable",
    429: b"Too Many Requests",
}


def refusal(status: int, detail: str, retry_after: int | None = None) -> bytes:
    """A whole HTTP/1.1 answer written by the edge (no app behind it): ``status`` (431, 408, 429 or 503) with the
    API's JSON error body ``{"detail", "error", "code", "params", "message"}``, the security headers of
    :data:`nardy.web.guard.SECURITY_HEADERS` and ``Connection: close``."""
    from ..texts.messages import describe
    from .guard import SECURITY_HEADERS

    code = _CODES[status]
    body = json.dumps(
        {"detail": detail, "error": _KINDS[status], "code": code, "params": {}, "message": describe(code, {}, "en")}
    ).encode()
    head = [
        b"HTTP/1.1 %d %s" % (status, _REASONS[status]),
        b"content-type: application/json",
        b"content-length: %d" % len(body),
        b"connection: close",
        *(k + b": " + v for k, v in SECURITY_HEADERS),
    ]
    if retry_after is not None:
        head.append(b"retry-after: %d" % retry_after)
    return b"\r\n".join(head) + b"\r\n\r\n" + body


#: Seconds a refused head's connection is kept to discard what the client still sends, so that the client reads
#: the answer (closing with unread bytes resets the connection, and the answer may be lost with them).
_LINGER = 2.0


def uvicorn_protocols(limits: EdgeLimits) -> dict:
    """uvicorn settings (``http``, ``ws``) for one server process: its HTTP and WebSocket protocols, bounded by
    ``limits`` and sharing one :class:`Gate` (made here: call once per process)."""
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

    gate = Gate(limits.max_connections, limits.per_address, limits.trusted)

    class EdgeHttpProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol with the bounds of :mod:`nardy.web.edge`."""

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.edge = gate
            self._head_timer: asyncio.TimerHandle | None = None
            self._body_timer: asyncio.TimerHandle | None = None
            self._head_open = False  # a request head has begun and is not whole yet
            self._head_parsed = 0  # its bytes the parser has given back (request target, whole headers)
            self._head_raw = 0  # bytes received while it was open, after the read it began in
            self._messages = 0
            self._shut = False  # answered or closed by the edge: what else arrives is discarded

        # -- the connection
        def connection_made(self, transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            status = gate.admit(transport, self.client[0] if self.client else None)
            if status:
                self._shut = True
                if status == 503:
                    detail = "the server has too many connections; try again shortly"
                else:
                    detail = f"too many connections from your address (at most {limits.per_address} at once)"
                transport.write(refusal(status, detail, retry_after=5))
                transport.close()  # at once: a refused connection holds no file handle for long
                return
            self._arm_head()

        def connection_lost(self, exc) -> None:
            self._cancel()
            gate.release(self.transport)
            super().connection_lost(exc)

        def handle_websocket_upgrade(self) -> None:
            self._cancel()  # the WebSocket protocol takes the connection (and its place in the gate)
            super().handle_websocket_upgrade()

        def data_received(self, data: bytes) -> None:
            if self._shut:
                return
            if not self._head_open and self._head_timer is None and self._idle():
                self._arm_head()  # bytes after an answer start the next head's clock
            messages, was_open = self._messages, self._head_open
            super().data_received(data)
            if self._shut or not self._head_open or self.transport.is_closing():
                return  # (closing: uvicorn answered a malformed request 400)
            if was_open and messages == self._messages:
                self._head_raw += len(data)  # the head began before this read and is still open: all of it is head
            if max(self._head_raw, self._head_parsed) > limits.max_header_bytes:
                self._refuse_head()

        # -- the parser's callbacks
        def on_message_begin(self) -> None:
            if self._shut:
                return
            super().on_message_begin()
            self._messages += 1
            self._head_open = True
            self._head_parsed = self._head_raw = 0
            if self._head_timer is None:
                self._arm_head()

        def on_url(self, url: bytes) -> None:
            if self._shut:
                return
            self._head_parsed += len(url)
            super().on_url(url)

        def on_header(self, name: bytes, value: bytes) -> None:
            if self._shut:
                return
            self._head_parsed += len(name) + len(value) + 4  # ": " and CRLF
            super().on_header(name, value)

        def on_headers_complete(self) -> None:
            if self._shut:
                return
            self._head_open = False
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None
            if self._head_parsed > limits.max_header_bytes:
                self._refuse_head()
                return
            super().on_headers_complete()
            if not (self.parser.should_upgrade() and self._should_upgrade()):
                self._body_timer = self.loop.call_later(limits.body_timeout, self._body_too_slow)

        def on_body(self, body: bytes) -> None:
            if not self._shut:
                super().on_body(body)

        def on_message_complete(self) -> None:
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None
            if not self._shut:
                super().on_message_complete()

        # -- the bounds
        def _arm_head(self) -> None:
            self._head_timer = self.loop.call_later(limits.header_timeout, self._head_too_slow)

        def _cancel(self) -> None:
            for timer in (self._head_timer, self._body_timer):
                if timer is not None:
                    timer.cancel()
            self._head_timer = self._body_timer = None

        def _idle(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _head_too_slow(self) -> None:
            self._head_timer = None
            if self._shut or self.transport.is_closing():
                return
            self._shut = True
            self._cancel()
            if self._head_open and self._idle():
                detail = f"the request's head did not arrive within {limits.header_timeout:g} s"
                self.transport.write(refusal(408, detail))
            self.transport.close()

        def _body_too_slow(self) -> None:
            self._body_timer = None
            if self._shut or self.transport.is_closing():
                return
            self._shut = True
            self._cancel()
            cycle = self.cycle
            if cycle is not None and not cycle.response_started:
                detail = f"the request's body did not arrive within {limits.body_timeout:g} s"
                self.transport.write(refusal(408, detail))
            if cycle is not None:  # the app's receive() hears of it; what it sends now goes nowhere
                cycle.disconnected = True
                cycle.message_event.set()
            self.transport.close()

        def _refuse_head(self) -> None:
            self._shut = True
            self._cancel()
            if self._idle():
                detail = f"the request's headers are too large (at most {limits.max_header_bytes} bytes)"
                self.transport.write(refusal(431, detail))
            if self.transport.can_write_eof():
                self.transport.write_eof()  # the answer, then the end; what still arrives is read and dropped
                self.loop.call_later(_LINGER, self.transport.close)
            else:
                self.transport.close()

    ws_base = AutoWebSocketsProtocol
    if ws_base is None:  # pragma: no cover - websockets is a dependency
        return {"http": EdgeHttpProtocol}

    class EdgeWebSocketProtocol(ws_base):  # type: ignore[misc, valid-type]
        """uvicorn's WebSocket protocol, giving back its connection's place in the :class:`Gate` when it ends."""

        def connection_lost(self, exc) -> None:
            try:
                super().connection_lost(exc)
            finally:
                gate.release(self.transport)

    return {"http": EdgeHttpProtocol, "ws": EdgeWebSocketProtocol}

"""The server's network edge (issue 41; docs/security.md): each finding of the outside test at the edge as a
regression test.

6. a request head over the limit (WebSocket handshakes too) is refused 431 before it is read whole, and the
   server answers others meanwhile; 7. slow heads and bodies are timed out (408), connections are bounded per
   address and in all, and file handles are kept for the database; 8. the Host allow-list applies to the
   WebSocket handshakes of both live channels; 11. every answer forbids framing and content sniffing.

The served tests run ``nardy serve`` on loopback with short timeouts; their floods are bounded (a few hundred
sockets on loopback, closed by the test at its end whatever happens).
"""

from __future__ import annotations

import json
import os
import selectors
import socket
import time
import warnings

import pytest

pytest.importorskip("httpx")
import httpx  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import WebSocketDenialResponse

from nardy.web.app import create_app  # noqa: E402
from nardy.web.edge import FD_RESERVE, Gate, connection_cap  # noqa: E402
from nardy.web.guard import host_names_for  # noqa: E402

from .helpers import Server  # noqa: E402
from .players import PlayerClient  # noqa: E402

#: What every answer carries (nardy.web.guard.SECURITY_HEADERS).
FRAMING = {
    "x-frame-options": "DENY",
    "content-security-policy": "frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


# ----- 8. the Host allow-list on WebSocket handshakes -------------------------------------------------------
@pytest.fixture
def hosted(tmp_path):
    """An app answering to the loopback names only, and a guest on it with an online game."""
    app = create_app(f"sqlite:///{tmp_path / 'edge.db'}", allowed_hosts=host_names_for("127.0.0.1"))
    with PlayerClient(app, base_url="http://localhost:8000") as c:
        c.guest("Ann")
        r = c.post("/api/games", json={"game": "long", "opponent": "online", "length": 1})
        assert r.status_code == 201, r.text
        yield c, r.json()["id"]


@pytest.mark.parametrize("channel", ["lobby", "game"])
def test_a_websocket_handshake_naming_another_host_is_refused_on_every_live_channel(hosted, channel):
    c, gid = hosted
    path = "ws://localhost:8000" + ("/api/lobby/live" if channel == "lobby" else f"/api/games/{gid}/live")
    # the page's own handshake is accepted and served
    with c.websocket_connect(path, headers={"origin": "http://localhost:8000"}) as ws:
        first = ws.receive_json()
        assert first["type"] == ("lobby" if channel == "lobby" else "view")
    # DNS rebinding: a page of evil.example, whose name now points at the server, opens the channel; its
    # Origin matches the Host it sent, so only the Host allow-list can refuse it
    rebinding = {"host": "evil.example", "origin": "http://evil.example"}
    with pytest.raises(WebSocketDenialResponse) as refused:
        with c.websocket_connect(path, headers=rebinding) as ws:
            ws.receive_json()
    assert refused.value.status_code == 400
    assert refused.value.json()["error"] == "InvalidHost" and refused.value.json()["code"] == "invalid_host"
    for name, value in FRAMING.items():
        assert refused.value.headers[name] == value


# ----- 11. anti-framing and content-type headers on every answer -----------------------------------------
def test_every_answer_forbids_framing_and_content_sniffing(tmp_path):
    app = create_app(f"sqlite:///{tmp_path / 'h.db'}", allowed_hosts=host_names_for("127.0.0.1"))
    with PlayerClient(app, base_url="http://localhost:8000") as c:
        answers = {
            "page": c.get("/"),
            "join page": c.get("/join/abc"),
            "script": c.get("/static/app.js"),
            "api": c.get("/api/health"),
            "api docs": c.get("/docs"),
            "missing game": c.get("/api/games/nosuchgame"),
            "bad input": c.get("/api/plays?game=nosuch"),
            "body too large": c.post("/api/auth/guest", content=b"x" * 70000),
            "bad host": c.get("/api/health", headers={"Host": "evil.example"}),
            "head": c.head("/"),
        }
        statuses = {k: r.status_code for k, r in answers.items()}
        assert statuses == {
            "page": 200,
            "join page": 200,
            "script": 200,
            "api": 200,
            "api docs": 200,
            "missing game": 404,
            "bad input": 422,
            "body too large": 413,
            "bad host": 400,
            "head": 200,
        }
        for what, r in answers.items():
            for name, value in FRAMING.items():
                assert r.headers.get(name) == value, (what, name, r.headers.get(name))
            assert len(r.headers.get_list(name)) == 1, what  # once, not doubled


# ----- 7. the connection bounds (nardy.web.edge.Gate) ----------------------------------------------------
def test_the_gate_bounds_connections_per_address_and_in_all_and_spares_the_trusted_proxy():
    gate = Gate(max_connections=5, per_address=2, trusted="10.0.0.5, 172.30.253.0/28")
    assert [gate.admit(("a", i), "192.0.2.1") for i in range(3)] == [0, 0, 429]
    assert gate.admit("b", "192.0.2.2") == 0 and gate.from_address("192.0.2.1") == 2
    # the proxies' connections carry many clients: not bounded per address, bounded in all
    assert [gate.admit(("p", i), "10.0.0.5") for i in range(3)] == [0, 0, 503]
    assert gate.total == 5 and gate.from_address("10.0.0.5") == 0
    gate.release(("a", 0))
    gate.release(("a", 0))  # twice: counted once
    assert gate.total == 4 and gate.admit(("a", 3), "192.0.2.1") == 0
    assert gate.admit("q", "172.30.253.3") == 503  # full in all
    gate.release(("p", 0))
    assert gate.admit("q", "172.30.253.3") == 0 and gate.from_address("172.30.253.3") == 0
    assert gate.is_trusted("172.30.253.14") and not gate.is_trusted("172.30.253.17")
    assert Gate(1, 1, "*").is_trusted("203.0.113.9")


def test_the_connection_cap_leaves_file_handles_for_the_database():
    assert connection_cap(4096, 20000) == 4096
    assert connection_cap(4096, 1024) == 1024 - FD_RESERVE == 768
    assert connection_cap(4096, 400) == 144


# ----- served: heads, slow requests and floods --------------------------------------------------------------
HEADER_TIMEOUT = 4.0
BODY_TIMEOUT = 2.0
PER_ADDRESS = 40
#: The loopback addresses the served tests speak from (none is a trusted proxy: the server trusts 127.0.0.9).
ATTACKER, PLAYER = "127.0.0.66", "127.0.0.77"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(
        f"sqlite:///{tmp_path_factory.mktemp('edge') / 'edge.db'}",
        extra=(
            "--no-warm-up",
            f"--header-timeout={HEADER_TIMEOUT}",
            f"--body-timeout={BODY_TIMEOUT}",
            f"--max-connections-per-address={PER_ADDRESS}",
            "--forwarded-allow-ips=127.0.0.9",
        ),
    )
    s.start()
    try:
        yield s
    finally:
        s.stop()


def player(source: str = PLAYER) -> httpx.Client:
    """An HTTP client speaking from the loopback address ``source``."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=20)


def game_action(base: str, source: str = PLAYER) -> dict:
    """A new two-player game and its first action (the first legal play of the opening roll, or the action
    offered), from ``source``: the answer's view."""
    from nardy.rules.position import Position

    with player(source) as c:
        r = c.post(base + "/api/games", json={"game": "backgammon", "opponent": "human"})
        assert r.status_code == 201, r.text
        v = r.json()
        if v["phase"] == "move":
            play = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))[0]
            action = {"action": "play", "play": str(play), "seq": v["seq"]}
        else:
            action = {"action": "roll" if "roll" in v["actions"] else v["actions"][0], "seq": v["seq"]}
        token = {"X-CSRF-Token": c.cookies.get("nardy_csrf") or ""}
        r = c.post(base + f"/api/games/{v['id']}/actions", json=action, headers=token)
        assert r.status_code == 200, r.text
        assert r.json()["seq"] > v["seq"]
        return r.json()


def read_answer(sock: socket.socket, timeout: float) -> tuple[int | None, dict | None]:
    """The status and JSON body the server wrote on ``sock`` before closing it (``(None, None)``: closed or
    reset without an answer); fails when the connection is still open after ``timeout`` seconds."""
    sock.settimeout(timeout)
    data = b""
    try:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        raise AssertionError(f"the connection is still open after {timeout} s (read {data[:100]!r})") from None
    if not data:
        return None, None
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body) if body else None


def readable(socks: list[socket.socket], timeout: float) -> list[socket.socket]:
    """Those of ``socks`` with something to read (an answer, or the end) within ``timeout`` seconds."""
    with selectors.DefaultSelector() as sel:
        for s in socks:
            sel.register(s, selectors.EVENT_READ)
        return [key.fileobj for key, _ in sel.select(timeout)]  # type: ignore[misc]


def health_from(base: str, source: str = PLAYER) -> dict:
    with player(source) as c:
        r = c.get(base + "/api/health")
        assert r.status_code == 200, r.text
        return r.json()


def test_a_huge_header_is_refused_431_before_it_is_read_and_health_answers_meanwhile(server):
    sock = socket.create_connection(("127.0.0.1", server.port), source_address=(ATTACKER, 0))
    sock.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
    sock.setblocking(False)
    chunk, sent, answered = b"a" * (1 << 20), 0, False
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(sock, selectors.EVENT_READ | selectors.EVENT_WRITE)
            while sent < 100 << 20:  # the outside test's 100 MB header
                events = sel.select(10)
                assert events, "the server neither reads nor answers"
                if events[0][1] & selectors.EVENT_READ:
                    answered = True
                    break
                try:
                    sent += sock.send(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    answered = True
                    break
        # meanwhile (the big head's connection still open) another client is served
        assert health_from(server.url)["status"] == "ok"
        sock.setblocking(True)
        status, body = read_answer(sock, 10)
    finally:
        sock.close()
    assert answered, f"the server read all {sent >> 20} MB"
    assert status == 431 and body["code"] == "headers_too_large" and body["error"] == "HeadersTooLarge"
    assert "32768" in body["detail"]
    # refused after the first few MB (what the kernel buffers on the way), not after reading the 100 MB
    assert sent < 16 << 20, sent


def test_a_head_just_under_the_limit_is_served_and_one_just_over_is_refused(server):
    with player() as c:
        ok = c.get(server.url + "/api/health", headers={"X-Pad": "a" * 31000})
        assert ok.status_code == 200 and ok.json()["status"] == "ok"
        over = c.get(server.url + "/api/health", headers={"X-Pad": "a" * 33000})
        assert over.status_code == 431 and over.json()["code"] == "headers_too_large"
        for name, value in FRAMING.items():
            assert over.headers[name] == value


def test_a_websocket_handshake_with_a_huge_header_is_refused_431(server):
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    url = server.url.replace("http://", "ws://") + "/api/lobby/live"
    with connect(url, open_timeout=20) as ws:  # a handshake within the limit opens the channel
        assert json.loads(ws.recv(timeout=10))["type"] == "lobby"
    with pytest.raises(InvalidStatus) as refused:
        connect(url, additional_headers={"X-Big": "a" * 200_000}, open_timeout=20)
    assert refused.value.response.status_code == 431
    assert json.loads(refused.value.response.body)["code"] == "headers_too_large"


def test_a_slowloris_from_one_address_is_capped_and_timed_out_while_others_play(server):
    n = 300
    socks: list[socket.socket] = []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", server.port), source_address=(ATTACKER, 0), timeout=10)
            s.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
            socks.append(s)
        opened = time.monotonic()
        # the connections over the per-address cap are answered 429 and closed at once
        refused, open_ = [], list(socks)
        end = time.monotonic() + HEADER_TIMEOUT * 0.6
        while len(refused) < n - PER_ADDRESS and time.monotonic() < end:
            for s in readable(open_, 0.2):
                refused.append(read_answer(s, 5))
                open_.remove(s)
        assert len(refused) == n - PER_ADDRESS and len(open_) == PER_ADDRESS, (len(refused), len(open_))
        assert {status for status, _ in refused} <= {429, None}
        answered = [body for status, body in refused if status == 429]
        assert answered and answered[0]["code"] == "too_many_connections"
        assert f"at most {PER_ADDRESS}" in answered[0]["detail"]
        # meanwhile the server answers another address: health and a game action
        assert health_from(server.url)["status"] == "ok"
        assert game_action(server.url)["phase"] in ("move", "roll", "cube", "over")
        for s in open_:  # trickling a byte does not buy more time
            s.sendall(b"a")
        # the half-sent heads are closed once the head timeout has passed (408: the head began)
        timed_out = [read_answer(s, HEADER_TIMEOUT + 10) for s in open_]
        took = time.monotonic() - opened
        assert {status for status, _ in timed_out} == {408}, timed_out[:3]
        assert timed_out[0][1]["code"] == "request_timeout"
        assert HEADER_TIMEOUT * 0.9 <= took, took
        # the address may connect again
        assert health_from(server.url, ATTACKER)["status"] == "ok"
    finally:
        for s in socks:
            s.close()


def test_a_connection_that_sends_nothing_is_closed_after_the_head_timeout(server):
    s = socket.create_connection(("127.0.0.1", server.port), source_address=(ATTACKER, 0))
    try:
        t = time.monotonic()
        assert read_answer(s, HEADER_TIMEOUT + 10) == (None, None)  # closed without an answer: nothing was asked
        assert time.monotonic() - t >= HEADER_TIMEOUT * 0.9
    finally:
        s.close()


def test_a_slow_body_is_cut_off_with_408(server):
    s = socket.create_connection(("127.0.0.1", server.port), source_address=(ATTACKER, 0))
    try:
        s.sendall(
            b"POST /api/auth/guest HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n" + b'{"name": '
        )
        t = time.monotonic()
        status, body = read_answer(s, BODY_TIMEOUT + 10)
        assert status == 408 and body["code"] == "request_timeout" and "body" in body["detail"]
        assert time.monotonic() - t >= BODY_TIMEOUT * 0.9
    finally:
        s.close()
    assert health_from(server.url)["status"] == "ok"


# ----- served: file handles kept for the database -------------------------------------------------------
FILE_LIMIT = 400


def _low_file_limit():  # in the server's process, before it starts
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


def open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="counts a process's files in /proc")
def test_a_connection_flood_from_many_addresses_leaves_file_handles_for_the_database(tmp_path):
    s = Server(
        f"sqlite:///{tmp_path / 'flood.db'}",
        extra=("--no-warm-up", f"--header-timeout={HEADER_TIMEOUT}", "--forwarded-allow-ips=127.0.0.9"),
        preexec_fn=_low_file_limit,
    )
    s.start()
    log_path = s.log.name
    socks: list[socket.socket] = []
    try:
        cap = connection_cap(4096, FILE_LIMIT)
        assert cap == FILE_LIMIT - FD_RESERVE == 144
        game_action(s.url)  # the database is in use before the flood
        # 400 half-sent requests from 10 addresses (40 each, under the per-address cap): more than the file limit
        for i in range(FILE_LIMIT):
            c = socket.create_connection(("127.0.0.1", s.port), source_address=(f"127.0.1.{10 + i % 10}", 0))
            c.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            socks.append(c)
        refused, peak = [], 0
        end = time.monotonic() + HEADER_TIMEOUT * 0.6
        open_ = list(socks)
        while len(refused) < FILE_LIMIT - cap and time.monotonic() < end:
            ready = readable(open_, 0.2)
            peak = max(peak, open_files(s.proc.pid))
            for c in ready:
                refused.append(read_answer(c, 5))
                open_.remove(c)
        # the connections over the process's cap are refused at once: 503, too many connections
        assert len(refused) >= FILE_LIMIT - cap, len(refused)
        assert {status for status, _ in refused} <= {503, None} and 503 in {status for status, _ in refused}
        assert next(body for status, body in refused if status == 503)["code"] == "too_many_connections"
        # and the process never came near its file limit: the reserve stays free for the database
        assert peak < FILE_LIMIT - FD_RESERVE // 2, peak
        # once the flood's heads time out, the server and its database serve as before
        for c in open_:
            read_answer(c, HEADER_TIMEOUT + 10)
        assert health_from(s.url)["database"] == "sqlite"
        game_action(s.url)
    finally:
        for c in socks:
            c.close()
        s.stop()
    with open(log_path, errors="replace") as log:
        text = log.read()
    assert "Too many open files" not in text and "EMFILE" not in text
    assert "at most 144 connections per process" in text

"""The checks of ``bench/attack.py`` that flood the server: a huge header (6), a slowloris (7), one client's long
analysis (9) and the live channels' limits (x2). Every one is bounded: a fixed number of sockets, a deadline, and
every socket closed at the end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import select
import socket
import statistics
import threading
import time

from attack import BROKEN, HELD, SKIPPED, Target, Trouble, Verdict, health_latency, long_record, online_pair

HEALTH_LIMIT = 1.0  # s: /api/health must answer within this during an attack


class Prober:
    """``GET /api/health`` every ``period`` seconds from its own address while an attack runs: the worst latency and
    the failures."""

    def __init__(self, base: str, source: str, period: float = 0.25):
        self.base, self.source, self.period = base, source, period
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            v = health_latency(self.base, self.source, timeout=10)
            if isinstance(v, str):
                self.failures.append(v)
            else:
                self.latencies.append(v)
            self._stop.wait(self.period)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(15)

    @property
    def worst(self) -> float:
        return max(self.latencies, default=float("nan"))

    def ok(self) -> bool:
        return not self.failures and bool(self.latencies) and self.worst < HEALTH_LIMIT

    def said(self) -> str:
        fails = f", {len(self.failures)} failed ({self.failures[0]})" if self.failures else ""
        return f"health worst {self.worst:.2f} s over {len(self.latencies)} probes{fails}"


# ----- 6: huge headers ----------------------------------------------------------------------------------------------
def send_huge(host: str, port: int, head: bytes, total: int, source: str, limit_s: float = 25.0) -> tuple[int, str]:
    """Send ``head`` and then ``total`` bytes of one header's value, stopping as soon as the server answers, closes,
    or stops reading (a send blocked 2 s), or after ``limit_s``: ``(bytes sent, how it ended)``."""
    s = socket.create_connection((host, port), timeout=5, source_address=(source, 0))
    sent = 0
    chunk = b"a" * (256 * 1024)
    end = time.monotonic() + limit_s
    try:
        s.sendall(head)
        s.settimeout(2.0)
        while sent < total:
            if time.monotonic() > end:
                return sent, f"still reading after {limit_s:g} s"
            readable, _, _ = select.select([s], [], [], 0)
            if readable:
                return sent, _answer_of(s)
            try:
                n = s.send(chunk[: min(len(chunk), total - sent)])
            except TimeoutError:
                return sent, "the server stopped reading"
            except OSError as e:
                return sent, f"closed ({type(e).__name__})"
            sent += n
        s.sendall(b"\r\n\r\n")
        s.settimeout(20)
        return sent, _answer_of(s)
    except OSError as e:
        return sent, f"closed ({type(e).__name__})"
    finally:
        s.close()


def _answer_of(s: socket.socket) -> str:
    try:
        data = s.recv(200)
    except OSError as e:
        return f"closed ({type(e).__name__})"
    if not data:
        return "closed"
    m = re.match(rb"HTTP/1\.[01] (\d{3})", data)
    return f"answered {m.group(1).decode()}" if m else f"answered {data[:20]!r}"


def check_huge_header(t: Target):
    host, port = t.host_port
    total = t.args.header_mb * 1024 * 1024
    h = f"Host: {host}:{port}\r\n"
    heads = {
        "HTTP": f"GET /api/health HTTP/1.1\r\n{h}X-Big: ".encode(),
        "WebSocket": (
            f"GET /api/lobby/live HTTP/1.1\r\n{h}Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Big: "
        ).encode(),
    }
    out, held = [], True
    for what, head in heads.items():
        with Prober(t.url, t.address(6, 9)) as probe:
            sent, how = send_huge(host, port, head, total, t.address(6, 1))
        refused = not how.startswith(("answered 2", "answered 1", "still reading")) and sent < total
        ok = refused and sent < 16 * 1024 * 1024 and probe.ok()
        held &= ok
        out.append(f"{what}: {how} after {sent / 2**20:.1f} MB sent of {t.args.header_mb} MB; {probe.said()}")
    return (HELD if held else BROKEN), "; ".join(out)


# ----- 7: slowloris -------------------------------------------------------------------------------------------------
class Slow:
    """One half-sent request: its socket, source address, when it opened and when the server closed it."""

    def __init__(self, sock: socket.socket, source: str, body: bool):
        self.sock, self.source, self.body = sock, source, body
        self.opened = time.monotonic()
        self.closed: float | None = None
        self.answer: str | None = None


def open_slow(host: str, port: int, source: str, body: bool) -> Slow | str:
    """A connection from ``source`` with a request begun and not finished (its headers, or ``body``: its body)."""
    try:
        s = socket.create_connection((host, port), timeout=3, source_address=(source, 0))
    except OSError as e:
        return type(e).__name__
    try:
        if body:
            s.sendall(
                f"POST /api/auth/guest HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: 60000\r\n\r\n{{".encode()
            )
        else:
            s.sendall(f"GET /api/health HTTP/1.1\r\nHost: {host}:{port}\r\n".encode())
    except OSError as e:
        s.close()
        return type(e).__name__
    s.setblocking(False)
    return Slow(s, source, body)


def check_slowloris(t: Target):
    host, port = t.host_port
    n, k, window = t.args.slow_sockets, t.args.slow_addresses, t.args.slow_seconds
    own = t.servers[0] if t.owned else None
    # a clock that must run out during the attack: the clock keeper has to keep working
    a, b = t.person(7, 201), t.person(7, 202)
    a.guest("SlowA")
    b.guest("SlowB")
    clock = max(3.0, round(window / 3))
    gid, v = online_pair(a, b, clock={"initial": clock})
    due = time.monotonic() + v["clock"]["remaining"][v["to_act"]]
    slows: list[Slow] = []
    refused: dict[str, int] = {}
    writes: list[int] = []
    peak_fds = per_address = 0
    t0 = time.monotonic()
    with Prober(t.url, t.address(7, 250), period=0.5) as probe:
        for i in range(n):
            for j in range(k):
                s = open_slow(host, port, t.address(7, j + 1), body=(i % 4 == 3))
                if isinstance(s, Slow):
                    slows.append(s)
                else:
                    refused[s] = refused.get(s, 0) + 1
        opened_in = time.monotonic() - t0
        end = t0 + window
        tick, guests = 0, 0
        while time.monotonic() < end:
            tick += 1
            live = [s for s in slows if s.closed is None]
            if live:
                readable, _, _ = select.select([s.sock for s in live], [], [], 0)
                ready = {id(x) for x in readable}
                for s in live:
                    if id(s.sock) in ready:
                        _closed(s)
                        continue
                    try:
                        s.sock.send(b"x" if s.body else f"X-{tick}: y\r\n".encode())
                    except BlockingIOError:
                        pass
                    except OSError:
                        _closed(s)
            if tick % 2 == 0 and guests < 20:  # a new guest (a database write) now and then, each from a new address
                guests += 1
                try:
                    with contextlib.closing(t.person(7, 100 + guests)) as p:
                        writes.append(p.call("POST", "/api/auth/guest", {"name": "Writer"}, timeout=10).status)
                except Exception as e:  # no answer at all
                    writes.append(0)
                    refused[f"write {type(e).__name__}"] = refused.get(f"write {type(e).__name__}", 0) + 1
            if own is not None:
                peak_fds = max(peak_fds, own.open_files() or 0)
            if tick > 1:  # the server has had a second to refuse what it refuses at once
                per_address = max([per_address, *_open_per_address(slows).values()])
            time.sleep(1.0)
        held_open = [s for s in slows if s.closed is None]
        for s in slows:
            with contextlib.suppress(OSError):
                s.sock.close()
    # the clock ran out while the server was flooded: was the match ended on time?
    wait = due + 3 - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    game = a.ok("GET", f"/api/games/{gid}")
    ended = (game.get("online") or {}).get("ended") or {}
    on_time = ended.get("reason") == "time"
    starved = None
    if own is not None:
        with contextlib.suppress(OSError):
            starved = own.log_path.read_text(errors="replace").count("Too many open files")
    closed_at = [s.closed - s.opened for s in slows if s.closed is not None]
    bad_writes = [w for w in writes if w != 200]
    ev = (
        f"{len(slows)} half-sent requests from {k} address(es) opened in {opened_in:.1f} s"
        + (f" ({sum(refused.values())} refused: {refused})" if refused else "")
        + f"; after {window:g} s {len(held_open)} still open"
        + (f" ({sum(s.body for s in held_open)} of them bodies)" if held_open else "")
        + (
            f", the server closed the others after {statistics.median(closed_at):.1f} s (median; {_kinds(slows)})"
            if closed_at
            else ""
        )
        + f"; at most {per_address} open at once from one address (seen each second); {probe.said()}; new guests "
        + (f"{len(writes) - len(bad_writes)}/{len(writes)} stored" + (f" ({bad_writes[:5]})" if bad_writes else ""))
        + f"; the {clock:g} s clock {'ran out on time' if on_time else 'did NOT run out: ' + str(game.get('status'))}"
        + (f"; server fds peak {peak_fds} (limit {own.file_limit()}, started at {t.args.server_nofile})" if own else "")
        + (f", 'Too many open files' {starved} times in its log" if starved else "")
    )
    held = not held_open and per_address < n and probe.ok() and not bad_writes and on_time and not starved
    return (HELD if held else BROKEN), ev


def _closed(s: Slow) -> None:
    s.closed = time.monotonic()
    try:
        data = s.sock.recv(64)
        s.answer = data[:12].decode("latin-1") if data else "closed"
    except OSError as e:
        s.answer = type(e).__name__


def _kinds(slows: list[Slow]) -> str:
    """How the server ended the slow requests it ended: ``{answer: count}`` as text."""
    kinds: dict[str, int] = {}
    for s in slows:
        if s.closed is not None:
            kinds[s.answer or "?"] = kinds.get(s.answer or "?", 0) + 1
    return ", ".join(f"{k!r} {n}" for k, n in sorted(kinds.items(), key=lambda x: -x[1])[:4])


def _open_per_address(slows: list[Slow]) -> dict[str, int]:
    """The slow requests each source address has open now (the server has not closed them)."""
    out: dict[str, int] = {}
    for s in slows:
        if s.closed is None:
            out[s.source] = out.get(s.source, 0) + 1
    return out


# ----- 9: one analysis blocks the others ----------------------------------------------------------------------------
def check_analysis(t: Target):
    host, port = t.host_port
    body = json.dumps({"text": long_record(), "level": "grandmaster"}).encode()
    anon, member = t.person(9, 2), t.person(9, 3)
    member.register(t.name("Analyst"))
    hog = socket.create_connection((host, port), timeout=5, source_address=(t.address(9, 1), 0))
    out: dict[str, tuple] = {}

    def ask(who: str, p, seed: int) -> None:
        text = long_record(seed=seed, length=1)
        try:
            a = p.call("POST", "/api/analyse", {"text": text, "level": "advanced"}, timeout=t.args.analysis_wait)
            out[who] = (a.status, a.code(), time.monotonic())
        except Exception as e:  # no answer within --analysis-wait
            out[who] = (None, type(e).__name__, time.monotonic())

    try:
        hog.sendall(
            f"POST /api/analyse HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        time.sleep(2.0)  # its analysis is under way
        at_once = _answer_of(hog) if select.select([hog], [], [], 0)[0] else None
        # another anonymous client asks, then an account: both while the long one runs
        asks = [threading.Thread(target=ask, args=("another anonymous client", anon, 91), daemon=True)]
        asks.append(threading.Thread(target=ask, args=("an account", member, 92), daemon=True))
        t0 = time.monotonic()
        asks[0].start()
        time.sleep(0.5)
        asks[1].start()
        time.sleep(1.5)
        running = at_once is None and not select.select([hog], [], [], 0)[0]
    finally:
        hog.close()  # the long analysis' client goes: the server stops its work
    for th in asks:
        th.join(t.args.analysis_wait + 10)
    if at_once is not None:
        ev = f"one anonymous client's long analysis was {at_once} within 2 s; then: "
    else:
        ev = "while one anonymous client's long analysis ran" + ("" if running else " (it ended meanwhile)") + ": "
    ev += "; ".join(
        f"{who}: {st} {code or ''} after {at - t0:.1f} s".replace("  ", " ") for who, (st, code, at) in out.items()
    )
    ok = len(out) == 2 and all(st == 200 for st, _, _ in out.values())
    first = ok and out["an account"][2] <= out["another anonymous client"][2]
    if ok and not first:
        ev += " (the account was not served first)"
    return (HELD if ok and first else BROKEN), ev


# ----- x2: the live channels' limits --------------------------------------------------------------------------------
async def _open(url: str, source: str, cookie: str | None = None):
    """A live connection: the websocket, or the way it was refused (``"HTTP 403"``, ``"close 4429"``, the error)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    headers = {"Cookie": cookie} if cookie else {}
    try:
        ws = await connect(url, additional_headers=headers, open_timeout=20, local_addr=(source, 0))
    except InvalidStatus as e:
        return f"HTTP {e.response.status_code}"
    except (OSError, TimeoutError) as e:
        return f"{type(e).__name__}"
    try:
        first = await asyncio.wait_for(ws.recv(), 10)
    except ConnectionClosed as e:
        return f"close {e.rcvd.code if e.rcvd else 'none'}"
    except TimeoutError:
        await ws.close()
        return "no first message"
    if not (isinstance(first, str) and first.startswith("{")):
        await ws.close()
        return "odd first message"
    return ws


def _clean(refusal: str) -> bool:
    """A refusal a page can understand: an HTTP status of the handshake, or a close with a code."""
    return refusal.startswith(("HTTP 4", "close 4")) or refusal in ("close 1008", "close 1013")


async def _fill(t: Target, gid: str, n: int, start: int) -> tuple[list, list[str]]:
    base = t.url.replace("http://", "ws://") + f"/api/games/{gid}/live"
    opened, refused = [], []
    for i in range(n):
        got = await _open(base, t.address(22, 1 + (start + i) // 8 % 200))
        (refused if isinstance(got, str) else opened).append(got)
    return opened, refused


async def _ws_limits(t: Target, gid: str, other: str):
    from nardy.web.services.live import MAX_PER_GAME

    cap = MAX_PER_GAME
    opened, refused = await _fill(t, gid, cap, 0)
    if refused:
        raise Trouble(f"only {len(opened)} of a game's {cap} live connections opened: {refused[:3]}")
    extra, extra_refused = await _fill(t, gid, 3, cap)
    health = await asyncio.to_thread(health_latency, t.url, t.address(22, 250))
    side = await _open(t.url.replace("http://", "ws://") + f"/api/games/{other}/live", t.address(22, 249))
    side_ok = not isinstance(side, str)
    for ws in opened[:10]:
        await ws.close()
    await asyncio.sleep(1.0)
    again, again_refused = await _fill(t, gid, 10, cap + 3)
    for ws in opened[10:] + extra + again + ([side] if side_ok else []):
        await ws.close()
    return cap, extra, extra_refused, health, side_ok, again, again_refused


def check_ws_limits(t: Target):
    a, b = t.person(22, 240), t.person(22, 241)
    a.guest("Crowd")
    b.guest("Crowd2")
    gid, _ = online_pair(a, b, watchers=True)
    other, _ = online_pair(a, b, watchers=True)
    cap, extra, extra_refused, health, side_ok, again, again_refused = asyncio.run(_ws_limits(t, gid, other))
    held = (
        not extra
        and len(extra_refused) == 3
        and all(_clean(r) for r in extra_refused)
        and isinstance(health, float)
        and health < HEALTH_LIMIT
        and side_ok
        and len(again) == 10
    )
    ev = (
        f"{cap} live connections on one game; 3 more: {len(extra)} accepted, refused as {extra_refused}; "
        f"meanwhile health {health if isinstance(health, str) else f'{health:.2f} s'}, another game's channel "
        f"{'opened' if side_ok else 'refused'}; 10 closed, then {len(again)}/10 opened again"
        + (f" ({again_refused[:2]})" if again_refused else "")
    )
    if t.args.ws_global:
        ev += "; " + _ws_global(t, a, b)
    elif held:
        ev += " (--ws-global for the 4,096 in all)"
    return (HELD if held and "BROKEN" not in ev else BROKEN), ev


def _ws_global(t: Target, a, b) -> str:
    """Fill the 4,096 live connections of the process (64 games of 64) and ask for one more."""
    from nardy.web.services.live import MAX_CONNECTIONS, MAX_PER_GAME

    if t.owned and t.args.server_nofile < MAX_CONNECTIONS + 512:
        raise Verdict(SKIPPED, f"--ws-global needs --server-nofile {MAX_CONNECTIONS + 512} or more")
    games = [online_pair(a, b, watchers=True)[0] for _ in range(-(-MAX_CONNECTIONS // MAX_PER_GAME) + 1)]

    async def run():
        conns, refusals = [], []
        for k, gid in enumerate(games[:-1]):
            opened, refused = await _fill(t, gid, MAX_PER_GAME, 64 * 200 + k * MAX_PER_GAME)
            conns += opened
            refusals += refused
        last, last_refused = await _fill(t, games[-1], 2, 0)
        health = await asyncio.to_thread(health_latency, t.url, t.address(22, 250))
        for ws in conns + last:
            await ws.close()
        return len(conns), refusals, last, last_refused, health

    n, refusals, last, last_refused, health = asyncio.run(run())
    ok = n == MAX_CONNECTIONS and not last and all(_clean(r) for r in last_refused) and isinstance(health, float)
    return f"{'' if ok else 'BROKEN: '}{n} open in all; then {len(last)} more accepted, refused as {last_refused[:2]}"

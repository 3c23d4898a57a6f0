"""The live channels' bounds (docs/security.md, "Live channel bounded"; nardy/web/live.py): at most 64 connections a
game and 4,096 in all per process. Beyond a bound a handshake is refused at once (never a hang or a 5xx), the
server goes on serving everything else, and the slots free up as soon as clients go (issue 41).

Real ``nardy serve`` subprocesses on loopback, WebSocket clients from loopback addresses of their own (eight
connections an address, so a per-address bound of the server does not stand in for the one tested). The bound in
all is tested with the server's constant lowered to 40 (``Server.setup``: the same code, fewer sockets) and,
marked slow, at its real 4,096."""

from __future__ import annotations

import asyncio
import time
import urllib.request

import pytest

from .helpers import HttpPlayer, Server

#: How a refused handshake reaches the client today: the server closes before accepting, which uvicorn answers
#: with HTTP 403 (the close code it meant, 4429, never reaches the page; see the xfail test below).
REFUSED = "HTTP 403"


async def _open(url: str, n: int):
    """Open live connection ``n`` (from address 127.43.x.y, eight an address): the websocket once its first
    message came, or how it was refused (``"HTTP 403"``, ``"close 4429"``...)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    try:
        ws = await connect(url, open_timeout=30, local_addr=(f"127.43.{n // 8 // 250}.{n // 8 % 250 + 1}", 0))
    except InvalidStatus as e:
        return f"HTTP {e.response.status_code}"
    try:
        first = await asyncio.wait_for(ws.recv(), 30)
    except ConnectionClosed as e:
        return f"close {e.rcvd.code if e.rcvd else None}"
    assert first.startswith("{"), first
    return ws


async def _many(url: str, first: int, count: int, at_once: bool = False) -> tuple[list, list[str]]:
    """Open ``count`` connections (numbered from ``first``), one after the other or all at once."""
    if at_once:
        got = await asyncio.gather(*(_open(url, first + i) for i in range(count)))
    else:
        got = [await _open(url, first + i) for i in range(count)]
    return [g for g in got if not isinstance(g, str)], [g for g in got if isinstance(g, str)]


def _health(base: str) -> float:
    t0 = time.monotonic()
    with urllib.request.urlopen(base + "/api/health", timeout=10) as r:
        assert r.status == 200
    return time.monotonic() - t0


def _watchable_games(s: Server, n: int) -> list[str]:
    p = HttpPlayer(s.url)
    p.post("/api/auth/guest", {"name": "Host"})
    body = {"game": "long", "opponent": "online", "length": 1, "watchers": True}
    return [p.post("/api/games", body, status=201)["id"] for _ in range(n)]


def _ws(s: Server, path: str) -> str:
    return s.url.replace("http://", "ws://") + path


def test_a_games_65th_live_connection_is_refused_and_the_slots_free_up_when_clients_go(make_server):
    from nardy.web.services.live import MAX_PER_GAME

    s = make_server()
    crowded, other = _watchable_games(s, 2)
    url = _ws(s, f"/api/games/{crowded}/live")

    async def run():
        full, refused = await _many(url, 0, MAX_PER_GAME)
        assert len(full) == MAX_PER_GAME and not refused, refused
        # three more, one after the other and then together: each refused at once, nothing accepted
        t0 = time.monotonic()
        extra, refused = await _many(url, 100, 3)
        more, refused_together = await _many(url, 110, 5, at_once=True)
        assert not extra and not more and refused + refused_together == [REFUSED] * 8, refused + refused_together
        assert time.monotonic() - t0 < 10
        # the server goes on: health, another game's channel, the lobby's
        assert await asyncio.to_thread(_health, s.url) < 1.0
        side, _ = await _many(_ws(s, f"/api/games/{other}/live"), 200, 1)
        lobby, _ = await _many(_ws(s, "/api/lobby/live"), 210, 1)
        assert len(side) == 1 and len(lobby) == 1
        # ten clients go: ten slots, and no more, open again (asked for all at once: the bound holds under a burst)
        for ws in full[:10]:
            await ws.close()
        await asyncio.sleep(0.5)
        again, refused = await _many(url, 300, 30, at_once=True)
        assert len(again) == 10 and refused == [REFUSED] * 20, (len(again), refused[:3])
        for ws in full[10:] + again + side + lobby:
            await ws.close()

    asyncio.run(run())


def _lowered(tmp_path, limit: int) -> Server:
    setup = (
        "import nardy.web.services.live as live, nardy.web.routers.lobby as lobby\n"
        f"live.MAX_CONNECTIONS = lobby.MAX_CONNECTIONS = {limit}"  # the lobby keeps its own name of the constant
    )
    s = Server(f"sqlite:///{tmp_path / 'limits.db'}", extra=("--no-warm-up",))
    s.setup = setup
    return s


async def _fill_all(s: Server, games: list[str], limit: int) -> list:
    """Open ``limit`` connections over ``games`` (a lobby channel among them): the websockets."""
    from nardy.web.services.live import MAX_PER_GAME

    lobby, refused = await _many(_ws(s, "/api/lobby/live"), 0, 1)
    assert len(lobby) == 1, refused
    conns = list(lobby)
    for k, gid in enumerate(games):
        take = min(MAX_PER_GAME, limit - len(conns))
        if take <= 0:
            break
        opened, refused = await _many(_ws(s, f"/api/games/{gid}/live"), 8 + k * MAX_PER_GAME, take)
        assert len(opened) == take and not refused, (k, len(opened), refused[:3])
        conns += opened
    assert len(conns) == limit
    return conns


def _check_bound_in_all(s: Server, limit: int) -> None:
    from nardy.web.services.live import MAX_PER_GAME

    games = _watchable_games(s, -(-limit // MAX_PER_GAME) + 1)

    async def run():
        conns = await _fill_all(s, games[:-1], limit)
        # full: a new game's channel and a lobby channel are refused, at once; the rest of the server serves
        t0 = time.monotonic()
        game, refused = await _many(_ws(s, f"/api/games/{games[-1]}/live"), 40000, 1)
        lobby, refused_lobby = await _many(_ws(s, "/api/lobby/live"), 40010, 1)
        assert not game and not lobby and refused + refused_lobby == [REFUSED] * 2, refused + refused_lobby
        assert time.monotonic() - t0 < 10
        assert await asyncio.to_thread(_health, s.url) < 1.0
        # five go: five come in (a burst of twelve), not one more
        for ws in conns[-5:]:
            await ws.close()
        await asyncio.sleep(0.5)
        again, refused = await _many(_ws(s, f"/api/games/{games[-1]}/live"), 40100, 12, at_once=True)
        assert len(again) == 5 and refused == [REFUSED] * 7, (len(again), refused[:3])
        for ws in conns[:-5] + again:
            await ws.close()

    asyncio.run(run())


def test_the_live_connections_in_all_stop_at_the_bound_and_free_up_when_clients_go(tmp_path):
    s = _lowered(tmp_path, 40).start()
    try:
        _check_bound_in_all(s, 40)
    finally:
        s.stop()


@pytest.mark.slow
def test_the_4096_live_connections_in_all_of_a_process_stop_there(tmp_path):
    import resource

    from nardy.web.services.live import MAX_CONNECTIONS

    need = MAX_CONNECTIONS + 1024  # this test's sockets, and the server's (it inherits the limit)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < need:
        pytest.skip(f"the open-file limit is {hard}; this test needs {need} (ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, need), hard))
    s = Server(f"sqlite:///{tmp_path / 'all.db'}", extra=("--no-warm-up",)).start()
    try:
        _check_bound_in_all(s, MAX_CONNECTIONS)
    finally:
        s.stop()


@pytest.mark.xfail(
    strict=True,
    reason="a refused live handshake is closed before it is accepted, which uvicorn turns into HTTP 403: the page "
    "sees close code 1006, never the 4429 (full), 4403 (not yours) or 4404 (no such game) the server meant, so "
    "nardy/web/static/online.js retries games it may never see (issue 41 report)",
)
def test_a_refused_live_connection_tells_the_page_why_by_its_close_code(tmp_path):
    s = _lowered(tmp_path, 1).start()
    try:
        gid = _watchable_games(s, 1)[0]

        async def run():
            first, _ = await _many(_ws(s, f"/api/games/{gid}/live"), 0, 1)
            _, refused = await _many(_ws(s, f"/api/games/{gid}/live"), 8, 1)
            _, missing = await _many(_ws(s, "/api/games/0123456789abcdef/live"), 16, 1)
            for ws in first:
                await ws.close()
            return refused + missing

        assert asyncio.run(run()) == ["close 4429", "close 4404"]
    finally:
        s.stop()

"""The streams of programs as players (issue 44, docs/bots.md "Server: tokens, bot accounts, streams").

* ``GET /api/stream/events``: NDJSON (one JSON object a line; a blank line every :data:`~nardy.web.services.events.
  KEEP_ALIVE` seconds with nothing to send) of the signed-in account's events: first a ``gameStart`` for each of
  its matches in progress and a ``challenge`` for each challenge named to it and open, then as they come
  ``challenge``, ``challengeCanceled``, ``gameStart``, ``gameFinish`` (:mod:`nardy.web.services.events`);
  ``WS /api/stream/events/live``: the same objects as text frames.
* ``GET /api/stream/game/{id}``: NDJSON of the game's views as ``GET /api/games/{id}`` gives them to the account
  (first the view now, then each new one); it ends after the match is over (or the game closed).

Both need a log-in (a token with the scope ``read``, or a cookie); at most
:data:`~nardy.web.services.events.MAX_STREAMS` open streams per account and server process (429
``too_many_streams``). A stream never ends by itself otherwise: a client that reconnects is sent the state afresh.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from fastapi import APIRouter, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from ..deps import GameId, read_locked
from ..errors import Refused
from ..lang import language
from ..services import events, seats
from ..services.access import check_reader
from ..services.live import Conn
from ..services.publishing import shown_json
from .auth import current_user, require_user

__all__ = ["router"]

router = APIRouter(tags=["bots"])

NDJSON = "application/x-ndjson"
_STREAM_DOC = {200: {"description": "NDJSON: one JSON object a line", "content": {NDJSON: {}}}}
#: The statuses after which a game's stream ends.
_DONE = ('"status":"over"', '"status":"cancelled"', '"status":"declined"', '"status":"aborted"')


async def _lines(queue: asyncio.Queue, keep_alive: float) -> AsyncIterator[str | None]:
    """The queue's items as they come; ``""`` after ``keep_alive`` seconds with none; ``None`` ends."""
    while True:
        try:
            item = await asyncio.wait_for(queue.get(), keep_alive)
        except TimeoutError:
            yield ""
            continue
        yield item
        if item is None:
            return


@router.get(
    "/api/stream/events",
    summary="Your events as NDJSON: challenges named to you, games starting and finishing",
    response_class=StreamingResponse,
    responses=_STREAM_DOC,
)
async def event_stream(request: Request) -> StreamingResponse:
    user = await require_user(await current_user(request))
    app = request.app
    events.open_stream(app, user.id)
    conn = events.EventConn(user.id)
    feed = events.feed_of(app)
    feed.conns.add(conn)
    events.poke(app)

    async def body() -> AsyncIterator[str]:
        try:
            async for item in _lines(conn.queue, events.KEEP_ALIVE):
                if item is None:
                    return
                yield item + "\n" if item else "\n"
        finally:
            feed.conns.discard(conn)
            events.close_stream(app, user.id)

    return StreamingResponse(body(), media_type=NDJSON, headers={"Cache-Control": "no-store"})


@router.websocket("/api/stream/events/live")
async def event_socket(ws: WebSocket):
    """The event stream as WebSocket text frames (the handshake needs a log-in: closed 4401 without; 4429 past
    the streams' bound)."""
    user = await current_user(ws)
    if user is None:
        await ws.close(code=4401)
        return
    app = ws.app
    try:
        events.open_stream(app, user.id)
    except Exception:
        await ws.close(code=4429)
        return
    conn = events.EventConn(user.id)
    feed = events.feed_of(app)
    await ws.accept()
    feed.conns.add(conn)
    events.poke(app)

    async def reader() -> None:  # the client's messages: "ping" answered, the rest ignored; returns when it goes
        try:
            while True:
                msg = await ws.receive_text()
                if msg[:256] == "ping":
                    await ws.send_text("pong")
        except (WebSocketDisconnect, RuntimeError):
            return

    listening = asyncio.get_running_loop().create_task(reader())
    try:
        while not listening.done():
            getting = asyncio.ensure_future(conn.queue.get())
            done, _ = await asyncio.wait({getting, listening}, return_when=asyncio.FIRST_COMPLETED)
            if getting not in done:
                getting.cancel()
                break
            item = getting.result()
            if item is None:
                await ws.close(code=1013)
                break
            await ws.send_text(item)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        listening.cancel()
        feed.conns.discard(conn)
        events.close_stream(app, user.id)


@router.get(
    "/api/stream/game/{gid}",
    summary="A game's views as NDJSON: the view now, then each new one, until the match is over",
    response_class=StreamingResponse,
    responses=_STREAM_DOC,
)
async def game_stream(request: Request, gid: GameId) -> StreamingResponse:
    user = await require_user(await current_user(request))
    app = request.app
    store = app.state.storage
    local = app.state.game_locks.local(gid)
    uid = user.id

    def first() -> tuple[int, list[int], str]:
        game = read_locked(store, gid)
        check_reader(game.session, uid, gid)  # 404 as for a missing game unless it may be seen
        return game.saved.revision, game.session.sides_of(uid), shown_json(game, uid, None, "own")

    async with local:
        seq, sides, _ = await run_in_threadpool(first)
    hub = app.state.hub
    if not hub.room(gid):
        raise Refused(
            429,
            "too many connections to this game",
            code="too_many_streams",
            kind="TooManyRequests",
            params={"most": events.MAX_STREAMS},
        )
    events.open_stream(app, uid)
    sock = events.StreamSocket()
    conn = Conn(sock, uid, sides, None, "own", language(request))  # type: ignore[arg-type]
    hub.add(gid, conn)
    await seats.joined(app, gid, sides, conn)  # a bot following its game is there, as a page is
    try:
        async with local:  # read again once in the hub (a change stored meanwhile is not missed)
            seq, _, view = await run_in_threadpool(first)
        await hub.send(conn, seq, view)
    except BaseException:
        hub.remove(gid, conn)
        await seats.left(app, gid, sides)
        events.close_stream(app, uid)
        raise

    async def body() -> AsyncIterator[str]:
        try:
            async for item in _lines(sock.queue, events.KEEP_ALIVE):
                if item is None:
                    return
                yield item + "\n" if item else "\n"
                if item and any(d in item for d in _DONE) and _over(item):
                    return
        finally:
            hub.remove(gid, conn)
            await seats.left(app, gid, sides)
            events.close_stream(app, uid)

    return StreamingResponse(body(), media_type=NDJSON, headers={"Cache-Control": "no-store"})


def _over(view: str) -> bool:
    """The view (JSON text) is of a match over, or of a game closed."""
    try:
        v = json.loads(view)
    except ValueError:
        return False
    return bool(v.get("match_over")) or v.get("status") in ("over", "cancelled", "declined", "aborted")

"""Chat routes: a game's channels, the lobby's, mutes and reports (docs/online.md "Chat"; the rules of who reads
and writes what are :mod:`nardy.web.services.chat`, the rows :mod:`nardy.web.store.chat`).

* ``POST /api/games/{id}/chat {"text", "key"?}`` -> 201 ``{"id", "seq", "from", "text", "at", "channel"}``: the
  seated players write in ``players``, others who may see the game in ``watchers``; ``key`` (the page's own id of
  the message) makes a resend return the stored message. ``GET /api/games/{id}/chat?after=SEQ`` ->
  ``{"messages": [...], "channels": [...], "write": channel | null}``. A stranger of a private game: 404.
* ``POST /api/lobby/chat``, ``GET /api/lobby/chat?after=SEQ``: the lobby's channel (accounts write).
* ``GET /api/mutes``, ``POST /api/mutes {"uid"}``, ``DELETE /api/mutes/{uid}``: a muted player's messages are
  neither listed nor pushed to the muter. Blocks (``/api/blocks``) hide messages both ways.
* ``POST /api/chat/{message_id}/report {"reason"}`` -> 201: stored for a moderator (a report of a message its
  reporter cannot read: 404).
"""

from __future__ import annotations

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ..deps import GameId, read_locked
from ..errors import Refused
from ..services.access import check_reader, forbidden
from ..services.chat import (
    ENDED,
    LOBBY,
    MAX_TEXT,
    clean_text,
    game_channels,
    hides_changed,
    notice,
    publish_message,
)
from ..store.chat import ChatLimit, chat_book
from ..store.storage import User
from .auth import current_user, require_user

__all__ = ["router"]

router = APIRouter()

MessageId = GameId  # the same shape: [0-9A-Za-z_-], at most 32


class ChatBody(BaseModel):
    """A chat message: its text (checked by :func:`nardy.web.services.chat.clean_text`) and the page's own key."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(
        ..., max_length=4 * MAX_TEXT, description=f"1..{MAX_TEXT} characters (NFC), no control characters"
    )
    key: str | None = Field(
        None, min_length=1, max_length=64, pattern=r"^[0-9A-Za-z_-]+$", description="the page's id of this message"
    )


class MuteBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    uid: MessageId = Field(..., description="the player id to mute")


class ReportBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field("", max_length=200, description="why (up to 200 characters)")


def _limit_refused(e: ChatLimit) -> Refused:
    if e.kind == "full":
        return Refused(409, "this game's chat is full", code="chat_full", kind="Conflict")
    return Refused(
        429,
        f"too many messages; try again in {e.retry_after} s",
        code="chat_rate",
        kind="TooManyRequests",
        params={"seconds": e.retry_after},
        headers={"Retry-After": str(e.retry_after)},
    )


async def _game_rights(request: Request, gid: str, uid: str | None) -> tuple[list[str], str | None, bool]:
    """The channels ``uid`` reads and writes in game ``gid`` and whether it is over; 404 for a stranger."""
    app = request.app

    def look():
        s = read_locked(app.state.storage, gid).session
        check_reader(s, uid, gid)
        reads, writes = game_channels(s, uid)
        return reads, writes, s.status

    async with app.state.game_locks.local(gid):
        reads, writes, status = await run_in_threadpool(look)
    return reads, writes, status in ENDED


@router.get("/api/games/{gid}/chat", tags=["chat"], summary="A game's chat (the channels the asker may read)")
async def game_chat(request: Request, gid: GameId, after: int = Query(0, ge=0, le=2**31)):
    user: User | None = await current_user(request)
    uid = user.id if user else None
    reads, writes, _ = await _game_rights(request, gid, uid)
    messages = await run_in_threadpool(chat_book(request.app).messages, gid, reads, uid, after)
    return {"messages": messages, "channels": reads, "write": writes}


@router.post("/api/games/{gid}/chat", tags=["chat"], status_code=201, summary="Say something in a game's chat")
async def post_game_chat(request: Request, body: ChatBody, gid: GameId, response: Response):
    user = await require_user(await current_user(request))
    text = clean_text(body.text)
    _, writes, ended = await _game_rights(request, gid, user.id)
    if writes is None:
        raise forbidden("chat_not_allowed", "you may not write in this game's chat")
    try:
        message, new = await run_in_threadpool(
            chat_book(request.app).post, gid, writes, user.id, text, body.key, None, user.name, notice(ended)
        )
    except ChatLimit as e:
        raise _limit_refused(e) from None
    if new:
        await publish_message(request.app, gid, message, ended)
    else:
        response.status_code = 200
    return message


@router.get("/api/lobby/chat", tags=["chat"], summary="The lobby's chat")
async def lobby_chat(request: Request, after: int = Query(0, ge=0, le=2**31)):
    user: User | None = await current_user(request)
    messages = await run_in_threadpool(
        chat_book(request.app).messages, LOBBY, ["lobby"], user.id if user else None, after
    )
    return {"messages": messages, "channels": ["lobby"], "write": "lobby" if user and user.kind != "guest" else None}


@router.post("/api/lobby/chat", tags=["chat"], status_code=201, summary="Say something in the lobby's chat")
async def post_lobby_chat(request: Request, body: ChatBody, response: Response):
    user = await require_user(await current_user(request))
    text = clean_text(body.text)
    if user.kind == "guest":
        raise forbidden("chat_account_needed", "guests chat in the games they sit at; register to chat in the lobby")
    try:
        message, new = await run_in_threadpool(
            chat_book(request.app).post, LOBBY, "lobby", user.id, text, body.key, None, user.name, notice(False)
        )
    except ChatLimit as e:
        raise _limit_refused(e) from None
    if new:
        await publish_message(request.app, LOBBY, message)
    else:
        response.status_code = 200
    return message


@router.get("/api/mutes", tags=["chat"], summary="The players you mute")
async def my_mutes(request: Request):
    user = await require_user(await current_user(request))
    return {"mutes": await run_in_threadpool(chat_book(request.app).mutes, user.id)}


@router.post("/api/mutes", tags=["chat"], summary="Mute a player: their chat messages are hidden from you")
async def mute(request: Request, body: MuteBody):
    user = await require_user(await current_user(request))
    if body.uid == user.id:
        raise Refused(422, "you cannot mute yourself", code="self_mute", kind="InvalidOptionError")
    other = await run_in_threadpool(request.app.state.storage.user, body.uid)
    if other is None:
        raise Refused(404, "no such player", code="no_player", kind="NotFound")
    new = await run_in_threadpool(chat_book(request.app).mute, user.id, other.id)
    await hides_changed(request.app)
    return {"muted": {"id": other.id, "name": other.name}, "new": new}


@router.delete("/api/mutes/{uid}", tags=["chat"], status_code=204, summary="Hear a muted player again")
async def unmute(request: Request, uid: MessageId):
    user = await require_user(await current_user(request))
    await run_in_threadpool(chat_book(request.app).unmute, user.id, uid)
    await hides_changed(request.app)
    return Response(status_code=204)


@router.post("/api/chat/{mid}/report", tags=["chat"], status_code=201, summary="Report a chat message to a moderator")
async def report(request: Request, mid: MessageId, body: ReportBody, response: Response):
    user = await require_user(await current_user(request))
    book = chat_book(request.app)
    message = await run_in_threadpool(book.message, mid)
    gone = Refused(404, "no such chat message", code="no_message", kind="NotFound")
    if message is None:
        raise gone
    if message["room"] != LOBBY:
        try:
            reads, _, _ = await _game_rights(request, message["room"], user.id)
        except Exception:
            raise gone from None
        if message["channel"] not in reads:
            raise gone
    reason = " ".join(body.reason.split())[:200]
    out, new = await run_in_threadpool(book.report, mid, user.id, reason)
    if not new:
        response.status_code = 200
    return out

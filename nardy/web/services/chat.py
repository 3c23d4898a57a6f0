"""Chat in each game and in the lobby: who may read and write which channel, the checks of a message's text, and
the live pushes (docs/online.md "Chat").

* A game has two channels: ``players`` (its seated players, guests included) and ``watchers`` (everyone else who may
  see the game). While the game is played, each side reads only its own channel; once it is over (or closed),
  everyone who may see the game reads both (the record's review shows them). A stranger of a private game is
  answered as for a missing game (404: its existence is never confirmed).
* The lobby has one channel, ``lobby``: anyone reads it, accounts write in it (guests chat in the games they sit
  at).
* A message is 1..:data:`MAX_TEXT` characters after NFC normalisation and trimming, without control characters
  (:func:`clean_text`); the rate and the cap are the store's (:mod:`nardy.web.store.chat`).
* Live: after a message is stored, :func:`push` sends ``{"type": "chat", "message": {...}}`` to this process's
  connections of the room that may read the channel and neither mute nor block the sender (nor are blocked by
  them); the other processes are told with a notification of kind ``chat`` carrying the message (:func:`follow`).
"""

from __future__ import annotations

import contextlib
import json
import unicodedata

from starlette.concurrency import run_in_threadpool

from ..errors import Refused
from ..store.chat import LOBBY, chat_book
from .live import Conn, announce, encode

__all__ = [
    "MAX_TEXT",
    "PRESETS",
    "ENDED",
    "clean_text",
    "game_channels",
    "may_read",
    "push",
    "follow",
    "publish_message",
    "LOBBY",
]

#: A message's most characters (after NFC).
MAX_TEXT = 300
#: The quick phrases the page offers as buttons (its own texts; the server takes any text).
PRESETS = ("Good luck", "Well played", "Удачи", "Хорошая игра")
#: A game's statuses after which both channels are open to all who may see it.
ENDED = ("over", "cancelled", "declined", "aborted")


def _invalid(detail: str, code: str, **params) -> Refused:
    return Refused(422, detail, code=code, kind="RequestValidationError", params=params)


def clean_text(text: str) -> str:
    """``text`` as stored: NFC, without the white space around it. Raises Refused 422 ``chat_empty`` (nothing
    left), ``chat_too_long`` (over :data:`MAX_TEXT` characters), ``chat_control`` (a control or format character
    other than a line break: they could hide or reorder what others read)."""
    t = unicodedata.normalize("NFC", text).strip()
    if not t:
        raise _invalid("a chat message has some text", "chat_empty")
    if len(t) > MAX_TEXT:
        raise _invalid(f"a chat message has at most {MAX_TEXT} characters", "chat_too_long", most=MAX_TEXT)
    for ch in t:
        if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Zl", "Zp"):
            raise _invalid("a chat message has no control characters", "chat_control")
    return t


def game_channels(session, uid: str | None) -> tuple[list[str], str | None]:
    """The channels ``uid`` reads in a game they may see, and the one they write in (``None``: none)."""
    seated = bool(uid) and bool(session.sides_of(uid))
    own = "players" if seated else "watchers"
    if session.status in ENDED:
        return ["players", "watchers"], own if uid else None
    return [own], own if uid else None


def may_read(conn_sides: list[int] | None, ended: bool, channel: str) -> bool:
    """Whether a live connection (seated: ``conn_sides`` not empty) is sent a message of ``channel``."""
    if channel == "lobby" or ended:
        return True
    return (channel == "players") == bool(conn_sides)


async def push(app, room: str, message: dict, ended: bool = False) -> None:
    """Send ``message`` (stored) to this process's live connections of ``room`` that may read it (see the
    module docstring). Muted and blocked readers are looked up once (one query) for all the connections."""
    conns: list[Conn] = list(app.state.hub.games.get(room, ()))
    if not conns:
        return
    sender = message["from"]["id"]
    readers = [c for c in conns if may_read(c.sides, ended, message["channel"])]
    if not readers:
        return
    try:
        hidden = await run_in_threadpool(chat_book(app).hidden_from, sender, [c.user for c in readers if c.user])
    except Exception:  # the database is down: nobody is sent what might be hidden from them; they read it later
        return
    text = '{"type":"chat","message":' + encode(message) + "}"
    for conn in readers:
        if conn.user in hidden:
            continue
        async with conn.lock:
            with contextlib.suppress(Exception):
                await conn.ws.send_text(text)


async def publish_message(app, room: str, message: dict, ended: bool = False) -> None:
    """Push a message just stored here, and tell the other server processes (kind ``chat``)."""
    await push(app, room, message, ended)
    with contextlib.suppress(Exception):
        await announce(app, "chat", room + " " + ("1" if ended else "0") + " " + encode(message))


async def follow(app, key: str) -> None:
    """A ``chat`` notification from another process: ``"<room> <ended 0|1> <message JSON>"``; pushed to this
    process's connections of the room."""
    try:
        room, ended, body = key.split(" ", 2)
        message = json.loads(body)
    except ValueError:
        return
    if room and isinstance(message, dict) and isinstance(message.get("from"), dict):
        await push(app, room, message, ended == "1")

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
  them: :class:`HiddenCache`); the other processes are told with a notification of kind ``chat`` carrying the
  message, sent by the statement that stored it (:func:`follow`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import unicodedata

from starlette.concurrency import run_in_threadpool

from ..errors import Refused
from ..store.chat import LOBBY, chat_book, notice_key
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
    "notice",
    "hides_changed",
    "HiddenCache",
    "hidden_cache",
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


class HiddenCache:
    """Which readers hide which senders (mute, block either way), as this process last read them: ``(sender,
    reader) -> bool``. A message's fan-out asks the database only about the readers not known yet (one query for
    all of them), so the messages of a game's chat after its first cost no query. Emptied at once when a mute or
    block changes in this process, on the other processes by a ``chat`` notification ``"hides"``
    (:func:`hides_changed`), and every :data:`HIDDEN_TTL` seconds in any case (a notification lost while a
    process reconnects)."""

    def __init__(self, ttl: float | None = None, most: int = 200_000):
        self.ttl = HIDDEN_TTL if ttl is None else ttl
        self.most = most
        self.known: dict[tuple[str, str], bool] = {}
        self.since = time.monotonic()
        self.queries = 0

    def clear(self) -> None:
        self.known = {}
        self.since = time.monotonic()

    async def hidden(self, app, sender: str, readers: list[str]) -> set[str]:
        """Those of ``readers`` not to be sent ``sender``'s message. Raises what the database raises."""
        if time.monotonic() - self.since > self.ttl or len(self.known) > self.most:
            self.clear()
        known = self.known
        unknown = sorted({r for r in readers if r != sender and (sender, r) not in known})
        if unknown:
            self.queries += 1
            got = await run_in_threadpool(chat_book(app).hidden_from, sender, unknown)
            if known is self.known:  # not emptied meanwhile
                for r in unknown:
                    known[(sender, r)] = r in got
            return {r for r in readers if r in got or known.get((sender, r), False)}
        return {r for r in readers if known.get((sender, r), False)}


#: Seconds after which a process forgets who hides whom (see :class:`HiddenCache`).
HIDDEN_TTL = 60.0


def hidden_cache(app) -> HiddenCache:
    """The app's :class:`HiddenCache` (made on first use)."""
    h = getattr(app.state, "chat_hidden", None)
    if h is None:
        h = app.state.chat_hidden = HiddenCache()
    return h


async def hides_changed(app) -> None:
    """A mute or block changed: this process forgets who hides whom, and tells the others (``chat`` ``"hides"``)."""
    hidden_cache(app).clear()
    with contextlib.suppress(Exception):
        await announce(app, "chat", "hides")


async def push(app, room: str, message: dict, ended: bool = False) -> None:
    """Send ``message`` (stored) to this process's live connections of ``room`` that may read it (see the
    module docstring). Muted and blocked readers: :class:`HiddenCache` (one query at most, for all the
    connections). The message is encoded once and sent to all the readers together."""
    conns: list[Conn] = list(app.state.hub.games.get(room, ()))
    if not conns:
        return
    sender = message["from"]["id"]
    readers = [c for c in conns if may_read(c.sides, ended, message["channel"])]
    if not readers:
        return
    try:
        hidden = await hidden_cache(app).hidden(app, sender, [c.user for c in readers if c.user])
    except Exception:  # the database is down: nobody is sent what might be hidden from them; they read it later
        return
    text = '{"type":"chat","message":' + encode(message) + "}"

    async def send(conn: Conn) -> None:
        async with conn.lock:
            with contextlib.suppress(Exception):
                await conn.ws.send_text(text)

    targets = [c for c in readers if c.user not in hidden]
    if len(targets) == 1:
        await send(targets[0])
    elif targets:
        await asyncio.gather(*(send(c) for c in targets))


async def publish_message(app, room: str, message: dict, ended: bool = False) -> None:
    """Push a message just stored here (the other processes were told by its store's statement:
    :meth:`nardy.web.store.chat.ChatBook.post` with a ``notice``)."""
    await push(app, room, message, ended)


def notice(ended: bool) -> str:
    """The ``notice`` word a message's notification carries (:meth:`ChatBook.post`): whether the game is over."""
    return "1" if ended else "0"


async def follow(app, key: str) -> None:
    """A ``chat`` notification from another process: a message stored there (``"<room> <ended 0|1> <seq>
    <message JSON without seq>"``, :func:`nardy.web.store.chat.notice_key`), pushed to this process's connections
    of the room; or ``"hides"``: a mute or block changed there (:class:`HiddenCache` emptied)."""
    if key == "hides":
        hidden_cache(app).clear()
        return
    got = notice_key(key)
    if got is not None:
        room, ended, message = got
        await push(app, room, message, ended == "1")

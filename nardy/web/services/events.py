"""The streams of programs as players (issue 44, docs/bots.md "Server: tokens, bot accounts, streams"): an
account's events and a game's views, fed by the notifications the pages' live channels use already.

Event streams (:class:`EventFeed`, ``app.state.event_feed``)
    Each open stream of this process is an :class:`EventConn` of one account, holding the events to send (a
    bounded queue) and what it has been told: the named challenges to it that are open, and its matches in
    progress. A round (:func:`refresh`) reads, for every account with a stream here, the open challenges named
    to it and its matches in progress (two queries for all of them), and gives each stream the difference:
    ``{"type": "challenge", "challenge": {...}}`` for a new one, ``{"type": "challengeCanceled", "id"}`` for one
    withdrawn, declined or lapsed, ``{"type": "gameStart", "game": {"id", "game", "seat", "status"}}`` for a new
    match, ``{"type": "gameFinish", "game": {...}}`` for one no longer in progress. A stream's first round sends
    what is there (the matches in progress, the challenges waiting).

    Rounds come when something may have changed, on any server process: the lobby changed
    (:func:`nardy.web.routers.lobby.publish_lobby`, which every process runs on a ``lobby`` notification and
    every 15 s by itself, calls :func:`poke`), or a game a stream's account plays changed (its views are pushed:
    :func:`nardy.web.services.publishing.publish` and ``follow`` call :func:`game_changed`). One round runs at a
    time per process; changes that come meanwhile make one more round after it.

Game streams (:class:`StreamSocket`)
    A game's stream is a connection of the game's :class:`~nardy.web.services.live.Hub` like a page's live
    channel, whose socket puts each view on a queue instead of sending it.

Bounds: :data:`MAX_STREAMS` open streams per account and process (both kinds together: 429 ``too_many_streams``),
:data:`QUEUE` messages waiting per stream (a stream that falls further behind is ended: its client connects
again and is sent the state afresh).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass, field

from starlette.concurrency import run_in_threadpool

from ..errors import Refused
from ..store.bots import games_in_progress
from ..store.community import community
from .live import encode

log = logging.getLogger("nardy.web")

__all__ = [
    "EventConn",
    "EventFeed",
    "StreamSocket",
    "feed_of",
    "poke",
    "game_changed",
    "refresh",
    "open_stream",
    "close_stream",
    "MAX_STREAMS",
    "KEEP_ALIVE",
    "QUEUE",
]

#: Open streams per account in one server process (event and game streams together).
MAX_STREAMS = 4
#: Seconds between two keep-alive blank lines of an NDJSON stream with nothing to send.
KEEP_ALIVE = 20.0
#: Messages waiting per stream at most.
QUEUE = 256
#: Seconds at least between the starts of two rounds (a burst of changes costs a few rounds, not one each).
ROUND_GAP = 0.05


@dataclass(eq=False)
class EventConn:
    """One open event stream: its account, the events to send (JSON text; ``None``: the stream is to end), and
    what it has been told (the open challenges named to it, its matches in progress by id)."""

    user: str
    queue: asyncio.Queue = field(default_factory=lambda: asyncio.Queue(QUEUE))
    challenges: set[str] = field(default_factory=set)
    games: dict[str, dict] = field(default_factory=dict)
    primed: bool = False
    ended: bool = False

    def put(self, event: dict | None) -> None:
        """Queue ``event`` (``None``: end the stream); a stream too far behind is ended."""
        if self.ended:
            return
        try:
            self.queue.put_nowait(encode(event) if event is not None else None)
        except asyncio.QueueFull:
            self.ended = True
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)
        if event is None:
            self.ended = True


class EventFeed:
    """The event streams of one process (``app.state.event_feed``), and its open streams per account."""

    def __init__(self) -> None:
        self.conns: set[EventConn] = set()
        self.open: dict[str, int] = {}
        self.running = False
        self.again = False
        self.rounds = 0
        self.last_round = 0.0

    def playing(self, gid: str) -> bool:
        """Whether a stream here has been told of match ``gid`` as in progress."""
        return any(gid in c.games for c in self.conns)


def feed_of(app) -> EventFeed:
    feed = getattr(app.state, "event_feed", None)
    if feed is None:
        feed = app.state.event_feed = EventFeed()
    return feed


def open_stream(app, uid: str) -> None:
    """Count an open stream of account ``uid``. Raises Refused: 429 ``too_many_streams`` past :data:`MAX_STREAMS`."""
    feed = feed_of(app)
    n = feed.open.get(uid, 0)
    if n >= MAX_STREAMS:
        raise Refused(
            429,
            f"an account has at most {MAX_STREAMS} open streams; close one first",
            code="too_many_streams",
            kind="TooManyRequests",
            params={"most": MAX_STREAMS},
            headers={"Retry-After": "5"},
        )
    feed.open[uid] = n + 1


def close_stream(app, uid: str) -> None:
    """A stream of ``uid`` counted by :func:`open_stream` closed."""
    feed = feed_of(app)
    n = feed.open.get(uid, 0) - 1
    if n > 0:
        feed.open[uid] = n
    else:
        feed.open.pop(uid, None)


_ROUNDS: set[asyncio.Task] = set()


def poke(app) -> None:
    """Something may have changed for the event streams (the lobby, a game): start a round unless none is
    open here (the round goes on after the caller returns)."""
    feed = feed_of(app)
    if not feed.conns:
        return
    if feed.running:
        feed.again = True
        return
    task = asyncio.get_running_loop().create_task(refresh(app))
    _ROUNDS.add(task)
    task.add_done_callback(_ROUNDS.discard)


def game_changed(app, gid: str) -> None:
    """Game ``gid``'s views were pushed: a round when a stream here follows it as a match in progress."""
    feed = getattr(app.state, "event_feed", None)
    if feed is not None and feed.playing(gid):
        poke(app)


def _read(app, uids: list[str], told: set[str]) -> tuple[dict[str, list[dict]], dict[str, dict[str, dict]], set[str]]:
    """The open challenges named to each of ``uids``, their matches in progress, and which of the challenges
    ``told`` (sent as open) were accepted since (no ``challengeCanceled`` for them: a ``gameStart`` comes)."""
    com = community(app)
    named = com.named(uids)
    still = {c["id"] for entries in named.values() for c in entries if c["status"] == "open"}
    accepted = set()
    for cid in sorted(told - still):
        ch = com.challenge(cid)
        if ch is not None and ch.status == "accepted":
            accepted.add(cid)
    return named, games_in_progress(app.state.storage, uids), accepted


async def refresh(app) -> None:
    """Rounds until no change came meanwhile (see the module docstring)."""
    feed = feed_of(app)
    if feed.running:
        feed.again = True
        return
    feed.running = True
    try:
        while True:
            feed.again = False
            wait = feed.last_round + ROUND_GAP - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            feed.last_round = time.monotonic()
            await _round(app, feed)
            if not feed.again:
                return
    finally:
        feed.running = False


async def _round(app, feed: EventFeed) -> None:
    conns = list(feed.conns)
    if not conns:
        return
    uids = sorted({c.user for c in conns})
    told = set().union(*(c.challenges for c in conns))
    try:
        named, playing, accepted = await run_in_threadpool(_read, app, uids, told)
    except Exception:  # the database is down a moment: the next change or presence round tries again
        log.info("event streams: could not be read")
        return
    feed.rounds += 1
    for conn in conns:
        if conn.ended or conn not in feed.conns:
            continue
        uid = conn.user
        now_games = playing.get(uid, {})
        for gid, g in now_games.items():
            if gid not in conn.games:
                conn.put({"type": "gameStart", "game": g})
        for gid, g in conn.games.items():
            if gid not in now_games:
                conn.put({"type": "gameFinish", "game": {k: v for k, v in g.items() if k != "status"}})
        conn.games = dict(now_games)
        open_to_me = {
            c["id"]: c for c in named.get(uid, []) if c["status"] == "open" and (c.get("to") or {}).get("id") == uid
        }
        for cid, c in open_to_me.items():
            if cid not in conn.challenges:
                conn.put({"type": "challenge", "challenge": {**c, "from": c.get("owner")}})
        for cid in sorted(conn.challenges - set(open_to_me) - accepted):
            conn.put({"type": "challengeCanceled", "id": cid})
        conn.challenges = set(open_to_me)
        conn.primed = True


class StreamSocket:
    """The socket of a game stream's :class:`~nardy.web.services.live.Conn`: each view the hub sends goes on the
    queue as the view's JSON text; other messages (presence) are left out; a stream too far behind is ended
    (``None``)."""

    _HEAD = '{"type":"view","view":'

    def __init__(self) -> None:
        self.queue: asyncio.Queue = asyncio.Queue(QUEUE)

    async def send_text(self, text: str) -> None:
        if text.startswith(self._HEAD):
            self._put(text[len(self._HEAD) : -1])

    async def send_json(self, data) -> None:  # the lobby's messages: never sent to a game's connection
        return None

    def _put(self, item: str | None) -> None:
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)

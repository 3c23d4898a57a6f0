"""The lobby: open challenges, quick pairing, who is online, games to watch, ratings, blocks, fair play.

Routes (docs/online.md, "Lobby", "Ratings", "Fair play"):

* ``GET /api/lobby``: the lobby as its asker sees it (challenges of players they neither block nor are
  blocked by, who is online, games being played that anyone may watch, their own quick-pairing seek).
  ``WS /api/lobby/live``: the same, ``{"type": "lobby", "v": version, "lobby": {...}}``, when it opens, then
  only what changed (``{"type": "lobby-delta", "from": version, "v": version, ...}``: :func:`publish_lobby`,
  docs/online.md "The lobby's live channel").
* ``POST /api/lobby/challenges`` (game, length, clock, rated, rating range, colour): an open challenge anyone
  may accept (``POST /api/lobby/challenges/{id}/accept``: the game is made and begins, both seated);
  ``DELETE /api/lobby/challenges/{id}`` withdraws it.
* ``POST /api/lobby/quick``: quick pairing by game, length, clock and rating; ``GET``/``DELETE`` the seek.
  A player plays one game from the lobby at a time: asked again while its game is unfinished, the answer is
  that game (``paired``); taking a challenge meanwhile is refused (409 ``already_playing``).
* ``GET /api/ratings`` (the leaderboard), ``GET /api/players/{id}`` (ratings, fair play),
  ``/api/players/{id}/history`` (rated matches); a player's games, rating graph and head-to-head:
  :mod:`nardy.web.routers.profiles`.
* ``GET/POST /api/blocks``, ``DELETE /api/blocks/{id}``.
* ``POST /api/games/{id}/claim`` (:mod:`nardy.web.routers.fairplay`): the opponent left a rated match past its grace
  period while it was theirs to act: they lose it.

Every action is authorised (a log-in session; a rated match needs an account on both sides), idempotent
(a repeated accept answers the same game, a repeated withdrawal or block changes nothing), and stored before
it is answered; the lobby's state is the database's (:mod:`nardy.web.store.community`), so several server
processes share it. Changes reach the pages through the live channel's hub (:class:`nardy.web.services.live.Hub`,
channel :data:`LOBBY`): a notification names only the channel, and each process compares the lobby it reads
afresh from the database with the one it read before, sending each connection the difference as it sees it.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
import logging
import secrets
import time
from dataclasses import dataclass
from typing import Literal

from fastapi import APIRouter, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy import select
from starlette.concurrency import run_in_threadpool

from ...flow.clock import clock_spec
from ...rules.errors import GameStateError
from ...rules.variants import get_rules
from .. import ratings as _r
from ..deps import GameId, language, read_locked
from ..errors import Refused
from ..gamecache import columns
from ..presence import wall_clock
from ..seeds import refuse_early_seed
from ..services.events import poke as poke_events
from ..services.live import MAX_CONNECTIONS, Conn, PeriodicTask, announce, encode
from ..services.publishing import publish, shown
from ..services.social import addressee
from ..sessions import new_session
from ..store.community import (
    LOBBY,
    Challenge,
    ChallengeLimit,
    ChallengeRefused,
    Community,
    community,
)
from ..store.db import users
from ..store.profiles import start_ratings
from ..store.storage import User
from ..view import SavedGameView
from .auth import current_user, require_user
from .bots import check_same_pool
from .games import ClockBody, DaysBody

__all__ = [
    "router",
    "publish_lobby",
    "lobby_changed",
    "PresenceKeeper",
    "PRESENCE_EVERY",
]

log = logging.getLogger("nardy.web")

router = APIRouter()

#: Seconds between two presence rounds (the connected players' ``seen`` written, the lobby sent again).
PRESENCE_EVERY = 15.0
#: Lobby connections at most (in this process).
MAX_LOBBY = 2048
#: Seconds between two rounds of sending the lobby to its connections when changes keep coming.
LOBBY_GAP = 0.25

UserId = GameId  # the same shape: [0-9A-Za-z_-], at most 32


# ----- helpers -------------------------------------------------------------------------------------------
def _refused(status: int, code: str, detail: str, kind: str, **params) -> Refused:
    return Refused(status, detail, code=code, kind=kind, params=params)


_REFUSALS = {
    "no_challenge": (404, "no such open challenge (withdrawn, taken or lapsed)", "NotFound"),
    "challenge_taken": (409, "someone else accepted this challenge first", "Conflict"),
    "own_challenge": (409, "this is your own challenge", "Conflict"),
    "blocked": (403, "you cannot play this player", "Forbidden"),
    "already_playing": (409, "you are playing a game from the lobby; finish it first", "Conflict"),
}


def _challenge_refused(e: ChallengeRefused) -> Refused:
    status, detail, kind = _REFUSALS[e.code]
    if e.code == "already_playing":
        return _refused(status, e.code, detail, kind, game=e.game_id)
    return _refused(status, e.code, detail, kind)


def _limit_refused(e: ChallengeLimit) -> Refused:
    if e.kind == "too_many_open":
        return _refused(
            409, "too_many_open", "you have too many open challenges; withdraw one first", "Conflict", most=3
        )
    wait = e.retry_after
    return Refused(
        429,
        f"too many challenges; try again in {wait} s",
        code="too_many_challenges",
        kind="TooManyRequests",
        params={"retry_after": wait, "minutes": max(1, -(-wait // 60))},
        headers={"Retry-After": str(wait)},
    )


async def _signed_in(conn) -> User:
    return await require_user(await current_user(conn))


# ----- request bodies --------------------------------------------------------------------------------------
_OWN_SEED = (
    "you give your own seed for the fair dice once the game is made and has shown you its commitment "
    "(POST /api/games/{id}/seed, docs/fairness.md); false: the server makes it"
)


class Terms(BaseModel):
    """What a challenge or a quick-pairing seek asks for."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field("backgammon", max_length=40, description="backgammon, short or long (aliases accepted)")
    length: int = Field(1, ge=1, le=25, description="match length in points")
    clock: Literal["none", "blitz", "rapid", "classic"] | ClockBody | DaysBody | None = Field(
        "blitz", description="a preset, times in seconds, or {days: 1|2|3|7} a move; a rated match has a clock"
    )
    rated: bool = Field(True, description="the result changes both players' ratings (accounts only)")
    client_seed: str | None = Field(None, max_length=64, description="refused (seed_before_commitment): see own_seed")
    own_seed: bool = Field(False, description=_OWN_SEED)


class ChallengeBody(Terms):
    colour: Literal["white", "black", "random"] = "random"
    rating_min: float | None = Field(None, ge=0, le=4000, description="the lowest rating that may accept")
    rating_max: float | None = Field(None, ge=0, le=4000, description="the highest rating that may accept")
    rating_range: float | None = Field(
        None,
        ge=0,
        le=4000,
        description="instead of rating_min/rating_max: only players rated within this many points of you may accept",
    )
    to: str | None = Field(None, min_length=1, max_length=40, description="a player's name: only they may accept")

    @model_validator(mode="after")
    def _range(self):
        if self.rating_min is not None and self.rating_max is not None and self.rating_min > self.rating_max:
            raise ValueError("rating_min is above rating_max")
        if self.rating_range is not None and (self.rating_min is not None or self.rating_max is not None):
            raise ValueError("give rating_range or rating_min/rating_max, not both")
        return self


class QuickBody(Terms):
    rating_range: float | None = Field(
        None, ge=0, le=4000, description="pair only with players rated within this many points of you (default: any)"
    )


class AcceptBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    client_seed: str | None = Field(None, max_length=64, description="refused (seed_before_commitment): see own_seed")
    own_seed: bool = Field(False, description=_OWN_SEED)


class BlockBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user: UserId = Field(..., description="the player id to block")


def _terms(body: Terms, user: User) -> dict:
    """The stored terms of ``body`` (the game's own name, the clock and its class); 403 ``guest_unrated``, 422
    ``rated_needs_clock`` for a rated match without one."""
    game = get_rules(body.game).name
    clock = body.clock.model_dump() if isinstance(body.clock, (ClockBody, DaysBody)) else body.clock
    if clock == "none":
        clock = None
    spec = clock_spec(clock)
    if body.rated and user.guest:
        raise _refused(403, "guest_unrated", "guests play unrated games; register to play rated ones", "Forbidden")
    if body.rated and spec is None:
        raise _refused(422, "rated_needs_clock", "a rated match has a clock", "InvalidOptionError")
    klass = _r.clock_class(spec.initial, spec.increment, spec.delay, spec.days) if spec is not None else "untimed"
    refuse_early_seed(body.client_seed)
    return {
        "game": game,
        "length": body.length,
        "clock": clock,
        "clock_class": klass,
        "rated": body.rated,
        "own_seed": body.own_seed,
    }


def _builder(store, taker: User, own_seed: bool):
    """``build(challenge, conn) -> game id`` for :meth:`Community.take_challenge`: the challenge's owner at
    their colour, ``taker`` in the other seat, the game stored on ``conn``; the match begins once the seeds
    awaited (``own_seed`` of each: :mod:`nardy.web.seeds`) are given after the game's commitment."""

    def build(ch: Challenge, conn) -> str:
        colour = ch.colour if ch.colour != "random" else secrets.choice(("white", "black"))
        owner = conn.execute(select(users.c.name, users.c.bot).where(users.c.id == ch.owner)).first()
        owner_name = owner.name if owner else "?"
        names = [owner_name, "?"] if colour == "white" else ["?", owner_name]
        s = new_session(
            ch.game,
            length=ch.length,
            opponent="online",
            colour=colour,
            players=names,
            owner=ch.owner,
            own_seed=ch.own_seed,
            clock=ch.clock,
            watchers=True,
        )
        s.settings.update(rated=ch.rated, rating_class=ch.clock_class, challenge=ch.id)
        s.settings["bots"] = [u for u, b in ((ch.owner, owner and owner.bot), (taker.id, taker.bot)) if b]
        s.join(taker.id, taker.name, None, time.time(), own_seed=own_seed)
        seats = [x.player for x in s.table.seats]  # the ratings as the match begins, shown beside the names
        s.settings["ratings"] = start_ratings(conn, seats, ch.game, ch.clock_class, ch.rated)
        s.run_bots()
        saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s), conn=conn)
        return saved.id

    return build


# ----- the lobby's view ------------------------------------------------------------------------------------
#: The lists of the lobby that every connection shares (then filtered by its blocks), each entry with an ``id``.
LISTS = ("challenges", "online", "live")


def _snapshot(com: Community) -> dict:
    """What every lobby connection shares: open challenges (with their owners' names and ratings), who is
    online, games to watch."""
    chs = com.open_challenges()
    online = com.online()
    names = {u["id"]: u for u in online}
    missing = [ch.owner for ch in chs if ch.owner not in names]  # online, but not among the players listed
    if missing:
        names.update(com.names(missing))
    rated = com.ratings_for([(ch.owner, ch.game, ch.clock_class) for ch in chs if ch.rated])
    out = []
    for ch in chs:
        who = names.get(ch.owner, {"id": ch.owner, "name": "?", "guest": False})
        r = rated.get((ch.owner, ch.game, ch.clock_class)) if ch.rated else None
        out.append({**ch.public(), "owner": who, "owner_rating": round(r.rating) if r else None})
    return {"challenges": out, "online": online, "live": com.live_games()}


def _owner(entry: dict, key: str) -> str:
    """The player an entry of list ``key`` belongs to (the one whose blocks hide it), ``""`` for none."""
    if key == "challenges":
        return entry["owner"]["id"]
    return entry["id"] if key == "online" else ""


def _personal(snap: dict, uid: str | None, avoid: set[str], mine: dict) -> dict:
    """The snapshot as player ``uid`` sees it: without the challenges of players they block or are blocked
    by, with their own quick-pairing seek (``seek``) and their challenge taken in the last minutes (``taken``:
    its ``game_id`` is the game to open); ``mine``: their entry of :meth:`Community.mine`."""
    seek, taken = mine.get("seek"), mine.get("taken")
    return {
        "challenges": [c for c in snap["challenges"] if c["owner"]["id"] not in avoid],
        "online": [u for u in snap["online"] if u["id"] not in avoid],
        "live": snap["live"],
        "seek": seek.public() if seek else None,
        "taken": taken.public() if taken else None,
        "named": mine.get("named", []),
        "me": uid,
    }


def lobby_view(com: Community, uid: str | None) -> dict:
    snap = _snapshot(com)
    if uid is None:
        return _personal(snap, None, set(), {})
    return _personal(snap, uid, com.avoided([uid])[uid], com.mine([uid])[uid])


def lobby_diff(old: dict, new: dict) -> dict:
    """What changed from snapshot ``old`` to ``new`` (both of :func:`_snapshot`, shared by all): for each list
    of :data:`LISTS` that changed, ``{"put": [entries new or changed, in the new order], "drop": [ids gone]}``
    (either left out when empty; a list that did not change is left out: ``{}`` when nothing did)."""
    out = {}
    for key in LISTS:
        before = {e["id"]: e for e in old[key]}
        now = {e["id"] for e in new[key]}
        put = [e for e in new[key] if before.get(e["id"]) != e]
        drop = [i for i in before if i not in now]
        if put or drop:
            out[key] = _change(put, drop)
    return out


def _change(put: list, drop: list) -> dict:
    return ({"put": put} if put else {}) | ({"drop": drop} if drop else {})


def _seen_by(diff: dict, old: dict, avoid: set[str]) -> dict:
    """``diff`` as a player who blocks or is blocked by the players ``avoid`` sees it (their entries left out,
    put and dropped alike; ``old``: the snapshot it moves from, whose entries name the owners of the ids
    dropped)."""
    out = {}
    for key, d in diff.items():
        owners = {e["id"]: _owner(e, key) for e in old[key]}
        put = [e for e in d.get("put", ()) if _owner(e, key) not in avoid]
        drop = [i for i in d.get("drop", ()) if owners.get(i, "") not in avoid]
        if put or drop:
            out[key] = _change(put, drop)
    return out


@dataclass(eq=False)
class _Viewer:
    """What one lobby connection has been sent: ``v`` the version its page holds (``None``: it needs a
    snapshot), the blocks it was filtered by, its seek and taken challenge as sent (JSON text), when its last
    snapshot went (``time.monotonic``)."""

    v: int | None = None
    avoid: frozenset = frozenset()
    seek: str = "null"
    taken: str = "null"
    named: str = "[]"
    snapshot_at: float = -1e9


class LobbyFeed:
    """The lobby's live messages of one process (``app.state.lobby_feed``): the version of the lobby its
    connections were last sent, the snapshot that version is (``shared``), and each connection's
    :class:`_Viewer`. One round at a time (:func:`publish_lobby`) reads and changes it."""

    def __init__(self) -> None:
        self.version = 0
        self.shared: dict | None = None
        self.viewers: dict[Conn, _Viewer] = {}
        self.sent_messages = 0  # figures (bench/lobby_fanout.py): messages and bytes sent, snapshots among them
        self.sent_bytes = 0
        self.sent_snapshots = 0


def lobby_feed(app) -> LobbyFeed:
    feed = getattr(app.state, "lobby_feed", None)
    if feed is None:
        feed = app.state.lobby_feed = LobbyFeed()
    return feed


#: The way before the live deltas, kept as the reference of bench/lobby_fanout.py: every round sends every
#: connection the whole lobby (``{"type": "lobby", "lobby": {...}}``, no version).
FULL_SNAPSHOTS = False
#: Seconds at least between two snapshots a page asks for (``"snapshot"``) on one connection.
SNAPSHOT_GAP = 1.0


async def publish_lobby(app) -> None:
    """Send every lobby connection of this process what changed in the lobby as it sees it (read from the
    database: a notification from another process needs only the channel's name, :data:`LOBBY`).

    A connection's first message is the lobby whole, ``{"type": "lobby", "v": version, "lobby": {...}}``; after
    it, a round sends only what changed since the snapshot this process read last (:func:`lobby_diff`, filtered
    by the connection's blocks, with its own seek and taken challenge when they changed):
    ``{"type": "lobby-delta", "from": version, "v": version, ...}``, and nothing to a connection that sees no
    change. A connection whose blocks changed, whose page asked (``"snapshot"``) or whose last message was not
    sent gets the lobby whole again (docs/online.md, "The lobby's live channel").

    Changes that come while a round is under way are sent together, once, when it is done (at most one
    round in the making a process, and :data:`LOBBY_GAP` seconds between two: a crowd arriving at once costs
    a few rounds, not one round per arrival for everyone); every change is sent, the last round reading the
    database after it."""
    state = app.state
    poke_events(app)  # the event streams of programs look for their own changes (issue 44)
    if getattr(state, "lobby_sending", False):
        state.lobby_again = True
        return
    state.lobby_sending = True
    try:
        while True:
            state.lobby_again = False
            await (_publish_full_once(app) if FULL_SNAPSHOTS else _publish_lobby_once(app))
            if not state.lobby_again:
                return
            await asyncio.sleep(LOBBY_GAP)
    finally:
        state.lobby_sending = False


def _tail(seek: str, taken: str, named: str = "[]") -> str:
    return f'"seek":{seek},"taken":{taken},"named":{named}'


async def _publish_lobby_once(app) -> None:
    hub = app.state.hub
    conns = list(hub.games.get(LOBBY, ()))
    feed = lobby_feed(app)
    for gone in [c for c in feed.viewers if c not in set(conns)]:
        del feed.viewers[gone]
    if not conns:
        feed.shared = None  # nobody to compare with: the next connection's round reads the lobby afresh
        return
    com = community(app)
    now = time.monotonic()

    def render() -> list[tuple[Conn, str, bool]]:
        # the messages as JSON text, made here (off the event loop): the snapshot and the change encoded once
        # for everyone who blocks nobody, each one's own part added to it
        snap = _snapshot(com)
        uids = sorted({c.user for c in conns if c.user})
        avoid, mine = com.avoided(uids), com.mine(uids)
        old, before = feed.shared, feed.version
        diff = lobby_diff(old, snap) if old is not None else None
        version = before + 1
        feed.shared, feed.version = snap, version
        common_snap = common_diff = None
        out = []
        for c in conns:
            viewer = feed.viewers.get(c)
            if viewer is None:
                viewer = feed.viewers[c] = _Viewer()
            own = frozenset(avoid.get(c.user or "", ()))
            theirs = mine.get(c.user or "", {})
            seek, taken = theirs.get("seek"), theirs.get("taken")
            seek_t = encode(seek.public()) if seek else "null"
            taken_t = encode(taken.public()) if taken else "null"
            named_t = encode(theirs.get("named", []))
            fresh = viewer.v is None or diff is None or own != viewer.avoid
            if fresh:
                if own:
                    body = encode(_personal(snap, c.user, set(own), theirs))[1:-1]
                else:
                    if common_snap is None:
                        common_snap = encode({k: snap[k] for k in LISTS})[1:-1]
                    body = common_snap + "," + _tail(seek_t, taken_t, named_t) + ',"me":' + encode(c.user)
                text = f'{{"type":"lobby","v":{version},"lobby":{{{body}}}}}'
            else:
                assert diff is not None and old is not None
                if own:
                    mine_diff = _seen_by(diff, old, set(own))
                    part = encode(mine_diff)[1:-1] if mine_diff else ""
                else:
                    if common_diff is None:
                        common_diff = encode(diff)[1:-1] if diff else ""
                    part = common_diff
                bits = [part] if part else []
                if seek_t != viewer.seek:
                    bits.append('"seek":' + seek_t)
                if taken_t != viewer.taken:
                    bits.append('"taken":' + taken_t)
                if named_t != viewer.named:
                    bits.append('"named":' + named_t)
                text = ""
                if bits:
                    text = f'{{"type":"lobby-delta","from":{viewer.v},"v":{version},' + ",".join(bits) + "}"
            viewer.avoid, viewer.seek, viewer.taken, viewer.named = own, seek_t, taken_t, named_t
            if text:
                viewer.v = version
                if fresh:
                    viewer.snapshot_at = now
                out.append((c, text, fresh))
        return out

    try:
        views = await run_in_threadpool(render)
    except Exception:  # the database is down a moment: the next change or round sends it again
        log.info("lobby: could not be read for its connections")
        return
    for conn, text, fresh in views:
        if await _send(conn, text):
            feed.sent_messages += 1
            feed.sent_bytes += len(text.encode())
            feed.sent_snapshots += fresh
        elif (viewer := feed.viewers.get(conn)) is not None:
            viewer.v = None  # not sent: its page is behind; the next round sends it the lobby whole


#: The event loop each lobby connection is served by (one a process, but a test's clients run one each).
_LOOPS: dict[Conn, asyncio.AbstractEventLoop] = {}


async def _send(conn: Conn, text: str) -> bool:
    """Send ``text`` on ``conn`` (on the event loop that serves it); False when it could not be sent (the
    socket is closing)."""

    async def send() -> bool:
        async with conn.lock:
            try:
                await conn.ws.send_text(text)
            except Exception:
                return False
        return True

    loop = _LOOPS.get(conn)
    if loop is None or loop is asyncio.get_running_loop():
        return await send()
    try:
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(send(), loop))
    except Exception:  # that loop has closed
        return False


async def _publish_full_once(app) -> None:
    """The reference (:data:`FULL_SNAPSHOTS`): every connection the whole lobby, as before the live deltas."""
    hub = app.state.hub
    conns = list(hub.games.get(LOBBY, ()))
    if not conns:
        return
    com = community(app)
    feed = lobby_feed(app)

    def render() -> list[tuple[Conn, str]]:
        snap = _snapshot(com)
        uids = sorted({c.user for c in conns if c.user})
        avoid, mine = com.avoided(uids), com.mine(uids)
        common = json.dumps({k: snap[k] for k in LISTS})[:-1]
        out = []
        for c in conns:
            own, theirs = avoid.get(c.user or "", set()), mine.get(c.user or "", {})
            if own:
                out.append((c, json.dumps({"type": "lobby", "lobby": _personal(snap, c.user, own, theirs)})))
                continue
            seek, taken = theirs.get("seek"), theirs.get("taken")
            tail = {
                "seek": seek.public() if seek else None,
                "taken": taken.public() if taken else None,
                "named": theirs.get("named", []),
                "me": c.user,
            }
            out.append((c, '{"type": "lobby", "lobby": ' + common + ", " + json.dumps(tail)[1:] + "}"))
        return out

    try:
        views = await run_in_threadpool(render)
    except Exception:
        log.info("lobby: could not be read for its connections")
        return
    for conn, text in views:
        if await _send(conn, text):
            feed.sent_messages += 1
            feed.sent_bytes += len(text.encode())
            feed.sent_snapshots += 1


#: The rounds started by :func:`lobby_changed` and not yet done (kept so that they are not collected).
_ROUNDS: set[asyncio.Task] = set()


async def lobby_changed(app) -> None:
    """The lobby changed through this process: tell the other server processes (``NOTIFY``, kind ``lobby``:
    they send their own connections what changed, :func:`publish_lobby`) and start this process's round, which
    goes on after the caller answers (a request does not wait for the lobby's connections to be sent)."""
    try:
        await announce(app, "lobby", LOBBY)
    except Exception:  # the notification is lost: the other processes' presence rounds send it within 15 s
        log.info("lobby: could not tell the other processes")
    task = asyncio.get_running_loop().create_task(publish_lobby(app))
    _ROUNDS.add(task)
    task.add_done_callback(_ROUNDS.discard)


class PresenceKeeper(PeriodicTask):
    """Every :data:`PRESENCE_EVERY` seconds: write that the players connected to this process (the lobby, live
    games) are there, and send the lobby again (who is online changes by itself, challenges lapse)."""

    def __init__(self, app, period: float = PRESENCE_EVERY):
        self.app = app
        self.period = period
        self.task: asyncio.Task | None = None
        self.rounds = 0

    async def tick(self) -> None:
        hub = self.app.state.hub
        self.rounds += 1
        if self.rounds % 40 == 1:  # now and then (every 10 minutes): old presence and challenges go
            await run_in_threadpool(community(self.app).prune)
        seen = [(c.user, key) for key, conns in list(hub.games.items()) for c in list(conns) if c.user]
        if seen:
            when = _dt.datetime.fromtimestamp(wall_clock(self.app), _dt.UTC)  # the claims' clock
            await run_in_threadpool(community(self.app).touch, seen, when)
        await publish_lobby(self.app)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(self.period)
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.warning("presence: a round failed", exc_info=True)


# ----- routes: the lobby -----------------------------------------------------------------------------------
@router.get("/api/lobby", tags=["lobby"], summary="The lobby: open challenges, who is online, games to watch")
async def get_lobby(request: Request):
    user = await current_user(request)
    com = community(request.app)
    if user is not None:
        await run_in_threadpool(com.touch, [(user.id, LOBBY)])
    return await run_in_threadpool(lobby_view, com, user.id if user else None)


@router.post(
    "/api/lobby/challenges", tags=["lobby"], status_code=201, summary="Make an open challenge anyone may accept"
)
async def make_challenge(request: Request, body: ChallengeBody):
    user = await _signed_in(request)
    terms = _terms(body, user)
    terms.update(colour=body.colour, rating_min=body.rating_min, rating_max=body.rating_max)
    com = community(request.app)
    if body.to is not None:  # a named challenge: only that player sees and may accept it
        terms["to"] = await addressee(request.app, user, body.to)
        if body.rated:  # bots of the pool "bots" and people are rated apart (issue 44)
            await check_same_pool(request.app, user.id, terms["to"])
    await run_in_threadpool(com.touch, [(user.id, LOBBY)])
    if body.rating_range is not None:  # around the owner's rating for the challenge's game and clock class
        mine = (await run_in_threadpool(com.rating, user.id, terms["game"], terms["clock_class"])).rating
        terms.update(rating_min=max(0.0, mine - body.rating_range), rating_max=mine + body.rating_range)
    try:
        ch = await run_in_threadpool(com.create_challenge, user.id, terms)
    except ChallengeLimit as e:
        raise _limit_refused(e) from None
    await lobby_changed(request.app)
    return {"challenge": ch.public()}


@router.delete("/api/lobby/challenges/{cid}", tags=["lobby"], summary="Withdraw your challenge (again: nothing)")
async def withdraw_challenge(request: Request, cid: GameId):
    user = await _signed_in(request)
    com = community(request.app)
    ch = await run_in_threadpool(com.cancel_challenge, cid, user.id)
    if ch is None:
        raise _refused(404, "no_challenge", "you have no such challenge", "NotFound")
    await lobby_changed(request.app)
    return {"challenge": ch.public()}


async def _take(request: Request, user: User, own_seed: bool, take) -> tuple[Challenge, bool]:
    store = request.app.state.storage
    lane = request.app.state.action_lane
    try:
        return await lane(take, _builder(store, user, own_seed))
    except ChallengeRefused as e:
        raise _challenge_refused(e) from None
    except GameStateError as e:
        raise _refused(409, e.code or "conflict", str(e), "Conflict") from None


async def _game_view(request: Request, gid: str, uid: str) -> dict:
    store = request.app.state.storage

    def view() -> dict:
        return shown(read_locked(store, gid), uid, None, "own").model_dump(mode="json", by_alias=True)

    async with request.app.state.game_locks.local(gid):
        return await run_in_threadpool(view)


@router.post(
    "/api/lobby/challenges/{cid}/accept",
    tags=["lobby"],
    response_model=SavedGameView,
    summary="Accept an open challenge: the game is made and begins (again: the same game)",
)
async def accept_challenge(request: Request, body: AcceptBody, cid: GameId):
    user = await _signed_in(request)
    com = community(request.app)
    ch = await run_in_threadpool(com.challenge, cid)
    if ch is None or (ch.to is not None and user.id not in (ch.to, ch.owner)):  # another's: as if not there
        raise _refused(404, "no_challenge", "no such open challenge", "NotFound")
    refuse_early_seed(body.client_seed)
    if ch.status == "open" and ch.owner != user.id:
        if ch.rated and user.guest:
            raise _refused(403, "guest_unrated", "guests play unrated games; register to play rated ones", "Forbidden")
        if ch.rated:
            await check_same_pool(request.app, ch.owner, user.id)
        if ch.rating_min is not None or ch.rating_max is not None:
            mine = (await run_in_threadpool(com.rating, user.id, ch.game, ch.clock_class)).rating
            if (ch.rating_min is not None and mine < ch.rating_min) or (
                ch.rating_max is not None and mine > ch.rating_max
            ):
                raise _refused(
                    403, "out_of_range", "your rating is outside the challenge's range", "Forbidden", rating=round(mine)
                )
    taken, new = await _take(request, user, body.own_seed, lambda build: com.take_challenge(cid, user.id, build))
    gid = taken.game_id or ""
    if new:
        await publish(request.app, gid)
        await lobby_changed(request.app)
    return await _game_view(request, gid, user.id)


@router.post(
    "/api/lobby/quick",
    tags=["lobby"],
    summary="Quick pairing: play the longest-waiting player on the same terms, or wait for one (again: the same)",
)
async def quick(request: Request, body: QuickBody):
    user = await _signed_in(request)
    terms = _terms(body, user)
    terms["colour"] = "random"
    com = community(request.app)
    await run_in_threadpool(com.touch, [(user.id, LOBBY)])
    mine = (await run_in_threadpool(com.rating, user.id, terms["game"], terms["clock_class"])).rating
    if body.rating_range is not None:
        terms.update(rating_min=mine - body.rating_range, rating_max=mine + body.rating_range)
    try:
        seek, paired = await _take(
            request, user, body.own_seed, lambda build: com.quick_pair(user.id, terms, mine, build)
        )
    except ChallengeLimit as e:
        raise _limit_refused(e) from None
    if paired and seek.game_id:
        await publish(request.app, seek.game_id)
    await lobby_changed(request.app)
    status = "paired" if paired else "waiting"
    return {"status": status, "game": seek.game_id if paired else None, "seek": seek.public()}


@router.get("/api/lobby/quick", tags=["lobby"], summary="Your quick-pairing seek (paired: its game)")
async def my_seek(request: Request):
    user = await _signed_in(request)
    com = community(request.app)
    await run_in_threadpool(com.touch, [(user.id, LOBBY)])
    # the game of a quick pairing being played (theirs taken, or another's seek they took), else their seek
    seek = await run_in_threadpool(com.playing, user.id)
    if seek is None or seek.kind != "quick":
        seek = await run_in_threadpool(com.seek, user.id)
    if seek is None:
        return {"status": "none", "game": None, "seek": None}
    status = "paired" if seek.status == "accepted" else "waiting"
    return {"status": status, "game": seek.game_id, "seek": seek.public()}


@router.delete("/api/lobby/quick", tags=["lobby"], summary="Stop waiting for quick pairing (again: nothing)")
async def leave_quick(request: Request):
    user = await _signed_in(request)
    com = community(request.app)
    seek = await run_in_threadpool(com.seek, user.id)
    if seek is not None and seek.status == "open":
        seek = await run_in_threadpool(com.cancel_challenge, seek.id, user.id)
        await lobby_changed(request.app)
    return {"seek": seek.public() if seek else None}


@router.websocket("/api/lobby/live")
async def lobby_live(ws: WebSocket):
    """The lobby's live channel: a snapshot now, then the deltas (:func:`publish_lobby`); ``"ping"`` is answered
    ``"pong"``, ``"snapshot"`` with a snapshot (at most one a :data:`SNAPSHOT_GAP`); the handshake's Origin is
    checked by :func:`nardy.web.routers.auth.check_request`."""
    app = ws.app
    user = await current_user(ws)
    uid = user.id if user else None
    hub = app.state.hub
    # the lobby's own bound (a game's 64 connections do not apply to it), and the hub's bound in all
    if len(hub.games.get(LOBBY, ())) >= MAX_LOBBY or hub.count >= MAX_CONNECTIONS:
        await ws.close(code=4429)
        return
    conn = Conn(ws, uid, [], None, "own", language(ws))
    await ws.accept()
    _LOOPS[conn] = asyncio.get_running_loop()
    hub.add(LOBBY, conn)
    com = community(app)
    feed = lobby_feed(app)
    try:
        # its first message, the lobby whole, comes with the round this starts
        if uid is not None:
            await run_in_threadpool(com.touch, [(uid, LOBBY)])
            await lobby_changed(app)  # someone came online: everyone sees them
        else:
            await publish_lobby(app)
        while True:
            msg = (await ws.receive_text())[:256]
            if msg == "ping":
                await _send(conn, "pong")
            elif msg == "snapshot":  # the page missed a change: the lobby whole, at most one a SNAPSHOT_GAP
                viewer = feed.viewers.get(conn)
                if viewer is not None:
                    wait = viewer.snapshot_at + SNAPSHOT_GAP - time.monotonic()
                    if wait > 0:
                        await asyncio.sleep(wait)
                    viewer.v = None
                await publish_lobby(app)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        hub.remove(LOBBY, conn)
        feed.viewers.pop(conn, None)
        _LOOPS.pop(conn, None)


# ----- routes: ratings and players -------------------------------------------------------------------------
_GAMES = Literal["backgammon", "short", "long"]
_CLASSES = Literal["blitz", "rapid", "classic", "correspondence"]


@router.get("/api/ratings", tags=["ratings"], summary="The leaderboard of a game at a clock class")
async def leaderboard(
    request: Request,
    game: _GAMES = Query("backgammon"),
    clock: _CLASSES = Query("blitz"),
    limit: int = Query(50, ge=1, le=200),
    offset: int = Query(0, ge=0, le=100_000),
    pool: Literal["people", "bots"] = Query("people", description="people, or bots rated among themselves"),
):
    rows = await run_in_threadpool(community(request.app).leaderboard, game, clock, limit, offset, pool)
    return {"game": game, "clock_class": clock, "pool": pool, "players": rows}


async def _player(request: Request, uid: str) -> User:
    u = await run_in_threadpool(request.app.state.storage.user, uid)
    if u is None:
        raise _refused(404, "no_player", "no such player", "NotFound")
    return u


@router.get("/api/players/{uid}", tags=["ratings"], summary="A player: their ratings and fair-play record")
async def player(request: Request, uid: UserId):
    u = await _player(request, uid)
    com = community(request.app)
    return {
        **u.public(),
        "ratings": await run_in_threadpool(com.ratings_of, uid),
        "fair_play": await run_in_threadpool(com.fair_play, uid),
    }


@router.get("/api/players/{uid}/history", tags=["ratings"], summary="A player's rated matches, newest first")
async def player_history(
    request: Request, uid: UserId, limit: int = Query(50, ge=1, le=200), offset: int = Query(0, ge=0, le=100_000)
):
    await _player(request, uid)
    return {"history": await run_in_threadpool(community(request.app).history, uid, limit, offset)}


# ----- routes: blocks --------------------------------------------------------------------------------------
@router.get("/api/blocks", tags=["lobby"], summary="The players you block")
async def my_blocks(request: Request):
    user = await _signed_in(request)
    return {"blocks": await run_in_threadpool(community(request.app).blocked_by, user.id)}


@router.post("/api/blocks", tags=["lobby"], summary="Block a player: neither sees nor takes the other's challenges")
async def block(request: Request, body: BlockBody):
    user = await _signed_in(request)
    if body.user == user.id:
        raise _refused(422, "self_block", "you cannot block yourself", "InvalidOptionError")
    other = await _player(request, body.user)
    new = await run_in_threadpool(community(request.app).block, user.id, other.id)
    await lobby_changed(request.app)
    return {"blocked": other.public(), "new": new}


@router.delete("/api/blocks/{uid}", tags=["lobby"], status_code=204, summary="Unblock a player (again: nothing)")
async def unblock(request: Request, uid: UserId):
    user = await _signed_in(request)
    await run_in_threadpool(community(request.app).unblock, user.id, uid)
    await lobby_changed(request.app)
    return Response(status_code=204)

"""Games against people elsewhere: who may do what in a game, invitations, the live channel, fair dice.

Every game belongs to whoever started it (:attr:`HostedGame.owner`, a player id from :mod:`nardy.web.routers.auth`). A
game against the computer or at one screen is its owner's alone: only they see it, act in it, delete it. An
online game (``"opponent": "online"``) has two remote seats: the owner's, and one that whoever opens the
invitation link takes (``POST /api/games/{id}/join``); each seated player acts only for their side and only
when it is theirs to act (403 otherwise); others may watch if the game allows it. The server rolls the dice
(provably fair: :mod:`nardy.rules.fairdice`, docs/fairness.md), checks every action, stores it, then pushes the new
state to everyone on ``WS /api/games/{id}/live`` (:mod:`nardy.web.services.live`).

Routes here: join, decline, cancel, rematch, fairness and the live WebSocket. The checks of who may do what
are :mod:`nardy.web.services.access`; the views and pushes :mod:`nardy.web.services.publishing`.
"""

from __future__ import annotations

import contextlib
import json
import logging
import time

from fastapi import APIRouter, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from ...rules.errors import GameStateError
from ...rules.fairdice import check_client_seed
from .. import seeds
from ..deps import GameId, GameLock, LaneDep, Loaded, Numbering, StorageDep, language, missing, read_game, read_locked
from ..errors import answer_of, clean_message, error_body
from ..gamecache import cache_of, columns
from ..presence import seat_seen
from ..seeds import refuse_early_seed
from ..services import seats
from ..services.access import (
    check_owner,
    check_reader,
    conflict,
    forbidden,
    knows_of,
    spend_invite,
)
from ..services.actions import Action, ActionRefused, StaleAction, perform
from ..services.hosting import create_online, invite_url
from ..services.live import Conn, encode
from ..services.publishing import publish, shown
from ..services.saving import store_game
from ..sessions import HostedGame
from ..store.community import community
from ..view import SavedGameView
from .auth import current_user, require_user

__all__ = [
    "router",
    "expire",
    "shift",
    "invite_url",
    "user_id",
]

router = APIRouter()


async def user_id(conn) -> str | None:
    """The id of the request's (or WebSocket's) player, ``None`` without a log-in session."""
    user = await current_user(conn)
    return user.id if user is not None else None


async def _on_clock(app, gid: str, change, wait: bool = True) -> bool:
    """Under the game's lock: read ``gid``, apply ``change(session) -> bool``, store it when it changed (or
    when its ``clock_due`` column was stale). A game that cannot be read any more has its ``clock_due``
    cleared, so the keeper does not come back to it. ``wait=False``: when another server process holds the
    game, do nothing (it is acting on it; the next round sees what it did). Returns what ``change`` returned
    (False when unread or not locked)."""

    store = app.state.storage
    async with app.state.game_locks.lock_for(gid, wait=wait) as held:
        if not held:
            return False
        try:
            game = await run_in_threadpool(read_locked, store, gid)
        except Exception:
            await run_in_threadpool(store.clear_clock_due, gid)
            return False
        before = game.saved.clock_due
        changed = change(game.session)
        if changed or columns(game.session)["clock_due"] != before:
            try:
                await run_in_threadpool(store_game, store, game)
            except HTTPException as e:
                if e.status_code != 409:
                    raise
                # another writer stored the game since it was read (it acted on it): nothing is stored
                # here, the kept game (changed here, not stored) is dropped, the next round reads what it did
                cache_of(store).forget(gid)
                return False
    return changed


def _wake(s: HostedGame, now: float) -> bool:
    """Start the next game of ``s`` when its pause between games is over (:meth:`nardy.flow.table.Table.wake`), with
    its automatic opening rolls; True when it started."""
    if not s.table.wake(now):
        return False
    if s.bots_to_act():
        s.run_bots(now=now)
    return True


def _due_now(s: HostedGame, now: float) -> bool:
    """What a keeper does to ``s`` at ``now``: abort it for seeds not in by their time, end it on time, or start
    the next game after the pause; True when one of these happened now (a match that ended on time before, as
    another keeper stored it a moment ago, is left as it is: :meth:`~nardy.flow.table.Table.check_time` names
    its loser still)."""
    if seeds.check_due(s, now):
        return True
    if s.table.ended is None and s.table.check_time(now) is not None:
        return True
    return _wake(s, now)


async def expire(app, gid: str, now: float) -> bool:
    """End ``gid``'s match if its clock has run out at ``now`` (or abort it if its dice seeds are not in by
    their time, :func:`nardy.web.seeds.check_due`), or start its next game when the pause between games is over
    (:func:`_wake`); store and publish. True when it ended (when not
    due after all, a stale column, the true due time is stored). With several server processes each one's
    keeper may come to the game; the one that takes its lock acts, the others pass (exactly one ends it)."""
    ended = await _on_clock(app, gid, lambda s: _due_now(s, now), wait=False)
    if ended:
        await publish(app, gid)
    return ended


async def shift(app, gid: str, seconds: float, now: float | None = None) -> bool:
    """Give ``gid``'s running clock back ``seconds`` (the server was down until ``now``), never more than its spell
    has run (:meth:`nardy.flow.clock.Clock.shift`); store it. True when moved."""

    def move(s: HostedGame) -> bool:
        clock = s.table.clock
        if clock is None or clock.running is None:
            return False
        clock.shift(seconds, now)
        return True

    return await _on_clock(app, gid, move)


# ----- routes --------------------------------------------------------------------------------------------
class JoinBody(BaseModel):
    """Taking the empty seat of an online game."""

    model_config = ConfigDict(extra="forbid")
    invite: str | None = Field(None, max_length=100, description="the invitation token (from the link)")
    client_seed: str | None = Field(
        None,
        max_length=64,
        description="your seed for the provably fair dice (1-64 of [0-9A-Za-z_-]), only with the game's "
        "commitment you were shown (else 422 seed_before_commitment; or send it later to /seed)",
    )
    commitment: str | None = Field(None, max_length=64, description="the game's commitment, sent with client_seed")
    own_seed: bool = Field(
        False, description="you give your own seed after the commitment (POST /api/games/{id}/seed); else the server"
    )


class InviteBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    invite: str | None = Field(None, max_length=100)


class RematchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    client_seed: str | None = Field(None, max_length=64, description="refused: see own_seed")
    own_seed: bool = Field(False, description="you give your own dice seed after the new game's commitment")


async def _online_game(
    store, gid: str, locked: bool = True, uid: str | None = None, invite: str | None = None
) -> Loaded:
    """The online game ``gid``: the kept one (the caller holds its lock) or, ``locked`` False, a copy. 404 as
    for a missing game unless player ``uid`` (with ``invite``) may know of it (:func:`knows_of`), 409
    ``not_online`` for a game of another kind."""
    game = await run_in_threadpool(read_locked if locked else read_game, store, gid)
    if not knows_of(game.session, uid, invite):
        raise missing(gid)
    if not game.session.online:
        raise conflict("not_online", "only a game against another person online has that")
    return game


@router.post(
    "/api/games/{gid}/join",
    tags=["online"],
    response_model=SavedGameView,
    summary="Take the empty seat of an online game (with the invitation); the match begins once both dice seeds are in",
)
async def join(request: Request, body: JoinBody, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):
    user = await require_user(await current_user(request))
    async with lock:
        game = await _online_game(store, gid, uid=user.id, invite=body.invite)
        s = game.session
        reserved = s.settings.get("reserved")
        if not (s.invite_matches(body.invite) or (reserved is not None and reserved == user.id)):
            if s.table.side_of(user.id):
                raise conflict("own_game", "you already sit at this game")
            if s.closed:
                raise conflict("invite_closed", f"the invitation was {s.closed}")
            if not s.table.waiting:
                raise conflict("seat_taken", "both seats are taken")
            raise forbidden("bad_invite", "the invitation is not valid for this game")

        # a seed comes only with the commitment the joiner was shown (checked before anything changes)
        if body.client_seed is not None and body.commitment is None:
            refuse_early_seed(body.client_seed)
        own = body.own_seed or body.client_seed is not None

        def run():
            spent = s.settings.get("invite_hash")
            try:
                now = time.time()
                if body.client_seed is not None:
                    check_client_seed(body.client_seed)
                    seeds.check_shown(s, body.commitment)
                side = s.join(user.id, user.name, None, now, own_seed=own)
                if body.client_seed is not None:
                    seeds.give_seed(s, side, body.client_seed, body.commitment or "", now)
            except GameStateError as e:
                raise conflict(e.code, str(e), **e.params) from None
            spend_invite(s, spent)
            s.run_bots()  # the automatic rolls of the first turn (no computer plays online)
            store_game(store, game)
            return shown(game, user.id, None, "own")

        out = await lane(run)
    await publish(request.app, gid, game)
    return out


@router.post("/api/games/{gid}/decline", tags=["online"], summary="Decline an invitation (nobody took the seat)")
async def decline(request: Request, body: InviteBody, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):
    uid = await user_id(request)
    async with lock:
        game = await _online_game(store, gid, uid=uid, invite=body.invite)
        s = game.session
        reserved = s.settings.get("reserved")
        if not (s.invite_matches(body.invite) or (uid is not None and reserved == uid)):
            raise forbidden("bad_invite", "the invitation is not valid for this game")
        await lane(_close, store, game, "declined")
    await publish(request.app, gid)
    return {"id": gid, "status": "declined"}


@router.post(
    "/api/games/{gid}/cancel", tags=["online"], summary="Withdraw an invitation (the owner, before anyone joins)"
)
async def cancel(request: Request, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):
    uid = await user_id(request)
    async with lock:
        game = await _online_game(store, gid, uid=uid)
        check_owner(game.session, uid)
        await lane(_close, store, game, "cancelled")
    await publish(request.app, gid)
    return {"id": gid, "status": "cancelled"}


async def _blocked(app, uid: str, other: str | None) -> bool:
    """One of players ``uid`` and ``other`` blocks the other (a rematch offer is refused as a challenge is)."""

    if other is None or other == uid:
        return False
    return other in (await run_in_threadpool(community(app).avoided, [uid]))[uid]


def _close(store, game: Loaded, why: str) -> None:
    spent = game.session.settings.get("invite_hash")
    try:
        game.session.close(why)
    except GameStateError as e:
        raise conflict(e.code, str(e), **e.params) from None
    spend_invite(game.session, spent)
    store_game(store, game)


@router.post(
    "/api/games/{gid}/rematch",
    tags=["online"],
    status_code=201,
    summary="Offer a rematch after a finished match: a new game, colours swapped, its seat kept for the opponent",
)
async def rematch(request: Request, body: RematchBody, store: StorageDep, lock: GameLock, lane: LaneDep, gid: GameId):
    user = await require_user(await current_user(request))
    refuse_early_seed(body.client_seed)
    async with lock:
        game = await _online_game(store, gid, uid=user.id)
        s = game.session
        sides = s.sides_of(user.id)
        if not sides:
            raise forbidden("not_seated", "you do not sit at this game")
        if not s.table.is_over:
            raise conflict("not_over", "a rematch follows a finished match")
        if s.settings.get("rematch"):
            raise conflict("rematch_offered", "a rematch is already offered", id=s.settings["rematch"])
        me = sides[0]
        if await _blocked(request.app, user.id, s.table.seats[1 - me].player):
            raise forbidden("blocked", "you cannot play this player")
        m = s.match
        out = await create_online(
            request,
            store,
            lane,
            user,
            game=m.rules.name,
            rule_options=m.rules.options(),
            length=m.length,
            colour="black" if me == 0 else "white",
            own_seed=body.own_seed,
            clock=s.table.clock.spec.to_dict() if s.table.clock else None,
            watchers=s.watchable,
            reserved=s.table.seats[1 - me].player,
            match_options=dict(crawford=m.crawford_rule, jacoby=m.jacoby, beavers=m.beavers, cube_limit=m.cube_limit),
        )
        s.settings["rematch"] = out["id"]
        await lane(store_game, store, game)
    await publish(request.app, gid)
    return out


@router.get(
    "/api/games/{gid}/fairness",
    tags=["online"],
    summary="The provably fair dice: commitment, players' seeds, rolls, and the server seed once the match is over",
)
async def fairness(request: Request, store: StorageDep, gid: GameId):
    uid = await user_id(request)
    game = await _online_game(store, gid, locked=False, uid=uid)
    check_reader(game.session, uid, gid)
    await seat_seen(request.app, game.session, uid, gid)
    return game.session.fairness()


@router.websocket("/api/games/{gid}/live")
async def live(ws: WebSocket, gid: GameId, numbering: Numbering = Query("own"), viewer: int | None = Query(None)):
    """The game's live channel: ``{"type": "view", "view": {...}}`` now and after every stored change (the
    handshake's Origin is checked by :func:`nardy.web.routers.auth.check_request`)."""
    app = ws.app
    uid = await user_id(ws)
    store = app.state.storage
    local = app.state.game_locks.local(gid)

    def first(conn: Conn | None):
        # under the game's lock: the kept game, and the connection's first view of it
        game = read_locked(store, gid)
        s = game.session
        if conn is None:
            return game.saved.revision, s.may_watch(uid), s.sides_of(uid), s
        return (
            game.saved.revision,
            True,
            conn.sides,
            shown(game, uid, conn.viewer, numbering).model_dump(mode="json", by_alias=True),
        )

    try:
        async with local:
            seq, may, sides, kept = await run_in_threadpool(first, None)
    except Exception:
        await ws.close(code=4404)
        return
    if not may:  # a private game: closed as a missing one is (its existence is not confirmed)
        await ws.close(code=4404)
        return
    hub = app.state.hub
    if not hub.room(gid):
        await ws.close(code=4429)
        return
    v = viewer if viewer in (0, 1) else None
    conn = Conn(ws, uid, sides, v, numbering, language(ws))
    await ws.accept()
    hub.add(gid, conn)
    await seats.joined(
        app, gid, sides, conn
    )  # the seat's presence, pushed to the game's connections (services/seats.py)
    try:
        await seat_seen(app, kept, uid, gid)  # a seated player is there from now (then every presence round)
        # read again once in the hub (a change stored before would be missed): the stored revision's view
        async with local:
            seq, _, _, view = await run_in_threadpool(first, conn)
        await hub.send(conn, seq, view)
        while True:
            msg = await ws.receive_text()
            if msg[:256] == "ping":
                await ws.send_text("pong")
            elif msg[:1] == "{" and len(msg) <= MAX_MESSAGE:
                await socket_action(ws, conn, gid, msg)
            elif msg[:1] == "{":  # an action too long to be one: answered, not read (its id is not looked for)
                err = error_body(
                    413, f"an action message has at most {MAX_MESSAGE} bytes", "RequestTooLarge", lang=conn.lang
                )
                await _answer(conn, None, 413, err)
    except (WebSocketDisconnect, RuntimeError):
        pass
    except Exception:  # the database failed meanwhile: the page reconnects
        with contextlib.suppress(Exception):
            await ws.close(code=1011)
    finally:
        hub.remove(gid, conn)
        await seats.left(app, gid, sides)


#: Bytes an action message on a game's live channel may have (an action's body is a few hundred).
MAX_MESSAGE = 2048


async def socket_action(ws: WebSocket, conn: Conn, gid: str, msg: str) -> None:
    """An action sent on the game's live channel: ``{"type": "action", "id": ID, "body": {...}}`` with ``body``
    as ``POST /api/games/{gid}/actions`` takes it (:class:`nardy.web.services.actions.Action`: ``action``,
    ``seq``...), checked, applied and stored by the same service as that route
    (:func:`nardy.web.services.actions.perform`; the player is the one of the connection's log-in session,
    looked at again for each action, so a log-out ends their actions here too; the view is the connection's side
    and numbering). Answered once stored, on this channel:
    ``{"type": "answer", "id": ID, "status": 200, "view": {...}}`` (the view the route answers, which this
    connection is then not sent again), or ``{"type": "answer", "id": ID, "status": 409, "error": {...}}`` with
    the status and error body the route answers (``stale_action`` with ``seq``, ``not_your_turn``...). ``ID``:
    the client's own number or string (up to 64 characters) for matching answers to actions; one action of a
    connection is under way at a time (the next message is read once it is answered)."""
    lang = conn.lang
    rid = None
    try:
        m = json.loads(msg)
        if not isinstance(m, dict) or m.get("type") != "action":
            raise ValueError('expected {"type": "action", "id": ..., "body": {...}}')
        rid = m.get("id")
        if not (rid is None or (isinstance(rid, int) and not isinstance(rid, bool) and abs(rid) < 2**53)) and not (
            isinstance(rid, str) and len(rid) <= 64
        ):
            rid = None
            raise ValueError("id: a number or a string of at most 64 characters")
        body = Action.model_validate(m.get("body"))
    except (ValueError, ValidationError, RecursionError) as e:
        if isinstance(e, ValidationError):
            detail = "; ".join(
                f"{'.'.join(str(x) for x in er.get('loc', ())) or 'body'}: {clean_message(er.get('msg'))}"
                for er in e.errors()[:5]
            )
        else:
            detail = clean_message(e)
        err = error_body(422, detail or "invalid action", "RequestValidationError", lang=lang)
        await _answer(conn, rid, 422, err)
        return
    # the log-in session looked at again (kept by the process: no query), not the one the handshake found
    with contextlib.suppress(AttributeError):
        del ws.state.auth_session
    uid = await user_id(ws)
    try:
        done = await perform(ws.app, gid, uid, body, conn.viewer, conn.numbering, skip=conn)
    except ActionRefused as refused:
        e = refused.error
        if isinstance(e, StaleAction):
            err = error_body(409, e.detail, "StaleAction", lang=lang, wording=refused.wording, seq=e.revision)
            await _answer(conn, rid, 409, err)
            return
        out = answer_of(e, lang, refused.wording)
        if out is None:
            logging.getLogger("nardy.web").error("live: an action of game %s failed", gid, exc_info=e)
            out = 500, error_body(500, "internal error", "InternalError", "internal_error", lang=lang)
        await _answer(conn, rid, out[0], out[1])
        return
    text = done.view
    assert isinstance(text, str)
    await _answer(conn, rid, 200, text, done.seq)


async def _answer(conn: Conn, rid, status: int, out: dict | str, seq: int | None = None) -> None:
    """Send an action's answer on its connection: the view (JSON text, state ``seq``; the connection then has
    it, :meth:`Hub.send` does not send it again) or an error body."""

    head = '{"type":"answer","id":' + encode(rid) + ',"status":' + str(status)
    text = head + (',"view":' + out + "}" if isinstance(out, str) else ',"error":' + encode(out) + "}")
    async with conn.lock:
        if seq is not None:
            conn.sent = max(conn.sent, seq)
        with contextlib.suppress(Exception):
            await conn.ws.send_text(text)

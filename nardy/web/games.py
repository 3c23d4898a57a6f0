"""Saved games over HTTP: list, start, view, act (the computer answers), hints, records, delete.

A saved game is a :class:`~nardy.web.sessions.Session` stored as JSON, and an online game's actions as a log
after it (:mod:`nardy.web.storage`); the process keeps the games it has loaded (:mod:`nardy.web.gamecache`).
Actions name the state they were chosen on (``seq``, the stored revision): one on a state that has moved on
is refused with 409 and changes nothing. One game's actions run one at a time in this process
(:class:`~nardy.web.deps.GameLocks`) and a save that lost a race with another process is refused (the
revision is checked when it is stored), so the person's action and the computer's answer are stored
together, or not at all.
"""

from __future__ import annotations

import time
import unicodedata
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from ..rules.errors import GameStateError
from . import seeds
from .auth import set_session_cookies, user_or_guest
from .deps import (
    ComputeDep,
    GameId,
    GameLock,
    LaneDep,
    Level,
    Loaded,
    LoadedGame,
    Numbering,
    SeedsAllowed,
    StorageDep,
    guest_name,
    load_game,
    missing,
    read_locked,
)
from .errors import Refused, error_response
from .gamecache import SNAPSHOT_EVERY, cache_of, columns
from .online import (
    acting_side,
    check_owner,
    check_reader,
    check_turn,
    conn_view,
    publish,
    shown,
    shown_json,
    user_id,
    viewer_for,
)
from .presence import seat_seen
from .seeds import refuse_early_seed
from .sessions import ACTIONS, NUMBERINGS, Session, new_session
from .storage import SavedGame, StaleRevision, Storage, User
from .view import SavedGameView

__all__ = ["router", "NewGame", "Action"]

router = APIRouter()

_NAME_MAX = 40
_NAME_BAD = ':"'


def _check_name(name: str, i: int) -> str:
    """A player's name as it can be written to (and read back from) a .mat score line."""
    name = name.strip()
    if not name:
        raise ValueError(f"player {i + 1}'s name is empty")
    if len(name) > _NAME_MAX:
        raise ValueError(f"player {i + 1}'s name is {len(name)} characters long; at most {_NAME_MAX}")
    if any(unicodedata.category(c).startswith("C") for c in name):
        raise ValueError(f"player {i + 1}'s name {name[:_NAME_MAX]!r} contains a control character")
    bad = sorted({c for c in name if c in _NAME_BAD})
    if bad:
        raise ValueError(
            f"player {i + 1}'s name {name!r} contains {' and '.join(map(repr, bad))}, which a .mat record cannot hold"
        )
    return name


# ----- request models ---------------------------------------------------------------------------------------
class ClockBody(BaseModel):
    """A clock in seconds: ``initial`` reserve per player, ``increment`` added after each spell to act,
    ``delay`` free seconds at the start of each spell (docs/online.md). The same body serves a new game
    here and a challenge or quick-pairing seek in :mod:`nardy.web.lobby`."""

    model_config = ConfigDict(extra="forbid")
    initial: float = Field(..., ge=1, le=86400)
    increment: float = Field(0, ge=0, le=600)
    delay: float = Field(0, ge=0, le=600)


class NewGame(BaseModel):
    """Settings of a new saved game (a match, or a money session with ``length`` 0)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(
        "backgammon",
        description="backgammon, short (short nardy) or long (long nardy); aliases accepted",
        max_length=40,
    )
    length: int = Field(0, ge=0, le=99, description="match length in points; 0 = money session")
    opponent: Literal["bot", "human", "online"] = Field(
        "bot",
        description="the computer, a second person at this device, or a person elsewhere (online: the answer "
        "carries an invitation link to send them)",
    )
    level: Level = Field(
        "grandmaster",
        description="the computer's level (2-ply grandmaster by default; champion, 3-ply, is stronger and ~8x slower)",
    )
    colour: Literal["white", "black", "random"] = Field("white", description="the person's side against the computer")
    options: dict[str, Any] = Field(
        default_factory=dict,
        description="rules options with docs/rules.md names: cube, "
        "opening, last-roll, head-exception, strict-bear-off, scoring",
    )
    players: list[str] | None = Field(None, min_length=2, max_length=2, description="the two names")
    seed: int | None = Field(
        None,
        ge=0,
        le=2**62,
        description="seed of the dice and the computer (reproducible "
        "games for analysis and tests; refused unless the server allows seeded dice)",
    )
    auto_roll: bool = Field(True, description="roll for a person by itself when doubling is not possible")
    crawford: bool = True
    jacoby: bool = False
    beavers: bool = False
    cube_limit: int | None = Field(None, ge=1, le=2**20)
    client_seed: str | None = Field(
        None,
        max_length=64,
        description="online: refused (422 seed_before_commitment): your seed goes to POST "
        "/api/games/{id}/seed once the game has shown you its commitment (own_seed)",
    )
    own_seed: bool = Field(
        False,
        description="online: you give your own seed for the provably fair dice after seeing the commitment "
        "(POST /api/games/{id}/seed); false: the server makes it (you then trust it for the dice)",
    )
    clock: Literal["none", "blitz", "rapid", "classic"] | ClockBody | None = Field(
        None,
        description="online: the players' clocks: a preset (blitz: 1 minute + 10 s a move; rapid: 5 minutes, "
        "12 s delay; classic: 15 minutes, 15 s delay) or times in seconds",
    )
    watchers: bool = Field(False, description="online: others may watch the game")

    @field_validator("players")
    @classmethod
    def _check_players(cls, v):
        return None if v is None else [_check_name(x, i) for i, x in enumerate(v)]


class Action(BaseModel):
    """An action on a saved game by a person at this device."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)
    action: Literal[ACTIONS] = Field(
        ...,
        description="roll, step (one checker, from/to), undo (the last step), "
        "confirm, play (whole play in notation), double, take, drop, beaver, "
        "resign (level), accept, decline (a resignation), next (game)",
    )
    from_: int | None = Field(
        None, alias="from", ge=0, le=25, description="step: from point in the viewer's numbering (25 = the mover's bar)"
    )
    to: int | None = Field(None, ge=0, le=25, description="step: to point in the viewer's numbering (0 = off)")
    die: int | None = Field(None, ge=1, le=6, description="step: the die to use when a bear-off could use either")
    play: str | None = Field(None, max_length=200, description="play: notation in the mover's own numbering")
    level: int | str | None = Field(None, description="resign: level index or name (single, gammon, oyun, mars...)")
    player: int | None = Field(None, ge=0, le=1, description="who acts (default: the person who must act)")
    seq: int = Field(
        ...,
        ge=0,
        le=2**62,
        description="the `seq` of the view this action was chosen on: an action "
        "on a state that has moved on (a retry, a double click) is refused with 409 and changes "
        "nothing",
    )


# ----- helpers ------------------------------------------------------------------------------------------
def _numbering(s: Session, numbering: str) -> str:
    # a numbering that the game does not have falls back to the players' own
    return numbering if numbering in NUMBERINGS[s.match.rules.name] else "own"


def store_session(store: Storage, game: Loaded, entry: dict | None = None) -> None:
    """Store the session over its saved row, with its listing columns (status, owner, seats, when its clock
    runs out), and the ratings of a rated match that ends with this save, in one transaction; 404 when the game
    was deleted meanwhile, 409 when another writer stored it first (the revision check). Once stored, the game
    is this process's kept one of its new revision (:mod:`nardy.web.gamecache`).

    ``entry``: the one action (:meth:`Session.act`'s ``entry``) that made this change, when that is all that
    changed. An online game (:attr:`Session.loggable`) then appends it to its log (a row of its own:
    :meth:`Storage.append`) instead of storing the whole game again, but every
    :data:`~nardy.web.gamecache.SNAPSHOT_EVERY` actions and when the match ends (then it is stored whole, the
    action logged with it)."""
    from .lobby import rating_step

    saved, s = game.saved, game.session
    also = rating_step(store, game)  # a rated match that ends: its ratings are stored with it
    saved.status = s.status
    saved.title = s.title()
    saved.summary = s.summary()
    for k, v in columns(s).items():
        setattr(saved, k, v)
    logged = entry is not None and s.loggable
    base = saved.base if saved.base is not None else saved.revision
    try:
        if logged and also is None and not s.table.is_over and saved.revision + 1 - base < SNAPSHOT_EVERY:
            store.append(saved, entry)
        else:
            saved.data = s.to_dict()
            store.save(saved, also=also, entry=entry if logged else None)
    except KeyError:
        raise HTTPException(404, f"no saved game {saved.id!r}: it was deleted") from None
    except StaleRevision:
        raise HTTPException(409, "the game changed while this action was under way; reload it") from None
    cache_of(store).stored(game)


def _listing(saved: SavedGame) -> dict:
    return {
        "id": saved.id,
        "created": saved.created.isoformat(),
        "updated": saved.updated.isoformat(),
        "game": saved.game,
        "status": saved.status,
        "title": saved.title,
        **saved.summary,
    }


# ----- routes -------------------------------------------------------------------------------------------
@router.get("/api/games", tags=["games"], summary="Your saved games (those you made or sit at), most recent first")
async def list_games(
    request: Request,
    store: StorageDep,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=10**9),
    status: Literal["waiting", "playing", "game-over", "over", "cancelled", "declined", "aborted"] | None = Query(None),
):
    uid = await user_id(request)
    if uid is None:
        return {"games": []}
    rows = await run_in_threadpool(store.list, limit, offset, status, uid)
    return {"games": [_listing(r) for r in rows]}


@router.post(
    "/api/games",
    tags=["games"],
    status_code=201,
    response_model=SavedGameView,
    summary="Start a new game (the opening is played; the computer moves if it starts); online: an invitation",
)
async def create_game(
    request: Request,
    body: NewGame,
    store: StorageDep,
    compute: ComputeDep,
    lane: LaneDep,
    allow_seeds: SeedsAllowed,
    numbering: Numbering = Query("own"),
):
    if body.seed is not None and not allow_seeds:
        return error_response(
            422,
            "seed: this server rolls unpredictable dice for games played for real; seeded "
            "(reproducible) dice are for analysis and tests (nardy serve --allow-seeded-dice)",
            "InvalidOptionError",
            "seeded_dice_off",
            request=request,
        )
    me = 0 if body.colour != "black" else 1
    user, new_login = await user_or_guest(request, body.players[me] if body.players else guest_name(request))
    if body.opponent == "online":
        refuse_early_seed(body.client_seed)
        clock = body.clock.model_dump() if isinstance(body.clock, ClockBody) else body.clock
        names = list(body.players) if body.players else None
        out = await create_online(
            request,
            store,
            lane,
            user,
            game=body.game,
            rule_options=body.options,
            length=body.length,
            colour=body.colour,
            own_seed=body.own_seed,
            clock=clock,
            watchers=body.watchers,
            players=names,
            match_options=dict(
                crawford=body.crawford, jacoby=body.jacoby, beavers=body.beavers, cube_limit=body.cube_limit
            ),
            numbering=numbering,
        )
        return _created(out, request, new_login)

    def make():
        return new_session(
            body.game,
            length=body.length,
            opponent=body.opponent,
            level=body.level,
            colour=body.colour,
            options=body.options,
            players=body.players,
            seed=body.seed,
            auto_roll=body.auto_roll,
            crawford=body.crawford,
            jacoby=body.jacoby,
            beavers=body.beavers,
            cube_limit=body.cube_limit,
            run=False,
            owner=user.id,
        )

    s = await lane(make)
    if s.bots_to_act():
        await compute(s.run_bots)

    def run():
        view = s.game_view(numbering=_numbering(s, numbering))
        saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s))
        return SavedGameView.of(saved.id, saved.revision, view)

    out = await lane(run)
    return _created(out.model_dump(mode="json", by_alias=True), request, new_login)


def _created(out: dict, request: Request, new_login) -> JSONResponse:
    """The 201 answer of a new game, with the cookies of the guest made for it, if any."""
    answer = JSONResponse(out, status_code=201)
    set_session_cookies(answer, request, new_login)
    return answer


async def create_online(
    request: Request,
    store: Storage,
    lane,
    user: User,
    *,
    game: str,
    rule_options: dict | None,
    length: int,
    colour: str,
    own_seed: bool,
    clock,
    watchers: bool,
    match_options: dict,
    players: list[str] | None = None,
    reserved: str | None = None,
    numbering: str = "own",
) -> dict:
    """Make an online game owned by ``user`` (their seat at ``colour``) and its invitation; returns the view
    with ``invite`` (the token) and ``invite_url`` (the link to send). ``reserved``: a rematch keeps the other
    seat for that player id (they join without the token). ``own_seed``: the owner gives their own dice seed
    after the commitment (:mod:`nardy.web.seeds`), else the server makes it. ``rule_options``: docs/rules.md options;
    ``match_options``: crawford, jacoby, beavers, cube_limit (as :func:`new_session` takes them)."""
    from .online import invite_url, new_invite

    me = 0 if colour != "black" else 1
    names = list(players) if players else ["White", "Black"]
    names[me] = user.name
    if colour == "random":
        colour = "white"

    def make():
        s = new_session(
            game,
            length=length,
            opponent="online",
            colour=colour,
            options=rule_options,
            players=names,
            owner=user.id,
            own_seed=own_seed,
            clock=clock,
            watchers=watchers,
            **match_options,
        )
        token = new_invite(s)
        if reserved is not None:
            s.settings["reserved"] = reserved
        saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s))
        view = s.game_view(None, _numbering(s, numbering), s.sides_of(user.id))
        return saved, token, view

    saved, token, view = await lane(make)
    out = SavedGameView.of(saved.id, saved.revision, view).model_dump(mode="json", by_alias=True)
    out.update(invite=token, invite_url=invite_url(request, saved.id, token))
    return out


@router.get(
    "/api/games/{gid}", tags=["games"], response_model=SavedGameView, summary="A saved game as the page draws it"
)
async def get_game(
    request: Request,
    store: StorageDep,
    gid: GameId,
    viewer: int | None = Query(None, ge=0, le=1, description="whose side is at the bottom (default: the person's)"),
    numbering: Numbering = Query("own"),
):
    uid = await user_id(request)

    def view():
        game = read_locked(store, gid)
        check_reader(game.session, uid, gid)
        return shown(game, uid, viewer, numbering), game.session

    async with request.app.state.game_locks.local(gid):
        out, s = await run_in_threadpool(view)
    await seat_seen(request.app, s, uid, gid)  # a player reading their game is there (fair play's claims)
    return out


@router.delete("/api/games/{gid}", tags=["games"], status_code=204, summary="Delete a saved game (its owner)")
async def delete_game(request: Request, store: StorageDep, lock: GameLock, gid: GameId):
    uid = await user_id(request)
    async with lock:
        game = await load_game(gid, store)
        s = game.session
        if not s.may_watch(uid):
            raise missing(gid)  # a private game: as if there were none
        check_owner(s, uid)
        if s.online and (s.status in ("playing", "game-over") or seeds.seeding(s)):  # seated: a seed awaited
            raise Refused(
                409,
                "a game against another person cannot be deleted while played",
                code="game_in_progress",
                kind="Conflict",
            )
        if not await run_in_threadpool(store.delete, gid):
            raise HTTPException(404, f"no saved game {gid!r}")
    return Response(status_code=204)


@router.post(
    "/api/games/{gid}/actions",
    tags=["games"],
    response_model=SavedGameView,
    summary="Act on a saved game (roll, step, confirm, double, take...); the computer answers",
)
async def act(
    request: Request,
    body: Action,
    compute: ComputeDep,
    gid: GameId,
    viewer: int | None = Query(None, ge=0, le=1),
    numbering: Numbering = Query("own"),
):
    uid = await user_id(request)
    try:
        out = await perform(request.app, gid, uid, body, viewer, numbering, request.state, compute)
    except StaleAction as e:
        return error_response(409, e.detail, "StaleAction", request=request, seq=e.revision)
    return Response(out, media_type="application/json") if isinstance(out, str) else out


class StaleAction(Exception):
    """An action chosen on state ``seq`` of a game now at ``revision``: nothing was done (409 ``stale_action``)."""

    def __init__(self, seq: int, revision: int):
        self.seq, self.revision = seq, revision
        self.detail = (
            f"stale action: it was chosen on state {seq} but the game is at state {revision} (a repeated or late "
            f"request); nothing was done; reload the game"
        )
        super().__init__(self.detail)


async def perform(
    app,
    gid: str,
    uid: str | None,
    body: Action,
    viewer: int | None,
    numbering: str,
    state,
    compute=None,
    skip=None,
) -> SavedGameView | str:
    """Player ``uid``'s action ``body`` on game ``gid``, as ``POST /api/games/{gid}/actions`` and the game's live
    channel (:func:`nardy.web.online.live`) take it: checked (seated, their turn, the ``seq`` it was chosen on),
    applied, the computer's answer run (``compute``: a game against the computer; ``None``: refused unless the
    game is online), stored, then pushed to the game's live connections here (but ``skip``, the connection
    the action came by, which gets the answer) once committed. Returns the acting player's view: JSON text for an
    online game (encoded once, the same text their live connections get), else a :class:`SavedGameView`.
    ``state.wording`` is set to the game's wording (error messages label points as the view does).

    Raises:
        StaleAction: ``body.seq`` is not the stored revision (nothing was done); the rules' errors
        (:class:`~nardy.rules.errors.NardyError`), Refused 403 (not seated, not their turn), HTTPException 404/409,
        StorageUnavailable 503: as the HTTP route answers them."""
    kept = cache_of(app.state.storage).peek(gid)
    try:
        return await _perform(app, gid, uid, body, state, kept, numbering, viewer, compute, skip)
    except BaseException:
        if kept is not None and skip is None:
            # a seated player acting over HTTP is there even when refused (a stored action's time is in the
            # game's log, which counts already; on the live channel the connection counts: nardy.web.presence)
            await seat_seen(app, kept.session, uid, gid)
        raise


async def _perform(app, gid, uid, body, state, kept, numbering, viewer, compute, skip):
    """:func:`perform` once the kept game is looked up (a refusal's presence is written by the caller)."""
    store = app.state.storage
    lane = app.state.action_lane
    cluster = app.state.cluster
    # an online game kept here is read, acted on and stored in one unit of work: its cross-process lock is then
    # the transaction's (Cluster.lock_in, taken first in it); else (the computer answers outside the unit, or
    # the game is not known yet) the session lock of the lock connection, held around the whole
    in_unit = kept is not None and kept.session.online and cluster is not None
    locks = app.state.game_locks
    lock = locks.lock_for(gid) if not in_unit else locks.local_held(gid)
    t = time.time()
    entry: dict = {}
    held: dict = {}
    hub = app.state.hub
    conns: list = []

    def apply():
        # one trip to a worker thread and one database connection (its transaction committed before the answer
        # goes): read the kept game, check, act, and (an online game, whose only answer is the automatic roll)
        # store and make the view at once; a game against the computer answers after
        with store.unit() as c:
            if in_unit:
                cluster.lock_in(c, gid)
            try:
                return act_now()
            except GameStateError as e:
                if e.code != "time_out" or "game" not in held:
                    raise
                # the clock ran out before this action: the match is over; stored so (then refused)
                store_session(store, game_of())
                return "timeout", e

    def act_now():
        held["game"] = game = read_locked(store, gid)
        s = game.session
        if not s.may_watch(uid):
            raise missing(gid)  # a private game: as if there were none
        side = acting_side(s, uid, body.player)
        v, _ = viewer_for(s, uid, viewer)
        if body.seq != game.saved.revision:
            # chosen on an older state (a resend whose answer was lost, a retry): 409 with the game's seq, so
            # the client reads the game again, whoever is to act now
            state.wording = s.wording(numbering, v)
            return "stale", None
        check_turn(s, body.action, side)
        state.wording = s.wording(numbering, v)
        if compute is None and not s.online:
            raise Refused(409, "only a game against another person online has that", code="not_online", kind="Conflict")
        done = s.act(
            body.action,
            frm=body.from_,
            to=body.to,
            die=body.die,
            play=body.play,
            level=body.level,
            player=side,
            viewer=v,
            run=False,
            now=t,
        )
        entry.update(done["entry"])
        if s.bots_to_act() and not s.loggable:
            return "computer", None
        # an online game rolls for a person at the action's time: replayed from the log, the roll is the same
        s.run_bots(now=t)
        return "done", finish()

    def finish():
        game = game_of()
        store_session(store, game, entry)
        if not game.session.online:
            return shown(game, uid, viewer, numbering)
        # an online game: the answer is the view of the player's own live connections too, encoded once, and
        # the other connections' views are made now (each (player, viewer, numbering) once), sent after commit
        text = shown_json(game, uid, viewer, numbering)
        held["pushes"] = hub.messages(
            [c for c in conns if c is not skip], conn_view, game, {(uid, viewer, numbering): text}
        )
        held["seq"] = state.seq = game.saved.revision  # now: once the lock is left, the kept game may change
        return text

    def game_of() -> Loaded:
        return held["game"]

    async with lock:
        # the game's live connections in this process, taken once its lock is held: one added later reads its
        # first view under the lock, after this change is stored; the views of these are made with the answer
        # (on its thread, under the lock) and sent once it is committed
        conns = hub.connections(gid)
        stage, out = await lane(apply)
        timed_out = stage == "timeout"
        if stage == "stale":
            raise StaleAction(body.seq, game_of().saved.revision)
        if stage == "computer":
            # the person's action and the computer's answer are stored together, or not at all
            assert compute is not None
            await compute(game_of().session.run_bots)
            out = await lane(finish)
    game, s = game_of(), game_of().session
    if timed_out:
        await publish(app, gid)
        raise out
    if s.online:
        if "pushes" in held:  # sent after the action is committed (the unit of work ended in the lane)
            await hub.push(held["seq"], held["pushes"])
        else:
            await publish(app, gid, game)
    return out


@router.get(
    "/api/games/{gid}/hints",
    tags=["games"],
    summary="Hint for the side to act: the best plays with equities, or the cube decision",
)
async def hints(
    request: Request,
    store: StorageDep,
    compute: ComputeDep,
    gid: GameId,
    n: int = Query(5, ge=1, le=50),
    level: Level = Query("grandmaster"),
    numbering: Numbering = Query("own"),
    viewer: int | None = Query(
        None,
        ge=0,
        le=1,
        description="the view's viewer, as for GET /api/games/{gid}: hints are for the side to act, in its "
        "numbering, so it changes nothing here (taken so that the view's query serves its hints too)",
    ),
):
    uid = await user_id(request)
    s = (await load_game(gid, store)).session
    check_reader(s, uid, gid)
    await seat_seen(request.app, s, uid, gid)
    if s.online:
        if not s.table.is_over:
            raise Refused(403, "no hints in a game against another person", code="no_hints_online", kind="Forbidden")
    elif not s.sides_of(uid):
        raise Refused(403, "you do not sit at this game", code="not_seated", kind="Forbidden")
    request.state.wording = s.wording(numbering)
    return await compute(
        lambda deadline: s.hints(n=n, level=level, numbering=_numbering(s, numbering), deadline=deadline)
    )


@router.get(
    "/api/games/{gid}/mat",
    tags=["games"],
    response_class=PlainTextResponse,
    summary="The record as a Jellyfish .mat file",
)
async def get_mat(request: Request, game: LoadedGame):
    from ..records.mat import write_mat

    uid = await user_id(request)
    check_reader(game.session, uid, game.id)
    await seat_seen(request.app, game.session, uid, game.id)
    text = await run_in_threadpool(write_mat, game.session.match)
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="nardy-{game.id}.mat"'})


@router.get("/api/games/{gid}/record", tags=["games"], summary="Every game's plays and results, and the score")
async def get_record(request: Request, game: LoadedGame):
    uid = await user_id(request)
    check_reader(game.session, uid, game.id)
    await seat_seen(request.app, game.session, uid, game.id)

    def run():
        from ..records.mat import match_summary

        s = game.session
        # what decides the dice (a seed) is never shown: only whether the dice were seeded
        settings = s.record_settings()
        out = {"id": game.id, "status": s.status, "settings": settings, "record": match_summary(s.match)}
        if s.online:
            out["fairness"] = s.fairness()
            out["log"] = s.table.log
        return out

    return await run_in_threadpool(run)

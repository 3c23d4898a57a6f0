"""Saved games over HTTP: list, start, view, act (the computer answers), hints, records, delete.

A saved game is a :class:`~nardy.web.sessions.HostedGame` stored as JSON, and an online game's actions as a log
after it (:mod:`nardy.web.store.storage`); the process keeps the games it has loaded (:mod:`nardy.web.gamecache`).
Actions name the state they were chosen on (``seq``, the stored revision): one on a state that has moved on
is refused with 409 and changes nothing. One game's actions run one at a time in this process
(:class:`~nardy.web.deps.GameLocks`) and a save that lost a race with another process is refused (the
revision is checked when it is stored), so the person's action and the computer's answer are stored
together, or not at all.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from ...rules.errors import InvalidOptionError
from .. import seeds
from ..deps import (
    ComputeDep,
    GameId,
    GameLock,
    LaneDep,
    Level,
    LoadedGame,
    Numbering,
    SeedsAllowed,
    StorageDep,
    guest_name,
    load_game,
    missing,
    read_locked,
)
from ..errors import Refused, error_response
from ..gamecache import columns
from ..presence import seat_seen
from ..seeds import refuse_early_seed
from ..services.access import check_owner, check_reader
from ..services.actions import Action, ActionRefused, StaleAction, perform
from ..services.hosting import create_online, own_numbering
from ..services.publishing import shown
from ..services.turns import my_turn_listing
from ..sessions import new_session
from ..store.storage import SavedGame
from ..view import SavedGameView
from .auth import set_session_cookies, user_or_guest
from .online import user_id

__all__ = ["router", "NewGame", "StartAt", "Action"]

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


class DaysBody(BaseModel):
    """A correspondence clock: ``days`` days per move, no reserve (docs/online.md, "Correspondence")."""

    model_config = ConfigDict(extra="forbid")
    days: Literal[1, 2, 3, 7]


class StartAt(BaseModel):
    """A set-up position a game against the computer (or at this device) begins at instead of the opening
    (the position editor's "play from here"): checked as ``POST /api/positions/check`` checks it."""

    model_config = ConfigDict(extra="forbid")
    position: str = Field(
        ...,
        max_length=80,
        description="Position ID or XGID (its dice, cube and score unless given) of the side on roll",
    )
    turn: Literal["white", "black"] = Field("white", description="the side on roll (white: player 1, who starts)")
    dice: list[int] | None = Field(None, min_length=2, max_length=2, description="the roll to play; none: to roll")
    cube: int | None = Field(None, ge=1, le=2**20, description="cube value (default 1 or the XGID's)")
    owner: Literal["centre", "mover", "opponent"] | None = Field(None, description="who owns the cube")
    score: list[int] | None = Field(None, min_length=2, max_length=2, description="(side on roll, other side)")
    crawford: bool | None = Field(None, description="this is the match's Crawford game")


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
    clock: Literal["none", "blitz", "rapid", "classic"] | ClockBody | DaysBody | None = Field(
        None,
        description="online: the players' clocks: a preset (blitz: 1 minute + 10 s a move; rapid: 5 minutes, "
        "12 s delay; classic: 15 minutes, 15 s delay), times in seconds, or {days: 1|2|3|7} a move",
    )
    watchers: bool = Field(False, description="online: others may watch the game")
    start: StartAt | None = Field(
        None,
        description="begin at a set-up position instead of the opening (against the computer or a second "
        "person here; refused for online games: 422 start_online)",
    )

    @field_validator("players")
    @classmethod
    def _check_players(cls, v):
        return None if v is None else [_check_name(x, i) for i, x in enumerate(v)]


# ----- helpers ------------------------------------------------------------------------------------------
def _start_of(body: NewGame) -> dict:
    """``new_session``'s ``start`` from the body's set-up (the sides turned from the mover's view to the
    players': White is player 0).

    Raises:
        InvalidPositionError: the set-up is impossible (code of the first problem; ``params["problems"]``
            all of them, as ``POST /api/positions/check`` names them);
        InvalidOptionError / InvalidIdError: a malformed position, or a Crawford flag the score does not allow.
    """
    from ...rules.setup import setup_position
    from .editor import CheckIn, read_setup

    st = body.start
    assert st is not None
    s = read_setup(
        CheckIn(
            game=body.game,
            position=st.position,
            dice=st.dice,
            cube=st.cube,
            owner=st.owner,
            score=st.score,
            length=body.length,
            crawford=st.crawford,
        )
    )
    pos = setup_position(s)
    turn = 0 if st.turn == "white" else 1
    a, b = s.score
    at_match_point = bool(body.length) and (body.length - 1) in (a, b)
    if s.crawford and not body.crawford:
        raise InvalidOptionError("start: a Crawford game in a match without the Crawford rule (crawford: false)")
    return {
        "setup": {
            "position": pos,
            "turn": turn,
            "dice": s.dice,
            "cube_value": s.cube,
            "cube_owner": None if s.cube_owner is None else (turn if s.cube_owner == 0 else 1 - turn),
        },
        "score": (a, b) if turn == 0 else (b, a),
        "post_crawford": at_match_point and not s.crawford,
    }


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
    turn: Literal["mine"] | None = Query(
        None, description="mine: only the online games where it is your turn, soonest clock first"
    ),
):
    uid = await user_id(request)
    if uid is None:
        return {"games": []}
    if turn == "mine":
        return {"games": await run_in_threadpool(my_turn_listing, store, uid, limit)}
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
    if body.start is not None and body.opponent == "online":
        return error_response(
            422,
            "start: an online game begins with the opening (its dice are provably fair from the first roll); "
            "a set-up position is played against the computer or at this device",
            "InvalidOptionError",
            "start_online",
            request=request,
        )
    start = await run_in_threadpool(_start_of, body) if body.start is not None else None
    if body.opponent == "online":
        refuse_early_seed(body.client_seed)
        clock = body.clock.model_dump() if isinstance(body.clock, (ClockBody, DaysBody)) else body.clock
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
            start=start,
        )

    s = await lane(make)
    if s.bots_to_act():
        await compute(s.run_bots)

    def run():
        view = s.game_view(numbering=own_numbering(s, numbering))
        saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s))
        return SavedGameView.of(saved.id, saved.revision, view)

    out = await lane(run)
    return _created(out.model_dump(mode="json", by_alias=True), request, new_login)


def _created(out: dict, request: Request, new_login) -> JSONResponse:
    """The 201 answer of a new game, with the cookies of the guest made for it, if any."""
    answer = JSONResponse(out, status_code=201)
    set_session_cookies(answer, request, new_login)
    return answer


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
            raise missing(gid)
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
        done = await perform(request.app, gid, uid, body, viewer, numbering, compute)
    except ActionRefused as refused:
        # the error handlers word the message with the game's labels of points (request.state.wording)
        request.state.wording = refused.wording
        e = refused.error
        if isinstance(e, StaleAction):
            return error_response(409, e.detail, "StaleAction", request=request, seq=e.revision)
        raise e from None
    out = done.view
    return Response(out, media_type="application/json") if isinstance(out, str) else out


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
        lambda deadline: s.hints(n=n, level=level, numbering=own_numbering(s, numbering), deadline=deadline)
    )


@router.get(
    "/api/games/{gid}/mat",
    tags=["games"],
    response_class=PlainTextResponse,
    summary="The record as a Jellyfish .mat file",
)
async def get_mat(request: Request, game: LoadedGame):
    from ...records.mat import write_mat

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
        from ...records.mat import match_summary

        s = game.session
        # what decides the dice (a seed) is never shown: only whether the dice were seeded
        settings = s.record_settings()
        out = {"id": game.id, "status": s.status, "settings": settings, "record": match_summary(s.match)}
        if s.online:
            out["fairness"] = s.fairness()
            out["log"] = s.table.log
        return out

    return await run_in_threadpool(run)

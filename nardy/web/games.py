"""Saved games over HTTP: list, start, view, act (the computer answers), hints, records, delete.

A saved game is a :class:`~nardy.web.sessions.Session` stored as JSON (:mod:`nardy.web.storage`); every
request rebuilds it. Actions name the state they were chosen on (``seq``, the stored revision): one on a
state that has moved on is refused with 409 and changes nothing. One game's actions run one at a time in
this process (:class:`~nardy.web.deps.GameLocks`) and a save that lost a race with another process is
refused (the revision is checked when it is stored), so the person's action and the computer's answer
are stored together, or not at all.
"""

from __future__ import annotations

import unicodedata
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import PlainTextResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

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
    load_game,
    read_game,
)
from .errors import error_response
from .sessions import ACTIONS, NUMBERINGS, Session, new_session
from .storage import SavedGame, StaleRevision, Storage
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
class NewGame(BaseModel):
    """Settings of a new saved game (a match, or a money session with ``length`` 0)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field(
        "backgammon",
        description="backgammon, short (short nardy) or long (long nardy); aliases accepted",
        max_length=40,
    )
    length: int = Field(0, ge=0, le=99, description="match length in points; 0 = money session")
    opponent: Literal["bot", "human"] = Field("bot", description="the computer, or a second person at this device")
    level: Level = Field("advanced", description="the computer's level")
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


def _shown(game: Loaded, viewer: int | None, numbering: str) -> SavedGameView:
    """The view of the page, with the game's ``id`` and ``seq`` (the stored revision)."""
    s = game.session
    return SavedGameView.of(game.id, game.saved.revision, s.game_view(viewer, _numbering(s, numbering)))


def _store(store: Storage, game: Loaded) -> None:
    """Store the session over its saved row; 404 when the game was deleted meanwhile, 409 when another
    writer stored it first (the revision check)."""
    saved, s = game.saved, game.session
    saved.data = s.to_dict()
    saved.status = s.status
    saved.title = s.title()
    saved.summary = s.summary()
    try:
        store.save(saved)
    except KeyError:
        raise HTTPException(404, f"no saved game {saved.id!r}: it was deleted") from None
    except StaleRevision:
        raise HTTPException(409, "the game changed while this action was under way; reload it") from None


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
@router.get("/api/games", tags=["games"], summary="Saved games, most recently played first")
async def list_games(
    store: StorageDep,
    limit: int = Query(50, ge=1, le=500),
    offset: int = Query(0, ge=0, le=10**9),
    status: Literal["playing", "game-over", "over"] | None = Query(None),
):
    rows = await run_in_threadpool(store.list, limit, offset, status)
    return {"games": [_listing(r) for r in rows]}


@router.post(
    "/api/games",
    tags=["games"],
    status_code=201,
    response_model=SavedGameView,
    summary="Start a new game (the opening is played; the computer moves if it starts)",
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
        )

    s = await lane(make)
    if s.bots_to_act():
        await compute(s.run_bots)

    def run():
        view = s.game_view(numbering=_numbering(s, numbering))
        saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary())
        return SavedGameView.of(saved.id, saved.revision, view)

    return await lane(run)


@router.get(
    "/api/games/{gid}", tags=["games"], response_model=SavedGameView, summary="A saved game as the page draws it"
)
async def get_game(
    store: StorageDep,
    gid: GameId,
    viewer: int | None = Query(None, ge=0, le=1, description="whose side is at the bottom (default: the person's)"),
    numbering: Numbering = Query("own"),
):
    game = await load_game(gid, store)
    return await run_in_threadpool(_shown, game, viewer, numbering)


@router.delete("/api/games/{gid}", tags=["games"], status_code=204, summary="Delete a saved game")
async def delete_game(store: StorageDep, lock: GameLock, gid: GameId):
    async with lock:
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
    store: StorageDep,
    compute: ComputeDep,
    lock: GameLock,
    lane: LaneDep,
    gid: GameId,
    viewer: int | None = Query(None, ge=0, le=1),
    numbering: Numbering = Query("own"),
):
    async with lock:
        game = await lane(read_game, store, gid)
        saved, s = game.saved, game.session
        request.state.wording = s.wording(numbering, viewer)
        if body.seq != saved.revision:
            return error_response(
                409,
                f"stale action: it was chosen on state {body.seq} but the game is at state "
                f"{saved.revision} (a repeated or late request); nothing was done; reload the game",
                "StaleAction",
                request=request,
                seq=saved.revision,
            )

        def apply():
            s.act(
                body.action,
                frm=body.from_,
                to=body.to,
                die=body.die,
                play=body.play,
                level=body.level,
                player=body.player,
                viewer=viewer,
                run=False,
            )

        await lane(apply)
        if s.bots_to_act():
            # the person's action and the computer's answer are stored together, or not at all
            await compute(s.run_bots)

        def finish():
            _store(store, game)
            return _shown(game, viewer, numbering)

        return await lane(finish)


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
):
    s = (await load_game(gid, store)).session
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
async def get_mat(game: LoadedGame):
    from ..records.mat import write_mat

    text = await run_in_threadpool(write_mat, game.session.match)
    return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="nardy-{game.id}.mat"'})


@router.get("/api/games/{gid}/record", tags=["games"], summary="Every game's plays and results, and the score")
async def get_record(game: LoadedGame):
    def run():
        from ..records.mat import match_summary

        s = game.session
        # what decides the dice (a seed) is never shown: only whether the dice were seeded
        settings = s.record_settings()
        return {"id": game.id, "status": s.status, "settings": settings, "record": match_summary(s.match)}

    return await run_in_threadpool(run)

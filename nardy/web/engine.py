"""The engine over HTTP: legal plays, best plays, evaluations, cube decisions, .mat records, health.

The routes of this router hold no state: positions and records come in the request, the computer's work
runs through :class:`~nardy.web.deps.Compute` (fair per client, bounded in time), and ``/api/mat`` with
``save`` stores the replayed match as a saved game.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from ..errors import GameStateError, InvalidOptionError
from .deps import GAME_QUERY, BotWorkDep, ComputeDep, Level, Numbering, SeedsAllowed, StorageDep, guest_name
from .errors import clean_message, error_response
from .sessions import ACTIONS, BOT_LEVELS, NUMBERINGS, Session

__all__ = ["router", "MAT_LIMIT", "version"]

#: Largest .mat record accepted (bytes): the longest real record we know is under 200 KB.
MAT_LIMIT = 1024 * 1024

router = APIRouter()


def version() -> str:
    """nardy's version (``"0"`` when it is not installed)."""
    try:
        from importlib.metadata import version

        return version("nardy")
    except Exception:  # pragma: no cover
        return "0"


# ----- response and request models ----------------------------------------------------------------------
class MatText(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(..., max_length=MAT_LIMIT, description="the .mat record")


class StepOut(BaseModel):
    from_: int = Field(..., alias="from")
    to: int
    die: int
    hit: bool


class PlayOut(BaseModel):
    play: str = Field(..., description="notation (mover's numbering; '' when nothing can move)")
    steps: list[StepOut]
    position: str = Field(..., description="Position ID after the play, from the mover's view (sides not swapped)")


class PlaysOut(BaseModel):
    game: str
    position: str
    dice: list[int]
    plays: list[PlayOut]


class RankedPlay(PlayOut):
    equity: float = Field(..., description="cubeless money equity after the play, mover's view")
    loss: float = Field(..., description="equity given up against the best play")
    ply: int
    probabilities: dict[str, float] = Field(..., description="result probabilities after the play, mover's view")


class MoveOut(BaseModel):
    game: str
    position: str
    dice: list[int]
    level: str
    play: str = Field(..., description="the best play")
    result: str = Field(..., description="Position ID after the best play")
    moves: list[RankedPlay]
    complete: bool = Field(
        ...,
        description="false when the time budget cut the search short: plays not reached "
        "keep the figures of a shallower ply",
    )


class EvalOut(BaseModel):
    game: str
    position: str
    level: str
    ply: int
    result_levels: list[str]
    probabilities: dict[str, float] = Field(..., description="cumulative: win, win_<level>..., lose_<level>..., lose")
    exclusive: dict[str, dict[str, float]] = Field(..., description="P(exactly each result level), per side")
    equity: float = Field(..., description="cubeless money equity of the side on roll")


class CubeOut(BaseModel):
    game: str
    position: str
    action: str = Field(..., description="for the side on roll: double / no double")
    double: bool
    take: bool = Field(..., description="the opponent should take a double")
    response: str = Field(..., description="take / pass")
    too_good: bool
    reason: str
    equities: dict[str, float]
    probabilities: dict[str, float]


# ----- helpers ------------------------------------------------------------------------------------------
def _check_dice(die1, die2):
    from ..position import check_dice

    return check_dice((die1, die2))


def _position(game: str, position: str | None):
    from ..position import Position
    from ..rules import get_rules

    rules = get_rules(game)
    return Position.from_id(position, rules) if position else Position.start(rules)


def _steps(play) -> list[dict]:
    return [{"from": s.frm, "to": s.to, "die": s.die, "hit": bool(s.hit)} for s in play.steps]


def _bot(game, level: str, seed=0):
    from ..bots import Bot

    return Bot(game, level=level, seed=seed)


# ----- routes -------------------------------------------------------------------------------------------
@router.get("/api/health", tags=["engine"], summary="Liveness: the database answers (503 when it does not)")
async def health(store: StorageDep, work: BotWorkDep):
    await run_in_threadpool(store.ping)
    return {"status": "ok", "version": version(), "database": store.backend, "bot_work": work.stats()}


@router.get("/api/info", tags=["engine"], summary="Games, options, levels and numberings the server knows")
async def info(allow_seeds: SeedsAllowed):
    from ..rules import RESULT_NAMES, get_rules

    return {
        "games": {
            g: {
                "result_names": list(RESULT_NAMES[g]),
                "options": get_rules(g).options(),
                "numberings": list(NUMBERINGS[g]),
            }
            for g in ("backgammon", "short", "long")
        },
        "levels": list(BOT_LEVELS),
        "actions": list(ACTIONS),
        "version": version(),
        "seeded_dice": allow_seeds,
    }


@router.get(
    "/api/plays",
    tags=["engine"],
    response_model=PlaysOut,
    response_model_by_alias=True,
    summary="Every legal play for a position and roll",
)
async def plays(
    game: str = GAME_QUERY,
    position: str | None = Query(None, max_length=40, description="Position ID (default: start)"),
    die1: int = Query(..., ge=1, le=6),
    die2: int = Query(..., ge=1, le=6),
    numbering: Literal["own", "absolute"] = Query("own", description="long nardy: absolute"),
    side: Literal["white", "black"] = Query("white", description="with absolute numbering"),
):
    def run():
        pos = _position(game, position)
        dice = _check_dice(die1, die2)
        if numbering not in NUMBERINGS[pos.game]:
            raise InvalidOptionError("numbering absolute is for long nardy only")
        out = []
        for p in pos.legal_plays(dice):
            text = p.notation(numbering, side) if numbering != "own" else str(p)
            out.append({"play": text, "steps": _steps(p), "position": p.result.id()})
        return {"game": pos.game, "position": pos.id(), "dice": list(dice), "plays": out}

    return await run_in_threadpool(run)


@router.get(
    "/api/move",
    tags=["engine"],
    response_model=MoveOut,
    response_model_by_alias=True,
    summary="The best play and the ranked candidates (like wildbg's /move)",
)
async def move(
    compute: ComputeDep,
    game: str = GAME_QUERY,
    position: str | None = Query(None, max_length=40),
    die1: int = Query(..., ge=1, le=6),
    die2: int = Query(..., ge=1, le=6),
    level: Level = Query("grandmaster", description="search depth of that level"),
    n: int = Query(5, ge=1, le=100, description="how many plays to list"),
):
    pos = _position(game, position)
    dice = _check_dice(die1, die2)
    if pos.is_game_over():
        raise GameStateError(f"position {pos.id()} is a finished game: no play")

    def run(deadline):
        hs = _bot(pos.rules, level).hints(pos, dice, n=n, deadline=deadline)
        moves = [
            {
                "play": str(h.play),
                "steps": _steps(h.play),
                "position": h.play.result.id(),
                "equity": round(h.equity, 5),
                "loss": round(h.loss, 5),
                "ply": h.ply,
                "probabilities": {k: round(x, 5) for k, x in h.probabilities.as_dict().items()},
            }
            for h in hs
        ]
        return {
            "game": pos.game,
            "position": pos.id(),
            "dice": list(dice),
            "level": level,
            "play": moves[0]["play"],
            "result": moves[0]["position"],
            "moves": moves,
            "complete": not deadline.hit,
        }

    return await compute(run)


@router.get(
    "/api/eval",
    tags=["engine"],
    response_model=EvalOut,
    summary="Result probabilities of a position for the side on roll (like wildbg's /eval)",
)
async def evaluate(
    compute: ComputeDep,
    game: str = GAME_QUERY,
    position: str | None = Query(None, max_length=40),
    level: Level = Query("grandmaster", description="grandmaster and expert evaluate at 1-ply"),
):
    pos = _position(game, position)

    def run(deadline):
        bot = _bot(pos.rules, level)
        pr = bot.evaluate(pos)
        return {
            "game": pos.game,
            "position": pos.id(),
            "level": level,
            "ply": min(bot.ply or 0, 1),
            "result_levels": list(pos.rules.result_names),
            "probabilities": {k: round(x, 5) for k, x in pr.as_dict().items()},
            "exclusive": {s: {k: round(x, 5) for k, x in d.items()} for s, d in pr.exclusive().items()},
            "equity": round(pr.equity(pos.rules.scoring), 5),
        }

    return await compute(run)


def _check_cube_query(cube: int, length: int, score_me: int, score_opponent: int, crawford: bool) -> None:
    if cube & (cube - 1):
        raise InvalidOptionError(f"cube value {cube}: expected a power of two")
    if length and (score_me >= length or score_opponent >= length):
        raise InvalidOptionError(f"score {score_me}-{score_opponent} is not below the match length {length}")
    if crawford and not length:
        raise InvalidOptionError(
            "crawford: the Crawford rule applies only to match play; money play (length 0) has no Crawford game"
        )
    if crawford and [score_me, score_opponent].count(length - 1) != 1:
        raise InvalidOptionError(
            f"crawford: at {score_me}-{score_opponent} in a {length}-point match this "
            f"cannot be the Crawford game (exactly one side must be at {length - 1}, "
            "one point from winning)"
        )


@router.get(
    "/api/cube",
    tags=["engine"],
    response_model=CubeOut,
    summary="Cube decision for the side on roll: double or not, and take or pass for the opponent",
)
async def cube(
    compute: ComputeDep,
    game: str = GAME_QUERY,
    position: str | None = Query(None, max_length=40),
    cube: int = Query(1, ge=1, le=2**20, description="cube value (a power of two)"),
    owner: Literal["centre", "me", "opponent"] = Query("centre", description="who owns the cube"),
    length: int = Query(0, ge=0, le=99, description="match length; 0 = money"),
    score_me: int = Query(0, ge=0, le=99),
    score_opponent: int = Query(0, ge=0, le=99),
    crawford: bool = Query(False),
    jacoby: bool = Query(False),
    level: Level = Query("grandmaster"),
):
    from ..game import Game

    pos = _position(game, position)
    _check_cube_query(cube, length, score_me, score_opponent, crawford)

    def run(deadline):
        g = Game.from_position(
            pos,
            turn=0,
            cube=True,
            crawford=crawford,
            jacoby=jacoby,
            cube_value=cube,
            cube_owner={"centre": None, "me": 0, "opponent": 1}[owner],
        )
        d = _bot(pos.rules, level).cube_action(g, score=(score_me, score_opponent), match_length=length)
        return {
            "game": pos.game,
            "position": pos.id(),
            "action": d.action,
            "double": d.double,
            "take": d.take,
            "response": "take" if d.take else "pass",
            "too_good": d.too_good,
            "reason": d.reason,
            "equities": {k: round(float(x), 5) for k, x in d.equities.items()},
            "probabilities": {k: round(x, 5) for k, x in d.probabilities.as_dict().items()},
        }

    return await compute(run)


@router.post(
    "/api/mat",
    tags=["records"],
    summary="Import a .mat record: replay it through the rules",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/plain": {"schema": {"type": "string", "maxLength": MAT_LIMIT}},
                "application/json": {"schema": MatText.model_json_schema()},
            },
        }
    },
)
async def import_mat(
    request: Request,
    compute: ComputeDep,
    store: StorageDep,
    save: bool = Query(False, description="also store it as a saved game to view or continue"),
    numbering: Numbering = Query("own"),
):
    raw = await request.body()
    if len(raw) > MAT_LIMIT:
        return error_response(
            413, f"record too large ({len(raw)} bytes; at most {MAT_LIMIT})", "RequestTooLarge", request=request
        )
    ctype = request.headers.get("content-type", "")
    if "json" in ctype:
        try:
            text = MatText.model_validate_json(raw).text
        except ValidationError as e:
            why = "; ".join(
                f"{'.'.join(str(x) for x in er.get('loc', ())) or 'body'}: {clean_message(er.get('msg', 'invalid'))}"
                for er in e.errors()[:5]
            )
            return error_response(
                422, f'expected JSON {{"text": "..."}}: {why}', "RequestValidationError", request=request
            )
    else:
        text = raw.decode("utf-8", errors="replace")
    if not text.strip():
        return error_response(
            422, "empty record: send the .mat text as the request body", "RecordError", request=request
        )

    def run(deadline):
        # the text is only ever parsed as a record: never taken for a file name
        from ..records.mat import match_summary, parse_mat, replay

        m = replay(parse_mat(text))
        out = {"record": match_summary(m)}
        if save:
            out["session"] = _imported_session(m)
        return out

    out = await compute(run)
    if not save:
        return out
    from .auth import set_session_cookies, user_or_guest
    from .games import columns

    # the saved game belongs to whoever imported it (a new guest for a player without a session)
    user, new_login = await user_or_guest(request, guest_name(request))
    s = out.pop("session")
    s.settings["owner"] = user.id
    saved = await run_in_threadpool(
        store.create, s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s)
    )
    out["id"] = saved.id
    answer = JSONResponse(out)
    set_session_cookies(answer, request, new_login)
    return answer


def _imported_session(m) -> Session:
    """A saved game (two people at this device) continuing the replayed match ``m``."""
    from ..dice import SystemDice
    from ..match import Match

    md = m.to_dict()
    if m.current is not None and m.current.phase == "opening":
        # a record cut after a game's header: that game has not begun; drop it and begin it
        # afresh below (with its opening roll), so the saved game can be played on
        md["games"] = md["games"][:-1]
    m2 = Match.from_dict(md, dice=SystemDice())
    s = Session.from_match(
        m2,
        {
            "humans": [True, True],
            "level": "advanced",
            "seed": None,
            "auto_roll": True,
            "viewer": 0,
            "opponent": "human",
        },
    )
    if (m2.current is None or m2.current.is_over) and not m2.is_over and len(m2.games) < len(m.games):
        m2.new_game(start=True)
    elif m2.current is None:
        m2.new_game(start=True)
    return s

"""The engine over HTTP: legal plays, best plays, evaluations, cube decisions, .mat records, health.

The routes of this router hold no state: positions and records come in the request, the computer's work
runs through :class:`~nardy.web.deps.Compute` (fair per client, bounded in time), and ``/api/mat`` with
``save`` stores the replayed match as a saved game. ``/api/mat`` also takes eXtreme Gammon's ``.xg`` file
as the body's bytes (told by its first bytes ``RGMH``, whatever the content type; at most ``MAT_LIMIT``).

A position is a Position ID, an XGID (its dice, cube and score are used where the route takes them) or, on
``/api/move`` and ``/api/eval``, wildbg's ``p0``..``p25`` (:mod:`nardy.web.params`). Plays and steps come in
the numbering asked for (``numbering``, ``side``; every numbering ``/api/info`` lists), steps in the shape of
``nardy moves --json`` (:meth:`nardy.rules.position.Play.step_dicts`). Long nardy's last roll (option
``last-roll``, ``last_roll=half|one``) is analysed exactly: the game ends with that play
(:func:`nardy.flow.game.last_roll_plays`, :func:`nardy.flow.game.last_roll_odds`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool

from ...flow.game import Game, last_roll_odds, last_roll_plays, last_roll_position
from ...flow.match import Match
from ...rules.dice import SystemDice
from ...rules.errors import GameStateError, InvalidDiceError, InvalidOptionError
from ...rules.numbering import NUMBERINGS, games_with
from ...rules.position import check_dice
from ...rules.variants import RESULT_NAMES, get_rules
from ..deps import GAME_QUERY, BotWorkDep, ComputeDep, Level, Numbering, SeedsAllowed, StorageDep, guest_name
from ..errors import clean_message, error_response
from ..gamecache import columns
from ..params import PositionIn, WildbgPoints, read_position, wildbg_points
from ..sessions import ACTIONS, BOT_LEVELS, HostedGame
from .auth import set_session_cookies, user_or_guest

__all__ = ["router", "MAT_LIMIT", "version"]

#: Largest .mat record accepted (bytes): the longest real record we know is under 200 KB.
MAT_LIMIT = 1024 * 1024

router = APIRouter()

#: Long nardy's option last-roll (docs/rules.md), as the engine routes take it.
LastRoll = Literal["off", "half", "one"]


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
    """One step, in the numbering asked for (the shape of ``nardy moves --json`` too:
    :meth:`nardy.rules.position.Play.step_dicts`)."""

    from_: int = Field(
        ...,
        alias="from",
        description="own numbering: the mover's point; absolute/traditional: White's own number of the point "
        "(the board's fixed numbering); 25 the mover's bar",
    )
    to: int = Field(..., description="as from; 0 off")
    die: int
    hit: bool
    from_label: str = Field(..., description="the point as the numbering writes it ('24', '01', 'bar')")
    to_label: str = Field(..., description="as from_label ('off')")


class PlayOut(BaseModel):
    play: str = Field(..., description="notation in the numbering asked for ('' when nothing can move)")
    steps: list[StepOut]
    position: str = Field(..., description="Position ID after the play, from the mover's view (sides not swapped)")


class PlaysOut(BaseModel):
    game: str
    position: str
    dice: list[int]
    numbering: str = "own"
    last_roll: bool = Field(False, description="long nardy: the plays of the last roll (option last-roll)")
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
    numbering: str = "own"
    last_roll: bool = Field(
        False,
        description="long nardy's last roll (option last-roll): each play's outcome is exact "
        "(probabilities with 'draw'; equity 0 for a draw)",
    )
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
    last_roll: bool = Field(
        False, description="long nardy's last roll (option last-roll): exact over the 36 rolls, with draw"
    )
    draw: float = Field(0.0, description="P(a draw): long nardy's last roll only")


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
#: The position parameter of the engine routes (a Position ID or an XGID).
POSITION_QUERY = Query(
    None,
    max_length=80,
    description="GNU Backgammon Position ID of the side on roll (long nardy: optional :Fxy suffix) or an "
    "XGID (backgammon, short nardy; its dice, cube and score are used where the route takes them). "
    "Default: the starting position",
)


def _die_query():
    return Query(None, ge=1, le=6, description="a die of the roll (both dice, or neither when the XGID has them)")


NUMBERING_QUERY = Query("own", description="own, or a numbering the game allows (/api/info): plays and steps in it")
SIDE_QUERY = Query("white", description="with absolute/traditional numbering: the side on roll")
LAST_ROLL_QUERY = Query(
    None,
    description="long nardy's option last-roll (half: a draw scores 1/2-1/2, one: 1-1); with it, a position "
    "where the other side has borne off all 15 is the last roll of the side on roll",
)
Points = Annotated[WildbgPoints, Depends(wildbg_points)]


def _check_dice(die1, die2):

    return check_dice((die1, die2))


def _dice(pin: PositionIn, die1: int | None, die2: int | None) -> tuple[int, int]:
    """The roll: ``die1`` and ``die2``, else the XGID's dice."""

    if die1 is not None and die2 is not None:
        d = _check_dice(die1, die2)
        xd = getattr(pin.xgid, "dice", (0, 0))
        if xd != (0, 0) and sorted(xd) != sorted(d):
            raise InvalidDiceError(f"die1={die1}, die2={die2} differ from the XGID's dice {xd[0]}{xd[1]}")
        return d
    if die1 is None and die2 is None and pin.xgid is not None and pin.xgid.dice != (0, 0):
        return _check_dice(*pin.xgid.dice)
    missing = " and ".join(n for n, v in (("die1", die1), ("die2", die2)) if v is None)
    raise InvalidDiceError(f"{missing}: the roll is needed (die1 and die2, or an XGID with its dice)")


def _position(game: str, position: str | None, points: WildbgPoints | None = None) -> PositionIn:
    return read_position(game, position, points)


def _last_roll(pin: PositionIn, last_roll: str | None):
    """The rules of ``last_roll`` and, when the position is long nardy's last roll under them, the position
    whose plays are generated (else ``None``)."""

    pos = pin.position
    if last_roll is None:
        return pos.rules, None
    if pos.rules.hitting:
        if last_roll == "off":
            return pos.rules, None
        raise InvalidOptionError(f"last_roll={last_roll!r}: the last roll is long nardy's option, not {pos.game}'s")
    rules = get_rules(pos.rules, last_roll=last_roll)
    a = pos.array
    if last_roll == "off" or a[27] != 15 or a[0] == 15:
        return rules, None
    return rules, last_roll_position(pos)


def _finished(pos) -> GameStateError:
    hint = ""
    if not pos.rules.hitting and pos.array[27] == 15 and pos.array[0] != 15:
        hint = " (with last_roll=half or last_roll=one, long nardy's option, the side on roll gets one more roll)"
    return GameStateError(f"position {pos.id()} is a finished game: no play{hint}")


def _last_roll_probs(draw: float, lose_mars: float) -> dict[str, float]:
    """Probabilities of the last roll (side on roll's view: long nardy's names, cumulative, plus ``draw``)."""
    return {"win": 0.0, "win_mars": 0.0, "lose_mars": lose_mars, "lose": 1.0 - draw, "draw": draw}


def _step_dicts(play, numbering: str, side: str) -> list[dict]:
    return play.step_dicts(numbering, side)


def _notation(play, numbering: str, side: str) -> str:
    return play.notation(numbering, side) if numbering != "own" else str(play)


_GAME_NAMES = {"backgammon": "backgammon", "short": "short nardy", "long": "long nardy"}


def _check_numbering(game: str, numbering: str) -> None:

    if numbering not in NUMBERINGS[game]:
        owners = " and ".join(_GAME_NAMES[g] for g in games_with(numbering))
        raise InvalidOptionError(
            f"numbering {numbering} is for {owners} only; {_GAME_NAMES[game]} has {', '.join(NUMBERINGS[game])}"
        )


def _bot(game, level: str, seed=0):
    from ...flow.bot import Bot

    return Bot(game, level=level, seed=seed)


# ----- routes -------------------------------------------------------------------------------------------
@router.get("/api/health", tags=["engine"], summary="Liveness: the database answers (503 when it does not)")
async def health(store: StorageDep, work: BotWorkDep):
    await run_in_threadpool(store.ping)
    return {"status": "ok", "version": version(), "database": store.backend, "bot_work": work.stats()}


@router.get("/api/info", tags=["engine"], summary="Games, options, levels and numberings the server knows")
async def info(allow_seeds: SeedsAllowed):

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
    points: Points,
    game: str = GAME_QUERY,
    position: str | None = POSITION_QUERY,
    die1: int | None = _die_query(),
    die2: int | None = _die_query(),
    numbering: Numbering = NUMBERING_QUERY,
    side: Literal["white", "black"] = SIDE_QUERY,
    last_roll: LastRoll | None = LAST_ROLL_QUERY,
):
    def run():
        pin = _position(game, position, points)
        pos = pin.position
        dice = _dice(pin, die1, die2)
        _check_numbering(pos.game, numbering)
        _, lr = _last_roll(pin, last_roll)
        out = [
            {"play": _notation(p, numbering, side), "steps": _step_dicts(p, numbering, side), "position": p.result.id()}
            for p in (lr if lr is not None else pos).legal_plays(dice)
        ]
        return {
            "game": pos.game,
            "position": pos.id(),
            "dice": list(dice),
            "numbering": numbering,
            "last_roll": lr is not None,
            "plays": out,
        }

    return await run_in_threadpool(run)


@router.get(
    "/api/move",
    tags=["engine"],
    response_model=MoveOut,
    response_model_by_alias=True,
    summary="The best play and the ranked candidates (like wildbg's /move: p0..p25, die1, die2 accepted)",
)
async def move(
    compute: ComputeDep,
    points: Points,
    game: str = GAME_QUERY,
    position: str | None = POSITION_QUERY,
    die1: int | None = _die_query(),
    die2: int | None = _die_query(),
    level: Level = Query("grandmaster", description="search depth of that level"),
    n: int = Query(5, ge=1, le=100, description="how many plays to list"),
    numbering: Numbering = NUMBERING_QUERY,
    side: Literal["white", "black"] = SIDE_QUERY,
    last_roll: LastRoll | None = LAST_ROLL_QUERY,
):
    pin = _position(game, position, points)
    pos = pin.position
    dice = _dice(pin, die1, die2)
    _check_numbering(pos.game, numbering)
    rules, lr = _last_roll(pin, last_roll)
    if lr is None and pos.is_game_over():
        raise _finished(pos)

    def entry(play, equity, loss, ply, probs):
        return {
            "play": _notation(play, numbering, side),
            "steps": _step_dicts(play, numbering, side),
            "position": play.result.id(),
            "equity": round(equity, 5),
            "loss": round(loss, 5),
            "ply": ply,
            "probabilities": {k: round(x, 5) for k, x in probs.items()},
        }

    def run(deadline):
        if lr is not None:
            ranked = last_roll_plays(lr, dice, rules)[:n]
            best = ranked[0][1][2]
            moves = []
            for p, (kind, lvl, pts) in ranked:
                probs = _last_roll_probs(float(kind == "draw"), float(kind == "lose" and lvl >= 1))
                moves.append(entry(p, pts, best - pts, 0, probs))
        else:
            hs = _bot(pos.rules, level).hints(pos, dice, n=n, deadline=deadline)
            moves = [entry(h.play, h.equity, h.loss, h.ply, h.probabilities.as_dict()) for h in hs]
        return {
            "game": pos.game,
            "position": pos.id(),
            "dice": list(dice),
            "numbering": numbering,
            "last_roll": lr is not None,
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
    summary="Result probabilities of a position for the side on roll (like wildbg's /eval: p0..p25 accepted)",
)
async def evaluate(
    compute: ComputeDep,
    points: Points,
    game: str = GAME_QUERY,
    position: str | None = POSITION_QUERY,
    level: Level = Query("grandmaster", description="grandmaster and expert evaluate at 1-ply"),
    last_roll: LastRoll | None = LAST_ROLL_QUERY,
):
    pin = _position(game, position, points)
    pos = pin.position
    rules, lr = _last_roll(pin, last_roll)

    def run(deadline):
        if lr is not None:
            odds = last_roll_odds(lr, rules)
            probs = _last_roll_probs(odds["draw"], odds["lose"]["mars"])
            return {
                "game": pos.game,
                "position": pos.id(),
                "level": level,
                "ply": 0,
                "result_levels": list(pos.rules.result_names),
                "probabilities": {k: round(x, 5) for k, x in probs.items()},
                "exclusive": {
                    "win": dict.fromkeys(pos.rules.result_names, 0.0),
                    "lose": {k: round(x, 5) for k, x in odds["lose"].items()},
                },
                "equity": round(odds["equity"], 5),
                "last_roll": True,
                "draw": round(odds["draw"], 5),
            }
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
    position: str | None = POSITION_QUERY,
    cube: int | None = Query(None, ge=1, le=2**20, description="cube value (a power of two); default 1 or the XGID's"),
    owner: Literal["centre", "me", "opponent"] | None = Query(
        None, description="who owns the cube; default centre or the XGID's"
    ),
    length: int | None = Query(None, ge=0, le=99, description="match length; 0 = money; default 0 or the XGID's"),
    score_me: int | None = Query(None, ge=0, le=99, description="default 0 or the XGID's (the side on roll)"),
    score_opponent: int | None = Query(None, ge=0, le=99),
    crawford: bool | None = Query(None, description="default false or the XGID's"),
    jacoby: bool | None = Query(None, description="default false or the XGID's"),
    level: Level = Query("grandmaster"),
    last_roll: LastRoll | None = LAST_ROLL_QUERY,
):

    pin = _position(game, position)
    pos = pin.position
    given = {
        "cube": cube,
        "owner": owner,
        "length": length,
        "score_me": score_me,
        "score_opponent": score_opponent,
        "crawford": crawford,
        "jacoby": jacoby,
    }
    st = pin.xgid
    if st is not None:
        on_roll_bottom = st.turn == 1
        fields = {
            "cube": st.cube_value,
            "owner": {None: "centre", "mover": "me", "opponent": "opponent"}[st.cube_holder],
            "length": st.match_length,
            "score_me": st.score_bottom if on_roll_bottom else st.score_top,
            "score_opponent": st.score_top if on_roll_bottom else st.score_bottom,
            "crawford": st.crawford,
            "jacoby": st.jacoby,
        }
        differ = [
            f"{k}={v!r} (the XGID has {fields[k]!r})" for k, v in given.items() if v is not None and v != fields[k]
        ]
        if differ:
            raise InvalidOptionError(f"the query differs from the XGID: {', '.join(differ)}")
    else:
        fields = {
            "cube": 1,
            "owner": "centre",
            "length": 0,
            "score_me": 0,
            "score_opponent": 0,
            "crawford": False,
            "jacoby": False,
        }
    v = {k: (x if x is not None else fields[k]) for k, x in given.items()}
    cube, owner, length = v["cube"], v["owner"], v["length"]
    score_me, score_opponent, crawford, jacoby = v["score_me"], v["score_opponent"], v["crawford"], v["jacoby"]
    _check_cube_query(cube, length, score_me, score_opponent, crawford)
    _, lr = _last_roll(pin, last_roll)
    if lr is not None:
        raise GameStateError(f"position {pos.id()}: no doubling on the last roll", code="last_roll")
    if pos.is_game_over():
        raise _finished(pos)

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
    summary="Import a .mat record (or an .xg file's bytes): replay it through the rules",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "text/plain": {"schema": {"type": "string", "maxLength": MAT_LIMIT}},
                "application/json": {"schema": MatText.model_json_schema()},
                "application/octet-stream": {"schema": {"type": "string", "format": "binary", "maxLength": MAT_LIMIT}},
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
    from ...records.xg import looks_like_xg

    xg = looks_like_xg(raw)  # an .xg file's bytes: read by nardy.records.xg, never taken for text
    text = ""
    if xg:
        pass
    elif "json" in ctype:
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
    if not xg and not text.strip():
        return error_response(
            422, "empty record: send the .mat text as the request body", "RecordError", request=request
        )

    def run(deadline):
        # the text is only ever parsed as a record: never taken for a file name
        from ...records.mat import match_summary, parse_mat, replay
        from ...records.xg import parse_xg

        m = replay(parse_xg(raw) if xg else parse_mat(text))
        out = {"record": match_summary(m)}
        if save:
            out["session"] = _imported_session(m)
        return out

    out = await compute(run)
    if not save:
        return out

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


def _imported_session(m) -> HostedGame:
    """A saved game (two people at this device) continuing the replayed match ``m``."""

    md = m.to_dict()
    if m.current is not None and m.current.phase == "opening":
        # a record cut after a game's header: that game has not begun; drop it and begin it
        # afresh below (with its opening roll), so the saved game can be played on
        md["games"] = md["games"][:-1]
    m2 = Match.from_dict(md, dice=SystemDice())
    s = HostedGame.from_match(
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

"""The position editor: its page (``/editor``), the check of a set-up position and a bounded rollout.

* ``POST /api/positions/check``: a set-up (a board in wildbg's signed form ``points`` with optional
  borne-off counts, or each side's own board ``mover``/``opponent``, or a ``position`` as a Position ID or an
  XGID) with its dice, cube and score -> every impossible thing named with a code (the rules' own check,
  :func:`nardy.rules.setup.setup_problems`), and for a possible one its Position ID, XGID (backgammon and
  short nardy) and both pip counts. Cheap (no engine work): it runs on the server's thread pool.
* ``POST /api/rollout``: a position rolled out by the net (:func:`nardy.engine.rollout.rollout`), as computer
  work of the caller (:class:`~nardy.web.deps.Compute`: fair per client, queued and bounded); the trials are
  capped (:data:`MAX_TRIALS`, :data:`MAX_TRIALS_VR` with variance reduction) so that one job stays within a
  few seconds, since a rollout, unlike a search, cannot stop half-way.

The page (nardy/web/static/editor.html) calls these and the engine routes (``/api/move``, ``/api/cube``) and
starts a game from the position with ``POST /api/games`` (``start``, :class:`nardy.web.routers.games.StartAt`).
"""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Literal

from fastapi import APIRouter
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...rules import ids
from ...rules.errors import InvalidIdError, InvalidOptionError
from ...rules.position import Position
from ...rules.setup import Setup, boards_from_points, setup_problems
from ...rules.variants import get_rules
from ..deps import ComputeDep
from ..params import is_xgid

__all__ = ["router", "CheckIn", "RolloutIn", "MAX_TRIALS", "MAX_TRIALS_VR", "read_setup", "setup_out"]

router = APIRouter()

#: The most trials of one rollout without variance reduction (a few seconds of one worker, bench figure in
#: docs/online.md "Position editor"), and with it (about 21 times the time per trial).
MAX_TRIALS = 324
MAX_TRIALS_VR = 18
#: Seconds a rollout job may take on the computer's workers before its answer is given up (the job itself
#: is bounded by the trial caps above).
ROLLOUT_BUDGET = 20.0

#: A count of the check's body: bounded at the edge; what is impossible within the bounds the rules name.
Count = Annotated[int, Field(ge=-99, le=99)]


class CheckIn(BaseModel):
    """A set-up position to check: its board in one of three forms (``position``; ``points`` with optional
    ``off``; ``mover`` and ``opponent``), the roll, the cube and the score (all from the mover's view)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field("backgammon", max_length=40, description="backgammon, short or long (aliases accepted)")
    position: str | None = Field(
        None, max_length=80, description="a Position ID (long nardy: optional :Fxy suffix) or an XGID"
    )
    points: list[Count] | None = Field(
        None,
        min_length=26,
        max_length=26,
        description="wildbg's p0..p25: [1..24] the points from the mover's view (+ mover, - opponent), "
        "[25] the mover's bar, [0] the opponent's bar (0 or negative)",
    )
    off: list[Count] | None = Field(
        None,
        min_length=2,
        max_length=2,
        description="with points: (mover, opponent) borne off; default what the board leaves of 15",
    )
    mover: list[Count] | None = Field(
        None, min_length=26, max_length=26, description="the mover's own board: [0] off, [1..24], [25] bar"
    )
    opponent: list[Count] | None = Field(None, min_length=26, max_length=26, description="the opponent's own board")
    dice: list[Count] | None = Field(None, min_length=2, max_length=2, description="the roll to play; none: to roll")
    cube: int | None = Field(None, ge=0, le=2**20, description="cube value; default 1 (or the XGID's)")
    owner: Literal["centre", "mover", "opponent"] | None = Field(None, description="default centre (or the XGID's)")
    score: list[Count] | None = Field(None, min_length=2, max_length=2, description="(mover, opponent)")
    length: int | None = Field(None, ge=0, le=99, description="match length, 0 money; default 0 (or the XGID's)")
    crawford: bool | None = Field(None, description="the Crawford game of a match")


class Problem(BaseModel):
    code: str
    detail: str
    params: dict = Field(default_factory=dict, description="the values of the code's message")


class CheckOut(BaseModel):
    game: str
    ok: bool = Field(..., description="nothing impossible: the position can be analysed and played")
    errors: list[Problem]
    position: str | None = Field(..., description="Position ID (mover's view) when ok")
    xgid: str | None = Field(..., description="XGID (backgammon, short nardy) when ok")
    pips: list[int] = Field(..., description="(mover, opponent) pip counts of the checkers on the board and bar")
    mover: list[int] = Field(..., description="the mover's own board as read: [0] off, [1..24], [25] bar")
    opponent: list[int] = Field(..., description="the opponent's own board as read")
    dice: list[int] | None
    cube: int
    owner: str
    score: list[int]
    length: int
    crawford: bool


_OWNERS = {"centre": None, "mover": 0, "opponent": 1}


def read_setup(body: CheckIn) -> Setup:
    """The :class:`~nardy.rules.setup.Setup` of a check's body (the XGID's dice, cube and score where the
    body does not give them).

    Raises:
        InvalidOptionError: no board or more than one form of it;
        InvalidIdError / InvalidPositionError: a malformed Position ID or XGID, or an XGID with a double
            waiting for an answer.
    """
    rules = get_rules(body.game)
    forms = [n for n in ("position", "points", "mover") if getattr(body, n) is not None]
    if (body.mover is None) != (body.opponent is None):
        raise InvalidOptionError("mover and opponent: give both boards")
    if len(forms) != 1:
        raise InvalidOptionError("give the board in one form: position, points (with off), or mover and opponent")
    if body.off is not None and body.points is None:
        raise InvalidOptionError("off goes with points")
    st = None
    if body.position is not None:
        text = body.position.strip()
        if is_xgid(text):
            if not rules.hitting:
                raise InvalidIdError(f"XGID {text!r}: XGID is defined for backgammon and short nardy only")
            if text[:5].upper() == "XGID=":
                text = "XGID=" + text[5:]
            st = ids.parse_xgid(text)
            if st.cube_action:
                raise InvalidIdError(f"XGID {text!r}: a double is waiting for an answer ({st.cube_action})")
            m25, o25 = st.mover, st.opponent
        else:
            if not rules.hitting:
                text, _ = ids.split_long_id(text)
            elif ":" in text:
                raise InvalidIdError(f"position ID {text!r}: a suffix is only used for long nardy")
            m25, o25 = ids.boards_from_position_id(text)
        mover = [0] + list(m25[:24]) + [m25[24]]
        opp = [0] + list(o25[:24]) + [o25[24]]
        mover[0], opp[0] = max(0, 15 - sum(mover)), max(0, 15 - sum(opp))
    elif body.points is not None:
        mover, opp = boards_from_points(body.points, rules, body.off)
    else:
        mover, opp = list(body.mover or ()), list(body.opponent or ())
    if st is not None:
        own_turn = st.turn == 1
        xg = {
            "dice": None if st.dice == (0, 0) else tuple(st.dice),
            "cube": st.cube_value,
            "owner": {None: "centre", "mover": "mover", "opponent": "opponent"}[st.cube_holder],
            "score": (st.score_bottom, st.score_top) if own_turn else (st.score_top, st.score_bottom),
            "length": st.match_length,
            "crawford": st.crawford,
        }
    else:
        xg = {"dice": None, "cube": 1, "owner": "centre", "score": (0, 0), "length": 0, "crawford": False}
    dice = tuple(body.dice) if body.dice is not None else xg["dice"]
    return Setup(
        rules,
        mover,
        opp,
        dice=dice,
        cube=body.cube if body.cube is not None else xg["cube"],
        cube_owner=_OWNERS[body.owner if body.owner is not None else xg["owner"]],
        score=tuple(body.score) if body.score is not None else xg["score"],
        length=body.length if body.length is not None else xg["length"],
        crawford=body.crawford if body.crawford is not None else xg["crawford"],
    )


def _pips(board) -> int:
    """A side's pip count: each checker its point in its own numbering, the bar 25 (negative counts skipped)."""
    return sum(p * n for p, n in enumerate(board) if p > 0 and n > 0)


def setup_out(s: Setup) -> dict:
    """The answer of a check (:class:`CheckOut`)."""
    rules = get_rules(s.rules)
    problems = setup_problems(s)
    pid = xgid = None
    if not problems:
        pos = Position.from_boards(list(s.mover), list(s.opponent), rules)
        pid = pos.id()
        if rules.hitting:
            owner = {None: 0, 0: 1, 1: -1}[s.cube_owner]
            xgid = pos.xgid(
                dice=s.dice or (0, 0),
                cube_value=s.cube,
                cube_owner=owner,
                score=s.score,
                match_length=s.length,
                crawford_jacoby=int(bool(s.crawford and s.length)),
                max_cube=max(1024, s.cube),
            )
    return {
        "game": rules.name,
        "ok": not problems,
        "errors": [p.to_dict() for p in problems],
        "position": pid,
        "xgid": xgid,
        "pips": [_pips(s.mover), _pips(s.opponent)],
        "mover": [int(x) for x in s.mover],
        "opponent": [int(x) for x in s.opponent],
        "dice": list(s.dice) if s.dice else None,
        "cube": s.cube,
        "owner": {None: "centre", 0: "mover", 1: "opponent"}.get(s.cube_owner, "centre"),
        "score": list(s.score),
        "length": s.length,
        "crawford": s.crawford,
    }


@router.post(
    "/api/positions/check",
    tags=["engine"],
    response_model=CheckOut,
    summary="Check a set-up position: each impossible thing named with a code; its Position ID, XGID, pips",
)
async def check_position(body: CheckIn):
    return await run_in_threadpool(lambda: setup_out(read_setup(body)))


# ----- rollout ----------------------------------------------------------------------------------------------
class RolloutIn(BaseModel):
    """A rollout of a position before the mover rolls (:func:`nardy.engine.rollout.rollout`)."""

    model_config = ConfigDict(extra="forbid")
    game: str = Field("backgammon", max_length=40)
    position: str = Field(..., max_length=80, description="Position ID or XGID of the side on roll")
    trials: int = Field(
        324, ge=1, le=MAX_TRIALS, description=f"games to play (at most {MAX_TRIALS}; {MAX_TRIALS_VR} with vr)"
    )
    vr: bool = Field(False, description="variance reduction: a smaller error, about 21 times the time a trial")
    seed: int = Field(0, ge=0, le=2**62, description="seed of the rollout's dice (results are reproducible)")
    truncate: int = Field(0, ge=0, le=500, description="stop each game after this many plies (0: to the end)")


class RolloutOut(BaseModel):
    game: str
    position: str
    trials: int
    vr: bool
    seed: int
    truncate: int
    equity: float = Field(..., description="cubeless money equity, mover's view")
    std_error: float
    ci: float = Field(..., description="95% half-width of the equity")
    probabilities: dict[str, float]


@router.post(
    "/api/rollout",
    tags=["engine"],
    response_model=RolloutOut,
    summary="Roll a position out with the net (bounded: trials capped, queued as the computer's work)",
)
async def rollout_position(body: RolloutIn, compute: ComputeDep):
    from ..params import read_position

    if body.vr and body.trials > MAX_TRIALS_VR:
        raise InvalidOptionError(
            f"trials {body.trials}: at most {MAX_TRIALS_VR} with variance reduction (vr)",
            code="too_many_trials",
            params={"limit": MAX_TRIALS_VR},
        )
    pos = read_position(body.game, body.position).position
    if pos.is_game_over():
        raise InvalidOptionError(f"position {pos.id()} is over: nothing to roll out", code="game_over")

    def run(deadline):
        from ...engine.evaluator import Probabilities
        from ...engine.rollout import rollout

        r = rollout(pos, trials=body.trials, seed=body.seed, truncate=body.truncate, variance_reduction=body.vr)
        probs = Probabilities(pos.game, r.probabilities).as_dict()
        return {
            "game": pos.game,
            "position": pos.id(),
            "trials": r.trials,
            "vr": body.vr,
            "seed": body.seed,
            "truncate": body.truncate,
            "equity": round(r.equity, 5),
            "std_error": round(r.std_error, 5),
            "ci": round(1.96 * r.std_error, 5),
            "probabilities": {k: round(float(x), 5) for k, x in probs.items()},
        }

    return await compute(run, budget=ROLLOUT_BUDGET)


# ----- the page ---------------------------------------------------------------------------------------------
@router.get("/editor", include_in_schema=False)
async def editor_page():
    """The position editor page."""
    return FileResponse(str(resources.files("nardy.web") / "static" / "editor.html"), media_type="text/html")

"""Positions as text: ``POST /api/positions/import`` reads a pasted position (an XGID, a Position ID, or
eXtreme Gammon's text export of a backgammon position, with or without its analysis, in any of XG's
languages, alone or inside a forum post), and ``GET /api/positions/xgtext`` writes a backgammon position in
XG's text layout (:mod:`nardy.records.xgtext`).

The pasted text is only ever parsed (never a file name, never evaluated), bounded to
:data:`IMPORT_TEXT_LIMIT` characters (and the request body to :data:`IMPORT_BODY_LIMIT` bytes by the guard);
anything that is not a position is a 422 JSON error quoting the bad part.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ...records.xgtext import XGPosition, parse_xg_text, write_xg_text
from ...rules.errors import InvalidIdError, InvalidOptionError, RecordError
from ...rules.ids import parse_xgid
from ...rules.position import Position, check_dice
from ...rules.variants import get_rules
from ..deps import GAME_QUERY
from ..params import is_xgid, read_position

__all__ = ["router", "IMPORT_TEXT_LIMIT", "IMPORT_BODY_LIMIT"]

#: The longest text ``POST /api/positions/import`` reads (characters): an export with a long analysis is
#: about 2,000.
IMPORT_TEXT_LIMIT = 20_000
#: The body limit of that route (bytes): the text as JSON, every character escaped (``\\uXXXX``), and room.
IMPORT_BODY_LIMIT = 6 * IMPORT_TEXT_LIMIT + 4096

router = APIRouter()

_OWNERS = {None: "centre", 0: "mover", 1: "opponent"}


class ImportIn(BaseModel):
    """The pasted text, and the game a bare Position ID belongs to."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(
        ...,
        min_length=1,
        max_length=IMPORT_TEXT_LIMIT,
        description="an XGID, a Position ID, or eXtreme Gammon's text export of a position (any of its "
        "languages; text around it, such as a forum post, is skipped)",
    )
    game: str = Field(
        "backgammon",
        max_length=40,
        description="the game of a Position ID (which does not say it); an XGID is backgammon unless this is "
        "short (short nardy); XG's text export is always backgammon",
    )


class PlayOut(BaseModel):
    play: str
    equity: float
    level: str
    probabilities: list[float] | None = Field(
        None, description="win, win gammon, win backgammon, lose gammon, lose backgammon (fractions, cumulative)"
    )


class CubeAnalysisOut(BaseModel):
    no_double: float
    double_take: float
    double_pass: float
    cubeless: list[float] | None = None
    probabilities: list[float] | None = None
    level: str
    action: str = Field(..., description="the proper action from the three equities, e.g. 'no double/take'")


class ImportOut(BaseModel):
    game: str
    position: str = Field(..., description="Position ID, the side on roll's view")
    xgid: str | None = Field(None, description="the XGID (backgammon, short nardy), the side on roll at the bottom")
    dice: list[int] | None
    cube: int
    owner: Literal["centre", "mover", "opponent"]
    score: list[int] | None = Field(..., description="[side on roll, opponent] in a match; null in money play")
    length: int = Field(..., description="match length; 0 money")
    crawford: bool
    names: list[str] | None = Field(None, description="[side on roll, opponent], from XG's text")
    plays: list[PlayOut] = Field(default_factory=list, description="XG's checker-play analysis in the text")
    cube_analysis: CubeAnalysisOut | None = Field(None, description="XG's cube analysis in the text")


def _xg_out(x: XGPosition) -> dict:
    c = x.cube_analysis
    return {
        "game": "backgammon",
        "position": x.position.id(),
        "xgid": x.xgid,
        "dice": list(x.dice) if x.dice else None,
        "cube": x.cube,
        "owner": _OWNERS[x.owner],
        "score": list(x.score) if x.score else None,
        "length": x.length,
        "crawford": x.crawford,
        "names": list(x.names),
        "plays": [
            {
                "play": p.play,
                "equity": p.equity,
                "level": p.level,
                "probabilities": list(p.probs) if p.probs else None,
            }
            for p in x.plays
        ],
        "cube_analysis": None
        if c is None
        else {
            "no_double": c.no_double,
            "double_take": c.double_take,
            "double_pass": c.double_pass,
            "cubeless": list(c.cubeless) if c.cubeless else None,
            "probabilities": list(c.probs) if c.probs else None,
            "level": c.level,
            "action": c.action,
        },
    }


def import_text(text: str, game: str = "backgammon") -> dict:
    """The answer of ``POST /api/positions/import`` for ``text`` (see :class:`ImportOut`).

    Raises:
        RecordError, InvalidIdError, InvalidPositionError, UnknownGameError: not a position (422).
    """
    rules = get_rules(game)
    words = text.split()
    if len(words) == 1 and is_xgid(words[0]):
        t = words[0]
        xgid = "XGID=" + (t[5:] if t[:5].upper() == "XGID=" else t)
        if rules.name == "short":
            st = parse_xgid(xgid)
            if st.cube_action:
                raise RecordError(f"{xgid}: a double is waiting for an answer ({st.cube_action})")
            pos = Position.from_xgid(xgid, rules)
            score = (st.score_bottom, st.score_top) if st.turn == 1 else (st.score_top, st.score_bottom)
            return {
                "game": "short",
                "position": pos.id(),
                "xgid": xgid,
                "dice": list(st.dice) if st.dice != (0, 0) else None,
                "cube": st.cube_value,
                "owner": st.cube_holder or "centre",
                "score": list(score) if st.match_length else None,
                "length": st.match_length,
                "crawford": st.crawford,
            }
        return _xg_out(parse_xg_text(xgid))
    if len(words) == 1:
        pos = Position.from_id(words[0], rules)
        return {
            "game": rules.name,
            "position": pos.id(),
            "xgid": pos.xgid() if rules.hitting else None,
            "dice": None,
            "cube": 1,
            "owner": "centre",
            "score": None,
            "length": 0,
            "crawford": False,
        }
    if rules.name != "backgammon":
        raise InvalidOptionError(f"game={game!r}: XG's text export is of a backgammon position, not {rules.name}")
    return _xg_out(parse_xg_text(text))


@router.post(
    "/api/positions/import",
    tags=["positions"],
    response_model=ImportOut,
    response_model_exclude_none=False,
    summary="Read a pasted position: an XGID, a Position ID, or eXtreme Gammon's text export",
)
async def import_position(body: ImportIn):
    if not body.text.strip():
        raise InvalidIdError("empty text: paste an XGID, a Position ID or XG's text export of a position")
    return await run_in_threadpool(import_text, body.text, body.game)


def _pair(text: str | None, what: str, sep: str = "-") -> tuple[int, int] | None:
    if text is None:
        return None
    parts = text.split(sep)
    if len(parts) != 2 or not all(p.strip().isdigit() and len(p.strip()) <= 3 for p in parts):
        raise InvalidOptionError(f"{what}={text!r}: expected two numbers as A{sep}B")
    return int(parts[0]), int(parts[1])


@router.get(
    "/api/positions/xgtext",
    tags=["positions"],
    response_class=PlainTextResponse,
    summary="A backgammon position in eXtreme Gammon's text layout (XGID, board, pips, cube, roll)",
)
async def xg_text(
    game: str = GAME_QUERY,
    position: str | None = Query(
        None,
        max_length=80,
        description="Position ID of the side on roll, or an XGID (then dice, cube, owner, score, length and "
        "Crawford come from it unless given). Default: the starting position",
    ),
    dice: str | None = Query(None, max_length=5, description="the roll to play, as 6-4; none: a cube decision"),
    cube: int | None = Query(None, ge=1, le=2**15, description="cube value (a power of two)"),
    owner: Literal["centre", "mover", "opponent"] | None = Query(None, description="who owns the cube"),
    score: str | None = Query(None, max_length=9, description="match score, side on roll first: 2-4"),
    length: int | None = Query(None, ge=0, le=99, description="match length; 0 money"),
    crawford: bool | None = Query(None, description="this is the Crawford game"),
    names: str | None = Query(None, max_length=81, description="side on roll, opponent: A,B (40 characters each)"),
):
    rules = get_rules(game)
    if rules.name != "backgammon":
        raise InvalidOptionError(f"game={game!r}: XG's text layout is for backgammon")
    pin = read_position(rules.name, position)
    if pin.xgid is None:
        base = parse_xg_text(pin.position.xgid())
    else:
        t = (position or "").strip()
        base = parse_xg_text("XGID=" + (t[5:] if t[:5].upper() == "XGID=" else t))
    d = _pair(dice, "dice")
    name_pair = ("Player 1", "Player 2")
    if names is not None:
        parts = names.split(",")
        if len(parts) != 2:
            raise InvalidOptionError(f"names={names!r}: expected two names as A,B")
        name_pair = (parts[0].strip() or "Player 1", parts[1].strip() or "Player 2")
    n_length = base.length if length is None else length
    n_score = base.score if score is None else _pair(score, "score")
    x = XGPosition(
        base.position,
        dice=(check_dice(d) if d is not None else base.dice),
        cube=base.cube if cube is None else cube,
        owner=base.owner if owner is None else {"centre": None, "mover": 0, "opponent": 1}[owner],
        score=n_score if (n_length or score is not None) else None,
        length=n_length,
        crawford=base.crawford if crawford is None else crawford,
        jacoby=base.jacoby if n_length == base.length else False,
        beaver=base.beaver if n_length == base.length else False,
        names=name_pair,
    )
    return PlainTextResponse(write_xg_text(x), media_type="text/plain; charset=utf-8")

"""Query parameters the API routes share: unknown names refused, and a position in any of its forms.

* :func:`refuse_unknown_query` (a dependency of every route, :func:`nardy.web.app.create_app`): a query
  parameter that the route does not take is refused with 422 ``unknown_parameter`` naming it, never
  silently ignored (a misspelt ``levle=expert`` would otherwise quietly give the default level).
  ``lang`` (the language of error messages) is taken by every route.
* :func:`read_position`: the position of an engine route, from ``position`` (a GNU Backgammon Position ID,
  long nardy's with its optional ``:Fxy`` suffix, or an XGID, with or without ``XGID=``, for backgammon
  and short nardy) or from wildbg's form ``p0``..``p25`` (:func:`wildbg_points`; wildbg's ``/move`` and
  ``/eval``: ``p1``..``p24`` the points from the mover's view, positive the mover's checkers, negative the
  opponent's; ``p25`` the mover's bar, 0..15; ``p0`` the opponent's bar, -15..0; a point not given is
  empty; each side's checkers not on the board are borne off).
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass

from fastapi import Query
from starlette.exceptions import WebSocketException
from starlette.requests import HTTPConnection

from ..rules.errors import InvalidIdError, InvalidOptionError, InvalidPositionError
from ..rules.ids import parse_xgid
from ..rules.numbering import opponent_point
from ..rules.position import Position
from ..rules.variants import get_rules
from .errors import Refused

__all__ = ["refuse_unknown_query", "read_position", "wildbg_points", "WildbgPoints", "PositionIn", "ALWAYS_ALLOWED"]

#: Query parameters every route takes (the language of error messages, :func:`nardy.web.lang.language`).
ALWAYS_ALLOWED = frozenset({"lang"})
#: Most unknown names quoted in one refusal, and the longest quoted.
_NAMES_QUOTED, _NAME_LEN = 5, 40

_allowed_cache: dict[int, frozenset[str]] = {}


def _query_names(dependant) -> set[str]:
    """The query parameters of a FastAPI dependant and of its dependencies, by the name a client sends."""
    names: set[str] = set()
    todo, seen = [dependant], set()
    while todo:
        d = todo.pop()
        if id(d) in seen:
            continue
        seen.add(id(d))
        names.update(f.alias for f in getattr(d, "query_params", ()))
        todo.extend(getattr(d, "dependencies", ()))
    return names


def _allowed(route) -> frozenset[str]:
    key = id(route)
    names = _allowed_cache.get(key)
    if names is None:
        dependant = getattr(route, "dependant", None)
        found = _query_names(dependant) if dependant is not None else set()
        _allowed_cache[key] = names = frozenset(found) | ALWAYS_ALLOWED
    return names


async def refuse_unknown_query(conn: HTTPConnection) -> None:
    """Refuse a request to an API route (``/api/...``) whose query names a parameter the route does not take.

    Raises:
        Refused: 422 ``unknown_parameter`` with ``params["parameters"]`` (the unknown names, comma-separated,
            at most 5 quoted) and ``params["allowed"]`` (the route's parameters);
        WebSocketException: 1008, for a WebSocket handshake with such a parameter.
    """
    if not conn.url.path.startswith("/api/"):
        return
    route = conn.scope.get("route")
    if route is None:
        return
    allowed = _allowed(route)
    unknown = sorted({k for k in conn.query_params.keys() if k not in allowed})
    if not unknown:
        return
    shown = [n[:_NAME_LEN] for n in unknown[:_NAMES_QUOTED]] + (["..."] if len(unknown) > _NAMES_QUOTED else [])
    names = ", ".join(repr(n) for n in shown)
    points = {f"p{i}" for i in range(26)}
    rest = sorted(allowed - points)
    takes = ", ".join(rest + (["p0..p25"] if points <= allowed else sorted(allowed & points)))
    detail = f"unknown query parameter(s) {names}: this route takes {takes}"
    if conn.scope["type"] == "websocket":
        raise WebSocketException(1008, detail[:120])
    raise Refused(
        422,
        detail,
        code="unknown_parameter",
        kind="UnknownParameter",
        params={"parameters": ", ".join(shown), "allowed": takes},
    )


# ----- wildbg's p0..p25 -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class WildbgPoints:
    """wildbg's ``p0``..``p25`` as given (``None`` for a point not named); :attr:`given` is False when
    none is."""

    values: tuple[int | None, ...]

    @property
    def given(self) -> bool:
        return any(v is not None for v in self.values)


def _point_param(i: int) -> inspect.Parameter:
    if i == 0:
        q = Query(None, ge=-15, le=0, description="wildbg: the opponent's bar (0..-15)")
    elif i == 25:
        q = Query(None, ge=0, le=15, description="wildbg: the mover's bar (0..15)")
    else:
        q = Query(None, ge=-15, le=15, description=f"wildbg: point {i} from the mover's view (+ mover, - opponent)")
    return inspect.Parameter(f"p{i}", inspect.Parameter.KEYWORD_ONLY, default=q, annotation=int | None)


def wildbg_points(**points: int | None) -> WildbgPoints:
    """The dependency that reads ``p0``..``p25`` (wildbg's position form, module docstring)."""
    return WildbgPoints(tuple(points.get(f"p{i}") for i in range(26)))


wildbg_points.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
    [_point_param(i) for i in range(26)], return_annotation=WildbgPoints
)


def _from_wildbg(points: WildbgPoints, rules):

    v = [x or 0 for x in points.values]
    mover = [0] * 26
    opp = [0] * 26
    for p in range(1, 25):
        if v[p] > 0:
            mover[p] = v[p]
        elif v[p] < 0:
            opp[opponent_point(p, rules.hitting)] = -v[p]
    mover[25] = v[25]
    opp[25] = -v[0]
    if not rules.hitting and (mover[25] or opp[25]):
        raise InvalidPositionError(
            f"p0={v[0]}, p25={v[25]}: long nardy has no bar (no hitting): p0 and p25 must be 0", code="invalid_position"
        )
    for name, side in (("mover", mover), ("opponent", opp)):
        n = sum(side)
        if n > 15:
            raise InvalidPositionError(f"p0..p25: the {name} has {n} checkers, more than 15")
        side[0] = 15 - n
    try:
        return Position.from_boards(mover, opp, rules)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"p0..p25 is not a valid {rules.name} position: {e}") from None


# ----- a position in any form ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class PositionIn:
    """An engine route's position: ``position`` (a :class:`~nardy.rules.position.Position`, mover's view) and
    ``xgid`` (the :class:`~nardy.rules.ids.XgidState` when it came as an XGID, with its dice, cube and score)."""

    position: object
    xgid: object | None = None


def is_xgid(text: str) -> bool:
    """``text`` is written as an XGID (``XGID=`` prefix, or a 26-character first field before ``:``)."""
    t = text.strip()
    return t.upper().startswith("XGID=") or (":" in t and len(t.split(":", 1)[0]) == 26)


def read_position(game: str, position: str | None, points: WildbgPoints | None = None) -> PositionIn:
    """The position of an engine route (see the module docstring): ``position`` as a Position ID or an
    XGID, else wildbg's ``p0``..``p25``, else the game's starting position.

    Raises:
        InvalidOptionError: both ``position`` and ``p0``..``p25`` given;
        InvalidIdError / InvalidPositionError: a malformed ID or XGID, an impossible position, an XGID for
            long nardy or with a cube action pending (``D``/``B``/``R``: not a position to move in);
        UnknownGameError: an unknown game.
    """

    rules = get_rules(game)
    given = points is not None and points.given
    if position and given:
        raise InvalidOptionError("give the position either as position= or as p0..p25 (wildbg's form), not both")
    if given:
        return PositionIn(_from_wildbg(points, rules))
    if not position:
        return PositionIn(Position.start(rules))
    if is_xgid(position):
        text = position.strip()
        if text[:5].upper() == "XGID=":
            text = "XGID=" + text[5:]
        pos = Position.from_xgid(text, rules)
        st = parse_xgid(text)
        if st.cube_action:
            raise InvalidIdError(
                f"XGID {position!r}: a double is waiting for an answer ({st.cube_action}): "
                "ask /api/cube about the position before the double"
            )
        return PositionIn(pos, st)
    return PositionIn(Position.from_id(position, rules))

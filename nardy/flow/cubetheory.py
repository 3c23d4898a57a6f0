"""Cube decisions: money play with Janowski's cube-efficiency model, match play from a match equity table.

Money play (Rick Janowski, "Take-points in money games", 1993): from cubeless probabilities, ``W`` = the
average points won when winning and ``L`` = the average points lost when losing (gammons and higher
levels included). With a fully live cube the cubeful equity is piecewise linear in ``p = P(win)`` between
the take point ``TP = (L - 1/2) / (W + L + 1/2)`` and the cash point ``CP = (L + 1) / (W + L + 1/2)``; with a
dead cube it is the cubeless ``p (W + L) - L``. Cubeful equity = ``x * live + (1 - x) * dead`` with the cube
efficiency ``x`` (GNU Backgammon's defaults: 0.68 in contact positions; in races 0.55 + 0.00125 * the
on-roll side's pip count, clamped to 0.6..0.7).

Match play: match winning chances from a match equity table (:mod:`nardy.flow.met`): the same
``x * live + (1 - x) * dead`` split, with the live cube's take and cash points computed from the table at
the score by recursion over the cube levels (GNU Backgammon's eval.c ``Cl2CfMatch``/``GetPoints`` model;
see :func:`match_cube_decision`). Judged by bgsage (bench/cube_vs_bgsage.py) both formulas give bgsage's
own cube equities from bgsage's probabilities exactly.

Decisions, for the side on roll (who may double): no double (ND), double/take (DT: the opponent owns the
doubled cube), double/pass (DP: the doubler wins the current cube value). Double when
``min(DT, DP) > ND``; the opponent takes when ``DT <= DP`` (from the doubler's view).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

from ..engine.evaluator import LEVELS, Probabilities
from ..rules.errors import why_not_double_text
from ..rules.position import Position
from .met import get_met

__all__ = [
    "cube_decision",
    "CubeDecision",
    "CubeState",
    "HasCubeState",
    "money_cube_decision",
    "match_cube_decision",
    "cube_efficiency",
    "decision_margins",
    "janowski_equity",
]


@dataclass(frozen=True)
class CubeState:
    """What a cube decision needs to know of a game: the bots' view of a game, a match or a set-up position.

    :meth:`nardy.flow.game.Game.cube_state` and :meth:`nardy.flow.match.Match.cube_state` build it; a bare
    :class:`~nardy.rules.position.Position` is ``CubeState(position)`` (centred cube at 1, money play).

    Attributes:
        position: the position, from the view of the player on roll (``turn``).
        turn: the player on roll (0 White, 1 Black): the one who may double, or who doubled.
        cube_value: the cube's value (while a double waits for an answer, the value before it).
        cube_owner: ``None`` (centred), 0 or 1.
        enabled: the cube is in use in this game.
        phase: ``"roll"`` (the player on roll may double) or ``"double"`` (a double waits for take/pass).
        jacoby, crawford: money play's Jacoby rule; a match's Crawford game.
        why_not_double: a code of :meth:`nardy.flow.game.Game.why_not_double` when the player on roll may not
            double for a reason of the game's own (``None`` otherwise).
        cube_limit: the largest cube value, or ``None``.
        score: ``(player 0, player 1)`` before this game; ``length``: the match length (0 money play).
    """

    position: Position
    turn: int = 0
    cube_value: int = 1
    cube_owner: int | None = None
    enabled: bool = True
    phase: str = "roll"
    jacoby: bool = False
    crawford: bool = False
    why_not_double: str | None = None
    cube_limit: int | None = None
    score: tuple[int, int] = (0, 0)
    length: int = 0


@runtime_checkable
class HasCubeState(Protocol):
    """Anything that can say its :class:`CubeState` (a game, a match)."""

    def cube_state(self) -> CubeState: ...


@dataclass
class CubeDecision:
    """A cube decision for the side on roll and its opponent.

    Attributes:
        double: the side on roll should double (or redouble) now.
        take: the opponent should take a double (False: pass).
        action: what the side that must act now should do: ``"double"``/``"no double"`` (before the roll),
            ``"take"``/``"pass"`` (when a double is waiting for an answer), or ``"no double"`` when the
            cube is not available.
        equities: ``{"no double": .., "double/take": .., "double/pass": ..}`` for the side on roll, in
            units of the current cube (money) or as match winning chances (match play).
        probabilities: the cubeless probabilities used (:class:`~nardy.engine.evaluator.Probabilities`).
        reason: why the cube is not available, or ``""``.
        margins: ``(doubler margin, take margin)``: ``min(DT, DP) - ND`` and ``DP - DT`` from the side on
            roll's view in units of the current cube (match play: the match winning chances normalised so that
            winning the current cube is +1 and losing it -1, as bgsage and GNU Backgammon show them); how far
            the decision is from changing (``None`` where not computed).
    """

    double: bool
    take: bool
    action: str
    equities: dict = field(default_factory=dict)
    probabilities: object = None
    reason: str = ""
    margins: tuple[float, float] | None = None

    @property
    def too_good(self) -> bool:
        """The side on roll is too good to double (playing on beats cashing)."""
        e = self.equities
        return bool(e) and e["no double"] > e["double/pass"]


def cube_efficiency(position) -> float:
    """GNU Backgammon's cube efficiency for a position: 0.68 in contact, pip-based (0.6..0.7) in races."""
    from ..engine import _kernels as K

    b = position.array
    if K.is_race(b, position.rules.hitting):
        pips = position.pip_count()[0]
        if not position.rules.hitting:
            pips = pips * 167 / 360
        return float(min(0.7, max(0.6, 0.55 + 0.00125 * pips)))
    return 0.68


def _w_l(probs, values):
    """Average win and loss (points at cube 1) from cumulative outputs."""
    a = np.asarray(probs.array if hasattr(probs, "array") else probs, np.float64)
    L = len(values)
    p = a[0]
    win_pts = values[0] * p + sum((values[i] - values[i - 1]) * a[i] for i in range(1, L))
    lose_pts = values[0] * (1 - p) + sum((values[i] - values[i - 1]) * a[L - 1 + i] for i in range(1, L))
    W = win_pts / p if p > 1e-9 else values[0]
    Lq = lose_pts / (1 - p) if p < 1 - 1e-9 else values[0]
    return float(p), float(W), float(Lq)


def janowski_equity(p: float, W: float, L: float, x: float, owner: str) -> float:
    """Cubeful equity (units of the current cube) for the side on roll.

    Args:
        p: P(win); W, L: average win/loss; x: cube efficiency (0 dead .. 1 fully live).
        owner: ``"centre"``, ``"me"`` (the side on roll owns the cube) or ``"opponent"``.
    """
    dead = p * (W + L) - L
    tp = (L - 0.5) / (W + L + 0.5)  # my take point
    cp = (L + 1.0) / (W + L + 0.5)  # my cash point (the opponent's take point, from my view)
    if owner == "centre":
        if p <= tp:
            live = -L + (p / tp) * (L - 1.0) if tp > 0 else -1.0
        elif p >= cp:
            live = 1.0 + (p - cp) / (1 - cp) * (W - 1.0) if cp < 1 else 1.0
        else:
            live = -1.0 + 2.0 * (p - tp) / (cp - tp)
    elif owner == "me":
        if p >= cp:
            live = 1.0 + (p - cp) / (1 - cp) * (W - 1.0) if cp < 1 else 1.0
        else:
            live = -L + (1.0 + L) * p / cp
    else:
        if p <= tp:
            live = -L + (p / tp) * (L - 1.0) if tp > 0 else -1.0
        else:
            live = -1.0 + (W + 1.0) * (p - tp) / (1 - tp)
    return float(x * live + (1 - x) * dead)


def money_cube_decision(probs, values, x: float, owner: str, jacoby: bool = False, cube_value: int = 1) -> dict:
    """ND / DT / DP equities (units of the current cube) for money play.

    ``owner`` as in :func:`janowski_equity` (the cube's owner before any double); with ``jacoby`` and a
    centred cube, gammons and higher levels count for nothing when playing on.
    """
    p, W, L = _w_l(probs, values)
    if jacoby and owner == "centre" and cube_value == 1:
        Wn, Ln = float(values[0]), float(values[0])
    else:
        Wn, Ln = W, L
    nd = janowski_equity(p, Wn, Ln, x, owner)
    dt = 2.0 * janowski_equity(p, W, L, x, "opponent")
    return {"no double": nd, "double/take": dt, "double/pass": 1.0}


def match_cube_decision(probs, values, x: float, owner: str, away_me: int, away_opp: int, cube_value: int, met) -> dict:
    """ND / DT / DP match winning chances for the side on roll at a match score.

    Args:
        probs: cubeless probabilities (side on roll); values: points per level; x: cube efficiency.
        owner: the cube's owner before the decision (``"centre"``/``"me"``/``"opponent"``).
        away_me, away_opp: points each side still needs; cube_value: the current cube.
        met: a :class:`nardy.flow.met.MatchEquityTable` (``met.mwc_after(...)``).

    The cubeful MWC is ``x * live + (1 - x) * dead`` (GNU Backgammon's match-play model, eval.c
    ``Cl2CfMatch``): ``dead`` is the cubeless MWC ``p W(c) + (1 - p) L(c)`` (``W``/``L``: the MWC of a win or
    a loss at cube ``c``, weighted by the position's gammon and backgammon shares); ``live`` is piecewise
    linear in ``p`` through ``(0, L(c))``, the opponent's cash point (the side on roll's take point of a
    double to ``2c``, with the MWC of losing ``c``), the own cash point (the opponent's take point, with
    the MWC of winning ``c``) and ``(1, W(c))`` (an owned cube keeps only the owner's cash point). The
    take points come from the match equity table by recursion over the cube levels
    (:func:`match_take_points`): at the highest level the cube is dead; below, the taker owns the cube
    and redoubles at the doubler's take point of the next level. For money-like scores this recursion
    gives Janowski's live take point ``(L - 1/2) / (W + L + 1/2)``.
    """
    a = np.asarray(probs.array if hasattr(probs, "array") else probs, np.float64)
    p = float(min(1.0, max(0.0, a[0])))
    pts = _MatchPoints(a, values, away_me, away_opp, met)

    def cubeful(cube: int, own: str) -> float:
        aw, al, w, lo = pts.win1(cube), pts.lose1(cube), pts.win(cube), pts.lose(cube)
        dead = lo + p * (w - lo)
        xs, ys = [0.0], [lo]
        if own in ("centre", "opponent"):  # the opponent may double me out below my take point
            xs.append(pts.take_me(2 * cube))
            ys.append(al)
        if own in ("centre", "me"):  # I cash above the opponent's take point
            xs.append(pts.take_opp(2 * cube))
            ys.append(aw)
        xs.append(1.0)
        ys.append(w)
        xs = list(np.maximum.accumulate(np.clip(xs, 0.0, 1.0)))
        live = float(np.interp(p, xs, ys)) if p < 1.0 else w
        return float(x * live + (1 - x) * dead)

    nd = cubeful(cube_value, owner)
    dt = cubeful(2 * cube_value, "opponent")
    dp = pts.win1(cube_value)
    return {"no double": nd, "double/take": dt, "double/pass": dp}


class _MatchPoints:
    """MWCs (side on roll's view) of the game's outcomes at a score, and the live take points by cube level."""

    def __init__(self, a, values, away_me: int, away_opp: int, met):
        Lv = len(values)
        p = float(a[0])
        wins = [a[0]] + [a[i] for i in range(1, Lv)]
        loses = [1 - a[0]] + [a[Lv - 1 + i] for i in range(1, Lv)]
        # exclusive shares of each level among the wins / the losses
        self.fw = [
            (wins[i] - (wins[i + 1] if i + 1 < Lv else 0.0)) / p if p > 1e-9 else float(i == 0) for i in range(Lv)
        ]
        self.fl = [
            (loses[i] - (loses[i + 1] if i + 1 < Lv else 0.0)) / (1 - p) if p < 1 - 1e-9 else float(i == 0)
            for i in range(Lv)
        ]
        self.values = values
        self.me, self.opp, self.met = away_me, away_opp, met
        # above this cube value every win ends the match: the cube is dead
        self.top = 2 * max(away_me, away_opp, 1)
        self._tm: dict = {}
        self._to: dict = {}

    def _m(self, me: int, opp: int) -> float:
        return self.met.mwc_after(me, opp, self.me, self.opp)

    def win1(self, v: int) -> float:
        return self._m(self.me - v, self.opp)

    def lose1(self, v: int) -> float:
        return self._m(self.me, self.opp - v)

    def win(self, v: int) -> float:
        return sum(f * self._m(self.me - v * val, self.opp) for f, val in zip(self.fw, self.values))

    def lose(self, v: int) -> float:
        return sum(f * self._m(self.me, self.opp - v * val) for f, val in zip(self.fl, self.values))

    def take_me(self, v: int) -> float:
        """The lowest P(win) at which the side on roll takes the opponent's double to ``v``."""
        if v not in self._tm:
            lo, pass_ = self.lose(v), self.lose1(v // 2)
            if v >= self.top:
                hi, k = self.win(v), 1.0
            else:  # I own the cube at v and cash at the opponent's take point of 2v
                hi, k = self.win1(v), self.take_opp(2 * v)
            t = k * (pass_ - lo) / (hi - lo) if hi - lo > 1e-12 else 0.0
            self._tm[v] = float(min(1.0, max(0.0, t)))
        return self._tm[v]

    def take_opp(self, v: int) -> float:
        """The highest P(win) of the side on roll at which the opponent takes a double to ``v``."""
        if v not in self._to:
            hi, pass_ = self.win(v), self.win1(v // 2)
            if v >= self.top:
                lo, k = self.lose(v), 0.0
            else:  # the opponent owns the cube at v and cashes at my take point of 2v
                lo, k = self.lose1(v), self.take_me(2 * v)
            t = k + (1 - k) * (pass_ - lo) / (hi - lo) if hi - lo > 1e-12 else 1.0
            self._to[v] = float(min(1.0, max(0.0, t)))
        return self._to[v]


def decision_margins(eqs: dict, lose1: float = -1.0, win1: float = 1.0) -> tuple[float, float]:
    """``(min(DT, DP) - ND, DP - DT)`` of ND/DT/DP equities ``eqs``, rescaled so that ``lose1`` (the value of
    losing the current cube) is -1 and ``win1`` (winning it) +1: money equities in units of the cube are
    unchanged; match winning chances become normalised equities (pass ``met.mwc`` of losing and of winning the
    current cube). The doubler's decision changes sign with the first, the taker's with the second."""
    scale = 2.0 / (win1 - lose1) if win1 - lose1 > 1e-12 else 1.0
    nd, dt, dp = eqs["no double"], eqs["double/take"], eqs["double/pass"]
    return float((min(dt, dp) - nd) * scale), float((dp - dt) * scale)


def decide(eqs: dict) -> tuple[bool, bool]:
    """``(double, take)`` from ND/DT/DP values (higher is better for the side on roll)."""
    take = eqs["double/take"] <= eqs["double/pass"] + 1e-12
    double = min(eqs["double/take"], eqs["double/pass"]) > eqs["no double"]
    return bool(double), bool(take)


def cube_state_of(state) -> CubeState:
    """The :class:`CubeState` of ``state``: a :class:`CubeState` itself, anything with a ``cube_state()``
    method (a :class:`nardy.flow.game.Game`, a :class:`nardy.flow.match.Match`), or a
    :class:`~nardy.rules.position.Position` (side on roll to decide, centred cube at 1, money play).

    Raises:
        TypeError: ``state`` is none of these; ValueError: a match with no game in progress.
    """
    if isinstance(state, Position):
        return CubeState(state)
    if isinstance(state, CubeState):
        return state
    if isinstance(state, HasCubeState):
        return state.cube_state()
    raise TypeError(f"cube_action expects a CubeState, a game, a match or a Position, not {type(state).__name__}")


def cube_decision(
    evaluate: Callable[[Position], Probabilities],
    state,
    *,
    score=None,
    match_length: int | None = None,
    crawford: bool | None = None,
    scoring=None,
    efficiency: float | None = None,
) -> CubeDecision:
    """The cube decision for a game in progress, from cubeless probabilities.

    Args:
        evaluate: ``evaluate(position)`` -> :class:`~nardy.engine.evaluator.Probabilities` of the side on roll
            of ``position`` before it rolls (e.g. a bot's ``evaluate`` at its cube depth; it may raise for
            another game's position).
        state: what :func:`cube_state_of` accepts (a :class:`CubeState`, a game, a match, a position).
        score: ``(player 0, player 1)`` match score, with ``match_length`` (0 or None = money); they override
            the state's.
        crawford: override the state's Crawford flag.
        scoring: the points of a single, gammon and backgammon win (default: the position's rules').
        efficiency: the cube efficiency ``x`` (0: a dead cube; default: :func:`cube_efficiency` of the position).
    Returns:
        A :class:`CubeDecision`: ``double`` (should the player on roll double), ``take`` (should the opponent
        take), and ``action`` for whoever must act now: ``"double"`` / ``"no double"`` before the roll,
        ``"take"`` / ``"pass"`` when a double waits for an answer. When the cube cannot be used, ``double`` is
        False and ``reason`` says why. Equities as :func:`money_cube_decision` (Janowski) or
        :func:`match_cube_decision` (the game's match equity table, :func:`nardy.flow.met.get_met`) give them.
    Raises:
        TypeError: ``state`` is none of the accepted kinds; ValueError: a match with no game in progress (and
            whatever ``evaluate`` raises).
    """
    cs = cube_state_of(state)
    length = cs.length if match_length is None else match_length
    score = cs.score if score is None else score
    crawford = cs.crawford if crawford is None else crawford
    pos, turn, cube_value, phase = cs.position, cs.turn, cs.cube_value, cs.phase
    owner_rel = "centre" if cs.cube_owner is None else ("me" if cs.cube_owner == turn else "opponent")
    probs = evaluate(pos)
    reason = ""
    if not cs.enabled:
        reason = "the cube is not in use"
    elif crawford:
        reason = "Crawford game: nobody may double"
    elif phase != "double" and cs.why_not_double:
        reason = why_not_double_text(cs.why_not_double, owner_name="the opponent", limit=cs.cube_limit, phase=phase)
    elif owner_rel == "opponent" and phase != "double":
        reason = "the opponent owns the cube"
    x = cube_efficiency(pos) if efficiency is None else efficiency
    values = tuple(pos.rules.scoring if scoring is None else scoring)
    if length:
        away_me = length - int(score[turn])
        away_opp = length - int(score[1 - turn])
        met = get_met(pos.game)
        eqs = match_cube_decision(probs, values, x, owner_rel, away_me, away_opp, cube_value, met)
        margins = decision_margins(
            eqs,
            lose1=met.mwc_after(away_me, away_opp - cube_value, away_me, away_opp),
            win1=met.mwc_after(away_me - cube_value, away_opp, away_me, away_opp),
        )
    else:
        eqs = money_cube_decision(probs, values, x, owner_rel, jacoby=cs.jacoby, cube_value=cube_value)
        margins = decision_margins(eqs)
    double, take = decide(eqs)
    if reason:
        double = False
    if phase == "double":
        action = "take" if take else "pass"
    else:
        action = "double" if double else "no double"
    return CubeDecision(double, take, action, eqs, probs, reason, margins)


def level_names(game):
    return LEVELS[game]

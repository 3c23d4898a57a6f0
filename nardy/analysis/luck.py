"""The luck of a roll, exact by construction (:mod:`nardy.analysis.core` uses it for every roll it analyses).

For the side on roll in a position, each of the 21 distinct rolls gets one value: that of its best play, the
play chosen by the position's cubeless value at the score (the dead-cube value: money points at the cube, or
the match winning chance after each result level), its probabilities taken at the *luck depth* (0-ply, the
net, by default: GNU Backgammon's luck analysis is 0-ply too), and turned into the mover's cubeful value with
the opponent on roll taking its best cube action, :meth:`nardy.analysis.cubeful._Ctx.value_after_play`, the
same conversion the analysis ranks candidates with. A dance is the roll's only "play"; a play that bears off
the last checker is the game's result.

The value of the position before the roll is the weighted mean of those 21 values (weights 1/36 for a
double, 2/36 otherwise), and a roll's luck is its value minus that mean, so the 36 rolls' lucks sum to zero
exactly: a roll is lucky or unlucky only against the other rolls of the same position, judged by the same
evaluator at the same depth with the same cube. (The older definition, the analysis level's best play for the
roll thrown against the level's value of the position one ply shallower, did not average to zero: its luck
was biased.)

Long nardy's last roll (option ``last-roll``) is exact: :func:`last_roll_values` gives every roll's exact
value (:func:`nardy.rules.lastroll.last_roll_plays`), so its luck is exact too.
"""

from __future__ import annotations

import numpy as np

from ..engine.evaluator import flip_probs
from ..engine.search import ROLL_WEIGHTS, ROLLS21, mirror_boards
from ..rules.lastroll import last_roll_plays
from ..rules.position import Position

__all__ = [
    "ROLLS",
    "WEIGHTS",
    "OPENING_WEIGHTS",
    "roll_index",
    "score_values",
    "roll_values",
    "last_roll_values",
    "luck_of",
    "money_luck",
    "luck_adjusted",
]

#: The 21 distinct rolls, ``(a, b)`` with ``a <= b``, in the engine's order.
ROLLS: tuple[tuple[int, int], ...] = tuple((int(a), int(b)) for a, b in ROLLS21)
#: Their weights (1/36 for a double, 2/36 otherwise; they sum to 1).
WEIGHTS = np.asarray(ROLL_WEIGHTS, np.float64)
#: The weights of an opening roll (never a double): 2/30 for each of the 15 other rolls.
OPENING_WEIGHTS = np.array([0.0 if a == b else 2.0 / 30 for a, b in ROLLS])


def roll_index(dice) -> int:
    """The index in :data:`ROLLS` of ``dice`` (either order)."""
    a, b = sorted(int(x) for x in dice)
    return ROLLS.index((a, b))


def score_values(ctx, player: int) -> tuple[np.ndarray, np.ndarray]:
    """What each result level is worth to ``player`` at this cube and score, cubeless (a dead cube): ``(win,
    lose)`` arrays, one entry per level (single first), in native units (money: points times the cube, gammons
    as singles under Jacoby's rule with a centred cube; match play: the match winning chance after the game)."""
    vals = [float(v) for v in ctx.values]
    c = ctx.cube_value
    if ctx.jacoby and ctx.enabled and not ctx.length and ctx.owner is None and c == 1:
        vals = [vals[0]] * len(vals)
    if not ctx.length:
        w = np.array([v * c for v in vals])
        return w, -w
    me, opp = ctx.aways(player)
    w = np.array([ctx.met.mwc_after(me - int(v * c), opp, me, opp) for v in vals])
    lo = np.array([ctx.met.mwc_after(me, opp - int(v * c), me, opp) for v in vals])
    return w, lo


def _cubeless_value(probs: np.ndarray, win: np.ndarray, lose: np.ndarray) -> np.ndarray:
    """Cubeless value of outputs ``probs`` (``[n, K]``, mover's view: win, the wins at least each higher level,
    the losses at least each higher level) with level values ``win``/``lose``."""
    p = np.asarray(probs, np.float64)
    L = len(win)
    v = lose[0] + (win[0] - lose[0]) * p[:, 0]
    for i in range(1, L):
        v = v + (win[i] - win[i - 1]) * p[:, i] + (lose[i] - lose[i - 1]) * p[:, L - 1 + i]
    return v


def roll_values(searcher, ctx, position: Position, player: int, ply: int = 0) -> np.ndarray:
    """The value of each of the 21 rolls (:data:`ROLLS`) for ``player``, on roll in ``position`` (its view):
    the mover's cubeful value (native units: points times the cube, or match winning chance) after its best
    play for that roll, as the module docstring says.

    Args:
        searcher: the :class:`~nardy.engine.search.Searcher` of the position's game (its net gives 0-ply).
        ctx: the cube and score (:class:`nardy.analysis.cubeful._Ctx`).
        ply: the depth the chosen plays are valued at (0 = the net; each ply more costs about 21 times as much).
    Returns:
        float64[21].
    """
    rules = position.rules
    fo = position.first_turn[1]
    blocks = [position.legal_results(d) for d in ROLLS]
    sizes = [b.shape[0] for b in blocks]
    results = np.concatenate(blocks).astype(np.int8)
    probs = searcher.result_values(results, np.full(results.shape[0], fo, np.bool_))
    win, lose = score_values(ctx, player)
    key = _cubeless_value(probs, win, lose)
    chosen = []
    start = 0
    for n in sizes:
        chosen.append(start + int(np.argmax(key[start : start + n])))
        start += n
    idx = np.array(chosen)
    best = results[idx]
    pr = probs[idx].astype(np.float64)
    if ply > 0:
        live = np.nonzero(best[:, 0] < 15)[0]
        if live.size:
            child = mirror_boards(best[live], rules.hitting)
            cf = np.zeros((live.size, 2), np.bool_)
            cf[:, 0] = fo
            pr[live] = flip_probs(searcher.evaluate_positions(child, cf, ply), rules.name)
    first = (False, fo)
    out = np.empty(len(ROLLS))
    for r in range(len(ROLLS)):
        res = Position(best[r].tobytes(), rules, first)
        out[r] = ctx.value_after_play(pr[r], res, player)
    return out


def last_roll_outcome_value(ctx, player: int, outcome, draw_points: float) -> float:
    """``player``'s native value (money points, or match winning chance) of an outcome of long nardy's last
    roll, ``(kind, level, points)`` of :func:`nardy.rules.lastroll.last_roll_result`: a draw scores
    ``draw_points`` to both sides (money: worth 0), a loss the level's points times the cube."""
    kind, level, _pts = outcome
    c = ctx.cube_value
    if not ctx.length:
        return 0.0 if kind == "draw" else -float(ctx.values[level]) * c
    me, opp = ctx.aways(player)
    if kind == "draw":
        return ctx.met.mwc_after(me - draw_points, opp - draw_points, me, opp)
    return ctx.met.mwc_after(me, opp - int(ctx.values[level] * c), me, opp)


def last_roll_values(ctx, position: Position, player: int, draw_points: float) -> tuple[np.ndarray, list]:
    """Long nardy's last roll (option ``last-roll``): the exact value for ``player`` of each of the 21 rolls
    (:data:`ROLLS`; its best play, :func:`nardy.rules.lastroll.last_roll_plays`) and, per roll, the ranked
    plays with their exact values ``[(Play, value), ...]``, best first."""
    vals = np.empty(len(ROLLS))
    ranked = []
    for r, d in enumerate(ROLLS):
        plays = [(p, last_roll_outcome_value(ctx, player, o, draw_points)) for p, o in last_roll_plays(position, d)]
        plays.sort(key=lambda t: -t[1])
        ranked.append(plays)
        vals[r] = plays[0][1]
    return vals, ranked


def luck_of(values: np.ndarray, dice, opening: bool = False) -> tuple[float, float]:
    """``(luck, value before the roll)`` of the roll ``dice`` from the 21 roll values ``values`` (native
    units): the roll's value minus their weighted mean, and that mean. Over the 36 rolls the lucks sum to 0.

    ``opening``: the opening roll played by the starter (option ``use-opening-dice``), which is never a double
    (a tie is thrown again): the mean is then over the 30 rolls that are not doubles (2/30 each), as GNU
    Backgammon's luck of the first roll, and the 30 rolls' lucks sum to 0."""
    w = OPENING_WEIGHTS if opening else WEIGHTS
    before = float(np.dot(w, values))
    return float(values[roll_index(dice)]) - before, before


def money_luck(searcher, position: Position, dice, opening: bool = False) -> float:
    """The luck of ``dice`` for the side on roll of ``position`` (its view) in cubeless money points at cube 1,
    the cheap judge of games played for benchmarks (:mod:`bench.bot_vs_gnubg`, :mod:`bench.bot_levels`).

    Each of the 21 rolls is valued by the cubeless money equity (the game's scoring, docs/rules.md) after its
    best 0-ply play by ``searcher``'s net (:meth:`nardy.engine.search.Searcher.best_plays`, the position's
    first-turn flags kept: long nardy's head rule); the luck is the roll's value minus their weighted mean
    (:func:`luck_of`; ``opening``: over the 30 non-doubles). Whatever the net's errors, the lucks of a position
    have mean zero over the dice, so points minus the sum of a game's lucks is an unbiased, less noisy
    estimate of its points (GNU Backgammon's "luck adjusted result").

    Args:
        searcher: a :class:`~nardy.engine.search.Searcher` of ``position``'s game.
        dice: the roll thrown, two ints 1-6 in either order.
    Returns:
        The luck, money points (a game's result is worth 1 to 3 in backgammon, 1 to 8 in short nardy).
    """
    first = np.array([position.first_turn], np.bool_)
    _, outputs, _ = searcher.best_plays(position.array[None, :], first)
    return luck_of(searcher.equity(outputs), dice, opening=opening)[0]


def luck_adjusted(points, luck) -> dict[str, float]:
    """The luck-adjusted result of duplicate games: ``points`` and ``luck`` (float[2 n], each game's points and
    luck from one side's view, the two games of a pair adjacent). Returns ``luck_adjusted_ppg`` (mean of points
    minus luck), ``luck_adjusted_ci95`` (1.96 standard errors over the pairs' means), ``pair_sd`` and
    ``luck_adjusted_pair_sd`` (standard deviation of a pair's mean points, raw and adjusted). Needs n >= 2.
    """
    r = np.asarray(points, float)
    pairs = r.reshape(-1, 2).mean(axis=1)
    adj = (r - np.asarray(luck, float)).reshape(-1, 2).mean(axis=1)
    return {
        "luck_adjusted_ppg": float(adj.mean()),
        "luck_adjusted_ci95": float(1.96 * adj.std(ddof=1) / np.sqrt(len(adj))),
        "pair_sd": float(pairs.std(ddof=1)),
        "luck_adjusted_pair_sd": float(adj.std(ddof=1)),
    }

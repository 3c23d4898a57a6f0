"""Cubeful rollouts: a position played out many times with the cube in play, as GNU Backgammon's rollouts.

:func:`cubeful_rollout` plays ``trials`` games from a :class:`~nardy.flow.cubetheory.CubeState` (the position,
the side on roll, the cube's value and owner, the score): the trials run side by side, one ply at a time,
and at each ply

1. the side on roll, where the rules let it double (the cube in use, not a Crawford game, centred or its own,
   below the cube limit, and in match play a cube that still counts for it: it needs more points than the
   cube's value), asks :func:`~nardy.flow.cubetheory.cube_decision` (the project's one path from
   probabilities to a cube action: Janowski's model in money play, the match equity table at the score in
   match play) with the net's 0-ply probabilities of the position; when it doubles, the other side takes or
   passes by the same decision (a pass ends the trial: the doubler wins the cube's value before the
   double; a take turns the cube to twice its value, owned by the taker);
2. the dice are rolled (the first roll of trial ``t`` is roll ``t % 36``, the second ``(t // 36 + 5 (t %
   36)) % 36``, as :func:`nardy.engine._rollout.rollout_batch` stratifies them; later rolls from the seed);
3. the side plays the engine's 0-ply play (:meth:`nardy.engine.search.Searcher.best_plays`: best cubeless
   money equity, in a batch over all trials).

A trial ends when a side bears off (its points: the level's value times the cube; money play's Jacoby rule
counts gammons only once the cube was turned), at a pass, or at ``truncate`` plies, where it is scored by the
**cubeful 0-ply value** of the position for the side on roll (its best cube action included). The result is
in native units from the root side's view (the side on roll at the start): money play points (the cube
included, not divided by the starting cube), match play the root side's match winning chance after the game
(:meth:`nardy.flow.met.MatchEquityTable.mwc_after`, the Crawford rule with it).

**Variance reduction** (``variance_reduction``): as GNU Backgammon does in its cubeful rollouts, each roll's
luck is subtracted from the trial's result, measured in the same cubeful units: for the 21 rolls the side on
roll could have thrown, the 0-ply player's play is found, and the position after it is valued cubefully at
0-ply (the other side on roll with its cube action, or the exact result where the play wins); the luck is the
value after the roll thrown minus the rolls' average. Each term averages zero whatever the state before the
roll, so the mean is unchanged while most of the dice's noise cancels. The cubeless outcome probabilities
kept beside (``probs``) get the same treatment with the net's outputs (as the cubeless rollout's).

The play itself is chosen by cubeless money equity (the engine's 0-ply), not by cubeful equity as GNU
Backgammon's player does: the cube enters through the cube actions, the scoring and the truncation value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import _kernels as K
from ..engine.evaluator import Probabilities, flip_probs
from ..engine.search import ROLL_WEIGHTS, ROLLS21, Searcher, mirror_boards
from ..rules.position import Position
from .cubetheory import CubeState, cube_decision
from .met import get_met

__all__ = ["CubefulRolloutResult", "cubeful_rollout", "may_double", "MAX_PLIES"]

#: Plies a cubeful trial may last: one still running then is scored by its cubeful 0-ply value.
MAX_PLIES = 1000

# roll 0..35 (6 (d1 - 1) + (d2 - 1)) -> index in ROLLS21
_R21 = {(int(a), int(b)): i for i, (a, b) in enumerate(ROLLS21)}
_ROLL_TO_21 = np.array([_R21[(min(r // 6, r % 6) + 1, max(r // 6, r % 6) + 1)] for r in range(36)], np.int64)


@dataclass(frozen=True)
class CubefulRolloutResult:
    """The outcome of :func:`cubeful_rollout`.

    Attributes:
        values: float64[trials], each trial's cubeful result (root side's view, native units: money points
            with the cube, or match winning chance), variance reduction applied.
        probs: float64[K] the mean cubeless outcome (root side's view; the net's outputs where a trial was
            passed or truncated), variance reduction applied.
        mean: the mean of ``values``; std_error: its standard error.
        doubles, passes: trials in which someone doubled, trials that ended in a pass.
        cut_off: trials stopped at :data:`MAX_PLIES` without a result.
    """

    values: np.ndarray
    probs: np.ndarray
    mean: float
    std_error: float
    doubles: int
    passes: int
    cut_off: int


def may_double(state: CubeState, side: int, cube: int, owner: int | None) -> bool:
    """Whether ``side`` may (usefully) double now: the cube in use, not a Crawford game, centred or owned by
    ``side``, doubling stays within ``state.cube_limit``, and in match play ``side`` needs more points than
    the cube's value (otherwise a win already takes the match: the cube is dead for it)."""
    if not state.enabled or state.crawford or owner not in (None, side):
        return False
    if state.cube_limit is not None and cube * 2 > state.cube_limit:
        return False
    return not (state.length and state.length - int(state.score[side]) <= cube)


class _Trials:
    """The arithmetic of one rollout: values of the cube state for a side, turned to the root side's view."""

    def __init__(self, state: CubeState, searcher: Searcher):
        self.s = state
        self.rules = state.position.rules
        self.values = tuple(self.rules.scoring)
        self.length = int(state.length)
        self.met = get_met(self.rules.name) if self.length else None
        self.root = int(state.turn)
        self.game = self.rules.name
        self.searcher = searcher

    def to_root(self, v: float, side: int) -> float:
        if side == self.root:
            return v
        return 1.0 - v if self.length else -v

    def win_value(self, winner: int, points: float) -> float:
        """The root side's value of ``winner`` winning ``points`` (points times the cube)."""
        if not self.length or self.met is None:
            return points if winner == self.root else -points
        me = self.length - int(self.s.score[self.root])
        opp = self.length - int(self.s.score[1 - self.root])
        if winner == self.root:
            return self.met.mwc_after(int(me - points), opp, me, opp)
        return self.met.mwc_after(me, int(opp - points), me, opp)

    def game_points(self, level: int, cube: int, owner: int | None) -> float:
        pts = self.values[level - 1] * cube
        if self.s.jacoby and self.s.enabled and not self.length and owner is None and cube == 1:
            pts = self.values[0]  # Jacoby: gammons count once the cube was turned
        return float(pts)

    def decision(self, probs, board, first, side: int, cube: int, owner: int | None):
        """:func:`cube_decision` for ``side`` on roll on ``board`` (its view) with 0-ply ``probs``."""
        pos = Position(np.asarray(board, np.int8).tobytes(), self.rules, (bool(first[0]), bool(first[1])))
        st = CubeState(
            pos,
            turn=side,
            cube_value=int(cube),
            cube_owner=owner,
            enabled=self.s.enabled,
            jacoby=self.s.jacoby and self.s.enabled,
            crawford=self.s.crawford,
            cube_limit=self.s.cube_limit,
            score=self.s.score,
            length=self.length,
        )
        p = Probabilities(self.game, np.asarray(probs, np.float64))
        usable = self.s.enabled and not self.s.crawford  # a cube out of play is dead: efficiency 0
        return cube_decision(lambda _pos: p, st, scoring=self.values, efficiency=None if usable else 0.0)

    def on_roll(self, probs, board, first, side: int, cube: int, owner: int | None) -> float:
        """The root side's cubeful 0-ply value of ``side`` on roll (its best cube action included)."""
        d = self.decision(probs, board, first, side, cube, owner)
        e = d.equities
        if may_double(self.s, side, cube, owner) and d.double:
            v = min(e["double/take"], e["double/pass"])
        else:
            v = e["no double"]
        return self.to_root(v if self.length else v * cube, side)


def _owner_code(owner: int | None) -> int:
    return -1 if owner is None else int(owner)


def cubeful_rollout(
    state: CubeState,
    searcher: Searcher,
    trials: int,
    seed: int,
    truncate: int = 0,
    variance_reduction: bool = True,
    no_double_first: bool = False,
) -> CubefulRolloutResult:
    """Roll ``state.position`` out ``trials`` times with the cube in play (see the module docstring).

    Args:
        state: the start: ``position`` from the view of ``turn``, the side on roll (before its roll and cube
            action), the cube (``cube_value``, ``cube_owner``, ``enabled``, ``jacoby``, ``crawford``,
            ``cube_limit``) and the score (``score``, ``length``; 0 money play).
        searcher: the engine's :class:`~nardy.engine.search.Searcher` of the game (its evaluator plays both
            sides and gives the cube decisions their probabilities).
        trials: games (1 or more; multiples of 36 stratify the first roll). seed: the later rolls' seed.
        truncate: plies per trial, then the cubeful 0-ply value (0: to the end).
        variance_reduction: subtract each roll's cubeful luck (about 21 times the work per ply).
        no_double_first: the side on roll does not double at the first ply (the "no double" line of a cube
            decision; a "double/take" line starts from the doubled cube owned by the taker instead).
    Returns:
        A :class:`CubefulRolloutResult` (root side's view, native units).
    Raises:
        ValueError: ``trials < 1``, ``truncate < 0``, or a finished position.
    """
    if trials < 1 or truncate < 0:
        raise ValueError(f"trials must be 1 or more and truncate 0 or more, not {trials}, {truncate}")
    pos = state.position
    if pos.is_game_over():
        raise ValueError(f"position {pos.id()} is over; nothing to roll out")
    T = _Trials(state, searcher)
    game, hitting = T.game, T.rules.hitting
    code = searcher.code
    k_out = searcher.k
    n = int(trials)
    board = np.repeat(pos.array.astype(np.int8).reshape(1, 28), n, axis=0)
    first = np.zeros((n, 2), np.bool_)
    first[:, 0], first[:, 1] = bool(pos.first_turn[0]), bool(pos.first_turn[1])
    cube = np.full(n, int(state.cube_value), np.int64)
    owner = np.full(n, _owner_code(state.cube_owner), np.int64)
    active = np.ones(n, np.bool_)
    value = np.zeros(n, np.float64)
    outcome = np.zeros((n, k_out), np.float64)
    luck = np.zeros(n, np.float64)
    luck_p = np.zeros((n, k_out), np.float64)
    doubled = np.zeros(n, np.bool_)
    passes = 0
    cut = 0
    rng = np.random.default_rng(int(seed))
    ev = searcher.ev
    t_idx = np.arange(n)
    tmp = np.zeros(k_out, np.float32)
    limit = truncate if truncate > 0 else MAX_PLIES

    def own(i) -> int | None:
        return None if owner[i] < 0 else int(owner[i])

    def root_probs(p, side: int) -> np.ndarray:
        p = np.asarray(p, np.float64)
        return p if side == T.root else flip_probs(p, game).astype(np.float64)

    ply = 0
    while active.any():
        side = T.root if ply % 2 == 0 else 1 - T.root
        live = np.nonzero(active)[0]
        if ply >= limit:
            # truncated: the cubeful 0-ply value of the side on roll, cube action included
            probs = ev.evaluate_batch(board[live], first[live])
            for j, i in enumerate(live):
                value[i] = T.on_roll(probs[j], board[i], first[i], side, int(cube[i]), own(i))
                outcome[i] = root_probs(probs[j], side)
            if truncate <= 0:
                cut += len(live)
            active[live] = False
            break
        # 1. the cube action before the roll
        if not (ply == 0 and no_double_first):
            asks = [i for i in live if may_double(state, side, int(cube[i]), own(i))]
            if asks:
                idx = np.array(asks, np.int64)
                probs = ev.evaluate_batch(board[idx], first[idx])
                for j, i in enumerate(asks):
                    d = T.decision(probs[j], board[i], first[i], side, int(cube[i]), own(i))
                    if not d.double:
                        continue
                    doubled[i] = True
                    if d.take:
                        cube[i] *= 2
                        owner[i] = 1 - side
                    else:
                        value[i] = T.win_value(side, float(cube[i]))
                        outcome[i] = root_probs(probs[j], side)
                        active[i] = False
                        passes += 1
                live = np.nonzero(active)[0]
                if not len(live):
                    break
        # 2. the roll (drawn for every trial at every later ply, so each trial's dice depend on the seed only)
        if ply == 0:
            rolls = t_idx % 36
        elif ply == 1:
            rolls = (t_idx // 36 + 5 * (t_idx % 36)) % 36
        else:
            rolls = rng.integers(0, 36, size=n)
        r = rolls[live]
        dice = np.stack([r // 6 + 1, r % 6 + 1], axis=1).astype(np.int64)
        # 3. the play
        if variance_reduction:
            res21, p21, fo21 = searcher.best_plays(board[live], first[live])
            sel = np.arange(len(live)) * 21 + _ROLL_TO_21[r]
            res, fo = res21[sel], fo21[sel]
            # the 21 positions after the play, valued cubefully (root's view)
            won21 = res21[:, 0] >= 15
            child = mirror_boards(res21, hitting)
            for j, i in enumerate(live):
                c, o = int(cube[i]), own(i)
                vals = np.empty(21)
                for q in range(21):
                    row = j * 21 + q
                    if won21[row]:
                        lvl = K.win_level(res21[row], code)
                        vals[q] = T.win_value(side, T.game_points(lvl, c, o))
                    else:
                        opp_probs = flip_probs(np.asarray(p21[row], np.float32), game)
                        vals[q] = T.on_roll(opp_probs, child[row], (bool(fo21[row]), False), 1 - side, c, o)
                q_act = int(_ROLL_TO_21[r[j]])
                luck[i] += vals[q_act] - float(vals @ ROLL_WEIGHTS)
                pr = np.asarray(p21[j * 21 : (j + 1) * 21], np.float64)
                mean_p = ROLL_WEIGHTS @ pr
                luck_p[i] += root_probs(pr[q_act], side) - root_probs(mean_p, side)
        else:
            res, _, fo = searcher.best_plays(board[live], first[live], dice)
        won = res[:, 0] >= 15
        for j, i in enumerate(live):
            if won[j]:
                lvl = K.win_level(res[j], code)
                value[i] = T.win_value(side, T.game_points(lvl, int(cube[i]), own(i)))
                K.outcome_vector(lvl, code, tmp)
                outcome[i] = root_probs(tmp, side)
                active[i] = False
        go = ~won
        if go.any():
            ids = live[go]
            board[ids] = mirror_boards(res[go], hitting)
            first[ids, 0] = fo[go]
            first[ids, 1] = False
        ply += 1
    values = value - luck
    probs_mean = (outcome - luck_p).mean(axis=0)
    mean = float(values.mean())
    se = float(values.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0
    return CubefulRolloutResult(values, probs_mean, mean, se, int(doubled.sum()), passes, cut)

"""Compiled kernels (numba): the game codes and the outcome vectors of an evaluator.

Game codes: ``GAME_BG = 0`` (backgammon), ``GAME_SHORT = 1`` (short nardy), ``GAME_LONG = 2`` (long nardy).
Outputs of an evaluator (``K`` floats, all from the view of the side on roll, cumulative like GNU Backgammon's):
``[P(win), P(win at level >= 2), ..., P(win at level L), P(lose at level >= 2), ..., P(lose at level L)]``
where the levels are the game's result levels (docs/rules.md scoring): backgammon single/gammon/backgammon
(K = 5), short nardy oyun/mars/home mars/koks (K = 7), long nardy oyn/mars (K = 3). Boards are ``int8[28]`` in
the layout of :mod:`nardy.rules._movegen`, from the view of the side on roll.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import _movegen as _core

GAME_BG, GAME_SHORT, GAME_LONG = 0, 1, 2
N_LEVELS = np.array([3, 4, 2], np.int64)
N_OUTPUTS = np.array([5, 7, 3], np.int64)


@njit(cache=True, nogil=True)
def game_params(game):
    """(hitting, strict, head_mode) of a game with default options."""
    if game == GAME_BG:
        return True, False, -1
    if game == GAME_SHORT:
        return True, True, -1
    return False, False, _core.HEAD_BLOCK


@njit(cache=True, nogil=True)
def sanitize(o, game):
    """Make outputs consistent in place: win in [0, 1]; each level <= the one below; losses <= 1 - win."""
    L = N_LEVELS[game]
    w = min(max(o[0], 0.0), 1.0)
    o[0] = w
    prev = w
    for i in range(1, L):
        v = min(max(o[i], 0.0), prev)
        o[i] = v
        prev = v
    prev = 1.0 - w
    for i in range(L, 2 * L - 1):
        v = min(max(o[i], 0.0), prev)
        o[i] = v
        prev = v


@njit(cache=True, nogil=True)
def money_equity(o, game, values):
    """Cubeless money equity (points per game, mover's view) of outputs ``o``; ``values`` = scoring per level."""
    L = N_LEVELS[game]
    e = values[0] * (2.0 * o[0] - 1.0)
    for i in range(1, L):
        d = values[i] - values[i - 1]
        e += d * (o[i] - o[L - 1 + i])
    return e


@njit(cache=True, nogil=True)
def flip(o, game, out):
    """The same outcome from the other side's view."""
    L = N_LEVELS[game]
    out[0] = 1.0 - o[0]
    for i in range(1, L):
        out[i] = o[L - 1 + i]
        out[L - 1 + i] = o[i]


@njit(cache=True, nogil=True)
def win_level(b, game):
    """Result level (1-based) when the mover has just borne off its last checker on board ``b`` (mover's view)."""
    if b[27] > 0:
        return 1
    if game == GAME_LONG:
        return 2
    if game == GAME_BG:
        if b[26] > 0:
            return 3
        for p in range(1, 7):
            if b[p] < 0:
                return 3
        return 2
    # short nardy: koks (bar), home mars (a checker outside the loser's home = mover points 1..18), mars
    if b[26] > 0:
        return 4
    for p in range(1, 19):
        if b[p] < 0:
            return 3
    return 2


@njit(cache=True, nogil=True)
def outcome_vector(level, game, out):
    """Outputs of a win at ``level`` for the mover (cumulative, exact 0/1)."""
    L = N_LEVELS[game]
    out[:] = 0.0
    out[0] = 1.0
    for i in range(1, L):
        if level >= i + 1:
            out[i] = 1.0

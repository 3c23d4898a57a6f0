"""Compiled kernels (numba): the inputs of the nets, from a board of the side on roll.

Input encoding (``N_INPUTS`` floats), GNU Backgammon / TD-Gammon style. For each side (mover first, then
opponent), in that side's own numbering: for points 1..24 four units ``n>=1, n>=2, n>=3, (n-3)/4``; the
bar as four units the same way; borne off ``/15`` and ``>=1``; pip count ``/200``; checkers outside home
``/15``. Then: a "no contact" flag (a pure race), the long-nardy first-turn flags of both sides, and the
number of the mover's points in a row blocking the opponent (long nardy; ``/6``). Encoding version 2 adds:
the share of the 36 rolls with which the side on roll can hit an opponent blot, the same for the opponent
(were it on roll), and the longest prime (points with 2+ checkers in a row) of each side ``/6`` (long nardy:
0, 0, 0 and the opponent's longest run of held points ``/6``). Encoding version 3 adds, for the hitting
games in contact: the pips the opponent loses to the mover's best hit averaged over the 36 rolls ``/12``, the
same for the mover were the opponent on roll (GNU Backgammon's "pip loss"), and the chance that a checker on
the bar fails to enter, ``(closed home points / 6)^2``, for the mover (against the opponent's board) then for
the opponent (zero for long nardy and in races). Encoding version 4 adds, for the hitting games in contact,
GNU Backgammon's escape figures: the share of the 36 rolls with which the mover's rearmost checker escapes
the opponent's points in front of it (a roll escapes when the point its whole move reaches is not held by
2+ opponent checkers and at least one of its single-die points is not: :data:`ESCAPES`), the same for the
opponent's rearmost checker, then the containment of each side, ``1 - min escapes / 36`` over its points
15..24 (the mover's first, then the opponent's). Nets of an older version are read with zero weights for
the inputs they lack, which leaves their outputs unchanged. Encoding version 5 adds, for long nardy, each side's
mobility (:func:`_long_mobility`: the share of its checkers that can step each die, the rolls with which it
can step neither die or only one; the mover's eight, then the opponent's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import _movegen as _core
from ._features import (
    _back_escapes,
    _block_run,
    _home_points,
    _long_mobility,
    _min_escapes,
    _opp_block_run,
    _prime,
    hit_stats,
    is_race,
)
from ._outcomes import GAME_LONG

SIDE_INPUTS = 104
#: Inputs of encoding version 1 (the first 212); version 2 adds 4 (hit chances and primes).
N_INPUTS_V1 = 2 * SIDE_INPUTS + 4
#: Inputs of encoding version 2 (version 3 adds 4: pip loss to hits and closed-board entering).
N_INPUTS_V2 = N_INPUTS_V1 + 4
#: Inputs of encoding version 3 (version 4 adds 4: escapes of the rearmost checkers, containment).
N_INPUTS_V3 = N_INPUTS_V2 + 4
#: Inputs of encoding version 4 (version 5 adds 16: long nardy mobility, :func:`_long_mobility`).
N_INPUTS_V4 = N_INPUTS_V3 + 4
N_INPUTS = N_INPUTS_V4 + 16


@njit(cache=True, nogil=True, inline="always")
def _units(x, base, n):
    if n >= 1:
        x[base] = 1.0
        if n >= 2:
            x[base + 1] = 1.0
            if n >= 3:
                x[base + 2] = 1.0
                if n > 3:
                    x[base + 3] = (n - 3) / 4.0


@njit(cache=True, nogil=True)
def encode(b, game, first_m, first_o, x):
    """Write the inputs of board ``b`` (mover on roll) into ``x`` (float32[N_INPUTS], overwritten)."""
    hitting = game != GAME_LONG
    x[:] = 0.0
    pm = 0
    po = 0
    out_m = 0
    out_o = 0
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            _units(x, 4 * (p - 1), v)
            pm += v * p
            if p > 6:
                out_m += v
        elif v < 0:
            q = _core.opp_point(p, hitting)
            _units(x, SIDE_INPUTS + 4 * (q - 1), -v)
            po += -v * q
            if q > 6:
                out_o += -v
    if hitting:
        _units(x, 96, b[25])
        _units(x, SIDE_INPUTS + 96, b[26])
        pm += 25 * b[25]
        po += 25 * b[26]
        out_m += b[25]
        out_o += b[26]
    x[100] = b[0] / 15.0
    x[101] = 1.0 if b[0] > 0 else 0.0
    x[102] = pm / 200.0
    x[103] = out_m / 15.0
    x[SIDE_INPUTS + 100] = b[27] / 15.0
    x[SIDE_INPUTS + 101] = 1.0 if b[27] > 0 else 0.0
    x[SIDE_INPUTS + 102] = po / 200.0
    x[SIDE_INPUTS + 103] = out_o / 15.0
    k = 2 * SIDE_INPUTS
    race = is_race(b, hitting)
    x[k] = 1.0 if race else 0.0
    x[k + 1] = 1.0 if first_m else 0.0
    x[k + 2] = 1.0 if first_o else 0.0
    if not hitting:
        x[k + 3] = _block_run(b) / 6.0
        x[k + 7] = _opp_block_run(b) / 6.0
        _long_mobility(b, 1, x, N_INPUTS_V4)
        _long_mobility(b, -1, x, N_INPUTS_V4 + 8)
    else:
        if not race:  # no contact: nobody can hit
            m = _core.mirror_hitting(b)  # the opponent's view, for its figures below
            n, loss = hit_stats(b)
            x[k + 4] = n / 36.0
            x[k + 8] = loss / (36.0 * 12.0)
            n, loss = hit_stats(m)
            x[k + 5] = n / 36.0
            x[k + 9] = loss / (36.0 * 12.0)
            # chance that a checker on the bar fails to enter: (closed home points / 6) squared
            c = _home_points(b, -1)
            x[k + 10] = c * c / 36.0
            c = _home_points(b, 1)
            x[k + 11] = c * c / 36.0
            x[k + 12] = _back_escapes(b) / 36.0
            x[k + 14] = 1.0 - _min_escapes(b) / 36.0
            x[k + 13] = _back_escapes(m) / 36.0
            x[k + 15] = 1.0 - _min_escapes(m) / 36.0
        x[k + 6] = _prime(b, 1) / 6.0
        x[k + 7] = _prime(b, -1) / 6.0


@njit(cache=True, nogil=True)
def encode_batch(boards, game, first_m, first_o):
    """Inputs of many boards: float32[n, N_INPUTS]; ``first_m``/``first_o``: bool[n]."""
    n = boards.shape[0]
    out = np.empty((n, N_INPUTS), np.float32)
    for i in range(n):
        encode(boards[i], game, first_m[i], first_o[i], out[i])
    return out


@njit(cache=True, nogil=True)
def unique_boards(boards, first_m, first_o):
    """Distinct rows of ``boards`` (int8[n, 28]) with their flags (bool[n] each): ``(first, inverse)`` where
    ``first`` (int64[u]) indexes the first occurrence of each distinct row, in order, and ``inverse``
    (int64[n]) maps every row to its distinct row, so ``x[first][inverse]`` equals ``x`` for any per-row
    function ``x`` of (board, flags). An open-addressing table over an FNV-1a hash of the bytes."""
    n = boards.shape[0]
    size = 16
    while size < 2 * n:
        size *= 2
    table = np.full(size, -1, np.int64)
    first = np.empty(n, np.int64)
    inverse = np.empty(n, np.int64)
    u = 0
    prime = np.uint64(1099511628211)
    for i in range(n):
        h = np.uint64(14695981039346656037)
        for j in range(boards.shape[1]):
            h = (h ^ np.uint64(boards[i, j] & 0xFF)) * prime
        h = (h ^ np.uint64(first_m[i] + 2 * first_o[i])) * prime
        slot = np.int64(h >> np.uint64(33)) & (size - 1)
        while True:
            k = table[slot]
            if k < 0:
                table[slot] = u
                first[u] = i
                inverse[i] = u
                u += 1
                break
            r = first[k]
            same = first_m[r] == first_m[i] and first_o[r] == first_o[i]
            if same:
                for j in range(boards.shape[1]):
                    if boards[r, j] != boards[i, j]:
                        same = False
                        break
            if same:
                inverse[i] = k
                break
            slot = (slot + 1) & (size - 1)
    return first[:u], inverse

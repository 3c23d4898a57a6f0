"""Compiled kernels (numba): whole games played out: the players' policies (a net greedy at 0-ply, uniform
random, the hand-made :func:`heuristic_score`), self-play TD(lambda) training (:func:`td_train`) and matches
between two policies with duplicate dice (:func:`play_matches`); the rollouts (:mod:`nardy.engine._rollout`)
reuse the pieces (:func:`_choose`, :func:`play_buffers`, :func:`pass_turn`).

Boards are ``int8[28]`` in the layout of :mod:`nardy.rules._movegen`, from the view of the side on roll.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import _movegen as _core
from ._encode import N_INPUTS, encode
from ._features import _block_run, is_race
from ._mlp import forward, sgd_step
from ._outcomes import GAME_BG, GAME_LONG, flip, game_params, money_equity, outcome_vector, sanitize, win_level

MAX_GAME_PLIES = 3000

#: Policies for :func:`play_matches`: a net (greedy at 0-ply), uniform random, the simple heuristic.
POLICY_NET, POLICY_RANDOM, POLICY_HEURISTIC = 0, 1, 2


@njit(cache=True, nogil=True)
def heuristic_score(b, game):
    """A simple hand-made score of a board after the mover's play (mover's view; higher is better).

    Hitting games: borne off, opponent checkers hit, made points (home points count double), blots that
    an opponent checker behind can reach, pip lead. Long nardy: borne off, pip lead, points held, the
    longest run of held points (a prime), checkers still on the head.
    """
    hitting = game != GAME_LONG
    pm = 0
    po = 0
    s = 0.0
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            pm += v * p
        elif v < 0:
            po += -v * _core.opp_point(p, hitting)
    if hitting:
        pm += 25 * b[25]
        po += 25 * b[26]
        s += 3.0 * b[0] + 4.0 * b[26]
        for p in range(1, 25):
            v = b[p]
            if v >= 2:
                s += 2.0 if p <= 6 else 1.0
            elif v == 1:
                # an opponent checker behind (on a higher mover point, or on the bar) can hit
                exposed = b[26] > 0
                for q in range(p + 1, 25):
                    if b[q] < 0:
                        exposed = True
                        break
                if exposed:
                    s -= 1.5 + (0.5 if p <= 6 else 0.0)
        s += 0.05 * (po - pm)
        if is_race(b, True):
            s = 3.0 * b[0] + 0.2 * (po - pm)
        return s
    s += 3.0 * b[0] + 0.05 * (po - pm)
    held = 0
    for p in range(1, 25):
        if b[p] > 0:
            held += 1
    s += 0.3 * held + 0.8 * _block_run(b)
    if b[24] > 1:
        s -= 0.1 * (b[24] - 1)
    return s


@njit(cache=True, nogil=True)
def _choose(
    board,
    d1,
    d2,
    first_m,
    first_o,
    game,
    policy,
    W1,
    b1,
    W2,
    b2,
    V,
    c,
    U,
    values,
    tb,
    ts,
    tn,
    tk,
    x,
    h,
    o,
    fo,
    chosen_o,
):
    """Pick a play for the mover: writes the chosen result board into tb[0]; returns the number of plays.

    The net is ``(W1, b1, W2, b2, V, c, U)`` (:func:`nardy.engine._mlp.forward`; ``h``: float32[H + H2]).

    For the net policy ``chosen_o`` receives the outputs of the chosen result from the mover's view
    (exact outcome when the play wins).
    """
    hitting, strict, hm = game_params(game)
    n = _core.legal_plays_into(board, d1, d2, hitting, strict, first_m, hm, tb, ts, tn, tk)
    best = 0
    if policy == POLICY_RANDOM:
        best = np.random.randint(n)
    elif policy == POLICY_HEURISTIC:
        bs = -1e30
        for i in range(n):
            if tb[i, 0] >= 15:
                best = i
                break
            sc = heuristic_score(tb[i], game)
            if sc > bs:
                bs = sc
                best = i
    else:
        be = -1e30
        mir = np.empty(28, np.int8)
        for i in range(n):
            if tb[i, 0] >= 15:
                lvl = win_level(tb[i], game)
                outcome_vector(lvl, game, fo)
                e = money_equity(fo, game, values) + 100.0
            else:
                if hitting:
                    mir[:] = _core.mirror_hitting(tb[i])
                else:
                    mir[:] = _core.mirror_long(tb[i])
                encode(mir, game, first_o, False, x)
                forward(W1, b1, W2, b2, V, c, U, x, h, o)
                sanitize(o, game)
                flip(o, game, fo)
                e = money_equity(fo, game, values)
            if e > be:
                be = e
                best = i
                chosen_o[:] = fo
    if best != 0:
        tb[0, :] = tb[best]
    return n


@njit(cache=True, nogil=True)
def play_buffers(K, H):
    """Scratch for :func:`_choose` with a net of ``H`` hidden units in all (both layers) and ``K`` outputs:
    ``(tb, ts, tn, tk)`` for the move generator and ``(x, h, o, fo, chosen)`` for the net."""
    M = _core.MAX_PLAYS
    return (
        np.empty((M, 28), np.int8),
        np.empty((M, 4, 4), np.int8),
        np.empty(M, np.int8),
        np.empty((M, 2), np.uint64),
        np.zeros(N_INPUTS, np.float32),
        np.zeros(H, np.float32),
        np.zeros(K, np.float32),
        np.zeros(K, np.float32),
        np.zeros(K, np.float32),
    )


@njit(cache=True, nogil=True, inline="always")
def pass_turn(board, result, hitting):
    """``board`` becomes ``result`` (the mover's board after its play) from the next side on roll's view."""
    if hitting:
        board[:] = _core.mirror_hitting(result)
    else:
        board[:] = _core.mirror_long(result)


@njit(cache=True, nogil=True)
def _first_roll(game):
    d1 = np.random.randint(1, 7)
    d2 = np.random.randint(1, 7)
    if game == GAME_BG:
        while d1 == d2:
            d1 = np.random.randint(1, 7)
            d2 = np.random.randint(1, 7)
    return d1, d2


@njit(cache=True, nogil=True)
def td_train(W1, b1, W2, b2, game, start, values, n_games, lr, lam, seed, stats):
    """Self-play TD(lambda) training (0-ply greedy play by the net itself), weights updated in place.

    Each game is played to the end with the current weights; then the lambda-returns of the positions
    of that game are computed backwards (offline lambda-return algorithm: target of position t =
    (1 - lambda) * value(t + 1) + lambda * target(t + 1), each from the side on roll's view, the last
    target being the exact result) and each position takes one gradient step of the cross-entropy
    between its outputs and its target.

    Args:
        W1, b1, W2, b2: float32 weights (updated in place).
        game: GAME_BG / GAME_SHORT / GAME_LONG; start: int8[28] starting board.
        values: float64 scoring per level. n_games, lr, lam, seed: as named (numba's own RNG is seeded,
            so a run is reproducible for a seed).
        stats: float64[4] out: plies played, games won by the first player, sum of levels, games dropped.
    """
    np.random.seed(seed)
    K = b2.shape[0]
    H = b1.shape[0]
    hitting, strict, hm = game_params(game)
    tb, ts, tn, tk, x, h, o, fo, chosen = play_buffers(K, H)
    V = np.zeros((H, 0), np.float32)  # one-layer nets only (sgd_step)
    c = np.zeros(0, np.float32)
    U = np.zeros((0, K), np.float32)
    states = np.empty((MAX_GAME_PLIES, 28), np.int8)
    sfirst = np.zeros((MAX_GAME_PLIES, 2), np.bool_)
    nextv = np.zeros((MAX_GAME_PLIES, K), np.float32)  # value of the next state, from state t's mover view
    target = np.zeros(K, np.float32)
    tmp = np.zeros(K, np.float32)
    dout = np.zeros(K, np.float32)
    dh = np.zeros(H, np.float32)
    board = np.empty(28, np.int8)
    for _g in range(n_games):
        board[:] = start
        fm = not hitting
        fopp = not hitting
        t = 0
        level = 0
        while t < MAX_GAME_PLIES:
            states[t, :] = board
            sfirst[t, 0] = fm
            sfirst[t, 1] = fopp
            if t == 0:
                d1, d2 = _first_roll(game)
            else:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            _choose(
                board,
                d1,
                d2,
                fm,
                fopp,
                game,
                POLICY_NET,
                W1,
                b1,
                W2,
                b2,
                V,
                c,
                U,
                values,
                tb,
                ts,
                tn,
                tk,
                x,
                h,
                o,
                fo,
                chosen,
            )
            nextv[t, :] = chosen
            t += 1
            if tb[0, 0] >= 15:
                level = win_level(tb[0], game)
                break
            pass_turn(board, tb[0], hitting)
            fm, fopp = fopp, False
        if level == 0:
            stats[3] += 1
            continue
        stats[0] += t
        stats[2] += level
        if t % 2 == 1:
            stats[1] += 1
        # backward pass over the game's positions
        outcome_vector(level, game, target)
        for s in range(t - 1, -1, -1):
            if s < t - 1:
                # target(s) = (1-lam) * V(s+1 from s's view) + lam * flip(target(s+1))
                flip(target, game, tmp)
                for k in range(K):
                    target[k] = (1.0 - lam) * nextv[s, k] + lam * tmp[k]
            encode(states[s], game, sfirst[s, 0], sfirst[s, 1], x)
            sgd_step(W1, b1, W2, b2, x, target, lr, h, o, dout, dh)
    return stats


@njit(cache=True, nogil=True)
def play_matches(
    game,
    start,
    values,
    n_games,
    seed,
    pol_a,
    Wa1,
    ba1,
    Wa2,
    ba2,
    Va,
    ca_,
    Ua,
    pol_b,
    Wb1,
    bb1,
    Wb2,
    bb2,
    Vb,
    cb_,
    Ub,
    noise_a,
    noise_b,
):
    """Play ``n_games`` cubeless games between A and B (A moves first in even games; the dice of game 2i+1
    repeat those of game 2i with the sides swapped: duplicate dice). Returns float64[n_games] of A's points.

    Each net is seven arrays (``W1, b1, W2, b2, V, c, U``: :attr:`nardy.engine.net.Net.kernel_weights`).

    ``noise_*`` is unused (reserved); pass 0.0.
    """
    np.random.seed(seed)
    hitting, strict, hm = game_params(game)
    M = _core.MAX_PLAYS
    tb = np.empty((M, 28), np.int8)
    ts = np.empty((M, 4, 4), np.int8)
    tn = np.empty(M, np.int8)
    tk = np.empty((M, 2), np.uint64)
    KA = ba2.shape[0]
    KB = bb2.shape[0]
    xa = np.zeros(N_INPUTS, np.float32)
    ha = np.zeros(ba1.shape[0] + ca_.shape[0], np.float32)
    hb = np.zeros(bb1.shape[0] + cb_.shape[0], np.float32)
    oa = np.zeros(KA, np.float32)
    fa = np.zeros(KA, np.float32)
    ca = np.zeros(KA, np.float32)
    ob = np.zeros(KB, np.float32)
    fb = np.zeros(KB, np.float32)
    cb = np.zeros(KB, np.float32)
    res = np.zeros(n_games, np.float64)
    board = np.empty(28, np.int8)
    dice = np.empty((MAX_GAME_PLIES, 2), np.int64)
    # policy choices use numba's RNG too (random policy); keep a separate stream position per game by
    # drawing the dice first
    for g in range(n_games):
        if g % 2 == 0:
            d1, d2 = _first_roll(game)
            dice[0, 0] = d1
            dice[0, 1] = d2
            for t in range(1, MAX_GAME_PLIES):
                dice[t, 0] = np.random.randint(1, 7)
                dice[t, 1] = np.random.randint(1, 7)
        a_first = g % 2 == 0
        board[:] = start
        fm = not hitting
        fopp = not hitting
        result = 0.0
        for t in range(MAX_GAME_PLIES):
            a_moves = (t % 2 == 0) == a_first
            if a_moves:
                _choose(
                    board,
                    dice[t, 0],
                    dice[t, 1],
                    fm,
                    fopp,
                    game,
                    pol_a,
                    Wa1,
                    ba1,
                    Wa2,
                    ba2,
                    Va,
                    ca_,
                    Ua,
                    values,
                    tb,
                    ts,
                    tn,
                    tk,
                    xa,
                    ha,
                    oa,
                    fa,
                    ca,
                )
            else:
                _choose(
                    board,
                    dice[t, 0],
                    dice[t, 1],
                    fm,
                    fopp,
                    game,
                    pol_b,
                    Wb1,
                    bb1,
                    Wb2,
                    bb2,
                    Vb,
                    cb_,
                    Ub,
                    values,
                    tb,
                    ts,
                    tn,
                    tk,
                    xa,
                    hb,
                    ob,
                    fb,
                    cb,
                )
            if tb[0, 0] >= 15:
                pts = values[win_level(tb[0], game) - 1]
                result = pts if a_moves else -pts
                break
            pass_turn(board, tb[0], hitting)
            fm, fopp = fopp, False
        res[g] = result
    return res

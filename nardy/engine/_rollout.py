"""Compiled kernels for rollouts and for training a net on rollout results (numba).

Boards are ``int8[28]`` from the view of the side on roll (layout of :mod:`nardy.rules._movegen`); outputs are the
cumulative result probabilities of :mod:`nardy.engine._kernels`. The rollout player is the net at 0-ply
(greedy on cubeless money equity), the same player as in TD self-play.

Rollouts run blocks of trials in parallel (``prange``); each block draws its dice from its own small
generator (SplitMix64) seeded from ``(seed, position index, block)``, so results do not depend on the number
of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ._kernels import (
    MAX_GAME_PLIES,
    N_INPUTS,
    N_LEVELS,
    POLICY_NET,
    POLICY_RANDOM,
    _choose,
    _first_roll,
    encode,
    flip,
    forward,
    game_params,
    money_equity,
    outcome_vector,
    pass_turn,
    play_buffers,
    sanitize,
    sgd_step,
    win_level,
)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: Trials per parallel task of :func:`rollout_batch` (a position's trials run on several threads).
TRIAL_BLOCK = 36


@njit(cache=True, inline="always")
def _next(state):
    """SplitMix64: advance ``state`` (uint64[1]) and return 64 random bits."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def _roll(state):
    """One roll (0..35, as ``6 * (d1 - 1) + (d2 - 1)``) from ``state``."""
    return np.int64((_next(state) >> np.uint64(11)) % np.uint64(36))


@njit(cache=True)
def sample_positions(game, start, values, n_games, seed, W1, b1, W2, b2, V, c, U, eps, keep, out_b, out_f):
    """Play ``n_games`` self-play games (0-ply greedy, a uniformly random play with probability ``eps``) and
    keep each position after the first two plies with probability ``keep``.

    Args:
        W1 ... U: the net (:attr:`nardy.engine.net.Net.kernel_weights`).
        out_b: int8[cap, 28] receives the kept boards (side on roll's view); out_f: bool[cap, 2] their
            first-turn flags (mover, opponent; long nardy). Sampling stops when ``cap`` is reached.
    Returns:
        The number of positions written.
    """
    np.random.seed(seed)
    hitting, strict, hm = game_params(game)
    tb, ts, tn, tk, x, h, o, fo, ch = play_buffers(b2.shape[0], b1.shape[0] + c.shape[0])
    board = np.empty(28, np.int8)
    cap = out_b.shape[0]
    count = 0
    for _g in range(n_games):
        if count >= cap:
            break
        board[:] = start
        fm = not hitting
        fopp = not hitting
        for t in range(MAX_GAME_PLIES):
            if t >= 2 and count < cap and np.random.random() < keep:
                out_b[count, :] = board
                out_f[count, 0] = fm
                out_f[count, 1] = fopp
                count += 1
            if t == 0:
                d1, d2 = _first_roll(game)
            else:
                d1 = np.random.randint(1, 7)
                d2 = np.random.randint(1, 7)
            pol = POLICY_RANDOM if np.random.random() < eps else POLICY_NET
            _choose(
                board, d1, d2, fm, fopp, game, pol, W1, b1, W2, b2, V, c, U, values, tb, ts, tn, tk, x, h, o, fo, ch
            )
            if tb[0, 0] >= 15:
                break
            pass_turn(board, tb[0], hitting)
            fm, fopp = fopp, False
    return count


@njit(cache=True, parallel=True)
def rollout_batch(
    boards, firsts, game, values, W1, b1, W2, b2, V, c, U, trials, truncate, seed, vr, out_mean, out_sq, out_cut
):
    """Roll out each board ``trials`` times with the net playing both sides at 0-ply.

    Trial ``t`` starts with roll ``t % 36`` and follows it with roll ``(t // 36 + 5 * (t % 36)) % 36`` (a
    Latin square: with a multiple of 36 trials every first roll is played equally often, and with 1,296 every
    pair of first two rolls once); later rolls are random. A trial ends when a side bears off its last
    checker (exact outcome) or, with ``truncate > 0``, after that many plies, where the net's (sanitised)
    outputs stand in for the outcome.

    With ``vr`` (variance reduction, as GNU Backgammon's rollouts): at every ply the player's choice is
    found for all 21 rolls, and the *luck* of the roll thrown (the outputs after its play minus their
    average over the rolls, by the net) is subtracted from the trial's result. Each luck term averages
    zero, so the mean is unchanged while most of the dice's noise cancels; each ply costs about 21 times
    more.

    Args:
        boards: int8[n, 28] (side on roll's view); firsts: bool[n, 2] first-turn flags (on roll, other).
        game, values: kernel game code and scoring per level (float64).
        W1 ... U: the net (:attr:`nardy.engine.net.Net.kernel_weights`; a deep one too).
        trials, truncate, seed: as above. Trials run in blocks of :data:`TRIAL_BLOCK`, in parallel; block
            ``j`` of position ``i`` draws its dice from its own generator seeded from ``(seed, i, j)``, so
            results depend on the seed only, not on the number of threads.
        vr: variance reduction on or off.
        out_mean: float32[n, K] receives the mean outcome (cumulative outputs, the root mover's view),
            made consistent (:func:`nardy.engine._kernels.sanitize`: with variance reduction a mean can stray
            slightly outside [0, 1]);
        out_sq: float32[n] receives the standard error of the mean cubeless money equity;
        out_cut: int64[n] receives the number of trials stopped at ``MAX_GAME_PLIES`` without a result
            (positions where neither side can move; scored by the net there).
    """
    n = boards.shape[0]
    K = b2.shape[0]
    H = b1.shape[0] + c.shape[0]
    hitting, strict, hm = game_params(game)
    blocks = (trials + TRIAL_BLOCK - 1) // TRIAL_BLOCK
    sums = np.zeros((n * blocks, K), np.float64)
    sum_e = np.zeros(n * blocks, np.float64)
    sum_e2 = np.zeros(n * blocks, np.float64)
    cut = np.zeros(n * blocks, np.int64)
    for q in prange(n * blocks):
        i = q // blocks
        blk = q % blocks
        state = np.empty(1, np.uint64)
        state[0] = (np.uint64(seed) * np.uint64(1_000_003) + np.uint64(i)) * np.uint64(1_000_033) + np.uint64(blk)
        tb, ts, tn, tk, x, h, o, fo, ch = play_buffers(K, H)
        res = np.zeros(K, np.float32)
        tmp = np.zeros(K, np.float32)
        board = np.empty(28, np.int8)
        luck = np.zeros(K, np.float64)
        mean_r = np.zeros(K, np.float64)
        actual = np.zeros(K, np.float32)
        for t in range(blk * TRIAL_BLOCK, min(trials, (blk + 1) * TRIAL_BLOCK)):
            board[:] = boards[i]
            fm = firsts[i, 0]
            fopp = firsts[i, 1]
            ply = 0
            view = -1  # the ply whose mover's view res is in
            luck[:] = 0.0
            while ply < MAX_GAME_PLIES:
                if truncate > 0 and ply >= truncate:
                    break
                if ply == 0:
                    r = t % 36
                elif ply == 1:
                    r = (t // 36 + 5 * (t % 36)) % 36
                else:
                    r = _roll(state)
                d1 = r // 6 + 1
                d2 = r % 6 + 1
                if vr:
                    # luck of this roll: outputs after its play minus their mean over the 21 rolls (mover's
                    # view), turned to the root mover's view and summed
                    mean_r[:] = 0.0
                    lo = min(d1, d2)
                    hi = max(d1, d2)
                    for e1 in range(1, 7):
                        for e2 in range(e1, 7):
                            if e1 == lo and e2 == hi:
                                continue
                            _choose(
                                board,
                                e1,
                                e2,
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
                                ch,
                            )
                            w = 1.0 if e1 == e2 else 2.0
                            for k in range(K):
                                mean_r[k] += w * ch[k]
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
                    ch,
                )
                if vr:
                    w = 1.0 if d1 == d2 else 2.0
                    for k in range(K):
                        actual[k] = ch[k] - (mean_r[k] + w * ch[k]) / 36.0
                    if ply % 2 == 1:
                        _flip_diff(actual, game, tmp)
                        actual[:] = tmp
                    for k in range(K):
                        luck[k] += actual[k]
                if tb[0, 0] >= 15:
                    outcome_vector(win_level(tb[0], game), game, res)
                    view = ply
                    break
                ply += 1
                pass_turn(board, tb[0], hitting)
                fm, fopp = fopp, False
            if view < 0:
                # truncated (or past the ply limit): the net's outputs for the side now on roll
                if ply >= MAX_GAME_PLIES:
                    cut[q] += 1
                encode(board, game, fm, fopp, x)
                forward(W1, b1, W2, b2, V, c, U, x, h, o)
                sanitize(o, game)
                res[:] = o
                view = ply
            if view % 2 == 1:
                flip(res, game, tmp)
                res[:] = tmp
            if vr:
                for k in range(K):
                    res[k] -= luck[k]
            e = money_equity(res, game, values)
            sum_e[q] += e
            sum_e2[q] += e * e
            for k in range(K):
                sums[q, k] += res[k]
    for i in range(n):
        m = 0.0
        m2 = 0.0
        out_cut[i] = 0
        for k in range(K):
            acc = 0.0
            for blk in range(blocks):
                acc += sums[i * blocks + blk, k]
            out_mean[i, k] = acc / trials
        sanitize(out_mean[i], game)
        for blk in range(blocks):
            m += sum_e[i * blocks + blk]
            m2 += sum_e2[i * blocks + blk]
            out_cut[i] += cut[i * blocks + blk]
        m /= trials
        var = m2 / trials - m * m
        out_sq[i] = np.sqrt(max(var, 0.0) / max(trials - 1, 1))


@njit(cache=True)
def _flip_diff(d, game, out):
    """A difference of two outputs (``o1 - o2``) seen from the other side: ``flip(o1) - flip(o2)``."""
    L = N_LEVELS[game]
    out[0] = -d[0]
    for i in range(1, L):
        out[i] = d[L - 1 + i]
        out[L - 1 + i] = d[i]


@njit(cache=True)
def sgd_epoch(W1, b1, W2, b2, game, boards, firsts, targets, order, lr):
    """One pass of per-position gradient steps (cross-entropy of the sigmoid outputs against ``targets``,
    the same update as :func:`nardy.engine._kernels.td_train`) in the given ``order``; weights in place
    (a one-layer net).

    Returns:
        The mean squared error of the outputs before each step (float64).
    """
    H = b1.shape[0]
    K = b2.shape[0]
    x = np.zeros(N_INPUTS, np.float32)
    h = np.zeros(H, np.float32)
    o = np.zeros(K, np.float32)
    dout = np.zeros(K, np.float32)
    dh = np.zeros(H, np.float32)
    se = 0.0
    for r in range(order.shape[0]):
        s = order[r]
        encode(boards[s], game, firsts[s, 0], firsts[s, 1], x)
        se += sgd_step(W1, b1, W2, b2, x, targets[s], lr, h, o, dout, dh)
    return se / max(order.shape[0] * K, 1)


@njit(cache=True)
def mse(W1, b1, W2, b2, V, c, U, game, boards, firsts, targets):
    """Mean squared error of the net's outputs (``W1 ... U``: :attr:`nardy.engine.net.Net.kernel_weights`)
    against ``targets`` (no update)."""
    H = b1.shape[0] + c.shape[0]
    K = b2.shape[0]
    x = np.zeros(N_INPUTS, np.float32)
    h = np.zeros(H, np.float32)
    o = np.zeros(K, np.float32)
    se = 0.0
    for s in range(boards.shape[0]):
        encode(boards[s], game, firsts[s, 0], firsts[s, 1], x)
        forward(W1, b1, W2, b2, V, c, U, x, h, o)
        for k in range(K):
            d = targets[s, k] - o[k]
            se += d * d
    return se / max(boards.shape[0] * K, 1)

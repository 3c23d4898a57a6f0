"""Compiled hot core: legal plays and board arithmetic over small int8 arrays (numba).

Board layout (``int8[28]``), always from the mover's view (RULES.md "Board, points, views"):

====== ===========================================================================
index  meaning
====== ===========================================================================
0      mover's checkers borne off (0..15)
1..24  point p in the mover's numbering: ``+n`` mover checkers, ``-n`` opponent checkers
25     mover's checkers on the bar (hitting games)
26     opponent's checkers on the bar (hitting games)
27     opponent's checkers borne off
====== ===========================================================================

In backgammon and short nardy the opponent's point q is the mover's point ``25 - q``; in long
nardy it is ``((q + 11) % 24) + 1`` (the opponent's head, their 24, is the mover's 12).

Rule flags passed to the kernels: ``hitting`` (backgammon, short nardy), ``strict`` (short nardy's
strict bear-off, RULES.md / seed 003 rule 26), ``head_limit`` (long nardy: how many checkers may leave
the head, own point 24, this turn; 0 means no head rule).

Generated plays are written to caller-provided buffers: ``out_b[k]`` the resulting board (sides not
swapped), ``out_s[k, i] = (from, to, die, hit)`` the i-th step (``to`` = 0 for off, 25 = bar),
``out_n[k]`` the number of steps. The kernels return the number of plays written.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BOARD_LEN = 28
OFF, BAR, OPP_BAR, OPP_OFF = 0, 25, 26, 27
#: Capacity of the per-call play buffers; the real maximum of distinct plays is far lower.
MAX_PLAYS = 4096

HEAD_NONE, HEAD_BLOCK, HEAD_ALWAYS = 0, 1, 2


@njit(cache=True, inline="always")
def _opp_route_point(q):
    """Mover's point holding the opponent's own point q (long nardy); the map is its own inverse."""
    return ((q + 11) % 24) + 1


@njit(cache=True)
def board_key(b):
    """Two uint64 that identify a board among boards with the same checker totals (for dedupe)."""
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    for p in range(1, 13):
        k1 |= np.uint64(b[p] + 15) << np.uint64(5 * (p - 1))
    for p in range(13, 25):
        k2 |= np.uint64(b[p] + 15) << np.uint64(5 * (p - 13))
    k2 |= np.uint64(b[25]) << np.uint64(60)
    return k1, k2


@njit(cache=True)
def six_block_illegal(b, t):
    """Long nardy six-block rule (RULES.md, seed 002 3.4) for the run through mover point ``t``.

    True when the mover's run of occupied points containing ``t``, consecutive along the
    opponent's route (opponent numbering 24..1, not wrapping from their 1 to their 24), is six or
    longer and no opponent checker is ahead of it (on a lower opponent-numbered point, or off).
    """
    qt = _opp_route_point(t)
    lo = qt
    while lo > 1 and b[_opp_route_point(lo - 1)] > 0:
        lo -= 1
    hi = qt
    while hi < 24 and b[_opp_route_point(hi + 1)] > 0:
        hi += 1
    if hi - lo + 1 < 6:
        return False
    if b[OPP_OFF] > 0:
        return False
    for q in range(1, lo):
        if b[_opp_route_point(q)] < 0:
            return False
    return True


@njit(cache=True)
def head_limit(b, d1, d2, first_turn, mode):
    """How many checkers may leave the head (mover point 24) this turn in long nardy.

    RULES.md head rule: one, except on the mover's first turn with 6-6, 4-4 or 3-3, where two may
    leave if ``mode`` is HEAD_ALWAYS, or, for HEAD_BLOCK, if a single checker from the head is
    stopped by the opponent's head (mover point 12) before playing all four steps and no other
    opponent checker stops it earlier.
    """
    if not first_turn or d1 != d2 or mode == HEAD_NONE:
        return 1
    if d1 != 6 and d1 != 4 and d1 != 3:
        return 1
    if mode == HEAD_ALWAYS:
        return 2
    p = 24
    for _ in range(4):
        p -= d1
        if p < 1:
            return 1
        if b[p] < 0:
            return 2 if p == 12 else 1
    return 1


@njit(cache=True)
def _outside_home(b):
    n = b[BAR]
    for p in range(7, 25):
        if b[p] > 0:
            n += b[p]
    return n


@njit(cache=True)
def _target(b, moved, s, d, hitting, strict, can_bear):
    """Destination of a step of die d from mover point s (25 = bar), or -1 if illegal.

    Checks RULES.md rules 2 and 5 and the bar rule; the head and six-block rules are checked by
    the caller.
    """
    if hitting and b[BAR] > 0:
        if s != BAR:
            return -1
        t = 25 - d
        if b[t] < -1:
            return -1
        return t
    if s == BAR or b[s] <= 0:
        return -1
    t = s - d
    if t >= 1:
        if hitting:
            if b[t] < -1:
                return -1
        elif b[t] < 0:
            return -1
        return t
    if not can_bear:
        return -1
    if t == 0:
        return 0
    for p in range(s + 1, 7):
        if b[p] > 0:
            return -1
    if strict and moved[s] >= b[s]:
        return -1
    return 0


@njit(cache=True)
def _apply(b, moved, s, t):
    """Move one mover checker from s to t in place; returns 1 if it hit an opponent blot."""
    b[s] -= 1
    if moved[s] > 0:
        moved[s] -= 1
    if t == 0:
        b[OFF] += 1
        return 0
    hit = 0
    if b[t] == -1:
        b[t] = 0
        b[OPP_BAR] += 1
        hit = 1
    b[t] += 1
    moved[t] += 1
    return hit


@njit(cache=True)
def generate(b0, moved0, heads0, dice, ndice, permute, hitting, strict, hlimit, prune_doubles,
             all_leaves, out_b, out_s, out_n, out_keys):
    """Generate plays from board ``b0`` (see module docstring) into the output buffers.

    Args:
        b0: int8[28] board, mover's view.
        moved0: int8[26] checkers per point that already moved this turn (0 for a fresh turn).
        heads0: checkers that already left the head this turn (long nardy).
        dice: int64[4] the dice to play in order; ``ndice`` of them are used.
        permute: for two different dice, also try the second order.
        hitting, strict, hlimit: rule flags (module docstring); ``hlimit`` 0 = no head rule.
        prune_doubles: for doubles in the hitting games, only generate steps in non-increasing
            source order (every play is still found once; not sound with the six-block rule).
        all_leaves: if False (a full turn), keep only the plays that use the most dice and, when a
            non-double allows only one die, the larger (RULES.md rule 3); if True keep every leaf
            (for partial turns; a leaf is a sequence that cannot continue).
    Returns:
        The number of distinct resulting boards written to ``out_b``/``out_s``/``out_n``.
    """
    boards = np.empty((5, BOARD_LEN), np.int8)
    moveds = np.empty((5, 26), np.int8)
    heads = np.zeros(5, np.int64)
    next_src = np.zeros(5, np.int64)
    had_child = np.zeros(5, np.bool_)
    can_bear = np.zeros(5, np.bool_)
    steps = np.zeros((4, 4), np.int8)
    order = np.empty(4, np.int64)
    is_double = ndice >= 2 and dice[0] == dice[1]
    big = dice[0]
    for i in range(ndice):
        if dice[i] > big:
            big = dice[i]
    n_orders = 2 if (permute and ndice == 2 and dice[0] != dice[1]) else 1
    prune = prune_doubles and is_double and hitting
    count = 0
    best = -1
    cap = out_b.shape[0]
    for o in range(n_orders):
        for i in range(ndice):
            order[i] = dice[i]
        if o == 1:
            order[0] = dice[1]
            order[1] = dice[0]
        boards[0, :] = b0
        moveds[0, :] = moved0
        heads[0] = heads0
        next_src[0] = 25
        had_child[0] = False
        can_bear[0] = _outside_home(b0) == 0
        depth = 0
        while depth >= 0:
            b = boards[depth]
            leaf = depth == ndice or b[OFF] >= 15
            if not leaf:
                d = order[depth]
                found = False
                s = next_src[depth]
                while s >= 1:
                    t = _target(b, moveds[depth], s, d, hitting, strict, can_bear[depth])
                    if t >= 0 and hlimit > 0 and s == 24 and heads[depth] >= hlimit:
                        t = -1
                    if t >= 0:
                        nb = boards[depth + 1]
                        nb[:] = b
                        moveds[depth + 1, :] = moveds[depth]
                        h = _apply(nb, moveds[depth + 1], s, t)
                        if not hitting and t > 0 and b[t] == 0 and six_block_illegal(nb, t):
                            s -= 1
                            continue
                        heads[depth + 1] = heads[depth] + (1 if (hlimit > 0 and s == 24) else 0)
                        steps[depth, 0] = s
                        steps[depth, 1] = t
                        steps[depth, 2] = d
                        steps[depth, 3] = h
                        next_src[depth] = s - 1
                        had_child[depth] = True
                        depth += 1
                        next_src[depth] = s if prune else 25
                        had_child[depth] = False
                        if can_bear[depth - 1]:
                            can_bear[depth] = True
                        else:
                            can_bear[depth] = _outside_home(nb) == 0
                        found = True
                        break
                    s -= 1
                if found:
                    continue
                if had_child[depth]:
                    depth -= 1
                    continue
            # a leaf: record it
            if all_leaves:
                score = 0
            else:
                score = 2 * depth
                if depth == 1 and not is_double and order[0] == big:
                    score += 1
            if score >= best:
                if score > best:
                    best = score
                    count = 0
                k1, k2 = board_key(b)
                dup = False
                for j in range(count):
                    if out_keys[j, 0] == k1 and out_keys[j, 1] == k2:
                        dup = True
                        break
                if not dup and count < cap:
                    out_b[count, :] = b
                    for i in range(depth):
                        for c in range(4):
                            out_s[count, i, c] = steps[i, c]
                    out_n[count] = depth
                    out_keys[count, 0] = k1
                    out_keys[count, 1] = k2
                    count += 1
            depth -= 1
    return count


@njit(cache=True)
def legal_plays_into(b0, d1, d2, hitting, strict, first_turn, head_mode, out_b, out_s, out_n, out_keys):
    """All legal plays of a full turn with dice (d1, d2) from board ``b0`` (mover's view).

    ``head_mode`` is -1 for the hitting games (no head rule) or HEAD_NONE/HEAD_BLOCK/HEAD_ALWAYS
    for long nardy. Returns the number of distinct plays (at least 1: when nothing can be played,
    one empty play whose result is ``b0``).
    """
    moved0 = np.zeros(26, np.int8)
    dice = np.empty(4, np.int64)
    if d1 == d2:
        ndice = 4
        for i in range(4):
            dice[i] = d1
    else:
        ndice = 2
        dice[0] = d1
        dice[1] = d2
    hl = 0
    if head_mode >= 0:
        hl = head_limit(b0, d1, d2, first_turn, head_mode)
    return generate(b0, moved0, 0, dice, ndice, True, hitting, strict, hl, True, False,
                    out_b, out_s, out_n, out_keys)


@njit(cache=True)
def batch_results(boards, dice, hitting, strict, first_turn, head_mode, out_b, offsets):
    """Legal play results for many positions at once (for bots).

    Args:
        boards: int8[N, 28] boards (mover's view); dice: int64[N, 2]; first_turn: bool[N].
        out_b: int8[M, 28] buffer for all resulting boards, concatenated.
        offsets: int64[N + 1]; on return the results of position i are ``out_b[offsets[i]:offsets[i+1]]``.
    Returns:
        The total number of results written, or -1 if ``out_b`` was too small.
    """
    n = boards.shape[0]
    tb = np.empty((MAX_PLAYS, BOARD_LEN), np.int8)
    ts = np.empty((MAX_PLAYS, 4, 4), np.int8)
    tn = np.empty(MAX_PLAYS, np.int8)
    tk = np.empty((MAX_PLAYS, 2), np.uint64)
    pos = 0
    offsets[0] = 0
    for i in range(n):
        c = legal_plays_into(boards[i], dice[i, 0], dice[i, 1], hitting, strict, first_turn[i],
                             head_mode, tb, ts, tn, tk)
        if pos + c > out_b.shape[0]:
            return -1
        out_b[pos:pos + c] = tb[:c]
        pos += c
        offsets[i + 1] = pos
    return pos


@njit(cache=True)
def mirror_hitting(b):
    """The board from the opponent's view (backgammon, short nardy): point p becomes 25 - p."""
    r = np.empty(BOARD_LEN, np.int8)
    r[OFF] = b[OPP_OFF]
    r[OPP_OFF] = b[OFF]
    r[BAR] = b[OPP_BAR]
    r[OPP_BAR] = b[BAR]
    for p in range(1, 25):
        r[p] = -b[25 - p]
    return r


@njit(cache=True)
def mirror_long(b):
    """The board from the opponent's view (long nardy): mover point p is the opponent's ((p+11)%24)+1."""
    r = np.empty(BOARD_LEN, np.int8)
    r[OFF] = b[OPP_OFF]
    r[OPP_OFF] = b[OFF]
    r[BAR] = 0
    r[OPP_BAR] = 0
    for p in range(1, 25):
        r[_opp_route_point(p)] = -b[p]
    return r


@njit(cache=True)
def pip_counts(b, hitting):
    """(mover pips, opponent pips): sum of distances to bear off; the bar counts 25 (hitting games)."""
    m = 0
    o = 0
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            m += v * p
        elif v < 0:
            if hitting:
                o += -v * (25 - p)
            else:
                o += -v * _opp_route_point(p)
    m += 25 * b[BAR]
    o += 25 * b[OPP_BAR]
    return m, o

"""Compiled hot core: legal plays and board arithmetic over small int8 arrays (numba).

Board layout (``int8[28]``), always from the mover's view (docs/rules.md "Board, points, views"):

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
nardy it is ``((q + 11) % 24) + 1`` (the opponent's head, their 24, is the mover's 12). The map is
:func:`nardy.rules.numbering.opponent_point`; :func:`opp_point` is its compiled form, for the kernels.

Rule flags passed to the kernels: ``hitting`` (backgammon, short nardy), ``strict`` (short nardy's
strict bear-off, docs/rules.md / seed 003 rule 26), ``head_limit`` (long nardy: how many checkers may leave
the head, own point 24, this turn; 0 means no head rule).

Generated plays are written to caller-provided buffers: ``out_b[k]`` the resulting board (sides not
swapped), ``out_s[k, i] = (from, to, die, hit)`` the i-th step (``to`` = 0 for off, 25 = bar),
``out_n[k]`` the number of steps. The kernels return the number of plays written.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._movestep import (  # noqa: F401  (re-exported: the generator's constants and step primitives)
    BAR,
    BOARD_LEN,
    MAX_PLAYS,
    OFF,
    OPP_BAR,
    OPP_OFF,
    OUT_W,
    STACK_ROWS,
    TABLE_AT,
    TABLE_BITS,
    TABLE_SIZE,
    TT_AT,
    TT_BITS,
    TT_SIZE,
    WORK64_LEN,
    _cands,
    _clz64,
    _key_room,
    _make,
    _outside_home,
    _rekey,
    _reocc,
    _search_four,
    _search_two,
    _six_run,
    _target,
    board_key,
    head_limit,
    opp_point,
    six_block_illegal,
)

# The head-rule modes (option head-exception) as the kernels take them; the mapping is
# nardy.rules.numbering.HEAD_MODES (-1, nardy.rules.numbering.NO_HEAD_RULE, for the hitting games).
from .numbering import HEAD_ALWAYS, HEAD_BLOCK, HEAD_NONE  # noqa: F401  (HEAD_BLOCK: used as _core.HEAD_BLOCK)


def new_workspace():
    """Scratch arrays for :func:`legal_into`: ``(out int8[MAX_PLAYS, OUT_W], boards int8[MAX_PLAYS, 28],
    work64)``; ``work64`` holds the search stacks, a stamped hash table and the board keys of up to
    ``MAX_PLAYS`` plays."""
    return (
        np.empty((MAX_PLAYS, OUT_W), np.int8),
        np.empty((MAX_PLAYS, BOARD_LEN), np.int8),
        np.zeros(WORK64_LEN, np.int64),
    )


@njit(cache=True, nogil=True)
def _search(
    b, moved, heads0, ndice, permute, hitting, strict, hlimit, prune_doubles, all_leaves, out, work64, transpose=True
):
    """:func:`_search_core` with its transposition table, for a long nardy double (``transpose``): the stamped
    one of a full workspace (``WORK64_LEN``: nothing to clear, :func:`_tt_of`), else a zeroed
    ``int64[TT_SIZE, 3]``; for other rolls an empty one (no allocation)."""
    # (not through _tt_of: an array returned by a function without reference counting to one with it
    # would be released once too often)
    ttstamp = np.int64(1)
    if transpose and ndice > 2 and work64[0] == work64[1] and not hitting:
        if work64.shape[0] >= WORK64_LEN:
            ttstamp = work64[TT_AT] + 1
            work64[TT_AT] = ttstamp
            tt = work64[TT_AT + 1 : TT_AT + 1 + 3 * TT_SIZE].reshape((TT_SIZE, 3))
        else:
            tt = np.zeros((TT_SIZE, 3), np.int64)
    else:
        tt = work64[:0].reshape((0, 3))
    return _search_core(
        b,
        moved,
        heads0,
        ndice,
        permute,
        hitting,
        strict,
        hlimit,
        prune_doubles,
        all_leaves,
        out,
        work64,
        transpose,
        tt,
        ttstamp,
    )


@njit(cache=True, nogil=True, _nrt=False)
def _tt_of(work64, need):
    """``(tt, stamp)``: where ``need``ed and ``work64`` is a full workspace (``WORK64_LEN``), its stamped
    transposition table (entries of other stamps count as empty: nothing to clear) with a new stamp;
    else an empty table (the search then goes without: the same plays, more work). Only for callers
    compiled without reference counting too."""
    if need and work64.shape[0] >= WORK64_LEN:
        stamp = work64[TT_AT] + 1
        work64[TT_AT] = stamp
        return work64[TT_AT + 1 : TT_AT + 1 + 3 * TT_SIZE].reshape((TT_SIZE, 3)), stamp
    return work64[:0].reshape((0, 3)), np.int64(1)


# Without numba's reference counting (``_nrt=False``): the search allocates nothing, and the counting
# of array references (atomic increments and decrements around the helpers inlined in its loops)
# took about a third of its time.
@njit(cache=True, nogil=True, _nrt=False)
def _search_core(
    b,
    moved,
    heads0,
    ndice,
    permute,
    hitting,
    strict,
    hlimit,
    prune_doubles,
    all_leaves,
    out,
    work64,
    transpose,
    tt,
    ttstamp,
):
    """Depth-first search over single steps (make/unmake on ``b`` and ``moved``, both restored on
    return), keeping each resulting position once (docs/rules.md rule 4) in ``out`` (rows of OUT_W).

    ``work64`` holds the stacks (its first row: the dice to play, in order), the board keys and an
    open-addressing hash table whose entries are stamped, so it is never cleared. ``transpose`` (default)
    skips intermediate positions of a long nardy double already searched (same plays, same order).
    """
    stack = work64[0 : STACK_ROWS * 5]
    tbase = TABLE_AT
    stamp_at = tbase + TABLE_SIZE
    kbase = stamp_at + 1
    # stack rows: 0 dice, 1 src, 2 dst, 3 hit, 4 flags (moved taken | head), 5 outside dec, 6 next src,
    # 7 had child
    d0 = stack[0]
    d1 = stack[1]
    is_double = ndice >= 2 and d0 == d1
    big = d0 if d0 > d1 or ndice < 2 else d1
    n_orders = 2 if (permute and ndice == 2 and d0 != d1) else 1
    prune = prune_doubles and is_double and hitting
    # Transposition table for doubles without the ordering prune (long nardy): an intermediate position
    # (board, depth, checkers off the head) met again has the same subtree, all of whose leaves were
    # already met, in the same order, from its first visit, so the second visit is skipped. The plays
    # found, their steps and their order are unchanged; only repeated work goes (bench/search_speed.py).
    use_tt = transpose and is_double and ndice > 2 and not hitting and tt.shape[0] > 0
    # (``tt``: zeroed by :func:`_search` where ``use_tt``)
    tt_count = 0
    count = 0
    best = -1
    cap = min(out.shape[0], _key_room(work64))
    with_steps = out.shape[1] >= OUT_W
    stamp = work64[stamp_at] + 1
    # One pass over the points: the board key (as :func:`board_key`), the mover's checkers outside home
    # (as :func:`_outside_home`), and two bitmasks over the points 1..24 (bit p): the mover's points, and
    # the points a step may not land on (two or more opponent checkers; in long nardy one). No step
    # changes the blocked points.
    k1_0 = np.int64(0)
    k2_0 = np.int64(b[BAR]) << np.int64(60)
    outside0 = np.int64(b[BAR])
    occ = np.int64(0)
    blocked = np.int64(0)
    block_below = -1 if hitting else 0
    for p in range(1, 25):
        v = b[p]
        if p <= 12:
            k1_0 |= np.int64(v + 15) << np.int64(5 * (p - 1))
        else:
            k2_0 |= np.int64(v + 15) << np.int64(5 * (p - 13))
        if v > 0:
            occ |= np.int64(1) << np.int64(p)
            if p >= 7:
                outside0 += v
        elif v < block_below:
            blocked |= np.int64(1) << np.int64(p)
    if prune and ndice == 4 and not all_leaves and hlimit == 0 and stack[2] == d0 and stack[3] == d0:
        return _search_four(b, moved, d0, strict, out, work64, k1_0, k2_0, outside0, occ, blocked)
    if n_orders == 2 and not all_leaves:
        return _search_two(
            b, moved, heads0, d0, d1, hitting, strict, hlimit, out, work64, k1_0, k2_0, outside0, occ, blocked
        )
    u5 = np.int64(5)
    for o in range(n_orders):
        skip_second = False
        k1 = k1_0
        k2 = k2_0
        outside = outside0
        heads = heads0
        depth = 0
        stack[30] = 25
        stack[35] = 0
        while depth >= 0:
            leaf = depth == ndice or b[OFF] >= 15
            seen = False
            if use_tt and not leaf and depth >= 1 and stack[30 + depth] == 25 and tt_count < TT_SIZE // 2:
                # a fresh intermediate node: look it up, insert it when new
                tag = np.int64(1 + depth + 8 * heads)
                hsh = (k1 * np.int64(-7046029254386353131)) ^ (k2 * np.int64(-4417276706812531889)) ^ tag
                slot = np.int64((hsh >> np.int64(64 - TT_BITS)) & (TT_SIZE - 1))
                tag |= ttstamp << np.int64(16)  # entries of earlier searches (other stamps) are empty
                while (tt[slot, 2] >> np.int64(16)) == ttstamp:
                    if tt[slot, 0] == k1 and tt[slot, 1] == k2 and tt[slot, 2] == tag:
                        seen = True
                        break
                    slot = (slot + 1) & (TT_SIZE - 1)
                if not seen:
                    tt[slot, 0] = k1
                    tt[slot, 1] = k2
                    tt[slot, 2] = tag
                    tt_count += 1
            if not leaf and not seen:
                if o == 1 and depth < 2:
                    d = stack[1 - depth]
                else:
                    d = stack[depth]
                found = False
                s = stack[30 + depth]
                can_bear = outside == 0
                # the candidate sources, highest first: the order of a scan from s down to 1
                cand = _cands(b, occ, blocked, s, d, hitting, can_bear)
                while cand != 0:
                    s = 63 - _clz64(cand)
                    cand ^= np.int64(1) << np.int64(s)
                    t = s - d
                    if s == BAR:
                        t = BAR - d
                    elif t < 1:
                        t = _target(b, moved, s, d, hitting, strict, can_bear)
                    if t >= 0 and hlimit > 0 and s == 24 and heads >= hlimit:
                        t = -1
                    if t < 0:
                        continue
                    if skip_second and depth == 1 and t != 0 and s != stack[10]:
                        # Second order, second step by another checker: the same play was met in
                        # the first order (hitting games; the first step neither entered from the
                        # bar nor brought the last checker home, and this step is no bear-off).
                        stack[35 + depth] = 1
                        continue
                    # make the step (the primitives of the two- and four-dice searches)
                    made = _make(b, moved, s, t, d, hitting, strict, occ)
                    if made < 0:  # long nardy's six-block rule
                        continue
                    tm = made & 1
                    h = made >> 1
                    occ = _reocc(occ, b, s, t)
                    k1, k2 = _rekey(k1, k2, s, t, made)
                    o_dec = 1 if (s >= 7 and t <= 6) else 0
                    outside -= o_dec
                    hd = 1 if (hlimit > 0 and s == 24) else 0
                    heads += hd
                    if o == 1 and depth == 0 and hitting and s != BAR and o_dec == 0 and not (strict and can_bear):
                        skip_second = True
                    elif depth == 0:
                        skip_second = False
                    stack[5 + depth] = s
                    stack[10 + depth] = t
                    stack[15 + depth] = h
                    stack[20 + depth] = tm + 2 * hd
                    stack[25 + depth] = o_dec
                    stack[30 + depth] = s - 1
                    stack[35 + depth] = 1
                    depth += 1
                    stack[30 + depth] = s if prune else 25
                    stack[35 + depth] = 0
                    found = True
                    break
                if found:
                    continue
                leaf = stack[35 + depth] == 0
            if leaf and not seen:
                if all_leaves:
                    score = 0
                else:
                    score = 2 * depth
                    if depth == 1 and not is_double:
                        first_die = stack[1] if o == 1 else stack[0]
                        if first_die == big:
                            score += 1
                if score >= best:
                    if score > best:
                        best = score
                        count = 0
                        stamp += 1
                    dup = False
                    slot = -1  # type: ignore[assignment]  # numba unifies with the int64 below
                    if count < TABLE_SIZE // 2:
                        hsh = (k1 * np.int64(-7046029254386353131)) ^ (k2 * np.int64(-4417276706812531889))
                        slot = np.int64((hsh >> np.int64(64 - TABLE_BITS)) & (TABLE_SIZE - 1))
                        while True:
                            ent = work64[tbase + slot]
                            if (ent >> 32) != stamp:
                                break
                            j = ent & 0xFFFFFFFF
                            if work64[kbase + 2 * j] == k1 and work64[kbase + 2 * j + 1] == k2:
                                dup = True
                                break
                            slot = (slot + 1) & (TABLE_SIZE - 1)
                    else:  # table half full: plain scan (not met in real positions)
                        for j in range(count):
                            if work64[kbase + 2 * j] == k1 and work64[kbase + 2 * j + 1] == k2:
                                dup = True
                                break
                    if not dup and count < cap:
                        if slot >= 0:
                            work64[tbase + slot] = (stamp << 32) | count
                        row = out[count]
                        for i in range(BOARD_LEN):
                            row[i] = b[i]
                        if with_steps:
                            row[28] = depth
                            for i in range(depth):
                                row[29 + 4 * i] = stack[5 + i]
                                row[30 + 4 * i] = stack[10 + i]
                                row[31 + 4 * i] = stack[1 - i] if (o == 1 and i < 2) else stack[i]
                                row[32 + 4 * i] = stack[15 + i]
                        work64[kbase + 2 * count] = k1
                        work64[kbase + 2 * count + 1] = k2
                        count += 1
            # pop: unmake the step that led here
            depth -= 1
            if depth >= 0:
                s = stack[5 + depth]
                t = stack[10 + depth]
                h = stack[15 + depth]
                m = stack[20 + depth]
                if t == 0:
                    b[OFF] -= 1
                else:
                    moved[t] -= 1
                    b[t] -= 1
                    if h:
                        b[t] = -1
                        b[OPP_BAR] -= 1
                    inc = np.int64(1 + h)
                    if t <= 12:
                        k1 -= inc << (u5 * (t - 1))
                    else:
                        k2 -= inc << (u5 * (t - 13))
                b[s] += 1
                if t > 0 and b[t] <= 0:
                    occ &= ~(np.int64(1) << np.int64(t))
                if s != BAR:
                    occ |= np.int64(1) << np.int64(s)
                if m & 1:
                    moved[s] += 1
                if m & 2:
                    heads -= 1
                outside += stack[25 + depth]
                if s == BAR:
                    k2 += np.int64(1) << np.int64(60)
                elif s <= 12:
                    k1 += np.int64(1) << (u5 * (s - 1))
                else:
                    k2 += np.int64(1) << (u5 * (s - 13))
    work64[stamp_at] = stamp
    return count


@njit(cache=True, nogil=True)
def _small_work64(cap):
    """A ``work64`` scratch array for up to ``cap`` plays (stacks and hash table zeroed)."""
    w = np.empty(TABLE_AT + TABLE_SIZE + 1 + 2 * cap, np.int64)
    w[: TABLE_AT + TABLE_SIZE + 1] = 0
    return w


@njit(cache=True, nogil=True, _nrt=False)
def _legal(b0, code, out, work64, b, moved, transpose=True):
    """All legal plays of a full turn (see :func:`legal_into`), with int8 scratch ``b`` (28) and ``moved`` (26).

    Packed arguments for a cheap call from Python:

    Args:
        b0: int8[28] board (mover's view).
        code: ``d1 | d2 << 3 | hitting << 6 | strict << 7 | first_turn << 8 | (head_mode + 1) << 9``
            (see :func:`pack_code`).
        out: int8[MAX_PLAYS, OUT_W] rows: board (28), step count, then (from, to, die, hit) x 4; or
            int8[MAX_PLAYS, 28] for the boards alone.
        work64: scratch from :func:`new_workspace`.
    Returns:
        The number of distinct plays (at least 1: when nothing can be played, one empty play whose
        result is ``b0``).
    """
    d1 = code & 7
    d2 = (code >> 3) & 7
    hitting = (code >> 6) & 1 == 1
    strict = (code >> 7) & 1 == 1
    first = (code >> 8) & 1 == 1
    head_mode = ((code >> 9) & 3) - 1
    for i in range(BOARD_LEN):
        b[i] = b0[i]
    moved[:] = 0
    if d1 == d2:
        ndice = 4
        for i in range(4):
            work64[i] = d1
    else:
        ndice = 2
        work64[0] = d1
        work64[1] = d2
    hl = 0
    if head_mode >= 0:
        hl = head_limit(b, d1, d2, first, head_mode)
    tt, ttstamp = _tt_of(work64, transpose and d1 == d2 and not hitting)
    return _search_core(b, moved, 0, ndice, True, hitting, strict, hl, True, False, out, work64, transpose, tt, ttstamp)


@njit(cache=True, nogil=True)
def legal_into(b0, code, out, work64):
    """All legal plays of a full turn with packed arguments (see :func:`_legal` for their meaning).

    Returns the number of distinct plays (at least 1: when nothing can be played, one empty play whose
    result is ``b0``).
    """
    # int8 locals measured faster than int64 scratch rows, despite two small allocations
    return _legal(b0, code, out, work64, np.empty(BOARD_LEN, np.int8), np.empty(26, np.int8))


def pack_code(d1, d2, hitting, strict, first_turn, head_mode):
    """The ``code`` argument of :func:`legal_into`."""
    return d1 | (d2 << 3) | (int(hitting) << 6) | (int(strict) << 7) | (int(first_turn) << 8) | ((head_mode + 1) << 9)


@njit(cache=True, nogil=True)
def _unpack(out, n, out_b, out_s, out_n):
    for i in range(n):
        for j in range(BOARD_LEN):
            out_b[i, j] = out[i, j]
        k = out[i, 28]
        out_n[i] = k
        for j in range(k):
            for c in range(4):
                out_s[i, j, c] = out[i, 29 + 4 * j + c]


@njit(cache=True, nogil=True)
def generate(
    b0,
    moved0,
    heads0,
    dice,
    ndice,
    permute,
    hitting,
    strict,
    hlimit,
    prune_doubles,
    all_leaves,
    out_b,
    out_s,
    out_n,
    out_keys,
    transpose=True,
):
    """Generate plays from board ``b0`` into separate output buffers (general form).

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
            non-double allows only one die, the larger (docs/rules.md rule 3); if True keep every leaf
            (for partial turns; a leaf is a sequence that cannot continue).
        out_b: int8[M, 28] resulting boards; out_s: int8[M, 4, 4] steps (from, to, die, hit);
        out_n: int8[M] step counts; out_keys: uint64[M, 2] (unused, kept for callers).
        transpose: skip repeated intermediate positions of long nardy doubles (see :func:`_search`;
            False gives the plain search, the same output, for tests and benchmarks).
    Returns:
        The number of distinct resulting boards written.
    """
    b = b0.copy()
    moved = moved0.copy()
    small = min(256, out_b.shape[0])
    work64 = _small_work64(small)
    for i in range(ndice):
        work64[i] = dice[i]
    out = np.empty((small, OUT_W), np.int8)
    n = _search(
        b, moved, heads0, ndice, permute, hitting, strict, hlimit, prune_doubles, all_leaves, out, work64, transpose
    )
    if n >= small and out_b.shape[0] > small:  # rare: many plays, run again with the full buffer
        out = np.empty((out_b.shape[0], OUT_W), np.int8)
        w2 = _small_work64(out_b.shape[0])
        w2[:4] = work64[:4]
        work64 = w2
        n = _search(
            b, moved, heads0, ndice, permute, hitting, strict, hlimit, prune_doubles, all_leaves, out, work64, transpose
        )
    _unpack(out, n, out_b, out_s, out_n)
    return n


@njit(cache=True, nogil=True)
def legal_plays_into(b0, d1, d2, hitting, strict, first_turn, head_mode, out_b, out_s, out_n, out_keys):
    """All legal plays of a full turn with dice (d1, d2) from board ``b0`` (mover's view), into
    separate buffers (see :func:`generate`). ``head_mode`` is -1 for the hitting games (no head rule)
    or HEAD_NONE/HEAD_BLOCK/HEAD_ALWAYS for long nardy. Returns the number of distinct plays (at
    least 1: when nothing can be played, one empty play whose result is ``b0``)."""
    code = d1 | (d2 << 3) | (int(hitting) << 6) | (int(strict) << 7) | (int(first_turn) << 8) | ((head_mode + 1) << 9)
    small = min(256, out_b.shape[0])
    out = np.empty((small, OUT_W), np.int8)
    work64 = _small_work64(small)
    n = legal_into(b0, code, out, work64)
    if n >= small and out_b.shape[0] > small:  # rare: many plays, run again with the full buffer
        out = np.empty((out_b.shape[0], OUT_W), np.int8)
        work64 = _small_work64(out_b.shape[0])
        n = legal_into(b0, code, out, work64)
    _unpack(out, n, out_b, out_s, out_n)
    return n


@njit(cache=True, nogil=True)
def batch_results(boards, dice, hitting, strict, first_turn, head_mode, out_b, offsets, transpose=True):
    """Legal play results for many positions at once (for bots).

    Args:
        boards: int8[N, 28] boards (mover's view); dice: int64[N, 2]; first_turn: bool[N].
        out_b: int8[M, 28] buffer for all resulting boards, concatenated.
        offsets: int64[N + 1]; on return the results of position i are ``out_b[offsets[i]:offsets[i+1]]``.
        transpose: see :func:`generate` (False: the plain search, same output).
    Returns:
        The total number of results written, or -1 if ``out_b`` was too small.
    """
    work64 = np.zeros(WORK64_LEN, np.int64)
    b = np.empty(BOARD_LEN, np.int8)
    moved = np.empty(26, np.int8)
    return _batch(boards, dice, hitting, strict, first_turn, head_mode, out_b, offsets, transpose, work64, b, moved)


@njit(cache=True, nogil=True, _nrt=False)
def _batch(boards, dice, hitting, strict, first_turn, head_mode, out_b, offsets, transpose, work64, b, moved):
    """The loop of :func:`batch_results`, with its scratch (no reference counting a position)."""
    n = boards.shape[0]
    base = (int(hitting) << 6) | (int(strict) << 7) | ((head_mode + 1) << 9)
    pos = 0
    offsets[0] = 0
    for i in range(n):
        code = base | dice[i, 0] | (dice[i, 1] << 3) | (int(first_turn[i]) << 8)
        room = out_b.shape[0] - pos
        c = _legal(boards[i], code, out_b[pos:], work64, b, moved, transpose)
        if c >= room:
            return -1
        pos += c
        offsets[i + 1] = pos
    return pos


@njit(cache=True, nogil=True)
def mirror_hitting(b):
    """The board from the opponent's view (backgammon, short nardy): point p becomes 25 - p."""
    r = np.empty(BOARD_LEN, np.int8)
    r[OFF] = b[OPP_OFF]
    r[OPP_OFF] = b[OFF]
    r[BAR] = b[OPP_BAR]
    r[OPP_BAR] = b[BAR]
    for p in range(1, 25):
        r[p] = -b[opp_point(p, True)]
    return r


@njit(cache=True, nogil=True)
def mirror_long(b):
    """The board from the opponent's view (long nardy): mover point p is the opponent's ((p+11)%24)+1."""
    r = np.empty(BOARD_LEN, np.int8)
    r[OFF] = b[OPP_OFF]
    r[OPP_OFF] = b[OFF]
    r[BAR] = 0
    r[OPP_BAR] = 0
    for p in range(1, 25):
        r[opp_point(p, False)] = -b[p]
    return r


@njit(cache=True, nogil=True)
def pip_counts(b, hitting):
    """(mover pips, opponent pips): sum of distances to bear off; the bar counts 25 (hitting games)."""
    m = 0
    o = 0
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            m += v * p
        elif v < 0:
            o += -v * opp_point(p, hitting)
    m += 25 * b[BAR]
    o += 25 * b[OPP_BAR]
    return m, o

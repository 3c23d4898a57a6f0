"""Compiled step primitives of the legal-play generator (numba), and its searches for two different dice and for
a double of the hitting games.

The board layout, views and rule flags are those of :mod:`nardy.rules._movegen`, which re-exports the
public names (``opp_point``, ``board_key``, ``six_block_illegal``, ``head_limit``, the constants). Sources
are taken from bitmasks (bit p: mover point p, bit 25 the bar), highest first, by :func:`_clz64`.

The searches here and in :mod:`nardy.rules._movegen` run without numba's reference counting
(``_nrt=False``): they allocate nothing and must return no array to a function that counts.

numba's on-disk cache (``cache=True``) of a function is keyed to its own file only: after editing this module,
delete ``nardy/rules/__pycache__`` (or touch ``_movegen.py``) so that the compiled functions of
:mod:`nardy.rules._movegen`, which include these, are built again.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]  # (numba's code generator)
from numba import njit, types
from numba.extending import intrinsic

from .numbering import HEAD_ALWAYS, HEAD_NONE

BOARD_LEN = 28
OFF, BAR, OPP_BAR, OPP_OFF = 0, 25, 26, 27
#: Capacity of the per-call play buffers; the real maximum of distinct plays is far lower.
MAX_PLAYS = 4096
TABLE_BITS = 10
TABLE_SIZE = 1 << TABLE_BITS
#: Transposition table of the doubles search (long nardy), entries; filled at most half.
TT_BITS = 11
TT_SIZE = 1 << TT_BITS


@intrinsic
def _clz64(typingctx, x):
    """Count of leading zero bits of an int64 (LLVM ``ctlz``; 64 for 0): ``63 - _clz64(m)`` is the
    highest set bit of a mask ``m`` > 0."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


@njit(cache=True, nogil=True, inline="always")
def opp_point(p, hitting):
    """THE compiled form of :func:`nardy.rules.numbering.opponent_point` (numba kernels cannot call Python):
    the other side's own number of one side's point ``p`` (1..24): ``25 - p`` in the hitting games,
    ``((p + 11) % 24) + 1`` in long nardy. The map is its own inverse, so it gives the mover's point of
    the opponent's point too. Only for 1..24 (no check: bar and off are each side's own)."""
    if hitting:
        return 25 - p
    return ((p + 11) % 24) + 1


@njit(cache=True, nogil=True)
def board_key(b):
    """Two int64 that identify a board among boards with the same checker totals (5 bits a point,
    the mover's bar in the top bits of the second; used for dedupe)."""
    k1 = np.int64(0)
    k2 = np.int64(0)
    for p in range(1, 13):
        k1 |= np.int64(b[p] + 15) << np.int64(5 * (p - 1))
    for p in range(13, 25):
        k2 |= np.int64(b[p] + 15) << np.int64(5 * (p - 13))
    k2 |= np.int64(b[25]) << np.int64(60)
    return k1, k2


@njit(cache=True, nogil=True)
def six_block_illegal(b, t):
    """Long nardy six-block rule (docs/rules.md, seed 002 3.4) for the run through mover point ``t``.

    True when the mover's run of occupied points containing ``t``, consecutive along the
    opponent's route (opponent numbering 24..1, not wrapping from their 1 to their 24), is six or
    longer and no opponent checker is ahead of it (on a lower opponent-numbered point, or off).
    """
    qt = opp_point(t, False)
    lo = qt
    while lo > 1 and b[opp_point(lo - 1, False)] > 0:
        lo -= 1
    hi = qt
    while hi < 24 and b[opp_point(hi + 1, False)] > 0:
        hi += 1
    if hi - lo + 1 < 6:
        return False
    if b[OPP_OFF] > 0:
        return False
    for q in range(1, lo):
        if b[opp_point(q, False)] < 0:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def _six_run(occ, t):
    """Whether the mover's points ``occ`` (bitmask, bit p: mover point p) with ``t`` added may hold a run of
    six along the opponent's route through ``t`` (long nardy): False rules a six-block out at once;
    True leaves it to :func:`six_block_illegal`. In route order (opponent point q, 1..24, no wrap) the
    mover's points 13..24 are q 1..12 and 1..12 are q 13..24."""
    m = occ | (np.int64(1) << np.int64(t))
    r = ((m >> np.int64(12)) & np.int64(0x1FFE)) | ((m & np.int64(0x1FFE)) << np.int64(12))
    w = r & (r >> np.int64(1)) & (r >> np.int64(2)) & (r >> np.int64(3)) & (r >> np.int64(4)) & (r >> np.int64(5))
    q = opp_point(t, False)
    lo = q - 5 if q > 5 else 0
    return (w & ((np.int64(2) << np.int64(q)) - (np.int64(1) << np.int64(lo)))) != 0


@njit(cache=True, nogil=True)
def head_limit(b, d1, d2, first_turn, mode):
    """How many checkers may leave the head (mover point 24) this turn in long nardy.

    docs/rules.md head rule: one, except on the mover's first turn with 6-6, 4-4 or 3-3, where two may
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


@njit(cache=True, nogil=True)
def _outside_home(b):
    n = b[BAR]
    for p in range(7, 25):
        if b[p] > 0:
            n += b[p]
    return n


@njit(cache=True, nogil=True, inline="always")
def _target(b, moved, s, d, hitting, strict, can_bear):
    """Destination of a step of die d from mover point s (25 = bar), or -1 if illegal.

    Checks docs/rules.md rules 2 and 5 and the bar rule; the head and six-block rules are checked by
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


#: Width of one row of the packed play buffer: 28 board bytes, the step count, then 4 steps of
#: (from, to, die, hit).
OUT_W = 45
STACK_ROWS = 8
# work64 layout: the search stacks, (room once used for a board and moved counts), the stamped hash
# table of the plays and its stamp, the board keys of the plays; in a full workspace (WORK64_LEN: those of
# new_workspace and batch_results) then the stamp and entries of a stamped transposition table.
B_AT = STACK_ROWS * 5
MOVED_AT = B_AT + BOARD_LEN
TABLE_AT = MOVED_AT + 26
KEYS_AT = TABLE_AT + TABLE_SIZE + 1
TT_AT = KEYS_AT + 2 * MAX_PLAYS
WORK64_LEN = TT_AT + 1 + 3 * TT_SIZE


@njit(cache=True, nogil=True, inline="always")
def _key_room(work64):
    """How many plays' board keys ``work64`` has room for (at most MAX_PLAYS)."""
    return min(MAX_PLAYS, (work64.shape[0] - KEYS_AT) // 2)


@njit(cache=True, nogil=True, inline="always")
def _cands(b, occ, blocked, s_top, d, hitting, can_bear):
    """The sources (bitmask: bit p mover point p, bit 25 the bar) from which a step of die ``d`` may be
    legal, among the points ``s_top`` and below: the bar alone while the mover has checkers there
    (hitting games), else the mover's points whose step lands on no blocked point, and, when all the
    mover's checkers are home (``can_bear``), those from which the die bears off (checked further by
    :func:`_target`). Taking the highest first gives the order of a scan from ``s_top`` down to 1."""
    if hitting and b[BAR] > 0:
        if s_top == BAR and ((blocked >> np.int64(BAR - d)) & 1) == 0:
            return np.int64(1) << np.int64(BAR)
        return np.int64(0)
    top = s_top if s_top < BAR else 24
    c = occ & ((np.int64(2) << np.int64(top)) - 2)
    low = (np.int64(2) << np.int64(d)) - 1  # bits 0..d: a step from them bears off
    return (c & ~(blocked << np.int64(d)) & ~low) | (c & low if can_bear else np.int64(0))


@njit(cache=True, nogil=True, inline="always")
def _make(b, moved, s, t, d, hitting, strict, occ):
    """Play the step ``s`` -> ``t`` by die ``d`` on ``b`` and ``moved``: returns ``tm | hit << 1`` (``tm``:
    a checker that had moved this turn stepped), or -1, with nothing changed, where long nardy's
    six-block rule forbids it (``occ``: the mover's points before the step, for :func:`_six_run`)."""
    was_empty = t > 0 and b[t] == 0
    b[s] -= 1
    tm = 0
    # the checker that steps is one that has moved this turn where there is one (the others keep the
    # right to bear off by a larger die), except a strict bear-off by a die larger than the point: that
    # must be a checker that has not moved (rule 26)
    if moved[s] > 0 and not (strict and t == 0 and s < d):
        moved[s] -= 1
        tm = 1
    h = 0
    if t == 0:
        b[OFF] += 1
    else:
        if b[t] == -1:
            b[t] = 0
            b[OPP_BAR] += 1
            h = 2
        b[t] += 1
        moved[t] += 1
    if not hitting and was_empty and _six_run(occ, t) and six_block_illegal(b, t):
        moved[t] -= 1
        b[t] -= 1
        b[s] += 1
        if tm:
            moved[s] += 1
        return -1
    return tm | h


@njit(cache=True, nogil=True, inline="always")
def _unmake(b, moved, s, t, m):
    """Take back a step played by :func:`_make` (``m`` its return value)."""
    if t == 0:
        b[OFF] -= 1
    else:
        moved[t] -= 1
        b[t] -= 1
        if m & 2:
            b[t] = -1
            b[OPP_BAR] -= 1
    b[s] += 1
    if m & 1:
        moved[s] += 1


@njit(cache=True, nogil=True, inline="always")
def _rekey(k1, k2, s, t, m):
    """The board key (:func:`board_key`) after the step ``s`` -> ``t`` (``m`` from :func:`_make`)."""
    if s == BAR:
        k2 -= np.int64(1) << np.int64(60)
    elif s <= 12:
        k1 -= np.int64(1) << np.int64(5 * (s - 1))
    else:
        k2 -= np.int64(1) << np.int64(5 * (s - 13))
    if t > 0:
        inc = np.int64(1 + (m >> 1))
        if t <= 12:
            k1 += inc << np.int64(5 * (t - 1))
        else:
            k2 += inc << np.int64(5 * (t - 13))
    return k1, k2


@njit(cache=True, nogil=True, inline="always")
def _reocc(occ, b, s, t):
    """The mover's points bitmask after the step ``s`` -> ``t`` was made on ``b``."""
    if s != BAR and b[s] == 0:
        occ ^= np.int64(1) << np.int64(s)
    if t > 0 and b[t] == 1:
        occ |= np.int64(1) << np.int64(t)
    return occ


@njit(cache=True, nogil=True, _nrt=False)
def _emit(b, k1, k2, score, best, count, stamp, out, work64, cap, depth, s1, t1, e1, h1, s2, t2, e2, h2):
    """A leaf of the two-dice search (see the leaf of :func:`_search`): kept when its score is the best
    so far and its board is new. Returns the updated ``(best, count, stamp)``."""
    if score < best:
        return best, count, stamp
    if score > best:
        best = score
        count = 0
        stamp += 1
    tbase = TABLE_AT
    kbase = TABLE_AT + TABLE_SIZE + 1
    dup = False
    slot = np.int64(-1)
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
        if out.shape[1] >= OUT_W:
            row[28] = depth
            if depth >= 1:
                row[29] = s1
                row[30] = t1
                row[31] = e1
                row[32] = h1
            if depth >= 2:
                row[33] = s2
                row[34] = t2
                row[35] = e2
                row[36] = h2
        work64[kbase + 2 * count] = k1
        work64[kbase + 2 * count + 1] = k2
        count += 1
    return best, count, stamp


@njit(cache=True, nogil=True, _nrt=False)
def _search_two(b, moved, heads0, da, db, hitting, strict, hlimit, out, work64, k1_0, k2_0, outside0, occ0, blocked):
    """:func:`_search` for a full turn with two different dice (``permute``, not ``all_leaves``): the same
    plays, steps and order, as two nested loops over the candidate sources with the state in locals.

    Order 0 plays ``da`` then ``db``, order 1 ``db`` then ``da``; in order 1 (hitting games) a second
    step by another checker than the first is skipped where the first step neither entered from the bar
    nor brought the last checker home (and no strict bear-off could follow): that play was met in order 0.
    Returns the number of plays written to ``out``.
    """
    stamp_at = TABLE_AT + TABLE_SIZE
    kbase = stamp_at + 1
    cap = min(out.shape[0], _key_room(work64))
    count = 0
    best = -1
    stamp = work64[stamp_at] + 1
    big = da if da > db else db
    with_steps = out.shape[1] >= OUT_W
    for o in range(2):
        d1 = da if o == 0 else db
        d2 = db if o == 0 else da
        if b[OFF] >= 15:
            best, count, stamp = _emit(
                b, k1_0, k2_0, 0, best, count, stamp, out, work64, cap, 0, 0, 0, 0, 0, 0, 0, 0, 0
            )
            continue
        can_bear = outside0 == 0
        c1 = _cands(b, occ0, blocked, BAR, d1, hitting, can_bear)
        had1 = False
        while c1 != 0:
            s1 = 63 - _clz64(c1)
            c1 ^= np.int64(1) << np.int64(s1)
            t1 = s1 - d1
            if s1 != BAR and t1 < 1:
                t1 = _target(b, moved, s1, d1, hitting, strict, can_bear)
            if t1 >= 0 and hlimit > 0 and s1 == 24 and heads0 >= hlimit:
                t1 = -1
            if t1 < 0:
                continue
            m1 = _make(b, moved, s1, t1, d1, hitting, strict, occ0)
            if m1 < 0:
                continue
            had1 = True
            k1a, k2a = _rekey(k1_0, k2_0, s1, t1, m1)
            occa = _reocc(occ0, b, s1, t1)
            o_dec = 1 if (s1 >= 7 and t1 <= 6) else 0
            outa = outside0 - o_dec
            heads = heads0 + (1 if (hlimit > 0 and s1 == 24) else 0)
            skip = o == 1 and hitting and s1 != BAR and o_dec == 0 and not (strict and can_bear)
            h1 = m1 >> 1
            if b[OFF] >= 15:
                had2 = False
            else:
                can_bear2 = outa == 0
                c2 = _cands(b, occa, blocked, BAR, d2, hitting, can_bear2)
                had2 = False
                while c2 != 0:
                    s2 = 63 - _clz64(c2)
                    c2 ^= np.int64(1) << np.int64(s2)
                    t2 = s2 - d2
                    if s2 != BAR and t2 < 1:
                        t2 = _target(b, moved, s2, d2, hitting, strict, can_bear2)
                    if t2 >= 0 and hlimit > 0 and s2 == 24 and heads >= hlimit:
                        t2 = -1
                    if t2 < 0:
                        continue
                    if skip and t2 != 0 and s2 != t1:
                        had2 = True  # the same play was met in order 0
                        continue
                    m2 = _make(b, moved, s2, t2, d2, hitting, strict, occa)
                    if m2 < 0:
                        continue
                    had2 = True
                    k1b, k2b = _rekey(k1a, k2a, s2, t2, m2)
                    # a full play (the leaf of :func:`_emit`, written here: the common case)
                    if best < 4:
                        best = 4
                        count = 0
                        stamp += 1
                    dup = False
                    slot = np.int64(-1)
                    if count < TABLE_SIZE // 2:
                        hsh = (k1b * np.int64(-7046029254386353131)) ^ (k2b * np.int64(-4417276706812531889))
                        slot = np.int64((hsh >> np.int64(64 - TABLE_BITS)) & (TABLE_SIZE - 1))
                        while True:
                            ent = work64[TABLE_AT + slot]
                            if (ent >> 32) != stamp:
                                break
                            j = ent & 0xFFFFFFFF
                            if work64[kbase + 2 * j] == k1b and work64[kbase + 2 * j + 1] == k2b:
                                dup = True
                                break
                            slot = (slot + 1) & (TABLE_SIZE - 1)
                    else:
                        for j in range(count):
                            if work64[kbase + 2 * j] == k1b and work64[kbase + 2 * j + 1] == k2b:
                                dup = True
                                break
                    if not dup and count < cap:
                        if slot >= 0:
                            work64[TABLE_AT + slot] = (stamp << 32) | count
                        for i in range(BOARD_LEN):
                            out[count, i] = b[i]
                        if with_steps:
                            out[count, 28] = 2
                            out[count, 29] = s1
                            out[count, 30] = t1
                            out[count, 31] = d1
                            out[count, 32] = h1
                            out[count, 33] = s2
                            out[count, 34] = t2
                            out[count, 35] = d2
                            out[count, 36] = m2 >> 1
                        work64[kbase + 2 * count] = k1b
                        work64[kbase + 2 * count + 1] = k2b
                        count += 1
                    _unmake(b, moved, s2, t2, m2)
            if not had2:  # only the first die could be played: 3 points for the larger
                sc = 3 if d1 == big else 2
                best, count, stamp = _emit(
                    b, k1a, k2a, sc, best, count, stamp, out, work64, cap, 1, s1, t1, d1, h1, 0, 0, 0, 0
                )
            _unmake(b, moved, s1, t1, m1)
        if not had1:
            best, count, stamp = _emit(
                b, k1_0, k2_0, 0, best, count, stamp, out, work64, cap, 0, 0, 0, 0, 0, 0, 0, 0, 0
            )
    work64[stamp_at] = stamp
    return count


@njit(cache=True, nogil=True, _nrt=False)
def _emit_stack(b, k1, k2, score, best, count, stamp, out, work64, cap, depth, die):
    """:func:`_emit` for a leaf whose steps are in the search stack of ``work64`` (from, to and hit of
    step i at 5 + i, 10 + i and 15 + i), all by the same die."""
    if score < best:
        return best, count, stamp
    if score > best:
        best = score
        count = 0
        stamp += 1
    tbase = TABLE_AT
    kbase = TABLE_AT + TABLE_SIZE + 1
    dup = False
    slot = np.int64(-1)
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
    else:  # table half full: plain scan
        for j in range(count):
            if work64[kbase + 2 * j] == k1 and work64[kbase + 2 * j + 1] == k2:
                dup = True
                break
    if not dup and count < cap:
        if slot >= 0:
            work64[tbase + slot] = (stamp << 32) | count
        for i in range(BOARD_LEN):
            out[count, i] = b[i]
        if out.shape[1] >= OUT_W:
            out[count, 28] = depth
            for i in range(depth):
                out[count, 29 + 4 * i] = work64[5 + i]
                out[count, 30 + 4 * i] = work64[10 + i]
                out[count, 31 + 4 * i] = die
                out[count, 32 + 4 * i] = work64[15 + i]
        work64[kbase + 2 * count] = k1
        work64[kbase + 2 * count + 1] = k2
        count += 1
    return best, count, stamp


@njit(cache=True, nogil=True, inline="always")
def _dest(b, moved, s, d, hitting, strict, can_bear):
    """Destination of a step of die ``d`` from a candidate source ``s`` (:func:`_cands`), or -1."""
    t = s - d
    if s != BAR and t < 1:
        t = _target(b, moved, s, d, hitting, strict, can_bear)
    return t


@njit(cache=True, nogil=True, _nrt=False)
def _search_four(b, moved, d, strict, out, work64, k1_0, k2_0, outside0, occ0, blocked):
    """:func:`_search` for a full turn of a double in the hitting games (four steps of ``d``, sources in
    non-increasing order, so each set of steps is tried once): the same plays, steps and order, as four
    nested loops with the state in locals. Returns the number of plays written to ``out``."""
    stamp_at = TABLE_AT + TABLE_SIZE
    cap = min(out.shape[0], _key_room(work64))
    count = 0
    best = -1
    stamp = work64[stamp_at] + 1
    one = np.int64(1)
    if b[OFF] >= 15:
        best, count, stamp = _emit_stack(b, k1_0, k2_0, 0, best, count, stamp, out, work64, cap, 0, d)
        work64[stamp_at] = stamp
        return count
    cb1 = outside0 == 0
    c1 = _cands(b, occ0, blocked, BAR, d, True, cb1)
    had1 = False
    while c1 != 0:
        s1 = 63 - _clz64(c1)
        c1 ^= one << np.int64(s1)
        t1 = _dest(b, moved, s1, d, True, strict, cb1)
        if t1 < 0:
            continue
        m1 = _make(b, moved, s1, t1, d, True, strict, occ0)
        had1 = True
        work64[5], work64[10], work64[15] = s1, t1, m1 >> 1
        ka1, kb1 = _rekey(k1_0, k2_0, s1, t1, m1)
        occ1 = _reocc(occ0, b, s1, t1)
        out1 = outside0 - (1 if (s1 >= 7 and t1 <= 6) else 0)
        had2 = b[OFF] >= 15  # all off: a leaf (emitted below as one that cannot go on)
        if had2:
            best, count, stamp = _emit_stack(b, ka1, kb1, 2, best, count, stamp, out, work64, cap, 1, d)
        cb2 = out1 == 0
        c2 = np.int64(0) if had2 else _cands(b, occ1, blocked, s1, d, True, cb2)
        while c2 != 0:
            s2 = 63 - _clz64(c2)
            c2 ^= one << np.int64(s2)
            t2 = _dest(b, moved, s2, d, True, strict, cb2)
            if t2 < 0:
                continue
            m2 = _make(b, moved, s2, t2, d, True, strict, occ1)
            had2 = True
            work64[6], work64[11], work64[16] = s2, t2, m2 >> 1
            ka2, kb2 = _rekey(ka1, kb1, s2, t2, m2)
            occ2 = _reocc(occ1, b, s2, t2)
            out2 = out1 - (1 if (s2 >= 7 and t2 <= 6) else 0)
            had3 = b[OFF] >= 15
            if had3:
                best, count, stamp = _emit_stack(b, ka2, kb2, 4, best, count, stamp, out, work64, cap, 2, d)
            cb3 = out2 == 0
            c3 = np.int64(0) if had3 else _cands(b, occ2, blocked, s2, d, True, cb3)
            while c3 != 0:
                s3 = 63 - _clz64(c3)
                c3 ^= one << np.int64(s3)
                t3 = _dest(b, moved, s3, d, True, strict, cb3)
                if t3 < 0:
                    continue
                m3 = _make(b, moved, s3, t3, d, True, strict, occ2)
                had3 = True
                work64[7], work64[12], work64[17] = s3, t3, m3 >> 1
                ka3, kb3 = _rekey(ka2, kb2, s3, t3, m3)
                occ3 = _reocc(occ2, b, s3, t3)
                out3 = out2 - (1 if (s3 >= 7 and t3 <= 6) else 0)
                had4 = b[OFF] >= 15
                if had4:
                    best, count, stamp = _emit_stack(b, ka3, kb3, 6, best, count, stamp, out, work64, cap, 3, d)
                cb4 = out3 == 0
                c4 = np.int64(0) if had4 else _cands(b, occ3, blocked, s3, d, True, cb4)
                while c4 != 0:
                    s4 = 63 - _clz64(c4)
                    c4 ^= one << np.int64(s4)
                    t4 = _dest(b, moved, s4, d, True, strict, cb4)
                    if t4 < 0:
                        continue
                    m4 = _make(b, moved, s4, t4, d, True, strict, occ3)
                    had4 = True
                    work64[8], work64[13], work64[18] = s4, t4, m4 >> 1
                    ka4, kb4 = _rekey(ka3, kb3, s4, t4, m4)
                    best, count, stamp = _emit_stack(b, ka4, kb4, 8, best, count, stamp, out, work64, cap, 4, d)
                    _unmake(b, moved, s4, t4, m4)
                if not had4:
                    best, count, stamp = _emit_stack(b, ka3, kb3, 6, best, count, stamp, out, work64, cap, 3, d)
                _unmake(b, moved, s3, t3, m3)
            if not had3:
                best, count, stamp = _emit_stack(b, ka2, kb2, 4, best, count, stamp, out, work64, cap, 2, d)
            _unmake(b, moved, s2, t2, m2)
        if not had2:
            best, count, stamp = _emit_stack(b, ka1, kb1, 2, best, count, stamp, out, work64, cap, 1, d)
        _unmake(b, moved, s1, t1, m1)
    if not had1:
        best, count, stamp = _emit_stack(b, k1_0, k2_0, 0, best, count, stamp, out, work64, cap, 0, d)
    work64[stamp_at] = stamp
    return count

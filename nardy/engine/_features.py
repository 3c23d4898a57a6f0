"""Compiled kernels (numba): features of a board that the input encoding, the heuristic player and the
evaluators read: contact (:func:`is_race`), a crashed board (:func:`is_crashed`), shots and the pips a hit costs
(:func:`hit_stats`), escapes and containment (:data:`ESCAPES`), primes and runs of held points, long nardy
mobility (:func:`_long_mobility`), bear-off positions (:func:`bearoff_mask`).

Boards are ``int8[28]`` in the layout of :mod:`nardy.rules._movegen`, from the view of the side on roll (the
mover); the figures are GNU Backgammon's where it has them (eval.c).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..rules import _movegen as _core


def _escape_table() -> np.ndarray:
    """``ESCAPES[mask]``: of the 36 rolls, how many let a checker escape when bit ``i`` of ``mask`` (12 bits)
    says the point ``i + 1`` pips in front of it is held by 2+ opponent checkers. A roll ``d0-d1`` escapes
    when the point ``d0 + d1`` pips ahead is open and ``d0`` or ``d1`` pips ahead is open (doubles: ``d`` and
    ``2d`` open); GNU Backgammon's escape count (eval.c, ``anEscapes``), beyond 12 pips nothing blocks."""
    t = np.zeros(4096, np.int64)
    for mask in range(4096):
        c = 0
        for d0 in range(1, 7):
            for d1 in range(d0, 7):
                whole = (mask >> (d0 + d1 - 1)) & 1
                both = (mask >> (d0 - 1)) & 1 and (mask >> (d1 - 1)) & 1
                if not whole and not both:
                    c += 1 if d0 == d1 else 2
        t[mask] = c
    return t


#: int64[4096], see :func:`_escape_table`.
ESCAPES = _escape_table()


@njit(cache=True, nogil=True, inline="always")
def _crashed_side(left, ace, deuce):
    # GNU Backgammon's test (eval.c, ClassifyPosition, N = 6) for one side: ``left`` checkers still in play
    # (not borne off), ``ace``/``deuce`` of them on its own 1 and 2 points
    if left <= 6:
        return True
    if ace > 1:
        if left <= 6 + ace:
            return True
        if deuce > 1 and 1 + left - (ace + deuce) <= 6:
            return True
        return False
    return left <= 6 + (deuce - 1)


@njit(cache=True, nogil=True)
def is_crashed(b):
    """True when a side's board has crashed, GNU Backgammon's ``CLASS_CRASHED`` (eval.c, ClassifyPosition):
    at most 6 of its checkers left in play, not counting a stack (2 or more) on its 1 point, nor, with such a
    stack, all but one of a stack on its 2 point. Board ``b``: int8[28], hitting games (backgammon, short
    nardy), either side on roll; the caller checks for contact (a race is not "crashed" here)."""
    m_ace = b[1] if b[1] > 0 else 0
    m_deuce = b[2] if b[2] > 0 else 0
    o_ace = -b[24] if b[24] < 0 else 0
    o_deuce = -b[23] if b[23] < 0 else 0
    return _crashed_side(15 - b[0], m_ace, m_deuce) or _crashed_side(15 - b[27], o_ace, o_deuce)


@njit(cache=True, nogil=True)
def is_race(b, hitting):
    """True when the sides can no longer touch (no checker can hit or block one of the other side)."""
    if hitting:
        back_m = 0
        if b[25] > 0:
            back_m = 25
        else:
            for p in range(24, 0, -1):
                if b[p] > 0:
                    back_m = p
                    break
        back_o = 25
        if b[26] > 0:
            back_o = 0
        else:
            for p in range(1, 25):
                if b[p] < 0:
                    back_o = p
                    break
        return back_m < back_o
    # long nardy: both go round the same way. Absolute angle a = 24 - p (mover's head a = 0, the
    # opponent's head a = 12). A mover checker still passes every a' > a; an opponent checker every
    # angle whose opponent progress (a' - 12) mod 24 is larger than its own.
    min_am = 99
    max_ao = -1
    min_to = 99
    max_tm = -1
    for p in range(1, 25):
        a = 24 - p
        v = b[p]
        if v > 0:
            if a < min_am:
                min_am = a
            t = (a - 12) % 24
            if t > max_tm:
                max_tm = t
        elif v < 0:
            if a > max_ao:
                max_ao = a
            t = (a - 12) % 24
            if t < min_to:
                min_to = t
    return max_ao < min_am and max_tm < min_to


@njit(cache=True, nogil=True)
def _block_run(b):
    """Long nardy: the longest run of consecutive mover points (mover numbering 24..1 along 13..24 and 1..12)."""
    best = 0
    run = 0
    for p in range(24, 0, -1):
        if b[p] > 0:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@njit(cache=True, nogil=True, inline="always")
def _own_count(b, sign, q):
    """Long nardy: the checkers of the side ``sign`` (1 mover, -1 opponent) on its own point ``q``."""
    if sign > 0:
        return b[q]
    return -b[q + 12 if q <= 12 else q - 12]


@njit(cache=True, nogil=True)
def _long_mobility(b, sign, x, base):
    """Long nardy mobility of one side (``sign`` 1: the mover, -1: the opponent, in its own numbering) into
    ``x[base:base + 8]``: for each die ``d`` = 1..6 the share of the side's 15 checkers that can step ``d``
    pips (a checker on the head, point 24, counts once: the head rule lets one leave a turn), then the share
    of the 36 rolls with which neither die can be stepped by any checker, and the share with which only one
    of the two can (the side loses the other die's pips). A step from point ``q`` lands on ``q - d`` when
    the other side holds no checker there (docs/rules.md, long nardy); past point 1 it bears off when all
    the side's checkers are home (points 1..6) and it lands exactly on off or no checker stands higher.
    The six-block rule and how the two dice of a roll combine are left to the net. Bit masks over the
    side's own points (bit ``q - 1``), no division: a few hundred cycles a side."""
    own = 0  # the side's points
    held = 0  # the other side's points, in the side's numbering
    for p in range(1, 25):
        v = b[p] * sign
        q = p if sign > 0 else (p + 12 if p <= 12 else p - 12)
        if v > 0:
            own |= 1 << (q - 1)
        elif v < 0:
            held |= 1 << (q - 1)
    home = (own >> 6) == 0
    top = 0  # the side's highest point
    for q in range(24, 0, -1):
        if (own >> (q - 1)) & 1:
            top = q
            break
    playable = 0
    for d in range(1, 7):
        src = own & ~(held << d) & ~((1 << d) - 1)  # target q - d >= 1 not held
        c = 0
        for q in range(d + 1, 25):
            if (src >> (q - 1)) & 1:
                c += 1 if q == 24 else _own_count(b, sign, q)
        if home and top > 0:
            if (own >> (d - 1)) & 1:  # bears off exactly
                c += _own_count(b, sign, d)
            elif top < d:  # a larger die bears off the highest checker
                c += _own_count(b, sign, top)
        x[base + d - 1] = c / 15.0
        if c > 0:
            playable |= 1 << d
    none = 0
    one = 0
    for d1 in range(1, 7):
        a = (playable >> d1) & 1
        for d2 in range(d1, 7):
            w = 1 if d1 == d2 else 2
            c2 = (playable >> d2) & 1
            if a == 0 and c2 == 0:
                none += w
            elif a != c2:
                one += w
    x[base + 6] = none / 36.0
    x[base + 7] = one / 36.0


@njit(cache=True, nogil=True)
def _opp_block_run(b):
    """Long nardy: the opponent's longest run of held points along its route (mover points 12..1, 24..13)."""
    best = 0
    run = 0
    for i in range(24):
        p = 12 - i if i < 12 else 36 - i
        if b[p] < 0:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@njit(cache=True, nogil=True, inline="always")
def _escapes_from(b, n):
    """Escaping rolls (of 36, :data:`ESCAPES`) of a mover checker on point ``n`` (1..24, 25 = the bar) past
    the points in front of it held by 2+ opponent checkers (hitting games)."""
    w = 0
    for i in range(12):
        q = n - 1 - i
        if q < 1:
            break
        if b[q] <= -2:
            w |= 1 << i
    return ESCAPES[w]


@njit(cache=True, nogil=True)
def _back_escapes(b):
    """Escaping rolls of the mover's rearmost checker (GNU Backgammon's back escapes); 36 with none left."""
    if b[25] > 0:
        return _escapes_from(b, 25)
    for p in range(24, 0, -1):
        if b[p] > 0:
            return _escapes_from(b, p)
    return 36


@njit(cache=True, nogil=True)
def _min_escapes(b):
    """The fewest escaping rolls from any of the mover's points 15..24 (checkers there or not): how well the
    opponent contains that region (GNU Backgammon's containment input uses ``1 - this / 36``)."""
    best = 36
    for p in range(15, 25):
        e = _escapes_from(b, p)
        if e < best:
            best = e
    return best


@njit(cache=True, nogil=True)
def _prime(b, sign):
    """Longest run of consecutive points holding 2+ checkers of one side (sign 1 mover, -1 opponent)."""
    best = 0
    run = 0
    for p in range(1, 25):
        if sign * b[p] >= 2:
            run += 1
            if run > best:
                best = run
        else:
            run = 0
    return best


@njit(cache=True, nogil=True)
def _best_hit(b, a, c):
    """The highest mover point (1..24) on which the mover can hit an opponent blot with the roll a-c, 0 when
    it cannot hit (hitting games; intermediate points of a combined hit must be open; entering checkers only
    hit from the bar). A blot hit on mover point t costs the opponent t pips. A scan of the board per roll:
    the definition :func:`hit_stats` (bit masks, all rolls at once) is tested against."""
    best = 0
    for r in range(25, 0, -1):
        if r == 25:
            if b[25] == 0:
                continue
        elif b[25] > 0 or b[r] <= 0:
            continue
        if r - 1 <= best:
            break  # no higher target is reachable from here on
        if a != c:
            for d in (a, c):
                t = r - d
                if t >= 1 and b[t] == -1 and t > best:
                    best = t
            t = r - a - c
            if t >= 1 and t > best and b[t] == -1 and b[25] <= 1:
                if b[r - a] >= -1 or b[r - c] >= -1:
                    best = t
        else:
            t = r
            steps = 4 if b[25] <= 1 else 1
            for _ in range(steps):
                t -= a
                if t < 1 or b[t] < -1:
                    break
                if b[t] == -1:
                    if t > best:
                        best = t
                    break
    return best


@njit(cache=True, nogil=True)
def hit_stats(b):
    """(rolls of 36 with which the mover can hit an opponent blot, sum over the 36 rolls of the pips the
    opponent loses to the best such hit) for board ``b`` (hitting games). Pips lost = the mover's number of
    the hit point (the checker restarts from the bar); GNU Backgammon's contact inputs use the same figures.

    Each roll's best hit is :func:`_best_hit`'s (``tests/engine/test_eval.py`` checks that they agree on
    every roll), found with bit masks over the points (bit ``p``: mover point ``p``, 25 the bar): the
    mover's source points ``S`` (the bar alone while checkers are on it), the opponent's blots and the
    points not held by 2+ opponent checkers. A die ``d`` moves ``S`` to ``S >> d``; a combined hit passes an
    open point; a double steps up to four times (once with 2+ checkers on the bar) through open points
    without blots, since a blot met earlier is the higher hit anyway. The best hit is the highest bit."""
    bar = b[25]
    S = np.int64(1) << 25 if bar > 0 else np.int64(0)
    blots = np.int64(0)
    open_ = np.int64(0)
    for p in range(1, 25):
        v = b[p]
        if v > 0 and bar == 0:
            S |= np.int64(1) << p
        elif v == -1:
            blots |= np.int64(1) << p
        if v >= -1:
            open_ |= np.int64(1) << p
    if blots == 0:
        return 0, 0
    one_bar = bar <= 1
    through = open_ & ~blots
    n = 0
    loss = 0
    for a in range(1, 7):
        for c in range(a, 7):  # symmetric in the two dice
            if a != c:
                m = ((S >> a) | (S >> c)) & blots
                if one_bar:
                    m |= ((((S >> a) & open_) >> c) | (((S >> c) & open_) >> a)) & blots
                w = 2
            else:
                m = np.int64(0)
                reach = S
                for _ in range(4 if one_bar else 1):
                    reach = reach >> a
                    m |= reach & blots
                    reach &= through
                w = 1
            if m != 0:
                t = 24
                while (m >> t) & 1 == 0:
                    t -= 1
                n += w
                loss += w * t
    return n, loss


@njit(cache=True, nogil=True)
def hit_chance(b):
    """Share of the 36 rolls with which the mover (hitting games) can hit at least one opponent blot."""
    return hit_stats(b)[0] / 36.0


@njit(cache=True, nogil=True)
def _home_points(b, sign):
    """Points of a side's home board holding 2+ of its checkers (sign 1: mover's 1..6, -1: opponent's 19..24)."""
    n = 0
    for i in range(6):
        if sign > 0:
            if b[1 + i] >= 2:
                n += 1
        elif b[24 - i] <= -2:
            n += 1
    return n


@njit(cache=True, nogil=True)
def bearoff_mask(boards, hitting):
    """bool[n]: boards where both sides have all their checkers in their own home and nobody has finished."""
    n = boards.shape[0]
    out = np.zeros(n, np.bool_)
    for i in range(n):
        b = boards[i]
        ok = b[0] < 15 and b[27] < 15
        if hitting:
            ok = ok and b[25] == 0 and b[26] == 0
            for p in range(1, 25):
                if (p > 6 and b[p] > 0) or (p < 19 and b[p] < 0):
                    ok = False
                    break
        else:
            for p in range(1, 25):
                if (p > 6 and b[p] > 0) or (b[p] < 0 and (p < 13 or p > 18)):
                    ok = False
                    break
        out[i] = ok
    return out


#: Game-plan classes of a contact board (:func:`game_plan`), by number: each may have its own net
#: (:attr:`nardy.engine.net.Net.plans`).
PLAN_NAMES = ("racing", "attacking", "priming", "holding", "other")
N_PLANS = 5


@njit(cache=True, nogil=True)
def game_plan(b):
    """The game plan of the side on roll (the mover) on a hitting games' board ``b`` (int8[28], mover's view:
    ``b[1..24]`` the points, mover checkers > 0 moving down towards point 1 and its home 1..6, the
    opponent's < 0 moving up towards its home 19..24, ``b[25]``/``b[26]`` the mover's/opponent's bar,
    ``b[0]``/``b[27]`` their checkers off). Pips: a mover checker on point ``p`` has ``p`` to go, an opponent
    one ``25 - p``, a checker on the bar 25. The first rule that holds gives the class:

    0. **racing**: the mover has no back checker (none on the bar nor in the opponent's home 19..24), or
       leads the race by at least 15% of the opponent's pips (``20 * (opp - mover) >= 3 * opp``);
    1. **attacking**: an opponent checker on the bar or 2+ opponent blots on points 1..12 (the mover's side
       of the board), and 3+ points of the mover's home made (2+ checkers);
    2. **priming**: a run of 4+ consecutive made points within 2..12 with an opponent checker behind it
       (on a lower point than the run's lowest, or on the bar);
    3. **holding**: an anchor (2+ mover checkers) in the opponent's home 19..24 and trailing the race by
       20+ pips;
    4. **other**.

    Meant for contact boards that have not crashed (:func:`is_race`, :func:`is_crashed`), where the nets
    route by it; defined for any board of a hitting game (backgammon, short nardy). Pure function of the
    board, a few hundred cycles."""
    pip_m = 25 * b[25]
    pip_o = 25 * b[26]
    for p in range(1, 25):
        v = b[p]
        if v > 0:
            pip_m += p * v
        elif v < 0:
            pip_o -= (25 - p) * v
    back_m = b[25]
    anchors = 0
    for p in range(19, 25):
        if b[p] > 0:
            back_m += b[p]
            if b[p] >= 2:
                anchors += 1
    if back_m == 0 or 20 * (pip_o - pip_m) >= 3 * pip_o:
        return 0
    home = 0
    for p in range(1, 7):
        if b[p] >= 2:
            home += 1
    blots_o = 0
    for p in range(1, 13):
        if b[p] == -1:
            blots_o += 1
    if (b[26] > 0 or blots_o >= 2) and home >= 3:
        return 1
    # the opponent's rearmost checker (0: on the bar); a run of made points starting above it primes it
    lowest_o = 25
    if b[26] > 0:
        lowest_o = 0
    else:
        for p in range(1, 25):
            if b[p] < 0:
                lowest_o = p
                break
    run = 0
    for p in range(2, 13):
        if b[p] >= 2:
            run += 1
            if run >= 4 and lowest_o < p - run + 1:
                return 2
        else:
            run = 0
    if anchors >= 1 and pip_m - pip_o >= 20:
        return 3
    return 4


@njit(cache=True, nogil=True)
def game_plans(boards):
    """int8[n]: :func:`game_plan` of each board of ``boards`` (int8[n, 28], each from its mover's view)."""
    n = boards.shape[0]
    out = np.empty(n, np.int8)
    for i in range(n):
        out[i] = game_plan(boards[i])
    return out


#: Long nardy's plan classes of a contact board (:func:`long_plan`), by number: each may have its own net
#: (:attr:`nardy.engine.net.Net.plans` of a long nardy net).
LONG_PLAN_NAMES = ("opening", "blocking", "blocked", "leading", "other")


def plan_names(game: str) -> tuple:
    """The names of the plan classes of ``game``'s contact boards, by number: :data:`LONG_PLAN_NAMES` for long
    nardy (:func:`long_plan`), :data:`PLAN_NAMES` for the hitting games (:func:`game_plan`)."""
    return LONG_PLAN_NAMES if game == "long" else PLAN_NAMES


@njit(cache=True, nogil=True)
def long_plan(b):
    """The plan class of the side on roll (the mover) on a long nardy board ``b`` (int8[28], mover's view: mover
    checkers > 0 on its own points ``b[1..24]``, head 24, home 1..6, moving down; an opponent checker on its
    own point ``q`` is at ``b[q + 12]`` for ``q <= 12`` and ``b[q - 12]`` above, < 0; ``b[0]``/``b[27]``
    checkers off). A **block** of a side is a run of consecutive points it holds (one checker holds a point in
    long nardy, RULES.md "Long nardy") on the other side's path with at least one of the other side's checkers
    behind it (still to pass it). The first rule that holds gives the class:

    0. **opening**: 8+ mover checkers still on its head;
    1. **blocking**: the mover's longest block is 4+ points and at least as long as the opponent's;
    2. **blocked**: the opponent's longest block is 4+ points;
    3. **leading**: the mover leads the race by at least 10% of the opponent's pips
       (``10 * (opp - mover) >= opp``; pips: a checker on its own point ``p`` has ``p`` to go);
    4. **other**.

    Meant for contact boards (:func:`is_race` false), where the nets route by it; on 20,000 positions of the
    shipped net's self-play (contact only) the classes were 21%, 27%, 24%, 8% and 21%. Pure function of the
    board, a few hundred cycles."""
    pip_m, pip_o = _core.pip_counts(b, False)
    if b[24] >= 8:
        return 0
    # the mover's blocks on the opponent's path (its own points q = 24 .. 1)
    block_m = 0
    run = 0
    behind = False
    for q in range(24, 0, -1):
        v = b[q + 12] if q <= 12 else b[q - 12]
        if v > 0:
            run += 1
            if behind and run > block_m:
                block_m = run
        else:
            run = 0
            if v < 0:
                behind = True
    # the opponent's blocks on the mover's path (p = 24 .. 1)
    block_o = 0
    run = 0
    behind = False
    for p in range(24, 0, -1):
        v = b[p]
        if v < 0:
            run += 1
            if behind and run > block_o:
                block_o = run
        else:
            run = 0
            if v > 0:
                behind = True
    if block_m >= 4 and block_m >= block_o:
        return 1
    if block_o >= 4:
        return 2
    if 10 * (pip_o - pip_m) >= pip_o:
        return 3
    return 4


@njit(cache=True, nogil=True)
def board_plan(b, hitting):
    """The plan class of board ``b`` (mover's view): :func:`game_plan` for the hitting games, :func:`long_plan`
    for long nardy (``hitting`` false)."""
    if hitting:
        return game_plan(b)
    return long_plan(b)

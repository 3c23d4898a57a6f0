"""Compiled kernels of the bots (numba): input encoding, the MLP, outcomes, self-play TD(lambda), matches.

Everything here works on ``int8[28]`` boards in the layout of :mod:`nardy.rules._movegen`, from the view of the
side **on roll** (the mover). Game codes: ``GAME_BG = 0`` (backgammon), ``GAME_SHORT = 1`` (short nardy),
``GAME_LONG = 2`` (long nardy).

Outputs of an evaluator (``K`` floats, all from the mover's view, cumulative like GNU Backgammon's):
``[P(win), P(win at level >= 2), ..., P(win at level L), P(lose at level >= 2), ..., P(lose at level L)]``
where the levels are the game's result levels (docs/rules.md scoring): backgammon single/gammon/backgammon
(K = 5), short nardy oyun/mars/home mars/koks (K = 7), long nardy oyn/mars (K = 3).

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

GAME_BG, GAME_SHORT, GAME_LONG = 0, 1, 2
N_LEVELS = np.array([3, 4, 2], np.int64)
N_OUTPUTS = np.array([5, 7, 3], np.int64)
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
MAX_GAME_PLIES = 3000

#: Policies for :func:`play_matches`: a net (greedy at 0-ply), uniform random, the simple heuristic.
POLICY_NET, POLICY_RANDOM, POLICY_HEURISTIC = 0, 1, 2


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
def encode_batch(boards, game, first_m, first_o):
    """Inputs of many boards: float32[n, N_INPUTS]; ``first_m``/``first_o``: bool[n]."""
    n = boards.shape[0]
    out = np.empty((n, N_INPUTS), np.float32)
    for i in range(n):
        encode(boards[i], game, first_m[i], first_o[i], out[i])
    return out


@njit(cache=True, nogil=True, inline="always")
def _sigmoid(z):
    if z < -40.0:
        return 0.0
    if z > 40.0:
        return 1.0
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True, nogil=True)
def forward(W1, b1, W2, b2, x, h, o):
    """One MLP evaluation on inputs ``x``: hidden ``h = sigmoid(x @ W1 + b1)``, ``o = sigmoid(h @ W2 + b2)``.

    W1: float32[N_INPUTS, H], W2: float32[H, K]. Zero inputs are skipped (the inputs are sparse).
    """
    H = b1.shape[0]
    K = b2.shape[0]
    acc = b1.copy()
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                acc[j] += xi * W1[i, j]
    for j in range(H):
        h[j] = _sigmoid(acc[j])
    for k in range(K):
        z = b2[k]
        for j in range(H):
            z += h[j] * W2[j, k]
        o[k] = _sigmoid(z)


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


@njit(cache=True, nogil=True)
def game_params(game):
    """(hitting, strict, head_mode) of a game with default options."""
    if game == GAME_BG:
        return True, False, -1
    if game == GAME_SHORT:
        return True, True, -1
    return False, False, _core.HEAD_BLOCK


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
    board, d1, d2, first_m, first_o, game, policy, W1, b1, W2, b2, values, tb, ts, tn, tk, x, h, o, fo, chosen_o
):
    """Pick a play for the mover: writes the chosen result board into tb[0]; returns the number of plays.

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
                forward(W1, b1, W2, b2, x, h, o)
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
    """Scratch for :func:`_choose` with a net of ``H`` hidden units and ``K`` outputs:
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
                board, d1, d2, fm, fopp, game, POLICY_NET, W1, b1, W2, b2, values, tb, ts, tn, tk, x, h, o, fo, chosen
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


@njit(cache=True, nogil=True, inline="always")
def sgd_step(W1, b1, W2, b2, x, target, lr, h, o, dout, dh):
    """One gradient step (weights in place) of the cross-entropy between the sigmoid outputs for inputs ``x``
    and ``target`` (float32[K]); ``h``, ``o``, ``dout``, ``dh`` are scratch (float32[H], [K], [K], [H]).

    Returns:
        The squared error of the outputs before the step (summed over the K outputs).
    """
    H = b1.shape[0]
    K = b2.shape[0]
    forward(W1, b1, W2, b2, x, h, o)
    se = 0.0
    for k in range(K):
        dout[k] = target[k] - o[k]
        se += dout[k] * dout[k]
    for j in range(H):
        acc = 0.0
        for k in range(K):
            acc += dout[k] * W2[j, k]
        dh[j] = acc * h[j] * (1.0 - h[j])
    for j in range(H):
        for k in range(K):
            W2[j, k] += lr * dout[k] * h[j]
    for k in range(K):
        b2[k] += lr * dout[k]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                W1[i, j] += lr * xi * dh[j]
    for j in range(H):
        b1[j] += lr * dh[j]
    return se


@njit(cache=True, nogil=True)
def play_matches(
    game, start, values, n_games, seed, pol_a, Wa1, ba1, Wa2, ba2, pol_b, Wb1, bb1, Wb2, bb2, noise_a, noise_b
):
    """Play ``n_games`` cubeless games between A and B (A moves first in even games; the dice of game 2i+1
    repeat those of game 2i with the sides swapped: duplicate dice). Returns float64[n_games] of A's points.

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
    ha = np.zeros(ba1.shape[0], np.float32)
    hb = np.zeros(bb1.shape[0], np.float32)
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


@njit(cache=True, nogil=True)
def forward_batch(W1, b1, W2, b2, x):
    """MLP outputs (float32[n, K], not sanitised) of inputs ``x`` (float32[n, N_INPUTS]), skipping zeros."""
    n = x.shape[0]
    H = b1.shape[0]
    K = b2.shape[0]
    out = np.empty((n, K), np.float32)
    h = np.empty(H, np.float32)
    for r in range(n):
        forward(W1, b1, W2, b2, x[r], h, out[r])
    return out


@njit(cache=True, nogil=True, inline="always")
def _first_layer(W1, b1, x, acc):
    """``acc <- x @ W1 + b1`` for one row, zero inputs skipped (the sums of :func:`forward`, in its order)."""
    for j in range(b1.shape[0]):
        acc[j] = b1[j]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(b1.shape[0]):
                acc[j] += xi * W1[i, j]


@njit(cache=True, nogil=True)
def hidden_batch(W1, b1, x):
    """Hidden pre-activations ``x @ W1 + b1`` (float32[n, H]) of inputs ``x`` (float32[n, N_INPUTS]), skipping
    zero inputs (the inputs are sparse); the sigmoid is applied by the caller (vectorised numpy ``exp``)."""
    out = np.empty((x.shape[0], b1.shape[0]), np.float32)
    for r in range(x.shape[0]):
        _first_layer(W1, b1, x[r], out[r])
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


@njit(cache=True, nogil=True)
def hidden_boards(W1, b1, boards, game, first_m, first_o):
    """Negated hidden pre-activations ``-clip(x @ W1 + b1, -40, 40)`` (float32[n, H]) of boards
    (int8[n, 28], side on roll's view; ``first_m``/``first_o``: bool[n]), encoding each row into a small
    scratch instead of materialising ``x`` (float32[n, N_INPUTS]): the same sums, in the same order, as
    :func:`hidden_batch` of :func:`encode_batch`, without the memory traffic of ``x``. The caller finishes
    the sigmoid ``1 / (1 + exp(.))`` with numpy (vectorised, as ``nardy.engine.net._sigmoid_inplace``) and
    passes the result to :func:`output_batch`."""
    n = boards.shape[0]
    H = b1.shape[0]
    out = np.empty((n, H), np.float32)
    x = np.empty(N_INPUTS, np.float32)
    for r in range(n):
        encode(boards[r], game, first_m[r], first_o[r], x)
        acc = out[r]
        _first_layer(W1, b1, x, acc)
        for j in range(H):
            v = acc[j]
            if v < -40.0:
                v = np.float32(-40.0)
            elif v > 40.0:
                v = np.float32(40.0)
            acc[j] = -v
    return out


#: Rows of a block in :func:`_second_layer_rows`: the product runs across rows, one SIMD lane a row
#: (passed as an argument: a block size known when compiling is unrolled into scalar code instead).
ROW_BLOCK = 32


@njit(cache=True, nogil=True)
def _second_layer_rows(W2, b2, h, out, B):
    """``out <- h @ W2 + b2`` for the rows of ``h`` (float32[n, H]): each row's sums in one fixed order
    (``b2[k]``, then ``+ h[j] * W2[j, k]`` for ``j = 0, 1, ...``, no fused multiply-add, as :func:`forward`
    sums), so a row's bits do not depend on the other rows of its batch, but the ``B`` rows of a block are
    summed side by side (from a transposed copy of the block), which vectorises across rows; a row's ``K``
    (3-7) outputs alone do not."""
    n, H = h.shape
    K = b2.shape[0]
    hT = np.zeros((H, B), np.float32)
    acc = np.empty(B, np.float32)
    for r0 in range(0, n, B):
        m = min(B, n - r0)
        for t in range(m):
            hr = h[r0 + t]
            for j in range(H):
                hT[j, t] = hr[j]
        for k in range(K):
            bk = b2[k]
            for t in range(B):
                acc[t] = bk
            for j in range(H):
                w = W2[j, k]
                hj = hT[j]
                for t in range(B):
                    acc[t] += hj[t] * w
            for t in range(m):
                out[r0 + t, k] = acc[t]


@njit(cache=True, nogil=True)
def output_batch(W2, b2, h):
    """Output pre-activations ``h @ W2 + b2`` (float32[n, K]) of hidden activations ``h`` (float32[n, H])."""
    out = np.empty((h.shape[0], b2.shape[0]), np.float32)
    _second_layer_rows(W2, b2, h, out, ROW_BLOCK)
    return out


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

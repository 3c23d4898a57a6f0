"""One-sided bearoff database: exact bear-off distributions for up to 15 checkers on the 6 home points.

A *one-sided bearoff position* is one side's checkers, all in its home board, seen from that side: a
6-sequence ``counts6`` where ``counts6[k]`` is the number of checkers on the side's own point ``k + 1``
(points 1..6). At most 15 checkers in all; the side's other checkers are borne off. The position with no
checkers is the finished side.

For every such position the database holds, as in GNU Backgammon's one-sided bearoff database
(``gnubg_os0.bd``, built by gnubg's ``makebearoff``):

- the distribution of the number of rolls needed to bear off all checkers, the side choosing, for every
  roll, the play that minimises the expected number of rolls (``rolls``);
- the distribution of the number of rolls until the side has borne off its first checker (gnubg's
  "gammon" distribution), the side choosing the play that minimises the expected number of those rolls
  (``first_off``). A side with fewer than 15 checkers on the board has already borne one off: 0 rolls.
- the means of both.

The moves follow docs/rules.md rule 5 (the standard bear-off, as GNU Backgammon plays it): a die bears off a
checker from the point of its number; a die larger than the highest occupied point bears off from the
highest occupied point; if the die's point is empty and higher points are occupied, the die moves a
checker inside home. Doubles play four times; the side stops when its last checker is off (rule 6).
All checkers are home, so every die can always be played.

Short nardy's strict bear-off (docs/rules.md, "Short nardy bear-off": a checker that has already moved this turn
may not then be borne off by a die larger than its point; on by default for short nardy) gives a second
database, built the same way but with the plays of the rules engine (:func:`nardy.rules._movegen.batch_results` with
``strict=True``, so the maximum-dice and larger-die rules apply when a die cannot be played). It is a
separate file (``strict=True`` in :func:`default_path`, :func:`build_database` and :func:`load_database`);
the bots use it for short nardy. Example: one checker on the 5-point bears off in one roll with 31 of the
36 rolls by the standard rule, but with 24 under the strict one (2-4, 3-4, 2-2, 3-3 and 4-4 no longer do).

Positions are indexed combinatorially (:func:`bearoff_index`), in the order GNU Backgammon uses for its
bearoff ids: by number of checkers, then lexicographically on the sorted list of the checkers' points.
Index 0 is the empty position and gnubg's id ``i`` is index ``i``. Every play leads to a position of
smaller index, so the database is built in index order.

Run ``nardy bearoff build`` (:mod:`nardy.cli.bearoff`) or :func:`build_database` to build it into the cache
directory (``$NARDY_CACHE_DIR`` if set, else ``~/.cache/nardy/``); :func:`load_database` loads it,
building it first when the file is missing.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from numba import njit

from ..rules import _movegen as _core
from ..rules.errors import InvalidPositionError

__all__ = [
    "N_POSITIONS",
    "MAX_CHECKERS",
    "MAX_ROLLS",
    "BearoffDatabase",
    "bearoff_index",
    "bearoff_position",
    "build_database",
    "load_database",
    "default_path",
    "validate_counts",
    "race_win_probability",
    "race_gammon_probabilities",
]

#: Checkers a one-sided bearoff position may hold.
MAX_CHECKERS = 15
#: Number of positions: ways to place 0..15 checkers on 6 points, C(21, 6).
N_POSITIONS = 54264
#: Length of the dense distributions: entry ``n`` is P(exactly n rolls), n = 0..MAX_ROLLS-1.
MAX_ROLLS = 32
#: File format version (part of the file name).
FORMAT_VERSION = 1
#: Entries below this at either end of a distribution are dropped from the file (the lost mass
#: is below 1e-9 per position, far under float32 resolution of the total).
TRIM = 1e-11

_WORK_ROLLS = 48  # width used while building; checked to be all zero beyond MAX_ROLLS


# ----------------------------------------------------------------------------------------------
# Indexing
# ----------------------------------------------------------------------------------------------


def _binomials(n: int = 32) -> np.ndarray:
    c = np.zeros((n, n), dtype=np.int64)
    for i in range(n):
        c[i, 0] = 1
        for k in range(1, i + 1):
            c[i, k] = c[i - 1, k - 1] + c[i - 1, k]
    return c


_BINOM = _binomials()


@njit(cache=True, nogil=True)
def _index_njit(arr6):
    """Index of the position ``arr6`` (6 ints: checkers on points 1..6). No validation (numba code)."""
    n = 0
    for p in range(6):
        n += arr6[p]
    idx = _BINOM[n + 5, 6]  # positions with fewer checkers
    j = 1  # 1-based position, in the sorted list of points, of the next checker
    prev = 1  # the smallest point the next checker may stand on
    for p in range(1, 7):
        cp = arr6[p - 1]
        if cp > 0:
            m = n - j
            for v in range(prev, p):
                idx += _BINOM[6 - v + m, m]
            j += cp
            prev = p
    return idx


@njit(cache=True, nogil=True)
def board_indices(boards, hitting):
    """Database indices ``(mover, opponent)`` (int64[n] each) of bear-off boards (int8[n, 28], the mover's
    view; each side's checkers on its own points 1..6): the mover's points 1..6 are board points 1..6, the
    opponent's own 1..6 are board points 24..19 in the hitting games and 13..18 in long nardy. No
    validation (the caller checks :func:`nardy.engine._kernels.bearoff_mask` first)."""
    n = boards.shape[0]
    im = np.empty(n, np.int64)
    io = np.empty(n, np.int64)
    m6 = np.zeros(6, np.int64)
    o6 = np.zeros(6, np.int64)
    for i in range(n):
        b = boards[i]
        for p in range(6):
            m6[p] = max(b[1 + p], 0)
            o6[p] = max(-b[24 - p], 0) if hitting else max(-b[13 + p], 0)
        im[i] = _index_njit(m6)
        io[i] = _index_njit(o6)
    return im, io


@njit(cache=True)
def _positions_table_njit():
    out = np.zeros((54264, 6), dtype=np.int8)
    a = np.zeros(16, dtype=np.int64)
    row = 1
    for n in range(1, 16):
        for i in range(n):
            a[i] = 1
        while True:
            for i in range(n):
                out[row, a[i] - 1] += 1
            row += 1
            i = n - 1
            while i >= 0 and a[i] == 6:
                i -= 1
            if i < 0:
                break
            a[i] += 1
            for k in range(i + 1, n):
                a[k] = a[i]
    return out


_POSITIONS: np.ndarray | None = None


def _positions() -> np.ndarray:
    global _POSITIONS
    if _POSITIONS is None:
        t = _positions_table_njit()
        t.setflags(write=False)
        _POSITIONS = t
    return _POSITIONS


def validate_counts(counts6) -> np.ndarray:
    """``counts6`` as the int8 array of a one-sided bearoff position: 6 non-negative whole numbers, the checkers
    on the side's own points 1..6, at most :data:`MAX_CHECKERS` in all.

    Raises:
        nardy.rules.errors.InvalidPositionError: anything else (the message quotes ``counts6``).
    """
    try:
        arr = np.asarray(counts6)
        ok = arr.shape == (6,) and (
            arr.dtype.kind in "iu"
            or (arr.dtype.kind == "f" and bool(np.all(np.isfinite(arr))) and bool(np.all(arr == np.round(arr))))
        )
    except Exception:  # ragged input and the like
        ok = False
    if ok:
        arr = arr.astype(np.int64)
        ok = bool(np.all(arr >= 0)) and int(arr.sum()) <= MAX_CHECKERS
    if not ok:
        raise InvalidPositionError(
            f"bad bearoff position {counts6!r}: expected 6 non-negative integer checker counts "
            f"(own points 1..6) totalling at most {MAX_CHECKERS}"
        )
    return arr.astype(np.int8)


def bearoff_index(counts6) -> int:
    """Index (0..54263) of a one-sided bearoff position.

    ``counts6``: 6 non-negative integers, the checkers on the side's own points 1..6 (the side's own view),
    at most 15 in all. The order is GNU Backgammon's bearoff id order (number of checkers, then the sorted
    list of checker points, lexicographically); the empty position is 0.

    Raises :class:`nardy.rules.errors.InvalidPositionError` (quoting the input) for anything else.
    For numba code, ``_index_njit(arr6)`` does the same on an int array without validation.
    """
    return int(_index_njit(validate_counts(counts6)))


def bearoff_position(index) -> tuple[int, ...]:
    """The position (checker counts on own points 1..6) with the given index; inverse of :func:`bearoff_index`.

    Raises :class:`nardy.rules.errors.InvalidPositionError` (quoting the input) unless ``0 <= index < 54264``.
    """
    try:
        ok = int(index) == index and 0 <= int(index) < N_POSITIONS
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise InvalidPositionError(f"bad bearoff index {index!r}: expected an integer in 0..{N_POSITIONS - 1}")
    return tuple(int(x) for x in _positions()[int(index)])


# ----------------------------------------------------------------------------------------------
# Plays and the build
# ----------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _can_step(c, p, d):
    """Whether die ``d`` may move/bear off a checker from point ``p`` (1..6) of counts ``c`` (rule 5)."""
    if c[p - 1] == 0:
        return False
    if p >= d:
        return True
    for q in range(p + 1, 7):  # p < d: only from the highest occupied point
        if c[q - 1] > 0:
            return False
    return True


@njit(cache=True, nogil=True)
def _do_step(c, p, d):
    c[p - 1] -= 1
    if p > d:
        c[p - d - 1] += 1


@njit(cache=True, nogil=True)
def _undo_step(c, p, d):
    c[p - 1] += 1
    if p > d:
        c[p - d - 1] -= 1


@njit(cache=True, nogil=True)
def _is_empty(c):
    for p in range(6):
        if c[p] > 0:
            return False
    return True


@njit(cache=True, nogil=True)
def _plays_njit(c, d1, d2, out):
    """Write into ``out`` the indices of the positions every legal play of ``d1``-``d2`` leads to.

    ``c`` (int8[6], modified and restored) must be non-empty. Returns how many were written; a position may
    appear more than once. Doubles are enumerated with non-increasing source points (any order of equal
    dice can be rearranged so, with the same result), at most 126 sequences; ``out`` needs 128 slots.
    """
    k = 0
    if d1 != d2:
        for order in range(2):
            a = d1 if order == 0 else d2
            b = d2 if order == 0 else d1
            for p in range(6, 0, -1):
                if not _can_step(c, p, a):
                    continue
                _do_step(c, p, a)
                if _is_empty(c):
                    out[k] = 0
                    k += 1
                else:
                    for q in range(6, 0, -1):
                        if _can_step(c, q, b):
                            _do_step(c, q, b)
                            out[k] = _index_njit(c)
                            k += 1
                            _undo_step(c, q, b)
                _undo_step(c, p, a)
        return k
    d = d1
    for p1 in range(6, 0, -1):
        if not _can_step(c, p1, d):
            continue
        _do_step(c, p1, d)
        if _is_empty(c):
            out[k] = 0
            k += 1
        else:
            for p2 in range(p1, 0, -1):
                if not _can_step(c, p2, d):
                    continue
                _do_step(c, p2, d)
                if _is_empty(c):
                    out[k] = 0
                    k += 1
                else:
                    for p3 in range(p2, 0, -1):
                        if not _can_step(c, p3, d):
                            continue
                        _do_step(c, p3, d)
                        if _is_empty(c):
                            out[k] = 0
                            k += 1
                        else:
                            for p4 in range(p3, 0, -1):
                                if _can_step(c, p4, d):
                                    _do_step(c, p4, d)
                                    out[k] = _index_njit(c)
                                    k += 1
                                    _undo_step(c, p4, d)
                        _undo_step(c, p3, d)
                _undo_step(c, p2, d)
        _undo_step(c, p1, d)
    return k


@njit(cache=True, nogil=True)
def _engine_plays_njit(c, d1, d2, strict, board, dice, res, offs, out):
    """Like :func:`_plays_njit`, but with the rules engine's plays (:func:`nardy.rules._movegen.batch_results`, the
    hitting-game layout, ``strict`` bear-off as docs/rules.md's short nardy rule); ``board`` int8[1, 28], ``dice``
    int64[1, 2], ``res`` int8[M, 28] and ``offs`` int64[2] are scratch. Returns how many were written."""
    board[0, :] = 0
    total = 0
    for p in range(6):
        board[0, p + 1] = c[p]
        total += c[p]
    board[0, 0] = 15 - total  # the mover's checkers already off
    board[0, 24] = -15  # the opponent, out of the way on its own 1-point
    dice[0, 0] = d1
    dice[0, 1] = d2
    first = np.zeros(1, np.bool_)
    n = _core.batch_results(board, dice, True, strict, first, -1, res, offs)
    if n < 0 or n > out.shape[0]:
        raise RuntimeError("bearoff: too many plays for the scratch buffers")
    m6 = np.zeros(6, np.int8)
    for j in range(n):
        for p in range(6):
            m6[p] = res[j, p + 1]
        out[j] = _index_njit(m6)
    return n


@njit(cache=True, nogil=True)
def _build_njit(positions, width, strict=False):
    n_pos = positions.shape[0]
    mean = np.zeros(n_pos)
    dist = np.zeros((n_pos, width))
    fmean = np.zeros(n_pos)
    fdist = np.zeros((n_pos, width))
    dist[0, 0] = 1.0
    fdist[0, 0] = 1.0
    out = np.zeros(128, dtype=np.int64)
    c = np.zeros(6, dtype=np.int8)
    board = np.zeros((1, 28), np.int8)
    dice = np.zeros((1, 2), np.int64)
    res = np.zeros((512, 28), np.int8)
    offs = np.zeros(2, np.int64)
    for i in range(1, n_pos):
        total = 0
        for p in range(6):
            c[p] = positions[i, p]
            total += c[p]
        if total < 15:
            fdist[i, 0] = 1.0  # a checker is already off
        m = 0.0
        fm = 0.0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = 1.0 / 36.0 if d1 == d2 else 2.0 / 36.0
                if strict:
                    k = _engine_plays_njit(c, d1, d2, strict, board, dice, res, offs, out)
                else:
                    k = _plays_njit(c, d1, d2, out)
                best = out[0]
                for j in range(1, k):
                    if mean[out[j]] < mean[best]:
                        best = out[j]
                m += w * mean[best]
                for r in range(width - 1):
                    dist[i, r + 1] += w * dist[best, r]
                if total == 15:
                    fbest = out[0]
                    for j in range(1, k):
                        if fmean[out[j]] < fmean[fbest]:
                            fbest = out[j]
                    fm += w * fmean[fbest]
                    for r in range(width - 1):
                        fdist[i, r + 1] += w * fdist[fbest, r]
        mean[i] = 1.0 + m
        if total == 15:
            fmean[i] = 1.0 + fm
    return mean, dist, fmean, fdist


def _pack(dist: np.ndarray):
    """Trim each row to the entries >= TRIM; return (start int8, length int8, flat float32 data)."""
    d32 = dist.astype(np.float32)
    keep = d32 >= TRIM
    any_keep = keep.any(axis=1)
    start = np.where(any_keep, keep.argmax(axis=1), 0)
    last = np.where(any_keep, d32.shape[1] - 1 - keep[:, ::-1].argmax(axis=1), -1)
    length = last - start + 1
    data = np.concatenate([d32[i, start[i] : start[i] + length[i]] for i in range(d32.shape[0])])
    return start.astype(np.int8), length.astype(np.int8), data.astype(np.float32)


def _unpack(start, length, data, width=MAX_ROLLS) -> np.ndarray:
    n = start.shape[0]
    out = np.zeros((n, width), dtype=np.float32)
    offsets = np.concatenate([[0], np.cumsum(length.astype(np.int64))])
    for i in range(n):
        s, ln = int(start[i]), int(length[i])
        out[i, s : s + ln] = data[offsets[i] : offsets[i] + ln]
    return out


def cache_dir() -> Path:
    """The nardy cache directory: ``$NARDY_CACHE_DIR`` if set, else ``~/.cache/nardy``."""
    env = os.environ.get("NARDY_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "nardy"


#: Revision of the strict rule's plays the strict database is built from: 2 since a checker that moved this
#: turn and joined unmoved ones is no longer borne off by a larger die in their place (which changed the
#: figures of 53983 of the 54264 positions, by up to 0.058 rolls); a file of an older revision is not used.
STRICT_REVISION = 2


def default_path(strict: bool = False) -> Path:
    """Where the database file lives by default: ``<cache dir>/bearoff1_v<FORMAT_VERSION>.npz``, or
    ``bearoff1_strict_r<STRICT_REVISION>_v<FORMAT_VERSION>.npz`` for short nardy's strict bear-off."""
    if strict:
        return cache_dir() / f"bearoff1_strict_r{STRICT_REVISION}_v{FORMAT_VERSION}.npz"
    return cache_dir() / f"bearoff1_v{FORMAT_VERSION}.npz"


def build_database(path=None, strict: bool = False) -> Path:
    """Compute the one-sided bearoff database and write it as a compressed ``.npz``; return the path.

    ``strict``: short nardy's strict bear-off (see the module docstring) instead of the standard rule.
    ``path`` defaults to :func:`default_path` (the cache directory). The file holds, per position index,
    the trimmed float32 distributions of rolls to bear off all checkers and of rolls to bear off the
    first one, both means (float32) and the rule. Takes a few seconds plus numba compilation on first use.
    """
    path = Path(path) if path is not None else default_path(strict)
    positions = _positions()
    mean, dist, fmean, fdist = _build_njit(positions, _WORK_ROLLS, bool(strict))
    for name, d in (("rolls", dist), ("first_off", fdist)):
        if np.any(d[:, MAX_ROLLS:] != 0.0):
            raise RuntimeError(f"bearoff {name} distribution exceeds {MAX_ROLLS} rolls")
    rs, rl, rd = _pack(dist)
    fs, fl, fd = _pack(fdist)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.npz")
    np.savez_compressed(
        tmp,
        version=np.int32(FORMAT_VERSION),
        rolls_start=rs,
        rolls_length=rl,
        rolls_data=rd,
        first_off_start=fs,
        first_off_length=fl,
        first_off_data=fd,
        mean=mean.astype(np.float32),
        first_off_mean=fmean.astype(np.float32),
        strict=np.bool_(strict),
    )
    os.replace(tmp, path)
    _LOADED.pop(str(path.resolve()), None)
    return path


# ----------------------------------------------------------------------------------------------
# The loaded database
# ----------------------------------------------------------------------------------------------


class BearoffDatabase:
    """The loaded one-sided bearoff database (see the module docstring for the meaning).

    Numpy arrays, indexed by :func:`bearoff_index` (54264 rows), for vectorised use:

    - ``positions``: int8 (54264, 6), checker counts on own points 1..6 of each index;
    - ``rolls``: float32 (54264, 32), ``rolls[i, n]`` = P(bearing off all checkers takes exactly n rolls);
    - ``first_off``: float32 (54264, 32), P(the first checker is off after exactly n rolls); row = [1, 0, ...]
      for positions with fewer than 15 checkers;
    - ``mean``, ``first_off_mean``: float32 (54264,), the expected numbers of rolls.

    The arrays are read-only. Methods take ``counts6`` (own points 1..6) and raise
    :class:`nardy.rules.errors.InvalidPositionError` for bad counts.
    """

    def __init__(self, rolls, first_off, mean, first_off_mean, path=None, strict: bool = False):
        self.positions = _positions()
        #: Whether the figures follow short nardy's strict bear-off rather than the standard rule.
        self.strict = bool(strict)
        self.rolls = rolls
        self.first_off = first_off
        self.mean = mean
        self.first_off_mean = first_off_mean
        self.path = path
        for a in (rolls, first_off, mean, first_off_mean):
            a.setflags(write=False)

    @classmethod
    def load(cls, path) -> BearoffDatabase:
        with np.load(path) as z:
            if int(z["version"]) != FORMAT_VERSION:
                raise RuntimeError(f"bearoff database {path} has format {int(z['version'])}, expected {FORMAT_VERSION}")
            rolls = _unpack(z["rolls_start"], z["rolls_length"], z["rolls_data"])
            first = _unpack(z["first_off_start"], z["first_off_length"], z["first_off_data"])
            strict = bool(z["strict"]) if "strict" in z.files else False
            return cls(rolls, first, z["mean"].copy(), z["first_off_mean"].copy(), Path(path), strict)

    def rolls_distribution(self, counts6) -> np.ndarray:
        """float32 array (32,): P(bearing off all checkers of ``counts6`` takes exactly n rolls), n = 0..31."""
        return self.rolls[bearoff_index(counts6)]

    def first_off_distribution(self, counts6) -> np.ndarray:
        """float32 array (32,): P(the first checker is off after exactly n rolls), playing to hasten it.

        With fewer than 15 checkers in ``counts6`` one is already off: [1, 0, 0, ...].
        """
        return self.first_off[bearoff_index(counts6)]

    def mean_rolls(self, counts6) -> float:
        """Expected number of rolls to bear off all checkers of ``counts6``, playing to minimise it."""
        return float(self.mean[bearoff_index(counts6)])

    def first_off_mean_rolls(self, counts6) -> float:
        """Expected number of rolls until the first checker is off (0 with fewer than 15 checkers)."""
        return float(self.first_off_mean[bearoff_index(counts6)])

    def race_win_probability(self, mover_counts6, opponent_counts6) -> float:
        """See :func:`race_win_probability`."""
        a = self.rolls_distribution(mover_counts6).astype(np.float64)
        b = self.rolls_distribution(opponent_counts6).astype(np.float64)
        return _win_prob(a, b)

    def race_gammon_probabilities(self, mover_counts6, opponent_counts6) -> tuple[float, float]:
        """See :func:`race_gammon_probabilities`."""
        ia, ib = bearoff_index(mover_counts6), bearoff_index(opponent_counts6)
        a, b = self.rolls[ia].astype(np.float64), self.rolls[ib].astype(np.float64)
        ga, gb = self.first_off[ia].astype(np.float64), self.first_off[ib].astype(np.float64)
        # mover gammons: mover finishes on its n-th roll, opponent's first checker not off in n-1 rolls
        mover = _win_prob(a, gb)
        # opponent gammons: opponent finishes on its n-th roll, mover's first not off in n rolls
        opp = float(np.dot(b, 1.0 - np.cumsum(ga)))
        return mover, max(opp, 0.0)


def _win_prob(a: np.ndarray, b: np.ndarray) -> float:
    """P(X <= Y) for independent X ~ a, Y ~ b (distributions over n = 0..)."""
    tail_b = np.cumsum(b[::-1])[::-1]  # P(Y >= n)
    return float(min(max(np.dot(a, tail_b), 0.0), 1.0))


_LOADED: dict[str, BearoffDatabase] = {}


def load_database(path=None, strict: bool = False) -> BearoffDatabase:
    """Load the bearoff database (cached per path), building it first if the file is missing.

    ``strict``: short nardy's strict bear-off instead of the standard rule (a separate file). ``path``
    defaults to :func:`default_path` (``$NARDY_CACHE_DIR`` or ``~/.cache/nardy``). Raises ValueError when
    the file at ``path`` holds the other rule's figures.
    """
    path = Path(path) if path is not None else default_path(strict)
    key = str(path.resolve())
    db = _LOADED.get(key)
    if db is None:
        if not path.exists():
            build_database(path, strict=strict)
        db = BearoffDatabase.load(path)
        _LOADED[key] = db
    if db.strict != bool(strict):
        want = "strict" if strict else "standard"
        have = "strict" if db.strict else "standard"
        raise ValueError(f"bearoff database {path} is for the {have} bear-off, not the {want} one")
    return db


def race_win_probability(mover_counts6, opponent_counts6) -> float:
    """Probability that the mover (on roll) bears off all its checkers first, in a pure bear-off race.

    Both arguments are one-sided bearoff positions, each in its own side's view (own points 1..6). The two
    sides' roll counts are taken as independent, each side playing to minimise its expected rolls (GNU
    Backgammon's one-sided approximation): P(X_mover <= X_opponent). A side with no checkers has already
    borne off: 1.0 if the mover has none, else 0.0 if the opponent has none. Raises
    :class:`nardy.rules.errors.InvalidPositionError` for bad counts. Uses :func:`load_database`.
    """
    return load_database().race_win_probability(mover_counts6, opponent_counts6)


def race_gammon_probabilities(mover_counts6, opponent_counts6) -> tuple[float, float]:
    """``(P(mover wins a gammon), P(opponent wins a gammon))`` in a pure bear-off race, mover on roll.

    A gammon: the winner bears off all its checkers before the loser has borne off one (the loser has all
    15 on the board). Combines one side's all-off distribution with the other's first-off distribution,
    independently (each distribution for its own optimal play, as gnubg does). 0.0 for a side whose
    opponent has already borne a checker off. Raises :class:`nardy.rules.errors.InvalidPositionError` for bad
    counts. Uses :func:`load_database`.
    """
    return load_database().race_gammon_probabilities(mover_counts6, opponent_counts6)

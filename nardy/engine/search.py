"""N-ply search with candidate filtering, as GNU Backgammon does.

Vocabulary (GNU Backgammon's): a position (side on roll) is evaluated at *0-ply* by the evaluator itself;
at *n-ply* by averaging, over the 21 distinct rolls of the side on roll (weighted 1/36 or 2/36), the value
of the position after that side's best play for the roll, the best play being picked at 0-ply and its
resulting position evaluated at (n-1)-ply. Plays are ranked by the value of their resulting position
(the opponent on roll): ``ply=0`` with the evaluator, ``ply=1`` averaging over the opponent's next roll,
``ply=2`` over the opponent's roll and the mover's next one.

Candidate filtering (gnubg's move filters): the 0-ply ranking keeps at most 8 plays within 0.16 equity of
the best for deeper search; before 2-ply, the 1-ply ranking keeps at most 5 within 0.10 in backgammon
(measured on 1,000 gnubg self-play positions judged by gnubg-nn 2-ply: 2.33 mp/move lost against 2.48 with
3 within 0.06, for 1.6x the time) and at most 3 within 0.06 in the nardy games (whose 2-ply is slower);
before 3-ply (the ``champion`` level), the 2-ply ranking keeps at most 2 within 0.04 in every game (gnubg's
filter before its deepest stage; backgammon, bgsage 4-ply judge, 2,000 gnubg self-play positions: 0.33
mp/move lost against 0.45 at 2-ply, for 8x the time, docs/bots.md "A 3-ply level").

A :class:`Deadline` is checked between stages, between chunks of candidates and, from 3-ply on, inside one
candidate's search (between chunks of the positions searched at 2-ply or deeper), so a search overruns its
time budget by at most one such chunk; a candidate cut short keeps its shallower figures.

All boards are ``int8[28]`` in the layout of :mod:`nardy.rules._movegen`; a *result* is from the mover's view
(after its play, sides not swapped), a *position* to evaluate is from the view of the side on roll.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..rules import _movegen as _core
from ..rules.numbering import head_mode
from . import _kernels as K
from .evaluator import flip_probs, money_equity
from .net import GAME_CODES

__all__ = [
    "Searcher",
    "Candidate",
    "Deadline",
    "ROLLS21",
    "ROLL_WEIGHTS",
    "mirror_boards",
    "FILTER_0PLY",
    "FILTER_1PLY",
    "FILTER_1PLY_BG",
    "FILTER_2PLY",
]

#: The 21 distinct rolls and their probabilities.
ROLLS21 = np.array([(a, b) for a in range(1, 7) for b in range(a, 7)], np.int64)
ROLL_WEIGHTS = np.array([1.0 / 36 if a == b else 2.0 / 36 for a, b in ROLLS21])
#: (max candidates, equity window) kept after 0-ply and after 1-ply.
FILTER_0PLY = (8, 0.16)
FILTER_1PLY = (3, 0.06)
#: The 1-ply filter of backgammon (see the module docstring).
FILTER_1PLY_BG = (5, 0.10)
#: The filter after 2-ply, before a 3-ply stage (every game; see the module docstring).
FILTER_2PLY = (2, 0.04)


def mirror_boards(boards: np.ndarray, hitting: bool) -> np.ndarray:
    """Boards (``int8[n, 28]``) from the other side's view (vectorised :func:`nardy.rules._movegen.mirror_hitting`
    / ``mirror_long``)."""
    b = np.ascontiguousarray(boards, np.int8)
    return _mirror_njit(b, hitting)


@njit(cache=True, nogil=True)
def _mirror_njit(b, hitting):
    n = b.shape[0]
    out = np.empty((n, 28), np.int8)
    for i in range(n):
        out[i, 0] = b[i, 27]
        out[i, 27] = b[i, 0]
        out[i, 25] = b[i, 26]
        out[i, 26] = b[i, 25]
        # mover point p is the other side's point _core.opp_point(p) (25 - p, or ((p + 11) % 24) + 1)
        for p in range(1, 25):
            out[i, _core.opp_point(p, hitting)] = -b[i, p]
    return out


@njit(cache=True, nogil=True)
def _segment_argmax(values, offsets):
    n = offsets.shape[0] - 1
    out = np.empty(n, np.int64)
    for i in range(n):
        best = offsets[i]
        for j in range(offsets[i] + 1, offsets[i + 1]):
            if values[j] > values[best]:
                best = j
        out[i] = best
    return out


class Deadline:
    """When a search must stop: a time budget and/or a cancellation flag (for servers).

    Args:
        seconds: the time budget from now (``time.monotonic`` seconds); ``None`` for no time limit.
        cancel: a :class:`threading.Event` that, once set, stops the search as the time limit would
            (the client went away); ``None`` for none.

    A search that is given a deadline checks it between its stages and between chunks of candidates, and
    returns the best it has found so far: candidates not reached keep their shallower figures. It sets
    :attr:`hit` when it stopped early. Without a deadline a search is never cut short.
    """

    def __init__(self, seconds: float | None = None, cancel: threading.Event | None = None):
        self.end = None if seconds is None else time.monotonic() + float(seconds)
        self.cancel = cancel
        #: True once a search stopped early because of this deadline.
        self.hit = False

    def expired(self) -> bool:
        """True when the time is up or the work was cancelled."""
        if self.cancel is not None and self.cancel.is_set():
            return True
        return self.end is not None and time.monotonic() >= self.end

    def check(self) -> bool:
        """:meth:`expired`, remembering in :attr:`hit` that the search stopped early."""
        if self.expired():
            self.hit = True
            return True
        return False


#: Candidates searched in one batch when a :class:`Deadline` may cut a search short.
DEADLINE_CHUNK = 16
#: Positions searched at 2-ply or deeper in one batch, inside a 3-ply (or deeper) search with a deadline.
DEADLINE_INNER_CHUNK = 7


class _Expired(Exception):
    """Raised inside a deep search when its :class:`Deadline` runs out (caught by :meth:`Searcher.rank`)."""


@dataclass
class Candidate:
    """One ranked play: ``index`` into ``position.legal_plays(dice)``, its probabilities (mover's view,
    float32[K]), equity (cubeless money) and the ply it was last evaluated at."""

    index: int
    probs: np.ndarray
    equity: float
    ply: int


class Searcher:
    """N-ply evaluation and play ranking for one game over an :class:`~nardy.engine.evaluator.Evaluator`.

    Args:
        evaluator: evaluates positions with the side on roll (``evaluate_batch``).
        rules: the game's :class:`~nardy.rules.Rules` (scoring values, bear-off and head options).
    """

    #: Generate repeated positions of a search batch once (:meth:`_expand`) and search long nardy doubles with
    #: a transposition table (:func:`nardy.rules._movegen.generate`); False gives the same figures slower (reference).
    dedupe = True

    def __init__(self, evaluator, rules):
        self.ev = evaluator
        self.rules = rules
        self.game = rules.name
        self.code = GAME_CODES[self.game]
        self.hitting = rules.hitting
        self.strict = rules.strict_bear_off
        self.head_mode = head_mode(rules.head_exception, self.hitting)
        self.values = np.array(rules.scoring, np.float64)
        self.k = int(K.N_OUTPUTS[self.code])
        #: The default move filters of :meth:`rank`.
        self.filters = (FILTER_0PLY, FILTER_1PLY_BG if self.game == "backgammon" else FILTER_1PLY, FILTER_2PLY)

    # ----- helpers ------------------------------------------------------------------------------
    def equity(self, probs) -> np.ndarray:
        return money_equity(probs, self.game, self.values)

    def result_values(self, results: np.ndarray, first_opp: np.ndarray) -> np.ndarray:
        """0-ply outputs, from the mover's view, of result boards (mover just played; ``first_opp``: bool[n],
        the other side's first-turn flag). Wins (mover all off) are exact."""
        n = results.shape[0]
        out = np.empty((n, self.k), np.float32)
        won = results[:, 0] >= 15
        if won.any():
            for i in np.nonzero(won)[0]:
                K.outcome_vector(K.win_level(results[i], self.code), self.code, out[i])
        rest = ~won
        if rest.any():
            child = mirror_boards(results[rest], self.hitting)
            first = np.zeros((child.shape[0], 2), np.bool_)
            first[:, 0] = first_opp[rest]
            out[rest] = flip_probs(self.ev.evaluate_batch(child, first), self.game)
        return out

    def _expand(self, boards: np.ndarray, first: np.ndarray):
        """Results of every roll (21 each) of every position: (results, offsets, first flags of result).

        Repeated positions (the same reply to several rolls, transpositions) are generated once and their
        results copied, so the output is exactly that of generating every position."""
        n = boards.shape[0]
        if not self.dedupe:
            return self._expand_all(boards, first)
        uniq, inverse = K.unique_boards(boards, first[:, 0], first[:, 1])
        u = uniq.shape[0]
        if u == n:
            return self._expand_all(boards, first)
        res, offs, fo = self._expand_all(boards[uniq], first[uniq])
        counts = np.diff(offs).reshape(u, 21)[inverse].ravel()  # per (position, roll), original order
        new_offs = np.zeros(n * 21 + 1, np.int64)
        np.cumsum(counts, out=new_offs[1:])
        starts = offs[:-1:21][inverse]  # first row of each position's block
        sizes = offs[21::21][inverse] - starts
        idx = np.repeat(starts - new_offs[:-1:21], sizes) + np.arange(new_offs[-1])
        return res[idx], new_offs, fo[idx]

    def _expand_all(self, boards: np.ndarray, first: np.ndarray):
        n = boards.shape[0]
        B = np.repeat(boards, 21, axis=0)
        D = np.tile(ROLLS21, (n, 1))
        fm = np.repeat(first[:, 0], 21)
        cap = max(4096, B.shape[0] * 40)
        while True:
            out = np.empty((cap, 28), np.int8)
            offs = np.empty(B.shape[0] + 1, np.int64)
            tot = _core.batch_results(B, D, self.hitting, self.strict, fm, self.head_mode, out, offs, self.dedupe)
            if tot >= 0:
                break
            cap *= 4
        fo = np.repeat(np.repeat(first[:, 1], 21), np.diff(offs))
        return out[:tot], offs, fo

    def best_plays(self, boards: np.ndarray, first: np.ndarray | None = None, dice: np.ndarray | None = None):
        """The 0-ply player's play (best cubeless money equity of the result) for many positions at once.

        Args:
            boards: int8[n, 28], side on roll's view; first: bool[n, 2] first-turn flags (or ``None``);
            dice: int64[n, 2] one roll per position, or ``None`` for every one of the 21 rolls of each
                position (in :data:`ROLLS21` order).
        Returns:
            ``(results int8[m, 28], outputs float32[m, K], first_opp bool[m])``, ``m = n`` (dice given) or
            ``21 n``: the chosen result board (the mover's view, sides not swapped), its 0-ply outputs from
            the mover's view (exact where the mover has borne off its last checker) and the other side's
            first-turn flag. A roll with no legal play has the unchanged board as its one result.
        """
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
        n = boards.shape[0]
        first = np.zeros((n, 2), np.bool_) if first is None else np.asarray(first, np.bool_).reshape(n, 2)
        if dice is None:
            res, offs, fo = self._expand(boards, first)
        else:
            D = np.ascontiguousarray(dice, np.int64).reshape(n, 2)
            fm = np.ascontiguousarray(first[:, 0])
            cap = max(4096, n * 40)
            while True:
                out = np.empty((cap, 28), np.int8)
                offs = np.empty(n + 1, np.int64)
                tot = _core.batch_results(
                    boards, D, self.hitting, self.strict, fm, self.head_mode, out, offs, self.dedupe
                )
                if tot >= 0:
                    break
                cap *= 4
            res = out[:tot]
            fo = np.repeat(first[:, 1], np.diff(offs))
        v0 = self.result_values(res, fo)
        best = _segment_argmax(self.equity(v0), offs)
        return res[best], v0[best], fo[best]

    # ----- n-ply --------------------------------------------------------------------------------
    def evaluate_positions(self, boards: np.ndarray, first: np.ndarray | None = None, ply: int = 0) -> np.ndarray:
        """Outputs (float32[n, K], on-roll side's view) of positions at ``ply`` (0, 1, 2, ...).

        ``boards``: int8[n, 28], each with the side on roll as mover; ``first``: bool[n, 2] first-turn
        flags (long nardy) or ``None``.
        """
        return self._evaluate(boards, first, ply, None)

    def _evaluate(
        self, boards: np.ndarray, first: np.ndarray | None, ply: int, deadline: Deadline | None
    ) -> np.ndarray:
        """:meth:`evaluate_positions` under ``deadline``: checked between chunks of :data:`DEADLINE_INNER_CHUNK`
        positions searched at 2-ply or deeper (only a search of 3-ply or deeper has such positions); when it
        has run out the evaluation is abandoned by raising ``_Expired`` (caught by :meth:`rank`)."""
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
        n = boards.shape[0]
        first = np.zeros((n, 2), np.bool_) if first is None else np.asarray(first, np.bool_).reshape(n, 2)
        if ply <= 0:
            return self.ev.evaluate_batch(boards, first)
        res, offs, fo = self._expand(boards, first)
        v0 = self.result_values(res, fo)
        best = _segment_argmax(self.equity(v0), offs)
        vals = v0[best]  # mover's view, per (position, roll)
        if ply > 1:
            chosen = res[best]
            live = chosen[:, 0] < 15
            if live.any():
                child = mirror_boards(chosen[live], self.hitting)
                cf = np.zeros((child.shape[0], 2), np.bool_)
                cf[:, 0] = fo[best][live]
                vals[live] = flip_probs(self._evaluate_chunked(child, cf, ply - 1, deadline), self.game)
        vals = vals.reshape(n, 21, self.k).astype(np.float64)
        return np.einsum("nrk,r->nk", vals, ROLL_WEIGHTS).astype(np.float32)

    def _evaluate_chunked(self, boards, first, ply: int, deadline: Deadline | None) -> np.ndarray:
        """:meth:`_evaluate` of positions at ``ply``, in chunks checked against ``deadline`` when
        ``ply >= 2`` (one batch otherwise); raises ``_Expired`` when it has run out."""
        if deadline is None or ply < 2:
            return self._evaluate(boards, first, ply, None)
        parts = []
        for start in range(0, boards.shape[0], DEADLINE_INNER_CHUNK):
            if deadline.check():
                raise _Expired
            sl = slice(start, start + DEADLINE_INNER_CHUNK)
            parts.append(self._evaluate(boards[sl], first[sl], ply, deadline))
        return np.concatenate(parts) if parts else np.empty((0, self.k), np.float32)

    def rank(
        self,
        position,
        dice,
        ply: int = 0,
        noise: float = 0.0,
        rng=None,
        filters=None,
        results: np.ndarray | None = None,
        deadline: Deadline | None = None,
    ) -> list[Candidate]:
        """Rank the legal plays of ``position`` with ``dice``, best first.

        Plays are ranked at 0-ply; for ``ply >= 1`` the 0-ply survivors of ``filters[0]`` are re-ranked at
        1-ply, and for ``ply >= 2`` the 1-ply survivors of ``filters[1]`` at 2-ply (deeper plies the
        same way). Candidates that were filtered out keep their shallower figures and rank below.
        ``results`` may pass ``position.legal_results(dice)`` when the caller already has it.
        ``filters`` defaults to :attr:`filters` (the game's). ``noise`` (> 0) adds normal noise of that
        standard deviation to every 0-ply equity (weak levels; ``rng`` a ``numpy.random.Generator``); the
        noisy equity is then what is ranked and reported.

        ``deadline`` (a :class:`Deadline`) may cut the search short: it is checked before each deeper stage
        and, within a stage, between chunks of :data:`DEADLINE_CHUNK` candidates; the 0-ply ranking is always
        complete. Candidates not reached keep their shallower figures and rank below those searched deeper,
        as filtered-out candidates do. Without a deadline the candidates are searched in one batch.
        """
        if filters is None:
            filters = self.filters
        if results is None:
            results = position.legal_results(dice)
        n = results.shape[0]
        fo = np.full(n, position.first_turn[1], np.bool_)
        probs = self.result_values(results, fo)
        eq = self.equity(probs)
        if noise > 0:
            rng = rng if rng is not None else np.random.default_rng()
            eq = eq + rng.normal(0.0, noise, size=n)
        cands = [Candidate(i, probs[i], float(eq[i]), 0) for i in range(n)]
        cands.sort(key=lambda c: -c.equity)
        if n == 1 or ply <= 0:
            return cands
        for depth in range(1, ply + 1):
            keep_n, window = filters[min(depth - 1, len(filters) - 1)]
            top = cands[0].equity
            live = [c for c in cands[:keep_n] if c.equity >= top - window]
            if len(live) <= 1 and depth > 1:
                break
            step = len(live) if deadline is None else DEADLINE_CHUNK
            done: list[Candidate] = []
            for start in range(0, len(live), step):
                if deadline is not None and deadline.check():
                    break
                chunk = live[start : start + step]
                try:
                    self._deepen(position, chunk, results, probs, depth, deadline)
                except _Expired:  # this chunk keeps its shallower figures (_deepen writes only at its end)
                    break
                done += chunk
            if not done:
                break
            done.sort(key=lambda c: -c.equity)
            rest = [c for c in cands if c.ply < depth]
            cands = done + rest
        return cands

    def _deepen(
        self,
        position,
        live: list[Candidate],
        results: np.ndarray,
        probs: np.ndarray,
        depth: int,
        deadline: Deadline | None = None,
    ):
        """Re-evaluate the candidates ``live`` at ``depth`` (in place: probs, equity, ply; nothing is written
        when ``deadline`` runs out inside, see :meth:`_evaluate`)."""
        idx = np.array([c.index for c in live])
        res = results[idx]
        won = res[:, 0] >= 15
        vals = np.empty((len(live), self.k), np.float32)
        if won.any():
            vals[won] = probs[idx[won]]
        if (~won).any():
            child = mirror_boards(res[~won], self.hitting)
            cf = np.zeros((child.shape[0], 2), np.bool_)
            cf[:, 0] = position.first_turn[1]
            vals[~won] = flip_probs(self._evaluate(child, cf, depth, deadline), self.game)
        veq = self.equity(vals)
        for c, v, e in zip(live, vals, veq):
            c.probs, c.equity, c.ply = v, float(e), depth

"""The legal-play generator against its earlier form (tests/rules/movegen_reference.py): every rule the
generator applies (docs/rules.md rules 1-6; the bar, bear-off, long nardy's head and six-block rules, short
nardy's strict bear-off) gives the same plays, with the same steps, in the same order, on
random positions of all three games, full turns (:func:`legal_into`, :func:`batch_results`, every roll)
and partial turns (:func:`generate`, as :class:`nardy.flow.turn.Turn` uses it)."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.rules import _movegen as new
from nardy.rules.numbering import head_mode
from tests.helpers import random_positions
from tests.rules import movegen_reference as ref

GAMES = ("backgammon", "short", "long")
N_POSITIONS = 1000


def _positions(game):
    pairs = random_positions(game, N_POSITIONS, seed=46)
    rules = pairs[0][0].rules
    boards = np.stack([p.array for p, _ in pairs])
    first = np.array([p.first_turn[0] for p, _ in pairs])
    return boards, first, rules.hitting, rules.strict_bear_off, head_mode(rules.head_exception, rules.hitting)


def _rows(out, n):
    """The meaningful bytes of the first ``n`` packed rows: board, step count and the steps."""
    return [bytes(out[k, : 29 + 4 * out[k, 28]]) for k in range(n)]


@pytest.mark.parametrize("game", GAMES)
def test_full_turn_plays_steps_and_order_match_the_reference(game):
    boards, first, hitting, strict, hm = _positions(game)
    ro, _, rw = ref.new_workspace()
    no, _, nw = new.new_workspace()
    plays = 0
    for i in range(len(boards)):
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                code = new.pack_code(d1, d2, hitting, strict, bool(first[i]), hm)
                a = ref.legal_into(boards[i], code, ro, rw)
                b = new.legal_into(boards[i], code, no, nw)
                assert (a, _rows(ro, a)) == (b, _rows(no, b)), (game, i, d1, d2)
                plays += a
    assert plays > 36 * len(boards)  # real work: more than one play a roll on average


@pytest.mark.parametrize("game", GAMES)
def test_batch_results_match_the_reference(game):
    boards, first, hitting, strict, hm = _positions(game)
    rng = np.random.default_rng(46)
    dice = rng.integers(1, 7, (len(boards), 2))
    dice[::5, 1] = dice[::5, 0]  # a fifth doubles at least
    outs = []
    for mod in (ref, new):
        out = np.empty((len(boards) * 1300, 28), np.int8)
        offsets = np.empty(len(boards) + 1, np.int64)
        n = mod.batch_results(boards, dice, hitting, strict, first, hm, out, offsets)
        outs.append((n, offsets.tolist(), out[:n].tobytes()))
    assert outs[0] == outs[1]
    assert outs[0][0] > len(boards)


@pytest.mark.parametrize("game", GAMES)
def test_partial_turn_leaves_match_the_reference(game):
    boards, _, hitting, strict, _ = _positions(game)
    rng = np.random.default_rng(7)
    m = new.MAX_PLAYS
    bufs = [
        (np.empty((m, 28), np.int8), np.empty((m, 4, 4), np.int8), np.empty(m, np.int8), np.empty((m, 2), np.uint64))
        for _ in range(2)
    ]
    for i in range(0, len(boards), 2):
        nd = int(rng.integers(1, 5))
        dice = np.zeros(4, np.int64)
        dice[:nd] = rng.integers(1, 7) if nd >= 3 or rng.random() < 0.3 else rng.integers(1, 7, nd)
        moved = np.zeros(26, np.int8)
        for p in np.nonzero(boards[i, 1:25] > 0)[0] + 1:
            if rng.random() < 0.3:
                moved[p] = rng.integers(0, boards[i, p] + 1)
        heads = 0 if hitting else int(rng.integers(0, 2))
        hlimit = 0 if hitting else int(rng.integers(1, 3))
        permute = bool(rng.random() < 0.8)
        prune = hitting and bool(rng.random() < 0.5)
        all_leaves = bool(rng.random() < 0.5)
        got = []
        for mod, (ob, os_, on, ok) in zip((ref, new), bufs):
            c = mod.generate(
                boards[i], moved, heads, dice, nd, permute, hitting, strict, hlimit, prune, all_leaves, ob, os_, on, ok
            )
            got.append((c, ob[:c].tobytes(), [os_[k, : on[k]].tobytes() for k in range(c)]))
        assert got[0] == got[1], (game, i, dice, nd)


def _blocking_boards(n, rng):
    """Long nardy boards built for the six-block rule: the mover's checkers on a run of 4-7 consecutive
    points of the opponent's route, the others mostly on the points just behind it (whence they may join
    it at either end); on half of them every opponent checker behind the run, on the others anywhere."""
    boards = []
    route = [new.opp_point(q, False) for q in range(1, 25)]  # mover points along the opponent's route
    while len(boards) < n:
        b = np.zeros(28, np.int8)
        start = int(rng.integers(0, 19))
        run = route[start : start + int(rng.integers(4, 8))]
        near = route[start + len(run) : start + len(run) + 7]  # where checkers come from to join the run
        left = 15
        for p in run:
            b[p] = 1
            left -= 1
        while left > 0:
            p = int(rng.integers(1, 25))
            if p not in run and p not in near and rng.random() < 0.7:
                continue
            b[p] += 1
            left -= 1
        # half the boards with every opponent checker behind the run (none past it, none off)
        behind = rng.random() < 0.5
        opp = 15 if behind else 15 - int(rng.integers(0, 3))
        b[27] = 15 - opp
        allowed = route[start + len(run) :] if behind else range(1, 25)
        free = [p for p in allowed if b[p] == 0]
        if not free:
            continue
        for _ in range(opp):
            b[free[int(rng.integers(0, len(free)))]] -= 1
        boards.append(b)
    return np.stack(boards)


def test_six_block_rule_matches_the_reference_on_blocking_boards():
    rng = np.random.default_rng(6)
    boards = _blocking_boards(600, rng)
    ro, _, rw = ref.new_workspace()
    no, _, nw = new.new_workspace()
    refused = 0
    for i in range(len(boards)):
        for d1 in range(1, 7):
            for d2 in range(1, 7):
                code = new.pack_code(d1, d2, False, False, False, new.HEAD_BLOCK)
                a = ref.legal_into(boards[i], code, ro, rw)
                b = new.legal_into(boards[i], code, no, nw)
                assert (a, _rows(ro, a)) == (b, _rows(no, b)), (i, d1, d2)
        refused += any(
            new.six_block_illegal(_after(boards[i], p, d), p - d)
            for p in range(2, 25)
            for d in range(1, min(p, 7))
            if boards[i, p] > 0 and boards[i, p - d] == 0
        )
    assert refused > 150  # the boards do meet the rule: it forbids a step on a quarter of them at least


def _after(b, p, d):
    """The board after one checker steps from ``p`` to ``p - d``."""
    a = b.copy()
    a[p] -= 1
    a[p - d] += 1
    return a


def test_six_run_prefilter_finds_every_run_of_six_through_the_landing_point():
    """The bitmask pre-check of the six-block rule (docs/rules.md, long nardy: six points in a row along
    the opponent's route, not wrapping) says True exactly when the run through the landing point is six
    or longer, whichever end of the run the point is."""
    from nardy.rules._movestep import _six_run

    rng = np.random.default_rng(1)
    route = [new.opp_point(q, False) for q in range(1, 25)]  # the mover's point of opponent point q
    ends = 0
    for _ in range(5000):
        occ = sum(1 << p for p in range(1, 25) if rng.random() < 0.6)
        t = int(rng.integers(1, 25))
        m = occ | (1 << t)
        q = new.opp_point(t, False)
        lo, hi = q, q
        while lo > 1 and (m >> route[lo - 2]) & 1:
            lo -= 1
        while hi < 24 and (m >> route[hi]) & 1:
            hi += 1
        assert _six_run(np.int64(occ), t) == (hi - lo + 1 >= 6), (bin(occ), t)
        ends += hi - lo + 1 >= 6 and q in (lo, hi)
    assert ends > 100

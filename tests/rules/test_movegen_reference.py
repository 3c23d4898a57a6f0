"""The legal-play generator against its earlier form (tests/rules/movegen_reference.py): every rule of
docs/rules.md that the generator applies (rules 1-6, the bar, bear-off, long nardy's head and six-block
rules, short nardy's strict bear-off) gives the same plays, with the same steps, in the same order, on
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

"""Backgammon legal plays agree with GNU Backgammon's move generator (gnubg-nn) position by position.

Positions come from random games and from games gnubg plays against itself at 0-ply. The CI sample
checks at least 5,000 positions; the slow test checks 100,000.
"""

import random

import pytest

from nardy import Position
from tests.helpers import random_positions, to_gnubg

gnubg_nn = pytest.importorskip("gnubg_nn")


def gnubg_selfplay_positions(n: int, seed: int):
    """``n`` (position, dice) pairs from gnubg-nn 0-ply self-play games (dice from a seeded RNG)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = Position.start("backgammon")
        while len(out) < n:
            d = (rng.randint(1, 6), rng.randint(1, 6))
            out.append((p, d))
            gb = to_gnubg(p.array)
            best = gnubg_nn.best_move(gb, d[0], d[1])
            if best:
                text = " ".join(f"{'bar' if a == 25 else a}/{'off' if b <= 0 else b}" for a, b in best)
                p = p.parse_play(text, d).result
            if p.is_game_over():
                break
            p = p.mirror()
    return out


def count_differences(pairs):
    diffs = []
    for p, d in pairs:
        theirs = set(gnubg_nn.moves(to_gnubg(p.array), d[0], d[1]))
        results = p.legal_results(d)
        ours = {gnubg_nn.key_of_board(to_gnubg(r)) for r in results}
        if not theirs and len(results) == 1 and (results[0] == p.array).all():
            ours = set()  # gnubg lists no move when nothing can be played; we list the empty play
        if ours != theirs:
            diffs.append((p.id(), d, len(ours), len(theirs)))
    return diffs


def test_legal_plays_match_gnubg_on_random_game_positions_sample():
    pairs = random_positions("backgammon", 4000, seed=2026)
    assert len(pairs) == 4000
    assert count_differences(pairs) == []


def test_legal_plays_match_gnubg_on_gnubg_selfplay_positions_sample():
    pairs = gnubg_selfplay_positions(1500, seed=11)
    assert len(pairs) == 1500
    assert count_differences(pairs) == []


@pytest.mark.slow
def test_legal_plays_match_gnubg_on_100k_positions():
    pairs = random_positions("backgammon", 70_000, seed=7) + gnubg_selfplay_positions(30_000, seed=8)
    assert len(pairs) == 100_000
    assert count_differences(pairs) == []

"""The luck-adjusted points of bench/bot_vs_gnubg.py (variance reduction of the money games against gnubg-nn).

A roll's luck is the cubeless money equity after its best 0-ply play minus the weighted mean over the 21 rolls
(the opening roll: over the 30 non-doubles), so its mean over the dice is zero whatever the position: the
adjusted points ``points - luck`` have the same expectation as the points. A game's luck is summed from
nardy's view (+ for nardy's rolls, - for gnubg's) and scaled by the cube in play at the roll.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gnubg_nn")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bot_vs_gnubg as bench  # noqa: E402  (bench/bot_vs_gnubg.py)

from nardy import Position  # noqa: E402
from nardy.analysis.luck import OPENING_WEIGHTS, ROLLS, WEIGHTS  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402
from nardy.flow.cubetheory import CubeDecision  # noqa: E402


@pytest.fixture(scope="module")
def bot():
    return Bot("backgammon", level="advanced", seed=1)


def positions_of_a_game(bot, n=12, seed=4):
    rng = np.random.default_rng(seed)
    pos, out = Position.start("backgammon"), []
    for _ in range(n):
        d = tuple(int(x) for x in rng.integers(1, 7, size=2))
        pos = bot.choose_play(pos, d).result.mirror()
        out.append(pos)
    return out


def test_a_rolls_luck_averages_to_zero_over_the_dice_in_every_position(bot):
    for pos in positions_of_a_game(bot):
        lucks = np.array([bench.roll_luck(bot, pos, r, opening=False) for r in ROLLS])
        assert abs(float(WEIGHTS @ lucks)) < 1e-9
        assert lucks.max() - lucks.min() > 0.05  # the rolls do differ
    start = Position.start("backgammon")
    opening = np.array([bench.roll_luck(bot, start, r, opening=True) for r in ROLLS])
    assert abs(float(OPENING_WEIGHTS @ opening)) < 1e-9
    # the three opening rolls that make a point are the lucky ones, 3-1 (the 5-point) the luckiest, then 4-2
    # (the 4-point) and 6-1 (the bar point); 6-5 (a back checker run to safety) is lucky too
    ranked = sorted((r for r in ROLLS if r[0] != r[1]), key=lambda r: -opening[ROLLS.index(r)])
    assert ranked[:3] == [(1, 3), (2, 4), (1, 6)]
    assert opening[ROLLS.index((1, 3))] > 0.1 and opening[ROLLS.index((5, 6))] > 0


def test_the_rolls_that_bear_off_the_last_checkers_are_the_lucky_ones(bot):
    # the mover has two checkers on its 6-point, the opponent two on its 1-point (off next turn): the mover
    # wins only by bearing off both now, with 3-3, 4-4, 5-5 or 6-6
    pos = Position.from_boards([13] + [0] * 5 + [2] + [0] * 19, [13, 2] + [0] * 24, "backgammon")
    lucks = {r: bench.roll_luck(bot, pos, r, opening=False) for r in ROLLS}
    winners = [(3, 3), (4, 4), (5, 5), (6, 6)]
    # the 4 winning rolls of 36 turn a near-certain loss (-1) into a win (+1): each is worth about +1.8
    assert all(lucks[r] == pytest.approx(2 * (1 - 4 / 36), abs=0.02) for r in winners)
    assert all(v == pytest.approx(-2 * 4 / 36, abs=0.02) for r, v in lucks.items() if r not in winners)


def test_a_games_luck_counts_nardys_rolls_for_it_and_gnubgs_against_it(monkeypatch, bot):
    monkeypatch.setattr(bench, "roll_luck", lambda *a, **k: 1.0)
    games = bench.play_pair(bot, np.random.default_rng([7, 0]), 0, [])
    # every roll is worth +1 to its thrower: the first mover rolls once more than the other side if it won
    (p1, l1), (p2, l2) = games
    assert l1 == (1.0 if p1 > 0 else 0.0)  # nardy moved first
    assert l2 == (-1.0 if p2 < 0 else 0.0)  # gnubg moved first


def test_with_the_cube_each_rolls_luck_counts_at_the_cube_then_in_play(monkeypatch, bot):
    monkeypatch.setattr(bench, "roll_luck", lambda *a, **k: 1.0)
    # nardy doubles at its first chance and gnubg takes; gnubg never redoubles: after that every roll counts 2
    monkeypatch.setattr(bench, "gnubg_cube", lambda pos, plies, cube, owner: (False, True))

    class DoublesOnce(Bot):
        def cube_action(self, state, *args, **kwargs):
            return CubeDecision(state.cube_value == 1, True, "double" if state.cube_value == 1 else "no double")

    nardy = DoublesOnce("backgammon", level="advanced", seed=1)
    games = bench.play_pair_cube(nardy, np.random.default_rng([7, 0]), 0, [])
    for k, (points, cube, passed, luck) in enumerate(games):
        assert cube == 2 and not passed
        # game 0: nardy opens (+1) and gnubg answers (-1) at cube 1; nardy doubles before its second roll
        # game 1: gnubg opens (-1) at cube 1; nardy doubles before its first roll
        # then the rolls alternate at cube 2 from nardy's (+2, -2, ...): +2 more if nardy threw the last (won)
        base = 0.0 if k == 0 else -1.0
        assert luck == base + (2.0 if points > 0 else 0.0), (k, points, luck)

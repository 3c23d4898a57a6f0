"""The luck-adjusted points of bench/bot_levels.py (``--luck``: duplicate games between nardy's own bots).

The judge is :func:`nardy.analysis.luck.money_luck`: each of the 21 rolls valued by the cubeless money equity
(the game's scoring) after its best 0-ply play by the tested bot's net, a roll's luck its value minus their
weighted mean, so its mean over the dice is zero in every position and ``points - luck`` keeps the points'
expectation. A game's luck is summed from the tested bot's view (+ its rolls, - the opponent's).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import bot_levels as bench  # noqa: E402  (bench/bot_levels.py)

from nardy import Position  # noqa: E402
from nardy.analysis.luck import ROLLS, WEIGHTS, money_luck  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402


@pytest.fixture(scope="module")
def bots():
    return {g: Bot(g, level="advanced", seed=1) for g in ("short", "long")}


@pytest.mark.parametrize("game", ["short", "long"])
def test_a_rolls_luck_averages_to_zero_over_the_dice_in_every_nardy_position(bots, game):
    bot = bots[game]
    rng = np.random.default_rng(5)
    pos = Position.start(game)
    for _ in range(16):
        lucks = np.array([money_luck(bot.searcher, pos, r) for r in ROLLS])
        assert abs(float(WEIGHTS @ lucks)) < 1e-9
        assert lucks.max() - lucks.min() > 0.02  # the rolls do differ
        d = tuple(int(x) for x in rng.integers(1, 7, size=2))
        pos = bot.choose_play(pos, d).result.mirror()


def test_long_nardy_first_roll_luck_keeps_the_head_exception(bots):
    # on the first turn 6-6, 4-4 and 3-3 may take two checkers off the head (RULES.md head rule):
    # judged with the position's first-turn flags they are the three luckiest first rolls; without them 5-6 is
    start = Position.start("long")
    assert start.first_turn == (True, True)
    lucks = {r: money_luck(bots["long"].searcher, start, r) for r in ROLLS}
    assert sorted(ROLLS, key=lambda r: -lucks[r])[:3] == [(4, 4), (3, 3), (6, 6)]
    assert lucks[(4, 4)] > 0.3 and lucks[(3, 3)] > 0.3 and lucks[(6, 6)] > lucks[(5, 6)] > 0


def test_short_nardy_luck_follows_the_strict_bear_off(bots):
    # the mover has two checkers on its 6-point, the opponent two on its 1-point (off next turn) and both have
    # borne off checkers (a win is an oyun, 1 point). In backgammon 3-3, 4-4, 5-5 and 6-6 bear both off; in
    # short nardy a checker that has moved this turn may not be borne off by a larger die
    # (RULES.md "Short nardy bear-off"), so 4-4 (6/2/off) and 5-5 (6/1/off) fail and only 3-3 and 6-6 win
    pos = Position.from_boards([13] + [0] * 5 + [2] + [0] * 19, [13, 2] + [0] * 24, "short")
    lucks = {r: money_luck(bots["short"].searcher, pos, r) for r in ROLLS}
    winners = [(3, 3), (6, 6)]
    # the 2 winning rolls of 36 turn a near-certain loss (-1) into a win (+1)
    assert all(lucks[r] == pytest.approx(2 * (1 - 2 / 36), abs=0.02) for r in winners)
    assert all(v == pytest.approx(-2 * 2 / 36, abs=0.02) for r, v in lucks.items() if r not in winners)


def test_a_games_luck_counts_the_tested_bots_rolls_for_it_and_the_opponents_against_it(monkeypatch, bots):
    monkeypatch.setattr(bench, "money_luck", lambda *a, **k: 1.0)
    a, b = bots["short"], Bot("short", level="heuristic", seed=2)
    luck: list = []
    points = bench.play_pair("short", a, b, bench.draw_rolls("short", np.random.default_rng(3)), [], luck)
    # every roll is worth +1 to its thrower: the first mover rolls once more than the other side if it won
    assert luck == [1.0 if points[0] > 0 else 0.0, -1.0 if points[1] < 0 else 0.0]


def test_luck_is_logged_and_the_report_adds_the_adjusted_ppg(tmp_path, capsys):
    log = tmp_path / "pairs.jsonl"
    args = ["--game", "short", "--levels", "advanced", "--opponents", "heuristic", "--games", "6", "--seed", "2"]
    bench.main([*args, "--luck", "--results", str(log)])
    row = json.loads(capsys.readouterr().out.strip().splitlines()[-1])[0]
    recs = [json.loads(line) for line in log.read_text().splitlines()]
    assert sorted(r["pair"] for r in recs) == [0, 1, 2] and all(len(r["luck"]) == 2 for r in recs)
    points = np.array([x for r in sorted(recs, key=lambda r: r["pair"]) for x in r["results"]], float)
    luck = np.array([x for r in sorted(recs, key=lambda r: r["pair"]) for x in r["luck"]])
    assert row["ppg"] == pytest.approx(points.mean())
    assert row["luck_adjusted_ppg"] == pytest.approx((points - luck).mean())
    adj_pairs = (points - luck).reshape(-1, 2).mean(axis=1)
    assert row["luck_adjusted_pair_sd"] == pytest.approx(adj_pairs.std(ddof=1))
    # a rerun finds every pair in the file and plays none; the luck is read back
    bench.main([*args, "--results", str(log)])
    again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])[0]
    assert again["luck_adjusted_ppg"] == row["luck_adjusted_ppg"] and len(log.read_text().splitlines()) == 3

"""Time per move of bot levels on the same positions, in one process: mean, median, tail, time budget.

Positions (with their dice) come from 0-ply self-play of the shipped net (``bench/net_forward.py``'s
``sample``), only those with more than one legal play; ``--positions`` of them, spread over ``--games``
games, are each chosen by a :class:`nardy.engine.Engine` of every level in turn (``--levels``, the first is the
reference), so all levels run on the same machine state (this machine is shared and noisy: the ratios are
the figures, absolute times upper bounds). Reported per level: wall ms per move (mean, median, 95th
percentile, largest), the ratio of means to the first level, how many moves took longer than ``--budget``
seconds (the server's bound per decision, :data:`nardy.flow.table.BOT_MOVE_BUDGET`), and how many plays equal
the first level's. Every level first chooses a few positions untimed (compilation, warm-up). No deadline
is given: the figures are the full searches.

    python bench/level_speed.py --game backgammon --levels grandmaster,champion --positions 300
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from net_forward import spread_spots  # noqa: E402

from nardy.flow.bot import BOT_LEVELS, Bot  # noqa: E402
from nardy.flow.table import BOT_MOVE_BUDGET  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="backgammon")
    ap.add_argument("--levels", default="grandmaster,champion", help="LEVEL,... (the first is the reference)")
    ap.add_argument("--positions", type=int, default=300)
    ap.add_argument("--games", type=int, default=12, help="self-play games the positions are spread over")
    ap.add_argument("--budget", type=float, default=BOT_MOVE_BUDGET, help="seconds; moves over it are counted")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    levels = [x for x in a.levels.split(",") if x]
    for lv in levels:
        if lv not in BOT_LEVELS:
            ap.error(f"unknown level {lv!r}: one of {', '.join(BOT_LEVELS)}")
    spots = spread_spots(a.game, a.games, a.seed, a.positions, choices_only=True)
    bots = {lv: Bot(a.game, level=lv, seed=a.seed) for lv in levels}
    for bot in bots.values():  # compile and warm up, untimed
        for pos, dice in spots[:3]:
            bot.choose_play(pos, dice)
    times = {lv: [] for lv in levels}
    plays = {lv: [] for lv in levels}
    for pos, dice in spots:
        for lv, bot in bots.items():
            t0 = time.perf_counter()
            plays[lv].append(str(bot.choose_play(pos, dice)))
            times[lv].append(time.perf_counter() - t0)
    ref = levels[0]
    rows = []
    for lv in levels:
        t = 1000 * np.array(times[lv])
        row = {
            "level": lv,
            "ply": BOT_LEVELS[lv][0],
            "ms_mean": round(float(t.mean()), 1),
            "ms_median": round(float(np.median(t)), 1),
            "ms_p95": round(float(np.percentile(t, 95)), 1),
            "ms_max": round(float(t.max()), 1),
            "ratio": round(float(t.mean() / (1000 * np.mean(times[ref]))), 2),
            "over_budget": int((t > 1000 * a.budget).sum()),
            "same_plays": sum(p == q for p, q in zip(plays[lv], plays[ref])),
        }
        rows.append(row)
        print(
            f"{a.game} {lv:>12}: {row['ms_mean']:7.1f} ms a move (median {row['ms_median']:.1f},"
            f" 95% {row['ms_p95']:.1f}, max {row['ms_max']:.0f}), {row['ratio']:.2f}x {ref},"
            f" {row['over_budget']} over {a.budget:g} s,"
            f" {row['same_plays']}/{len(spots)} plays as {ref}",
            file=sys.stderr,
        )
    print(json.dumps({"game": a.game, "positions": len(spots), "budget_s": a.budget, "levels": rows}))


if __name__ == "__main__":
    main()

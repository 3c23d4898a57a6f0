"""Bot levels against random play, the simple heuristic player and a previous net (all three games).

Cubeless games with duplicate dice (each dice sequence twice, sides swapped), scored with the game's
levels (backgammon 1/2/3, short nardy 1/2/4/8, long nardy 1/2). Reports, per level and opponent, the win
rate and points per game with a 95% confidence interval, and ms per move.

    python bench/bot_levels.py --game long --levels advanced,expert --games 2000
    python bench/bot_levels.py --game short --levels advanced --opponents previous \
        --previous /tmp/nardy-train/short/checkpoints-short/short-0300000.npz

``--fast`` plays the 0-ply level (``advanced``) inside the compiled kernel (the same greedy 0-ply choice,
without the bearoff database), which allows many more games.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardy import Position  # noqa: E402
from nardy.bots import Bot  # noqa: E402
from nardy.bots.net import Net, shipped_path  # noqa: E402
from nardy.bots.train import benchmark  # noqa: E402


def play_pair(game, a: Bot, b: Bot, rng, timing):
    rolls = [(int(x), int(y)) for x, y in rng.integers(1, 7, size=(3000, 2))]
    if game == "backgammon":
        while rolls[0][0] == rolls[0][1]:
            rolls[0] = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    values = Position.start(game).rules.scoring
    out = []
    for a_first in (True, False):
        pos = Position.start(game)
        for t, dice in enumerate(rolls):
            a_moves = (t % 2 == 0) == a_first
            bot = a if a_moves else b
            t0 = time.perf_counter()
            play = bot.choose_play(pos, dice)
            if a_moves:
                timing.append(time.perf_counter() - t0)
            res = play.result
            if res.is_game_over():
                from nardy.game import result_level
                pts = values[result_level(res.rules, res.opponent)]
                out.append(pts if a_moves else -pts)
                break
            pos = res.mirror()
        else:
            out.append(0)
    return out


def summary(r):
    r = np.asarray(r, float)
    pairs = r.reshape(-1, 2).mean(axis=1)
    ci = 1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    return {"games": len(r), "ppg": float(r.mean()), "ci95": float(ci), "win_rate": float((r > 0).mean())}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="long")
    ap.add_argument("--levels", default="advanced,expert")
    ap.add_argument("--opponents", default="random,heuristic")
    ap.add_argument("--previous", default=None, help="weights of the previous net (opponent 'previous')")
    ap.add_argument("--weights", default=None, help="weights to test instead of the shipped ones")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fast", action="store_true", help="0-ply level in the compiled kernel")
    args = ap.parse_args(argv)
    game = args.game
    results = []
    for level in args.levels.split(","):
        for opp in args.opponents.split(","):
            t0 = time.perf_counter()
            if args.fast and level == "advanced":
                net = Net.load(args.weights or shipped_path(game))
                other = Net.load(args.previous) if opp == "previous" else opp
                s = benchmark(net, other, args.games, seed=args.seed)
                row = {"games": args.games + args.games % 2, "ppg": s["ppg"], "ci95": s["ci95"],
                       "win_rate": s["win"], "ms_per_move": None, "mode": "kernel 0-ply"}
            else:
                a = Bot(game, level=level, seed=args.seed, weights=args.weights)
                if opp == "previous":
                    b = Bot(game, level="advanced", weights=args.previous)
                else:
                    b = Bot(game, level=opp, seed=args.seed + 1)
                rng = np.random.default_rng(args.seed)
                r, timing = [], []
                for _ in range((args.games + 1) // 2):
                    r += play_pair(game, a, b, rng, timing)
                row = summary(r)
                row["ms_per_move"] = 1000 * float(np.mean(timing))
            row.update(game=game, level=level, opponent=opp, wall_s=round(time.perf_counter() - t0, 1))
            results.append(row)
            ms = f", {row['ms_per_move']:.2f} ms/move" if row["ms_per_move"] is not None else ""
            print(f"{game} {level} vs {opp}: {row['games']} games, win {row['win_rate']:.1%}, "
                  f"{row['ppg']:+.3f} ppg ± {row['ci95']:.3f}{ms} ({row['wall_s']} s)", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()

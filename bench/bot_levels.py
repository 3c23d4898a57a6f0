"""Bot levels against random play, the simple heuristic player and a previous net (all three games).

Cubeless games with duplicate dice (each dice sequence twice, sides swapped), scored with the game's
levels (backgammon 1/2/3, short nardy 1/2/4/8, long nardy 1/2). Reports, per level and opponent, the win
rate and points per game with a 95% confidence interval, and ms per move.

    python bench/bot_levels.py --game long --levels advanced,expert --games 2000
    python bench/bot_levels.py --game short --levels advanced --opponents previous \
        --previous /tmp/nardy-train/short/checkpoints-short/short-0300000.npz
    # a new net against the shipped one, both at the strongest level (the same search)
    python bench/bot_levels.py --game long --levels grandmaster --opponents previous \
        --previous nardy/data/long.npz --previous-level same --weights new.npz --games 1000 --workers 2

``--workers N`` plays pairs in N processes; the dice of every pair are drawn in order from ``--seed`` and each
bot's own generator is reseeded per pair, so the figures do not depend on N. ``--results F`` appends every
pair to F as it finishes; a rerun with the same arguments plays only the pairs missing from F (long runs
can be stopped and resumed, or extended with a larger ``--games``).

``--fast`` plays the 0-ply level (``advanced``) inside the compiled kernel (the same greedy 0-ply choice,
without the bearoff database), which allows many more games.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardy import Position  # noqa: E402
from nardy.engine.net import Net, shipped_path  # noqa: E402
from nardy.engine.tdtrain import benchmark  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402


def draw_rolls(game, rng):
    """One pair's dice, int8[3000, 2] from ``rng`` (backgammon's first roll redrawn until not a double)."""
    rolls = rng.integers(1, 7, size=(3000, 2)).astype(np.int8)
    if game == "backgammon":
        while rolls[0, 0] == rolls[0, 1]:
            rolls[0] = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
    return rolls


def play_pair(game, a: Bot, b: Bot, rolls, timing):
    values = Position.start(game).rules.scoring
    out = []
    for a_first in (True, False):
        pos = Position.start(game)
        for t, (d1, d2) in enumerate(rolls):
            dice = (int(d1), int(d2))
            a_moves = (t % 2 == 0) == a_first
            bot = a if a_moves else b
            t0 = time.perf_counter()
            play = bot.choose_play(pos, dice)
            if a_moves:
                timing.append(time.perf_counter() - t0)
            res = play.result
            if res.is_game_over():
                from nardy.rules.scoring import result_kind

                pts = values[result_kind(res.rules, res.opponent)]
                out.append(pts if a_moves else -pts)
                break
            pos = res.mirror()
        else:
            out.append(0)
    return out


_WORKER: dict = {}


def _init_worker(spec):
    """Build the two bots of one (level, opponent) row in this process."""
    game, level, opp, seed, weights, previous, previous_level = spec
    a = Bot(game, level=level, seed=seed, weights=weights)
    if opp == "previous":
        b = Bot(game, level=level if previous_level == "same" else previous_level, seed=seed + 1, weights=previous)
    else:
        b = Bot(game, level=opp, seed=seed + 1)
    _WORKER.update(game=game, a=a, b=b, seed=seed)


def _run_pair(job):
    """Play pair ``i`` on its dice; each bot's own generator is reseeded from (seed, i), so results do not
    depend on the number of workers. Returns (the two results, ms timings of the tested bot)."""
    i, rolls = job
    w = _WORKER
    w["a"].rng = np.random.default_rng([w["seed"], i, 0])
    w["b"].rng = np.random.default_rng([w["seed"], i, 1])
    timing = []
    out = play_pair(w["game"], w["a"], w["b"], rolls, timing)
    return i, out, [round(1000 * t, 3) for t in timing]


def _load_pairs(path, key) -> dict:
    """Pairs already played for this row (``--results``): {pair index: (results, ms per move)}."""
    done = {}
    if path and Path(path).exists():
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                if all(rec.get(k) == v for k, v in key.items()):
                    done[rec["pair"]] = (rec["results"], rec["ms"])
    return done


def _jobs(game, rng, n_pairs, done):
    """(pair index, dice) of the pairs still to play; every pair's dice are drawn, in order, either way."""
    for i in range(n_pairs):
        rolls = draw_rolls(game, rng)
        if i not in done:
            yield i, rolls


def _keep(done, log, key, i, out, ms):
    done[i] = (out, ms)
    if log:
        log.write(json.dumps({**key, "pair": i, "results": out, "ms": ms}) + "\n")
        log.flush()


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
    ap.add_argument(
        "--previous-level",
        default="advanced",
        help="level the previous net plays at: a level name, or 'same' (the tested level: the same search)",
    )
    ap.add_argument("--weights", default=None, help="weights to test instead of the shipped ones")
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fast", action="store_true", help="0-ply level in the compiled kernel")
    ap.add_argument(
        "--results",
        default=None,
        help="JSON-lines file of every pair played: appended to, and "
        "pairs already in it (same game, levels, seed, weights) are not played again",
    )
    ap.add_argument(
        "--workers", type=int, default=1, help="processes playing pairs in parallel (results do not depend on it)"
    )
    args = ap.parse_args(argv)
    game = args.game
    results = []
    for level in args.levels.split(","):
        for opp in args.opponents.split(","):
            t0 = time.perf_counter()
            if args.fast and level == "advanced" and args.previous_level in ("advanced", "same"):
                net = Net.load(args.weights or shipped_path(game))
                other = Net.load(args.previous) if opp == "previous" else opp
                s = benchmark(net, other, args.games, seed=args.seed)
                row = {
                    "games": args.games + args.games % 2,
                    "ppg": s["ppg"],
                    "ci95": s["ci95"],
                    "win_rate": s["win"],
                    "ms_per_move": None,
                    "mode": "kernel 0-ply",
                }
            else:
                spec = (game, level, opp, args.seed, args.weights, args.previous, args.previous_level)
                key = {
                    "game": game,
                    "level": level,
                    "opponent": opp,
                    "seed": args.seed,
                    "weights": args.weights,
                    "previous": args.previous if opp == "previous" else None,
                }
                if opp == "previous" and args.previous_level != "advanced":
                    key["previous_level"] = args.previous_level
                done = _load_pairs(args.results, key)
                n_pairs = (args.games + 1) // 2
                rng = np.random.default_rng(args.seed)
                jobs = _jobs(game, rng, n_pairs, done)
                log = open(args.results, "a") if args.results else None
                try:
                    if args.workers > 1:
                        with multiprocessing.get_context("spawn").Pool(
                            args.workers, initializer=_init_worker, initargs=(spec,)
                        ) as pool:
                            for i, out, t in pool.imap_unordered(_run_pair, jobs, chunksize=2):
                                _keep(done, log, key, i, out, t)
                    else:
                        _init_worker(spec)
                        for job in jobs:
                            _keep(done, log, key, *_run_pair(job))
                finally:
                    if log:
                        log.close()
                r = [x for i in range(n_pairs) for x in done[i][0]]
                timing = [x for i in range(n_pairs) for x in done[i][1]]
                row = summary(r)
                row["ms_per_move"] = float(np.mean(timing))
            row.update(game=game, level=level, opponent=opp, wall_s=round(time.perf_counter() - t0, 1))
            results.append(row)
            ms = f", {row['ms_per_move']:.2f} ms/move" if row["ms_per_move"] is not None else ""
            print(
                f"{game} {level} vs {opp}: {row['games']} games, win {row['win_rate']:.1%}, "
                f"{row['ppg']:+.3f} ppg ± {row['ci95']:.3f}{ms} ({row['wall_s']} s)",
                flush=True,
            )
    print(json.dumps(results))


if __name__ == "__main__":
    main()

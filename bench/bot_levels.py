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

``--luck`` also logs each game's luck (GNU Backgammon's "luck adjusted result"): before each roll, the luck
of the dice thrown for the side on roll, :func:`nardy.analysis.luck.money_luck` judged by the tested bot's
net at 0-ply (each of the 21 rolls valued after its best play; the luck is the roll's value minus their
weighted mean), summed over the game from the tested bot's view. Points minus luck has the same mean as the
points (each roll's luck has mean zero over the dice, whatever the judge's errors) and a smaller spread: the
report adds the luck-adjusted ppg and both spreads of a pair. It costs one 0-ply evaluation of the 21 rolls'
best plays a turn (as much as a move of ``advanced``; little beside ``grandmaster`` or ``champion``).
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
from nardy.analysis.luck import luck_adjusted, money_luck  # noqa: E402
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


def play_pair(game, a: Bot, b: Bot, rolls, timing, luck=None):
    """Two games on ``rolls``, ``a`` first then ``b`` first: ``[points, points]`` from ``a``'s view, and where
    ``luck`` is a list, each game's luck from ``a``'s view appended to it (:func:`money_luck` by ``a``'s net;
    backgammon's opening roll judged over the 30 non-doubles, as :func:`draw_rolls` draws it)."""
    values = Position.start(game).rules.scoring
    out = []
    for a_first in (True, False):
        pos = Position.start(game)
        game_luck = 0.0
        for t, (d1, d2) in enumerate(rolls):
            dice = (int(d1), int(d2))
            a_moves = (t % 2 == 0) == a_first
            bot = a if a_moves else b
            if luck is not None:
                lk = money_luck(a.searcher, pos, dice, opening=t == 0 and game == "backgammon")
                game_luck += lk if a_moves else -lk
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
        if luck is not None:
            luck.append(round(game_luck, 5))
    return out


_WORKER: dict = {}


def _init_worker(spec):
    """Build the two bots of one (level, opponent) row in this process."""
    game, level, opp, seed, weights, previous, previous_level, luck = spec
    a = Bot(game, level=level, seed=seed, weights=weights)
    if opp == "previous":
        b = Bot(game, level=level if previous_level == "same" else previous_level, seed=seed + 1, weights=previous)
    else:
        b = Bot(game, level=opp, seed=seed + 1)
    _WORKER.update(game=game, a=a, b=b, seed=seed, luck=luck)


def _run_pair(job):
    """Play pair ``i`` on its dice; each bot's own generator is reseeded from (seed, i), so results do not
    depend on the number of workers. Returns (i, the two results, ms timings of the tested bot, the two games'
    luck or ``None``)."""
    i, rolls = job
    w = _WORKER
    w["a"].rng = np.random.default_rng([w["seed"], i, 0])
    w["b"].rng = np.random.default_rng([w["seed"], i, 1])
    timing = []
    luck = [] if w["luck"] else None
    out = play_pair(w["game"], w["a"], w["b"], rolls, timing, luck)
    return i, out, [round(1000 * t, 3) for t in timing], luck


def _load_pairs(path, key) -> dict:
    """Pairs already played for this row (``--results``): {pair index: (results, ms per move, luck or None)}."""
    done = {}
    if path and Path(path).exists():
        with open(path) as f:
            for line in f:
                rec = json.loads(line)
                if all(rec.get(k) == v for k, v in key.items()):
                    done[rec["pair"]] = (rec["results"], rec["ms"], rec.get("luck"))
    return done


def _jobs(game, rng, n_pairs, done):
    """(pair index, dice) of the pairs still to play; every pair's dice are drawn, in order, either way."""
    for i in range(n_pairs):
        rolls = draw_rolls(game, rng)
        if i not in done:
            yield i, rolls


def _keep(done, log, key, i, out, ms, luck=None):
    done[i] = (out, ms, luck)
    if log:
        rec = {**key, "pair": i, "results": out, "ms": ms}
        if luck is not None:
            rec["luck"] = luck
        log.write(json.dumps(rec) + "\n")
        log.flush()


def summary(r, luck=None):
    """Games ``r`` (points from the tested bot's view, pairs in order): games, ppg, its 95% interval from the
    pairs' spread, win rate; with ``luck`` (each game's luck) also ``luck_adjusted_ppg``,
    ``luck_adjusted_ci95``, ``pair_sd`` and ``luck_adjusted_pair_sd`` (a pair's mean points, sd)."""
    r = np.asarray(r, float)
    pairs = r.reshape(-1, 2).mean(axis=1)
    ci = 1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    out = {"games": len(r), "ppg": float(r.mean()), "ci95": float(ci), "win_rate": float((r > 0).mean())}
    if luck is not None and len(pairs) > 1:
        out.update(luck_adjusted(r, luck))
    return out


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
    ap.add_argument(
        "--luck",
        action="store_true",
        help="log each game's luck (0-ply, the tested net) and report the luck-adjusted ppg beside the raw one",
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
                spec = (game, level, opp, args.seed, args.weights, args.previous, args.previous_level, args.luck)
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
                            for res in pool.imap_unordered(_run_pair, jobs, chunksize=2):
                                _keep(done, log, key, *res)
                    else:
                        _init_worker(spec)
                        for job in jobs:
                            _keep(done, log, key, *_run_pair(job))
                finally:
                    if log:
                        log.close()
                r = [x for i in range(n_pairs) for x in done[i][0]]
                timing = [x for i in range(n_pairs) for x in done[i][1]]
                # each game's luck, where every pair logged it (pairs logged without --luck have none)
                has_luck = all(done[i][2] is not None for i in range(n_pairs))
                row = summary(r, [x for i in range(n_pairs) for x in done[i][2]] if has_luck else None)
                row["ms_per_move"] = float(np.mean(timing))
            row.update(game=game, level=level, opponent=opp, wall_s=round(time.perf_counter() - t0, 1))
            results.append(row)
            ms = f", {row['ms_per_move']:.2f} ms/move" if row["ms_per_move"] is not None else ""
            print(
                f"{game} {level} vs {opp}: {row['games']} games, win {row['win_rate']:.1%}, "
                f"{row['ppg']:+.3f} ppg ± {row['ci95']:.3f}{ms} ({row['wall_s']} s)",
                flush=True,
            )
            if "luck_adjusted_ppg" in row:
                print(
                    f"  luck-adjusted: {row['luck_adjusted_ppg']:+.3f} ppg ± {row['luck_adjusted_ci95']:.3f} (95%); "
                    f"a pair's sd {row['luck_adjusted_pair_sd']:.2f} against {row['pair_sd']:.2f} unadjusted",
                    flush=True,
                )
    print(json.dumps(results))


if __name__ == "__main__":
    main()

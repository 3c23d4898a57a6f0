"""Backgammon: nardy's bot against GNU Backgammon's net (gnubg-nn, ``gnubg_nn.best_move``), duplicate dice.

Cubeless money play (single 1, gammon 2, backgammon 3). Each dice sequence is played twice with the sides
swapped (game 2i: nardy moves first; game 2i+1: gnubg moves first, same rolls in the same order), so the
luck of the dice cancels within a pair. Reports nardy's points per game with a 95% confidence interval
(over pairs), and the speed of nardy's choices.

    python bench/bot_vs_gnubg.py --games 1000 --level advanced
    python bench/bot_vs_gnubg.py --games 5000 --level grandmaster --workers 2 --results gm.json

The dice of pair ``i`` come from ``numpy.random.default_rng([seed, i])``, so a run's games do not depend on
``--workers`` (processes that split the pairs between them). ``--log F`` appends every pair to F as it
finishes; a rerun with the same arguments plays only the pairs missing from F (long runs can be stopped and
resumed, or extended with a larger ``--games``).

``gnubg_nn.best_move(board, d1, d2, n=plies, b=1)`` takes the board as ``[opponent25, mover25]`` (index
0..23 = own points 1..24, 24 = bar) and returns the chosen move and the key of the resulting board, from
the next player's view.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gnubg_nn  # noqa: E402

from nardy import Position  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402


def gnubg_board(pos: Position):
    m, o = pos.mover, pos.opponent
    return [list(o[1:25]) + [o[25]], list(m[1:25]) + [m[25]]]


def gnubg_choice(pos: Position, dice, plies: int):
    """The legal play gnubg picks (matched by the resulting position)."""
    plays = pos.legal_plays(dice)
    if len(plays) == 1:
        return plays[0]
    _, key = gnubg_nn.best_move(gnubg_board(pos), dice[0], dice[1], n=plies, b=1)
    opp, mov = gnubg_nn.board_from_position_key(key)
    nxt = Position.from_boards([0] + list(mov[:24]) + [mov[24]], [0] + list(opp[:24]) + [opp[24]], "backgammon")
    for p in plays:
        if p.result.mirror() == nxt:
            return p
    raise RuntimeError(f"gnubg's move not found among the legal plays of {pos.id()} {dice}")


def play_pair(bot: Bot, rng, gnubg_plies: int, timing: list):
    rolls = []
    first = rng.integers(1, 7, size=2)
    while first[0] == first[1]:
        first = rng.integers(1, 7, size=2)
    rolls.append((int(first[0]), int(first[1])))
    rolls += [(int(a), int(b)) for a, b in rng.integers(1, 7, size=(2000, 2))]
    out = []
    for nardy_first in (True, False):
        pos = Position.start("backgammon")
        for t, dice in enumerate(rolls):
            nardy_moves = (t % 2 == 0) == nardy_first
            if nardy_moves:
                t0 = time.perf_counter()
                play = bot.choose_play(pos, dice)
                timing.append(time.perf_counter() - t0)
            else:
                play = gnubg_choice(pos, dice, gnubg_plies)
            res = play.result
            if res.is_game_over():
                level = (
                    1
                    + (res.opponent[0] == 0)
                    + (res.opponent[0] == 0 and (res.opponent[25] > 0 or any(res.opponent[q] for q in range(19, 25))))
                )
                out.append(level if nardy_moves else -level)
                break
            pos = res.mirror()
    return out


_BOT = {}


def _pair_worker(args):
    i, level, seed, gnubg_plies, weights = args
    key = (level, weights)
    if key not in _BOT:
        _BOT.clear()
        _BOT[key] = Bot("backgammon", level=level, seed=seed, weights=weights)
    timing = []
    res = play_pair(_BOT[key], np.random.default_rng([seed, i]), gnubg_plies, timing)
    return i, res, timing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games (rounded up to even)")
    ap.add_argument("--level", default="advanced", help="nardy bot level (advanced = 0-ply)")
    ap.add_argument("--gnubg-ply", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", default=None, help="nardy weights (.npz) instead of the shipped ones")
    ap.add_argument("--workers", type=int, default=1, help="processes playing the pairs")
    ap.add_argument("--results", default=None, help="also write every game's points to this JSON file")
    ap.add_argument(
        "--log",
        default=None,
        help="JSON-lines file every pair is appended to as it finishes; "
        "pairs already in it (same level, seed, gnubg ply, weights) are not played again",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    n_pairs = (args.games + 1) // 2
    key = {"level": args.level, "seed": args.seed, "gnubg_ply": args.gnubg_ply, "weights": args.weights}
    by_pair, timing = {}, []
    if args.log and Path(args.log).exists():
        with open(args.log) as f:
            for line in f:
                rec = json.loads(line)
                if all(rec.get(k) == v for k, v in key.items()) and rec["pair"] < n_pairs:
                    by_pair[rec["pair"]] = rec["points"]
                    timing += [t / 1000 for t in rec["ms"]]
    jobs = [(i, args.level, args.seed, args.gnubg_ply, args.weights) for i in range(n_pairs) if i not in by_pair]
    log = open(args.log, "a") if args.log else None
    t0 = time.perf_counter()
    if args.workers > 1:
        import multiprocessing as mp

        pool = mp.get_context("fork").Pool(args.workers)
        it = pool.imap_unordered(_pair_worker, jobs, chunksize=4)
    else:
        pool, it = None, map(_pair_worker, jobs)
    for i, res, tm in it:
        by_pair[i] = res
        timing += tm
        if log:
            log.write(json.dumps({**key, "pair": i, "points": res, "ms": [round(1000 * t, 3) for t in tm]}) + "\n")
            log.flush()
        if len(by_pair) % 50 == 0 and not args.json:
            r = np.concatenate([by_pair[k] for k in by_pair])
            print(
                f"  {len(r)} games: {r.mean():+.3f} ppg ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True
            )
    if pool is not None:
        pool.close()
    if log:
        log.close()
    results = [x for i in range(n_pairs) for x in by_pair[i]]
    if args.results:
        Path(args.results).write_text(json.dumps({"level": args.level, "seed": args.seed, "points": results}))
    r = np.array(results, float)
    pairs = r.reshape(-1, 2).mean(axis=1)
    ci = 1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    out = {
        "level": args.level,
        "gnubg_ply": args.gnubg_ply,
        "games": len(r),
        "ppg": float(r.mean()),
        "ci95": float(ci),
        "win_rate": float((r > 0).mean()),
        "nardy_ms_per_move": 1000 * float(np.mean(timing)),
        "wall_s": time.perf_counter() - t0,
    }
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"nardy {args.level} vs gnubg-nn {args.gnubg_ply}-ply, {len(r)} games (duplicate dice, cubeless):"
            f" {out['ppg']:+.3f} ppg ± {ci:.3f} (95%), wins {out['win_rate']:.1%}, "
            f"nardy {out['nardy_ms_per_move']:.2f} ms/move, {out['wall_s']:.0f} s"
        )


if __name__ == "__main__":
    main()

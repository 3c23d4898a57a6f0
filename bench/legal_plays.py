"""Legal-play throughput: nardy against GNU Backgammon's move generator (gnubg-nn), same positions.

Usage: python bench/legal_plays.py [--positions 2000] [--repeat 30] [--seed 1] [--results FILE [--label TEXT]]

Positions: half from gnubg-nn 0-ply self-play, half from random games (backgammon), each with a
random roll. Figures printed: positions per second for
  * gnubg-nn ``moves(board, d1, d2)`` (one call per position; the reference),
  * nardy per call: ``Position.legal_results(dice)`` (resulting boards, what a bot needs) and
    ``Position.legal_plays(dice)`` (Play objects with steps),
  * nardy batched: ``_core.batch_results`` over all positions in one call,
and the ratios against gnubg-nn measured in the same process. Long and short nardy throughput is
printed too (no reference exists for them).

The machine these run on is often shared: the functions take turns on each chunk of 250 positions in
each of ``--repeat`` rounds, each chunk's best time counts (see :func:`interleaved_best`), and only the
ratios measured in the same process count. ``--results FILE`` appends
this run's figures (positions per second, ratios) under ``--label`` to the JSON file (a list of runs):
bench/results/speed/legal-plays-2026-12-06.json holds the runs before and after the faster generator.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nardy.rules import _movegen as _core  # noqa: E402
from nardy.rules.numbering import head_mode  # noqa: E402
from tests.helpers import random_positions, to_gnubg  # noqa: E402

#: Positions timed at a time: each function's time is the sum over the chunks of its best time on that chunk.
CHUNK = 250


def interleaved_best(fns, n, repeat):
    """Best (lowest) time of each function over ``repeat`` rounds, the functions taking turns on every
    chunk of ``CHUNK`` positions in every round so that a noisy machine affects them alike; the best
    time of each chunk is taken apart (a slow spell spoils one chunk's try, not a whole round), and a
    function's time is the sum over the chunks. ``fns[i](lo, hi)`` handles the positions lo..hi-1."""
    chunks = [(lo, min(n, lo + CHUNK)) for lo in range(0, n, CHUNK)]
    best = [[float("inf")] * len(chunks) for _ in fns]
    for _ in range(repeat):
        for c, (lo, hi) in enumerate(chunks):
            for i, fn in enumerate(fns):
                t = time.perf_counter()
                fn(lo, hi)
                best[i][c] = min(best[i][c], time.perf_counter() - t)
    return [sum(b) for b in best]


def nardy_callables(pairs):
    """(per-call results, per-call plays, batched) callables over the pairs ``lo..hi-1``, warmed up, and a
    counter."""
    positions = [p for p, _ in pairs]
    dice = [d for _, d in pairs]
    rules = positions[0].rules
    hitting, strict = rules.hitting, rules.strict_bear_off
    head = head_mode(rules.head_exception, hitting)

    def per_call_results(lo, hi):
        for p, d in pairs[lo:hi]:
            p.legal_results(d)

    def per_call_plays(lo, hi):
        for p, d in pairs[lo:hi]:
            p.legal_plays(d)

    boards = np.stack([p.array for p in positions])
    dd = np.array(dice, np.int64)
    first = np.array([p.first_turn[0] for p in positions])
    out = np.empty((len(pairs) * 200, 28), np.int8)
    offsets = np.empty(len(pairs) + 1, np.int64)
    counted = np.empty(len(pairs) + 1, np.int64)

    def batched(lo, hi):
        n = _core.batch_results(boards[lo:hi], dd[lo:hi], hitting, strict, first[lo:hi], head, out, offsets)
        assert n >= 0

    _core.batch_results(boards, dd, hitting, strict, first, head, out, counted)
    per_call_results(0, len(pairs))
    per_call_plays(0, len(pairs))
    batched(0, len(pairs))  # compile / warm up
    return [per_call_results, per_call_plays, batched], lambda: int(counted[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--results", type=Path, help="append this run's figures to this JSON file (a list of runs)")
    ap.add_argument("--label", default="", help="what this run measures (e.g. the commit), stored with --results")
    args = ap.parse_args(argv)

    import gnubg_nn

    from tests.rules.test_vs_gnubg import gnubg_selfplay_positions

    half = args.positions // 2
    pairs = gnubg_selfplay_positions(half, args.seed) + random_positions("backgammon", args.positions - half, args.seed)
    rng = random.Random(args.seed)
    pairs = [(p, (rng.randint(1, 6), rng.randint(1, 6))) for p, _ in pairs]
    gboards = [to_gnubg(p.array) for p, _ in pairs]

    def gnubg_calls(lo, hi):
        for gb, (_, d) in zip(gboards[lo:hi], pairs[lo:hi]):
            gnubg_nn.moves(gb, d[0], d[1])

    gnubg_calls(0, len(pairs))
    fns, total = nardy_callables(pairs)
    n = len(pairs)
    g, r, p, b = (n / t for t in interleaved_best([gnubg_calls] + fns, len(pairs), args.repeat))
    print(f"backgammon: {n} positions, {total()} plays in all (best of {args.repeat} interleaved rounds a chunk)")
    print(f"  gnubg-nn moves() per call      {g:12,.0f} positions/s   1.00x (reference)")
    print(f"  nardy legal_results per call   {r:12,.0f} positions/s   {r / g:.2f}x")
    print(f"  nardy legal_plays per call     {p:12,.0f} positions/s   {p / g:.2f}x")
    print(f"  nardy batched (batch_results)  {b:12,.0f} positions/s   {b / g:.2f}x")
    run = {
        "label": args.label,
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()} {platform.processor() or platform.node()}",
        "load_average_1min": round(os.getloadavg()[0], 2),
        "positions": n,
        "repeat": args.repeat,
        "seed": args.seed,
        "backgammon": {
            "plays": total(),
            "gnubg_moves_per_s": round(g),
            "legal_results_per_s": round(r),
            "legal_plays_per_s": round(p),
            "batch_results_per_s": round(b),
            "legal_results_ratio": round(r / g, 2),
            "legal_plays_ratio": round(p / g, 2),
            "batch_results_ratio": round(b / g, 2),
        },
    }
    for game in ("short", "long"):
        gp = random_positions(game, args.positions, args.seed)
        fns, total = nardy_callables(gp)
        r, p, b = (len(gp) / t for t in interleaved_best(fns, len(gp), args.repeat))
        print(
            f"{game}: {len(gp)} positions, {total()} plays; per call {r:,.0f}/s (results), "
            f"{p:,.0f}/s (Play objects); batched {b:,.0f}/s"
        )
        run[game] = {
            "plays": total(),
            "legal_results_per_s": round(r),
            "legal_plays_per_s": round(p),
            "batch_results_per_s": round(b),
        }
    if args.results:
        runs = json.loads(args.results.read_text()) if args.results.exists() else []
        runs.append(run)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        args.results.write_text(json.dumps(runs, indent=1) + "\n")


if __name__ == "__main__":
    main()

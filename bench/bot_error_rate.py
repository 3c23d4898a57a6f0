"""Backgammon error rate: the equity nardy's choice loses against the best play, judged by gnubg-nn 2-ply.

Positions come from GNU Backgammon self-play (gnubg-nn 0-ply playing both sides with seeded random dice);
only positions with a real choice (more than one legal play) are kept. For each position and roll the
judge evaluates, at 2-ply, the position after nardy's choice, after gnubg-nn 0-ply's choice and after
gnubg-nn 2-ply's best play (``gnubg_nn.best_move(..., n=2, list=1)``); the best of these is the
reference. Reported: mean equity loss in millipoints per move (cubeless money equity, 1000 = one point)
for nardy and for gnubg-nn 0-ply on the same positions, and the ratio nardy / gnubg; also split into
race (no contact) and contact positions.

    python bench/bot_error_rate.py --positions 2000 --level advanced
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
from nardy.engine._kernels import is_race  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bot_vs_gnubg import gnubg_board, gnubg_choice  # noqa: E402


def judged_equity(play, plies=2) -> float:
    """The mover's cubeless equity after ``play``, by gnubg-nn at ``plies`` (the next player's view, negated)."""
    res = play.result
    if res.is_game_over():
        o = res.opponent
        if o[0] > 0:
            return 1.0
        return 3.0 if (o[25] > 0 or any(o[q] for q in range(19, 25))) else 2.0
    w, wg, wbg, lg, lbg = gnubg_nn.probabilities(gnubg_board(res.mirror()), plies)
    return -((2 * w - 1) + wg - lg + wbg - lbg)


def sample_positions(n, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        pos = Position.start("backgammon")
        for _ in range(400):
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            plays = pos.legal_plays(dice)
            if len(plays) > 1:
                out.append((pos, dice))
            play = gnubg_choice(pos, dice, 0)
            if play.result.is_game_over():
                break
            pos = play.result.mirror()
    return out[:n]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=2000)
    ap.add_argument("--level", default="advanced")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--weights", default=None)
    ap.add_argument(
        "--results",
        default=None,
        help="also write each position's loss (nardy, gnubg 0-ply; points) to this JSON file, for "
        "paired comparisons of two runs on the same --seed",
    )
    ap.add_argument(
        "--filters",
        default=None,
        help="move filters instead of the shipped ones: 'N0,W0;N1,W1' = keep at most N0 plays within "
        "W0 after 0-ply, N1 within W1 after 1-ply (e.g. '8,0.16;5,0.10')",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    positions = sample_positions(args.positions, args.seed)
    bot = Bot("backgammon", level=args.level, seed=1, weights=args.weights)
    if args.filters:
        try:
            filters = tuple((int(n), float(w)) for n, w in (f.split(",") for f in args.filters.split(";")))
        except ValueError:
            ap.error(f"--filters {args.filters!r}: expected 'N0,W0;N1,W1'")
        bot.searcher.filters = filters
    ours, theirs, race = [], [], []
    for i, (pos, dice) in enumerate(positions):
        plays = pos.legal_plays(dice)
        _, key = gnubg_nn.best_move(gnubg_board(pos), dice[0], dice[1], n=2, b=1)
        opp, mov = gnubg_nn.board_from_position_key(key)
        nxt = Position.from_boards([0] + list(mov[:24]) + [mov[24]], [0] + list(opp[:24]) + [opp[24]])
        best = next(p for p in plays if p.result.mirror() == nxt)
        mine = bot.choose_play(pos, dice)
        g0 = gnubg_choice(pos, dice, 0)
        e = {str(p): judged_equity(p) for p in (best, mine, g0)}
        top = max(e.values())
        race.append(bool(is_race(pos.array, True)))
        ours.append(top - e[str(mine)])
        theirs.append(top - e[str(g0)])
        if (i + 1) % 200 == 0:
            print(
                f"  {i + 1}: nardy {1000 * np.mean(ours):.1f} mp/move, gnubg 0-ply {1000 * np.mean(theirs):.1f}",
                file=sys.stderr,
                flush=True,
            )
    a, b = 1000 * np.mean(ours), 1000 * np.mean(theirs)
    out = {
        "level": args.level,
        "filters": [list(f) for f in bot.searcher.filters],
        "positions": len(ours),
        "nardy_mp_per_move": a,
        "gnubg0_mp_per_move": b,
        "ratio": a / b if b > 0 else float("inf"),
        "nardy_blunders_over_100mp": int(np.sum(np.array(ours) > 0.1)),
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    r = np.array(race)
    for name, m in (("race", r), ("contact", ~r)):
        if m.any():
            out[name] = {
                "positions": int(m.sum()),
                "nardy_mp_per_move": 1000 * float(np.mean(np.array(ours)[m])),
                "gnubg0_mp_per_move": 1000 * float(np.mean(np.array(theirs)[m])),
            }
    if args.results:
        Path(args.results).write_text(json.dumps({"nardy": ours, "gnubg0": theirs, "race": race}))
    print(
        f"error rate vs gnubg-nn 2-ply on {len(ours)} positions: nardy {args.level} {a:.1f} mp/move, "
        f"gnubg-nn 0-ply {b:.1f} mp/move, ratio {out['ratio']:.2f}"
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()

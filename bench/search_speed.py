"""Search speed: what repeated work the 2-ply search skips, against the plain search in the same process.

Three savings, each exact (the same plays, steps and outputs, bit for bit):

- **move generation**: long nardy doubles searched with a transposition table (an intermediate position met
  again is not searched again; :func:`nardy.rules._movegen.generate` with ``transpose``);
- **expansion**: repeated positions of a search batch generated once (:meth:`nardy.engine.search.Searcher._expand`);
- **evaluation**: repeated boards of an evaluation batch evaluated once
  (:meth:`nardy.engine.evaluator.NeuralEvaluator.evaluate_batch`).

For each game, collects positions along games of the 0-ply bot against random play and against the heuristic
player (the opponents of ``bench/bot_levels.py``), then reports:

- long nardy: the doubles of those positions generated with and without the transposition table (us per
  call, ratio, whether every play and its steps agree);
- ``--moves`` of those positions chosen at 2-ply (``grandmaster``) with everything off (reference, 1.00x) and on:
  ms per move, ratio, how many plays agree, and the largest difference of the top-5 hint equities.

    python bench/search_speed.py --games long,short,backgammon --moves 40
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardy import Position
from nardy.engine.evaluator import NeuralEvaluator  # noqa: E402
from nardy.engine.search import Searcher  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402
from nardy.rules import _movegen as _core  # noqa: E402


def sample(game: str, n_games: int, seed: int):
    """(position, dice) of the 0-ply bot along games against random play and the heuristic player."""
    rng = np.random.default_rng(seed)
    spots = []
    for k in range(n_games):
        a = Bot(game, level="advanced", seed=seed + k)
        b = Bot(game, level="random" if k % 2 == 0 else "heuristic", seed=seed + 1000 + k)
        pos = Position.start(game)
        for t in range(600):
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            if game == "backgammon" and t == 0 and dice[0] == dice[1]:
                dice = (dice[0], dice[0] % 6 + 1)
            if t % 2 == 0:
                spots.append((pos, dice))
            r = (a if t % 2 == 0 else b).choose_play(pos, dice).result
            if r.is_game_over():
                break
            pos = r.mirror()
    return spots


def movegen(spots, repeat: int):
    """Doubles of every sampled position through :func:`nardy.rules._movegen.generate`, without and with
    ``transpose``."""
    boards = [(p.array, p.head_limit((d, d))) for p, _ in spots for d in range(1, 7)]
    hitting = spots[0][0].rules.hitting
    strict = spots[0][0].rules.strict_bear_off
    ob = np.empty((_core.MAX_PLAYS, 28), np.int8)
    os_ = np.zeros((_core.MAX_PLAYS, 4, 4), np.int8)
    on = np.empty(_core.MAX_PLAYS, np.int8)
    ok = np.empty((_core.MAX_PLAYS, 2), np.uint64)
    zeros = np.zeros(26, np.int8)

    def run(transpose, keep=None):
        t0 = time.perf_counter()
        for i, (b, hl) in enumerate(boards):
            dice = np.full(4, i % 6 + 1, np.int64)
            n = _core.generate(
                b, zeros, 0, dice, 4, True, hitting, strict, hl, hitting, False, ob, os_, on, ok, transpose
            )
            if keep is not None:
                s = os_[:n].copy()
                for r in range(n):
                    s[r, on[r] :] = 0
                keep.append((ob[:n].copy(), s))
        return time.perf_counter() - t0

    plain, fast = [], []
    run(False, plain)
    run(True, fast)
    same = all(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) for a, b in zip(plain, fast))
    t_plain = min(run(False) for _ in range(repeat)) / len(boards)
    t_fast = min(run(True) for _ in range(repeat)) / len(boards)
    return len(boards), t_plain, t_fast, same


def search(game, spots, moves: int, seed: int):
    """ms per 2-ply move with every saving off (reference) and on; plays agreeing; largest hint difference."""
    rng = np.random.default_rng(seed)
    pick = [spots[i] for i in rng.choice(len(spots), size=min(moves, len(spots)), replace=False)]
    bot = Bot(game, level="grandmaster", seed=seed)
    out = {}
    for mode, on in (("plain", False), ("dedupe", True)):
        Searcher.dedupe = on
        NeuralEvaluator.dedupe_from = 16 if on else 1 << 62
        try:
            bot.choose_play(*pick[0])
            t0 = time.perf_counter()
            plays = [bot.choose_play(p, d).result.id() for p, d in pick]
            dt = (time.perf_counter() - t0) / len(pick)
            hints = [[h.equity for h in bot.hints(p, d, n=5)] for p, d in pick[:10]]
        finally:
            Searcher.dedupe = True
            NeuralEvaluator.dedupe_from = 16
        out[mode] = (dt, plays, hints)
    same = sum(a == b for a, b in zip(out["plain"][1], out["dedupe"][1]))
    diff = max(abs(x - y) for a, b in zip(out["plain"][2], out["dedupe"][2]) for x, y in zip(a, b))
    return len(pick), out["plain"][0], out["dedupe"][0], same, diff


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="long,short,backgammon")
    ap.add_argument("--selfplay", type=int, default=4, help="games per game to sample positions from")
    ap.add_argument("--moves", type=int, default=40, help="positions chosen at 2-ply per game")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    rows = []
    for game in args.games.split(","):
        spots = sample(game, args.selfplay, args.seed)
        row = {"game": game}
        gen = ""
        if game == "long":  # the hitting games search doubles in order instead (no transposition table)
            calls, g_plain, g_fast, g_same = movegen(spots, args.repeat)
            row.update(
                doubles=calls,
                gen_plain_us=1e6 * g_plain,
                gen_us=1e6 * g_fast,
                gen_ratio=g_plain / g_fast,
                gen_same=bool(g_same),
            )
            gen = (
                f"doubles {calls} calls, plain {row['gen_plain_us']:.1f} us (1.00x), transposition table "
                f"{row['gen_us']:.1f} us ({row['gen_ratio']:.2f}x), same plays and steps: {g_same}. "
            )
        n, s_plain, s_fast, same, diff = search(game, spots, args.moves, args.seed)
        row.update(
            moves=n,
            ms_2ply_plain=1e3 * s_plain,
            ms_2ply=1e3 * s_fast,
            search_ratio=s_plain / s_fast,
            same_plays=same,
            max_hint_diff=diff,
        )
        rows.append(row)
        print(
            f"{game}: {gen}2-ply over {n} moves: plain {row['ms_2ply_plain']:.1f} ms (1.00x), dedupe "
            f"{row['ms_2ply']:.1f} ms ({row['search_ratio']:.2f}x), same play {same}/{n}, hint equities differ "
            f"by {diff:.1e}",
            flush=True,
        )
    print(json.dumps(rows))


if __name__ == "__main__":
    main()

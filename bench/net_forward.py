"""Net inference speed: the layer-by-layer batch path against the compiled row kernel, and at 2-ply.

For each game, collects the result boards of every roll along 0-ply self-play games (the batches search
evaluates), encodes them, and times, per row (best of ``--repeat``):

- ``kernel``: :func:`nardy.engine._kernels.forward_batch` (numba, one row at a time, zero inputs skipped),
  the reference (1.00x);
- ``batch``: :meth:`nardy.engine.net.Net.forward_inputs` on batches of ``DENSE_BATCH`` rows or more (compiled
  sparse products per layer, numpy's vectorised ``exp`` for the sigmoids);
- the largest output difference between the two;
- ``encode``: :func:`nardy.engine._kernels.encode_batch` per row, for scale;
- ``boards``: :meth:`nardy.engine.net.Net.forward_boards` (the encoding fused into the first layer, what the
  evaluators call) against ``encode`` + ``batch``, and whether the outputs are bit for bit the same.

Then ranks ``--moves`` positions of those games at 2-ply (the ``grandmaster`` search) with the kernel
forced (``DENSE_BATCH`` raised out of reach) and with the default, and reports ms per move, the ratio and
whether the chosen plays agree.

With ``--hidden2 32,64`` it also times nets with a second hidden layer of those widths (the shipped net with a
seeded random ``V``, zero ``c`` and ``U``: the same outputs, so a 2-ply search ranks the same candidates and
only the second layer's cost differs; the phase nets stay as shipped), in the same process against the
shipped one-layer net: per row on the ``kernel``, ``batch`` and ``boards`` paths, and ms per move at 2-ply
(each the best of ``--repeat`` rounds, the nets taking turns in every round), with the plays checked the same.

    python bench/net_forward.py --games short,long,backgammon
    python bench/net_forward.py --games backgammon --hidden2 32,64 --results bench/results/speed/F.json
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
from nardy.engine import _kernels as K  # noqa: E402
from nardy.engine import net as netmod  # noqa: E402
from nardy.engine.net import Net  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402


def sample(game: str, n_games: int, seed: int):
    """(positions with dice along 0-ply self-play, all their result boards stacked)."""
    rng = np.random.default_rng(seed)
    bot = Bot(game, level="advanced", seed=seed)
    spots, boards = [], []
    for _ in range(n_games):
        pos = Position.start(game)
        for _ in range(600):
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            res = pos.legal_results(dice)
            boards.append(res)
            spots.append((pos, dice))
            r = bot.choose_play(pos, dice).result
            if r.is_game_over():
                break
            pos = r.mirror()
    return spots, np.concatenate(boards)


def spread_spots(game: str, n_games: int, seed: int, n: int, choices_only: bool = False) -> list:
    """``n`` (position, dice) pairs of :func:`sample`'s self-play spread evenly over its games (all of them
    when there are fewer); ``choices_only`` keeps only rolls with more than one legal play."""
    spots, _ = sample(game, n_games, seed)
    if choices_only:
        spots = [(p, d) for p, d in spots if len(p.legal_plays(d)) > 1]
    idx = np.linspace(0, len(spots) - 1, min(n, len(spots))).astype(int)
    return [spots[i] for i in idx]


def best_time(f, repeat):
    f()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best


def with_silent_layer(net: Net, hidden2: int, seed: int) -> Net:
    """``net`` with a second hidden layer of ``hidden2`` units that does not change its outputs (``V``
    normal(0, 0.1) seeded, ``c`` and ``U`` zero); the phase nets kept."""
    rng = np.random.default_rng(seed)
    V = rng.standard_normal((net.hidden, hidden2)) * 0.1
    deep = Net(net.game, *net.weights, V=V, c=np.zeros(hidden2), U=np.zeros((hidden2, net.n_outputs)))
    deep.race, deep.crashed = net.race, net.crashed
    return deep


def deep_rows(game, net, x, boards, pick, widths, repeat, seed) -> list[dict]:
    """Per-row and 2-ply costs of deep versions of ``net`` (:func:`with_silent_layer`) against ``net`` itself."""
    zeros = np.zeros(boards.shape[0], np.bool_)
    n = boards.shape[0]
    nets = {0: net, **{w: with_silent_layer(net, w, seed) for w in widths}}
    per_row = {w: {"kernel_us": np.inf, "batch_us": np.inf, "boards_us": np.inf} for w in nets}
    for _ in range(repeat):  # the nets in turn, round by round (best of the rounds): load hits them alike
        for w, m in nets.items():
            for key, f in (
                ("kernel_us", lambda m=m: K.forward_batch(*m.kernel_weights, x)),
                ("batch_us", lambda m=m: m.forward_inputs(x)),
                ("boards_us", lambda m=m: m.forward_boards(boards, zeros, zeros)),
            ):
                per_row[w][key] = min(per_row[w][key], 1e6 * best_time(f, 1) / n)
    bots = {w: Bot(game, level="grandmaster", seed=seed, weights=m) for w, m in nets.items()}
    plays, best = {}, {w: float("inf") for w in nets}
    for b in bots.values():
        b.choose_play(*pick[0])
    for _ in range(repeat):
        for w, b in bots.items():
            t0 = time.perf_counter()
            plays[w] = [b.choose_play(p, d).result.id() for p, d in pick]
            best[w] = min(best[w], (time.perf_counter() - t0) / len(pick))
    out = []
    base = per_row[0]
    for w in widths:
        r = per_row[w]
        row = {
            "game": game,
            "hidden": net.hidden,
            "hidden2": w,
            **{k: round(v, 3) for k, v in r.items()},
            **{f"one_layer_{k}": round(v, 3) for k, v in base.items()},
            "boards_ratio": round(r["boards_us"] / base["boards_us"], 2),
            "batch_ratio": round(r["batch_us"] / base["batch_us"], 2),
            "kernel_ratio": round(r["kernel_us"] / base["kernel_us"], 2),
            "moves": len(pick),
            "ms_2ply": round(1e3 * best[w], 1),
            "one_layer_ms_2ply": round(1e3 * best[0], 1),
            "search_ratio": round(best[w] / best[0], 2),
            "same_plays": sum(a == b for a, b in zip(plays[w], plays[0])),
            "same_outputs": bool(
                np.array_equal(nets[w].forward_boards(boards, zeros, zeros), net.forward_boards(boards, zeros, zeros))
            ),
        }
        out.append(row)
        print(
            f"{game} {net.hidden} + {w} hidden: per board {r['boards_us']:.2f} us against the one-layer "
            f"{base['boards_us']:.2f} us ({row['boards_ratio']:.2f}x; batch {r['batch_us']:.2f} against "
            f"{base['batch_us']:.2f} us, {row['batch_ratio']:.2f}x; row kernel {r['kernel_us']:.2f} against "
            f"{base['kernel_us']:.2f} us, {row['kernel_ratio']:.2f}x); 2-ply {row['ms_2ply']:.1f} ms a move "
            f"against {row['one_layer_ms_2ply']:.1f} ({row['search_ratio']:.2f}x), same plays "
            f"{row['same_plays']}/{len(pick)}, same outputs: {row['same_outputs']}",
            flush=True,
        )
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="short,long,backgammon")
    ap.add_argument("--selfplay", type=int, default=10, help="self-play games per game to sample from")
    ap.add_argument("--moves", type=int, default=40, help="positions ranked at 2-ply per game")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--hidden2", default="", help="widths of second hidden layers to time too, e.g. 32,64")
    ap.add_argument("--results", default=None, help="write the rows (JSON) to this file")
    args = ap.parse_args(argv)
    widths = [int(w) for w in args.hidden2.split(",") if w]
    rows, deep = [], []
    for game in args.games.split(","):
        spots, boards = sample(game, args.selfplay, args.seed)
        bot = Bot(game, level="grandmaster", seed=args.seed)
        net = bot.evaluator.net
        n = boards.shape[0]
        zeros = np.zeros(n, np.bool_)
        x = K.encode_batch(boards, net.code, zeros, zeros)
        t_enc = best_time(lambda: K.encode_batch(boards, net.code, zeros, zeros), args.repeat) / n
        t_k = best_time(lambda: K.forward_batch(*net.kernel_weights, x), args.repeat) / n
        t_b = best_time(lambda: net.forward_inputs(x), args.repeat) / n
        diff = float(np.abs(net.forward_inputs(x) - K.forward_batch(*net.kernel_weights, x)).max())
        t_fb = best_time(lambda: net.forward_boards(boards, zeros, zeros), args.repeat) / n
        fused_same = bool(np.array_equal(net.forward_boards(boards, zeros, zeros), net.forward_inputs(x)))
        rng = np.random.default_rng(args.seed)
        pick = [spots[i] for i in rng.choice(len(spots), size=min(args.moves, len(spots)), replace=False)]
        timing, plays = {}, {}
        saved = netmod.DENSE_BATCH
        try:
            for mode, threshold in (("kernel", 1 << 62), ("batch", saved)):
                netmod.DENSE_BATCH = threshold
                bot.choose_play(*pick[0])
                t0 = time.perf_counter()
                plays[mode] = [bot.choose_play(p, d).result.id() for p, d in pick]
                timing[mode] = (time.perf_counter() - t0) / len(pick)
        finally:
            netmod.DENSE_BATCH = saved
        same = sum(a == b for a, b in zip(plays["kernel"], plays["batch"]))
        row = {
            "game": game,
            "rows": n,
            "encode_us": 1e6 * t_enc,
            "kernel_us": 1e6 * t_k,
            "batch_us": 1e6 * t_b,
            "forward_ratio": t_k / t_b,
            "max_diff": diff,
            "moves": len(pick),
            "ms_2ply_kernel": 1e3 * timing["kernel"],
            "ms_2ply_batch": 1e3 * timing["batch"],
            "search_ratio": timing["kernel"] / timing["batch"],
            "same_plays": same,
            "boards_us": 1e6 * t_fb,
            "fused_ratio": (t_enc + t_b) / t_fb,
            "fused_same": fused_same,
        }
        rows.append(row)
        print(
            f"{game}: {n} rows; forward per row kernel {row['kernel_us']:.2f} us (1.00x), batch "
            f"{row['batch_us']:.2f} us ({row['forward_ratio']:.2f}x faster), max diff {diff:.1e}; encode "
            f"{row['encode_us']:.2f} us. 2-ply over {len(pick)} moves: kernel {row['ms_2ply_kernel']:.1f} ms, "
            f"batch {row['ms_2ply_batch']:.1f} ms ({row['search_ratio']:.2f}x), same play {same}/{len(pick)}. "
            f"Encoding fused into the first layer: {row['boards_us']:.2f} us per row against encode + batch "
            f"{1e6 * (t_enc + t_b):.2f} us ({row['fused_ratio']:.2f}x), same bits: {fused_same}",
            flush=True,
        )
        if widths:
            deep += deep_rows(game, net, x, boards, pick, widths, args.repeat, args.seed)
    print(json.dumps(rows))
    if deep:
        print(json.dumps(deep))
    if args.results:
        Path(args.results).parent.mkdir(parents=True, exist_ok=True)
        Path(args.results).write_text(json.dumps({"one_layer": rows, "deep": deep}, indent=1) + "\n")


if __name__ == "__main__":
    main()

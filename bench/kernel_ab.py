"""The compiled kernels of another commit against this checkout's, in one process: batch forward and 2-ply.

Loads the kernels as they are at ``--ref`` (the ``nardy`` package of that commit, ``git archive``, unpacked as
``nardy_ref``: :mod:`nardy.engine._kernels` gathers kernels of several modules) and swaps them
in for :mod:`nardy.engine._kernels` in the modules that use it (the net, the evaluators, search), round by
round, alternating with this checkout's kernels, so both run on the same machine state (this machine is
shared and noisy: the ratio is the figure, the absolute times are upper bounds). For each game it reports:

- ``forward``: :meth:`nardy.engine.net.Net.forward_boards` over the result boards of every roll along 0-ply
  self-play (the batches search evaluates), us per board (best of the rounds), and whether the outputs of
  the two kernels are the same bit for bit;
- ``2-ply``: ``--positions`` of those positions chosen at 2-ply (``grandmaster``), process CPU ms per move
  (mean over the rounds), and how many chosen plays agree.

    python bench/kernel_ab.py --ref 44c88f9 --games backgammon --positions 60 --rounds 3
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from net_forward import sample  # noqa: E402

from nardy.engine import _kernels as NEW  # noqa: E402
from nardy.engine import bot as bot_mod  # noqa: E402
from nardy.engine import evaluator as evaluator_mod  # noqa: E402
from nardy.engine import net as net_mod  # noqa: E402
from nardy.engine import search as search_mod  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402

USERS = (net_mod, evaluator_mod, search_mod, bot_mod)


def load_reference(ref: str, folder: Path):
    """The kernels module of commit ``ref``: its ``nardy`` package unpacked into ``folder`` as ``nardy_ref`` (the
    kernels import their sibling modules and the move generator), compiled by numba there."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "nardy"], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    (folder / "nardy").rename(folder / "nardy_ref")
    sys.path.insert(0, str(folder))
    for name in ("nardy_ref.engine._kernels", "nardy_ref.bots._kernels"):  # before the layer packages: bots
        if importlib.util.find_spec(name.rsplit(".", 1)[0]) is not None:
            return importlib.import_module(name)
    raise SystemExit(f"no kernels module in {ref}")


def use(kernels) -> None:
    for m in USERS:
        m.K = kernels


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ref", required=True, help="the commit whose kernels are the reference (1.00x)")
    ap.add_argument("--games", default="backgammon")
    ap.add_argument("--selfplay", type=int, default=8)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        old = load_reference(args.ref, Path(tmp))
        rows = [run_game(g, old, args) for g in args.games.split(",")]
    print(json.dumps(rows))


def run_game(game, old, args):
    spots, boards = sample(game, args.selfplay, args.seed)
    step = max(1, len(spots) // args.positions)
    spots = spots[::step][: args.positions]
    flags = np.zeros(len(boards), bool)
    kinds = (("reference", old), ("this", NEW))
    fwd = {k: float("inf") for k, _ in kinds}
    cpu = {k: 0.0 for k, _ in kinds}
    outs, plays = {}, {}
    for r in range(args.rounds):
        for name, kern in kinds if r % 2 == 0 else kinds[::-1]:
            use(kern)
            bot = Bot(game, level="grandmaster", seed=args.seed)
            net = bot.evaluator.net
            outs[name] = net.forward_boards(boards, flags, flags)  # compiles on the first round
            t0 = time.perf_counter()
            net.forward_boards(boards, flags, flags)
            fwd[name] = min(fwd[name], (time.perf_counter() - t0) / len(boards) * 1e6)
            bot.choose_play(*spots[0])
            t0 = time.process_time()
            chosen = [str(bot.choose_play(p, d)) for p, d in spots]
            cpu[name] += (time.process_time() - t0) / len(spots) * 1000 / args.rounds
            plays[name] = chosen
    use(NEW)
    same_plays = sum(a == b for a, b in zip(plays["reference"], plays["this"]))
    row = {
        "game": game,
        "ref": args.ref,
        "boards": len(boards),
        "forward_us_ref": fwd["reference"],
        "forward_us": fwd["this"],
        "forward_ratio": fwd["reference"] / fwd["this"],
        "same_bits": bool(np.array_equal(outs["reference"], outs["this"])),
        "positions": len(spots),
        "rounds": args.rounds,
        "ms_2ply_cpu_ref": cpu["reference"],
        "ms_2ply_cpu": cpu["this"],
        "ratio_2ply": cpu["reference"] / cpu["this"],
        "same_plays": same_plays,
    }
    print(
        f"{game}: forward {row['forward_us_ref']:.2f} -> {row['forward_us']:.2f} us a board "
        f"({row['forward_ratio']:.2f}x, same bits: {row['same_bits']}); 2-ply over {len(spots)} positions x "
        f"{args.rounds} rounds: {row['ms_2ply_cpu_ref']:.1f} -> {row['ms_2ply_cpu']:.1f} CPU ms a move "
        f"({row['ratio_2ply']:.2f}x), same plays {same_plays}/{len(spots)}",
        file=sys.stderr,
    )
    return row


if __name__ == "__main__":
    main()

"""The error of nets' 0-ply evaluations against long rollouts (any game; meant for the nardy games).

Positions: pre-roll positions of a net's 0-ply self-play (``--draw``, default the shipped net; a random play
5% of the time, each position kept with chance 0.02, :func:`nardy.engine.rollout.sample_positions`) from
``--seed``, distinct, the game not over, and not in the bearoff database's reach (there every evaluator
answers exactly: nothing to measure).
Each is rolled out ``--trials`` times by each ``--rollers`` net at 0-ply (first two rolls stratified, later
ones from the seed, no variance reduction: in the nardy games it cuts the variance 9-11x at 27-35x the time,
so plain trials give a tighter figure per CPU second; :func:`nardy.engine._rollout.rollout_batch`). Then each
``--nets`` net's 0-ply cubeless money equity (the evaluator the bots play with: the net, the bearoff
database where it applies) is compared with each roller's result:

* ``mae``: mean absolute equity error, points per game, with a 95% interval over positions;
* ``rmse``: root mean squared error less the rollouts' own noise (``sqrt(mean((e - r)^2) - mean(se^2))``,
  ``se`` the rollout's standard error): the error against the rollouts' true means;
* ``paired``: for each net after the first, its absolute error minus the first net's on the same positions
  (95% interval): negative is closer to the rollouts.

A rollout by a net estimates the value of that net's own play, so each net is judged against the rollouts of
every roller (the shipped net and a new one, say): a net that is closer to both rollouts is the better
evaluator, not merely the one that agrees with itself.

    python bench/rollout_error.py --game long --positions 500 --trials 1296 \\
        --rollers old=OLD.npz,new=nardy/data/long.npz --nets old=OLD.npz,new=nardy/data/long.npz \\
        --results bench/results/long/rollout-error-long.json

The rollouts are saved to ``--results`` (JSON: positions as IDs, every roller's means and errors), and a
rerun with the same arguments reads them instead of rolling out again (``--nets`` may change).
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
from nardy.engine.evaluator import HybridEvaluator, money_equity  # noqa: E402
from nardy.engine.net import Net, shipped_path  # noqa: E402
from nardy.engine.rollout import rollout_boards, sample_positions  # noqa: E402
from nardy.rules.variants import get_rules  # noqa: E402


def load_net(spec: str, game: str) -> Net:
    """A net from ``shipped``, a weights file, or ``NAME=FILE`` (a file shown under a name of its own).

    Raises:
        SystemExit: the file holds a net of another game than ``game``.
    """
    path = spec.partition("=")[2] or spec
    net = Net.load(shipped_path(game) if path == "shipped" else path)
    if net.game != game:
        raise SystemExit(f"{spec}: a {net.game} net, not {game}")
    return net


def label(spec: str) -> str:
    """The name a net is reported and saved under: NAME of ``NAME=FILE``, else the spec itself."""
    name, eq, _ = spec.partition("=")
    return name if eq else spec


def draw_positions(game: str, n: int, seed: int, net: Net):
    """``n`` distinct positions of ``net``'s self-play that the bearoff database does not answer."""
    ev = HybridEvaluator(net)
    boards, firsts = sample_positions(net, 20 * n, seed, 0.05, 0.02)
    keep, seen = [], set()
    for i, (b, f) in enumerate(zip(boards, firsts)):
        key = (b.tobytes(), bool(f[0]), bool(f[1]))
        if key in seen or Position(b.tobytes(), get_rules(game), (bool(f[0]), bool(f[1]))).is_game_over():
            continue
        if ev.race is not None and ev.race.applies(b.reshape(1, 28))[0]:
            continue
        seen.add(key)
        keep.append(i)
    # spread over the games: a seeded sample of the candidates, kept in drawing order
    pick = np.sort(np.random.default_rng(seed).choice(len(keep), min(n, len(keep)), replace=False))
    idx = np.array(keep)[pick]
    return boards[idx].copy(), firsts[idx].copy()


def roll_out(net: Net, boards, firsts, trials: int, seed: int):
    """Rollout means ``float32[n, K]``, equities and their standard errors (points per game)."""
    mean, se, _ = rollout_boards(net, boards, firsts, trials, seed)
    return mean, money_equity(mean, net.game), se


def ci95(x) -> float:
    x = np.asarray(x, np.float64)
    return float(1.96 * x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", default="long")
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--draw", default="shipped", help="the net whose self-play the positions come from")
    ap.add_argument("--rollers", default="shipped", help="comma-separated nets that roll out: shipped or files")
    ap.add_argument("--nets", default="shipped", help="comma-separated nets to judge: shipped or files")
    ap.add_argument("--results", default=None, help="JSON file of the rollouts (read when present, else written)")
    a = ap.parse_args(argv)
    game = Position.start(a.game).game
    saved = {}
    if a.results and Path(a.results).exists():
        saved = json.loads(Path(a.results).read_text())
        if (saved["game"], saved["seed"], saved["trials"]) != (game, a.seed, a.trials):
            sys.exit(f"{a.results} holds other rollouts ({saved['game']}, seed {saved['seed']}, {saved['trials']})")
        ids = saved["positions"]
        pos = [Position.from_id(p, game) for p in ids]
        boards = np.array([p.array for p in pos], np.int8)
        firsts = np.array([p.first_turn for p in pos], np.bool_)
    else:
        t0 = time.perf_counter()
        boards, firsts = draw_positions(game, a.positions, a.seed, load_net(a.draw, game))
        ids = [Position(b.tobytes(), get_rules(game), (bool(f[0]), bool(f[1]))).id() for b, f in zip(boards, firsts)]
        saved = {"game": game, "seed": a.seed, "trials": a.trials, "positions": ids, "rollouts": {}}
        print(f"{len(ids)} positions drawn in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    for spec in a.rollers.split(","):
        if label(spec) in saved["rollouts"]:
            continue
        net = load_net(spec, game)
        t0 = time.perf_counter()
        mean, eq, se = roll_out(net, boards, firsts, a.trials, a.seed)
        dt = time.perf_counter() - t0
        saved["rollouts"][label(spec)] = {
            "means": mean.round(6).tolist(),
            "equity": eq.round(6).tolist(),
            "se": se.round(6).tolist(),
            "seconds": round(dt, 1),
            "trials_per_second": round(len(boards) * a.trials / dt, 1),
        }
        print(f"rolled out by {label(spec)}: {dt:.0f} s, {len(boards) * a.trials / dt:.0f} trials/s", file=sys.stderr)
        if a.results:
            Path(a.results).write_text(json.dumps(saved))
    nets = a.nets.split(",")
    evals = {}
    for spec in nets:
        ev = HybridEvaluator(load_net(spec, game))
        evals[label(spec)] = money_equity(ev.evaluate_batch(boards, firsts), game).astype(np.float64)
    report = {"game": game, "positions": len(boards), "trials": a.trials, "judged": {}}
    for roller, r in saved["rollouts"].items():
        req = np.array(r["equity"], np.float64)
        se = np.array(r["se"], np.float64)
        rows = {}
        base = None
        for spec in map(label, nets):
            err = evals[spec] - req
            ae = np.abs(err)
            row = {
                "mae": round(float(ae.mean()), 4),
                "mae_ci95": round(ci95(ae), 4),
                "rmse": round(float(np.sqrt(max(0.0, (err**2).mean() - (se**2).mean()))), 4),
                "bias": round(float(err.mean()), 4),
            }
            if base is None:
                base = ae
            else:
                row["paired_mae"] = round(float((ae - base).mean()), 4)
                row["paired_ci95"] = round(ci95(ae - base), 4)
            rows[spec] = row
        report["judged"][roller] = {"rollout_se_mean": round(float(se.mean()), 4), "nets": rows}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()

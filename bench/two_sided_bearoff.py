"""Does a two-sided bearoff database pay? Exact race odds against the one-sided database's estimate.

Builds, in memory, the exact two-sided bearoff table for every pair of bear-off positions with up to
``--checkers`` checkers a side on the 6 home points (backgammon's bear-off, docs/rules.md rule 5; no gammons are
possible since both sides have borne checkers off): ``P[a, b]`` = the chance that the side on roll with
position ``a`` wins against ``b``, each side choosing, for every roll, the play that maximises its own
chance (dynamic programming over the pairs in order of total pips).

Against it, the one-sided estimate nardy uses (:mod:`nardy.engine.bearoff`): P(mover's rolls to finish <=
the opponent's), each side's distribution coming from the play that minimises its expected rolls. Reported:

- the error of the estimate, mean and largest, over all pairs (in win chance);
- the equity (cubeless, 2 x win chance here) that choosing plays by the estimate loses against the exact
  best play, averaged over pairs and the 21 rolls, in millipoints per move, and the share of decisions that
  differ. This is the whole cost of not shipping a two-sided table for these endings (at 0-ply; deeper
  search loses less).

    python bench/two_sided_bearoff.py --checkers 6
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from math import comb
from pathlib import Path

import numpy as np
from numba import njit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from nardy.engine.bearoff import _plays_njit, _positions, load_database  # noqa: E402


@njit(cache=True)
def _exact(pos, order):
    """P[a, b] for positions ``pos`` (int8[n, 6], index 0 = no checkers) visited in ``order`` (flat a*n+b)."""
    n = pos.shape[0]
    P = np.zeros((n, n))  # row 0 (the side on roll has finished) is never read: a finishing play counts 1
    out = np.zeros(128, np.int64)
    c = np.zeros(6, np.int8)
    for f in order:
        a = f // n
        b = f % n
        if a == 0 or b == 0:
            continue
        c[:] = pos[a]
        acc = 0.0
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = 1.0 if d1 == d2 else 2.0
                k = _plays_njit(c, d1, d2, out)
                best = 0.0
                for j in range(k):
                    v = 1.0 if out[j] == 0 else 1.0 - P[b, out[j]]
                    if v > best:
                        best = v
                acc += w * best
        P[a, b] = acc / 36.0
    return P


@njit(cache=True)
def _decision_loss(pos, P, W1):
    """Mean loss (win chance) of choosing by ``W1`` against the exact best, and the share of differing
    choices, over all pairs and the 21 rolls (weights 1/36, 2/36)."""
    n = pos.shape[0]
    out = np.zeros(128, np.int64)
    c = np.zeros(6, np.int8)
    loss = 0.0
    differ = 0.0
    pairs = 0
    for a in range(1, n):
        for b in range(1, n):
            c[:] = pos[a]
            pairs += 1
            for d1 in range(1, 7):
                for d2 in range(d1, 7):
                    w = 1.0 if d1 == d2 else 2.0
                    k = _plays_njit(c, d1, d2, out)
                    best = 0.0
                    pick_est = -1.0
                    pick_val = 0.0
                    for j in range(k):
                        v = 1.0 if out[j] == 0 else 1.0 - P[b, out[j]]
                        e = 1.0 if out[j] == 0 else 1.0 - W1[b, out[j]]
                        if v > best:
                            best = v
                        if e > pick_est:
                            pick_est = e
                            pick_val = v
                    loss += w / 36.0 * (best - pick_val)
                    if best - pick_val > 1e-12:
                        differ += w / 36.0
    return loss / pairs, differ / pairs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkers", type=int, default=6, help="checkers per side at most (table size C(6+N, 6)^2)")
    args = ap.parse_args(argv)
    if not 1 <= args.checkers <= 8:
        ap.error(f"--checkers {args.checkers}: expected 1..8 (the table grows as C(6+N, 6)^2)")
    t0 = time.perf_counter()
    n = comb(6 + args.checkers, 6)
    pos = _positions()[:n].astype(np.int8)
    pips = (pos.astype(np.int64) * np.arange(1, 7)).sum(axis=1)
    order = np.argsort((pips[:, None] + pips[None, :]).ravel(), kind="stable").astype(np.int64)
    P = _exact(pos, order)
    t_build = time.perf_counter() - t0
    db = load_database()
    rolls = db.rolls[:n].astype(np.float64)
    tail = np.cumsum(rolls[:, ::-1], axis=1)[:, ::-1]  # P(Y >= r)
    W1 = np.clip(rolls @ tail.T, 0.0, 1.0)  # W1[a, b] = P(X_a <= Y_b)
    err = np.abs(W1[1:, 1:] - P[1:, 1:])
    loss, differ = _decision_loss(pos, P, W1)
    out = {
        "checkers": args.checkers,
        "positions_per_side": n,
        "pairs": (n - 1) ** 2,
        "estimate_error_mean": float(err.mean()),
        "estimate_error_max": float(err.max()),
        "decision_loss_mp_per_move": 1000 * 2 * loss,
        "decisions_differing": differ,
        "table_mb_float32": round(n * n * 4 / 1e6, 1),
        "build_s": round(t_build, 1),
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    print(
        f"{args.checkers} checkers a side ({n} positions, {(n - 1) ** 2:,} pairs): one-sided estimate off by "
        f"{out['estimate_error_mean']:.5f} on average, {out['estimate_error_max']:.4f} at most; choosing plays by "
        f"it loses {out['decision_loss_mp_per_move']:.4f} mp/move ({100 * differ:.2f}% of decisions differ)"
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()

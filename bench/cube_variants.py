"""Paired variants of nardy's cube decisions on the positions of a ``cube_vs_bgsage.py --match`` results file.

Reads the file's positions, scores, cubes and the judge's equities (bgsage N-ply, normalised), asks nardy's
grandmaster (2-ply probabilities) and a variant on every position (or the first ``--limit`` of each entry),
and reports the variant's sum per position minus grandmaster's (doubler + taker error, mp, as
``cube_vs_bgsage.py`` counts them) per entry with a 95% interval over the paired positions. Variants:

* ``3ply-close``: where the 2-ply decision is close (doubler margin ``|min(DT, DP) - ND|`` or, when doubling,
  take margin ``|DP - DT|`` below ``--margin`` in normalised equity), decide again on 3-ply probabilities;
* ``race-x-mean``: in races, the cube efficiency from the mean of both sides' pip counts (bgsage's
  ``cube_efficiency``) instead of the side on roll's (GNU Backgammon's).

    python bench/cube_variants.py --results match.json --variant 3ply-close --limit 300 --out v.json
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
from nardy.flow.bot import Bot  # noqa: E402
from nardy.flow.cubetheory import cube_decision  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cube_vs_bgsage import per_position, state_of  # noqa: E402


def normalised(eqs: dict, st) -> tuple[float, float]:
    """(doubler margin, take margin) of nardy's ND/DT/DP in the judge's units (a cube won +1, lost -1)."""
    nd, dt, dp = eqs["no double"], eqs["double/take"], eqs["double/pass"]
    if st.length:
        from nardy.flow.met import get_met

        met = get_met("backgammon")
        a, b = st.length - st.score[0], st.length - st.score[1]
        w, lo = met.mwc_after(a - st.cube_value, b, a, b), met.mwc_after(a, b - st.cube_value, a, b)
        nd, dt, dp = (2 * (v - lo) / (w - lo) - 1 for v in (nd, dt, dp))
    return min(dt, dp) - nd, dp - dt


def race_x_mean(pos) -> float:
    pips = pos.pip_count()
    return float(min(0.7, max(0.6, 0.55 + 0.00125 * (pips[0] + pips[1]) / 2)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--variant", required=True, choices=("3ply-close", "race-x-mean"))
    ap.add_argument("--margin", type=float, default=0.04)
    ap.add_argument("--limit", type=int, default=0, help="first N positions of each entry (0: all)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    d = json.loads(Path(args.results).read_text())
    length = np.array(d["length"])
    keep = np.ones(len(length), bool)
    if args.limit:
        keep[:] = False
        for n in set(length.tolist()):
            keep[np.flatnonzero(length == n)[: args.limit]] = True
    idx = np.flatnonzero(keep)
    eq = np.array(d["judge_eq"])[idx]
    bot = Bot("backgammon", level="grandmaster")
    base = np.zeros((len(idx), 2), bool)
    var = np.zeros((len(idx), 2), bool)
    changed = asked = 0
    t0 = time.perf_counter()
    for j, i in enumerate(idx):
        it = {
            "position": Position.from_id(d["ids"][i], "backgammon"),
            "kind": "match" if d["length"][i] else ("owned" if d["cube"][i][1] == "player" else "money"),
            "length": d["length"][i],
            "away": tuple(d["away"][i]),
            "cube_value": d["cube"][i][0],
            "owner": d["cube"][i][1],
        }
        st = state_of(it)
        c2 = bot.cube_action(st)
        base[j] = c2.double, c2.take
        var[j] = base[j]
        if args.variant == "3ply-close":
            g, t = normalised(c2.equities, st)
            if abs(g) < args.margin or (g > -args.margin and abs(t) < args.margin):
                asked += 1
                c3 = bot.cube_action(st, ply=3)
                var[j] = c3.double, c3.take
        elif K.is_race(it["position"].array, True):
            asked += 1
            cv = cube_decision(
                lambda p, pr=c2.probabilities: pr, st, scoring=(1, 2, 3), efficiency=race_x_mean(it["position"])
            )
            var[j] = cv.double, cv.take
        changed += bool((var[j] != base[j]).any())
    secs = time.perf_counter() - t0
    db, tb = per_position(eq, base)
    dv, tv = per_position(eq, var)
    sb, sv = db + np.nan_to_num(tb), dv + np.nan_to_num(tv)
    out = {
        "variant": args.variant,
        "margin": args.margin,
        "positions": len(idx),
        "asked": asked,
        "changed": changed,
        "s": round(secs, 1),
        "entries": {},
    }
    for n in sorted(set(length[idx].tolist())):
        m = length[idx] == n
        diff = (sv - sb)[m]
        out["entries"]["money" if n == 0 else f"{n}-point"] = {
            "grandmaster_sum_mp": round(1000 * float(sb[m].mean()), 3),
            "variant_sum_mp": round(1000 * float(sv[m].mean()), 3),
            "paired_mp": round(1000 * float(diff.mean()), 3),
            "paired_ci": round(1000 * 1.96 * float(diff.std(ddof=1)) / np.sqrt(m.sum()), 3),
        }
    diff = sv - sb
    out["all_paired_mp"] = round(1000 * float(diff.mean()), 3)
    out["all_paired_ci"] = round(1000 * 1.96 * float(diff.std(ddof=1)) / np.sqrt(len(diff)), 3)
    print(json.dumps(out, indent=1))
    if args.out:
        Path(args.out).write_text(
            json.dumps({**out, "index": idx.tolist(), "base": base.tolist(), "variant_dec": var.tolist()})
        )


if __name__ == "__main__":
    main()

"""Trials per second of ``nardy analyse --rollout`` (:func:`nardy.analysis.rollouts.rollout_analysis`): in this
process (the kernel on all its threads), on local processes (one kernel thread each), and on Ray started on
this machine, for the same decisions with the same dice, so the three give the same figures (checked) and
only the speed differs. First, in this process, the same positions rolled out cubeless (the compiled kernel,
nobody doubles) and cubeful (the cube in play, :mod:`nardy.flow.cuberollout`), with and without variance
reduction: what playing the cube costs.

``python bench/analysis_rollout.py [--trials 36] [--truncate 6] [--decisions 6] [--workers 2] [--no-ray] [FILE]``:
the default record is the 3-point match ``gnubg-matches/gnubg-1002.mat`` (13 marked decisions at 0-ply). The
first run of each way loads the net and the compiled kernels (Ray and processes start their workers): it is
timed apart ("start") and the trials/s are of a second run. The load average is printed: the machine is
shared.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT = Path("/work/shared/data/gnubg-matches/gnubg-1002.mat")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--trials", type=int, default=36)
    ap.add_argument("--truncate", type=int, default=6)
    ap.add_argument("--candidates", type=int, default=2)
    ap.add_argument("--decisions", type=int, default=6, help="marked decisions rolled out (the first ones)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args(argv)
    from nardy.analysis import analyse_match, load_match
    from nardy.analysis.rollouts import rollout_analysis, select_decisions

    match = load_match(args.file)
    data = analyse_match(match, level="advanced").to_dict()
    only = select_decisions(data)[: args.decisions]
    kw = dict(trials=args.trials, truncate=args.truncate, candidates=args.candidates, only=only)
    print(
        f"{Path(args.file).name}: {len(only)} decisions, {args.trials} trials truncated at {args.truncate} plies, "
        f"{args.candidates} candidates and the play made; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores"
    )
    cube_costs(data, match, only, args)
    ways = [("this process", dict(workers=1)), (f"{args.workers} processes", dict(workers=args.workers))]
    if not args.no_ray and importlib.util.find_spec("ray") is not None:
        ways.append((f"Ray, {args.workers} CPUs", dict(address="local", workers=args.workers)))
    elif not args.no_ray:
        print("  (ray is not installed: pip install 'nardy[train]')")
    first = None
    for name, how in ways:
        ray = None
        if how.get("address") == "local":
            import ray  # type: ignore[no-redef]

            t = time.perf_counter()
            ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
            print(f"  Ray started in {time.perf_counter() - t:.1f} s")
        try:
            t = time.perf_counter()
            rollout_analysis(data, match, **{**kw, "only": only[:1]}, **how)  # start: load, compile, spawn
            start = time.perf_counter() - t
            t = time.perf_counter()
            out = rollout_analysis(data, match, **kw, **how)
            took = time.perf_counter() - t
        finally:
            if ray is not None:
                ray.shutdown()
        st = out["rollout_status"]
        trials = st["positions"] * args.trials
        figures = [d.get("rollout") for d in out["decisions"]]
        same = "" if first is None else ("; the same figures" if figures == first else "; OTHER FIGURES")
        first = first if first is not None else figures
        print(
            f"  {name:<16} {trials / took:8.1f} trials/s  ({st['positions']} positions, {took:.1f} s; start "
            f"{start:.1f} s){same}; load {os.getloadavg()[0]:.1f}"
        )
    return 0


def cube_costs(data, match, only, args) -> None:
    """Trials/s of the decisions' positions rolled out cubeless and cubeful, in this process."""
    from nardy.analysis.rollouts import _plan, _unit, roll_unit

    plans = _plan(data, match, only, args.candidates)
    for vr in (False, True):
        settings = {"trials": args.trials, "truncate": args.truncate, "seed": 1, "variance_reduction": vr}
        units = [_unit(p, match.rules.name, settings) for p in plans]
        live = [u for u in units if any(c is not None for c in u["cubes"])]
        for name, make in (
            ("cubeless", lambda u: {**u, "cubes": [None] * len(u["boards"])}),
            ("cubeful", lambda u: u),
        ):
            todo = [make(u) for u in live]
            roll_unit({**todo[0], "trials": 2})  # load the net, compile the kernels
            t = time.perf_counter()
            positions = sum(len(roll_unit(u)["rolls"]) for u in todo)
            took = time.perf_counter() - t
            print(
                f"  {name:<9} vr={'on ' if vr else 'off'} {positions * args.trials / took:8.1f} trials/s  "
                f"({positions} positions with the cube live, {took:.1f} s; load {os.getloadavg()[0]:.1f})"
            )


if __name__ == "__main__":
    sys.exit(main())

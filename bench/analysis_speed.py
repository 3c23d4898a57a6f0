"""How long ``nardy analyse`` takes for a 7-point backgammon match at each level (target: under 60 s at the
default level on the project's 2-core machine), with a reference run in the same process: the time the
bot of the same depth takes just to choose the plays of that match (``Bot.choose_play`` for every non-forced
checker decision), so the ratio says what the analysis adds (every candidate searched to full depth, the
played one too, a cube and position evaluation each turn).

``python bench/analysis_speed.py [--levels advanced,expert,grandmaster] [FILE]``: the default record is a
7-point gnubg-BGBlitz match from /work/shared/data/real-mat (5 games, 274 decisions). The load average is
printed, and the CPU time of the analysis beside its wall time: the machine is shared, and under load the CPU
time is the figure that compares. ``--luck-ply N`` sets the luck's depth (default: the level's).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT = Path("/work/shared/data/real-mat/td-gammon-botmatches/002-gnubg-BGBlitz 7-pt 16 (gnubg).mat")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--levels", default="advanced,expert,grandmaster")
    ap.add_argument(
        "--luck-ply", type=int, default=None, help="the luck's depth (default: the level's, one ply below it)"
    )
    args = ap.parse_args(argv)
    from nardy.analysis import Analyser
    from nardy.flow.bot import Bot
    from nardy.records.mat import replay

    match = replay(Path(args.file))
    print(
        f"{Path(args.file).name}: {match.length}-point match, {len(match.games)} games; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    for level in args.levels.split(","):
        an = Analyser(match.rules, level, luck_ply=args.luck_ply)
        an.analyse(match.__class__(match.rules, length=1))  # load the net and compile outside the timing
        t0, c0 = time.perf_counter(), time.process_time()
        data = an.analyse(match).to_dict()
        t, cpu = time.perf_counter() - t0, time.process_time() - c0
        bot = Bot(match.rules, level=level)
        todo = [
            (d["position"], tuple(d["dice"])) for d in data["decisions"] if d["kind"] == "checker" and not d["forced"]
        ]
        from nardy import Position

        t1 = time.perf_counter()
        for pid, dice in todo:
            bot.choose_play(Position.from_id(pid, match.rules), dice)
        ref = time.perf_counter() - t1
        n = len(data["decisions"])
        print(
            f"  {level:<12} {t:6.1f} s ({cpu:.1f} s CPU; luck at {an.luck_ply}-ply)  {n} decisions "
            f"({1000 * t / n:.0f} ms each); the bot choosing the "
            f"{len(todo)} plays: {ref:.1f} s; ratio {t / ref:.1f}; load {os.getloadavg()[0]:.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

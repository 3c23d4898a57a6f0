"""Two or more nets of one game at the same search level, in one process: CPU time per move and agreement.

Positions (with their dice) come from 0-ply self-play of the shipped net (``bench/net_forward.py``'s
``sample``); ``--positions`` of them, spread over the games, are chosen by a :class:`nardy.engine.Engine` of
each net at ``--level`` (default ``grandmaster``, 2-ply), round by round with the nets alternating, so
every net runs on the same machine state (this machine is shared and noisy: the ratio to the first net is
the figure, the absolute times are upper bounds). Reported per net: process CPU ms per move (mean over the
rounds), the ratio to the first net, its hidden units, and how many of its plays equal the first net's.
The first round also compiles and warms up, and is left out.

    python bench/net_ab.py --game long --nets old=OLD.npz,new=nardy/data/long.npz --positions 60 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from net_forward import spread_spots  # noqa: E402
from rollout_error import label, load_net  # noqa: E402

from nardy.engine.net import Net  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402


def parse_nets(spec: str, game: str) -> dict[str, Net]:
    """``NAME=FILE,...`` (or ``shipped``) -> nets by name, in the order given (``bench/rollout_error.py``'s
    ``load_net`` and ``label``)."""
    return {label(item): load_net(item, game) for item in spec.split(",")}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="long")
    ap.add_argument("--nets", required=True, help="NAME=FILE,... (the first is the reference); FILE may be shipped")
    ap.add_argument("--level", default="grandmaster")
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args(argv)
    nets = parse_nets(a.nets, a.game)
    spots = spread_spots(a.game, 4, a.seed, a.positions)
    bots = {name: Bot(a.game, level=a.level, weights=net, seed=a.seed) for name, net in nets.items()}
    cpu = dict.fromkeys(bots, 0.0)
    plays = {}
    for r in range(a.rounds + 1):
        for name, bot in bots.items():
            t0 = time.process_time()
            chosen = [str(bot.choose_play(pos, dice)) for pos, dice in spots]
            if r:  # round 0 compiles and warms up
                cpu[name] += time.process_time() - t0
            plays[name] = chosen
    ref = next(iter(bots))
    rows = []
    for name, net in nets.items():
        ms = 1000 * cpu[name] / a.rounds / len(spots)
        rows.append(
            {
                "net": name,
                "hidden": net.hidden,
                "cpu_ms_per_move": round(ms, 2),
                "ratio": round(ms / (1000 * cpu[ref] / a.rounds / len(spots)), 2),
                "same_plays": sum(p == q for p, q in zip(plays[name], plays[ref])),
            }
        )
        print(
            f"{a.game} {a.level} {name:>10} ({net.hidden} hidden): {ms:6.1f} CPU ms a move, {rows[-1]['ratio']:.2f}x"
            f" {ref}, {rows[-1]['same_plays']}/{len(spots)} plays as {ref}",
            file=sys.stderr,
        )
    print(json.dumps({"game": a.game, "level": a.level, "positions": len(spots), "rounds": a.rounds, "nets": rows}))


if __name__ == "__main__":
    main()

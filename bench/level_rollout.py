"""Two bot levels judged by rollouts on the positions where their plays differ (any game; meant for the
nardy games, which have no outside judge).

Positions (with their dice) come from 0-ply self-play of the shipped net (``bench/net_forward.py``'s
``sample``), only those with more than one legal play; ``--positions`` of them, spread over ``--games``
games. Each is chosen by a :class:`nardy.engine.Engine` at ``--a`` and at ``--b``. Where the two plays differ,
both results are rolled out ``--trials`` times by the shipped net at 0-ply (first two rolls stratified,
later rolls from ``--seed``; :func:`nardy.engine.rollout.rollout_boards`), the two plays of a position with
the same dice (common random numbers: the paired difference is much tighter than either rollout). Where
they agree, the difference is 0. Reported: the mean equity ``a`` gains over ``b`` per position (cubeless
money, the mover's view, millipoints: 1000 = one point) with a 95% interval over positions, the same over
the differing positions only, and the rollouts' mean standard error. A 0-ply rollout values a play by how
the net would go on to play it: a deeper judge than either level's values, not an exact one.

A player may name its weights (``LEVEL:FILE.npz``) to compare two nets at one level; ``--roller FILE`` rolls
out with another net than the shipped one (judge a new net against an old one with both rollers, as
``bench/rollout_error.py`` does, so neither is judged only by its own play).

    python bench/level_rollout.py --game short --a champion --b grandmaster --positions 600
    python bench/level_rollout.py --game short --a champion --b champion:OLD.npz --roller OLD.npz
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from net_forward import spread_spots  # noqa: E402

from nardy.engine.evaluator import money_equity, terminal_probs  # noqa: E402
from nardy.engine.net import Net, shipped_path  # noqa: E402
from nardy.engine.rollout import rollout_boards  # noqa: E402
from nardy.flow.bot import BOT_LEVELS, Bot  # noqa: E402
from nardy.rules.variants import get_rules  # noqa: E402


def play_values(net: Net, plays, trials: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Equity (mover's view, points) of each play's result and its standard error: exact for a finished
    game, else minus the rollout of the result with the other side on roll (row ``i`` rolled out with the
    dice of row ``i`` of any other call with the same ``seed``)."""
    game = net.game
    values = get_rules(game).scoring
    eq = np.zeros(len(plays))
    se = np.zeros(len(plays))
    boards = np.stack([p.result.mirror().array.astype(np.int8) for p in plays])
    firsts = np.array([p.result.mirror().first_turn for p in plays], np.bool_)
    live = []
    for i, b in enumerate(boards):
        t = terminal_probs(b, game)
        if t is None:
            live.append(i)
        else:
            eq[i] = -float(money_equity(t, game, values))
    if live:
        mean, err, _ = rollout_boards(net, boards[live], firsts[live], trials, seed)
        eq[live] = -money_equity(mean, game, values)
        se[live] = err
    return eq, se


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="short")
    ap.add_argument("--a", default="champion", help="the level judged: LEVEL or LEVEL:WEIGHTS.npz")
    ap.add_argument("--b", default="grandmaster", help="the level it is compared with: LEVEL or LEVEL:WEIGHTS.npz")
    ap.add_argument("--roller", default=None, help="weights that roll out (default: the shipped net)")
    ap.add_argument("--positions", type=int, default=600)
    ap.add_argument("--games", type=int, default=30, help="self-play games the positions are spread over")
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--results", default=None, help="write each differing position and its values (JSON)")
    a = ap.parse_args(argv)
    (level_a, _, weights_a), (level_b, _, weights_b) = a.a.partition(":"), a.b.partition(":")
    for lv in (level_a, level_b):
        if lv not in BOT_LEVELS:
            ap.error(f"unknown level {lv!r}: one of {', '.join(BOT_LEVELS)}")
    t0 = time.perf_counter()
    spots = spread_spots(a.game, a.games, a.seed, a.positions, choices_only=True)
    bot_a = Bot(a.game, level=level_a, seed=a.seed, weights=weights_a or None)
    bot_b = Bot(a.game, level=level_b, seed=a.seed, weights=weights_b or None)
    differ = []
    for pos, dice in spots:
        pa, pb = bot_a.choose_play(pos, dice), bot_b.choose_play(pos, dice)
        if pa.result != pb.result:
            differ.append((pos, dice, pa, pb))
    t_choose = time.perf_counter() - t0
    net = Net.load(a.roller or shipped_path(a.game))
    if net.game != a.game:
        ap.error(f"--roller {a.roller}: a {net.game} net, not {a.game}")
    diff = np.zeros(len(spots))
    rows = []
    if differ:
        ea, sa = play_values(net, [x[2] for x in differ], a.trials, a.seed)
        eb, sb = play_values(net, [x[3] for x in differ], a.trials, a.seed)
        d = ea - eb
        diff[: len(d)] = d  # positions where the plays agree add 0; their order does not matter for the mean
        for (pos, dice, pa, pb), x, y, u, v in zip(differ, ea, eb, sa, sb):
            rows.append(
                {
                    "position": pos.id(),
                    "dice": list(dice),
                    "a": str(pa),
                    "b": str(pb),
                    "eq_a": float(x),
                    "eq_b": float(y),
                    "se_a": float(u),
                    "se_b": float(v),
                }
            )
        se_mean = float(np.mean(np.concatenate([sa, sb])))
    else:
        d = np.zeros(0)
        se_mean = 0.0

    def ci(x):
        return 1000 * 1.96 * float(x.std(ddof=1)) / np.sqrt(len(x)) if len(x) > 1 else 0.0

    out = {
        "game": a.game,
        "a": a.a,
        "b": a.b,
        "roller": a.roller or "shipped",
        "positions": len(spots),
        "differ": len(differ),
        "trials": a.trials,
        "mp_per_move": 1000 * float(diff.mean()),
        "ci95": ci(diff),
        "mp_per_differing": 1000 * float(d.mean()) if len(d) else None,
        "ci95_differing": ci(d),
        "a_better": int((d > 0).sum()),
        "rollout_se_mean": se_mean,
        "choose_s": round(t_choose, 1),
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    print(
        f"{a.game}: {a.a} - {a.b} = {out['mp_per_move']:+.2f} ± {out['ci95']:.2f} mp/move over {len(spots)} positions;"
        f" {len(differ)} differ: {out['mp_per_differing'] or 0:+.1f} ± {out['ci95_differing']:.1f} mp each,"
        f" {out['a_better']} better by the rollouts ({a.trials} trials, mean se {se_mean:.4f})",
        file=sys.stderr,
    )
    if a.results:
        Path(a.results).write_text(json.dumps({"summary": out, "positions": rows}))
    print(json.dumps(out))


if __name__ == "__main__":
    main()

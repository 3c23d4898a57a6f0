"""Does the analysis tell the bot levels apart in every game? Bot-vs-bot money games (cubeless, seeded),
each analysed at ``--level``; prints each level's error rate and PR (mp per decision, all its games) and
the mean luck per game of each side (near 0 over many games).

``python bench/analysis_levels.py --games 4 --levels beginner,intermediate,expert --level expert``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=4, help="games per pair of levels and game")
    ap.add_argument("--levels", default="beginner,intermediate,expert", help="levels playing (each against the next)")
    ap.add_argument("--level", default="expert", help="the analysis level")
    ap.add_argument("--variants", default="backgammon,short,long")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    from nardy.analysis import Analyser, match_of_game
    from nardy.flow.bot import Bot
    from nardy.flow.game import Game
    from nardy.rules.dice import DiceSource

    levels = args.levels.split(",")
    for game in args.variants.split(","):
        an = Analyser(game, args.level)
        loss: dict[str, float] = dict.fromkeys(levels, 0.0)
        n: dict[str, int] = dict.fromkeys(levels, 0)
        for a, b in zip(levels, levels[1:]):
            for k in range(args.games):
                seed = args.seed * 1000 + k
                sides = (a, b) if k % 2 == 0 else (b, a)
                g = Game(game, dice=DiceSource(seed=seed), cube=False, players=sides)
                bots = [Bot(game, sides[0], seed=seed), Bot(game, sides[1], seed=seed + 1)]
                g.start()
                while not g.is_over:
                    if g.phase == "roll":
                        g.roll()
                    else:
                        g.play(bots[g.turn].choose_play(g.position, g.dice))
                data = an.analyse(match_of_game(g)).to_dict()
                for side, p in enumerate(data["players"]):
                    loss[sides[side]] += p["total_loss"]
                    n[sides[side]] += p["decisions"]
        row = ", ".join(
            f"{lv} {1000 * loss[lv] / max(n[lv], 1):.1f} mp (PR {500 * loss[lv] / max(n[lv], 1):.1f}, "
            f"{n[lv]} decisions)"
            for lv in levels
        )
        print(f"{game} (analysed at {args.level}, {args.games} games a pair): {row}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

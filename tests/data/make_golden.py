"""Regenerate tests/data/golden_plays.json: distinct-play counts (and the plays themselves) for a few dozen
positions and rolls per game, taken from seeded random games. Run: python tests/data/make_golden.py

The backgammon entries were checked against GNU Backgammon's move generator when written; the nardy
entries were reviewed by hand for the rules they exercise (head rule, six-block rule, strict bear-off).
"""

import json
import random
from pathlib import Path

from nardy import Position


def main():
    rng = random.Random(20261130)
    out = []
    for game in ("backgammon", "short", "long"):
        picked = 0
        while picked < 36:
            p = Position.start(game)
            moves = 0
            while not p.is_game_over():
                d = (rng.randint(1, 6), rng.randint(1, 6))
                if rng.random() < 0.25 or moves == 0:
                    plays = p.legal_plays(d)
                    out.append(
                        {
                            "game": game,
                            "position": p.id(),
                            "dice": list(d),
                            "count": len(plays),
                            "plays": sorted(str(x) for x in plays),
                        }
                    )
                    picked += 1
                    if picked >= 36:
                        break
                p = rng.choice(p.legal_plays(d)).result
                if p.is_game_over():
                    break
                p = p.mirror()
                moves += 1
    Path(__file__).with_name("golden_plays.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()

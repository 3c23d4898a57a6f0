"""How long a board diagram takes to draw (nardy/rules/diagram.py, issue 47), SVG and PNG, the three games.

For each game, ``--positions`` positions of a random game (seeded), drawn with dice, cube, score and names:

* the reference: the positions' Position IDs worked out and the positions decoded again (what any route that
  takes a position pays before it draws);
* ``diagram_svg`` (light theme) and ``diagram_png`` (light theme, scale 1, 790 px wide: what GET
  /api/diagram.png draws when its cache does not have the picture), with the bytes of each answer.

Printed: milliseconds per diagram for each, the PNG's and the SVG's bytes, and the PNG/SVG time ratio.
Nothing is asserted.

    python bench/diagram_speed.py --positions 200
"""

from __future__ import annotations

import argparse
import random
import time

from nardy.rules.diagram import Diagram, diagram_png, diagram_svg
from nardy.rules.position import Position


def positions(game: str, n: int, seed: int) -> list[Position]:
    """``n`` positions met in random play of ``game`` (seeded), each with the side to move's view."""
    rng = random.Random(seed)
    out: list[Position] = []
    pos = Position.start(game)
    while len(out) < n:
        if pos.is_game_over():
            pos = Position.start(game)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        plays = pos.legal_plays(dice)
        out.append(pos)
        pos = (rng.choice(plays).result if plays else pos).mirror()
    return out


def timed(fn, items) -> tuple[float, int]:
    """Milliseconds per item of ``fn`` over ``items``, and the bytes of the last answer."""
    t = time.perf_counter()
    last = b""
    for x in items:
        last = fn(x)
    ms = (time.perf_counter() - t) * 1000 / len(items)
    return ms, len(last.encode() if isinstance(last, str) else last)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"{'game':<11}{'decode ms':>10}{'svg ms':>9}{'png ms':>9}{'svg B':>9}{'png B':>9}{'png/svg':>9}")
    for game in ("backgammon", "short", "long"):
        ps = positions(game, args.positions, args.seed)
        cube = 2 if game == "backgammon" else 0
        ds = [
            Diagram(p, dice=(6, 4), cube=cube, cube_owner=0 if cube else None, score=(2, 1), length=7, names=("A", "B"))
            for p in ps
        ]
        diagram_png(ds[0])  # Pillow and the font loaded before the clock starts
        ids = [p.id() for p in ps]
        ref, _ = timed(lambda pid, g=game: Position.from_id(pid, g).id(), ids)
        svg, svg_b = timed(diagram_svg, ds)
        png, png_b = timed(diagram_png, ds)
        print(f"{game:<11}{ref:>10.3f}{svg:>9.2f}{png:>9.2f}{svg_b:>9}{png_b:>9}{png / svg:>9.1f}")


if __name__ == "__main__":
    main()

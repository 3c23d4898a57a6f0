"""Compile the engine's numba kernels once and leave them in numba's on-disk cache.

``nardy serve`` runs this in a separate process before it starts serving (``--warm-up``, the
default), so that the server itself loads compiled code from the cache instead of compiling in its
own memory: compiling costs tens of megabytes that a long-running server would keep. The first run
after an install takes a while; later runs only load the cache (a second or two).

Run by hand: ``python -m nardy.web.warmup``.
"""

from __future__ import annotations

import sys
import time


def warm_up() -> None:
    from ..flow.bot import Bot
    from ..flow.game import Game
    from ..rules.dice import DiceSource

    for game in ("backgammon", "short", "long"):
        g = Game(game, dice=DiceSource(seed=1))
        g.start()
        for level in ("random", "heuristic", "advanced", "grandmaster"):
            bot = Bot(game, level=level, seed=1)
            for _ in range(3):
                if g.is_over:
                    break
                if g.phase == "roll":
                    bot.cube_action(g)
                    g.roll()
                else:
                    steps = g.legal_steps()
                    if steps:
                        g.step(*steps[0])
                        g.undo_step()
                    g.play(bot.choose_play(g.position, g.dice))
        if not g.is_over:
            bot = Bot(game, level="grandmaster", seed=1)
            bot.evaluate(g.position)
            if g.phase == "move":
                bot.hints(g.position, g.dice, n=3)


def main() -> int:
    t = time.time()
    warm_up()
    print(f"nardy: engine ready ({time.time() - t:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

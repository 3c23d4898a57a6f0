"""Get the engine ready before ``nardy play`` asks its first question, so that no player waits in silence.

The legal-play generator and the computer players are numba kernels, compiled on first use and then kept in
numba's on-disk cache. Right after an install the first computer play of a game took about 15 seconds and
the first refused play about 10, with nothing on the screen. :func:`prepare` runs, once at the start,
everything a game asks of the engine (a roll and its legal plays, single steps and taking them back, a
refused play explained, the computer's play, hint, estimate and cube decision at the levels in use): from
the cache that takes about a second; when it has to compile it says so after a moment, and says when it is
ready (``nardy serve`` does the same in :mod:`nardy.web.warmup`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable

__all__ = ["prepare", "exercise", "NOTICE_AFTER"]

#: Seconds of silence allowed before the notice that the engine is being prepared.
NOTICE_AFTER = 2.5


def exercise(game: str, levels: Iterable[str]) -> None:
    """Run once what a game of ``game`` asks of the engine, with the computer at each of ``levels``."""
    from ..flow.bot import Bot
    from ..flow.match import Match
    from ..rules.dice import FixedDice
    from ..rules.errors import IllegalPlayError
    from ..texts.refusals import step_refusal

    m = Match(game, length=3 if game != "long" else 0, dice=FixedDice([(6, 5), (3, 1), (4, 4), (2, 1)] * 8))
    g = m.new_game(start=True)
    bots = [Bot(game, level=lv, seed=1) for lv in dict.fromkeys(levels)]
    for turn in range(8):  # both sides past their first turns (long nardy's head rule): the search's paths
        if g.is_over:
            break
        if g.phase == "roll":
            if g.cube_enabled:
                for bot in bots:
                    bot.cube_action(m)
            g.roll()
            continue
        if g.phase != "move":
            break
        try:
            g.position.parse_play("24/1", g.dice)  # a refused play, explained
        except IllegalPlayError:
            pass
        steps = g.legal_steps()
        if steps:
            g.step(*steps[0])
            step_refusal(g, 24, 23)
            g.undo_step()
        if turn < 4:
            for bot in bots:
                bot.evaluate(g.position)
                bot.hints(g.position, g.dice, n=3)
        g.play(bots[0].choose_play(g.position, g.dice) if bots else g.legal_plays()[0])


def prepare(game: str, levels: Iterable[str], out, texts) -> float:
    """:func:`exercise` the engine for ``game`` at ``levels`` before play starts; when it takes longer than
    :data:`NOTICE_AFTER` seconds (compiling after an install), tell the player on ``out`` (an
    :class:`~nardy.terminal.render.Output`, in the language of ``texts``) and say when it is ready. Returns the
    seconds it took."""
    t0 = time.monotonic()
    noticed = threading.Event()
    lock = threading.Lock()
    done = False

    def notice():
        with lock:
            if done:
                return
            noticed.set()
            out.line(texts("warming_up"), "dim")

    timer = threading.Timer(NOTICE_AFTER, notice)
    timer.daemon = True
    timer.start()
    try:
        exercise(game, levels)
    finally:
        with lock:
            done = True
            timer.cancel()
    took = time.monotonic() - t0
    if noticed.is_set():
        out.line(texts("warmed_up", seconds=f"{took:.0f}"), "dim")
    return took

"""Time to rebuild a stored web game from its row: the save validator's whole check against the trusted path.

A hosted game (:class:`nardy.web.sessions.HostedGame`) is stored as JSON and rebuilt by
:func:`nardy.web.gamecache.materialise` whenever a process reads a game it does not keep. Data from outside
(an upload, an old file) is checked whole by :mod:`nardy.flow.saved`; a row this server stored itself is
rebuilt with ``check=False`` (issue 42). This script makes matches of increasing length played out at random
(seeded), stores each as the server does (``HostedGame.to_dict``), and prints the best time (of ``--repeat``: the
machine is shared) of ``HostedGame.from_dict(d)`` (checked) and ``HostedGame.from_dict(d, check=False)`` (trusted),
and that both build the same game (equal ``to_dict``).

usage: python bench/web_rebuild.py [--repeat 30] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import time

from nardy.web.sessions import HostedGame, new_session


def played(length: int, seed: int) -> HostedGame:
    """A match to ``length`` points between two people at one screen, played at random (seeded) to its end
    (or 3,000 actions), as the server stores it."""
    s = new_session("backgammon", length=length, opponent="human", seed=seed)
    rng = random.Random(seed)
    g = s.match.current
    for _ in range(3000):
        if s.table.is_over:
            break
        g = s.match.current
        if g.is_over:
            s.act("next")
            continue
        if g.dice is None:
            s.act("roll")
            continue
        plays = g.legal_plays()
        g.play(rng.choice(plays)) if plays else g.play(())
    return s


def best_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    print(f"{'match':>6} {'games':>5} {'events':>6} {'checked ms':>10} {'trusted ms':>10} {'speed-up':>8}")
    for length in (1, 5, 11):
        d = played(length, a.seed).to_dict()
        same = HostedGame.from_dict(d).to_dict() == HostedGame.from_dict(d, check=False).to_dict() == d
        assert same, "the trusted path built another game"
        games = d["table"]["match"]["games"]
        events = sum(len(g["history"]) for g in games)
        checked = best_ms(lambda d=d: HostedGame.from_dict(d), a.repeat)
        trusted = best_ms(lambda d=d: HostedGame.from_dict(d, check=False), a.repeat)
        print(f"{length:>6} {len(games):>5} {events:>6} {checked:>10.2f} {trusted:>10.2f} {checked / trusted:>7.1f}x")


if __name__ == "__main__":
    main()

"""Shared test helpers: building positions point by point, random games, gnubg board conversion."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from nardy import Position

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
DATA = REPO / "tests" / "data"


def shared_path(*parts: str) -> Path:
    """``../shared/<parts>``, the project's read-only data folder beside the repository.

    Call it inside a test (or a fixture): when ``../shared`` itself is missing (a clone on its own), the
    test is skipped with a reason naming the path. When ``../shared`` is there the path is returned
    whether or not it exists, so a file missing from the data folder still fails the test as before.
    """
    path = SHARED.joinpath(*parts)
    if not SHARED.is_dir():
        rel = "/".join(("..", "shared", *parts))
        pytest.skip(f"{rel} not beside the repository (the project's data folder)")
    return path


def pos(game="backgammon", mover=None, opponent=None, first_turn=None) -> Position:
    """A position from ``{point: count}`` dicts in each side's own numbering (25 = bar).

    Missing checkers are taken as borne off.
    """
    m = [0] * 26
    o = [0] * 26
    for side, spec in ((m, mover or {}), (o, opponent or {})):
        for p, n in spec.items():
            side[p] = n
    return Position.from_boards(m, o, game, first_turn=first_turn)


def plays(position, dice) -> list[str]:
    """Sorted notation of every legal play."""
    return sorted(str(p) for p in position.legal_plays(dice))


def random_positions(game: str, n: int, seed: int, doubles_share: float = 0.0):
    """``n`` (position, dice) pairs met in random games of ``game`` (uniformly random plays)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        p = Position.start(game)
        while len(out) < n:
            d = (rng.randint(1, 6), rng.randint(1, 6))
            if doubles_share and rng.random() < doubles_share:
                d = (d[0], d[0])
            out.append((p, d))
            p = rng.choice(p.legal_plays(d)).result
            if p.is_game_over():
                break
            p = p.mirror()
    return out


def to_gnubg(a):
    """Our int8[28] board -> gnubg's [opponent25, mover25] lists."""
    mover = [0] * 25
    opp = [0] * 25
    for p in range(1, 25):
        if a[p] > 0:
            mover[p - 1] = int(a[p])
        elif a[p] < 0:
            opp[24 - p] = int(-a[p])
    mover[24] = int(a[25])
    opp[24] = int(a[26])
    return [opp, mover]


def play_out(g, rng, double_rate=0.0, take_rate=0.7):
    """Play a :class:`nardy.game.Game` to its end with random plays; double with ``double_rate`` when
    allowed and take with ``take_rate`` (else drop). Returns the game."""
    if g.phase == "opening":
        g.start()
    while not g.is_over:
        if g.phase == "roll":
            if double_rate and g.may_double and rng.random() < double_rate:
                g.double()
            else:
                g.roll()
        elif g.phase == "double":
            (g.take if rng.random() < take_rate else g.drop)()
        else:
            g.play(rng.choice(g.legal_plays()))
    return g

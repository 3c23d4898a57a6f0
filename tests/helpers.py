"""Shared test helpers: building positions point by point, random games, gnubg board conversion."""

from __future__ import annotations

import functools
import inspect
import os
import random
import subprocess
import sys
from collections.abc import Callable
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


FRESH_PROCESS = "NARDY_TEST_FRESH_PROCESS"


def in_fresh_process(test: Callable) -> Callable:
    """Run ``test`` in a new Python process (pytest on that one test), failing here with its output if it fails.

    For the tests that load PyTorch: its wheel brings its own OpenMP runtime (``torch/lib/libgomp.so.1``),
    and numba's parallel rollout kernel, once another test has run it, has loaded the system's
    (``libgomp.so.1.0.0``, numba's ``omp`` threading layer). Two OpenMP runtimes in one process corrupt the
    heap now and then ("free(): invalid pointer", the test run aborted with no report). ``nardy teach``'s
    commands each run in their own process, so the CLI is not exposed; a test suite (one process) is.
    """

    @functools.wraps(test)
    def run(*args, **kwargs):
        if os.environ.get(FRESH_PROCESS) == test.__name__:
            return test(*args, **kwargs)
        node = f"{Path(inspect.getsourcefile(test) or '').relative_to(REPO)}::{test.__name__}"
        env = dict(os.environ, **{FRESH_PROCESS: test.__name__})
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", node]
        r = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
        out = r.stdout[-6000:] + r.stderr[-3000:]
        if r.returncode == 0 and " skipped" in r.stdout and " passed" not in r.stdout:
            pytest.skip(f"{node} skipped in its own process")
        assert r.returncode == 0 and "1 passed" in r.stdout, out
        return None

    return run


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
    """Play a :class:`nardy.flow.game.Game` to its end with random plays; double with ``double_rate`` when
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

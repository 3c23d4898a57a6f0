"""Money play with the cube in bench/bot_vs_gnubg.py (issue 46's money target): the cube's rules there.

Before its roll the side on roll may double while the cube is centred or its own; a pass ends the game for
the cube's value before the double; a take gives the cube to the taker at twice the value; a finished game
scores its level (1, 2, 3) times the cube. The nardy side's decisions are scripted here (a bot whose
``cube_action`` answers fixed decisions and records what it was asked); gnubg's side is scripted through the
module's ``gnubg_cube``; the checker play is real (nardy 0-ply against gnubg-nn 0-ply).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gnubg_nn")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import bot_vs_gnubg as bench  # noqa: E402  (bench/bot_vs_gnubg.py)

from nardy.flow.bot import Bot  # noqa: E402
from nardy.flow.cubetheory import CubeDecision  # noqa: E402


class ScriptedCube(Bot):
    """The 0-ply bot with fixed cube answers; ``asked`` keeps (phase, cube value, owner) of every question."""

    def __init__(self, double: bool, take: bool):
        super().__init__("backgammon", level="advanced", seed=1)
        self.double, self.take, self.asked = double, take, []

    def cube_action(self, state, *args, **kwargs) -> CubeDecision:
        self.asked.append((state.phase, state.cube_value, state.cube_owner))
        act = ("take" if self.take else "pass") if state.phase == "double" else "double" if self.double else "no double"
        return CubeDecision(self.double, self.take, act)


def scripted_gnubg(monkeypatch, double: bool, take: bool) -> list:
    calls = []

    def fake(pos, plies, cube, owner):
        calls.append((cube, owner))
        return double, take

    monkeypatch.setattr(bench, "gnubg_cube", fake)
    return calls


def play(bot, seed=3):
    """The pair's ``(points, final cube, passed)`` (the luck each game also carries: tests/flow/test_bench_luck.py)."""
    return [g[:3] for g in bench.play_pair_cube(bot, np.random.default_rng([seed, 0]), 0, [])]


def test_a_pass_scores_the_cube_value_before_the_double(monkeypatch):
    scripted_gnubg(monkeypatch, double=True, take=True)
    bot = ScriptedCube(double=False, take=False)
    games = play(bot)
    # gnubg doubles at its first turn after the opening (or at its second, having opened) and nardy passes
    assert games == [(-1, 1, True), (-1, 1, True)]
    assert all(q == ("double", 1, None) for q in bot.asked if q[0] == "double")


def test_a_take_gives_the_cube_to_the_taker_and_only_the_owner_may_redouble(monkeypatch):
    calls = scripted_gnubg(monkeypatch, double=False, take=True)
    bot = ScriptedCube(double=True, take=True)
    games = play(bot)
    for points, cube, passed in games:
        assert (cube, passed) == (2, False)
        assert abs(points) in (2, 4, 6)  # level x cube 2
    # after nardy's double gnubg owns the cube: nardy is never asked again, gnubg is asked as the owner
    assert [q for q in bot.asked if q[0] == "roll"] == [("roll", 1, None)] * 2
    owners = [o for _, o in calls]
    assert owners.count("centre") >= 2 and set(owners) <= {"centre", "me"}
    assert (2, "me") in calls


def test_both_sides_doubling_and_taking_double_the_cube_every_turn(monkeypatch):
    scripted_gnubg(monkeypatch, double=True, take=True)
    bot = ScriptedCube(double=True, take=True)
    games = play(bot)
    for points, cube, passed in games:
        assert not passed
        assert cube >= 4 and cube & (cube - 1) == 0  # a power of two
        assert abs(points) in (cube, 2 * cube, 3 * cube)
    # nardy doubles only a cube that is centred or its own (owner 0 = the side on roll)
    assert all(owner in (None, 0) for phase, _, owner in bot.asked if phase == "roll")


def test_the_opening_roll_is_played_before_any_double(monkeypatch):
    calls = scripted_gnubg(monkeypatch, double=True, take=False)
    bot = ScriptedCube(double=True, take=False)
    games = play(bot)
    # whoever opens plays the opening roll; the other side doubles first and the opener passes
    assert games == [(-1, 1, True), (1, 1, True)]
    assert len(calls) == 2 and len([q for q in bot.asked if q[0] == "roll"]) == 1

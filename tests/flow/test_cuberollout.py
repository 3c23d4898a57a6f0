"""Cubeful rollouts (nardy.flow.cuberollout): trials played with the cube in play, 0-ply cube actions through
cube_decision, results counted at the cube's final value (money) or from the match equity table (match)."""

from __future__ import annotations

import numpy as np
import pytest

from nardy import Position
from nardy.engine.evaluator import NeuralEvaluator, money_equity
from nardy.engine.net import Net, shipped_path
from nardy.engine.rollout import rollout
from nardy.engine.search import Searcher
from nardy.flow.cuberollout import cubeful_rollout, may_double
from nardy.flow.cubetheory import CubeState, cube_decision
from nardy.flow.met import get_met

# backgammon, the side on roll far past its opponent's take point with many gammons (0-ply: 0.789 wins,
# 0.295 gammons; double/pass); found among the shipped net's self-play positions
PASS_POSITION = "s9wGADLYtpEBYA"
# a closed board against two checkers on the bar (0-ply 0.94 wins, 0.37 gammons): too good to double where
# gammons count, double/pass under the Jacoby rule (a centred cube: gammons count only once it is turned)
JACOBY_PASS = "u20DAGDbtjMAAA"


@pytest.fixture(scope="module")
def bg():
    net = Net.load(shipped_path("backgammon"))
    return net, Searcher(NeuralEvaluator(net), Position.start("backgammon").rules)


def test_a_dead_cube_gives_the_cubeless_result_of_each_trial(bg):
    net, s = bg
    st = CubeState(Position.start("backgammon"), enabled=False)
    for vr in (False, True):
        r = cubeful_rollout(st, s, 36, 5, truncate=3, variance_reduction=vr)
        assert r.doubles == 0 and r.passes == 0
        # nobody doubles, so each trial's value is its cubeless money equity (luck included: it is linear)
        assert r.mean == pytest.approx(float(money_equity(r.probs, "backgammon")), abs=1e-9)
    assert not may_double(st, 0, 1, None)


def test_a_pass_position_rolled_out_cubefully_is_worth_one_cube_at_any_cube(bg):
    net, s = bg
    pos = Position.from_id(PASS_POSITION, "backgammon")
    for cube, owner in ((1, None), (2, 0), (4, 0)):
        d = cube_decision(s.ev.evaluate, CubeState(pos, cube_value=cube, cube_owner=owner))
        assert d.double and not d.take  # 0-ply: double, pass
        r = cubeful_rollout(CubeState(pos, cube_value=cube, cube_owner=owner), s, 72, 1, variance_reduction=True)
        # every trial: the side on roll doubles at once and the other passes: exactly one cube (no luck yet)
        assert r.passes == 72 and r.mean == pytest.approx(float(cube)) and r.std_error == 0.0


def test_far_past_the_take_point_cubeful_is_one_point_where_cubeless_counts_the_gammons(bg):
    net, s = bg
    pos = Position.from_id(JACOBY_PASS, "backgammon")
    st = CubeState(pos, jacoby=True)
    d = cube_decision(s.ev.evaluate, st)
    assert d.double and not d.take
    r = cubeful_rollout(st, s, 72, 1, truncate=0, variance_reduction=False)
    assert r.passes == 72 and r.mean == pytest.approx(1.0)
    # cubeless (nobody doubles, every gammon counted) the same position is worth well over one point
    cubeless = rollout(pos, net, 1296, 1, truncate=0, variance_reduction=False)
    assert cubeless.equity - 3 * cubeless.std_error > 1.1 and cubeless.probabilities[1] > 0.3
    # with the cube on the other side the side ahead cannot cash: its gammons count (the other side redoubles
    # where its game turns, and the side ahead takes or passes)
    owned = cubeful_rollout(CubeState(pos, cube_value=2, cube_owner=1), s, 144, 1, truncate=0, variance_reduction=False)
    assert owned.mean / 2 > 1.1 and 0 < owned.doubles < 72
    assert np.all(owned.values % 2 == 0)  # whole points at a cube of 2 or more, no variance reduction


def test_at_two_away_two_away_each_trial_ends_at_a_score_of_the_match_equity_table(bg):
    net, s = bg
    met = get_met("backgammon")
    st = CubeState(Position.start("backgammon"), score=(1, 1), length=3)
    r = cubeful_rollout(st, s, 72, 3, truncate=0, variance_reduction=False)
    lead = met.mwc_after(1, 2, 2, 2)  # one point won at cube 1: 1-away against 2-away, the Crawford game next
    allowed = np.array([0.0, 1.0, lead, 1.0 - lead])
    assert np.min(np.abs(r.values[:, None] - allowed[None, :]), axis=1).max() < 1e-12
    # at 2-away/2-away the cube turns in most games (a double is right at almost any edge) and a gammon
    # is worth no more than a single win at cube 2
    assert r.doubles > 36
    assert (r.values == 1.0).sum() + (r.values == 0.0).sum() >= r.doubles - r.passes
    assert 0.3 < r.mean < 0.7
    # the leader of a 1-away score may not double: its cube is dead
    assert not may_double(CubeState(Position.start("backgammon"), score=(2, 1), length=3), 0, 1, None)
    assert may_double(CubeState(Position.start("backgammon"), score=(2, 1), length=3), 1, 1, None)


def test_a_fixed_seed_gives_the_same_trials_and_another_seed_others(bg):
    net, s = bg
    st = CubeState(Position.start("backgammon"))
    a = cubeful_rollout(st, s, 36, 11, truncate=6)
    b = cubeful_rollout(st, s, 36, 11, truncate=6)
    c = cubeful_rollout(st, s, 36, 12, truncate=6)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.probs, b.probs)
    assert not np.array_equal(a.values, c.values)


def test_variance_reduction_keeps_the_mean_and_shrinks_the_error(bg):
    net, s = bg
    st = CubeState(Position.start("backgammon"))
    plain = cubeful_rollout(st, s, 144, 2, truncate=4, variance_reduction=False)
    vr = cubeful_rollout(st, s, 144, 2, truncate=4, variance_reduction=True)
    assert vr.std_error < 0.4 * plain.std_error
    assert abs(vr.mean - plain.mean) < 2.5 * plain.std_error


def test_a_finished_position_or_bad_counts_are_refused(bg):
    net, s = bg
    with pytest.raises(ValueError):
        cubeful_rollout(CubeState(Position.start("backgammon")), s, 0, 1)
    with pytest.raises(ValueError):
        cubeful_rollout(CubeState(Position.start("backgammon")), s, 1, 1, truncate=-1)

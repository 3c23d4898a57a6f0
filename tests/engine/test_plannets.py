"""Game-plan nets (issue 46): :func:`nardy.engine._features.game_plan` on hand-made boards, one per rule;
:attr:`nardy.engine.net.Net.plans` in ``.npz`` files (``plan{k}_W1`` ...) and copies; the evaluators' routing of
contact boards that have not crashed to the net of their game plan."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.engine import _kernels as K
from nardy.engine.evaluator import HybridEvaluator, NeuralEvaluator, phase_codes, plan_bits
from nardy.engine.net import Net, shipped_path
from nardy.engine.rollout import sample_positions
from nardy.rules.position import Position


def _board(mover: dict, opp: dict, m_bar: int = 0, o_bar: int = 0) -> np.ndarray:
    """A backgammon board (mover's view): ``mover``/``opp`` map mover-numbered points to checker counts; the
    checkers not placed are off."""
    b = np.zeros(28, np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opp.items():
        assert b[p] == 0
        b[p] = -n
    b[25], b[26] = m_bar, o_bar
    b[0] = 15 - sum(mover.values()) - m_bar
    b[27] = 15 - sum(opp.values()) - o_bar
    assert b[0] >= 0 and b[27] >= 0
    return b


def _pips(b) -> tuple:
    m = 25 * int(b[25]) + sum(p * int(b[p]) for p in range(1, 25) if b[p] > 0)
    o = 25 * int(b[26]) + sum((25 - p) * -int(b[p]) for p in range(1, 25) if b[p] < 0)
    return m, o


START_OPP = {1: 2, 12: 5, 17: 3, 19: 5}


def test_start_position_is_other_contact():
    b = Position.start("backgammon").array
    assert _pips(b) == (167, 167)
    assert K.game_plan(b) == 4


def test_racing_when_the_mover_has_no_back_checkers():
    b = _board({13: 5, 8: 5, 6: 5}, START_OPP)
    assert _pips(b)[0] > 0 and K.game_plan(b) == 0


def test_racing_when_fifteen_percent_ahead_in_pips_and_not_just_below():
    at = _board({24: 2, 6: 9}, {1: 2, 19: 12})
    below = _board({24: 2, 7: 1, 6: 8}, {1: 2, 19: 12})
    assert _pips(at) == (102, 120) and 20 * (120 - 102) == 3 * 120  # exactly 15% ahead
    assert _pips(below) == (103, 120)
    assert K.game_plan(at) == 0
    assert K.game_plan(below) == 4  # the anchor on 24 does not hold: the mover leads


ATTACKER = {24: 2, 13: 4, 8: 3, 6: 2, 5: 2, 4: 2}  # 3 home points made


def test_attacking_with_an_opponent_checker_on_the_bar_and_three_home_points():
    b = _board(ATTACKER, {1: 1, 12: 5, 17: 3, 19: 5}, o_bar=1)
    assert _pips(b) == (154, 168)
    assert K.game_plan(b) == 1


def test_attacking_with_two_opponent_blots_on_points_1_to_12_and_three_home_points():
    b = _board(ATTACKER, {1: 1, 10: 1, 12: 5, 17: 3, 19: 5})
    assert K.game_plan(b) == 1
    # one blot there (the other beyond point 12) is not enough
    assert K.game_plan(_board(ATTACKER, {1: 1, 14: 1, 12: 5, 17: 3, 19: 5})) == 4
    # nor are two blots with two home points made
    assert K.game_plan(_board({24: 2, 13: 5, 8: 3, 6: 3, 5: 2}, {1: 1, 10: 1, 12: 5, 17: 3, 19: 5})) == 4


def test_priming_with_four_made_points_in_2_to_12_and_an_opponent_checker_behind():
    primer = {24: 2, 12: 2, 11: 2, 10: 2, 9: 2, 6: 5}
    b = _board(primer, {1: 2, 14: 5, 17: 3, 19: 5})
    assert K.game_plan(b) == 2
    # the same run with no opponent checker behind it (the rearmost on 14) primes nobody: the anchor on 24,
    # 31 pips behind, holds
    nobody = _board(primer, {14: 7, 17: 3, 19: 5})
    assert _pips(nobody) == (162, 131) and K.game_plan(nobody) == 3
    # points beyond 12 do not count: 10, 11, 12 and 13 are a run of three within 2..12
    assert K.game_plan(_board({24: 2, 13: 2, 12: 2, 11: 2, 10: 2, 6: 5}, {1: 2, 14: 5, 17: 3, 19: 5})) == 4


def test_priming_counts_an_opponent_checker_on_the_bar_as_behind():
    b = _board({24: 2, 12: 2, 11: 2, 10: 2, 9: 2, 6: 5}, {14: 6, 17: 3, 19: 5}, o_bar=1)
    assert K.game_plan(b) == 2  # one home point made: not attacking


def test_attacking_comes_before_priming():
    primer = {24: 2, 13: 2, 8: 2, 7: 2, 6: 3, 5: 2, 4: 2}  # 4..8 made, 3 home points
    b = _board(primer, {1: 1, 10: 1, 12: 5, 17: 3, 19: 5})
    assert _pips(b) == (140, 158) and K.game_plan(b) == 1
    assert K.game_plan(_board(primer, {1: 2, 12: 5, 19: 5, 20: 3})) == 2  # no blots: priming


def test_holding_with_an_anchor_in_the_opponent_home_and_twenty_pips_behind():
    opp = {1: 2, 12: 2, 17: 3, 19: 5, 20: 3}
    hold = _board({24: 2, 13: 5, 8: 2, 6: 5, 4: 1}, opp)
    short = _board({24: 2, 13: 5, 8: 2, 6: 5, 3: 1}, opp)
    assert _pips(hold) == (163, 143) and _pips(short) == (162, 143)
    assert K.game_plan(hold) == 3
    assert K.game_plan(short) == 4  # 19 pips behind
    # behind but no anchor: a lone checker back is no anchor
    assert K.game_plan(_board({24: 1, 23: 1, 13: 5, 8: 2, 6: 5, 4: 1}, opp)) == 4


def test_game_plans_is_game_plan_of_each_board():
    net = Net.load(shipped_path("backgammon"))
    b, _ = sample_positions(net, 300, 5)
    got = K.game_plans(b)
    assert got.dtype == np.int8
    assert got.tolist() == [K.game_plan(x) for x in b]
    assert set(got.tolist()) == {0, 1, 2, 3, 4}


# --- the nets ---------------------------------------------------------------------------------------------


def _nets(hidden: int = 8):
    main = Net.random("backgammon", hidden, seed=1)
    main.race = Net.random("backgammon", 6, seed=2)
    main.crashed = Net.random("backgammon", 5, seed=3)
    return main


def test_plan_nets_round_trip_in_the_npz_under_plan_k_keys(tmp_path):
    main = _nets()
    p0 = Net.random("backgammon", 4, seed=4)
    p3 = Net.random("backgammon", 7, seed=5, hidden2=3)
    main.set_plans([p0, None, None, p3, None])
    path = main.save(tmp_path / "n.npz")
    with np.load(path) as z:
        plan_keys = sorted(k for k in z.files if k.startswith("plan"))
    assert plan_keys == sorted(
        ["plan0_W1", "plan0_b1", "plan0_W2", "plan0_b2"]
        + [f"plan3_{k}" for k in ("W1", "b1", "W2", "b2", "V", "c", "U")]
    )
    back = Net.load(path)
    assert back.plans is not None and back.plans[1] is None and back.plans[2] is None and back.plans[4] is None
    for a, c in ((back.plans[0], p0), (back.plans[3], p3)):
        assert a is not None
        assert all(np.array_equal(x, y) for x, y in zip(a.kernel_weights, c.kernel_weights))
    assert (back.plans[3].hidden, back.plans[3].hidden2) == (7, 3)
    assert back.race is not None and back.crashed is not None


def test_a_file_without_plan_keys_loads_with_no_plan_nets(tmp_path):
    path = _nets().save(tmp_path / "old.npz")
    with np.load(path) as z:
        assert not any(k.startswith("plan") for k in z.files)
    assert Net.load(path).plans is None


def test_a_converted_file_with_plan_arrays_added_loads(tmp_path):
    """The lead's conversion: a saved net plus ``plan{k}_W1, plan{k}_b1, plan{k}_W2, plan{k}_b2`` arrays."""
    main = _nets()
    src = main.save(tmp_path / "main.npz")
    with np.load(src) as z:
        arrays = {k: z[k] for k in z.files}
    extra = {k: Net.random("backgammon", 3 + k, seed=10 + k) for k in range(5)}
    for k, n in extra.items():
        arrays.update(zip((f"plan{k}_W1", f"plan{k}_b1", f"plan{k}_W2", f"plan{k}_b2"), n.weights))
    np.savez(tmp_path / "conv.npz", **arrays)
    back = Net.load(tmp_path / "conv.npz")
    assert back.plans is not None and [p.hidden for p in back.plans] == [3, 4, 5, 6, 7]
    assert np.array_equal(back.plans[4].W1, extra[4].W1)


def test_a_file_with_part_of_a_plan_net_is_refused(tmp_path):
    main = _nets()
    src = main.save(tmp_path / "main.npz")
    with np.load(src) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["plan2_W1"] = main.W1
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="lacks some of plan2_W1"):
        Net.load(tmp_path / "bad.npz")


def test_copy_copies_the_plan_nets():
    main = _nets()
    main.set_plans([None, Net.random("backgammon", 4, seed=4), None, None, None])
    cp = main.copy()
    assert cp.plans is not None and cp.plans[1] is not None and cp.plans[0] is None
    cp.plans[1].W1[0, 0] += 1.0
    assert main.plans is not None and main.plans[1] is not None
    assert main.plans[1].W1[0, 0] != cp.plans[1].W1[0, 0]


def test_set_plans_refuses_wrong_counts_and_games():
    main = _nets()
    with pytest.raises(ValueError, match="5 nets"):
        main.set_plans([None] * 4)
    with pytest.raises(ValueError, match="backgammon Net"):
        main.set_plans([Net.random("short", 4), None, None, None, None])
    with pytest.raises(ValueError, match="long Net"):
        Net.random("long", 4).set_plans([Net.random("short", 4), None, None, None, None])
    main.set_plans([None] * 5)
    assert main.plans is None


def _alone(net: Net) -> Net:
    """A copy of ``net`` without its phase nets (a plan net has none)."""
    c = net.copy()
    c.race = c.crashed = None
    return c


_SAMPLE: dict = {}


def _sample():
    """Self-play boards of the shipped backgammon net, each class, race and crashed boards among them."""
    if not _SAMPLE:
        b, f = sample_positions(Net.load(shipped_path("backgammon")), 600, 21)
        _SAMPLE["b"], _SAMPLE["f"] = b, f
    return _SAMPLE["b"], _SAMPLE["f"]


def _route(b):
    hitting = True
    race = np.array([K.is_race(x, hitting) for x in b])
    crashed = np.array([K.is_crashed(x) for x in b]) & ~race
    return race, crashed, K.game_plans(b)


def test_phase_codes_send_contact_boards_that_have_not_crashed_to_their_plan():
    b, _ = _sample()
    race, crashed, plans = _route(b)
    assert race.any() and crashed.any()
    got = phase_codes(b, True, True, True, 0b11111)
    want = np.where(race, 1, np.where(crashed, 2, 3 + plans))
    assert got.tolist() == want.tolist()
    # plan 2 alone: other classes to the main net; no crashed net: crashed boards to the main net, not a plan net
    got = phase_codes(b, True, False, False, 0b00100)
    assert got.tolist() == np.where(~race & ~crashed & (plans == 2), 5, 0).tolist()
    # the four-argument form is unchanged
    assert phase_codes(b, True, True, True).tolist() == np.where(race, 1, np.where(crashed, 2, 0)).tolist()
    assert plan_bits(None) == 0 and plan_bits((None, 1, None, None, 1)) == 0b10010


@pytest.mark.parametrize("rows", [1, 10, 40, 600])
def test_plan_nets_that_copy_the_main_net_give_its_outputs_bit_for_bit(rows):
    b, f = _sample()
    b, f = b[:rows], f[:rows]
    main = _nets()
    with_plans = main.copy()
    with_plans.set_plans([_alone(main) for _ in range(5)])
    for make in (NeuralEvaluator, HybridEvaluator):
        a = make(main).evaluate_batch(b, f)
        c = make(with_plans).evaluate_batch(b, f)
        assert np.array_equal(a, c)
    # a batch of repeated boards (the evaluator's de-duplication) and the single-board path
    rep = np.concatenate([b[:20], b[:20]])
    assert np.array_equal(NeuralEvaluator(main).evaluate_batch(rep), NeuralEvaluator(with_plans).evaluate_batch(rep))
    pos = Position.start("backgammon")
    assert np.array_equal(NeuralEvaluator(main).evaluate(pos).array, NeuralEvaluator(with_plans).evaluate(pos).array)


@pytest.mark.parametrize("k", range(5))
def test_a_plan_net_with_other_weights_changes_exactly_the_boards_of_its_class(k):
    b, f = _sample()
    race, crashed, plans = _route(b)
    mine = ~race & ~crashed & (plans == k)
    assert mine.any()
    main = _nets()
    other = main.copy()
    lst: list = [None] * 5
    lst[k] = Net.random("backgammon", 9, seed=30 + k)
    other.set_plans(lst)
    a = NeuralEvaluator(main).evaluate_batch(b, f)
    c = NeuralEvaluator(other).evaluate_batch(b, f)
    changed = (a != c).any(axis=1)
    assert changed.tolist() == mine.tolist()
    # the changed rows are the plan net's own outputs
    assert np.allclose(c[mine], NeuralEvaluator(lst[k]).evaluate_batch(b[mine], f[mine]), atol=1e-6)
    # one board of the class alone (the single-board path) goes to the plan net too
    i = int(np.flatnonzero(mine)[0])
    one = NeuralEvaluator(other).evaluate_batch(b[i : i + 1], f[i : i + 1])[0]
    assert np.allclose(one, c[i], atol=1e-6) and not np.allclose(one, a[i], atol=1e-5)

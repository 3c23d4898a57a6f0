"""Long nardy plan nets (issue 46): :func:`nardy.engine._features.long_plan` on hand-made boards, one per rule;
the evaluators' routing of long nardy contact boards to the net of their plan class; ``nardy teach fit
--plan-hidden`` on long nardy positions."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nardy.engine import _kernels as K
from nardy.engine.evaluator import NeuralEvaluator, phase_codes
from nardy.engine.net import Net, shipped_path
from nardy.engine.rollout import sample_positions
from nardy.rules.position import Position
from nardy.training.jobs import load_dataset

from ..helpers import in_fresh_process


def _board(mover: dict, opp: dict) -> np.ndarray:
    """A long nardy board (mover's view): ``mover`` and ``opp`` map each side's own point numbers (head 24,
    home 1..6) to checker counts; an opponent point ``q`` lies at index ``q + 12`` (``q <= 12``) or ``q - 12``;
    the checkers not placed are off."""
    b = np.zeros(28, np.int8)
    for p, n in mover.items():
        b[p] = n
    for q, n in opp.items():
        i = q + 12 if q <= 12 else q - 12
        assert b[i] == 0, f"opponent point {q} is the mover's {i}, already held"
        b[i] = -n
    b[0] = 15 - sum(mover.values())
    b[27] = 15 - sum(opp.values())
    assert b[0] >= 0 and b[27] >= 0
    return b


def _pips(b) -> tuple:
    m = sum(p * int(b[p]) for p in range(1, 25) if b[p] > 0)
    o = sum((i - 12 if i > 12 else i + 12) * -int(b[i]) for i in range(1, 25) if b[i] < 0)
    return m, o


def test_the_start_position_is_an_opening():
    b = Position.start("long").array
    assert _pips(b) == (360, 360) and b[24] == 15
    assert K.long_plan(b) == 0


def test_opening_needs_eight_checkers_on_the_head_and_not_seven():
    opp = {24: 12, 23: 1, 21: 1, 19: 1}
    eight = _board({24: 8, 22: 1, 20: 1, 18: 1, 16: 1, 14: 1, 10: 1, 8: 1}, opp)
    seven = _board({24: 7, 22: 2, 20: 1, 18: 1, 16: 1, 14: 1, 10: 1, 8: 1}, opp)
    assert K.long_plan(eight) == 0
    # seven on the head: no block of four either side, so the race decides (the mover leads 298 to 351)
    assert _pips(seven) == (298, 351)
    assert K.long_plan(seven) == 3


# the mover's points 20..23 are the opponent's 8..11; its head (24) is the opponent's 12
BLOCKER = {24: 3, 23: 2, 22: 2, 21: 2, 20: 2, 10: 2, 9: 2}  # a run of five on 20..24, the opponent's 8..12


def test_blocking_with_a_run_of_four_or_more_and_an_opponent_checker_behind_it():
    # the opponent's head checkers (its 24, the mover's index 12) must still pass its 8..12
    b = _board(BLOCKER, {24: 5, 6: 4, 5: 4, 4: 2})
    assert K.long_plan(b) == 1
    # nobody behind: the same run blocks no one (the opponent's checkers all on its 4..7)
    assert K.long_plan(_board(BLOCKER, {7: 3, 6: 4, 5: 4, 4: 4})) != 1
    # a run of three is no block
    assert K.long_plan(_board({24: 5, 23: 2, 22: 2, 10: 3, 9: 3}, {24: 5, 6: 4, 5: 4, 4: 2})) not in (1, 2)


def test_blocked_when_the_opponent_holds_four_or_more_in_front_of_a_mover_checker():
    # the opponent holds the mover's 17..21 (its 5..9): five points, the mover's head checkers behind them
    opp = {9: 2, 8: 2, 7: 2, 6: 2, 5: 2, 24: 5}
    b = _board({24: 5, 11: 4, 10: 3, 9: 3}, opp)
    assert [int(b[p]) for p in range(17, 22)] == [-2] * 5
    assert K.long_plan(b) == 2
    # with all the mover's checkers past the run nothing is blocked
    assert K.long_plan(_board({11: 5, 10: 5, 9: 5}, opp)) != 2


def test_blocking_wins_a_tie_of_runs_and_a_longer_opponent_run_means_blocked():
    mover = {24: 3, 22: 2, 21: 2, 20: 2, 19: 2, 2: 4}  # a run of four on 19..22 (the opponent's 7..10)
    tie = _board(mover, {24: 5, 6: 2, 5: 2, 4: 2, 3: 2, 1: 2})  # four on the mover's 15..18, the head behind
    assert [int(tie[p]) < 0 for p in (15, 16, 17, 18)] == [True] * 4 and tie[14] == 0
    assert K.long_plan(tie) == 1
    longer = _board(mover, {24: 5, 6: 2, 5: 2, 4: 2, 3: 2, 2: 2})  # five: the mover's 14..18
    assert K.long_plan(longer) == 2


def test_leading_when_ten_percent_ahead_in_pips_and_not_just_below():
    opp = {12: 5, 11: 5, 10: 5}  # 165 pips, on the mover's 22..24: behind every mover checker
    at = _board({18: 3, 9: 5, 8: 5, 5: 1, 4: 1}, opp)
    just = _board({18: 3, 9: 5, 8: 5, 5: 2}, opp)
    assert _pips(at) == (148, 165) and 10 * (165 - 148) >= 165
    assert _pips(just) == (149, 165) and 10 * (165 - 149) < 165
    assert not K.is_race(at, False) and not K.is_race(just, False)
    assert K.long_plan(at) == 3
    assert K.long_plan(just) == 4


def test_board_plan_is_long_plan_in_long_nardy_and_game_plan_in_the_hitting_games():
    b, _ = sample_positions(Net.load(shipped_path("long")), 400, 3)
    got = [K.board_plan(x, False) for x in b]
    assert got == [K.long_plan(x) for x in b]
    contact = [k for x, k in zip(b, got) if not K.is_race(x, False)]
    assert set(contact) == {0, 1, 2, 3, 4}
    bg = Position.start("backgammon").array
    assert K.board_plan(bg, True) == K.game_plan(bg) == 4
    assert K.plan_names("long") == K.LONG_PLAN_NAMES and K.plan_names("short") == K.PLAN_NAMES


# --- the nets ---------------------------------------------------------------------------------------------


def test_long_nardy_contact_boards_go_to_the_net_of_their_plan_and_races_to_the_race_net():
    b, f = sample_positions(Net.load(shipped_path("long")), 500, 11)
    race = np.array([K.is_race(x, False) for x in b])
    plans = np.array([K.long_plan(x) for x in b])
    assert race.any()
    got = phase_codes(b, False, True, False, 0b11111)
    assert got.tolist() == np.where(race, 1, 3 + plans).tolist()
    # a long nardy board is never "crashed" (with_crashed is the hitting games' split)
    assert phase_codes(b, False, True, True, 0b00010).tolist() == np.where(race, 1, np.where(plans == 1, 4, 0)).tolist()

    main = Net.random("long", 8, seed=1)
    other = main.copy()
    lst: list = [None] * 5
    lst[2] = Net.random("long", 6, seed=2)
    other.set_plans(lst)
    a = NeuralEvaluator(main).evaluate_batch(b, f)
    c = NeuralEvaluator(other).evaluate_batch(b, f)
    mine = ~race & (plans == 2)
    assert mine.any()
    assert (a != c).any(axis=1).tolist() == mine.tolist()
    assert np.allclose(c[mine], NeuralEvaluator(lst[2]).evaluate_batch(b[mine], f[mine]), atol=1e-6)


def test_long_nardy_plan_nets_round_trip_in_the_npz(tmp_path):
    main = Net.random("long", 8, seed=1)
    main.set_plans([Net.random("long", 4, seed=k) if k != 3 else None for k in range(5)])
    back = Net.load(main.save(tmp_path / "l.npz"))
    assert back.game == "long" and back.plans is not None
    assert [p is None for p in back.plans] == [False, False, False, True, False]
    assert np.array_equal(back.plans[4].W1, main.plans[4].W1)


@in_fresh_process
def test_teach_fit_fits_long_nardy_plan_nets_on_the_contact_positions_of_their_class(tmp_path):
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main

    data, out, init = tmp_path / "d.npz", tmp_path / "n.npz", tmp_path / "init.npz"
    args = ["teach", "label", "-g", "long", "--self-play", "500", "-t", "search:0", "-j", "0", "-o", str(data)]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    d = load_dataset(data)
    codes = phase_codes(np.ascontiguousarray(d["boards"][d["labelled"]]), False, True, True, 0b11111)
    counts = {k: int((codes == 3 + k).sum()) for k in range(5)}
    assert counts[0] > 0 and counts[4] > 0
    base = Net.random("long", 8, seed=1)
    base.save(init)
    fit = ["teach", "fit", str(data), "--init", str(init), "--keep-main", "--epochs", "1", "--holdout", "0.3"]
    run = CliRunner().invoke(main, [*fit, "--plan-hidden", "8", "--plans", "0,4", "-o", str(out)])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert all(np.array_equal(a, b) for a, b in zip(net.weights, base.weights))
    assert net.plans is not None and [p is None for p in net.plans] == [False, True, True, True, False]
    prov = json.loads(net.provenance)
    assert prov["plan0"]["positions"] == counts[0] and prov["plan4"]["positions"] == counts[4]
    assert "opening (plan 0) positions" in run.output

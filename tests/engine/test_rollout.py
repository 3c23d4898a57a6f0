"""Rollouts and training on rollout results (nardy.engine.rollout, ``nardy train --method rollout``)."""

from __future__ import annotations

import numpy as np
import pytest

from nardy import Position
from nardy.engine.bearoff import race_win_probability
from nardy.engine.net import Net
from nardy.engine.rollout import build_dataset, fit, load_dataset, rollout


def _side(points: dict) -> list:
    v = [0] * 26
    for p, n in points.items():
        v[p] = n
    return v


def test_rollout_of_a_won_position_is_the_exact_result():
    # the mover's last checker is on its 1-point: any roll bears it off; the opponent has borne off nothing
    # and has no checker in the mover's home: a gammon, never a backgammon (docs/rules.md scoring)
    pos = Position.from_boards(_side({1: 1}), _side({6: 15}), "backgammon")
    r = rollout(pos, trials=72, seed=3)
    assert r.probabilities.tolist() == pytest.approx([1.0, 1.0, 0.0, 0.0, 0.0])
    assert r.equity == pytest.approx(2.0) and r.std_error == pytest.approx(0.0)


def test_rollout_of_a_race_agrees_with_the_exact_bearoff_odds():
    # one checker each on the 6-point and 5-point: no choice of play matters, so the net's rollout must
    # match the one-sided bearoff database's exact race odds within the rollout's own error
    pos = Position.from_boards(_side({6: 1}), _side({5: 1}), "backgammon")
    exact = race_win_probability([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 1, 0])
    r = rollout(pos, trials=1296, seed=5)
    assert r.std_error > 0
    assert abs(r.probabilities[0] - exact) < 4 * r.std_error / 2  # equity = 2 * win - 1 here
    assert r.equity == pytest.approx(2 * r.probabilities[0] - 1, abs=1e-6)


def test_rollout_first_roll_is_stratified_over_the_36_rolls():
    # the mover bears off its checkers on the 5- and 6-points with 6-5, 5-6, 6-6, 5-5, 4-4 and 3-3 (6 of
    # the 36 rolls); otherwise the opponent's last checker, on its 1-point, comes off next turn. With 36
    # trials every first roll is played once, so the rollout is exact whatever the seed.
    pos = Position.from_boards(_side({5: 1, 6: 1}), _side({1: 1}), "backgammon")
    for seed in (1, 2):
        r = rollout(pos, trials=36, seed=seed)
        assert r.probabilities.tolist() == pytest.approx([6 / 36, 0, 0, 0, 0])
        assert r.equity == pytest.approx(2 * 6 / 36 - 1)


def test_rollout_is_reproducible_from_its_seed_and_errors_name_the_input():
    pos = Position.start("short")
    a = rollout(pos, trials=40, seed=7)
    b = rollout(pos, trials=40, seed=7)
    c = rollout(pos, trials=40, seed=8)
    assert np.array_equal(a.probabilities, b.probabilities) and a.equity == b.equity
    assert not np.array_equal(a.probabilities, c.probabilities)
    assert 0.0 <= a.probabilities.min() and a.probabilities.max() <= 1.0
    with pytest.raises(ValueError, match="trials"):
        rollout(pos, trials=0)
    with pytest.raises(ValueError, match="truncate"):
        rollout(pos, trials=4, truncate=-1)
    with pytest.raises(ValueError, match="backgammon net"):
        rollout(pos, net=Net.random("backgammon", 8), trials=4)
    with pytest.raises(ValueError, match="seed"):
        rollout(pos, trials=4, seed=-1)
    with pytest.raises(TypeError, match="trials"):
        rollout(pos, trials=2.5)
    with pytest.raises(TypeError, match="Position"):
        rollout("4HPwATDgc/ABMA")


def test_variance_reduced_rollout_of_a_forced_gammon_stays_a_probability():
    # the mover bears off its last checkers with any two rolls while the opponent has all 15 far away:
    # a certain gammon; variance reduction subtracts the net's idea of each roll's luck, which must not push
    # the mean outside [0, 1]
    pos = Position.from_boards(_side({2: 2, 1: 1}), _side({13: 15}), "backgammon")
    r = rollout(pos, trials=72, seed=0)
    p = r.probabilities
    assert p[0] == pytest.approx(1.0) and p[1] == pytest.approx(1.0, abs=0.02)
    assert (p >= 0).all() and (p <= 1).all() and p[2] <= p[1] <= p[0]
    assert r.cut_off == 0


def test_variance_reduction_keeps_the_mean_and_shrinks_the_error():
    # each roll's luck averages zero over the 21 rolls, so both estimates aim at the same mean; on the
    # starting position the dice's noise is most of the error
    pos = Position.start("backgammon")
    plain = rollout(pos, trials=144, seed=4, variance_reduction=False)
    vr = rollout(pos, trials=144, seed=4, variance_reduction=True)
    assert vr.std_error < 0.5 * plain.std_error
    assert abs(vr.equity - plain.equity) < 4 * (vr.std_error**2 + plain.std_error**2) ** 0.5
    long = Position.start("long")
    a = rollout(long, trials=72, seed=1, variance_reduction=False)
    b = rollout(long, trials=72, seed=1, variance_reduction=True)
    assert abs(a.equity - b.equity) < 4 * (a.std_error**2 + b.std_error**2) ** 0.5


def test_rollout_does_not_depend_on_the_number_of_threads():
    import numba

    pos = Position.start("short")
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = rollout(pos, trials=108, seed=9, variance_reduction=False)
    finally:
        numba.set_num_threads(before)
    many = rollout(pos, trials=108, seed=9, variance_reduction=False)
    assert np.array_equal(one.probabilities, many.probabilities) and one.std_error == many.std_error


def test_truncated_rollout_counts_the_nets_view_after_the_cut():
    # with truncate=1 every trial is one play by the net and then its evaluation from the other side: the
    # mean is the net's 1-ply value (every roll once with 36 stratified trials)
    from nardy.engine.evaluator import NeuralEvaluator
    from nardy.engine.net import shipped_path
    from nardy.engine.search import Searcher
    from nardy.rules.variants import get_rules

    net = Net.load(shipped_path("backgammon"))
    pos = Position.start("backgammon")
    r = rollout(pos, net=net, trials=36, truncate=1, variance_reduction=False)
    s = Searcher(NeuralEvaluator(net), get_rules("backgammon"))
    one_ply = s.evaluate_positions(pos.array[None].astype(np.int8), ply=1)[0]
    assert r.probabilities == pytest.approx(one_ply, abs=2e-3)


def test_rollout_dataset_resumes_and_fit_lowers_the_training_error(tmp_path):
    net = Net.random("long", 8, seed=2)
    path = tmp_path / "long-rollouts.npz"
    part = build_dataset(net, 40, path, trials=4, seed=3, chunk=16, deadline=0.0)
    assert len(part["boards"]) == 0  # the deadline had passed: nothing rolled out, but a valid file
    first = build_dataset(net, 32, path, trials=4, seed=3, chunk=16)
    assert len(first["boards"]) == 32 and first["targets"].shape == (32, 3)
    again = build_dataset(net, 40, path, trials=4, seed=3, chunk=16)  # resumes after the first 32
    assert np.array_equal(again["targets"][:32], first["targets"])
    fresh = build_dataset(net, 40, tmp_path / "fresh.npz", trials=4, seed=3, chunk=16)
    assert np.array_equal(again["targets"], fresh["targets"])
    fewer = build_dataset(net, 8, path, trials=4, seed=3, chunk=16)  # the first 8 of the file
    assert np.array_equal(fewer["targets"], first["targets"][:8])
    with pytest.raises(ValueError, match="another rollout dataset"):
        build_dataset(net, 8, path, trials=5, seed=3)  # refuses to overwrite another run's rollouts
    assert len(load_dataset(path)["boards"]) == 40
    data = load_dataset(path)
    assert data["game"] == "long" and data["trials"] == 4
    log = fit(net, data, epochs=4, lr=0.1, holdout=0.25, seed=1)
    assert [e["epoch"] for e in log] == [0, 1, 2, 3, 4]
    assert log[-1]["train_mse"] < log[0]["train_mse"]
    with pytest.raises(ValueError, match="long dataset"):
        fit(Net.random("short", 8), data)
    with pytest.raises(ValueError, match="holdout"):
        fit(net, data, holdout=1.0)
    assert fit(net, data, epochs=1, holdout=0.0)[0]["holdout_mse"] is None
    Net.random("long", 8).save(tmp_path / "w.npz")
    with pytest.raises(ValueError, match="w.npz: not a rollout dataset"):
        load_dataset(tmp_path / "w.npz")
    with pytest.raises(ValueError, match="long-rollouts.npz: not a nardy net file"):
        Net.load(path)
    (tmp_path / "text.npz").write_text("not numpy")
    with pytest.raises(ValueError, match="text.npz: not a nardy net file"):
        Net.load(tmp_path / "text.npz")


def test_train_command_rollout_method_writes_a_fitted_net(tmp_path):
    import json

    from click.testing import CliRunner

    from nardy.cli.train import train

    init = Net.random("short", 8, seed=4)
    init.save(tmp_path / "init.npz")
    out = tmp_path / "short.npz"
    r = CliRunner().invoke(
        train,
        [
            "--game",
            "short",
            "--method",
            "rollout",
            "--init",
            str(tmp_path / "init.npz"),
            "--positions",
            "24",
            "--trials",
            "4",
            "--epochs",
            "2",
            "--bench-games",
            "4",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    net = Net.load(out)
    assert net.game == "short" and not np.array_equal(net.W1, init.W1)
    assert (tmp_path / "checkpoints-short" / "short-rollouts.npz").exists()
    lines = (tmp_path / "checkpoints-short" / "log.jsonl").read_text().splitlines()
    assert any('"vs_start"' in line for line in lines)
    assert all(json.loads(line) for line in lines)  # strict JSON (no NaN)
    r = CliRunner().invoke(
        train,
        [
            "--game",
            "short",
            "--method",
            "rollout",
            "--init",
            str(tmp_path / "init.npz"),
            "--positions",
            "24",
            "--trials",
            "5",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 2 and "another rollout dataset" in r.output
    r = CliRunner().invoke(
        train,
        [
            "--game",
            "short",
            "--method",
            "rollout",
            "--init",
            str(tmp_path / "checkpoints-short" / "short-rollouts.npz"),
        ],
    )
    assert r.exit_code == 2 and "not a nardy net file" in r.output


def test_rollout_command_prints_the_result_and_rejects_bad_input():
    import json

    from click.testing import CliRunner

    from nardy.cli import main

    pos = Position.from_boards(_side({5: 1, 6: 1}), _side({1: 1}), "backgammon")
    r = CliRunner().invoke(main, ["rollout", "--position", pos.id(), "--trials", "36", "--no-vr", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    assert out["probabilities"]["win"] == pytest.approx(6 / 36, abs=1e-6)
    assert out["equity"] == pytest.approx(2 * 6 / 36 - 1, abs=1e-5) and out["trials"] == 36
    r = CliRunner().invoke(main, ["rollout", "--game", "short", "--trials", "36"])
    assert "variance reduction" in r.output
    assert r.exit_code == 0 and "equity (cubeless money)" in r.output and "win_koks" in r.output
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"  # the starting position
    r = CliRunner().invoke(main, ["rollout", "--position", xgid, "--trials", "36", "--no-vr", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["position"] == "4HPwATDgc/ABMA"
    for args, needle in (
        (["--trials", "0"], "--trials"),
        (["--position", "nonsense"], "nonsense"),
        (["--truncate", "-2"], "--truncate"),
        (["--seed", "-1"], "--seed"),
        (["--weights", __file__], "not a nardy net file"),
    ):
        r = CliRunner().invoke(main, ["rollout", *args])
        assert r.exit_code == 2 and needle in r.output

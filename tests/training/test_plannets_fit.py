"""``nardy teach fit --plan-hidden``: game-plan nets fitted each on the contact positions (not crashed) of its
plan (issue 46), from the ``--init`` net's plan net of that plan, else its main net; the held-out error of the
net each replaces measured on the same held-out positions (:attr:`nardy.training.fit.FitResult.before`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nardy.engine.net import Net
from nardy.training.jobs import load_dataset

from ..helpers import in_fresh_process
from .test_training import _label_backgammon


@in_fresh_process
def test_keep_main_fits_plan_nets_on_the_positions_of_their_plans(tmp_path):
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main
    from nardy.engine.evaluator import phase_codes

    data, out, init = _label_backgammon(tmp_path, 600), tmp_path / "n.npz", tmp_path / "init.npz"
    d = load_dataset(data)
    codes = phase_codes(np.ascontiguousarray(d["boards"][d["labelled"]]), True, True, True, 0b11111)
    counts = {k: int((codes == 3 + k).sum()) for k in range(5)}
    assert counts[0] > 0 and counts[3] > 0 and counts[4] > 0
    base = Net.random("backgammon", 8, seed=1)
    base.race = Net.random("backgammon", 6, seed=2)
    old3 = Net.random("backgammon", 8, seed=3)
    old1 = Net.random("backgammon", 4, seed=4)
    base.set_plans([None, old1, None, old3, None])
    base.save(init)
    args = ["teach", "fit", str(data), "--init", str(init), "--keep-main", "--epochs", "1", "--holdout", "0.3"]
    # a learning rate of 1e-12: each fitted net is the net it started from, so its held-out error is the one
    # measured before the fit, on the same positions, of the net it replaces
    tiny = ["--lr", "1e-12", "--lr-final", "1e-12", "-o", str(out)]
    run = CliRunner().invoke(main, [*args, *tiny, "--plan-hidden", "8", "--plans", "0,3,4"])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert all(np.array_equal(a, b) for a, b in zip(net.weights, base.weights))
    assert all(np.array_equal(a, b) for a, b in zip(net.race.weights, base.race.weights))
    assert net.plans is not None and net.plans[2] is None
    # plan 1 was not asked for: --init's plan net kept bit for bit
    assert net.plans[1] is not None and np.array_equal(net.plans[1].W1, old1.W1)
    assert [net.plans[k].hidden for k in (0, 3, 4)] == [8, 8, 8]
    # plan 3 started from --init's plan 3 net, plans 0 and 4 from its main net
    assert np.allclose(net.plans[3].W1, old3.W1, atol=1e-6) and np.allclose(net.plans[0].W1, base.W1, atol=1e-6)
    prov = json.loads(net.provenance)
    rows = json.loads(run.output.strip().splitlines()[-1])
    for k in (0, 3, 4):
        fit = prov[f"plan{k}"]
        assert fit["positions"] == counts[k] and fit["hidden"] == 8
        assert fit["before"]["holdout_mse"] == pytest.approx(fit["holdout_mse"], rel=1e-4)
        assert rows[f"plan{k}"]["before"] == fit["before"]
        assert f"plan{k} net: held-out mse" in run.output
    assert "holding (plan 3) positions" in run.output
    # another width starts afresh (its held-out error is no longer the old net's); a wrong --plans is refused
    run = CliRunner().invoke(main, [*args, "-o", str(out), "--plan-hidden", "5", "--plans", "3"])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert net.plans is not None and net.plans[3].hidden == 5 and net.plans[1].hidden == 4
    bad = CliRunner().invoke(main, [*args, "-o", str(out), "--plan-hidden", "5", "--plans", "3,7"])
    assert bad.exit_code == 2 and "distinct game plans 0..4" in bad.output
    bad = CliRunner().invoke(main, [*args, "-o", str(out), "--crashed-hidden", "5", "--plans", "3"])
    assert bad.exit_code == 2 and "give --plan-hidden too" in bad.output


@in_fresh_process
def test_a_fit_of_the_main_net_may_fit_plan_nets_too(tmp_path):
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main

    data, out = _label_backgammon(tmp_path, 300), tmp_path / "n.npz"
    args = ["teach", "fit", str(data), "--hidden", "6", "--epochs", "1", "-o", str(out)]
    run = CliRunner().invoke(main, [*args, "--plan-hidden", "4", "--plan-hidden2", "2", "--plans", "4"])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert net.hidden == 6 and net.plans is not None
    assert [p is None for p in net.plans] == [True, True, True, True, False]
    assert (net.plans[4].hidden, net.plans[4].hidden2) == (4, 2)
    assert "before" not in json.loads(net.provenance)["plan4"]  # no --init: nothing to compare with

"""Fitting nets with a second hidden layer (``fit_net(..., hidden2=N)``, ``nardy teach fit --hidden2``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nardy.engine.net import Net, shipped_path
from nardy.training.positions import self_play_positions
from nardy.training.teachers import SearchTeacher

from ..helpers import in_fresh_process


@pytest.fixture(scope="module")
def short_positions():
    return self_play_positions(Net.load(shipped_path("short")), 300, seed=5)


@in_fresh_process
def test_deep_fit_lowers_the_loss_and_the_numpy_export_computes_what_torch_did(short_positions):
    torch = pytest.importorskip("torch")
    from nardy.training.fit import encode_positions, fit_net

    b, f = short_positions
    y = SearchTeacher("short", plies=1).label(b, f)
    kw = dict(hidden=16, hidden2=8, epochs=10, lr=3e-3, batch=32, holdout=0.2, seed=2, device="cpu")
    res = fit_net("short", b, f, y, **kw)
    h = res.history
    assert len(h) == 10 and h[-1]["train_mse"] < h[0]["train_mse"] and h[-1]["holdout_mse"] < h[0]["holdout_mse"]
    net = res.net
    assert (net.hidden, net.hidden2) == (16, 8) and np.abs(net.U).max() > 0
    x = encode_positions("short", b, f)
    W1, b1, W2, b2, V, c, U = (torch.from_numpy(a) for a in net.kernel_weights)
    h1 = torch.sigmoid(torch.from_numpy(x) @ W1 + b1)
    want = torch.sigmoid(h1 @ W2 + torch.sigmoid(h1 @ V + c) @ U + b2).numpy()
    assert np.allclose(net.forward_inputs(x), want, atol=2e-5)
    assert np.allclose(net.forward_inputs(x[:20]), want[:20], atol=2e-5)  # the row kernel
    fit = json.loads(net.provenance)["fit"]
    assert fit["hidden"] == 16 and fit["hidden2"] == 8 and fit["positions"] == 300
    again = fit_net("short", b, f, y, **kw)
    assert all(np.array_equal(p, q) for p, q in zip(again.net.kernel_weights, net.kernel_weights))  # seeded


@in_fresh_process
def test_deep_fit_from_a_one_layer_net_starts_from_its_outputs_and_from_a_deep_net_keeps_it(short_positions):
    pytest.importorskip("torch")
    from nardy.training.fit import encode_positions, fit_net

    b, f = short_positions
    x = encode_positions("short", b, f)
    init = Net.load(shipped_path("short"))
    y = init.forward_inputs(x)
    tiny = dict(epochs=1, lr=1e-9, lr_final=1e-9, seed=1, device="cpu")
    res = fit_net("short", b, f, y, hidden=init.hidden, hidden2=8, init=init, **tiny)
    net = res.net
    assert net.hidden2 == 8 and np.abs(net.V).max() > 0.01 and np.abs(net.U).max() < 1e-6 and not net.c.any()
    assert res.history[0]["holdout_mse"] < 1e-10 and res.history[0]["train_mse"] < 1e-10
    assert np.abs(net.forward_inputs(x) - y).max() < 1e-5
    assert json.loads(net.provenance)["fit"]["init"].startswith("short net, 256 hidden, ")
    # a deep init: every array kept (hidden2 defaults to the init's), a wider second layer starts silent
    deep = Net.random("short", 12, seed=3, hidden2=6)
    yd = deep.forward_inputs(x)
    kept = fit_net("short", b, f, yd, hidden=12, init=deep, **tiny).net
    assert kept.hidden2 == 6 and np.abs(kept.U - deep.U).max() < 1e-6
    wider = fit_net("short", b, f, yd, hidden=14, hidden2=9, init=deep, **tiny)
    assert wider.net.hidden2 == 9 and wider.history[0]["train_mse"] < 1e-6
    assert "12 + 6 hidden" in json.loads(wider.net.provenance)["fit"]["init"]
    with pytest.raises(ValueError, match="does not fit"):
        fit_net("short", b, f, yd, hidden=12, hidden2=4, init=deep, epochs=1)
    with pytest.raises(ValueError, match="does not fit"):
        fit_net("short", b, f, yd, hidden=12, hidden2=0, init=deep, epochs=1)


@in_fresh_process
def test_teach_fit_hidden2_fits_deep_main_and_race_nets_and_train_refuses_them(tmp_path):
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main

    data, out = tmp_path / "d.npz", tmp_path / "n.npz"
    args = ["teach", "label", "-g", "backgammon", "--self-play", "150", "-t", "search:0", "-j", "0", "-o", str(data)]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    fit = ["teach", "fit", str(data), "--hidden", "10", "--epochs", "2", "-o", str(out)]
    run = CliRunner().invoke(main, [*fit, "--hidden2", "4", "--race-hidden", "6", "--race-hidden2", "3"])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert (net.hidden, net.hidden2, net.race.hidden, net.race.hidden2) == (10, 4, 6, 3)
    prov = json.loads(net.provenance)
    assert prov["fit"]["hidden2"] == 4 and prov["race"]["hidden2"] == 3
    bad = CliRunner().invoke(main, [*fit, "--race-hidden2", "3"])
    assert bad.exit_code == 2 and "--race-hidden too" in bad.output
    td = CliRunner().invoke(
        main, ["train", "-g", "backgammon", "--init", str(out), "--games", "2", "-o", str(tmp_path / "td.npz")]
    )
    assert td.exit_code == 2 and "second hidden layer of 4 units" in td.output

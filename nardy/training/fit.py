"""Fitting a net to labelled positions with PyTorch (the optional ``[train]`` extra), exported to numpy.

The model is the shipped architecture (:class:`nardy.engine.net.Net`: the inputs of
:func:`nardy.engine._kernels.encode`, one sigmoid hidden layer, sigmoid outputs), so the fitted weights run in
the numpy/numba inference with no PyTorch at run time. The loss is the mean squared error of the cumulative
outputs (GNU Backgammon's training criterion), minimised with Adam and a cosine learning-rate decay; a
seeded share of the positions is held out and its error reported after every epoch. Training runs on a GPU
when one is available (``device="cuda"``), otherwise on the CPU; the same seed gives the same weights on the
same device and thread count.

A fit may start from a net (``init``): with a wider ``hidden`` its units are kept and the new ones start
small, so the fit starts from the old net's outputs.

With ``hidden2`` the net has a second sigmoid hidden layer with a skip to the outputs (``h2 = sigmoid(h1 @ V
+ c)``, ``o = sigmoid(h1 @ W2 + h2 @ U + b2)``, :class:`nardy.engine.net.Net`). From a one-layer ``init`` the
second layer starts with ``V`` small and random (seeded), ``c`` and ``U`` zero: the first epoch starts from
the init net's outputs exactly, and the gradient reaches ``V`` once ``U`` has moved. From a deep ``init`` all
its weights are kept (new units of either layer start as above).
"""

from __future__ import annotations

import json
import time

import numpy as np

from ..engine import _kernels as K
from ..engine.net import GAME_CODES, Net

__all__ = ["fit_net", "encode_positions", "FitResult"]


def _torch():
    """PyTorch, imported after numba's OpenMP pool so that the process has one OpenMP runtime.

    PyTorch's wheel carries its own ``libgomp.so.1``; numba's OpenMP pool (the rollouts' parallel kernel) needs
    the system's ``libgomp.so.1.0.0``. Loaded in that order, the system's comes first and PyTorch's libraries,
    asking for the soname ``libgomp.so.1``, share it; loaded the other way two OpenMP runtimes sit in one
    process (``/proc/self/maps`` shows both), a known cause of crashes when the process exits (the test runs
    of tests/engine, tests/analysis and tests/training ended now and then in ``free(): invalid pointer``)."""
    try:
        import numba.np.ufunc.omppool  # noqa: F401  (the system's libgomp first; absent: nothing to share)
    except ImportError:
        pass
    try:
        import torch
    except ImportError:
        raise ImportError("fitting a net needs PyTorch: pip install 'nardy[train]'") from None
    return torch


def encode_positions(game: str, boards: np.ndarray, firsts: np.ndarray, block: int = 65536) -> np.ndarray:
    """Inputs ``float32[n, N_INPUTS]`` of boards (side on roll's view) by the net's encoding, in blocks."""
    code = GAME_CODES[game]
    n = len(boards)
    x = np.empty((n, K.N_INPUTS), np.float32)
    for i in range(0, n, block):
        b = np.ascontiguousarray(boards[i : i + block], np.int8)
        f = np.ascontiguousarray(firsts[i : i + block], np.bool_)
        x[i : i + block] = K.encode_batch(b, code, f[:, 0].copy(), f[:, 1].copy())
    return x


class FitResult:
    """What :func:`fit_net` returns: ``net`` (the fitted :class:`Net`), ``history`` (one dict per epoch:
    ``epoch``, ``train_mse``, ``holdout_mse``, ``holdout_equity_mae`` in points, ``seconds``) and ``before``
    (``{"holdout_mse", "holdout_equity_mae"}`` of the ``baseline`` net on the same held-out positions, or
    ``None`` when no baseline was given)."""

    def __init__(self, net: Net, history: list[dict], before: dict | None = None):
        self.net = net
        self.history = history
        self.before = before


def fit_net(
    game: str,
    boards: np.ndarray,
    firsts: np.ndarray,
    targets: np.ndarray,
    *,
    hidden: int = 128,
    hidden2: int | None = None,
    init: Net | None = None,
    epochs: int = 20,
    lr: float = 1e-3,
    lr_final: float = 2e-5,
    batch: int = 512,
    holdout: float = 0.05,
    seed: int = 0,
    device: str | None = None,
    threads: int | None = None,
    provenance: dict | None = None,
    progress=None,
    baseline: Net | None = None,
) -> FitResult:
    """Fit a net of ``hidden`` units to ``targets`` (``float32[n, K]``, side on roll's view) of ``boards``.

    Args:
        hidden2: units of a second hidden layer (0: none; ``None``: the ``init`` net's, else 0).
        init: start from this net (same game; ``hidden`` and ``hidden2`` at least its widths).
        lr, lr_final: Adam's learning rate, falling by a cosine from ``lr`` to ``lr_final`` over the run.
        holdout: share of the positions (a seeded random subset) kept out of training to measure the error.
        device: ``"cuda"``, ``"cpu"`` or ``None`` (the GPU when one is available).
        threads: PyTorch's CPU threads (``None``: its default).
        provenance: written, with the fit's settings and final errors, into the net's ``provenance``.
        progress: ``progress(history_row)`` after each epoch.
        baseline: a net (same game, any width) whose error on the held-out positions is measured before the
            fit (:attr:`FitResult.before`; its numpy outputs, not sanitised, as the fit's errors are): how much
            the fit changed on the net it replaces.
    Raises:
        ValueError: shapes that do not fit the game, or an ``init`` net of another game or wider (either
            layer), or ``hidden2`` below 0.
        ImportError: PyTorch is not installed.
    """
    torch = _torch()
    code = GAME_CODES[game]
    k = int(K.N_OUTPUTS[code])
    targets = np.asarray(targets, np.float32)
    if targets.ndim != 2 or targets.shape[1] != k or len(targets) != len(boards):
        raise ValueError(f"targets of shape {targets.shape} do not fit {len(boards)} {game} positions ({k} outputs)")
    if hidden2 is None:
        hidden2 = 0 if init is None else init.hidden2
    if hidden2 < 0:
        raise ValueError(f"hidden2 must be 0 or more, not {hidden2}")
    if init is not None and (init.game != game or init.hidden > hidden or init.hidden2 > hidden2):
        raise ValueError(
            f"init net ({init.game}, {init.hidden} hidden, {init.hidden2} in a second layer) does not fit a {game} "
            f"net of {hidden} and {hidden2}"
        )
    if threads:
        torch.set_num_threads(int(threads))
    dev = torch.device(device or ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    n = len(boards)
    perm = rng.permutation(n)
    n_hold = int(round(n * holdout))
    hold, train = perm[:n_hold], perm[n_hold:]
    x = torch.from_numpy(encode_positions(game, boards, firsts))
    y = torch.from_numpy(targets)
    if dev.type != "cpu":
        x, y = x.to(dev), y.to(dev)
    base = Net.random(game, hidden, seed)
    W1, b1, W2, b2 = (a.copy() for a in base.weights)
    W1 *= 0.5
    W2 *= 0.5
    if init is not None:
        h0 = init.hidden
        W1[:, :h0], b1[:h0], W2[:h0], b2[:] = init.W1, init.b1, init.W2, init.b2
        W2[h0:] *= 0.01
    arrays = [W1, b1, W2, b2]
    if hidden2:
        arrays += _second_layer(init, hidden, hidden2, k, seed)
    p = [torch.tensor(a, device=dev, requires_grad=True) for a in arrays]
    opt = torch.optim.Adam(p, lr=lr)
    steps_per_epoch = max(1, (len(train) + batch - 1) // batch)
    total = epochs * steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (lr_final + 0.5 * (lr - lr_final) * (1 + np.cos(np.pi * min(s, total) / total))) / lr
    )
    eq_w = torch.tensor(_equity_weights(game), device=dev)

    def forward(xb):
        h = torch.sigmoid(xb @ p[0] + p[1])
        if hidden2:
            h2 = torch.sigmoid(h @ p[4] + p[5])
            return torch.sigmoid(h @ p[2] + h2 @ p[6] + p[3])
        return torch.sigmoid(h @ p[2] + p[3])

    def holdout_error():
        if n_hold == 0:
            return float("nan"), float("nan")
        with torch.no_grad():
            se = ae = 0.0
            for i in range(0, n_hold, 65536):
                idx = torch.from_numpy(hold[i : i + 65536]).to(dev)
                o, t = forward(x[idx]), y[idx]
                se += float(((o - t) ** 2).mean(dim=1).sum())
                ae += float(((o - t) @ eq_w).abs().sum())
            return se / n_hold, ae / n_hold

    before = None
    if baseline is not None:
        if baseline.game != game:
            raise ValueError(f"baseline net of {baseline.game}, the positions are {game}")
        before = _baseline_error(baseline, x, y, hold, eq_w)
    history = []
    for ep in range(epochs):
        t0 = time.perf_counter()
        order = torch.from_numpy(train[rng.permutation(len(train))]).to(dev)
        tot = 0.0
        for s in range(steps_per_epoch):
            idx = order[s * batch : (s + 1) * batch]
            loss = ((forward(x[idx]) - y[idx]) ** 2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            tot += loss.item() * len(idx)
        mse, mae = holdout_error()
        row = {
            "epoch": ep + 1,
            "train_mse": tot / max(1, len(train)),
            "holdout_mse": mse,
            "holdout_equity_mae": mae,
            "seconds": time.perf_counter() - t0,
        }
        history.append(row)
        if progress is not None:
            progress(row)
    arrays = [a.detach().cpu().numpy().astype(np.float32) for a in p]
    prov = dict(provenance or {})
    prov["fit"] = {
        "positions": int(n),
        "holdout": n_hold,
        "hidden": int(hidden),
        **({"hidden2": int(hidden2)} if hidden2 else {}),
        "epochs": int(epochs),
        "lr": lr,
        "lr_final": lr_final,
        "batch": int(batch),
        "seed": int(seed),
        "init": None if init is None else _describe(init),
        "holdout_mse": history[-1]["holdout_mse"] if history else None,
        "holdout_equity_mae": history[-1]["holdout_equity_mae"] if history else None,
        "torch": torch.__version__,
        "device": dev.type,
    }
    games = init.games_trained if init is not None else 0
    deep = dict(zip("VcU", arrays[4:]))
    net = Net(game, *arrays[:4], games_trained=games, seed=seed, provenance=json.dumps(prov, sort_keys=True), **deep)
    return FitResult(net, history, before)


def _baseline_error(net: Net, x, y, hold: np.ndarray, eq_w) -> dict:
    """``{"holdout_mse", "holdout_equity_mae"}`` of ``net``'s numpy outputs on the held-out rows ``hold`` of the
    inputs ``x`` and targets ``y`` (torch tensors), by the fit's formulas (NaN with no held-out rows)."""
    if len(hold) == 0:
        return {"holdout_mse": float("nan"), "holdout_equity_mae": float("nan")}
    torch = _torch()
    w = eq_w.detach().cpu().numpy().astype(np.float64)
    se = ae = 0.0
    for i in range(0, len(hold), 65536):
        idx = torch.from_numpy(hold[i : i + 65536]).to(x.device)
        xi = x[idx].cpu().numpy()
        t = y[idx].cpu().numpy().astype(np.float64)
        d = net.forward_inputs(xi).astype(np.float64) - t
        se += float((d**2).mean(axis=1).sum())
        ae += float(np.abs(d @ w).sum())
    return {"holdout_mse": se / len(hold), "holdout_equity_mae": ae / len(hold)}


def _describe(init: Net) -> str:
    """How the provenance names an init net: ``"<game> net, <H> hidden[ + <H2>], <games> games"``."""
    deep = f" + {init.hidden2}" if init.hidden2 else ""
    return f"{init.game} net, {init.hidden}{deep} hidden, {init.games_trained} games"


def _second_layer(init: Net | None, hidden: int, hidden2: int, k: int, seed: int) -> list[np.ndarray]:
    """Starting ``[V float32[hidden, hidden2], c float32[hidden2], U float32[hidden2, k]]`` of a fit.

    ``V`` normal(0, 0.1) from ``numpy.random.default_rng([seed, 2])``, ``c`` zero; ``U`` zero from an ``init``
    net (its outputs unchanged), else normal(0, 0.05). A deep ``init``'s ``V``, ``c``, ``U`` fill the top-left
    corner; the rows of ``V`` from first-layer units it lacks are zero (their ``h1`` does not reach ``h2``).
    """
    rng = np.random.default_rng([seed, 2])
    V = (rng.standard_normal((hidden, hidden2)) * 0.1).astype(np.float32)
    c = np.zeros(hidden2, np.float32)
    U = np.zeros((hidden2, k), np.float32)
    if init is None:
        U[:] = rng.standard_normal((hidden2, k)) * 0.05
        return [V, c, U]
    h0, m0 = init.hidden, init.hidden2
    if m0:
        V[h0:, :m0] = 0.0
        V[:h0, :m0], c[:m0], U[:m0] = init.V, init.c, init.U
    return [V, c, U]


def _equity_weights(game: str) -> np.ndarray:
    """Weights ``w[K]`` with ``outputs @ w`` = the cubeless money equity minus ``-1`` offset terms that cancel
    in a difference (docs/rules.md scoring): win counts 2 (``2p - 1``), each higher level adds its step."""
    from ..engine.net import scoring_values

    v = scoring_values(game)
    L = len(v)
    w = np.zeros(2 * L - 1, np.float32)
    w[0] = 2 * v[0]
    for j in range(1, L):
        w[j] = v[j] - v[j - 1]
        w[L - 1 + j] = -(v[j] - v[j - 1])
    return w

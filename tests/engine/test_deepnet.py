"""Nets with a second hidden layer and a skip to the outputs (:class:`nardy.engine.net.Net`, ``hidden2``):
zero ``U`` gives the one-layer outputs bit for bit through every evaluation path; a random deep net equals a
numpy reference through every path; ``.npz`` round trip; the one-layer trainers refuse deep nets."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.engine import _kernels as K
from nardy.engine import _rollout as R
from nardy.engine import net as net_module
from nardy.engine.evaluator import HybridEvaluator, NeuralEvaluator, _sanitize_rows, phase_codes, plan_bits
from nardy.engine.net import Net, shipped_path
from nardy.engine.rollout import fit, rollout_boards, sample_positions
from nardy.engine.search import Searcher
from nardy.engine.tdtrain import benchmark, train_net
from nardy.rules.variants import get_rules

GAMES = ("backgammon", "long")


def _with_second_layer(net: Net, hidden2: int, seed: int, zero_u: bool) -> Net:
    """``net`` with a random second layer (``U`` zero when ``zero_u``), its phase and game-plan nets too
    (crashed: left one-layer, so a file mixes deep and one-layer phase nets)."""
    rng = np.random.default_rng(seed)

    def deepen(n: Net) -> Net:
        V = rng.standard_normal((n.hidden, hidden2)) * 0.3
        c = rng.standard_normal(hidden2) * 0.3
        U = np.zeros((hidden2, n.n_outputs)) if zero_u else rng.standard_normal((hidden2, n.n_outputs)) * 0.5
        return Net(n.game, *n.weights, n.games_trained, n.seed, n.provenance, V=V, c=c, U=U)

    out = deepen(net)
    out.race = None if net.race is None else deepen(net.race)
    out.crashed = None if net.crashed is None else net.crashed.copy()
    if net.plans is not None:
        out.set_plans([None if n is None else deepen(n) for n in net.plans])
    return out


_POSITIONS: dict = {}


def _positions(game: str, n: int = 400):
    """Self-play positions of the shipped net (side on roll's view) and their inputs."""
    if game not in _POSITIONS:
        net = Net.load(shipped_path(game))
        b, f = sample_positions(net, n, 11)
        x = K.encode_batch(b, net.code, f[:, 0].copy(), f[:, 1].copy())
        _POSITIONS[game] = (b, f, x)
    return _POSITIONS[game]


def _reference(net: Net, x: np.ndarray) -> np.ndarray:
    """The outputs by the formula in float64 numpy (no clipping: the tests' pre-activations stay within 40)."""

    def sig(z):
        return 1.0 / (1.0 + np.exp(-z))

    x = x.astype(np.float64)
    h1 = sig(x @ net.W1.astype(np.float64) + net.b1)
    h2 = sig(h1 @ net.V.astype(np.float64) + net.c)
    return sig(h1 @ net.W2.astype(np.float64) + h2 @ net.U.astype(np.float64) + net.b2)


class _ReferenceEvaluator:
    """:class:`NeuralEvaluator`'s job (phase and game-plan nets, sanitised outputs) with :func:`_reference`."""

    def __init__(self, net: Net):
        self.net, self.game = net, net.game

    def evaluate_batch(self, boards, first=None):
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
        n = boards.shape[0]
        f = np.zeros((n, 2), np.bool_) if first is None else np.asarray(first, np.bool_).reshape(n, 2)
        x = K.encode_batch(boards, self.net.code, f[:, 0].copy(), f[:, 1].copy())
        net = self.net
        hitting = net.code != K.GAME_LONG
        plans = net.plans or ()
        phase = phase_codes(
            boards, hitting, net.race is not None, net.crashed is not None, plan_bits(plans) if hitting else 0
        )
        out = np.empty((n, net.n_outputs), np.float32)
        for code, sub in ((0, net), (1, net.race), (2, net.crashed), *((3 + k, p) for k, p in enumerate(plans))):
            m = phase == code
            if sub is not None and m.any():
                out[m] = _reference(sub, x[m])
        _sanitize_rows(out, (net.n_outputs + 1) // 2)
        return out


@pytest.mark.parametrize("game", GAMES)
def test_deep_net_with_zero_skip_weights_gives_the_one_layer_outputs_bit_for_bit_on_every_path(game, monkeypatch):
    base = Net.load(shipped_path(game))
    deep = _with_second_layer(base, 32, 1, zero_u=True)
    assert deep.hidden2 == 32 and base.hidden2 == 0
    b, f, x = _positions(game)
    fm, fo = f[:, 0].copy(), f[:, 1].copy()

    def same(a, c):
        assert a.dtype == c.dtype and np.array_equal(a, c)

    # the row kernel, the dense layer-by-layer paths, and the chunked dense path
    same(deep.forward_inputs(x[:10]), base.forward_inputs(x[:10]))
    same(deep.forward_inputs(x), base.forward_inputs(x))
    same(K.forward_batch(*deep.kernel_weights, x), K.forward_batch(*base.kernel_weights, x))
    for dense in (False, True):
        same(deep.forward_boards(b, fm, fo, dense=dense), base.forward_boards(b, fm, fo, dense=dense))
    monkeypatch.setattr(net_module, "CHUNK_ROWS", 100)
    same(deep.forward_boards(b, fm, fo), base.forward_boards(b, fm, fo))
    monkeypatch.undo()
    # the evaluators (phase nets, repeated boards), the search at 1 and 2 plies
    rep = np.concatenate([b, b[:50]])
    rf = np.concatenate([f, f[:50]])
    same(NeuralEvaluator(deep).evaluate_batch(rep, rf), NeuralEvaluator(base).evaluate_batch(rep, rf))
    same(HybridEvaluator(deep).evaluate_batch(b, f), HybridEvaluator(base).evaluate_batch(b, f))
    rules = get_rules(game)
    s_deep, s_base = Searcher(NeuralEvaluator(deep), rules), Searcher(NeuralEvaluator(base), rules)
    same(s_deep.evaluate_positions(b[:6], f[:6], ply=1), s_base.evaluate_positions(b[:6], f[:6], ply=1))
    same(s_deep.evaluate_positions(b[:1], f[:1], ply=2), s_base.evaluate_positions(b[:1], f[:1], ply=2))
    # the compiled games: rollouts (with variance reduction, truncated), self-play sampling, matches, errors
    for a, c in zip(
        rollout_boards(deep, b[:2], f[:2], 36, 5, 6, True), rollout_boards(base, b[:2], f[:2], 36, 5, 6, True)
    ):
        same(a, c)
    for a, c in zip(sample_positions(deep, 60, 3), sample_positions(base, 60, 3)):
        same(a, c)
    assert benchmark(deep, "heuristic", 6) == benchmark(base, "heuristic", 6)
    assert benchmark(deep, base, 6) == benchmark(base, base, 6)
    t = base.forward_inputs(x[:50])[::-1].copy()
    assert R.mse(*deep.kernel_weights, deep.code, b[:50], f[:50], t) == R.mse(
        *base.kernel_weights, base.code, b[:50], f[:50], t
    )


@pytest.mark.parametrize("game", GAMES)
def test_random_deep_net_equals_the_numpy_reference_on_every_path(game):
    deep = _with_second_layer(Net.load(shipped_path(game)), 24, 2, zero_u=False)
    b, f, x = _positions(game)
    fm, fo = f[:, 0].copy(), f[:, 1].copy()
    ref = _reference(deep, x)
    assert np.abs(ref - _reference(Net.load(shipped_path(game)), x)).max() > 0.05  # the second layer counts
    np.testing.assert_allclose(deep.forward_inputs(x[:10]), ref[:10], atol=1e-6, rtol=0)
    np.testing.assert_allclose(deep.forward_inputs(x), ref, atol=1e-6, rtol=0)
    np.testing.assert_allclose(K.forward_batch(*deep.kernel_weights, x), ref, atol=1e-6, rtol=0)
    for dense in (False, True):
        np.testing.assert_allclose(deep.forward_boards(b, fm, fo, dense=dense), ref, atol=1e-6, rtol=0)
    # the evaluator with a deep race net (and a one-layer crashed net in backgammon)
    refev = _ReferenceEvaluator(deep)
    np.testing.assert_allclose(NeuralEvaluator(deep).evaluate_batch(b, f), refev.evaluate_batch(b, f), atol=1e-6)
    # the kernels' row forward: the error of the net against targets
    t = np.random.default_rng(0).random((100, deep.n_outputs)).astype(np.float32)
    want = float(((ref[:100] - t) ** 2).mean())
    assert R.mse(*deep.kernel_weights, deep.code, b[:100], f[:100], t) == pytest.approx(want, abs=1e-6)
    # 1-ply: the search over the evaluator, and a rollout truncated after one ply (all 36 first rolls, the
    # main net only: the compiled games use no phase nets) against the reference's 1-ply
    main = Net(deep.game, *deep.weights, V=deep.V, c=deep.c, U=deep.U)
    rules = get_rules(game)
    want1 = Searcher(_ReferenceEvaluator(main), rules).evaluate_positions(b[:8], f[:8], ply=1)
    got1 = Searcher(NeuralEvaluator(main), rules).evaluate_positions(b[:8], f[:8], ply=1)
    np.testing.assert_allclose(got1, want1, atol=1e-6)
    mean, _, _ = rollout_boards(main, b[:8], f[:8], 36, 1, truncate=1)
    np.testing.assert_allclose(mean, want1, atol=2e-6)


def test_deep_net_file_round_trip_keeps_every_array_and_one_layer_files_are_unchanged(tmp_path):
    base = Net.load(shipped_path("backgammon"))
    deep = _with_second_layer(base, 16, 3, zero_u=False)
    deep.provenance = '{"fit": {}}'
    back = Net.load(deep.save(tmp_path / "deep.npz"))
    assert (back.hidden, back.hidden2, back.race.hidden2, back.crashed.hidden2) == (256, 16, 16, 0)
    for a, c in ((back, deep), (back.race, deep.race), (back.crashed, deep.crashed)):
        assert all(np.array_equal(p, q) for p, q in zip(a.kernel_weights, c.kernel_weights))
    assert back.provenance == deep.provenance
    keys = set(np.load(tmp_path / "deep.npz").files)
    assert {"V", "c", "U", "race_V", "race_c", "race_U"} <= keys and "crashed_V" not in keys
    # a one-layer net writes no second-layer keys and loads as before
    one = Net.load(base.save(tmp_path / "one.npz"))
    assert not {"V", "c", "U"} & set(np.load(tmp_path / "one.npz").files)
    assert one.hidden2 == 0 and one.V.shape == (256, 0) and one.U.shape == (0, 5)
    # a copy is deep and independent
    cp = deep.copy()
    cp.V[0, 0] += 1.0
    assert cp.hidden2 == 16 and cp.race.hidden2 == 16 and deep.V[0, 0] != cp.V[0, 0]


def test_a_file_with_part_of_a_second_layer_or_wrong_shapes_is_refused(tmp_path):
    deep = Net.random("long", 8, 0, hidden2=4)
    assert deep.hidden2 == 4 and deep.kernel_weights[4].shape == (8, 4)
    z = dict(np.load(deep.save(tmp_path / "d.npz")))
    del z["U"]
    np.savez(tmp_path / "part.npz", **z)
    with pytest.raises(ValueError, match="part.npz.*second hidden layer"):
        Net.load(tmp_path / "part.npz")
    with pytest.raises(ValueError, match="second hidden layer shapes"):
        Net("long", *deep.weights, V=deep.V, c=deep.c, U=np.zeros((5, 3)))
    with pytest.raises(ValueError, match="V, c and U together"):
        Net("long", *deep.weights, V=deep.V)


def test_one_layer_trainers_refuse_a_deep_net():
    deep = Net.random("long", 8, 0, hidden2=4)
    with pytest.raises(ValueError, match="TD training .* second hidden layer of 4 units"):
        train_net(deep, 2, 0, 0.1, 0.1, 0.7)
    b = np.zeros((2, 28), np.int8)
    data = {"game": "long", "boards": b, "firsts": np.zeros((2, 2), bool), "targets": np.zeros((2, 3), np.float32)}
    with pytest.raises(ValueError, match="fitting to rollouts .* second hidden layer"):
        fit(deep, data, epochs=1)
    one = Net.random("long", 8, 0)
    one.race = Net.random("long", 8, 1, hidden2=2)
    with pytest.raises(ValueError, match="race net has a second hidden layer"):
        one.require_one_layer("TD training")


def test_second_layer_batch_kernel_sums_in_the_row_kernels_order():
    rng = np.random.default_rng(4)
    h = rng.random((37, 20)).astype(np.float32)  # 37 rows: blocks of four and a remainder
    V = rng.standard_normal((20, 9)).astype(np.float32)
    c = rng.standard_normal(9).astype(np.float32)
    got = K.hidden2_batch(V, c, h)
    assert got.shape == (37, 9) and np.array_equal(got, K.output_batch(V, c, h))
    np.testing.assert_allclose(got, h.astype(np.float64) @ V + c, atol=1e-5)

"""Compiled kernels (numba): the nets' multilayer perceptron (a sigmoid hidden layer, optionally a second one
with a skip to the outputs, sigmoid outputs, float32): one row (:func:`forward`), batches layer by layer
(:func:`hidden_batch`, :func:`hidden_boards`, :func:`hidden2_batch`, :func:`output_batch`), and one gradient
step of the cross-entropy (:func:`sgd_step`, TD and supervised training, one-layer nets only).

``W1``: float32[N_INPUTS, H], ``b1``: float32[H], ``W2``: float32[H, K], ``b2``: float32[K]; the second layer
``V``: float32[H, H2], ``c``: float32[H2], ``U``: float32[H2, K] (``H2 = 0`` for a one-layer net: empty
arrays, and the outputs are bit for bit the one-layer ones)::

    h1 = sigmoid(x @ W1 + b1)
    h2 = sigmoid(h1 @ V + c)
    o  = sigmoid(h1 @ W2 + h2 @ U + b2)

The inputs are :func:`nardy.engine._encode.encode`'s, the outputs the cumulative result probabilities of
:mod:`nardy.engine._outcomes`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._encode import N_INPUTS, encode


@njit(cache=True, nogil=True, inline="always")
def _sigmoid(z):
    if z < -40.0:
        return 0.0
    if z > 40.0:
        return 1.0
    return 1.0 / (1.0 + np.exp(-z))


@njit(cache=True, nogil=True)
def forward(W1, b1, W2, b2, V, c, U, x, h, o):
    """One MLP evaluation on inputs ``x`` (float32[N_INPUTS]) into ``o`` (float32[K]): ``h1 = sigmoid(x @ W1 +
    b1)`` into ``h[:H]``, ``h2 = sigmoid(h1 @ V + c)`` into ``h[H:H + H2]``, ``o = sigmoid(h1 @ W2 + h2 @ U +
    b2)``; ``h``: float32[H + H2] scratch.

    W1: float32[N_INPUTS, H], W2: float32[H, K], V: float32[H, H2], c: float32[H2], U: float32[H2, K]
    (``H2 = 0``: the one-layer net, the same sums in the same order). Zero inputs are skipped (the inputs are
    sparse). Each output's sum runs ``b2[k]``, the ``h1`` terms, then the ``h2`` terms.
    """
    H = b1.shape[0]
    H2 = c.shape[0]
    K = b2.shape[0]
    acc = b1.copy()
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                acc[j] += xi * W1[i, j]
    for j in range(H):
        h[j] = _sigmoid(acc[j])
    # the second layer's sums side by side (each in the order c[m], + h[0] V[0, m], + h[1] V[1, m], ...: as
    # output_batch sums), which vectorises across its units
    for m in range(H2):
        h[H + m] = c[m]
    for j in range(H):
        hj = h[j]
        for m in range(H2):
            h[H + m] += hj * V[j, m]
    for m in range(H2):
        h[H + m] = _sigmoid(h[H + m])
    for k in range(K):
        z = b2[k]
        for j in range(H):
            z += h[j] * W2[j, k]
        for m in range(H2):
            z += h[H + m] * U[m, k]
        o[k] = _sigmoid(z)


@njit(cache=True, nogil=True)
def _forward1(W1, b1, W2, b2, x, h, o):
    """:func:`forward` of a one-layer net (no second layer's arrays): ``h``: float32[H] scratch."""
    H = b1.shape[0]
    K = b2.shape[0]
    acc = b1.copy()
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                acc[j] += xi * W1[i, j]
    for j in range(H):
        h[j] = _sigmoid(acc[j])
    for k in range(K):
        z = b2[k]
        for j in range(H):
            z += h[j] * W2[j, k]
        o[k] = _sigmoid(z)


@njit(cache=True, nogil=True, inline="always")
def sgd_step(W1, b1, W2, b2, x, target, lr, h, o, dout, dh):
    """One gradient step (weights in place) of the cross-entropy between the sigmoid outputs for inputs ``x``
    and ``target`` (float32[K]) of a one-layer net; ``h``, ``o``, ``dout``, ``dh`` are scratch (float32[H], [K],
    [K], [H]).

    Returns:
        The squared error of the outputs before the step (summed over the K outputs).
    """
    H = b1.shape[0]
    K = b2.shape[0]
    _forward1(W1, b1, W2, b2, x, h, o)
    se = 0.0
    for k in range(K):
        dout[k] = target[k] - o[k]
        se += dout[k] * dout[k]
    for j in range(H):
        acc = 0.0
        for k in range(K):
            acc += dout[k] * W2[j, k]
        dh[j] = acc * h[j] * (1.0 - h[j])
    for j in range(H):
        for k in range(K):
            W2[j, k] += lr * dout[k] * h[j]
    for k in range(K):
        b2[k] += lr * dout[k]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(H):
                W1[i, j] += lr * xi * dh[j]
    for j in range(H):
        b1[j] += lr * dh[j]
    return se


@njit(cache=True, nogil=True)
def forward_batch(W1, b1, W2, b2, V, c, U, x):
    """MLP outputs (float32[n, K], not sanitised) of inputs ``x`` (float32[n, N_INPUTS]), row by row
    (:func:`forward`), skipping zeros."""
    n = x.shape[0]
    H = b1.shape[0] + c.shape[0]
    K = b2.shape[0]
    out = np.empty((n, K), np.float32)
    h = np.empty(H, np.float32)
    for r in range(n):
        forward(W1, b1, W2, b2, V, c, U, x[r], h, out[r])
    return out


@njit(cache=True, nogil=True, inline="always")
def _first_layer(W1, b1, x, acc):
    """``acc <- x @ W1 + b1`` for one row, zero inputs skipped (the sums of :func:`forward`, in its order)."""
    for j in range(b1.shape[0]):
        acc[j] = b1[j]
    for i in range(x.shape[0]):
        xi = x[i]
        if xi != 0.0:
            for j in range(b1.shape[0]):
                acc[j] += xi * W1[i, j]


@njit(cache=True, nogil=True)
def hidden_batch(W1, b1, x):
    """Hidden pre-activations ``x @ W1 + b1`` (float32[n, H]) of inputs ``x`` (float32[n, N_INPUTS]), skipping
    zero inputs (the inputs are sparse); the sigmoid is applied by the caller (vectorised numpy ``exp``)."""
    out = np.empty((x.shape[0], b1.shape[0]), np.float32)
    for r in range(x.shape[0]):
        _first_layer(W1, b1, x[r], out[r])
    return out


@njit(cache=True, nogil=True)
def hidden_boards(W1, b1, boards, game, first_m, first_o):
    """Negated hidden pre-activations ``-clip(x @ W1 + b1, -40, 40)`` (float32[n, H]) of boards
    (int8[n, 28], side on roll's view; ``first_m``/``first_o``: bool[n]), encoding each row into a small
    scratch instead of materialising ``x`` (float32[n, N_INPUTS]): the same sums, in the same order, as
    :func:`hidden_batch` of :func:`encode_batch`, without the memory traffic of ``x``. The caller finishes
    the sigmoid ``1 / (1 + exp(.))`` with numpy (vectorised, as ``nardy.engine.net._sigmoid_inplace``) and
    passes the result to :func:`output_batch`."""
    n = boards.shape[0]
    H = b1.shape[0]
    out = np.empty((n, H), np.float32)
    x = np.empty(N_INPUTS, np.float32)
    for r in range(n):
        encode(boards[r], game, first_m[r], first_o[r], x)
        acc = out[r]
        _first_layer(W1, b1, x, acc)
        for j in range(H):
            v = acc[j]
            if v < -40.0:
                v = np.float32(-40.0)
            elif v > 40.0:
                v = np.float32(40.0)
            acc[j] = -v
    return out


#: Rows of a block in :func:`_second_layer_rows`: the product runs across rows, one SIMD lane a row
#: (passed as an argument: a block size known when compiling is unrolled into scalar code instead).
ROW_BLOCK = 32


@njit(cache=True, nogil=True)
def _second_layer_rows(W2, b2, h, out, B):
    """``out <- h @ W2 + b2`` for the rows of ``h`` (float32[n, H]): each row's sums in one fixed order
    (``b2[k]``, then ``+ h[j] * W2[j, k]`` for ``j = 0, 1, ...``, no fused multiply-add, as :func:`forward`
    sums), so a row's bits do not depend on the other rows of its batch, but the ``B`` rows of a block are
    summed side by side (from a transposed copy of the block), which vectorises across rows; a row's ``K``
    (3-7) outputs alone do not."""
    n, H = h.shape
    K = b2.shape[0]
    hT = np.zeros((H, B), np.float32)
    acc = np.empty(B, np.float32)
    for r0 in range(0, n, B):
        m = min(B, n - r0)
        for t in range(m):
            hr = h[r0 + t]
            for j in range(H):
                hT[j, t] = hr[j]
        for k in range(K):
            bk = b2[k]
            for t in range(B):
                acc[t] = bk
            for j in range(H):
                w = W2[j, k]
                hj = hT[j]
                for t in range(B):
                    acc[t] += hj[t] * w
            for t in range(m):
                out[r0 + t, k] = acc[t]


@njit(cache=True, nogil=True)
def output_batch(W2, b2, h):
    """Pre-activations ``h @ W2 + b2`` (float32[n, K]) of activations ``h`` (float32[n, H]), each row's sums in
    :func:`forward`'s order: the outputs, a deep net's outputs (``output_batch([[W2], [U]], b2, [h1, h2])``), or
    its second layer (``output_batch(V, c, h1)``, bit for bit :func:`hidden2_batch`, which is faster there)."""
    out = np.empty((h.shape[0], b2.shape[0]), np.float32)
    _second_layer_rows(W2, b2, h, out, ROW_BLOCK)
    return out


@njit(cache=True, nogil=True)
def hidden2_batch(V, c, h):
    """A deep net's second-layer pre-activations ``h @ V + c`` (float32[n, H2]) of first-layer activations ``h``
    (float32[n, H]): each sum in :func:`forward`'s order (``c[m]``, then ``+ h[j] * V[j, m]`` for ``j = 0, 1,
    ...``; bit for bit ``output_batch(V, c, h)``), four rows at a time, each row of ``V`` loaded once for the
    four and the ``H2`` units summed side by side (vectorised; :func:`_second_layer_rows` suits a few
    outputs, not a wide layer: ``bench/net_forward.py --hidden2``)."""
    n, H = h.shape
    H2 = c.shape[0]
    out = np.empty((n, H2), np.float32)
    for r in range(n):
        for m in range(H2):
            out[r, m] = c[m]
    n4 = n - n % 4
    for r0 in range(0, n4, 4):
        o0, o1, o2, o3 = out[r0], out[r0 + 1], out[r0 + 2], out[r0 + 3]
        h0, h1, h2, h3 = h[r0], h[r0 + 1], h[r0 + 2], h[r0 + 3]
        for j in range(H):
            vj = V[j]
            a0, a1, a2, a3 = h0[j], h1[j], h2[j], h3[j]
            for m in range(H2):
                v = vj[m]
                o0[m] += a0 * v
                o1[m] += a1 * v
                o2[m] += a2 * v
                o3[m] += a3 * v
    for r in range(n4, n):
        o, hr = out[r], h[r]
        for j in range(H):
            hj = hr[j]
            vj = V[j]
            for m in range(H2):
                o[m] += hj * vj[m]
    return out

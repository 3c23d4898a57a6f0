"""Training a game's evaluator net by self-play TD(lambda) (``nardy train``, :mod:`nardy.cli.train`, runs it).

The net plays both sides greedily at 0-ply (cubeless money equity); after each game every position's
outputs are moved towards its lambda-return (see :func:`nardy.engine._kernels.td_train`), as TD-Gammon was
trained. The run is reproducible: the initial weights come from ``--seed`` and chunk ``i`` of games uses
the seed ``seed * 1_000_003 + i`` for its dice.

Every ``--checkpoint-every`` games the weights are saved to ``<checkpoint-dir>/<game>-<games>.npz`` and
benchmarked (duplicate dice, cubeless, 0-ply) against the previous checkpoint and against the simple
heuristic player; the figures go to the console and to ``<checkpoint-dir>/log.jsonl``.

With ``--method rollout`` (the second stage, as GNU Backgammon and wildbg train): ``--positions``
positions are sampled from the ``--init`` net's self-play (default: the shipped net) and each is rolled out
``--trials`` times by that net at 0-ply (:mod:`nardy.engine.rollout`); the dataset is saved to ``--data``
(resumable); then the net is fitted to the rollout means for ``--epochs`` epochs, 10% of the positions held
out, and benchmarked against the net it started from.

Examples::

    nardy train --game short --games 200000 --seed 1 --out short.npz
    nardy train --game backgammon --method rollout --positions 90000 --trials 36 --out bg.npz
"""

from __future__ import annotations

import time

import numpy as np

from . import _kernels as K
from .net import GAME_CODES, Net, scoring_values, start_board

__all__ = ["train_net", "benchmark"]


def benchmark(net_a: Net, opponent, n_games: int, seed: int = 12345) -> dict:
    """Cubeless 0-ply games of ``net_a`` against ``opponent`` (a :class:`Net`, ``"random"`` or ``"heuristic"``),
    duplicate dice (``n_games`` rounded up to even).

    Returns:
        ``{"ppg": points per game for A, "ci95": half-width of its 95% interval, "win": A's win rate}``.
    """
    game = net_a.game
    code = GAME_CODES[game]
    vals = scoring_values(game)
    n = n_games + (n_games % 2)
    if isinstance(opponent, Net):
        pol_b, wb = K.POLICY_NET, opponent.kernel_weights
    else:
        pol_b = {"random": K.POLICY_RANDOM, "heuristic": K.POLICY_HEURISTIC}[opponent]
        wb = net_a.kernel_weights
    r = K.play_matches(
        code, start_board(game), vals, n, seed, K.POLICY_NET, *net_a.kernel_weights, pol_b, *wb, 0.0, 0.0
    )
    pairs = r.reshape(-1, 2).mean(axis=1)
    ci = 1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    return {"ppg": float(r.mean()), "ci95": float(ci), "win": float((r > 0).mean())}


def train_net(
    net: Net,
    games: int,
    seed: int,
    lr: float,
    lr_final: float,
    lam: float,
    chunk: int = 500,
    start_chunk: int = 0,
    callback=None,
    deadline: float | None = None,
) -> Net:
    """Train ``net`` in place for ``games`` self-play games; ``callback(games_done, stats)`` after each chunk.

    The learning rate falls linearly from ``lr`` to ``lr_final`` over the run. With ``deadline`` (a
    ``time.perf_counter()`` value) training stops after the first chunk that ends past it.

    Raises:
        ValueError: a net with a second hidden layer (:attr:`Net.hidden2`): TD training steps one-layer nets.
    """
    net.require_one_layer("TD training (nardy train)")
    vals = scoring_values(net.game)
    start = start_board(net.game)
    done = 0
    i = start_chunk
    while done < games:
        n = min(chunk, games - done)
        frac = done / max(games, 1)
        rate = lr + (lr_final - lr) * frac
        stats = np.zeros(4)
        K.td_train(*net.weights, net.code, start, vals, n, rate, lam, seed * 1_000_003 + i, stats)
        done += n
        i += 1
        net.games_trained += n
        last = deadline is not None and time.perf_counter() > deadline
        if callback is not None:
            callback(games if last else done, stats)
        if last:
            break
    return net

"""Rollouts, and training a net on rollout results (the second stage after TD self-play).

A **rollout** estimates a position's result probabilities by playing it out many times: here the net plays
both sides at 0-ply (greedy on cubeless money equity), the first two rolls are stratified over the 36 rolls
(see :func:`nardy.engine._rollout.rollout_batch`), later ones are random from the seed, and optionally each
roll's luck is subtracted (variance reduction, as GNU Backgammon does). GNU Backgammon and
wildbg train their nets on rollout results of positions met in self-play; :func:`build_dataset` and
:func:`fit` do the same:

1. :func:`build_dataset` samples positions from the net's own games (with a few random plays for variety),
   rolls each out ``trials`` times and saves ``boards``, ``firsts`` and the mean outcomes ``targets`` to an
   ``.npz`` (written after every chunk, so a long run can be stopped and resumed);
2. :func:`fit` moves the net towards those targets by per-position gradient steps (the same cross-entropy
   update as TD training) for a few epochs, holding out a share of the positions to measure the error.

``nardy train --method rollout`` runs both (see :mod:`nardy.engine.tdtrain`). :func:`rollout` is the same
rollout for one :class:`~nardy.rules.position.Position`, for analysis.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _kernels as K
from . import _rollout as R
from .net import Net, read_npz, scoring_values, start_board

__all__ = [
    "RolloutResult",
    "MAX_SEED",
    "MAX_GAME_PLIES",
    "rollout",
    "rollout_boards",
    "build_dataset",
    "load_dataset",
    "fit",
]


@dataclass(frozen=True)
class RolloutResult:
    """The outcome of :func:`rollout`.

    Attributes:
        probabilities: float32[K] mean cumulative result probabilities from the mover's view (the layout of
            :mod:`nardy.engine.evaluator`).
        equity: cubeless money equity (points per game, mover's view).
        std_error: standard error of ``equity`` over the trials (points per game).
        trials: games played.
        cut_off: trials stopped after :data:`MAX_GAME_PLIES` plies with no result
            (only where neither side can ever move; the net scores them there).
    """

    probabilities: np.ndarray
    equity: float
    std_error: float
    trials: int
    cut_off: int = 0


#: The largest seed of a rollout's dice.
MAX_SEED = 2**63 - 1
#: Plies a rolled-out game may last: a trial with no result by then is cut off and scored by the net there.
MAX_GAME_PLIES = K.MAX_GAME_PLIES


def _whole(value, name: str, low: int, high: int = 2**31 - 1) -> int:
    """``value`` as an int in ``[low, high]``, else ValueError/TypeError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, not {value!r}")
    if not low <= int(value) <= high:
        raise ValueError(f"{name} must be between {low} and {high}, not {value!r}")
    return int(value)


def rollout(
    position,
    net: Net | None = None,
    trials: int = 324,
    seed: int = 0,
    truncate: int = 0,
    variance_reduction: bool = True,
) -> RolloutResult:
    """Roll out ``position`` (before the mover rolls) with ``net`` playing both sides at 0-ply.

    Args:
        position: a :class:`~nardy.rules.position.Position` that is not over.
        net: the player (default: the game's shipped net).
        trials: games to play (a multiple of 36 stratifies the first roll; 1,296 the first two).
        seed: seed of the later rolls, 0 to 2**63 - 1 (results are reproducible from it).
        truncate: stop each game after this many plies and count the net's evaluation there (0: play to
            the end).
        variance_reduction: subtract each roll's luck as judged by the net (GNU Backgammon's variance
            reduction; see :func:`nardy.engine._rollout.rollout_batch`): the same mean with a much smaller
            error, at about 21 times the time per trial. The luck terms come from the net, so even a
            forced result shows a small error bar with it (without it, forced results are exact).
    The value is that of the position with the mover about to roll (any roll, doubles included; the
    opening of a backgammon game, which cannot start with doubles, is another thing).

    Raises:
        TypeError: ``position`` is not a Position, or a count that is not a whole number.
        ValueError: ``trials < 1``, ``truncate < 0``, a seed out of range, a net of another game, or a
            finished position.
    """
    from ..rules.position import Position
    from .net import shipped_path

    if not isinstance(position, Position):
        raise TypeError(f"expected a Position, got {type(position).__name__} {position!r}")
    game = position.game
    trials = _whole(trials, "trials", 1)
    truncate = _whole(truncate, "truncate", 0)
    seed = _whole(seed, "seed", 0, MAX_SEED)
    if net is None:
        net = Net.load(shipped_path(game))
    if net.game != game:
        raise ValueError(f"a {net.game} net cannot roll out a {game} position")
    if position.is_game_over():
        raise ValueError(f"position {position.id()} is over; nothing to roll out")
    boards = position.array.astype(np.int8).reshape(1, 28)
    firsts = np.array([[bool(position.first_turn[0]), bool(position.first_turn[1])]])
    mean, se, cut = rollout_boards(net, boards, firsts, trials, seed, truncate, bool(variance_reduction))
    eq = float(K.money_equity(mean[0], net.code, scoring_values(game)))
    return RolloutResult(mean[0].copy(), eq, float(se[0]), trials, int(cut[0]))


def rollout_boards(net: Net, boards, firsts, trials: int, seed: int, truncate: int = 0, vr: bool = False) -> tuple:
    """Roll out many positions at once (:func:`nardy.engine._rollout.rollout_batch`: ``net`` at 0-ply on both
    sides, the first two rolls stratified, trials in parallel blocks whose dice come from ``(seed, position,
    block)``).

    Args:
        boards: ``int8[n, 28]`` (side on roll's view); firsts: ``bool[n, 2]`` first-turn flags.
        trials, seed, truncate, vr: as :func:`rollout` (``vr``: variance reduction).
    Returns:
        ``(means float32[n, K], std_errors float32[n], cut_off int64[n])``: the mean cumulative outcomes
        (the side on roll's view), the standard error of the mean cubeless money equity (points per
        game), and the trials stopped without a result.
    """
    n = len(boards)
    mean = np.zeros((n, net.n_outputs), np.float32)
    se = np.zeros(n, np.float32)
    cut = np.zeros(n, np.int64)
    R.rollout_batch(
        np.ascontiguousarray(boards, np.int8),
        np.ascontiguousarray(firsts, np.bool_),
        net.code,
        scoring_values(net.game),
        *net.kernel_weights,
        int(trials),
        int(truncate),
        int(seed),
        bool(vr),
        mean,
        se,
        cut,
    )
    return mean, se, cut


def sample_positions(net: Net, n: int, seed: int, eps: float = 0.05, keep: float = 0.1) -> tuple:
    """``n`` positions from the net's self-play games (0-ply; a random play with probability ``eps``; each
    position after the first two plies kept with probability ``keep``), reproducible from ``seed``.

    Returns:
        ``(boards int8[n, 28], firsts bool[n, 2])``, each from the side on roll's view.
    """
    boards = np.zeros((n, 28), np.int8)
    firsts = np.zeros((n, 2), np.bool_)
    start, vals = start_board(net.game), scoring_values(net.game)
    count = 0
    part = 0
    while count < n:
        got = R.sample_positions(
            net.code,
            start,
            vals,
            1_000,
            seed * 1_000_003 + part,
            *net.kernel_weights,
            eps,
            keep,
            boards[count:],
            firsts[count:],
        )
        count += got
        part += 1
    return boards, firsts


def load_dataset(path) -> dict:
    """Read a dataset written by :func:`build_dataset`.

    Returns:
        ``{"game", "boards" int8[n, 28], "firsts" bool[n, 2], "targets" float32[n, K], "std_error" float32[n],
        "trials", "truncate", "seed"}``.
    Raises:
        ValueError: the file is not a rollout dataset (naming it); FileNotFoundError: no such file.
    """
    d = read_npz(
        path, ("game", "boards", "firsts", "targets", "std_error", "trials", "truncate", "seed"), "rollout dataset"
    )
    d["game"] = str(d["game"])
    for k in ("trials", "truncate", "seed"):
        d[k] = int(d[k])
    return d


def _save(path: Path, game, boards, firsts, targets, se, trials, truncate, seed):
    tmp = path.with_name(f".{path.name}.tmp.npz")
    np.savez_compressed(
        tmp,
        game=np.str_(game),
        boards=boards,
        firsts=firsts,
        targets=targets,
        std_error=se,
        trials=np.int64(trials),
        truncate=np.int64(truncate),
        seed=np.int64(seed),
    )
    tmp.replace(path)


def build_dataset(
    net: Net,
    positions: int,
    path,
    trials: int = 36,
    truncate: int = 0,
    seed: int = 1,
    chunk: int = 1024,
    eps: float = 0.05,
    keep: float = 0.1,
    callback=None,
    deadline: float | None = None,
) -> dict:
    """Sample ``positions`` positions from ``net``'s self-play and roll each out ``trials`` times; save to ``path``.

    The positions are drawn first (all of them, from ``seed``), then rolled out in chunks of ``chunk``;
    ``path`` is rewritten after each chunk. If ``path`` already holds a dataset of the same game, seed,
    trials and truncation (the same positions), its rolled-out positions are kept and the run continues
    after them; a run asking for fewer positions than the file holds uses the first ``positions``. Any other
    file at ``path`` is left alone and refused.

    Args:
        callback: ``callback(done, total)`` after each chunk. deadline: a ``time.perf_counter()`` value
            after which no new chunk starts (the file then holds fewer positions).
    Returns:
        The dataset, as :func:`load_dataset` gives it.
    Raises:
        ValueError: ``positions``, ``trials`` or ``chunk`` below 1, ``truncate`` below 0, a seed out of range,
            or ``path`` holding something else (another dataset, or not a dataset).
    """
    positions = _whole(positions, "positions", 1)
    trials = _whole(trials, "trials", 1)
    chunk = _whole(chunk, "chunk", 1)
    truncate = _whole(truncate, "truncate", 0)
    seed = _whole(seed, "seed", 0, 2**31 - 1)
    path = Path(path)
    old = None
    if path.exists():
        old = load_dataset(path)
        mine = {"game": net.game, "seed": seed, "trials": trials, "truncate": truncate}
        theirs = {k: old[k] for k in mine}
        if theirs != mine:
            raise ValueError(
                f"{path} holds another rollout dataset ({theirs}, this run: {mine}); choose another file or remove it"
            )
    path.parent.mkdir(parents=True, exist_ok=True)
    boards, firsts = sample_positions(net, positions, seed, eps, keep)
    k = net.n_outputs
    targets = np.zeros((positions, k), np.float32)
    se = np.zeros(positions, np.float32)
    done = 0
    if old is not None:
        m = min(len(old["boards"]), positions)
        if not np.array_equal(old["boards"][:m], boards[:m]):
            raise ValueError(
                f"{path} holds rollouts of other positions (drawn by another net or version); "
                "choose another file or remove it"
            )
        targets[:m], se[:m], done = old["targets"][:m], old["std_error"][:m], m
    vals = scoring_values(net.game)
    cut = np.zeros(positions, np.int64)
    while done < positions:
        if deadline is not None and time.perf_counter() > deadline:
            break
        end = min(done + chunk, positions)
        R.rollout_batch(
            boards[done:end],
            firsts[done:end],
            net.code,
            vals,
            *net.kernel_weights,
            trials,
            truncate,
            seed * 7_919 + done,
            False,
            targets[done:end],
            se[done:end],
            cut[done:end],
        )
        done = end
        _save(path, net.game, boards[:done], firsts[:done], targets[:done], se[:done], trials, truncate, seed)
        if callback is not None:
            callback(done, positions)
    if old is None and done == 0:
        _save(path, net.game, boards[:0], firsts[:0], targets[:0], se[:0], trials, truncate, seed)
    return {
        "game": net.game,
        "boards": boards[:done],
        "firsts": firsts[:done],
        "targets": targets[:done],
        "std_error": se[:done],
        "trials": trials,
        "truncate": truncate,
        "seed": seed,
    }


def fit(
    net: Net,
    data: dict,
    epochs: int = 3,
    lr: float = 0.002,
    lr_final: float | None = None,
    holdout: float = 0.1,
    seed: int = 1,
    callback=None,
) -> list[dict]:
    """Train ``net`` in place towards a rollout dataset's targets.

    Per-position gradient steps of the cross-entropy between the net's outputs and the rollout means (the
    update of TD training), positions in a fresh random order each epoch, the learning rate falling linearly
    from ``lr`` to ``lr_final`` (default ``lr / 4``) over the run. The last ``holdout`` share of the
    positions (by a seeded shuffle) is kept out of training and measured.

    Returns:
        One entry per epoch (epoch 0 = before training): ``{"epoch", "train_mse", "holdout_mse"}``, mean
        squared errors of the outputs against the rollout targets (these include the rollouts' own noise);
        ``holdout_mse`` is None when no position is held out.
    Raises:
        ValueError: the dataset is of another game, ``holdout`` outside [0, 1), ``epochs`` below 0,
            no position left to train on, or a net with a second hidden layer (one-layer gradient steps).
    """
    net.require_one_layer("fitting to rollouts (nardy rollout fit)")
    if data["game"] != net.game:
        raise ValueError(f"a {data['game']} dataset cannot train a {net.game} net")
    if not 0.0 <= holdout < 1.0:
        raise ValueError(f"holdout must be in [0, 1), not {holdout!r}")
    epochs = _whole(epochs, "epochs", 0)
    n = len(data["boards"])
    rng = np.random.default_rng(seed)
    perm = rng.permutation(n)
    n_hold = int(round(n * holdout))
    hold, train = perm[:n_hold], perm[n_hold:]
    if len(train) < 1:
        raise ValueError(f"the dataset holds {n} positions: too few to train on")
    b, f, t = data["boards"], data["firsts"], data["targets"].astype(np.float32)
    lr_final = lr / 4 if lr_final is None else lr_final

    def measure(idx):
        if len(idx) == 0:
            return None
        return float(R.mse(*net.kernel_weights, net.code, b[idx], f[idx], t[idx]))

    log = [{"epoch": 0, "train_mse": measure(train), "holdout_mse": measure(hold)}]
    if callback is not None:
        callback(log[-1])
    for e in range(1, epochs + 1):
        rate = lr + (lr_final - lr) * (e - 1) / max(epochs - 1, 1)
        order = rng.permutation(train)
        R.sgd_epoch(*net.weights, net.code, b, f, t, order.astype(np.int64), rate)
        log.append({"epoch": e, "lr": rate, "train_mse": measure(train), "holdout_mse": measure(hold)})
        if callback is not None:
            callback(log[-1])
    return log

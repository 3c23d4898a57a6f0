"""``nardy train``: train a game's evaluator net by self-play TD(lambda) or on rollout results, and write its
weights (the training itself is :mod:`nardy.engine.tdtrain`'s and :mod:`nardy.engine.rollout`'s).

Every ``--checkpoint-every`` games the weights are saved to ``<checkpoint-dir>/<game>-<games>.npz`` and
benchmarked (:func:`nardy.engine.tdtrain.benchmark`) against the previous checkpoint and against the simple
heuristic player; the figures go to the console and to ``<checkpoint-dir>/log.jsonl``. With ``--method
rollout`` the positions of the ``--init`` net's self-play are rolled out into ``--data`` (resumable) and the
net is fitted to the rollout means.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import click

from ..engine.net import Net, shipped_path
from ..engine.rollout import build_dataset, fit
from ..engine.tdtrain import benchmark, train_net
from ..rules.variants import game_name
from .options import game_option, seed_option

__all__ = ["train"]


@click.command("train")
@game_option("backgammon, short or long (aliases accepted)", required=True)
@click.option(
    "--games", "-n", default=100_000, show_default=True, type=click.IntRange(1, 10**10), help="self-play games to train"
)
@seed_option("seed of the initial weights and the dice", short=True, default=1, limit=2**31 - 1)
@click.option(
    "--out", "-o", type=click.Path(dir_okay=False), default=None, help="final weights file (default ./<game>.npz)"
)
@click.option(
    "--init",
    "init_path",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="start from these weights instead of random ones (rollout: default the shipped net)",
)
@click.option("--hidden", default=80, show_default=True, type=click.IntRange(1, 4096), help="hidden units (new nets)")
@click.option(
    "--method",
    type=click.Choice(["td", "rollout"]),
    default="td",
    show_default=True,
    help="self-play TD(lambda), or fitting to rollouts of self-play positions",
)
@click.option("--lr", type=float, default=None, help="initial learning rate [td: 0.05, rollout: 0.002]")
@click.option("--lr-final", type=float, default=None, help="learning rate at the end [td: 0.005, rollout: lr/4]")
@click.option("--lam", "lam", default=0.7, show_default=True, help="TD lambda")
@click.option(
    "--checkpoint-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="checkpoints and log.jsonl (default: beside --out, in checkpoints-<game>/)",
)
@click.option(
    "--checkpoint-every",
    default=20_000,
    show_default=True,
    type=click.IntRange(1, 10**10),
    help="games between checkpoints",
)
@click.option(
    "--bench-games",
    default=1000,
    show_default=True,
    type=click.IntRange(0, 10**7),
    help="games per benchmark at each checkpoint (0: none)",
)
@click.option(
    "--chunk",
    default=500,
    show_default=True,
    type=click.IntRange(1, 10**6),
    help="games per compiled call (part of the seed)",
)
@click.option(
    "--minutes",
    default=0.0,
    show_default=True,
    help="stop after this much wall time (0: no limit); the run is then cut short of --games (rollout: of --positions)",
)
@click.option(
    "--positions",
    default=50_000,
    show_default=True,
    type=click.IntRange(1, 100_000_000),
    help="rollout: positions to roll out",
)
@click.option(
    "--trials", default=36, show_default=True, type=click.IntRange(1, 1_000_000), help="rollout: games per position"
)
@click.option(
    "--truncate",
    default=0,
    show_default=True,
    type=click.IntRange(0, 10_000),
    help="rollout: plies per game (0: to the end)",
)
@click.option(
    "--epochs", default=3, show_default=True, type=click.IntRange(1, 10_000), help="rollout: passes over the dataset"
)
@click.option(
    "--data",
    "data_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="rollout: dataset file, resumed if present (default <checkpoint-dir>/<game>-rollouts.npz)",
)
def train(
    game,
    games,
    seed,
    out,
    init_path,
    hidden,
    method,
    lr,
    lr_final,
    lam,
    checkpoint_dir,
    checkpoint_every,
    bench_games,
    chunk,
    minutes,
    positions,
    trials,
    truncate,
    epochs,
    data_path,
):
    """Train a game's evaluator (self-play TD(lambda) or rollout fitting) and write its weights."""
    g = game_name(game)
    out = Path(out) if out else Path(f"{g}.npz")
    ckdir = Path(checkpoint_dir) if checkpoint_dir else out.parent / f"checkpoints-{g}"
    ckdir.mkdir(parents=True, exist_ok=True)
    if method == "rollout":
        init_path = init_path or str(shipped_path(g))
    try:
        net = Net.load(init_path) if init_path else Net.random(g, hidden, seed)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--init") from None
    if net.game != g:
        raise click.BadParameter(f"{init_path} holds a {net.game} net, not {g}")
    try:
        net.require_one_layer(f"nardy train --method {method}")
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--init") from None
    ctx = click.get_current_context()
    only = {
        "td": ("games", "hidden", "lam", "chunk", "checkpoint_every"),
        "rollout": ("positions", "trials", "truncate", "epochs", "data_path"),
    }
    for other, names in only.items():
        if other != method:
            for name in names:
                if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE:
                    click.echo(
                        f"warning: --{name.replace('_path', '').replace('_', '-')} is not used with --method {method}",
                        err=True,
                    )
    if method == "rollout":
        _train_rollout(
            net,
            g,
            out,
            ckdir,
            seed,
            positions,
            trials,
            truncate,
            epochs,
            data_path,
            bench_games,
            lr if lr is not None else 0.002,
            lr_final,
            minutes,
        )
        return
    lr = 0.05 if lr is None else lr
    lr_final = 0.005 if lr_final is None else lr_final
    base_games = net.games_trained
    prev = net.copy()
    log = open(ckdir / "log.jsonl", "a")
    t0 = time.perf_counter()
    last_ck = [0]
    plies = [0.0, 0]

    def record(entry):
        entry["elapsed_s"] = round(time.perf_counter() - t0, 1)
        log.write(json.dumps(entry) + "\n")
        log.flush()
        click.echo("\n" + json.dumps(entry), err=True)

    with click.progressbar(length=games, label=f"training {g}", show_pos=True, show_eta=True, file=None) as bar:

        def cb(done, stats):
            bar.update(int(done - bar.pos))
            plies[0] += stats[0]
            plies[1] += chunk
            if done - last_ck[0] >= checkpoint_every or done == games:
                last_ck[0] = done
                path = net.save(ckdir / f"{g}-{net.games_trained:07d}.npz")
                entry = {
                    "games": net.games_trained,
                    "checkpoint": str(path),
                    "plies_per_game": round(plies[0] / max(plies[1], 1), 1),
                    "games_per_s": round((net.games_trained - base_games) / (time.perf_counter() - t0), 1),
                }
                plies[0], plies[1] = 0.0, 0
                if bench_games:
                    entry["vs_previous"] = benchmark(net, prev, bench_games)
                    entry["vs_heuristic"] = benchmark(net, "heuristic", bench_games)
                    entry["vs_random"] = benchmark(net, "random", bench_games // 2)
                record(entry)
                prev.W1[:], prev.b1[:], prev.W2[:], prev.b2[:] = net.W1, net.b1, net.W2, net.b2
                prev.games_trained = net.games_trained

        train_net(
            net,
            games,
            seed,
            lr,
            lr_final,
            lam,
            chunk,
            start_chunk=base_games // max(chunk, 1),
            callback=cb,
            deadline=(t0 + 60 * minutes) if minutes > 0 else None,
        )
    net.save(out)
    click.echo(f"wrote {out} ({net.games_trained} games, {time.perf_counter() - t0:.0f} s)", err=True)
    log.close()


def _train_rollout(
    net, g, out, ckdir, seed, positions, trials, truncate, epochs, data_path, bench_games, lr, lr_final, minutes
):
    t0 = time.perf_counter()
    data_path = Path(data_path) if data_path else ckdir / f"{g}-rollouts.npz"
    start = net.copy()
    with click.progressbar(length=positions, label=f"rolling out {g}", show_pos=True, show_eta=True) as bar:
        try:
            data = build_dataset(
                net,
                positions,
                data_path,
                trials=trials,
                truncate=truncate,
                seed=seed,
                callback=lambda done, total: bar.update(done - bar.pos),
                deadline=(t0 + 60 * minutes) if minutes > 0 else None,
            )
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--data / --seed") from None
    n = len(data["boards"])
    if n < 2:
        raise click.ClickException(f"only {n} positions rolled out before --minutes ran out: nothing to fit")
    click.echo(f"{data_path}: {n} positions x {trials} trials ({time.perf_counter() - t0:.0f} s)", err=True)
    log = open(ckdir / "log.jsonl", "a")

    def record(entry):
        entry.update(method="rollout", positions=n, trials=trials, elapsed_s=round(time.perf_counter() - t0, 1))
        log.write(json.dumps(entry) + "\n")
        log.flush()
        click.echo(json.dumps(entry), err=True)

    fit(net, data, epochs=epochs, lr=lr, lr_final=lr_final, seed=seed, callback=record)
    if bench_games:
        record(
            {"vs_start": benchmark(net, start, bench_games), "vs_heuristic": benchmark(net, "heuristic", bench_games)}
        )
    net.save(out)
    click.echo(f"wrote {out} (fitted to {n} rollouts, {time.perf_counter() - t0:.0f} s)", err=True)
    log.close()

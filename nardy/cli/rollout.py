"""``nardy rollout``: roll a position out with the net (:func:`nardy.engine.rollout.rollout`)."""

from __future__ import annotations

import json
import time

import click

from ..engine.evaluator import OUTPUT_NAMES
from ..engine.net import Net
from ..engine.rollout import MAX_GAME_PLIES, MAX_SEED, rollout
from ..rules.variants import get_rules
from .options import game_option, position_option, read_position, seed_option

__all__ = ["rollout_command"]


@click.command("rollout")
@game_option()
@position_option(
    "GNU Backgammon Position ID, side on roll's view (long nardy: optional :Fxy suffix), or "
    "an XGID=... (backgammon). Default: the starting position."
)
@click.option(
    "--trials",
    "-n",
    default=324,
    show_default=True,
    type=click.IntRange(1, 10_000_000),
    help="games to play (multiples of 36 stratify the first roll, 1,296 the first two)",
)
@click.option(
    "--vr/--no-vr",
    "vr",
    default=True,
    show_default=True,
    help="variance reduction: subtract each roll's luck (same mean, smaller error, ~20x the time)",
)
@seed_option("seed of the dice after the first two rolls", short=True, default=0, limit=MAX_SEED)
@click.option(
    "--truncate",
    default=0,
    show_default=True,
    type=click.IntRange(0, 10_000),
    help="plies per game, then the net's view (0: to the end)",
)
@click.option(
    "--weights",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="net weights (.npz) to play with (default: the shipped net)",
)
@click.option("--json", "as_json", is_flag=True, help="print JSON")
def rollout_command(game, position_id, trials, vr, seed, truncate, weights, as_json):
    """Roll out a position: the net plays it out --trials times at 0-ply; prints the mean result
    probabilities (side on roll's view) and the cubeless money equity with its 95% interval."""
    rules = get_rules(game)
    pos = read_position(position_id, rules)
    try:
        net = Net.load(weights) if weights else None
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--weights") from None
    if net is not None and net.game != rules.name:
        raise click.BadParameter(f"{weights} holds a {net.game} net, not {rules.name}", param_hint="--weights")
    if pos.is_game_over():
        raise click.BadParameter(f"position {pos.id()} is over: nothing to roll out", param_hint="--position")
    t0 = time.perf_counter()
    r = rollout(pos, net, trials, seed, truncate, vr)
    names = OUTPUT_NAMES[rules.name]
    out = {
        "game": rules.name,
        "position": pos.id(),
        "trials": r.trials,
        "variance_reduction": vr,
        "seed": seed,
        "truncate": truncate,
        "cut_off": r.cut_off,
        "probabilities": {k: round(float(v), 6) for k, v in zip(names, r.probabilities)},
        "equity": round(r.equity, 6),
        "ci95": round(1.96 * r.std_error, 6),
        "seconds": round(time.perf_counter() - t0, 3),
    }
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(
        f"{rules.name} {pos.id()}: {r.trials} trials"
        + (", variance reduction" if vr else "")
        + (f", truncated at {truncate} plies" if truncate else "")
        + f" ({out['seconds']:.1f} s)"
    )
    for k, v in out["probabilities"].items():
        click.echo(f"  {k:<16} {v:.4f}")
    click.echo(f"  equity (cubeless money) {r.equity:+.4f} ± {1.96 * r.std_error:.4f}")
    if r.cut_off:
        click.echo(
            f"  {r.cut_off} trials had no result after {MAX_GAME_PLIES} plies (nobody can move); "
            "the net scored them there",
            err=True,
        )

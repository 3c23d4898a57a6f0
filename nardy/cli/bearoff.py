"""``nardy bearoff``: build or query the one-sided bearoff database (:mod:`nardy.engine.bearoff`)."""

from __future__ import annotations

import json
import time

import click

from ..engine.bearoff import build_database, default_path, load_database, validate_counts
from ..rules.errors import InvalidPositionError

__all__ = ["bearoff"]


@click.group("bearoff")
def bearoff():
    """Build or query the one-sided bearoff database (15 checkers on 6 points, 54,264 positions)."""


#: ``--strict``: both sub-commands read the database of short nardy's strict bear-off.
_strict_option = click.option(
    "--strict",
    is_flag=True,
    help="short nardy's strict bear-off (a moved checker is not borne off by a "
    "larger die) instead of the standard rule",
)


@bearoff.command("build")
@click.option(
    "--path",
    type=click.Path(dir_okay=False),
    default=None,
    help=f"output file (default {default_path()}, with --strict {default_path(True).name})",
)
@_strict_option
def build_cmd(path, strict):
    """Build the database and cache it on disk (a few seconds)."""
    t0 = time.perf_counter()
    out = build_database(path, strict=strict)
    click.echo(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - t0:.1f} s")


@bearoff.command("lookup")
@click.argument("counts")
@click.option("--against", default=None, help="the other side's counts: also print the race odds")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@_strict_option
def lookup_cmd(counts, against, as_json, strict):
    """Bear-off figures of COUNTS: checkers on own points 1..6, comma-separated (e.g. 0,0,0,0,0,2).

    Prints the expected rolls to bear off, the distribution of the number of rolls, and with
    --against the mover's chance to win the race and each side's gammon chance (mover on roll).
    """

    def parse(text, name):
        try:
            vals = [int(v) for v in text.replace(" ", "").split(",")]
        except ValueError:
            raise click.BadParameter(
                f"{text!r}: expected six whole numbers separated by commas", param_hint=name
            ) from None
        try:
            validate_counts(vals)
        except InvalidPositionError as e:
            raise click.BadParameter(str(e), param_hint=name) from None
        return vals

    mine = parse(counts, "COUNTS")
    db = load_database(strict=strict)
    dist = db.rolls_distribution(mine)
    out = {
        "counts": mine,
        "mean_rolls": db.mean_rolls(mine),
        "rolls": {int(n): round(float(p), 6) for n, p in enumerate(dist) if p > 0},
    }
    if against is not None:
        theirs = parse(against, "--against")
        g_m, g_o = db.race_gammon_probabilities(mine, theirs)
        out.update(against=theirs, win=db.race_win_probability(mine, theirs), gammon=g_m, gammon_against=g_o)
    if as_json:
        click.echo(json.dumps(out))
        return
    click.echo(f"{','.join(map(str, mine))}: {out['mean_rolls']:.4f} rolls expected")
    click.echo("  rolls: " + ", ".join(f"{n}: {p:.4f}" for n, p in out["rolls"].items()))
    if against is not None:
        click.echo(
            f"  against {','.join(map(str, out['against']))} (mover on roll): win {out['win']:.4f}, "
            f"gammon {out['gammon']:.4f}, gammon against {out['gammon_against']:.4f}"
        )

"""``nardy analyse FILE --rollout``: the rollouts of an analysis' marked decisions, with a progress bar, a
checkpoint and ``--resume`` (:func:`nardy.analysis.rollouts.rollout_analysis`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..texts.printable import terminal_text

__all__ = ["run_rollouts", "rollout_lines", "default_checkpoint"]


def default_checkpoint(record: Path) -> Path:
    """Where the rollouts of ``record`` are saved as they finish when ``--checkpoint`` is not given: the
    record's name with ``.rollout.json`` added, in the current folder."""
    return Path(record.name + ".rollout.json")


def rollout_lines(data: dict) -> list[str]:
    """A few lines for the terminal: the decisions rolled out, those re-marked, and the speed."""
    st = data.get("rollout_status") or {}
    decisions = data.get("decisions", [])
    rolled = [d for d in decisions if "rollout" in d]
    changed = [d for d in rolled if (d.get("nply") or {}).get("mark") != d.get("mark")]
    tps = st.get("trials_per_second")
    lines = [
        f"  rollouts: {st.get('done', 0)} of {st.get('total', 0)} decisions"
        + (f" ({tps:g} trials/s)" if tps else "")
        + f"; {len(changed)} marked otherwise than the n-ply analysis"
    ]
    for d in changed:
        was = (d.get("nply") or {}).get("mark") or "no mark"
        lines.append(
            f"    game {d['game']} move {d['move']} ({d['played'] or d['kind']}): {was} -> {d.get('mark') or 'no mark'}"
        )
    return lines


def run_rollouts(data: dict, record: Path, options: dict, quiet: bool) -> dict:
    """Roll out ``data`` (the analysis of ``record``) as ``options`` say (``trials``, ``truncate``,
    ``candidates``, ``seed``, ``ray``, ``workers``, ``resume``, ``checkpoint``, ``which``), with a progress
    bar on stderr; returns the analysis with the rollout figures.

    Ctrl-C stops the run: the decisions finished stay in the checkpoint and the command exits with status 130,
    naming the checkpoint and ``--resume``.
    """
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..analysis.load import load_match
    from ..analysis.rollouts import RolloutError, rollout_analysis

    checkpoint = Path(options["checkpoint"]) if options.get("checkpoint") else default_checkpoint(record)
    if not options.get("resume") and checkpoint.exists():
        checkpoint.unlink()  # a fresh run: the old file would only be refused
    err = Console(stderr=True)
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, disable=quiet, transient=True) as bar:
        task = bar.add_task(terminal_text(f"rolling out {record.name}"), total=None)

        def progress(done, total):
            bar.update(task, completed=done, total=total)

        try:
            return rollout_analysis(
                data,
                load_match(record),
                trials=options["trials"],
                truncate=options["truncate"],
                candidates=options["candidates"],
                seed=options["seed"],
                which=options["which"],
                workers=options["workers"],
                address=options.get("ray"),
                checkpoint=checkpoint,
                resume=bool(options.get("resume")),
                progress=progress,
            )
        except RolloutError as e:
            raise click.UsageError(str(e)) from None
        except KeyboardInterrupt:
            bar.stop()
            click.echo(
                terminal_text(
                    f"stopped: the decisions finished are saved in {checkpoint}; "
                    "run the same command with --resume to go on"
                ),
                err=True,
            )
            sys.exit(130)

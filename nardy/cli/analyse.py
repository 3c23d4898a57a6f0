"""``nardy analyse FILE... [--level L] [--json F] [--html F]``: analyse records, print a summary.

A folder is read for its records (``*.mat``, ``*.sgf``; saved games as ``.json`` are taken when named);
several records are analysed in parallel, one process per core (``--jobs``), each with its own bots, and
the results printed in the order given. With one record the progress bar follows its turns, with several
it counts the records.
"""

from __future__ import annotations

import json
import os
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

import click

from ..analysis.core import ANALYSIS_LEVELS, DEFAULT_ANALYSIS_LEVEL
from ..texts.printable import terminal_text
from .options import level_option, seed_option

__all__ = ["analyse_command", "summary_lines", "expand_paths"]

#: What a folder is searched for (JSON files are often other things: name them to analyse them).
RECORD_SUFFIXES = (".mat", ".sgf")


def expand_paths(paths) -> list[Path]:
    """Files as given, folders replaced by their records (sorted), each once."""
    out: list[Path] = []
    seen = set()
    for p in map(Path, paths):
        items = (
            sorted(q for q in p.rglob("*") if q.is_file() and q.suffix.lower() in RECORD_SUFFIXES)
            if p.is_dir()
            else [p]
        )
        for q in items:
            key = q.resolve()
            if key not in seen:
                seen.add(key)
                out.append(q)
    return out


def summary_lines(data: dict) -> list[str]:
    """A few lines for the terminal: per player the error rate, PR, rating, errors and luck."""
    match_play = bool(data.get("length"))
    eng = data.get("engine", {})
    head = f"{data.get('source') or 'match'}: {data['game']}, " + (
        f"{data['length']}-point match" if match_play else "money play"
    )
    lines = [head + f" (nardy {eng.get('level')}, {eng.get('ply')}-ply, {data.get('seconds', 0):.1f} s)"]
    for p in data["players"]:
        e = p["errors"]
        luck = f"{100 * p['luck']:+.1f}% MWC" if match_play else f"{p['luck']:+.2f} points"
        lines.append(
            f"  {p['name'][:24]:<24} error rate {p['error_rate']:6.1f} mp  PR {p['pr']:5.1f}  {p['rating']:<13} "
            f"decisions {p['decisions']:3d}  doubtful {e['doubtful']}, errors {e['error']}, blunders {e['blunder']}  "
            f"luck {luck}"
        )
    return lines


def _work(path: str, level: str) -> dict:
    from ..analysis.load import analyse_file

    return analyse_file(path, level=level).to_dict()


def _tty() -> bool:
    return bool(getattr(sys.stdout, "isatty", lambda: False)())


def _write(path: Path | None, text: str):
    if path is None:
        return
    if str(path) == "-":
        # a terminal gets printable text; a pipe the text as written
        sys.stdout.write((terminal_text(text, lines=True) if _tty() else text) + "\n")
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _target(opt: str | None, src: Path, many: bool, suffix: str) -> Path | None:
    if opt is None:
        return None
    if opt == "-" and not many:
        return Path("-")
    if many:
        return Path(opt) / (src.stem + suffix)
    return Path(opt)


@click.command("analyse")
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True))
@level_option(
    "bot level that judges the decisions (advanced 0-ply, expert 1-ply, grandmaster 2-ply)",
    default=DEFAULT_ANALYSIS_LEVEL,
    choices=ANALYSIS_LEVELS,
)
@click.option(
    "--json",
    "json_out",
    default=None,
    help="write the analysis as JSON to this file (- for stdout; a folder when several records are analysed)",
)
@click.option(
    "--html",
    "html_out",
    default=None,
    help="write the report (a self-contained HTML page) to this file (a folder when several records are analysed)",
)
@click.option(
    "--jobs", "-j", default=0, type=click.IntRange(0, 256), help="processes for several records (default: one per core)"
)
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
@click.option(
    "--rollout",
    is_flag=True,
    help="then roll out the marked decisions' best candidates and the play made (one record; docs/analysis.md)",
)
@click.option(
    "--all-decisions", is_flag=True, help="with --rollout: every decision that is not forced, not only the marked"
)
@click.option(
    "--trials", default=324, show_default=True, type=click.IntRange(1, 1_000_000), help="with --rollout: games per play"
)
@click.option(
    "--truncate",
    default=0,
    show_default=True,
    type=click.IntRange(0, 10_000),
    help="with --rollout: plies per game, then the net's view (0: to the end)",
)
@click.option(
    "--candidates",
    default=3,
    show_default=True,
    type=click.IntRange(1, 20),
    help="with --rollout: the best plays rolled out per checker decision (and the play made)",
)
@seed_option("with --rollout: seed of the dice", default=1, limit=2**63 - 1)
@click.option(
    "--ray", "ray_address", default=None, help="with --rollout: a Ray cluster's address (local: start Ray here)"
)
@click.option(
    "--workers", default=0, type=click.IntRange(0, 1024), help="with --rollout: processes (default: one per core)"
)
@click.option("--resume", is_flag=True, help="with --rollout: keep the decisions of the checkpoint, roll out the rest")
@click.option(
    "--checkpoint",
    default=None,
    type=click.Path(dir_okay=False),
    help="with --rollout: the file each finished decision is saved to (default: RECORD.rollout.json here)",
)
def analyse_command(
    files,
    level,
    json_out,
    html_out,
    jobs,
    quiet,
    rollout,
    all_decisions,
    trials,
    truncate,
    candidates,
    seed,
    ray_address,
    workers,
    resume,
    checkpoint,
):
    """Analyse match records (.mat, .sgf, saved games as .json; folders of them): every checker play and cube
    decision of both players judged at --level, the luck of each roll, and per player the error rate,
    performance rating (PR), errors by kind and luck. With --rollout (one record) the marked decisions are
    then rolled out (stop with Ctrl-C, go on with --resume)."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ..analysis.report import html_report

    paths = expand_paths(files)
    if not paths:
        raise click.UsageError("no records (.mat, .json, .sgf) found in " + ", ".join(files))
    many = len(paths) > 1
    if rollout and many:
        raise click.UsageError("--rollout takes one record")
    err = Console(stderr=True)
    results: dict[int, dict | Exception] = {}
    # the description names a file: shown as text, never read as rich markup
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, disable=quiet or json_out == "-", transient=True) as bar:
        if not many:
            task = bar.add_task(terminal_text(f"analysing {paths[0].name}"), total=None)

            def progress(done, total):
                bar.update(task, completed=done, total=total)

            from ..analysis.load import analyse_file

            try:
                results[0] = analyse_file(paths[0], level=level, progress=progress).to_dict()
            except ValueError as e:  # NardyError and friends: a record that cannot be analysed
                results[0] = e
        else:
            task = bar.add_task(f"analysing {len(paths)} records", total=len(paths))
            workers = jobs or os.cpu_count() or 1
            with ProcessPoolExecutor(max_workers=min(workers, len(paths))) as pool:
                futs = {pool.submit(_work, str(p), level): i for i, p in enumerate(paths)}
                for f in as_completed(futs):
                    i = futs[f]
                    try:
                        results[i] = f.result()
                    except ValueError as e:
                        results[i] = e
                    bar.advance(task)
    failed = 0
    for i, p in enumerate(paths):
        r = results[i]
        if isinstance(r, Exception):
            failed += 1
            click.echo(terminal_text(f"{p}: cannot analyse: {r}"), err=True)
            continue
        if rollout:
            from .analyse_rollout import run_rollouts

            opts = {"trials": trials, "truncate": truncate, "candidates": candidates, "seed": seed}
            opts.update(ray=ray_address, workers=workers, resume=resume, checkpoint=checkpoint)
            opts["which"] = "all" if all_decisions else "marked"
            r = run_rollouts(r, p, opts, quiet or json_out == "-")
        # to a terminal, JSON in ASCII: every character of the record's text kept, in JSON's escapes
        to_tty = json_out == "-" and _tty()
        _write(_target(json_out, p, many, ".json"), json.dumps(r, indent=1, ensure_ascii=to_tty))
        _write(_target(html_out, p, many, ".html"), html_report(r))
        if json_out != "-":
            for line in summary_lines(r):
                click.echo(terminal_text(line))  # the players' names and the source come from the record
            if rollout:
                from .analyse_rollout import rollout_lines

                for line in rollout_lines(r):
                    click.echo(terminal_text(line))
    if failed:
        sys.exit(2)

"""``nardy analyse FILE... [--level L] [--json F] [--html F] [--pdf F] [--lang en|ru]``: analyse records, print
a summary, write the report (HTML, or PDF printed by a headless Chromium: :mod:`nardy.cli.pdf`).
``nardy analyse DIR... --summary [--player NAME] [--json F]``: players' statistics over many records and saved
analyses (:mod:`nardy.cli.summary`).

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
from ..rules.numbering import NUMBERINGS
from ..texts.printable import terminal_text
from .options import level_option, seed_option

__all__ = ["analyse_command", "summary_lines", "expand_paths"]

#: What a folder is searched for (JSON files are often other things: name them to analyse them).
RECORD_SUFFIXES = (".mat", ".sgf", ".xg")


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
    "--pdf",
    "pdf_out",
    default=None,
    help="write the report as PDF to this file (a folder when several records are analysed); needs chromium",
)
@click.option(
    "--lang",
    type=click.Choice(["en", "ru"]),
    default=None,
    help="language of the report (default: Russian when the system locale is Russian)",
)
@click.option(
    "--numbering",
    type=click.Choice(["own", "absolute", "traditional"]),
    default="own",
    help="point numbering of the report's boards (backgammon and short nardy: own, traditional; long: own, absolute)",
)
@click.option(
    "--jobs", "-j", default=0, type=click.IntRange(0, 256), help="processes for several records (default: one per core)"
)
@click.option("--quiet", "-q", is_flag=True, help="no progress bar")
@click.option(
    "--summary",
    is_flag=True,
    help="statistics over all the records and analysis JSON files given (folders too): per player, game type and "
    "month the error rate, PR, luck per game, and the most frequent kinds of error",
)
@click.option("--player", default=None, help="with --summary: only this player's name")
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
    pdf_out,
    lang,
    numbering,
    jobs,
    quiet,
    summary,
    player,
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
    """Analyse match records (.mat, .sgf, .xg, saved games as .json; folders of them): every checker play and cube
    decision of both players judged at --level, the luck of each roll, and per player the error rate,
    performance rating (PR), errors by kind and luck. With --summary: the players' statistics over them all
    (and over analysis JSON files, as --json writes them, found beside). With --rollout (one record) the marked
    decisions are then rolled out (stop with Ctrl-C, go on with --resume)."""
    from rich.console import Console

    from ..analysis.report import html_report
    from ..texts.catalogue import page_texts
    from ..texts.i18n import detect_lang
    from .pdf import PdfError, find_chromium, html_to_pdf

    if summary:
        if html_out is not None or pdf_out is not None:
            raise click.UsageError("--html and --pdf write one report per record: not with --summary")
        if rollout:
            raise click.UsageError("--rollout rolls out one record's decisions: not with --summary")
        _summary(files, level, json_out, jobs, quiet, player)
        return
    if player is not None:
        raise click.UsageError("--player goes with --summary")
    lang = lang or detect_lang()
    texts = page_texts(lang)
    if pdf_out == "-":
        raise click.UsageError("--pdf writes a file: name one")
    if pdf_out is not None and find_chromium() is None:
        raise click.ClickException(
            "--pdf needs Chromium to print the report: install it (apt-get install chromium) or name it in "
            "NARDY_CHROMIUM; --html writes the page, which any browser prints"
        )
    paths = expand_paths(files)
    if not paths:
        raise click.UsageError("no records (.mat, .json, .sgf, .xg) found in " + ", ".join(files))
    many = len(paths) > 1
    if rollout and many:
        raise click.UsageError("--rollout takes one record")
    results = _analyse_all(paths, level, jobs, quiet or json_out == "-", Console(stderr=True))
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
        if json_out != "-":
            for line in summary_lines(r):
                click.echo(terminal_text(line))  # the players' names and the source come from the record
            if rollout:
                from .analyse_rollout import rollout_lines

                for line in rollout_lines(r):
                    click.echo(terminal_text(line))
        if (html_out or pdf_out) and numbering not in NUMBERINGS[r["game"]]:
            failed += 1
            click.echo(terminal_text(f"{p}: no report: {r['game']} has no {numbering} numbering"), err=True)
            continue
        _write(_target(html_out, p, many, ".html"), html_report(r, texts, lang, numbering))
        pdf = _target(pdf_out, p, many, ".pdf")
        if pdf is not None:
            try:
                html_to_pdf(html_report(r, texts, lang, numbering, expanded=True), pdf)
            except PdfError as e:
                failed += 1
                click.echo(terminal_text(f"{p}: no PDF: {e}"), err=True)
    if failed:
        sys.exit(2)


def _analyse_all(paths: list[Path], level: str, jobs: int, quiet: bool, err) -> dict[int, dict | Exception]:
    """The analysis (``to_dict``) of each record of ``paths`` by its index, or the error that stopped it; several
    records in parallel (``jobs`` processes, 0: one per core), a progress bar on ``err`` unless ``quiet``."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    results: dict[int, dict | Exception] = {}
    if not paths:
        return results
    # the description names a file: shown as text, never read as rich markup
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, disable=quiet, transient=True) as bar:
        if len(paths) == 1:
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
    return results


def _summary(files, level: str, json_out: str | None, jobs: int, quiet: bool, player: str | None) -> None:
    """``--summary``: analyse the records, read the analysis files, print or write the statistics."""
    from rich.console import Console

    from .summary import analysis_files, is_analysis, summary_of, summary_tables

    saved = analysis_files(files)
    done = {p.resolve() for p in saved}
    records = [
        p for p in expand_paths(files) if p.resolve() not in done and not (p.suffix == ".json" and is_analysis(p))
    ]
    if not records and not saved:
        raise click.UsageError("no records (.mat, .sgf) or analyses (.json) found in " + ", ".join(files))
    results = _analyse_all(records, level, jobs, quiet or json_out == "-", Console(stderr=True))
    analyses: list[tuple[Path, dict]] = []
    failed = 0
    for i, p in enumerate(records):
        r = results[i]
        if isinstance(r, Exception):
            failed += 1
            click.echo(terminal_text(f"{p}: cannot analyse: {r}"), err=True)
        else:
            analyses.append((p, r))
    for p in saved:
        data = is_analysis(p)
        if data is not None:
            analyses.append((p, data))
    out = summary_of(analyses, player)
    if json_out is not None:
        _write(Path(json_out), json.dumps(out, indent=1, ensure_ascii=json_out == "-" and _tty()))
    else:
        console = Console()
        click.echo(f"{out['analysed']} analyses")
        for table in summary_tables(out):
            console.print(table)
    if failed:
        sys.exit(2)

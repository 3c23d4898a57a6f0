"""``nardy replay FILE [--json] [--strict] [--lang ru]``: replay a match record (Jellyfish ``.mat``, GNU
Backgammon's ``.sgf`` or eXtreme Gammon's ``.xg``) through the rules; ``nardy convert IN OUT``: the same
record in another format (``.mat`` or ``.sgf``; ``.xg`` is read only).

``replay`` prints each game's plays and result and the final score (text from the record made printable:
:func:`nardy.texts.printable.terminal_text`; ``--json`` keeps it as written, in JSON's escapes); on the first rule
violation prints the error (game, move number, player, reason) and exits with status 1. What a ``.mat``
record holds that is not the standard format but GNU Backgammon imports (docs/records.md) is read as gnubg
reads it, with a warning on standard error for each kind (the first one worded, then how many more and
their lines); ``--strict`` refuses it instead. ``nardy replay --sample NAME`` replays one of the records
shipped with nardy (``nardy samples`` lists them with their paths): matches between nardy's own computer
players in each game, so the examples work in a clone or an install on its own. ``convert`` replays IN
(every play checked) and writes OUT in the format its extension names (``.mat``/``.txt`` or ``.sgf``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..rules.errors import RecordError
from ..texts.messages import LANGS, describe
from ..texts.printable import terminal_text

#: Lines of a warning's later occurrences listed after its first one.
_MORE_LINES = 8


def _who(match, p):
    return match.players[p] if p in (0, 1) else "?"


def _text_report(match) -> list[str]:
    from ..records.mat import match_summary

    s = match_summary(match)
    kind = f"{match.length} point match" if match.length else "money session"
    lines = [f"{s['game']} {kind}: {match.players[0]} (White) vs {match.players[1]} (Black)"]
    for g in s["games"]:
        lines.append("")
        craw = " (Crawford game)" if g["crawford"] else ""
        lines.append(f"Game {g['game']}: score {g['score'][0]}-{g['score'][1]}{craw}")
        for e in g["events"]:
            who = _who(match, e["player"])
            t = e["type"]
            if t in ("play", "pass"):  # the roll larger die first, as players write it
                roll = "".join(map(str, sorted(e["dice"], reverse=True)))
                lines.append(f"  {who:>12}  {roll}: {e['play'] if t == 'play' else '(no play)'}")
            elif t in ("double", "beaver"):
                lines.append(f"  {who:>12}  {t}s => {e['value']}")
            elif t == "resign":
                lines.append(f"  {who:>12}  resigns {e['level_name']}")
            else:
                lines.append(f"  {who:>12}  {t}s")
        r = g["result"]
        if r is None:
            lines.append("  (game not finished)")
        elif r["winner"] is None:
            lines.append(f"  drawn: {r['points']} point(s) each")
        else:
            lines.append(
                f"  {_who(match, r['winner'])} wins {r['points']} point(s) "
                f"({r['level_name']}, {r['reason']}, cube {r['cube']})"
            )
    lines.append("")
    sc = s["score"]
    tail = f"Final score: {match.players[0]} {sc[0]}, {match.players[1]} {sc[1]}"
    if s["winner"] is not None:
        tail += f"; {match.players[s['winner']]} wins the match"
    lines.append(tail)
    return lines


#: The folder of the sample records shipped with nardy (``nardy/data/samples``).
SAMPLES_DIR = Path(__file__).resolve().parent.parent / "data" / "samples"


def sample_records() -> dict[str, Path]:
    """The sample records shipped with nardy: name (the file name without ``.mat``) -> path, sorted."""
    return {p.stem: p for p in sorted(SAMPLES_DIR.glob("*.mat"))}


def sample_path(name: str) -> Path:
    """The path of the sample record ``name`` (``.mat`` optional). Raises click.BadParameter naming the
    samples there are."""
    found = sample_records()
    key = name.removesuffix(".mat")
    if key not in found:
        raise click.BadParameter(f"no sample {name!r:.60}: one of {', '.join(found)}", param_hint="--sample")
    return found[key]


@click.command("samples")
@click.option("--path", "only", metavar="NAME", default=None, help="Print only the path of this sample.")
def samples(only):
    """List the sample match records shipped with nardy (games between its computer players), with their
    paths: replay one with 'nardy replay --sample NAME', continue it with 'nardy play --resume PATH'."""
    if only is not None:
        click.echo(str(sample_path(only)))
        return
    for name, path in sample_records().items():
        click.echo(f"{name:<22} {path}")


def _warnings(warnings, lang: str, names) -> list[str]:
    """The record's warnings worded in ``lang``: one line per kind (code), the first occurrence worded,
    then how many more there are and their lines."""
    by_code: dict = {}
    for w in warnings:
        by_code.setdefault(w.code, []).append(w)
    out = []
    for same in by_code.values():
        w = same[0]
        text = describe(w.code, w.params, lang, names=names)
        if len(same) > 1:
            lines = ", ".join(str(x.line) for x in same[1 : 1 + _MORE_LINES] if x.line) or "?"
            if len(same) - 1 > _MORE_LINES:
                lines += ", ..."
            text += f" ({describe('record_warning_more', {'count': len(same) - 1, 'lines': lines}, lang)})"
        out.append(describe("record_warning", {"line": w.line or "?", "text": text}, lang))
    return out


@click.command("replay")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--sample", default=None, metavar="NAME", help="Replay a sample record shipped with nardy (nardy samples)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the games, plays and results as JSON.")
@click.option(
    "--strict",
    is_flag=True,
    help="Accept only the standard format: refuse what GNU Backgammon reads past (Galaxy's 'Losses' lines, "
    "'Cannot Move', a roll then a resignation, capped 'Wins' lines, a resumed match, ...).",
)
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Language of the warnings (default: Russian when the system locale is Russian).",
)
def replay(file, sample, as_json, strict, lang):
    """Replay a match record (FILE: .mat, GNU Backgammon's .sgf or eXtreme Gammon's .xg; or --sample NAME)
    through the rules: print each game's plays and results and the final score; exit 1 on the first rule
    violation (game, move, player, reason). Warnings name what the record holds that is not the standard format (read as
    GNU Backgammon reads it; --strict refuses it)."""
    from ..records.files import read_record
    from ..records.mat import match_summary
    from ..records.mat import replay as do_replay
    from ..texts.i18n import detect_lang

    if (file is None) == (sample is None):
        raise click.UsageError("give a record FILE or --sample NAME (nardy samples lists them)")
    if sample is not None:
        file = str(sample_path(sample))
    lang = lang or detect_lang()

    try:
        # FILE is a path: read_record only ever reads a file
        match = do_replay(read_record(file, strict=strict), strict=strict)
    except RecordError as e:
        if as_json:
            click.echo(
                json.dumps({"error": str(e), "game": e.game, "move": e.move, "player": e.player, "reason": e.reason})
            )
        partial = getattr(e.partial, "warnings", None) or []
        for line in _warnings(partial, lang, getattr(e.partial, "players", None)):
            click.echo(terminal_text(line), err=True)
        click.echo(terminal_text(f"error: {file}: {e}"), err=True)
        sys.exit(1)
    for line in _warnings(match.warnings, lang, match.players):
        click.echo(terminal_text(line), err=True)
    if as_json:
        out = match_summary(match)
        out["warnings"] = [
            {**w.to_dict(match.players), "message": describe(w.code, w.params, lang, names=match.players)}
            for w in match.warnings
        ]
        click.echo(json.dumps(out, indent=1))  # ASCII: control characters written as \u escapes, the text kept
    else:
        click.echo("\n".join(terminal_text(line) for line in _text_report(match)))


@click.command("convert")
@click.argument("source", type=click.Path(exists=True, dir_okay=False))
@click.argument("target", type=click.Path(dir_okay=False, writable=True))
def convert(source, target):
    """Convert a match record between Jellyfish .mat and GNU Backgammon's .sgf, or from eXtreme Gammon's
    .xg to either (TARGET's format by its extension: .mat or .txt, .sgf; SOURCE's by its content). SOURCE
    is replayed through the rules first: on a rule violation nothing is written and the exit status is 1."""
    from pathlib import Path

    from ..records.files import format_of, read_record, record_text
    from ..records.mat import replay as do_replay

    fmt = format_of(target, None)
    if fmt not in ("mat", "sgf"):
        raise click.BadParameter(f"{target}: name it .mat, .txt or .sgf (the format)", param_hint="TARGET")
    try:
        match = do_replay(read_record(source))
    except RecordError as e:
        click.echo(terminal_text(f"error: {source}: {e}"), err=True)
        sys.exit(1)
    try:
        Path(target).write_text(record_text(match, fmt), encoding="utf-8")
    except OSError as e:
        click.echo(f"error: cannot write {target}: {e.strerror or e}", err=True)
        sys.exit(1)
    games = len(match.games)
    click.echo(
        terminal_text(
            f"{target}: {games} game{'s' if games != 1 else ''}, score {match.score[0]}-{match.score[1]} ({fmt})"
        )
    )

"""``nardy replay FILE.mat [--json]``: replay a Jellyfish .mat record through the rules.

Prints each game's plays and result and the final score; on the first rule violation prints the
error (game, move number, player, reason) and exits with status 1. ``nardy replay --sample NAME`` replays
one of the records shipped with nardy (``nardy samples`` lists them with their paths): matches between
nardy's own computer players in each game, so the examples work in a clone or an install on its own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from .errors import RecordError


def _who(match, p):
    return match.players[p] if p in (0, 1) else "?"


def _text_report(match) -> list[str]:
    from .records.mat import match_summary

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
SAMPLES_DIR = Path(__file__).resolve().parent / "data" / "samples"


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


@click.command("replay")
@click.argument("file", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--sample", default=None, metavar="NAME", help="Replay a sample record shipped with nardy (nardy samples)."
)
@click.option("--json", "as_json", is_flag=True, help="Print the games, plays and results as JSON.")
def replay(file, sample, as_json):
    """Replay a .mat match record (FILE, or --sample NAME) through the rules: print each game's plays and
    results and the final score; exit 1 on the first rule violation (game, move, player, reason)."""
    from .records.mat import match_summary, read_mat
    from .records.mat import replay as do_replay

    if (file is None) == (sample is None):
        raise click.UsageError("give a record FILE or --sample NAME (nardy samples lists them)")
    if sample is not None:
        file = str(sample_path(sample))

    try:
        match = do_replay(read_mat(file))  # FILE is a path: read_mat only ever reads a file
    except RecordError as e:
        if as_json:
            click.echo(
                json.dumps({"error": str(e), "game": e.game, "move": e.move, "player": e.player, "reason": e.reason})
            )
        click.echo(f"error: {file}: {e}", err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(match_summary(match), indent=1))
    else:
        click.echo("\n".join(_text_report(match)))

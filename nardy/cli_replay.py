"""``nardy replay FILE.mat [--json] [--strict] [--lang ru]``: replay a Jellyfish .mat record through the rules.

Prints each game's plays and result and the final score; on the first rule violation prints the
error (game, move number, player, reason) and exits with status 1. What the record holds that is not the
standard format but GNU Backgammon imports (docs/records.md) is read as gnubg reads it, with a warning on
standard error for each kind (the first one worded, then how many more and their lines); ``--strict``
refuses it instead.
"""

from __future__ import annotations

import json
import sys

import click

from .errors import RecordError
from .messages import LANGS, describe

#: Lines of a warning's later occurrences listed after its first one.
_MORE_LINES = 8


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
            if t == "play":
                lines.append(f"  {who:>12}  {e['dice'][0]}{e['dice'][1]}: {e['play']}")
            elif t == "pass":
                lines.append(f"  {who:>12}  {e['dice'][0]}{e['dice'][1]}: (no play)")
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
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
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
def replay(file, as_json, strict, lang):
    """Replay a .mat match record through the rules: print each game's plays and results and the
    final score; exit 1 on the first rule violation (game, move, player, reason). Warnings name what the
    record holds that is not the standard format (read as GNU Backgammon reads it; --strict refuses it)."""
    from .i18n import detect_lang
    from .records.mat import match_summary, read_mat
    from .records.mat import replay as do_replay

    lang = lang or detect_lang()
    try:
        # FILE is a path: read_mat only ever reads a file
        match = do_replay(read_mat(file, strict=strict), strict=strict)
    except RecordError as e:
        if as_json:
            click.echo(
                json.dumps({"error": str(e), "game": e.game, "move": e.move, "player": e.player, "reason": e.reason})
            )
        partial = getattr(e.partial, "warnings", None) or []
        for line in _warnings(partial, lang, getattr(e.partial, "players", None)):
            click.echo(line, err=True)
        click.echo(f"error: {file}: {e}", err=True)
        sys.exit(1)
    for line in _warnings(match.warnings, lang, match.players):
        click.echo(line, err=True)
    if as_json:
        out = match_summary(match)
        out["warnings"] = [
            {**w.to_dict(match.players), "message": describe(w.code, w.params, lang, names=match.players)}
            for w in match.warnings
        ]
        click.echo(json.dumps(out, indent=1))
    else:
        click.echo("\n".join(_text_report(match)))

"""``nardy analyse DIR... --summary``: players' statistics over many analyses (:mod:`nardy.analysis.stats`).

The analyses are the records found (analysed at ``--level``, as ``nardy analyse`` does) and the analysis JSON
files (``nardy analyse --json``'s, ``"format": "nardy-analysis"``) in the folders given or named. Each side of
each analysis counts for the player of that name (``--player``: only that name, compared casefolded); the month
is the record's date (a ``.mat`` header's ``EventDate``, an SGF's ``DT``), else the file's modification month (an
analysis JSON file carries no date). Printed as two tables (per player, game
type and month: matches, games, decisions, error rate, PR, luck per game; and per player and game type the kinds
of decision with the most errors), or written as JSON (``--json``).
"""

from __future__ import annotations

import datetime as _dt
import json
import re
from pathlib import Path

from ..analysis.stats import digest, period_of, summarise

__all__ = ["analysis_files", "is_analysis", "summary_items", "summary_tables"]


def is_analysis(path: Path) -> dict | None:
    """The analysis JSON in ``path`` (``"format": "nardy-analysis"``), else ``None`` (another JSON file, or not
    JSON at all)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) and data.get("format") == "nardy-analysis" else None


def analysis_files(paths) -> list[Path]:
    """The ``.json`` files among ``paths`` and in the folders among them (sorted) that are analyses
    (:func:`is_analysis`), each once."""
    out: list[Path] = []
    seen = set()
    for p in map(Path, paths):
        items = sorted(q for q in p.rglob("*.json") if q.is_file()) if p.is_dir() else [p]
        for q in items:
            if q.suffix.lower() != ".json" or q.resolve() in seen:
                continue
            seen.add(q.resolve())
            if is_analysis(q) is not None:
                out.append(q)
    return out


#: A record's date: a ``.mat`` header's ``EventDate`` (``; [EventDate "2026.11.30"]``), an SGF's ``DT[2026-11-30]``.
_DATE = re.compile(r"""\[EventDate\s+"(\d{4})[.-](\d{2})|\bDT\[(\d{4})-(\d{2})""")


def _month(path: Path) -> str:
    """The month of a record (its header's date) or else of the file (its modification time): ``"YYYY-MM"``."""
    if path.suffix.lower() in (".mat", ".sgf"):
        try:
            with path.open(encoding="utf-8", errors="replace") as f:
                head = f.read(4096)
        except OSError:
            head = ""
        m = _DATE.search(head)
        if m:
            year, month = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            if 1 <= int(month) <= 12:
                return f"{year}-{month}"
    try:
        return period_of(_dt.datetime.fromtimestamp(path.stat().st_mtime, _dt.UTC))
    except OSError:
        return ""


def summary_items(analyses: list[tuple[Path, dict]], player: str | None = None) -> list[tuple[str, str, dict, int]]:
    """:func:`nardy.analysis.stats.summarise`'s items of ``(file, analysis)`` pairs: each side for the player of
    its name (``player``: only that name, casefolded)."""
    want = player.casefold() if player else None
    items = []
    for path, data in analyses:
        dg = digest(data)
        for side in (0, 1):
            name = dg["sides"][side]["name"]
            if want is None or name.casefold() == want:
                items.append((name, _month(path), dg, side))
    return items


def summary_tables(summary: dict):
    """Two :class:`rich.table.Table` of :func:`nardy.analysis.stats.summarise`'s ``summary``: the players' rows
    and the kinds of error."""
    from rich.table import Table
    from rich.text import Text

    rows = Table(title="Players: error rate (mEMG per decision), PR, luck (EMG per game)")
    for col in ("player", "game", "month", "matches", "games", "decisions", "error rate", "PR", "luck/game"):
        rows.add_column(col, justify="left" if col in ("player", "game", "month") else "right")
    for r in summary["rows"]:
        rows.add_row(
            Text(r["who"]),  # a name from a record: shown as text, never read as markup
            r["game"],
            r["period"],
            str(r["matches"]),
            str(r["games"]),
            str(r["decisions"]),
            f"{r['error_rate']:.1f}",
            f"{r['pr']:.1f}",
            f"{r['luck_per_game']:+.3f}",
        )
    kinds = Table(title="Most frequent kinds of error (doubtful or worse)")
    for col in ("player", "game", "kind", "decisions", "errors", "loss", "error rate"):
        kinds.add_column(col, justify="left" if col in ("player", "game", "kind") else "right")
    for k in summary["kinds"]:
        kinds.add_row(
            Text(k["who"]),
            k["game"],
            k["kind"],
            str(k["decisions"]),
            str(k["errors"]),
            f"{k['loss']:.3f}",
            f"{k['error_rate']:.1f}",
        )
    return rows, kinds


def summary_of(analyses: list[tuple[Path, dict]], player: str | None = None) -> dict:
    """``summarise`` of the analyses, with ``analysed``: how many analyses (files) went in."""
    return {"analysed": len(analyses), **summarise(summary_items(analyses, player))}

"""Reading what can be analysed: ``.mat`` records, saved matches/games/tables (JSON), SGF where supported."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..rules.errors import NardyError
from .core import DEFAULT_ANALYSIS_LEVEL, AnalysisError, MatchAnalysis, analyse_match

__all__ = ["load_match", "analyse_file", "match_of_game", "match_from_dict"]

#: Largest file read (bytes): a record of thousands of games is far smaller.
MAX_FILE = 20 * 1024 * 1024


def load_match(path):
    """The :class:`~nardy.flow.match.Match` of a file: a Jellyfish ``.mat`` record (replayed through the rules,
    :func:`nardy.records.mat.replay`), a JSON save (``Match.to_dict``, ``Game.to_dict``, a saved table or
    terminal session with a ``"match"``), or GNU Backgammon's SGF where this version reads it
    (``nardy.records.files.read_record``, which tells the two record formats apart by the text).

    Raises:
        AnalysisError: unreadable, too large, or not a record; RecordError: a record the rules refuse.
    """
    p = Path(os.fspath(path))
    try:
        size = p.stat().st_size
    except OSError as e:
        raise AnalysisError(f"{p}: cannot read ({e.strerror})") from None
    if size > MAX_FILE:
        raise AnalysisError(f"{p}: {size} bytes, more than the {MAX_FILE} a record may have")
    suffix = p.suffix.lower()
    if suffix != ".json":
        from nardy.records.mat import replay

        try:  # the records' reader that tells .mat from SGF by the text (where this version has it)
            from nardy.records.files import read_record  # type: ignore[import-not-found]
        except ImportError:
            read_record = None
        if read_record is not None:
            record = read_record(p)
            match = replay(record)
            # an .xg file's own analysis, kept for analyse_file to put beside nardy's
            match.xg_analysis = getattr(record, "analysis", None) or []
            match.record_headers = dict(getattr(record, "headers", None) or {})
            return match
        if suffix == ".sgf":
            raise AnalysisError(f"{p}: SGF records are not supported by this version")
        from nardy.records.matparse import read_mat

        record = read_mat(p)
        match = replay(record)
        match.record_headers = dict(record.headers)
        return match
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise AnalysisError(f"{p}: not JSON ({e})") from None
    return match_from_dict(d, str(p))


def match_from_dict(d, where: str = "the data"):
    """A :class:`~nardy.flow.match.Match` from a saved match, game, table or session dict."""
    from ..flow.game import Game
    from ..flow.match import Match

    if isinstance(d, dict) and d.get("format") == "nardy-analysis":
        raise AnalysisError(f"{where}: this is an analysis (nardy analyse --json), not a record")
    if isinstance(d, dict) and isinstance(d.get("match"), dict):
        d = d["match"]
    if not isinstance(d, dict):
        raise AnalysisError(f"{where}: not a saved match or game")
    try:
        if "games" in d:
            return Match.from_dict(d)
        g = Game.from_dict(d)
    except NardyError as e:
        raise AnalysisError(f"{where}: {e}") from None
    return match_of_game(g)


def match_of_game(game):
    """A money session holding one :class:`~nardy.flow.game.Game` (finished or not), to analyse a single game."""
    from ..flow.match import Match

    m = Match(game.rules, length=0, cube=game.cube_enabled, players=game.players)
    m.games.append(game)
    m._crawford_flags.append(False)
    return m


def analyse_file(path, level: str = DEFAULT_ANALYSIS_LEVEL, progress=None) -> MatchAnalysis:
    """:func:`load_match` then :func:`~nardy.analysis.core.analyse_match` (``source`` = the file's name; ``info``:
    the record's match information, ``options``: a money session's Jacoby and beavers); an
    ``.xg`` file's own analysis is put beside nardy's (:func:`~nardy.analysis.xgbeside.attach_xg`)."""
    from .reportstats import match_info
    from .xgbeside import attach_xg

    m = load_match(path)
    result = analyse_match(m, level=level, progress=progress, source=Path(os.fspath(path)).name)
    attach_xg(result, getattr(m, "xg_analysis", None))
    result.info = match_info(getattr(m, "record_headers", None) or {})
    if not m.length:
        result.options = {"jacoby": bool(getattr(m, "jacoby", False)), "beavers": bool(getattr(m, "beavers", False))}
    return result

"""Analysis of finished games and matches: errors, luck and performance rating (issue 16).

Public API (stable; see docs/analysis.md):

* :func:`analyse_match` ``(match, level="grandmaster", progress=None) -> MatchAnalysis`` and
  :func:`analyse_file` ``(path, level=...) -> MatchAnalysis``; ``MatchAnalysis.to_dict()`` is the JSON
  of ``nardy analyse``.
* :class:`Analyser` (reusable at one level), :class:`Decision`, :class:`PlayerSummary`,
  :data:`THRESHOLDS`, :func:`mark_of`, :func:`rating_of`.
"""

from .core import (
    ANALYSIS_LEVELS,
    DEFAULT_ANALYSIS_LEVEL,
    LUCK_THRESHOLDS,
    THRESHOLDS,
    Analyser,
    AnalysisError,
    Decision,
    MatchAnalysis,
    PlayerSummary,
    analyse_match,
    mark_of,
    rating_of,
)
from .load import analyse_file, load_match, match_of_game

__all__ = [
    "ANALYSIS_LEVELS",
    "DEFAULT_ANALYSIS_LEVEL",
    "LUCK_THRESHOLDS",
    "THRESHOLDS",
    "AnalysisError",
    "Analyser",
    "Decision",
    "MatchAnalysis",
    "PlayerSummary",
    "analyse_match",
    "analyse_file",
    "load_match",
    "match_of_game",
    "mark_of",
    "rating_of",
]

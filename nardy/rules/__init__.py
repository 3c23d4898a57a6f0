"""The rules library: the bottom layer of nardy (docs/design.md).

Positions from the mover's view (:class:`~nardy.rules.position.Position`, ``Play``, ``Step``), the three games'
rules (:func:`get_rules`), notation and point numbering, Position/Match IDs and XGIDs, dice (seeded, system and
provably fair) and the compiled legal-play generator. It knows nothing of games in progress, the cube, bots,
records or front ends, and imports no web, terminal or database library (import-linter contracts in
pyproject.toml).

``nardy.rules`` was a module (the game variants, now :mod:`nardy.rules.variants`) before the redesign: its
names are kept here.
"""

from .variants import (
    BACKGAMMON,
    GAMES,
    LAST_ROLL,
    LONG,
    OPENINGS,
    RESULT_NAMES,
    SHORT,
    Rules,
    game_name,
    get_rules,
)

__all__ = [
    "BACKGAMMON",
    "GAMES",
    "LAST_ROLL",
    "LONG",
    "OPENINGS",
    "RESULT_NAMES",
    "SHORT",
    "Rules",
    "game_name",
    "get_rules",
]

"""The tournament library (issue 44): Swiss, arena and knockout pairings, standings and the regulation.

Pure Python, no I/O, deterministic: the web (nardy.web's tournament runner) stores entrants and pairings and
calls these functions. See docs/tournaments.md for the rules and their sources.

* :mod:`.model`: :class:`Entrant`, :class:`Pairing`, :class:`Standing`, :class:`Regulation`, :class:`Format`;
* :mod:`.swiss`: :func:`swiss_pairings`, Buchholz and Sonneborn-Berger;
* :mod:`.knockout`: :func:`knockout_bracket`, :func:`knockout_next`;
* :mod:`.arena`: :func:`arena_pairings`, points with streaks, performance;
* :mod:`.standings`: :func:`standings` for any format;
* :mod:`.matching`: pairing by preference with Edmonds' blossom algorithm (a legal pairing whenever one exists).
"""

from nardy.flow.tournament.arena import arena_match_points, arena_pairings, arena_standings
from nardy.flow.tournament.knockout import (
    Bracket,
    knockout_bracket,
    knockout_champion,
    knockout_next,
    knockout_standings,
    seed_order,
)
from nardy.flow.tournament.model import (
    Entrant,
    Format,
    Pairing,
    PairingImpossible,
    Regulation,
    Result,
    Standing,
    opponents_by_player,
    points_by_player,
)
from nardy.flow.tournament.standings import standings
from nardy.flow.tournament.swiss import swiss_pairings, swiss_standings

__all__ = [
    "Bracket",
    "Entrant",
    "Format",
    "Pairing",
    "PairingImpossible",
    "Regulation",
    "Result",
    "Standing",
    "arena_match_points",
    "arena_pairings",
    "arena_standings",
    "knockout_bracket",
    "knockout_champion",
    "knockout_next",
    "knockout_standings",
    "opponents_by_player",
    "points_by_player",
    "seed_order",
    "standings",
    "swiss_pairings",
    "swiss_standings",
]

"""Standings of any format (issue 44): one entry point over the formats' own (swiss, arena, knockout)."""

from __future__ import annotations

from collections.abc import Sequence

from nardy.flow.tournament.arena import arena_standings
from nardy.flow.tournament.knockout import knockout_standings
from nardy.flow.tournament.model import Entrant, Format, Pairing, Regulation, Standing
from nardy.flow.tournament.swiss import swiss_standings


def standings(
    entrants: Sequence[Entrant],
    history: Sequence[Pairing],
    fmt: Format | str,
    regulation: Regulation | None = None,
) -> list[Standing]:
    """The standings of ``entrants`` after the pairings ``history`` (in the order made) in format ``fmt``
    (a :class:`Format` or its value): Swiss (points; ``buchholz``, ``sonneborn_berger``), arena (points with
    streaks and berserk; ``performance``) or knockout (matches won; ``round_reached``). Best first, ``rank``
    1-based, shared on equal points and tie-breaks. Raises ValueError for an unknown format."""
    f = Format(fmt)
    if f is Format.SWISS:
        return swiss_standings(entrants, history)
    if f is Format.ARENA:
        return arena_standings(entrants, history, regulation)
    return knockout_standings(entrants, history)

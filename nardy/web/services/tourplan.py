"""Who plays whom in a tournament and how they stand: the web's side of the tournament library.

The pairing and standing rules are :mod:`nardy.flow.tournament` (Swiss by score group with blossom matching, no
rematch, a bye to the lowest without one; knockout brackets seeded by rating with byes for the top seeds, a
replay of a drawn match, walkovers for the withdrawn; arena pairing of the free players avoiding the last
opponent; standings with Buchholz and Sonneborn-Berger, arena points with streaks and berserk, knockout by the
round reached). This module turns the stored boards (:class:`nardy.web.store.tournaments.Board`) into the
library's :class:`~nardy.flow.tournament.Pairing` history and its pairings back into boards to make.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...flow import tournament as core
from ..store.tournaments import Board, Entrant

__all__ = ["swiss_round", "knockout_round", "knockout_rounds", "arena_round", "standings", "regulation"]


def regulation(settings: dict) -> core.Regulation:
    """The :class:`~nardy.flow.tournament.Regulation` of a tournament's stored terms."""
    return core.Regulation(draw_points=settings.get("draw_points") or "half", grace_s=int(settings.get("grace_s") or 0))


def _entrants(people: Sequence[Entrant], everyone_present: bool = False) -> list[core.Entrant]:
    return [
        core.Entrant(id=e.id, rating=e.rating, name=e.name, withdrawn=e.withdrawn and not everyone_present)
        for e in people
    ]


def history(boards: Sequence[Board]) -> list[core.Pairing]:
    """The boards as the library's pairings, in the order they were made."""
    return [
        core.Pairing(
            round=b.round,
            players=b.players,
            result=b.result,
            game=b.game,
            board=b.board,
            berserk=(bool(b.extra.get("berserk", [0, 0])[0]), bool(b.extra.get("berserk", [0, 0])[1])),
        )
        for b in sorted(boards, key=lambda b: b.seq)
    ]


def swiss_round(
    people: Sequence[Entrant], boards: Sequence[Board], round_no: int, settings: dict
) -> list[core.Pairing]:
    """Round ``round_no``'s pairings of a Swiss (the bye last, its result set). When every pairing would repeat a
    match (a small field late in a long Swiss) the fewest repeats are allowed."""
    try:
        return core.swiss_pairings(_entrants(people), history(boards), round_no, regulation(settings))
    except core.PairingImpossible:
        return core.swiss_pairings(
            _entrants(people), history(boards), round_no, regulation(settings), allow_rematches=True
        )


def _bracket(people: Sequence[Entrant], settings: dict) -> core.Bracket:
    lengths = settings.get("lengths") or [int(settings.get("length") or 1)]
    return core.knockout_bracket(_entrants(people, everyone_present=True), lengths)


def knockout_rounds(n: int) -> int:
    """Rounds of a knockout of ``n`` entrants (a bracket of the next power of two)."""
    size = 1
    while size < max(2, n):
        size *= 2
    return size.bit_length() - 1


def knockout_round(people: Sequence[Entrant], boards: Sequence[Board], settings: dict) -> list[core.Pairing]:
    """The knockout's pairings to make now (:func:`nardy.flow.tournament.knockout_next`): round 1, a replay of a
    drawn match, or the next round once every board is decided; ``[]`` when there is none (the final is
    decided, or matches are still played). The bracket is the one of every entrant who started (a player who
    withdrew later is in it, their matches walkovers); ``length`` is set on each pairing."""
    bracket = _bracket(people, settings)
    gone = [e.id for e in people if e.withdrawn]
    made = core.knockout_next(bracket, history(boards), gone)
    out = []
    for p in made:
        if p.length is None:
            p = core.Pairing(
                round=p.round, players=p.players, result=p.result, board=p.board, length=bracket.length(p.round)
            )
        out.append(p)
    return out


def arena_round(
    people: Sequence[Entrant],
    free: Sequence[Entrant],
    boards: Sequence[Board],
    now: float,
    round_no: int,
    ends_at: float,
    settings: dict,
) -> list[core.Pairing]:
    """Pairings of the ``free`` players of an arena (of ``people``), by score then rating, never two who played
    each other last; an odd one out waits. None in the last 20 seconds (a quarter of a shorter arena): too late for
    a match. ``now``, ``ends_at``: Unix seconds."""
    last: dict[str, str] = {}
    for b in sorted(boards, key=lambda b: b.seq):
        a, o = b.players
        if o is not None:
            last[a], last[o] = o, a
    scores = {s.id: s.points for s in core.standings(_entrants(people), history(boards), "arena", regulation(settings))}
    late = min(20.0, 15.0 * float(settings.get("duration_min") or 0))
    return core.arena_pairings(
        _entrants(free), last, now, scores=scores, round_no=round_no, ends_at=ends_at, min_left_s=late
    )


def standings(fmt: str, people: Sequence[Entrant], boards: Sequence[Board], settings: dict) -> list[dict[str, Any]]:
    """The standings, best first: ``{"rank", "id", "points", "tiebreaks"}`` (Swiss: ``buchholz``,
    ``sonneborn_berger``; arena: ``performance``...; knockout: ``round_reached``)."""
    got = core.standings(_entrants(people), history(boards), fmt, regulation(settings))
    return [{"rank": s.rank, "id": s.id, "points": s.points, "tiebreaks": dict(s.tiebreaks)} for s in got]

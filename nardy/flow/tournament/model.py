"""The tournament library's data: entrants, pairings, standings, the regulation and the formats (issue 44).

Pure data, no I/O. Every result is a pair of *match points* in the order of :attr:`Pairing.players`: a match
won is ``(1.0, 0.0)`` or ``(0.0, 1.0)``, long nardy's last-roll draw (RULES.md, long nardy's end of game) is
``(0.5, 0.5)`` or ``(1.0, 1.0)`` as :attr:`Regulation.draw_points` says, a bye or a walkover is ``(1.0, 0.0)``
for the player present, a double forfeit ``(0.0, 0.0)``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal

Result = tuple[float, float]
"""Match points of the two seats of a pairing, in the order of :attr:`Pairing.players`."""


class Format(StrEnum):
    """A tournament's format: ``swiss`` (rounds, score groups), ``arena`` (timed, pair as players become free)
    or ``knockout`` (a seeded bracket, the winner advances)."""

    SWISS = "swiss"
    ARENA = "arena"
    KNOCKOUT = "knockout"


class PairingImpossible(ValueError):
    """No pairing obeys the rules (in a Swiss: every player left has met every other one already)."""


@dataclass(frozen=True)
class Entrant:
    """A player in a tournament.

    ``id`` is the account's id as a string (any string unique in the tournament), ``rating`` the rating that
    seeds and orders the player (higher is stronger), ``name`` for display only, ``withdrawn`` true once the
    player left a started tournament: a withdrawn player is paired no more (Swiss, arena) or loses its later
    matches by walkover (knockout); points already scored stay.
    """

    id: str
    rating: float
    name: str = ""
    withdrawn: bool = False


@dataclass(frozen=True)
class Pairing:
    """One match of a tournament.

    ``round``: the Swiss or knockout round, 1-based (an arena numbers its waves of pairings). ``players``: the
    two entrants' ids; the second is ``None`` for a bye. ``result``: match points in the order of ``players``
    or ``None`` while the match is played; a pairing made with its result already set (a bye, a walkover) needs
    no game. ``game``: the web's game id, filled by the caller. ``board``: the table number in its round,
    1-based (a knockout's position in the bracket: the winners of boards 2k-1 and 2k meet on board k of the next
    round). ``length``: the match length in points when the format fixes it per round (knockout), else
    ``None``. ``berserk``: per seat, whether that player went berserk (arena: half the clock for +1 on a win).
    """

    round: int
    players: tuple[str, str | None]
    result: Result | None = None
    game: str | None = None
    board: int = 0
    length: int | None = None
    berserk: tuple[bool, bool] = (False, False)

    @property
    def is_bye(self) -> bool:
        """Whether this is a bye (no opponent)."""
        return self.players[1] is None

    @property
    def finished(self) -> bool:
        """Whether the result is known."""
        return self.result is not None

    def with_result(self, result: Result, game: str | None = None) -> Pairing:
        """A copy with ``result`` (match points in the order of ``players``) and, if given, ``game``."""
        return replace(self, result=(float(result[0]), float(result[1])), game=self.game if game is None else game)

    def points_of(self, player: str) -> float:
        """The match points ``player`` scored here (0 while unfinished). Raises KeyError if not a player here."""
        seat = self.seat_of(player)
        return 0.0 if self.result is None else self.result[seat]

    def seat_of(self, player: str) -> int:
        """0 or 1: ``player``'s seat here. Raises KeyError if ``player`` does not play here."""
        if self.players[0] == player:
            return 0
        if self.players[1] == player:
            return 1
        raise KeyError(player)

    def opponent_of(self, player: str) -> str | None:
        """``player``'s opponent (``None`` for a bye). Raises KeyError if ``player`` does not play here."""
        return self.players[1 - self.seat_of(player)]

    def winner(self) -> str | None:
        """The player with more match points, or ``None`` while unfinished or on equal points."""
        if self.result is None or self.result[0] == self.result[1]:
            return None
        return self.players[0] if self.result[0] > self.result[1] else self.players[1]


@dataclass(frozen=True)
class Standing:
    """A line of the standings: ``rank`` (1-based; equal points and tie-breaks share a rank), the entrant's
    ``id``, its ``points`` (the format's points: Swiss match points, arena points with streaks, knockout
    matches won) and ``tiebreaks`` by name (``buchholz``, ``sonneborn_berger``; ``performance``;
    ``round_reached``)."""

    id: str
    points: float
    tiebreaks: dict[str, float] = field(default_factory=dict)
    rank: int = 0


@dataclass(frozen=True)
class Regulation:
    """A tournament's terms that score matches.

    ``draw_points``: long nardy's last-roll draw (the player who started bears off last with a roll of doubles
    left to bear off the rest, RULES.md) scores ``"half"`` (½-½) or ``"one"`` (1-1: both as if they had won).
    ``grace_s``: seconds a player may stay absent from a match's start before losing it (the web applies it,
    see :meth:`absence`). ``bye_points``: points of a bye (1, FIDE C.04.1 (c)). ``berserk_bonus``: arena points
    added to a berserk player's win.
    """

    draw_points: Literal["half", "one"] = "half"
    grace_s: int = 60
    bye_points: float = 1.0
    berserk_bonus: int = 1

    def __post_init__(self) -> None:
        if self.draw_points not in ("half", "one"):
            raise ValueError(f"draw_points must be 'half' or 'one', not {self.draw_points!r}")
        if self.grace_s < 0:
            raise ValueError("grace_s must be >= 0")

    def draw(self) -> Result:
        """A drawn match's points: (0.5, 0.5) or (1.0, 1.0)."""
        return (0.5, 0.5) if self.draw_points == "half" else (1.0, 1.0)

    def win(self, seat: int) -> Result:
        """The points of a match won by ``seat`` (0 or 1). Raises ValueError for another seat."""
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        return (1.0, 0.0) if seat == 0 else (0.0, 1.0)

    def bye(self) -> Result:
        """A bye's points for the seat present (seat 0)."""
        return (self.bye_points, 0.0)

    def absence(self, absent: Iterable[int]) -> Result:
        """The points of a match where the seats in ``absent`` did not act within ``grace_s`` (or withdrew): one
        absent loses to the other, both absent is a double forfeit (0, 0). Raises ValueError if none is absent."""
        seats = set(absent)
        if not seats or not seats <= {0, 1}:
            raise ValueError(f"absent must name seat 0, 1 or both, not {sorted(seats)!r}")
        if seats == {0, 1}:
            return (0.0, 0.0)
        return self.win(1 - seats.pop())


def points_by_player(history: Iterable[Pairing]) -> dict[str, float]:
    """Match points each player scored over ``history`` (byes included, unfinished matches count 0)."""
    out: dict[str, float] = {}
    for p in history:
        for seat, pid in enumerate(p.players):
            if pid is not None:
                out[pid] = out.get(pid, 0.0) + (p.result[seat] if p.result is not None else 0.0)
    return out


def opponents_by_player(history: Iterable[Pairing]) -> dict[str, set[str]]:
    """The opponents each player has been paired with over ``history`` (byes not included)."""
    out: dict[str, set[str]] = {}
    for p in history:
        a, b = p.players
        out.setdefault(a, set())
        if b is not None:
            out.setdefault(b, set()).add(a)
            out[a].add(b)
    return out


def entrants_by_id(entrants: Iterable[Entrant]) -> Mapping[str, Entrant]:
    """``entrants`` by id. Raises ValueError if two share an id."""
    out: dict[str, Entrant] = {}
    for e in entrants:
        if e.id in out:
            raise ValueError(f"two entrants have the id {e.id!r}")
        out[e.id] = e
    return out


def rank_rows(
    rows: Sequence[tuple[str, float, dict[str, float]]], key: Callable[[float, dict[str, float]], Hashable]
) -> list[Standing]:
    """Standings from ``(id, points, tiebreaks)`` rows already in order; consecutive rows with equal
    ``key(points, tiebreaks)`` share the rank of the first of them (1, 2, 2, 4...)."""
    out: list[Standing] = []
    last: Hashable = object()
    rank = 0
    for i, (pid, pts, tb) in enumerate(rows):
        k = key(pts, tb)
        if k != last:
            rank, last = i + 1, k
        out.append(Standing(id=pid, points=pts, tiebreaks=tb, rank=rank))
    return out

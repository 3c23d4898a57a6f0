"""The players of ``nardy play``: a person at the keyboard or the computer at a level, as the command line and
the saved games write them (``human``, ``bot:LEVEL``)."""

from __future__ import annotations

from dataclasses import dataclass

from ..flow.table import Seat, SeatKind

__all__ = ["PlayerSpec", "parse_player"]


@dataclass(frozen=True)
class PlayerSpec:
    """A side's player: ``human``, or ``bot`` with a level of :data:`nardy.engine.BOT_LEVELS`."""

    kind: str
    level: str | None = None

    @property
    def human(self) -> bool:
        return self.kind == "human"

    def __str__(self):
        return "human" if self.human else f"bot:{self.level}"

    def seat(self, name: str) -> Seat:
        """The table's :class:`~nardy.flow.table.Seat` for this player (a person here, or the computer at the
        level), under ``name`` (cut to the 40 characters a seat's name may have)."""
        name = str(name)[:40]
        if self.human:
            return Seat(SeatKind.PERSON, name)
        return Seat(SeatKind.COMPUTER, name, level=self.level)

    @classmethod
    def from_seat(cls, seat: Seat) -> PlayerSpec:
        """The player of a table's seat. Raises ValueError: a remote seat (not a player of the terminal)."""
        if seat.kind is SeatKind.PERSON:
            return cls("human")
        if seat.kind is SeatKind.COMPUTER:
            return cls("bot", seat.level)
        raise ValueError(f"seat {seat.name!r}: a {seat.kind.value} seat is not a player of nardy play")


def parse_player(text: str) -> PlayerSpec:
    """``human`` (``h``, ``person``) or ``bot[:LEVEL]`` (``computer``, ``cpu``; default the
    strongest level). Raises ValueError for anything else."""
    from ..engine.bot import BOT_LEVELS, STRONGEST_LEVEL  # here: the engine's kernels load slowly

    t = (text or "").strip().lower()
    if t in ("human", "h", "person", "player", "me"):
        return PlayerSpec("human")
    kind, _, level = t.partition(":")
    if kind in ("bot", "computer", "cpu", "ai", "b", "c"):
        level = level or STRONGEST_LEVEL
        if level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
        return PlayerSpec("bot", level)
    if t in BOT_LEVELS:
        return PlayerSpec("bot", t)
    raise ValueError(f"player {text!r}: expected human or bot[:LEVEL]")

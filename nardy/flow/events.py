"""A game's phases and the events of its history, as values (not strings and dicts).

:class:`Phase` is a :class:`~enum.StrEnum`: a phase compares equal to its name (``Phase.ROLL ==
"roll"``) and is written to JSON as that name, so saved games and API answers read as before.

Each entry of :attr:`nardy.flow.game.Game.history` is one of the frozen dataclasses below, all subclasses of
:class:`Event`. Players are 0 (White) and 1 (Black); dice are ``(d1, d2)`` tuples; positions are
Position IDs from the view of the player on turn (the mover), as :meth:`nardy.rules.position.Position.id`
writes them; steps are ``(from, to, die, hit)`` in the mover's own numbering (25 bar, 0 off).

JSON form (:meth:`Event.to_dict` / :func:`event_from_dict`): ``{"type": <Event.type>, <fields>}`` with
lists for tuples, exactly the form saved games have always had (version 1 of a saved game), so games
saved before events were typed load unchanged; :data:`EVENT_VERSION` is that version.

Front ends, records and analysis read events with ``isinstance`` or ``match`` on the class, never by
decoding strings.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import ClassVar

from ..rules.errors import GameStateError

__all__ = [
    "Phase",
    "PHASES",
    "Event",
    "SetupEvent",
    "OpeningEvent",
    "RollEvent",
    "PassEvent",
    "PlayEvent",
    "LastRollEvent",
    "DoubleEvent",
    "TakeEvent",
    "BeaverEvent",
    "DropEvent",
    "ResignEvent",
    "AcceptEvent",
    "DeclineEvent",
    "EndEvent",
    "GameResult",
    "EVENT_TYPES",
    "EVENT_VERSION",
    "event_from_dict",
]

#: The version of the events' JSON form (the ``version`` of a saved game).
EVENT_VERSION = 1


class Phase(enum.StrEnum):
    """The phases of a game (docs/rules.md rules 7 and 8, the cube's "Doubling cube and matches")."""

    #: Not started: the opening roll decides who starts.
    OPENING = "opening"
    #: The player on turn may double (if the cube allows) or roll.
    ROLL = "roll"
    #: A double waits for take, drop (or beaver).
    DOUBLE = "double"
    #: A resignation waits for accept or decline.
    RESIGN = "resign"
    #: Dice rolled: a play is due (entered whole or step by step).
    MOVE = "move"
    #: The game has a result.
    OVER = "over"


#: Every phase, in the order of a turn.
PHASES = tuple(Phase)


def _tuple(x):
    return tuple(_tuple(v) for v in x) if isinstance(x, (list, tuple)) else x


def _list(x):
    return [_list(v) for v in x] if isinstance(x, (list, tuple)) else x


@dataclass(frozen=True)
class Event:
    """Base class of history events. ``type`` (a class attribute) names the event in JSON."""

    type: ClassVar[str] = ""

    def to_dict(self) -> dict:
        """The JSON form: ``{"type": ..., field: value, ...}`` (tuples as lists)."""
        return {"type": self.type, **{f.name: _list(getattr(self, f.name)) for f in fields(self)}}


@dataclass(frozen=True)
class SetupEvent(Event):
    """A game set up at ``position`` (:meth:`Game.from_position`); ``turn`` is to roll; the cube at ``value``,
    owned by ``owner`` (``None`` centred). The JSON form names ``value`` and ``owner`` only when the cube is
    not centred at 1 (so a set-up saved before they existed reads the same)."""

    type: ClassVar[str] = "setup"
    position: str
    turn: int
    value: int = 1
    owner: int | None = None

    def to_dict(self) -> dict:
        d = {"type": self.type, "position": self.position, "turn": self.turn}
        if self.value != 1 or self.owner is not None:
            d.update(value=self.value, owner=self.owner)
        return d


@dataclass(frozen=True)
class OpeningEvent(Event):
    """The opening (rule 7): ``rolls`` are the one-die rolls ``(White, Black)`` until they differ (empty
    when the starter was given); ``dice`` the starter's dice with ``use-opening-dice``, else ``None``."""

    type: ClassVar[str] = "opening"
    starter: int
    rolls: tuple = ()
    dice: tuple | None = None


@dataclass(frozen=True)
class RollEvent(Event):
    """``player`` rolled ``dice``."""

    type: ClassVar[str] = "roll"
    player: int
    dice: tuple


@dataclass(frozen=True)
class PassEvent(Event):
    """``player`` could not play ``dice``: the turn passed."""

    type: ClassVar[str] = "pass"
    player: int
    dice: tuple


@dataclass(frozen=True)
class PlayEvent(Event):
    """``player`` played ``play`` (notation, own numbering) with ``dice`` from ``position`` (the Position ID
    before the play, mover's view); ``steps`` as entered, ``(from, to, die, hit)`` each."""

    type: ClassVar[str] = "play"
    player: int
    dice: tuple
    play: str
    steps: tuple
    position: str


@dataclass(frozen=True)
class LastRollEvent(Event):
    """Long nardy ``last-roll``: the starter bore off last; ``player`` has one more roll to draw."""

    type: ClassVar[str] = "last-roll"
    player: int


@dataclass(frozen=True)
class DoubleEvent(Event):
    """``player`` doubled to ``value``."""

    type: ClassVar[str] = "double"
    player: int
    value: int


@dataclass(frozen=True)
class TakeEvent(Event):
    """``player`` took; the cube is at ``value``."""

    type: ClassVar[str] = "take"
    player: int
    value: int


@dataclass(frozen=True)
class BeaverEvent(Event):
    """``player`` beavered (took and redoubled); the cube is at ``value``."""

    type: ClassVar[str] = "beaver"
    player: int
    value: int


@dataclass(frozen=True)
class DropEvent(Event):
    """``player`` passed (dropped) the double."""

    type: ClassVar[str] = "drop"
    player: int


@dataclass(frozen=True)
class ResignEvent(Event):
    """``player`` offered to resign at result level ``level`` (``level_name`` in the game's terms)."""

    type: ClassVar[str] = "resign"
    player: int
    level: int
    level_name: str


@dataclass(frozen=True)
class AcceptEvent(Event):
    """``player`` accepted the resignation."""

    type: ClassVar[str] = "accept"
    player: int


@dataclass(frozen=True)
class DeclineEvent(Event):
    """``player`` declined the resignation."""

    type: ClassVar[str] = "decline"
    player: int


@dataclass(frozen=True)
class GameResult:
    """How a game ended.

    Attributes:
        winner: 0 or 1; ``None`` for a long nardy ``last-roll`` draw.
        level: the result's kind (:attr:`kind`): its index in ``rules.result_names`` (0 single/oyun/oyn, 1
            gammon/mars, ...); 0 for a drop and for a draw. The field keeps its JSON name ``level``.
        level_name: that kind's name (:attr:`kind_name`; ``"draw"`` for a draw).
        points: points the winner scores (the kind's value times the cube; the cube value before the
            double for a drop); for a draw the points each side scores (½ or 1).
        cube: the cube value at the end.
        reason: ``"bear-off"``, ``"drop"``, ``"resign"`` or ``"draw"``.
    """

    winner: int | None
    level: int
    level_name: str
    points: int | float
    cube: int
    reason: str

    @property
    def kind(self) -> int:
        """The result's kind: its index in ``rules.result_names`` (the field ``level``)."""
        return self.level

    @property
    def kind_name(self) -> str:
        """The kind's name: ``"single"``, ``"gammon"``, ``"mars"``..., ``"draw"`` (the field ``level_name``)."""
        return self.level_name

    def score(self) -> tuple:
        """Points this game adds to ``(player 0, player 1)``."""
        if self.winner is None:
            return (self.points, self.points)
        return (self.points, 0) if self.winner == 0 else (0, self.points)

    def to_dict(self) -> dict:
        return {
            "winner": self.winner,
            "level": self.level,
            "level_name": self.level_name,
            "points": self.points,
            "cube": self.cube,
            "reason": self.reason,
        }

    @classmethod
    def from_dict(cls, d: dict) -> GameResult:
        return cls(**d)


@dataclass(frozen=True)
class EndEvent(Event, GameResult):
    """The game ended: a :class:`GameResult` as an event of the history (``winner`` None for a draw). Its JSON
    form is the result's with ``"type": "end"``; :attr:`result` is the plain result."""

    type: ClassVar[str] = "end"

    @property
    def result(self) -> GameResult:
        """The plain :class:`GameResult` of this event."""
        return GameResult(self.winner, self.level, self.level_name, self.points, self.cube, self.reason)


#: Event class by its JSON ``type``.
EVENT_TYPES: dict[str, type[Event]] = {
    c.type: c
    for c in (
        SetupEvent,
        OpeningEvent,
        RollEvent,
        PassEvent,
        PlayEvent,
        LastRollEvent,
        DoubleEvent,
        TakeEvent,
        BeaverEvent,
        DropEvent,
        ResignEvent,
        AcceptEvent,
        DeclineEvent,
        EndEvent,
    )
}


def event_from_dict(d) -> Event:
    """The event of a JSON form written by :meth:`Event.to_dict` (or by any version-1 saved game).

    Shapes are checked only as far as building the event needs: a saved game's history is checked in
    full by :mod:`nardy.flow.saved` before it is turned into events.

    Raises:
        GameStateError: not a dict, an unknown ``type``, or fields missing or unknown.
    """
    if isinstance(d, Event):
        return d
    if not isinstance(d, dict):
        raise GameStateError(f"history event {str(d)[:60]!r}: expected a dict with a type")
    cls = EVENT_TYPES.get(d.get("type")) if isinstance(d.get("type"), str) else None
    if cls is None:
        raise GameStateError(
            f"history event type {str(d.get('type'))[:40]!r}: expected one of {', '.join(EVENT_TYPES)}"
        )
    names = {f.name for f in fields(cls)}
    given = set(d) - {"type"}
    if not given <= names:
        raise GameStateError(f"history event {cls.type!r}: unknown field(s) {', '.join(sorted(given - names))}")
    try:
        return cls(**{k: _tuple(v) for k, v in d.items() if k != "type"})
    except TypeError:
        missing = sorted(n for n in names if n not in d)
        raise GameStateError(f"history event {cls.type!r}: missing field(s) {', '.join(missing)}") from None

"""Error types of nardy.

Every error raised for bad input is a subclass of :class:`NardyError`, itself a
subclass of :class:`ValueError`, and its message quotes the offending input.

Every error also carries a ``code`` (a short snake_case name of what went wrong, e.g. ``not_your_turn``,
``fewer_dice``, ``cube_owned``) and ``params`` (a dict of JSON values the code's message needs: points in
the mover's own numbering, dice, counts...). The message (``str(e)``) is English detail for logs and
programs; front ends word the refusal for the player from ``code`` and ``params`` in the player's language
(the message catalogue, :mod:`nardy.texts.messages`). Each class has a default code (:attr:`NardyError.default_code`)
used where no more specific one is given.
"""

from __future__ import annotations

from typing import Any, ClassVar

#: English detail of each code of :meth:`nardy.flow.cube.Cube.why_not_double` and
#: :meth:`nardy.flow.game.Game.why_not_double`
#: (``{owner_name}``, ``{limit}``, ``{phase}`` filled in where the code needs them).
WHY_NOT_DOUBLE = {
    "cube_disabled": "the doubling cube is not in use in this game (option cube is off)",
    "crawford": "nobody may double in the Crawford game",
    "double_waiting": "a double is already waiting for an answer",
    "cube_owned": "{owner_name} owns the cube",
    "cube_limit": "the cube is at its limit {limit}",
    "last_roll": "no doubling on the last roll",
    "not_before_roll": "a double is offered only before rolling (phase is {phase})",
    "not_your_turn": "it is the other player's turn",
}


class _Blank(dict):
    def __missing__(self, key):
        return "?"


def why_not_double_text(code: str, **params) -> str:
    """The English detail of a :data:`WHY_NOT_DOUBLE` code, with ``params`` filled in (missing ones as
    ``?``); an unknown code is returned as it is."""
    return WHY_NOT_DOUBLE.get(code, code).format_map(_Blank(params))


class NardyError(ValueError):
    """Base class of all nardy input errors (a ``ValueError``).

    Args:
        message: English detail quoting the input.
        code: what went wrong (default: the class's :attr:`default_code`).
        params: values the code's message needs (JSON-able).
    """

    #: The code of errors of this class raised without a more specific one.
    default_code: ClassVar[str] = "invalid_input"

    def __init__(self, message: str = "", *, code: str | None = None, params: dict[str, Any] | None = None):
        super().__init__(message)
        self.code: str = code or self.default_code
        self.params: dict[str, Any] = dict(params or {})


class InvalidPositionError(NardyError):
    """A position (board arrays, checker counts, game state) breaks a rule of docs/rules.md."""

    default_code = "invalid_position"


class InvalidIdError(NardyError):
    """A Position ID, Match ID or XGID string is malformed or describes an impossible position."""

    default_code = "invalid_id"


class IllegalPlayError(NardyError):
    """A play written in notation is not legal (or is ambiguous) for the position and roll.

    Attributes ``text`` (the input), ``dice``, ``position_id`` and ``reason`` are set
    where known.
    """

    default_code = "illegal_play"

    def __init__(
        self,
        message: str,
        *,
        text: str | None = None,
        dice=None,
        position_id: str | None = None,
        reason: str | None = None,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ):
        super().__init__(message, code=code, params=params)
        self.text = text
        self.dice = dice
        self.position_id = position_id
        self.reason = reason


class NotationError(IllegalPlayError):
    """A play's text cannot be parsed as notation at all."""

    default_code = "bad_notation"


class AmbiguousPlayError(IllegalPlayError):
    """A play's text fits several legal plays; ``params["options"]`` lists them (notation, mover's own
    numbering)."""

    default_code = "ambiguous_play"


class UnknownGameError(NardyError):
    """A game name or alias is not one of backgammon, short nardy, long nardy."""

    default_code = "unknown_game"


class InvalidOptionError(NardyError):
    """A rules option name or value is not one docs/rules.md defines."""

    default_code = "invalid_option"


class InvalidDiceError(NardyError):
    """Dice are not two integers in 1..6."""

    default_code = "invalid_dice"


class GameStateError(NardyError):
    """An action is not allowed in the current state of a game or match (out of turn, finished game...)."""

    default_code = "not_allowed_now"


class RecordError(NardyError):
    """A match record (.mat) cannot be read or breaks a rule.

    Attributes ``game`` (1-based game number), ``move`` (move number), ``player`` and
    ``reason`` are set where known; ``partial`` holds the valid part read so far.
    """

    default_code = "bad_record"

    def __init__(
        self,
        message: str,
        *,
        game=None,
        move=None,
        player=None,
        reason=None,
        partial=None,
        code: str | None = None,
        params: dict[str, Any] | None = None,
    ):
        super().__init__(message, code=code, params=params)
        self.game = game
        self.move = move
        self.player = player
        self.reason = reason
        self.partial = partial


#: What loading saved data that passed its checks could still raise: the last safety net of
#: ``Game.from_dict`` / ``Match.from_dict``, which turns them into a :class:`GameStateError`.
UNEXPECTED_LOAD_ERRORS = (
    NardyError,
    KeyError,
    TypeError,
    ValueError,
    IndexError,
    AttributeError,
    OverflowError,
    RecursionError,
)

"""Error types of nardy.

Every error raised for bad input is a subclass of :class:`NardyError`, itself a
subclass of :class:`ValueError`, and its message quotes the offending input.
"""

from __future__ import annotations


class NardyError(ValueError):
    """Base class of all nardy input errors (a ``ValueError``)."""


class InvalidPositionError(NardyError):
    """A position (board arrays, checker counts, game state) breaks a rule of RULES.md."""


class InvalidIdError(NardyError):
    """A Position ID, Match ID or XGID string is malformed or describes an impossible position."""


class IllegalPlayError(NardyError):
    """A play written in notation is not legal (or is ambiguous) for the position and roll.

    Attributes ``text`` (the input), ``dice``, ``position_id`` and ``reason`` are set
    where known.
    """

    def __init__(self, message: str, *, text: str | None = None, dice=None,
                 position_id: str | None = None, reason: str | None = None):
        super().__init__(message)
        self.text = text
        self.dice = dice
        self.position_id = position_id
        self.reason = reason


class NotationError(IllegalPlayError):
    """A play's text cannot be parsed as notation at all."""


class UnknownGameError(NardyError):
    """A game name or alias is not one of backgammon, short nardy, long nardy."""


class InvalidOptionError(NardyError):
    """A rules option name or value is not one RULES.md defines."""


class InvalidDiceError(NardyError):
    """Dice are not two integers in 1..6."""


class GameStateError(NardyError):
    """An action is not allowed in the current state of a game or match (out of turn, finished game...)."""


class RecordError(NardyError):
    """A match record (.mat) cannot be read or breaks a rule.

    Attributes ``game`` (1-based game number), ``move`` (move number), ``player`` and
    ``reason`` are set where known; ``partial`` holds the valid part read so far.
    """

    def __init__(self, message: str, *, game=None, move=None, player=None, reason=None, partial=None):
        super().__init__(message)
        self.game = game
        self.move = move
        self.player = player
        self.reason = reason
        self.partial = partial

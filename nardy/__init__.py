"""nardy: backgammon, short nardy and long nardy — exact rules, fast legal plays, bots, terminal and web play.

Main entry points::

    from nardy import Position, get_rules
    pos = Position.start("long")
    for play in pos.legal_plays((6, 5)):
        print(play, play.result.id())
"""

from . import _compat
from .rules.errors import (
    AmbiguousPlayError,
    GameStateError,
    IllegalPlayError,
    InvalidDiceError,
    InvalidIdError,
    InvalidOptionError,
    InvalidPositionError,
    NardyError,
    NotationError,
    RecordError,
    UnknownGameError,
)
from .rules.notation import Step
from .rules.position import Play, Position, check_dice
from .rules.variants import Rules, get_rules

_compat.install()

__all__ = [
    "Position",
    "Play",
    "Step",
    "Rules",
    "get_rules",
    "check_dice",
    "NardyError",
    "InvalidPositionError",
    "InvalidIdError",
    "IllegalPlayError",
    "NotationError",
    "AmbiguousPlayError",
    "UnknownGameError",
    "InvalidOptionError",
    "InvalidDiceError",
    "GameStateError",
    "RecordError",
]


def __getattr__(name):
    # Heavier parts are imported on first use.
    if name == "Bot":
        from .flow.bot import Bot

        return Bot
    raise AttributeError(f"module 'nardy' has no attribute {name!r}")

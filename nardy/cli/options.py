"""The options several ``nardy`` commands share, defined once: ``--game``, ``--position``, ``--seed``,
``--level``.

Each is a factory returning a click decorator, so that a command keeps its own default and help where it
needs one (``nardy train`` requires ``--game``; ``nardy rollout`` seeds from 0 by default) while the name, the
short flag and the type are the same everywhere. :func:`read_position` turns a ``--position`` value into a
:class:`~nardy.rules.position.Position` the same way for every command that takes one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import click

from ..rules.position import Position
from ..rules.variants import Rules

__all__ = [
    "GAME_HELP",
    "POSITION_HELP",
    "game_option",
    "position_option",
    "seed_option",
    "level_option",
    "read_position",
]

Decorator = Callable[[Any], Any]

#: The help of ``--game`` where a command has no words of its own.
GAME_HELP = "backgammon, short (short nardy) or long (long nardy); aliases accepted."
#: The help of ``--position`` where a command has no words of its own.
POSITION_HELP = (
    "GNU Backgammon Position ID (long nardy: optional :Fxy first-turn suffix) or an XGID=... "
    "(backgammon, short nardy). Default: the starting position."
)


def game_option(help: str = GAME_HELP, *, default: str | None = "backgammon", required: bool = False) -> Decorator:
    """``--game``/``-g``: the game, a name :func:`nardy.rules.variants.get_rules` reads (aliases accepted),
    passed as ``game``. With ``required`` there is no default; else ``default`` (shown in the help unless
    None)."""
    if required:
        return click.option("--game", "-g", required=True, help=help)
    return click.option("--game", "-g", default=default, show_default=default is not None, help=help)


def position_option(help: str = POSITION_HELP) -> Decorator:
    """``--position``/``-p``: a Position ID or an XGID, passed as ``position_id`` (None: not given); read
    it with :func:`read_position`."""
    return click.option("--position", "-p", "position_id", default=None, help=help)


def seed_option(
    help: str | None = None, *, short: bool = False, default: int | None = None, limit: int | None = None
) -> Decorator:
    """``--seed`` (also ``-s`` with ``short``): a whole number, passed as ``seed``; ``limit``: its largest
    value (then it must be >= 0), else any integer; ``default`` shown in the help unless None."""
    names = ("--seed", "-s") if short else ("--seed",)
    kind = int if limit is None else click.IntRange(0, limit)
    return click.option(*names, default=default, show_default=default is not None, type=kind, help=help)


def level_option(help: str, *, default: str, choices: Sequence[str] | None = None) -> Decorator:
    """``--level``/``-l``: a bot or analysis level, passed as ``level``; ``choices``: the levels click accepts
    (else any word, checked by the command)."""
    kind = click.Choice(list(choices)) if choices is not None else None
    return click.option("--level", "-l", default=default, show_default=True, type=kind, help=help)


def read_position(position_id: str | None, rules: Rules) -> Position:
    """The position a ``--position`` value names in ``rules``' game: an ``XGID=...``, a Position ID, or the
    starting position when None.

    Raises:
        click.BadParameter: an empty value.
        nardy.rules.errors.NardyError: a value that is not a position of the game (the ``nardy`` group
            prints it and exits with status 2).
    """
    if position_id is not None and not position_id.strip():
        raise click.BadParameter("empty Position ID", param_hint="--position")
    if position_id and position_id.strip().upper().startswith("XGID="):
        return Position.from_xgid(position_id.strip(), rules)
    return Position.from_id(position_id, rules) if position_id else Position.start(rules)

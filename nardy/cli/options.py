"""The options several ``nardy`` commands share, defined once: ``--game``, ``--position``, ``--seed``,
``--level``.

Each is a factory returning a click decorator, so that a command keeps its own default and help where it
needs one (``nardy train`` requires ``--game``; ``nardy rollout`` seeds from 0 by default) while the name, the
short flag and the type are the same everywhere. :func:`read_position` turns a ``--position`` value into a
:class:`~nardy.rules.position.Position` the same way for every command that takes one;
:func:`read_position_arg` also keeps the dice and the XG text it came with.

``--position @FILE`` reads the position from a file (``@-``: standard input): a Position ID or XGID alone,
eXtreme Gammon's binary position file (``.xgp``; an ``.xg`` file gives its last decision), or its text
export of a backgammon position (:mod:`nardy.records.xgtext`: a position copied
from XG or pasted from a forum post). Only a value starting with ``@`` is a file: a Position ID such as
``4HPwATDgc/ABMA`` could also be a relative path, so a bare path is never guessed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import click

from ..records.xgtext import MAX_TEXT, XGPosition, parse_xg_text
from ..rules.errors import RecordError
from ..rules.ids import parse_xgid
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
    "read_position_arg",
    "PositionArg",
]

Decorator = Callable[[Any], Any]

#: The help of ``--game`` where a command has no words of its own.
GAME_HELP = "backgammon, short (short nardy) or long (long nardy); aliases accepted."
#: The help of ``--position`` where a command has no words of its own.
POSITION_HELP = (
    "GNU Backgammon Position ID (long nardy: optional :Fxy first-turn suffix), an XGID=... "
    "(backgammon, short nardy), or @FILE (@- standard input): a file holding one of those, eXtreme "
    "Gammon's text export of a backgammon position, or its .xgp position file. Default: the starting position."
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


@dataclass(frozen=True)
class PositionArg:
    """What a ``--position`` value gave: the ``position``, the ``dice`` its XGID or XG text holds (None
    when none), and ``xg``, the :class:`~nardy.records.xgtext.XGPosition` when it was XG's text export."""

    position: Position
    dice: tuple[int, int] | None = None
    xg: XGPosition | None = None


def _file_text(value: str) -> str:
    """The text of ``@FILE`` (``@-``: standard input), at most :data:`~nardy.records.xgtext.MAX_TEXT`
    characters read (a longer file is refused by the reader)."""
    path = value[1:]
    if not path:
        raise click.BadParameter("@ names no file (use @FILE or @- for standard input)", param_hint="--position")
    if path == "-":
        return sys.stdin.read(MAX_TEXT + 1)
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as f:
            return f.read(MAX_TEXT + 1)
    except OSError as e:
        raise click.BadParameter(f"{path}: {e.strerror or e}", param_hint="--position") from None


def _xgp_file(path: str):
    """The position of eXtreme Gammon's binary position file (``.xgp``, or an ``.xg`` file's last decision)
    at ``path`` when the file is one (it starts with XG's magic), else None (a text file, standard input).

    Raises:
        nardy.rules.errors.RecordError: an XG file that cannot be read (:func:`nardy.records.xg.parse_xgp`).
    """
    from ..records.xg import parse_xgp
    from ..records.xgfile import looks_like_xg

    if not path or path == "-":
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(4)
            if not looks_like_xg(head):
                return None
            return parse_xgp(head + f.read(XGP_LIMIT))
    except OSError:
        return None  # said by the text reader, with the path


#: The most bytes of an ``.xgp``/``.xg`` file ``--position @FILE`` reads (the web's bound for ``.xg`` files).
XGP_LIMIT = 2 * 1024 * 1024


def read_position_arg(position_id: str | None, rules: Rules) -> PositionArg:
    """A ``--position`` value in ``rules``' game (see the module docstring): a Position ID, an ``XGID=...``,
    ``@FILE`` (a file with one of those, or XG's text export of a backgammon position), or the starting
    position when None.

    Raises:
        click.BadParameter: an empty value, a file that cannot be read.
        nardy.rules.errors.NardyError: a value that is not a position of the game, XG text for another game
            (the ``nardy`` group prints it and exits with status 2).
    """
    if position_id is not None and not position_id.strip():
        raise click.BadParameter("empty Position ID", param_hint="--position")
    value = position_id.strip() if position_id else None
    if value and value.startswith("@"):
        xgp = _xgp_file(value[1:])
        if xgp is not None:
            if rules.name != "backgammon":
                raise RecordError(f"{value}: an .xgp file is a backgammon position, not {rules.name}")
            return PositionArg(xgp.position, xgp.dice, xgp)
        text = _file_text(value)
        words = text.split()
        if len(words) == 1 and not words[0].upper().startswith("XGID="):
            value = words[0]  # a Position ID alone in a file
        elif len(words) == 1 and rules.name != "backgammon":
            value = words[0]  # a short nardy XGID
        else:
            if rules.name != "backgammon":
                raise RecordError(f"{value}: XG's text export is of a backgammon position, not {rules.name}")
            xg = parse_xg_text(text)
            return PositionArg(xg.position, xg.dice, xg)
    if value and value.upper().startswith("XGID="):
        value = "XGID=" + value[5:]
        pos = Position.from_xgid(value, rules)
        dice = parse_xgid(value).dice
        xg = None
        if rules.name == "backgammon":
            try:
                xg = parse_xg_text(value)  # its cube, score and match for --format xg
            except RecordError:
                xg = None  # a double waiting for an answer: the position alone
        return PositionArg(pos, dice if dice != (0, 0) else None, xg)
    return PositionArg(Position.from_id(value, rules) if value else Position.start(rules))


def read_position(position_id: str | None, rules: Rules) -> Position:
    """The position a ``--position`` value names in ``rules``' game (:func:`read_position_arg`'s
    ``position``): an ``XGID=...``, a Position ID, ``@FILE``, or the starting position when None.

    Raises:
        click.BadParameter: an empty value, a file that cannot be read.
        nardy.rules.errors.NardyError: a value that is not a position of the game (the ``nardy`` group
            prints it and exits with status 2).
    """
    return read_position_arg(position_id, rules).position

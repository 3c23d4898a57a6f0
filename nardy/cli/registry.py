"""The sub-commands of ``nardy``: each listed once here, loaded when it is used.

:data:`COMMANDS` names every sub-command and the module attribute that holds its :class:`click.Command`. The
``nardy`` group (:mod:`nardy.cli`) imports a command's module only when that command runs, or when the list
of commands is shown (``nardy --help``), so that ``nardy play`` starts without loading the web server.

A command whose module cannot be imported is an error (:class:`CommandLoadError`), never a missing command: a
broken install or a mistake in a module shows up at once, with the import's own error chained.
"""

from __future__ import annotations

import importlib

import click

__all__ = ["COMMANDS", "CommandLoadError", "load_command"]

#: Sub-command name -> (module, attribute holding its click command), in the order ``nardy --help`` sorts
#: them (by name).
COMMANDS: dict[str, tuple[str, str]] = {
    "analyse": ("nardy.cli.analyse", "analyse_command"),
    "bearoff": ("nardy.cli.bearoff", "bearoff"),
    "bot-client": ("nardy.cli.botclient", "bot_client"),
    "convert": ("nardy.cli.replay", "convert"),
    "diagram": ("nardy.cli.diagram", "diagram"),
    "external": ("nardy.cli.external", "external"),
    "moves": ("nardy.cli.moves", "moves"),
    "play": ("nardy.cli.play", "play"),
    "replay": ("nardy.cli.replay", "replay"),
    "rollout": ("nardy.cli.rollout", "rollout_command"),
    "samples": ("nardy.cli.replay", "samples"),
    "serve": ("nardy.web.server", "serve"),
    "teach": ("nardy.cli.teach", "teach"),
    "train": ("nardy.cli.train", "train"),
    "verify-dice": ("nardy.cli.verify", "verify_dice"),
}


class CommandLoadError(RuntimeError):
    """A listed sub-command could not be loaded: its module failed to import, or it lacks the attribute
    :data:`COMMANDS` names (the cause is chained as ``__cause__``)."""


def load_command(name: str) -> click.Command:
    """The click command ``name`` of :data:`COMMANDS`, its module imported now.

    Raises:
        KeyError: ``name`` is not a sub-command of ``nardy``.
        CommandLoadError: its module cannot be imported (any exception while importing it), or the
            attribute is missing or not a click command.
    """
    modname, attr = COMMANDS[name]
    try:
        module = importlib.import_module(modname)
    except Exception as e:
        raise CommandLoadError(f"nardy {name}: cannot import {modname}: {e}") from e
    cmd = getattr(module, attr, None)
    if not isinstance(cmd, click.Command):
        raise CommandLoadError(f"nardy {name}: {modname}.{attr} is not a click command")
    return cmd

"""The ``nardy`` command line (click): the group :func:`main` and its sub-commands.

Every sub-command is listed once in :data:`nardy.cli.registry.COMMANDS` and lives in a module of this package
(``nardy serve`` in the web server's, :mod:`nardy.web.server`); the group loads a command's module when it is
used, and a module that fails to import is an error (:class:`~nardy.cli.registry.CommandLoadError`), never a
missing command. The options several commands share (``--game``, ``--position``, ``--seed``, ``--level``) are
defined once in :mod:`nardy.cli.options`.
"""

from __future__ import annotations

import sys

import click

from ..rules.errors import NardyError
from .registry import COMMANDS, load_command

__all__ = ["main"]


class _Group(click.Group):
    """Loads the sub-commands of :data:`~nardy.cli.registry.COMMANDS` on demand, and turns nardy's input errors
    into a clear message and exit status 2 instead of a traceback."""

    def list_commands(self, ctx):
        return sorted(set(super().list_commands(ctx)) | set(COMMANDS))

    def get_command(self, ctx, name):
        cmd = super().get_command(ctx, name)
        if cmd is None and name in COMMANDS:
            cmd = load_command(name)
        return cmd

    def invoke(self, ctx):
        from ..texts.printable import terminal_text  # here, not at the top: start-up time of every command

        try:
            return super().invoke(ctx)
        except NardyError as e:
            click.echo(terminal_text(f"error: {e}"), err=True)
            sys.exit(2)
        except click.ClickException as e:  # its message may quote a record or a file's name: printable only
            e.message = terminal_text(e.message, lines=True)
            raise


@click.group(cls=_Group)
@click.version_option(package_name="nardy")
def main():
    """nardy: backgammon, short nardy and long nardy."""


if __name__ == "__main__":
    main()

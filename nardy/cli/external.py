"""``nardy external``: nardy's computer player for GNU Backgammon over its external-player protocol
(:mod:`nardy.external`)."""

from __future__ import annotations

import sys

import click

from ..engine.bot import BOT_LEVELS
from ..external import serve
from .options import level_option, seed_option

__all__ = ["external"]


@click.command("external")
@click.option("--port", "-p", type=click.IntRange(0, 65535), required=True, help="TCP port to listen on.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to bind (loopback by default).")
@level_option("The computer player's level (random ... champion, as nardy play's bot:LEVEL).", default="expert")
@click.option(
    "--think", type=click.FloatRange(min=0.1), default=20.0, show_default=True, help="Seconds per decision at most."
)
@seed_option("Seed of the bot (its noise at the weak levels).")
@click.option("--max-clients", type=click.IntRange(1, 64), default=4, show_default=True)
@click.option(
    "--dialect",
    type=click.Choice(["gnubg", "fibs"]),
    default="gnubg",
    show_default=True,
    help="gnubg: GNU Backgammon's lines (names and scores of move requests swapped); fibs: the FIBS protocol's.",
)
@click.option("--verbose", "-v", is_flag=True, help="Print each board and answer to standard error.")
def external(port, host, level, think, seed, max_clients, dialect, verbose):
    """Play for GNU Backgammon (or any FIBS-board client) over its external-player protocol.

    Start this, then in GNU Backgammon: set player 1 external localhost:PORT, and start a match (new
    match 5). GNU Backgammon sends each board of its player 1's turns; nardy answers with the play, roll or
    double, take or drop.
    """
    if level not in BOT_LEVELS:
        raise click.BadParameter(f"{level!r}: expected one of {', '.join(BOT_LEVELS)}", param_hint="--level")

    def ready(srv):
        click.echo(f"nardy external: {level} player listening on {host}:{srv.server_address[1]}", err=True)

    try:
        serve(host, port, level, think, seed, max_clients, verbose=verbose, ready=ready, dialect=dialect)
    except OSError as e:
        click.echo(f"error: cannot listen on {host}:{port}: {e.strerror or e}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        pass

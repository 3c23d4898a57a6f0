"""``nardy bot-client``: play on a nardy server as a bot account (:mod:`nardy.client`, docs/bots.md "Write a bot
for a nardy server")."""

from __future__ import annotations

import logging
import sys

import click

from ..engine.bot import BOT_LEVELS
from .options import game_option, level_option, seed_option

__all__ = ["bot_client"]


@click.command("bot-client")
@click.option("--server", required=True, help="The server's URL, e.g. https://nardy.example.org.")
@click.option(
    "--token", envvar="NARDY_TOKEN", required=True, help="An API token of the bot's account (or $NARDY_TOKEN)."
)
@level_option("nardy's engine level (random ... champion), as nardy play's bot:LEVEL.", default="expert")
@game_option("The game it accepts challenges of and challenges to (backgammon, short, long).")
@click.option(
    "--accept",
    multiple=True,
    metavar="FILTER",
    help="Accept challenges matching all filters: backgammon/short/long, rated/unrated, max-length=N, from=NAME, "
    "any (repeat; default: challenges of --game). Others made to the bot are declined.",
)
@click.option(
    "--external",
    metavar="HOST:PORT",
    default=None,
    help="Let a GNU Backgammon external player decide (gnubg -t, then: external HOST:PORT); nardy's engine "
    "answers resignations.",
)
@click.option("--challenge", "opponent", metavar="NAME", default=None, help="Challenge this player once started.")
@click.option("--length", type=click.IntRange(1, 25), default=1, show_default=True, help="--challenge's length.")
@click.option("--rated/--unrated", default=True, show_default=True, help="--challenge's match is rated.")
@click.option(
    "--clock",
    type=click.Choice(["none", "blitz", "rapid", "classic"]),
    default="blitz",
    show_default=True,
    help="--challenge's clock (a rated match has one).",
)
@click.option("--matches", type=click.IntRange(min=1), default=None, help="Stop after this many matches.")
@click.option(
    "--think", type=click.FloatRange(min=0.1), default=20.0, show_default=True, help="Seconds per play at most."
)
@seed_option("Seed of the engine (its noise at the weak levels).")
@click.option("--verbose", "-v", is_flag=True, help="Log each event and action to standard error.")
def bot_client(
    server, token, level, game, accept, external, opponent, length, rated, clock, matches, think, seed, verbose
):
    """Play on a nardy server as a bot: accept challenges, play each game, reconnect after drops.

    Make a bot account and a token first (docs/bots.md), then e.g.:

      nardy bot-client --server http://localhost:8000 --token nardy_... --level expert --accept rated
    """
    from ..client.bot import BotRunner, parse_accept
    from ..client.http import Client, ClientError
    from ..client.players import EnginePlayer

    if level not in BOT_LEVELS:
        raise click.BadParameter(f"{level!r}: expected one of {', '.join(BOT_LEVELS)}", param_hint="--level")
    from ..rules.errors import NardyError
    from ..rules.variants import get_rules

    try:
        game = get_rules(game).name
    except NardyError as e:
        raise click.BadParameter(str(e), param_hint="--game") from None
    try:
        accepts = parse_accept(accept, game)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--accept") from None
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(asctime)s %(message)s", stream=sys.stderr
    )
    engine = EnginePlayer(level, seed=seed, think=think)
    player = engine
    if external:
        from ..client.external import ExternalPlayer, parse_address

        try:
            host, port = parse_address(external)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--external") from None
        player = ExternalPlayer(host, port, timeout=max(60.0, think * 3), fallback=engine)
    client = Client(server, token)
    try:
        me = client.me()
        name = (me.get("user") or me).get("name", "?") if isinstance(me, dict) else "?"
        click.echo(f"nardy bot-client: playing as {name} on {server}", err=True)
        if opponent:
            clock_value = None if clock == "none" else clock
            ch = client.challenge(opponent, game=game, length=length, clock=clock_value or "none", rated=rated)
            click.echo(f"nardy bot-client: challenged {opponent} ({ch.get('id')})", err=True)
    except ClientError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    except OSError as e:
        click.echo(f"error: cannot reach {server}: {e}", err=True)
        sys.exit(1)
    runner = BotRunner(client, player, accepts, matches=matches)
    try:
        runner.run()
    except KeyboardInterrupt:
        runner.stop()
    finally:
        client.close()
    if runner.errors:
        click.echo("nardy bot-client: " + "; ".join(runner.errors[-5:]), err=True)
        sys.exit(1)

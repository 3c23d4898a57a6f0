"""``nardy play``: the command and its options (the game in the terminal is :mod:`nardy.terminal.play`'s
:class:`~nardy.terminal.play.TerminalGame`)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import click

from ..flow.match import Match
from ..rules.dice import DiceSource
from ..rules.errors import NardyError
from ..rules.numbering import SCHEMES, Numbering
from ..rules.variants import get_rules
from ..terminal.play import TerminalGame
from ..terminal.players import PlayerSpec, parse_player
from ..terminal.render import Output
from ..terminal.saving import load_saved_game
from ..texts.i18n import LANGS, detect_lang
from ..texts.printable import terminal_text
from .options import GAME_HELP, game_option, seed_option

__all__ = ["play"]


def _player_option(ctx, param, value):
    if value is None:
        return None
    try:
        return parse_player(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


@click.command("play")
@game_option(GAME_HELP + " Default: backgammon.", default=None)
@click.option(
    "--match",
    "-m",
    "length",
    type=click.IntRange(min=1),
    default=None,
    help="Play a match to N points (default: one game).",
)
@click.option("--white", "-w", callback=_player_option, default=None, help="human or bot[:LEVEL] (default: human).")
@click.option(
    "--black",
    "-b",
    callback=_player_option,
    default=None,
    help="human or bot[:LEVEL] (default: bot at the strongest level).",
)
@seed_option("Seed for the dice and the bots (repeatable games).")
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Language of the texts (default: Russian when the system locale is Russian).",
)
@click.option(
    "--numbering",
    type=click.Choice(SCHEMES),
    default=None,
    help="Point numbers: own (each player's, default), absolute (long nardy) or traditional (backgammon, short nardy).",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the match record to this file (Jellyfish .mat; GNU Backgammon's SGF when it ends in .sgf).",
)
@click.option(
    "--resume",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Continue a game saved with 'save FILE' (or a .mat or .sgf record).",
)
@click.option(
    "--auto",
    is_flag=True,
    help="Play without a terminal (human sides are played by the computer), print the record and exit.",
)
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, help="Seconds to wait after each computer play.")
@click.option("--cube/--no-cube", default=None, help="Use the doubling cube (default: backgammon yes, nardy no).")
@click.option(
    "--option",
    "-o",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A rules option (docs/rules.md), e.g. -o last-roll=half or -o opening=reroll.",
)
@click.option("--show-eval", is_flag=True, help="Show the computer's estimate of each of its plays.")
@click.option("--hint-level", default=None, help="Bot level for hint and eval (default: grandmaster, 2-ply).")
@click.option(
    "--tutor",
    is_flag=True,
    help="Warn before a play that is an error, with the better play, and show the analysis after each game.",
)
@click.option(
    "--color",
    "colour",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour in the terminal.",
)
def play(
    game,
    length,
    white,
    black,
    seed,
    lang,
    numbering,
    record,
    resume,
    auto,
    delay,
    cube,
    options,
    show_eval,
    hint_level,
    colour,
    tutor=False,
):
    """Play backgammon, short nardy or long nardy in the terminal, against the computer or another
    person at the same keyboard. Type 'help' during the game for the commands."""
    from ..engine.bot import BOT_LEVELS, STRONGEST_LEVEL  # here: the engine's kernels load slowly (start-up)

    if hint_level is not None and hint_level not in BOT_LEVELS:
        raise click.BadParameter(f"expected one of {', '.join(BOT_LEVELS)}", param_hint="--hint-level")
    data = {}
    if resume:
        if game or length or options or cube is not None:
            raise click.UsageError(
                "--resume continues a saved game: --game, --match, --cube and --option come from the file"
            )
        match, data = load_saved_game(resume, seed)
        saved_players = [parse_player(p) for p in data.get("players", _players_from_names(match.players))]
        white = white or saved_players[0]
        black = black or saved_players[1]
        single = data.get("single", not match.length)
        lang = lang or data.get("lang")
        numbering = numbering or data.get("numbering")
        record = record or data.get("record")
        hint_level = hint_level or data.get("hint_level")
        if seed is None:
            seed = data.get("seed")
        log = data.get("log")
    else:
        opts = {}
        for item in options:
            k, sep, v = item.partition("=")
            if not sep:
                raise click.BadParameter(f"{item!r}: expected KEY=VALUE", param_hint="--option")
            opts[k.strip()] = v.strip()
        try:
            rules = get_rules(game or "backgammon", **opts)
        except NardyError as e:
            raise click.BadParameter(str(e), param_hint="--game/--option") from None
        white = white or PlayerSpec("human")
        black = black or PlayerSpec("bot", STRONGEST_LEVEL)
        single = length is None
        match = None
        log = None
    if auto:
        white = white if not white.human else PlayerSpec("bot", STRONGEST_LEVEL)
        black = black if not black.human else PlayerSpec("bot", STRONGEST_LEVEL)
    lang = lang or detect_lang()
    game_name = match.rules.name if match is not None else rules.name
    numbering = numbering or "own"
    try:
        Numbering(numbering, game_name)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--numbering") from None
    names = _player_names(white, black)
    if match is None:
        match = Match(rules, length=length or 0, dice=DiceSource(seed), cube=cube, players=names)
    out = Output(colour, quiet=auto)

    def sitting(match, record, seed, log):
        return TerminalGame(
            match,
            (white, black),
            single=single,
            lang=lang,
            numbering=numbering,
            out=out,
            record=record,
            delay=delay,
            seed=seed,
            show_eval=show_eval,
            hint_level=hint_level,
            log=log,
            tutor=tutor,
        )

    terminal_game = sitting(match, record, seed, log)
    if not auto:
        t = terminal_game.t
        out.line(t("welcome", game=t.game_title(game_name)), "bold")
        if resume:
            terminal_game.render.say("resumed", path=resume)
        from ..terminal.warmup import prepare  # here: it loads the engine (start-up time)

        try:
            prepare(game_name, [s.level for s in (white, black) if not s.human] + [terminal_game.hint_level], out, t)
        except KeyboardInterrupt:
            out.line("")
            terminal_game.render.say("bye")
            sys.exit(130)
    status = terminal_game.run()
    n = 1
    while terminal_game.again and status == 0:  # another game (or match) with the same settings
        n += 1
        nseed = None if seed is None else seed + n - 1
        last = terminal_game.match
        match = Match(
            last.rules,
            length=last.length,
            dice=DiceSource(nseed),
            cube=last.cube,
            players=last.players,
            jacoby=last.jacoby,
            beavers=last.beavers,
            cube_limit=last.cube_limit,
            crawford=last.crawford_rule,
        )
        terminal_game = sitting(match, _numbered(record, n), nseed, None)
        out.line("")
        terminal_game.render.say("new_game" if single else "new_match", n=n, style="bold")
        status = terminal_game.run()
    if auto:
        from ..records.mat import write_mat  # here: only --auto prints a record (start-up time)

        text = write_mat(match)  # as written; printable when it goes to a terminal
        click.echo(terminal_text(text, lines=True) if sys.stdout.isatty() else text, nl=False)
    sys.exit(status)


def _numbered(record: str | None, n: int) -> str | None:
    """The record file of the ``n``-th game or match of a sitting: ``match.mat``, ``match-2.mat``, ..."""
    if not record:
        return None
    p = Path(record)
    return str(p.with_name(f"{p.stem}-{n}{p.suffix}"))


def _players_from_names(names) -> list:
    """Player specs guessed from a record's names: ``nardy-LEVEL`` (as written by this command) is
    the computer at that level, any other name a person."""
    from ..engine.bot import BOT_LEVELS  # here: the engine's kernels load slowly (start-up)

    out = []
    for n in names:
        m = re.match(r"nardy-([a-z]+)", str(n))
        out.append(f"bot:{m.group(1)}" if m and m.group(1) in BOT_LEVELS else "human")
    return out


def _player_names(white: PlayerSpec, black: PlayerSpec) -> tuple:
    """Record names without spaces: ``White``/``Black`` for people, ``nardy-LEVEL`` for the computer."""

    def name(spec, colour):
        return colour if spec.human else f"nardy-{spec.level}"

    a, b = name(white, "White"), name(black, "Black")
    if a == b:
        a, b = a + "-white", b + "-black"
    return (a, b)

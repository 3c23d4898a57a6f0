"""``nardy moves``: every legal play of a position and roll, with the resulting Position IDs; with
``--format xg`` the best plays analysed, in eXtreme Gammon's text layout (backgammon)."""

from __future__ import annotations

import json

import click

from ..rules.errors import GameStateError, InvalidDiceError, InvalidOptionError, NardyError, NotationError
from ..rules.numbering import NUMBERINGS, games_with
from ..rules.position import check_dice
from ..rules.variants import get_rules
from .options import game_option, level_option, position_option, read_position_arg

__all__ = ["moves"]


def _parse_dice(ctx, param, value):
    if value is None:
        return None
    try:
        return check_dice(value)
    except NardyError as e:
        raise click.BadParameter(str(e)) from None


_DIE = frozenset("0123456789")


class _DiceCommand(click.Command):
    """A command whose ``--dice`` takes the roll as one word (``31``, ``3-1``, ``3,1``) or as two
    (``--dice 3 1``): two one-digit words after the option are joined into one word before click parses."""

    def parse_args(self, ctx, args):
        args = list(args)
        for i, a in enumerate(args[:-2]):
            if a in ("--dice", "-d") and args[i + 1] in _DIE and args[i + 2] in _DIE:
                args[i + 1 : i + 3] = [args[i + 1] + args[i + 2]]
                break
        return super().parse_args(ctx, args)


@click.command("moves", cls=_DiceCommand)
@game_option()
@position_option()
@click.option(
    "--dice",
    "-d",
    default=None,
    callback=_parse_dice,
    help="The roll: --dice 3 1, --dice 31 or --dice 3-1. Default: the dice of the --position's XGID or XG text.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text (same as --format json).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "xg"]),
    default="text",
    show_default=True,
    help="text: one play a line with its resulting Position ID; json; xg: the best plays analysed, in "
    "eXtreme Gammon's text export layout (backgammon; XG and forums read it).",
)
@level_option("With --format xg: the bot level whose search ranks the plays.", default="grandmaster")
@click.option(
    "-n", "count", default=5, show_default=True, type=click.IntRange(1, 50), help="With --format xg: plays listed."
)
@click.option(
    "--numbering",
    type=click.Choice(["own", "absolute", "traditional"]),
    default="own",
    show_default=True,
    help="Point numbers: the mover's own, long nardy's absolute, or the traditional numbering "
    "(short nardy, backgammon).",
)
@click.option(
    "--side",
    type=click.Choice(["white", "black"]),
    default="white",
    show_default=True,
    help="With --numbering absolute or traditional: which side is on roll.",
)
def moves(game, position_id, dice, as_json, fmt, level, count, numbering, side):
    """Print every legal play for a position and roll, with the resulting Position ID.

    The resulting position is from the mover's view, sides not swapped (as GNU Backgammon reports).
    With --json each play's steps are {"from", "to", "die", "hit", "from_label", "to_label"} in the
    numbering asked for, the same shape as the HTTP API's (/api/plays).

    With --format xg (backgammon) the best plays are ranked by the bot at --level and written as eXtreme
    Gammon's text export: the XGID, the board, pip counts, cube, the roll, and each play with its equity
    (cubeless money equity, nardy's) and winning chances. The cube, score and names come from the
    --position's XGID or XG text (--position @FILE reads XG's text export).
    """
    rules = get_rules(game)
    if numbering not in NUMBERINGS[rules.name]:
        owners = " and ".join({"short": "short nardy", "long": "long nardy"}.get(g, g) for g in games_with(numbering))
        raise NotationError(
            f"--numbering {numbering} is for {owners} only; {rules.name} has {', '.join(NUMBERINGS[rules.name])}"
        )
    arg = read_position_arg(position_id, rules)
    pos = arg.position
    if dice is None:
        if arg.dice is None:
            raise InvalidDiceError("--dice is needed: the position gives no roll (--dice 3 1)")
        dice = arg.dice
    if pos.is_game_over():
        raise GameStateError(f"position {pos.id()} is finished: a side has borne off all 15 checkers")
    if as_json:
        fmt = "json"
    if fmt == "xg":
        click.echo(_xg_text(rules, arg, dice, level, count), nl=False)
        return
    plays = pos.legal_plays(dice)
    if fmt == "json":
        out = {
            "game": rules.name,
            "position": pos.id(),
            "dice": list(dice),
            "plays": [
                {
                    "play": p.notation(numbering, side) if numbering != "own" else str(p),
                    "steps": p.step_dicts(numbering, side),
                    "position": p.result.id(),
                }
                for p in plays
            ],
        }
        click.echo(json.dumps(out, indent=2))
        return
    for p in plays:
        text = p.notation(numbering, side) if numbering != "own" else str(p)
        click.echo(f"{text or '(no play)':<28} {p.result.id()}")


def _xg_text(rules, arg, dice, level: str, count: int) -> str:
    """The ``count`` best plays of ``arg``'s position and ``dice`` at ``level``, in XG's text layout."""
    from dataclasses import replace

    from ..flow.bot import BOT_LEVELS, Bot
    from ..records.xgtext import XGPosition, write_xg_text, xg_play_from_hint

    if rules.name != "backgammon":
        raise InvalidOptionError(f"--format xg: XG's text layout is for backgammon, not {rules.name}")
    if level not in BOT_LEVELS:
        raise InvalidOptionError(f"--level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
    hints = Bot(rules, level=level, seed=0).hints(arg.position, dice, n=count)
    plays = tuple(xg_play_from_hint(h) for h in hints)
    base = arg.xg if arg.xg is not None else XGPosition(arg.position)
    return write_xg_text(replace(base, dice=tuple(dice), plays=plays, cube_analysis=None))

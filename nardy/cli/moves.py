"""``nardy moves``: every legal play of a position and roll, with the resulting Position IDs."""

from __future__ import annotations

import json

import click

from ..rules.errors import GameStateError, NardyError, NotationError
from ..rules.numbering import NUMBERINGS, games_with
from ..rules.position import check_dice
from ..rules.variants import get_rules
from .options import game_option, position_option, read_position

__all__ = ["moves"]


def _parse_dice(ctx, param, value):
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
    "--dice", "-d", required=True, callback=_parse_dice, help="The roll: --dice 3 1, --dice 31 or --dice 3-1."
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
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
def moves(game, position_id, dice, as_json, numbering, side):
    """Print every legal play for a position and roll, with the resulting Position ID.

    The resulting position is from the mover's view, sides not swapped (as GNU Backgammon reports).
    With --json each play's steps are {"from", "to", "die", "hit", "from_label", "to_label"} in the
    numbering asked for, the same shape as the HTTP API's (/api/plays).
    """
    rules = get_rules(game)
    if numbering not in NUMBERINGS[rules.name]:
        owners = " and ".join({"short": "short nardy", "long": "long nardy"}.get(g, g) for g in games_with(numbering))
        raise NotationError(
            f"--numbering {numbering} is for {owners} only; {rules.name} has {', '.join(NUMBERINGS[rules.name])}"
        )
    pos = read_position(position_id, rules)
    if pos.is_game_over():
        raise GameStateError(f"position {pos.id()} is finished: a side has borne off all 15 checkers")
    plays = pos.legal_plays(dice)
    if as_json:
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

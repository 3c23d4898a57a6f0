"""``nardy diagram``: a board diagram of a position as SVG or PNG (issue 47; :mod:`nardy.rules.diagram`)."""

from __future__ import annotations

import sys
from dataclasses import replace

import click

from ..rules.diagram import (
    PNG_SCALES,
    THEMES,
    Diagram,
    default_cube,
    diagram_png,
    diagram_svg,
    with_options,
    xgid_fields,
)
from ..rules.errors import InvalidOptionError
from ..rules.ids import parse_xgid
from ..rules.numbering import BLACK, NUMBERINGS, SCHEMES, WHITE
from ..rules.variants import get_rules
from .options import game_option, read_position_arg

__all__ = ["diagram"]


@click.command("diagram")
@click.argument("position")  # a Position ID, an XGID, or @FILE (XG text, an .xgp file)
@game_option()
@click.option("--dice", "-d", default=None, help="The roll to play, drawn on the board: 6-4, 64 or 6,4.")
@click.option(
    "--numbering",
    type=click.Choice(list(SCHEMES)),
    default="own",
    show_default=True,
    help="Point labels: the mover's own numbers, long nardy's absolute or the traditional numbering "
    "(backgammon, short nardy).",
)
@click.option(
    "--side",
    type=click.Choice(["white", "black"]),
    default="white",
    show_default=True,
    help="With --numbering absolute or traditional: which side is on roll.",
)
@click.option("--svg", "fmt", flag_value="svg", default=True, help="Write SVG (the default).")
@click.option("--png", "fmt", flag_value="png", help="Write PNG.")
@click.option("--theme", type=click.Choice(list(THEMES)), default="light", show_default=True, help="Colours.")
@click.option(
    "--scale",
    type=click.FloatRange(*PNG_SCALES),
    default=1.0,
    show_default=True,
    help="PNG only: pixels per unit (1: 790 px wide).",
)
@click.option("--cube", type=click.IntRange(0, 4096), default=None, help="Cube value; 0 draws no cube.")
@click.option("--owner", default=None, help="Cube owner: centre, mover or opponent.")
@click.option("--score", default=None, help="Score A-B, the mover's points first.")
@click.option("--length", type=click.IntRange(0, 999), default=None, help="Match length (0: money play).")
@click.option("--crawford/--no-crawford", default=None, help="The Crawford game (shown with the score).")
@click.option("--names", default=None, help="Names A,B, the mover's first (each at most 40 characters).")
@click.option("--title", default="", help="A caption above the board.")
@click.option(
    "--lang",
    type=click.Choice(["en", "ru"]),
    default=None,
    help="Language of the words drawn (pips, match to, Crawford); default: Russian when the system locale is.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None, help="Write to FILE.")
def diagram(
    position,
    game,
    dice,
    numbering,
    side,
    fmt,
    theme,
    scale,
    cube,
    owner,
    score,
    length,
    crawford,
    names,
    title,
    lang,
    output,
):
    """Draw POSITION (a Position ID, or an XGID for backgammon and short nardy) as an SVG or PNG diagram.

    The board is drawn from the view of the side to move (its checkers light, at the bottom), with the
    cube, score, pip counts, dice and names. An XGID's dice, cube, owner, score, match length and Crawford
    flag are drawn unless an option gives them. SVG goes to standard output unless -o FILE; PNG needs
    -o FILE or an output that is not a terminal.
    """
    rules = get_rules(game)
    if numbering not in NUMBERINGS[rules.name]:
        raise InvalidOptionError(
            f"--numbering {numbering} is not available for {rules.name}: expected one of "
            f"{', '.join(NUMBERINGS[rules.name])}"
        )
    arg = read_position_arg(position, rules)
    pos = arg.position
    d = Diagram(pos, cube=default_cube(pos), numbering=numbering, side=BLACK if side == "black" else WHITE)
    text = position.strip()
    if text.upper().startswith("XGID="):
        d = replace(d, **xgid_fields(parse_xgid(text), pos))
    elif arg.xg is not None:  # @FILE: XG's text export or an .xgp file: its roll, cube, score and names
        xp = arg.xg
        named = xp.names if xp.names != ("Player 1", "Player 2") else d.names
        d = replace(d, dice=xp.dice, cube=xp.cube, cube_owner=xp.owner, score=xp.score, length=xp.length)
        d = replace(d, crawford=xp.crawford, names=named)
    elif arg.dice is not None:
        d = replace(d, dice=arg.dice)
    d = with_options(
        d, dice=dice, cube=cube, owner=owner, score=score, length=length, crawford=crawford, names=names, title=title
    )
    from ..texts.catalogue import diagram_words
    from ..texts.i18n import detect_lang

    d = replace(d, words=diagram_words(lang or detect_lang()))
    if fmt == "png":
        data = diagram_png(d, theme, scale)
        if output:
            with open(output, "wb") as f:
                f.write(data)
            return
        stream = sys.stdout.buffer
        if stream.isatty():
            raise click.UsageError("a PNG is not written to a terminal: give -o FILE or redirect the output")
        stream.write(data)
        stream.flush()
        return
    svg = diagram_svg(d, theme)
    if output:
        with open(output, "w", encoding="utf-8") as f:
            f.write(svg + "\n")
        return
    click.echo(svg)
    sys.stdout.flush()

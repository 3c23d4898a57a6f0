"""The board drawing of ``nardy play``: text lines made of styled segments.

The board is drawn from one player's view (the *viewer*): the viewer's points 13-24 along the top
from left to right, 12-1 along the bottom from left to right, home at the bottom right, as GNU
Backgammon draws it. In long nardy this puts both heads in their places (the viewer's head at the
top right, the opponent's head, the viewer's 12, at the bottom left) and both sides move the same
way round, anticlockwise: along the top from right to left, then along the bottom from left to
right (seed 002). Labels come from a :class:`~nardy.rules.numbering.Numbering`.

White's checkers are ``O``, Black's ``X``; stacks of more than five show four checkers and the
count. A line is a list of ``(text, style)`` pairs; :func:`plain` joins the texts, and the front
end turns the styles into colour with ``rich`` when the terminal has colour.
"""

from __future__ import annotations

from ..rules.boardtext import GLYPHS as _GLYPHS

__all__ = ["GLYPHS", "STYLES", "board_lines", "plain"]

#: Checker letters of White (0) and Black (1), the same as ``str(position)``'s (:mod:`nardy.rules.boardtext`).
GLYPHS = _GLYPHS
#: rich styles of White's and Black's checkers.
STYLES = ("bold bright_white", "bold red")
LABEL_STYLES = ("cyan", "magenta")
FRAME = "dim"

ROWS = 5


def plain(line) -> str:
    """The text of a line of segments."""
    return "".join(t for t, _ in line)


def board_lines(pos, viewer: int, numbering, bar_word: str = "BAR") -> list:
    """The board of ``pos`` (a :class:`~nardy.rules.position.Position` from ``viewer``'s view).

    Args:
        pos: the position with ``viewer`` as the mover (``Game.position_for(viewer)``).
        viewer: 0 White or 1 Black: whose checkers ``pos.mover`` are.
        numbering: labels (:class:`~nardy.rules.numbering.Numbering`).
        bar_word: the word in the middle of the bar (hitting games).
    Returns:
        A list of lines, each a list of ``(text, style)`` segments.
    """
    a = pos.array
    hitting = pos.rules.hitting
    w = numbering.width
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    me, op = viewer, 1 - viewer

    def cell(p: int, r: int):
        v = int(a[p])
        n = abs(v)
        side = me if v > 0 else op
        if n == 0:
            return (" " * w, None)
        if n > ROWS and r == ROWS - 1:
            return (f"{n:>{w}}", STYLES[side])
        if r < n:
            return (f"{GLYPHS[side]:>{w}}", STYLES[side])
        return (" " * w, None)

    def bar_cell(count: int, side: int, r: int):
        if not hitting or count == 0:
            return ("   ", None)
        if count > ROWS and r == ROWS - 1:
            return (f"{count:^3}", STYLES[side])
        if r < count:
            return (f" {GLYPHS[side]} ", STYLES[side])
        return ("   ", None)

    def row(points, r, bar):
        segs = [("|", FRAME)]
        for p in points[:6]:
            segs.append(cell(p, r))
        segs.append((" |", FRAME))
        segs.append(bar)
        segs.append(("|", FRAME))
        for p in points[6:]:
            segs.append(cell(p, r))
        segs.append((" |", FRAME))
        return segs

    def labels(points):
        segs = [(" ", None)]
        for i, p in enumerate(points):
            if i == 6:
                segs.append((" " * 6, None))
            lab = numbering.label(me, p)
            segs.append((f"{lab:>{w}}", LABEL_STYLES[p % 2]))
        return segs

    rule = [("+" + "-" * (6 * w + 1) + "+---+" + "-" * (6 * w + 1) + "+", FRAME)]
    lines = [labels(top), rule]
    # the opponent's bar checkers in the top half, the viewer's in the bottom half
    for r in range(ROWS):
        lines.append(row(top, r, bar_cell(int(a[26]), op, r)))
    mid = f"{bar_word:^3}" if hitting else "   "
    lines.append([("|" + " " * (6 * w + 1) + "|", FRAME), (mid, "bold"), ("|" + " " * (6 * w + 1) + "|", FRAME)])
    for r in range(ROWS - 1, -1, -1):
        lines.append(row(bottom, r, bar_cell(int(a[25]), me, r)))
    lines += [rule, labels(bottom)]
    return lines

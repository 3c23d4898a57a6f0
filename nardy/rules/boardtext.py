"""Plain-text drawing of a position (used by ``str(position)`` and ``str(game)``).

The board is drawn from the mover's view: the mover's points 13-24 run along the top, 12-1 along the
bottom (home at the bottom right), as GNU Backgammon draws it. The letters are the terminal's
(``nardy play``): White's checkers ``O``, Black's ``X`` (:data:`GLYPHS`); a position alone does not know
which side is on roll, so ``str(position)`` draws the mover as White, and ``str(game)`` names the side.
"""

from __future__ import annotations

__all__ = ["GLYPHS", "COLOURS", "board_text"]

#: Checker letters of White (0) and Black (1), here and in the terminal.
GLYPHS = ("O", "X")
COLOURS = ("White", "Black")


def _cell(v: int, row: int, mover: int) -> str:
    n = abs(v)
    if n == 0 or row >= 5 and n <= 5:
        return " "
    ch = GLYPHS[mover] if v > 0 else GLYPHS[1 - mover]
    if row == 4 and n > 5:
        return str(n)
    return ch if row < n else " "


def board_text(pos, numbering=None, mover: int = 0) -> str:
    """A multi-line drawing of ``pos`` with point numbers, bar, borne-off counts and pip counts.

    ``numbering`` optionally maps a mover point 1..24 to the label printed above/below it; ``mover``: the
    side on roll, 0 White (``O``) or 1 Black (``X``).
    """
    me, op = GLYPHS[mover], GLYPHS[1 - mover]
    a = pos.array
    label = numbering or (lambda p: p)
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def row(points, r):
        cells = [_cell(int(a[p]), r, mover) for p in points]
        return "|" + "".join(f"{c:>3}" for c in cells[:6]) + " |   |" + "".join(f"{c:>3}" for c in cells[6:]) + " |"

    def labels(points):
        return (
            " "
            + "".join(f"{label(p):>3}" for p in points[:6])
            + "      "
            + "".join(f"{label(p):>3}" for p in points[6:])
        )

    rule = "+" + "-" * 19 + "+---+" + "-" * 19 + "+"
    lines = [labels(top), rule]
    lines += [row(top, r) for r in range(5)]
    bar = f"  bar: {me} {int(a[25])}  {op} {int(a[26])}" if pos.rules.hitting else ""
    lines.append("|" + " " * 19 + "|BAR|" + " " * 19 + "|" + bar)
    lines += [row(bottom, r) for r in range(4, -1, -1)]
    lines += [rule, labels(bottom)]
    pm, po = pos.pip_count()
    lines.append(
        f"{pos.game}  {me} {COLOURS[mover]} (on roll): pips {pm}, off {int(a[0])}   "
        f"{op} {COLOURS[1 - mover]}: pips {po}, off {int(a[27])}   id {pos.id()}"
    )
    return "\n".join(lines)

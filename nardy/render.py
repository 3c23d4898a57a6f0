"""Plain-text drawing of a position (used by ``str(position)`` and the terminal front end).

The board is drawn from the mover's view: the mover's checkers are ``X``, the opponent's ``O``;
the mover's points 13-24 run along the top, 12-1 along the bottom (home at the bottom right), as
GNU Backgammon draws it.
"""

from __future__ import annotations


def _cell(v: int, row: int) -> str:
    n = abs(v)
    if n == 0 or row >= 5 and n <= 5:
        return " "
    ch = "X" if v > 0 else "O"
    if row == 4 and n > 5:
        return str(n)
    return ch if row < n else " "


def board_text(pos, numbering=None) -> str:
    """A multi-line drawing of ``pos`` with point numbers, bar, borne-off counts and pip counts.

    ``numbering`` optionally maps a mover point 1..24 to the label printed above/below it.
    """
    a = pos.array
    label = numbering or (lambda p: p)
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def row(points, r):
        cells = [_cell(int(a[p]), r) for p in points]
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
    bar = f"  bar: X {int(a[25])}  O {int(a[26])}" if pos.rules.hitting else ""
    lines.append("|" + " " * 19 + "|BAR|" + " " * 19 + "|" + bar)
    lines += [row(bottom, r) for r in range(4, -1, -1)]
    lines += [rule, labels(bottom)]
    pm, po = pos.pip_count()
    lines.append(
        f"{pos.game}  X (on roll): pips {pm}, off {int(a[0])}   O: pips {po}, off {int(a[27])}   id {pos.id()}"
    )
    return "\n".join(lines)

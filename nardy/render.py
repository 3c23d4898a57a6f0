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
        return str(n) if n < 10 else chr(ord("A") + n - 10)
    return ch if row < n else " "


def board_text(pos, numbering=None) -> str:
    """A multi-line drawing of ``pos`` with point numbers, bar, borne-off counts and pip counts.

    ``numbering`` optionally maps a mover point 1..24 to the label printed above/below it.
    """
    a = pos.array
    label = numbering or (lambda p: p)
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))

    def row_points(points, r):
        cells = [_cell(int(a[p]), r) for p in points]
        return " ".join(cells[:6]) + " | " + " ".join(cells[6:])

    def labels(points):
        return " ".join(f"{label(p):>2}" for p in points)

    lines = []
    lines.append(" " + labels(top[:6]) + "     " + labels(top[6:]))
    lines.append("+" + "-" * 17 + "+---+" + "-" * 17 + "+")
    for r in range(5):
        cells = [_cell(int(a[p]), r) for p in top]
        lines.append("| " + "  ".join(cells[:6]) + " |   | " + "  ".join(cells[6:]) + " |")
    bar = ""
    if pos.rules.hitting:
        bar = f"  bar: X {int(a[25])}  O {int(a[26])}"
    lines.append("|" + " " * 17 + "|BAR|" + " " * 17 + "|" + bar)
    for r in range(4, -1, -1):
        cells = [_cell(int(a[p]), r) for p in bottom]
        lines.append("| " + "  ".join(cells[:6]) + " |   | " + "  ".join(cells[6:]) + " |")
    lines.append("+" + "-" * 17 + "+---+" + "-" * 17 + "+")
    lines.append(" " + labels(bottom[:6]) + "     " + labels(bottom[6:]))
    pm, po = pos.pip_count()
    lines.append(f"{pos.game}  X (on roll): pips {pm}, off {int(a[0])}   O: pips {po}, off {int(a[27])}"
                 f"   id {pos.id()}")
    return "\n".join(lines)

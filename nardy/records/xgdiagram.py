"""XG's board diagram (the text part of its position export): read and write, backgammon.

Part of :mod:`nardy.records.xgtext` (its docstring describes the layout); kept apart for size.
:func:`read_diagram` reads a diagram and the pip, cube and "to play" lines under it into boards;
:func:`diagram_rows` draws a position, the side on roll as X (bottom).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..rules.errors import InvalidIdError, InvalidPositionError, RecordError
from ..rules.position import Position

__all__ = ["HEADER_RE", "FOOTER_RE", "TO_PLAY_RE", "read_diagram", "diagram_rows", "to_play"]

HEADER_RE = re.compile(r"\+13-14-15-16-17-18-+19-20-21-22-23-24-\+")
FOOTER_RE = re.compile(r"\+12-11-10--9--8--7-+6--5--4--3--2--1-\+")


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


# Column offsets from the header's '+': points 13..18 and 12..7 at 2 + 3k, the bar at 21, 19..24 and
# 6..1 at 25 + 3k (under the second digit of each label).
_LEFT = [2 + 3 * k for k in range(6)]
_RIGHT = [25 + 3 * k for k in range(6)]
_BAR = 21


def _cell(row: str, col: int) -> str:
    return row[col - 1 : col + 1] if col < len(row) else row[col - 1 :]


def _column(rows: Sequence[str], col: int, where: str) -> tuple[str, int]:
    """The side (``"X"``/``"O"``/``""``) and count of one column of the diagram."""
    side, count, number = "", 0, None
    for row in rows:
        cell = _cell(row, col).strip()
        if not cell:
            continue
        if cell.isdigit():
            number = int(cell)
            continue
        ch = cell[-1]
        if ch not in "XO" or len(cell) > 1:
            raise RecordError(f"diagram: {cell!r} at {where} is not X, O or a count: {_quote(row)}")
        if side and ch != side:
            raise RecordError(f"diagram: X and O in the same column at {where}")
        side, count = ch, count + 1
    if number is not None:
        if not side:
            raise RecordError(f"diagram: a count {number} with no checker at {where}")
        count = max(count, number)
    return side, count


def read_diagram(block: Sequence[str], header: int) -> dict:
    hline = block[header]
    hm = HEADER_RE.search(hline)
    assert hm is not None
    x0 = hm.start()
    footer = next((i for i in range(header + 1, min(len(block), header + 40)) if FOOTER_RE.search(block[i])), None)
    if footer is None:
        raise RecordError("diagram: no bottom line (+12-11-10--9--8--7-------6--5--4--3--2--1-+) after the top one")
    rows = [r[x0:] if len(r) > x0 else "" for r in block[header + 1 : footer]]
    mid = next((i for i, r in enumerate(rows) if "BAR" in r.upper()), None)
    if mid is None:
        raise RecordError("diagram: no |BAR| row between the halves")
    top = [r[:44] for r in rows[:mid]]
    bottom = list(reversed([r[:44] for r in rows[mid + 1 :]]))
    # X's own numbering as drawn: upper half 13..24, lower half 12..1
    x_pts = [0] * 26
    o_pts = [0] * 26  # on X's numbers
    for half, labels, cols in (
        (top, list(range(13, 19)) + list(range(19, 25)), _LEFT + _RIGHT),
        (bottom, list(range(12, 6, -1)) + list(range(6, 0, -1)), _LEFT + _RIGHT),
    ):
        for p, c in zip(labels, cols):
            side, n = _column(half, c, f"point {p}")
            if side == "X":
                x_pts[p] = n
            elif side == "O":
                o_pts[p] = n
    bar_top = _column(top, _BAR, "the bar")
    bar_bottom = _column(bottom, _BAR, "the bar")
    for side, n in (bar_top, bar_bottom):
        if side == "X":
            x_pts[25] += n
        elif side == "O":
            o_pts[0] += n
    xb = x_pts
    ob = [0] * 26
    for p in range(1, 25):
        ob[25 - p] = o_pts[p]
    ob[25] = o_pts[0]
    after = block[footer + 1 : footer + 8]
    turn, dice = to_play(after) or (1, None)
    cube, owner_letter = _cube_line(after)
    score, length, crawford = _score_line(after)
    text_head = " ".join(block[: footer + 8])
    jacoby = length == 0 and "jacoby" in text_head.lower()
    beaver = length == 0 and "beaver" in text_head.lower()
    mover, opp = (xb, ob) if turn == 1 else (ob, xb)
    try:
        pos = Position.from_boards(mover, opp, "backgammon")
    except (InvalidPositionError, InvalidIdError) as e:
        raise RecordError(f"diagram: not a backgammon position: {e}") from None
    owner = None
    if owner_letter and cube > 1:
        owner = 0 if (owner_letter == "X") == (turn == 1) else 1
    if score is not None and turn == -1:
        score = (score[1], score[0])
    return {
        "position": pos,
        "turn": turn,
        "dice": dice,
        "cube": cube,
        "owner": owner,
        "score": score if length else None,
        "length": length,
        "crawford": crawford,
        "jacoby": jacoby,
        "beaver": beaver,
    }


TO_PLAY_RE = re.compile(r"^\s*+(?P<side>[XO])\s++(?P<words>[^\d:=]*+)(?:(?P<d1>[1-6])(?P<d2>[1-6]))?+\s*+$")


def to_play(lines: Sequence[str]) -> tuple[int, tuple[int, int] | None] | None:
    """XGID-style turn (1: X on roll, -1: O) and dice from the "X to play 52" / "X on roll, cube action"
    line (any language: the first line that starts with X or O, a space and a word), or None."""
    for ln in lines:
        m = TO_PLAY_RE.match(ln)
        if m and m.group("words"):
            turn = 1 if m.group("side") == "X" else -1
            dice = (int(m.group("d1")), int(m.group("d2"))) if m.group("d1") else None
            return turn, dice
    return None


_CUBE_RE = re.compile(r"^\s*+[^\s:\d]++\s*+:\s*+(?P<v>\d{1,5})\s*+(?:,\s*+(?P<rest>.*))?$")
_PIPS_RE = re.compile(r"X-O\s*:\s*(?P<a>\d+)-(?P<b>\d+)(?:/(?P<n>\d+))?(?P<rest>.*)$")


def _cube_line(after: Sequence[str]) -> tuple[int, str]:
    for ln in after:
        if "X-O" in ln:
            continue
        m = _CUBE_RE.match(ln)
        if m:
            value = int(m.group("v"))
            if value < 1 or value & (value - 1):
                raise RecordError(f"cube {value} is not a power of two: {_quote(ln)}")
            rest = m.group("rest") or ""
            letter = next((t for t in re.split(r"[\s,]+", rest) if t in ("X", "O")), "")
            return value, letter
    return 1, ""


def _score_line(after: Sequence[str]) -> tuple[tuple[int, int] | None, int, bool]:
    for ln in after:
        m = _PIPS_RE.search(ln)
        if m:
            length = int(m.group("n") or 0)
            return (int(m.group("a")), int(m.group("b"))), length, bool(length and m.group("rest").strip())
    return None, 0, False


def diagram_rows(pos: Position, cube: int, owner: int | None) -> list[str]:
    """The 13 lines of the board, X = the side on roll (bottom)."""
    m = pos.mover
    o = pos.opponent
    cells: dict[int, tuple[str, int]] = {}
    for p in range(1, 25):
        if m[p]:
            cells[p] = ("X", m[p])
        elif o[25 - p]:
            cells[p] = ("O", o[25 - p])

    def mark(side: str, n: int, row: int) -> str:
        """What a column shows ``row`` checkers from its edge (0 = the edge)."""
        if n > 5 and row == 4:
            return f"{n:>2}"
        return f" {side}" if n > row else "  "

    def half_row(labels: Iterable[int], row: int) -> str:
        out = ""
        for p in labels:
            side, n = cells.get(p, ("", 0))
            out += mark(side, n, row) + " "
        return out

    def bar(side: str, n: int, row: int) -> str:
        return mark(side, n, row) + " "

    top_labels_l, top_labels_r = range(13, 19), range(19, 25)
    bot_labels_l, bot_labels_r = range(12, 6, -1), range(6, 0, -1)
    cube_rows: dict[int, str] = {}
    if owner is not None or cube > 1:
        at = {1: 0, None: 4, 0: 8}[owner]
        cube_rows = {at: " +---+", at + 1: f" |{cube:^3}|" if cube < 1000 else f" |{cube}|", at + 2: " +---+"}
    lines = [" +13-14-15-16-17-18------19-20-21-22-23-24-+"]
    for row in range(5):
        lines.append(
            f" |{half_row(top_labels_l, row)}|{bar('X', m[25], 4 - row)}|{half_row(top_labels_r, row)}|"
            + cube_rows.get(len(lines) - 1, "")
        )
    lines.append(" |                  |BAR|                  |" + cube_rows.get(5, ""))
    for row in range(4, -1, -1):
        lines.append(
            f" |{half_row(bot_labels_l, row)}|{bar('O', o[25], 4 - row)}|{half_row(bot_labels_r, row)}|"
            + cube_rows.get(len(lines) - 1, "")
        )
    lines.append(" +12-11-10--9--8--7-------6--5--4--3--2--1-+")
    return lines

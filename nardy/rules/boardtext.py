"""Plain-text drawing of a position (used by ``str(position)`` and ``str(game)``).

The board is drawn from the mover's view: the mover's points 13-24 run along the top, 12-1 along the
bottom (home at the bottom right), as GNU Backgammon draws it. The letters are the terminal's
(``nardy play``): White's checkers ``O``, Black's ``X`` (:data:`GLYPHS`); a position alone does not know
which side is on roll, so ``str(position)`` draws the mover as White, and ``str(game)`` names the side.
"""

from __future__ import annotations

__all__ = ["GLYPHS", "COLOURS", "board_text", "terminal_text"]

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


# ----- text from records, made printable --------------------------------------------------------------------------
#: The bidirectional controls (Unicode's UAX #9: embeddings, overrides, isolates, the marks): they reorder what
#: follows them on the line, so a name could make the rest of a line read otherwise.
BIDI_CONTROLS = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def _unsafe(ch: str) -> bool:
    o = ord(ch)
    return (
        o < 0x20  # C0: ESC starts the terminal's escape sequences, BEL ends its title sequences, CR rewrites a line
        or 0x7F <= o <= 0x9F  # DEL and C1 (CSI, OSC... in one character)
        or ch in BIDI_CONTROLS
        or ch in "\u2028\u2029"  # line and paragraph separators
        or 0xD800 <= o <= 0xDFFF  # lone surrogates (a file name's undecodable bytes): not text a terminal can take
    )


def terminal_text(text: str, *, lines: bool = False) -> str:
    """``text`` as it may be written to a terminal: every control character (C0, DEL, C1), bidirectional
    control, line or paragraph separator and lone surrogate replaced by a visible escape (``\\x1b``,
    ``\\u202e``); with ``lines``, line breaks (``\\n``) are kept. Everything else is kept as it is (letters of
    every script, emoji, ``[bold]``: the terminal front ends print text without rich markup).

    For whatever text from outside (a record's player names, events, comments, a fairness record's seeds, a
    file's name) is printed to a terminal: a name holding ``ESC ] 0 ; ... BEL`` would retitle the terminal, other
    sequences move the cursor or rewrite what is shown. Records and JSON keep the text as written.

    >>> terminal_text("Ann\\x1b]0;pwned\\x07")
    'Ann\\\\x1b]0;pwned\\\\x07'
    >>> terminal_text("Иван [bold]\\u202eX")
    'Иван [bold]\\\\u202eX'
    >>> terminal_text("one\\ntwo\\r", lines=True)
    'one\\ntwo\\\\x0d'
    """
    if text.isprintable():  # every character escaped here is one Python does not call printable
        return text
    return "".join(
        (f"\\x{ord(ch):02x}" if ord(ch) <= 0xFF else f"\\u{ord(ch):04x}")
        if _unsafe(ch) and not (lines and ch == "\n")
        else ch
        for ch in text
    )

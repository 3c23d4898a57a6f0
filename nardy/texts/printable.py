"""Text from outside made printable for a terminal: :func:`terminal_text` (docs/security.md, "Terminal text").

The terminal front ends (``nardy play``, the commands of :mod:`nardy.cli`) print what records, fairness records
and file names hold through it; records, JSON and the web keep the text as written.
"""

from __future__ import annotations

__all__ = ["BIDI_CONTROLS", "terminal_text"]

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

"""Point numbering for display and input in ``nardy play`` (RULES.md "Notation").

* ``own``: each player's own numbering (24 farthest from home, 1 the last home point; 25 bar, 0 off).
* ``absolute`` (long nardy, seed 002): White's own numbers for everybody: White's head 24, home 1-6,
  Black's head 12, Black's home 13-18. Black's own point p is absolute ((p + 11) mod 24) + 1.
* ``traditional`` (backgammon and short nardy, seed 003): a fixed board numbering, White's half 1-12
  (White's home 1-6), Black's half 01-012 (Black's home 01-06). White travels 01...012, 12...1; Black
  1...12, 012...01. On input the Black half may also be written in Roman numerals I-XII.

Sides are 0 (White) and 1 (Black). A :class:`Numbering` turns a side's own point into its label
and back, and rewrites a play typed in its numbering into own numbering for
:meth:`nardy.Position.parse_play`.
"""

from __future__ import annotations

import re

from ..errors import NotationError
from ..notation import format_steps

__all__ = ["Numbering", "NUMBERINGS"]

NUMBERINGS = ("own", "absolute", "traditional")

_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
          "xi": 11, "xii": 12}
_COUNT = re.compile(r"^(?P<path>.*?)(?P<count>\(\d+\))?$")


class Numbering:
    """One numbering scheme for one game.

    Raises:
        ValueError: an unknown scheme, ``absolute`` for a hitting game or ``traditional`` for long
            nardy (the message says which games each scheme is for).
    """

    def __init__(self, kind: str, game: str):
        if kind not in NUMBERINGS:
            raise ValueError(f"numbering {kind!r}: expected one of {', '.join(NUMBERINGS)}")
        if kind == "absolute" and game != "long":
            raise ValueError("absolute numbering is for long nardy; use own or traditional")
        if kind == "traditional" and game == "long":
            raise ValueError("traditional numbering is for backgammon and short nardy; use own or absolute")
        self.kind = kind
        self.game = game

    @property
    def fixed(self) -> bool:
        """True when the labels belong to the board rather than to the player on turn."""
        return self.kind != "own"

    @property
    def width(self) -> int:
        """Columns a point needs on the board drawing."""
        return 4 if self.kind == "traditional" else 3

    # ----- own point -> label -------------------------------------------------------------------
    def label(self, side: int, p: int) -> str:
        """The label of ``side``'s own point ``p`` (1-24; 25 ``bar``, 0 ``off``)."""
        if p == 25:
            return "bar"
        if p == 0:
            return "off"
        if self.kind == "own":
            return str(p)
        if self.kind == "absolute":
            return str(p if side == 0 else ((p + 11) % 24) + 1)
        # traditional: White's half 1-12 (White's own 1-12), Black's half 01-012
        if side == 0:
            return str(p) if p <= 12 else f"0{25 - p}"
        return f"0{p}" if p <= 12 else str(25 - p)

    def play_text(self, steps, side: int) -> str:
        """Steps (own numbering of ``side``) in notation with this numbering's labels."""
        if self.kind == "own":
            return format_steps(steps)
        return format_steps(steps, numbering=lambda p: self.label(side, p))

    # ----- label -> own point -------------------------------------------------------------------
    def own_point(self, word: str, side: int) -> int | str:
        """The own point of ``side`` that a written point means: an int, or ``"bar"``/``"off"``
        passed through. Raises NotationError for a label this numbering does not have."""
        w = word.strip().lower()
        if w in ("bar", "b", "off", "o"):
            return w
        if self.kind == "own":
            return w
        if self.kind == "absolute":
            if w.isdigit():
                n = int(w)
                if 1 <= n <= 24:
                    return n if side == 0 else ((n + 11) % 24) + 1
                return n  # 0 (off) or out of range: parse_play reports it
            raise NotationError(f"point {word!r} is not a number", text=word, reason="bad point")
        # traditional
        black_half = None
        if w in _ROMAN:
            black_half = _ROMAN[w]
        elif re.fullmatch(r"0\d{1,2}", w):
            black_half = int(w[1:])
            if not 1 <= black_half <= 12:
                raise NotationError(f"point {word!r}", text=word, reason="bad traditional point")
        elif w.isdigit():
            n = int(w)
            if n in (0, 25):
                return n
            if not 1 <= n <= 12:
                raise NotationError(f"point {word!r}", text=word, reason="bad traditional point")
            return n if side == 0 else 25 - n
        else:
            raise NotationError(f"point {word!r}", text=word, reason="bad traditional point")
        return 25 - black_half if side == 0 else black_half

    def to_own(self, text: str, side: int) -> str:
        """A play typed in this numbering rewritten in ``side``'s own numbering (hit marks and
        ``(n)`` counts kept). Raises NotationError for a point label this numbering lacks."""
        if self.kind == "own":
            return text
        out = []
        for tok in re.split(r"[\s,]+", text.strip()):
            if not tok:
                continue
            m = _COUNT.match(tok)
            path, count = m.group("path"), m.group("count") or ""
            parts = []
            for part in path.split("/"):
                star = "*" if part.endswith("*") else ""
                core = part.rstrip("*")
                if not core:
                    parts.append(part)
                    continue
                parts.append(f"{self.own_point(core, side)}{star}")
            out.append("/".join(parts) + count)
        return " ".join(out)

    def relabel(self, text: str, side: int) -> str:
        """Notation in ``side``'s own numbering (as :mod:`nardy` prints it) with this numbering's
        labels (counts in parentheses are left alone)."""
        if self.kind == "own":
            return text

        def sub(m):
            return m.group(1) + self.label(side, int(m.group(2)))
        return re.sub(r"(^|[\s/,])(\d{1,2})(?=[/*\s,(]|$)", sub, text)

"""Point numbering for display and input in ``nardy play`` (docs/rules.md "Notation").

* ``own``: each player's own numbering (24 farthest from home, 1 the last home point; 25 bar, 0 off).
* ``absolute`` (long nardy, seed 002): White's own numbers for everybody: White's head 24, home 1-6,
  Black's head 12, Black's home 13-18. Black's own point p is absolute ((p + 11) mod 24) + 1.
* ``traditional`` (backgammon and short nardy, seed 003): a fixed board numbering, White's half 1-12
  (White's home 1-6), Black's half 01-012 (Black's home 01-06). White travels 01...012, 12...1; Black
  1...12, 012...01. On input the Black half may also be written in Roman numerals I-XII.

Sides are 0 (White) and 1 (Black). A :class:`Numbering` turns a side's own point into its label
and back, and rewrites a play typed in its numbering into own numbering for
:meth:`nardy.Position.parse_play`. The maps, the labels and which game allows which numbering are
:mod:`nardy.rules.numbering`'s; this class adds what the terminal needs around them.
"""

from __future__ import annotations

import re

from ..rules import numbering as _num
from ..rules.notation import format_steps

__all__ = ["Numbering", "NUMBERINGS"]

#: Every numbering ``nardy play`` knows (each game allows some: :data:`nardy.rules.numbering.NUMBERINGS`).
NUMBERINGS = _num.SCHEMES

#: How the games are named in the messages.
_GAME_TEXT = {"backgammon": "backgammon", "short": "short nardy", "long": "long nardy"}
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
        allowed = _num.NUMBERINGS.get(game, NUMBERINGS)
        if kind not in allowed:
            raise ValueError(
                f"{kind} numbering is for {' and '.join(_GAME_TEXT[g] for g in _num.games_with(kind))}; "
                f"use {' or '.join(allowed)}"
            )
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
        return _num.label(self.kind, side, p)

    def play_text(self, steps, side: int) -> str:
        """Steps (own numbering of ``side``) in notation with this numbering's labels."""
        if self.kind == "own":
            return format_steps(steps)
        return format_steps(steps, numbering=_num.label_fn(self.kind, side))

    # ----- label -> own point -------------------------------------------------------------------
    def own_point(self, word: str, side: int) -> int | str:
        """The own point of ``side`` that a written point means: an int, or ``"bar"``/``"off"``
        passed through. Raises NotationError for a label this numbering does not have."""
        w = word.strip().lower()
        if w in ("bar", "b", "off", "o"):
            return w
        if self.kind == "own":
            return w
        return _num.own_point(self.kind, side, word)

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

"""Point numbering of the three games: the one place that says how a point is numbered
(docs/rules.md "Board, points, views" and "Notation").

**Own numbering.** Each side numbers the points from its own view: 24 is the farthest from home, 1 the
last point of home, home is own 1-6; the bar is 25 (hitting games) and borne off is 0. Boards in
:mod:`nardy.rules._movegen` and :class:`nardy.Position` are in the *mover's view*: the mover's own numbering.

**The other side's numbering.** The same place on the board has another number for the other side
(:func:`opponent_point`):

* backgammon and short nardy (the sides move in opposite directions): ``q <-> 25 - q``;
* long nardy (both go the same way round): ``q <-> ((q + 11) % 24) + 1``, so the other side's head,
  their 24, is my 12, and their home 13-18 in my numbering.

Each map is its own inverse (an involution), so it turns the mover's point into the opponent's and back.
The bar (25) and off (0) are not shared places: each side has its own, numbered 25 and 0 in its own
numbering, so the maps leave them unchanged. The compiled form of the map, for numba kernels that cannot
call Python, is :func:`nardy.rules._movegen.opp_point`.

**Numberings shown to people** (:data:`SCHEMES`; :data:`NUMBERINGS` says which game allows which):

* ``own``: each side's own numbering (above).
* ``absolute`` (long nardy, seed 002, сквозная): White's own numbering for everybody: White's head 24,
  White's home 1-6, Black's head 12, Black's home 13-18; Black's own point p is absolute
  ``((p + 11) % 24) + 1``.
* ``traditional`` (backgammon and short nardy, seed 003): a fixed board numbering, White's half 1-12
  (White's own points 1-12), Black's half 01-012 (Black's own points 1-12, Black's home 01-06). White
  travels 01...012, 12...1; Black 1...12, 012...01. On input Black's half may also be written in Roman
  numerals I-XII.

Sides are :data:`WHITE` (0) and :data:`BLACK` (1).

**One numbering for one game** (:class:`Numbering`): a side's own point to its label and back, a play typed in
the numbering rewritten in own numbering (for :meth:`nardy.Position.parse_play`) and notation relabelled; the
front ends (``nardy play``, the web page) label points through it.

**Head-rule modes** (long nardy, docs/rules.md "Long nardy", option ``head-exception``): the option values
:data:`HEAD_EXCEPTIONS` and the integer codes the compiled core takes (:data:`HEAD_MODES`,
:func:`head_mode`).
"""

from __future__ import annotations

import re

from .errors import InvalidOptionError, NotationError
from .notation import format_steps

__all__ = [
    "WHITE",
    "BLACK",
    "OFF",
    "BAR",
    "opponent_point",
    "view_point",
    "absolute_point",
    "SCHEMES",
    "NUMBERINGS",
    "games_with",
    "check_numbering",
    "label",
    "label_fn",
    "labels",
    "own_point",
    "Numbering",
    "HEAD_NONE",
    "HEAD_BLOCK",
    "HEAD_ALWAYS",
    "NO_HEAD_RULE",
    "HEAD_MODES",
    "HEAD_EXCEPTIONS",
    "head_mode",
]

WHITE, BLACK = 0, 1
#: A side's borne-off checkers and its bar, in that side's own numbering.
OFF, BAR = 0, 25


# ----- the same place in the other side's numbering -------------------------------------------------
def opponent_point(p: int, hitting: bool) -> int:
    """The other side's own number of point ``p`` of one side's own numbering (docs/rules.md "Board, points,
    views"): the mover's point in the opponent's numbering, and back (the map is its own inverse).

    Args:
        p: a point 1..24 in one side's own numbering; 0 (off) and 25 (bar) are that side's own and are
            returned unchanged.
        hitting: True for backgammon and short nardy (``25 - p``), False for long nardy
            (``((p + 11) % 24) + 1``).
    Raises:
        ValueError: ``p`` is not in 0..25.
    """
    if 0 < p < 25:
        return 25 - p if hitting else ((p + 11) % 24) + 1
    if p == 0 or p == 25:
        return p
    raise ValueError(f"point {p!r}: expected 0 (off), 1-24 or 25 (bar)")


def view_point(p: int, owner: int, viewer: int, hitting: bool) -> int:
    """Point ``p`` of side ``owner``'s own numbering in side ``viewer``'s own numbering: ``p`` itself when
    they are the same side, else :func:`opponent_point`. 0 and 25 stay (the owner's off and bar).
    The map is its own inverse: ``view_point(view_point(p, a, b, h), a, b, h) == p``.

    Raises:
        ValueError: ``p`` is not in 0..25.
    """
    if owner == viewer:
        return p
    return opponent_point(p, hitting)


def absolute_point(p: int, side: int) -> int:
    """Long nardy: ``side``'s own point ``p`` (1..24) in absolute numbering (White's own numbering), and
    back (the map is its own inverse for each side). White's points are unchanged; Black's own p is
    ``((p + 11) % 24) + 1`` (Black's head, own 24, is absolute 12). 0 and 25 are returned unchanged.

    Raises:
        ValueError: ``p`` is not in 0..25.
    """
    return view_point(p, side, WHITE, False)


# ----- numberings and which game allows which ---------------------------------------------------------
#: Every numbering scheme (docs/rules.md "Notation").
SCHEMES = ("own", "absolute", "traditional")

#: The numberings each game allows, ``own`` (the default) first.
NUMBERINGS = {"backgammon": ("own", "traditional"), "short": ("own", "traditional"), "long": ("own", "absolute")}


def games_with(numbering: str) -> tuple:
    """The games (canonical names, in :data:`NUMBERINGS` order) that allow ``numbering``; ``()`` for an
    unknown name."""
    return tuple(g for g, ns in NUMBERINGS.items() if numbering in ns)


def check_numbering(numbering: str, game: str) -> str:
    """``numbering`` when ``game`` (a canonical name) allows it.

    Raises:
        InvalidOptionError: the game does not allow it (or the name is not a numbering at all); the
            message names the ones it allows.
        KeyError: ``game`` is not a canonical game name.
    """
    if numbering not in NUMBERINGS[game]:
        raise InvalidOptionError(
            f"numbering {numbering!r} is not available for {game}: expected one of {', '.join(NUMBERINGS[game])}"
        )
    return numbering


# ----- labels -------------------------------------------------------------------------------------------
_ROMAN = {
    "i": 1,
    "ii": 2,
    "iii": 3,
    "iv": 4,
    "v": 5,
    "vi": 6,
    "vii": 7,
    "viii": 8,
    "ix": 9,
    "x": 10,
    "xi": 11,
    "xii": 12,
}


def _traditional(w: int) -> str:
    """The traditional label of White's own point ``w`` (1..24): White's half 1-12, Black's half 01-012."""
    return str(w) if w <= 12 else f"0{25 - w}"


def label(numbering: str, side: int, p: int) -> str:
    """The label of ``side``'s own point ``p`` in ``numbering`` (docs/rules.md "Notation").

    ``own``: ``p``; ``absolute`` (long nardy): :func:`absolute_point`; ``traditional`` (backgammon, short
    nardy): ``1``-``12`` on White's half, ``01``-``012`` on Black's half. 25 is ``"bar"`` and 0 ``"off"``
    in every numbering. The numbering must be one the game allows (:func:`check_numbering`).

    Raises:
        ValueError: an unknown numbering, or ``p`` not in 0..25.
    """
    if p == BAR:
        return "bar"
    if p == OFF:
        return "off"
    if not 0 < p < 25:
        raise ValueError(f"point {p!r}: expected 0 (off), 1-24 or 25 (bar)")
    if numbering == "own":
        return str(p)
    if numbering == "absolute":
        return str(absolute_point(p, side))
    if numbering == "traditional":
        return _traditional(view_point(p, side, WHITE, True))
    raise ValueError(f"numbering {numbering!r}: expected one of {', '.join(SCHEMES)}")


def label_fn(numbering: str, side: int):
    """A function from ``side``'s own point (1..24) to its label in ``numbering``, for
    :func:`nardy.rules.notation.format_steps`; ``None`` where the labels are the own numbers (``own``, and
    ``absolute`` for White).

    Raises:
        ValueError: an unknown numbering.
    """
    if numbering not in SCHEMES:
        raise ValueError(f"numbering {numbering!r}: expected one of {', '.join(SCHEMES)}")
    if numbering == "own" or (numbering == "absolute" and side == WHITE):
        return None
    return lambda p: label(numbering, side, p)


def labels(numbering: str, side: int) -> list[str]:
    """The labels of ``side``'s own points 1..24 in ``numbering`` (24 strings, own point 1 first).

    Raises:
        ValueError: an unknown numbering.
    """
    return [label(numbering, side, p) for p in range(1, 25)]


def own_point(numbering: str, side: int, word: str) -> int:
    """The own point of ``side`` that a written label means (the inverse of :func:`label`).

    ``bar``/``b`` is 25 and ``off``/``o`` 0. A number outside 1-24 in ``own`` or ``absolute`` numbering,
    and 0 or 25 in ``traditional``, is returned as it is, for the play parser to accept (0, 25) or report
    (out of range). ``traditional`` reads ``1``-``12`` as White's half, ``01``-``012`` or Roman ``I``-``XII``
    (any case) as Black's half.

    Raises:
        NotationError: a label the numbering does not have (the message quotes ``word``).
        ValueError: an unknown numbering.
    """
    w = word.strip().lower()
    if w in ("bar", "b"):
        return BAR
    if w in ("off", "o"):
        return OFF
    if numbering in ("own", "absolute"):
        if w.isdigit():
            n = int(w)
            if numbering == "absolute" and 1 <= n <= 24:
                return absolute_point(n, side)
            return n  # own, or 0 (off) / out of range: the play parser accepts or reports it
        raise NotationError(f"point {word!r} is not a number", text=word, reason="bad point")
    if numbering != "traditional":
        raise ValueError(f"numbering {numbering!r}: expected one of {', '.join(SCHEMES)}")
    if w in _ROMAN:
        black_half = _ROMAN[w]
    elif re.fullmatch(r"0\d{1,2}", w):
        black_half = int(w[1:])
        if not 1 <= black_half <= 12:
            raise NotationError(f"point {word!r}", text=word, reason="bad traditional point")
    elif w.isdigit():
        n = int(w)
        if n in (OFF, BAR):
            return n
        if not 1 <= n <= 12:
            raise NotationError(f"point {word!r}", text=word, reason="bad traditional point")
        return view_point(n, WHITE, side, True)  # White's half: White's own n
    else:
        raise NotationError(f"point {word!r}", text=word, reason="bad traditional point")
    return view_point(black_half, BLACK, side, True)  # Black's half: Black's own n


# ----- one numbering of one game ---------------------------------------------------------------------------
#: How the games are named in :class:`Numbering`'s messages.
_GAME_TEXT = {"backgammon": "backgammon", "short": "short nardy", "long": "long nardy"}
_COUNT = re.compile(r"^(?P<path>.*?)(?P<count>\(\d+\))?$")


class Numbering:
    """One numbering scheme (:data:`SCHEMES`) for one game: labels of a side's own points and back, plays
    typed in the numbering rewritten in own numbering, notation relabelled (docs/rules.md "Notation").

    Args:
        kind: ``own``, ``absolute`` or ``traditional``.
        game: the canonical game name (``backgammon``, ``short``, ``long``); an unknown name allows every
            scheme.
    Raises:
        ValueError: an unknown scheme, ``absolute`` for a hitting game or ``traditional`` for long
            nardy (the message says which games each scheme is for).
    """

    def __init__(self, kind: str, game: str):
        if kind not in SCHEMES:
            raise ValueError(f"numbering {kind!r}: expected one of {', '.join(SCHEMES)}")
        allowed = NUMBERINGS.get(game, SCHEMES)
        if kind not in allowed:
            raise ValueError(
                f"{kind} numbering is for {' and '.join(_GAME_TEXT[g] for g in games_with(kind))}; "
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

    # ----- own point -> label ---------------------------------------------------------------------------
    def label(self, side: int, p: int) -> str:
        """The label of ``side``'s own point ``p`` (1-24; 25 ``bar``, 0 ``off``): :func:`label`."""
        return label(self.kind, side, p)

    def play_text(self, steps, side: int) -> str:
        """Steps (own numbering of ``side``) in notation with this numbering's labels."""
        if self.kind == "own":
            return format_steps(steps)
        return format_steps(steps, numbering=label_fn(self.kind, side))

    # ----- label -> own point ---------------------------------------------------------------------------
    def own_point(self, word: str, side: int) -> int | str:
        """The own point of ``side`` that a written point means: an int, or ``"bar"``/``"off"``
        passed through (and the word itself in own numbering). Raises NotationError for a label this
        numbering does not have."""
        w = word.strip().lower()
        if w in ("bar", "b", "off", "o"):
            return w
        if self.kind == "own":
            return w
        return own_point(self.kind, side, word)

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
            assert m is not None  # the pattern matches any word
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


# ----- head-rule modes ------------------------------------------------------------------------------------
#: Codes of the long nardy head rule that the compiled core takes (:func:`nardy.rules._movegen.head_limit`).
HEAD_NONE, HEAD_BLOCK, HEAD_ALWAYS = 0, 1, 2
#: The head-mode code of the hitting games, which have no head rule.
NO_HEAD_RULE = -1
#: Option ``head-exception`` (docs/rules.md "Long nardy", head rule) -> code: ``head-block`` (6-6, 4-4, 3-3
#: on the first turn when the opponent's head blocks one checker, the default), ``always`` (those doubles
#: on the first turn always), ``none`` (never a second checker from the head).
HEAD_MODES = {"head-block": HEAD_BLOCK, "always": HEAD_ALWAYS, "none": HEAD_NONE}
#: The values of option ``head-exception``, the default first.
HEAD_EXCEPTIONS = tuple(HEAD_MODES)


def head_mode(head_exception: str, hitting: bool) -> int:
    """The compiled core's head-mode code of a game: :data:`NO_HEAD_RULE` (-1) for the hitting games,
    else the code of option ``head-exception`` (:data:`HEAD_MODES`).

    Raises:
        InvalidOptionError: an unknown ``head-exception`` value (long nardy).
    """
    if hitting:
        return NO_HEAD_RULE
    try:
        return HEAD_MODES[head_exception]
    except KeyError:
        raise InvalidOptionError(
            f"option head-exception={head_exception!r}: expected one of {', '.join(HEAD_EXCEPTIONS)}"
        ) from None

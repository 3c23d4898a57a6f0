"""Board diagrams of the three games: the one board renderer (issue 47).

A :class:`Diagram` says what to draw (a :class:`~nardy.rules.position.Position` from the mover's view, the
dice, the cube, the score, names, the point numbering, a caption); :func:`diagram_svg` writes it as a
standalone SVG document and :func:`diagram_png` as PNG bytes (drawn with Pillow, imported only there). Both
draw the same geometry: :func:`primitives` works the board out once into drawing primitives (rectangles,
polygons, circles, texts) that the two writers only serialise. ``nardy diagram``, ``GET /api/diagram.svg``
and ``.png``, the analysis report and the review page all draw boards with it.

Layout (the mover at the bottom, as the web page's board, nardy/web/static/board.js): the mover's points 1-6
at the bottom right (1 at the right edge), 7-12 bottom left, 13-18 top left, 19-24 top right; the mover
moves 24 -> 1 and bears off into the right tray. In backgammon and short nardy the opponent moves the other
way round (its point q is the mover's 25 - q) and bears off into the right tray at the top; in long nardy
both sides go the same way round (the opponent's head, its 24, is the mover's 12; its home is the mover's
13-18) and the opponent bears off into the left tray (docs/rules.md "Board, points, views"). Points are
labelled in the chosen numbering (:mod:`nardy.rules.numbering`); the mover's point 1 is dark.

The mover's checkers are light, the opponent's dark. Above the board: the caption, the opponent's name and
pip count, the score (with the match length and Crawford). Below: the mover's name, pip count and a mark
that it is the side to move; the dice lie in the mover's half; the cube lies in the left tray, centred or
at its owner's side.

Themes (:data:`THEMES`): ``light`` (the web page's colours), ``print`` (black on white, outlines instead of
filled areas, only the opponent's checkers filled) and ``dark``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field, replace
from xml.sax.saxutils import escape

from .errors import InvalidOptionError
from .numbering import NUMBERINGS, WHITE, label
from .position import Position, check_dice

__all__ = [
    "Diagram",
    "diagram_svg",
    "diagram_png",
    "primitives",
    "with_options",
    "THEMES",
    "OWNERS",
    "default_cube",
    "read_owner",
    "read_score",
    "read_names",
    "xgid_fields",
    "WIDTH",
    "height",
    "MAX_NAME",
    "MAX_TITLE",
    "PNG_SCALES",
]

#: The themes, the default first.
THEMES = ("light", "print", "dark")
#: The longest name (characters) a diagram draws.
MAX_NAME = 40
#: The longest caption (characters).
MAX_TITLE = 120
#: The smallest and largest ``scale`` of :func:`diagram_png`.
PNG_SCALES = (0.25, 4.0)
#: The greatest cube value drawn.
MAX_CUBE = 4096
#: The greatest score or match length.
MAX_POINTS = 999

# ----- geometry (user units; the board's part matches nardy/web/static/board.js) ----------------------------
WIDTH = 790
_BOARD_H = 570
_BAND = 30  # the opponent's line above the board, the mover's below
_CAPTION = 30  # the caption's band, when there is a caption
_TRAY_L, _FIELD_L, _BAR, _FIELD_R, _TRAY_R, _TRAY_W = 10, 70, 370, 420, 730, 50
_TOP, _BOTTOM, _MID, _POINT_W, _POINT_H, _R = 35, 535, 285, 50, 205, 22
_FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


#: The words a diagram draws in English: ``(pips, match to, Crawford)`` (see :attr:`Diagram.words`).
ENGLISH_WORDS = ("pips {n}", "match to {n}", "Crawford")
#: The longest word (template) of :attr:`Diagram.words`.
MAX_WORD = 40


@dataclass(frozen=True)
class Diagram:
    """What one board diagram shows (docs/records.md "Board diagrams").

    Attributes:
        position: the position, from the mover's view (it carries its game's rules).
        dice: the roll to play, ``(d1, d2)`` each 1-6, or ``None``.
        cube: the cube's value (1, 2, 4, ... up to 4096); 0 draws no cube (long nardy, a Crawford game).
        cube_owner: ``None`` centred, 0 the mover, 1 the opponent.
        score: ``(mover, opponent)`` points, or ``None`` (money play, or not shown).
        length: the match length; 0 for money play / unlimited.
        names: ``(mover, opponent)``, each at most :data:`MAX_NAME` characters.
        numbering: one of the game's numberings (:data:`nardy.rules.numbering.NUMBERINGS`): the labels of
            the points.
        title: a caption drawn above the board (at most :data:`MAX_TITLE` characters).
        crawford: this is the Crawford game (shown with the score).
        side: which side the mover is, 0 White or 1 Black (:data:`nardy.rules.numbering.WHITE`): only the
            fixed numberings (``absolute``, ``traditional``) label points by it.
        words: the words drawn, ``(pips, match to, Crawford)``, the first two with ``{n}`` for the number
            (English by default; a front end passes its language's, e.g.
            :func:`nardy.texts.catalogue.diagram_words`: the rules library has no catalogue), each at most
            :data:`MAX_WORD` characters.
    """

    position: Position
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: int | None = None
    score: tuple[int, int] | None = None
    length: int = 0
    names: tuple[str, str] = ("", "")
    numbering: str = "own"
    title: str = ""
    crawford: bool = False
    side: int = field(default=WHITE)
    words: tuple[str, str, str] = ENGLISH_WORDS


# ----- the inputs of the command and the web API, read once ----------------------------------------------------
#: How a cube owner is written (``nardy diagram --owner``, ``GET /api/diagram.svg?owner=``).
OWNERS = {"centre": None, "mover": 0, "opponent": 1}


def default_cube(position: Position) -> int:
    """The cube a diagram of ``position`` shows when none is given: 1 (centred) where the game is played with
    the cube (backgammon), else 0 (none: short and long nardy)."""
    return 1 if position.rules.cube else 0


def read_owner(text: str) -> int | None:
    """A cube owner as written (:data:`OWNERS`): ``centre`` None, ``mover`` 0, ``opponent`` 1.

    Raises:
        InvalidOptionError: another word.
    """
    try:
        return OWNERS[text.strip().lower()]
    except KeyError:
        raise InvalidOptionError(f"owner {text[:20]!r}: expected one of {', '.join(OWNERS)}") from None


def read_score(text: str) -> tuple[int, int]:
    """A score written ``A-B`` (the mover's first), each 0-:data:`MAX_POINTS`.

    Raises:
        InvalidOptionError: anything else (the message quotes at most 20 characters of it).
    """
    parts = text.strip().split("-")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) <= 3 for p in parts):
        raise InvalidOptionError(f"score {text[:20]!r}: expected A-B, the mover's points first (e.g. 2-1)")
    a, b = (int(p) for p in parts)
    return a, b


def read_names(text: str) -> tuple[str, str]:
    """Two names written ``A,B`` (the mover's first; either may be empty), each at most :data:`MAX_NAME`
    characters, no control characters.

    Raises:
        InvalidOptionError: more than one comma, a name too long or with a control character.
    """
    parts = text.split(",")
    if len(parts) == 1:
        parts.append("")
    if len(parts) != 2:
        raise InvalidOptionError("names: expected two names A,B (the mover's first)")
    names = (parts[0].strip(), parts[1].strip())
    for n in names:
        if len(n) > MAX_NAME:
            raise InvalidOptionError(f"names: each name at most {MAX_NAME} characters")
        if not _printable(n):
            raise InvalidOptionError("names: no control characters")
    return names


def with_options(
    d: Diagram,
    *,
    dice: str | None = None,
    cube: int | None = None,
    owner: str | None = None,
    score: str | None = None,
    length: int | None = None,
    crawford: bool | None = None,
    names: str | None = None,
    title: str | None = None,
) -> Diagram:
    """``d`` with the options a person wrote (``nardy diagram``'s options, the web API's query) over it; None
    leaves a field as it is. ``dice`` ``6-4``/``64``, ``owner`` one of :data:`OWNERS`, ``score`` ``A-B`` (the
    mover's first), ``names`` ``A,B``.

    Raises:
        InvalidOptionError: dice, owner, score or names not in those forms.
    """
    changes: dict = {}
    if dice is not None:
        changes["dice"] = check_dice(dice)
    if cube is not None:
        changes["cube"] = cube
    if owner is not None:
        changes["cube_owner"] = read_owner(owner)
    if score is not None:
        changes["score"] = read_score(score)
    if length is not None:
        changes["length"] = length
    if crawford is not None:
        changes["crawford"] = crawford
    if names is not None:
        changes["names"] = read_names(names)
    if title is not None:
        changes["title"] = title
    return replace(d, **changes)


def xgid_fields(state, position: Position) -> dict:
    """The :class:`Diagram` fields an XGID (a :class:`nardy.rules.ids.XgidState`) gives for ``position`` (its
    position, :meth:`Position.from_xgid`), from the view of the side on turn: ``dice`` (None for no roll),
    ``cube`` (0 in the Crawford game and in a game without the cube), ``cube_owner``, ``score`` (``None`` for
    money play at 0-0), ``length``, ``crawford``."""
    turn = state.turn
    crawford = bool(state.match_length) and state.crawford_jacoby == 1
    owner = None if state.cube_owner == 0 else (0 if state.cube_owner == turn else 1)
    mine, theirs = (state.score_bottom, state.score_top) if turn == 1 else (state.score_top, state.score_bottom)
    score = (mine, theirs) if (state.match_length or mine or theirs) else None
    return {
        "dice": None if state.dice == (0, 0) else tuple(state.dice),
        "cube": 0 if crawford or not position.rules.cube else state.cube_value,
        "cube_owner": owner if position.rules.cube else None,
        "score": score,
        "length": state.match_length,
        "crawford": crawford,
    }


# ----- drawing primitives ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rect:
    """A rectangle: top left ``(x, y)``, size, corner radius ``rx``; colours or ``"none"``."""

    x: float
    y: float
    w: float
    h: float
    fill: str
    stroke: str = "none"
    width: float = 0.0
    rx: float = 0.0
    cls: str = ""


@dataclass(frozen=True)
class Polygon:
    """A closed polygon through ``points``."""

    points: tuple[tuple[float, float], ...]
    fill: str
    stroke: str = "none"
    width: float = 0.0
    cls: str = ""


@dataclass(frozen=True)
class Circle:
    """A circle of centre ``(cx, cy)`` and radius ``r``."""

    cx: float
    cy: float
    r: float
    fill: str
    stroke: str = "none"
    width: float = 0.0
    cls: str = ""


@dataclass(frozen=True)
class Text:
    """A line of text, ``(x, y)`` its baseline point; ``anchor`` ``start``, ``middle`` or ``end``."""

    x: float
    y: float
    text: str
    size: float
    fill: str
    anchor: str = "middle"
    bold: bool = False
    cls: str = ""


# ----- themes ---------------------------------------------------------------------------------------------
_THEME = {
    "light": {
        "bg": "#f4efe6",
        "ink": "#222222",
        "frame": "#5a3a22",
        "field": "#2e5e45",
        "tray": "#4a2f1b",
        "dark": "#7b2f1d",
        "light": "#e9d8b4",
        "point_stroke": "none",
        "label": "#f3e6cc",
        "mover": "#f7f3ea",
        "mover_stroke": "#6b5a44",
        "opp": "#222222",
        "opp_stroke": "#aaaaaa",
        "die": "#fffdf6",
        "die_pip": "#222222",
        "cube": "#fffbe8",
        "cube_ink": "#222222",
        "mark": "#8a3b12",
        "line": "none",
    },
    "dark": {
        "bg": "#1d1b19",
        "ink": "#eeeeee",
        "frame": "#3a2617",
        "field": "#1f3f2f",
        "tray": "#2c1c10",
        "dark": "#5e2416",
        "light": "#b9a681",
        "point_stroke": "none",
        "label": "#e0d2b6",
        "mover": "#ece6d8",
        "mover_stroke": "#6b5a44",
        "opp": "#111111",
        "opp_stroke": "#999999",
        "die": "#ece6d8",
        "die_pip": "#111111",
        "cube": "#ece6d8",
        "cube_ink": "#111111",
        "mark": "#ffb36b",
        "line": "none",
    },
    # black on white: outlines, no filled areas but the opponent's checkers (and a light grey on dark points)
    "print": {
        "bg": "#ffffff",
        "ink": "#000000",
        "frame": "none",
        "field": "none",
        "tray": "none",
        "dark": "#d9d9d9",
        "light": "none",
        "point_stroke": "#000000",
        "label": "#000000",
        "mover": "#ffffff",
        "mover_stroke": "#000000",
        "opp": "#000000",
        "opp_stroke": "#000000",
        "die": "#ffffff",
        "die_pip": "#000000",
        "cube": "#ffffff",
        "cube_ink": "#000000",
        "mark": "#000000",
        "line": "#000000",
    },
}

_PIPS = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.5), (0.75, 0.5), (0.25, 0.75), (0.75, 0.75)),
}


def _check(d: Diagram, theme: str) -> None:
    """Raise :class:`~nardy.rules.errors.InvalidOptionError` (a ``ValueError``) for a field out of range."""
    if not isinstance(d.position, Position):
        raise InvalidOptionError(f"diagram position {d.position!r}: expected a Position")
    game = d.position.game
    if theme not in THEMES:
        raise InvalidOptionError(f"theme {theme!r}: expected one of {', '.join(THEMES)}")
    if d.numbering not in NUMBERINGS[game]:
        raise InvalidOptionError(
            f"numbering {d.numbering!r} is not available for {game}: expected one of {', '.join(NUMBERINGS[game])}"
        )
    if d.dice is not None:
        check_dice(d.dice)
    c = d.cube
    if isinstance(c, bool) or not isinstance(c, int) or not (c == 0 or (1 <= c <= MAX_CUBE and c & (c - 1) == 0)):
        raise InvalidOptionError(f"cube {c!r}: expected 0 (no cube) or a power of two 1-{MAX_CUBE}")
    if d.cube_owner not in (None, 0, 1):
        raise InvalidOptionError(f"cube owner {d.cube_owner!r}: expected None (centred), 0 (mover) or 1 (opponent)")
    for what, v in (("length", d.length),) + tuple(("score", s) for s in (d.score or ())):
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_POINTS:
            raise InvalidOptionError(f"{what} {v!r}: expected an integer 0-{MAX_POINTS}")
    if d.score is not None and len(d.score) != 2:
        raise InvalidOptionError(f"score {d.score!r}: expected (mover, opponent)")
    if len(d.names) != 2 or any(not isinstance(n, str) or len(n) > MAX_NAME for n in d.names):
        raise InvalidOptionError(f"names {d.names!r}: expected two names of at most {MAX_NAME} characters")
    if not isinstance(d.title, str) or len(d.title) > MAX_TITLE:
        raise InvalidOptionError(f"title: expected at most {MAX_TITLE} characters")
    for what, text in (("names", d.names[0]), ("names", d.names[1]), ("title", d.title)):
        if not _printable(text):
            raise InvalidOptionError(f"{what}: no control characters")
    if d.side not in (0, 1):
        raise InvalidOptionError(f"side {d.side!r}: expected 0 (White) or 1 (Black)")
    w = d.words
    if len(w) != 3 or any(not isinstance(x, str) or len(x) > MAX_WORD or not _printable(x) for x in w):
        raise InvalidOptionError(f"words: expected three printable texts of at most {MAX_WORD} characters")


def _printable(text: str) -> bool:
    """No control character (C0, DEL, C1), surrogate or non-character U+FFFE/U+FFFF: text an SVG document
    (XML) may hold and a PNG draws on one line."""
    return not any(
        ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or 0xD800 <= ord(c) < 0xE000 or c in "\ufffe\uffff" for c in text
    )


def height(d: Diagram) -> int:
    """The drawing's height in user units (its width is :data:`WIDTH`): the board, the two name lines and
    the caption's band when there is a caption."""
    return _BOARD_H + 2 * _BAND + (_CAPTION if d.title else 0)


def _point_x(p: int) -> float:
    """The left edge of the mover's point ``p``'s column."""
    if p <= 6:
        return _FIELD_R + (6 - p) * _POINT_W
    if p <= 12:
        return _FIELD_L + (12 - p) * _POINT_W
    if p <= 18:
        return _FIELD_L + (p - 13) * _POINT_W
    return _FIELD_R + (p - 19) * _POINT_W


def _score_text(d: Diagram) -> str:
    parts = []
    if d.score is not None:
        parts.append(f"{d.score[0]}-{d.score[1]}")
    if d.length:
        parts.append(d.words[1].replace("{n}", str(d.length)))
    if d.crawford:
        parts.append(d.words[2])
    return ", ".join(parts)


def primitives(d: Diagram, theme: str = "light") -> tuple[tuple[int, int], list]:
    """The drawing of ``d`` as ``((width, height), [primitive, ...])`` in painting order (user units;
    :class:`Rect`, :class:`Polygon`, :class:`Circle`, :class:`Text`). Checkers have ``cls`` ``"checker
    mover"`` / ``"checker opponent"``, point labels ``"label"``, pip counts ``"pips mover"`` / ``"pips
    opponent"``, the cube ``"cube"``, dice ``"die"``.

    Raises:
        InvalidOptionError: a field of ``d`` or ``theme`` out of range (the message says which).
    """
    _check(d, theme)
    t = _THEME[theme]
    pos = d.position
    game = pos.game
    hitting = pos.rules.hitting
    me, opp = pos.mover, pos.opponent
    h = height(d)
    oy = (_CAPTION if d.title else 0) + _BAND  # the board's top
    out: list = [Rect(0, 0, WIDTH, h, t["bg"], cls="background")]

    def y(v: float) -> float:
        return oy + v

    # caption and the opponent's line
    if d.title:
        out.append(Text(WIDTH / 2, 21, d.title, 17, t["ink"], bold=True, cls="title"))
    pips = pos.pip_count()
    base_top = oy - 9
    base_bottom = oy + _BOARD_H + 21
    for who, base in ((1, base_top), (0, base_bottom)):
        fill, stroke = (t["mover"], t["mover_stroke"]) if who == 0 else (t["opp"], t["opp_stroke"])
        x = 24.0
        if who == 0:  # the side to move: an arrow before its line
            out.append(Polygon(((x - 14, base - 12), (x - 14, base), (x - 4, base - 6)), t["mark"], cls="to-move"))
        out.append(Circle(x + 8, base - 6, 8, fill, stroke, 1.5, cls="swatch"))
        name = d.names[who]
        cls = "mover" if who == 0 else "opponent"
        out.append(Text(x + 24, base, name, 15, t["ink"], anchor="start", bold=True, cls="name " + cls))
        out.append(
            Text(
                WIDTH - 24,
                base,
                d.words[0].replace("{n}", str(pips[who])),
                15,
                t["ink"],
                anchor="end",
                cls="pips " + cls,
            )
        )
    score = _score_text(d)
    if score:
        out.append(Text(WIDTH / 2, base_top, score, 15, t["ink"], cls="score"))

    # the board: frame, fields, bar, trays
    line, lw = t["line"], (1.5 if t["line"] != "none" else 0.0)
    out.append(Rect(0, y(0), WIDTH, _BOARD_H, t["frame"], line, lw, rx=12, cls="frame"))
    for fx in (_FIELD_L, _FIELD_R):
        out.append(Rect(fx, y(_TOP), 6 * _POINT_W, _BOTTOM - _TOP, t["field"], line, lw, cls="field"))
    out.append(Rect(_BAR, y(_TOP), _FIELD_R - _BAR, _BOTTOM - _TOP, t["tray"], line, lw, cls="bar"))
    for tx0 in (_TRAY_L, _TRAY_R):
        out.append(Rect(tx0, y(_TOP), _TRAY_W, _BOTTOM - _TOP, t["tray"], line, lw, cls="tray"))

    # points and their labels
    pstroke = t["point_stroke"]
    for p in range(1, 25):
        x = _point_x(p)
        top = p >= 13
        base_y, tip_y = (_TOP, _TOP + _POINT_H) if top else (_BOTTOM, _BOTTOM - _POINT_H)
        fill = t["dark"] if p % 2 == 1 else t["light"]
        out.append(
            Polygon(
                ((x + 1, y(base_y)), (x + _POINT_W - 1, y(base_y)), (x + _POINT_W / 2, y(tip_y))),
                fill,
                pstroke,
                1.0 if pstroke != "none" else 0.0,
                cls="point",
            )
        )
        text = label(d.numbering, d.side, p)
        out.append(Text(x + _POINT_W / 2, y(_TOP - 10 if top else _BOTTOM + 22), text, 17, t["label"], cls="label"))

    def checker(cx: float, cy: float, who: int) -> None:
        if who == 0:
            out.append(Circle(cx, cy, _R, t["mover"], t["mover_stroke"], 2, cls="checker mover"))
        else:
            out.append(Circle(cx, cy, _R, t["opp"], t["opp_stroke"], 2, cls="checker opponent"))

    def count(cx: float, cy: float, n: int, who: int) -> None:
        ink = t["opp"] if who == 0 else t["mover"]
        out.append(Text(cx, cy + 6, str(n), 17, ink, bold=True, cls="count"))

    # checkers on the points: a stack of more than 5 is pressed together and its top checker shows the count
    room = _POINT_H - 2 * _R - 4
    for who, side in ((0, me), (1, opp)):
        for q in range(1, 25):
            n = side[q]
            if not n:
                continue
            p = q if who == 0 else _opp_to_mover(q, hitting)
            step = 2 * _R if n <= 5 else min(2 * _R, room / (n - 1))
            cx = _point_x(p) + _POINT_W / 2
            top = p >= 13
            for k in range(n):
                off = _R + 2 + k * step
                checker(cx, y(_TOP + off if top else _BOTTOM - off), who)
            if n > 5:
                off = _R + 2 + (n - 1) * step
                count(cx, y(_TOP + off if top else _BOTTOM - off), n, who)

    # the bar (hitting games): the mover's hit checkers above the middle (they enter at the top right)
    bar_x = (_BAR + _FIELD_R) / 2
    for who, side in ((0, me), (1, opp)):
        n = side[25]
        if not n:
            continue
        step = 20 if n <= 8 else 160 / n
        for k in range(n):
            cy = _MID - 45 - k * step if who == 0 else _MID + 45 + k * step
            checker(bar_x, y(cy), who)
        if n > 1:
            last = (n - 1) * step
            count(bar_x, y(_MID - 45 - last if who == 0 else _MID + 45 + last), n, who)

    # borne-off checkers: the mover's in the right tray from the bottom; the opponent's in the right tray from
    # the top, or in long nardy the left tray (its home is the mover's 13-18)
    for who, side in ((0, me), (1, opp)):
        n = side[0]
        if not n:
            continue
        tx = _TRAY_R if who == 0 or game != "long" else _TRAY_L
        fill, stroke = (t["mover"], t["mover_stroke"]) if who == 0 else (t["opp"], t["opp_stroke"])
        for k in range(n):
            ry = _BOTTOM - 6 - (k + 1) * 11 if who == 0 else _TOP + 6 + k * 11
            out.append(Rect(tx + 5, y(ry), _TRAY_W - 10, 10, fill, stroke, 1.5, rx=3, cls="off"))
        ty = _BOTTOM - 6 - n * 11 - 8 if who == 0 else _TOP + 6 + n * 11 + 20
        out.append(Text(tx + _TRAY_W / 2, y(ty), str(n), 16, t["label"], bold=True, cls="off-count"))

    # the cube: the left tray, centred or at its owner's side
    if d.cube:
        if d.cube_owner is None:
            cy = _MID - 20
        elif d.cube_owner == 0:
            cy = _BOTTOM - 60
        else:
            cy = _MID - 100 if game == "long" else _TOP + 20
        shown = 64 if d.cube == 1 and d.cube_owner is None else d.cube
        out.append(Rect(_TRAY_L + 5, y(cy), 40, 40, t["cube"], t["cube_ink"], 2, rx=6, cls="cube"))
        out.append(
            Text(_TRAY_L + 25, y(cy + 27), str(shown), 20 if shown < 100 else 14, t["cube_ink"], bold=True, cls="cube")
        )

    # the dice: the mover's, in the middle of the mover's half
    if d.dice is not None:
        size, gap = 42, 10
        x0 = _FIELD_R + 3 * _POINT_W - (2 * size + gap) / 2
        for i, v in enumerate(check_dice(d.dice)):
            dx = x0 + i * (size + gap)
            dy = y(_MID - size / 2)
            out.append(Rect(dx, dy, size, size, t["die"], t["die_pip"], 1.5, rx=size / 6, cls="die"))
            for px, py in _PIPS[v]:
                out.append(Circle(dx + px * size, dy + py * size, size / 11, t["die_pip"], cls="die-pip"))
    return (WIDTH, h), out


def _opp_to_mover(q: int, hitting: bool) -> int:
    """The mover's number of the opponent's own point ``q`` (1..24)."""
    return 25 - q if hitting else ((q + 11) % 24) + 1


# ----- SVG --------------------------------------------------------------------------------------------------
def _n(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def _paint(fill: str, stroke: str, width: float) -> str:
    s = f' fill="{fill}"'
    if stroke != "none" and width:
        s += f' stroke="{stroke}" stroke-width="{_n(width)}"'
    return s


def _cls(c: str) -> str:
    return f' class="{c}"' if c else ""


def diagram_svg(d: Diagram, theme: str = "light", width: float | None = None) -> str:
    """The diagram as a standalone SVG document (``<svg xmlns=...>...</svg>``, no scripts, no external
    references), :data:`WIDTH` by :func:`height` user units, shown ``width`` px wide (the height in
    proportion; ``None``: :data:`WIDTH`).

    Raises:
        InvalidOptionError: a field of ``d``, ``theme`` or ``width`` (16-4000) out of range (a ``ValueError``).
    """
    if width is not None and (
        isinstance(width, bool) or not isinstance(width, (int, float)) or not 16 <= width <= 4000
    ):
        raise InvalidOptionError(f"width {width!r}: expected a number 16-4000")
    (w, h), prims = primitives(d, theme)
    shown_w = w if width is None else width
    shown_h = h * shown_w / w
    aria = d.title or f"{d.position.game} position {d.position.id()}"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board diagram" width="{_n(shown_w)}" height="{_n(shown_h)}" '
        f'viewBox="0 0 {w} {h}" role="img" aria-label="{escape(aria, {chr(34): "&quot;"})}" '
        f'font-family="{_FONT}">'
    ]
    for p in prims:
        if isinstance(p, Rect):
            rx = f' rx="{_n(p.rx)}"' if p.rx else ""
            out.append(
                f'<rect x="{_n(p.x)}" y="{_n(p.y)}" width="{_n(p.w)}" height="{_n(p.h)}"{rx}'
                f"{_paint(p.fill, p.stroke, p.width)}{_cls(p.cls)}/>"
            )
        elif isinstance(p, Polygon):
            pts = " ".join(f"{_n(a)},{_n(b)}" for a, b in p.points)
            out.append(f'<polygon points="{pts}"{_paint(p.fill, p.stroke, p.width)}{_cls(p.cls)}/>')
        elif isinstance(p, Circle):
            out.append(
                f'<circle cx="{_n(p.cx)}" cy="{_n(p.cy)}" r="{_n(p.r)}"{_paint(p.fill, p.stroke, p.width)}'
                f"{_cls(p.cls)}/>"
            )
        else:
            bold = ' font-weight="bold"' if p.bold else ""
            out.append(
                f'<text x="{_n(p.x)}" y="{_n(p.y)}" font-size="{_n(p.size)}" text-anchor="{p.anchor}"'
                f' fill="{p.fill}"{bold}{_cls(p.cls)}>{escape(p.text)}</text>'
            )
    out.append("</svg>")
    return "".join(out)


# ----- PNG --------------------------------------------------------------------------------------------------
_FONTS: dict = {}


def _font(size: int, bold: bool):
    """A TrueType font of ``size`` pixels: DejaVu Sans (Cyrillic included) where installed, else Pillow's
    own font."""
    key = (size, bold)
    f = _FONTS.get(key)
    if f is None:
        from PIL import ImageFont

        try:
            f = ImageFont.truetype("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf", size)
        except OSError:
            try:
                f = ImageFont.load_default(size)
            except TypeError:  # Pillow before 10.1: its bitmap font, of one size
                f = ImageFont.load_default()
        _FONTS[key] = f
    return f


def diagram_png(d: Diagram, theme: str = "light", scale: float = 1.0) -> bytes:
    """The diagram as PNG bytes, drawn with Pillow: ``round(WIDTH * scale)`` by ``round(height(d) * scale)``
    pixels, RGB.

    Raises:
        InvalidOptionError: a field of ``d``, ``theme`` or ``scale`` out of range (:data:`PNG_SCALES`).
    """
    lo, hi = PNG_SCALES
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not lo <= scale <= hi:
        raise InvalidOptionError(f"scale {scale!r}: expected a number {lo:g}-{hi:g}")
    (w, h), prims = primitives(d, theme)
    from PIL import Image, ImageDraw

    s = float(scale)
    img = Image.new("RGB", (round(w * s), round(h * s)), "#ffffff")
    draw = ImageDraw.Draw(img)

    def col(c: str):
        return None if c == "none" else c

    for p in prims:
        if isinstance(p, Rect):
            box = (p.x * s, p.y * s, (p.x + p.w) * s, (p.y + p.h) * s)
            width = max(1, round(p.width * s)) if p.width and p.stroke != "none" else 0
            draw.rounded_rectangle(box, radius=p.rx * s, fill=col(p.fill), outline=col(p.stroke), width=width)
        elif isinstance(p, Polygon):
            width = max(1, round(p.width * s)) if p.width and p.stroke != "none" else 0
            draw.polygon([(a * s, b * s) for a, b in p.points], fill=col(p.fill), outline=col(p.stroke), width=width)
        elif isinstance(p, Circle):
            width = max(1, round(p.width * s)) if p.width and p.stroke != "none" else 0
            box = ((p.cx - p.r) * s, (p.cy - p.r) * s, (p.cx + p.r) * s, (p.cy + p.r) * s)
            draw.ellipse(box, fill=col(p.fill), outline=col(p.stroke), width=width)
        else:
            anchor = {"start": "ls", "middle": "ms", "end": "rs"}[p.anchor]
            draw.text(
                (p.x * s, p.y * s), p.text, fill=p.fill, font=_font(max(6, round(p.size * s)), p.bold), anchor=anchor
            )
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False)
    return buf.getvalue()

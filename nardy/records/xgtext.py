"""eXtreme Gammon's text export of a position (and of its analysis): read and write, backgammon only.

XG's "copy position" / "export position as text" writes one block like this (English; the headers are
translated in XG's other languages, the XGID line and the figures are not)::

    XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10

    X:Player 1   O:Player 2
    Score is X:0 O:0. Unlimited Game, Jacoby Beaver
     +13-14-15-16-17-18------19-20-21-22-23-24-+
     | X           O    |   | O              X |
     ... five rows of the upper half, the |BAR| row, five rows of the lower half ...
     +12-11-10--9--8--7-------6--5--4--3--2--1-+
    Pip count  X: 167  O: 167 X-O: 0-0
    Cube: 1
    X to play 52

        1. XG Roller+  13/11 13/8                   eq:+0.062
          Player:   52.87% (G:15.03% B:0.69%)
          Opponent: 47.13% (G:12.49% B:0.58%)
        2. ...

    eXtreme Gammon Version: 2.19.211.pre-release

A cube decision has ``X on roll, cube action`` and then ``Analyzed in <level>``, ``Player Winning
Chances: ...``, ``Opponent Winning Chances: ...``, ``Cubeless Equities: No Double=+0.103, Double=+0.259``,
``Cubeful Equities:`` with three lines (no double, double/take, double/pass; "redouble" when the side on
roll owns the cube, "beaver" where a beaver is right) and ``Best Cube action: No double / Take``.
Sources: the layout of exports quoted in public forum posts and in the tests of open readers of the
format (ankigammon's, a Go and a TypeScript reader: tests/data/xgtext/SOURCES.md); no official description
was reachable.

The diagram: X is the bottom player, its points numbered 1..24 as drawn (X moves from 24 down to 1);
O's checkers stand on X's numbers. Each point is a column of ``X``/``O`` letters from the edge towards
the middle (at most five drawn; when a point holds more, the fifth row shows the count, as nardy writes
it: the reader takes a number in a column as the count). X's checkers on the bar are drawn in the upper
half of the ``BAR`` column, O's in the lower half, next to the ``BAR`` row. An owned cube is drawn
beside the board, at the top when O owns it and at the bottom when X owns it; a centred cube above 1 in
the middle.

Reading (:func:`parse_xg_text`) relies on the XGID line wherever there is one: the position, dice, cube,
score, match length and Crawford flag come from it, whatever the language of the headers; the diagram and
the header lines are read only when there is no XGID. Text before the XGID and after the block (a forum
post around it) is skipped; CRLF line ends and tabs are accepted; each line is read up to :data:`MAX_LINE`
characters (XG's are under 100: the patterns then cost a bounded time a line). XG writes the side on roll
as X (its "X to play" / "X on roll" line), so the names line is read in that sense. The analysis is read
by shape, not by words: numbered candidate lines ending in ``<word>:<equity>``, the two
``NN.NN% (G:.. B:..)`` lines after each, the two numbers of the cubeless line and the three of the cubeful
block; a decimal comma is read as a point.

Writing (:func:`write_xg_text`): the same layout in English, the side on roll as X (bottom, XGID turn 1),
our analysis in XG's columns, and a last line naming nardy instead of XG's version line. XG reads the
XGID; forum readers read the diagram.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..rules.errors import NardyError, RecordError
from ..rules.ids import parse_xgid
from ..rules.position import Position
from .xgdiagram import HEADER_RE, diagram_rows, read_diagram, to_play

__all__ = [
    "MAX_TEXT",
    "MAX_LINE",
    "MAX_NAME",
    "CUBE_ACTIONS",
    "XGPlay",
    "XGCube",
    "XGPosition",
    "parse_xg_text",
    "write_xg_text",
    "xg_play_from_hint",
    "xg_cube_from_decision",
]

#: The longest text :func:`parse_xg_text` reads (characters): a position with a long analysis and a
#: forum post around it fits many times over.
MAX_TEXT = 200_000
#: The longest player name kept (characters).
MAX_NAME = 40

_XGID_RE = re.compile(r"XGID=([^\s]{1,80})", re.IGNORECASE)
# Possessive quantifiers (``++``, ``*+``, ``?+``) where a run cannot be given back: no pattern backtracks
# over a run of digits or spaces (bench/xgtext_parse.py times hostile text).
_NUM = r"[+-]?+\d++(?:[.,]\d++)?+"
_RANK_RE = re.compile(r"^\s*+(?P<rank>\d{1,3})\.\s?")
_EQ_END_RE = re.compile(
    rf"(?P<label>[^\s\d:.()*/+]{{1,12}})\s*+:\s*+(?P<eq>{_NUM})(?:\s*+\(\s*+(?P<diff>{_NUM})\s*+\))?+\s*+$"
)
_PROBS_RE = re.compile(
    r"(?P<w>\d++(?:[.,]\d++)?+)\s*+%\s*+\(\s*+[^\s:]{1,4}\s*+:\s*+(?P<g>\d++(?:[.,]\d++)?+)\s*+%\s*+"
    r"[^\s:]{1,4}\s*+:\s*+(?P<b>\d++(?:[.,]\d++)?+)\s*+%\s*+\)"
)
_EQ_AFTER_COLON_RE = re.compile(rf":\s*+(?P<eq>{_NUM})(?:\s*+\(\s*+{_NUM}\s*+\))?+\s*+$")


def _candidate(line: str) -> tuple[str, float] | None:
    """``(body, equity)`` of a candidate line ``<rank>. <level> <play> <label>:<equity> (<diff>)`` (the
    body is the level and the play), or None."""
    m = _RANK_RE.match(line)
    if m is None or "%" in line:
        return None
    rest = line[m.end() :]
    e = _EQ_END_RE.search(rest)
    if e is None:
        return None
    return rest[: e.start()].rstrip(), _num(e.group("eq"))


_TWO_EQUALS_RE = re.compile(rf"=\s*+(?P<a>{_NUM})\s*+[,;]\s*+[^=]*+=\s*+(?P<b>{_NUM})\s*+$")


def _num(text: str) -> float:
    """A figure as XG writes it (``+0.062``, ``52,87``), rounded to 6 decimals."""
    return round(float(text.replace(",", ".")), 6)


def _probs5(w: float, g: float, b: float, og: float, ob: float) -> tuple[float, float, float, float, float]:
    return (w, g, b, og, ob)


def _check_probs(probs: object, owner: str) -> tuple[float, float, float, float, float] | None:
    if probs is None:
        return None
    try:
        vals = tuple(float(x) for x in probs)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        raise RecordError(f"{owner}: probabilities {probs!r} are not numbers") from None
    if len(vals) != 5 or any(not 0.0 <= v <= 1.0 or math.isnan(v) for v in vals):
        raise RecordError(f"{owner}: probabilities {probs!r}: expected 5 fractions in 0..1")
    return _probs5(*vals)


def _check_equity(value: object, owner: str, what: str = "equity") -> float:
    try:
        v = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise RecordError(f"{owner}: {what} {value!r} is not a number") from None
    if not math.isfinite(v) or abs(v) > 1000:
        raise RecordError(f"{owner}: {what} {value!r} is not a finite equity")
    return v


@dataclass(frozen=True)
class XGPlay:
    """One candidate play of a checker-play analysis.

    Attributes:
        play: the play as written (``"13/11 13/8"``, the mover's own numbering; ``""`` for no play).
        equity: its equity for the mover (XG: cubeful, normalised to a 1-cube; nardy writes its cubeless
            money equity).
        probs: ``(win, win gammon, win backgammon, lose gammon, lose backgammon)`` as fractions
            (cumulative: a gammon counts as a win too, as XG's ``G:``), or None when not given.
        level: the analysis level as written (``"XG Roller+"``, ``"3-ply"``, ``"2-ply"``), at most 11
            characters kept in XG's column.
    Raises:
        RecordError: a non-finite equity, probabilities not five fractions, a play with a line break.
    """

    play: str
    equity: float
    probs: tuple[float, float, float, float, float] | None = None
    level: str = ""

    def __post_init__(self) -> None:
        own = f"candidate {self.play!r}"
        if not isinstance(self.play, str) or any(c in self.play for c in "\r\n\t"):
            raise RecordError(f"{own}: a play is one line of text")
        object.__setattr__(self, "play", " ".join(self.play.split()))
        object.__setattr__(self, "equity", _check_equity(self.equity, own))
        object.__setattr__(self, "probs", _check_probs(self.probs, own))
        if not isinstance(self.level, str) or any(c in self.level for c in "\r\n\t"):
            raise RecordError(f"{own}: the level is one line of text")
        object.__setattr__(self, "level", " ".join(self.level.split()))


#: The proper cube actions :attr:`XGCube.action` names.
CUBE_ACTIONS = ("no double/take", "no double/pass", "double/take", "double/pass", "too good/take", "too good/pass")


@dataclass(frozen=True)
class XGCube:
    """A cube analysis, for the side on roll, cube units normalised to the cube's value (XG's view).

    Attributes:
        no_double, double_take, double_pass: cubeful equities of the three lines.
        cubeless: ``(no double, double)`` cubeless equities, or None when not given.
        probs: cubeless probabilities as :attr:`XGPlay.probs`, or None.
        level: the level as written after ``Analyzed in`` (``"XG Roller++"``, ``"2-ply"``), or ``""``.
    The proper action (:attr:`action`) follows from the three equities (as XG's "Best Cube action"
    does): double when both double/take and double/pass beat no double; too good when no double beats
    double/pass; take when double/take is no better for the doubler than double/pass.

    Raises:
        RecordError: an equity that is not a finite number, probabilities not five fractions.
    """

    no_double: float
    double_take: float
    double_pass: float
    cubeless: tuple[float, float] | None = None
    probs: tuple[float, float, float, float, float] | None = None
    level: str = ""

    def __post_init__(self) -> None:
        own = "cube analysis"
        for name in ("no_double", "double_take", "double_pass"):
            object.__setattr__(self, name, _check_equity(getattr(self, name), own, name))
        if self.cubeless is not None:
            try:
                a, b = self.cubeless
            except (TypeError, ValueError):
                raise RecordError(f"{own}: cubeless {self.cubeless!r}: expected (no double, double)") from None
            object.__setattr__(self, "cubeless", (_check_equity(a, own), _check_equity(b, own)))
        object.__setattr__(self, "probs", _check_probs(self.probs, own))
        if not isinstance(self.level, str) or any(c in self.level for c in "\r\n\t"):
            raise RecordError(f"{own}: the level is one line of text")
        object.__setattr__(self, "level", " ".join(self.level.split()))

    @property
    def take(self) -> bool:
        """The opponent should take a double (double/take no better for the doubler than double/pass)."""
        return self.double_take <= self.double_pass

    @property
    def action(self) -> str:
        """The proper action, one of :data:`CUBE_ACTIONS` (``"no double/take"``, ``"double/pass"``, ...)."""
        best_double = min(self.double_take, self.double_pass)
        if self.no_double > self.double_pass:
            first = "too good"
        elif best_double > self.no_double:
            first = "double"
        else:
            first = "no double"
        return f"{first}/{'take' if self.take else 'pass'}"


@dataclass(frozen=True)
class XGPosition:
    """A backgammon position as XG's text export states it.

    Attributes:
        position: the :class:`~nardy.rules.position.Position` (backgammon) from the view of the side on
            roll.
        dice: the roll to play, or None (a cube decision / not rolled).
        cube: the cube's value (1, 2, 4, ...).
        owner: None centred, 0 the side on roll owns it, 1 the opponent (the :class:`nardy.rules.diagram`
            convention).
        score: ``(side on roll, opponent)`` points in a match; None in money play.
        length: the match length; 0 money.
        crawford: this is the Crawford game (match play only).
        jacoby, beaver: money play rules (XGID's Crawford/Jacoby field: 1 Jacoby, 2 beavers, 3 both).
        names: ``(side on roll, opponent)``; XG writes "Player 1" and "Player 2" when there are none.
        plays: a checker-play analysis, best first (empty when none).
        cube_analysis: a cube analysis (:class:`XGCube`) or None.
        xg: XG's figures of the decision as an ``.xgp`` file (binary, :func:`nardy.records.xg.parse_xgp`) holds
            them, in the form of :attr:`nardy.records.xg.XGMatchRecord.analysis`; None from a text export.
    Raises:
        RecordError: values the format cannot hold (not backgammon, a cube not a power of two, a score
            not below the length, Crawford in money play or at a score where it cannot be, names with
            line breaks or over :data:`MAX_NAME` characters, an owned cube of 1, dice not two of 1..6,
            both a play and a cube analysis).
    """

    position: Position
    dice: tuple[int, int] | None = None
    cube: int = 1
    owner: int | None = None
    score: tuple[int, int] | None = None
    length: int = 0
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    names: tuple[str, str] = ("Player 1", "Player 2")
    plays: tuple[XGPlay, ...] = field(default_factory=tuple)
    cube_analysis: XGCube | None = None
    xg: dict | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        own = "XG position"
        if not isinstance(self.position, Position) or self.position.game != "backgammon":
            raise RecordError(f"{own}: XG's text holds a backgammon position, got {self.position!r}")
        if self.dice is not None:
            d = tuple(self.dice)
            if len(d) != 2 or any(not isinstance(x, int) or not 1 <= x <= 6 for x in d):
                raise RecordError(f"{own}: dice {self.dice!r}: expected two of 1..6")
            object.__setattr__(self, "dice", (int(d[0]), int(d[1])))
        if not isinstance(self.cube, int) or self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << 15:
            raise RecordError(f"{own}: cube {self.cube!r}: expected a power of two, 1 to 32768")
        if self.owner not in (None, 0, 1):
            raise RecordError(f"{own}: owner {self.owner!r}: expected None (centred), 0 or 1")
        if self.owner is not None and self.cube == 1:
            raise RecordError(f"{own}: an owned cube is worth 2 or more, got 1")
        if not isinstance(self.length, int) or not 0 <= self.length <= 999:
            raise RecordError(f"{own}: match length {self.length!r}: expected 0 (money) to 999")
        if self.length:
            if self.score is None:
                object.__setattr__(self, "score", (0, 0))
            s = tuple(self.score)  # type: ignore[arg-type]
            if len(s) != 2 or any(not isinstance(x, int) or not 0 <= x < self.length for x in s):
                raise RecordError(f"{own}: score {self.score!r}: expected two scores below the length {self.length}")
            object.__setattr__(self, "score", (int(s[0]), int(s[1])))
            if self.crawford and list(s).count(self.length - 1) != 1:
                raise RecordError(
                    f"{own}: at {s[0]}-{s[1]} of a {self.length}-point match this is not the Crawford game"
                )
            if self.jacoby or self.beaver:
                raise RecordError(f"{own}: Jacoby and beavers are money play rules, not match rules")
        else:
            if self.score is not None and tuple(self.score) != (0, 0):
                raise RecordError(f"{own}: score {self.score!r} in money play: expected None")
            object.__setattr__(self, "score", None)
            if self.crawford:
                raise RecordError(f"{own}: the Crawford game is a match rule, not money play")
        names = tuple(self.names)
        if len(names) != 2 or any(not isinstance(n, str) for n in names):
            raise RecordError(f"{own}: names {self.names!r}: expected two strings")
        clean = []
        for n in names:
            n = " ".join(n.split())
            if len(n) > MAX_NAME or any(ord(c) < 32 or c == "\x7f" for c in n):
                raise RecordError(f"{own}: name {n[:60]!r}: at most {MAX_NAME} printable characters")
            clean.append(n)
        object.__setattr__(self, "names", (clean[0], clean[1]))
        object.__setattr__(self, "plays", tuple(self.plays))
        if any(not isinstance(p, XGPlay) for p in self.plays):
            raise RecordError(f"{own}: plays must be XGPlay")
        if self.plays and self.cube_analysis is not None:
            raise RecordError(f"{own}: an analysis is of a checker play or of a cube decision, not both")
        if self.cube_analysis is not None and not isinstance(self.cube_analysis, XGCube):
            raise RecordError(f"{own}: cube_analysis must be an XGCube")

    @property
    def xgid(self) -> str:
        """The XGID of this position, the side on roll as the bottom player (turn 1)."""
        cj = 1 if self.crawford else (int(self.jacoby) | (2 * int(self.beaver)))
        owner = {None: 0, 0: 1, 1: -1}[self.owner]
        try:
            return self.position.xgid(
                dice=self.dice or (0, 0),
                cube_value=self.cube,
                cube_owner=owner,
                score=self.score or (0, 0),
                match_length=self.length,
                crawford_jacoby=cj,
                max_cube=max(1024, self.cube),
            )
        except NardyError as e:
            raise RecordError(f"XG position: cannot be written as an XGID: {e}") from None


# ---------------------------------------------------------------------------------------------------
# reading


def _quote(text: str) -> str:
    text = text.strip()
    return repr(text[:80] + ("..." if len(text) > 80 else ""))


#: Lines are cut to this many characters before they are read: XG's lines are under 100, and the
#: patterns then cost at most a bounded time a line whatever the text around the export holds.
MAX_LINE = 160


def _raw_lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def _cut(line: str) -> str:
    return line[:MAX_LINE].expandtabs(8)[:MAX_LINE]


def parse_xg_text(text: str) -> XGPosition:
    """Read XG's text export of a position (with or without its analysis) into an :class:`XGPosition`.

    ``text``: the export, alone or inside other text (a forum post), any of XG's languages, LF or CRLF;
    a bare XGID line is enough. The first XGID in the text is the position (the block runs to the next
    XGID); with no XGID, the first board diagram is read together with the score, cube and "to play"
    lines after it.

    Raises:
        RecordError: no XGID nor diagram, a diagram that is not a backgammon position, an analysis line
            that cannot be read (the message quotes the line), a text over :data:`MAX_TEXT` characters,
            an XGID with a double waiting for an answer (the position before the double is what XG
            exports as a cube decision).
        InvalidIdError: a malformed XGID (the message quotes it).
    """
    if not isinstance(text, str):
        raise RecordError(f"XG text must be a str, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise RecordError(f"XG text of {len(text)} characters: at most {MAX_TEXT}")
    raw = _raw_lines(text)
    lines = [_cut(ln) for ln in raw]
    start = next((i for i, ln in enumerate(raw) if _XGID_RE.search(ln)), None)
    if start is not None:
        m = _XGID_RE.search(raw[start])
        assert m is not None
        xgid = "XGID=" + m.group(1)
        end = next((i for i in range(start + 1, len(raw)) if _XGID_RE.search(raw[i])), len(lines))
        block = lines[start + 1 : end]
        base = _from_xgid(xgid)
        names = _names(block)
        # XG writes the side on roll as X ("X to play 52", "X on roll, cube action") whatever the
        # XGID's turn; where that line is missing, X is the XGID's bottom player
        said = to_play(block)
        if names is not None and (said[0] if said is not None else base["turn"]) == -1:
            names = (names[1], names[0])
    else:
        header = next((i for i, ln in enumerate(lines) if HEADER_RE.search(ln)), None)
        if header is None:
            raise RecordError(
                "no XGID line (XGID=...) and no board diagram (+13-14-15-16-17-18------19-20-21-22-23-24-+) "
                f"in the text: {_quote(text)}"
            )
        begin = header
        while begin > 0 and header - begin < 3 and lines[begin - 1].strip():
            begin -= 1
        block = lines[begin:]
        base = read_diagram(block, header - begin)
        names = _names(block)
        if names is not None and base["turn"] == -1:
            names = (names[1], names[0])
    plays, cube = _analysis(block)
    return XGPosition(
        position=base["position"],
        dice=base["dice"],
        cube=base["cube"],
        owner=base["owner"],
        score=base["score"],
        length=base["length"],
        crawford=base["crawford"],
        jacoby=base["jacoby"],
        beaver=base["beaver"],
        names=names if names is not None else ("Player 1", "Player 2"),
        plays=tuple(plays),
        cube_analysis=cube,
    )


def _from_xgid(xgid: str) -> dict:
    st = parse_xgid(xgid)
    if st.cube_action:
        raise RecordError(
            f"{xgid}: a double is waiting for an answer ({st.cube_action}); export the position before the "
            "double (XG's cube decision) instead"
        )
    pos = Position.from_xgid(xgid, "backgammon")
    bottom = st.turn == 1
    score = (st.score_bottom, st.score_top) if bottom else (st.score_top, st.score_bottom)
    holder = st.cube_holder
    return {
        "position": pos,
        "turn": st.turn,
        "dice": st.dice if st.dice != (0, 0) else None,
        "cube": st.cube_value,
        "owner": None if holder is None else (0 if holder == "mover" else 1),
        "score": score if st.match_length else None,
        "length": st.match_length,
        "crawford": st.crawford,
        "jacoby": st.jacoby,
        "beaver": st.beaver,
    }


_NAMES_RE = re.compile(r"^\s*X\s*:\s*(?P<x>.*?)\s+O\s*:\s*(?P<o>.*?)\s*$")


def _names(block: Sequence[str]) -> tuple[str, str] | None:
    """``(X, O)`` from the first ``X:name   O:name`` line of the block, or None."""
    for ln in block:
        if HEADER_RE.search(ln):
            break
        m = _NAMES_RE.match(ln)
        if m:
            return (m.group("x")[:MAX_NAME], m.group("o")[:MAX_NAME])
    return None


def _cubeful_at(block: Sequence[str]) -> int | None:
    """Where the cubeful block starts: three lines in a row each ``<words>: <equity> (<diff>)``, the
    second and third naming a double with a ``/`` (``Double/Take:``, ``Redouble/Pass:``, ``Doublet/Prend:``)."""
    for k in range(len(block) - 2):
        three = block[k : k + 3]
        if all(_EQ_AFTER_COLON_RE.search(ln) and "%" not in ln and "=" not in ln for ln in three) and all(
            "/" in ln.split(":", 1)[0] for ln in three[1:]
        ):
            if _candidate(three[0]) is None:
                return k
    return None


def _analysis(block: Sequence[str]) -> tuple[list[XGPlay], XGCube | None]:
    """The checker-play candidates or the cube analysis of a block (lines after the XGID)."""
    cubeful = _cubeful_at(block)
    if cubeful is not None:
        return [], _cube_analysis(block, cubeful)
    plays: list[XGPlay] = []
    probs_lines: list[tuple[float, float, float]] = []
    current: dict | None = None
    for ln in block:
        c = _candidate(ln)
        if c is not None:
            if current is not None:
                plays.append(_make_play(current, probs_lines))
            level, play = _split_level(c[0])
            if play == _NO_PLAY:
                play = ""
            current = {"line": ln, "level": level, "play": play, "eq": c[1]}
            probs_lines = []
        elif current is not None:
            pm = _PROBS_RE.search(ln)
            if pm and len(probs_lines) < 2:
                probs_lines.append((_num(pm.group("w")), _num(pm.group("g")), _num(pm.group("b"))))
    if current is not None:
        plays.append(_make_play(current, probs_lines))
    return plays, None


def _make_play(current: dict, probs_lines: list[tuple[float, float, float]]) -> XGPlay:
    probs = None
    if len(probs_lines) == 2:
        (w, g, b), (_ow, og, ob) = probs_lines
        probs = _probs5(*(round(v / 100.0, 6) for v in (w, g, b, og, ob)))
    try:
        return XGPlay(current["play"], current["eq"], probs, current["level"])
    except RecordError as e:
        raise RecordError(f"candidate line {_quote(current['line'])}: {e}") from None


_NO_PLAY = "(no play)"


def _split_level(body: str) -> tuple[str, str]:
    """``"XG Roller++ Bar/23 13/8"`` -> ``("XG Roller++", "Bar/23 13/8")``: the play is the trailing run
    of words holding a ``/``; a level glued to it (``"Roller++Bar/10"``, whitespace lost in a web page)
    is cut after its last ``+``."""
    toks = body.split()
    k = len(toks)
    while k > 0 and "/" in toks[k - 1]:
        k -= 1
    if k == len(toks):
        # no play written with '/': XG's fixed 11-character level column, then the words of the play
        if len(body) > 12 and body[11] == " ":
            return body[:11].strip(), body[12:].strip()
        return body.strip(), ""
    level, play = toks[:k], toks[k:]
    first = play[0]
    glued = re.match(r"^(.*\+)([A-Za-z]*\d*/.*)$", first)
    if glued:
        level = level + [glued.group(1)]
        play = [glued.group(2)] + play[1:]
    return " ".join(level), " ".join(play)


def _cube_analysis(block: Sequence[str], cubeful: int) -> XGCube:
    before = block[:cubeful]
    cubeless = None
    probs_lines: list[tuple[float, float, float]] = []
    level = ""
    for ln in before:
        pm = _PROBS_RE.search(ln)
        cm = _TWO_EQUALS_RE.search(ln)
        if cm:
            cubeless = (_num(cm.group("a")), _num(cm.group("b")))
        elif pm:
            if len(probs_lines) < 2:
                probs_lines.append((_num(pm.group("w")), _num(pm.group("g")), _num(pm.group("b"))))
        elif not level and ":" not in ln:
            lm = _LEVEL_RE.match(ln)
            if lm:
                level = lm.group("lvl")
    eqs = []
    for ln in block[cubeful : cubeful + 3]:
        em = _EQ_AFTER_COLON_RE.search(ln)
        assert em is not None
        eqs.append(_num(em.group("eq")))
    probs = None
    if len(probs_lines) == 2:
        (w, g, b), (_ow, og, ob) = probs_lines
        probs = _probs5(*(round(v / 100.0, 6) for v in (w, g, b, og, ob)))
    try:
        return XGCube(eqs[0], eqs[1], eqs[2], cubeless=cubeless, probs=probs, level=level)
    except RecordError as e:
        raise RecordError(f"cube analysis at {_quote(block[cubeful])}: {e}") from None


_LEVEL_RE = re.compile(r"^\s*\S+(?:\s+\S+)?\s+(?P<lvl>(?:XG\s+Roller\+*|\d+-\S+|Rollout\S*|Book\S*)[^:%]*?)\s*$")


# ---------------------------------------------------------------------------------------------------
# writing


def _fmt_eq(v: float) -> str:
    """An equity as XG writes it: sign and three decimals (four when the value needs them)."""
    return f"{v:+.3f}" if round(v, 3) == round(v, 6) else f"{v:+.4f}"


def _fmt_probs(label: str, win: float, g: float, b: float) -> str:
    return f"{label}{win * 100:.2f}% (G:{g * 100:.2f}% B:{b * 100:.2f}%)"


def write_xg_text(xp: XGPosition, *, program: str = "nardy") -> str:
    """``xp`` in XG's text layout (English headers), the side on roll as X, ending in a newline.

    The block: the XGID, ``X:<name>   O:<name>``, the score line, the diagram, pip counts with the score,
    the cube, ``X to play <dice>`` (or ``X on roll, cube action``), then the analysis: each candidate as
    ``<rank>. <level> <play> eq:<equity> (<difference to the best>)`` with the two probability lines, or
    the cube analysis (winning chances, cubeless and cubeful equities, the best action), and a last line
    naming ``program``. :func:`parse_xg_text` reads it back to an equal :class:`XGPosition`.

    Raises:
        RecordError: ``xp`` is not an :class:`XGPosition`.
    """
    if not isinstance(xp, XGPosition):
        raise RecordError(f"write_xg_text needs an XGPosition, got {type(xp).__name__}")
    pos = xp.position
    out = [xp.xgid, "", f"X:{xp.names[0]}   O:{xp.names[1]}"]
    if xp.length:
        s = xp.score or (0, 0)
        out.append(f"Score is X:{s[0]} O:{s[1]} {xp.length} pt.(s) match.")
    else:
        rules = ", ".join(w for w, on in (("Jacoby", xp.jacoby), ("Beaver", xp.beaver)) if on)
        out.append("Score is X:0 O:0. Unlimited Game" + (f", {rules}" if rules else ""))
    out += diagram_rows(pos, xp.cube, xp.owner)
    pm, po = pos.pip_count()
    if xp.length:
        s = xp.score or (0, 0)
        tail = f"{s[0]}-{s[1]}/{xp.length}" + (" Crawford" if xp.crawford else "")
    else:
        tail = "0-0"
    out.append(f"Pip count  X: {pm}  O: {po} X-O: {tail}")
    cube_line = f"Cube: {xp.cube}"
    if xp.owner is not None:
        cube_line += f", {'X' if xp.owner == 0 else 'O'} own cube"
    out.append(cube_line)
    out.append(f"X to play {xp.dice[0]}{xp.dice[1]}" if xp.dice else "X on roll, cube action")
    out.append("")
    if xp.plays:
        best = xp.plays[0].equity
        for rank, p in enumerate(xp.plays, 1):
            eq = f"eq:{_fmt_eq(p.equity)}"
            if rank > 1:
                eq += f" ({_fmt_eq(p.equity - best)})"
            out.append(f"    {rank}. {p.level[:11]:<11} {p.play or _NO_PLAY:<28} {eq}")
            if p.probs is not None:
                w, g, b, og, ob = p.probs
                out.append(_fmt_probs("      Player:   ", w, g, b))
                out.append(_fmt_probs("      Opponent: ", 1.0 - w, og, ob))
            out.append("")
    elif xp.cube_analysis is not None:
        c = xp.cube_analysis
        re_ = "re" if xp.owner == 0 else ""
        word = "Redouble" if re_ else "Double"
        out.append(f"Analyzed in {c.level}" if c.level else "Analyzed")
        if c.probs is not None:
            w, g, b, og, ob = c.probs
            out.append(_fmt_probs("Player Winning Chances:   ", w, g, b))
            out.append(_fmt_probs("Opponent Winning Chances: ", 1.0 - w, og, ob))
        out.append("")
        if c.cubeless is not None:
            out.append(f"Cubeless Equities: No {word}={_fmt_eq(c.cubeless[0])}, {word}={_fmt_eq(c.cubeless[1])}")
            out.append("")
        best = max(c.no_double, min(c.double_take, c.double_pass))
        out.append("Cubeful Equities:")
        for label, v in (
            (f"No {word.lower()}:", c.no_double),
            (f"{word}/Take:", c.double_take),
            (f"{word}/Pass:", c.double_pass),
        ):
            diff = "" if v == best else f" ({_fmt_eq(v - best)})"
            out.append(f"       {label:<15}{_fmt_eq(v)}{diff}")
        out.append("")
        first, second = c.action.split("/")
        head = {"no double": f"No {word.lower()}", "double": word, "too good": f"Too good to {word.lower()}"}[first]
        out.append(f"Best Cube action: {head} / {second.capitalize()}")
        out.append("")
    out.append(f"{program} Version: {_version()}")
    return "\n".join(out) + "\n"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("nardy")
    except Exception:  # not installed: a checkout
        return "dev"


# ---------------------------------------------------------------------------------------------------
# from nardy's analysis


def xg_play_from_hint(hint, level: str = "") -> XGPlay:
    """An :class:`XGPlay` from a :class:`nardy.engine.bot.Hint` (backgammon): its play in the mover's own
    numbering, its cubeless money equity rounded to 3 decimals, its probabilities rounded to XG's 0.01%
    (so that the written text reads back equal), ``level`` (default ``"<ply>-ply"``)."""
    d = hint.probabilities.as_dict()
    probs = tuple(
        round(round(float(d.get(k, 0.0)) * 100, 2) / 100, 6)
        for k in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
    )
    return XGPlay(str(hint.play), round(float(hint.equity), 3), _probs5(*probs), level or f"{hint.ply}-ply")


def xg_cube_from_decision(decision, level: str = "") -> XGCube:
    """An :class:`XGCube` from a :class:`nardy.flow.cubetheory.CubeDecision` (its ``equities``
    ``"no double"``, ``"double/take"``, ``"double/pass"``, rounded to 3 decimals, and probabilities)."""
    e = decision.equities
    probs = None
    pr = getattr(decision, "probabilities", None)
    if pr is not None:
        d = pr.as_dict()
        probs = _probs5(
            *(
                round(round(float(d.get(k, 0.0)) * 100, 2) / 100, 6)
                for k in ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
            )
        )
    return XGCube(
        round(float(e["no double"]), 3),
        round(float(e["double/take"]), 3),
        round(float(e["double/pass"]), 3),
        probs=probs,
        level=level,
    )

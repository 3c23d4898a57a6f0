"""Jellyfish ``.mat`` match records: read, replay through the rules, write.

The ``.mat`` text is the format GNU Backgammon, eXtreme Gammon, BGBlitz and the playing sites
exchange (docs/rules.md "Notation", "Records")::

    ; [Variation "Backgammon"]

     7 point match

     Game 1
     gnubg : 0                      root : 0
      1)                             32: 24/21 13/11
      2) 42: 6/4* 8/4                22: 25/23 13/11 6/4 6/4
      3)  Doubles => 2                Takes
      4) 54:                         64: 23/17* 11/7
     ...
          Wins 1 point

* ``;`` lines are comments; ``; [Key "value"]`` lines are headers. ``Variation`` names the game
  (``Backgammon``, ``Short Nardy``, ``Long Nardy``; the game-name aliases of nardy.rules accepted); the nardy games'
  options are written as headers too (``Opening``, ``Scoring``, ``Strict Bear-off``,
  ``Head Exception``, ``Last Roll``, ``Cube``), with ``Crawford``, ``Jacoby``, ``Beavers`` and
  ``CubeLimit`` for the cube.
* `` N point match`` (0 = money session), then for each game `` Game k``, a score line
  ``name : score   name : score`` and numbered lines with two columns: the left column is player 0
  (White, the first name), the right column player 1 (Black). A cell is a roll and its play from that
  player's own view (``31: 8/5 6/5``; ``25`` or ``bar`` for the bar, ``0`` or ``off`` for off, ``*``
  hits, nothing after the roll for a dance), ``Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``,
  ``Wins N point(s)`` (in the winner's column; when the game is not over by then it is a resignation
  accepted at the level worth N points), or ``Draw N point(s) each`` (long nardy ``last-roll`` draw,
  this program's own line). Long nardy plays are in each player's own numbering.

:func:`parse_mat` parses a record's text into a :class:`MatchRecord` (syntax only) and
:func:`read_mat` reads a file and parses it; a string is never taken for a file name, so text from
outside (a request body) cannot make the reader open a file. :func:`replay` plays a record through
:class:`~nardy.flow.match.Match`: every play must be legal, every cube action in turn, every ``Wins``
line and game score line must agree with the computed score; the first violation raises
:class:`~nardy.rules.errors.RecordError` naming the game, move number, player and reason, with
``.partial`` holding the valid part. Whatever the text, parsing and replaying it raise no exception
but :class:`~nardy.rules.errors.RecordError`: every number is bounded (``MAX_LENGTH``, ``MAX_SCORE``,
``MAX_CUBE``, ...) before it is used, every line is read in time linear in its length, and a message
quotes at most 40 characters of any piece of the input. :func:`write_mat` writes a match (or one
game) in the same format, as GNU Backgammon lays it out.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..flow.events import (
    AcceptEvent,
    BeaverEvent,
    DeclineEvent,
    DoubleEvent,
    DropEvent,
    EndEvent,
    PassEvent,
    PlayEvent,
    ResignEvent,
    TakeEvent,
)
from ..rules.errors import NardyError, RecordError
from ..rules.variants import Rules, game_name, get_rules

__all__ = [
    "MatAction",
    "MatGame",
    "MatchRecord",
    "RecordWarning",
    "WARNINGS",
    "parse_mat",
    "read_mat",
    "replay",
    "write_mat",
    "VARIATIONS",
]

#: The non-standard things a record may hold that :func:`parse_mat` and :func:`replay` read (unless
#: ``strict``), each a :class:`RecordWarning` code with its English detail (``{params}`` filled in;
#: ``{player}`` is 0 for the left column, 1 for the right one, worded as the player's name). Front ends word
#: them from the code in the player's language (nardy.texts.messages). What GNU Backgammon's import does with the
#: same text is the reference: each reading gives the final score gnubg gives (docs/records.md).
WARNINGS = {
    "byte_order_mark": "the file starts with a byte-order mark (ignored)",
    "galaxy_losses": (
        "'Losses {points} point' (Backgammon Galaxy's line for the loser, {player}) ignored: the winner's "
        "'Wins' line scores the game"
    ),
    "losses_resign": (
        "'Losses {points} point' with no 'Wins' line after it: read as {player} resigning, worth {points}"
    ),
    "missing_line_break": "a second move number '{move})' inside the line: read as the start of a new line",
    "cannot_move": "'Cannot Move' after the roll {dice}: read as a dance (no play)",
    "resigns_line": "'Resigns' ({player}): the 'Wins' line after it scores the resignation",
    "roll_then_resign": "{player} rolled {dice} and resigned without playing (an empty play, then 'Wins')",
    "unknown_play_resign": (
        "'{text}' after the roll {dice} (the play is unknown): read as {player} resigning after the roll, as "
        "XG writes it"
    ),
    "forced_play_blank": "no play written for {dice}: the only legal play {play} is made",
    "wins_capped": (
        "'Wins {stated}' is capped at the points the winner needed or the match length; the game is worth "
        "{points} ({level}, cube {cube}), which counts"
    ),
    "wins_differs": "'Wins {stated}' but the game is worth {points} ({level}, cube {cube}), which counts",
    "resign_value": (
        "'Wins {stated}' before the game is over: no resignation is worth exactly that; read as a "
        "resignation of a {level}, worth {points} with the cube at {cube}"
    ),
    "resumed_match": "the first game starts at {score0}-{score1}: a resumed match, scored from there",
    "resumed_post_crawford": "the resumed match doubles in its first game: the Crawford game was before it",
    "unplayed_last_roll": "the record ends with {player}'s roll {dice}, not played: the game is unfinished",
    "empty_name": "player {column} has no name: called '{name}'",
}


@dataclass(frozen=True)
class RecordWarning:
    """A non-standard thing a record holds, read the way GNU Backgammon's import reads it.

    Attributes:
        code: a key of :data:`WARNINGS` (worded in English and Russian by nardy.texts.messages).
        params: the values the code's text needs (JSON values; ``player`` 0/1 = the left/right column).
        line: the line of the file (1-based) where it is, or ``None``.
        game: the game number (1-based), or ``None``; move: the move number of the line, or ``None``.
    """

    code: str
    params: dict = field(default_factory=dict)
    line: int | None = None
    game: int | None = None
    move: int | None = None

    def message(self, players=None) -> str:
        """The English detail, with ``players`` (the two names) for ``{player}`` (default White/Black)."""
        names = players or ("White", "Black")
        params = dict(self.params)
        if params.get("player") in (0, 1):
            params["player"] = _who(names[params["player"]])
        if isinstance(params.get("dice"), (list, tuple)):
            params["dice"] = "".join(str(d) for d in params["dice"])
        where = f"line {self.line}: " if self.line else (f"game {self.game}: " if self.game else "")
        return where + WARNINGS[self.code].format(**params)

    def to_dict(self, players=None) -> dict:
        """``{"code", "params", "line", "game", "move", "message"}`` (the English detail)."""
        return {
            "code": self.code,
            "params": dict(self.params),
            "line": self.line,
            "game": self.game,
            "move": self.move,
            "message": self.message(players),
        }


#: ``Variation`` header value written for each game.
VARIATIONS = {"backgammon": "Backgammon", "short": "Short Nardy", "long": "Long Nardy"}


@dataclass
class MatAction:
    """One cell of a record.

    Attributes:
        player: 0 (left column) or 1 (right column).
        kind: ``"move"`` (a roll and its play), ``"double"``, ``"take"``, ``"drop"``, ``"beaver"``,
            ``"wins"`` or ``"draw"``.
        dice: the roll for a move, else ``None``.
        text: the play as written (``""`` for a dance), else ``""``.
        value: the cube value for a double/beaver, the points for wins/draw.
        move: the move number of the line; line: the line number in the file (1-based).
    """

    player: int
    kind: str
    dice: tuple | None = None
    text: str = ""
    value: int | float | None = None
    move: int = 0
    line: int = 0

    def to_dict(self) -> dict:
        d = {"player": self.player, "kind": self.kind, "move": self.move}
        if self.dice:
            d["dice"] = list(self.dice)
        if self.kind == "move":
            d["play"] = self.text
        if self.value is not None:
            d["value"] = self.value
        return d


@dataclass
class MatGame:
    """One game of a record: its number, the score stated at its start and its cells in order."""

    number: int
    score: tuple | None = None
    names: tuple | None = None
    actions: list = field(default_factory=list)
    line: int = 0


@dataclass
class MatchRecord:
    """A parsed ``.mat`` record.

    Attributes:
        length: match length (0 = money session / unknown).
        players: the two names (from the headers or the first score line).
        games: list of :class:`MatGame`.
        headers: ``; [Key "value"]`` headers, in order.
        warnings: the :class:`RecordWarning` of each non-standard thing read (empty when ``strict``);
            :func:`replay` adds those it meets.
        strict: parsed with ``strict=True`` (only the standard format; :func:`replay` of the record is strict).
    """

    length: int = 0
    players: tuple = ("White", "Black")
    games: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    strict: bool = False

    def header(self, *names, default=None):
        """A header's value by any of ``names`` (case, spaces, ``-`` and ``_`` ignored)."""
        want = {_norm_key(n) for n in names}
        for k, v in self.headers.items():
            if _norm_key(k) in want:
                return v
        return default

    @property
    def game(self) -> str:
        """The game named by the ``Variation`` header (``backgammon`` when absent)."""
        var = self.header("Variation")
        if var is None:
            return "backgammon"
        try:
            return game_name(var)
        except NardyError:
            raise RecordError(
                f"unknown Variation {_q(var)}: expected Backgammon, Short Nardy or Long Nardy",
                reason="unknown variation",
                partial=self,
            ) from None

    def rules(self) -> Rules:
        """The :class:`~nardy.rules.Rules` the headers describe."""
        opts = {}
        for names, key in (
            (("Opening",), "opening"),
            (("Scoring",), "scoring"),
            (("Strict Bear-off", "StrictBearOff"), "strict-bear-off"),
            (("Head Exception", "HeadException"), "head-exception"),
            (("Last Roll", "LastRoll"), "last-roll"),
            (("Cube",), "cube"),
        ):
            v = self.header(*names)
            if v is not None:
                if len(v) > MAX_OPTION:
                    raise RecordError(
                        f"bad rules header: {names[0]} {_q(v)} is too long ({len(v)} characters, at most {MAX_OPTION})",
                        reason=f"{names[0]} too long",
                        partial=self,
                    )
                opts[key] = v.strip().lower() if key != "scoring" else v
        game = self.game
        try:
            return get_rules(game, **opts)
        except NardyError as e:
            raise RecordError(f"bad rules header: {e}", reason=str(e), partial=self) from None

    def to_dict(self) -> dict:
        return {
            "length": self.length,
            "players": list(self.players),
            "headers": dict(self.headers),
            "games": [
                {
                    "number": g.number,
                    "score": list(g.score) if g.score else None,
                    "actions": [a.to_dict() for a in g.actions],
                }
                for g in self.games
            ],
        }


def _norm_key(k: str) -> str:
    return re.sub(r"[\s_\-]", "", k).lower()


def _on(v, default: bool) -> bool:
    if v is None:
        return default
    return v.strip().lower() in ("on", "yes", "true", "1")


# ----- reading ----------------------------------------------------------------------------------
#: Bounds on what a record may state. Every number is checked against them before it is used (so it
#: fits what the game code and the Match ID accept), and every line is read in time linear in its
#: length; text beyond them is a :class:`~nardy.rules.errors.RecordError`, never another exception.
MAX_LINE = 1000  # characters in one line
MAX_LENGTH = 9999  # match length (0 = money session)
MAX_GAMES = 9999  # games in a record
MAX_MOVE = 9999  # move number of a line
MAX_CUBE = 1 << 15  # cube value: the Match ID holds log2 of the cube in 4 bits
MAX_POINTS = 64 * MAX_CUBE  # points of one game: the highest scoring level (64) times the largest cube
MAX_SCORE = 0x7FFF  # a score stated at a game's start (the Match ID's 15 bits)
MAX_PLAY = 40  # characters in one play (the longest real one, 25/21* 21/17* 17/13* 13/9*, has 26)
MAX_NAME = 64  # characters in a player name
MAX_OPTION = 40  # characters in the value of a header that sets a rule or option
_QUOTE = 40  # characters of the input quoted in a message (a cut one ends in ...)
_NAME_QUOTE = 30  # characters of a player name in a message

_LENGTH = re.compile(r"^\s*(?P<n>[0-9]+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(?P<n>[0-9]+)\s*$", re.IGNORECASE)
_NUM = r"-?[0-9]+(?:\.[0-9]+)?"
_NUM_END = re.compile(rf"\s*(?P<n>{_NUM})\s*$")
# the middle of a score line: the first ': score' followed by the second name
_SCORE_MID = re.compile(rf":\s*(?P<n>{_NUM})\s+(?=\S)")
_MOVE_LINE = re.compile(r"^(?P<pre>\s*(?P<n>[0-9]+)\))(?P<rest>.*)$")
_ITEM_STANDARD = (
    r"(?P<roll>\b(?P<d1>[1-6])(?P<d2>[1-6]):)"
    r"|(?P<double>\bDoubles?\b(?:\s*=>\s*(?P<dv>[0-9]+))?)"
    r"|(?P<beaver>\bBeavers?\b(?:\s*=>\s*(?P<bv>[0-9]+))?)"
    r"|(?P<take>\bTakes?\b|\bAccepts?\b)"
    r"|(?P<drop>\bDrops?\b|\bPass(?:es)?\b|\bRejects?\b)"
    r"|(?P<wins>\bWins\s+(?P<wv>[0-9]+(?:\.[0-9]+)?)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<draw>\bDraw\b(?:\s*(?:,\s*)?(?P<xv>[0-9]+(?:\.[0-9]+)?)\s+points?\s+each)?)"
)
#: The cells of the standard format (``strict``).
_ITEM_STRICT = re.compile(_ITEM_STANDARD, re.IGNORECASE)
#: The cells read otherwise: the standard ones, Backgammon Galaxy's ``Losses N point`` (the loser's line)
#: and ``Resigns`` (a .gam line GNU Backgammon ignores).
_ITEM = re.compile(
    _ITEM_STANDARD
    + r"|(?P<losses>\bLoss(?:es)?\s+(?P<lv>[0-9]+(?:\.[0-9]+)?)\s+points?)"
    + r"|(?P<resigns>\bResigns?\b)",
    re.IGNORECASE,
)
_PLAY_TEXT = re.compile(r"^[\s0-9/*()a-zA-Z]*$")
#: XG's cell for a play it does not know (the player resigned after rolling), ``???`` or ``????``.
_UNKNOWN_PLAY = re.compile(r"^\?{3,4}$")
#: ``Cannot Move``: what some programs write for a dance instead of nothing.
_CANNOT_MOVE = re.compile(r"^cannot\s+move$", re.IGNORECASE)
#: A move number inside a line (Backgammon Galaxy leaves out a line break before its result line).
_INNER_MOVE = re.compile(r"\s(?P<n>[0-9]{1,4})\)(?=\s)")


def _q(text) -> str:
    """A piece of the input quoted for a message: its ``repr``, cut to ``_QUOTE`` characters."""
    text = str(text)
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "...")


def _who(name) -> str:
    """A player name for a message, cut to ``_NAME_QUOTE`` characters."""
    name = str(name)
    return name if len(name) <= _NAME_QUOTE else name[:_NAME_QUOTE] + "..."


def _number(token: str, what: str, lo, hi, lineno: int, move=None, *, integer: bool = False):
    """A number the record states (``token`` matched :data:`_NUM`), checked to lie in ``lo``..``hi``.

    Returns an ``int``, or a ``float`` for a fraction (``0.5``: a long nardy half-point draw).
    Raises RecordError quoting the token when it is out of range (or a fraction where ``integer``).
    """
    value = None
    if len(token) <= 12:  # no bigger number is in range; int()/float() of longer text is never tried
        v = float(token)
        if lo <= v <= hi and (v == int(v) or not integer):
            value = int(v) if v == int(v) else v
    if value is None:
        kind = "a whole number " if integer else ""
        raise RecordError(
            f"line {lineno}: {what} {_q(token)} is out of range ({kind}{lo}-{hi})",
            move=move,
            reason=f"{what} out of range",
        )
    return value


def _name(name: str, lineno: int) -> str:
    if len(name) > MAX_NAME:
        raise RecordError(
            f"line {lineno}: player name {_q(name)} is too long ({len(name)} characters, at most {MAX_NAME})",
            reason="player name too long",
        )
    return name


def _score_line(line: str):
    """``name : score   name : score`` split into ``(name0, score0, name1, score1)`` (the scores as
    written), or ``None``. Names may hold spaces and colons; the first score is the first
    ``: number`` followed by more text, the second the number after the last colon."""
    last = line.rfind(":")
    if last < 0:
        return None
    end = _NUM_END.fullmatch(line, last + 1)
    if end is None:
        return None
    mid = _SCORE_MID.search(line, 0, last)
    if mid is None:
        return None
    return (line[: mid.start()].strip(), mid.group("n"), line[mid.end() : last].strip(), end.group("n"))


_NUM_ONLY = re.compile(_NUM)


def _score_line_no_second_name(line: str):
    """``name : score      : score`` (the second name empty) split as :func:`_score_line` splits a score
    line, or ``None``; in time linear in the line's length."""
    last = line.rfind(":")
    if last < 0:
        return None
    end = _NUM_END.fullmatch(line, last + 1)
    if end is None:
        return None
    head = line[:last].rsplit(None, 1)
    if len(head) != 2 or not _NUM_ONLY.fullmatch(head[1]):
        return None
    name = head[0].rstrip()
    if not name.endswith(":"):
        return None
    return (name[:-1].strip(), head[1], "", end.group("n"))


def _header(line: str):
    """A ``; [Key "value"]`` header line split into ``(key, value)``, or ``None``."""
    s = line.strip()
    if not s.startswith(";"):
        return None
    s = s[1:].lstrip()
    if not (s.startswith("[") and s.endswith("]")):
        return None
    body = s[1:-1].rstrip()
    first, last = body.find('"'), body.rfind('"')
    if first < 0 or last != len(body) - 1 or last == first:
        return None
    key = body[:first]
    if len(key) < 2 or not key[-1].isspace() or "]" in key:
        return None
    return key.strip(), body[first + 1 : last]


def _items(text: str, offset: int, lineno: int, move: int, strict: bool = True, warn=None):
    """The cells of one line: list of (start column, MatAction without player).

    Unless ``strict``, also Backgammon Galaxy's ``Losses N point`` and ``Resigns`` cells, ``Cannot Move``
    read as a dance and XG's ``????`` play kept as written; ``warn(code, **params)`` is told of each."""
    out = []
    matches = list((_ITEM_STRICT if strict else _ITEM).finditer(text))
    pos = 0

    def unreadable(what: str, piece: str):
        raise RecordError(
            f"line {lineno}: cannot read {what}{_q(piece)}",
            move=move,
            reason=f"unreadable {what or 'text '}{_q(piece)}",
        )

    for i, m in enumerate(matches):
        gap = text[pos : m.start()].strip()
        if gap:
            unreadable("", gap)
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        col = offset + m.start()
        groups = m.groupdict()
        if groups["roll"]:
            play = text[m.end() : end].strip()
            dice = (int(groups["d1"]), int(groups["d2"]))
            if not strict and _CANNOT_MOVE.match(play):
                warn("cannot_move", dice=list(dice))
                play = ""
            elif play and not _PLAY_TEXT.match(play) and (strict or not _UNKNOWN_PLAY.match(play)):
                unreadable("play ", play)
            if len(play) > MAX_PLAY:
                raise RecordError(
                    f"line {lineno}: play {_q(play)} is too long ({len(play)} characters, at most {MAX_PLAY})",
                    move=move,
                    reason="play too long",
                )
            act = MatAction(-1, "move", dice, play, None, move, lineno)
            pos = end
        else:
            tail = text[m.end() : end].strip()
            if tail:
                unreadable("", tail)
            pos = end
            if groups["double"]:
                dv = groups["dv"]
                act = MatAction(
                    -1,
                    "double",
                    value=_number(dv, "cube value", 1, MAX_CUBE, lineno, move, integer=True) if dv else None,
                )
            elif groups["beaver"]:
                bv = groups["bv"]
                act = MatAction(
                    -1,
                    "beaver",
                    value=_number(bv, "cube value", 1, MAX_CUBE, lineno, move, integer=True) if bv else None,
                )
            elif groups["take"]:
                act = MatAction(-1, "take")
            elif groups["drop"]:
                act = MatAction(-1, "drop")
            elif groups["wins"]:
                act = MatAction(-1, "wins", value=_number(groups["wv"], "points", 0, MAX_POINTS, lineno, move))
            elif groups.get("losses"):
                act = MatAction(-1, "losses", value=_number(groups["lv"], "points", 0, MAX_POINTS, lineno, move))
            elif groups.get("resigns"):
                act = MatAction(-1, "resigns")
            else:
                xv = groups["xv"]
                act = MatAction(-1, "draw", value=_number(xv, "points", 0, MAX_POINTS, lineno, move) if xv else None)
            act.move, act.line = move, lineno
        out.append((col, act))
    gap = text[pos:].strip()
    if gap:
        unreadable("", gap)
    return out


def parse_mat(text: str, *, strict: bool = False) -> MatchRecord:
    """Parse the text of a ``.mat`` record (syntax only; :func:`replay` checks it against the rules).

    The text is only ever parsed: a string is never taken for a file name (use :func:`read_mat` for
    a file). Every number is checked against the bounds above (``MAX_LENGTH``, ``MAX_SCORE``,
    ``MAX_CUBE``, ...) before it is used, and lines longer than ``MAX_LINE`` are refused.

    Unless ``strict``, the non-standard things the playing sites and programs write are read as GNU
    Backgammon's import reads them, each noted in ``.warnings`` (a :class:`RecordWarning`): a byte-order
    mark; Backgammon Galaxy's ``Losses N point`` cells and its result line run on after a play without a
    line break (``24)  Losses 2 point``); ``Cannot Move`` for a dance; ``Resigns``; XG's ``????`` play (the
    player resigned after rolling; :func:`replay` checks that a ``Wins`` line follows); a player with no
    name (called after the ``Player 1``/``Player 2`` header, else ``Player 1``/``Player 2``).

    Args:
        text: the record's text (``str``; a leading byte-order mark is ignored).
        strict: read only the standard format (each of the things above is refused, a first player's empty
            name is kept as it is, a byte-order mark is dropped without a warning).
    Returns:
        A :class:`MatchRecord`: ``length`` (0 = money session), ``players`` (left column first),
        ``headers``, ``games``, each with its stated score and its cells (``player`` 0 for the left
        column, 1 for the right one; plays as written, from the mover's own view), and ``warnings``.
    Raises:
        RecordError: ``text`` is not a ``str``, or a line cannot be read or states a number out of
            range (``.game``, ``.move`` and ``.reason`` set; ``.partial`` is the record read up to
            that line). The message names the line and quotes at most ``_QUOTE`` characters of it.
    """
    if not isinstance(text, str):
        raise RecordError(
            f"parse_mat expects the text of a record (str), got {type(text).__name__}; read a file with read_mat",
            reason="not text",
        )
    rec = MatchRecord(strict=bool(strict))
    if text.startswith("\ufeff"):
        text = text[1:]
        if not strict:
            rec.warnings.append(RecordWarning("byte_order_mark", {}, 1))
    seen_length = False
    game: MatGame | None = None
    pending: list = []  # cells of the current game: (col, action, numbered, index on line)
    move = 0
    lineno = 0
    names_found = False
    names_line = None

    def warn(code: str, **params):
        rec.warnings.append(RecordWarning(code, params, lineno, game.number if game else None, move or None))

    def flush_game():
        nonlocal pending
        if game is None:
            return
        _assign_players(pending, game)
        pending = []

    def set_names(names):
        nonlocal names_found, names_line
        game.names = names
        if not names_found:
            rec.players = names
            names_found = True
            names_line = lineno

    def move_line(line: str, inner: bool = False) -> bool:
        """Read a numbered line's cells into ``pending``; False when ``line`` is not one. The cells of an
        ``inner`` line (run on after a play) take their column from where they stand, and do not count
        where the columns are (their columns are not the record's)."""
        nonlocal move
        m = _MOVE_LINE.match(line)
        if not m:
            return False
        n = _number(m.group("n"), "move number", 0, MAX_MOVE, lineno, integer=True)
        if n < move or n > move + 1 and move:
            raise RecordError(
                f"line {lineno}: move {n} follows move {move}",
                game=game.number,
                move=n,
                reason="move numbers out of order",
            )
        move = n
        rest = m.group("rest")
        run_on = None if strict or inner else _INNER_MOVE.search(rest)
        if run_on:  # Galaxy's result line run on after a play: the rest is a line of its own
            warn("missing_line_break", move=int(run_on.group("n")))
            rest, after = rest[: run_on.start()], rest[run_on.start() + 1 :]
        cells = _items(rest, len(m.group("pre")), lineno, move, strict, warn)
        for k, (col, act) in enumerate(cells):
            pending.append((col, act, True, k, -len(cells) if inner else len(cells)))
        if run_on:
            # aligned as a line of its own: its ')' under this line's ')'
            width = len(run_on.group("n")) + 1
            move_line(" " * max(0, len(m.group("pre")) - width) + after, inner=True)
        return True

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for lineno, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        try:
            if len(line) > MAX_LINE:
                raise RecordError(
                    f"line {lineno} is too long ({len(line)} characters, at most {MAX_LINE}): {_q(s)}",
                    reason="line too long",
                )
            if s.startswith((";", "#")):
                h = _header(line)
                if h:
                    rec.headers[h[0]] = h[1]
                continue
            m = _LENGTH.match(line)
            if m:
                if seen_length or game is not None:
                    raise RecordError(f"line {lineno}: a second match length line", reason="repeated match length")
                rec.length = _number(m.group("n"), "match length", 0, MAX_LENGTH, lineno, integer=True)
                seen_length = True
                continue
            m = _GAME.match(line)
            if m:
                flush_game()
                n = _number(m.group("n"), "game number", 1, MAX_GAMES, lineno, integer=True)
                if n != len(rec.games) + 1:
                    raise RecordError(
                        f"line {lineno}: Game {n} follows game {len(rec.games)}", game=n, reason="games out of order"
                    )
                game = MatGame(n, line=lineno)
                rec.games.append(game)
                move = 0
                continue
            if game is None:
                if _score_line(line) or _MOVE_LINE.match(line):
                    raise RecordError(
                        f"line {lineno}: moves or scores before the first 'Game 1' line", reason="missing Game line"
                    )
                raise RecordError(f"line {lineno}: cannot read {_q(s)}", reason=f"unreadable line {_q(s)}")
            if move_line(line):
                continue
            first = not game.actions and not pending and game.score is None
            sc = _score_line(line) if first else None
            if first and sc is None and not strict:
                sc = _score_line_no_second_name(line)
            if sc:
                n0, s0, n1, s1 = sc
                game.score = (_number(s0, "score", 0, MAX_SCORE, lineno), _number(s1, "score", 0, MAX_SCORE, lineno))
                set_names((_name(n0, lineno), _name(n1, lineno)))
                continue
            if game.score is None and not pending and not (_ITEM_STRICT if strict else _ITEM).search(line):
                # a score line without scores: just the two names
                parts = line.split()
                if len(parts) == 2:
                    set_names(tuple(_name(p, lineno) for p in parts))
                    continue
            cells = _items(line, 0, lineno, move, strict, warn)
            if not cells:
                raise RecordError(f"line {lineno}: cannot read {_q(s)}", reason=f"unreadable line {_q(s)}")
            for k, (col, act) in enumerate(cells):
                pending.append((col, act, False, k, len(cells)))
        except RecordError as e:
            if game is not None:
                _assign_players(pending, game)  # keep the cells read so far in the partial record
            e.game = e.game if e.game is not None else (game.number if game else None)
            e.partial = rec
            raise
    flush_game()
    if not seen_length and not rec.games:
        raise RecordError("empty record: no match length line and no games", reason="empty record", partial=rec)
    p1, p2 = rec.header("Player 1"), rec.header("Player 2")
    if not names_found and p1 and p2:
        for key, name in (("Player 1", p1), ("Player 2", p2)):
            if len(name) > MAX_NAME:
                raise RecordError(
                    f"header {key!r}: player name {_q(name)} is too long ({len(name)} characters, at most {MAX_NAME})",
                    reason="player name too long",
                    partial=rec,
                )
        rec.players = (p1, p2)
    if not strict and not all(rec.players):
        named = list(rec.players)
        for i, key in enumerate(("Player 1", "Player 2")):
            if not named[i]:
                header = (rec.header(key) or "").strip()
                named[i] = header if header and len(header) <= MAX_NAME and header not in named else key
                rec.warnings.append(RecordWarning("empty_name", {"column": i + 1, "name": named[i]}, names_line))
        rec.players = tuple(named)
    return rec


def read_mat(path, *, strict: bool = False) -> MatchRecord:
    """Read a ``.mat`` file and parse it with :func:`parse_mat` (syntax only).

    Args:
        path: the file, as a ``str`` or :class:`os.PathLike` (always a path: text goes to
            :func:`parse_mat`). The bytes are decoded as UTF-8 (a byte-order mark is dropped, bad bytes
            replaced).
        strict: passed to :func:`parse_mat` (only the standard format).
    Returns:
        A :class:`MatchRecord` (its ``warnings`` name the non-standard things read).
    Raises:
        RecordError: ``path`` is not a path, the file cannot be read (the message names the path and
            the system's reason), or :func:`parse_mat` refuses the text.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise RecordError(
            f"read_mat expects a path (str or os.PathLike), got {type(path).__name__}; parse text with parse_mat",
            reason="not a path",
        )
    try:
        name = os.fspath(path)
        if not isinstance(name, str):
            raise TypeError
        raw = Path(name).read_bytes()
    except OSError as e:
        why = e.strerror or "cannot be read"
        raise RecordError(f"cannot read {name}: {why}", reason=why) from None
    except (TypeError, ValueError):  # a bytes path, or a NUL character in the path
        raise RecordError(f"cannot read {_q(path)}: not a valid file name", reason="bad path") from None
    return parse_mat(raw.decode("utf-8", errors="replace"), strict=strict)


def _assign_players(pending, game: MatGame):
    """Decide each cell's column (player) from its position on the line and append it to the game."""
    if not pending:
        return
    # the right column starts where the second cell of two-cell lines starts
    seconds = sorted(col for col, _, numbered, k, n in pending if n == 2 and k == 1)
    firsts = sorted(col for col, _, numbered, k, n in pending if n == 2 and k == 0)
    right = seconds[len(seconds) // 2] if seconds else 33
    left = firsts[len(firsts) // 2] if firsts else 5
    split = (left + right) / 2
    for col, act, _numbered, k, n in pending:
        if n == 2:
            act.player = k
        else:
            act.player = 1 if col >= split else 0
        game.actions.append(act)


# ----- replaying --------------------------------------------------------------------------------
def replay(record, *, strict: bool | None = None):
    """Play a record through the rules and return the :class:`~nardy.flow.match.Match`.

    Every play is parsed with :meth:`Position.parse_play` and must be legal; cube actions must be in
    turn and allowed (no double in the Crawford game, ``Doubles => N`` must name the new value, the
    cube never passes ``MAX_CUBE``); each game's stated score must equal the running score, and each
    ``Wins N`` line the computed result (bear-off level times the cube, a drop's cube value, or a
    resignation worth N). Plays are read from the mover's own view (player 0 = White = the left
    column, player 1 = Black = the right one), as GNU Backgammon writes them.

    Unless ``strict``, what GNU Backgammon's import accepts is read as it reads it (the final score is
    gnubg's), each noted as a :class:`RecordWarning` (besides those of :func:`parse_mat`):

    * a roll with no play (or XG's ``????``) when the roll can be played: the only legal play when there
      is one (``forced_play_blank``), else, when the other player's ``Wins`` follows, the roller resigned
      after rolling (``roll_then_resign``, ``unknown_play_resign``);
    * ``Wins N`` after the game's end below its worth (capped at the match length or at the points the
      winner needed, ``wins_capped``; else ``wins_differs``, e.g. Galaxy's single games scored as with
      Jacoby's rule): the game's real worth counts (a ``Wins`` above it is refused);
    * ``Wins N`` before the end that no resignation is worth exactly: the smallest resignation worth at
      least N, else the highest (``resign_value``; GNU Backgammon's reading);
    * Galaxy's ``Losses N`` (ignored; a resignation when no ``Wins`` line follows) and ``Resigns`` lines;
    * a first game that starts at a score other than 0-0: the match resumes there (``resumed_match``).

    A play that is not legal, a cube action out of turn, a ``Wins`` line naming the other winner, a later
    game's score that does not follow from the games before: refused in both modes.

    Args:
        record: a :class:`MatchRecord`; a ``str``, which is always the record's text (parsed with
            :func:`parse_mat`, never opened as a file); or an :class:`os.PathLike` (a file, read with
            :func:`read_mat`).
        strict: only the standard format (each thing above refused, as :func:`parse_mat` with
            ``strict``); default: the record's own ``strict`` (``False`` for a text or a path).
    Returns:
        The :class:`~nardy.flow.match.Match`, its games replayed (the last one may be unfinished); its
        ``warnings`` list every :class:`RecordWarning` of the record and of the replay, in order.
    Raises:
        RecordError: anything else as ``record``, a text or file :func:`parse_mat`/:func:`read_mat`
            refuses, or the first violation of the rules, with ``.game``, ``.move``, ``.player`` (the
            name), ``.reason`` and ``.partial`` (the :class:`~nardy.flow.match.Match` of the valid part, with
            the warnings met up to there). No other exception is raised for any text.
    """
    from ..flow.match import Match
    from ..rules.dice import FixedDice

    if isinstance(record, str):
        record = parse_mat(record, strict=bool(strict))
    elif isinstance(record, os.PathLike):
        record = read_mat(record, strict=bool(strict))
    elif not isinstance(record, MatchRecord):
        raise RecordError(
            f"replay expects a MatchRecord, the text of a record (str) or a path (os.PathLike), "
            f"got {type(record).__name__}",
            reason="bad record",
        )
    strict = record.strict if strict is None else bool(strict)
    rules = record.rules()
    crawford = _on(record.header("Crawford"), True)
    jacoby = _on(record.header("Jacoby"), False) if record.length == 0 else False
    beavers = _on(record.header("Beavers"), False) if record.length == 0 else False
    limit = (record.header("CubeLimit", "Cube Limit") or "").strip()
    # a power of two up to MAX_CUBE, else no limit (as before: a cube limit the record cannot state)
    limit = int(limit) if re.fullmatch(r"[0-9]{1,5}", limit) else None
    if limit is not None and (limit < 1 or limit & (limit - 1) or limit > MAX_CUBE):
        limit = None
    warnings = list(record.warnings)
    start, post_crawford = (0, 0), False
    first = record.games[0] if record.games else None
    if not strict and first is not None and first.score is not None and any(first.score):
        if all(isinstance(v, int) for v in first.score) and (not record.length or max(first.score) < record.length):
            start = tuple(first.score)
            warnings.append(RecordWarning("resumed_match", {"score0": start[0], "score1": start[1]}, first.line + 1, 1))
            # at match point the Crawford game may be behind: it is, when the first game has a double
            if record.length and record.length - 1 in start and crawford:
                post_crawford = any(a.kind in ("double", "beaver") for a in first.actions)
                if post_crawford:
                    warnings.append(RecordWarning("resumed_post_crawford", {}, first.line + 1, 1))
    try:
        match = Match(
            rules,
            length=record.length,
            dice=FixedDice(),
            jacoby=jacoby,
            beavers=beavers,
            cube_limit=limit,
            crawford=crawford,
            players=record.players,
            start_score=start,
            start_post_crawford=post_crawford,
        )
    except NardyError as e:
        raise RecordError(f"cannot start the match: {e}", reason=str(e), partial=record) from None
    match.warnings = warnings
    for mg in record.games:
        _replay_game(match, record, mg, strict, warnings)
    return match


def _fmt_score(s):
    return f"{s[0]}-{s[1]}"


#: Cells that say who lost a game but play nothing (Galaxy's ``Losses``, ``Resigns``).
_NOTES = ("losses", "resigns")


def _resigned_after_roll(acts, i: int) -> bool:
    """Whether what follows ``acts[i]`` (a roll with no play) is the other player's ``Wins``, perhaps after
    notes (:data:`_NOTES`, whose column Galaxy does not always keep), or only a ``Losses`` note: the
    roller resigned after rolling."""
    roller = acts[i].player
    for a in acts[i + 1 :]:
        if a.kind not in _NOTES:
            return a.kind == "wins" and a.player != roller
    return any(a.kind == "losses" for a in acts[i + 1 :])


def _replay_game(match, record: MatchRecord, mg: MatGame, strict: bool, warnings: list):
    names = tuple(_who(n) for n in record.players)  # as messages show them
    k = mg.number
    index = len(match.games)  # the game's 0-based index in the match

    def fail(reason, act=None):
        who = record.players[act.player] if act is not None and act.player in (0, 1) else None
        mv = act.move if act is not None else None
        where = f"game {k}" + (f", move {mv}" if mv else "") + (f", {_who(who)}" if who else "")
        raise RecordError(f"{where}: {reason}", game=k, move=mv, player=who, reason=reason, partial=match)

    def note(code: str, act, **params):
        warnings.append(RecordWarning(code, params, act.line or None, k, act.move or None))

    def resign_worth(winner: int, value, act):
        """The loser resigns at the level worth ``value`` (lenient: GNU Backgammon's nearest level)."""
        loser = 1 - winner
        levels = [lv for lv in range(len(match.rules.scoring)) if g.points_for(lv) == value]
        if not levels:
            if strict:
                fail(
                    f"'Wins {value}' before the game is over: no resignation level is worth "
                    f"that with the cube at {g.cube_value}",
                    act,
                )
            n = len(match.rules.scoring)
            lv = next((lv for lv in range(n) if g.points_for(lv) >= value), n - 1)
            levels = [lv]
            note(
                "resign_value",
                act,
                stated=value,
                level=match.rules.result_names[lv],
                points=g.points_for(lv),
                cube=g.cube_value,
            )
        if g.phase == "resign":
            g.decline_resignation()
        g.resign(levels[0], player=loser)
        g.accept_resignation(player=winner)

    if match.games and not match.games[-1].is_over:
        fail(f"game {k - 1} did not end (no result line)")
    if match.is_over:
        fail(f"the match was already over at {_fmt_score(match.score)}")
    if mg.score is not None and tuple(mg.score) != tuple(match.score):
        fail(f"the record states the score {_fmt_score(mg.score)} but the games before give {_fmt_score(match.score)}")
    g = match.new_game()
    acts = mg.actions
    if not acts:
        return
    first = acts[0]
    if not strict:  # Galaxy's notes before any play: the game opens with what follows them
        first = next((a for a in acts if a.kind not in _NOTES), acts[0])
    try:
        if first.kind in ("wins", "losses"):
            # A resignation before any play (the starter resigned on the opening roll): the record
            # cannot hold the opening dice, so the game is opened by the resigning side with a
            # placeholder roll and the resignation is applied to it.
            loser = 1 - first.player if first.kind == "wins" else first.player
            if rules_uses_opening_dice(match.rules):
                g.start(starter=loser, dice=(2, 1))
            else:
                g.start(starter=loser)
        elif rules_uses_opening_dice(match.rules):
            if first.kind != "move":
                fail(f"the game must open with a roll ({first.kind} found)", first)
            g.start(starter=first.player, dice=first.dice)
        else:
            g.start(starter=first.player)
    except RecordError:
        raise
    except NardyError as e:
        fail(str(e), first)
    opened = acts.index(first)
    for i, act in enumerate(acts):
        if g.is_over and act.kind not in ("wins", "draw", *_NOTES):
            fail(f"{act.kind} after the end of the game ({g.result_text()})", act)
        try:
            if act.kind == "move":
                if g.phase == "roll":
                    if act.player != g.turn:
                        fail(f"{names[act.player]} rolls but it is {names[g.turn]}'s turn", act)
                    passed_before = len(g.history)
                    g.roll(act.dice)
                    passed = any(isinstance(e, PassEvent) for e in g.history[passed_before:])
                    if passed:
                        if act.text.strip():
                            fail(
                                f"play {_q(act.text)} with {act.dice[0]}{act.dice[1]}: no checker can move "
                                f"(the roll must be passed)",
                                act,
                            )
                        continue
                elif g.phase == "move" and i == opened:
                    pass
                else:
                    fail(f"a roll is not allowed now (phase {g.phase!r})", act)
                if act.player != g.turn:
                    fail(f"{names[act.player]} plays but it is {names[g.turn]}'s turn", act)
                text = act.text.strip()
                if not strict and (not text or _UNKNOWN_PLAY.match(text)):
                    legal = g.legal_plays()
                    if len(legal) == 1:  # as GNU Backgammon: a forced play left blank is made
                        note("forced_play_blank", act, dice=list(act.dice), play=str(legal[0]))
                        g.play(legal[0])
                        continue
                    if _resigned_after_roll(acts, i):
                        if text:
                            note("unknown_play_resign", act, text=text, dice=list(act.dice), player=act.player)
                        else:
                            note("roll_then_resign", act, dice=list(act.dice), player=act.player)
                        continue  # the roll stands unplayed; the Wins line is the resignation
                    if i == len(acts) - 1 and mg is record.games[-1]:
                        note("unplayed_last_roll", act, dice=list(act.dice), player=act.player)
                        continue  # the record stops there: the game is unfinished
                g.play(act.text)
            elif act.kind == "double":
                if g.phase != "roll" or act.player != g.turn:
                    why = f"it is {names[g.turn]}'s turn" if g.turn != act.player else f"phase {g.phase}"
                    fail(f"{names[act.player]} cannot double now ({why})", act)
                if act.value is not None and act.value != g.cube_value * 2:
                    fail(f"'Doubles => {act.value}' but the cube is at {g.cube_value}", act)
                if g.cube_value * 2 > MAX_CUBE:
                    fail(f"a double would take the cube past {MAX_CUBE}", act)
                g.double(player=act.player)
            elif act.kind == "take":
                g.take(player=act.player)
            elif act.kind == "beaver":
                if act.value is not None and act.value != g.cube_value * 4:
                    fail(f"'Beavers => {act.value}' but the cube is at {g.cube_value}", act)
                if g.cube_value * 4 > MAX_CUBE:
                    fail(f"a beaver would take the cube past {MAX_CUBE}", act)
                g.beaver(player=act.player)
            elif act.kind == "drop":
                g.drop(player=act.player)
            elif act.kind == "wins":
                if g.is_over:
                    r = g.result
                    if r.winner != act.player:
                        fail(f"the record says {names[act.player]} wins, but {g.result_text()}", act)
                    if r.points != act.value:
                        if strict or act.value > r.points:  # more than the game gave: a wrong line
                            fail(
                                f"'Wins {act.value}' but the game is worth {r.points} ({r.level_name}, cube {r.cube})",
                                act,
                            )
                        worth = {"points": r.points, "level": r.level_name, "cube": r.cube, "stated": act.value}
                        needed = match.length - match.score_before(index)[r.winner] if match.length else None
                        if match.length and act.value < r.points and act.value in (needed, match.length):
                            note("wins_capped", act, **worth)
                        else:
                            note("wins_differs", act, **worth)
                else:
                    # a resignation by the other player, accepted at the level worth that much
                    resign_worth(act.player, act.value, act)
            elif act.kind == "losses":
                # the loser: the game's, else the other side of the Wins line after it (Galaxy writes
                # some Losses lines in no column), else the column's player
                later = next((a for a in acts[i + 1 :] if a.kind == "wins"), None)
                if g.is_over and g.result.winner is not None:
                    note("galaxy_losses", act, points=act.value, player=1 - g.result.winner)
                elif later is not None:
                    note("galaxy_losses", act, points=act.value, player=1 - later.player)
                elif g.is_over:
                    note("galaxy_losses", act, points=act.value, player=act.player)
                else:  # no Wins line after it: the loser's line is the resignation
                    note("losses_resign", act, points=act.value, player=act.player)
                    resign_worth(1 - act.player, act.value, act)
            elif act.kind == "resigns":
                note("resigns_line", act, player=act.player)
            elif act.kind == "draw":
                if not g.is_over or g.result.winner is not None:
                    fail("a draw line, but the game is not drawn", act)
                if act.value is not None and act.value != g.result.points:
                    fail(f"draw worth {act.value} but the game gives {g.result.points} each", act)
        except RecordError:
            raise
        except NardyError as e:
            fail(str(e), act)


def rules_uses_opening_dice(rules: Rules) -> bool:
    return rules.opening == "use-opening-dice"


# ----- writing ----------------------------------------------------------------------------------
def _plain(steps) -> str:
    """Steps as GNU Backgammon's plain move text: every step ``from/to`` (25 bar, 0 off), ``*``."""
    return " ".join(f"{a}/{b}{'*' if hit else ''}" for a, b, _d, hit in steps)


def _points_text(n) -> str:
    if isinstance(n, float) and n != int(n):
        return f"{n} points"
    n = int(n)
    return f"{n} point{'s' if n != 1 else ''}"


def _game_cells(game):
    """The record cells of a game: list of (player, text)."""
    cells = []
    for i, e in enumerate(game.history):
        match e:
            case PlayEvent(player=p, dice=d, steps=steps):
                cells.append((p, f"{d[0]}{d[1]}: {_plain(steps)}".rstrip()))
            case PassEvent(player=p, dice=d):
                cells.append((p, f"{d[0]}{d[1]}:"))
            case DoubleEvent(player=p, value=v):
                cells.append((p, f" Doubles => {v}"))
            case TakeEvent(player=p):
                cells.append((p, " Takes"))
            case BeaverEvent(player=p, value=v):
                cells.append((p, f" Beavers => {v}"))
            case DropEvent(player=p):
                cells.append((p, " Drops"))
            case EndEvent(winner=None, points=pts):
                before = game.history[i - 1] if i > 0 else None
                cells.append((getattr(before, "player", 0), f"Draw {_points_text(pts)} each"))
            case EndEvent(winner=w, points=pts):
                cells.append((w, f"Wins {_points_text(pts)}"))
    return cells


def _write_game(out: list, game, number: int, score, players):
    out.append(f" Game {number}")
    left = f"{players[0]} : {_score_text(score[0])}"
    out.append(f" {left:<31}{players[1]} : {_score_text(score[1])}")
    cells = _game_cells(game)
    line_no = 0
    cur = None  # [left_text or None, right_text or None]

    def flush():
        nonlocal cur
        if cur is not None:
            lt = cur[0] if cur[0] is not None else ""
            if cur[1] is None:
                out.append(f"{line_no:3d}) {lt}".rstrip())
            else:
                out.append(f"{line_no:3d}) {lt:<27} {cur[1]}".rstrip())
        cur = None

    for player, text in cells:
        if text.startswith(("Wins", "Draw")):
            if player == 1 and cur is not None and cur[0] is not None and cur[1] is None:
                cur[1] = text  # as GNU Backgammon: 'Drops' and the doubler's 'Wins' on one line
                flush()
                continue
            flush()
            out.append((" " * 34 if player == 1 else " " * 6) + text)
            continue
        if player == 0:
            flush()
            line_no += 1
            cur = [text, None]
        else:
            if cur is None or cur[1] is not None:
                flush()
                line_no += 1
                cur = [None, None]
            cur[1] = text
    flush()
    out.append("")


def _score_text(s) -> str:
    return str(int(s)) if float(s) == int(s) else str(s)


def record_settings(match, writer: str, game_crawford: bool):
    """What a record writer needs of a :class:`~nardy.flow.match.Match` or a single :class:`~nardy.flow.game.Game`:
    ``(games, length, rules, players, jacoby, beavers, cube_limit, crawford, cube)``; a game alone is a
    match of length 0 whose Crawford flag is ``game_crawford``.

    Raises:
        RecordError: ``match`` is neither (the message names ``writer``).
    """
    from ..flow.game import Game
    from ..flow.match import Match

    if isinstance(match, Game):
        return (
            [match], 0, match.rules, match.players, match.jacoby, match.cube.beavers, match.cube.limit,
            game_crawford, match.cube_enabled,
        )  # fmt: skip
    if isinstance(match, Match):
        return (
            match.games, match.length, match.rules, match.players, match.jacoby, match.beavers,
            match.cube_limit, match.crawford_rule, match.cube,
        )  # fmt: skip
    raise RecordError(f"{writer} expects a Match or a Game, got {type(match).__name__}", reason="bad input")


def write_mat(match, headers: dict | None = None) -> str:
    """A match (or a single :class:`~nardy.flow.game.Game`) as ``.mat`` text.

    Plays are written from each player's own view, step by step as GNU Backgammon writes them
    (``13/8 8/5``, ``25/22*``, ``6/0``). Backgammon records import into GNU Backgammon; the nardy
    games get a ``; [Variation "..."]`` header and their options as headers. Declined resignations
    are not written (the format has no line for them); an accepted one is the winner's ``Wins`` line.

    Args:
        match: a :class:`~nardy.flow.match.Match` or :class:`~nardy.flow.game.Game`.
        headers: extra ``; [Key "value"]`` headers.
    """
    games, length, rules, players, jacoby, beavers, limit, crawford, cube = record_settings(match, "write_mat", True)
    h = {"Site": "nardy", "Player 1": players[0], "Player 2": players[1], "Variation": VARIATIONS[rules.name]}
    if length:
        h["Crawford"] = "On" if crawford else "Off"
    else:
        h["Jacoby"] = "On" if jacoby else "Off"
        h["Beavers"] = "On" if beavers else "Off"
    if limit:
        h["CubeLimit"] = str(limit)
    default = get_rules(rules.name)
    if rules != default or rules.name != "backgammon" or cube != rules.cube:
        h["Opening"] = rules.opening
        h["Scoring"] = "/".join(str(v) for v in rules.scoring)
        h["Strict Bear-off"] = "On" if rules.strict_bear_off else "Off"
        if rules.name == "long":
            h["Head Exception"] = rules.head_exception
            h["Last Roll"] = rules.last_roll
        h["Cube"] = "On" if cube else "Off"
    if headers:
        h.update(headers)
    out = [f'; [{k} "{v}"]' for k, v in h.items()]
    out += ["", f" {length} point match", ""]
    score = list(getattr(match, "start_score", (0, 0)))  # a resumed match goes on from its score
    for i, g in enumerate(games):
        _write_game(out, g, i + 1, score, players)
        if g.result is not None:
            a, b = g.result.score()
            score[0] += a
            score[1] += b
    return "\n".join(out) + "\n"


def record_json(match) -> str:
    """The replayed match's games, plays and results as JSON text (for ``nardy replay --json``)."""
    return json.dumps(match_summary(match), indent=1)


#: The events a match summary lists (plays, passes, cube actions, resignations).
_SUMMARY_EVENTS = (
    PlayEvent,
    PassEvent,
    DoubleEvent,
    TakeEvent,
    DropEvent,
    BeaverEvent,
    ResignEvent,
    AcceptEvent,
    DeclineEvent,
)


def match_summary(match) -> dict:
    """Each game's plays and result and the final score, as JSON-able data."""
    games = []
    score = list(match.start_score)
    for i, g in enumerate(match.games):
        events = [e.to_dict() for e in g.history if isinstance(e, _SUMMARY_EVENTS)]
        games.append(
            {
                "game": i + 1,
                "score": list(score),
                "crawford": g.crawford,
                "events": [{k: v for k, v in e.items() if k != "steps"} for e in events],
                "result": g.result.to_dict() if g.result else None,
            }
        )
        if g.result:
            a, b = g.result.score()
            score[0] += a
            score[1] += b
    return {
        "game": match.rules.name,
        "length": match.length,
        "players": list(match.players),
        "games": games,
        "score": list(match.score),
        "winner": match.winner,
    }

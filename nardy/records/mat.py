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
:class:`~nardy.match.Match`: every play must be legal, every cube action in turn, every ``Wins``
line and game score line must agree with the computed score; the first violation raises
:class:`~nardy.errors.RecordError` naming the game, move number, player and reason, with
``.partial`` holding the valid part. Whatever the text, parsing and replaying it raise no exception
but :class:`~nardy.errors.RecordError`: every number is bounded (``MAX_LENGTH``, ``MAX_SCORE``,
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

from ..errors import NardyError, RecordError
from ..events import (
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
from ..rules import Rules, game_name, get_rules

__all__ = ["MatAction", "MatGame", "MatchRecord", "parse_mat", "read_mat", "replay", "write_mat", "VARIATIONS"]

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
    """

    length: int = 0
    players: tuple = ("White", "Black")
    games: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)

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
#: length; text beyond them is a :class:`~nardy.errors.RecordError`, never another exception.
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
_ITEM = re.compile(
    r"(?P<roll>\b(?P<d1>[1-6])(?P<d2>[1-6]):)"
    r"|(?P<double>\bDoubles?\b(?:\s*=>\s*(?P<dv>[0-9]+))?)"
    r"|(?P<beaver>\bBeavers?\b(?:\s*=>\s*(?P<bv>[0-9]+))?)"
    r"|(?P<take>\bTakes?\b|\bAccepts?\b)"
    r"|(?P<drop>\bDrops?\b|\bPass(?:es)?\b|\bRejects?\b)"
    r"|(?P<wins>\bWins\s+(?P<wv>[0-9]+(?:\.[0-9]+)?)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<draw>\bDraw\b(?:\s*(?:,\s*)?(?P<xv>[0-9]+(?:\.[0-9]+)?)\s+points?\s+each)?)",
    re.IGNORECASE,
)
_PLAY_TEXT = re.compile(r"^[\s0-9/*()a-zA-Z]*$")


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


def _items(text: str, offset: int, lineno: int, move: int):
    """The cells of one line: list of (start column, MatAction without player)."""
    out = []
    matches = list(_ITEM.finditer(text))
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
        if m.group("roll"):
            play = text[m.end() : end].strip()
            if play and not _PLAY_TEXT.match(play):
                unreadable("play ", play)
            if len(play) > MAX_PLAY:
                raise RecordError(
                    f"line {lineno}: play {_q(play)} is too long ({len(play)} characters, at most {MAX_PLAY})",
                    move=move,
                    reason="play too long",
                )
            act = MatAction(-1, "move", (int(m.group("d1")), int(m.group("d2"))), play, None, move, lineno)
            pos = end
        else:
            tail = text[m.end() : end].strip()
            if tail:
                unreadable("", tail)
            pos = end
            if m.group("double"):
                dv = m.group("dv")
                act = MatAction(
                    -1,
                    "double",
                    value=_number(dv, "cube value", 1, MAX_CUBE, lineno, move, integer=True) if dv else None,
                )
            elif m.group("beaver"):
                bv = m.group("bv")
                act = MatAction(
                    -1,
                    "beaver",
                    value=_number(bv, "cube value", 1, MAX_CUBE, lineno, move, integer=True) if bv else None,
                )
            elif m.group("take"):
                act = MatAction(-1, "take")
            elif m.group("drop"):
                act = MatAction(-1, "drop")
            elif m.group("wins"):
                act = MatAction(-1, "wins", value=_number(m.group("wv"), "points", 0, MAX_POINTS, lineno, move))
            else:
                xv = m.group("xv")
                act = MatAction(-1, "draw", value=_number(xv, "points", 0, MAX_POINTS, lineno, move) if xv else None)
            act.move, act.line = move, lineno
        out.append((col, act))
    gap = text[pos:].strip()
    if gap:
        unreadable("", gap)
    return out


def parse_mat(text: str) -> MatchRecord:
    """Parse the text of a ``.mat`` record (syntax only; :func:`replay` checks it against the rules).

    The text is only ever parsed: a string is never taken for a file name (use :func:`read_mat` for
    a file). Every number is checked against the bounds above (``MAX_LENGTH``, ``MAX_SCORE``,
    ``MAX_CUBE``, ...) before it is used, and lines longer than ``MAX_LINE`` are refused.

    Args:
        text: the record's text (``str``; a leading byte-order mark is ignored).
    Returns:
        A :class:`MatchRecord`: ``length`` (0 = money session), ``players`` (left column first),
        ``headers`` and ``games``, each with its stated score and its cells (``player`` 0 for the left
        column, 1 for the right one; plays as written, from the mover's own view).
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
    if text.startswith("\ufeff"):
        text = text[1:]
    rec = MatchRecord()
    seen_length = False
    game: MatGame | None = None
    pending: list = []  # cells of the current game: (col, action, numbered, index on line)
    move = 0
    names_found = False

    def flush_game():
        nonlocal pending
        if game is None:
            return
        _assign_players(pending, game)
        pending = []

    def set_names(names):
        nonlocal names_found
        game.names = names
        if not names_found:
            rec.players = names
            names_found = True

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
            m = _MOVE_LINE.match(line)
            if m:
                n = _number(m.group("n"), "move number", 0, MAX_MOVE, lineno, integer=True)
                if n < move or n > move + 1 and move:
                    raise RecordError(
                        f"line {lineno}: move {n} follows move {move}",
                        game=game.number,
                        move=n,
                        reason="move numbers out of order",
                    )
                move = n
                cells = _items(m.group("rest"), len(m.group("pre")), lineno, move)
                for k, (col, act) in enumerate(cells):
                    pending.append((col, act, True, k, len(cells)))
                continue
            sc = _score_line(line) if not game.actions and not pending and game.score is None else None
            if sc:
                n0, s0, n1, s1 = sc
                game.score = (_number(s0, "score", 0, MAX_SCORE, lineno), _number(s1, "score", 0, MAX_SCORE, lineno))
                set_names((_name(n0, lineno), _name(n1, lineno)))
                continue
            if game.score is None and not pending and not _ITEM.search(line):
                # a score line without scores: just the two names
                parts = line.split()
                if len(parts) == 2:
                    set_names(tuple(_name(p, lineno) for p in parts))
                    continue
            cells = _items(line, 0, lineno, move)
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
    return rec


def read_mat(path) -> MatchRecord:
    """Read a ``.mat`` file and parse it with :func:`parse_mat` (syntax only).

    Args:
        path: the file, as a ``str`` or :class:`os.PathLike` (always a path: text goes to
            :func:`parse_mat`). The bytes are decoded as UTF-8 (a byte-order mark is dropped, bad bytes
            replaced).
    Returns:
        A :class:`MatchRecord`.
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
    return parse_mat(raw.decode("utf-8", errors="replace"))


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
def replay(record):
    """Play a record through the rules and return the :class:`~nardy.match.Match`.

    Every play is parsed with :meth:`Position.parse_play` and must be legal; cube actions must be in
    turn and allowed (no double in the Crawford game, ``Doubles => N`` must name the new value, the
    cube never passes ``MAX_CUBE``); each game's stated score must equal the running score, and each
    ``Wins N`` line the computed result (bear-off level times the cube, a drop's cube value, or a
    resignation worth N). Plays are read from the mover's own view (player 0 = White = the left
    column, player 1 = Black = the right one), as GNU Backgammon writes them.

    Args:
        record: a :class:`MatchRecord`; a ``str``, which is always the record's text (parsed with
            :func:`parse_mat`, never opened as a file); or an :class:`os.PathLike` (a file, read with
            :func:`read_mat`).
    Returns:
        The :class:`~nardy.match.Match`, its games replayed (the last one may be unfinished).
    Raises:
        RecordError: anything else as ``record``, a text or file :func:`parse_mat`/:func:`read_mat`
            refuses, or the first violation of the rules, with ``.game``, ``.move``, ``.player`` (the
            name), ``.reason`` and ``.partial`` (the :class:`~nardy.match.Match` of the valid part).
            No other exception is raised for any text.
    """
    from ..dice import FixedDice
    from ..match import Match

    if isinstance(record, str):
        record = parse_mat(record)
    elif isinstance(record, os.PathLike):
        record = read_mat(record)
    elif not isinstance(record, MatchRecord):
        raise RecordError(
            f"replay expects a MatchRecord, the text of a record (str) or a path (os.PathLike), "
            f"got {type(record).__name__}",
            reason="bad record",
        )
    rules = record.rules()
    crawford = _on(record.header("Crawford"), True)
    jacoby = _on(record.header("Jacoby"), False) if record.length == 0 else False
    beavers = _on(record.header("Beavers"), False) if record.length == 0 else False
    limit = (record.header("CubeLimit", "Cube Limit") or "").strip()
    # a power of two up to MAX_CUBE, else no limit (as before: a cube limit the record cannot state)
    limit = int(limit) if re.fullmatch(r"[0-9]{1,5}", limit) else None
    if limit is not None and (limit < 1 or limit & (limit - 1) or limit > MAX_CUBE):
        limit = None
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
        )
    except NardyError as e:
        raise RecordError(f"cannot start the match: {e}", reason=str(e), partial=record) from None
    for mg in record.games:
        _replay_game(match, record, mg)
    return match


def _fmt_score(s):
    return f"{s[0]}-{s[1]}"


def _replay_game(match, record: MatchRecord, mg: MatGame):
    names = tuple(_who(n) for n in record.players)  # as messages show them
    k = mg.number

    def fail(reason, act=None):
        who = record.players[act.player] if act is not None and act.player in (0, 1) else None
        mv = act.move if act is not None else None
        where = f"game {k}" + (f", move {mv}" if mv else "") + (f", {_who(who)}" if who else "")
        raise RecordError(f"{where}: {reason}", game=k, move=mv, player=who, reason=reason, partial=match)

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
    try:
        if first.kind == "wins":
            # A resignation before any play (the starter resigned on the opening roll): the record
            # cannot hold the opening dice, so the game is opened by the resigning side with a
            # placeholder roll and the resignation is applied to it.
            loser = 1 - first.player
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
    for i, act in enumerate(acts):
        if g.is_over and act.kind not in ("wins", "draw"):
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
                elif g.phase == "move" and i == 0:
                    pass
                else:
                    fail(f"a roll is not allowed now (phase {g.phase!r})", act)
                if act.player != g.turn:
                    fail(f"{names[act.player]} plays but it is {names[g.turn]}'s turn", act)
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
                        fail(
                            f"'Wins {act.value}' but the game is worth {r.points} ({r.level_name}, cube {r.cube})", act
                        )
                else:
                    # a resignation by the other player, accepted at the level worth that much
                    loser = 1 - act.player
                    levels = [lv for lv in range(len(match.rules.scoring)) if g.points_for(lv) == act.value]
                    if not levels:
                        fail(
                            f"'Wins {act.value}' before the game is over: no resignation level is worth "
                            f"that with the cube at {g.cube_value}",
                            act,
                        )
                    if g.phase == "resign":
                        g.decline_resignation()
                    g.resign(levels[0], player=loser)
                    g.accept_resignation(player=act.player)
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


def write_mat(match, headers: dict | None = None) -> str:
    """A match (or a single :class:`~nardy.game.Game`) as ``.mat`` text.

    Plays are written from each player's own view, step by step as GNU Backgammon writes them
    (``13/8 8/5``, ``25/22*``, ``6/0``). Backgammon records import into GNU Backgammon; the nardy
    games get a ``; [Variation "..."]`` header and their options as headers. Declined resignations
    are not written (the format has no line for them); an accepted one is the winner's ``Wins`` line.

    Args:
        match: a :class:`~nardy.match.Match` or :class:`~nardy.game.Game`.
        headers: extra ``; [Key "value"]`` headers.
    """
    from ..game import Game
    from ..match import Match

    if isinstance(match, Game):
        games, length, rules, players = [match], 0, match.rules, match.players
        jacoby, beavers, limit, crawford = match.jacoby, match.cube.beavers, match.cube.limit, True
        cube = match.cube_enabled
    elif isinstance(match, Match):
        games, length, rules, players = match.games, match.length, match.rules, match.players
        jacoby, beavers, limit, crawford = match.jacoby, match.beavers, match.cube_limit, match.crawford_rule
        cube = match.cube
    else:
        raise RecordError(f"write_mat expects a Match or a Game, got {type(match).__name__}", reason="bad input")
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
    score = [0, 0]
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
    score = [0, 0]
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

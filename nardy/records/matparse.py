"""Reading the text of a ``.mat`` record: :func:`parse_mat` (syntax only, into a
:class:`~nardy.records.matrecord.MatchRecord`) and :func:`read_mat` (a file).

The format is described in :mod:`nardy.records.mat`; every number is bounded
(:mod:`nardy.records.matrecord`'s ``MAX_*``) before it is used, every line is read in time linear in its
length, and a message quotes at most ``QUOTE`` characters of the input.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..rules.errors import RecordError
from .matrecord import (
    MAX_CUBE,
    MAX_GAMES,
    MAX_LENGTH,
    MAX_LINE,
    MAX_MOVE,
    MAX_NAME,
    MAX_PLAY,
    MAX_POINTS,
    MAX_SCORE,
    MatAction,
    MatchRecord,
    MatGame,
)
from .matwarnings import RecordWarning, quote

__all__ = ["parse_mat", "read_mat", "UNKNOWN_PLAY"]

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
UNKNOWN_PLAY = re.compile(r"^\?{3,4}$")
#: ``Cannot Move``: what some programs write for a dance instead of nothing.
_CANNOT_MOVE = re.compile(r"^cannot\s+move$", re.IGNORECASE)
#: A move number inside a line (Backgammon Galaxy leaves out a line break before its result line).
_INNER_MOVE = re.compile(r"\s(?P<n>[0-9]{1,4})\)(?=\s)")


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
            f"line {lineno}: {what} {quote(token)} is out of range ({kind}{lo}-{hi})",
            move=move,
            reason=f"{what} out of range",
        )
    return value


def _name(name: str, lineno: int) -> str:
    if len(name) > MAX_NAME:
        raise RecordError(
            f"line {lineno}: player name {quote(name)} is too long ({len(name)} characters, at most {MAX_NAME})",
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
            f"line {lineno}: cannot read {what}{quote(piece)}",
            move=move,
            reason=f"unreadable {what or 'text '}{quote(piece)}",
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
            elif play and not _PLAY_TEXT.match(play) and (strict or not UNKNOWN_PLAY.match(play)):
                unreadable("play ", play)
            if len(play) > MAX_PLAY:
                raise RecordError(
                    f"line {lineno}: play {quote(play)} is too long ({len(play)} characters, at most {MAX_PLAY})",
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
    a file). Every number is checked against the bounds of :mod:`~nardy.records.matrecord` (``MAX_LENGTH``,
    ``MAX_SCORE``, ``MAX_CUBE``, ...) before it is used, and lines longer than ``MAX_LINE`` are refused.

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
            that line). The message names the line and quotes at most ``QUOTE`` characters of it.
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
                    f"line {lineno} is too long ({len(line)} characters, at most {MAX_LINE}): {quote(s)}",
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
                raise RecordError(f"line {lineno}: cannot read {quote(s)}", reason=f"unreadable line {quote(s)}")
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
                raise RecordError(f"line {lineno}: cannot read {quote(s)}", reason=f"unreadable line {quote(s)}")
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
                    f"header {key!r}: player name {quote(name)} is too long "
                    f"({len(name)} characters, at most {MAX_NAME})",
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
        raise RecordError(f"cannot read {quote(path)}: not a valid file name", reason="bad path") from None
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

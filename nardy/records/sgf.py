"""SGF match records (GNU Backgammon's native format, ``GM[6]``): read, write, replay.

An SGF file is a collection of game trees, one per game of a match, as GNU Backgammon's ``save match``
writes them (its source, ``sgf.c``, is the reference)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:9][game:0][ws:0][bs:0]
      PW[gnubg]PB[root]RU[Crawford]RE[B+2R]
    ;W[42hdfd]
    ;B[11qrqrstst]
    ;B[double]
    ;W[take]
    ...)
    (;FF[4]GM[6]...MI[length:9][game:1][ws:0][bs:2]...)

* The root node of each game: ``MI`` (match info: ``length:N`` (0 = money), ``game:i`` (0-based),
  ``ws:N``/``bs:N`` the score of White/Black at the game's start), ``PW``/``PB`` the players (White is
  player 0, the left column of a ``.mat`` record), ``RU`` the rules joined by ``:`` (``Crawford``,
  ``CrawfordGame`` (this is the Crawford game), ``Jacoby``, ``NoCube``), ``RE`` the result
  (``W+2``: White wins 2 points; ``B+4R``: Black wins 4 points by resignation).
* Each further node is one action: ``W[..]``/``B[..]`` with the roll and the play, ``double``, ``take``
  or ``drop``. A play is two digits (the roll) and then a pair of letters per step, from and to, in the
  mover's own numbering: White's point ``k`` is the letter ``k`` of the alphabet (``a`` = 1 ...
  ``x`` = 24), Black's point ``k`` the letter ``25 - k`` (``x`` = 1 ... ``a`` = 24); ``y`` is the bar,
  ``z`` off. A roll without letters is a dance. Steps carry no hit marks (the rules know them).
* A resignation has no node: the ``R`` of ``RE`` says the game ended by one, at the level worth the
  points (as GNU Backgammon restores it).

nardy's own properties (private SGF properties, which GNU Backgammon ignores; every name in the SGF
FF[4] specification is left alone):

* ``NV[Short Nardy]`` / ``NV[Long Nardy]``: the game (the ``.mat`` ``Variation`` value; absent or
  ``Backgammon``: backgammon). Long nardy plays use the same letters in each player's own numbering.
* ``NR[key:value]...``: the game's options as the ``.mat`` headers carry them (``opening``, ``scoring``,
  ``strict-bear-off``, ``head-exception``, ``last-roll``, ``cube``) and money options GNU Backgammon's
  SGF cannot state (``beavers``, ``cube-limit``).
* ``W[beaver]``/``B[beaver]``: a beaver (take and redouble at once, money play); ``RE[0]`` (the SGF
  draw) a long nardy ``last-roll`` draw.

:func:`parse_sgf` turns the text into the same :class:`~nardy.records.mat.MatchRecord` the ``.mat``
reader makes (plays as ``.mat`` text, results as ``Wins`` cells, the score of each game), so
:func:`~nardy.records.mat.replay` checks it against the rules the same way; :func:`replay_sgf` does
both. :func:`write_sgf` writes a :class:`~nardy.flow.match.Match` (or one :class:`~nardy.flow.game.Game`).
Whatever the input (``str`` or ``bytes``), reading raises no exception but
:class:`~nardy.rules.errors.RecordError`: the text is bounded (``MAX_SGF``), scanned once with regular
expressions in linear time, never recursively, and messages quote at most 40 characters of it. Only
the main line of a game tree is read (as GNU Backgammon does); analysis, comments and statistics
(``A``, ``DA``, ``C``, ``GS``, ``LU``, ...) are skipped.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..flow.events import BeaverEvent, DoubleEvent, DropEvent, EndEvent, PassEvent, PlayEvent, TakeEvent
from ..rules.errors import RecordError
from ..rules.variants import get_rules
from .matrecord import (
    MAX_GAMES,
    MAX_LENGTH,
    MAX_NAME,
    MAX_OPTION,
    MAX_POINTS,
    MAX_SCORE,
    MatAction,
    MatchRecord,
    MatGame,
)
from .matreplay import replay as replay_record
from .matwrite import VARIATIONS, record_settings

__all__ = ["MAX_SGF", "parse_sgf", "read_sgf", "replay_sgf", "write_sgf", "looks_like_sgf"]

#: Characters of SGF text read at most (an analysed 25-point match written by GNU Backgammon is ~2 MB;
#: the worst text of this size is read in about 6 s).
MAX_SGF = 8 * 1024 * 1024
#: Game trees in a collection, nodes in one game, properties of one node (gnubg writes up to ~15),
#: values of one property (a move's analysis lists a few dozen).
MAX_TREES = MAX_GAMES
MAX_NODES = 20000
MAX_PROPS = 200
MAX_VALUES = 1000
_QUOTE = 40

#: nardy's options in ``NR[key:value]``: the ``.mat`` header each one becomes.
NR_HEADERS = {
    "opening": "Opening",
    "scoring": "Scoring",
    "strict-bear-off": "Strict Bear-off",
    "head-exception": "Head Exception",
    "last-roll": "Last Roll",
    "cube": "Cube",
    "beavers": "Beavers",
    "cube-limit": "CubeLimit",
}

# tokens of SGF text: white space, ( ) ;, and a property: its name and its values ([...], \ escapes)
_VALUE_RE = r"\[[^\\\]]*(?:\\.[^\\\]]*)*\]"
_TOKEN = re.compile(
    rf"(?P<ws>\s+)|(?P<open>\()|(?P<close>\))|(?P<semi>;)|(?P<prop>[A-Za-z]{{1,16}})(?P<values>(?:\s*{_VALUE_RE})+)",
    re.DOTALL,
)
_VALUE = re.compile(r"\[([^\\\]]*(?:\\.[^\\\]]*)*)\]", re.DOTALL)
_NAME = re.compile(r"[A-Za-z]+\s*")
_MOVE = re.compile(r"([1-6])([1-6])([a-z]*)")
_RESULT = re.compile(r"([WB])\+(?:([0-9]{1,7}(?:\.[0-9]{1,3})?))?([A-Za-z]*)", re.IGNORECASE)
_KEYVAL = re.compile(r"([A-Za-z\-_ ]{1,20}):(.*)", re.DOTALL)


def _q(text) -> str:
    text = str(text)
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "...")


def looks_like_sgf(text: str) -> bool:
    """Whether a record's text is SGF (its first character, after white space and a byte-order mark, is
    ``(``) rather than ``.mat`` text."""
    return text.lstrip("\ufeff \t\r\n").startswith("(")


# ----- the SGF syntax ------------------------------------------------------------------------------
@dataclass
class _Tree:
    """The main line of one top-level game tree: its nodes, each a list of (name, [values])."""

    nodes: list = field(default_factory=list)
    line: int = 1


def _unescape(raw: str) -> str:
    # SGF text: '\' escapes the next character; '\' before a line break removes the break (soft break)
    out = re.sub(r"\\(\r\n|\n\r|\r|\n)", "", raw)
    return re.sub(r"\\(.)", r"\1", out, flags=re.DOTALL)


def _collection(text: str) -> list:
    """The game trees of SGF text: a list of :class:`_Tree` (the main line of each, variations skipped).

    Raises RecordError on text that is not SGF (the message names the line and quotes the text)."""
    trees: list = []
    # one entry per open '(': [on the main line, a variation seen, the nodes list, nodes at this level]
    stack: list = []
    node = None  # the node being read (a list of [name, values]), on the main line or not
    pos, n = 0, len(text)

    def fail(at: int, why: str):
        line = text.count("\n", 0, at) + 1
        raise RecordError(f"line {line}: {why}", reason=why)

    while pos < n:
        m = _TOKEN.match(text, pos)
        if m is None:
            if not stack:
                fail(pos, f"cannot read {_q(text[pos : pos + _QUOTE])} outside a game tree: not SGF")
            name = _NAME.match(text, pos)
            at = name.end() if name else pos
            if at < n and text[at] == "[":
                if _VALUE.match(text, at) is None:
                    fail(at, f"a value that is never closed: {_q(text[at:])}")
                if name is None:
                    fail(at, f"a value {_q(text[at : at + _QUOTE])} without a property name")
            if name is not None:
                fail(pos, f"property {_q(name.group().strip())} without a value (or a name over 16 letters)")
            fail(pos, f"cannot read {_q(text[pos : pos + _QUOTE])}: not SGF")
        kind = m.lastgroup if m.lastgroup != "values" else "prop"
        at, pos = pos, m.end()
        if kind == "ws":
            continue
        if kind == "open":
            if not stack:
                if len(trees) >= MAX_TREES:
                    fail(at, f"more than {MAX_TREES} game trees")
                tree = _Tree(line=text.count("\n", 0, at) + 1)
                trees.append(tree)
                stack.append([True, False, tree.nodes, 0])
            else:
                parent = stack[-1]
                if not parent[3]:
                    fail(at, "a game tree without a node before its variations")
                main = parent[0] and not parent[1]
                parent[1] = True
                stack.append([main, False, parent[2] if main else [], 0])
            node = None
            continue
        if not stack:
            fail(at, f"{_q(m.group()[:_QUOTE])} outside a game tree: an SGF file is '(;...)' game trees")
        if kind == "close":
            if not stack[-1][3]:
                fail(at, "an empty game tree: '(' must be followed by a node (';')")
            stack.pop()
            node = None
            continue
        if kind == "semi":
            top = stack[-1]
            if top[1]:
                fail(at, "a node after a variation: a tree's nodes come before its variations")
            if len(top[2]) >= MAX_NODES:
                fail(at, f"more than {MAX_NODES} nodes in one game")
            node = []
            top[2].append(node)
            top[3] += 1
            continue
        # a property with its values
        if node is None:
            fail(at, f"{_q(m.group()[:_QUOTE])} outside a node: a node starts with ';'")
        name = m.group("prop")
        upper = name if name.isupper() else "".join(c for c in name if c.isupper())  # FF[3]: lower-case too
        if not upper:
            fail(at, f"bad property name {_q(name)}")
        if len(node) >= MAX_PROPS:
            fail(at, f"more than {MAX_PROPS} properties in one node")
        values = _VALUE.findall(m.group("values"))
        if len(values) > MAX_VALUES:
            fail(at, f"more than {MAX_VALUES} values of property {upper}")
        node.append([upper, values])
    if stack:
        raise RecordError("the SGF text ends inside a game tree (a ')' is missing)", reason="unclosed game tree")
    if not trees:
        raise RecordError("no game tree: an SGF file is '(;...)' game trees", reason="empty record")
    return trees


# ----- from the syntax to a MatchRecord ------------------------------------------------------------
def _prop(node, name):
    """The values of a node's property (the first one so named), or None."""
    for p in node:
        if p[0] == name:
            return p[1]
    return None


def _int(text: str, what: str, lo: int, hi: int, game: int, *, half: bool = False):
    """A number of ``MI`` (``half``: a score may be a fraction, after a long nardy half-point draw)."""
    s = text.strip()
    pattern = r"[0-9]{1,9}(?:\.[0-9]{1,3})?" if half else r"[0-9]{1,9}"
    if not re.fullmatch(pattern, s) or not lo <= float(s) <= hi:
        raise RecordError(f"game {game}: {what} {_q(s)} is out of range ({lo}-{hi})", game=game, reason=f"bad {what}")
    v = float(s)
    return int(v) if v == int(v) else v


def _point(ch: str, player: int) -> int:
    """A letter of a play as a point in the mover's own numbering (25 bar, 0 off)."""
    if ch == "y":
        return 25
    if ch == "z":
        return 0
    k = ord(ch) - ord("a")  # 0..23
    return k + 1 if player == 0 else 24 - k


def _letter(point: int, player: int) -> str:
    if point >= 25:
        return "y"
    if point <= 0:
        return "z"
    return chr(ord("a") + point - 1) if player == 0 else chr(ord("x") - (point - 1))


def _play_text(letters: str, player: int, game: int, number: int) -> str:
    if len(letters) % 2 or len(letters) > 8:
        raise RecordError(
            f"game {game}, move {number}: play {_q(letters)}: expected up to four from/to letter pairs",
            game=game,
            move=number,
            reason="bad play letters",
        )
    steps = []
    for i in range(0, len(letters), 2):
        a, b = letters[i], letters[i + 1]
        if a == "z" or b == "y":
            raise RecordError(
                f"game {game}, move {number}: play {_q(letters)}: a step from off or to the bar",
                game=game,
                move=number,
                reason="bad play letters",
            )
        steps.append(f"{_point(a, player)}/{_point(b, player)}")
    return " ".join(steps)


def _text_value(values, what: str, game: int, limit: int) -> str:
    v = _unescape(values[0]).strip()
    if len(v) > limit:
        raise RecordError(
            f"game {game}: {what} {_q(v)} is too long ({len(v)} characters, at most {limit})",
            game=game,
            reason=f"{what} too long",
        )
    return v


def _root_info(root, number: int, rec: MatchRecord, first: bool) -> MatGame:
    """Read a game's root node into ``rec`` (match length, players, rules) and return its MatGame."""
    mg = MatGame(number)
    length = None
    ws = bs = None
    mi = _prop(root, "MI")
    for raw in mi or ():
        m = _KEYVAL.fullmatch(_unescape(raw).strip())
        if not m:
            continue
        key, val = m.group(1).strip().lower(), m.group(2)
        if key == "length":
            length = _int(val, "match length", 0, MAX_LENGTH, number)
        elif key == "ws":
            ws = _int(val, "score", 0, MAX_SCORE, number, half=True)
        elif key == "bs":
            bs = _int(val, "score", 0, MAX_SCORE, number, half=True)
        elif key == "game":
            _int(val, "game number", 0, MAX_GAMES, number)
    if length is not None:
        if first:
            rec.length = length
        elif length != rec.length:
            raise RecordError(
                f"game {number}: match length {length}, but the first game says {rec.length}",
                game=number,
                reason="match length changes",
            )
    if ws is not None or bs is not None:
        mg.score = (ws or 0, bs or 0)
    names = []
    for key, default in (("PW", rec.players[0]), ("PB", rec.players[1])):
        v = _prop(root, key)
        names.append(_text_value(v, "player name", number, MAX_NAME) or default if v else default)
    if first:
        rec.players = tuple(names)
    mg.names = tuple(names)
    ru = _prop(root, "RU")
    rules = {r.strip().lower() for r in _unescape(ru[0]).split(":")} if ru else set()
    nv = _prop(root, "NV")
    headers = {}
    if nv:
        headers["Variation"] = _text_value(nv, "NV (game)", number, MAX_OPTION)
    for raw in _prop(root, "NR") or ():
        m = _KEYVAL.fullmatch(_unescape(raw).strip())
        if not m:
            raise RecordError(f"game {number}: NR value {_q(raw)}: expected key:value", game=number, reason="bad NR")
        key = m.group(1).strip().lower()
        if key in NR_HEADERS:
            val = m.group(2).strip()
            if len(val) > MAX_OPTION:
                raise RecordError(f"game {number}: NR {key} {_q(val)} is too long", game=number, reason="NR too long")
            headers[NR_HEADERS[key]] = val
    if "nocube" in rules:
        headers["Cube"] = "Off"
    headers["Crawford"] = "On" if "crawford" in rules or "crawfordgame" in rules else "Off"
    headers["Jacoby"] = "On" if "jacoby" in rules else "Off"
    for bad in ("nackgammon", "hypergammon1", "hypergammon2", "hypergammon3"):
        if bad in rules:
            raise RecordError(
                f"game {number}: variation {bad!r} (RU) is not a game nardy plays",
                game=number,
                reason="unknown variation",
            )
    if first:
        rec.headers.update(headers)
    elif rec.headers.get("Variation", "Backgammon") != headers.get("Variation", "Backgammon"):
        raise RecordError(f"game {number}: the game (NV) changes within the match", game=number, reason="game changes")
    cv = _prop(root, "CV")
    if cv and _unescape(cv[0]).strip() not in ("", "1"):
        raise RecordError(
            f"game {number}: an automatic double (CV[{_unescape(cv[0]).strip()[:8]}]) is not supported",
            game=number,
            reason="automatic doubles",
        )
    return mg


def _result(values, number: int):
    """``RE``: (winner 0/1, points or None, resigned) for a win, ``"draw"``, or None (no result)."""
    v = _unescape(values[0]).strip()
    if v.lower() in ("", "?", "void"):
        return None
    if v.lower() in ("0", "draw", "d"):
        return "draw"
    m = _RESULT.fullmatch(v)
    if not m:
        raise RecordError(
            f"game {number}: result RE[{v[:_QUOTE]}]: expected W+points or B+points (R: by resignation)",
            game=number,
            reason="bad result",
        )
    pts = None
    if m.group(2):
        pts = float(m.group(2))
        if pts > MAX_POINTS:
            raise RecordError(f"game {number}: result {_q(v)}: too many points", game=number, reason="bad result")
        pts = int(pts) if pts == int(pts) else pts
    resigned = m.group(3).lower() in ("r", "resign", "resigned")
    if resigned and pts is None:
        raise RecordError(
            f"game {number}: result {_q(v)}: a resignation must say the points", game=number, reason="bad result"
        )
    return (0 if m.group(1).upper() == "W" else 1), pts, resigned


def _game_actions(tree: _Tree, mg: MatGame) -> None:
    number = mg.number
    moves = 0
    for node in tree.nodes:
        moved = [p for p in node if p[0] in ("W", "B")]
        if len(moved) > 1:
            raise RecordError(
                f"game {number}: two moves (W and B) in one node", game=number, move=moves + 1, reason="two moves"
            )
        for p in node:
            if p[0] in ("AB", "AW", "AE", "CP") or (p[0] == "CV" and node is not tree.nodes[0]):
                raise RecordError(
                    f"game {number}: a set-up node ({p[0]}): only games played from the start are read",
                    game=number,
                    move=moves + 1,
                    reason="set-up node",
                )
        if not moved:
            continue
        name, values = moved[0]
        player = 0 if name == "W" else 1
        value = values[0].strip()
        moves += 1
        act = MatAction(player, "move", move=moves, line=tree.line)
        low = value.lower()
        if low in ("double", "take", "drop", "beaver"):
            act.kind = low
        else:
            m = _MOVE.fullmatch(value)
            if not m:
                raise RecordError(
                    f"game {number}, move {moves}: cannot read {name}[{value[:_QUOTE]}]: expected a roll and its "
                    f"play (e.g. 42hdfd), double, take or drop",
                    game=number,
                    move=moves,
                    reason="unreadable move",
                )
            act.dice = (int(m.group(1)), int(m.group(2)))
            act.text = _play_text(m.group(3), player, number, moves)
        mg.actions.append(act)
    re_ = _prop(tree.nodes[0], "RE") if tree.nodes else None
    res = _result(re_, number) if re_ else None
    if res == "draw":
        mg.actions.append(MatAction(0, "draw", move=moves + 1))
    elif res is not None:
        winner, pts, _resigned = res
        if pts is not None:
            mg.actions.append(MatAction(winner, "wins", value=pts, move=moves + 1))


def parse_sgf(text) -> MatchRecord:
    """Parse SGF text into a :class:`~nardy.records.mat.MatchRecord` (syntax only; replay checks the rules).

    Args:
        text: the SGF text (``str``), or its bytes (decoded as UTF-8, or ISO-8859-1 when the root's
            ``CA`` says so; bad bytes replaced). A string is never taken for a file name.
    Returns:
        The record, as :func:`~nardy.records.mat.parse_mat` makes it: ``length``, ``players`` (White
        first), ``headers`` (``Variation``, ``Crawford``, ``Jacoby`` and nardy's options), and one
        :class:`~nardy.records.mat.MatGame` per game tree (its ``score`` from ``MI``, its cells: plays
        as ``.mat`` text from the mover's own view, cube actions, and the ``RE`` result as a ``wins``
        or ``draw`` cell).
    Raises:
        RecordError: not text, too long (``MAX_SGF``), not SGF, no backgammon game (``GM[6]``), a
            value out of range, or a node nardy cannot read (set-up positions, automatic doubles);
            ``.partial`` holds the games read so far.
    """
    if isinstance(text, (bytes, bytearray)):
        raw = bytes(text)
        enc = "utf-8"
        head = raw[:2000].upper()
        if b"CA[ISO-8859-1]" in head or b"CA[LATIN1]" in head or b"CA[ISO8859-1]" in head:
            enc = "latin-1"
        text = raw.decode(enc, errors="replace")
    if not isinstance(text, str):
        raise RecordError(
            f"parse_sgf expects the text of a record (str or bytes), got {type(text).__name__}; read a file with "
            f"read_sgf",
            reason="not text",
        )
    if len(text) > MAX_SGF:
        raise RecordError(f"the SGF text is too long ({len(text)} characters, at most {MAX_SGF})", reason="too long")
    if text.startswith("\ufeff"):
        text = text[1:]
    trees = _collection(text)
    rec = MatchRecord()
    games = []
    for t in trees:
        gm = _prop(t.nodes[0], "GM") if t.nodes else None
        if gm is not None and _unescape(gm[0]).strip() == "6":
            games.append(t)
    if not games:
        raise RecordError(
            "no backgammon game in the SGF file (a game tree's root must say GM[6])", reason="not backgammon"
        )
    try:
        for i, t in enumerate(games):
            mg = _root_info(t.nodes[0], i + 1, rec, i == 0)
            _game_actions(t, mg)
            if not mg.actions and i == len(games) - 1 and i > 0:
                continue  # a game not started yet (no move, no result)
            rec.games.append(mg)
    except RecordError as e:
        e.partial = rec
        raise
    _ = rec.rules()  # a bad NV/NR is an error of the reading already
    return rec


def read_sgf(path) -> MatchRecord:
    """Read an ``.sgf`` file and parse it with :func:`parse_sgf`.

    Args:
        path: the file (``str`` or :class:`os.PathLike`; always a path).
    Raises:
        RecordError: not a path, the file cannot be read (named with the system's reason), or
            :func:`parse_sgf` refuses it.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise RecordError(
            f"read_sgf expects a path (str or os.PathLike), got {type(path).__name__}", reason="not a path"
        )
    try:
        name = os.fspath(path)
        if not isinstance(name, str):
            raise TypeError
        p = Path(name)
        if p.stat().st_size > 4 * MAX_SGF:
            raise RecordError(f"cannot read {name}: larger than {4 * MAX_SGF} bytes", reason="too long")
        raw = p.read_bytes()
    except OSError as e:
        why = e.strerror or "cannot be read"
        raise RecordError(f"cannot read {name}: {why}", reason=why) from None
    except (TypeError, ValueError):
        raise RecordError(f"cannot read {_q(path)}: not a valid file name", reason="bad path") from None
    return parse_sgf(raw)


def replay_sgf(source):
    """Parse SGF (text, bytes, or an :class:`os.PathLike` file) and replay it through the rules.

    Returns:
        The :class:`~nardy.flow.match.Match` (see :func:`~nardy.records.mat.replay`: every play legal,
        every cube action in turn, each game's stated score and result checked).
    Raises:
        RecordError: the first thing that cannot be read or breaks a rule (``.partial`` the valid part).
    """
    rec = read_sgf(source) if isinstance(source, os.PathLike) else parse_sgf(source)
    return replay_record(rec)


# ----- writing -----------------------------------------------------------------------------------
def _escape(text) -> str:
    return str(text).replace("\\", "\\\\").replace("]", "\\]")


def _points(v) -> str:
    return str(int(v)) if float(v) == int(v) else str(v)


def _moves(game) -> list:
    out = []
    for e in game.history:
        match e:
            case PlayEvent(player=p, dice=d, steps=steps):
                letters = "".join(_letter(a, p) + _letter(b, p) for a, b, _d, _h in steps)
                out.append(f";{'WB'[p]}[{d[0]}{d[1]}{letters}]")
            case PassEvent(player=p, dice=d):
                out.append(f";{'WB'[p]}[{d[0]}{d[1]}]")
            case DoubleEvent(player=p):
                out.append(f";{'WB'[p]}[double]")
            case TakeEvent(player=p):
                out.append(f";{'WB'[p]}[take]")
            case BeaverEvent(player=p):
                out.append(f";{'WB'[p]}[beaver]")
            case DropEvent(player=p):
                out.append(f";{'WB'[p]}[drop]")
    return out


def write_sgf(match, *, application: str | None = None) -> str:
    """A match (or a single :class:`~nardy.flow.game.Game`) as SGF text, as GNU Backgammon writes it.

    One game tree per game (``MI`` with the length, the game's 0-based number and the score at its
    start; ``PW``/``PB``; ``RU`` with ``Crawford``, ``CrawfordGame``, ``Jacoby``, ``NoCube``; ``RE`` when
    the game is over, ``R`` for a resignation), then a node per roll and play, double, take and drop.
    Backgammon records open in GNU Backgammon (``load match``); the nardy games add ``NV``/``NR`` (see the
    module's description). Declined resignations are not written (GNU Backgammon's SGF has no node for
    them).

    Args:
        match: a :class:`~nardy.flow.match.Match` or :class:`~nardy.flow.game.Game`.
        application: the ``AP`` value (default ``nardy:<version>``).
    Raises:
        RecordError: ``match`` is neither.
    """
    games, length, rules, players, jacoby, beavers, limit, crawford, cube = record_settings(match, "write_sgf", False)
    if application is None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            application = f"nardy:{version('nardy')}"
        except PackageNotFoundError:
            application = "nardy"
    nr = []
    default = get_rules(rules.name)
    if rules != default or rules.name != "backgammon" or cube != rules.cube:
        nr += [f"opening:{rules.opening}", "scoring:" + "/".join(str(v) for v in rules.scoring)]
        nr.append(f"strict-bear-off:{'on' if rules.strict_bear_off else 'off'}")
        if rules.name == "long":
            nr += [f"head-exception:{rules.head_exception}", f"last-roll:{rules.last_roll}"]
        nr.append(f"cube:{'on' if cube else 'off'}")
    if length == 0 and beavers:
        nr.append("beavers:on")
    if limit:
        nr.append(f"cube-limit:{limit}")
    out = []
    score = [0, 0]
    for i, g in enumerate(games or [None]):
        head = f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]"
        head += f"MI[length:{length}][game:{i}][ws:{_points(score[0])}][bs:{_points(score[1])}]"
        head += f"PW[{_escape(players[0])}]PB[{_escape(players[1])}]"
        ru = []
        if not cube:
            ru.append("NoCube")
        if length and crawford:
            ru.append("Crawford")
            if g is not None and g.crawford:
                ru.append("CrawfordGame")
        if not length and jacoby:
            ru.append("Jacoby")
        if ru:
            head += f"RU[{':'.join(ru)}]"
        end = next((e for e in reversed(g.history) if isinstance(e, EndEvent)), None) if g is not None else None
        if end is not None:
            if end.winner is None:
                head += "RE[0]"
            else:
                head += f"RE[{'WB'[end.winner]}+{_points(end.points)}{'R' if end.reason == 'resign' else ''}]"
        if rules.name != "backgammon":
            head += f"NV[{VARIATIONS[rules.name]}]"
        if nr:
            head += "NR" + "".join(f"[{_escape(v)}]" for v in nr)
        body = _moves(g) if g is not None else []
        out.append(head + "".join("\n" + m for m in body) + ")\n")
        if g is not None and g.result is not None:
            a, b = g.result.score()
            score[0] += a
            score[1] += b
    return "".join(out)

"""Jellyfish ``.mat`` match records: read, replay through the rules, write.

The ``.mat`` text is the format GNU Backgammon, eXtreme Gammon, BGBlitz and the playing sites
exchange (RULES.md "Notation", "Records")::

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
  (``Backgammon``, ``Short Nardy``, ``Long Nardy``; RULES.md aliases accepted); the nardy games'
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

:func:`read_mat` parses the text into a :class:`MatchRecord` (syntax only). :func:`replay` plays it
through :class:`~nardy.match.Match`: every play must be legal, every cube action in turn, every
``Wins`` line and game score line must agree with the computed score; the first violation raises
:class:`~nardy.errors.RecordError` naming the game, move number, player and reason, with
``.partial`` holding the valid part. :func:`write_mat` writes a match (or one game) in the same
format, as GNU Backgammon lays it out.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import NardyError, RecordError
from ..rules import Rules, game_name, get_rules

__all__ = ["MatAction", "MatGame", "MatchRecord", "read_mat", "replay", "write_mat", "VARIATIONS"]

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
            raise RecordError(f"unknown Variation {var!r}: expected Backgammon, Short Nardy or Long Nardy",
                              reason="unknown variation", partial=self) from None

    def rules(self) -> Rules:
        """The :class:`~nardy.rules.Rules` the headers describe."""
        opts = {}
        for names, key in ((("Opening",), "opening"), (("Scoring",), "scoring"),
                           (("Strict Bear-off", "StrictBearOff"), "strict-bear-off"),
                           (("Head Exception", "HeadException"), "head-exception"),
                           (("Last Roll", "LastRoll"), "last-roll"), (("Cube",), "cube")):
            v = self.header(*names)
            if v is not None:
                opts[key] = v.strip().lower() if key != "scoring" else v
        try:
            return get_rules(self.game, **opts)
        except NardyError as e:
            raise RecordError(f"bad rules header: {e}", reason=str(e), partial=self) from None

    def to_dict(self) -> dict:
        return {"length": self.length, "players": list(self.players), "headers": dict(self.headers),
                "games": [{"number": g.number, "score": list(g.score) if g.score else None,
                           "actions": [a.to_dict() for a in g.actions]} for g in self.games]}


def _norm_key(k: str) -> str:
    return re.sub(r"[\s_\-]", "", k).lower()


def _on(v, default: bool) -> bool:
    if v is None:
        return default
    return v.strip().lower() in ("on", "yes", "true", "1")


# ----- reading ----------------------------------------------------------------------------------
_HEADER = re.compile(r'^\s*;\s*\[\s*(?P<key>[^"\]]+?)\s+"(?P<value>.*)"\s*\]\s*$')
_LENGTH = re.compile(r"^\s*(?P<n>\d+)\s+point\s+match\s*$", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(?P<n>\d+)\s*$", re.IGNORECASE)
_NUM = r"-?\d+(?:\.\d+)?"
_SCORE = re.compile(rf"^\s*(?P<n0>.*?)\s*:\s*(?P<s0>{_NUM})\s+(?P<n1>\S.*?)\s*:\s*(?P<s1>{_NUM})\s*$")
_MOVE_LINE = re.compile(r"^(?P<pre>\s*(?P<n>\d+)\))(?P<rest>.*)$")
_ITEM = re.compile(
    r"(?P<roll>\b(?P<d1>[1-6])(?P<d2>[1-6]):)"
    r"|(?P<double>\bDoubles?\b(?:\s*=>\s*(?P<dv>\d+))?)"
    r"|(?P<beaver>\bBeavers?\b(?:\s*=>\s*(?P<bv>\d+))?)"
    r"|(?P<take>\bTakes?\b|\bAccepts?\b)"
    r"|(?P<drop>\bDrops?\b|\bPass(?:es)?\b|\bRejects?\b)"
    r"|(?P<wins>\bWins\s+(?P<wv>\d+(?:\.\d+)?)\s+points?(?:\s+and\s+the\s+match)?)"
    r"|(?P<draw>\bDraw\b(?:\s*,?\s*(?P<xv>\d+(?:\.\d+)?)\s+points?\s+each)?)",
    re.IGNORECASE)
_PLAY_TEXT = re.compile(r"^[\s0-9/*()a-zA-Z]*$")


def _num(s: str):
    v = float(s)
    return int(v) if v == int(v) else v


def _items(text: str, offset: int, lineno: int, move: int):
    """The cells of one line: list of (start column, MatAction without player)."""
    out = []
    matches = list(_ITEM.finditer(text))
    pos = 0
    for i, m in enumerate(matches):
        gap = text[pos:m.start()].strip()
        if gap:
            raise RecordError(f"line {lineno}: cannot read {gap!r}", move=move, reason=f"unreadable text {gap!r}")
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        col = offset + m.start()
        if m.group("roll"):
            play = text[m.end():end].strip()
            if play and not _PLAY_TEXT.match(play):
                raise RecordError(f"line {lineno}: cannot read play {play!r}", move=move,
                                  reason=f"unreadable play {play!r}")
            act = MatAction(-1, "move", (int(m.group("d1")), int(m.group("d2"))), play, None, move, lineno)
            pos = end
        else:
            tail = text[m.end():end].strip()
            if tail:
                raise RecordError(f"line {lineno}: cannot read {tail!r}", move=move, reason=f"unreadable text {tail!r}")
            pos = end
            if m.group("double"):
                act = MatAction(-1, "double", value=int(m.group("dv")) if m.group("dv") else None)
            elif m.group("beaver"):
                act = MatAction(-1, "beaver", value=int(m.group("bv")) if m.group("bv") else None)
            elif m.group("take"):
                act = MatAction(-1, "take")
            elif m.group("drop"):
                act = MatAction(-1, "drop")
            elif m.group("wins"):
                act = MatAction(-1, "wins", value=_num(m.group("wv")))
            else:
                act = MatAction(-1, "draw", value=_num(m.group("xv")) if m.group("xv") else None)
            act.move, act.line = move, lineno
        out.append((col, act))
    gap = text[pos:].strip()
    if gap:
        raise RecordError(f"line {lineno}: cannot read {gap!r}", move=move, reason=f"unreadable text {gap!r}")
    return out


def read_mat(source) -> MatchRecord:
    """Parse a ``.mat`` record (syntax only; :func:`replay` checks it against the rules).

    Args:
        source: the text, or a path (``str`` without a newline, or :class:`pathlib.Path`).
    Returns:
        A :class:`MatchRecord`.
    Raises:
        RecordError: unreadable file or line (``.game``, ``.move`` and ``.reason`` set; ``.partial``
            is the record read up to that line).
    """
    if isinstance(source, Path) or (isinstance(source, str) and "\n" not in source and len(source) < 4096
                                    and Path(source).is_file()):
        try:
            raw = Path(source).read_bytes()
        except OSError as e:
            raise RecordError(f"cannot read {source}: {e.strerror}", reason=str(e)) from None
        text = raw.decode("utf-8", errors="replace")
    elif isinstance(source, str):
        text = source
    else:
        raise RecordError(f"read_mat expects text or a path, got {type(source).__name__}", reason="bad source")
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

    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for lineno, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            continue
        try:
            if s.startswith(";") or s.startswith("#"):
                m = _HEADER.match(line)
                if m:
                    rec.headers[m.group("key").strip()] = m.group("value")
                continue
            m = _LENGTH.match(line)
            if m:
                if seen_length or game is not None:
                    raise RecordError(f"line {lineno}: a second match length line", reason="repeated match length")
                rec.length = int(m.group("n"))
                if rec.length > 9999:
                    raise RecordError(f"line {lineno}: match length {rec.length} is out of range (0-9999)",
                                      reason="match length out of range")
                seen_length = True
                continue
            m = _GAME.match(line)
            if m:
                flush_game()
                n = int(m.group("n"))
                if n != len(rec.games) + 1:
                    raise RecordError(f"line {lineno}: Game {n} follows game {len(rec.games)}",
                                      game=n, reason="games out of order")
                game = MatGame(n, line=lineno)
                rec.games.append(game)
                move = 0
                continue
            if game is None:
                if _SCORE.match(line) or _MOVE_LINE.match(line):
                    raise RecordError(f"line {lineno}: moves or scores before the first 'Game 1' line",
                                      reason="missing Game line")
                raise RecordError(f"line {lineno}: cannot read {s!r}", reason=f"unreadable line {s!r}")
            m = _MOVE_LINE.match(line)
            if m:
                n = int(m.group("n"))
                if n < move or n > move + 1 and move:
                    raise RecordError(f"line {lineno}: move {n} follows move {move}", game=game.number,
                                      move=n, reason="move numbers out of order")
                move = n
                cells = _items(m.group("rest"), len(m.group("pre")), lineno, move)
                for k, (col, act) in enumerate(cells):
                    pending.append((col, act, True, k, len(cells)))
                continue
            m = _SCORE.match(line)
            if m and not game.actions and not pending and game.score is None:
                game.score = (_num(m.group("s0")), _num(m.group("s1")))
                game.names = (m.group("n0").strip(), m.group("n1").strip())
                if not names_found:
                    rec.players = game.names
                    names_found = True
                continue
            if game.score is None and not pending and not _ITEM.search(line):
                # a score line without scores: just the two names
                parts = line.split()
                if len(parts) == 2:
                    game.names = tuple(parts)
                    if not names_found:
                        rec.players = game.names
                        names_found = True
                    continue
            cells = _items(line, 0, lineno, move)
            if not cells:
                raise RecordError(f"line {lineno}: cannot read {s!r}", reason=f"unreadable line {s!r}")
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
        rec.players = (p1, p2)
    return rec


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
    for col, act, numbered, k, n in pending:
        if n == 2:
            act.player = k
        else:
            act.player = 1 if col >= split else 0
        game.actions.append(act)


# ----- replaying --------------------------------------------------------------------------------
def replay(record):
    """Play a record through the rules and return the :class:`~nardy.match.Match`.

    Every play is parsed with :meth:`Position.parse_play` and must be legal; cube actions must be in
    turn and allowed (no double in the Crawford game, ``Doubles => N`` must name the new value);
    each game's stated score must equal the running score, and each ``Wins N`` line the computed
    result (bear-off level times the cube, a drop's cube value, or a resignation worth N).

    Args:
        record: a :class:`MatchRecord`, or text/path for :func:`read_mat`.
    Raises:
        RecordError: the first violation, with ``.game``, ``.move``, ``.player`` (the name),
            ``.reason`` and ``.partial`` (the :class:`~nardy.match.Match` of the valid part).
    """
    from ..match import Match
    from ..dice import FixedDice
    if not isinstance(record, MatchRecord):
        record = read_mat(record)
    rules = record.rules()
    crawford = _on(record.header("Crawford"), True)
    jacoby = _on(record.header("Jacoby"), False) if record.length == 0 else False
    beavers = _on(record.header("Beavers"), False) if record.length == 0 else False
    limit = record.header("CubeLimit", "Cube Limit")
    try:
        limit = int(limit) if limit else None
        if limit is not None and (limit < 1 or limit & (limit - 1)):
            limit = None
    except ValueError:
        limit = None
    match = Match(rules, length=record.length, dice=FixedDice(), jacoby=jacoby, beavers=beavers,
                  cube_limit=limit, crawford=crawford, players=record.players)
    for mg in record.games:
        _replay_game(match, record, mg)
    return match


def _fmt_score(s):
    return f"{s[0]}-{s[1]}"


def _replay_game(match, record: MatchRecord, mg: MatGame):
    names = record.players
    k = mg.number

    def fail(reason, act=None):
        who = names[act.player] if act is not None and act.player in (0, 1) else None
        mv = act.move if act is not None else None
        where = f"game {k}" + (f", move {mv}" if mv else "") + (f", {who}" if who else "")
        raise RecordError(f"{where}: {reason}", game=k, move=mv, player=who, reason=reason, partial=match)

    if match.games and not match.games[-1].is_over:
        fail(f"game {k - 1} did not end (no result line)")
    if match.is_over:
        fail(f"the match was already over at {_fmt_score(match.score)}")
    if mg.score is not None and tuple(mg.score) != tuple(match.score):
        fail(f"the record states the score {_fmt_score(mg.score)} but the games before give "
             f"{_fmt_score(match.score)}")
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
            fail(f"{act.kind} after the end of the game ({g._result_text()})", act)
        try:
            if act.kind == "move":
                if g.phase == "roll":
                    if act.player != g.turn:
                        fail(f"{names[act.player]} rolls but it is {names[g.turn]}'s turn", act)
                    passed_before = len(g.history)
                    g.roll(act.dice)
                    passed = any(e["type"] == "pass" for e in g.history[passed_before:])
                    if passed:
                        if act.text.strip():
                            fail(f"play {act.text!r} with {act.dice[0]}{act.dice[1]}: no checker can move "
                                 f"(the roll must be passed)", act)
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
                    fail(f"{names[act.player]} cannot double now "
                         f"({'it is ' + names[g.turn] + chr(39) + 's turn' if g.turn != act.player else 'phase ' + g.phase})",
                         act)
                if act.value is not None and act.value != g.cube_value * 2:
                    fail(f"'Doubles => {act.value}' but the cube is at {g.cube_value}", act)
                g.double(player=act.player)
            elif act.kind == "take":
                g.take(player=act.player)
            elif act.kind == "beaver":
                if act.value is not None and act.value != g.cube_value * 4:
                    fail(f"'Beavers => {act.value}' but the cube is at {g.cube_value}", act)
                g.beaver(player=act.player)
            elif act.kind == "drop":
                g.drop(player=act.player)
            elif act.kind == "wins":
                if g.is_over:
                    r = g.result
                    if r.winner != act.player:
                        fail(f"the record says {names[act.player]} wins, but {g._result_text()}", act)
                    if r.points != act.value:
                        fail(f"'Wins {act.value}' but the game is worth {r.points} "
                             f"({r.level_name}, cube {r.cube})", act)
                else:
                    # a resignation by the other player, accepted at the level worth that much
                    loser = 1 - act.player
                    levels = [lv for lv in range(len(match.rules.scoring)) if g._points(lv) == act.value]
                    if not levels:
                        fail(f"'Wins {act.value}' before the game is over: no resignation level is worth "
                             f"that with the cube at {g.cube_value}", act)
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
    cube = 1
    for e in game.history:
        t = e["type"]
        if t == "opening":
            if e.get("dice"):
                pass  # the opening dice appear with the first play
        elif t == "play":
            d = e["dice"]
            cells.append((e["player"], f"{d[0]}{d[1]}: {_plain(e['steps'])}".rstrip()))
        elif t == "pass":
            d = e["dice"]
            cells.append((e["player"], f"{d[0]}{d[1]}:"))
        elif t == "double":
            cube = e["value"]
            cells.append((e["player"], f" Doubles => {cube}"))
        elif t == "take":
            cells.append((e["player"], " Takes"))
        elif t == "beaver":
            cells.append((e["player"], f" Beavers => {e['value']}"))
        elif t == "drop":
            cells.append((e["player"], " Drops"))
        elif t == "end":
            if e["winner"] is None:
                cells.append((game.history[-2]["player"] if len(game.history) > 1 else 0,
                              f"Draw {_points_text(e['points'])} each"))
            else:
                cells.append((e["winner"], f"Wins {_points_text(e['points'])}"))
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
        if text.startswith("Wins") or text.startswith("Draw"):
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


def match_summary(match) -> dict:
    """Each game's plays and result and the final score, as JSON-able data."""
    games = []
    score = [0, 0]
    for i, g in enumerate(match.games):
        events = [e for e in g.history if e["type"] in ("play", "pass", "double", "take", "drop", "beaver",
                                                          "resign", "accept", "decline")]
        games.append({"game": i + 1, "score": list(score), "crawford": g.crawford,
                      "events": [{k: v for k, v in e.items() if k != "steps"} for e in events],
                      "result": g.result.to_dict() if g.result else None})
        if g.result:
            a, b = g.result.score()
            score[0] += a
            score[1] += b
    return {"game": match.rules.name, "length": match.length, "players": list(match.players),
            "games": games, "score": list(match.score), "winner": match.winner}

"""FIBS board state lines (``board:...``): read, written, and the plays they ask for.

The line is the "boardstyle 3" board of the FIBS client protocol (http://www.fibs.com/fibs_interface.html#board_state),
the line GNU Backgammon sends to an external player (``set player N external HOST:PORT``) and reads from one
(its ``external`` command makes it the player: nardy's bot client sends it each board, :mod:`nardy.client.external`).

The line has 52 ``:``-separated fields after ``board:``: the player's and the opponent's names, the match
length (9999: unlimited), the two scores, 26 board fields (positive numbers are O's checkers, negative X's;
fields 0 and 25 are the bars), whose turn (1 O, -1 X, 0 game over), the player's and the opponent's dice,
the cube, may-double flags of the player and the opponent, was-doubled, the player's colour (1 O, -1 X) and
direction (-1: moves from 24 to 1, home 0, bar 25; 1: the other way), home, bar, borne-off counts, bar
counts, can-move, forced-move, and two Crawford flags (GNU Backgammon's non-Crawford and post-Crawford: in a
match where a side is 1-away it is the Crawford game unless either is set).

* :func:`parse_board` reads a line into a :class:`FibsBoard` (every field checked);
* :func:`format_board` writes one back (``parse_board(format_board(b)) == b``; a line GNU Backgammon wrote
  comes back byte for byte);
* :func:`board_for` builds the board a player must answer from a :class:`~nardy.rules.position.Position` and
  the match's state (the side to act is the line's player, O, moving from 24 to 1);
* :func:`play_text` writes a play as GNU Backgammon's move notation (``24/18 13/11``, ``bar/22``, ``6/off``)
  and :func:`read_play` reads such an answer back into the legal play it names.

Backgammon only (the FIBS board has a bar and 15 checkers a side moving in opposite directions).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..rules.errors import IllegalPlayError, InvalidDiceError, InvalidPositionError, NotationError

__all__ = ["FIELDS", "FibsBoard", "parse_board", "format_board", "board_for", "play_text", "read_play"]

#: Fields of a board line after ``board:``.
FIELDS = 52
_QUOTE = 40


def _q(text) -> str:
    text = str(text)
    return repr(text if len(text) <= _QUOTE else text[:_QUOTE] + "...")


@dataclass(frozen=True)
class FibsBoard:
    """A parsed FIBS board state line (field names as the FIBS client protocol calls them).

    Attributes:
        player, opponent: the names; length: match length (0 = unlimited/money); score: (player, opponent).
        board: the 26 board fields (positive O's checkers, negative X's; 0 and 25 the bars).
        turn: 1 (O on turn), -1 (X), 0 (the game is over).
        dice, opponent_dice: the player's and the opponent's dice ((0, 0): not rolled).
        cube: the cube value; may_double: (player, opponent); doubled: the was-doubled field.
        colour: the player's colour (1 O, -1 X); direction: the player's direction (-1: 24 to 1).
        non_crawford, post_crawford: the last two fields (GNU Backgammon's meaning).
        can_move, forced: fields 48 and 49 (FIBS: how many checkers the player can move, a forced move;
            GNU Backgammon sends and reads 0).
        counts: fields 44-47 as read (borne-off and bar counts of the player and the opponent; GNU Backgammon
            sends zeros); ``None``: :func:`format_board` works them out from the board.
    """

    player: str
    opponent: str
    length: int
    score: tuple
    board: tuple
    turn: int
    dice: tuple
    opponent_dice: tuple
    cube: int
    may_double: tuple
    doubled: int
    colour: int
    direction: int
    non_crawford: int
    post_crawford: int
    can_move: int = 0
    forced: int = 0
    counts: tuple | None = None

    # ----- the sides, by the sign of their checkers (1 O, -1 X) -----------------------------------
    def _direction_of(self, sign: int) -> int:
        return self.direction if sign == self.colour else -self.direction

    def checkers(self, sign: int) -> list:
        """The side's checkers in its own numbering: 26 counts, ``[0]`` off, ``[1..24]`` points, ``[25]`` bar."""
        d = self._direction_of(sign)
        out = [0] * 26
        for k in range(1, 25):
            v = self.board[k if d < 0 else 25 - k]
            if v * sign > 0:
                out[k] = abs(v)
        out[25] = abs(self.board[25 if d < 0 else 0])
        out[0] = 15 - sum(out[1:])
        return out

    def score_of(self, sign: int) -> int:
        return self.score[0] if sign == self.colour else self.score[1]

    def may_double_of(self, sign: int) -> bool:
        return self.may_double[0] if sign == self.colour else self.may_double[1]

    def dice_of(self, sign: int) -> tuple:
        d = self.dice if sign == self.colour else self.opponent_dice
        return d if d[0] else (self.opponent_dice if sign == self.colour else self.dice)

    @property
    def crawford(self) -> bool:
        """This is a match's Crawford game (as GNU Backgammon reads the board: a side 1-away, no flag set)."""
        if not self.length:
            return False
        one_away = self.length - self.score[0] == 1 or self.length - self.score[1] == 1
        return one_away and not (self.non_crawford or self.post_crawford)

    @property
    def request(self) -> str:
        """What the board asks of the side to act: ``"take"`` (a double waits), ``"double"`` (no dice: roll
        or double), ``"move"``."""
        if self.doubled:
            return "take"
        return "move" if self.dice_of(self.turn)[0] else "double"

    @property
    def actor(self) -> int:
        """The sign of the side that must answer: the side on turn, or its opponent when a double waits."""
        return -self.turn if self.doubled else self.turn


def _int_field(parts, i: int, what: str, lo: int, hi: int) -> int:
    s = parts[i].strip()
    if not (s.lstrip("-").isdigit() and len(s) <= 6) or not lo <= int(s) <= hi:
        raise NotationError(f"board field {i} ({what}) {_q(s)}: expected a whole number {lo}..{hi}", text=s[:_QUOTE])
    return int(s)


def parse_board(line: str, dialect: str = "fibs") -> FibsBoard:
    """Parse a FIBS board state line (``board:...``, 52 fields; see the module's description).

    ``dialect`` ``"gnubg"`` reads GNU Backgammon's external-player lines: on its move and roll requests
    (no double waiting) the names and scores are those of its player 0 and player 1 while the board is
    from its player 1's side, so they are swapped to the board's (GNU Backgammon 1.07, the same code in
    1.08: ``ap[fTurn ^ fMove]`` in ``play.c``); ``"fibs"`` reads them as the FIBS protocol defines them.

    Raises:
        NotationError: not a board line, a field missing or out of range.
        InvalidPositionError: more than 15 checkers of a side, checkers of both sides on a point, or the
            direction/home/bar fields disagree.
        InvalidDiceError: a die out of 1..6 (or one die of two).
    """
    if not isinstance(line, str):
        raise NotationError("a board line must be text")
    s = line.strip().strip("\0").strip()
    if not s.startswith("board:"):
        raise NotationError(f"expected a FIBS board line 'board:...', got {_q(s)}", text=s[:_QUOTE])
    parts = s[6:].split(":")
    if len(parts) < FIELDS:
        raise NotationError(f"a board line has {FIELDS} fields after 'board:', this one {len(parts)}")
    if len(parts) > FIELDS + 8:
        raise NotationError(f"a board line has {FIELDS} fields after 'board:', this one {len(parts)}")
    names = [p.strip()[:64] for p in parts[:2]]
    length = _int_field(parts, 2, "match length", 0, 9999)
    length = 0 if length == 9999 else length
    hi = 9999 if not length else length - 1
    score = (_int_field(parts, 3, "player's score", 0, hi), _int_field(parts, 4, "opponent's score", 0, hi))
    board = tuple(_int_field(parts, 5 + i, f"board position {i}", -15, 15) for i in range(26))
    turn = _int_field(parts, 31, "turn", -1, 1)
    dice = (_int_field(parts, 32, "die", 0, 6), _int_field(parts, 33, "die", 0, 6))
    odice = (_int_field(parts, 34, "opponent's die", 0, 6), _int_field(parts, 35, "opponent's die", 0, 6))
    for d in (dice, odice):
        if (d[0] == 0) != (d[1] == 0):
            raise InvalidDiceError(f"dice {d[0]}-{d[1]}: both dice or neither")
    cube = _int_field(parts, 36, "cube", 1, 1 << 15)
    if cube & (cube - 1):
        raise NotationError(f"board field 36 (cube) {cube}: expected a power of two", text=str(cube))
    may = (bool(_int_field(parts, 37, "may double", 0, 1)), bool(_int_field(parts, 38, "may double", 0, 1)))
    doubled = _int_field(parts, 39, "was doubled", -1, 1)
    colour = _int_field(parts, 40, "colour", -1, 1)
    direction = _int_field(parts, 41, "direction", -1, 1)
    home = _int_field(parts, 42, "home", 0, 25)
    bar = _int_field(parts, 43, "bar", 0, 25)
    if colour == 0 or direction == 0:
        raise NotationError("board fields 40-41 (colour, direction): expected 1 or -1")
    if (home, bar) != ((0, 25) if direction < 0 else (25, 0)):
        raise InvalidPositionError(f"home {home} and bar {bar} do not fit direction {direction}")
    counts = tuple(_int_field(parts, 44 + i, "borne-off or bar count", 0, 15) for i in range(4))
    can_move = _int_field(parts, 48, "can move", 0, 4)
    forced = _int_field(parts, 49, "forced move", 0, 1)
    non_crawford = _int_field(parts, 50, "non-Crawford", 0, 9)
    post_crawford = _int_field(parts, 51, "post-Crawford", 0, 9)
    if dialect not in ("fibs", "gnubg"):
        raise NotationError(f"unknown board dialect {dialect!r}: expected fibs or gnubg")
    if dialect == "gnubg" and not doubled:
        names, score = names[::-1], score[::-1]
    fb = FibsBoard(
        names[0], names[1], length, score, board, turn, dice, odice, cube, may, doubled, colour, direction,
        non_crawford, post_crawford, can_move, forced, counts,
    )  # fmt: skip
    for sign in (1, -1):
        c = fb.checkers(sign)
        if c[0] < 0:
            raise InvalidPositionError(f"more than 15 checkers of {'O' if sign > 0 else 'X'} on the board")
    return fb


def format_board(fb: FibsBoard) -> str:
    """The FIBS board line of ``fb`` (no line break), as :func:`parse_board` reads it in the ``fibs``
    dialect: names and scores are the player's first. The home and bar fields (42-43) follow the direction,
    the borne-off and bar counts (44-47) are ``fb.counts`` or, when ``None``, worked out from the board; the
    length 0 is written 9999.

    Raises:
        InvalidPositionError: more than 15 checkers of a side on the board.
    """
    for sign in (1, -1):
        if fb.checkers(sign)[0] < 0:
            raise InvalidPositionError(f"more than 15 checkers of {'O' if sign > 0 else 'X'} on the board")
    mine, theirs = fb.checkers(fb.colour), fb.checkers(-fb.colour)
    home, bar = (0, 25) if fb.direction < 0 else (25, 0)
    fields = [
        fb.player, fb.opponent, fb.length or 9999, *fb.score, *fb.board, fb.turn, *fb.dice, *fb.opponent_dice,
        fb.cube, *(int(m) for m in fb.may_double), fb.doubled, fb.colour, fb.direction, home, bar,
        *(fb.counts or (mine[0], theirs[0], mine[25], theirs[25])),
        fb.can_move, fb.forced, fb.non_crawford, fb.post_crawford,
    ]  # fmt: skip
    return "board:" + ":".join(str(f) for f in fields)


def _name(text: str) -> str:
    return "".join(ch for ch in str(text) if ch not in ":\r\n\0")[:64] or "player"


def board_for(
    player: Sequence[int],
    opponent: Sequence[int],
    *,
    dice: Sequence[int] | None = None,
    doubled: bool = False,
    cube: int = 1,
    owner: int | None = None,
    score: Sequence[int] = (0, 0),
    length: int = 0,
    crawford: bool = False,
    names: Sequence[str] = ("player", "opponent"),
) -> FibsBoard:
    """The board the line's player (O, colour 1, moving 24 to 1) must answer, GNU Backgammon's way.

    Args:
        player, opponent: each side's checkers in its own numbering (26 counts: ``[0]`` off, ``[1..24]``,
            ``[25]`` bar; :attr:`~nardy.rules.position.Position.mover` and ``.opponent``).
        dice: the player's roll (a play is asked for; written in both dice fields as GNU Backgammon does);
            ``None``: no dice (the player may double or roll), or a double waits when ``doubled``.
        doubled: the opponent has doubled: the player must take or drop (the turn field names the doubler, -1,
            as GNU Backgammon writes such a board and its ``external`` command reads it: checked against
            gnubg 1.07, which drops a last-roll double written so and takes it written with turn 1).
        cube: the cube's value; owner: ``None`` centred, 0 the player, 1 the opponent.
        score: (player, opponent) points; length: match length (0: money play).
        crawford: this is the Crawford game of the match (else a 1-away score means post-Crawford).
        names: the player's and the opponent's names (``:`` and line breaks dropped).

    Raises:
        InvalidDiceError: bad dice; InvalidPositionError: wrong counts, or a point held by both sides;
        NotationError: dice and a waiting double together, a cube not a power of two.
    """
    if len(player) != 26 or len(opponent) != 26:
        raise InvalidPositionError("board_for: 26 counts a side (off, points 1-24, bar)")
    if dice is not None and doubled:
        raise NotationError("board_for: a double waits for an answer, so no dice are rolled")
    d = (0, 0)
    if dice is not None:
        if len(dice) != 2 or not all(isinstance(x, int) and 1 <= x <= 6 for x in dice):
            raise InvalidDiceError(f"dice {tuple(dice)!r}: two numbers 1..6")
        d = (int(dice[0]), int(dice[1]))
    if cube < 1 or cube & (cube - 1):
        raise NotationError(f"cube {cube}: expected a power of two", text=str(cube))
    board = [0] * 26
    board[25], board[0] = int(player[25]), -int(opponent[25])
    for k in range(1, 25):
        board[k] = int(player[k])
        if opponent[25 - k]:
            if board[k]:
                raise InvalidPositionError(f"point {k} holds checkers of both sides")
            board[k] = -int(opponent[25 - k])
    one_away = bool(length) and (length - score[0] == 1 or length - score[1] == 1)
    post = one_away and not crawford
    fb = FibsBoard(
        _name(names[0]), _name(names[1]), int(length), (int(score[0]), int(score[1])), tuple(board),
        -1 if doubled else 1, d, d, int(cube), (owner != 1, owner != 0), 1 if doubled else 0, 1, -1,
        int(post), int(post),
    )  # fmt: skip
    for sign in (1, -1):
        if fb.checkers(sign)[0] < 0:
            raise InvalidPositionError(f"more than 15 checkers of {'O' if sign > 0 else 'X'} on the board")
    return fb


def play_text(play) -> str:
    """A play in GNU Backgammon's move notation, from the mover's view (``bar/22 13/8 6/off``; ``""`` when
    nothing can move): one ``from/to`` per checker step (a :class:`~nardy.rules.position.Play`'s steps)."""
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b, *_rest in play.steps)


def read_play(position, dice, text: str):
    """The legal play of ``position`` (backgammon, the mover's view) for ``dice`` that ``text`` names:
    GNU Backgammon's answer (``24/18 13/10``, ``bar/22*``, ``6/off(2)``; the empty text when nothing can move).

    Read with :meth:`~nardy.rules.position.Position.parse_play` (merged hops, counts, hit marks); when that
    finds no single play, the plays whose steps are exactly the text's ``from/to`` pairs are taken.

    Raises:
        NotationError: not notation; IllegalPlayError: no legal play, or several, match; InvalidDiceError.
    """
    text = (text or "").strip()
    try:
        return position.parse_play(text, dice)
    except IllegalPlayError:
        wanted = Counter(text.replace("*", "").split())
        found = [p for p in position.legal_plays(dice) if Counter(play_text(p).split()) == wanted]
        if len(found) == 1:
            return found[0]
        raise

"""nardy's computer player behind GNU Backgammon's external-player protocol (``nardy external``,
:mod:`nardy.cli.external`, serves it).

GNU Backgammon plays a side through a socket when told ``set player 1 external HOST:PORT``: on each of
that side's turns it connects (once per match) and sends a FIBS board state line, ``board:...`` (the
"boardstyle 3" line of the FIBS client protocol, http://www.fibs.com/fibs_interface.html#board_state),
and reads one line back:

* dice on the board: the play, in GNU Backgammon's move notation (``8/5 6/5``, ``bar/22``, ``6/off``);
  an empty line when nothing can move;
* no dice (the side may double first): ``roll`` or ``double``;
* a double waiting (the "was doubled" field set): ``take`` or ``drop``;
* ``Error: ...`` for a line that is not a board it can answer (GNU Backgammon shows it and stops).

The board line has 52 ``:``-separated fields after ``board:``: the player's and the opponent's names,
the match length (9999: unlimited), the two scores, 26 board fields (positive numbers are O's checkers,
negative X's; fields 0 and 25 are the bars), whose turn (1 O, -1 X, 0 game over), the player's and the
opponent's dice, the cube, may-double flags of the player and the opponent, was-doubled, the player's
colour (1 O, -1 X) and direction (-1: moves from 24 to 1, home 0, bar 25; 1: the other way), home,
bar, borne-off counts, bar counts, can-move, forced-move, and two Crawford flags (GNU Backgammon's
non-Crawford and post-Crawford: in a match where a side is 1-away it is the Crawford game unless
either is set). GNU Backgammon sends the board from the view of its player 1 (O), follows each line with
a NUL byte, and puts the side to move's dice in both dice fields; a double is answered by the side not on
turn (the turn field names the doubler). This module reads any FIBS board that way: the side to act is
the side on turn, or its opponent when a double waits.

Every line is bounded (:data:`MAX_LINE` bytes), every field checked (counts, dice, cube, scores) before
use; a line that is not a board gets an ``Error:`` line and the connection goes on. The server binds the
loopback interface unless told otherwise, serves at most ``max_clients`` connections at once, closes one
idle for ``idle`` seconds, and bounds each decision by ``think`` seconds
(:class:`~nardy.engine.search.Deadline`).
"""

from __future__ import annotations

import socket
import socketserver
import threading
from dataclasses import dataclass

import click

from .rules.errors import GameStateError, InvalidDiceError, InvalidPositionError, NardyError, NotationError

__all__ = ["MAX_LINE", "FibsBoard", "parse_board", "Decider", "answer", "serve"]

#: Bytes of one request line read at most (a FIBS board line is about 150).
MAX_LINE = 1024
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
    non_crawford = _int_field(parts, 50, "non-Crawford", 0, 9)
    post_crawford = _int_field(parts, 51, "post-Crawford", 0, 9)
    if dialect not in ("fibs", "gnubg"):
        raise NotationError(f"unknown board dialect {dialect!r}: expected fibs or gnubg")
    if dialect == "gnubg" and not doubled:
        names, score = names[::-1], score[::-1]
    fb = FibsBoard(
        names[0], names[1], length, score, board, turn, dice, odice, cube, may, doubled, colour, direction,
        non_crawford, post_crawford,
    )  # fmt: skip
    for sign in (1, -1):
        c = fb.checkers(sign)
        if c[0] < 0:
            raise InvalidPositionError(f"more than 15 checkers of {'O' if sign > 0 else 'X'} on the board")
    return fb


def _move_text(play) -> str:
    """A play in GNU Backgammon's move notation, from the mover's view (``bar/22 13/8 6/off``)."""
    return " ".join(f"{'bar' if a == 25 else a}/{'off' if b == 0 else b}" for a, b, _d, _h in play.steps)


class Decider:
    """Answers board lines with one bot (one per connection: a bot is not shared between threads).

    Args:
        level: a :data:`~nardy.engine.bot.BOT_LEVELS` level.
        think: seconds one decision may take at most (the search returns its best so far); ``None``: no bound.
        seed: the bot's seed (its noise at the weak levels).
        dialect: how to read the lines' names and scores (:func:`parse_board`): ``"gnubg"`` or ``"fibs"``.
    """

    def __init__(self, level: str = "expert", think: float | None = 20.0, seed=None, dialect: str = "gnubg"):
        from .flow.bot import Bot

        self.bot = Bot("backgammon", level=level, seed=seed)
        self.think = think
        self.dialect = dialect

    def decide(self, fb: FibsBoard) -> str:
        """The answer to a parsed board (``roll``/``double``, ``take``/``drop``, or a play).

        Raises:
            GameStateError: the game is over, or a double waits and nobody is on turn.
            InvalidPositionError: not a position of backgammon.
        """
        from .engine.search import Deadline
        from .flow.cubetheory import CubeState
        from .rules.position import Position

        if fb.turn == 0:
            raise GameStateError("the board says the game is over (turn 0): nothing to answer")
        actor = fb.actor
        request = fb.request
        # the position from the view of the side on turn (the mover, or the doubler)
        on_turn = fb.turn
        pos = Position.from_boards(fb.checkers(on_turn), fb.checkers(-on_turn), "backgammon")
        if pos.is_game_over():
            raise GameStateError("the game is over: a side has borne off all 15 checkers")
        if request == "move":
            deadline = Deadline(self.think) if self.think else None
            play = self.bot.choose_play(pos, fb.dice_of(actor), deadline=deadline)
            return _move_text(play)
        mine, theirs = fb.may_double_of(on_turn), fb.may_double_of(-on_turn)
        owner = None if mine == theirs else (0 if mine else 1)
        state = CubeState(
            pos,
            turn=0,
            cube_value=fb.cube,
            cube_owner=owner,
            phase="double" if request == "take" else "roll",
            crawford=fb.crawford,
            score=(fb.score_of(on_turn), fb.score_of(-on_turn)),
            length=fb.length,
        )
        if request == "take":
            return "take" if self.bot.cube_action(state).take else "drop"
        if not mine:
            return "roll"
        return "double" if self.bot.cube_action(state).double else "roll"


def answer(line: str, decider: Decider) -> str:
    """The answer line (no line break) to one request line: a decision, or ``Error: ...`` (never raises
    for bad input: any :class:`~nardy.rules.errors.NardyError` becomes the error line, its text cut to 200
    characters)."""
    try:
        return decider.decide(parse_board(line, decider.dialect))
    except NardyError as e:
        return "Error: " + str(e).replace("\n", " ")[:200]
    except (ValueError, IndexError, OverflowError) as e:  # the last safety net: a bot's own refusal
        return "Error: cannot answer this board: " + str(e).replace("\n", " ")[:160]


# ----- the server ------------------------------------------------------------------------------
class _Handler(socketserver.StreamRequestHandler):
    server: _Server

    def handle(self):
        srv = self.server
        if not srv.slots.acquire(blocking=False):
            self._send("Error: too many connections; try again later")
            return
        try:
            self.connection.settimeout(srv.idle)
            decider = Decider(srv.level, srv.think, srv.seed, srv.dialect)
            while True:
                try:
                    raw = self.rfile.readline(MAX_LINE + 1)
                except (TimeoutError, OSError):
                    return
                if not raw:
                    return
                if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                    self._send(f"Error: line longer than {MAX_LINE} bytes")
                    return  # cannot find the next line reliably: close
                text = raw.replace(b"\0", b"").decode("utf-8", errors="replace").strip()
                if not text:
                    continue  # the NUL GNU Backgammon sends after each line, or an empty line
                reply = answer(text, decider)
                if srv.verbose:
                    click.echo(f"< {text[:200]}\n> {reply}", err=True)
                if not self._send(reply):
                    return
        finally:
            srv.slots.release()

    def _send(self, text: str) -> bool:
        try:
            self.wfile.write(text.encode("utf-8") + b"\n")
            self.wfile.flush()
            return True
        except OSError:
            return False


class _Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, addr, level, think, seed, max_clients, idle, verbose, dialect):
        self.level, self.think, self.seed, self.idle, self.verbose = level, think, seed, idle, verbose
        self.dialect = dialect
        self.slots = threading.BoundedSemaphore(max_clients)
        super().__init__(addr, _Handler)


def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    level: str = "expert",
    think: float | None = 20.0,
    seed=None,
    max_clients: int = 4,
    idle: float = 600.0,
    verbose: bool = False,
    ready=None,
    dialect: str = "gnubg",
):
    """Serve the protocol until interrupted. ``port`` 0 picks a free port; ``ready(port)`` is called once
    listening (tests). Returns the server (after it stops)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET

    class Server(_Server):
        address_family = family

    srv = Server((host, port), level, think, seed, max_clients, idle, verbose, dialect)
    if ready is not None:
        ready(srv)
    try:
        srv.serve_forever(poll_interval=0.2)
    finally:
        srv.server_close()
    return srv

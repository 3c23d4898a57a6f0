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

import click

from .records.fibsboard import FIELDS, FibsBoard, parse_board, play_text
from .rules.errors import GameStateError, NardyError

__all__ = ["MAX_LINE", "FIELDS", "FibsBoard", "parse_board", "Decider", "answer", "serve"]

#: Bytes of one request line read at most (a FIBS board line is about 150).
MAX_LINE = 1024


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
            return play_text(play)
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

"""A bot client's player that asks another program: GNU Backgammon's external-player protocol, nardy as the
*client* (:class:`ExternalPlayer`).

GNU Backgammon's ``external HOST:PORT`` command makes it listen on a socket and play for whoever connects:
each line sent is a FIBS board (:mod:`nardy.records.fibsboard`), each answer one line: a play in its move
notation (``24/18 13/10``), ``roll`` or ``double``, ``take`` or ``drop`` (or ``beaver``), ``Error: ...``.
(``nardy external`` is the other direction: nardy answering GNU Backgammon, :mod:`nardy.external`.)

:class:`ExternalPlayer` turns a game view into the board of the side that must act (that side is the
board's player, O), sends it, reads the answer and returns the action body. GNU Backgammon serves one
connection at a time, so one player keeps one connection (opened on first use, again after a failure) and
asks one question at a time (a lock) even when several games are played at once. What the protocol does not
cover (answering a resignation, starting the next game, games other than backgammon) is decided by an
:class:`~nardy.client.players.EnginePlayer` (``fallback``).
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

from ..records.fibsboard import board_for, format_board, read_play
from .players import EnginePlayer, ViewState, next_game, read_view

__all__ = ["ExternalPlayer", "ExternalError", "MAX_ANSWER", "RELISTEN_GRACE"]

#: Bytes of one answer line read at most.
MAX_ANSWER = 1024

#: Seconds a refused connection is tried again (every 0.1 s): GNU Backgammon listens again only after it has
#: finished with the last connection, so a player connecting just after another one closed is refused at first.
RELISTEN_GRACE = 5.0


class ExternalError(ConnectionError):
    """The external player could not be reached, closed the connection, answered ``Error: ...`` or answered
    something that is not an answer to the board sent (the text is quoted)."""


def parse_address(address: str) -> tuple[str, int]:
    """``"HOST:PORT"`` (or ``"PORT"``: localhost) as ``(host, port)``.

    Raises:
        ValueError: no port, or one outside 1..65535."""
    host, _, port = address.rpartition(":")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{address!r}: expected HOST:PORT with a port 1..65535")
    return (host.strip("[]") or "localhost"), int(port)


class ExternalPlayer:
    """A program listening on ``host:port`` with GNU Backgammon's external-player protocol as a bot client's
    player (:meth:`decide`).

    Args:
        host, port: where it listens (``gnubg -t`` then ``external localhost:PORT``).
        timeout: seconds to connect and to wait for one answer.
        grace: seconds a refused connection is tried again (:data:`RELISTEN_GRACE`; at most ``timeout``).
        fallback: the player of what the protocol does not cover (default ``EnginePlayer("expert")``).
        names: the names written on the board (the player's and the opponent's).
    """

    def __init__(
        self,
        host: str,
        port: int,
        timeout: float = 60.0,
        fallback: EnginePlayer | None = None,
        names: tuple[str, str] = ("nardy", "opponent"),
        grace: float = RELISTEN_GRACE,
    ):
        self.host, self.port, self.timeout = host, int(port), timeout
        self.grace = min(grace, timeout)
        self.fallback = fallback or EnginePlayer("expert")
        self.names = names
        self._sock: socket.socket | None = None
        self._file: Any = None
        self._lock = threading.Lock()
        #: (board line, answer) of the last question (for messages and tests)
        self.last: tuple[str, str] | None = None

    # ----- the connection -------------------------------------------------------------------------
    def close(self) -> None:
        """Close the connection (a later question opens another)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        for c in (self._file, self._sock):
            if c is not None:
                try:
                    c.close()
                except OSError:
                    pass
        self._sock = self._file = None

    def _connect(self) -> socket.socket:
        """A new connection; one refused is tried again every 0.1 s for :attr:`grace` seconds (the program may
        be between two connections). Raises OSError."""
        end = time.monotonic() + self.grace
        while True:
            try:
                return socket.create_connection((self.host, self.port), timeout=self.timeout)
            except ConnectionRefusedError:
                if time.monotonic() >= end:
                    raise
                time.sleep(0.1)

    def ask(self, line: str) -> str:
        """Send one board line and return the answer line (stripped; ``""`` when nothing can move).

        Raises:
            ExternalError: cannot connect, the connection failed or closed, an answer too long, or ``Error:``."""
        with self._lock:
            for attempt in (0, 1):  # a connection the program closed since the last question: once more
                fresh = self._sock is None
                try:
                    if self._sock is None:
                        self._sock = self._connect()
                        self._file = self._sock.makefile("rwb")
                    assert self._file is not None
                    self._file.write(line.encode("ascii", "replace") + b"\n")
                    self._file.flush()
                    raw = self._file.readline(MAX_ANSWER + 1)
                    if not raw:
                        raise ExternalError("the external player closed the connection")
                except (OSError, ExternalError) as e:
                    self._close()
                    if attempt or fresh:
                        raise ExternalError(f"external player {self.host}:{self.port}: {e}") from e
                    continue
                if len(raw) > MAX_ANSWER:
                    self._close()
                    raise ExternalError(f"external player {self.host}:{self.port}: an answer over {MAX_ANSWER} bytes")
                answer = raw.replace(b"\0", b"").decode("utf-8", "replace").strip()
                self.last = (line, answer)
                if answer.lower().startswith("error"):
                    raise ExternalError(f"external player refused the board {line!r}: {answer[:200]!r}")
                return answer
        raise ExternalError("unreachable")  # pragma: no cover

    # ----- decisions ------------------------------------------------------------------------------
    def board(self, st: ViewState) -> str:
        """The FIBS board line of the decision ``st`` asks of its side ``st.me`` (that side is the board's
        player)."""
        me = int(st.me or 0)
        pos = st.position  # the side on turn's view
        mine, theirs = (pos.mover, pos.opponent) if st.turn == me else (pos.opponent, pos.mover)
        owner = None if st.cube_owner is None else (0 if st.cube_owner == me else 1)
        fb = board_for(
            mine,
            theirs,
            dice=st.dice if st.phase == "move" else None,
            doubled=st.phase == "double",
            cube=st.cube_value,
            owner=owner,
            score=(int(st.score[me]), int(st.score[1 - me])),
            length=st.length,
            crawford=st.crawford,
            names=self.names,
        )
        return format_board(fb)

    def decide(self, view: dict) -> dict | None:
        """The action body for ``view`` (as :meth:`nardy.client.players.EnginePlayer.decide`), the play or cube
        action chosen by the external player.

        Raises:
            ExternalError: the external player failed or answered what is not legal here (quoted)."""
        nxt = next_game(view)
        if nxt is not None:
            return nxt
        st = read_view(view)
        if st is None:
            return None
        if st.game != "backgammon" or st.phase not in ("move", "roll", "double"):
            return self.fallback.decide_state(st)
        seq = st.seq
        if st.phase == "roll" and "double" not in st.actions:
            return {"action": "roll", "seq": seq}  # the cube cannot be used: nothing to ask
        if st.phase == "move":
            assert st.dice is not None
            if not any(p.steps for p in st.position.legal_plays(st.dice)):
                return {"action": "play", "play": "", "seq": seq}
        line = self.board(st)
        answer = self.ask(line)
        word = answer.lower()
        if st.phase == "roll":
            if word in ("roll", "double"):
                return {"action": word, "seq": seq}
        elif st.phase == "double":
            if word in ("take", "drop", "pass", "beaver"):
                action = "take" if word in ("take", "beaver") else "drop"
                return {"action": action, "seq": seq}
        else:
            assert st.dice is not None
            try:
                play = read_play(st.position, st.dice, answer)
            except ValueError as e:  # NardyError: notation or an illegal play
                raise ExternalError(f"external player's play {answer!r} for {line!r}: {e}") from e
            return {"action": "play", "play": play.notation("own"), "seq": seq}
        raise ExternalError(f"external player answered {answer!r} to {line!r} ({st.phase} phase)")

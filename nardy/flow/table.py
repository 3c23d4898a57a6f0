"""The table: a match between two seats, with a clock and an event log, for every front end.

A :class:`Table` holds a :class:`~nardy.flow.match.Match` and two :class:`Seat` s (White = side 0, Black = side 1),
each a person at this device (``person``), a person elsewhere (``remote``: a player id, empty until someone
takes it) or the computer at a level (``computer``). It is the one place that runs turns:

* :meth:`Table.act` applies a person's action for a side (roll, step, undo, confirm, play, double, take,
  drop, beaver, resign, accept, decline, next), refusing the computer's side, an empty seat, a finished
  match and (through :class:`~nardy.flow.game.Game`) anything out of turn or against the rules;
* :meth:`Table.advance` lets the computer act (and rolls for a person when ``auto_roll`` and doubling is not
  possible) until a person must act; :meth:`Table.computer_act` is one such decision, for front ends that
  show each;
* the clock (:class:`~nardy.flow.clock.Clock`, optional) runs for the side to act; :meth:`Table.check_time` ends
  the match when that side's time has run out (docs/online.md: running out of time loses the match; in a
  money session, the session ends, lost by the side out of time);
* between the games of a clocked match that starts its next game by itself (``auto_next``, online play), the table
  holds a pause of :data:`BETWEEN_GAMES` seconds (:attr:`Table.pause_until`) in which no clock runs: a ``next``
  action ends it, or :meth:`Table.wake` once its time is past (a server's clock keeper calls it);
* :attr:`Table.log` records what happened at the table (seats taken, games started, every action with its
  side and time, a time out) beside the games' own histories.

The terminal (:mod:`nardy.terminal.play`), the local web game and online games (:mod:`nardy.web`) only draw and ask;
they map their user to a side and call the table. Points are in the mover's own numbering (1-24, 25 the bar,
0 off); the front ends convert their views.

``now`` arguments are wall-clock seconds (``time.time()`` when omitted).
"""

from __future__ import annotations

import time
import zlib
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..rules.errors import GameStateError, IllegalPlayError, InvalidOptionError
from .clock import Clock
from .match import Match
from .players import ComputerPlayers, Player

__all__ = ["Table", "Seat", "SeatKind", "ACTIONS", "BOT_MOVE_BUDGET", "ENDED_REASONS", "BETWEEN_GAMES"]

#: Seconds of the pause between two games of a clocked match with ``auto_next`` (the players read the result;
#: no clock runs): then the next game starts by itself (:meth:`Table.wake`), or sooner on a ``next``.
BETWEEN_GAMES = 6.0

#: How a match may end other than by points: on time (:meth:`Table.check_time`) or abandoned
#: (:meth:`Table.forfeit`).
ENDED_REASONS = ("time", "abandoned", "aborted")

#: Actions a person may take at the table.
ACTIONS = (
    "roll",
    "step",
    "undo",
    "confirm",
    "play",
    "double",
    "take",
    "drop",
    "beaver",
    "resign",
    "accept",
    "decline",
    "next",
)

#: Seconds one decision of the computer may search under a deadline before it plays its best so far.
BOT_MOVE_BUDGET = 2.0

_MAX_BOT_ACTIONS = 2000
_MAX_NAME = 40


class SeatKind(StrEnum):
    """Who sits in a seat."""

    PERSON = "person"  # a person at this device (the terminal, the local web page)
    REMOTE = "remote"  # a person elsewhere, known by a player id (online games)
    COMPUTER = "computer"  # the computer at a level


@dataclass(frozen=True)
class Seat:
    """One side's player: ``kind``, a ``name`` to show, the computer's ``level`` and a remote person's
    ``player`` id (``None`` while the seat waits for someone).

    Raises:
        InvalidOptionError: an unknown kind, a computer without a level, a name over 40 characters."""

    kind: SeatKind
    name: str
    level: str | None = None
    player: str | None = None

    def __post_init__(self):
        try:
            object.__setattr__(self, "kind", SeatKind(self.kind))
        except ValueError:
            raise InvalidOptionError(f"seat kind {self.kind!r}: expected person, remote or computer") from None
        if not isinstance(self.name, str) or len(self.name) > _MAX_NAME:
            raise InvalidOptionError(f"seat name {self.name!r:.60}: expected text of at most {_MAX_NAME} characters")
        if (self.kind is SeatKind.COMPUTER) != (self.level is not None):
            raise InvalidOptionError(f"seat {self.name!r}: a computer seat has a level, and only a computer seat")
        if self.player is not None and self.kind is not SeatKind.REMOTE:
            raise InvalidOptionError(f"seat {self.name!r}: only a remote seat has a player id")

    @property
    def human(self) -> bool:
        """A person (here or elsewhere), not the computer."""
        return self.kind is not SeatKind.COMPUTER

    @property
    def empty(self) -> bool:
        """A remote seat nobody has taken yet."""
        return self.kind is SeatKind.REMOTE and self.player is None

    def to_dict(self) -> dict:
        return {"kind": self.kind.value, "name": self.name, "level": self.level, "player": self.player}

    @classmethod
    def from_dict(cls, d) -> Seat:
        """Rebuild a saved seat. Raises InvalidOptionError: a malformed one."""
        if not isinstance(d, dict) or set(d) != {"kind", "name", "level", "player"}:
            raise InvalidOptionError(f"saved seat {d!r:.80}: expected kind, name, level, player")
        for k in ("level", "player"):
            if d[k] is not None and (not isinstance(d[k], str) or len(d[k]) > 64):
                raise InvalidOptionError(f"saved seat {k} {d[k]!r:.60}: expected text or null")
        return cls(d["kind"], d["name"], d["level"], d["player"])


def _bot_seed(seed, *parts) -> int | None:
    if seed is None:
        return None
    return zlib.crc32(repr((seed,) + parts).encode()) & 0x7FFFFFFF


class Table:
    """A match between two seats (see the module docstring).

    Args:
        match: the :class:`~nardy.flow.match.Match` (new, or resumed).
        seats: ``(White, Black)`` :class:`Seat` s.
        clock: a :class:`~nardy.flow.clock.Clock`, or ``None`` for untimed play.
        auto_roll: roll for a person when doubling is not possible (they have nothing to decide).
        auto_next: start the next game of the match by itself when one ends (online play); otherwise a
            person sends ``next``.
        seed: seed of the computer's choices (reproducible play); ``None``: fresh randomness.
        log: the saved event log (a list of dicts), when resuming.
        ended: how the match ended other than by points (``{"reason": "time"|"abandoned"|"aborted", "winner", "loser",
            "t"}``).
        pause_until: when resuming: the end of the pause between games under way (wall-clock seconds), if any.
        computer: the :data:`~nardy.flow.players.ComputerPlayers` factory of the computer's players (e.g.
            :func:`nardy.flow.bot.bot_player`); the table makes none itself. Without one, a computer seat cannot
            act (:meth:`bot` raises InvalidOptionError).
    """

    def __init__(
        self,
        match: Match,
        seats,
        *,
        clock: Clock | None = None,
        auto_roll: bool = True,
        auto_next: bool = False,
        seed=None,
        log: list | None = None,
        ended: dict | None = None,
        computer: ComputerPlayers | None = None,
        pause_until: float | None = None,
    ):
        seats = tuple(seats)
        if len(seats) != 2 or not all(isinstance(s, Seat) for s in seats):
            raise InvalidOptionError(f"seats {seats!r:.80}: expected two Seat objects")
        self.match = match
        self.seats: tuple[Seat, Seat] = (seats[0], seats[1])
        self.clock = clock
        self.auto_roll = bool(auto_roll)
        self.auto_next = bool(auto_next)
        self.seed = seed
        self.log: list[dict] = list(log or [])
        self.ended = ended
        self.computer = computer
        #: the end of the pause between games under way (wall-clock seconds; ``None``: none): see the module
        #: docstring. Held only by a clocked table with ``auto_next``; no clock runs in it.
        self.pause_until = pause_until

    # ----- state --------------------------------------------------------------------------------
    @property
    def game(self):
        """The current :class:`~nardy.flow.game.Game` (``None`` before the first)."""
        return self.match.current

    @property
    def rules(self):
        return self.match.rules

    @property
    def waiting(self) -> bool:
        """A remote seat is still empty: nothing can be played yet."""
        return any(s.empty for s in self.seats)

    @property
    def is_over(self) -> bool:
        """The match is decided (by points, or by time)."""
        return self.ended is not None or self.match.is_over

    @property
    def winner(self) -> int | None:
        """Who won the match (0/1), or ``None`` while it goes on (and in a money session not ended by time)."""
        if self.ended is not None:
            return self.ended["winner"]
        return self.match.winner

    @property
    def status(self) -> str:
        """``waiting`` (an empty seat), ``playing``, ``game-over`` (a next game may follow) or ``over``."""
        if self.is_over:
            return "over"
        if self.waiting:
            return "waiting"
        g = self.game
        if g is None or g.is_over:
            return "game-over"
        return "playing"

    @property
    def to_act(self) -> int | None:
        """The side that must act now, or ``None`` (waiting for a seat, between games, over)."""
        g = self.game
        if self.is_over or self.waiting or g is None or g.is_over:
            return None
        return g.to_act

    def side_of(self, player: str) -> list[int]:
        """The sides a remote player id sits at (none, one, or both when playing oneself)."""
        return [i for i, s in enumerate(self.seats) if s.player is not None and s.player == player]

    def note(self, now: float, kind: str, **data) -> None:
        self.log.append({"n": len(self.log), "t": round(now, 3), "type": kind, **data})

    def _tick(self, now: float) -> None:
        """After any change: the clock runs for the side to act now; the next game starts if it should (at once
        without a clock; a clocked table first holds the pause between games, :data:`BETWEEN_GAMES` s)."""
        if self.is_over:
            self.pause_until = None
        elif self.auto_next and not self.waiting:
            g = self.game
            if g is not None and g.is_over:
                if self.clock is None:
                    self._next_game(now)
                elif self.pause_until is None:
                    self.pause_until = round(now + BETWEEN_GAMES, 3)
                elif now >= self.pause_until:
                    self._next_game(now)
        if self.clock is not None:
            self.clock.switch(self.to_act, now)

    def _next_game(self, now: float) -> None:
        self.pause_until = None
        self.match.new_game(start=True)
        self.note(now, "game", number=len(self.match.games))

    @property
    def paused(self) -> bool:
        """The pause between games is under way (:attr:`pause_until`): nobody is to act and no clock runs."""
        return self.pause_until is not None and not self.is_over

    def wake(self, now: float | None = None) -> bool:
        """Start the next game when the pause between games is over at ``now``; True when it started (a server's
        clock keeper calls this at :attr:`pause_until`)."""
        now = time.time() if now is None else now
        if not self.paused or self.pause_until is None or now < self.pause_until:
            return False
        self._next_game(now)
        if self.clock is not None:
            self.clock.switch(self.to_act, now)
        return True

    # ----- seats and games -----------------------------------------------------------------------
    def start(self, now: float | None = None, setup: dict | None = None) -> None:
        """Play the first game's opening (every seat must be taken), or, with ``setup`` (the keyword
        arguments of :meth:`~nardy.flow.match.Match.new_game_from`: ``position``, ``turn``, ``dice``,
        ``cube_value``, ``cube_owner``), begin it at that set-up position instead.

        Raises GameStateError: an empty seat, or the match has begun (and what ``new_game_from`` raises)."""
        now = time.time() if now is None else now
        if self.waiting:
            raise GameStateError("a seat is still empty", code="seat_empty")
        if self.match.games:
            raise GameStateError("the match has begun", code="match_started")
        if setup is not None:
            self.match.new_game_from(**setup)
        else:
            self.match.new_game(start=True)
        self.note(now, "game", number=1)
        self._tick(now)

    def take_seat(self, side: int, name: str, player: str, now: float | None = None) -> None:
        """A remote person ``player`` takes the empty seat ``side`` under ``name``.

        Raises:
            GameStateError: ``seat_taken`` when the seat is not an empty remote one."""
        now = time.time() if now is None else now
        seat = self.seats[side]
        if not seat.empty:
            raise GameStateError(f"seat {side} is taken", code="seat_taken", params={"player": side})
        seats = list(self.seats)
        seats[side] = Seat(SeatKind.REMOTE, name, player=player)
        self.seats = (seats[0], seats[1])
        names = list(self.match.players)
        names[side] = name
        self.match.players = (names[0], names[1])
        self.note(now, "seat", side=side, name=name)

    def check_time(self, now: float | None = None) -> int | None:
        """End the match if the side to act has run out of time at ``now``; returns the side that lost on
        time (now or before), or ``None``."""
        now = time.time() if now is None else now
        if self.ended is not None:
            return self.ended["loser"] if self.ended.get("reason") == "time" else None
        if self.clock is None or self.is_over:
            return None
        side = self.clock.flagged(now)
        if side is None:
            return None
        due = self.clock.due()
        at = min(now, due) if due is not None else now
        self.clock.switch(None, at)
        self.ended = {"reason": "time", "winner": 1 - side, "loser": side, "t": round(at, 3)}
        self.note(at, "time", side=side)
        return side

    def forfeit(self, side: int, reason: str = "abandoned", now: float | None = None) -> None:
        """End the match now, lost by ``side`` (``reason``: ``abandoned``, a player who left a rated match past
        its grace period, docs/online.md); the game in progress is left unfinished and scores nothing, as on
        time. Raises GameStateError ``match_over``: the match is decided already; InvalidOptionError: a bad
        side or reason."""
        now = time.time() if now is None else now
        if side not in (0, 1) or isinstance(side, bool) or reason not in ENDED_REASONS:
            raise InvalidOptionError(f"forfeit by {side!r:.10} ({reason!r:.20}): expected side 0 or 1 and a reason")
        if self.is_over:
            raise GameStateError("the match is over", code="match_over", params={"action": "forfeit"})
        if self.clock is not None:
            self.clock.switch(None, now)
        self.ended = {"reason": reason, "winner": 1 - side, "loser": side, "t": round(now, 3)}
        self.note(now, reason, side=side)

    def abort(self, side: int, now: float | None = None) -> None:
        """End the match now with no result, at ``side``'s request (an online match aborted in its first plays,
        docs/online.md "Fair play"): ``ended`` is ``{"reason": "aborted", "winner": None, "loser": None, "by":
        side, "t"}``; the game in progress scores nothing. Whether it may still be aborted is the caller's rule.
        Raises GameStateError ``match_over``: the match is decided already; InvalidOptionError: a bad side."""
        now = time.time() if now is None else now
        if side not in (0, 1) or isinstance(side, bool):
            raise InvalidOptionError(f"abort by {side!r:.10}: expected side 0 or 1")
        if self.is_over:
            raise GameStateError("the match is over", code="match_over", params={"action": "abort"})
        if self.clock is not None:
            self.clock.switch(None, now)
        self.ended = {"reason": "aborted", "winner": None, "loser": None, "by": side, "t": round(now, 3)}
        self.note(now, "aborted", side=side)

    # ----- the computer -------------------------------------------------------------------------
    def bot(self, side: int, level: str | None = None) -> Player:
        """The computer player for ``side``'s next decision, from the table's ``computer`` factory (seeded from
        the table's seed and the place in the match, so a seeded match plays the same after a save and resume).

        Raises:
            InvalidOptionError: the table was given no ``computer`` factory (a mistake of its maker, not a
                refusal a player meets)."""
        if self.computer is None:
            raise InvalidOptionError("this table has no computer players: give Table(..., computer=factory)")
        g = self.game
        lv = level or self.seats[side].level or "advanced"
        seed = _bot_seed(self.seed, len(self.match.games), len(g.history) if g else 0, side)
        return self.computer(self.match.rules, lv, seed)

    def computer_to_act(self) -> bool:
        """True when :meth:`advance` has something to do: the computer (or an automatic roll) acts next."""
        p = self.to_act
        if p is None:
            return False
        if not self.seats[p].human:
            return True
        g = self.game
        return g.phase == "roll" and self.auto_roll and not g.may_double

    def advance(self, deadline=None, now: float | None = None) -> int:
        """Let the computer act (and roll for a person with ``auto_roll``) until a person must act or the game
        is over. Returns the number of actions taken.

        ``deadline``: a :class:`~nardy.engine.search.Deadline` for the whole run (a server's budget): each
        decision searches at most :data:`BOT_MOVE_BUDGET` seconds and at most until ``deadline``, then plays
        its best so far; the computer always completes its turn."""
        from ..engine.search import Deadline

        n = 0
        while n < _MAX_BOT_ACTIONS and self.computer_to_act():
            step = None
            if deadline is not None:
                left = (
                    BOT_MOVE_BUDGET
                    if deadline.end is None
                    else min(BOT_MOVE_BUDGET, max(0.0, deadline.end - time.monotonic()))
                )
                step = Deadline(left, deadline.cancel)
            self.computer_act(step, now=now)
            n += 1
        return n

    def computer_act(self, deadline=None, now: float | None = None) -> dict:
        """One decision of the side to act when the computer plays it (or its automatic roll); returns
        ``{"side", "action", "play"}`` (the :class:`~nardy.rules.position.Play` for a move, else ``None``).

        Raises:
            GameStateError: a person must act (``person_to_act``) or nobody can."""
        now = time.time() if now is None else now
        if not self.computer_to_act():
            raise GameStateError("a person must act now", code="person_to_act")
        g = self.game
        p = g.to_act
        done: dict[str, Any] = {"side": p, "play": None}
        if self.seats[p].human:  # an automatic roll
            g.roll(player=p)
            done["action"] = "roll"
        else:
            bot = self.bot(p)
            if g.phase == "roll":
                if g.may_double and bot.cube_action(self.match).double:
                    g.double(player=p)
                    done["action"] = "double"
                else:
                    g.roll(player=p)
                    done["action"] = "roll"
            elif g.phase == "move":
                play = bot.choose_play(g.position, g.dice, deadline=deadline)
                g.play(play, player=p)
                done.update(action="play", play=play)
            elif g.phase == "double":
                take = bot.cube_action(self.match).take
                (g.take if take else g.drop)(player=p)
                done["action"] = "take" if take else "drop"
            elif g.phase == "resign":
                ok = self.accepts_resignation(bot, p)
                (g.accept_resignation if ok else g.decline_resignation)(player=p)
                done["action"] = "accept" if ok else "decline"
            else:  # pragma: no cover - the opening is played by new_game(start=True)
                raise GameStateError(f"the computer cannot act in phase {g.phase!r}")
        self.note(now, "act", side=p, action=done["action"], computer=not self.seats[p].human)
        self._tick(now)
        return done

    def accepts_resignation(self, bot: Player, side: int) -> bool:
        """Whether ``bot`` (answering for ``side``) accepts the waiting resignation (its
        ``accepts_resignation``: :class:`nardy.flow.bot.Bot` accepts when it is worth at least the accepting
        side's cubeless equity by the rules' scoring values)."""
        return bot.accepts_resignation(self.game, side)

    # ----- a person's actions -------------------------------------------------------------------
    def default_side(self, action: str) -> int | None:
        """The side an action without a named side is for: the side to act; a resignation at a table with
        one person is that person's."""
        g = self.game
        if action == "resign" and g is not None:
            people = [i for i in (0, 1) if self.seats[i].human]
            if len(people) == 1 and g.to_act is not None:
                return people[0]
        return None if g is None else g.to_act

    def act(
        self,
        side: int | None,
        action: str,
        *,
        frm: int | None = None,
        to: int | None = None,
        die: int | None = None,
        play=None,
        level=None,
        now: float | None = None,
    ) -> dict:
        """Apply a person's ``action`` for ``side`` (``None``: :meth:`default_side`). Steps (``frm``, ``to``,
        optional ``die``) are in the mover's own numbering (25 = bar, 0 = off); ``play`` is a
        :class:`~nardy.rules.position.Play` or notation in the mover's own numbering; ``level`` a resignation level
        (index or name). Does not run the computer: call :meth:`advance`. Returns ``{"action", "side"}``.

        Raises:
            InvalidOptionError: an unknown action.
            GameStateError: the match is over (``match_over``, ``time_out``), a seat is empty
                (``seat_empty``), the side is the computer's (``computer_side``), or the rules refuse it
                now (out of turn, wrong phase...).
            IllegalPlayError / NotationError: a step or play that no legal play continues.
        """
        now = time.time() if now is None else now
        if action not in ACTIONS:
            raise InvalidOptionError(f"unknown action {action!r:.40}: expected one of {', '.join(ACTIONS)}")
        lost = self.check_time(now)
        if lost is not None:
            raise GameStateError(
                f"cannot {action}: player {lost} has run out of time", code="time_out", params={"player": lost}
            )
        if self.is_over:
            raise GameStateError(f"cannot {action}: the match is over", code="match_over", params={"action": action})
        if self.waiting:
            raise GameStateError(f"cannot {action}: a seat is still empty", code="seat_empty")
        g = self.game
        if action == "next":
            if g is not None and not g.is_over:
                raise GameStateError("cannot start the next game: this game is not over", code="game_not_over")
            self._next_game(now)  # (the pause between games, if one is held, ends here)
            self._tick(now)
            return {"action": action, "side": side}
        if g is None:
            raise GameStateError("no game in progress", code="no_game")
        p = self.default_side(action) if side is None else side
        self._check_person(p, action)
        self._apply(g, p, action, frm, to, die, play, level)
        self.note(now, "act", side=p, action=action)
        self._tick(now)
        return {"action": action, "side": p}

    def _check_person(self, p, action: str) -> None:
        g = self.game
        if p not in (0, 1) or isinstance(p, bool):
            if g.is_over:
                raise GameStateError(f"cannot {action}: the game is over", code="game_over", params={"action": action})
            raise GameStateError(
                f"player {p!r:.20}: expected 0 or 1", code="bad_player", params={"player": str(p)[:20]}
            )
        if not self.seats[p].human:
            raise GameStateError(
                f"cannot {action} for player {p}: that side is played by the computer",
                code="computer_side",
                params={"action": action, "player": p},
            )

    @staticmethod
    def _apply(g, p: int, action: str, frm, to, die, play, level) -> None:
        if action in ("step", "undo", "confirm"):
            if g.phase == "move" and g.to_act != p:
                raise GameStateError(
                    f"cannot {action}: it is player {g.to_act}'s turn to move",
                    code="not_your_turn",
                    params={"player": p, "expected": g.to_act, "action": action, "phase": g.phase.value},
                )
            if action == "step":
                if frm is None or to is None:
                    raise IllegalPlayError("a step needs 'from' and 'to' points", code="step_points")
                for name, x in (("from", frm), ("to", to)):
                    if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 25:
                        raise IllegalPlayError(
                            f"step {name} point {x!r:.20}: expected 0 (off), 1-24 or 25 (bar)", code="step_points"
                        )
                g.step(frm, to, die)
            elif action == "undo":
                g.undo_step()
            else:
                g.confirm()
            return
        if action == "play":
            if play is None or (isinstance(play, str) and not play.strip()):
                raise IllegalPlayError(
                    "action play needs 'play': the play in notation (mover's numbering)", code="play_text"
                )
            g.play(play, player=p)
        elif action == "resign":
            g.resign(0 if level is None else level, player=p)
        else:
            {
                "roll": g.roll,
                "double": g.double,
                "take": g.take,
                "drop": g.drop,
                "beaver": g.beaver,
                "accept": g.accept_resignation,
                "decline": g.decline_resignation,
            }[action](player=p)

    # ----- persistence --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """JSON-able state (version 1): seats, settings, clock, log, how it ended, the match, and the pause between
        games under way (``pause_until``, only while one is)."""
        return {
            "version": 1,
            "seats": [s.to_dict() for s in self.seats],
            "auto_roll": self.auto_roll,
            "auto_next": self.auto_next,
            "seed": self.seed,
            "clock": self.clock.to_dict() if self.clock is not None else None,
            "log": list(self.log),
            "ended": self.ended,
            "match": self.match.to_dict(),
            **({"pause_until": self.pause_until} if self.paused else {}),
        }

    @classmethod
    def from_dict(cls, d: dict, dice=None, computer: ComputerPlayers | None = None, *, check: bool = True) -> Table:
        """Rebuild a saved table (``dice``: a dice source to use instead of the saved one; ``computer``: the
        factory of the computer's players, as for :class:`Table`; ``check=False``: data this program wrote itself,
        its match built without the checks: :meth:`Match.from_dict`).

        Raises:
            GameStateError: not a saved table; the match's own checks (see :meth:`Match.from_dict`)."""
        if not isinstance(d, dict) or d.get("version") != 1:
            raise GameStateError(f"not a saved table: version {d.get('version') if isinstance(d, dict) else d!r:.20}")
        try:
            seats = [Seat.from_dict(s) for s in d["seats"]]
            clock = Clock.from_dict(d["clock"]) if d["clock"] is not None else None
            ended = d["ended"]
            if ended is not None and (
                not isinstance(ended, dict)
                or ended.get("reason") not in ENDED_REASONS
                or (
                    ended.get("loser") not in (0, 1) or ended.get("winner") != 1 - ended["loser"]
                    if ended.get("reason") != "aborted"
                    else ended.get("winner") is not None or ended.get("loser") is not None
                )
            ):
                raise InvalidOptionError(f"saved table ended {ended!r:.60}: malformed")
            log = d["log"]
            if not isinstance(log, list) or not all(isinstance(e, dict) for e in log):
                raise InvalidOptionError("saved table log: expected a list of events")
            seed = d["seed"]
            if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
                raise InvalidOptionError(f"saved table seed {seed!r:.20}: expected an integer or null")
            pause = d.get("pause_until")
            if pause is not None and (isinstance(pause, bool) or not isinstance(pause, (int, float))):
                raise InvalidOptionError(f"saved table pause_until {pause!r:.20}: expected seconds or null")
            match = Match.from_dict(d["match"], dice=dice, check=check)
            return cls(
                match,
                seats,
                clock=clock,
                auto_roll=bool(d["auto_roll"]),
                auto_next=bool(d["auto_next"]),
                seed=seed,
                log=log,
                ended=ended,
                computer=computer,
                pause_until=float(pause) if pause is not None else None,
            )
        except (KeyError, TypeError) as e:
            raise GameStateError(f"not a saved table: {e!r:.80}") from None
        except InvalidOptionError as e:
            raise GameStateError(f"not a saved table: {e}") from None

    def __repr__(self):
        return f"Table({self.match.rules.name}, {self.seats[0].name} - {self.seats[1].name}, {self.status})"

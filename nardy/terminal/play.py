"""``nardy play``: backgammon, short nardy or long nardy in the terminal.

A thin front end over a :class:`~nardy.flow.table.Table`: it draws the board (with colour through ``rich``
when the terminal has it, plain text otherwise), reads the human players' commands and prints what
happens. The table runs the match: every change to the game goes through it (a person's actions
through :meth:`~nardy.flow.table.Table.act`, the computer's decisions one at a time through
:meth:`~nardy.flow.table.Table.computer_act`, so that each can be drawn), and all rules are the game's:
this module only asks the game what is legal, to prompt and to explain a refusal.

:class:`Session` is the coordinator: the turn loop, the questions to the players, saving and
resuming. Its helpers are in :mod:`nardy.terminal`: :mod:`~nardy.terminal.render` (the output and everything
shown), :mod:`~nardy.terminal.commands` (a typed line as a command), :mod:`~nardy.terminal.explain` (why input
was refused), :mod:`~nardy.terminal.board` and :mod:`~nardy.terminal.numbering` (the terminal's point
numbering; the table takes points in the mover's own numbering).

Usage::

    nardy play --game long --black bot:beginner --numbering absolute
    nardy play --white bot --black bot --delay 0.5          # watch the computer play itself
    nardy play --auto --game short --seed 7                 # no terminal: print the record

Human commands are listed by ``help`` (see :data:`nardy.texts.i18n` for the texts): a whole play in
notation, single steps with ``undo``, ``moves``, ``hint``, ``eval``, ``roll``, ``double``, ``take``,
``pass``, ``beaver``, ``resign [level]``, ``accept``, ``decline``, ``board``, ``save FILE``,
``help``, ``quit``. A saved game (JSON: the table, that is the match, the seats, the seed and the
table's event log, with the terminal's settings) continues with ``--resume FILE``; ``--resume`` also
takes a game saved by an earlier version (format version 1: the match, the players and the
settings) and a ``.mat`` record, which is replayed and continued with fresh dice.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import click

from ..flow.bot import bot_player
from ..flow.table import Seat, SeatKind, Table
from ..rules.boardtext import terminal_text
from ..rules.errors import GameStateError, IllegalPlayError, NardyError, NotationError, RecordError
from ..rules.notation import dash_to_slash, tokenize
from ..texts.i18n import LANGS, Texts, detect_lang
from .commands import Command, Kind, parse
from .explain import FINAL_CODES, Explainer
from .numbering import NUMBERINGS, Numbering
from .render import Output, Renderer, pct

__all__ = ["play", "PlayerSpec", "Session", "parse_player", "SAVE_FORMAT", "Output"]

SAVE_FORMAT = "nardy-play"
#: Version 2: the table (:meth:`~nardy.flow.table.Table.to_dict`) and the terminal's settings. Version 1 (still
#: read): the match, the players as ``human``/``bot:LEVEL``, the seed and the bots' random states.
SAVE_VERSION = 2


# ----- players ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerSpec:
    """A side's player: ``human``, or ``bot`` with a level of :data:`nardy.engine.BOT_LEVELS`."""

    kind: str
    level: str | None = None

    @property
    def human(self) -> bool:
        return self.kind == "human"

    def __str__(self):
        return "human" if self.human else f"bot:{self.level}"

    def seat(self, name: str) -> Seat:
        """The table's :class:`~nardy.flow.table.Seat` for this player (a person here, or the computer at the
        level), under ``name`` (cut to the 40 characters a seat's name may have)."""
        name = str(name)[:40]
        if self.human:
            return Seat(SeatKind.PERSON, name)
        return Seat(SeatKind.COMPUTER, name, level=self.level)

    @classmethod
    def from_seat(cls, seat: Seat) -> PlayerSpec:
        """The player of a table's seat. Raises ValueError: a remote seat (not a player of the terminal)."""
        if seat.kind is SeatKind.PERSON:
            return cls("human")
        if seat.kind is SeatKind.COMPUTER:
            return cls("bot", seat.level)
        raise ValueError(f"seat {seat.name!r}: a {seat.kind.value} seat is not a player of nardy play")


def parse_player(text: str) -> PlayerSpec:
    """``human`` (``h``, ``person``) or ``bot[:LEVEL]`` (``computer``, ``cpu``; default the
    strongest level). Raises ValueError for anything else."""
    from ..engine.bot import BOT_LEVELS, STRONGEST_LEVEL

    t = (text or "").strip().lower()
    if t in ("human", "h", "person", "player", "me"):
        return PlayerSpec("human")
    kind, _, level = t.partition(":")
    if kind in ("bot", "computer", "cpu", "ai", "b", "c"):
        level = level or STRONGEST_LEVEL
        if level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
        return PlayerSpec("bot", level)
    if t in BOT_LEVELS:
        return PlayerSpec("bot", t)
    raise ValueError(f"player {text!r}: expected human or bot[:LEVEL]")


def _player_option(ctx, param, value):
    if value is None:
        return None
    try:
        return parse_player(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


class _Quit(Exception):
    """Leave the session (after the quit question, or at the end of input)."""


# ----- the session ------------------------------------------------------------------------------
class Session:
    """One sitting of ``nardy play``: a match (or one game) at a :class:`~nardy.flow.table.Table`, two players, the
    terminal.

    The session runs the turn loop: it asks the human players (reading each answer as a
    :class:`~nardy.terminal.commands.Command`) and carries their actions out through the table
    (:meth:`~nardy.flow.table.Table.act`, for the person's side), lets the table play the computer's decisions one
    at a time (:meth:`~nardy.flow.table.Table.computer_act`, drawing each), and saves the table; what is shown is
    the :class:`~nardy.terminal.render.Renderer`'s (``render``), why input was refused the
    :class:`~nardy.terminal.explain.Explainer`'s (``explain``).

    Args:
        match: the :class:`~nardy.flow.match.Match` (a new one, or one resumed).
        players: two :class:`PlayerSpec` (or :class:`~nardy.flow.table.Seat`) (White, Black); a seat is named
            after the match's player.
        single: play one game only (the match is a money session of one game).
        lang: ``en`` or ``ru``.
        numbering: ``own``, ``absolute`` (long nardy) or ``traditional`` (backgammon, short nardy).
        out: an :class:`~nardy.terminal.render.Output`.
        record: path of a ``.mat`` record to write after each game and at the end.
        delay: seconds to wait after each computer play (for watching).
        seed: seed of the computer's choices (the table's seed; ``None``: fresh) and of the hint bot.
        show_eval: print the computer's estimate of each of its plays.
        hint_level: bot level used for ``hint`` and ``eval``.
        log: the table's event log of a resumed game.
        read: the input function (``input`` by default).
        tutor: warn before a person's play that is an error, with the better play, and show the analysis
            of the match after each game (:mod:`nardy.analysis.tutor`, at the hint level when it is an
            analysis level, else grandmaster).
    """

    def __init__(
        self,
        match,
        players,
        *,
        single: bool = True,
        lang: str = "en",
        numbering: str = "own",
        out: Output | None = None,
        record: str | None = None,
        delay: float = 0.0,
        seed=None,
        show_eval: bool = False,
        hint_level: str | None = None,
        log: list | None = None,
        read=None,
        tutor: bool = False,
    ):
        from ..engine.bot import DEFAULT_LEVEL

        seats = [p if isinstance(p, Seat) else p.seat(match.players[i]) for i, p in enumerate(players)]
        # the terminal rolls for a person who cannot double (auto_roll) and asks before each next game
        self.table = Table(match, seats, auto_roll=True, auto_next=False, seed=seed, log=log, computer=bot_player)
        self.match = match
        self.single = single
        self.lang = lang
        self.t = Texts(lang)
        self.game_name = match.rules.name
        self.num = Numbering(numbering, self.game_name)
        self.out = out or Output()
        self.render = Renderer(match, self.table.seats, self.t, self.num, self.out, single=single)
        self.explain = Explainer(self.t, self.num, self.game_name)
        self.record = record
        self.record_error = None  # the last failure to write the record (exit status 1 at the end)
        self.delay = float(delay or 0)
        self.seed = seed
        self.show_eval = show_eval
        self.hint_level = hint_level or DEFAULT_LEVEL
        self.read = read or input
        self._hint_bot = None
        self.humans = self.render.humans
        self.listing = None  # (key, [plays]) of the last 'moves' / 'hint' list
        self.last_bot = None  # (side, position, dice, play) of the last computer play
        self.announced = None  # the turn key whose forced/no-play note was printed
        self._quitting = False
        #: the tutor (nardy.analysis.tutor) warns before a person's error and sums up each game; None when off
        self.tutor = None
        self._summarised: set[int] = set()
        if tutor:
            from ..analysis import ANALYSIS_LEVELS
            from ..analysis.tutor import Tutor

            level = self.hint_level if self.hint_level in ANALYSIS_LEVELS else None
            self.tutor = Tutor(match.rules, level or "grandmaster")
        self.again = False  # at the end the person asked for another game (match): nardy play starts it

    # ----- helpers ------------------------------------------------------------------------------
    @property
    def players(self) -> tuple[Seat, Seat]:
        """The table's seats (White, Black)."""
        return self.table.seats

    @property
    def hint_bot(self):
        """The bot of ``hint`` and ``eval``: advice to the person, not a player at the table."""
        if self._hint_bot is None:
            from ..flow.bot import Bot

            seed = None if self.seed is None else [int(self.seed), 7]
            self._hint_bot = Bot(self.match.rules, level=self.hint_level, seed=seed)
        return self._hint_bot

    def ask(self, prompt: str) -> str:
        if self.out.quiet:
            raise _Quit()
        self.out.stream.flush()
        try:
            return self.read(prompt).strip()
        except EOFError:
            self.out.line("")
            raise _Quit() from None
        except KeyboardInterrupt:
            self.out.line("")
            if self._quitting:
                raise _Quit() from None
            return "quit"  # Ctrl-C asks whether to quit; a second one leaves

    def ask_command(self, prompt: str, first=()) -> Command:
        """Ask, and read the answer as a command (``first``: the answers the question expects)."""
        return parse(self.ask(prompt), self.game_name, first)

    def yes_no(self, question: str) -> bool:
        return self.t.yes(self.ask(self.t("prompt_yes_no", question=question)))

    # ----- main loop ----------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game (or match) is over or the player quits; returns the exit status."""
        status = 0
        try:
            self._loop()
        except _Quit:
            if not self.out.quiet:
                self.render.say("bye")
        except KeyboardInterrupt:  # Ctrl-C while the computer plays
            self.out.line("")
            self.render.say("bye")
            status = 130
        finally:
            self.write_record()
        if status == 0 and self.record_error:
            status = 1
        return status

    def finished(self) -> bool:
        g = self.match.current
        if g is None or not g.is_over:
            return False
        return self.single or self.table.is_over

    def _loop(self):
        m = self.match
        if m.games and not m.current.is_over:
            self.render.draw(m.current, force=True)
        while True:
            g = m.current
            if g is None or g.is_over:
                self._tutor_summary()
                if self.finished():
                    self.render.print_match_result()
                    if self.humans and not self.out.quiet:  # the record is written on the way out of run()
                        self.again = self.yes_no(self.t("ask_again" if self.single else "ask_again_match"))
                    return
                if g is not None:
                    self.write_record()
                    if self.humans:
                        self.ask(self.t("prompt_continue"))
                g = self.next_game()
            self.render.flush_events(g)
            if g.is_over:
                continue
            if self.table.computer_to_act():
                self.computer_turn(g)
            else:
                self.human_turn(g, g.to_act)
            self.render.flush_events(g)

    def next_game(self):
        """Start the match's next game at the table (the first, or the one after a finished game) and play
        its opening; returns it."""
        m = self.match
        if m.games:
            self.table.act(None, "next")
        else:
            self.table.start()
        self.render.start_game(len(m.games) - 1)
        if not self.single:
            self.out.line("")
            self.render.say("new_game", n=len(m.games), style="bold")
        return m.current

    def write_record(self):
        if not self.record or not self.match.games:
            return
        from ..records.files import format_of, record_text

        try:  # the format by the name: .sgf is GNU Backgammon's SGF, anything else .mat
            Path(self.record).write_text(record_text(self.match, format_of(self.record)), encoding="utf-8")
        except OSError as e:
            msg = self.t("record_failed", path=self.record, reason=e.strerror or str(e))
            if msg != self.record_error:  # once, not after every game
                if self.out.quiet:
                    click.echo(terminal_text(f"nardy: {msg}"), err=True)
                else:
                    self.render.error(msg)
            self.record_error = msg
            return
        self.record_error = None
        if self.finished() and not self.out.quiet:
            self.render.say("record_written", path=self.record)

    # ----- computer turns -----------------------------------------------------------------------
    def computer_turn(self, g):
        """One decision the table takes (:meth:`~nardy.flow.table.Table.computer_act`): the computer's, or the roll
        of a person who cannot double; shown as it happens."""
        side = g.to_act
        before = (g.position, g.dice) if g.phase == "move" else None
        done = self.table.computer_act()
        if self.table.seats[side].human:  # the table rolled for the person
            self._rolled(g, side)
            return
        if done["action"] != "play" or before is None:
            return
        self.last_bot = (side, before[0], before[1], done["play"])
        if self.show_eval and not self.out.quiet:
            judged = self._judge_last_bot()
            self.render.pending_eval = None if judged is None else self.render.judgement("bot_eval", *judged)
        self.render.flush_events(g)
        if not self.humans and not self.out.quiet:
            self.render.draw(g)
        if self.delay and not self.out.quiet:
            time.sleep(self.delay)

    def _judge_last_bot(self):
        """The computer's last play judged by the hint bot: ``(side, play, its hint, the best hint)``,
        or None when the hint bot does not list it."""
        side, pos, dice, choice = self.last_bot
        hints = self.hint_bot.hints(pos, dice, n=len(pos.legal_plays(dice)))
        mine = next((h for h in hints if h.play == choice), None)
        if mine is None or not hints:
            return None
        return side, choice, mine, hints[0]

    # ----- human turns --------------------------------------------------------------------------
    def human_turn(self, g, side: int):
        ask = {
            "roll": self._human_roll_or_double,
            "move": self.human_move,
            "double": self._answer_double,
            "resign": self._answer_resignation,
        }.get(g.phase)
        if ask is not None:
            ask(g, side)

    def _human_roll_or_double(self, g, side: int):
        # the table rolls by itself for a person who cannot double: here doubling is possible
        self.render.draw(g)
        cmd = self.ask_command(self.t("prompt_roll", who=self.render.who(side)))
        if cmd.kind is Kind.EMPTY:
            self._human_roll(g, side)
        else:
            self.command(g, side, cmd)

    def _answer_double(self, g, side: int):
        self.render.draw(g)
        key = "prompt_take_beaver" if g.cube.beavers else "prompt_take"
        cmd = self.ask_command(self.t(key, who=self.render.who(side)), first=(Kind.TAKE, Kind.PASS, Kind.BEAVER))
        if cmd.kind is Kind.TAKE:
            if self._tutor_allows_cube("take"):
                self.table.act(side, "take")
        elif cmd.kind is Kind.PASS:
            if self._tutor_allows_cube("pass"):
                self.table.act(side, "drop")
        elif cmd.kind is Kind.BEAVER:
            try:
                self.table.act(side, "beaver")
            except GameStateError as e:
                self.render.error(self.explain.refusal(e.code, e.params, side))
        elif cmd.kind is Kind.EMPTY:
            self.render.say("answer_now", choices=self.t("choices_take"))
        else:
            self.command(g, side, cmd)

    def _answer_resignation(self, g, side: int):
        self.render.draw(g)
        cmd = self.ask_command(self.t("prompt_resign", who=self.render.who(side)), first=(Kind.ACCEPT, Kind.DECLINE))
        if cmd.kind is Kind.ACCEPT:
            self.table.act(side, "accept")
        elif cmd.kind is Kind.DECLINE:
            self.table.act(side, "decline")
        elif cmd.kind is Kind.EMPTY:
            self.render.say("answer_now", choices=self.t("choices_resign"))
        else:
            self.command(g, side, cmd)

    def _human_roll(self, g, side: int):
        self.table.act(side, "roll")
        self._rolled(g, side)

    def _rolled(self, g, side: int):
        """After a person's roll: when nothing could be played the game passed the turn; let them see it."""
        self.render.flush_events(g)
        if g.phase != "move" or g.turn != side:
            if len(self.humans) and not self.out.quiet:
                self.render.draw(g)
                self.ask(self.t("prompt_continue"))

    def _turn_key(self, g):
        return (len(self.match.games), len(g.history))

    def human_move(self, g, side: int):
        plays = g.legal_plays()
        self.render.draw(g)
        fields = {"who": self.render.who(side), "dice": self.render.dice_text(g.dice)}
        forced = len(plays) == 1 and not g.steps_taken
        complete = g.can_confirm()
        if forced and self.announced != self._turn_key(g):
            self.announced = self._turn_key(g)
            self.render.say("only_play", play=self.render.play_text(plays[0].steps, side), style="yellow")
        key = "prompt_forced" if forced else "prompt_confirm" if complete else "prompt_play"
        cmd = self.ask_command(self.t(key, **fields), first=(Kind.CONFIRM,) if complete else ())
        if cmd.kind is Kind.EMPTY and forced:
            self.table.act(side, "play", play=plays[0])
        elif cmd.kind is Kind.EMPTY and not complete:
            self.render.say("type_a_play", example=self.explain.example(side))
        elif cmd.kind in (Kind.EMPTY, Kind.CONFIRM):
            if self._tutor_allows(g, side, self._steps_play(g)):
                self.table.act(side, "confirm")
        else:
            self.command(g, side, cmd)

    # ----- the tutor ------------------------------------------------------------------------------
    def _steps_play(self, g):
        """The whole play the steps taken so far make (one of the legal plays), or None."""
        part = g.partial_position.array
        return next((p for p in g.legal_plays() if (p.result.array[:28] == part[:28]).all()), None)

    def _tutor_allows(self, g, side: int, play) -> bool:
        """With the tutor on: warn when ``play`` is an error (with the better play) and ask; True to go on."""
        if self.tutor is None or play is None or self.out.quiet:
            return True
        advice = self.tutor.check_play(self.match, play)
        if advice is None:
            return True
        self.render.say(
            "tutor_warning",
            style="yellow",
            play=self.render.play_text(play.steps, side),
            mark=self.t("mark_" + (advice.mark or "doubtful")),
            mp=f"{1000 * advice.loss:.0f}",
            best=self.render.play_text(advice.best.steps, side),
        )
        return self.yes_no(self.t("tutor_ask"))

    def _tutor_allows_cube(self, action: str) -> bool:
        """With the tutor on: warn when the cube ``action`` (double, take, pass) is an error and ask."""
        if self.tutor is None or self.out.quiet:
            return True
        advice = self.tutor.check_cube(self.match, action)
        if advice is None:
            return True
        self.render.say(
            "tutor_cube_warning",
            style="yellow",
            action=self.t("cube_" + action),
            mark=self.t("mark_" + (advice.mark or "doubtful")),
            mp=f"{1000 * advice.loss:.0f}",
            best=self.t("cube_" + advice.best.replace(" ", "_")),
        )
        return self.yes_no(self.t("tutor_cube_ask"))

    def _tutor_summary(self):
        """With the tutor on: the analysis of the match so far after each finished game (once)."""
        g = self.match.current
        if self.tutor is None or g is None or not g.is_over or self.out.quiet:
            return
        n = len(self.match.games)
        if n in self._summarised:
            return
        self._summarised.add(n)
        from ..analysis.tutor import match_summary_data

        data = match_summary_data(self.match, self.tutor.analyser.level)
        eng = data["engine"]
        self.render.say("analysis_title", style="bold", level=eng["level"], ply=eng["ply"])
        for p in data["players"]:
            luck = f"{100 * p['luck']:+.1f}%" if data["length"] else f"{p['luck']:+.2f}"
            self.render.say(
                "analysis_player",
                name=p["name"],
                er=f"{p['error_rate']:.1f}",
                pr=f"{p['pr']:.1f}",
                rating=p["rating"],
                doubtful=p["errors"]["doubtful"],
                errors=p["errors"]["error"],
                blunders=p["errors"]["blunder"],
                luck=luck,
            )

    def _pick(self, g, side, n):
        if not self.listing or self.listing[0] != self._turn_key(g):
            self.render.say("no_list")
            return
        plays = self.listing[1]
        if not 1 <= n <= len(plays):
            self.render.say("bad_number", n=n)
            return
        if self._tutor_allows(g, side, plays[n - 1]):
            self.table.act(side, "play", play=plays[n - 1])

    def enter_play(self, g, side: int, line: str):
        """A play or single steps typed by the player (in the chosen numbering): the whole play when
        no step is taken yet and it reads as one, else step by step."""
        x = self.explain
        try:
            own = self.num.to_own(dash_to_slash(line), side)
        except NotationError as e:
            self.render.error(x.illegal(line, x.bad_point(e)))
            return
        whole_error = None
        if not g.steps_taken:
            try:
                chosen = g.position.parse_play(own, g.dice)
            except IllegalPlayError as e:  # NotationError included
                whole_error = e
            else:
                if self._tutor_allows(g, side, chosen):
                    self.table.act(side, "play", play=chosen)
                return
            if isinstance(whole_error, NotationError):
                self.render.error(x.illegal(line, x.bad_notation(line, own, side)))
                return
            if whole_error.code in FINAL_CODES:  # a false hit mark: say so, do not take the steps unmarked
                self.render.error(x.illegal(line, x.whole_play(whole_error, side)))
                return
        try:
            paths = tokenize(own, 25 if g.rules.hitting else 24)
        except NotationError:
            self.render.error(x.illegal(line, x.bad_notation(line, own, side)))
            return
        if not paths:
            reason = x.whole_play(whole_error, side) if whole_error else x.refusal("must_play", {}, side)
            self.render.error(x.illegal(line, reason))
            return
        if not self._take_steps(g, side, line, own, paths, whole_error):
            return
        if g.can_confirm() and not g.legal_steps():
            self.render.say("play_is_complete", play=self.render.play_text(g.steps_taken, side), style="green")

    def _take_steps(self, g, side: int, line: str, own: str, paths, whole_error) -> bool:
        """Take the steps of ``paths`` (own numbering) one by one at the table; at the first refused one
        take them back and say why (or play ``own`` whole, when steps were taken before). True when all
        are taken."""
        x = self.explain
        taken = 0
        for hop in (hop for path in paths for hop in path):
            try:
                self.table.act(side, "step", frm=hop.frm, to=hop.to)
            except IllegalPlayError:
                reason = None
                if whole_error is not None and whole_error.code != "fewer_dice":
                    reason = x.whole_play(whole_error, side)
                if reason is None:
                    reason = x.step(g, side, hop.frm, hop.to)
                for _ in range(taken):
                    self.table.act(side, "undo")
                if g.steps_taken and whole_error is None and self._play_whole(g, side, own):
                    return False
                self.render.error(x.illegal(line, reason))
                return False
            taken += 1
            if hop.hit and not g.steps_taken[-1].hit:  # a hit mark where the step hits nothing
                code = "false_hit" if g.rules.hitting else "no_hitting"
                for _ in range(taken):
                    self.table.act(side, "undo")
                self.render.error(x.illegal(line, x.refusal(code, {"from": hop.frm, "to": hop.to}, side)))
                return False
        return True

    def _play_whole(self, g, side: int, own: str) -> bool:
        """Steps were taken before: the text may be the whole play written out; play it if so."""
        try:
            chosen = g.position.parse_play(own, g.dice)
        except IllegalPlayError:
            return False
        self.table.act(side, "play", play=chosen)
        return True

    # ----- commands -----------------------------------------------------------------------------
    def command(self, g, side: int, cmd: Command):
        """Carry out a command typed at any question (the answers a question expects are its own)."""
        reason = self._not_now(g, cmd)
        if reason is not None:
            shown = cmd.line if cmd.kind in (Kind.PICK, Kind.PLAY) else cmd.word
            self.render.say("not_now", cmd=shown, reason=reason)
            return
        do = self._COMMANDS.get(cmd.kind)
        if do is None:
            self.render.say("unknown_command", cmd=cmd.line)
            return
        do(self, g, side, cmd)

    def _not_now(self, g, cmd: Command) -> str | None:
        """Why ``cmd`` cannot be carried out in the game's phase, or None."""
        if cmd.kind in (Kind.TAKE, Kind.PASS, Kind.BEAVER):
            return self.t("no_double_waiting")
        if cmd.kind in (Kind.ACCEPT, Kind.DECLINE):
            return self.t("no_resign_waiting")
        if (cmd.kind is Kind.ROLL and g.phase != "roll") or (cmd.kind in (Kind.PICK, Kind.PLAY) and g.phase != "move"):
            return self.explain.phase(g)
        return None

    def cmd_save(self, g, side, cmd: Command):
        if not cmd.arg:
            self.render.error(self.t("save_needs_file"))
        else:
            self.save(cmd.arg)

    def cmd_undo(self, g, side, cmd: Command):
        if g.phase != "move" or not g.steps_taken:
            self.render.say("nothing_to_undo")
        else:
            before = list(g.steps_taken)
            self.table.act(side, "undo")
            back = before[len(g.steps_taken) :]
            self.render.say("step_undone", steps=self.render.play_text(back, side))

    def cmd_double(self, g, side, cmd: Command | None = None):
        if not g.cube.enabled:  # whatever the phase: there is no cube to turn in this game
            self.render.say("cannot_double", reason=self.explain.refusal("cube_disabled", {}, side))
            return
        if g.phase != "roll":
            self.render.say("cannot_double", reason=self.explain.phase(g))
            return
        code = g.why_not_double(side)
        if code:
            reason = self.explain.refusal(code, {"owner": g.cube_owner, "limit": g.cube.limit}, side)
            self.render.say("cannot_double", reason=reason)
            return
        m = self.match
        if m.length and not self.single:
            need = m.length - m.score_before(len(m.games) - 1)[side]
            if g.cube_value >= need:  # the cube already wins this player the match: a double only helps the other
                fields = {"value": g.cube_value, "need": self.t.points(need), "new": g.cube_value * 2}
                self.render.say("double_too_much", style="yellow", **fields)
                if not self.yes_no(self.t("double_anyway")):
                    return
        if not self._tutor_allows_cube("double"):
            return
        self.table.act(side, "double")

    def cmd_moves(self, g, side, cmd: Command | None = None):
        if g.phase != "move":
            self.render.say("not_now", cmd="moves", reason=self.t("no_steps_now"))
            return
        shown = self.render.print_plays(g.legal_plays(), side)
        self.listing = (self._turn_key(g), shown)

    def cmd_hint(self, g, side, cmd: Command | None = None):
        bot = self.hint_bot
        if g.phase == "move":
            hints = bot.hints(g.position, g.dice, n=5)
            self.listing = (self._turn_key(g), [h.play for h in hints])
            self.render.print_hints(hints, side)
        elif g.phase == "roll":
            self.cmd_eval(g, side, last=False)
            if g.may_double:
                dec = bot.cube_action(self.match)
                e = dec.equities
                key = "cube_hint_double" if dec.double else "cube_hint_no_double"
                nd, dt, dp = (f"{e[k]:+.3f}" for k in ("no double", "double/take", "double/pass"))
                self.render.say(key, nd=nd, dt=dt, dp=dp)
        elif g.phase == "double":
            self.render.say("cube_hint_take" if bot.cube_action(self.match).take else "cube_hint_pass")
        elif g.phase == "resign":
            self.render.say(
                "resign_hint_accept" if self.table.accepts_resignation(bot, side) else "resign_hint_decline"
            )

    def cmd_eval(self, g, side, cmd: Command | None = None, last: bool = True):
        probs = self.hint_bot.evaluate(g.position)
        if g.turn != side:
            probs = probs.flipped()
        self.render.print_estimate(probs, side, g.rules)
        if last and self.last_bot is not None:
            judged = self._judge_last_bot()
            if judged is not None:
                self.out.line(self.render.judgement("eval_last_bot", *judged))

    def cmd_resign(self, g, side, cmd: Command):
        if cmd.level is None:
            self.render.say("bad_resign_level", level=cmd.arg, levels=self.render.levels_text(g.rules))
            return
        if g.phase not in ("opening", "over", "resign") and not self._confirm_resign(g, side, cmd.level):
            self.render.say("resign_kept")
            return
        try:
            self.table.act(side, "resign", level=cmd.level)
        except GameStateError as e:
            self.render.error(self.explain.refusal(e.code, e.params, side))

    def _confirm_resign(self, g, side: int, level: int) -> bool:
        """Ask before a resignation, naming what it gives away: the level, the points with the cube (and
        the match, when they win it for the opponent), and the computer's chances for ``side`` when it
        rates them better than even."""
        t = self.t
        points = g.points_for(level)
        fields = {"level": t.level_name(self.game_name, level), "points": t.points(points), "value": g.cube_value}
        key = "confirm_resign_cube" if g.cube_enabled and g.cube_value > 1 else "confirm_resign"
        m = self.match
        if m.length and not self.single:
            score = m.score_before(len(m.games) - 1)
            if score[1 - side] + points >= m.length:
                key += "_match"
        try:
            probs = self.hint_bot.evaluate(g.position)
        except NardyError:  # pragma: no cover - a position the bot cannot judge
            probs = None
        if probs is not None:
            if g.turn != side:
                probs = probs.flipped()
            if probs.win > 0.5:
                self.render.say("resign_ahead", win=pct(probs.win), style="yellow")
        return self.yes_no(t(key, **fields))

    def cmd_quit(self, g, side=None, cmd: Command | None = None):
        self._quitting = True
        try:
            if not self.yes_no(self.t("ask_quit")):
                return
            name = self.ask(self.t("prompt_save_name"))
            if name:
                self.save(name)
        finally:
            self._quitting = False
        raise _Quit()

    #: What each command does once :meth:`_not_now` lets it (a missing kind: an unknown command).
    _COMMANDS = {
        Kind.HELP: lambda self, g, side, cmd: self.render.help(g.rules, side, g.cube_enabled),
        Kind.QUIT: cmd_quit,
        Kind.SAVE: cmd_save,
        Kind.BOARD: lambda self, g, side, cmd: self.render.draw(g, force=True),
        Kind.HINT: cmd_hint,
        Kind.EVAL: cmd_eval,
        Kind.MOVES: cmd_moves,
        Kind.UNDO: cmd_undo,
        Kind.RESIGN: cmd_resign,
        Kind.DOUBLE: cmd_double,
        Kind.ROLL: lambda self, g, side, cmd: self._human_roll(g, side),
        Kind.PICK: lambda self, g, side, cmd: self._pick(g, side, cmd.number),
        Kind.PLAY: lambda self, g, side, cmd: self.enter_play(g, side, cmd.line),
    }

    # ----- saving -------------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The saved game (:data:`SAVE_VERSION` 2): the terminal's settings and the table (its match, seats,
        seed and event log)."""
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "single": self.single,
            "lang": self.lang,
            "numbering": self.num.kind,
            "record": self.record,
            "hint_level": self.hint_level,
            "table": self.table.to_dict(),
        }

    def save(self, path: str):
        p = Path(path).expanduser()
        try:
            tmp = p.with_name(p.name + ".tmp")
            tmp.write_text(json.dumps(self.to_dict()), encoding="utf-8")
            os.replace(tmp, p)
        except OSError as e:
            self.render.error(self.t("save_failed", path=path, reason=e.strerror or str(e)))
            return False
        self.render.say("saved", path=path, style="green")
        return True


# ----- loading ----------------------------------------------------------------------------------
def load_session_data(path: str, seed=None):
    """Read ``--resume FILE``: a saved game (JSON, version 2 or 1) or a ``.mat`` record (replayed; it
    continues with fresh dice). Returns ``(match, data)``, ``data`` being the saved settings as version 1
    words them (``players`` as ``human``/``bot:LEVEL``, ``seed``, ``single``, ``lang``, ``numbering``,
    ``record``, ``hint_level``) and, from version 2, the table's event log (``log``); empty for a record.
    Version 1's random states of the bots (``bots``) are not used: the table seeds each decision of the
    computer from its seed and the place in the match.
    Raises click.UsageError with the reason."""
    from ..flow.match import Match

    p = Path(path)
    try:
        raw = p.read_text(encoding="utf-8")
    except OSError as e:
        raise click.UsageError(f"cannot read {path}: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise click.UsageError(
            f"{path} is not UTF-8 text (byte {e.start}): not a saved game or a .mat record"
        ) from None
    if not raw.strip():
        raise click.UsageError(f"{path} is empty: not a saved game or a .mat record")
    if raw.lstrip().startswith("{"):
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as e:
            raise click.UsageError(f"{path} is not a saved game: {e}") from None
        if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
            raise click.UsageError(f"{path} is not a game saved by nardy play")
        version = data.get("version", 1)
        if version == 2:
            return _load_table(path, data)
        if version != 1:
            raise click.UsageError(
                f"{path}: cannot resume: field 'version': {version!r:.20}: expected 1 or 2 (a newer nardy play?)"
            )
        _check_saved_settings(path, data)
        _check_saved_v1(path, data)
        try:
            match = Match.from_dict(data["match"])
        except (NardyError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            why = f"missing key {e}" if isinstance(e, KeyError) else str(e)
            raise click.UsageError(f"{path}: cannot resume: field 'match': {why}") from None
        _check_saved_match(path, match)
        return match, data
    from ..records.files import parse_record
    from ..records.mat import replay
    from ..rules.dice import DiceSource

    try:
        match = replay(parse_record(raw))  # raw is the file's text (.mat, or SGF when it starts with '(')
    except RecordError as e:
        raise click.UsageError(f"{path}: {e}") from None
    src = DiceSource(seed)
    match.dice_source = src
    for g in match.games:
        g.dice_source = src
    return match, {}


def _bad(path, field, why) -> NoReturn:
    raise click.UsageError(f"{path}: cannot resume: field {field!r}: {why}")


def _load_table(path, data: dict):
    """A version 2 saved game: the terminal's settings and a table (:meth:`~nardy.flow.table.Table.from_dict`) that
    ``nardy play`` can sit at (a person or the computer at a known level in each seat, no clock). Returns
    ``(match, settings)`` as :func:`load_session_data`."""
    from ..engine.bot import BOT_LEVELS

    _check_saved_settings(path, data)
    if "table" not in data:
        _bad(path, "table", "missing (the saved table)")
    if not isinstance(data["table"], dict):
        _bad(path, "table", f"expected an object, got {type(data['table']).__name__}")
    try:
        table = Table.from_dict(data["table"], computer=bot_player)
    except (NardyError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        why = f"missing key {e}" if isinstance(e, KeyError) else str(e)
        _bad(path, "table", why)
    for i, seat in enumerate(table.seats):
        if seat.kind is SeatKind.REMOTE:
            _bad(path, f"table.seats[{i}]", "a remote seat: nardy play seats a person here or the computer")
        if seat.kind is SeatKind.COMPUTER and seat.level not in BOT_LEVELS:
            _bad(path, f"table.seats[{i}].level", f"{seat.level!r}: expected one of {', '.join(BOT_LEVELS)}")
    if table.seed is not None and table.seed < 0:
        _bad(path, "table.seed", f"{table.seed!r}: expected a whole number >= 0 or null")
    if table.clock is not None:
        _bad(path, "table.clock", "nardy play has no clock: expected null")
    if table.ended is not None:
        _bad(path, "table.ended", "the match ended on time: nothing to continue")
    _check_saved_match(path, table.match, "table.match")
    settings = {k: data[k] for k in ("single", "lang", "numbering", "record", "hint_level") if k in data}
    settings.update(
        players=[str(PlayerSpec.from_seat(s)) for s in table.seats],
        seed=table.seed,
        log=table.log,
    )
    return table.match, settings


def _check_saved_settings(path, data: dict):
    """Refuse a saved game whose terminal settings were edited into something ``nardy play`` cannot use."""
    from ..engine.bot import BOT_LEVELS

    def bad(field, why) -> NoReturn:
        _bad(path, field, why)

    if "single" in data and not isinstance(data["single"], bool):
        bad("single", f"{data['single']!r}: expected true or false")
    if data.get("lang") is not None and data["lang"] not in LANGS:
        bad("lang", f"{data['lang']!r}: expected one of {', '.join(LANGS)}")
    if data.get("numbering") is not None and data["numbering"] not in NUMBERINGS:
        bad("numbering", f"{data['numbering']!r}: expected one of {', '.join(NUMBERINGS)}")
    if data.get("record") is not None and not isinstance(data["record"], str):
        bad("record", f"{data['record']!r}: expected a file name or null")
    if data.get("hint_level") is not None and data["hint_level"] not in BOT_LEVELS:
        bad("hint_level", f"{data['hint_level']!r}: expected one of {', '.join(BOT_LEVELS)}")


def _check_saved_v1(path, data: dict):
    """Refuse a version 1 saved game whose match, players or seed were edited into something unusable."""

    def bad(field, why) -> NoReturn:
        _bad(path, field, why)

    if "match" not in data:
        bad("match", "missing (the saved match)")
    if not isinstance(data["match"], dict):
        bad("match", f"expected an object, got {type(data['match']).__name__}")
    players = data.get("players")
    if players is not None:
        if not isinstance(players, list) or len(players) != 2:
            bad("players", f"{players!r}: expected two players")
        for p in players:
            if not isinstance(p, str):
                bad("players", f"{p!r}: expected human or bot[:LEVEL]")
            try:
                parse_player(p)
            except ValueError as e:
                bad("players", str(e))
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        bad("seed", f"{seed!r}: expected a whole number >= 0 or null")
    if data.get("bots") is not None and not isinstance(data["bots"], dict):
        bad("bots", f"expected an object, got {type(data['bots']).__name__}")


def _check_saved_match(path, match, field: str = "match"):
    """Refuse a loaded match (saved as ``field``) whose games are in a state no turn can continue from (an
    edited file)."""
    from ..flow.game import PHASES

    for i, g in enumerate(match.games):
        where = f"{field}.games[{i}]"
        if g.phase not in PHASES:
            raise click.UsageError(
                f"{path}: cannot resume: field '{where}.state.phase': {g.phase!r}: expected one of {', '.join(PHASES)}"
            )
        if g.phase not in ("opening", "over") and g.to_act not in (0, 1):
            raise click.UsageError(f"{path}: cannot resume: field '{where}.state.turn': {g.turn!r}: expected 0 or 1")
        if i < len(match.games) - 1 and not g.is_over:
            raise click.UsageError(f"{path}: cannot resume: field '{where}': a game before the last is not over")
        if g.phase == "opening":  # the table plays a game's opening when it starts the game
            raise click.UsageError(f"{path}: cannot resume: field '{where}.state.phase': the opening was not played")


# ----- the command ------------------------------------------------------------------------------
@click.command("play")
@click.option(
    "--game",
    "-g",
    default=None,
    help="backgammon, short (short nardy) or long (long nardy); aliases accepted. Default: backgammon.",
)
@click.option(
    "--match",
    "-m",
    "length",
    type=click.IntRange(min=1),
    default=None,
    help="Play a match to N points (default: one game).",
)
@click.option("--white", "-w", callback=_player_option, default=None, help="human or bot[:LEVEL] (default: human).")
@click.option(
    "--black",
    "-b",
    callback=_player_option,
    default=None,
    help="human or bot[:LEVEL] (default: bot at the strongest level).",
)
@click.option("--seed", type=int, default=None, help="Seed for the dice and the bots (repeatable games).")
@click.option(
    "--lang",
    type=click.Choice(LANGS),
    default=None,
    help="Language of the texts (default: Russian when the system locale is Russian).",
)
@click.option(
    "--numbering",
    type=click.Choice(NUMBERINGS),
    default=None,
    help="Point numbers: own (each player's, default), absolute (long nardy) or traditional (backgammon, short nardy).",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the match record to this file (Jellyfish .mat; GNU Backgammon's SGF when it ends in .sgf).",
)
@click.option(
    "--resume",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Continue a game saved with 'save FILE' (or a .mat or .sgf record).",
)
@click.option(
    "--auto",
    is_flag=True,
    help="Play without a terminal (human sides are played by the computer), print the record and exit.",
)
@click.option("--delay", type=click.FloatRange(min=0), default=0.0, help="Seconds to wait after each computer play.")
@click.option("--cube/--no-cube", default=None, help="Use the doubling cube (default: backgammon yes, nardy no).")
@click.option(
    "--option",
    "-o",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A rules option (docs/rules.md), e.g. -o last-roll=half or -o opening=reroll.",
)
@click.option("--show-eval", is_flag=True, help="Show the computer's estimate of each of its plays.")
@click.option("--hint-level", default=None, help="Bot level for hint and eval (default: grandmaster, 2-ply).")
@click.option(
    "--tutor",
    is_flag=True,
    help="Warn before a play that is an error, with the better play, and show the analysis after each game.",
)
@click.option(
    "--color",
    "colour",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Colour in the terminal.",
)
def play(
    game,
    length,
    white,
    black,
    seed,
    lang,
    numbering,
    record,
    resume,
    auto,
    delay,
    cube,
    options,
    show_eval,
    hint_level,
    colour,
    tutor=False,
):
    """Play backgammon, short nardy or long nardy in the terminal, against the computer or another
    person at the same keyboard. Type 'help' during the game for the commands."""
    from ..engine.bot import BOT_LEVELS, STRONGEST_LEVEL
    from ..flow.match import Match
    from ..rules.dice import DiceSource
    from ..rules.variants import get_rules

    if hint_level is not None and hint_level not in BOT_LEVELS:
        raise click.BadParameter(f"expected one of {', '.join(BOT_LEVELS)}", param_hint="--hint-level")
    data = {}
    if resume:
        if game or length or options or cube is not None:
            raise click.UsageError(
                "--resume continues a saved game: --game, --match, --cube and --option come from the file"
            )
        match, data = load_session_data(resume, seed)
        saved_players = [parse_player(p) for p in data.get("players", _players_from_names(match.players))]
        white = white or saved_players[0]
        black = black or saved_players[1]
        single = data.get("single", not match.length)
        lang = lang or data.get("lang")
        numbering = numbering or data.get("numbering")
        record = record or data.get("record")
        hint_level = hint_level or data.get("hint_level")
        if seed is None:
            seed = data.get("seed")
        log = data.get("log")
    else:
        opts = {}
        for item in options:
            k, sep, v = item.partition("=")
            if not sep:
                raise click.BadParameter(f"{item!r}: expected KEY=VALUE", param_hint="--option")
            opts[k.strip()] = v.strip()
        try:
            rules = get_rules(game or "backgammon", **opts)
        except NardyError as e:
            raise click.BadParameter(str(e), param_hint="--game/--option") from None
        white = white or PlayerSpec("human")
        black = black or PlayerSpec("bot", STRONGEST_LEVEL)
        single = length is None
        match = None
        log = None
    if auto:
        white = white if not white.human else PlayerSpec("bot", STRONGEST_LEVEL)
        black = black if not black.human else PlayerSpec("bot", STRONGEST_LEVEL)
    lang = lang or detect_lang()
    game_name = match.rules.name if match is not None else rules.name
    numbering = numbering or "own"
    try:
        Numbering(numbering, game_name)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--numbering") from None
    names = _player_names(white, black)
    if match is None:
        match = Match(rules, length=length or 0, dice=DiceSource(seed), cube=cube, players=names)
    out = Output(colour, quiet=auto)

    def sitting(match, record, seed, log):
        return Session(
            match,
            (white, black),
            single=single,
            lang=lang,
            numbering=numbering,
            out=out,
            record=record,
            delay=delay,
            seed=seed,
            show_eval=show_eval,
            hint_level=hint_level,
            log=log,
            tutor=tutor,
        )

    session = sitting(match, record, seed, log)
    if not auto:
        t = session.t
        out.line(t("welcome", game=t.game_title(game_name)), "bold")
        if resume:
            session.render.say("resumed", path=resume)
        from .warmup import prepare

        try:
            prepare(game_name, [s.level for s in (white, black) if not s.human] + [session.hint_level], out, t)
        except KeyboardInterrupt:
            out.line("")
            session.render.say("bye")
            sys.exit(130)
    status = session.run()
    n = 1
    while session.again and status == 0:  # another game (or match) with the same settings
        n += 1
        nseed = None if seed is None else seed + n - 1
        last = session.match
        match = Match(
            last.rules,
            length=last.length,
            dice=DiceSource(nseed),
            cube=last.cube,
            players=last.players,
            jacoby=last.jacoby,
            beavers=last.beavers,
            cube_limit=last.cube_limit,
            crawford=last.crawford_rule,
        )
        session = sitting(match, _numbered(record, n), nseed, None)
        out.line("")
        session.render.say("new_game" if single else "new_match", n=n, style="bold")
        status = session.run()
    if auto:
        from ..records.mat import write_mat

        text = write_mat(match)  # as written; printable when it goes to a terminal
        click.echo(terminal_text(text, lines=True) if sys.stdout.isatty() else text, nl=False)
    sys.exit(status)


def _numbered(record: str | None, n: int) -> str | None:
    """The record file of the ``n``-th game or match of a sitting: ``match.mat``, ``match-2.mat``, ..."""
    if not record:
        return None
    p = Path(record)
    return str(p.with_name(f"{p.stem}-{n}{p.suffix}"))


def _players_from_names(names) -> list:
    """Player specs guessed from a record's names: ``nardy-LEVEL`` (as written by this command) is
    the computer at that level, any other name a person."""
    from ..engine.bot import BOT_LEVELS

    out = []
    for n in names:
        m = re.match(r"nardy-([a-z]+)", str(n))
        out.append(f"bot:{m.group(1)}" if m and m.group(1) in BOT_LEVELS else "human")
    return out


def _player_names(white: PlayerSpec, black: PlayerSpec) -> tuple:
    """Record names without spaces: ``White``/``Black`` for people, ``nardy-LEVEL`` for the computer."""

    def name(spec, colour):
        return colour if spec.human else f"nardy-{spec.level}"

    a, b = name(white, "White"), name(black, "Black")
    if a == b:
        a, b = a + "-white", b + "-black"
    return (a, b)

"""``nardy play``: backgammon, short nardy or long nardy in the terminal.

A thin front end over a :class:`~nardy.flow.table.Table`: it draws the board (with colour through ``rich``
when the terminal has it, plain text otherwise), reads the human players' commands and prints what
happens. The table runs the match: every change to the game goes through it (a person's actions
through :meth:`~nardy.flow.table.Table.act`, the computer's decisions one at a time through
:meth:`~nardy.flow.table.Table.computer_act`, so that each can be drawn), and all rules are the game's:
this package only asks the game what is legal, to prompt and to explain a refusal.

:class:`TerminalGame` is the coordinator: the turn loop and the questions to the players. What a typed command
does is :mod:`~nardy.terminal.actions`'s, saving and resuming :mod:`~nardy.terminal.saving`'s, the players
:mod:`~nardy.terminal.players`'; the rest of :mod:`nardy.terminal`: :mod:`~nardy.terminal.render` (the output
and everything shown), :mod:`~nardy.terminal.commands` (a typed line as a command),
:mod:`~nardy.terminal.explain` (why input was refused), :mod:`~nardy.terminal.board`; points are labelled by a
:class:`~nardy.rules.numbering.Numbering` (the table takes points in the mover's own numbering). The command
``nardy play`` itself (its options) is :mod:`nardy.cli.play`.

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
import time
from pathlib import Path

import click

from ..flow.bot import bot_player
from ..flow.table import Seat, Table
from ..rules.errors import GameStateError
from ..rules.numbering import Numbering
from ..texts.i18n import Texts
from ..texts.printable import terminal_text
from .actions import CommandActions, Quit
from .commands import Command, Kind, parse
from .explain import Explainer
from .players import PlayerSpec, parse_player
from .render import Output, Renderer
from .saving import SAVE_FORMAT, SAVE_VERSION

#: Besides :class:`TerminalGame`, the names the old path ``nardy.play`` (:mod:`nardy._compat`) exported, defined in
#: :mod:`~nardy.terminal.players`, :mod:`~nardy.terminal.render` and :mod:`~nardy.terminal.saving`.
__all__ = ["TerminalGame", "PlayerSpec", "parse_player", "SAVE_FORMAT", "Output"]


class TerminalGame(CommandActions):
    """One sitting of ``nardy play``: a match (or one game) at a :class:`~nardy.flow.table.Table`, two players, the
    terminal.

    The terminal game runs the turn loop: it asks the human players (reading each answer as a
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
        from ..engine.bot import DEFAULT_LEVEL  # here: the engine's kernels load slowly (start-up)

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
            raise Quit()
        self.out.stream.flush()
        try:
            return self.read(prompt).strip()
        except EOFError:
            self.out.line("")
            raise Quit() from None
        except KeyboardInterrupt:
            self.out.line("")
            if self._quitting:
                raise Quit() from None
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
        except Quit:
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

"""``nardy play``: backgammon, short nardy or long nardy in the terminal.

A thin front end over :class:`~nardy.match.Match` and :class:`~nardy.game.Game`: it draws the
board (with colour through ``rich`` when the terminal has it, plain text otherwise), reads the human
player's commands, lets the :class:`~nardy.bots.Bot` play the computer's turns and prints what
happens. All rules are the game's: this module only asks :class:`~nardy.game.Game` what is legal.

Usage::

    nardy play --game long --black bot:beginner --numbering absolute
    nardy play --white bot --black bot --delay 0.5          # watch the computer play itself
    nardy play --auto --game short --seed 7                 # no terminal: print the record

Human commands are listed by ``help`` (see :data:`nardy.i18n` for the texts): a whole play in
notation, single steps with ``undo``, ``moves``, ``hint``, ``eval``, ``roll``, ``double``, ``take``,
``pass``, ``beaver``, ``resign [level]``, ``accept``, ``decline``, ``board``, ``save FILE``,
``help``, ``quit``. A saved game (JSON: the match, the players, the settings, the bots' random
states) continues with ``--resume FILE``; ``--resume`` also takes a ``.mat`` record, which is
replayed and continued with fresh dice.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click

from .errors import GameStateError, IllegalPlayError, NardyError, NotationError, RecordError
from .events import (
    AcceptEvent,
    BeaverEvent,
    DeclineEvent,
    DoubleEvent,
    DropEvent,
    EndEvent,
    Event,
    LastRollEvent,
    OpeningEvent,
    PassEvent,
    PlayEvent,
    ResignEvent,
    RollEvent,
    TakeEvent,
)
from .i18n import LANGS, Texts, detect_lang
from .notation import Step, tokenize
from .tui.board import GLYPHS, STYLES, board_lines
from .tui.commands import Command, Kind, parse
from .tui.explain import Explainer
from .tui.numbering import NUMBERINGS, Numbering

__all__ = ["play", "PlayerSpec", "Session", "parse_player", "SAVE_FORMAT"]

SAVE_FORMAT = "nardy-play"
SAVE_VERSION = 1


# ----- players ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerSpec:
    """A side's player: ``human``, or ``bot`` with a level of :data:`nardy.bots.BOT_LEVELS`."""

    kind: str
    level: str | None = None

    @property
    def human(self) -> bool:
        return self.kind == "human"

    def __str__(self):
        return "human" if self.human else f"bot:{self.level}"


def parse_player(text: str) -> PlayerSpec:
    """``human`` (``h``, ``person``) or ``bot[:LEVEL]`` (``computer``, ``cpu``; default the
    strongest level). Raises ValueError for anything else."""
    from .bots.bot import BOT_LEVELS, STRONGEST_LEVEL

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


# ----- output -----------------------------------------------------------------------------------
class Output:
    """Where the front end writes: a ``rich`` console with colour, plain text, or nothing (``--auto``)."""

    def __init__(self, mode: str = "auto", quiet: bool = False, stream=None):
        self.quiet = quiet
        self.stream = stream or sys.stdout
        self.console = None
        if quiet or mode == "never" or os.environ.get("NO_COLOR"):
            return
        try:
            from rich.console import Console
        except ImportError:  # rich is a dependency; plain text if it is missing anyway
            return
        if mode == "always":
            self.console = Console(
                file=self.stream, force_terminal=True, highlight=False, soft_wrap=True, markup=False, emoji=False
            )
            return
        if not getattr(self.stream, "isatty", lambda: False)():
            return
        con = Console(file=self.stream, highlight=False, soft_wrap=True, markup=False, emoji=False)
        if con.is_terminal and con.color_system is not None:
            self.console = con

    @property
    def colour(self) -> bool:
        return self.console is not None

    def line(self, segments=(), style=None):
        """Print one line: a string, or a list of ``(text, style)`` segments."""
        if self.quiet:
            return
        if isinstance(segments, str):
            segments = [(segments, style)]
        if self.console is None:
            self.stream.write("".join(t for t, _ in segments) + "\n")
            self.stream.flush()
            return
        from rich.text import Text

        text = Text()
        for t, st in segments:
            text.append(t, style=st or style)
        self.console.print(text)

    def lines(self, text: str, style=None):
        for ln in text.split("\n"):
            self.line(ln, style)


class _Quit(Exception):
    """Leave the session (after the quit question, or at the end of input)."""


# ----- the session ------------------------------------------------------------------------------
class Session:
    """One sitting of ``nardy play``: a match (or one game), two players, the terminal.

    Args:
        match: the :class:`~nardy.match.Match` (a new one, or one resumed).
        players: two :class:`PlayerSpec` (White, Black).
        single: play one game only (the match is a money session of one game).
        lang: ``en`` or ``ru``.
        numbering: ``own``, ``absolute`` (long nardy) or ``traditional`` (backgammon, short nardy).
        out: an :class:`Output`.
        record: path of a ``.mat`` record to write after each game and at the end.
        delay: seconds to wait after each computer play (for watching).
        seed: seed of the bots' random generators (``None``: fresh).
        show_eval: print the computer's estimate of each of its plays.
        hint_level: bot level used for ``hint`` and ``eval``.
        read: the input function (``input`` by default).
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
        bot_states=None,
        read=None,
    ):
        from .bots.bot import STRONGEST_LEVEL

        self.match = match
        self.players = tuple(players)
        self.single = single
        self.lang = lang
        self.t = Texts(lang)
        self.game_name = match.rules.name
        self.num = Numbering(numbering, self.game_name)
        self.explain = Explainer(self.t, self.num, self.game_name)
        self.out = out or Output()
        self.record = record
        self.record_error = None  # the last failure to write the record (exit status 1 at the end)
        self.delay = float(delay or 0)
        self.seed = seed
        self.show_eval = show_eval
        self.hint_level = hint_level or STRONGEST_LEVEL
        self.read = read or input
        self.bots = {}
        for side, spec in enumerate(self.players):
            if not spec.human:
                self.bots[side] = self._make_bot(spec.level, None if seed is None else [int(seed), side])
                if bot_states and str(side) in bot_states:
                    self.bots[side].rng.bit_generator.state = bot_states[str(side)]
        self._hint_bot = None
        self.humans = [s for s in (0, 1) if self.players[s].human]
        self.printed = {i: len(g.history) for i, g in enumerate(match.games)}
        self.drawn_key = None
        self.board_key = None
        self.listing = None  # (key, [plays]) of the last 'moves' / 'hint' list
        self.last_bot = None  # (side, position, dice, play) of the last computer play
        self.announced = None  # the turn key whose forced/no-play note was printed
        self.pending_eval = None  # --show-eval: the estimate printed under the computer's next play
        self._quitting = False

    # ----- helpers ------------------------------------------------------------------------------
    def _make_bot(self, level, seed):
        from .bots import Bot

        return Bot(self.match.rules, level=level, seed=seed)

    @property
    def hint_bot(self):
        if self._hint_bot is None:
            self._hint_bot = self._make_bot(self.hint_level, None if self.seed is None else [int(self.seed), 7])
        return self._hint_bot

    def who(self, side: int) -> str:
        return self.t.colour(side)

    def player_label(self, side: int) -> str:
        spec = self.players[side]
        if spec.human:
            extra = self.t("you") if len(self.humans) == 1 else self.t("human")
        else:
            extra = self.t("computer", level=self.t.bot_level(spec.level))
        return f"{self.t.colour(side)} ({extra})"

    @staticmethod
    def dice_text(dice) -> str:
        return f"{dice[0]}-{dice[1]}"

    def play_text(self, steps, side: int) -> str:
        steps = [s if isinstance(s, Step) else Step(int(s[0]), int(s[1]), int(s[2]), bool(s[3])) for s in steps]
        return self.num.play_text(steps, side) or "-"

    def viewer(self, g) -> int:
        """Whose view the board is drawn from."""
        if len(self.humans) == 1:
            return self.humans[0]
        if len(self.humans) == 2 and not self.num.fixed:
            act = g.to_act
            return act if act is not None else (g.turn or 0)
        return 0

    def _key(self, g):
        return (len(self.match.games), len(g.history), tuple(g.steps_taken), g.phase)

    def say(self, key, style=None, **kw):
        self.out.line(self.t(key, **kw), style)

    def error(self, text: str):
        self.out.line(text, "bold red")

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

    # ----- drawing ------------------------------------------------------------------------------
    def draw(self, g, force: bool = False):
        if self.out.quiet:
            return
        key = self._key(g)
        if key == self.drawn_key and not force:
            return
        self.drawn_key = key
        v = self.viewer(g)
        pos = g.position_for(v, partial=True)
        bkey = (pos.array.tobytes(), v, g.cube_value, g.cube_owner, len(self.match.games))
        if bkey == self.board_key and not force:
            # the same board as last drawn: only say what has changed (dice, whose turn)
            for ln in self.status_lines(g):
                self.out.line(ln)
            return
        self.board_key = bkey
        self.out.line("")
        for ln in board_lines(pos, v, self.num, self.t("bar_word")):
            self.out.line(ln)
        for ln in self.info_lines(g, pos, v) + self.status_lines(g):
            self.out.line(ln)

    def info_lines(self, g, pos, v) -> list:
        t = self.t
        m = self.match
        head = t.game_title(self.game_name) + " · "
        if self.single:
            head += t("one_game")
        else:
            s = m.score_before(len(m.games) - 1) if g.phase != "over" else m.score
            head += (
                t("match_to", n=m.length)
                + ", "
                + t("score", w=t.colour(0), ws=_num(s[0]), b=t.colour(1), bs=_num(s[1]))
            )
        lines = [[(head, "bold")]]
        if self.num.kind != "own":
            lines.append([(t("numbering", name=t(f"numbering_{self.num.kind}")), "dim")])
        pips = pos.pip_count()
        a = pos.array
        for side, pip, off, bar in ((v, pips[0], int(a[0]), int(a[25])), (1 - v, pips[1], int(a[27]), int(a[26]))):
            txt = t("side_line", glyph="", name=self.player_label(side), pips=pip, off=off).lstrip()
            if pos.rules.hitting and bar:
                txt += t("bar_part", n=bar)
            lines.append([(GLYPHS[side], STYLES[side]), (" " + txt, None)])
        if g.cube_enabled:
            if g.cube_owner is None:
                txt = t("cube_centre", value=g.cube_value)
            else:
                txt = t("cube_owned", value=g.cube_value, who=t.colour(g.cube_owner), whom=t.colour_gen(g.cube_owner))
            if g.crawford:
                txt += "; " + t("crawford")
            lines.append([(txt, None)])
        return lines

    def status_lines(self, g) -> list:
        t = self.t
        lines = []
        if g.phase == "roll":
            lines.append([(t("to_roll", who=self.who(g.turn)), "bold yellow")])
        elif g.phase == "move":
            lines.append([(t("to_play", who=self.who(g.turn), dice=self.dice_text(g.dice)), "bold yellow")])
            if g.steps_taken:
                left = g.dice_left
                lines.append(
                    [
                        (
                            t(
                                "steps_so_far",
                                steps=self.play_text(g.steps_taken, g.turn),
                                left=", ".join(map(str, left)) or "-",
                            ),
                            None,
                        )
                    ]
                )
        elif g.phase == "double":
            lines.append([(t("to_answer_double", who=self.who(g.to_act), value=g.cube_value * 2), "bold yellow")])
        elif g.phase == "resign":
            lines.append([(t("to_answer_resign", who=self.who(g.to_act)), "bold yellow")])
        return lines

    # ----- events -------------------------------------------------------------------------------
    def flush_events(self, g):
        idx = len(self.match.games) - 1
        start = self.printed.get(idx, 0)
        for e in g.history[start:]:
            self.print_event(g, e)
        self.printed[idx] = len(g.history)

    def print_event(self, g, e: Event):
        t = self.t
        match e:
            case OpeningEvent(starter=starter, rolls=rolls, dice=dice):
                for r in rolls[:-1]:
                    self.say("opening_tie", w=r[0], b=r[1])
                if rolls:
                    self.say("opening", w=rolls[-1][0], b=rolls[-1][1], who=self.who(starter))
                if dice:
                    self.say("opening_dice", who=self.who(starter), dice=self.dice_text(dice))
            case RollEvent(player=p, dice=dice):
                if not self.players[p].human:
                    return  # the computer's play line shows its dice
                self.say("roll_event", who=self.who(p), dice=self.dice_text(dice))
            case PassEvent(player=p, dice=dice):
                self.say("pass_event", who=self.who(p), dice=self.dice_text(dice), style="yellow")
            case PlayEvent(player=p, dice=dice, steps=steps):
                self.out.line(
                    [
                        (
                            t("play_event", who=self.who(p), dice=self.dice_text(dice), play=self.play_text(steps, p)),
                            "bold" if not self.players[p].human else None,
                        )
                    ]
                )
                if self.pending_eval:
                    self.out.line(self.pending_eval, "dim")
                    self.pending_eval = None
            case DoubleEvent(player=p, value=v):
                self.say("double_event", who=self.who(p), value=v, style="bold yellow")
            case TakeEvent(player=p, value=v):
                self.say("take_event", who=self.who(p), value=v)
            case BeaverEvent(player=p, value=v):
                self.say("beaver_event", who=self.who(p), value=v)
            case DropEvent(player=p):
                self.say("drop_event", who=self.who(p))
            case ResignEvent(player=p, level=level):
                pts = g.rules.scoring[level] * g.cube_value
                self.say(
                    "resign_event",
                    who=self.who(p),
                    level=t.level_name(self.game_name, level),
                    points=t.points(pts),
                    style="bold yellow",
                )
            case AcceptEvent(player=p):
                self.say("accept_event", who=self.who(p))
            case DeclineEvent(player=p):
                self.say("decline_event", who=self.who(p))
            case LastRollEvent(player=p):
                self.say("last_roll_event", who=self.who(p), style="yellow")
            case EndEvent():
                self.print_result(g, e)

    def result_text(self, r) -> str:
        """The result line of a game, from a :class:`~nardy.game.GameResult` or an :class:`EndEvent`."""
        t = self.t
        if r.winner is None:
            return t("draw_result", points=t.points(r.points))
        who = self.who(r.winner)
        if r.reason == "drop":
            return t("win_drop", who=who, points=t.points(r.points))
        level = t.level_name(self.game_name, r.level)
        txt = t(
            "win_resign" if r.reason == "resign" else "win_bearoff", who=who, level=level, points=t.points(r.points)
        )
        if r.cube > 1:
            txt = txt[:-1] + t("cube_note", value=r.cube) + "."
        return txt

    def print_result(self, g, e):
        if not self.out.quiet:
            self.draw(g, force=True)
        self.say("game_over", style="bold")
        self.out.line(self.result_text(e), "bold green")
        s = self.match.score
        self.say("score_line", w=_num(s[0]), b=_num(s[1]))

    # ----- main loop ----------------------------------------------------------------------------
    def run(self) -> int:
        """Play until the game (or match) is over or the player quits; returns the exit status."""
        status = 0
        try:
            self._loop()
        except _Quit:
            if not self.out.quiet:
                self.say("bye")
        except KeyboardInterrupt:  # Ctrl-C while the computer plays
            self.out.line("")
            self.say("bye")
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
        return self.single or self.match.is_over

    def _loop(self):
        m = self.match
        if m.games and not m.current.is_over:
            self.draw(m.current, force=True)
        while True:
            g = m.current
            if g is None or g.is_over:
                if self.finished():
                    self._final()
                    return
                if g is not None:
                    self.write_record()
                    if self.humans:
                        self.ask(self.t("prompt_continue"))
                g = m.new_game()
                self.printed[len(m.games) - 1] = 0
                if not self.single:
                    self.out.line("")
                    self.say("new_game", n=len(m.games), style="bold")
                g.start()
            self.flush_events(g)
            if g.is_over:
                continue
            side = g.to_act
            if self.players[side].human:
                self.human_turn(g, side)
            else:
                self.bot_turn(g, side)
            self.flush_events(g)

    def _final(self):
        m = self.match
        if not self.single and m.winner is not None:
            s = m.score
            self.say("match_won", who=self.who(m.winner), w=_num(s[0]), b=_num(s[1]), style="bold green")

    def write_record(self):
        if not self.record or not self.match.games:
            return
        from .records.mat import write_mat

        try:
            Path(self.record).write_text(write_mat(self.match), encoding="utf-8")
        except OSError as e:
            msg = self.t("record_failed", path=self.record, reason=e.strerror or str(e))
            if msg != self.record_error:  # once, not after every game
                if self.out.quiet:
                    click.echo(f"nardy: {msg}", err=True)
                else:
                    self.error(msg)
            self.record_error = msg
            return
        self.record_error = None
        if self.finished() and not self.out.quiet:
            self.say("record_written", path=self.record)

    # ----- computer turns -----------------------------------------------------------------------
    def bot_turn(self, g, side: int):
        bot = self.bots[side]
        if g.phase == "roll":
            if g.may_double():
                dec = bot.cube_action(self.match)
                if dec.double:
                    g.double(player=side)
                    return
            g.roll(player=side)
            return
        if g.phase == "move":
            pos, dice = g.position, g.dice
            choice = bot.choose_play(pos, dice)
            self.last_bot = (side, pos, dice, choice)
            if self.show_eval and not self.out.quiet:
                self.pending_eval = self._bot_eval_text()
            g.play(choice, player=side)
            self.flush_events(g)
            if not self.humans and not self.out.quiet:
                self.draw(g)
            if self.delay and not self.out.quiet:
                time.sleep(self.delay)
            return
        if g.phase == "double":
            dec = bot.cube_action(self.match)
            if dec.take:
                g.take(player=side)
            else:
                g.drop(player=side)
            return
        if g.phase == "resign":
            if self._accepts(bot, g, side):
                g.accept_resignation(player=side)
            else:
                g.decline_resignation(player=side)

    def _accepts(self, bot, g, side: int) -> bool:
        """Accept a resignation worth at least the cubeless equity of the accepting side."""
        _, level = g.resignation
        probs = bot.evaluate(g.position)
        if g.turn != side:
            probs = probs.flipped()
        equity = probs.equity(g.rules.scoring)
        return g.rules.scoring[level] >= equity - 1e-9

    def _bot_eval_text(self) -> str | None:
        """The computer's estimate of the play it is about to make (``--show-eval``)."""
        side, pos, dice, choice = self.last_bot
        hints = self.hint_bot.hints(pos, dice, n=len(pos.legal_plays(dice)))
        mine = next((h for h in hints if h.play == choice), None)
        if mine is None or not hints:
            return None
        best = hints[0]
        if mine.loss <= 1e-9:
            return self.t("bot_eval_best", equity=f"{mine.equity:+.3f}")
        return self.t(
            "bot_eval",
            equity=f"{mine.equity:+.3f}",
            best=self.play_text(best.play.steps, side),
            best_equity=f"{best.equity:+.3f}",
        )

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
        if not g.may_double():
            self._human_roll(g, side)
            return
        self.draw(g)
        cmd = self.ask_command(self.t("prompt_roll", who=self.who(side)))
        if cmd.kind is Kind.EMPTY:
            self._human_roll(g, side)
        else:
            self.command(g, side, cmd)

    def _answer_double(self, g, side: int):
        self.draw(g)
        key = "prompt_take_beaver" if g.cube.beavers else "prompt_take"
        cmd = self.ask_command(self.t(key, who=self.who(side)), first=(Kind.TAKE, Kind.PASS, Kind.BEAVER))
        if cmd.kind is Kind.TAKE:
            g.take(player=side)
        elif cmd.kind is Kind.PASS:
            g.drop(player=side)
        elif cmd.kind is Kind.BEAVER:
            try:
                g.beaver(player=side)
            except GameStateError as e:
                self.error(self.explain.refusal(e.code, e.params, side))
        elif cmd.kind is Kind.EMPTY:
            self.say("answer_now", choices=self.t("choices_take"))
        else:
            self.command(g, side, cmd)

    def _answer_resignation(self, g, side: int):
        self.draw(g)
        cmd = self.ask_command(self.t("prompt_resign", who=self.who(side)), first=(Kind.ACCEPT, Kind.DECLINE))
        if cmd.kind is Kind.ACCEPT:
            g.accept_resignation(player=side)
        elif cmd.kind is Kind.DECLINE:
            g.decline_resignation(player=side)
        elif cmd.kind is Kind.EMPTY:
            self.say("answer_now", choices=self.t("choices_resign"))
        else:
            self.command(g, side, cmd)

    def _human_roll(self, g, side: int):
        g.roll(player=side)
        self.flush_events(g)
        if g.phase != "move" or g.turn != side:
            # nothing could be played: the game passed the turn; let the player see it
            if len(self.humans) and not self.out.quiet:
                self.draw(g)
                self.ask(self.t("prompt_continue"))

    def _turn_key(self, g):
        return (len(self.match.games), len(g.history))

    def human_move(self, g, side: int):
        plays = g.legal_plays()
        self.draw(g)
        fields = {"who": self.who(side), "dice": self.dice_text(g.dice)}
        forced = len(plays) == 1 and not g.steps_taken
        complete = g.can_confirm()
        if forced and self.announced != self._turn_key(g):
            self.announced = self._turn_key(g)
            self.say("only_play", play=self.play_text(plays[0].steps, side), style="yellow")
        key = "prompt_forced" if forced else "prompt_confirm" if complete else "prompt_play"
        cmd = self.ask_command(self.t(key, **fields), first=(Kind.CONFIRM,) if complete else ())
        if cmd.kind is Kind.EMPTY and forced:
            g.play(plays[0], player=side)
        elif cmd.kind is Kind.EMPTY and not complete:
            self.say("type_a_play", example=self.explain.example(side))
        elif cmd.kind in (Kind.EMPTY, Kind.CONFIRM):
            g.confirm()
        else:
            self.command(g, side, cmd)

    def _pick(self, g, side, n):
        if not self.listing or self.listing[0] != self._turn_key(g):
            self.say("no_list")
            return
        plays = self.listing[1]
        if not 1 <= n <= len(plays):
            self.say("bad_number", n=n)
            return
        g.play(plays[n - 1], player=side)

    def enter_play(self, g, side: int, line: str):
        """A play or single steps typed by the player (in the chosen numbering): the whole play when
        no step is taken yet and it reads as one, else step by step."""
        x = self.explain
        try:
            own = self.num.to_own(line, side)
        except NotationError as e:
            self.error(x.illegal(line, x.bad_point(e)))
            return
        whole_error = None
        if not g.steps_taken:
            try:
                chosen = g.position.parse_play(own, g.dice)
            except IllegalPlayError as e:  # NotationError included
                whole_error = e
            else:
                g.play(chosen, player=side)
                return
            if isinstance(whole_error, NotationError):
                self.error(x.illegal(line, x.bad_notation(line, own, side)))
                return
        try:
            paths = tokenize(own, 25 if g.rules.hitting else 24)
        except NotationError:
            self.error(x.illegal(line, x.bad_notation(line, own, side)))
            return
        if not paths:
            reason = x.whole_play(whole_error, side) if whole_error else x.refusal("must_play", {}, side)
            self.error(x.illegal(line, reason))
            return
        if not self._take_steps(g, side, line, own, paths, whole_error):
            return
        if g.can_confirm() and not g.legal_steps():
            self.say("play_is_complete", play=self.play_text(g.steps_taken, side), style="green")

    def _take_steps(self, g, side: int, line: str, own: str, paths, whole_error) -> bool:
        """Take the steps of ``paths`` (own numbering) one by one; at the first refused one take them
        back and say why (or play ``own`` whole, when steps were taken before). True when all are
        taken."""
        x = self.explain
        taken = 0
        for hop in (hop for path in paths for hop in path):
            try:
                g.step(hop.frm, hop.to)
            except IllegalPlayError:
                reason = None
                if whole_error is not None and whole_error.code != "fewer_dice":
                    reason = x.whole_play(whole_error, side)
                if reason is None:
                    reason = x.step(g, side, hop.frm, hop.to)
                for _ in range(taken):
                    g.undo_step()
                if g.steps_taken and whole_error is None and self._play_whole(g, side, own):
                    return False
                self.error(x.illegal(line, reason))
                return False
            taken += 1
        return True

    def _play_whole(self, g, side: int, own: str) -> bool:
        """Steps were taken before: the text may be the whole play written out; play it if so."""
        try:
            chosen = g.position.parse_play(own, g.dice)
        except IllegalPlayError:
            return False
        g.play(chosen, player=side)
        return True

    # ----- commands -----------------------------------------------------------------------------
    def command(self, g, side: int, cmd: Command):
        """Carry out a command typed at any question (the answers a question expects are its own)."""
        reason = self._not_now(g, cmd)
        if reason is not None:
            shown = cmd.line if cmd.kind in (Kind.PICK, Kind.PLAY) else cmd.word
            self.say("not_now", cmd=shown, reason=reason)
            return
        do = self._COMMANDS.get(cmd.kind)
        if do is None:
            self.say("unknown_command", cmd=cmd.line)
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

    def cmd_help(self, g, side, cmd: Command | None = None):
        t = self.t
        default = t.level_name(self.game_name, 0)
        levels = ", ".join(t.level_name(self.game_name, i) for i in range(len(g.rules.result_names)))
        self.out.lines(t("help", levels=levels, default=default))

    def cmd_save(self, g, side, cmd: Command):
        if not cmd.arg:
            self.error(self.t("save_needs_file"))
        else:
            self.save(cmd.arg)

    def cmd_undo(self, g, side, cmd: Command):
        if g.phase != "move" or not g.steps_taken:
            self.say("nothing_to_undo")
        else:
            back = g.undo_step()
            self.say("step_undone", steps=self.play_text(back, side))

    def cmd_double(self, g, side, cmd: Command | None = None):
        if not g.cube.enabled:  # whatever the phase: there is no cube to turn in this game
            self.say("cannot_double", reason=self.explain.refusal("cube_disabled", {}, side))
            return
        if g.phase != "roll":
            self.say("cannot_double", reason=self.explain.phase(g))
            return
        code = g.why_not_double(side)
        if code:
            self.say(
                "cannot_double", reason=self.explain.refusal(code, {"owner": g.cube_owner, "limit": g.cube.limit}, side)
            )
            return
        g.double(player=side)

    def cmd_moves(self, g, side, cmd: Command | None = None):
        if g.phase != "move":
            self.say("not_now", cmd="moves", reason=self.t("no_steps_now"))
            return
        plays = g.legal_plays()
        self.say("legal_plays")
        shown = plays[:60]
        for i, p in enumerate(shown, 1):
            self.out.line(f"  {i:>2}) {self.play_text(p.steps, side)}")
        if len(plays) > len(shown):
            self.say("legal_plays_more", n=len(plays) - len(shown))
        self.listing = (self._turn_key(g), shown)
        self.say("pick_number", style="dim")

    def cmd_hint(self, g, side, cmd: Command | None = None):
        t = self.t
        bot = self.hint_bot
        if g.phase == "move":
            hints = bot.hints(g.position, g.dice, n=5)
            self.say("hint_header", who=self.t.colour_gen(side))
            for i, h in enumerate(hints, 1):
                loss = f"  ({-h.loss:+.3f})" if h.loss > 1e-9 else ""
                self.out.line(f"  {i:>2}) {self.play_text(h.play.steps, side):<28} {h.equity:+.3f}{loss}")
            if hints:
                pr = hints[0].probabilities  # after the play, from the mover's view
                self.say(
                    "hint_probs",
                    win=_pct(pr.win),
                    gammon_word=t.level_name(self.game_name, 1),
                    gammon=_pct(pr.array[1]),
                    lose=_pct(1 - pr.win),
                    style="dim",
                )
            self.listing = (self._turn_key(g), [h.play for h in hints])
            self.say("pick_number", style="dim")
        elif g.phase == "roll":
            self.cmd_eval(g, side, last=False)
            if g.may_double():
                dec = bot.cube_action(self.match)
                e = dec.equities
                key = "cube_hint_double" if dec.double else "cube_hint_no_double"
                self.say(key, nd=f"{e['no double']:+.3f}", dt=f"{e['double/take']:+.3f}", dp=f"{e['double/pass']:+.3f}")
        elif g.phase == "double":
            dec = bot.cube_action(self.match)
            self.say("cube_hint_take" if dec.take else "cube_hint_pass")
        elif g.phase == "resign":
            self.say("resign_hint_accept" if self._accepts(bot, g, side) else "resign_hint_decline")

    def cmd_eval(self, g, side, cmd: Command | None = None, last: bool = True):
        t = self.t
        bot = self.hint_bot
        probs = bot.evaluate(g.position)
        if g.turn != side:
            probs = probs.flipped()
        names = g.rules.result_names
        parts = []
        for i in range(1, len(names)):
            parts.append(f"{t.level_name(self.game_name, i)} {_pct(probs.array[i])}")
        self.say(
            "eval_line",
            who=self.who(side),
            win=_pct(probs.win),
            levels=", ".join(parts),
            equity=f"{probs.equity(g.rules.scoring):+.3f}",
        )
        if last and self.last_bot is not None:
            bside, pos, dice, choice = self.last_bot
            hints = bot.hints(pos, dice, n=len(pos.legal_plays(dice)))
            mine = next((h for h in hints if h.play == choice), None)
            if mine is not None and hints:
                ptxt = self.play_text(choice.steps, bside)
                if mine.loss <= 1e-9:
                    self.say("eval_last_bot_best", play=ptxt, equity=f"{mine.equity:+.3f}")
                else:
                    self.say(
                        "eval_last_bot",
                        play=ptxt,
                        equity=f"{mine.equity:+.3f}",
                        best=self.play_text(hints[0].play.steps, bside),
                        best_equity=f"{hints[0].equity:+.3f}",
                    )

    def cmd_resign(self, g, side, cmd: Command):
        t = self.t
        if cmd.level is None:
            levels = ", ".join(t.level_name(self.game_name, i) for i in range(len(g.rules.result_names)))
            self.say("bad_resign_level", level=cmd.arg, levels=levels)
            return
        try:
            g.resign(cmd.level, player=side)
        except GameStateError as e:
            self.error(self.explain.refusal(e.code, e.params, side))

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
        Kind.HELP: cmd_help,
        Kind.QUIT: cmd_quit,
        Kind.SAVE: cmd_save,
        Kind.BOARD: lambda self, g, side, cmd: self.draw(g, force=True),
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
        return {
            "format": SAVE_FORMAT,
            "version": SAVE_VERSION,
            "players": [str(p) for p in self.players],
            "single": self.single,
            "lang": self.lang,
            "numbering": self.num.kind,
            "record": self.record,
            "seed": self.seed,
            "hint_level": self.hint_level,
            "bots": {str(s): b.rng.bit_generator.state for s, b in self.bots.items()},
            "match": self.match.to_dict(),
        }

    def save(self, path: str):
        p = Path(path).expanduser()
        try:
            tmp = p.with_name(p.name + ".tmp")
            tmp.write_text(json.dumps(self.to_dict()), encoding="utf-8")
            os.replace(tmp, p)
        except OSError as e:
            self.error(self.t("save_failed", path=path, reason=e.strerror or str(e)))
            return False
        self.say("saved", path=path, style="green")
        return True


# ----- small helpers ----------------------------------------------------------------------------
def _num(v) -> str:
    return str(int(v)) if float(v) == int(v) else f"{v:g}"


def _pct(x) -> str:
    return f"{100 * float(x):.1f}%"


# ----- loading ----------------------------------------------------------------------------------
def load_session_data(path: str, seed=None):
    """Read ``--resume FILE``: a saved game (JSON) or a ``.mat`` record (replayed; it continues with
    fresh dice). Returns ``(match, data)``, ``data`` being the saved settings (empty for a record).
    Raises click.UsageError with the reason."""
    from .match import Match

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
        _check_saved_settings(path, data)
        try:
            match = Match.from_dict(data["match"])
        except (NardyError, KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            why = f"missing key {e}" if isinstance(e, KeyError) else str(e)
            raise click.UsageError(f"{path}: cannot resume: field 'match': {why}") from None
        _check_saved_match(path, match)
        return match, data
    from .dice import DiceSource
    from .records.mat import parse_mat, replay

    try:
        match = replay(parse_mat(raw))  # raw is the file's text
    except RecordError as e:
        raise click.UsageError(f"{path}: {e}") from None
    src = DiceSource(seed)
    match.dice_source = src
    for g in match.games:
        g.dice_source = src
    return match, {}


def _check_saved_settings(path, data: dict):
    """Refuse a saved game whose settings were edited into something ``nardy play`` cannot use."""
    from .bots.bot import BOT_LEVELS

    def bad(field, why):
        raise click.UsageError(f"{path}: cannot resume: field {field!r}: {why}")

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
    if data.get("bots") is not None and not isinstance(data["bots"], dict):
        bad("bots", f"expected an object, got {type(data['bots']).__name__}")


def _check_saved_match(path, match):
    """Refuse a loaded match whose games are in a state no turn can continue from (an edited file)."""
    from .game import PHASES

    for i, g in enumerate(match.games):
        where = f"match.games[{i}]"
        if g.phase not in PHASES:
            raise click.UsageError(
                f"{path}: cannot resume: field '{where}.state.phase': {g.phase!r}: expected one of {', '.join(PHASES)}"
            )
        if g.phase not in ("opening", "over") and g.to_act not in (0, 1):
            raise click.UsageError(f"{path}: cannot resume: field '{where}.state.turn': {g.turn!r}: expected 0 or 1")
        if i < len(match.games) - 1 and not g.is_over:
            raise click.UsageError(f"{path}: cannot resume: field '{where}': a game before the last is not over")


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
    help="Write the match record (Jellyfish .mat) to this file.",
)
@click.option(
    "--resume",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Continue a game saved with 'save FILE' (or a .mat record).",
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
    help="A rules option (RULES.md), e.g. -o last-roll=half or -o opening=reroll.",
)
@click.option("--show-eval", is_flag=True, help="Show the computer's estimate of each of its plays.")
@click.option("--hint-level", default=None, help="Bot level for hint and eval (default: the strongest).")
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
):
    """Play backgammon, short nardy or long nardy in the terminal, against the computer or another
    person at the same keyboard. Type 'help' during the game for the commands."""
    from .bots.bot import BOT_LEVELS, STRONGEST_LEVEL
    from .dice import DiceSource
    from .match import Match
    from .rules import get_rules

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
    session = Session(
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
        bot_states=data.get("bots") if (data and seed == data.get("seed")) else None,
    )
    if not auto:
        t = session.t
        out.line(t("welcome", game=t.game_title(game_name)), "bold")
        if resume:
            session.say("resumed", path=resume)
    status = session.run()
    if auto:
        from .records.mat import write_mat

        click.echo(write_mat(match), nl=False)
    sys.exit(status)


def _players_from_names(names) -> list:
    """Player specs guessed from a record's names: ``nardy-LEVEL`` (as written by this command) is
    the computer at that level, any other name a person."""
    from .bots.bot import BOT_LEVELS

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

"""What the commands typed at ``nardy play``'s questions do: a play or single steps entered in the player's
numbering, a pick from the last list, and ``save``, ``undo``, ``double``, ``moves``, ``hint``, ``eval``,
``resign``, ``quit`` (the commands are read by :mod:`nardy.terminal.commands`; the game that asks is
:class:`nardy.terminal.play.TerminalGame`, which takes these as :class:`CommandActions`).
"""

from __future__ import annotations

from ..flow.entry import apply as apply_entry
from ..flow.entry import resolve as resolve_entry
from ..flow.hints import hints_for
from ..rules.errors import GameStateError, IllegalPlayError, NardyError, NotationError
from ..rules.notation import dash_to_slash
from ..texts.refusals import step_refusal
from .commands import Command, Kind
from .render import pct

__all__ = ["CommandActions", "Quit"]


class Quit(Exception):
    """Leave the terminal game (after the quit question, or at the end of input)."""


class CommandActions:
    """The commands of a terminal game: the part of :class:`~nardy.terminal.play.TerminalGame` that carries out
    what a person typed. Every change goes through the game's table (:meth:`~nardy.flow.table.Table.act`);
    what is shown is the renderer's, why input was refused the explainer's. It uses the game's ``table``,
    ``match``, ``render``, ``explain``, ``num``, ``t``, ``hint_bot``, ``listing`` and its questions
    (``ask``, ``yes_no``), the tutor's checks and ``save``.
    """

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
        """A play or single steps typed by the player (in the chosen numbering), entered by flow's one entry
        path (:mod:`nardy.flow.entry`: the whole play when no step is taken yet and it reads as one, else step
        by step) at the table; the tutor judges a whole play first. Refusals are worded here."""
        try:
            entry = resolve_entry(g, line, self.num, side)
            if entry.play is not None and not self._tutor_allows(g, side, entry.play):
                return
            _, whole = apply_entry(g, entry, lambda action, **kw: self.table.act(side, action, **kw), step_refusal)
        except IllegalPlayError as e:  # NotationError included
            self.render.error(self.explain.illegal(line, self._refusal(e, line, side)))
            return
        if not whole and g.can_confirm() and not g.legal_steps():
            self.render.say("play_is_complete", play=self.render.play_text(g.steps_taken, side), style="green")

    def _refusal(self, e: IllegalPlayError, line: str, side: int) -> str:
        """Why the typed ``line`` was refused, in words."""
        x = self.explain
        if e.code == "bad_point" and "numbering" in e.params:  # a label the player's numbering lacks
            return x.bad_point(e)
        if isinstance(e, NotationError):
            return x.bad_notation(line, self.num.to_own(dash_to_slash(line), side), side)
        return x.refusal(e.code, e.params, side)

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
        """The hint (flow's :func:`~nardy.flow.hints.hints_for`, the same as the web's): the best plays for the
        roll (long nardy's last roll ranked exactly), the chances and cube decision before the roll, the answer
        to a double or a resignation."""
        bot = self.hint_bot
        if g.phase == "move":
            hints = hints_for(g, bot, n=5, match=self.match).plays
            self.listing = (self._turn_key(g), [h.play for h in hints])
            self.render.print_hints(hints, side)
        elif g.phase == "roll":
            self.cmd_eval(g, side, last=False)
            if g.may_double:
                dec = hints_for(g, bot, match=self.match).cube
                e = dec.equities
                key = "cube_hint_double" if dec.double else "cube_hint_no_double"
                nd, dt, dp = (f"{e[k]:+.3f}" for k in ("no double", "double/take", "double/pass"))
                self.render.say(key, nd=nd, dt=dt, dp=dp)
        elif g.phase == "double":
            self.render.say("cube_hint_take" if hints_for(g, bot, match=self.match).cube.take else "cube_hint_pass")
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
        raise Quit()

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

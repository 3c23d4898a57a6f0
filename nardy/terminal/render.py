"""What ``nardy play`` shows: the output sink and the renderer.

:class:`Output` writes lines to the terminal (colour through ``rich`` when it has it, plain text
otherwise, nothing with ``--auto``). :class:`Renderer` turns the match into those lines: the board
with its info and status lines (drawn again only when something changed), the game's events as they
happen, results, lists of plays, hints and estimates, in the player's language and numbering. It
reads the match and never changes it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from ..flow.events import (
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
from ..rules.notation import Step, dice_text, format_steps
from ..rules.numbering import Numbering, opponent_point
from ..texts.i18n import Texts
from ..texts.printable import terminal_text
from .board import GLYPHS, STYLES, board_lines

__all__ = ["Output", "Renderer", "num_text", "pct"]


# ----- output -------------------------------------------------------------------------------------
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
        """Print one line: a string, or a list of ``(text, style)`` segments. The text is made printable
        (:func:`~nardy.texts.printable.terminal_text`: a record's names and texts reach here) and never read as
        markup."""
        if self.quiet:
            return
        if isinstance(segments, str):
            segments = [(segments, style)]
        segments = [(terminal_text(t), st) for t, st in segments]
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


def num_text(v) -> str:
    """A score: ``3``, ``1.5``."""
    return str(int(v)) if float(v) == int(v) else f"{v:g}"


def pct(x) -> str:
    """A probability as a percentage: ``61.2%``."""
    return f"{100 * float(x):.1f}%"


#: A line to print: ``(text, style)`` segments.
Line = list[tuple[str, str | None]]

#: Events told in one line: (text key, style); the fields are the event's player, value and dice.
_OneLineEvent = (
    PassEvent | DoubleEvent | TakeEvent | BeaverEvent | DropEvent | AcceptEvent | DeclineEvent | LastRollEvent
)
_ONE_LINE_EVENTS: dict[type, tuple[str, str | None]] = {
    PassEvent: ("pass_event", "yellow"),
    DoubleEvent: ("double_event", "bold yellow"),
    TakeEvent: ("take_event", None),
    BeaverEvent: ("beaver_event", None),
    DropEvent: ("drop_event", None),
    AcceptEvent: ("accept_event", None),
    DeclineEvent: ("decline_event", None),
    LastRollEvent: ("last_roll_event", "yellow"),
}


#: The plays the help shows (own numbering; relabelled in the player's numbering).
_HELP_EXAMPLES = {
    "hitting": {"play": "24/18 13/11", "step": "13/7", "count": "8/4(2)", "chain": "24/18/13"},
    "long": {"play": "24/18 19/17", "step": "24/18", "count": "8/4(2)", "chain": "24/18/13"},
}


# ----- the renderer -------------------------------------------------------------------------------
class Renderer:
    """Shows a match of ``nardy play`` in one language and numbering.

    Args:
        match: the :class:`~nardy.flow.match.Match` shown.
        players: the two players (White, Black), each with ``human`` and ``level``: the table's
            :class:`~nardy.flow.table.Seat` s.
        texts: the :class:`~nardy.texts.i18n.Texts` of the player's language.
        numbering: the :class:`~nardy.rules.numbering.Numbering` of points.
        out: the :class:`Output`.
        single: one game (no match score).
    """

    def __init__(self, match, players, texts: Texts, numbering: Numbering, out: Output, single: bool = True):
        self.match = match
        self.players = tuple(players)
        self.t = texts
        self.num = numbering
        self.out = out
        self.single = single
        self.game_name = match.rules.name
        self.humans = [s for s in (0, 1) if self.players[s].human]
        self.printed = {i: len(g.history) for i, g in enumerate(match.games)}  # events shown, per game
        self.drawn_key: tuple | None = None
        self.board_key: tuple | None = None
        self.pending_eval: str | None = None  # --show-eval: printed under the computer's next play

    # ----- words ------------------------------------------------------------------------------------
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
        """The roll, larger die first (``6-3``)."""
        return dice_text(dice)

    def play_text(self, steps, side: int) -> str:
        steps = [s if isinstance(s, Step) else Step(int(s[0]), int(s[1]), int(s[2]), bool(s[3])) for s in steps]
        return self.num.play_text(steps, side) or "-"

    def board_play_text(self, g, steps, side: int) -> str | None:
        """``side``'s play in the numbers the board shows, when they are not ``side``'s own: in own
        numbering the board keeps one viewer's labels (one person at the table, or none), so the other
        side's play, printed in its own numbering, is also given in the viewer's. None otherwise."""
        if self.num.kind != "own" or len(self.humans) == 2:
            return None
        v = self.viewer(g)
        if side == v:
            return None
        steps = [s if isinstance(s, Step) else Step(int(s[0]), int(s[1]), int(s[2]), bool(s[3])) for s in steps]
        hitting = g.rules.hitting
        return format_steps(steps, numbering=lambda q: opponent_point(q, hitting)) or None

    def levels_text(self, rules) -> str:
        """The result levels of the game, in order: ``single game, gammon, backgammon``."""
        return ", ".join(self.t.level_name(self.game_name, i) for i in range(len(rules.result_names)))

    def say(self, key, style=None, **kw):
        self.out.line(self.t(key, **kw), style)

    def error(self, text: str):
        self.out.line(text, "bold red")

    def help_lines(self, rules, side: int = 0, cube: bool | None = None) -> list[str]:
        """The commands, for this game (long nardy: no bar, no hits; the cube's commands only when it is in
        use, ``cube``: default the rules') with the examples in ``side``'s chosen numbering."""
        t = self.t
        cube = rules.cube if cube is None else cube
        ex = _HELP_EXAMPLES["hitting" if rules.hitting else "long"]
        own = {k: self.num.relabel(v, side) for k, v in ex.items()}
        forms = t("help_forms_bar" if rules.hitting else "help_forms_long", count=own["count"], chain=own["chain"])
        lines = [t("help"), t("help_play", play=own["play"], forms=forms, dashed=own["play"].replace("/", "-"))]
        if rules.hitting:
            lines.append(t("help_hits"))
        lines += [t("help_step", step=own["step"]), t("help_undo"), t("help_moves")]
        lines += [t("help_hint_cube" if cube else "help_hint"), t("help_eval")]
        if cube:
            beaver = t("help_beaver") if self.match.current is not None and self.match.current.cube.beavers else ""
            lines += [t("help_roll"), t("help_double", beaver=beaver)]
        levels, default = self.levels_text(rules), t.level_name(self.game_name, 0)
        lines += [t("help_resign", levels=levels, default=default), t("help_accept")]
        lines += [t("help_board"), t("help_save"), t("help_help"), t("help_quit")]
        return lines

    def help(self, rules, side: int = 0, cube: bool | None = None):
        """Print :meth:`help_lines`."""
        for ln in self.help_lines(rules, side, cube):
            self.out.line(ln)

    # ----- the board ----------------------------------------------------------------------------------
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

    def draw(self, g, force: bool = False):
        """The board, unless it was drawn in this state already (``force``: draw it anyway); when
        only the dice or the turn changed, the status lines alone."""
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

    def info_lines(self, g, pos, v) -> list[Line]:
        """The lines under the board: game and score, numbering, both sides, the cube."""
        t = self.t
        lines: list[Line] = [[(self._title(g), "bold")]]
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
            lines.append([(self._cube_text(g), None)])
        return lines

    def _title(self, g) -> str:
        t = self.t
        m = self.match
        head = t.game_title(self.game_name) + " · "
        if self.single:
            return head + t("one_game")
        s = m.score_before(len(m.games) - 1) if g.phase != "over" else m.score
        w, b = num_text(s[0]), num_text(s[1])
        return head + t("match_to", n=m.length) + ", " + t("score", w=t.colour_mid(0), ws=w, b=t.colour_mid(1), bs=b)

    def _cube_text(self, g) -> str:
        t = self.t
        if g.cube_owner is None:
            txt = t("cube_centre", value=g.cube_value)
        else:
            txt = t("cube_owned", value=g.cube_value, who=t.colour(g.cube_owner), whom=t.colour_gen(g.cube_owner))
        if g.crawford:
            txt += "; " + t("crawford")
        return txt

    def status_lines(self, g) -> list[Line]:
        """What the game waits for: a roll, a play (with the steps so far), an answer."""
        t = self.t
        lines: list[Line] = []
        if g.phase == "roll":
            lines.append([(t("to_roll", who=self.who(g.turn)), "bold yellow")])
        elif g.phase == "move":
            lines.append([(t("to_play", who=self.who(g.turn), dice=self.dice_text(g.dice)), "bold yellow")])
            if g.steps_taken:
                steps = self.play_text(g.steps_taken, g.turn)
                left = ", ".join(map(str, g.dice_left)) or "-"
                lines.append([(t("steps_so_far", steps=steps, left=left), None)])
        elif g.phase == "double":
            lines.append([(t("to_answer_double", who=self.who(g.to_act), value=g.cube_value * 2), "bold yellow")])
        elif g.phase == "resign":
            lines.append([(t("to_answer_resign", who=self.who(g.to_act)), "bold yellow")])
        return lines

    # ----- events -------------------------------------------------------------------------------------
    def start_game(self, index: int):
        """A new game ``index`` of the match: none of its events is shown yet."""
        self.printed[index] = 0

    def flush_events(self, g):
        """Show the events of the current game ``g`` not shown yet."""
        idx = len(self.match.games) - 1
        start = self.printed.get(idx, 0)
        for e in g.history[start:]:
            self.print_event(g, e)
        self.printed[idx] = len(g.history)

    def print_event(self, g, e: Event):
        if isinstance(e, _OneLineEvent):
            key, style = _ONE_LINE_EVENTS[type(e)]
            fields: dict[str, object] = {"who": self.who(e.player)}
            if isinstance(e, DoubleEvent | TakeEvent | BeaverEvent):
                fields["value"] = e.value
            if isinstance(e, PassEvent):
                fields["dice"] = self.dice_text(e.dice)
            self.say(key, style=style, **fields)
            return
        show = self._EVENTS.get(type(e))
        if show is not None:
            show(self, g, e)

    def _opening(self, g, e: OpeningEvent):
        for r in e.rolls[:-1]:
            self.say("opening_tie", w=r[0], b=r[1])
        if e.rolls:
            self.say("opening", w=e.rolls[-1][0], b=e.rolls[-1][1], who=self.who(e.starter))
        if e.dice:
            self.say("opening_dice", who=self.who(e.starter), dice=self.dice_text(e.dice))

    def _roll(self, g, e: RollEvent):
        if self.players[e.player].human:  # the computer's play line shows its dice
            self.say("roll_event", who=self.who(e.player), dice=self.dice_text(e.dice))

    def _play(self, g, e: PlayEvent):
        p = e.player
        text = self.t("play_event", who=self.who(p), dice=self.dice_text(e.dice), play=self.play_text(e.steps, p))
        board = self.board_play_text(g, e.steps, p)
        if board:
            text += self.t("play_on_board", play=board)
        self.out.line([(text, "bold" if not self.players[p].human else None)])
        if self.pending_eval:
            self.out.line(self.pending_eval, "dim")
            self.pending_eval = None

    def _resign(self, g, e: ResignEvent):
        pts = g.rules.scoring[e.level] * g.cube_value
        level = self.t.level_name(self.game_name, e.level)
        self.say("resign_event", who=self.who(e.player), level=level, points=self.t.points(pts), style="bold yellow")

    def result_text(self, r) -> str:
        """The result line of a game, from a :class:`~nardy.flow.game.GameResult` or an :class:`EndEvent`."""
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
        self.draw(g, force=True)
        self.say("game_over", style="bold")
        self.out.line(self.result_text(e), "bold green")
        s = self.match.score
        self.say("score_line", w=num_text(s[0]), b=num_text(s[1]))

    _EVENTS: dict[type, Callable[..., None]] = {
        OpeningEvent: _opening,
        RollEvent: _roll,
        PlayEvent: _play,
        ResignEvent: _resign,
        EndEvent: print_result,
    }

    def print_match_result(self):
        """The winner of a match that is over (nothing for one game)."""
        m = self.match
        if not self.single and m.winner is not None:
            s = m.score
            self.say("match_won", who=self.who(m.winner), w=num_text(s[0]), b=num_text(s[1]), style="bold green")

    # ----- lists and estimates ---------------------------------------------------------------------
    def print_plays(self, plays, side: int, most: int = 60) -> list:
        """The numbered list of ``plays`` (at most ``most``); returns the plays listed."""
        self.say("legal_plays")
        shown = plays[:most]
        for i, p in enumerate(shown, 1):
            self.out.line(f"  {i:>2}) {self.play_text(p.steps, side)}")
        if len(plays) > len(shown):
            self.say("legal_plays_more", n=len(plays) - len(shown))
        self.say("pick_number", style="dim")
        return shown

    def print_hints(self, hints, side: int):
        """The computer's best plays for ``side``, numbered, with their equities and losses."""
        t = self.t
        self.say("hint_header", who=t.colour_gen(side))
        for i, h in enumerate(hints, 1):
            loss = f"  ({-h.loss:+.3f})" if h.loss > 1e-9 else ""
            self.out.line(f"  {i:>2}) {self.play_text(h.play.steps, side):<28} {h.equity:+.3f}{loss}")
        if hints:
            pr = hints[0].probabilities  # after the play, from the mover's view
            self.say(
                "hint_probs",
                win=pct(pr.win),
                gammon_word=t.level_name(self.game_name, 1),
                gammon=pct(pr.array[1]),
                lose=pct(1 - pr.win),
                style="dim",
            )
        self.say("pick_number", style="dim")

    def print_estimate(self, probs, side: int, rules):
        """``side``'s chances (``probs`` from ``side``'s view) and equity."""
        t = self.t
        levels = ", ".join(
            f"{t.level_name(self.game_name, i)} {pct(probs.array[i])}" for i in range(1, len(rules.result_names))
        )
        equity = f"{probs.equity(rules.scoring):+.3f}"
        self.say("eval_line", who=self.who(side), win=pct(probs.win), levels=levels, equity=equity)

    def judgement(self, key: str, side: int, play, mine, best) -> str:
        """The computer's own play judged against the best (``key``: ``bot_eval`` under the play,
        ``eval_last_bot`` for ``eval``; ``KEY_best`` when it was the best)."""
        fields = {"play": self.play_text(play.steps, side), "equity": f"{mine.equity:+.3f}"}
        if mine.loss <= 1e-9:
            return self.t(key + "_best", **fields)
        return self.t(key, best=self.play_text(best.play.steps, side), best_equity=f"{best.equity:+.3f}", **fields)

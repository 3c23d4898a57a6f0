"""Why ``nardy play`` refused what the player typed, in the player's language and point numbering.

The engine refuses with an error code and params (:mod:`nardy.rules.errors`); :class:`Explainer` words them
through the message catalogue (:func:`nardy.texts.messages.describe`), labelling points in the player's
numbering. When the engine's refusal of a whole play says less than the first step that cannot be
taken, :func:`nardy.texts.refusals.step_refusal` finds the code for that step (the rule it breaks).
"""

from __future__ import annotations

import re

from ..rules.notation import dash_to_slash
from ..rules.numbering import Numbering
from ..texts.i18n import Texts
from ..texts.messages import describe
from ..texts.refusals import WHOLE_PLAY_CODES, step_refusal

__all__ = ["Explainer", "EXAMPLES"]

#: An example play for each game (own numbering), shown when a play cannot be read.
EXAMPLES = {"backgammon": "24/18 13/11", "short": "24/18 13/11", "long": "24/18 24/21"}

_COUNT_TAIL = re.compile(r"\(\d+\)$")


class Explainer:
    """Words refusals for one game in one language and numbering.

    Args:
        texts: the player's :class:`~nardy.texts.i18n.Texts`.
        numbering: the :class:`~nardy.rules.numbering.Numbering` points are shown in.
        game: ``backgammon``, ``short`` or ``long``.
    """

    def __init__(self, texts: Texts, numbering: Numbering, game: str):
        self.t = texts
        self.num = numbering
        self.game = game

    def refusal(self, code: str, params: dict | None, side: int) -> str:
        """A refusal (error code and params, :mod:`nardy.rules.errors`) worded from the message catalogue in the
        player's language, points labelled in ``side``'s chosen numbering."""
        return describe(
            code,
            params,
            self.t.lang,
            label=lambda p: self.num.label(side, p),
            relabel=lambda o: self.num.relabel(o, side),
            names=(self.t.colour(0), self.t.colour(1)),
        )

    def illegal(self, text: str, reason: str) -> str:
        """``Illegal play 'TEXT': REASON``."""
        return self.t("illegal", text=text, reason=reason)

    def example(self, side: int) -> str:
        """An example play for ``side`` in the chosen numbering."""
        ex = EXAMPLES[self.game]
        return ex if self.num.kind == "own" else self.num.relabel(ex, side)

    # ----- typed plays ---------------------------------------------------------------------------
    def bad_point(self, e) -> str:
        """A point label the numbering does not know (a :class:`~nardy.rules.errors.NotationError`)."""
        t = self.t
        exp = t("r_expected_traditional") if self.num.kind == "traditional" else t("r_expected_points")
        return t("r_bad_point", point=(e.text or "").strip(), expected=exp)

    def bad_notation(self, line: str, own: str, side: int) -> str:
        """A play that cannot be read: a step away from home, or else how plays are written."""
        key = "bad_notation_long" if self.game == "long" else "bad_notation"
        return self.backwards(line, own, side) or self.t(key, example=self.example(side))

    def backwards(self, line: str, own: str, side: int) -> str | None:
        """The reason for a typed play with a step away from home (own numbers must go down):
        ``line`` as typed, ``own`` the same in own numbering."""
        typed, mine = _points(line), _points(own)
        if len(typed) != len(mine):
            return None
        for i in range(len(mine) - 1):
            a, b = mine[i], mine[i + 1]
            if a.isdigit() and b.isdigit() and 0 < int(a) < int(b) < 25:
                return self.t(
                    "r_backwards", frm=typed[i], to=typed[i + 1], who=self.t.colour(side), path=self.path(side)
                )
        return None

    def path(self, side: int) -> str:
        """How ``side`` travels, in the chosen numbering (``24…1``; ``01…012, 12…1``)."""
        label = self.num.label
        if self.num.kind == "traditional" or (self.num.kind == "absolute" and side == 1):
            return f"{label(side, 24)}…{label(side, 13)}, {label(side, 12)}…{label(side, 1)}"
        return f"{label(side, 24)}…{label(side, 1)}"

    def whole_play(self, e, side: int) -> str | None:
        """The reason a whole play was refused, when its code says more than its first bad step
        (``the moves do not fit the dice``: the steps say which); else None."""
        if e.code not in WHOLE_PLAY_CODES:
            return None
        return self.refusal(e.code, e.params, side)

    def step(self, g, side: int, frm: int, to: int) -> str:
        """Why the single step ``frm/to`` (own numbering of ``side``) cannot be taken now."""
        code, params = step_refusal(g, frm, to)
        return self.refusal(code, params, side)

    # ----- commands at the wrong time ------------------------------------------------------------
    def phase(self, g) -> str:
        """Why a command of another phase cannot be given now: what the game waits for."""
        t = self.t
        if g.phase == "move":
            return t("double_only_before_roll")
        if g.phase == "double":
            return t("answer_first", choices=t("choices_take"))
        if g.phase == "resign":
            return t("answer_first", choices=t("choices_resign"))
        return t("no_steps_now")


def _points(play: str) -> list[str]:
    """The point labels of a play as written, in order (``24/18* 13/11(2)``: 24, 18, 13, 11)."""
    text = dash_to_slash(play.strip())
    return [p.rstrip("*") for tok in re.split(r"[\s,]+", text) if tok for p in _COUNT_TAIL.sub("", tok).split("/")]

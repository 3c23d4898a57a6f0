"""Why ``nardy play`` refused what the player typed, in the player's language and point numbering.

The engine refuses with an error code and params (:mod:`nardy.rules.errors`); :class:`Explainer` words them
through the message catalogue (:func:`nardy.texts.messages.describe`), labelling points in the player's
numbering. When the engine's refusal of a whole play says less than the first step that cannot be
taken, :func:`step_refusal` finds the code for that step (the rule it breaks); the rules stay the
game's: this is only used to explain a step the game has already refused.
"""

from __future__ import annotations

import re

from ..rules.notation import dash_to_slash
from ..texts.i18n import Texts
from ..texts.messages import describe
from .numbering import Numbering

__all__ = ["Explainer", "step_refusal", "WHOLE_PLAY_CODES", "FINAL_CODES", "EXAMPLES"]

#: An example play for each game (own numbering), shown when a play cannot be read.
EXAMPLES = {"backgammon": "24/18 13/11", "short": "24/18 13/11", "long": "24/18 24/21"}

#: Codes of a whole play's refusal that say more than the diagnosis of its first bad step.
WHOLE_PLAY_CODES = frozenset(
    {"fewer_dice", "no_checker", "no_checker_bar", "ambiguous_play", "must_play", "false_hit", "no_hitting"}
)
#: Codes of a whole play's refusal that its steps, taken one by one, must not get round (a false hit mark).
FINAL_CODES = frozenset({"false_hit", "no_hitting"})

_COUNT_TAIL = re.compile(r"\(\d+\)$")


class Explainer:
    """Words refusals for one game in one language and numbering.

    Args:
        texts: the player's :class:`~nardy.texts.i18n.Texts`.
        numbering: the :class:`~nardy.terminal.numbering.Numbering` points are shown in.
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


# ----- the rule a refused step breaks ----------------------------------------------------------------
def step_refusal(g, frm: int, to: int) -> tuple[str, dict]:
    """The code and params of the first rule the single step ``frm/to`` (mover's own points, 25 bar,
    0 off) breaks in game ``g`` after the steps taken so far; ``no_legal_play`` when no single rule
    says why (only used for a step :meth:`~nardy.flow.game.Game.step` has refused)."""
    a = g.partial_position.array.tolist()  # plain ints: the checks index it point by point
    hitting = g.rules.hitting
    left = g.dice_left
    for check in (_source, _dice, _landing if to > 0 else _bear_off, _nardy_rules):
        found = check(g, a, hitting, left, frm, to)
        if found is not None:
            return found
    return "no_legal_play", {}


def _source(g, a, hitting, left, frm, to):
    """No checker to move, or one on the bar that must enter first."""
    if frm == 25:
        if not hitting or a[25] <= 0:
            return "no_checker_bar", {}
    elif a[frm] <= 0:
        return "no_checker", {"point": frm}
    if hitting and a[25] > 0 and frm != 25:
        return "enter_first", {}
    return None


def _dice(g, a, hitting, left, frm, to):
    """Every die is used already."""
    return None if left else ("dice_fit", {"dice": list(g.dice)})


def _landing(g, a, hitting, left, frm, to):
    """A step on the board: the dice left must make the distance, the point must be open."""
    dist = frm - to
    if dist not in _subset_sums(left):
        return "distance", {"pips": dist, "dice": list(left), "from": frm, "to": to}
    if (hitting and a[to] <= -2) or (not hitting and a[to] < 0):
        return "closed_point", {"point": to}
    return None


def _bear_off(g, a, hitting, left, frm, to):
    """Bearing off: every checker must be home."""
    outside = range(7, 26) if hitting else range(7, 25)
    if any(a[p] > 0 for p in outside if p != frm) or (frm > 6):
        return "not_home", {"outside": int(sum(a[p] for p in outside if a[p] > 0))}
    return None


def _nardy_rules(g, a, hitting, left, frm, to):
    """Nardy: one checker from the head per turn; no six-block."""
    if hitting:
        return None
    if frm == 24 and any(s.frm == 24 for s in g.steps_taken):
        return "head_limit", {}
    if to > 0 and _six_block_after(a, frm, to):
        return "six_block", {}
    return None


def _subset_sums(dice) -> set:
    sums = set()
    n = len(dice)
    for mask in range(1, 1 << n):
        sums.add(sum(d for i, d in enumerate(dice) if mask >> i & 1))
    return sums


def _six_block_after(a, frm: int, to: int) -> bool:
    """Long nardy: whether the mover would hold six points in a row (along the opponent's route,
    which in the mover's numbering runs 12..1, 24..13) after moving a checker frm -> to; used only to
    explain a refused step."""
    b = [int(x) for x in a]
    b[frm] -= 1
    b[to] += 1
    route = list(range(12, 0, -1)) + list(range(24, 12, -1))
    run = 0
    for p in route:
        run = run + 1 if b[p] > 0 else 0
        if run >= 6:
            return True
    return False

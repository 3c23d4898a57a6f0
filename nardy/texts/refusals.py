"""Why a step was refused, as a code the message catalogue words (:mod:`nardy.texts.messages`), for every front
end: ``nardy play`` explains a refused typed step with it, the web page says why each blocked checker cannot move.

:func:`step_refusal` finds which rule a single step breaks first in a game after the steps taken so far (the
rules of docs/rules.md): the code and params of :mod:`nardy.rules.errors`. The rules stay the game's: this only
diagnoses a step the game (:meth:`nardy.flow.game.Game.step`) has already refused, to say why in words.
"""

from __future__ import annotations

from ..flow.entry import FINAL_CODES, WHOLE_PLAY_CODES

__all__ = ["step_refusal", "WHOLE_PLAY_CODES", "FINAL_CODES"]

# WHOLE_PLAY_CODES and FINAL_CODES are flow's (nardy.flow.entry), which enters typed plays; named here too.


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

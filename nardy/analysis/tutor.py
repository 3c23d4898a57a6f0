"""The tutor: judge a play before it is confirmed, as the analysis would judge it afterwards.

``Tutor(rules, level).check_play(match, play)`` ranks the plays of the match's current game for its
dice (the same search, cubeful values and thresholds as :mod:`nardy.analysis.core`) and returns a
:class:`Advice` when ``play`` loses at least ``warn_at`` (default: an error, 0.06 normalised equity), else
``None``. Front ends (``nardy play --tutor``) show the advice and ask before the play is made.
``game_summary(match, level)`` is the analysis of the match so far, for a summary after each game.
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import DEFAULT_ANALYSIS_LEVEL, Analyser
from .cubeful import _Ctx
from .results import THRESHOLDS, mark_of

__all__ = ["Tutor", "Advice", "match_summary_data"]


@dataclass
class Advice:
    """Why a play is doubtful: ``loss`` (normalised equity), ``mark`` (``doubtful``/``error``/``blunder``),
    ``best`` (the best :class:`~nardy.rules.position.Play`), ``played`` (the play judged)."""

    loss: float
    mark: str
    best: object
    played: object


class Tutor:
    """Warns before a play that loses at least ``warn_at`` (normalised equity) at ``level``.

    Args:
        rules: the game's rules (or name); level: an analysis level; warn_at: one of the marks of
            :data:`~nardy.analysis.core.THRESHOLDS` (``"doubtful"``, ``"error"``, ``"blunder"``) or a number.
    Raises:
        ValueError: unknown level or mark.
    """

    def __init__(self, rules, level: str = DEFAULT_ANALYSIS_LEVEL, warn_at="error"):
        self.analyser = Analyser(rules, level, candidates=3)
        marks = dict(THRESHOLDS)
        if isinstance(warn_at, str):
            if warn_at not in marks:
                raise ValueError(f"warn_at {warn_at!r}: expected one of {', '.join(marks)} or a number")
            warn_at = marks[warn_at]
        self.warn_at = float(warn_at)

    def check_play(self, match, play) -> Advice | None:
        """Judge ``play`` (a :class:`~nardy.rules.position.Play` of the current game's position and dice) by the
        player on turn in ``match``'s current game; ``None`` when it is good enough or forced."""
        g = match.current
        if g is None or g.phase != "move" or g.dice is None:
            return None
        i = len(match.games) - 1
        post = bool(match.length) and any(h.crawford for h in match.games[:i]) and not g.crawford
        ctx = _Ctx(match.rules, match.length, match.score_before(i), g, post)
        judged = self.analyser.checker(g.position, g.dice, ctx, g.turn, played=play)
        if judged["forced"] or judged["loss"] < self.warn_at - 1e-12:
            return None
        return Advice(judged["loss"], mark_of(judged["loss"]), judged["plays"][0][0], play)

    def check_cube(self, match, action: str) -> Advice | None:
        """Judge a cube action of the player who must act in ``match``'s current game before it is made:
        ``"double"`` (the player on roll, before rolling), ``"take"`` or ``"pass"`` (the doubled player, while
        the double waits). ``None`` when it is good enough; else an :class:`Advice` whose ``best`` is the right
        action (``"no double"``, ``"double"``, ``"take"``, ``"pass"``)."""
        g = match.current
        if g is None or action not in ("double", "take", "pass"):
            return None
        if (action == "double") != (g.phase == "roll") or (action != "double" and g.phase != "double"):
            return None
        i = len(match.games) - 1
        post = bool(match.length) and any(h.crawford for h in match.games[:i]) and not g.crawford
        ctx = _Ctx(match.rules, match.length, match.score_before(i), g, post)
        doubler = g.turn
        cd = self.analyser.cube(g.position, ctx, doubler)
        eqs = cd["equities"]
        dbl = min(eqs["double/take"], eqs["double/pass"])
        if action == "double":
            best = dbl if cd["double"] else eqs["no double"]
            loss = max(0.0, best - dbl) * ctx.scale(doubler)
            right = "double" if cd["double"] else "no double"
        else:
            chosen = eqs["double/take"] if action == "take" else eqs["double/pass"]
            loss = max(0.0, chosen - dbl) * ctx.scale(1 - doubler)
            right = "take" if cd["take"] else "pass"
        if loss < self.warn_at - 1e-12:
            return None
        return Advice(loss, mark_of(loss), right, action)


def match_summary_data(match, level: str = DEFAULT_ANALYSIS_LEVEL) -> dict:
    """The analysis of ``match`` so far (``MatchAnalysis.to_dict()``), for a summary after a game."""
    from .core import analyse_match

    return analyse_match(match, level=level).to_dict()

"""Hints for a game in progress: one path for every front end (the terminal's ``hint``, the web's hints).

:func:`hints_for` gives the side to act the best plays for its roll (phase ``move``), ranked by the bot's
search, except in long nardy's last roll (docs/rules.md "Long nardy"), where every play's result is known:
they are ranked exactly by :func:`nardy.rules.lastroll.last_roll_plays` (a draw, then the smallest loss), as
the bot plays them (:meth:`nardy.flow.bot.Bot.choose_play`). Before the roll or when a double waits, it gives
the cube decision (:meth:`nardy.flow.bot.Bot.cube_action`). Each front end words and shapes them itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.bot import Hint
from ..engine.evaluator import Probabilities
from ..rules.errors import GameStateError
from ..rules.lastroll import last_roll_plays
from .cubetheory import CubeDecision

__all__ = ["Hints", "ExactHint", "hints_for", "last_roll_hints"]


@dataclass
class ExactHint(Hint):
    """A play of long nardy's last roll with its exact result: ``outcome`` is ``(kind, level, points)`` of
    :func:`nardy.rules.lastroll.last_roll_result` (``"draw"``, or ``"lose"`` at level 0 oyn / 1 mars with
    minus its points, mover's view). ``equity`` is those points, ``loss`` the points given up against the best
    play, ``ply`` 0, ``probabilities`` the certain result (after the play, mover's view)."""

    outcome: tuple = ("draw", 0, 0)


@dataclass(frozen=True)
class Hints:
    """What :func:`hints_for` found for the side to act.

    Attributes:
        kind: ``"plays"`` (phase ``move``) or ``"cube"`` (phase ``roll`` or ``double``).
        player: the side the hint is for (0 White, 1 Black).
        plays: the best plays, best first (:class:`~nardy.engine.bot.Hint`; :class:`ExactHint` in the last roll).
        last_roll: the plays are long nardy's last roll, ranked exactly.
        cube: the cube decision (kind ``"cube"``).
    """

    kind: str
    player: int
    plays: list = field(default_factory=list)
    last_roll: bool = False
    cube: CubeDecision | None = None


def last_roll_hints(position, dice, rules, n: int = 5) -> list[ExactHint]:
    """The ``n`` best plays of long nardy's last roll, exactly ranked (:func:`~nardy.rules.lastroll.last_roll_plays`),
    as :class:`ExactHint`. Raises GameStateError for a position that is not a last roll."""
    ranked = last_roll_plays(position, dice, rules)[:n]
    if not ranked:
        return []
    best = ranked[0][1][2]
    hints = []
    for play, (kind, level, pts) in ranked:
        lose = kind == "lose"
        probs = Probabilities(rules.name, [0.0, 0.0, float(lose and level >= 1)])
        hints.append(ExactHint(play, probs, pts, 0, best - pts, outcome=(kind, level, pts)))
    return hints


def hints_for(game, bot, n: int = 5, match=None, deadline=None) -> Hints:
    """The hint for the side to act in ``game`` (a :class:`nardy.flow.game.Game`) from ``bot`` (a
    :class:`nardy.flow.bot.Bot` of the game's rules).

    Args:
        n: how many plays (phase ``move``).
        match: the :class:`nardy.flow.match.Match` whose score the cube decision counts (default: money, the
            game's cube).
        deadline: a :class:`~nardy.engine.search.Deadline` bounding the search of plays (``deadline.hit`` says
            whether it cut it short).
    Raises:
        GameStateError: ``no_hint`` (params ``phase``) outside phases ``move``, ``roll`` and ``double``.
    """
    if game is None or game.phase not in ("move", "roll", "double"):
        phase = str(game.phase) if game else None
        raise GameStateError(
            f"no hint in phase {phase!r}: hints are for a roll or a double", code="no_hint", params={"phase": phase}
        )
    if game.phase == "move":
        if game.in_last_roll:
            return Hints("plays", game.turn, last_roll_hints(game.position, game.dice, game.rules, n), last_roll=True)
        return Hints("plays", game.turn, bot.hints(game.position, game.dice, n=n, deadline=deadline))
    return Hints("cube", game.to_act, cube=bot.cube_action(match if match is not None else game))

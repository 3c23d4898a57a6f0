"""Long nardy's last roll (option ``last-roll``, docs/rules.md "Long nardy", scoring): when the player who moved
first has borne off all 15 checkers, the other has one more roll; bearing off all the rest with it draws the
game. The position of that roll, its plays with their exact results, and the odds of the 36 rolls.
"""

from __future__ import annotations

from .errors import GameStateError
from .position import Play, Position
from .scoring import result_kind
from .variants import Rules

__all__ = ["last_roll_position", "last_roll_result", "last_roll_plays", "last_roll_odds", "LastRollPosition"]


class LastRollPosition(Position):
    """A long nardy position after the starter bore off the last checker, for the other player's
    one more roll (option ``last-roll``): plays are generated although a side has 15 off."""

    __slots__ = ()

    def is_game_over(self) -> bool:
        return bool(self.array[0] == 15)


def last_roll_position(position: Position) -> Position:
    """Long nardy's last roll (option ``last-roll``, docs/rules.md "Long nardy", scoring): ``position``
    (mover's view) where the opponent, who moved first, has borne off all 15 checkers and the mover has
    not, as a position whose legal plays are generated for the mover's one more roll (as a plain
    :class:`Position` it is a finished game). Bearing off all the rest with that roll draws the game.

    Raises:
        GameStateError: not long nardy, or not such a position.
    """
    a = position.array
    if position.rules.hitting or a[27] != 15 or a[0] == 15:
        raise GameStateError(
            f"position {position.id()}: a last roll is long nardy's, for the side on roll when the other side "
            "has borne off all 15 checkers and it has not"
        )
    return LastRollPosition(position._b, position.rules, position.first_turn)


def last_roll_result(rules: Rules, play: Play) -> tuple[str, int, float]:
    """The result of ``play``, a play of long nardy's last roll (:func:`last_roll_position`), for its mover:
    ``("draw", 0, 0.0)`` when it bears off all the rest (both sides score the same: ½ or 1, option
    ``last-roll``), else ``("lose", level, -points)``: oyn (level 0) when a checker is off, mars (1) when none
    is (docs/rules.md long nardy scoring; points from ``rules.scoring``)."""
    res = play.result
    if res.array[0] == 15:
        return "draw", 0, 0.0
    level = result_kind(rules, res.mover)
    return "lose", level, -float(rules.scoring[level])


def last_roll_plays(position: Position, dice, rules: Rules | None = None) -> list[tuple[Play, tuple[str, int, float]]]:
    """The plays of long nardy's last roll with their exact results (:func:`last_roll_result`), best first
    (a draw, then the smallest loss; the generator's order among equals).

    Args:
        position: the last-roll position, mover's view (a plain one is accepted: see
            :func:`last_roll_position`).
        dice: the roll.
        rules: the rules whose scoring counts (default the position's).
    Raises:
        GameStateError: not a last-roll position; InvalidDiceError: bad dice.
    """
    lr = position if isinstance(position, LastRollPosition) else last_roll_position(position)
    rules = rules or position.rules
    ranked = [(p, last_roll_result(rules, p)) for p in lr.legal_plays(dice)]
    ranked.sort(key=lambda t: -t[1][2])
    return ranked


def last_roll_odds(position: Position, rules: Rules | None = None) -> dict:
    """Exact odds of long nardy's last roll for the side on roll (its best play for each of the 36 rolls):
    ``{"draw": P(draw), "lose": {level name: P(losing at exactly that level)}, "equity": expected points (a
    draw counts 0: both sides score the same)}``.

    Raises:
        GameStateError: not a last-roll position.
    """
    rules = rules or position.rules
    draw = 0.0
    lose = dict.fromkeys(rules.result_names, 0.0)
    equity = 0.0
    for a in range(1, 7):
        for b in range(a, 7):
            w = (1 if a == b else 2) / 36
            kind, level, pts = last_roll_plays(position, (a, b), rules)[0][1]
            if kind == "draw":
                draw += w
            else:
                lose[rules.result_names[level]] += w
            equity += w * pts
    return {"draw": draw, "lose": lose, "equity": equity}

"""The kind of result of a won game, from the loser's checkers (each game's scoring section of docs/rules.md).

The kinds of each game are ``rules.result_names`` (backgammon single/gammon/backgammon, short nardy
oyun/mars/home mars/koks, long nardy oyn/mars); a kind's points are ``rules.scoring[kind]`` times the cube.
"""

from __future__ import annotations

from .variants import Rules

__all__ = ["result_kind"]


def result_kind(rules: Rules, loser) -> int:
    """The kind of result of a game just won (its index in ``rules.result_names``; its points:
    ``rules.scoring``), from the loser's checkers (docs/rules.md scoring).

    Args:
        rules: the game's rules.
        loser: the loser's 26 counts in the loser's own numbering (``[0]`` off, ``[25]`` bar).
    Returns:
        Backgammon: 0 single (the loser has borne off a checker), 1 gammon, 2 backgammon (no checker
        off and one on the bar or in the winner's home board, the loser's 19-24). Short nardy: 0 oyun
        (a checker off, whatever happened after), else 3 koks (a checker on the bar), 1 mars (all in
        the loser's home), 2 home mars. Long nardy: 0 oyn, 1 mars.
    """
    if loser[0] > 0:
        return 0
    if rules.name == "backgammon":
        return 2 if loser[25] > 0 or any(loser[p] for p in range(19, 25)) else 1
    if rules.name == "short":
        if loser[25] > 0:
            return 3
        return 2 if any(loser[p] for p in range(7, 25)) else 1
    return 1

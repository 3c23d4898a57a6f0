"""The check of a set-up position: everything that makes a position (with its dice, cube and score) impossible.

A position editor (the web page's, ``POST /api/positions/check``) lets a person put any number of checkers
anywhere; :func:`setup_problems` names each thing that no game played by the rules could reach, each with a
code and an English detail, so that every front end shows the same verdict. :func:`setup_position` turns a
set-up with no problem into a :class:`~nardy.rules.position.Position`.

The rules checked, each with the section of the rules it comes from in parentheses:

* ``checker_count`` (Board, points, views): each side has 15 checkers, counting its bar and borne-off ones;
  ``negative_count``: a count below zero.
* ``both_sides_on_point`` (Rules shared by all three games, rule 2): a point holds checkers of one side only.
* ``bar_in_long_nardy`` (Long nardy: no hitting, no bar): long nardy has no bar.
* ``both_borne_off`` / ``mover_finished`` / ``opponent_finished`` (rule 6: the game ends the moment a side
  bears off its last checker): nothing is left to play. (Long nardy's ``last-roll`` option, where the
  other side has one more roll, is not a position set up here: ``/api/move`` takes ``last_roll``.)
* ``six_block`` (Long nardy, six-block rule): six or more consecutive points of one side with no opponent
  checker ahead of them cannot be made, and no checker can pass them afterwards.
* ``dice_range`` (rule 1): each die 1..6.
* ``cube_value`` (Doubling cube): a power of two, 1 to 2**12; ``cube_owner``: centred, 0 or 1;
  ``cube_in_long_nardy``: the editor's long nardy is played without the cube (its default), so the cube
  is 1 and centred; ``cube_in_crawford``: nobody doubles in the Crawford game, so its cube is 1 and centred.
* ``score_negative`` / ``length_negative`` / ``score_not_below_length`` / ``score_in_money`` /
  ``crawford_needs_match`` / ``crawford_score`` (Doubling cube and matches): a match score is below the
  length (money play has no score), and the Crawford game is a match game with exactly one side at
  length - 1.

docs/rules.md "Set-up positions" lists the same codes.

Boards are each side's checkers in its own numbering, 26 counts: ``[0]`` borne off, ``[1..24]`` points,
``[25]`` bar (:meth:`~nardy.rules.position.Position.from_boards`). :func:`boards_from_points` reads wildbg's
signed form (one count per point from the mover's view) into that shape.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .errors import InvalidPositionError
from .numbering import opponent_point
from .position import Position
from .variants import Rules, get_rules

__all__ = ["SetupProblem", "Setup", "setup_problems", "setup_position", "boards_from_points", "MAX_CUBE"]

#: The largest cube value a set-up may show (4096: XGID's own limit is 2**15, no real game comes near).
MAX_CUBE = 4096


@dataclass(frozen=True)
class SetupProblem:
    """One impossible thing: ``code`` (snake_case, see the module docstring) and ``detail`` (English)."""

    code: str
    detail: str
    #: the values the code's message needs (``side``: ``"mover"``/``"opponent"``, counts, points...)
    params: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"code": self.code, "detail": self.detail, "params": dict(self.params)}


@dataclass(frozen=True)
class Setup:
    """A set-up to check: the game, both boards (own numbering, 26 counts each), the roll, cube and score.

    Attributes:
        rules: a :class:`~nardy.rules.variants.Rules` or a game name.
        mover, opponent: 26 counts each: ``[0]`` borne off, ``[1..24]`` points, ``[25]`` bar.
        dice: the roll to play, or ``None`` (the mover is to roll).
        cube: cube value; cube_owner: ``None`` centred, 0 the mover, 1 the opponent.
        score: ``(mover, opponent)`` points; length: match length, 0 money; crawford: the Crawford game.
    """

    rules: Rules | str
    mover: Sequence[int]
    opponent: Sequence[int]
    dice: tuple[int, int] | None = None
    cube: int = 1
    cube_owner: int | None = None
    score: tuple[int, int] = (0, 0)
    length: int = 0
    crawford: bool = False


def boards_from_points(points: Sequence[int], rules: Rules | str, off: Sequence[int] | None = None):
    """``(mover, opponent)`` boards (own numbering, 26 counts) from wildbg's signed form.

    Args:
        points: 26 ints: ``[1..24]`` the points from the mover's view (positive the mover's checkers,
            negative the opponent's), ``[25]`` the mover's bar (0 or more), ``[0]`` the opponent's bar
            (0 or less, as wildbg writes it; its size is taken).
        off: ``(mover, opponent)`` borne-off counts; ``None``: whatever the board leaves of 15 (never below 0).
    Raises:
        InvalidPositionError: not 26 whole numbers, or ``off`` not two.
    """
    rules = get_rules(rules)
    if len(points) != 26 or any(isinstance(v, bool) or not isinstance(v, int) for v in points):
        raise InvalidPositionError(f"points {list(points)!r}: expected 26 whole numbers (wildbg's p0..p25)")
    mover, opp = [0] * 26, [0] * 26
    for p in range(1, 25):
        v = points[p]
        if v > 0:
            mover[p] = v
        elif v < 0:
            opp[opponent_point(p, rules.hitting)] = -v
    mover[25] = points[25]
    opp[25] = abs(points[0])
    if off is None:
        mover[0] = max(0, 15 - sum(mover[1:]))
        opp[0] = max(0, 15 - sum(opp[1:]))
    else:
        if len(off) != 2:
            raise InvalidPositionError(f"off {list(off)!r}: expected two counts (mover, opponent)")
        mover[0], opp[0] = int(off[0]), int(off[1])
    return mover, opp


def _runs(points: set[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive numbers in ``points`` as ``(high, low)``."""
    runs, todo = [], sorted(points, reverse=True)
    i = 0
    while i < len(todo):
        j = i
        while j + 1 < len(todo) and todo[j + 1] == todo[j] - 1:
            j += 1
        runs.append((todo[i], todo[j]))
        i = j + 1
    return runs


def _six_blocks(builder: list[int], other: list[int], name: str, other_name: str) -> list[SetupProblem]:
    """Long nardy's six-block rule: ``builder``'s runs of six or more points along ``other``'s route with no
    ``other`` checker ahead of them (past the run's last point, or borne off)."""
    # the builder's points in the other side's numbering: consecutive there is consecutive on its route
    held = {opponent_point(p, False) for p in range(1, 25) if builder[p] > 0}
    out = []
    for high, low in _runs(held):
        if high - low + 1 < 6:
            continue
        ahead = other[0] > 0 or any(other[q] > 0 for q in range(1, low))
        if not ahead:
            out.append(
                SetupProblem(
                    "six_block",
                    f"the {name} holds {high - low + 1} points in a row (the {other_name}'s {high} to {low}) with no "
                    f"{other_name} checker ahead of them: long nardy's six-block rule forbids making such a block",
                    {"side": name, "n": high - low + 1},
                )
            )
    return out


def setup_problems(s: Setup) -> list[SetupProblem]:
    """Every impossible thing about the set-up ``s`` (empty when it can be played on), in a fixed order:
    the boards first, then the dice, the cube and the score. Codes and rules: the module docstring."""
    rules = get_rules(s.rules)
    out: list[SetupProblem] = []
    names = ("mover", "opponent")
    boards = []
    for name, side in zip(names, (s.mover, s.opponent)):
        vals = [int(v) for v in side]
        if len(vals) != 26:
            raise InvalidPositionError(f"{name} board {list(side)!r}: expected 26 counts (off, points 1-24, bar)")
        boards.append(vals)
        if any(v < 0 for v in vals):
            out.append(SetupProblem("negative_count", f"the {name} has a negative count of checkers", {"side": name}))
            continue
        n = sum(vals)
        if n != 15:
            out.append(
                SetupProblem(
                    "checker_count",
                    f"the {name} has {n} checkers counting the bar and those borne off ({vals[25]} on the bar, "
                    f"{vals[0]} off): each side has 15",
                    {"side": name, "n": n},
                )
            )
    m, o = boards
    for p in range(1, 25):
        q = opponent_point(p, rules.hitting)
        if m[p] > 0 and o[q] > 0:
            out.append(
                SetupProblem(
                    "both_sides_on_point",
                    f"the mover's point {p} (the opponent's {q}) holds checkers of both sides",
                    {"point": p},
                )
            )
    if not rules.hitting:
        for name, side in zip(names, boards):
            if side[25] > 0:
                out.append(
                    SetupProblem(
                        "bar_in_long_nardy",
                        f"the {name} has {side[25]} on the bar: long nardy has no bar",
                        {"side": name, "n": side[25]},
                    )
                )
    if m[0] == 15 and o[0] == 15:
        out.append(SetupProblem("both_borne_off", "both sides have borne off all 15 checkers"))
    elif m[0] == 15:
        out.append(SetupProblem("mover_finished", "the side on roll has already borne off all 15: the game is over"))
    elif o[0] == 15:
        out.append(SetupProblem("opponent_finished", "the opponent has already borne off all 15: the game is over"))
    counts_ok = not any(p.code in ("negative_count", "checker_count", "both_sides_on_point") for p in out)
    if not rules.hitting and counts_ok:
        out += _six_blocks(m, o, "mover", "opponent") + _six_blocks(o, m, "opponent", "mover")
    if s.dice is not None:
        if len(s.dice) != 2 or not all(1 <= int(d) <= 6 for d in s.dice):
            out.append(
                SetupProblem("dice_range", f"dice {list(s.dice)!r}: two dice, each 1 to 6", {"dice": list(s.dice)})
            )
    if s.cube < 1 or s.cube & (s.cube - 1) or s.cube > MAX_CUBE:
        out.append(
            SetupProblem(
                "cube_value",
                f"cube value {s.cube}: a power of two from 1 to {MAX_CUBE}",
                {"cube": s.cube, "most": MAX_CUBE},
            )
        )
    if s.cube_owner not in (None, 0, 1):
        out.append(SetupProblem("cube_owner", f"cube owner {s.cube_owner!r}: centred, the mover or the opponent"))
    if rules.name == "long" and (s.cube != 1 or s.cube_owner is not None):
        out.append(SetupProblem("cube_in_long_nardy", "long nardy is set up without the doubling cube: 1, centred"))
    a, b = s.score
    if a < 0 or b < 0:
        out.append(SetupProblem("score_negative", f"score {a}-{b}: points are 0 or more"))
    if s.length < 0:
        out.append(SetupProblem("length_negative", f"match length {s.length}: 0 (money) or more"))
    elif s.length == 0:
        if a or b:
            out.append(SetupProblem("score_in_money", f"score {a}-{b} with no match length: money play has no score"))
        if s.crawford:
            out.append(
                SetupProblem("crawford_needs_match", "the Crawford game is a game of a match (length 1 or more)")
            )
    else:
        if a >= s.length or b >= s.length:
            out.append(
                SetupProblem(
                    "score_not_below_length",
                    f"score {a}-{b} in a {s.length}-point match: the match would be over "
                    f"(each score is below {s.length})",
                    {"score": f"{a}-{b}", "length": s.length},
                )
            )
        elif s.crawford and [a, b].count(s.length - 1) != 1:
            out.append(
                SetupProblem(
                    "crawford_score",
                    f"score {a}-{b} in a {s.length}-point match: the Crawford game has exactly one side "
                    f"at {s.length - 1}",
                    {"score": f"{a}-{b}", "length": s.length},
                )
            )
    if s.crawford and (s.cube != 1 or s.cube_owner is not None):
        out.append(SetupProblem("cube_in_crawford", "nobody doubles in the Crawford game: the cube is 1, centred"))
    return out


def setup_position(s: Setup) -> Position:
    """The position of a set-up with no problem (mover's view; long nardy's first-turn flags inferred).

    Raises:
        InvalidPositionError: the set-up has problems (:func:`setup_problems`); ``params["problems"]``
            lists them as dicts and the code is the first one's.
    """
    problems = setup_problems(s)
    if problems:
        raise InvalidPositionError(
            "; ".join(p.detail for p in problems),
            code=problems[0].code,
            params={"problems": [p.to_dict() for p in problems]},
        )
    return Position.from_boards(list(s.mover), list(s.opponent), get_rules(s.rules))

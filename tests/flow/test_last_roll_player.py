"""Long nardy's last roll is played exactly by the computer (docs/rules.md "Long nardy", the last roll; issue 42:
one path for the last roll): a :class:`~nardy.flow.bot.Bot` given the game's last-roll position plays the best
of :func:`~nardy.rules.lastroll.last_roll_plays`, the ranking the hints show, not the net's choice."""

from __future__ import annotations

import random

import pytest

from nardy.flow.bot import Bot
from nardy.rules.lastroll import LastRollPosition, last_roll_plays, last_roll_result
from nardy.rules.position import Position
from nardy.rules.variants import get_rules

RULES = get_rules("long", last_roll="half")
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def last_roll_positions(n: int, seed: int) -> list[LastRollPosition]:
    """``n`` last-roll positions: the opponent has borne off all 15, the mover has 0-13 off and the rest home or
    just outside it (own points 1-10)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        off = rng.choice([0, 0, 5, 10, 12, 13])
        mover = [0] * 26
        mover[0] = off
        for _ in range(15 - off):
            mover[rng.choice([1, 2, 3, 4, 5, 5, 6, 6, 7, 8, 9, 10])] += 1
        opponent = [15] + [0] * 25
        pos = Position.from_boards(mover, opponent, game="long")
        out.append(LastRollPosition(pos._b, RULES, pos.first_turn))
    return out


@pytest.mark.parametrize("level", ["advanced", "grandmaster"])
def test_the_computer_plays_the_last_roll_as_the_exact_ranking_does(level):
    bot = Bot(RULES, level=level, seed=1)
    for lr in last_roll_positions(12, seed=3):
        for dice in ROLLS:
            best = last_roll_plays(lr, dice, RULES)[0][0]
            chosen = bot.choose_play(lr, dice)
            assert chosen.result.id() == best.result.id(), (lr.id(), dice, str(chosen), str(best))
            assert last_roll_result(RULES, chosen) == last_roll_result(RULES, best)


def test_the_random_level_still_plays_the_last_roll_at_random():
    lr = last_roll_positions(1, seed=3)[0]  # 11 plays of 6-5
    bot = Bot(RULES, level="random", seed=2)
    legal = {p.result.id() for p in lr.legal_plays((6, 5))}
    plays = {bot.choose_play(lr, (6, 5)).result.id() for _ in range(40)}
    assert len(legal) > 2 and plays <= legal and len(plays) > 1  # not always the exact ranking's first

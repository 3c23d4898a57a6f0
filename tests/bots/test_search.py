"""Search: winning bear-offs, ranking consistency, n-ply evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from nardy import Position
from nardy.bots import Bot
from nardy.bots.search import ROLL_WEIGHTS, ROLLS21, Searcher

GAMES = ("backgammon", "short", "long")


def _near_end(game):
    # mover: checkers on own 6 and 2; opponent: one checker left on its 1-point (wins next turn)
    m = [13, 0, 1, 0, 0, 0, 1] + [0] * 19
    o = [14, 1] + [0] * 24
    return Position.from_boards(m, o, game)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", ["advanced", "expert", "grandmaster"])
def test_search_picks_the_winning_bear_off(game, level):
    pos = _near_end(game)
    plays = pos.legal_plays((6, 4))
    assert len(plays) > 1
    bot = Bot(game, level=level)
    play = bot.choose_play(pos, (6, 4))
    assert play.result.array[0] == 15
    hints = bot.hints(pos, (6, 4), n=3)
    assert hints[0].play == play and hints[0].loss == 0.0
    assert hints[0].probabilities.win == 1.0


def test_ply_rolls_and_weights():
    assert len(ROLLS21) == 21
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("game", GAMES)
def test_hints_sorted_and_match_choice(game):
    pos = Position.start(game)
    bot = Bot(game, level="advanced")
    hints = bot.hints(pos, (5, 3), n=10)
    eqs = [h.equity for h in hints]
    assert eqs == sorted(eqs, reverse=True)
    assert bot.choose_play(pos, (5, 3)) == hints[0].play
    assert all(h.play in pos.legal_plays((5, 3)) for h in hints)


def test_one_ply_is_the_average_over_rolls():
    game = "backgammon"
    bot = Bot(game, level="expert")
    s: Searcher = bot.searcher
    pos = Position.start(game)
    one = s.evaluate_positions(pos.array.reshape(1, 28), None, 1)[0]
    # by hand: for each roll the best 0-ply play, averaged
    acc = np.zeros_like(one, dtype=np.float64)
    for (a, b), w in zip(ROLLS21, ROLL_WEIGHTS):
        res = pos.legal_results((int(a), int(b)))
        vals = s.result_values(res, np.zeros(len(res), bool))
        acc += w * vals[int(np.argmax(s.equity(vals)))]
    assert np.allclose(one, acc, atol=1e-5)


def test_two_ply_runs_in_a_bearoff_exactly():
    # in a pure bear-off the database is exact, so deeper plies agree closely with 0-ply
    m = [9, 1, 1, 1, 1, 1, 1] + [0] * 19
    pos = Position.from_boards(m, list(m), "backgammon")
    s = Bot("backgammon").searcher
    b = pos.array.reshape(1, 28)
    p0 = s.evaluate_positions(b, None, 0)[0]
    p2 = s.evaluate_positions(b, None, 2)[0]
    assert abs(p0[0] - p2[0]) < 0.01


@pytest.mark.parametrize("game,kept", [("backgammon", 5), ("short", 3)])
def test_two_ply_searches_the_games_filtered_candidates(game, kept):
    # opening 4-3 has many plays close together at 1-ply: backgammon's 1-ply filter keeps 5 for 2-ply
    # (measured to lose less equity than 3), the nardy games keep 3 (their 2-ply is slower)
    bot = Bot(game, level="grandmaster")
    cands = bot.searcher.rank(Position.start(game), (4, 3), ply=2)
    assert bot.searcher.filters[1][0] == kept
    assert [c.ply for c in cands[:kept + 1]] == [2] * kept + [1]
    assert Bot("long").searcher.filters[1] == (3, 0.06)

"""The Bot: legal plays only, levels, determinism, interface."""

from __future__ import annotations

import numpy as np
import pytest

import nardy
from nardy import Position
from nardy.flow.bot import BOT_LEVELS, DEFAULT_LEVEL, STRONGEST_LEVEL, Bot, HeuristicBot, RandomBot

GAMES = ("backgammon", "short", "long")


def _play_game(game, bots, seed, max_plies=400):
    rng = np.random.default_rng(seed)
    pos = Position.start(game)
    for ply in range(max_plies):
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        bot = bots[ply % 2]
        play = bot.choose_play(pos, dice)
        assert play in pos.legal_plays(dice)
        nxt = play.result
        if nxt.is_game_over():
            return ply
        pos = nxt.mirror()
    return max_plies


@pytest.mark.parametrize("game", GAMES)
def test_bots_only_make_legal_plays(game):
    bots = [Bot(game, level="beginner", seed=1), Bot(game, level="advanced", seed=2)]
    _play_game(game, bots, seed=3)
    _play_game(game, [RandomBot(game, seed=4), HeuristicBot(game)], seed=5)


@pytest.mark.parametrize("game", GAMES)
def test_strong_levels_legal_on_a_few_moves(game):
    rng = np.random.default_rng(7)
    pos = Position.start(game)
    bot = Bot(game, level="expert")
    for _ in range(6):
        dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        play = bot.choose_play(pos, dice)
        assert play in pos.legal_plays(dice)
        pos = play.result.mirror()


def test_levels_and_names():
    # weakest first; the strongest (3-ply champion) is not the default of Bot, which stays the 2-ply grandmaster
    assert STRONGEST_LEVEL == "champion" == list(BOT_LEVELS)[-1] and BOT_LEVELS["champion"] == (3, 0.0)
    assert DEFAULT_LEVEL == "grandmaster" and BOT_LEVELS["grandmaster"] == (2, 0.0)
    assert list(BOT_LEVELS)[:2] == ["random", "heuristic"]
    with pytest.raises(ValueError):
        Bot("backgammon", level="godlike")
    assert nardy.Bot is Bot
    b = Bot("long-nardy")
    assert b.game == "long" and b.level == "grandmaster"


def test_seeded_bots_are_deterministic():
    pos = Position.start("backgammon")
    a = [str(Bot("backgammon", level="beginner", seed=9).choose_play(pos, (4, 2))) for _ in range(3)]
    assert len(set(a)) == 1
    r1 = RandomBot("short", seed=3)
    r2 = RandomBot("short", seed=3)
    assert [str(r1.choose_play(pos.__class__.start("short"), (6, 6))) for _ in range(4)] == [
        str(r2.choose_play(pos.__class__.start("short"), (6, 6))) for _ in range(4)
    ]


def test_forced_and_finished():
    pos = Position.start("long")
    bot = Bot("long", level="grandmaster")
    plays = pos.legal_plays((6, 6))
    assert len(plays) == 1 and bot.choose_play(pos, (6, 6)) == plays[0]
    with pytest.raises(ValueError):
        Bot("short").choose_play(pos, (3, 1))  # another game's position


def test_evaluate_returns_named_probabilities():
    p = Bot("backgammon", level="advanced").evaluate(Position.start("backgammon"))
    assert 0.3 < p.win < 0.7
    assert set(p.as_dict()) >= {"win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon"}
    assert -1 < p.equity() < 1


def test_hints_are_all_at_full_depth_and_ordered():
    from nardy import Bot, Position

    hs = Bot("backgammon", level="expert").hints(Position.from_id("4PPIATDgc/ABMA"), (5, 2), 5)
    assert len(hs) == 5 and all(h.ply == 1 for h in hs)
    assert [h.equity for h in hs] == sorted((h.equity for h in hs), reverse=True)
    assert hs[0].loss == 0 and all(h.loss >= 0 for h in hs)

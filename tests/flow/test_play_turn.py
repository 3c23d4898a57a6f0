"""A computer player's whole turn from Python: ``bot.take_turn(game)`` / ``game.play_turn(bot)``."""

from __future__ import annotations

import pytest

from nardy import Bot
from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.rules.dice import DiceSource, FixedDice
from nardy.rules.errors import GameStateError


@pytest.mark.parametrize("name", ["backgammon", "short", "long"])
def test_a_bot_against_bot_game_is_a_loop_of_take_turn(name):
    game = Game(name, dice=DiceSource(seed=11))
    bots = (Bot(name, level="random", seed=1), Bot(name, level="heuristic", seed=2))
    assert bots[0].take_turn(game) == [("start", None)]
    turns = 0
    while not game.is_over:
        side = game.to_act
        done = bots[side].take_turn(game)
        assert done and game.to_act != side or game.is_over or done[-1][0] in ("take", "decline")
        turns += 1
        assert turns < 2000
    assert game.result is not None and game.result.points >= 1
    plays = [e for e in game.history if e.type == "play"]
    assert game.result.reason != "bear-off" or len(plays) > 20


def test_the_turn_rolls_and_plays_for_the_player_on_roll():
    game = Game("long", dice=FixedDice([(5, 3), (6, 6)]))
    game.start(starter=0)  # long nardy's opening: the starter rolls
    bot = Bot("long", level="heuristic", seed=1)
    first = game.play_turn(bot)
    assert [a for a, _ in first] == ["roll", "play"] and first[0][1] == (5, 3)
    assert game.turn == 1 and game.phase == "roll"
    second = bot.take_turn(game)
    assert [a for a, _ in second] == ["roll", "play"] and second[0][1] == (6, 6)
    assert str(second[1][1]) == "24/18(2)"  # long nardy's 6-6 on the first turn: two from the head


def test_a_double_waits_for_the_other_bot_to_answer():
    game = Game("backgammon", dice=DiceSource(seed=4))
    game.start()
    while game.phase != "roll":
        Bot("backgammon", level="random", seed=1).take_turn(game)
    doubler = game.turn
    done = game.play_turn(_always_double())
    assert done == [("double", 2)] and game.phase == "double" and game.to_act == 1 - doubler
    answer = Bot("backgammon", level="advanced", seed=3).take_turn(game)
    assert answer[0][0] in ("take", "drop")
    if answer[0][0] == "take":
        assert game.cube_value == 2 and game.cube_owner == 1 - doubler and game.to_act == doubler
    else:
        assert game.is_over and game.result.winner == doubler and game.result.points == 1


def _always_double():
    class AlwaysDouble(Bot):
        def cube_action(self, state, *args, **kwargs):
            import dataclasses

            return dataclasses.replace(super().cube_action(state, *args, **kwargs), double=True)

    return AlwaysDouble("backgammon", level="random", seed=5)


def test_a_resignation_is_answered_by_the_bot_on_its_equity():
    game = Game("short", dice=DiceSource(seed=2))
    game.start()
    game.resign("koks", player=game.to_act)  # 8 points: more than the game is worth to the other side
    done = Bot("short", level="advanced", seed=1).take_turn(game)
    assert done[0][0] == "accept" and game.is_over and game.result.points == 8


def test_cube_decisions_use_the_match_score_when_given():
    m = Match("backgammon", length=1, dice=DiceSource(seed=6))  # a 1-point match: nobody should double
    g = m.new_game(start=True)
    bots = (Bot("backgammon", level="advanced", seed=1), Bot("backgammon", level="advanced", seed=2))
    for _ in range(30):
        if g.is_over:
            break
        for action, _ in bots[g.to_act].take_turn(g, m):
            assert action != "double"


def test_take_turn_on_a_finished_game_says_so():
    game = Game("backgammon", dice=DiceSource(seed=1))
    game.start()
    game.resign(0, player=game.to_act)
    game.accept_resignation()
    with pytest.raises(GameStateError, match="the game is over"):
        Bot("backgammon", level="random").take_turn(game)


def test_the_text_board_uses_the_terminals_letters_for_each_side():
    from nardy import Position
    from nardy.rules.boardtext import GLYPHS, board_text
    from nardy.rules.numbering import Numbering
    from nardy.terminal.board import GLYPHS as TERMINAL_GLYPHS
    from nardy.terminal.board import board_lines, plain

    assert GLYPHS == TERMINAL_GLYPHS == ("O", "X")
    p = Position.from_id("4HPwATDgc/ABMA")
    for mover in (0, 1):
        text = board_text(p, mover=mover).splitlines()
        term = [plain(ln) for ln in board_lines(p, mover, Numbering("own", "backgammon"))]
        assert text[2] == term[2]  # the top row of checkers: the same letters in the same places
        assert text[-1].split()[1:3] == [GLYPHS[mover], ("White", "Black")[mover]]
    game = Game("backgammon", dice=FixedDice([(3, 1)]))
    game.start(starter=1, dice=(3, 1))  # Black on roll: Black's checkers are X in str(game)
    assert "X Black (on roll)" in str(game)

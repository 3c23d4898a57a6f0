"""The table takes its players (issue 42): the computer's side is played by what the caller's factory gives
(:data:`nardy.flow.players.ComputerPlayers`), any :class:`~nardy.flow.players.Player`; the table makes none."""

from __future__ import annotations

import pytest

from nardy.flow.bot import Bot, bot_player
from nardy.flow.cubetheory import CubeDecision, cube_decision
from nardy.flow.events import PlayEvent
from nardy.flow.match import Match
from nardy.flow.players import Player
from nardy.flow.table import Seat, SeatKind, Table
from nardy.rules.dice import DiceSource
from nardy.rules.errors import InvalidOptionError
from nardy.rules.position import Position


class FirstPlay:
    """A player that is not a bot: the first legal play, never doubles, always takes, accepts any resignation."""

    def __init__(self, played: list):
        self.played = played

    def choose_play(self, position, dice, deadline=None):
        play = position.legal_plays(dice)[0]
        self.played.append(str(play))
        return play

    def cube_action(self, state):
        return CubeDecision(double=False, take=True, action="no double")

    def accepts_resignation(self, game, side):
        return True


def computer_table(computer=None, seed=5) -> Table:
    m = Match("short", dice=DiceSource(seed), players=("A", "B"))
    seats = [Seat(SeatKind.COMPUTER, "A", level="advanced"), Seat(SeatKind.COMPUTER, "B", level="beginner")]
    return Table(m, seats, seed=seed, computer=computer)


def test_the_computer_side_plays_with_the_players_of_the_callers_factory():
    asked, played = [], []

    def factory(rules, level, seed):
        asked.append((rules.name, level))
        return FirstPlay(played)

    t = computer_table(factory)
    t.start(now=0.0)
    t.advance(now=0.0)
    assert t.game.is_over
    assert set(asked) == {("short", "advanced"), ("short", "beginner")}
    # every play of the game (the opening's included, when the rules play the opening dice) is the factory's
    # player's choice
    moves = [e.play for e in t.game.history if isinstance(e, PlayEvent)]
    assert len(moves) > 10 and played[-len(moves) :] == moves
    assert isinstance(FirstPlay(played), Player)


def test_a_table_without_a_computer_factory_refuses_the_computers_decision():
    t = computer_table(None)
    t.start(now=0.0)
    with pytest.raises(InvalidOptionError, match="no computer players"):
        t.computer_act(now=0.0)
    assert t.game.phase in ("roll", "move") and not t.log[1:]


def test_the_same_seeded_table_plays_the_same_with_the_library_bot_factory():
    a, b = computer_table(bot_player), computer_table(bot_player)
    for t in (a, b):
        t.start(now=0.0)
        t.advance(now=0.0)
    assert a.to_dict() == b.to_dict() and a.game.is_over
    assert isinstance(bot_player(a.rules, "advanced", 1), Bot)


def test_bot_cube_action_is_the_cube_decision_fed_with_its_evaluations():
    pos = Position.from_id("4HPwATDgc/ABMA", "backgammon")
    bot = Bot("backgammon", level="advanced")
    want = bot.cube_action(pos, score=(0, 0), match_length=5)
    got = cube_decision(lambda p: bot.evaluate(p, ply=0), pos, score=(0, 0), match_length=5)
    assert (got.double, got.take, got.action, got.reason) == (want.double, want.take, want.action, want.reason)
    assert got.equities == pytest.approx(want.equities, abs=0)

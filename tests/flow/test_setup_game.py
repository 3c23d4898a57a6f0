"""A match's game begun at a set-up position (Match.new_game_from): saved and read back, cube included."""

from __future__ import annotations

import pytest

from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.rules.dice import DiceSource
from nardy.rules.errors import GameStateError, InvalidOptionError
from nardy.rules.position import Position

# a backgammon race-ish position (the mover's view)
PID = "4HPwATDgc/ABMA"


def test_a_set_up_game_with_a_turned_cube_is_saved_and_read_back():
    m = Match("backgammon", length=7, dice=DiceSource(1), start_score=(2, 4))
    pos = Position.from_id(PID, "backgammon")
    g = m.new_game_from(pos, turn=1, dice=(3, 1), cube_value=2, cube_owner=0)
    assert (g.turn, g.dice, g.cube_value, g.cube_owner) == (1, (3, 1), 2, 0)
    assert g.history[0].to_dict() == {"type": "setup", "position": PID, "turn": 1, "value": 2, "owner": 0}
    m2 = Match.from_dict(m.to_dict())
    g2 = m2.current
    assert (g2.turn, g2.dice, g2.cube_value, g2.cube_owner, g2.position.id()) == (1, (3, 1), 2, 0, PID)
    assert m2.score == (2, 4)
    # the player on roll plays on from there
    g2.play(g2.legal_plays()[0])
    assert g2.turn == 0


def test_a_centred_cube_setup_is_written_as_before():
    g = Game.from_position(Position.from_id(PID, "backgammon"), turn=0)
    assert g.history[0].to_dict() == {"type": "setup", "position": PID, "turn": 0}


def test_a_saved_setup_with_a_cube_not_in_use_is_refused():
    g = Game.from_position(Position.from_id(PID, "backgammon"), turn=0, cube_value=4, cube_owner=1)
    d = g.to_dict()
    assert Game.from_dict(d).cube_value == 4
    d["history"][0]["value"] = 3
    with pytest.raises(GameStateError, match="value"):
        Game.from_dict(d)
    short = Game.from_position(Position.start("short"), turn=0).to_dict()  # short nardy: no cube by default
    short["history"][0].update(value=2, owner=0)
    short["state"]["cube"].update(value=2, owner=0)
    with pytest.raises(GameStateError, match="cube is not in use"):
        Game.from_dict(short)


def test_the_crawford_game_is_set_up_with_the_cube_centred():
    m = Match("backgammon", length=5, start_score=(4, 1))
    with pytest.raises(InvalidOptionError, match="Crawford"):
        m.new_game_from(Position.from_id(PID, "backgammon"), cube_value=2, cube_owner=1)
    g = m.new_game_from(Position.from_id(PID, "backgammon"))
    assert g.crawford


def test_a_long_nardy_setup_keeps_the_matchs_rules_and_first_turn_flags():
    m = Match("long", last_roll="half")
    pos = Position.start("long")
    g = m.new_game_from(pos, turn=0)
    assert g.rules == m.rules and g.position.first_turn == (True, True)
    assert Match.from_dict(m.to_dict()).current.position.id() == pos.id()
    with pytest.raises(InvalidOptionError, match="backgammon position"):
        Match("long").new_game_from(Position.start("backgammon"))


def test_the_analysis_replays_a_set_up_games_cube():
    # player 1 owns the cube at 2; player 0 plays, player 1 redoubles to 4 and player 0 passes: 2 to player 1
    from nardy.analysis import analyse_match, match_of_game
    from nardy.rules.dice import FixedDice

    g = Game.from_position(Position.from_id(PID, "backgammon"), 0, dice=FixedDice(), cube_value=2, cube_owner=1)
    g.roll((3, 1))
    g.play(g.legal_plays()[0])
    g.double()
    g.drop()
    assert g.result.points == 2
    data = analyse_match(match_of_game(g), level="advanced").to_dict()
    seen = [(d["kind"], d["player"], d["action"], d["cube"]) for d in data["decisions"]]
    assert seen == [
        ("checker", 0, "play", {"value": 2, "owner": 1}),
        ("cube", 1, "double", {"value": 2, "owner": 1}),
        ("cube", 0, "take", {"value": 2, "owner": 1}),
    ]
    assert data["games"][0]["result"]["points"] == 2

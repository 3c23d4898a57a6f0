"""The doubling cube on its own (docs/rules.md "Doubling cube and matches")."""

import pytest

from nardy.flow.cube import Cube
from nardy.rules.errors import GameStateError, InvalidOptionError


def test_cube_starts_centred_at_one():
    c = Cube()
    assert (c.value, c.owner, c.offered_by, c.turned) == (1, None, None, False)


def test_either_player_may_double_a_centred_cube():
    assert Cube().why_not_double(0) is None
    assert Cube().why_not_double(1) is None


def test_take_doubles_the_value_and_the_taker_owns_the_cube():
    c = Cube()
    assert c.offer(0) == 2
    assert c.take() == 2
    assert (c.value, c.owner, c.turned) == (2, 1, True)


def test_redoubles_alternate_with_ownership():
    c = Cube()
    c.offer(0)
    c.take()
    with pytest.raises(GameStateError, match="owns the cube"):
        c.offer(0)
    c.offer(1)
    assert c.take() == 4 and c.owner == 0


def test_pass_loses_the_value_before_the_double():
    c = Cube(value=4, owner=1)
    c.offer(1)
    assert c.drop() == 4


def test_no_double_in_the_crawford_game():
    assert Cube().why_not_double(0, crawford=True) == "crawford"


def test_cube_limit_caps_the_value():
    c = Cube(limit=4, value=4, owner=0)
    assert c.why_not_double(0) == "cube_limit"
    with pytest.raises(InvalidOptionError):
        Cube(limit=3)


def test_cube_not_in_use_refuses_doubles():
    assert Cube(enabled=False).why_not_double(0) == "cube_disabled"


def test_beaver_needs_the_option_and_keeps_the_cube_with_the_taker():
    c = Cube(beavers=True)
    c.offer(0)
    assert c.beaver() == 4 and c.owner == 1
    c = Cube()
    c.offer(0)
    with pytest.raises(GameStateError, match="beavers"):
        c.beaver()


def test_one_double_at_a_time_and_answers_need_an_offer():
    c = Cube()
    c.offer(0)
    assert c.why_not_double(1) == "double_waiting"
    c.take()
    for answer in (c.take, c.drop, c.beaver):
        with pytest.raises(GameStateError):
            answer()


def test_cube_state_round_trips():
    c = Cube(value=8, owner=1, limit=64, beavers=True)
    assert Cube.from_dict(c.to_dict()).to_dict() == c.to_dict()

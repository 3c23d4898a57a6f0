"""Matches and money sessions: score, Crawford, money options, persistence, Match ID."""

import json
import random

import pytest

from nardy import Position
from nardy.flow.match import Match
from nardy.rules.dice import DiceSource, FixedDice
from nardy.rules.errors import GameStateError, InvalidOptionError
from nardy.rules.ids import state_from_match_id
from tests.helpers import play_out


def quick_win(m, winner, level=0):
    """End the next game at once: the loser resigns at ``level``."""
    g = m.new_game(start=True)
    g.resign(level, player=1 - winner)
    g.accept_resignation()
    return g


def test_match_score_is_the_sum_of_game_results_and_the_winner_reaches_n():
    m = Match("backgammon", length=3, dice=DiceSource(1))
    quick_win(m, 0)
    assert m.score == (1, 0) and not m.is_over and m.winner is None
    quick_win(m, 1, level=1)
    assert m.score == (1, 2)
    quick_win(m, 0, level=2)
    assert m.score == (4, 2) and m.is_over and m.winner == 0
    with pytest.raises(GameStateError, match="over"):
        m.new_game()


def test_crawford_game_nobody_may_double_and_post_crawford_games_may():
    m = Match("backgammon", length=5, dice=DiceSource(2))
    quick_win(m, 0, level=2)  # 3-0
    g = m.new_game(start=True)  # nobody at 4 yet
    assert not g.crawford
    g.resign(0, player=1)
    g.accept_resignation()  # 4-0: White at N-1
    g = m.new_game()
    assert g.crawford and m.crawford
    g.start()
    if g.phase == "roll":
        assert not g.may_double
        with pytest.raises(GameStateError, match="Crawford"):
            g.double()
    g.resign(0, player=0)
    g.accept_resignation()  # 4-1, Crawford game over
    g = m.new_game(start=True)
    assert not g.crawford and m.post_crawford
    if g.phase == "roll":
        assert g.may_double


def test_crawford_rule_can_be_switched_off():
    m = Match("backgammon", length=2, crawford=False, dice=DiceSource(2))
    quick_win(m, 0)
    assert not m.new_game().crawford


def test_each_game_is_scored_once_and_the_next_needs_the_last_finished():
    m = Match("short", length=7, dice=DiceSource(3))
    g = m.new_game(start=True)
    with pytest.raises(GameStateError, match="in progress"):
        m.new_game()
    g.resign("mars", player=0)
    g.accept_resignation()
    with pytest.raises(GameStateError):
        g.resign("oyun", player=1)
    assert m.score == (0, 2)


def test_money_session_never_ends_and_takes_jacoby_and_beavers():
    m = Match("backgammon", length=0, jacoby=True, beavers=True, dice=DiceSource(4))
    for _ in range(3):
        quick_win(m, 0, level=1)
    assert m.score == (3, 0)  # Jacoby: gammons at a centred cube count single
    assert not m.is_over and m.winner is None
    with pytest.raises(InvalidOptionError, match="money"):
        Match("backgammon", length=5, jacoby=True)


def test_random_match_plays_to_the_end_with_cube():
    rng = random.Random(7)
    m = Match("backgammon", length=5, dice=DiceSource(7))
    while not m.is_over:
        play_out(m.new_game(), rng, double_rate=0.2)
    assert max(m.score) >= 5 and m.winner == (0 if m.score[0] > m.score[1] else 1)
    crawford = [g.crawford for g in m.games]
    assert crawford.count(True) <= 1


def test_match_saves_and_resumes_exactly():
    rng = random.Random(3)
    m = Match("short", length=5, dice=DiceSource(11), cube=True)
    play_out(m.new_game(), rng, 0.1)
    g = m.new_game(start=True)
    for _ in range(7):
        if g.phase == "roll":
            g.roll()
        elif g.phase == "move":
            g.play(rng.choice(g.legal_plays()))
    d = json.loads(json.dumps(m.to_dict()))
    m2 = Match.from_dict(d)
    assert m2.score == m.score and len(m2.games) == len(m.games)
    assert m2.current.position == m.current.position and m2.current.turn == m.current.turn
    for x in (m, m2):
        r = random.Random(5)
        while not x.is_over:
            g = x.current if not x.current.is_over else x.new_game()
            play_out(g, r)
    assert m.score == m2.score
    assert [g.history for g in m.games] == [g.history for g in m2.games]


def test_match_id_encodes_score_cube_turn_and_dice():
    m = Match("backgammon", length=7, dice=FixedDice([5, 2, (3, 3)]))
    assert state_from_match_id(m.match_id()).game_state == 0
    g = m.new_game(start=True)
    st = state_from_match_id(m.match_id())
    assert (st.match_length, st.score, st.player_on_roll, st.dice, st.game_state) == (7, (0, 0), 0, (5, 2), 1)
    g.play("13/11 13/8")
    g.double()
    st = state_from_match_id(m.match_id())
    assert st.double_offered and st.turn == 0 and st.player_on_roll == 1
    g.take()
    st = state_from_match_id(m.match_id())
    assert (st.cube_value, st.cube_owner) == (2, 0)


def test_match_game_positions_start_fresh_each_game():
    m = Match("long", length=3, dice=DiceSource(5))
    quick_win(m, 1)
    g = m.new_game(start=True)
    assert g.phase == "roll" and g.position_for(g.turn) == Position.start("long")

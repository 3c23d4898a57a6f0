"""Game flow and scoring (docs/rules.md rules 6-8, the scoring sections, the doubling cube, resignation)."""

import json
import random

import pytest

from nardy import Position
from nardy.flow.game import Game, GameResult, result_level
from nardy.rules.dice import DiceSource, FixedDice, dice_from_dict
from nardy.rules.errors import GameStateError, IllegalPlayError, InvalidDiceError, InvalidOptionError
from nardy.rules.variants import get_rules
from tests.helpers import play_out


def board(points: dict, bar: int = 0) -> list:
    """26 counts from {point: n}; the rest of the 15 are borne off."""
    b = [0] * 26
    for p, n in points.items():
        b[p] = n
    b[25] = bar
    b[0] = 15 - sum(b[1:])
    return b


def setup(game, mover, opponent, turn=0, **kw):
    pos = Position.from_boards(mover, opponent, game)
    return Game.from_position(pos, turn=turn, dice=FixedDice(), **kw)


def finish(g, dice, play=None):
    """Roll ``dice`` and play ``play`` (text) or the only/first legal play."""
    g.roll(dice)
    if g.phase == "move":
        g.play(play if play is not None else g.legal_plays()[0])
    return g


# ----- dice --------------------------------------------------------------------------------------
def test_dice_source_is_seedable_and_resumes_from_saved_state():
    a, b = DiceSource(42), DiceSource(42)
    assert [a.roll() for _ in range(20)] == [b.roll() for _ in range(20)]
    state = json.loads(json.dumps(a.get_state()))
    nxt = [a.roll() for _ in range(5)]
    c = DiceSource()
    c.set_state(state)
    assert [c.roll() for _ in range(5)] == nxt
    assert all(1 <= d <= 6 for r in nxt for d in r)
    d = dice_from_dict(json.loads(json.dumps(b.to_dict())))
    assert d.roll() == b.roll()


def test_game_never_uses_module_level_random(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("module-level random used")

    for name in ("random", "randint", "choice", "randrange", "getrandbits"):
        monkeypatch.setattr(random, name, boom)
    g = Game("backgammon", dice=DiceSource(3))
    g.start()
    for _ in range(6):
        if g.is_over:
            break
        if g.phase == "roll":
            g.roll()
        else:
            g.play(g.legal_plays()[0])


def test_fixed_dice_run_out_with_a_clear_error():
    f = FixedDice([(3, 1)])
    assert f.roll() == (3, 1)
    with pytest.raises(GameStateError, match="used up"):
        f.roll()


# ----- rule 7: the opening -----------------------------------------------------------------------
def test_opening_one_die_each_ties_rolled_again_higher_starts():
    g = Game("backgammon", dice=FixedDice([4, 4, 2, 5]))
    g.start()
    assert g.history[0].rolls == ((4, 4), (2, 5))
    assert g.starter == 1 and g.turn == 1


def test_opening_use_opening_dice_starter_plays_the_two_dice():
    g = Game("backgammon", dice=FixedDice([6, 1]))
    assert g.rules.opening == "use-opening-dice"
    g.start()
    assert g.phase == "move" and g.turn == 0 and g.dice == (6, 1)
    g.play("13/7 8/7")
    assert g.turn == 1 and g.phase == "roll"


def test_opening_reroll_starter_rolls_fresh_dice_and_may_throw_a_double():
    for game in ("short", "long"):
        g = Game(game, dice=FixedDice([2, 5, (6, 6)]))
        assert g.rules.opening == "reroll"
        g.start()
        assert g.phase == "roll" and g.turn == 1 and g.dice is None
        assert g.roll() == (6, 6)
        assert g.phase == "move"
    g = Game("backgammon", dice=FixedDice([2, 5, (5, 5)]), opening="reroll")
    g.start()
    assert g.roll() == (5, 5)


def test_opening_with_explicit_starter_refuses_a_double_as_opening_roll():
    g = Game("backgammon")
    with pytest.raises(InvalidDiceError):
        g.start(starter=0, dice=(3, 3))
    assert g.phase == "opening"


# ----- turns, passes, steps (rules 3, 6, 8) ------------------------------------------------------
def test_forced_pass_when_no_checker_can_move():
    # White on the bar, Black holds White's entry points 19-24 except none open: a closed board
    g = setup("backgammon", board({6: 1}, bar=1), board({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}))
    g.roll((3, 5))
    assert [e.type for e in g.history[-2:]] == ["roll", "pass"]
    assert g.turn == 1 and g.phase == "roll"


def test_turn_alternates_and_position_is_from_the_movers_view():
    g = Game("backgammon", dice=FixedDice([3, 1, (6, 5)]))
    g.start()
    g.play("8/5 6/5")
    assert g.turn == 1
    assert g.position == g.position_for(1)
    assert g.position_for(0) == g.position.mirror()
    assert g.position_for(0).mover[5] == 2
    g.roll()
    g.play("24/13")
    assert g.position_for(1).mover[13] == 6


def test_play_refused_when_illegal_and_nothing_changes():
    g = Game("backgammon", dice=FixedDice([3, 1]))
    g.start()
    before = (g.position, g.phase, len(g.history))
    with pytest.raises(IllegalPlayError):
        g.play("24/18")
    with pytest.raises(IllegalPlayError):
        g.play("8/5")  # only one of two dice
    assert (g.position, g.phase, len(g.history)) == before


def test_step_by_step_with_take_back_until_confirmed():
    g = Game("backgammon", dice=FixedDice([3, 1]))
    g.start()
    assert (8, 5) in g.legal_steps() and (6, 5) in g.legal_steps()
    g.step(8, 5)
    assert g.partial_position.mover[5] == 1
    with pytest.raises(IllegalPlayError, match="not a complete legal play"):
        g.confirm()
    g.undo_step()
    assert g.steps_taken == []
    g.step(24, 21)
    g.step(21, 20)
    assert g.legal_steps() == []
    play = g.confirm()
    assert str(play) == "24/20"
    assert g.turn == 1


def test_step_multi_die_hop_is_split_into_single_steps():
    g = Game("backgammon", dice=FixedDice([6, 5]))
    g.start()
    steps = g.step(24, 13)
    assert [(s.frm, s.to) for s in steps] in ([(24, 18), (18, 13)], [(24, 19), (19, 13)])
    assert str(g.confirm()) == "24/13"


def test_illegal_step_refused_without_change():
    g = Game("backgammon", dice=FixedDice([3, 1]))
    g.start()
    with pytest.raises(IllegalPlayError):
        g.step(13, 5)
    assert g.steps_taken == []


def _step_results(g):
    """Every result reachable by entering single steps (DFS through legal_steps + undo)."""
    out = set()

    def rec():
        steps = g.legal_steps()
        if not steps:
            out.add(g.partial_position.array.tobytes())
            return
        for frm, to in steps:
            g.step(frm, to)
            rec()
            g.undo_step()

    rec()
    return out


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_step_entry_reaches_exactly_the_legal_plays(game):
    rng = random.Random(11)
    g = Game(game, dice=DiceSource(5))
    g.start()
    checked = 0
    while not g.is_over and checked < 25:
        if g.phase == "roll":
            g.roll()
            continue
        plays = g.legal_plays()
        got = _step_results(g)
        want = {p.result.array.tobytes() for p in plays if p.steps}
        assert got == want or (not want and len(plays) == 1)
        checked += 1
        g.play(rng.choice(plays))


def test_long_nardy_step_entry_respects_head_rule_on_first_turn():
    g = Game("long", dice=FixedDice([5, 2, (6, 6)]))
    g.start()
    g.roll()
    assert g.legal_steps() == [(24, 18)]
    g.step(24, 18)
    g.step(24, 18)
    assert g.legal_steps() == []
    assert str(g.confirm()) == "24/18(2)"


def test_game_ends_when_last_checker_is_borne_off_unused_dice_lapse():
    g = setup("backgammon", board({2: 1}), board({6: 3}))
    g.roll((6, 5))
    assert g.legal_plays()[0].steps[0].to == 0 and len(g.legal_plays()[0].steps) == 1
    g.play("2/off")
    assert g.is_over and g.result.winner == 0 and g.phase == "over"


# ----- backgammon scoring ------------------------------------------------------------------------
def test_backgammon_single_when_loser_has_borne_off_a_checker():
    g = finish(setup("backgammon", board({1: 1}), board({6: 14})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("single", 1)


def test_backgammon_gammon_when_loser_has_borne_off_none():
    g = finish(setup("backgammon", board({1: 1}), board({6: 10, 7: 5})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("gammon", 2)


def test_backgammon_backgammon_needs_a_checker_on_the_bar_or_in_winners_home():
    g = finish(setup("backgammon", board({1: 1}), board({6: 14, 20: 1})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("backgammon", 3)
    g = finish(setup("backgammon", board({1: 1}), board({6: 14}, bar=1)), (2, 1))
    assert g.result.level_name == "backgammon"
    g = finish(setup("backgammon", board({1: 1}), board({6: 14, 18: 1})), (2, 1))
    assert g.result.level_name == "gammon"


def test_backgammon_loser_who_bore_off_and_is_later_hit_scores_single():
    # the loser has 1 checker off and one on the bar: still a single
    g = finish(setup("backgammon", board({1: 1}), board({6: 13}, bar=1)), (2, 1))
    assert g.result.level_name == "single"


def test_result_is_level_times_cube():
    g = setup("backgammon", board({1: 1}), board({6: 10, 7: 5}))
    g.double()
    g.take()
    finish(g, (2, 1))
    assert (g.result.level_name, g.result.cube, g.result.points) == ("gammon", 2, 4)


# ----- short nardy scoring -----------------------------------------------------------------------
def test_short_oyun_once_loser_bore_off_even_if_later_hit():
    g = finish(setup("short", board({1: 1}), board({6: 13}, bar=1)), (2, 1))
    assert (g.result.level_name, g.result.points) == ("oyun", 1)


def test_short_mars_when_all_loser_checkers_in_loser_home():
    g = finish(setup("short", board({1: 1}), board({6: 15})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("mars", 2)


def test_short_home_mars_when_a_loser_checker_is_outside_home_none_on_bar():
    g = finish(setup("short", board({1: 1}), board({6: 14, 20: 1})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("home mars", 4)


def test_short_koks_needs_a_checker_on_the_bar():
    g = finish(setup("short", board({1: 1}), board({6: 14}, bar=1)), (2, 1))
    assert (g.result.level_name, g.result.points) == ("koks", 8)


def test_short_scoring_scale_is_an_option():
    pos = Position.from_boards(board({1: 1}), board({6: 14}, bar=1), get_rules("short", scoring="1/2/3/4"))
    g = Game.from_position(pos, dice=FixedDice())
    finish(g, (2, 1))
    assert (g.result.level_name, g.result.points) == ("koks", 4)


def test_result_level_function_matches_rules_md():
    r = get_rules("short")
    assert result_level(r, board({6: 14})) == 0
    assert result_level(r, board({6: 15})) == 1


# ----- long nardy scoring, last-roll -------------------------------------------------------------
def test_long_oyn_when_loser_bore_off_and_mars_when_none():
    g = finish(setup("long", board({1: 1}), board({1: 14})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("oyn", 1)
    g = finish(setup("long", board({1: 1}), board({1: 15})), (2, 1))
    assert (g.result.level_name, g.result.points) == ("mars", 2)


@pytest.mark.parametrize("option,points", [("half", 0.5), ("one", 1)])
def test_long_last_roll_draw_when_other_player_bears_off_all(option, points):
    pos = Position.from_boards(board({1: 1}), board({1: 2}), get_rules("long", last_roll=option))
    g = Game.from_position(pos, turn=0, dice=FixedDice())  # White counts as the starter
    g.roll((2, 1))
    g.play("1/off")
    assert not g.is_over and g.turn == 1 and g.phase == "roll"
    assert not g.may_double
    g.roll((3, 4))
    g.play("1/off(2)")
    assert g.result.winner is None and g.result.points == points
    assert g.result.score() == (points, points)


def test_long_last_roll_no_draw_when_other_player_cannot_finish():
    pos = Position.from_boards(board({1: 1}), board({1: 2, 6: 1}), get_rules("long", last_roll="half"))
    g = Game.from_position(pos, turn=0, dice=FixedDice())
    finish(g, (2, 1), "1/off")
    g.roll((1, 2))
    g.play(g.legal_plays()[0])
    assert g.result.winner == 0 and g.result.level_name == "oyn"


def test_long_last_roll_only_for_the_player_who_moved_second():
    pos = Position.from_boards(board({1: 1}), board({1: 2}), get_rules("long", last_roll="half"))
    g = Game.from_position(pos, turn=0, dice=FixedDice())
    g.starter = 1  # Black moved first: White finishing ends the game at once
    finish(g, (2, 1), "1/off")
    assert g.result.winner == 0


# ----- cube --------------------------------------------------------------------------------------
def test_cube_starts_centred_at_one_and_take_gives_ownership():
    g = Game("backgammon", dice=FixedDice([3, 1, (2, 2)]))
    g.start()
    assert (g.cube_value, g.cube_owner) == (1, None)
    g.play("8/5 6/5")
    assert g.may_double
    assert g.double(player=1) == 2
    assert g.phase == "double" and g.to_act == 0
    g.take(player=0)
    assert (g.cube_value, g.cube_owner, g.phase, g.turn) == (2, 0, "roll", 1)


def test_redouble_only_by_the_cube_owner():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    g.double()
    g.take()
    assert g.turn == 0 and g.cube_owner == 1
    with pytest.raises(GameStateError, match="owns the cube"):
        g.double()  # White doubled; Black owns the cube now
    finish(g, (3, 1))
    assert g.turn == 1 and g.may_double
    assert g.double() == 4
    g.take()
    assert (g.cube_value, g.cube_owner) == (4, 0)


def test_pass_scores_the_cube_value_before_the_double():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    g.double()
    g.take()
    finish(g, (3, 1))
    assert g.may_double and g.cube_owner == 1
    assert g.double() == 4
    r = g.drop()
    assert (r.winner, r.points, r.reason, r.cube) == (1, 2, "drop", 2)


def test_out_of_turn_cube_actions_give_clear_errors_and_change_nothing():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    with pytest.raises(GameStateError, match="cannot take"):
        g.take()
    with pytest.raises(GameStateError, match="turn"):
        g.double(player=1)
    g.roll((3, 1))
    with pytest.raises(GameStateError, match="phase"):
        g.double()
    g.play(g.legal_plays()[0])
    g.double()
    with pytest.raises(GameStateError, match="turn"):
        g.take(player=1)
    with pytest.raises(GameStateError):
        g.roll()
    assert g.phase == "double" and g.cube_value == 1


def test_cube_off_by_default_for_nardy_and_switchable():
    for game in ("short", "long"):
        g = Game(game, dice=FixedDice([5, 2]))
        g.start()
        assert not g.cube_enabled and not g.may_double
        with pytest.raises(GameStateError, match="not in use"):
            g.double()
        g = Game(game, dice=FixedDice([5, 2]), cube=True)
        g.start()
        assert g.may_double
    g = Game("backgammon", cube=False, dice=FixedDice([5, 2, (3, 1)]))
    g.start()
    assert not g.cube_enabled


def test_cube_limit_stops_doubling():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}), cube_limit=2)
    g.double()
    g.take()
    finish(g, (3, 1))
    assert not g.may_double
    assert g.why_not_double() == "cube_limit"


def test_crawford_game_nobody_may_double():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}), crawford=True)
    assert not g.may_double
    with pytest.raises(GameStateError, match="Crawford"):
        g.double()


def test_beaver_takes_and_redoubles_keeping_the_cube():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}), beavers=True)
    g.double()
    assert g.beaver() == 4
    assert (g.cube_owner, g.turn, g.phase) == (1, 0, "roll")
    g2 = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    g2.double()
    with pytest.raises(GameStateError, match="beavers"):
        g2.beaver()


def test_jacoby_gammon_counts_single_with_centred_cube():
    g = finish(setup("backgammon", board({1: 1}), board({6: 10, 7: 5}), jacoby=True), (2, 1))
    assert (g.result.level_name, g.result.points) == ("gammon", 1)
    g = setup("backgammon", board({1: 1}), board({6: 10, 7: 5}), jacoby=True)
    g.double()
    g.take()
    finish(g, (2, 1))
    assert g.result.points == 4


# ----- resignation -------------------------------------------------------------------------------
def test_resignation_accepted_scores_level_times_cube():
    g = setup("backgammon", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    g.double()
    g.take()
    g.resign("gammon", player=0)
    assert g.phase == "resign" and g.to_act == 1
    r = g.accept_resignation(player=1)
    assert (r.winner, r.level_name, r.points, r.reason) == (1, "gammon", 4, "resign")


def test_resignation_declined_play_goes_on():
    g = setup("short", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    g.roll((3, 1))
    g.resign("mars")
    with pytest.raises(GameStateError):
        g.play(g.legal_plays()[0])
    with pytest.raises(GameStateError, match="cannot decline"):
        g.decline_resignation(player=0)
    g.decline_resignation(player=1)
    assert g.phase == "move" and g.resignation is None
    g.play(g.legal_plays()[0])


def test_resignation_applied_once_and_finished_game_refuses_more():
    g = setup("long", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    g.resign("oyn")
    g.accept_resignation()
    assert g.result.points == 1
    with pytest.raises(GameStateError, match="over"):
        g.resign("mars")
    with pytest.raises(GameStateError, match="over"):
        g.accept_resignation()
    with pytest.raises(GameStateError, match="over"):
        g.roll()
    assert [e.type for e in g.history].count("end") == 1


def test_resignation_level_must_exist_for_the_game():
    g = setup("long", board({6: 5, 5: 5, 4: 5}), board({6: 5, 5: 5, 4: 5}))
    with pytest.raises(GameStateError, match="level"):
        g.resign("koks")
    with pytest.raises(GameStateError, match="level"):
        g.resign(2)
    assert g.phase == "roll"


# ----- undo, save and resume ---------------------------------------------------------------------
def test_undo_turn_takes_back_current_then_previous_turn():
    g = Game("backgammon", dice=FixedDice([3, 1, (6, 5), (2, 2)]))
    g.start()
    start = g.position
    g.play("8/5 6/5")
    after1 = g.position
    g.roll()
    g.step(24, 18)
    g.undo_turn()  # Black's turn so far
    assert g.position == after1 and g.phase == "roll" and g.turn == 1
    g.undo_turn()  # White's opening play
    assert g.position == start and g.phase == "move" and g.dice == (3, 1)
    with pytest.raises(GameStateError):
        g.undo_turn()


def test_undo_turn_reopens_a_finished_game():
    g = setup("backgammon", board({1: 1}), board({6: 14}))
    finish(g, (2, 1))
    g.undo_turn()
    assert g.result is None and g.phase == "roll"
    finish(g, (1, 1))
    assert g.result.winner == 0


def test_save_and_resume_exactly_mid_turn_and_mid_double():
    rng = random.Random(2)
    g = Game("backgammon", dice=DiceSource(9))
    g.start()
    for _ in range(9):
        if g.phase == "roll":
            g.roll()
        else:
            g.play(rng.choice(g.legal_plays()))
    if g.phase == "roll":
        g.roll()
    steps = g.legal_steps()
    g.step(*steps[0])
    d = json.loads(json.dumps(g.to_dict()))
    h = Game.from_dict(d)
    assert h.position == g.position and h.dice == g.dice and h.turn == g.turn
    assert h.steps_taken == g.steps_taken and h.partial_position == g.partial_position
    # both continue identically
    for x in (g, h):
        while x.legal_steps():
            x.step(*x.legal_steps()[0])
        x.confirm()
        x.double()
    d2 = json.loads(json.dumps(h.to_dict()))
    k = Game.from_dict(d2)
    assert k.phase == "double" and k.to_act == h.to_act
    for x in (g, h, k):
        x.take()
        play_out(x, random.Random(4), 0.05)
    assert g.result == h.result == k.result
    assert g.history == h.history == k.history


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_random_games_end_with_a_result_of_the_games_levels(game):
    for seed in range(3):
        g = play_out(Game(game, dice=DiceSource(seed), cube=True), random.Random(seed), 0.05)
        r = g.result
        assert isinstance(r, GameResult) and r.winner in (0, 1)
        assert r.level_name in g.rules.result_names
        if r.reason == "bear-off":
            assert r.points == g.rules.scoring[r.level] * r.cube


def test_rule8_dice_left_and_can_confirm_follow_the_steps():
    g = Game.from_position(Position.start("backgammon"), turn=0)
    assert g.dice_left == []
    g.roll((3, 1))
    assert g.phase == "move" and sorted(g.dice_left) == [1, 3] and not g.can_confirm()
    g.step(8, 5)
    assert g.dice_left == [1] and not g.can_confirm()
    with pytest.raises(GameStateError):
        g.step(6, 5, player=1)  # out of turn: refused, nothing changes
    assert g.dice_left == [1]
    g.step(6, 5)
    assert g.dice_left == [] and g.can_confirm()
    g.undo_step()
    assert g.dice_left == [1]


def test_from_position_sets_up_the_cube_through_its_parameters():
    start = Position.start("backgammon")
    g = Game.from_position(start, turn=0, cube_value=4, cube_owner=1)
    assert (g.cube_value, g.cube_owner) == (4, 1) and g.why_not_double(0) == "cube_owned"
    g = Game.from_position(start, turn=0, cube_value=2, cube_owner=0)
    assert g.may_double and g.double() == 4
    g.undo_turn()  # the undo point of the set-up keeps the cube
    assert (g.cube_value, g.cube_owner, g.cube.offered_by) == (2, 0, None)
    for bad in (3, 0, -2, True, 2.0, "2"):
        with pytest.raises(InvalidOptionError, match="cube value"):
            Game.from_position(start, cube_value=bad)
    for bad in (2, -1, "me", True):
        with pytest.raises(InvalidOptionError, match="owner"):
            Game.from_position(start, cube_value=2, cube_owner=bad)
    with pytest.raises(InvalidOptionError, match="limit"):
        Game.from_position(start, cube_value=8, cube_limit=4)
    with pytest.raises(InvalidOptionError, match="not in use"):
        Game.from_position(start, cube=False, cube_value=2, cube_owner=0)
    with pytest.raises(InvalidOptionError, match="not in use"):
        Game.from_position(Position.start("long"), cube_owner=0)
    assert Game.from_position(Position.start("long"), cube_value=1).cube_value == 1


def test_result_text_and_points_for_are_public():
    g = Game.from_position(Position.start("backgammon"), turn=0, cube_value=2, cube_owner=1)
    assert g.result_text() == "no result"
    assert [g.points_for(lv) for lv in range(3)] == [2, 4, 6]
    assert Game.from_position(Position.start("backgammon"), jacoby=True).points_for(1) == 1
    g.resign("gammon")
    g.accept_resignation()
    assert g.result_text() == "Black (player 1) won 4 point(s), gammon"


@pytest.mark.parametrize("field,value", [("turn", 5), ("phase", "zzz"), ("dice", [7, 1]), ("starter", "x")])
def test_resume_refuses_corrupted_saved_state(field, value):
    g = Game("backgammon", dice=DiceSource(3))
    g.start()
    d = json.loads(json.dumps(g.to_dict()))
    d["state"][field] = value
    with pytest.raises(GameStateError):
        Game.from_dict(d)
    with pytest.raises(GameStateError, match="not a saved game"):
        Game.from_dict({"rules": 3})


def test_unstarted_game_round_trips_through_to_dict():
    g = Game("long", dice=DiceSource(1))
    back = Game.from_dict(json.loads(json.dumps(g.to_dict())))
    assert back.phase == "opening" and back.turn is None
    back.start()
    assert back.phase in ("roll", "move")


def test_why_not_double_says_the_cube_is_off_first():
    g = Game("long", dice=DiceSource(1))
    g.start()
    assert g.why_not_double() == "cube_disabled"


def test_may_double_is_a_property_like_is_over_and_the_old_call_warns():
    g = Game("backgammon", dice=FixedDice([(3, 1), (5, 2)]))
    g.start(starter=0, dice=(3, 1))
    assert not g.is_over and not g.may_double  # the opening roll is being played
    g.play(g.legal_plays()[0])
    assert g.may_double and g.may_double == True  # noqa: E712  (compares as a bool)
    assert repr(g.may_double) == "True"
    with pytest.warns(DeprecationWarning, match="property now"):
        assert g.may_double() is True
    with pytest.warns(DeprecationWarning):
        assert g.may_double(0) is False  # not White's turn

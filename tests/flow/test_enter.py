"""Game.enter: the one entry path for typed plays (nardy.flow.entry): a whole play in any numbering, steps one by
one with take-back, and the coded refusals front ends word."""

from __future__ import annotations

import pytest

from nardy.flow import entry
from nardy.flow.game import Game
from nardy.rules.errors import AmbiguousPlayError, IllegalPlayError, NotationError
from nardy.rules.notation import Step
from nardy.rules.numbering import Numbering
from nardy.rules.position import Position

from ..helpers import pos


def _at_move(game: str, dice, turn: int = 0, position: Position | None = None) -> Game:
    g = Game.from_position(position or Position.start(game), turn=turn, cube=False)
    g.roll(dice=dice)
    assert g.phase == "move"
    return g


def _last_play_text(g: Game) -> str:
    return [e for e in g.history if type(e).__name__ == "PlayEvent"][-1].play


def test_whole_play_in_own_numbering_ends_the_turn():
    g = _at_move("backgammon", (3, 1))
    steps = g.enter("8/5 6/5")
    assert [(s.frm, s.to) for s in steps] == [(8, 5), (6, 5)]
    assert g.phase == "roll" and g.turn == 1 and _last_play_text(g) == "8/5 6/5"


def test_whole_play_in_black_s_traditional_numbering_is_read_as_black_s_own_points():
    g = _at_move("backgammon", (3, 1), turn=1)
    text = Numbering("traditional", "backgammon").relabel("8/5 6/5", 1)
    assert text != "8/5 6/5"  # Black's points are labelled otherwise in this numbering
    g.enter(text, "traditional", side=1)
    assert g.phase == "roll" and g.turn == 0 and _last_play_text(g) == "8/5 6/5"


def test_whole_play_in_long_nardy_absolute_numbering():
    g = _at_move("long", (6, 5), turn=1)
    g.enter("12/6/1", "absolute", side=1)  # Black's head is White's 12 (absolute): own 24/18/13
    assert _last_play_text(g) == "24/13"


def test_steps_one_by_one_stay_in_the_turn_until_complete():
    g = _at_move("backgammon", (3, 1))
    assert g.enter("8/5") == [Step(8, 5, 3, False)]
    assert g.phase == "move" and not g.can_confirm()
    assert g.enter("6/5") == [Step(6, 5, 1, False)]
    assert g.can_confirm() and g.phase == "move"


def test_a_refused_step_is_taken_back_with_its_code():
    g = _at_move("backgammon", (3, 1))
    g.enter("8/5")
    with pytest.raises(IllegalPlayError) as e:
        g.enter("24/23 6/2")  # 24/23 is taken, then 6/2 fits no die left
    assert e.value.code == "illegal_step"
    assert g.steps_taken == [Step(8, 5, 3, False)]


def test_a_refused_step_takes_the_diagnosis_asked_before_the_take_back():
    g = _at_move("backgammon", (3, 1))
    seen = []

    def why(game, frm, to):
        seen.append((len(game.steps_taken), frm, to))
        return "distance", {"pips": frm - to, "dice": list(game.dice_left), "from": frm, "to": to}

    resolved = entry.resolve(g, "24/23 6/2", "own", 0)
    with pytest.raises(IllegalPlayError) as e:
        entry.apply(g, resolved, lambda a, **kw: {"step": g.step, "undo": g.undo_step, "play": g.play}[a](**kw), why)
    assert seen == [(1, 6, 2)]  # asked while 24/23 was still taken
    assert (e.value.code, e.value.params) == ("distance", {"pips": 4, "dice": [3], "from": 6, "to": 2})
    assert g.steps_taken == []


def test_a_false_hit_mark_is_refused_whole_and_step_by_step():
    g = _at_move("backgammon", (3, 1))
    with pytest.raises(IllegalPlayError) as whole:
        g.enter("8/5* 6/5")
    assert whole.value.code == "false_hit" and g.steps_taken == []
    g.enter("8/5")
    with pytest.raises(IllegalPlayError) as step:
        g.enter("6/5*")
    assert (step.value.code, step.value.params) == ("false_hit", {"from": 6, "to": 5})
    assert g.steps_taken == [Step(8, 5, 3, False)]


def test_a_hit_mark_in_long_nardy_is_no_hitting():
    g = _at_move("long", (6, 3))
    g.enter("24/18")
    with pytest.raises(IllegalPlayError) as e:
        g.enter("18/15*")
    assert e.value.code == "no_hitting" and len(g.steps_taken) == 1


def test_ambiguous_text_is_refused_with_its_readings_not_taken_as_steps():
    amb = pos("backgammon", {13: 1, 6: 14}, {15: 1, 13: 1, 1: 13})
    g = _at_move("backgammon", (3, 1), position=amb)
    with pytest.raises(AmbiguousPlayError) as e:
        g.enter("13/9")
    assert e.value.code == "ambiguous_play" and len(e.value.params["options"]) == 2
    assert g.steps_taken == [] and g.phase == "move"


def test_a_label_the_numbering_lacks_is_bad_point():
    g = _at_move("backgammon", (3, 1))
    with pytest.raises(NotationError) as e:
        g.enter("XXX/5", "traditional")
    assert (e.value.code, e.value.params) == ("bad_point", {"point": "XXX", "numbering": "traditional"})


def test_text_that_is_no_play_is_a_notation_error():
    g = _at_move("backgammon", (3, 1))
    with pytest.raises(NotationError) as e:
        g.enter("8/5 6")
    assert e.value.code == "bad_token" and g.steps_taken == []


def test_resolve_names_the_whole_play_without_playing_it():
    g = _at_move("backgammon", (3, 1))
    resolved = entry.resolve(g, "8/5 6/5", "own", 0)
    assert str(resolved.play) == "8/5 6/5" and resolved.hops == ()
    assert g.phase == "move" and g.steps_taken == []

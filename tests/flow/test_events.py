"""Typed phases and history events: JSON round trips, and games saved before events were typed."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path

import pytest

from nardy.flow.bot import Bot
from nardy.flow.events import EVENT_TYPES, PHASES, Event, Phase, event_from_dict
from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.rules.dice import DiceSource
from nardy.rules.errors import GameStateError

SAVED_V1 = Path(__file__).resolve().parents[1] / "data" / "saved_v1"

#: One example of every event type, as a game writes it.
EXAMPLES = {
    "setup": {"position": "4HPwATDgc/ABMA", "turn": 1, "value": 2, "owner": 0},
    "opening": {"starter": 0, "rolls": [[4, 4], [5, 2]], "dice": None},
    "roll": {"player": 1, "dice": [6, 6]},
    "pass": {"player": 0, "dice": [6, 6]},
    "play": {
        "player": 0,
        "dice": [3, 1],
        "play": "8/5 6/5",
        "steps": [[8, 5, 3, False], [6, 5, 1, False]],
        "position": "4HPwATDgc/ABMA",
    },
    "last-roll": {"player": 1},
    "double": {"player": 0, "value": 2},
    "take": {"player": 1, "value": 2},
    "beaver": {"player": 1, "value": 4},
    "drop": {"player": 1},
    "resign": {"player": 0, "level": 1, "level_name": "gammon"},
    "accept": {"player": 1},
    "decline": {"player": 1},
    "end": {"winner": None, "level": 0, "level_name": "draw", "points": 0.5, "cube": 1, "reason": "draw"},
}


def test_every_event_type_has_an_example():
    assert set(EXAMPLES) == set(EVENT_TYPES)


@pytest.mark.parametrize("kind", sorted(EXAMPLES))
def test_every_event_round_trips_through_json(kind):
    d = {"type": kind, **EXAMPLES[kind]}
    e = event_from_dict(json.loads(json.dumps(d)))
    assert isinstance(e, EVENT_TYPES[kind]) and isinstance(e, Event) and e.type == kind
    assert e.to_dict() == d
    assert event_from_dict(json.loads(json.dumps(e.to_dict()))) == e
    assert {f.name for f in fields(e)} == set(EXAMPLES[kind])


@pytest.mark.parametrize(
    "bad, word",
    [
        ({"type": "fly"}, "fly"),
        ({"player": 0}, "type"),
        ("roll", "dict"),
        ({"type": "roll", "player": 0}, "dice"),
        ({"type": "drop", "player": 0, "value": 2}, "value"),
    ],
)
def test_malformed_events_are_refused(bad, word):
    with pytest.raises(GameStateError, match=word):
        event_from_dict(bad)


def test_phase_is_an_enum_equal_to_its_name():
    assert [str(p) for p in PHASES] == ["opening", "roll", "double", "resign", "move", "over"]
    assert Phase.ROLL == "roll" and Phase("move") is Phase.MOVE and json.dumps(Phase.OVER) == '"over"'
    g = Game("backgammon", dice=DiceSource(3))
    assert g.phase is Phase.OPENING
    g.start()
    assert isinstance(g.phase, Phase)


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_history_is_typed_events_and_saves_as_before(game):
    g = Game(game, dice=DiceSource(9))
    g.start()
    bot = Bot(game, level="random", seed=9)
    while not g.is_over:
        if g.phase == Phase.ROLL:
            g.roll()
        else:
            g.play(bot.choose_play(g.position, g.dice))
    assert all(isinstance(e, Event) for e in g.history)
    assert g.history[0].type == "opening" and g.history[-1].type == "end"
    d = json.loads(json.dumps(g.to_dict()))
    assert d["version"] == 1 and all(isinstance(e, dict) for e in d["history"])
    back = Game.from_dict(d)
    assert back.history == g.history and back.to_dict() == d


@pytest.mark.parametrize("path", sorted(SAVED_V1.glob("*.json")), ids=lambda p: p.stem)
def test_games_saved_before_typed_events_still_load(path):
    d = json.loads(path.read_text(encoding="utf-8"))
    obj = (Match if path.stem.startswith("match") else Game).from_dict(d)
    games = obj.games if isinstance(obj, Match) else [obj]
    assert all(isinstance(e, Event) for g in games for e in g.history)
    assert obj.to_dict() == d  # the same data written back: no migration loss
    g = games[-1]
    if not g.is_over and g.phase == Phase.MOVE:
        assert g.legal_steps() or g.can_confirm()


def test_the_end_event_is_the_games_result_with_its_type():
    """One result type: the history's end event is a :class:`GameResult` (the game's own), written as the result
    with ``"type": "end"``; a result's size is its kind (the field ``level``), its points are ``points``."""
    from nardy.flow.events import EndEvent, GameResult

    g = Game("backgammon", dice=DiceSource(seed=1))
    g.start()
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.play(g.legal_plays()[0])
    end = g.history[-1]
    assert isinstance(end, EndEvent) and isinstance(end, GameResult)
    assert end.result == g.result and type(g.result) is GameResult
    assert end.to_dict() == {"type": "end", **g.result.to_dict()}
    assert event_from_dict(end.to_dict()) == end
    assert (g.result.kind, g.result.kind_name, g.result.points) == (0, "single", 1)
    assert end.score() == g.result.score()

"""The sample records shipped with nardy (``nardy/data/samples``): real matches of its computer players in
each game, there in every clone and install (the README's examples and the tests use them)."""

from __future__ import annotations

import pytest

from nardy.cli.replay import sample_records
from nardy.records.mat import parse_mat, replay, write_mat

SAMPLES = sample_records()


def test_there_is_a_sample_of_each_game():
    assert sorted(SAMPLES) == ["backgammon-match", "long-nardy-game", "short-nardy-match"]


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_each_sample_replays_through_the_rules_and_writes_back_the_same(name):
    text = SAMPLES[name].read_text(encoding="utf-8")
    match = replay(parse_mat(text))
    game = {"backgammon-match": "backgammon", "short-nardy-match": "short", "long-nardy-game": "long"}[name]
    assert match.rules.name == game
    assert all(g.is_over for g in match.games)
    assert match.length == (0 if game == "long" else 3) and (game == "long" or match.winner is not None)
    assert sum(1 for g in match.games for e in g.history if e.type == "play") > 40
    assert write_mat(match) == text

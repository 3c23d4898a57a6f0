"""A stored game the server wrote itself is rebuilt without the save validator (issue 42): the same game, and
the validator is not run; data from outside (``HostedGame.from_dict`` by default) is still checked whole."""

from __future__ import annotations

import datetime as dt
import random

import pytest

from nardy.flow import gamesave, match
from nardy.rules.errors import GameStateError
from nardy.web.gamecache import materialise
from nardy.web.sessions import HostedGame, new_session
from nardy.web.store.storage import SavedGame


def played(seed: int, turns: int = 120) -> HostedGame:
    """A 5-point match between two people at one screen, played at random (seeded) for ``turns`` actions."""
    s = new_session("backgammon", length=5, opponent="human", seed=seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if s.table.is_over:
            break
        g = s.match.current
        if g.is_over:
            s.act("next")
        elif g.dice is None:
            s.act("roll")
        else:
            plays = g.legal_plays()
            g.play(rng.choice(plays) if plays else ())
    return s


def row(s: HostedGame) -> SavedGame:
    now = dt.datetime.now(dt.UTC)
    return SavedGame("g1", now, now, "backgammon", s.status, s.title(), 3, s.to_dict(), s.summary())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_stored_row_rebuilds_the_same_game_as_the_checked_path(seed):
    s = played(seed)
    d = s.to_dict()
    assert materialise(row(s)).to_dict() == HostedGame.from_dict(d).to_dict() == d


def test_a_stored_row_is_rebuilt_without_running_the_save_validator(monkeypatch):
    s = played(4)

    def refuse(*args, **kwargs):
        raise AssertionError("the save validator ran on the server's own row")

    monkeypatch.setattr(gamesave, "check_game_dict", refuse)  # where a game and a match call the validator
    monkeypatch.setattr(match, "check_match_dict", refuse)
    assert materialise(row(s)).to_dict() == s.to_dict()
    with pytest.raises(AssertionError, match="save validator ran"):
        HostedGame.from_dict(s.to_dict())  # data from outside: checked


def test_saved_data_from_outside_is_still_checked_whole():
    d = played(5).to_dict()
    d["table"]["match"]["games"][0]["state"]["turn"] = 7
    with pytest.raises(GameStateError, match="turn"):
        HostedGame.from_dict(d)

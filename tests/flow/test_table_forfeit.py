"""Table.forfeit: a match ended because a player left it (docs/online.md, "Fair play"): lost by that side at
once, the clock stopped, kept in the saved table, nothing more accepted; a saved table's ``ended`` is checked."""

from __future__ import annotations

import pytest

from nardy.flow.clock import Clock, clock_spec
from nardy.flow.match import Match
from nardy.flow.table import Seat, SeatKind, Table
from nardy.rules.errors import GameStateError, InvalidOptionError
from nardy.rules.variants import get_rules


def table() -> Table:
    m = Match(get_rules("long"), length=3, players=("Ann", "Bob"))
    seats = [Seat(SeatKind.REMOTE, "Ann", player="a"), Seat(SeatKind.REMOTE, "Bob", player="b")]
    t = Table(m, seats, clock=Clock(clock_spec("blitz")), auto_next=True)
    t.start(now=1000.0)
    return t


def test_the_side_that_left_loses_the_match_at_once_and_the_clock_stops():
    t = table()
    t.forfeit(1, "abandoned", now=1010.0)
    assert t.is_over and t.winner == 0 and t.status == "over" and t.to_act is None
    assert t.ended == {"reason": "abandoned", "winner": 0, "loser": 1, "t": 1010.0}
    assert t.clock.running is None and t.log[-1]["type"] == "abandoned"
    assert tuple(t.match.score) == (0, 0)  # the game in progress scores nothing
    with pytest.raises(GameStateError) as e:
        t.act(None, "roll", now=1011.0)
    assert e.value.code == "match_over"
    with pytest.raises(GameStateError):
        t.forfeit(0, now=1012.0)
    back = Table.from_dict(t.to_dict())
    assert back.ended == t.ended and back.winner == 0


def test_bad_forfeits_and_bad_saved_endings_are_refused():
    t = table()
    with pytest.raises(InvalidOptionError):
        t.forfeit(2)
    with pytest.raises(InvalidOptionError):
        t.forfeit(0, "bored")
    d = t.to_dict()
    d["ended"] = {"reason": "bored", "winner": 0, "loser": 1, "t": 1.0}
    with pytest.raises(GameStateError):
        Table.from_dict(d)

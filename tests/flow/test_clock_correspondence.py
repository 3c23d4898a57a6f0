"""Correspondence clocks (docs/online.md, "Clocks"): ``{"days": N}`` gives each move N days and keeps no
reserve; a side that acts in time has the whole N days again, one that lets a move's days run out loses on
time; saved and read back as ``{"days": N}``. Times are injected (``now``), never slept."""

from __future__ import annotations

import pytest

from nardy.flow.clock import DAY, Clock, ClockSpec, clock_spec
from nardy.flow.match import Match
from nardy.flow.table import Seat, SeatKind, Table
from nardy.rules.errors import InvalidOptionError
from nardy.rules.variants import get_rules


def test_days_per_move_give_each_move_the_whole_days_and_keep_no_reserve():
    spec = clock_spec({"days": 2})
    assert spec == ClockSpec.correspondence(2) and spec.initial == 2 * DAY and spec.per_move
    assert spec.to_dict() == {"days": 2}
    c = Clock(spec)
    c.switch(0, now=0.0)
    c.switch(1, now=10.0)  # White moved after 10 s: back to 2 days, not 2 days - 10 s
    assert c.left(0, now=10.0) == 2 * DAY
    c.switch(0, now=10.0 + 1.5 * DAY)  # Black used a day and a half: next move has 2 days again
    assert c.left(1, now=10.0 + 1.5 * DAY) == 2 * DAY
    assert c.due() == 10.0 + 1.5 * DAY + 2 * DAY
    assert c.flagged(10.0 + 3.5 * DAY - 1) is None and c.flagged(10.0 + 3.5 * DAY) == 0


def test_a_move_whose_days_run_out_loses_the_match_on_time_and_the_clock_round_trips():
    m = Match(get_rules("long"), length=3, players=("Ann", "Bob"))
    seats = [Seat(SeatKind.REMOTE, "Ann", player="a"), Seat(SeatKind.REMOTE, "Bob", player="b")]
    t = Table(m, seats, clock=Clock(clock_spec({"days": 1})), auto_next=True)
    t.start(now=1000.0)
    side = t.to_act
    assert t.check_time(now=1000.0 + DAY - 1) is None
    back = Table.from_dict(t.to_dict())
    assert back.clock.spec == ClockSpec.correspondence(1) and back.clock.to_dict()["spec"] == {"days": 1}
    assert t.check_time(now=1000.0 + DAY + 5) == side
    assert t.ended == {"reason": "time", "winner": 1 - side, "loser": side, "t": 1000.0 + DAY}


@pytest.mark.parametrize("bad", [{"days": 4}, {"days": 0}, {"days": True}, {"days": "2"}, {"days": 2, "delay": 1}])
def test_days_other_than_1_2_3_7_are_refused(bad):
    with pytest.raises(InvalidOptionError) as e:
        clock_spec(bad)
    assert e.value.code == "bad_clock"

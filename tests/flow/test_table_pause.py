"""The pause between games (issue 43, docs/online.md "Between games"): a clocked table that starts its next game by
itself (``auto_next``, online play) holds :data:`BETWEEN_GAMES` seconds after a game that did not end the match; in
it nobody is to act and no clock runs; a ``next`` action ends it at once, else :meth:`Table.wake` starts the next
game once its time is past; it is kept in the saved table. Without a clock the next game starts at once."""

from __future__ import annotations

import pytest

from nardy.flow.clock import Clock, clock_spec
from nardy.flow.match import Match
from nardy.flow.table import BETWEEN_GAMES, Seat, SeatKind, Table
from nardy.rules.errors import GameStateError
from nardy.rules.variants import get_rules


def table(clock: bool = True, length: int = 3) -> Table:
    m = Match(get_rules("long"), length=length, players=("Ann", "Bob"))
    seats = [Seat(SeatKind.REMOTE, "Ann", player="a"), Seat(SeatKind.REMOTE, "Bob", player="b")]
    t = Table(m, seats, clock=Clock(clock_spec("blitz")) if clock else None, auto_next=True)
    t.start(now=1000.0)
    return t


def end_game(t: Table, now: float) -> int:
    """The side to act resigns a single game and the other accepts at ``now``; returns the winner."""
    p = t.to_act
    t.act(p, "resign", level=0, now=now)
    t.act(1 - p, "accept", now=now)
    return 1 - p


def test_a_clocked_match_holds_the_pause_between_games_and_no_clock_runs_in_it():
    t = table()
    end_game(t, 1010.0)
    left = [t.clock.left(s, 1010.0) for s in (0, 1)]
    assert BETWEEN_GAMES == 6.0
    assert t.pause_until == 1016.0 and t.paused
    assert (t.status, t.to_act, len(t.match.games)) == ("game-over", None, 1)
    assert t.clock.running is None and t.clock.due() is None
    assert [t.clock.left(s, 1015.9) for s in (0, 1)] == left
    assert t.check_time(now=5000.0) is None  # no flag falls in a pause, however long
    with pytest.raises(GameStateError):
        t.act(0, "roll", now=1012.0)  # nothing to play: the game is over


def test_the_next_game_starts_by_itself_when_the_pause_is_over():
    t = table()
    end_game(t, 1010.0)
    assert t.wake(now=1015.9) is False and len(t.match.games) == 1
    assert t.wake(now=1016.0) is True
    assert len(t.match.games) == 2 and t.status == "playing" and t.pause_until is None and not t.paused
    assert t.clock.running == t.to_act and t.log[-1]["type"] == "game" and t.log[-1]["number"] == 2
    assert t.log[-1]["t"] == 1016.0
    assert t.wake(now=1030.0) is False  # once


def test_a_next_action_ends_the_pause_at_once_and_the_clock_runs_from_then():
    t = table()
    end_game(t, 1010.0)
    left = [t.clock.left(s, 1010.0) for s in (0, 1)]
    t.act(0, "next", now=1012.0)
    assert len(t.match.games) == 2 and t.pause_until is None and t.to_act is not None
    side = t.to_act
    assert t.clock.running == side
    assert t.clock.left(side, 1012.0) == pytest.approx(left[side])  # the 2 s of the pause cost nobody anything
    with pytest.raises(GameStateError) as e:
        t.act(1, "next", now=1012.5)  # the second player's Continue: the game is under way
    assert e.value.code == "game_not_over"


def test_the_pause_is_kept_in_the_saved_table_and_only_while_it_lasts():
    t = table()
    assert "pause_until" not in t.to_dict()
    end_game(t, 1010.0)
    back = Table.from_dict(t.to_dict())
    assert back.pause_until == 1016.0 and back.paused and back.clock.running is None
    assert back.wake(now=1016.5) and len(back.match.games) == 2
    assert "pause_until" not in back.to_dict()
    bad = t.to_dict()
    bad["pause_until"] = "soon"
    with pytest.raises(GameStateError):
        Table.from_dict(bad)


def test_without_a_clock_the_next_game_starts_at_once():
    t = table(clock=False)
    end_game(t, 1010.0)
    assert len(t.match.games) == 2 and t.pause_until is None and t.to_act is not None


def test_the_last_game_of_a_match_holds_no_pause():
    t = table(length=1)
    end_game(t, 1010.0)
    assert t.is_over and t.pause_until is None and not t.paused and t.wake(now=1020.0) is False

"""Arena tournaments (nardy/flow/tournament/arena.py, docs/tournaments.md "Arena", after lichess's arena rules):
a win 2, a draw 1, on a streak (after two wins in a row) double until a match not won, a berserk win +1;
performance; free players paired by points then rating, never with their last opponent; no pairing too close to
the end; the regulation's results (last-roll draw, absence)."""

from __future__ import annotations

import pytest

from nardy.flow.tournament import (
    Entrant,
    Pairing,
    Regulation,
    arena_match_points,
    arena_pairings,
    standings,
)


def test_streak_points_worked_example():
    # Ann's matches: W, W, W (berserk), D (1-1 last-roll draw), L, W, W, W, D (½-½)
    reg = Regulation(draw_points="one")
    results = [(1, 0), (1, 0), (1, 0), reg.draw(), (0, 1), (1, 0), (1, 0), (1, 0), (0.5, 0.5)]
    hist = [Pairing(i + 1, ("ann", "bob"), r, berserk=(i == 2, False)) for i, r in enumerate(results)]
    pts = arena_match_points(hist, reg)
    # 2, 2 (now on a streak), 4 + 1 berserk, 2 (a draw on a streak counts double, ends it), 0, 2, 2, 4, 2
    assert pts["ann"] == [2, 2, 5, 2, 0, 2, 2, 4, 2]
    assert sum(pts["ann"]) == 21
    # Bob: L L L D W L L L D -> 0 0 0 1 2 0 0 0 1
    assert pts["bob"] == [0, 0, 0, 1, 2, 0, 0, 0, 1]
    rows = standings([Entrant("ann", 1500), Entrant("bob", 1700)], hist, "arena", reg)
    assert [(s.rank, s.id, s.points) for s in rows] == [(1, "ann", 21.0), (2, "bob", 4.0)]
    # performance: opponents' mean rating + 400 (W - L) / N: Ann 1700 + 400 * (6 - 1) / 9
    assert rows[0].tiebreaks == {"performance": round(1700 + 400 * 5 / 9, 1), "matches": 9.0, "streak": 0.0}
    assert rows[1].tiebreaks["performance"] == round(1500 - 400 * 5 / 9, 1)


def test_a_berserk_loss_scores_nothing_and_a_double_forfeit_is_a_loss_for_both():
    hist = [Pairing(1, ("a", "b"), (0, 1), berserk=(True, True)), Pairing(2, ("a", "b"), (0, 0))]
    assert arena_match_points(hist) == {"a": [0, 0], "b": [3, 0]}


def test_a_player_on_a_streak_is_marked():
    hist = [Pairing(1, ("a", "b"), (1, 0)), Pairing(2, ("a", "c"), (1, 0))]
    rows = {s.id: s for s in standings([Entrant("a", 1), Entrant("b", 1), Entrant("c", 1)], hist, "arena")}
    assert rows["a"].tiebreaks["streak"] == 1.0 and rows["b"].tiebreaks["streak"] == 0.0
    assert rows["a"].points == 4.0 and rows["a"].rank == 1
    assert rows["b"].rank == rows["c"].rank == 2 and rows["b"].tiebreaks["performance"] == -399.0


def test_free_players_are_paired_by_points_then_rating():
    es = [Entrant("a", 1500), Entrant("b", 1600), Entrant("c", 1700), Entrant("d", 1800), Entrant("e", 1400)]
    scores = {"a": 6, "b": 6, "e": 2}
    ps = arena_pairings(es, {}, now=100.0, scores=scores, round_no=3)
    # ranking: b (6, 1600), a (6, 1500), e (2), d (0, 1800), c (0, 1700): neighbours meet, c waits
    assert [(p.round, p.board, p.players) for p in ps] == [(3, 1, ("b", "a")), (3, 2, ("e", "d"))]


def test_the_last_opponent_is_avoided_when_another_choice_exists():
    es = [Entrant("a", 1900), Entrant("b", 1800), Entrant("c", 1700), Entrant("d", 1600)]
    ps = arena_pairings(es, {"a": "b", "b": "a"}, now=0.0)
    assert [p.players for p in ps] == [("a", "c"), ("b", "d")]
    # only the last opponent is free: the player waits
    assert arena_pairings(es[:2], {"a": "b", "b": "a"}, now=0.0) == []
    # a withdrawn player is not paired
    assert arena_pairings([es[0], Entrant("b", 1800, withdrawn=True)], {}, now=0.0) == []


def test_no_pairing_is_made_too_close_to_the_end():
    es = [Entrant("a", 1900), Entrant("b", 1800)]
    assert arena_pairings(es, {}, now=950.0, ends_at=1000.0, min_left_s=60) == []
    assert len(arena_pairings(es, {}, now=900.0, ends_at=1000.0, min_left_s=60)) == 1


def test_the_regulation_scores_the_last_roll_draw_and_absence():
    assert Regulation().draw() == (0.5, 0.5)
    assert Regulation(draw_points="one").draw() == (1.0, 1.0)
    reg = Regulation(grace_s=30)
    assert reg.absence([0]) == (0.0, 1.0) and reg.absence([1]) == (1.0, 0.0) and reg.absence([0, 1]) == (0.0, 0.0)
    assert reg.win(0) == (1.0, 0.0) and reg.bye() == (1.0, 0.0)
    with pytest.raises(ValueError):
        Regulation(draw_points="two")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        reg.absence([])

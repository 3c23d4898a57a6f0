"""Glicko-2 (Glickman, "Example of the Glicko-2 system") and the match-length weighting (FIBS's sqrt(N)),
nardy/web/ratings.py; docs/online.md, "Ratings"."""

from __future__ import annotations

import math

import pytest

from nardy.web.ratings import START, Rating, clock_class, idle, match_update, update


def test_glickman_worked_example_1500_200_against_three_opponents():
    # the paper's example: tau 0.5; won against 1400/30, lost against 1550/100 and 1700/300
    games = [(Rating(1400, 30), 1, 1), (Rating(1550, 100), 0, 1), (Rating(1700, 300), 0, 1)]
    r = update(Rating(1500, 200, 0.06), games)
    # (the paper rounds its intermediate values: 1464.06 there, 1464.0507 exactly)
    assert r.rating == pytest.approx(1464.06, abs=0.01)
    assert r.rd == pytest.approx(151.52, abs=0.01)
    assert r.vol == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation():
    # step 6 alone: phi* = sqrt(phi^2 + sigma^2), on the Glicko scale
    r = update(Rating(1600, 100, 0.06), [])
    assert r.rating == 1600 and r.vol == 0.06
    assert r.rd == pytest.approx(173.7178 * math.sqrt((100 / 173.7178) ** 2 + 0.06**2))
    assert idle(Rating(1600, 100, 0.06), 6).rd == 100  # less than a period: nothing
    assert idle(Rating(1600, 100, 0.06), 14).rd == pytest.approx(update(update(Rating(1600, 100, 0.06), []), []).rd)
    assert idle(Rating(1600, 100, 0.06), 10**6).rd <= START.rd


def test_a_one_point_match_is_one_glicko2_game():
    w, lo = match_update(Rating(1550, 80), Rating(1450, 120), 1)
    assert w == update(Rating(1550, 80), [(Rating(1450, 120), 1.0, 1.0)])
    assert lo == update(Rating(1450, 120), [(Rating(1550, 80), 0.0, 1.0)])
    assert w.rating > 1550 and lo.rating < 1450


def test_match_length_scales_the_change_by_about_sqrt_n_as_fibs():
    # established players (RD 50): the change after a 9-point match is close to 3 times a 1-point match's
    one = match_update(Rating(1500, 50), Rating(1500, 50), 1)[0].rating - 1500
    nine = match_update(Rating(1500, 50), Rating(1500, 50), 9)[0].rating - 1500
    assert 2.8 < nine / one <= 3.0
    # and the deviation shrinks more after the longer match
    assert match_update(START, START, 9)[0].rd < match_update(START, START, 1)[0].rd
    # an equal match between new players: symmetric, zero sum
    w, lo = match_update(START, START, 5)
    assert w.rating - 1500 == pytest.approx(1500 - lo.rating) and w.rd == lo.rd


def test_beating_a_stronger_player_gains_more_than_beating_a_weaker_one():
    up = match_update(Rating(1500, 60), Rating(1800, 60), 3)[0].rating - 1500
    down = match_update(Rating(1500, 60), Rating(1200, 60), 3)[0].rating - 1500
    assert up > 3 * down > 0


def test_bad_results_are_refused():
    with pytest.raises(ValueError):
        update(START, [(START, 1.5, 1)])
    with pytest.raises(ValueError):
        update(START, [(START, 1, 0)])
    with pytest.raises(ValueError):
        match_update(START, START, 0)


def test_clock_classes_of_the_presets():
    assert clock_class(60, 10, 0) == "blitz"
    assert clock_class(300, 0, 12) == "rapid"
    assert clock_class(900, 0, 15) == "classic"
    assert clock_class(600) == "blitz" and clock_class(601) == "rapid" and clock_class(1201) == "classic"

"""Tests of the one-sided bearoff database (nardy.engine.bearoff).

Hand-checked values come from enumerating the 36 rolls here, independently of the module; exact means
and distributions of small positions come from a brute force in this file that follows docs/rules.md rule 5
step by step (no pruning), and the whole table is cross-checked against GNU Backgammon's one-sided
database through ``gnubg_nn.bearoff_probabilities`` (which returns P(1 roll), P(2 rolls), ...).
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from functools import cache

import numpy as np
import pytest

from nardy.engine import bearoff as bo
from nardy.rules.errors import InvalidPositionError

ROLLS36 = [(a, b) for a in range(1, 7) for b in range(1, 7)]
EMPTY = (0, 0, 0, 0, 0, 0)


# ------------------------------------------------------------------------------------------------
# An independent brute force (rule 5, every step order, no pruning)
# ------------------------------------------------------------------------------------------------


def _steps(c, d):
    """Positions after one legal step of die d from counts c (points 1..6)."""
    high = max((p for p in range(1, 7) if c[p - 1]), default=0)
    res = []
    for p in range(1, 7):
        if not c[p - 1]:
            continue
        if p == d or (p < d and p == high) or p > d:
            n = list(c)
            n[p - 1] -= 1
            if p > d:
                n[p - d - 1] += 1
            res.append(tuple(n))
    return res


def _plays(c, d1, d2):
    seqs = [(d1,) * 4] if d1 == d2 else [(d1, d2), (d2, d1)]
    out = set()
    for seq in seqs:
        frontier = {c}
        for d in seq:
            nxt = set()
            for s in frontier:
                if s == EMPTY:
                    nxt.add(s)  # game over: the remaining dice lapse
                else:
                    nxt.update(_steps(s, d))
            frontier = nxt
        out |= frontier
    return out


@cache
def _brute_mean(c):
    if c == EMPTY:
        return Fraction(0)
    return 1 + sum(Fraction(1, 36) * min(_brute_mean(r) for r in _plays(c, a, b)) for a, b in ROLLS36)


@cache
def _brute_dist(c):
    """Exact distribution (dict n -> prob) playing min-mean; None if some roll has tied best plays
    with different distributions (then the distribution is not well defined)."""
    if c == EMPTY:
        return {0: Fraction(1)}
    dist = {}
    for a, b in ROLLS36:
        plays = list(_plays(c, a, b))
        m = min(_brute_mean(r) for r in plays)
        best = [_brute_dist(r) for r in plays if _brute_mean(r) == m]
        if any(x is None for x in best) or any(x != best[0] for x in best):
            return None
        for n, p in best[0].items():
            dist[n + 1] = dist.get(n + 1, 0) + p / 36
    return dist


@cache
def _brute_first_off_mean(c):
    """Expected rolls until the first checker is off (15-checker positions), float."""
    if sum(c) < 15:
        return 0.0
    return 1.0 + sum(min(_brute_first_off_mean(r) for r in _plays(c, a, b)) for a, b in ROLLS36) / 36


def _all_positions(max_checkers):
    for n in range(max_checkers + 1):
        for pts in itertools.combinations_with_replacement(range(1, 7), n):
            yield tuple(pts.count(p) for p in range(1, 7))


# ------------------------------------------------------------------------------------------------
# The database, built once into a temporary cache dir
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    cache = tmp_path_factory.mktemp("nardy_cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NARDY_CACHE_DIR", str(cache))
        assert bo.default_path().parent == cache
        assert not bo.default_path().exists()
        database = bo.load_database()  # builds on first use
        assert bo.default_path().exists()
        assert bo.load_database() is database
        yield database


def test_full_build_writes_small_file_to_cache_dir(db):
    assert db.path.parent.name.startswith("nardy_cache")
    assert db.path.stat().st_size < 4_000_000
    assert db.rolls.shape == (bo.N_POSITIONS, bo.MAX_ROLLS) and db.rolls.dtype == np.float32
    assert db.first_off.shape == (bo.N_POSITIONS, bo.MAX_ROLLS) and db.first_off.dtype == np.float32
    assert db.mean.shape == db.first_off_mean.shape == (bo.N_POSITIONS,)


def test_command_line_build(tmp_path):
    from click.testing import CliRunner

    from nardy.cli import main

    target = tmp_path / "b.npz"
    r = CliRunner().invoke(main, ["bearoff", "build", "--path", str(target)])
    assert r.exit_code == 0, r.output
    assert target.exists() and "wrote" in r.output
    other = bo.BearoffDatabase.load(target)
    np.testing.assert_array_equal(other.rolls[:2000], bo.load_database(target).rolls[:2000])


def test_command_line_lookup_prints_exact_figures(db):
    from click.testing import CliRunner

    from nardy.cli import main

    r = CliRunner().invoke(main, ["bearoff", "lookup", "0,0,0,0,0,1", "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    # one checker on the 6 point stays on after one roll only with 1-1, 2-1, 3-1, 4-1 or 3-2 (9 rolls of 36)
    assert out["mean_rolls"] == pytest.approx(1.25)
    assert out["rolls"] == {"1": 0.75, "2": 0.25}
    r = CliRunner().invoke(main, ["bearoff", "lookup", "1,0,0,0,0,0", "--against", "0,0,0,0,0,1", "--json"])
    assert json.loads(r.output)["win"] == 1.0
    r = CliRunner().invoke(main, ["bearoff", "lookup", "1,x"])
    assert r.exit_code == 2 and "'1,x'" in r.output
    r = CliRunner().invoke(main, ["bearoff", "lookup", "9,9,0,0,0,0"])
    assert r.exit_code == 2 and "at most 15" in r.output


def test_distributions_are_complete_within_cap(db):
    # nothing is lost beyond MAX_ROLLS (the build checks exact zeros there) or by trimming
    np.testing.assert_allclose(db.rolls.sum(axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(db.first_off.sum(axis=1), 1.0, atol=1e-6)
    n = np.arange(bo.MAX_ROLLS)
    np.testing.assert_allclose(db.rolls @ n, db.mean, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(db.first_off @ n, db.first_off_mean, rtol=1e-5, atol=1e-5)
    assert db.rolls[:, -4:].max() == 0.0  # the longest bear-off (15 on the 6-point) is well under the cap


# ------------------------------------------------------------------------------------------------
# Indexing
# ------------------------------------------------------------------------------------------------


def test_index_is_a_bijection_in_gnubg_order():
    seen = {}
    for i, pos in enumerate(_all_positions(15)):  # by count, then sorted points lexicographically
        assert bo.bearoff_index(pos) == i
        seen[pos] = i
    assert len(seen) == bo.N_POSITIONS == 54264
    for i in [0, 1, 6, 7, 27, 12345, 54263]:
        assert bo.bearoff_index(bo.bearoff_position(i)) == i
    assert bo.bearoff_position(0) == EMPTY
    assert bo.bearoff_position(54263) == (0, 0, 0, 0, 0, 15)


def test_index_matches_gnubg_bearoff_ids():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for i in list(range(1, 300)) + random.Random(1).sample(range(1, bo.N_POSITIONS), 500):
        assert bo.bearoff_position(i) == tuple(gnubg_nn.bearoff_id_2_pos(i))


def test_njit_index_takes_int8_arrays():
    for pos in [(1, 0, 0, 0, 0, 0), (3, 0, 2, 0, 0, 10), (0, 0, 0, 0, 0, 15)]:
        assert bo._index_njit(np.array(pos, dtype=np.int8)) == bo.bearoff_index(pos)


@pytest.mark.parametrize(
    "bad",
    [
        (1, 0, 0, 0, 0),
        (0,) * 7,
        (-1, 0, 0, 0, 0, 0),
        (16, 0, 0, 0, 0, 0),
        (8, 8, 0, 0, 0, 0),
        (0.5, 0, 0, 0, 0, 0),
        "abcdef",
        None,
        ((1, 2), 0, 0, 0, 0, 0),
        (float("nan"), 0, 0, 0, 0, 0),
    ],
)
def test_bad_counts_raise_invalid_position_quoting_input(bad, db):
    with pytest.raises(InvalidPositionError, match="bad bearoff position"):
        bo.bearoff_index(bad)
    with pytest.raises(InvalidPositionError) as exc:
        db.rolls_distribution(bad)
    assert repr(bad) in str(exc.value)


@pytest.mark.parametrize("bad", [-1, 54264, 1.5, "3", None])
def test_bad_index_raises(bad):
    with pytest.raises(InvalidPositionError, match="bad bearoff index"):
        bo.bearoff_position(bad)


# ------------------------------------------------------------------------------------------------
# Rule 5, hand-checked
# ------------------------------------------------------------------------------------------------


def test_one_checker_on_the_1_point_bears_off_in_one_roll(db):
    d = db.rolls_distribution((1, 0, 0, 0, 0, 0))
    assert d[1] == 1.0 and d.sum() == 1.0
    assert db.mean_rolls((1, 0, 0, 0, 0, 0)) == 1.0


def test_two_checkers_on_the_1_point_bear_off_in_one_roll(db):
    assert db.rolls_distribution((2, 0, 0, 0, 0, 0))[1] == 1.0


def test_one_checker_on_the_6_point_needs_a_six_or_enough_pips(db):
    # one roll unless neither die is a 6 and the pips (four times for a double) fall short of 6
    one = sum(1 for a, b in ROLLS36 if 6 in (a, b) or (a + b if a != b else 4 * a) >= 6)
    assert one == 27
    d = db.rolls_distribution((0, 0, 0, 0, 0, 1))
    assert d[1] == pytest.approx(one / 36, abs=1e-7)
    assert d[2] == pytest.approx(1 - one / 36, abs=1e-7)  # from 1..3 every roll bears it off
    assert db.mean_rolls((0, 0, 0, 0, 0, 1)) == pytest.approx(1 + 9 / 36, abs=1e-6)


def test_a_larger_die_bears_off_from_the_highest_point(db):
    # two checkers on the 2-point: any double or a roll of two dice >= 2 takes both off; a 1 with a
    # non-double leaves one checker (2/off with the larger die, 2/1 with the 1)
    one = sum(1 for a, b in ROLLS36 if a == b or min(a, b) >= 2)
    assert one == 26
    assert db.rolls_distribution((0, 2, 0, 0, 0, 0))[1] == pytest.approx(one / 36, abs=1e-7)
    # checkers on 1 and 2: every roll (the larger die takes the 2, the other the 1; 1-1 plays 2/1 and
    # both off)
    assert db.rolls_distribution((1, 1, 0, 0, 0, 0))[1] == 1.0


def test_an_empty_die_point_below_higher_checkers_moves_inside_home(db):
    # one on 6 and one on 1 with 3-2: neither die may bear off the 1 (the 6 is higher and the dice's
    # points are empty), so both dice move the back checker: 6/3/1 or 6/4/1
    c = (1, 0, 0, 0, 0, 1)
    assert _plays(c, 3, 2) == {(2, 0, 0, 0, 0, 0)}
    out = np.zeros(128, dtype=np.int64)
    k = bo._plays_njit(np.array(c, dtype=np.int8), 3, 2, out)
    assert set(out[:k].tolist()) == {bo.bearoff_index((2, 0, 0, 0, 0, 0))}
    # both off in one roll: any 6 (6/off, then the other die takes the 1, now the highest), or a double
    # of 2..5 (6 pips for the back checker, one more die for the 1)
    one = sum(1 for a, b in ROLLS36 if 6 in (a, b) or (a == b and 2 <= a <= 5))
    assert one == 15 == sum(1 for a, b in ROLLS36 if EMPTY in _plays(c, a, b))
    assert db.rolls_distribution(c)[1] == pytest.approx(one / 36, abs=1e-7)


def test_fifteen_checkers_on_the_1_point(db):
    # every roll takes two checkers off, a double four: count rolls to take 15 off
    ans = {}
    state = {15: Fraction(1)}  # checkers left -> probability, roll by roll
    for n in range(1, 10):
        nxt = {}
        for left, p in state.items():
            for off, w in ((2, Fraction(5, 6)), (4, Fraction(1, 6))):
                r = max(left - off, 0)
                if r == 0:
                    ans[n] = ans.get(n, 0) + p * w
                else:
                    nxt[r] = nxt.get(r, 0) + p * w
        state = nxt
    d = db.rolls_distribution((15, 0, 0, 0, 0, 0))
    for n in range(bo.MAX_ROLLS):
        assert d[n] == pytest.approx(float(ans.get(n, 0)), abs=2e-7)
    assert d[8] == pytest.approx(float((Fraction(5, 6)) ** 7), abs=1e-7)  # 7 non-doubles take 14


def test_first_checker_off_from_fifteen_on_the_6_point(db):
    # the first checker is off after one roll when the roll holds a 6 or can carry one checker 6 pips
    c = (0, 0, 0, 0, 0, 15)
    one = sum(
        1 for a, b in ROLLS36 if 6 in (a, b) or (a != b and a + b == 6) or (a == b and 6 % a == 0 and 6 // a <= 4)
    )
    assert one == 17
    f = db.first_off_distribution(c)
    assert f[0] == 0.0 and f[1] == pytest.approx(one / 36, abs=1e-7)
    assert db.first_off_mean_rolls(c) < db.mean_rolls(c)
    # fewer than 15 checkers: one is already off
    assert db.first_off_distribution((0, 0, 0, 0, 0, 14))[0] == 1.0
    assert db.first_off_mean_rolls((1, 0, 0, 0, 0, 0)) == 0.0
    # an empty side is done: 0 rolls
    assert db.rolls_distribution(EMPTY)[0] == 1.0 and db.mean_rolls(EMPTY) == 0.0


# ------------------------------------------------------------------------------------------------
# Brute force cross-checks
# ------------------------------------------------------------------------------------------------


def test_plays_match_brute_force_move_generation():
    rng = random.Random(7)
    positions = list(_all_positions(4)) + [bo.bearoff_position(rng.randrange(1, bo.N_POSITIONS)) for _ in range(150)]
    out = np.zeros(128, dtype=np.int64)
    for c in positions:
        if c == EMPTY:
            continue
        for a in range(1, 7):
            for b in range(a, 7):
                arr = np.array(c, dtype=np.int8)
                k = bo._plays_njit(arr, a, b, out)
                assert tuple(arr) == c  # restored
                got = {bo.bearoff_position(int(i)) for i in out[:k]}
                assert got == _plays(c, a, b), (c, a, b)


def test_exact_means_and_distributions_of_small_positions(db):
    undefined = 0
    for c in _all_positions(4):
        assert db.mean_rolls(c) == pytest.approx(float(_brute_mean(c)), abs=2e-6), c
        exact = _brute_dist(c)
        if exact is None:
            undefined += 1
            continue
        d = db.rolls_distribution(c)
        for n in range(bo.MAX_ROLLS):
            assert d[n] == pytest.approx(float(exact.get(n, 0)), abs=2e-7), (c, n)
    assert undefined < 20


def test_first_off_means_by_brute_force(db):
    # 15-checker positions on points 1..4 (the first-off recursion stays among them)
    for c in _all_positions(15):
        if sum(c) == 15 and c[4] == c[5] == 0:
            assert db.first_off_mean_rolls(c) == pytest.approx(_brute_first_off_mean(c), abs=2e-6), c


def test_matches_gnubg_one_sided_database():
    """gnubg's table stores 16-bit probabilities and picks plays by its rounded means, so near-ties
    (means within ~1e-4) can go the other way: means agree to 3e-4, single entries to 3e-3."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    db = bo.load_database()
    rng = random.Random(3)
    idx = list(range(1, 210)) + rng.sample(range(210, bo.N_POSITIONS), 3000)
    close = 0
    for i in idx:
        pos = bo.bearoff_position(i)
        g = np.array(gnubg_nn.bearoff_probabilities(pos), dtype=np.float64)  # P(1 roll), P(2 rolls), ...
        mine = db.rolls[i].astype(np.float64)
        assert mine[0] == 0.0 and mine[1 + len(g) :].sum() < 1e-4  # gnubg drops its tiny tail
        assert np.abs(mine[1 : 1 + len(g)] - g).max() < 3e-3, pos
        assert float(np.arange(1, len(g) + 1) @ g) == pytest.approx(db.mean[i], abs=3e-4), pos
        close += np.abs(mine[1 : 1 + len(g)] - g).max() < 1e-4
    assert close > 0.97 * len(idx)


# ------------------------------------------------------------------------------------------------
# Races
# ------------------------------------------------------------------------------------------------


def test_race_win_probability_mover_rolls_first(db):
    one6, one1 = (0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0)
    assert bo.race_win_probability(one1, (0, 0, 0, 0, 0, 15)) == 1.0
    assert bo.race_win_probability(one6, one1) == pytest.approx(0.75, abs=1e-6)
    assert bo.race_win_probability(one1, one6) == 1.0
    assert bo.race_win_probability(one6, one6) == pytest.approx(0.75 + 0.25 * 0.25, abs=1e-6)
    assert bo.race_win_probability(EMPTY, one1) == 1.0
    assert bo.race_win_probability(one1, EMPTY) == 0.0
    # symmetric-ish sanity: the side on roll is the favourite in an even race
    p = bo.race_win_probability((0, 0, 3, 3, 3, 6), (0, 0, 3, 3, 3, 6))
    assert 0.5 < p < 1.0
    with pytest.raises(InvalidPositionError):
        bo.race_win_probability((1, 0, 0), one1)


def test_race_gammon_probabilities(db):
    one6, one1, full6 = (0, 0, 0, 0, 0, 1), (1, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0, 15)
    assert bo.race_gammon_probabilities(one1, full6) == pytest.approx((1.0, 0.0), abs=1e-6)
    mover, opp = bo.race_gammon_probabilities(one6, full6)
    assert mover == pytest.approx(0.75 + 0.25 * 19 / 36, abs=1e-6) and opp == 0.0
    mover, opp = bo.race_gammon_probabilities(full6, one1)
    assert mover == pytest.approx(0.0, abs=1e-6) and opp == pytest.approx(19 / 36, abs=1e-6)
    assert bo.race_gammon_probabilities(one1, one6) == (0.0, 0.0)  # both have borne off already


# ------------------------------------------------------------------------------------------------
# Short nardy's strict bear-off (docs/rules.md "Short nardy bear-off")
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def strict_db(tmp_path_factory):
    cache = tmp_path_factory.mktemp("nardy_cache_strict")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("NARDY_CACHE_DIR", str(cache))
        path = bo.default_path(strict=True)
        assert path.name == f"bearoff1_strict_r{bo.STRICT_REVISION}_v{bo.FORMAT_VERSION}.npz" and not path.exists()
        database = bo.load_database(strict=True)
        assert path.exists() and database.strict
        yield database


def _engine_scratch():
    """Scratch buffers of ``bo._engine_plays_njit``: board, dice, results, offsets."""
    return (np.zeros((1, 28), np.int8), np.zeros((1, 2), np.int64), np.zeros((512, 28), np.int8), np.zeros(2, np.int64))


def test_engine_plays_equal_the_bearoff_generator_under_the_standard_rule():
    """The rules engine (nardy.rules._movegen) and the database's own generator give the same plays on every roll."""
    rng = random.Random(11)
    positions = list(_all_positions(3)) + [bo.bearoff_position(rng.randrange(1, bo.N_POSITIONS)) for _ in range(300)]
    out_a = np.zeros(128, dtype=np.int64)
    out_b = np.zeros(128, dtype=np.int64)
    scratch = _engine_scratch()
    for c in positions:
        if c == EMPTY:
            continue
        arr = np.array(c, dtype=np.int8)
        for a in range(1, 7):
            for b in range(a, 7):
                ka = bo._plays_njit(arr, a, b, out_a)
                kb = bo._engine_plays_njit(arr, a, b, False, *scratch, out_b)
                assert set(out_a[:ka]) == set(out_b[:kb]), (c, a, b)


def test_strict_rule_one_checker_on_the_5_point(strict_db, db):
    """Alone on the 5-point, 2-4, 3-4, 2-2, 3-3 and 4-4 bear off by the standard rule (e.g. 5/1/off with
    the 4 then the 2) but not by the strict one (the moved checker may not use a die larger than its
    point; 4-4 plays 5/1 and stops): 24 of 36 rolls instead of 31, then one more roll always suffices."""
    c = (0, 0, 0, 0, 1, 0)
    assert db.rolls_distribution(c)[1] == pytest.approx(31 / 36)
    assert strict_db.rolls_distribution(c)[1] == pytest.approx(24 / 36)
    assert strict_db.rolls_distribution(c)[2] == pytest.approx(12 / 36)
    assert strict_db.mean_rolls(c) == pytest.approx(1 + 12 / 36)
    assert db.mean_rolls(c) == pytest.approx(1 + 5 / 36)


def test_strict_rule_changes_nothing_when_no_checker_moves_before_bearing_off(strict_db, db):
    # one checker on each of points 1..2, or a single checker on point 1 or 2: every roll is direct
    for c in [(1, 0, 0, 0, 0, 0), (0, 1, 0, 0, 0, 0), (1, 1, 0, 0, 0, 0), (2, 0, 0, 0, 0, 0)]:
        np.testing.assert_array_equal(strict_db.rolls_distribution(c), db.rolls_distribution(c))


def test_strict_rule_moved_checker_joining_an_unmoved_one_is_not_borne_off_by_a_larger_die(strict_db, db):
    """Checkers on 5 and 1: with 4-4 the 5 moves 5/1 and one 4 bears off the checker that was on 1, but the
    one that moved may not use a 4 (larger than its point 1): the strict rule bears both off in one roll
    with 20 of the 36 rolls (not 2-2, 3-3 or 4-4), the standard one with 23 (docs/rules.md "Short nardy
    bear-off"). Before the fix 4-4 bore both off (22 rolls)."""
    c = (1, 0, 0, 0, 1, 0)
    assert db.rolls_distribution(c)[1] == pytest.approx(23 / 36)
    assert strict_db.rolls_distribution(c)[1] == pytest.approx(20 / 36)
    assert strict_db.mean_rolls(c) == pytest.approx(1 + 16 / 36)


def test_strict_rule_six_one_from_the_6_point(strict_db):
    """docs/rules.md's example: one checker on 6, others lower, 6-1: 6/5/off is not a play. With checkers on 6
    and 1 the strict rule still bears both off (6/off, 1/off) in one roll."""
    assert strict_db.rolls_distribution((1, 0, 0, 0, 0, 1))[1] > 0
    arr = np.array((0, 1, 0, 0, 0, 1), np.int8)  # on 2 and 6
    out = np.zeros(128, dtype=np.int64)
    scratch = _engine_scratch()
    k = bo._engine_plays_njit(arr, 6, 1, True, *scratch, out)
    got = {bo.bearoff_position(int(i)) for i in out[:k]}
    # 6/off then the 1: 2/1; or 6/off and ... never 6/5/off leaving the 2
    assert (0, 1, 0, 0, 0, 0) not in got
    assert got == {(1, 0, 0, 0, 0, 0)}


def test_short_nardy_bots_use_the_strict_database(strict_db, db):
    from nardy.engine.evaluator import BearoffEvaluator

    assert BearoffEvaluator("short", None).db.strict
    assert not BearoffEvaluator("backgammon", None).db.strict
    assert not BearoffEvaluator("long", None).db.strict


def test_loading_a_database_of_the_other_rule_is_refused(strict_db, db):
    with pytest.raises(ValueError, match="strict bear-off, not the standard"):
        bo.load_database(strict_db.path, strict=False)
    with pytest.raises(ValueError, match="standard bear-off, not the strict"):
        bo.load_database(db.path, strict=True)


def test_command_line_lookup_strict(strict_db, tmp_path):
    from click.testing import CliRunner

    from nardy.cli import main

    r = CliRunner(env={"NARDY_CACHE_DIR": str(strict_db.path.parent)}).invoke(
        main, ["bearoff", "lookup", "0,0,0,0,1,0", "--strict", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["mean_rolls"] == pytest.approx(4 / 3, abs=1e-6)

"""Evaluators: encoding symmetry, probability ranges and consistency, exact finished games, bearoff races."""

from __future__ import annotations

import numpy as np
import pytest

from nardy import Position
from nardy.engine import _kernels as K
from nardy.engine.evaluator import (
    LEVELS,
    OUTPUT_NAMES,
    BearoffEvaluator,
    Probabilities,
    default_evaluator,
    flip_probs,
    money_equity,
    terminal_probs,
)
from nardy.engine.net import GAME_CODES
from nardy.engine.search import mirror_boards

GAMES = ("backgammon", "short", "long")


def _random_positions(game, n_games=4, seed=0):
    """Positions met in a few random games (side on roll's view)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_games):
        pos = Position.start(game)
        for _ in range(400):
            plays = pos.legal_plays((int(rng.integers(1, 7)), int(rng.integers(1, 7))))
            nxt = plays[int(rng.integers(len(plays)))].result
            if nxt.is_game_over():
                break
            pos = nxt.mirror()
            out.append(pos)
    return out


@pytest.mark.parametrize("game", GAMES)
def test_encoding_is_symmetric_between_the_sides(game):
    code = GAME_CODES[game]
    for pos in _random_positions(game, 2)[::7]:
        b = np.ascontiguousarray(pos.array)
        m = mirror_boards(b.reshape(1, 28), pos.rules.hitting)[0]
        x = np.zeros(K.N_INPUTS, np.float32)
        y = np.zeros(K.N_INPUTS, np.float32)
        K.encode(b, code, pos.first_turn[0], pos.first_turn[1], x)
        K.encode(m, code, pos.first_turn[1], pos.first_turn[0], y)
        s = K.SIDE_INPUTS
        assert np.array_equal(x[:s], y[s : 2 * s])
        assert np.array_equal(x[s : 2 * s], y[:s])
        k = 2 * s
        if pos.rules.hitting:
            assert x[k + 4] == y[k + 5] and x[k + 5] == y[k + 4]
            assert x[k + 6] == y[k + 7] and x[k + 7] == y[k + 6]
            assert x[k + 12] == y[k + 13] and x[k + 14] == y[k + 15]  # escapes, containment
        else:  # long nardy mobility: the mover's eight inputs are the opponent's eight seen from its side
            v = K.N_INPUTS_V4
            assert np.array_equal(x[v : v + 8], y[v + 8 : v + 16]) and np.array_equal(x[v + 8 : v + 16], y[v : v + 8])
        # the vectorised mirror agrees with the engine's
        assert m.tobytes() == pos.mirror().array.tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_probabilities_in_range_and_consistent(game):
    ev = default_evaluator(game)
    positions = _random_positions(game, 3, seed=1)
    boards = np.array([p.array for p in positions])
    first = np.array([p.first_turn for p in positions])
    out = ev.evaluate_batch(boards, first)
    L = len(LEVELS[game])
    assert out.shape == (len(positions), len(OUTPUT_NAMES[game]))
    assert np.all(out >= 0) and np.all(out <= 1)
    assert np.all(np.diff(out[:, :L], axis=1) <= 1e-6)  # win >= gammon >= backgammon
    assert np.all(out[:, L] <= 1 - out[:, 0] + 1e-6)  # lose gammon <= lose
    assert np.all(np.diff(out[:, L:], axis=1) <= 1e-6)
    p = ev.evaluate(positions[0])
    ex = p.exclusive()
    assert sum(ex["win"].values()) + sum(ex["lose"].values()) == pytest.approx(1.0, abs=1e-5)
    assert p["lose"] == pytest.approx(1 - p.win)
    assert set(p.as_dict()) == set(OUTPUT_NAMES[game]) | {"lose"}


@pytest.mark.parametrize("game", GAMES)
def test_flip_and_equity(game):
    k = len(OUTPUT_NAMES[game])
    rng = np.random.default_rng(2)
    p = rng.random((5, k)).astype(np.float32)
    assert np.allclose(flip_probs(flip_probs(p, game), game), p)
    assert np.allclose(money_equity(flip_probs(p, game), game), -money_equity(p, game), atol=1e-6)
    top = np.ones(k)
    L = len(LEVELS[game])
    top[L:] = 0
    assert money_equity(top, game) == pytest.approx(Position.start(game).rules.scoring[-1])


def test_hit_chance_counts_rolls():
    # a mover checker 6 pips behind an opponent blot: 11 rolls with a 6, 5-1, 4-2 (twice each), 3-3, 2-2
    m = [0] * 26
    o = [0] * 26
    m[13], m[6] = 1, 14
    o[18], o[1] = 1, 14  # the opponent's 18 is the mover's 7
    pos = Position.from_boards(m, o, "backgammon")
    assert K.hit_chance(np.ascontiguousarray(pos.array)) * 36 == pytest.approx(17)
    assert K.hit_chance(np.ascontiguousarray(Position.start("backgammon").array)) == 0.0


def test_pip_loss_and_closed_board_inputs():
    # the 17 hitting rolls all hit the blot on the mover's 7: the opponent loses 7 pips each time
    m = [0] * 26
    o = [0] * 26
    m[13], m[6] = 1, 14
    o[18], o[1] = 1, 14
    b = np.ascontiguousarray(Position.from_boards(m, o, "backgammon").array)
    assert K.hit_stats(b) == (17, 17 * 7)
    x = np.zeros(K.N_INPUTS, np.float32)
    K.encode(b, K.GAME_BG, False, False, x)
    k = 2 * K.SIDE_INPUTS
    assert x[k + 8] == pytest.approx(17 * 7 / (36 * 12))
    # the mover holds its 6 point, the opponent its 1 point (the mover's 24): one closed point each
    assert x[k + 10] == pytest.approx(1 / 36) and x[k + 11] == pytest.approx(1 / 36)
    # a pure race has no contact inputs
    x2 = np.zeros(K.N_INPUTS, np.float32)
    race = [0] * 26
    race[1] = 15
    b2 = np.ascontiguousarray(Position.from_boards(race, race, "backgammon").array)
    K.encode(b2, K.GAME_BG, False, False, x2)
    assert x2[k] == 1.0 and not x2[k + 4 : k + 6].any() and not x2[k + 8 : k + 12].any()


def test_escape_inputs_count_rolls_past_the_opponents_points():
    # gnubg's escape count: a roll escapes when the point its whole move reaches is open and one of its
    # single-die points is open. Nothing held in front: all 36; points 2..6 pips ahead held: only 6-1.
    assert K.ESCAPES[0] == 36 and K.ESCAPES[0b111110] == 2 and K.ESCAPES[0b111111] == 0
    # at the start the mover's back checkers on its 24 face the opponent's points 5, 7 and 12 pips ahead:
    # sums 5 (4 rolls), 7 (6), 12 (6-6) and 5-5 (single 5 held) are stopped, 24 rolls escape
    b = np.ascontiguousarray(Position.start("backgammon").array)
    x = np.zeros(K.N_INPUTS, np.float32)
    K.encode(b, K.GAME_BG, False, False, x)
    k = 2 * K.SIDE_INPUTS
    assert x[k + 12] * 36 == pytest.approx(24) and x[k + 13] * 36 == pytest.approx(24)
    # a full prime: the opponent holds the mover's points 18..13 (its 7..12), the mover's back checker is on
    # its 20. Only the 19 (1 pip) is open within 7 pips, and no roll with a 1 reaches past the 13: 0 escape
    m = [0] * 26
    o = [0] * 26
    m[20], m[6] = 1, 14
    for q in range(7, 13):  # opponent points 7..12 = mover points 18..13
        o[q] = 2
    o[1] = 3
    b = np.ascontiguousarray(Position.from_boards(m, o, "backgammon").array)
    assert K._back_escapes(b) == 0
    K.encode(b, K.GAME_BG, False, False, x)
    assert x[k + 12] == 0.0 and x[k + 14] == pytest.approx(1.0)  # no escape from the 20: fully contained
    # a race has no escape inputs
    race = [0] * 26
    race[1] = 15
    b2 = np.ascontiguousarray(Position.from_boards(race, race, "backgammon").array)
    K.encode(b2, K.GAME_BG, False, False, x)
    assert not x[k + 12 : k + 16].any()


def test_hit_chance_equals_a_count_over_all_36_ordered_rolls():
    # hit_chance counts 21 rolls with weight 2 for non-doubles: the same as trying both dice orders
    for pos in _random_positions("backgammon", n_games=6, seed=3):
        b = np.ascontiguousarray(pos.array)
        n = sum(K._best_hit(b, a, c) > 0 for a in range(1, 7) for c in range(1, 7))
        assert K.hit_chance(b) * 36 == pytest.approx(n)


def test_hit_stats_equal_the_best_hit_of_every_roll_on_random_boards():
    # hit_stats lists the mover's points once and scans only them; the answer must be _best_hit's per roll,
    # summed as the pip-loss input defines it, on boards of all kinds (both views, checkers on the bar)
    positions = _random_positions("backgammon", n_games=12, seed=3)
    with_bar = 0
    for pos in positions:
        for v in (np.ascontiguousarray(pos.array), np.ascontiguousarray(pos.mirror().array)):
            hits = [K._best_hit(v, a, c) for a in range(1, 7) for c in range(1, 7)]
            assert K.hit_stats(v) == (sum(t > 0 for t in hits), sum(hits)), v.tolist()
            with_bar += v[25] > 0
    assert len(positions) > 1000 and with_bar > 100


def _steppable(side, other, d):
    """Checkers of ``side`` (own numbering, ``side[q]`` for q = 1..24) that can step ``d`` pips in long nardy,
    ``other`` the other side's checkers in *its* numbering: the definition of the mobility inputs, written
    from the docs (a point is held by any checker; the head counts once; bear-off exact or from the highest)."""
    held = {((q + 11) % 24) + 1 for q in range(1, 25) if other[q] > 0}  # in side's numbering
    occupied = [q for q in range(24, 0, -1) if side[q] > 0]
    home = all(q <= 6 for q in occupied)
    n = 0
    for q in occupied:
        t = q - d
        if (t >= 1 and t not in held) or (t < 1 and home and (t == 0 or q == occupied[0])):
            n += 1 if q == 24 else side[q]
    return n


def test_long_nardy_mobility_inputs_count_the_checkers_that_can_step_each_die():
    rolls = [(a, b) for a in range(1, 7) for b in range(a, 7)]
    for pos in _random_positions("long", 3, seed=4)[::3]:
        x = np.zeros(K.N_INPUTS, np.float32)
        K.encode(np.ascontiguousarray(pos.array), K.GAME_LONG, pos.first_turn[0], pos.first_turn[1], x)
        v = K.N_INPUTS_V4
        me = [0, *(max(0, c) for c in pos.array[1:25])]
        opp = [0] * 25
        for p in range(1, 25):  # the opponent's checkers in its own numbering
            if pos.array[p] < 0:
                opp[((p + 11) % 24) + 1] = -int(pos.array[p])
        for base, side, other in ((v, me, opp), (v + 8, opp, me)):
            steps = [_steppable(side, other, d) for d in range(1, 7)]
            assert x[base : base + 6] == pytest.approx([s / 15 for s in steps])
            none = sum(1 if a == b else 2 for a, b in rolls if not steps[a - 1] and not steps[b - 1])
            one = sum(2 for a, b in rolls if a != b and (steps[a - 1] > 0) != (steps[b - 1] > 0))
            assert x[base + 6] == pytest.approx(none / 36) and x[base + 7] == pytest.approx(one / 36)
        # the rules engine agrees: a roll neither of whose dice any checker can step has no play
        for a, b in rolls:
            if _steppable(me, opp, a) == 0 and _steppable(me, opp, b) == 0:
                plays = pos.legal_plays((a, b))
                assert len(plays) == 1 and not plays[0].steps
    # a checker on the head counts once, the others on a point each
    start = Position.start("long")
    x = np.zeros(K.N_INPUTS, np.float32)
    K.encode(np.ascontiguousarray(start.array), K.GAME_LONG, True, True, x)
    assert x[K.N_INPUTS_V4 : K.N_INPUTS_V4 + 8] == pytest.approx([1 / 15] * 6 + [0, 0])


def test_finished_games_are_exact():
    # backgammon: mover bore off all 15, opponent has nothing off and a checker in mover's home: backgammon
    mover = [15] + [0] * 25
    opp = [0] * 26
    opp[20] = 1  # opponent's own 20 = mover's 5
    opp[6] = 14
    pos = Position.from_boards(mover, opp, "backgammon")
    t = terminal_probs(pos.array, "backgammon")
    assert list(t) == [1, 1, 1, 0, 0]
    t2 = terminal_probs(pos.mirror().array, "backgammon")
    assert list(t2) == [0, 0, 0, 1, 1]
    # short nardy: koks (a loser checker on the bar)
    opp = [0] * 26
    opp[25] = 1
    opp[6] = 14
    pos = Position.from_boards(mover, opp, "short")
    assert list(terminal_probs(pos.array, "short")) == [1, 1, 1, 1, 0, 0, 0]
    # long nardy: the loser has one off: oyn
    opp = [1] + [0] * 25
    opp[24] = 14
    pos = Position.from_boards(mover, opp, "long")
    assert list(terminal_probs(pos.array, "long")) == [1, 0, 0]


@pytest.mark.parametrize("game", GAMES)
def test_bearoff_race_values(game):
    ev = BearoffEvaluator(game)
    # one checker each on the 1-point: the side on roll always wins
    m = [14, 1] + [0] * 24
    o = [14, 1] + [0] * 24
    pos = Position.from_boards(m, o, game)
    assert ev.applies(pos.array.reshape(1, 28))[0]
    p = ev.evaluate(pos)
    assert p.win == pytest.approx(1.0)
    assert p.array[1] == 0.0
    # identical positions: being on roll is an edge
    m = [9, 1, 1, 1, 1, 1, 1] + [0] * 19
    pos = Position.from_boards(m, list(m), game)
    p = ev.evaluate(pos)
    assert 0.5 < p.win < 1.0
    # the net's evaluator uses the database in such positions
    assert default_evaluator(game).evaluate(pos).win == pytest.approx(p.win)


def test_gammon_chance_in_a_bearoff():
    # mover: 1 checker on the 1-point; opponent: 15 checkers home, none off -> mover wins a gammon now
    m = [14, 1] + [0] * 24
    o = [0, 0, 0, 0, 0, 0, 15] + [0] * 19
    pos = Position.from_boards(m, o, "backgammon")
    p = BearoffEvaluator("backgammon").evaluate(pos)
    assert p.win == pytest.approx(1.0) and p.win_gammon == pytest.approx(1.0)
    assert isinstance(p, Probabilities)


def test_training_is_reproducible_and_the_command_runs(tmp_path):
    from click.testing import CliRunner

    from nardy.cli.train import train
    from nardy.engine.net import Net
    from nardy.engine.tdtrain import train_net

    a = train_net(Net.random("short", 16, seed=3), 20, seed=5, lr=0.05, lr_final=0.01, lam=0.7, chunk=10)
    b = train_net(Net.random("short", 16, seed=3), 20, seed=5, lr=0.05, lr_final=0.01, lam=0.7, chunk=10)
    assert np.array_equal(a.W1, b.W1) and np.array_equal(a.W2, b.W2)
    assert not np.array_equal(a.W1, Net.random("short", 16, seed=3).W1)
    out = tmp_path / "long.npz"
    r = CliRunner().invoke(
        train,
        [
            "--game",
            "long-nardy",
            "--games",
            "10",
            "--hidden",
            "8",
            "--chunk",
            "5",
            "--checkpoint-every",
            "10",
            "--bench-games",
            "4",
            "--out",
            str(out),
        ],
    )
    assert r.exit_code == 0, r.output
    net = Net.load(out)
    assert net.game == "long" and net.games_trained == 10
    assert (tmp_path / "checkpoints-long" / "log.jsonl").exists()


@pytest.mark.parametrize("game", GAMES)
def test_batched_net_outputs_equal_the_row_kernel(game):
    """Net.forward_inputs computes layer by layer with a vectorised sigmoid from DENSE_BATCH rows on, and
    with the compiled row kernel below; both give the same outputs (float32 rounding)."""
    from nardy.engine.net import DENSE_BATCH, Net, shipped_path

    net = Net.load(shipped_path(game))
    positions = _random_positions(game, 3, seed=4)
    boards = np.ascontiguousarray([p.array for p in positions], np.int8)
    assert len(boards) >= DENSE_BATCH
    f = np.zeros(len(boards), np.bool_)
    x = K.encode_batch(boards, net.code, f, f)
    dense = net.forward_inputs(x)
    rows = K.forward_batch(*net.kernel_weights, x)
    assert dense.dtype == np.float32 and dense.shape == (len(boards), int(K.N_OUTPUTS[net.code]))
    assert np.abs(dense - rows).max() < 1e-5
    small = net.forward_inputs(x[: DENSE_BATCH - 1])
    assert np.array_equal(small, rows[: DENSE_BATCH - 1])
    # extreme pre-activations saturate instead of overflowing
    big = np.full((DENSE_BATCH, K.N_INPUTS), 1e4, np.float32)
    out = net.forward_inputs(big)
    assert np.isfinite(out).all() and ((out >= 0) & (out <= 1)).all()

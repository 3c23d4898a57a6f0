"""Search: winning bear-offs, ranking consistency, n-ply evaluation."""

from __future__ import annotations

import numpy as np
import pytest

from nardy import Position
from nardy.engine.evaluator import flip_probs
from nardy.engine.search import ROLL_WEIGHTS, ROLLS21, Deadline, Searcher, mirror_boards
from nardy.flow.bot import Bot

GAMES = ("backgammon", "short", "long")


def _near_end(game):
    # mover: checkers on own 6 and 2; opponent: one checker left on its 1-point (wins next turn)
    m = [13, 0, 1, 0, 0, 0, 1] + [0] * 19
    o = [14, 1] + [0] * 24
    return Position.from_boards(m, o, game)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("level", ["advanced", "expert", "grandmaster"])
def test_search_picks_the_winning_bear_off(game, level):
    pos = _near_end(game)
    plays = pos.legal_plays((6, 4))
    assert len(plays) > 1
    bot = Bot(game, level=level)
    play = bot.choose_play(pos, (6, 4))
    assert play.result.array[0] == 15
    hints = bot.hints(pos, (6, 4), n=3)
    assert hints[0].play == play and hints[0].loss == 0.0
    assert hints[0].probabilities.win == 1.0


def test_ply_rolls_and_weights():
    assert len(ROLLS21) == 21
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("game", GAMES)
def test_hints_sorted_and_match_choice(game):
    pos = Position.start(game)
    bot = Bot(game, level="advanced")
    hints = bot.hints(pos, (5, 3), n=10)
    eqs = [h.equity for h in hints]
    assert eqs == sorted(eqs, reverse=True)
    assert bot.choose_play(pos, (5, 3)) == hints[0].play
    assert all(h.play in pos.legal_plays((5, 3)) for h in hints)


def test_one_ply_is_the_average_over_rolls():
    game = "backgammon"
    bot = Bot(game, level="expert")
    s: Searcher = bot.searcher
    pos = Position.start(game)
    one = s.evaluate_positions(pos.array.reshape(1, 28), None, 1)[0]
    # by hand: for each roll the best 0-ply play, averaged
    acc = np.zeros_like(one, dtype=np.float64)
    for (a, b), w in zip(ROLLS21, ROLL_WEIGHTS):
        res = pos.legal_results((int(a), int(b)))
        vals = s.result_values(res, np.zeros(len(res), bool))
        acc += w * vals[int(np.argmax(s.equity(vals)))]
    assert np.allclose(one, acc, atol=1e-5)


def test_two_ply_runs_in_a_bearoff_exactly():
    # in a pure bear-off the database is exact, so deeper plies agree closely with 0-ply
    m = [9, 1, 1, 1, 1, 1, 1] + [0] * 19
    pos = Position.from_boards(m, list(m), "backgammon")
    s = Bot("backgammon").searcher
    b = pos.array.reshape(1, 28)
    p0 = s.evaluate_positions(b, None, 0)[0]
    p2 = s.evaluate_positions(b, None, 2)[0]
    assert abs(p0[0] - p2[0]) < 0.01


@pytest.mark.parametrize("game,kept", [("backgammon", 5), ("short", 3)])
def test_two_ply_searches_the_games_filtered_candidates(game, kept):
    # opening 4-3 has many plays close together at 1-ply: backgammon's 1-ply filter keeps 5 for 2-ply
    # (measured to lose less equity than 3), the nardy games keep 3 (their 2-ply is slower)
    bot = Bot(game, level="grandmaster")
    cands = bot.searcher.rank(Position.start(game), (4, 3), ply=2)
    assert bot.searcher.filters[1][0] == kept
    assert [c.ply for c in cands[: kept + 1]] == [2] * kept + [1]
    assert Bot("long").searcher.filters[1] == (3, 0.06)


def _long_positions_with_doubles(n, seed):
    from tests.helpers import random_positions

    return [p for p, _ in random_positions("long", n, seed, doubles_share=0.5)]


def test_long_nardy_doubles_transposition_search_keeps_every_play_and_step():
    """docs/rules.md rule 4 (each resulting position once): the doubles search that skips intermediate positions
    already searched finds the same plays, with the same steps, in the same order, as the plain search,
    including partial turns (fewer dice left, a checker already off the head) and first turns."""
    from nardy.rules import _movegen as _core

    positions = _long_positions_with_doubles(300, seed=12)
    ob = np.empty((_core.MAX_PLAYS, 28), np.int8)
    os_ = np.zeros((_core.MAX_PLAYS, 4, 4), np.int8)
    on = np.empty(_core.MAX_PLAYS, np.int8)
    ok = np.empty((_core.MAX_PLAYS, 2), np.uint64)
    checked = repeated = 0
    for i, p in enumerate(positions):
        for d in range(1, 7):
            ndice, heads, hl, leaves = (4, 0, p.head_limit((d, d)), False) if i % 3 else (3, 1, 2, True)
            runs = []
            for transpose in (False, True):
                n = _core.generate(
                    p.array,
                    np.zeros(26, np.int8),
                    heads,
                    np.full(4, d, np.int64),
                    ndice,
                    True,
                    False,
                    False,
                    hl,
                    False,
                    leaves,
                    ob,
                    os_,
                    on,
                    ok,
                    transpose,
                )
                steps = os_[:n].copy()
                for r in range(n):
                    steps[r, on[r] :] = 0
                runs.append((ob[:n].copy(), steps, on[:n].copy()))
            (b0, s0, n0), (b1, s1, n1) = runs
            assert np.array_equal(b0, b1) and np.array_equal(s0, s1) and np.array_equal(n0, n1), (p.id(), d)
            checked += 1
            repeated += len(b0) > 20
    assert checked == 1800 and repeated > 100  # many doubles with plenty of plays were compared


def test_unique_boards_first_occurrences_and_inverse():
    from nardy.engine import _kernels as K

    rng = np.random.default_rng(3)
    base = rng.integers(-3, 4, size=(40, 28)).astype(np.int8)
    boards = base[rng.integers(0, 40, size=500)]
    fm = rng.random(500) < 0.3
    fo = rng.random(500) < 0.3
    first, inverse = K.unique_boards(boards, fm, fo)
    keys = [b.tobytes() + bytes([int(a), int(c)]) for b, a, c in zip(boards, fm, fo)]
    expected = list(dict.fromkeys(keys))  # distinct keys in order of first occurrence
    assert [keys[i] for i in first] == expected
    assert all(keys[first[inverse[i]]] == keys[i] for i in range(500))
    assert np.array_equal(np.sort(first), first) and len(set(first.tolist())) == len(first)


@pytest.mark.parametrize("game", GAMES)
def test_search_dedupe_gives_the_same_bits(game):
    """Generating repeated positions once and evaluating repeated boards once changes no output bit: 1-ply
    values of a batch with repeats, and 2-ply hints, equal those of the plain search exactly."""
    from nardy.engine.evaluator import NeuralEvaluator
    from tests.helpers import random_positions

    bot = Bot(game, level="grandmaster", seed=1)
    s = bot.searcher
    spots = random_positions(game, 40, seed=7)
    boards = np.array([p.array for p, _ in spots for _ in range(2)], np.int8)  # every board twice
    first = np.zeros((len(boards), 2), np.bool_)
    out = {}
    for on in (False, True):
        Searcher.dedupe = on
        NeuralEvaluator.dedupe_from = 16 if on else 1 << 62
        try:
            v1 = s.evaluate_positions(boards, first, ply=1)
            hints = [[(str(h.play), h.equity) for h in bot.hints(p, d, n=3)] for p, d in spots[5:30:6]]
        finally:
            Searcher.dedupe = True
            NeuralEvaluator.dedupe_from = 16
        out[on] = (v1, hints)
    assert np.array_equal(out[False][0], out[True][0])
    assert np.array_equal(out[True][0][0::2], out[True][0][1::2])
    assert out[False][1] == out[True][1]


def test_three_ply_is_the_average_over_rolls_of_the_two_ply_after_the_best_reply():
    # n-ply (module docstring): for each of the 21 rolls the best play at 0-ply, its result valued at (n-1)-ply
    s: Searcher = Bot("backgammon", level="champion").searcher
    pos = Position.start("backgammon")
    three = s.evaluate_positions(pos.array.reshape(1, 28), None, 3)[0]
    acc = np.zeros_like(three, dtype=np.float64)
    for (a, b), w in zip(ROLLS21, ROLL_WEIGHTS):
        res = pos.legal_results((int(a), int(b)))
        best = res[int(np.argmax(s.equity(s.result_values(res, np.zeros(len(res), bool)))))]
        two = s.evaluate_positions(mirror_boards(best.reshape(1, 28), True), None, 2)[0]
        acc += w * flip_probs(two.reshape(1, -1), "backgammon")[0]
    assert np.allclose(three, acc, atol=1e-5)
    assert abs(three[0] - 0.5) < 0.1  # the opening position is near even


def test_champion_searches_the_best_two_of_the_two_ply_a_ply_deeper():
    # the 2-ply filter (2, 0.04) before the 3-ply stage; a deadline that never runs out changes no bit (the
    # inner chunks of a 3-ply search give the same values as one batch)
    bot = Bot("backgammon", level="champion")
    assert bot.searcher.filters[2] == (2, 0.04)
    pos = Position.start("backgammon")
    cands = bot.searcher.rank(pos, (6, 2), ply=3)
    assert [c.ply for c in cands[:3]] == [3, 3, 2]
    again = bot.searcher.rank(pos, (6, 2), ply=3, deadline=Deadline(600))
    assert [(c.index, c.equity) for c in again] == [(c.index, c.equity) for c in cands]
    assert bot.choose_play(pos, (6, 2)) == pos.legal_plays((6, 2))[cands[0].index]


class _ExpiresAtCheck(Deadline):
    """A deadline that runs out at its ``n``-th check (deterministic, unlike a clock)."""

    def __init__(self, n):
        super().__init__()
        self.n, self.calls = n, 0

    def expired(self):
        self.calls += 1
        return self.calls >= self.n


def test_a_deadline_inside_one_candidates_three_ply_search_keeps_the_two_ply_ranking():
    # checks: one before each stage's chunk of candidates (1-, 2-, 3-ply), then inside the 3-ply candidate
    # between chunks of positions searched at 2-ply: the 4th check is the first of those
    bot = Bot("backgammon", level="champion")
    pos = Position.start("backgammon")
    d = _ExpiresAtCheck(4)
    cut = bot.searcher.rank(pos, (6, 2), ply=3, deadline=d)
    two = bot.searcher.rank(pos, (6, 2), ply=2)
    assert d.hit and d.calls == 4
    assert [(c.index, c.equity, c.ply) for c in cut] == [(c.index, c.equity, c.ply) for c in two]
    assert cut[0].ply == 2


def test_champion_decides_the_cube_at_two_ply():
    # a 3-ply position evaluation costs 21 2-ply ones: cube decisions stop at CUBE_MAX_PLY (2), as grandmaster's
    pos = Position.from_id("4HPwATDgc/ABMA")
    champ = Bot("backgammon", level="champion").cube_action(pos)
    gm = Bot("backgammon", level="grandmaster").cube_action(pos)
    assert champ.equities == gm.equities and champ.double == gm.double and champ.take == gm.take
    assert list(champ.probabilities.as_dict().values()) == list(gm.probabilities.as_dict().values())

"""Large batches are evaluated in pieces of rows (memory bounded) with outputs bit for bit those of one piece."""

from __future__ import annotations

import numpy as np
import pytest

from nardy.engine import evaluator as ev_mod
from nardy.engine import net as net_mod
from nardy.engine.evaluator import BearoffEvaluator, default_evaluator

from .test_eval import GAMES, _random_positions


def _boards(game, n_games=6):
    pos = _random_positions(game, n_games)
    boards = np.stack([np.ascontiguousarray(p.array) for p in pos]).astype(np.int8)
    first = np.array([p.first_turn for p in pos], np.bool_)
    return boards, first


@pytest.mark.parametrize("game", GAMES)
def test_net_outputs_of_a_batch_cut_into_pieces_equal_the_whole_batch_bit_for_bit(game, monkeypatch):
    net = default_evaluator(game).net
    boards, first = _boards(game)
    n = boards.shape[0]
    assert n > 300
    whole = net.forward_boards(boards, first[:, 0], first[:, 1], dense=True)
    monkeypatch.setattr(net_mod, "CHUNK_ROWS", 97)  # pieces of 97 rows and a shorter last one
    pieces = net.forward_boards(boards, first[:, 0], first[:, 1], dense=True)
    assert pieces.shape == (n, net.n_outputs)
    assert np.array_equal(whole, pieces)


def test_bearoff_outputs_of_a_batch_cut_into_pieces_equal_the_whole_batch_bit_for_bit(monkeypatch):
    ev = BearoffEvaluator("backgammon")
    rng = np.random.default_rng(3)
    boards = np.zeros((500, 28), np.int8)
    for row in boards:  # both sides all home: 1..15 checkers each on points 1..6 (mover) and 19..24 (opponent)
        for p in rng.integers(1, 7, int(rng.integers(1, 16))):
            row[p] += 1
        for p in rng.integers(19, 25, int(rng.integers(1, 16))):
            row[p] -= 1
        row[0] = 15 - row[1:7].sum()  # the mover's borne-off checkers (off counted at index 0 and 27)
        row[27] = 15 + row[19:25].sum()
    mask = ev.applies(boards)
    boards = boards[mask]
    assert boards.shape[0] > 200
    whole = ev.evaluate_batch(boards)
    monkeypatch.setattr(ev_mod, "_BEAROFF_CHUNK", 61)
    assert np.array_equal(whole, ev.evaluate_batch(boards))
    assert np.all((whole[:, 0] >= 0) & (whole[:, 0] <= 1))

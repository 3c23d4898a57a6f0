"""Supervised training (nardy.training): positions, teachers, Ray labelling, the PyTorch fit and its export."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nardy import Position
from nardy.engine.evaluator import HybridEvaluator
from nardy.engine.net import Net, shipped_path
from nardy.engine.search import Searcher
from nardy.rules.variants import get_rules
from nardy.training.jobs import chunk_seed, label_positions, load_dataset, save_dataset
from nardy.training.positions import concat, dedupe, record_positions, self_play_positions
from nardy.training.teachers import RolloutTeacher, SearchTeacher, bgsage_board, make_teacher

from ..helpers import in_fresh_process, shared_path


@pytest.fixture(scope="module")
def short_positions():
    return self_play_positions(Net.load(shipped_path("short")), 240, seed=3)


def test_self_play_positions_are_seeded_and_unfinished(short_positions):
    b, f = short_positions
    b2, f2 = self_play_positions(Net.load(shipped_path("short")), 240, seed=3)
    assert np.array_equal(b, b2) and np.array_equal(f, f2)
    assert b.shape == (240, 28) and f.shape == (240, 2)
    assert (b[:, 0] < 15).all() and (b[:, 27] < 15).all()  # nobody has borne off all 15


def test_dedupe_keeps_first_occurrences_in_order(short_positions):
    b, f = short_positions
    bb, ff = dedupe(*concat((b, f), (b[:10], f[:10])))
    assert len(bb) == len(dedupe(b, f)[0]) and np.array_equal(bb[:5], b[:5])


def test_record_positions_are_the_positions_before_each_play_of_real_matches():
    path = shared_path("data", "real-mat")
    if path is None:
        pytest.skip("../shared/data/real-mat not present")
    b, f, st = record_positions([path], "backgammon", limit=500)
    assert st["read"] >= 1 and len(b) == 500 and not f.any()
    # the first play of a match is made from the starting position (either side on roll: the same board)
    assert np.array_equal(b[0], Position.start("backgammon").array)
    assert (np.abs(b[:, 1:25]).sum(axis=1) + b[:, 0] + b[:, 25] + b[:, 26] + b[:, 27] == 30).all()


def test_search_teacher_labels_equal_the_searchers_one_ply_values(short_positions):
    b, f = short_positions
    t = SearchTeacher("short", plies=1)
    got = t.label(b[:40], f[:40])
    s = Searcher(HybridEvaluator(Net.load(shipped_path("short"))), get_rules("short"))
    assert np.allclose(got, s.evaluate_positions(b[:40], f[:40], 1), atol=1e-6)
    assert got.shape == (40, 7) and (got >= 0).all() and (got <= 1).all()


def test_ray_labels_equal_in_process_labels_whatever_the_workers(short_positions, tmp_path):
    pytest.importorskip("ray")
    b, f = short_positions
    t = RolloutTeacher("short", trials=36, truncate=6, vr=False)  # draws dice: seeds per chunk matter
    ref = label_positions(t, b, f, seed=5, chunk=50, workers=0)
    ray_ = label_positions(t, b, f, seed=5, chunk=50, workers=2)
    assert ref["done"].all() and np.array_equal(ref["targets"], ray_["targets"])
    other = label_positions(t, b, f, seed=6, chunk=50, workers=0)
    assert not np.array_equal(ref["targets"], other["targets"])  # the seed reaches the teacher


def test_labelling_resumes_only_the_chunks_not_done(short_positions, tmp_path):
    b, f = short_positions
    t = SearchTeacher("short", plies=1)
    path = tmp_path / "d.npz"
    full = label_positions(t, b, f, seed=1, chunk=60, workers=0)
    part = dict(full, done=np.array([True, False, True, False]))
    part["targets"] = full["targets"].copy()
    part["targets"][60:120] = 0
    part["targets"][180:] = 0
    save_dataset(path, part)
    calls = []
    label = t.label
    t.label = lambda bb, ff, seed=0: calls.append(len(bb)) or label(bb, ff, seed)
    again = label_positions(t, b, f, seed=1, chunk=60, workers=0, path=path)
    assert calls == [60, 60] and np.array_equal(again["targets"], full["targets"])
    d = load_dataset(path)
    assert d["labelled"].all() and d["teacher"] == "nardy 1-ply search" and d["chunk"] == 60
    with pytest.raises(ValueError, match="another dataset"):
        label_positions(SearchTeacher("short", plies=0), b, f, seed=1, chunk=60, workers=0, path=path)


def test_chunk_seeds_differ_per_chunk_and_run():
    assert len({chunk_seed(s, i) for s in range(3) for i in range(100)}) == 300


def test_make_teacher_reads_specs_and_refuses_bgsage_for_nardy():
    assert make_teacher("search:2", "short").plies == 2
    t = make_teacher("rollout:72:vr:t20", "long")
    assert (t.trials, t.vr, t.truncate) == (72, True, 20)
    with pytest.raises(ValueError, match="backgammon only"):
        make_teacher("bgsage:2ply", "short")
    with pytest.raises(ValueError, match="unknown teacher"):
        make_teacher("oracle", "short")


def test_bgsage_board_of_the_start_and_of_a_bar_checker():
    bgsage = pytest.importorskip("bgsage")
    assert bgsage_board(Position.start("backgammon").array) == list(bgsage.STARTING_BOARD)
    a = np.zeros(28, np.int8)
    a[25], a[6], a[19], a[26] = 2, 13, -14, 1
    b = bgsage_board(a)
    assert b[25] == 2 and b[0] == 1 and b[6] == 13 and b[19] == -14 and len(b) == 26


def test_bgsage_teacher_gives_the_roller_the_edge_at_the_start_and_a_lost_race_as_a_gammon():
    pytest.importorskip("bgsage")
    t = make_teacher("bgsage:1ply", "backgammon")
    start = Position.start("backgammon").array
    race = np.zeros(28, np.int8)  # the mover: 15 on the midpoint (195 pips); the opponent: 15 on its 1-point
    race[13], race[24] = 15, -15
    lab = t.label(np.stack([start, race]), np.zeros((2, 2), bool))
    assert lab.shape == (2, 5)
    # the start with the side on roll to roll any of the 36 rolls: a small edge to it (bgsage: 52.8% wins)
    assert 0.51 < lab[0, 0] < 0.55 and lab[0, 1] > lab[0, 3] > 0.1
    assert lab[1, 0] < 0.01 and lab[1, 3] > 0.95  # a lost race with nothing off: a gammon


def test_bgsage_judges_a_bearoff_with_its_bearoff_database_at_every_level():
    """Post-move bear-off: the mover 4 on its 1-point and 1 on its 3-point (3/off 1/off with 4-1 from 5 on
    the 1 and 2 on the 3) or 5 on the 1 and 1 on the 2 (3/2 3/off); the opponent 3 on its 1-point and 2 on
    its 2-point, to roll. Each side's rolls to finish decide it (no gammons), and both plays win exactly
    0.21219 (the two-sided table of bench/two_sided_bearoff.py): equity -0.5756. bgsage's plain batch call
    gives -0.51 and -0.73 at 4ply (nets only); with its bearoff database both are exact."""
    pytest.importorskip("bgsage")
    from nardy.training.teachers import bgsage_evaluate

    a = np.zeros(28, np.int8)
    a[1], a[3], a[23], a[24], a[0], a[27] = 4, 1, -2, -3, 10, 10
    b = np.zeros(28, np.int8)
    b[1], b[2], b[23], b[24], b[0], b[27] = 5, 1, -2, -3, 9, 10
    for level in ("1ply", "3ply"):
        probs, equity = bgsage_evaluate([a, b], level, post_move=True)
        assert equity == pytest.approx([-0.5756, -0.5756], abs=2e-4)
        assert probs[:, 0] == pytest.approx([0.21219, 0.21219], abs=1e-4) and not probs[:, 1:].any()
    # pre-roll, the same side on roll: the opponent's view of b after it is on roll is 1 - 0.21219 to win
    flipped = np.zeros(28, np.int8)
    flipped[1], flipped[2], flipped[23], flipped[24], flipped[0], flipped[27] = 3, 2, -1, -5, 10, 9
    lab = make_teacher("bgsage:2ply", "backgammon").label(flipped[None, :], np.zeros((1, 2), bool))
    assert lab[0, 0] == pytest.approx(1 - 0.21219, abs=1e-4)


def test_siblings_are_the_positions_after_the_best_plays_of_one_roll_from_the_opponents_view():
    from nardy.flow.bot import Bot
    from nardy.training.positions import sibling_positions

    net = Net.load(shipped_path("backgammon"))
    start = Position.start("backgammon")
    roots = np.stack([start.array, start.array])
    b, f = sibling_positions(net, roots, np.zeros((2, 2), bool), top=3, seed=5)
    assert b.shape == (6, 28) and not f.any()
    dice = np.random.default_rng(5).integers(1, 7, size=(2, 2))
    hints = Bot("backgammon", level="advanced", weights=net).hints(start, tuple(int(x) for x in dice[0]), n=3)
    for row, h in zip(b[:3], hints):  # the first root's three best plays, best first, the opponent on roll
        assert row.tobytes() == h.play.result.mirror().array.tobytes()
        assert row[27] == 0 and int(row[1:26].clip(0).sum()) == 15  # 15 of the opponent's, none off


def test_net_provenance_round_trips(tmp_path):
    net = Net.random("long", 8, seed=1)
    net.provenance = json.dumps({"teacher": "nardy 2-ply search"})
    back = Net.load(net.save(tmp_path / "n.npz"))
    assert json.loads(back.provenance)["teacher"] == "nardy 2-ply search"

    # the shipped nardy nets were fitted in rounds, each from the one before: the record goes back to the
    # TD self-play net the first round started from (short nardy's sixth round of labels served two fits: the
    # main net refitted, then its race, crashed and game-plan nets fitted from it with the main net kept)
    short = json.loads(Net.load(shipped_path("short")).provenance)
    assert short["kept_main"] == "short-C.npz" and {"race", "crashed", "plan0", "plan4"} <= set(short)
    assert short["data"] == short["init_provenance"]["data"] and short["data"][0]["positions"] == 545_103
    # long nardy's main net refitted on 582,282 fresh 1-ply labels of the net before it (seed 83, 2026-12-07)
    long = json.loads(Net.load(shipped_path("long")).provenance)
    assert long["data"][0]["positions"] == 582_282 and long["data"][0]["file"] == "long-s1-83.npz"
    for game, teachers, rounds in (
        ("long", ["nardy 1-ply search"] * 2 + ["nardy 2-ply search"] + ["nardy 1-ply search"] * 4, 7),
        ("short", ["nardy 1-ply search"] * 7, 7),
    ):
        p, seen = json.loads(Net.load(shipped_path(game)).provenance), []
        while p is not None:
            seen.append(p["teachers"][0])
            inner = p.get("init_provenance")
            if inner is None:  # the first round: started from the self-play net
                assert p["fit"]["init"].startswith(f"{game} net, 80 hidden") and p["self_play_init"] > 900_000
            p = inner
        assert seen == teachers and len(seen) == rounds


def test_backgammon_net_was_fitted_to_bgsage_2ply_labels_and_has_race_crashed_and_game_plan_nets():
    # net c (from scratch, 3.93M labels), e (from c, 3.40M fresh labels), f (from e, + 1.56M), then net f's
    # main net kept and a crashed net fitted on the crashed rows of those and 1.56M more (net fc); then fc's
    # main net kept and a net per game plan, the race and the crashed net fitted on 2.08M fresh labels
    # (docs/bots-journal.md "2026-12-06: game-plan nets")
    net = Net.load(shipped_path("backgammon"))
    p, seen = json.loads(net.provenance), []
    assert p["kept_main"] and sum(d["positions"] for d in p["data"]) == 2_076_004
    assert net.plans is not None and all(n is not None and n.hidden == 256 for n in net.plans)
    assert [p[f"plan{k}"]["epochs"] for k in range(5)] == [30] * 5
    assert sum(p[f"plan{k}"]["positions"] for k in range(5)) == 1_565_456
    assert net.race is not None and p["race"]["hidden"] == net.race.hidden == 128
    assert net.crashed is not None and p["crashed"]["hidden"] == net.crashed.hidden == 256
    assert p["crashed"]["positions"] == 151_511 and p["crashed"]["epochs"] == 30
    p = p["init_provenance"]
    assert p["kept_main"] and sum(d["positions"] for d in p["data"]) == 6_524_746
    assert p["crashed"]["positions"] == 478_080 and p["crashed"]["epochs"] == 30
    p = p["init_provenance"]
    while p is not None:
        assert p["teachers"] == ["bgsage stage11 2ply (cubeless, with its bearoff database)"]
        assert sum(d["positions"] for d in p["data"]) == p["fit"]["positions"]
        seen.append((p["fit"]["hidden"], p["fit"]["positions"], p["fit"]["epochs"]))
        p = p.get("init_provenance")
    assert seen == [(256, 4_964_093, 40), (256, 3_404_084, 40), (256, 3_933_546, 24)]


@in_fresh_process
def test_fit_lowers_the_error_and_the_numpy_export_computes_what_torch_did(short_positions):
    torch = pytest.importorskip("torch")
    from nardy.training.fit import encode_positions, fit_net

    b, f = short_positions
    y = SearchTeacher("short", plies=1).label(b, f)
    res = fit_net("short", b, f, y, hidden=16, epochs=12, lr=3e-3, batch=32, holdout=0.2, seed=2, device="cpu")
    h = res.history
    assert len(h) == 12 and h[-1]["holdout_mse"] < h[0]["holdout_mse"] and h[-1]["train_mse"] < h[0]["train_mse"]
    net = res.net
    x = encode_positions("short", b, f)
    W1, b1, W2, b2 = (torch.from_numpy(a) for a in net.weights)
    want = torch.sigmoid(torch.sigmoid(torch.from_numpy(x) @ W1 + b1) @ W2 + b2).numpy()
    assert np.allclose(net.forward_inputs(x), want, atol=2e-5)
    prov = json.loads(net.provenance)
    assert prov["fit"]["hidden"] == 16 and prov["fit"]["positions"] == 240
    again = fit_net("short", b, f, y, hidden=16, epochs=12, lr=3e-3, batch=32, holdout=0.2, seed=2, device="cpu")
    assert np.array_equal(again.net.W1, net.W1)  # the same seed, the same weights


@in_fresh_process
def test_fit_from_a_net_starts_from_its_outputs(short_positions):
    pytest.importorskip("torch")
    from nardy.training.fit import encode_positions, fit_net

    b, f = short_positions
    init = Net.load(shipped_path("short"))
    y = init.forward_inputs(encode_positions("short", b, f))
    res = fit_net("short", b, f, y, hidden=init.hidden + 8, init=init, epochs=1, lr=1e-9, lr_final=1e-9, seed=1)
    assert res.history[0]["holdout_mse"] < 1e-6  # the widened net computes what the shipped one did
    with pytest.raises(ValueError, match="does not fit"):
        fit_net("short", b, f, y, hidden=8, init=init, epochs=1)


@in_fresh_process
def test_teach_label_then_fit_makes_a_net_the_bots_load(tmp_path):
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main
    from nardy.flow.bot import Bot

    data, out = tmp_path / "d.npz", tmp_path / "n.npz"
    run = CliRunner().invoke(
        main,
        ["teach", "label", "-g", "long", "--self-play", "120", "-t", "search:1", "-j", "0", "--chunk", "50",
         "-o", str(data)],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    assert json.loads(run.stdout.strip().splitlines()[-1])["labelled"] == load_dataset(data)["labelled"].sum() > 100
    run = CliRunner().invoke(main, ["teach", "fit", str(data), "--hidden", "12", "--epochs", "2", "-o", str(out)])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert net.hidden == 12 and json.loads(net.provenance)["teachers"] == ["nardy 1-ply search"]
    # a second round, fitted from the first net, keeps the first's record under its own
    again = tmp_path / "n2.npz"
    args = ["teach", "fit", str(data), "--hidden", "12", "--epochs", "1", "--init", str(out), "-o", str(again)]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    prov = json.loads(Net.load(again).provenance)
    assert prov["init_provenance"] == json.loads(net.provenance) and prov["fit"]["epochs"] == 1
    bot = Bot("long", level="advanced", weights=str(out))
    assert bot.choose_play(Position.start("long"), (6, 5)) is not None
    bad = CliRunner().invoke(
        main, ["teach", "label", "-g", "short", "--self-play", "5", "-t", "bgsage:2ply", "-o", str(data)]
    )
    assert bad.exit_code == 2 and "backgammon only" in bad.output


def test_a_race_net_evaluates_the_races_and_the_main_net_the_contact_positions(tmp_path):
    from nardy.engine.evaluator import NeuralEvaluator, race_mask

    main = Net.random("backgammon", 8, seed=1)
    main.race = Net.random("backgammon", 4, seed=2)
    back = Net.load(main.save(tmp_path / "bg.npz"))
    assert back.race is not None and back.race.hidden == 4 and np.array_equal(back.race.W1, main.race.W1)
    start = Position.start("backgammon").array
    race = np.zeros(28, np.int8)
    race[13], race[24] = 15, -15  # no contact left
    boards = np.stack([start, race, start])
    assert race_mask(boards, True).tolist() == [False, True, False]
    got = NeuralEvaluator(back).evaluate_batch(boards)
    alone = back.copy()
    alone.race = None
    assert np.array_equal(got[[0, 2]], NeuralEvaluator(alone).evaluate_batch(boards[[0, 2]]))
    assert np.array_equal(got[1], NeuralEvaluator(back.race).evaluate_batch(boards[[1]])[0])
    assert not np.allclose(got[1], NeuralEvaluator(alone).evaluate_batch(boards[[1]])[0])


def _label_backgammon(tmp_path, n: int):
    """A dataset of ``n`` backgammon self-play positions labelled at 0-ply by ``nardy teach label``."""
    from click.testing import CliRunner

    from nardy.cli import main

    data = tmp_path / "d.npz"
    args = ["teach", "label", "-g", "backgammon", "--self-play", str(n), "-t", "search:0", "-j", "0", "-o", str(data)]
    run = CliRunner().invoke(main, args)
    assert run.exit_code == 0, run.output
    return data


def _board(mover: dict, opp: dict, off=(0, 0)) -> np.ndarray:
    b = np.zeros(28, np.int8)
    for p, n in mover.items():
        b[p] = n
    for p, n in opp.items():
        b[p] = -n
    b[0], b[27] = off
    return b


def test_crashed_class_is_gnubgs_six_checkers_left_not_counting_stacks_on_the_1_and_2_points():
    """GNU Backgammon's CLASS_CRASHED (eval.c ClassifyPosition, N = 6), either side, contact only."""
    from nardy.engine.evaluator import crashed_mask
    from nardy.engine.search import mirror_boards

    opp = {5: 2, 20: 13}  # an anchor on the mover's 5 point keeps contact
    cases = [
        (Position.start("backgammon").array, False),
        (_board({1: 2, 3: 2, 6: 2}, opp, (9, 0)), True),  # 6 checkers left
        (_board({1: 2, 3: 2, 6: 3}, opp, (8, 0)), True),  # 7 left, 2 on the ace: 7 <= 6 + 2
        (_board({1: 1, 3: 3, 6: 3}, opp, (8, 0)), False),  # 7 left, 1 on the ace: 7 > 6 + (0 - 1)
        (_board({1: 9, 6: 6}, opp), True),  # 15 left, 9 on the ace: 15 <= 6 + 9
        (_board({1: 8, 6: 7}, opp), False),  # 15 > 14, nothing on the deuce
        (_board({1: 5, 2: 5, 6: 5}, opp), True),  # 1 + 15 - 10 = 6
        (_board({1: 5, 2: 4, 6: 6}, opp), False),  # 1 + 15 - 9 = 7
        (_board({2: 3, 6: 5}, opp, (7, 0)), True),  # no ace stack: 8 <= 6 + (3 - 1)
        (_board({1: 1, 2: 2, 6: 5}, opp, (7, 0)), False),  # 8 > 6 + (2 - 1)
        (_board({1: 2, 3: 2, 6: 2}, {20: 2}, (9, 13)), False),  # crashed, but a race
    ]
    boards = np.stack([b for b, _ in cases])
    want = [c for _, c in cases]
    assert crashed_mask(boards).tolist() == want
    # the same from the other side's view: the opponent's crashed board counts too
    assert crashed_mask(mirror_boards(boards, True)).tolist() == want


def test_a_crashed_net_evaluates_crashed_contact_positions_and_round_trips(tmp_path):
    from nardy.engine.evaluator import NeuralEvaluator

    main = Net.random("backgammon", 8, seed=1)
    main.race = Net.random("backgammon", 4, seed=2)
    main.crashed = Net.random("backgammon", 6, seed=3)
    back = Net.load(main.save(tmp_path / "bg.npz"))
    assert back.crashed is not None and back.crashed.hidden == 6
    assert all(np.array_equal(a, b) for a, b in zip(back.crashed.weights, main.crashed.weights))
    assert back.copy().crashed.hidden == 6
    race = _board({13: 15}, {24: 15})
    crashed = _board({1: 2, 3: 2, 6: 2}, {5: 2, 20: 13}, (9, 0))
    start = Position.start("backgammon").array
    got = NeuralEvaluator(back).evaluate_batch(np.stack([start, race, crashed, start]))
    alone = NeuralEvaluator(Net(back.game, *back.weights))
    assert np.array_equal(got[[0, 3]], alone.evaluate_batch(np.stack([start, start])))
    assert np.array_equal(got[1], NeuralEvaluator(back.race).evaluate_batch(race[None])[0])
    assert np.array_equal(got[2], NeuralEvaluator(back.crashed).evaluate_batch(crashed[None])[0])
    assert not np.allclose(got[2], alone.evaluate_batch(crashed[None])[0])


@in_fresh_process
def test_keep_main_fits_only_the_crashed_net_on_the_crashed_positions(tmp_path):
    """``nardy teach fit --init F --keep-main --crashed-hidden H``: F's main and race nets bit for bit, a
    crashed net fitted on the crashed contact positions, and the record of both."""
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main
    from nardy.engine.evaluator import crashed_mask

    data, out, init = _label_backgammon(tmp_path, 600), tmp_path / "n.npz", tmp_path / "init.npz"
    d = load_dataset(data)
    n_crashed = int(crashed_mask(d["boards"][d["labelled"]]).sum())
    assert n_crashed > 0
    base = Net.random("backgammon", 8, seed=1)
    base.race = Net.random("backgammon", 6, seed=2)
    base.save(init)
    args = ["teach", "fit", str(data), "--init", str(init), "--keep-main", "--epochs", "1", "-o", str(out)]
    run = CliRunner().invoke(main, [*args, "--crashed-hidden", "10"])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert all(np.array_equal(a, b) for a, b in zip(net.weights, base.weights))
    assert all(np.array_equal(a, b) for a, b in zip(net.race.weights, base.race.weights))
    assert net.crashed is not None and net.crashed.hidden == 10
    prov = json.loads(net.provenance)
    assert prov["kept_main"] == "init.npz" and prov["crashed"]["hidden"] == 10
    assert prov["crashed"]["positions"] == n_crashed
    alone = CliRunner().invoke(main, args)
    assert alone.exit_code == 2 and "--keep-main" in alone.output


@in_fresh_process
def test_a_fit_may_keep_another_nets_race_net_bit_for_bit(tmp_path):
    """``nardy teach fit --race-net F`` fits the main net and keeps F's race net as it is (its provenance
    says where it came from); with ``--race-hidden`` as well it is refused."""
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from nardy.cli import main

    data, out, donor = _label_backgammon(tmp_path, 80), tmp_path / "n.npz", tmp_path / "donor.npz"
    d = Net.random("backgammon", 8, seed=1)
    d.race = Net.random("backgammon", 6, seed=2)
    d.save(donor)
    args = ["teach", "fit", str(data), "--hidden", "10", "--epochs", "1", "-o", str(out)]
    run = CliRunner().invoke(main, [*args, "--race-net", str(donor)])
    assert run.exit_code == 0, run.output
    net = Net.load(out)
    assert net.hidden == 10 and net.race is not None and net.race.hidden == 6
    assert all(np.array_equal(a, b) for a, b in zip(net.race.weights, d.race.weights))
    assert json.loads(net.provenance)["race"]["kept_from"] == "donor.npz"
    both = CliRunner().invoke(main, [*args, "--race-net", str(donor), "--race-hidden", "4"])
    assert both.exit_code == 2 and "give one of them" in both.output
    d.race = None
    d.save(donor)
    none = CliRunner().invoke(main, [*args, "--race-net", str(donor)])
    assert none.exit_code == 2 and "has no race net" in none.output


def test_a_stopped_labelling_run_keeps_the_chunks_it_finished(short_positions, tmp_path):
    b, f = short_positions
    t = SearchTeacher("short", plies=0)
    label = t.label
    calls = []

    def stop_at_third(bb, ff, seed=0):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return label(bb, ff, seed)

    t.label = stop_at_third
    path = tmp_path / "d.npz"
    with pytest.raises(KeyboardInterrupt):
        label_positions(t, b, f, seed=1, chunk=60, workers=0, path=path)
    d = load_dataset(path)
    assert d["done"].tolist() == [True, True, False, False] and d["labelled"].sum() == 120


def test_a_terminated_labelling_run_keeps_its_finished_chunks(tmp_path):
    """SIGTERM (what a batch system sends) stops ``nardy teach label`` as Ctrl-C does: the chunks finished
    so far are saved (a rerun of the same command labels only the rest)."""
    import signal
    import subprocess
    import sys
    import time

    from nardy.training.jobs import load_dataset

    out = tmp_path / "d.npz"
    cmd = [sys.executable, "-m", "nardy.cli", "teach", "label", "-g", "short", "--self-play", "20000"]
    cmd += ["-t", "search:1", "--workers", "0", "--chunk", "256", "-o", str(out)]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # labelling starts after this line
            if "distinct positions" in line:
                break
        time.sleep(3)
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode != 0
    d = load_dataset(out)
    assert 0 < d["done"].sum() < len(d["done"])  # part done, saved

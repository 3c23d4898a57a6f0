"""Rollouts of an analysis' decisions (nardy.analysis.rollouts, ``nardy analyse --rollout``): fixed figures from a
fixed seed, intervals that shrink with the trials, the exact figures of a race found again, resume after an
interruption, the cube's live flag, cube decisions, local processes and Ray giving the figures of one process.

The rollouts here are short (few trials, truncated) to stay fast; the full ones share the code.
"""

from __future__ import annotations

import importlib.util
import json
import time

import pytest
from click.testing import CliRunner

from nardy import Position
from nardy.analysis import analyse_match, load_match, match_of_game
from nardy.analysis.rollouts import RolloutError, batch_sizes, rollout_analysis, select_decisions
from nardy.cli import main
from nardy.flow.game import Game
from nardy.rules.dice import FixedDice

from ..helpers import shared_path

RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")  # a 3-point match of 24 lines: 13 marked decisions at 0-ply


def _one_play(game, position, dice, play, cube):
    g = Game.from_position(position, 0, dice=FixedDice(), cube=cube)
    g.roll(dice)
    g.play(play)
    m = match_of_game(g)
    return analyse_match(m, level="advanced").to_dict(), m


def _checker(data):
    return next(d for d in data["decisions"] if d["kind"] == "checker")


@pytest.fixture(scope="module")
def opening():
    # backgammon money play, the cube in use: 6-5 played 8/3 8/2 (a blunder; 24/13 is best)
    return _one_play("backgammon", Position.start("backgammon"), (6, 5), "8/3 8/2", cube=True)


@pytest.fixture(scope="module")
def record():
    m = load_match(shared_path(*RECORD))
    return analyse_match(m, level="advanced").to_dict(), m


def test_batches_keep_whole_blocks_of_36_trials():
    assert batch_sizes(324) == [72, 36, 36, 36, 36, 36, 36, 36]
    assert batch_sizes(36) == [18, 18] and batch_sizes(1) == [1] and batch_sizes(73) == [36, 37]
    assert all(sum(batch_sizes(n)) == n for n in (1, 2, 35, 36, 100, 1296, 5000))


def test_a_marked_decision_rolled_out_with_a_fixed_seed_gives_fixed_figures(opening):
    data, m = opening
    assert select_decisions(data) == [1]  # the cube's "no double" is not marked; the blunder is
    out = rollout_analysis(data, m, trials=36, truncate=4, candidates=1, seed=1)
    d = _checker(out)
    ro = d["rollout"]
    assert (ro["trials"], ro["truncation"], ro["cubeful"], ro["seed"]) == (36, 4, True, 1)
    assert [c["play"] for c in ro["candidates"]] == ["24/13", "8/3 8/2"]
    assert [c["equity"] for c in ro["candidates"]] == pytest.approx([0.085835, -0.435116], abs=2e-6)
    assert [c["ci"] for c in ro["candidates"]] == pytest.approx([0.011139, 0.014776], abs=2e-6)
    assert ro["candidates"][0]["probs"] == pytest.approx([0.530194, 0.120774, 0.005048, 0.123762, 0.003854], abs=2e-6)
    assert len(ro["candidates"][1]["probs"]) == 5
    # the decision is judged by the rollout now, the n-ply figures kept beside
    assert d["equity_loss"] == pytest.approx(0.520951, abs=2e-6) and d["mark"] == "blunder" and d["best"] == "24/13"
    assert d["nply"]["equity_loss"] == _checker(data)["equity_loss"] and d["nply"]["mark"] == "blunder"
    assert out["rollout_status"]["complete"] and out["engine"]["rollout"]["trials"] == 36
    # the same seed, the same figures; another seed, others
    again = rollout_analysis(data, m, trials=36, truncate=4, candidates=1, seed=1)
    assert _checker(again)["rollout"] == ro
    other = rollout_analysis(data, m, trials=36, truncate=4, candidates=1, seed=2)
    assert _checker(other)["rollout"]["candidates"][0]["equity"] != ro["candidates"][0]["equity"]
    assert "rollout" not in _checker(data)  # the analysis given is left as it was


def test_the_interval_shrinks_with_the_trials(opening):
    data, m = opening
    few = _checker(rollout_analysis(data, m, trials=36, truncate=2, candidates=1))["rollout"]["candidates"]
    many = _checker(rollout_analysis(data, m, trials=216, truncate=2, candidates=1))["rollout"]["candidates"]
    for a, b in zip(few, many):
        assert a["play"] == b["play"]
        assert b["ci"] < 0.7 * a["ci"]  # about 0.4 (6 times the trials)
        assert abs(a["equity"] - b["equity"]) < a["ci"] + b["ci"]


def test_a_rollout_of_a_short_race_finds_the_exact_figures_and_no_cube_in_long_nardy():
    # long nardy (no cube): 5/off 4/off wins 23.15% by the exact bear-off table, 5/1 5/off 6.94%
    pos = Position.from_boards([11, 0, 0, 0, 2, 2] + [0] * 20, [11, 4] + [0] * 24, game="long")
    data, m = _one_play("long", pos, (5, 4), "5/1 5/off", cube=False)
    ro = _checker(rollout_analysis(data, m, trials=72, candidates=1))["rollout"]
    assert ro["cubeful"] is False and ro["truncation"] == 0
    best, made = ro["candidates"]
    assert (best["play"], made["play"]) == ("5/off 4/off", "5/1 5/off")
    assert abs(best["probs"][0] - 0.2315) < best["ci"] / 2 + 0.002
    assert abs(made["probs"][0] - 0.0694) < made["ci"] / 2 + 0.002
    assert best["equity"] == pytest.approx(2 * best["probs"][0] - 1, abs=1e-5)  # long nardy: win 1, mars 2


def test_the_cube_is_live_only_where_it_is_in_use(opening):
    data, m = _one_play("backgammon", Position.start("backgammon"), (6, 5), "8/3 8/2", cube=False)
    ro = _checker(rollout_analysis(data, m, trials=12, truncate=2, candidates=1))["rollout"]
    assert ro["cubeful"] is False and ro["level"].startswith("rollout: ") and "cubeless play" in ro["level"]
    # with a dead cube in money play the cubeful figure is the cubeless equity itself, interval included
    c = ro["candidates"][0]
    w, wg, wb, lg, lb = c["probs"]
    assert c["equity"] == pytest.approx(2 * w - 1 + wg - lg + wb - lb, abs=1e-5)


def test_a_dead_cube_is_rolled_out_cubeless_and_a_live_one_with_the_cube_in_play(opening):
    from nardy.analysis.rollouts import _plan, _unit

    data, m = opening
    live = _unit(
        _plan(data, m, [1], 1)[0], "backgammon", {"trials": 4, "truncate": 1, "seed": 1, "variance_reduction": False}
    )
    assert [c["turn"] for c in live["cubes"]] == [1, 1] and all(c["value"] == 1 for c in live["cubes"])
    ro = _checker(rollout_analysis(data, m, trials=12, truncate=2, candidates=1))["rollout"]
    assert ro["cubeful"] is True and ro["level"].startswith("cubeful rollout: ")
    dead_data, dead_m = _one_play("backgammon", Position.start("backgammon"), (6, 5), "8/3 8/2", cube=False)
    dead = _unit(
        _plan(dead_data, dead_m, [0], 1)[0],
        "backgammon",
        {"trials": 4, "truncate": 1, "seed": 1, "variance_reduction": False},
    )
    assert dead["cubes"] == [None, None]


def test_a_match_decision_at_two_away_two_away_is_rolled_out_with_the_cube_in_play():
    from nardy.flow.match import Match
    from nardy.flow.met import get_met

    m = Match("backgammon", 3, dice=FixedDice(), start_score=(1, 1))
    g = m.new_game_from(Position.start("backgammon"), 0, dice=(6, 5))
    g.play("8/3 8/2")
    data = analyse_match(m, level="advanced").to_dict()
    d = _checker(data)
    out = rollout_analysis(data, m, trials=36, truncate=6, candidates=1, which="all", only=[data["decisions"].index(d)])
    ro = _checker(out)["rollout"]
    assert ro["cubeful"] is True and ro["level"].startswith("cubeful rollout: ")
    lead = get_met("backgammon").mwc_after(1, 2, 2, 2)  # a single game won at cube 1: 1-away against 2-away
    for c in ro["candidates"]:
        assert 0.0 < c["mwc"] < 1.0
        # normalised equity at the decision's cube: 2 (mwc - MWC(lose 1)) / (MWC(win 1) - MWC(lose 1)) - 1
        assert c["equity"] == pytest.approx(2 * (c["mwc"] - (1 - lead)) / (2 * lead - 1) - 1, abs=1e-5)
        assert c["ci"] > 0
    assert [c["play"] for c in ro["candidates"]] == ["24/13", "8/3 8/2"]
    assert ro["candidates"][0]["mwc"] > ro["candidates"][1]["mwc"]


def test_a_cube_decision_rolled_out_gives_no_double_double_take_double_pass():
    # a double at the start (a blunder) and its pass (a blunder): both judged again by one rollout
    g = Game("backgammon", dice=FixedDice())
    g.start(starter=0, dice=(3, 1))
    g.play("8/5 6/5")
    g.double(player=1)
    g.drop(player=0)
    m = match_of_game(g)
    data = analyse_match(m, level="advanced").to_dict()
    cube = [i for i, d in enumerate(data["decisions"]) if d["kind"] == "cube"]
    out = rollout_analysis(data, m, trials=36, truncate=4, which="all", only=cube)
    dbl, ans = (out["decisions"][i] for i in cube)
    for d in (dbl, ans):
        ro = d["rollout"]
        assert {"nd", "dt", "dp", "ci"} <= ro.keys() and ro["cubeful"] is True
        assert ro["dp"] == 1.0 and ro["dt"] < ro["nd"] < ro["dp"] and ro["ci"] > 0
        assert ro["double"] is False and ro["take"] is True
    assert (dbl["best"], dbl["mark"], dbl["error_kind"]) == ("no double", "blunder", "wrong double")
    assert (ans["best"], ans["mark"], ans["error_kind"]) == ("take", "blunder", "wrong pass")
    assert ans["equity_loss"] == pytest.approx(1.0 - dbl["rollout"]["dt"], abs=1e-5)
    assert out["players"][0]["cube_errors"]["wrong pass"] == 1


def test_resume_after_an_interruption_gives_the_figures_of_one_run(record, tmp_path):
    data, m = record
    marked = select_decisions(data)
    assert len(marked) == 13
    only = marked[:4]
    kw = dict(trials=12, truncate=2, candidates=1, only=only)
    whole = rollout_analysis(data, m, **kw)
    ck = tmp_path / "ck.json"

    def stop_after_two(done, total):
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        rollout_analysis(data, m, checkpoint=ck, progress=stop_after_two, **kw)
    saved = json.loads(ck.read_text())
    assert sorted(saved["results"]) == sorted(str(i) for i in only[:2])
    seen = []
    resumed = rollout_analysis(data, m, checkpoint=ck, resume=True, progress=lambda d, t: seen.append(d), **kw)
    assert seen[0] == 2 and seen[-1] == 4  # two kept, two rolled out
    for i in only:
        assert resumed["decisions"][i]["rollout"] == whole["decisions"][i]["rollout"]
    assert resumed["players"] == whole["players"]
    # a checkpoint of other settings is refused, not mixed in
    with pytest.raises(RolloutError, match="another run"):
        rollout_analysis(data, m, checkpoint=ck, resume=True, **{**kw, "trials": 13})


def test_settings_out_of_range_are_refused(opening):
    data, m = opening
    for bad in ({"trials": 0}, {"truncate": -1}, {"candidates": 0}, {"seed": -1}, {"which": "some"}):
        with pytest.raises(RolloutError):
            rollout_analysis(data, m, **bad)
    with pytest.raises(RolloutError, match="long"):
        rollout_analysis(data, match_of_game(Game("long", dice=FixedDice(), cube=False)))


def test_local_processes_give_the_figures_of_one_process(record):
    data, m = record
    kw = dict(trials=12, truncate=2, candidates=1, only=select_decisions(data)[:3])
    one = rollout_analysis(data, m, workers=1, **kw)
    two = rollout_analysis(data, m, workers=2, **kw)
    assert [d.get("rollout") for d in two["decisions"]] == [d.get("rollout") for d in one["decisions"]]


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed (the train extra)")
@pytest.mark.slow
def test_ray_gives_the_figures_of_one_process(record):
    import ray

    data, m = record
    kw = dict(trials=12, truncate=2, candidates=1, only=select_decisions(data)[:2])
    one = rollout_analysis(data, m, workers=1, **kw)
    t0 = time.perf_counter()
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = rollout_analysis(data, m, address="local", workers=1, **kw)
    finally:
        ray.shutdown()
    assert [d.get("rollout") for d in on_ray["decisions"]] == [d.get("rollout") for d in one["decisions"]]
    assert time.perf_counter() - t0 < 600


def test_nardy_analyse_rollout_writes_the_figures_and_resumes(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src = shared_path(*RECORD)
    args = ["analyse", str(src), "--level", "advanced", "-q", "--rollout", "--trials", "6", "--truncate", "1"]
    args += ["--candidates", "1", "--workers", "1", "--json", "out.json", "--html", "out.html"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    assert "rollouts: 13 of 13 decisions" in r.output
    data = json.loads((tmp_path / "out.json").read_text())
    rolled = [d for d in data["decisions"] if "rollout" in d]
    assert len(rolled) == 13 and all(d["rollout"]["trials"] == 6 for d in rolled)
    assert all(d["rollout"]["cubeful"] for d in rolled if d["game"] == 1 and d["move"] < 5)
    assert (tmp_path / "gnubg-1002.mat.rollout.json").exists()  # the default checkpoint
    assert "<html" in (tmp_path / "out.html").read_text().lower()
    # resumed: every decision comes from the checkpoint, the same figures
    r2 = CliRunner().invoke(main, [*args[:-4], "--json", "again.json", "--resume"])
    assert r2.exit_code == 0, r2.output
    again = json.loads((tmp_path / "again.json").read_text())
    assert [d.get("rollout") for d in again["decisions"]] == [d.get("rollout") for d in data["decisions"]]
    assert again["rollout_status"]["trials_per_second"] is None  # nothing rolled out this time
    # --rollout takes one record
    r3 = CliRunner().invoke(main, ["analyse", str(src), str(src.parent / "gnubg-1001.mat"), "--rollout", "-q"])
    assert r3.exit_code != 0 and "one record" in r3.output


def test_ctrl_c_stops_nardy_analyse_rollout_leaving_the_checkpoint(tmp_path, monkeypatch):
    import nardy.analysis.rollouts as ro

    monkeypatch.chdir(tmp_path)
    real = ro.rollout_analysis

    def interrupted(*a, **kw):
        def stop(done, total):
            kw["progress"](done, total)
            if done == 1:
                raise KeyboardInterrupt

        return real(*a, **{**kw, "progress": stop})

    monkeypatch.setattr(ro, "rollout_analysis", interrupted)
    src = shared_path(*RECORD)
    args = ["analyse", str(src), "--level", "advanced", "-q", "--rollout", "--trials", "4", "--truncate", "1"]
    args += ["--candidates", "1", "--workers", "1", "--checkpoint", "ck.json"]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 130, r.output
    assert "ck.json" in r.output and "--resume" in r.output
    assert len(json.loads((tmp_path / "ck.json").read_text())["results"]) == 1


def test_a_rollout_on_one_thread_gives_the_thread_its_kernel_threads_back():
    # the server rolls out on a worker thread with one kernel thread; the same thread then searches for bots
    import numba

    from nardy.analysis.rollouts import roll_unit

    pos = Position.start("backgammon")
    unit = {"index": 0, "game": "backgammon", "boards": [[int(x) for x in pos.array]], "firsts": [[False, False]]}
    unit.update(trials=4, truncate=1, seed=1, vr=False, weights=None)
    before = numba.get_num_threads()
    one = roll_unit({**unit, "threads": 1})
    assert numba.get_num_threads() == before
    assert one["rolls"] == roll_unit({**unit, "threads": 0})["rolls"]  # the same figures on any threads

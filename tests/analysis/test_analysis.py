"""Match analysis (nardy.analysis): errors found and marked, forced plays not counted, luck, the swing
explained, cube errors, the JSON names outside checks read, the command line and the report.

The analyses here run at the ``advanced`` level (0-ply) to stay fast; the deeper levels share the code.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from nardy import Position
from nardy.analysis import THRESHOLDS, analyse_file, analyse_match, mark_of, match_of_game, rating_of
from nardy.cli import main
from nardy.flow.bot import Bot
from nardy.flow.game import Game
from nardy.records.mat import replay, write_mat
from nardy.rules.dice import DiceSource, FixedDice

from ..helpers import shared_path


def _analyse_game(g, level="advanced"):
    return analyse_match(match_of_game(g), level=level).to_dict()


def _played(game, position, dice, play, turn=0):
    g = Game.from_position(position, turn, dice=FixedDice(), cube=False)
    g.roll(dice)
    g.play(play)
    return _analyse_game(g)


def _checker(data):
    return [d for d in data["decisions"] if d["kind"] == "checker"]


def test_thresholds_are_gnubgs_defaults():
    # gnubg 1.07 "show analysis": doubtful 0.03, bad 0.06, very bad 0.12
    assert dict(THRESHOLDS) == {"blunder": 0.12, "error": 0.06, "doubtful": 0.03}
    assert [mark_of(x) for x in (0.0, 0.029, 0.03, 0.0599, 0.06, 0.119, 0.12, 1.0)] == [
        "",
        "",
        "doubtful",
        "doubtful",
        "error",
        "error",
        "blunder",
        "blunder",
    ]
    assert rating_of(1.9) == "Supernatural" and rating_of(4.0) == "World class" and rating_of(40) == "Awful!"


@pytest.mark.parametrize("game", ["backgammon", "short"])
def test_opening_six_five_breaking_the_mid_point_is_a_blunder(game):
    # 6-5 from the start: 24/13 (lover's leap) is the known best play; 8/3 8/2 leaves two blots at home
    data = _played(game, Position.start(game), (6, 5), "8/3 8/2")
    (d,) = _checker(data)
    assert d["played"] == "8/3 8/2" and d["best"] == "24/13"
    assert d["equity_loss"] >= 0.12 and d["mark"] == "blunder" and d["counted"] and not d["forced"]
    assert data["players"][0]["errors"]["blunder"] == 1 and data["players"][0]["decisions"] == 1
    assert data["players"][0]["error_rate"] == pytest.approx(1000 * d["equity_loss"], abs=0.01)
    best = _checker(_played(game, Position.start(game), (6, 5), "24/13"))[0]
    assert best["equity_loss"] == 0.0 and best["mark"] == ""


def test_long_nardy_bearing_off_one_checker_instead_of_two_is_a_blunder():
    # 4 checkers left (5, 5, 4, 4) against 4 on the 1-point: 5/off 4/off wins 23.1% (exact bearoff), 5/1 5/off 6.9%
    pos = Position.from_boards([11, 0, 0, 0, 2, 2] + [0] * 20, [11, 4] + [0] * 24, game="long")
    (d,) = _checker(_played("long", pos, (5, 4), "5/1 5/off"))
    assert d["best"] == "5/off 4/off"
    assert d["equity_loss"] == pytest.approx(2 * (0.2315 - 0.0694), abs=0.002)
    assert d["mark"] == "blunder"


def test_a_forced_play_is_listed_but_not_counted():
    # long nardy, first turn, 6-5: the head rule leaves one play, 24/13
    data = _played("long", Position.start("long"), (6, 5), "24/13")
    (d,) = _checker(data)
    assert d["forced"] and not d["counted"] and d["mark"] == "" and d["equity_loss"] == 0.0
    assert data["players"][0]["decisions"] == 0 and data["players"][0]["error_rate"] == 0.0


# one checker on the bar against a five-point board: only a 6 enters (11 rolls in 36)
_BAR = Position.from_boards(
    [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 6] + [0] * 11 + [1],
    [0, 2, 2, 2, 2, 2, 0] + [0] * 6 + [5] + [0] * 12,
    game="backgammon",
)


def test_the_luck_of_a_dancing_roll_is_negative_and_of_an_entering_roll_positive():
    g = Game.from_position(_BAR, 0, dice=FixedDice(), cube=False)
    g.roll((5, 3))  # dances: the turn passes at once
    assert g.turn == 1
    dance = _checker(_analyse_game(g))[0]
    assert dance["played"] == "" and dance["forced"] and not dance["counted"]
    assert dance["luck"] < -0.05
    g = Game.from_position(_BAR, 0, dice=FixedDice(), cube=False)
    g.roll((6, 3))
    g.play(g.legal_plays()[0])
    enter = _checker(_analyse_game(g))[0]
    assert enter["luck"] > 0.1 and enter["luck"] > dance["luck"] + 0.2


def _bot_game(game, seed, cube=False):
    g = Game(game, dice=DiceSource(seed=seed), cube=cube)
    bots = [Bot(game, "intermediate", seed=seed), Bot(game, "beginner", seed=seed + 1)]
    g.start()
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.play(bots[g.turn].choose_play(g.position, g.dice))
    return g


def _level_luck(data):
    """Player 0's luck as the level itself sees each roll (money, cube 1): the best play's value minus the
    level's value of the position before the roll."""
    return sum(_signed(d, d["candidates"][0]["equity"] - d["equity_before"]) for d in _checker(data))


def _signed(d, x):
    return x if d["player"] == 0 else -x


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_luck_and_errors_add_up_to_the_swing_of_a_game(game):
    data = _analyse_game(_bot_game(game, seed=3))
    (summ,) = data["games"]
    assert abs(summ["swing"]) > 0.5  # the game moved
    luck = sum(_signed(d, d["luck"]) for d in _checker(data))
    err = sum(_signed(d, d["equity_loss"]) for d in data["decisions"])
    assert summ["luck"] == pytest.approx(luck, abs=1e-4) and summ["error"] == pytest.approx(err, abs=1e-4)
    # the level's own figure of each roll and the errors add up to the swing exactly; the luck (exact over the
    # 36 rolls, at the luck depth) differs from the level's figure by what the game calls unexplained
    assert summ["swing"] == pytest.approx(_level_luck(data) - err, abs=1e-4)
    assert summ["unexplained"] == pytest.approx(_level_luck(data) - luck, abs=1e-4)
    assert summ["swing"] == pytest.approx(luck - err + summ["unexplained"], abs=1e-4)
    # the value after each play is the value the next turn starts from (the graph has no jumps)
    ch = _checker(data)
    for a, b in zip(ch, ch[1:]):
        assert a["value_after"] == pytest.approx(b["value_before"], abs=1e-5)
    # the weaker side (beginner: 0-ply with noise) errs more
    assert data["players"][1]["error_rate"] > data["players"][0]["error_rate"]


def test_a_double_at_the_start_and_its_pass_are_cube_blunders():
    g = Game("backgammon", dice=FixedDice())
    g.start(starter=0, dice=(3, 1))
    g.play("8/5 6/5")
    g.double(player=1)
    g.drop(player=0)
    data = _analyse_game(g)
    cube = [d for d in data["decisions"] if d["kind"] == "cube"]
    dbl, ans = cube
    assert (dbl["player"], dbl["action"], dbl["played"], dbl["best"]) == (1, "double", "double", "no double")
    assert dbl["error_kind"] == "wrong double" and dbl["mark"] == "blunder"
    assert (ans["player"], ans["action"], ans["played"], ans["best"]) == (0, "take", "pass", "take")
    assert ans["error_kind"] == "wrong pass" and ans["equity_loss"] > 0.5
    assert data["players"][0]["cube_errors"]["wrong pass"] == 1
    assert data["players"][1]["cube_errors"]["wrong double"] == 1
    assert data["games"][0]["unexplained"] == pytest.approx(_level_luck(data) - _checker(data)[0]["luck"], abs=1e-4)


def test_the_json_has_the_names_outside_checks_read():
    data = _analyse_game(_bot_game("short", seed=5, cube=True))
    assert len(data["players"]) == 2
    for p in data["players"]:
        assert {"name", "error_rate", "pr", "luck", "errors"} <= p.keys()
        assert set(p["errors"]) == {"doubtful", "error", "blunder"}
        assert p["pr"] == pytest.approx(p["error_rate"] / 2, abs=0.002)
    for d in data["decisions"]:
        assert {"game", "move", "player", "kind", "played", "best", "equity_loss", "mark", "luck"} <= d.keys()
        assert d["kind"] in ("checker", "cube") and d["equity_loss"] >= 0
    assert data["engine"]["level"] == "advanced" and "short.npz" in data["engine"]["net"]
    json.dumps(data)


def test_a_real_match_record_numbers_its_moves_as_the_record(tmp_path):
    m = replay(shared_path("data", "gnubg-matches", "gnubg-1001.mat"))
    data = analyse_match(m, level="advanced").to_dict()
    ch = _checker(data)
    # the first line of the record: root (player 1) opens with 32: 24/21 13/11
    assert (ch[0]["game"], ch[0]["move"], ch[0]["player"], ch[0]["dice"], ch[0]["played"]) == (
        1,
        1,
        1,
        [3, 2],
        "24/21 13/11",
    )
    # gnubg's own analysis of this match counts 25 unforced moves for each side
    assert [p["checker_decisions"] for p in data["players"]] == [25, 25]
    assert all(0 < p["error_rate"] < 40 for p in data["players"])


def test_nardy_analyse_writes_json_and_html(tmp_path):
    g = _bot_game("long", seed=2, cube=False)
    mat = tmp_path / "long.mat"
    mat.write_text(write_mat(g))
    out, page = tmp_path / "a.json", tmp_path / "a.html"
    r = CliRunner().invoke(main, ["analyse", str(mat), "--level", "advanced", "--json", str(out), "--html", str(page)])
    assert r.exit_code == 0, r.output
    assert "error rate" in r.output and "PR" in r.output
    data = json.loads(out.read_text())
    assert data["game"] == "long" and data["source"] == "long.mat"
    text = page.read_text()
    assert "<svg" in text and 'id="graph"' in text and "http" not in text.replace("http://www.w3.org", "")
    assert analyse_file(mat, level="advanced").to_dict()["players"] == data["players"]


def test_nardy_analyse_refuses_what_is_not_a_record(tmp_path):
    bad = tmp_path / "x.mat"
    bad.write_text("this is not a match\n 3 point match\n Game 1\n a : 0  b : 0\n  1) 99: 1/2\n")
    r = CliRunner().invoke(main, ["analyse", str(bad), "--level", "advanced", "-q"])
    assert r.exit_code == 2 and "cannot analyse" in r.output


def test_the_default_level_searches_two_plies_and_adds_up_too():
    # backgammon's opening blunder at grandmaster (2-ply, the default), then a long nardy race to its end
    g = Game.from_position(Position.start("backgammon"), 0, dice=FixedDice(), cube=False)
    g.roll((6, 5))
    g.play("8/3 8/2")
    (d,) = _checker(_analyse_game(g, level="grandmaster"))
    assert d["mark"] == "blunder" and d["best"] == "24/13"
    g = Game.from_position(_RACE_LONG, 0, dice=DiceSource(seed=2), cube=False)
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.play(g.legal_plays()[-1])
    data = analyse_match(match_of_game(g)).to_dict()
    assert data["engine"]["level"] == "grandmaster" and data["engine"]["ply"] == 2
    assert all(c["ply"] == 2 for x in _checker(data) for c in x["candidates"])
    luck = sum(_signed(d, d["luck"]) for d in _checker(data))
    assert data["games"][0]["unexplained"] == pytest.approx(_level_luck(data) - luck, abs=1e-4)
    # at grandmaster the luck is taken at 1-ply, whose mean over the rolls is the level's value of the position
    # (2-ply): the two differ by little over a whole race
    assert abs(data["games"][0]["unexplained"]) < 0.1


_RACE_LONG = Position.from_boards([11, 0, 1, 1, 1, 1] + [0] * 20, [11, 1, 1, 1, 1] + [0] * 21, game="long")


def test_an_sgf_record_is_analysed_as_its_mat_twin(tmp_path):
    sgf = pytest.importorskip("nardy.records.sgf")
    g = _bot_game("backgammon", seed=6, cube=False)
    (tmp_path / "g.mat").write_text(write_mat(g))
    (tmp_path / "g.sgf").write_text(sgf.write_sgf(match_of_game(g)))
    a = analyse_file(tmp_path / "g.mat", level="advanced").to_dict()
    b = analyse_file(tmp_path / "g.sgf", level="advanced").to_dict()
    assert [d["equity_loss"] for d in a["decisions"]] == [d["equity_loss"] for d in b["decisions"]]
    assert [p["error_rate"] for p in a["players"]] == [p["error_rate"] for p in b["players"]]

"""`nardy replay`, `nardy convert` and `nardy analyse` take eXtreme Gammon's .xg files (tests/data/xg)."""

import json

from click.testing import CliRunner

from nardy.cli import main
from nardy.records.mat import match_summary, read_mat, replay
from nardy.records.sgf import read_sgf
from tests.helpers import DATA

CHARLOT = DATA / "xg" / "charlot.xg"


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_replay_xg_prints_games_and_final_score():
    r = run("replay", CHARLOT)
    assert r.exit_code == 0, r.output
    assert "charlot1 (White) vs charlot2 (Black)" in r.output
    assert "Game 4: score 6-2 (Crawford game)" in r.output
    assert r.output.strip().endswith("Final score: charlot1 9, charlot2 2; charlot1 wins the match")


def test_replay_xg_json_has_every_game():
    r = run("replay", CHARLOT, "--json")
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert [g["score"] for g in data["games"]] == [[0, 0], [0, 2], [2, 2], [6, 2]]


def test_replay_damaged_xg_exits_1_naming_the_fault(tmp_path):
    bad = tmp_path / "cut.xg"
    bad.write_bytes(CHARLOT.read_bytes()[:50000])
    r = run("replay", bad)
    assert r.exit_code == 1
    assert "not a valid XG file" in r.output


def test_convert_xg_to_mat_and_sgf_keeps_the_match(tmp_path):
    want = match_summary(replay(read_mat(DATA / "xg" / "charlot.mat")))
    for name, read in (("out.mat", read_mat), ("out.sgf", read_sgf)):
        out = tmp_path / name
        r = run("convert", CHARLOT, out)
        assert r.exit_code == 0, r.output
        assert "4 games, score 9-2" in r.output
        got = match_summary(replay(read(out)))
        assert got["games"] == want["games"]
        assert got["score"] == want["score"]


def test_convert_to_xg_is_refused(tmp_path):
    r = run("convert", CHARLOT, tmp_path / "out.xg")
    assert r.exit_code == 2
    assert "name it .mat, .txt or .sgf" in r.output
    assert not (tmp_path / "out.xg").exists()


def test_analyse_finds_xg_files_in_a_folder(tmp_path):
    from nardy.cli.analyse import expand_paths

    (tmp_path / "a.xg").write_bytes(CHARLOT.read_bytes())
    (tmp_path / "notes.txt.bak").write_text("x")
    assert [p.name for p in expand_paths([tmp_path])] == ["a.xg"]


def test_an_xgp_position_file_is_read_by_position_at_file_with_its_dice_cube_and_score(tmp_path):
    """`--position @FILE` and `nardy diagram @FILE` take XG's binary position file: charlot2's 64 of game 1
    after charlot1 took the cube at 2 (record 40 of tests/data/xg/charlot.xg, as an .xgp)."""
    from nardy.records.xgfile import RECORD_SIZE, read_archive
    from tests.records.test_xg import pack

    body = read_archive(CHARLOT.read_bytes())["temp.xg"]
    xgp = tmp_path / "pos.xgp"
    xgp.write_bytes(pack({"temp.xg": body[: 40 * RECORD_SIZE]}))
    r = run("moves", "--position", f"@{xgp}")
    assert r.exit_code == 0, r.output
    assert "13/3" in r.output  # the roll 64 came from the file
    svg = run("diagram", f"@{xgp}")
    assert svg.exit_code == 0, svg.output
    assert "charlot2" in svg.output and "charlot1" in svg.output
    assert "match to 7" in svg.output
    short = run("moves", "--game", "short", "--position", f"@{xgp}")
    assert short.exit_code == 2 and "backgammon position" in short.output

"""XG's own analysis from an .xg file is put beside nardy's in each decision (``"xg"``: contracts §4)."""

import json
from types import SimpleNamespace

from click.testing import CliRunner

from nardy.analysis.load import analyse_file
from nardy.analysis.xgbeside import attach_xg
from nardy.cli import main
from nardy.records.xgfile import RECORD_SIZE, read_archive
from tests.helpers import DATA
from tests.records.test_xg import pack


def _decision(game, action, player, position, dice):
    return SimpleNamespace(game=game, action=action, player=player, position=position, dice=dice, xg=None)


def test_attach_xg_matches_game_action_player_position_and_roll_in_order():
    ds = [
        _decision(1, "play", 0, "P", (4, 1)),
        _decision(1, "double", 1, "Q", None),
        _decision(1, "play", 0, "P", (1, 4)),  # the same position and roll again: XG's second figures
        _decision(2, "play", 0, "P", (4, 1)),  # another game: none
        _decision(1, "take", 0, "Q", None),  # no XG figures for it
    ]
    entries = [
        {"game": 1, "action": "play", "player": 0, "position": "P", "dice": [4, 1], "xg": {"n": 1}},
        {"game": 1, "action": "double", "player": 1, "position": "Q", "dice": None, "xg": {"n": 2}},
        {"game": 1, "action": "play", "player": 0, "position": "P", "dice": [4, 1], "xg": {"n": 3}},
        {"game": 1, "action": "play", "player": 1, "position": "P", "dice": [4, 1], "xg": {"n": 4}},
    ]
    assert attach_xg(SimpleNamespace(decisions=ds), entries) == 3
    assert [d.xg for d in ds] == [{"n": 1}, {"n": 2}, {"n": 3}, None, None]


def test_analyse_xg_puts_xg_figures_beside_nardys(tmp_path):
    # the first 14 records of the charlot match: its start, six turns of game 1 (analysed by XG)
    body = read_archive((DATA / "xg" / "charlot.xg").read_bytes())["temp.xg"]
    short = tmp_path / "start.xg"
    short.write_bytes(pack({"temp.xg": body[: 14 * RECORD_SIZE]}))
    result = analyse_file(short, level="advanced").to_dict()
    ds = result["decisions"]
    assert ds and all("xg" in d for d in ds)
    first = ds[0]
    assert first["played"] == "24/23 13/9" and first["xg"]["best"] == "24/23 13/9"
    assert first["xg"]["equities"][0] == ["24/23 13/9", -0.003054]
    cube = next(d for d in ds if d["action"] == "double")
    assert cube["xg"]["best"] == "no double" and [e[0] for e in cube["xg"]["equities"]] == [
        "no double",
        "double/take",
        "double/pass",
    ]
    # the CLI's JSON carries the same
    out = tmp_path / "a.json"
    r = CliRunner().invoke(main, ["analyse", str(short), "--level", "advanced", "--json", str(out), "-q"])
    assert r.exit_code == 0, r.output
    assert json.loads(out.read_text())["decisions"][0]["xg"] == first["xg"]


def test_analyse_mat_has_no_xg_figures():
    result = analyse_file(DATA / "xg" / "charlot.mat", level="advanced")
    assert all(d.xg is None for d in result.decisions[:5])
    assert "xg" not in result.decisions[0].to_dict()

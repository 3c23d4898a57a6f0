"""``nardy analyse DIR --summary`` (issue 45, :mod:`nardy.cli.summary`): the statistics of a folder of real
records (two backgammon matches of GNU Backgammon against a person, ``gnubg-matches/gnubg-1002.mat`` and
``gnubg-1011.mat``, analysed at 0-ply) are those of their analyses, whether analysed there or read from the
analysis JSON files ``--json`` wrote; a printed table names the players and the kinds of error."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from nardy.analysis.stats import KINDS
from nardy.cli import main
from tests.helpers import shared_path

RECORDS = ("gnubg-1002.mat", "gnubg-1011.mat")


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def test_summary_of_a_folder_of_records_matches_their_analyses_and_the_saved_json(tmp_path):
    recs = tmp_path / "records"
    recs.mkdir()
    for name in RECORDS:
        shutil.copy(shared_path("data", "gnubg-matches", name), recs / name)
    out = tmp_path / "analyses"
    r = run("analyse", recs, "--level", "advanced", "--json", out, "-q", "-j", "1")
    assert r.exit_code == 0, r.output
    each = [json.loads((out / f"{n[:-4]}.json").read_text()) for n in RECORDS]

    r = run("analyse", recs, "--summary", "--level", "advanced", "--json", tmp_path / "s.json", "-q", "-j", "1")
    assert r.exit_code == 0, r.output
    analysed = json.loads((tmp_path / "s.json").read_text())
    r = run("analyse", out, "--summary", "--json", tmp_path / "t.json")  # the saved analyses: nothing analysed
    assert r.exit_code == 0, r.output
    read = json.loads((tmp_path / "t.json").read_text())
    # the same figures; the months: the records' EventDate (2026.11.30), the JSON files' modification time
    assert [r for r in analysed["rows"] if r["period"] == "all"] == [r for r in read["rows"] if r["period"] == "all"]
    assert analysed["kinds"] == read["kinds"] and read["analysed"] == analysed["analysed"] == 2
    assert {r["period"] for r in analysed["rows"]} == {"all", "2026-11"}

    rows = {(row["who"], row["period"]): row for row in read["rows"]}
    for k, name in enumerate(("gnubg", "root")):
        assert each[0]["players"][k]["name"] == each[1]["players"][k]["name"] == name
        row = rows[(name, "all")]
        assert row["matches"] == 2 and row["games"] == sum(len(a["games"]) for a in each)
        assert row["decisions"] == sum(a["players"][k]["decisions"] for a in each)
        loss = sum(a["players"][k]["total_loss"] for a in each)
        assert (
            abs(row["error_rate"] - 1000 * loss / row["decisions"]) < 0.01
            and abs(row["pr"] - row["error_rate"] / 2) < 0.001
        )
        luck = sum(a["players"][k]["luck_emg"] for a in each)
        assert abs(row["luck_per_game"] - luck / row["games"]) < 1e-4
        kinds = [x for x in read["kinds"] if x["who"] == name]
        errors = sum(a["players"][k]["errors"][m] for a in each for m in ("doubtful", "error", "blunder"))
        assert kinds and {x["kind"] for x in kinds} <= set(KINDS) and sum(x["errors"] for x in kinds) == errors
        assert [x["errors"] for x in kinds] == sorted((x["errors"] for x in kinds), reverse=True)

    r = run("analyse", out, "--summary", "--player", "ROOT")
    assert r.exit_code == 0, r.output
    assert "root" in r.output and "gnubg" not in r.output and "contact" in r.output and "2 analyses" in r.output


def test_summary_refuses_html_and_player_alone(tmp_path):
    (tmp_path / "a.mat").write_text("")
    assert run("analyse", tmp_path, "--summary", "--html", tmp_path / "x").exit_code == 2
    assert run("analyse", tmp_path / "a.mat", "--player", "x").exit_code == 2

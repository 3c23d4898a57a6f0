"""`nardy moves`: every legal play with its resulting Position ID, text and JSON, and clear errors."""

import json

from click.testing import CliRunner

from nardy.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_moves_lists_every_legal_play_with_result_id():
    r = run("moves", "--game", "backgammon", "--position", "4HPwATDgc/ABMA", "--dice", "3", "1")
    assert r.exit_code == 0
    lines = r.output.strip().splitlines()
    assert len(lines) == 16
    assert lines[0].split() == ["24/23", "24/21", "4HPwATDgc/ABEg"]


def test_moves_json_for_short_and_long():
    r = run("moves", "--game", "short", "--dice", "6", "5", "--json")
    data = json.loads(r.output)
    assert data["game"] == "short" and len(data["plays"]) == 7
    r = run("moves", "--game", "long-nardy", "--dice", "3", "3", "--json")
    plays = json.loads(r.output)["plays"]
    assert [p["play"] for p in plays] == ["24/18(2)", "24/21 24/15"]
    assert sorted((s["from"], s["to"], s["die"], s["hit"]) for s in plays[0]["steps"]) == sorted(
        [(24, 21, 3, False), (24, 21, 3, False), (21, 18, 3, False), (21, 18, 3, False)]
    )


def test_moves_long_nardy_absolute_numbering_for_black():
    r = run("moves", "--game", "long", "--dice", "3", "3", "--numbering", "absolute", "--side", "black")
    assert [line.split()[0:2] for line in r.output.strip().splitlines()] == [
        ["12/6(2)", "AACA/z8AAAb+Pw"],
        ["12/9", "12/3"],
    ]


def test_moves_short_nardy_traditional_numbering_for_black():
    """Seed 003's traditional numbering: Black travels 1...12, then 012...01 (docs/rules.md "Notation")."""
    r = run("moves", "--game", "short", "--dice", "6", "5", "--numbering", "traditional", "--side", "black")
    assert r.exit_code == 0
    assert [line.split()[:-1] for line in r.output.strip().splitlines()][:2] == [["1/12"], ["1/7", "12/08"]]
    r = run("moves", "--game", "long", "--dice", "6", "5", "--numbering", "traditional")
    assert r.exit_code == 2 and "backgammon and short nardy" in r.output


def test_moves_bad_input_exits_2_with_a_clear_message():
    r = run("moves", "--position", "xyz", "--dice", "3", "1")
    assert r.exit_code == 2 and "'xyz'" in r.output
    r = run("moves", "--dice", "7", "1")
    assert r.exit_code == 2 and "1-6" in r.output
    r = run("moves", "--numbering", "absolute", "--dice", "3", "1")
    assert r.exit_code == 2 and "long nardy" in r.output
    r = run("moves", "--game", "chess", "--dice", "3", "1")
    assert r.exit_code == 2 and "'chess'" in r.output

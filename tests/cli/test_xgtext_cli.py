"""`--position @FILE` reads XG's text export (or an ID in a file); `nardy moves --format xg` writes the
analysis in XG's layout."""

from pathlib import Path

from click.testing import CliRunner

from nardy.cli import main
from nardy.records.xgtext import parse_xg_text
from nardy.rules.position import Position

DATA = Path(__file__).resolve().parents[1] / "data" / "xgtext"
EXPORT = DATA / "checker_match_en.txt"
XGID = "XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:10"


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input)


def test_position_at_file_reads_xg_text_and_its_dice():
    r = run("moves", "--position", f"@{EXPORT}")
    assert r.exit_code == 0, r.output
    pos = Position.from_xgid(XGID)
    expected = [f"{str(p) or '(no play)':<28} {p.result.id()}" for p in pos.legal_plays((2, 1))]
    assert r.output.splitlines() == expected


def test_position_at_stdin_reads_a_forum_post():
    post = "Look at this one:\r\n\r\n" + EXPORT.read_text(encoding="utf-8").replace("\n", "\r\n")
    r = run("moves", "--position", "@-", "--json", input=post)
    assert r.exit_code == 0, r.output
    assert '"position": "b9sBCIC5bYDQAA"' in r.output and '"dice": [\n    2,\n    1\n  ]' in r.output


def test_position_at_file_with_a_position_id_serves_every_game(tmp_path):
    f = tmp_path / "pos.txt"
    f.write_text("AACA/z8AAID/Pw\n")
    r = run("moves", "--game", "long", "--position", f"@{f}", "--dice", "3", "3")
    assert r.exit_code == 0, r.output
    assert r.output.splitlines()[0].split() == ["24/18(2)", "AACA/z8AAAb+Pw"]


def test_xg_text_for_another_game_is_refused():
    r = run("moves", "--game", "short", "--position", f"@{EXPORT}")
    assert r.exit_code == 2
    assert "XG's text export is of a backgammon position, not short" in r.output


def test_missing_file_is_a_clear_error(tmp_path):
    r = run("moves", "--position", f"@{tmp_path / 'nope.txt'}", "--dice", "3", "1")
    assert r.exit_code == 2
    assert "nope.txt" in r.output and "No such file" in r.output


def test_dice_are_needed_when_the_position_has_none():
    r = run("moves", "--position", "4HPwATDgc/ABMA")
    assert r.exit_code == 2 and "--dice is needed" in r.output


def test_format_xg_writes_the_ranked_plays_in_xgs_layout_keeping_cube_and_score():
    from nardy.flow.bot import Bot

    r = run("moves", "--position", f"@{EXPORT}", "--format", "xg", "--level", "advanced", "-n", "3")
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0] == XGID and "Cube: 2, O own cube" in lines and "X to play 21" in lines
    x = parse_xg_text(r.output)
    hints = Bot("backgammon", level="advanced", seed=0).hints(Position.from_xgid(XGID), (2, 1), n=3)
    assert [p.play for p in x.plays] == [str(h.play) for h in hints]
    assert [p.equity for p in x.plays] == [round(h.equity, 3) for h in hints]
    assert x.plays[0].level == "0-ply" and x.plays[0].probs[0] == round(hints[0].probabilities.as_dict()["win"], 4)
    assert (x.score, x.length, x.owner, x.cube) == ((3, 6), 7, 1, 2)


def test_format_xg_is_for_backgammon_only():
    r = run("moves", "--game", "short", "--dice", "6", "5", "--format", "xg")
    assert r.exit_code == 2 and "XG's text layout is for backgammon" in r.output

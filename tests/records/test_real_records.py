"""The real match records of ../shared/data/real-mat (2,077 files from Backgammon Galaxy, Backgammon Studio,
old online servers, XG transcriptions of live tournaments and gnubg itself; see its SOURCES.md) import as
GNU Backgammon imports them: the same final score, a warning naming each non-standard thing read, the truly
broken files refused with the valid part kept, nothing but a RecordError ever raised.

The default run replays a sample (every file that shows one of the non-standard things, and every 25th of
the rest) and checks the final score against Debian's gnubg (``gnubg -t -q``: ``import mat FILE`` then
``show score``) for a part of it; the ``slow`` test does all 2,077 files. The figures are in
docs/records.md.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from nardy.cli.replay import replay as replay_cmd
from nardy.records.mat import WARNINGS, parse_mat, read_mat, replay
from nardy.rules.errors import RecordError
from nardy.texts.messages import MESSAGES
from tests.helpers import SHARED, shared_path

REAL = SHARED / "data" / "real-mat"
FILES = sorted(p for p in REAL.rglob("*") if p.is_file() and p.name != "SOURCES.md") if REAL.is_dir() else []


def rel(path: Path) -> str:
    return path.relative_to(REAL).as_posix()


#: The files refused (truly broken), with what the refusal names: a board dump, plays missing from the
#: record (an empty play where the roll can be played, with more play after it), real illegal plays.
REFUSED = {
    "bgnori-bglib/Nori-Kenji081229.txt": "cannot read play 'Illegal play (25;0;1",
    "bgnori-bglib/Wakagashira-nori-2009Feb092110.txt": "game 2, move 24, Wakagashira,1423: illegal play ''",
    "bgnori-bglib/Wakagashira-nori-2009Feb092123.txt": "game 3, move 14, Wakagashira,1421: illegal play ''",
    "bgnori-bglib/nicksbar-nori-2009Jan302316.txt": "game 1, move 32, nicksbar,1706: illegal play ''",
    "gammonview-analysis/5nqfGw9bWG3deTaU.mat": "the moves written do not fit the dice 3-1",
    "gammonview-analysis/hQ8sVn2LbTdF4wRm.mat": "'6/8' in play '14/8 15/10 6/8' moves backwards",
    "gammonview-analysis/rK7pXm4TqLb9NzWd.mat": "13/3 is 10 pips",
}

#: Imported files whose final score is not gnubg's, and why (gnubg 1.07.001 as Debian ships it).
GNUBG_DIFFERS = {
    # gnubg aborts ("buffer overflow detected") on a score line whose first name is empty
    "bglab-lasse/match8320876.txt": ((0, 2), None),
    "bglab-lasse/match8562506.txt": ((1, 0), None),
    "bglab-lasse/match8600489.txt": ((2, 0), None),
    # a resignation before any play: gnubg answers "No game in progress" and scores nothing
    "bglab-lasse/match3831101.txt": ((3, 0), (0, 0)),
    "bglab-lasse/match8600770.txt": ((0, 1), (0, 0)),
    # Galaxy's result line run on after a play ("24)  Losses 2 point ... Wins 2 point and the match"):
    # gnubg skips it as an unrecognised move, so its last game has no result
    "bglab-lasse/match2900236.txt": ((0, 3), (0, 1)),
    "bglab-lasse/match3241209.txt": ((2, 3), (2, 2)),
}

#: The files that show each non-standard thing (one per warning code at least), always in the sample.
SPECIAL = [
    "td-gammon-human/173915-WCfinal.mat",  # byte-order mark
    "gnubgparser-gnubg-made/gnubg_roll_then_resign_1p.mat",
    "bglab-lasse/match10058734.txt",  # Galaxy 'Losses' line
    "bglab-lasse/match10030560.txt",  # 'Losses' after a play
    "bglab-lasse/match1032950.txt",  # 'Wins' capped at the points needed
    "bglab-lasse/match3029786.txt",  # a resignation worth no level ('Wins 5' with the cube at 2)
    "bglab-lasse/match8239468.txt",  # Galaxy single game: 'Wins 1' for a gammon at cube 1
    "bglab-lasse/Magic - Lasse 5pt Backgammon Studio 2024_04_22 19_06_30.txt",  # 'Cannot Move'
    "bglab-lasse/MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt",  # '????', 'Wins 4016'
    "lazyBG/match2.txt",  # XG: BOM, '????'
    "gbf/test.mat",  # XG: BOM, '???'
    "bglab-lasse/match3755271.txt",  # empty second name
    "bgnori-bglib/BlueNote-nori-2009Apr071735.txt",  # resumed match
    "bgnori-bglib/PghPete-nori-2009Jan242323.txt",  # resumed after the Crawford game
    "bgnori-bglib/PghPete-nori-2009Jan242317.txt",  # ends with a roll not played
    "bgnori-bglib/HansK-nori-2009Jan251035.txt",  # a forced play left blank
    "bgnori-bglib/1989-nori-2009Jan172004.txt",  # roll then resign
    *REFUSED,
    *GNUBG_DIFFERS,
]


def sample() -> list[Path]:
    special = {REAL / name for name in SPECIAL}
    return sorted(special | set(FILES[::25]))


def import_all(paths):
    """Replay each file: {relative path: ("imported", score, warning codes) | ("refused", message, partial)}.
    Anything but a RecordError fails the test (a crash)."""
    out = {}
    for path in paths:
        try:
            m = replay(read_mat(path))
        except RecordError as e:
            out[rel(path)] = ("refused", str(e), e.partial)
        else:
            out[rel(path)] = ("imported", tuple(m.score), [w.code for w in m.warnings])
    return out


# ----- GNU Backgammon's final score ------------------------------------------------------------------
def _gnubg():
    return shutil.which("gnubg") or ("/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None)


_SCORE = re.compile(r"The score \(after \d+ games?\) is: .*? (\d+), .* (\d+) \(")


def gnubg_score(path: Path, home: Path):
    """gnubg's final score of the file: ``import mat`` then ``show score`` (the score after the last
    game, each game's stated score taken as gnubg takes it); ``None`` when gnubg gives none (it aborts)."""
    p = subprocess.run(
        [_gnubg(), "-t", "-q"],
        input=f'import mat "{path}"\nshow score\n',
        capture_output=True,
        text=True,
        errors="replace",
        timeout=60,
        env={**os.environ, "HOME": str(home)},
    )
    found = _SCORE.findall(p.stdout)
    return (int(found[-1][0]), int(found[-1][1])) if found else None


def check_against_gnubg(results: dict, names, home: Path) -> tuple[int, int]:
    """(agree, differ) over the imported files of ``names``; a difference not in GNUBG_DIFFERS fails."""
    agree = differ = 0
    for name in names:
        status, score, _ = results[name]
        if status != "imported":
            continue
        theirs = gnubg_score(REAL / name, home)
        if name in GNUBG_DIFFERS:
            assert (score, theirs) == GNUBG_DIFFERS[name], name
            differ += 1
        else:
            assert score == theirs, f"{name}: ours {score}, gnubg {theirs}"
            agree += 1
    return agree, differ


# ----- the sample (default run) ----------------------------------------------------------------------
def test_real_records_sample_imports_as_gnubg_does(tmp_path):
    shared_path("data", "real-mat")  # skips without ../shared
    assert len(FILES) == 2077
    picked = sample()
    results = import_all(picked)
    refused = {k for k, v in results.items() if v[0] == "refused"}
    assert refused == set(REFUSED)
    for name, why in REFUSED.items():
        assert why in results[name][1], results[name][1]
        assert results[name][2] is not None  # the partial match (or record) is kept
    seen = {c for v in results.values() if v[0] == "imported" for c in v[2]}
    # all but two (met only in the synthetic tests below: no real file that is imported has them)
    assert seen == set(WARNINGS) - {"losses_resign", "resigns_line"}
    if _gnubg() is None:
        pytest.skip("gnubg not installed (apt-get install -y gnubg): final scores not compared")
    # gnubg for the special files and every 4th of the sample (about 60 runs of 0.1 s)
    names = sorted(set(SPECIAL) | {rel(p) for p in picked[::4]})
    agree, differ = check_against_gnubg(results, names, tmp_path)
    assert agree >= 40 and differ == len(GNUBG_DIFFERS)


@pytest.mark.slow
def test_all_real_records_import_as_gnubg_does(tmp_path):
    """All 2,077 files: 2,070 imported, 7 refused, none crashed; 2,063 of the imported with gnubg's final
    score, the 7 others as GNUBG_DIFFERS explains. Strict mode keeps the standard format: 1,112 imported."""
    shared_path("data", "real-mat")
    results = import_all(FILES)
    imported = [k for k, v in results.items() if v[0] == "imported"]
    assert {k for k, v in results.items() if v[0] == "refused"} == set(REFUSED)
    assert (len(imported), len(results) - len(imported)) == (2070, 7)
    strict = 0
    for path in FILES:
        try:
            replay(read_mat(path, strict=True))
            strict += 1
        except RecordError:
            pass
    assert strict == 1112
    if _gnubg() is None:
        pytest.skip("gnubg not installed (apt-get install -y gnubg): final scores not compared")
    assert check_against_gnubg(results, imported, tmp_path) == (2063, 7)


# ----- each non-standard thing, read and refused in strict mode --------------------------------------
HEAD = " 3 point match\n\n Game 1\n Anna : 0                       Boris : 0\n"


def codes(m) -> list[str]:
    return [w.code for w in m.warnings]


def test_galaxy_losses_line_is_ignored_and_the_wins_line_scores():
    text = HEAD + "  1)                             31: 8/5 6/5\n  2)  Losses 1 point              Wins 1 point\n"
    m = replay(text)
    assert m.score == (0, 1) and codes(m) == ["galaxy_losses"]
    assert m.warnings[0].params == {"points": 1, "player": 0} and m.warnings[0].line == 6
    with pytest.raises(RecordError, match="cannot read 'Losses 1 point'"):
        replay(text, strict=True)


def test_galaxy_losses_line_alone_is_the_losers_resignation():
    text = HEAD + "  1)                             31: 8/5 6/5\n  2)  Losses 2 point\n"
    m = replay(text)
    assert m.score == (0, 2) and codes(m) == ["losses_resign"] and m.games[0].result.level_name == "gammon"


def test_galaxy_result_line_run_on_after_a_play_is_read_as_a_line_of_its_own():
    line = "  2) 42: 8/4 6/4                 2)  Losses 1 point" + " " * 47 + "Wins 1 point and the match"
    m = replay(HEAD + "  1)                             31: 8/5 6/5\n" + line + "\n")
    assert codes(m) == ["missing_line_break", "galaxy_losses"] and m.score == (0, 1)


def test_resigns_line_is_noted_and_the_wins_line_scores():
    text = HEAD + "  1) 31: 8/5 6/5                 Resigns\n      Wins 1 point\n"
    m = replay(text)
    assert codes(m) == ["resigns_line"] and m.score == (1, 0) and m.warnings[0].params == {"player": 1}
    with pytest.raises(RecordError, match="'Resigns' in play"):
        replay(text, strict=True)


def test_cannot_move_is_a_dance():
    path = shared_path("data", "real-mat", "bglab-lasse", "Magic - Lasse 5pt Backgammon Studio 2024_04_22 19_06_30.txt")
    rec = read_mat(path)
    assert {w.code for w in rec.warnings} == {"cannot_move"} and len(rec.warnings) == 46
    line = [(a.dice, a.text) for g in rec.games for a in g.actions if a.line == rec.warnings[0].line]
    assert ((5, 5), "") in line
    assert replay(rec).score == (4, 5)
    with pytest.raises(RecordError, match="play 'Cannot Move' with 55: no checker can move"):
        replay(path, strict=True)
    # where the roll can be played, 'Cannot Move' is no dance: refused as an empty play would be
    with pytest.raises(RecordError, match="a play must be made"):
        replay(" 1 point match\n\n Game 1\n a : 0    b : 0\n  1) 31: Cannot Move\n  2)  Doubles\n")


def test_roll_then_resign_is_an_unplayed_roll_and_a_resignation():
    path = shared_path("data", "real-mat", "gnubgparser-gnubg-made", "gnubg_roll_then_resign_1p.mat")
    m = replay(path)
    assert m.score == (1, 0) and codes(m) == ["roll_then_resign"]
    assert m.warnings[0].params == {"dice": [5, 1], "player": 1}
    r = m.games[0].result
    assert (r.winner, r.reason, r.points) == (0, "resign", 1)
    with pytest.raises(RecordError, match="a play must be made") as e:
        replay(path, strict=True)
    assert e.value.partial.games[0].phase == "move"


def test_xg_unknown_play_then_wins_is_a_resignation_after_the_roll():
    text = HEAD + "  1) 31: 8/5 6/5                 42: ????\n      Wins 2 points\n"
    m = replay(text)
    assert codes(m) == ["unknown_play_resign"] and m.score == (2, 0)
    with pytest.raises(RecordError, match=r"cannot read play '\?\?\?\?'"):
        replay(text, strict=True)
    with pytest.raises(RecordError, match=r"'\?\?\?\?' in play"):  # play goes on after it: broken
        replay(HEAD + "  1) 31: 8/5 6/5                 42: ????\n  2) 31: 6/3 6/5\n")


def test_wins_capped_at_the_points_needed_counts_the_real_worth():
    path = shared_path("data", "real-mat", "bglab-lasse", "match1032950.txt")
    m = replay(path)
    assert m.score == (4, 0) and codes(m) == ["wins_capped"]
    assert m.warnings[0].params == {"points": 4, "level": "gammon", "cube": 2, "stated": 3}
    with pytest.raises(RecordError, match="'Wins 3' but the game is worth 4"):
        replay(path, strict=True)


def test_wins_before_the_end_worth_no_level_is_gnubgs_nearest_resignation():
    path = shared_path("data", "real-mat", "bglab-lasse", "match3029786.txt")
    m = replay(path)  # 'Takes', then the doubler loses 'Wins 5' with the cube at 2
    assert m.score == (6, 0) and "resign_value" in codes(m)
    assert m.games[0].result.level_name == "backgammon"


def test_resumed_match_is_scored_from_its_first_stated_score():
    m = replay(shared_path("data", "real-mat", "bgnori-bglib", "BlueNote-nori-2009Apr071735.txt"))
    assert m.start_score == (1, 0) and m.score == (5, 7) and codes(m)[0] == "resumed_match"
    assert m.to_dict()["start_score"] == [1, 0] and type(m).from_dict(m.to_dict()).score == (5, 7)
    m = replay(shared_path("data", "real-mat", "bgnori-bglib", "PghPete-nori-2009Jan242323.txt"))
    assert m.start_score == (6, 5) and m.start_post_crawford and not m.games[0].crawford and m.score == (6, 7)
    with pytest.raises(RecordError, match="states the score 1-0 but the games before give 0-0"):
        replay(HEAD.replace("Anna : 0", "Anna : 1") + "  1)                             31: 8/5 6/5\n", strict=True)


def test_empty_player_names_are_named_after_their_column():
    m = replay(shared_path("data", "real-mat", "bglab-lasse", "match3755271.txt"))
    assert m.players == ("lasse", "Player 2") and codes(m) == ["empty_name"]
    assert m.warnings[0].params == {"column": 2, "name": "Player 2"}
    rec = read_mat(shared_path("data", "real-mat", "bglab-lasse", "match8320876.txt"))
    assert rec.players == ("Player 1", "lasse")
    assert read_mat(shared_path("data", "real-mat", "bglab-lasse", "match8320876.txt"), strict=True).players == (
        "",
        "lasse",
    )


def test_byte_order_mark_is_a_warning():
    m = replay(shared_path("data", "real-mat", "td-gammon-human", "173915-WCfinal.mat"))
    assert codes(m) == ["byte_order_mark"]
    assert parse_mat("\ufeff" + HEAD, strict=True).warnings == []


def test_every_warning_is_worded_in_english_and_russian():
    for code, english in WARNINGS.items():
        en, ru = MESSAGES[code]
        assert en == english, code  # the catalogue's English is the record's own detail
        assert set(re.findall(r"{(\w+)}", en)) == set(re.findall(r"{(\w+)}", ru)), code
        assert re.search("[а-яё]", ru, re.I), code


def test_replay_command_shows_the_warnings_and_strict_refuses(tmp_path):
    path = shared_path("data", "real-mat", "bglab-lasse", "Magic - Lasse 5pt Backgammon Studio 2024_04_22 19_06_30.txt")
    r = CliRunner().invoke(replay_cmd, [str(path), "--lang", "en"])
    assert r.exit_code == 0, r.output
    assert "warning: line 29: 'Cannot Move' after the roll 5-5: read as a dance (no play) (45 more like it" in (
        r.stderr
    )
    assert "Final score: Magic 4, Lasse 5; Lasse wins the match" in r.stdout
    r = CliRunner().invoke(replay_cmd, [str(path), "--lang", "ru"])
    assert "предупреждение: строка 29: «Cannot Move» после броска 5-5" in r.stderr
    r = CliRunner().invoke(replay_cmd, [str(path), "--json", "--lang", "en"])
    import json

    data = json.loads(r.stdout)
    assert len(data["warnings"]) == 46 and data["warnings"][0]["code"] == "cannot_move"
    assert data["warnings"][0]["params"] == {"dice": [5, 5]} and data["score"] == [4, 5]
    r = CliRunner().invoke(replay_cmd, [str(path), "--strict"])
    assert r.exit_code == 1 and "play 'Cannot Move' with 55: no checker can move" in r.stderr

"""SGF records (GNU Backgammon's native format): our round trips for the three games, GNU Backgammon
opening what we write, GNU Backgammon's SGF of real .mat records replaying here with the same plays and
score, and a reader that refuses any bytes with a RecordError only."""

import os
import random
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy.cli.replay import replay as replay_cmd
from nardy.flow.match import Match
from nardy.records.mat import read_mat, replay
from nardy.records.sgf import parse_sgf, read_sgf, replay_sgf, write_sgf
from nardy.rules.dice import DiceSource
from nardy.rules.errors import NardyError, RecordError
from tests.helpers import SHARED, shared_path

GNUBG_MATCHES = SHARED / "data" / "gnubg-matches"
REAL = SHARED / "data" / "real-mat"


def _gnubg():
    return shutil.which("gnubg") or ("/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None)


needs_gnubg = pytest.mark.skipif(_gnubg() is None, reason="gnubg not installed (apt-get install -y gnubg)")


def random_match(game, length, seed, cube=None, resign_rate=0.01, **options):
    """A match of random legal play with random doubles, takes, drops and resignations."""
    rng = random.Random(seed)
    m = Match(game, length=length, dice=DiceSource(seed), cube=cube, players=("Anna", "Boris"), **options)
    while not m.is_over and len(m.games) < 6:
        g = m.new_game(start=True)
        while not g.is_over:
            if g.phase == "roll":
                if g.may_double and rng.random() < 0.08:
                    g.double()
                elif rng.random() < resign_rate:
                    g.resign(rng.randrange(len(g.rules.result_names)))
                    g.accept_resignation()
                else:
                    g.roll()
            elif g.phase == "double":
                (g.take if rng.random() < 0.7 else g.drop)()
            else:
                g.play(rng.choice(g.legal_plays()))
    return m


def events(m):
    """Every event of every game, as JSON data (opening tie rolls left out: no record holds them)."""
    out = []
    for g in m.games:
        for e in g.history:
            e = e.to_dict()
            e.pop("rolls", None)
            out.append(e)
    return out


def plays_and_score(m):
    """What a record must keep: each game's rolls, plays (by the resulting position), cube actions and
    result, and the final score."""
    keep = ("play", "pass", "double", "take", "drop", "beaver", "end")
    return [
        [
            (e.type, getattr(e, "player", None), getattr(e, "dice", None), getattr(e, "position", None))
            for e in g.history
        ]
        for g in m.games
        if [e for e in g.history if e.type in keep]
    ], m.score


# ----- ours -> ours ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "game,cube,length", [("backgammon", None, 5), ("backgammon", None, 0), ("short", None, 5), ("long", True, 3)]
)
def test_sgf_export_import_round_trip_keeps_every_event(game, cube, length):
    m = random_match(game, length, seed=len(game) + length, cube=cube, resign_rate=0.02)
    text = write_sgf(m)
    assert text.count("(;FF[4]GM[6]") == len(m.games)
    if game != "backgammon":
        assert ("NV[Short Nardy]" in text) == (game == "short") and ("NV[Long Nardy]" in text) == (game == "long")
    back = replay_sgf(text)
    assert back.rules.with_options(cube=False) == m.rules.with_options(cube=False) and back.cube == m.cube
    assert back.length == m.length and back.players == m.players
    assert back.score == m.score
    assert events(back) == events(m)
    assert write_sgf(back) == text


def test_sgf_states_each_games_score_crawford_and_result():
    m = replay(shared_path("data", "gnubg-matches", "gnubg-1009.mat"))  # has a Crawford game
    text = write_sgf(m)
    trees = text.split("(;")[1:]
    crawford = [i for i, g in enumerate(m.games) if g.crawford]
    assert crawford and all(("CrawfordGame" in t) == (i in crawford) for i, t in enumerate(trees))
    score = [0, 0]
    for i, (g, t) in enumerate(zip(m.games, trees)):
        assert f"MI[length:{m.length}][game:{i}][ws:{score[0]}][bs:{score[1]}]" in t
        r = g.result
        assert f"RE[{'WB'[r.winner]}+{r.points}{'R' if r.reason == 'resign' else ''}]" in t
        a, b = r.score()
        score = [score[0] + a, score[1] + b]


def test_long_nardy_options_and_a_last_roll_draw_round_trip():
    m = Match("long", length=0, dice=DiceSource(20), **{"last-roll": "half"})
    g = m.new_game(start=True)
    while not g.is_over:  # greedy bear-off play; this seed ends in a last-roll draw
        if g.phase == "roll":
            g.roll()
        else:
            g.play(max(g.legal_plays(), key=lambda p: (p.result.mover[0], -p.result.pip_count()[0])))
    assert g.result.winner is None
    text = write_sgf(m)
    assert "RE[0]" in text and "NR[" in text and "[last-roll:half]" in text
    back = replay_sgf(text)
    assert back.score == (0.5, 0.5) and back.rules == m.rules and events(back) == events(m)


def test_beaver_and_money_options_round_trip():
    m = Match("backgammon", length=0, dice=DiceSource(3), beavers=True, jacoby=True, cube_limit=8)
    g = m.new_game(start=True)  # the opening roll is the starter's
    g.play(g.legal_plays()[0])
    g.double()
    g.beaver()
    g.roll()
    g.play(g.legal_plays()[0])
    g.resign(0)
    g.accept_resignation()
    text = write_sgf(m)
    assert "[beaver]" in text and "RU[Jacoby]" in text and "[beavers:on]" in text and "[cube-limit:8]" in text
    back = replay_sgf(text)
    assert (back.beavers, back.jacoby, back.cube_limit) == (True, True, 8)
    assert events(back) == events(m) and back.score == m.score == (4, 0) or back.score == m.score == (0, 4)


def test_resignation_before_any_play_round_trips():
    m = Match("backgammon", length=3, dice=DiceSource(5))
    g = m.new_game()
    g.start()
    g.resign(0, player=g.turn)
    g.accept_resignation()
    back = replay_sgf(write_sgf(m))
    assert back.score == m.score and sum(m.score) == 1


def test_gnubg_letters_are_each_players_own_points():
    # GNU Backgammon's SGF of gnubg-1005.mat, game 1: White 42: 8/4 6/4, Black 11: 8/7 8/7 6/5 6/5,
    # White 43: 24/21 21/17*, Black 62: 25/23 13/7 (the bar is y)
    text = (
        "(;FF[4]GM[6]CA[UTF-8]MI[length:9][game:0][ws:0][bs:0]PW[gnubg]PB[root]RU[Crawford]"
        ";W[42hdfd];B[11qrqrstst];W[43xuuq];B[62yblr])"
    )
    rec = parse_sgf(text)
    assert [(a.player, a.dice, a.text) for a in rec.games[0].actions] == [
        (0, (4, 2), "8/4 6/4"),
        (1, (1, 1), "8/7 8/7 6/5 6/5"),
        (0, (4, 3), "24/21 21/17"),
        (1, (6, 2), "25/23 13/7"),
    ]
    assert rec.length == 9 and rec.players == ("gnubg", "root") and rec.header("Crawford") == "On"
    m = replay(rec)
    assert not m.current.is_over and m.current.history[-1].play == "bar/23 13/7"


def test_results_drops_and_resignations_are_checked():
    base = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b]{re};W[31hefe];B[double];W[drop])"
    assert replay_sgf(base.format(re="RE[B+1]")).score == (0, 1)
    with pytest.raises(RecordError, match="wins, but"):
        replay_sgf(base.format(re="RE[W+1]"))
    with pytest.raises(RecordError, match="worth 1"):
        replay_sgf(base.format(re="RE[B+2]"))
    # a resignation: RE's R, at the level worth those points
    res = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b]RE[B+2R];W[31hefe])"
    m = replay_sgf(res)
    assert m.score == (0, 2) and m.games[0].result.reason == "resign" and m.games[0].result.level == 1
    # more points than any resignation is worth: read at the highest level, with a warning (as a .mat's
    # capped 'Wins' line is read, docs/records.md); strict refuses it
    m = replay_sgf(res.replace("B+2R", "B+5R"))
    assert m.score == (0, 3) and [w.code for w in m.warnings] == ["resign_value"]
    with pytest.raises(RecordError, match="no resignation level"):
        replay(parse_sgf(res.replace("B+2R", "B+5R")), strict=True)
    # the score a game states must be the score the games before give
    two = base.format(re="RE[B+1]") + "(;FF[4]GM[6]MI[length:3][game:1][ws:1][bs:0]PW[a]PB[b];W[31hefe])"
    with pytest.raises(RecordError, match="states the score 1-0 but the games before give 0-1"):
        replay_sgf(two)


def test_an_illegal_play_names_the_game_move_and_player():
    text = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[a]PB[b];W[31hefe];B[42xtxv])"
    with pytest.raises(RecordError) as ei:
        replay_sgf(text)
    e = ei.value
    assert (e.game, e.move, e.player) == (1, 2, "b") and "game 1, move 2, b: '1/5' in play" in str(e)
    assert e.partial is not None and len(e.partial.games[0].history) >= 2


@pytest.mark.parametrize(
    "text,reason",
    [
        ("", "no game tree"),
        ("(;GM[1]SZ[19];B[aa])", "no backgammon game"),
        ("(;FF[4]GM[6];W[31hefe]", "ends inside a game tree"),
        ("(;FF[4]GM[6];W[31hefe", "never closed"),
        ("(;FF[4]GM[6];W[7xhefe])", "cannot read W"),
        ("(;FF[4]GM[6];W[31hef])", "letter pairs"),
        ("(;FF[4]GM[6];W[31zaya])", "from off or to the bar"),
        ("(;FF[4]GM[6];AB[a][b])", "set-up node"),
        ("(;FF[4]GM[6]RE[X+1])", "expected W\\+points"),
        ("(;FF[4]GM[6]MI[length:99999999])", "match length"),
        ("(;FF[4]GM[6]RU[Nackgammon];W[31hefe])", "not a game nardy plays"),
        ("(;FF[4]GM[6]NV[Chess])", "unknown Variation"),
        ("junk", "outside a game tree"),
        ("(;FF[4]GM[6]\x01)", "not SGF"),
        ("()", "empty game tree"),
    ],
)
def test_malformed_sgf_gives_a_clear_record_error(text, reason):
    with pytest.raises(RecordError, match=reason):
        replay_sgf(text)


def test_only_the_main_line_is_read_and_analysis_is_skipped():
    text = (
        "(;FF[4]GM[6]MI[length:1][game:0][ws:0][bs:0]PW[a]PB[b]GS[M:0 0]C[a \\] bracket]"
        ";W[31hefe]A[0][hefe E ver 3 0.5]LU[0.1]BM[1]"
        "(;B[42lpln])(;B[42xtxv]))"
    )
    m = replay_sgf(text)
    assert [e.play for e in m.games[0].history if e.type == "play"] == ["8/5 6/5", "13/11 13/9"]


def test_read_sgf_reads_files_and_never_takes_text_for_a_file(tmp_path):
    m = random_match("backgammon", 3, seed=4)
    p = tmp_path / "m.sgf"
    p.write_text(write_sgf(m), encoding="utf-8")
    assert replay(read_sgf(p)).score == m.score
    assert replay_sgf(p).score == m.score
    with pytest.raises(RecordError, match="cannot read"):
        read_sgf(tmp_path / "missing.sgf")
    with pytest.raises(RecordError, match="not SGF|no game tree"):
        parse_sgf(str(p))  # a string is text, never a path


# ----- robustness: any bytes give a RecordError ---------------------------------------------------
def _mutate(data: st.DataObject, text: str) -> str:
    pieces = ["(", ")", ";", "[", "]", "\\", "W[", "B[", "double", "take", "drop", "RE[W+", "MI[length:", "x", "z"]
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 6))
        text = text[:at] + data.draw(st.sampled_from(pieces) | st.text(max_size=4)) + text[at + cut :]
    return text


_SAMPLE = write_sgf(random_match("backgammon", 3, seed=8, resign_rate=0.02))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=400))
def test_any_bytes_give_a_match_or_a_record_error(raw):
    try:
        replay_sgf(raw)
    except RecordError:
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_sgf_gives_a_match_or_a_record_error(data):
    text = _mutate(data, _SAMPLE)
    try:
        replay_sgf(text)
        replay_sgf(text.encode("utf-8"))
    except RecordError as e:
        assert isinstance(e, NardyError) and len(str(e)) < 600


# ----- the command line -------------------------------------------------------------------------
def test_cli_replay_reads_sgf_and_convert_writes_either_format(tmp_path):
    from nardy.cli import main

    m = replay(shared_path("data", "gnubg-matches", "gnubg-1003.mat"))
    sgf = tmp_path / "m.sgf"
    r = CliRunner().invoke(main, ["convert", str(shared_path("data", "gnubg-matches", "gnubg-1003.mat")), str(sgf)])
    assert r.exit_code == 0, r.output
    assert sgf.read_text().startswith("(;FF[4]GM[6]")
    r = CliRunner().invoke(replay_cmd, [str(sgf)])
    assert r.exit_code == 0 and "Final score: gnubg 8, root 2" in r.output
    mat = tmp_path / "back.mat"
    r = CliRunner().invoke(main, ["convert", str(sgf), str(mat)])
    assert r.exit_code == 0, r.output
    assert events(replay(read_mat(mat))) == events(m)
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;FF[4]GM[6];W[31hefe];B[42xtxv])")
    r = CliRunner().invoke(replay_cmd, [str(bad)])
    assert r.exit_code == 1 and "game 1, move 2" in r.output
    r = CliRunner().invoke(main, ["convert", str(bad), str(tmp_path / "x.mat")])
    assert r.exit_code != 0 and "game 1, move 2" in r.output and not (tmp_path / "x.mat").exists()


# ----- GNU Backgammon -----------------------------------------------------------------------------
def run_gnubg(commands: str, home: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [_gnubg(), "-t", "-q"],
        input="set confirm new off\nset confirm save off\n" + commands,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HOME": str(home)},
    )


@needs_gnubg
def test_gnubg_opens_our_sgf_with_the_same_moves_cube_actions_and_score(tmp_path):
    matches = [
        random_match("backgammon", 5, seed=21, resign_rate=0.02),
        random_match("backgammon", 7, seed=5, resign_rate=0.02),
        random_match("backgammon", 0, seed=9, resign_rate=0.02),  # a money session
        replay(shared_path("data", "gnubg-matches", "gnubg-1009.mat")),  # a Crawford game, resignations
    ]
    cmds = ""
    for i, m in enumerate(matches):
        (tmp_path / f"ours{i}.sgf").write_text(write_sgf(m), encoding="utf-8")
        cmds += f'load match "{tmp_path}/ours{i}.sgf"\nsave match "{tmp_path}/theirs{i}.sgf"\n'
        cmds += f'export match mat "{tmp_path}/theirs{i}.mat"\n'
    p = run_gnubg(cmds, tmp_path)
    for i, m in enumerate(matches):
        theirs = tmp_path / f"theirs{i}.sgf"
        assert theirs.exists(), p.stdout[-2000:] + p.stderr[-2000:]
        for back in (replay_sgf(theirs), replay(read_mat(tmp_path / f"theirs{i}.mat"))):
            assert back.players == m.players and back.length == m.length
            assert plays_and_score(back) == plays_and_score(m)


def gnubg_sgf_of(files: list, out: Path) -> dict:
    """GNU Backgammon's SGF of each .mat file: ``{index: path}``. One gnubg process imports and saves them
    all; where a record makes it crash (a few real ones do), it starts again after that file. A file it
    cannot import leaves the previous match in place: an output equal to the one before is dropped."""
    i = 0
    while i < len(files):
        run_gnubg(
            "".join(f'import mat "{files[k]}"\nsave match "{out}/{k:05d}.sgf"\n' for k in range(i, len(files))), out
        )
        made = [int(p.stem) for p in out.glob("*.sgf")]
        last = max((k for k in made if k >= i), default=i - 1)
        i = last + 2  # the file after the last one saved crashed gnubg (or this run is done)
    done, prev = {}, None
    for k in range(len(files)):
        p = out / f"{k:05d}.sgf"
        if p.exists():
            b = p.read_bytes()
            if b != prev:
                done[k] = p
            prev = b
    return done


def compare_with_gnubg_sgf(files: list) -> dict:
    """Import each .mat here and in GNU Backgammon, and read GNU Backgammon's SGF of it back here.
    Returns counts: ``same`` (the same plays, cube actions, results and score), ``differ``, ``sgf_refused``
    (gnubg's SGF of a record we replay is refused here), ``mat_refused`` (we refuse the .mat; then
    ``sgf_of_refused_ok`` counts gnubg's SGF of it that replays here), ``gnubg_failed``, and examples."""
    with tempfile.TemporaryDirectory() as tmp:
        got = gnubg_sgf_of([str(f) for f in files], Path(tmp))
        counts = dict(same=0, differ=0, sgf_refused=0, mat_refused=0, sgf_of_refused_ok=0)
        counts["gnubg_failed"] = len(files) - len(got)
        examples: list = []
        for k, path in got.items():
            try:
                ours = replay(read_mat(files[k]))
            except RecordError:
                counts["mat_refused"] += 1
                try:
                    replay_sgf(path)
                    counts["sgf_of_refused_ok"] += 1
                except RecordError:
                    pass
                continue
            try:
                theirs = replay_sgf(path)
            except RecordError as e:
                counts["sgf_refused"] += 1
                examples.append((str(files[k]), str(e)))
                continue
            if plays_and_score(theirs) == plays_and_score(ours):
                counts["same"] += 1
            else:
                counts["differ"] += 1
                examples.append((str(files[k]), "differs"))
    counts["examples"] = examples[:10]
    return counts


def _real_files() -> list:
    return sorted(GNUBG_MATCHES.glob("*.mat")) + sorted(p for p in REAL.rglob("*") if p.suffix in (".mat", ".txt"))


@needs_gnubg
def test_gnubg_sgf_of_real_records_replays_with_the_same_plays_and_score():
    shared_path("data", "real-mat")  # skips without ../shared
    files = _real_files()
    sample = files[:12] + files[12::100]  # gnubg's self-play matches and every 100th real record
    c = compare_with_gnubg_sgf(sample)
    assert c["differ"] == 0 and c["sgf_refused"] == 0, c
    assert c["same"] >= 20, c


@pytest.mark.slow
@needs_gnubg
def test_gnubg_sgf_of_every_real_record_replays_with_the_same_plays_and_score():
    shared_path("data", "real-mat")
    files = _real_files()
    c = compare_with_gnubg_sgf(files)
    print(f"\n{len(files)} records: {c}")
    assert c["differ"] == 0 and c["sgf_refused"] == 0, c
    assert c["same"] >= 1000, c


def test_play_record_ending_in_sgf_writes_sgf(tmp_path):
    from nardy.cli.play import play

    out = tmp_path / "m.sgf"
    args = ["--game", "backgammon", "--match", "3", "--auto", "--seed", "1"]
    r = CliRunner().invoke(play, [*args, "--white", "bot:random", "--black", "bot:random", "--record", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert text.startswith("(;FF[4]GM[6]CA[UTF-8]") and "MI[length:3][game:0][ws:0][bs:0]" in text
    printed = replay(r.output[r.output.index("; [") :])  # --auto prints the .mat record too
    back = replay_sgf(text)
    assert back.score == printed.score and back.is_over and events(back) == events(printed)


def test_play_resumes_an_sgf_record_and_continues_it(tmp_path):
    from nardy.cli.play import play

    m = Match("backgammon", length=3, dice=DiceSource(3), players=("nardy-random", "nardy-random"))
    g = m.new_game(start=True)
    for _ in range(6):
        g.roll() if g.phase == "roll" else g.play(g.legal_plays()[0])
    half = tmp_path / "half.sgf"
    half.write_text(write_sgf(m))
    full = tmp_path / "full.sgf"
    r = CliRunner().invoke(play, ["--resume", str(half), "--auto", "--seed", "3", "--record", str(full)])
    assert r.exit_code == 0, r.output
    before = events(replay_sgf(half))  # the record: the plays so far (a roll not yet played is not in it)
    back = replay_sgf(full)
    assert back.is_over and len(before) >= 5 and events(back)[: len(before)] == before

"""``nardy external``: FIBS board lines (as GNU Backgammon 1.07 sends them to an external player) parsed
and answered with legal plays and cube decisions, the server's bounds, and a whole match GNU Backgammon
plays against nardy through it."""

import os
import shutil
import socket
import subprocess
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nardy.external import MAX_LINE, Decider, answer, parse_board, serve
from nardy.records.sgf import replay_sgf
from nardy.rules.errors import NardyError
from nardy.rules.position import Position

# Lines GNU Backgammon 1.07.001 sent to `nardy external` (its player 1, "root"; player 0 "gnubg"):
#: the opening: root to play 6-3 from the starting position (1-point match)
START_63 = (
    "board:gnubg:root:1:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:3:6:3:1:1:1:0:1:-1:0:25:"
    "0:0:0:0:0:0:1:1"
)
#: root has a checker on the bar and rolled 5-3 (5-point match, 0-0)
BAR_53 = (
    "board:gnubg:root:5:0:0:0:0:0:0:-1:0:6:0:3:0:0:-1:-4:3:-1:0:0:-2:2:-4:-2:0:0:0:0:1:1:3:5:3:5:1:1:1:0:1:-1:0:25:"
    "0:0:0:0:0:0:0:1"
)
#: root on the bar against a closed board but the 6 point: 6-5 cannot enter
DANCE_65 = (
    "board:gnubg:root:5:0:1:-1:-1:0:-1:0:2:4:0:3:0:0:0:-3:2:0:0:0:-3:0:-4:-2:1:0:0:2:1:1:6:5:6:5:1:1:1:0:1:-1:0:25:"
    "0:0:0:0:0:0:0:1"
)
#: root may double before rolling (it owns the 2-cube, 3-point match)
MAY_DOUBLE = (
    "board:gnubg:root:3:0:0:0:1:1:1:-2:2:4:0:2:0:2:0:0:0:0:-2:0:-3:0:-3:2:-3:-2:0:0:0:1:0:0:0:0:2:1:0:0:1:-1:0:25:"
    "0:0:0:0:0:0:0:1"
)
#: gnubg doubled root (was-doubled 1, turn -1: the doubler); root has 1 point, gnubg 0 in a 5-point match
DOUBLED = (
    "board:root:gnubg:5:1:0:0:0:1:0:3:2:3:0:0:-2:0:0:0:2:0:0:0:-2:-2:-2:-3:2:-2:-2:2:0:-1:0:0:0:0:1:1:1:1:1:-1:0:25:"
    "0:0:0:0:0:0:0:1"
)


@pytest.fixture(scope="module")
def decider():
    return Decider("advanced", think=10, seed=1)


def test_gnubg_board_is_read_from_its_player_1s_side():
    fb = parse_board(START_63 + "\0", "gnubg")
    start = [0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
    assert fb.checkers(1) == start and fb.checkers(-1) == start
    assert (fb.request, fb.actor, fb.dice, fb.length, fb.cube, fb.crawford) == ("move", 1, (6, 3), 1, 1, False)
    bar = parse_board(BAR_53, "gnubg")
    assert bar.checkers(1)[25] == 1 and bar.checkers(1)[0] == 0 and sum(bar.checkers(-1)) == 15
    assert bar.checkers(-1)[25] == 0 and bar.checkers(-1)[6] == 4  # X's 6 point is FIBS position 19


def test_gnubg_dialect_swaps_the_names_and_scores_of_move_requests_only():
    # move requests carry gnubg's player 0 first; a take request (a double waiting) carries root first
    line = START_63.replace(":1:0:0:", ":5:2:1:", 1)  # 5-point match, gnubg 2, root 1
    assert parse_board(line, "fibs").score == (2, 1) and parse_board(line, "fibs").player == "gnubg"
    fb = parse_board(line, "gnubg")
    assert fb.score == (1, 2) and (fb.player, fb.opponent) == ("root", "gnubg") and fb.score_of(1) == 1
    d = parse_board(DOUBLED, "gnubg")
    assert d.score == (1, 0) and d.player == "root" and d.request == "take" and d.actor == 1 and d.turn == -1


def test_answers_are_legal_plays_in_gnubg_notation(decider):
    legal = {_plain(p) for p in Position.start("backgammon").legal_plays((6, 3))}
    assert len(legal) > 10 and answer(START_63, decider) in legal
    reply = answer(BAR_53, decider)
    assert reply.startswith("bar/") and len(reply.split()) == 2
    assert answer(DANCE_65, decider) == ""  # nothing can move: an empty line, which gnubg takes as no move


def _plain(play) -> str:
    return " ".join(f"{a}/{'off' if b == 0 else b}" for a, b, _d, _h in play.steps)


def test_cube_requests_get_roll_double_take_or_drop(decider):
    assert parse_board(MAY_DOUBLE, "gnubg").request == "double"
    assert answer(MAY_DOUBLE, decider) in ("roll", "double")
    assert answer(DOUBLED, decider) in ("take", "drop")
    # a side that may not double (the opponent owns the cube) is told to roll without asking the bot
    owned = MAY_DOUBLE.replace(":2:1:0:0:1:-1:", ":2:0:1:0:1:-1:")
    assert parse_board(owned, "gnubg").may_double == (False, True) and answer(owned, decider) == "roll"
    # a clear pass: root's 15 checkers on the bar against X's closed 4, 5 and 6 points (money: 9999)
    race = "board:root:gnubg:9999:0:0:0:" + ":".join(["0"] * 18 + ["-5", "-5", "-5", "0", "0", "0"]) + ":15"
    race += ":-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:0"
    fb = parse_board(race, "gnubg")
    assert fb.length == 0 and fb.checkers(1)[25] == 15 and answer(race, decider) == "drop"


@pytest.mark.parametrize(
    "line,why",
    [
        ("hello", "expected a FIBS board line"),
        ("board:a:b:1:0:0", "52 fields"),
        (START_63.replace(":6:3:6:3:", ":7:3:7:3:"), "die"),
        (START_63.replace(":6:3:6:3:", ":6:0:6:0:"), "both dice"),
        (START_63.replace(":0:-2:0:", ":0:-12:0:"), "more than 15 checkers"),
        (START_63.replace(":1:-1:0:25:", ":1:-1:25:0:"), "do not fit direction"),
        (START_63.replace(":1:1:1:0:1:-1:", ":3:1:1:0:1:-1:"), "power of two"),
        (START_63.replace(":0:1:6:3:", ":0:0:6:3:"), "game is over"),
        ("board:" + ":".join(["x"] * 52), "whole number"),
    ],
)
def test_bad_lines_get_an_error_line(decider, line, why):
    reply = answer(line, decider)
    assert reply.startswith("Error: ") and why in reply and len(reply) < 260


def _board_of(values) -> str:
    return "board:a:b:" + ":".join(map(str, values))


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=300)
    | st.lists(st.integers(-20, 30), min_size=40, max_size=60).map(lambda v: "board:a:b:" + ":".join(map(str, v)))
)
def test_any_line_gets_an_answer_never_an_exception(line):
    reply = answer(line, Decider("random", think=1, seed=0))
    assert isinstance(reply, str) and "\n" not in reply


def test_parse_board_raises_only_nardy_errors():
    with pytest.raises(NardyError):
        parse_board(START_63, "chess")
    with pytest.raises(NardyError):
        parse_board(None)  # type: ignore[arg-type]


# ----- the server ---------------------------------------------------------------------------
@pytest.fixture
def server():
    box = {}
    ready = threading.Event()

    def on_ready(srv):
        box["srv"] = srv
        ready.set()

    t = threading.Thread(
        target=serve,
        kwargs=dict(port=0, level="advanced", think=10, seed=1, max_clients=1, idle=5, ready=on_ready),
        daemon=True,
    )
    t.start()
    assert ready.wait(30)
    yield box["srv"]
    box["srv"].shutdown()
    t.join(10)


def _talk(port, *lines, raw=b""):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        f = s.makefile("rb")
        out = []
        if raw:
            s.sendall(raw)
            out.append(f.readline().decode().rstrip("\n"))
        for line in lines:
            s.sendall(line.encode() + b"\n\0")  # as gnubg writes: the line, its break, a NUL
            out.append(f.readline().decode().rstrip("\n"))
        return out


def test_server_answers_boards_and_refuses_garbage_without_dropping_the_connection(server):
    port = server.server_address[1]
    assert server.server_address[0] == "127.0.0.1"
    out = _talk(port, "garbage", START_63, DOUBLED)
    assert out[0].startswith("Error: ") and out[1].count("/") == 2 and out[2] in ("take", "drop")


def test_server_closes_a_connection_on_a_line_past_the_bound(server):
    port = server.server_address[1]
    out = _talk(port, raw=b"board:" + b"1:" * MAX_LINE)
    assert out == [f"Error: line longer than {MAX_LINE} bytes"]
    for _ in range(50):  # the server goes on (once it has let go of the closed connection's slot)
        reply = _talk(port, START_63)[0]
        if not reply.startswith("Error: too many connections"):
            break
        time.sleep(0.1)
    assert reply.count("/") == 2


def test_server_refuses_connections_past_max_clients(server):
    port = server.server_address[1]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as first:
        first.sendall(START_63.encode() + b"\n")
        first.makefile("rb").readline()  # the first connection holds the only slot
        with socket.create_connection(("127.0.0.1", port), timeout=30) as second:
            assert second.makefile("rb").readline().startswith(b"Error: too many connections")


# ----- GNU Backgammon plays nardy ---------------------------------------------------------------
def _gnubg():
    return shutil.which("gnubg") or ("/usr/games/gnubg" if os.access("/usr/games/gnubg", os.X_OK) else None)


@pytest.mark.skipif(_gnubg() is None, reason="gnubg not installed (apt-get install -y gnubg)")
@pytest.mark.parametrize("length,seed", [(3, 1), pytest.param(7, 5, marks=pytest.mark.slow)])
def test_gnubg_plays_a_match_against_nardy_external_to_the_end(server, tmp_path, length, seed):
    port = server.server_address[1]
    sgf = tmp_path / "match.sgf"
    cmds = (
        f"set player 1 external localhost:{port}\nset player 0 gnubg\nset seed {seed}\n"
        f"new match {length}\nsave match {sgf}\n"
    )
    p = subprocess.run(
        [_gnubg(), "-t", "-q"],
        input=cmds,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "HOME": str(tmp_path)},
    )
    out = p.stdout + p.stderr
    assert "has won the match" in out, out[-3000:]
    assert "Warning" not in out and "Error" not in out, out[-3000:]
    m = replay_sgf(sgf)  # every play nardy sent went through our rules: all legal, none skipped
    assert m.is_over and max(m.score) >= length
    root = 1  # gnubg's player 1 is nardy
    plays = [e for g in m.games for e in g.history if e.type in ("play", "pass") and e.player == root]
    assert len(plays) > 10
    cube = [e.type for g in m.games for e in g.history if e.type in ("double", "take", "drop")]
    assert cube, "this seed's match has cube actions"


def test_cli_refuses_an_unknown_level():
    from click.testing import CliRunner

    from nardy.cli import main

    r = CliRunner().invoke(main, ["external", "--port", "0", "--level", "godlike"])
    assert r.exit_code == 2 and "godlike" in r.output and "grandmaster" in r.output

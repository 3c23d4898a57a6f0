"""Issue 44's end to end: bots on a served process through ``nardy bot-client`` (subprocesses, API tokens, the event
and game streams, or the lobby and the game read again on a server without them). GNU Backgammon, through ``nardy
bot-client --external``, plays a rated 3-point match against nardy's engine on another bot account (slow); the fast
sample: two engine bots, a 1-point match; and the example bot of docs/bots.md against a player."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from nardy.client.bot import BotRunner
from nardy.client.http import Client
from nardy.client.players import EnginePlayer
from tests.web.helpers import serve_sqlite

from .gnubg import GnubgExternal, gnubg_path
from .test_bot_client import check_rated_record, me

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "endtoend")


def bot_account(url: str, name: str, bot: bool = True) -> tuple[Client, str, str]:
    """A new account (a bot account unless ``bot`` is false) with an API token: (client, name, token)."""
    c = Client(url)
    name = f"{name}{secrets.token_hex(2)}"
    c.register(name, "correct horse battery", bot=bot)
    token = c.create_token("test")
    client = Client(url, token)
    return client, name, token


def needs_event_stream(c: Client) -> None:
    with c.http.stream("GET", "/api/stream/events", timeout=5) as r:
        if r.status_code == 404:
            pytest.skip("this server has no event stream (GET /api/stream/events: branch botapi)")


def bot_client(url: str, token: str, *args: str, log: Path) -> subprocess.Popen:
    env = {**os.environ, "NARDY_TOKEN": token, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", "nardy.cli", "bot-client", "--server", url, "--matches", "1", "-v", *args]
    return subprocess.Popen(cmd, cwd=str(ROOT), env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def finish(procs: list[subprocess.Popen], logs: list[Path], timeout: float) -> None:
    try:
        for p in procs:
            p.wait(timeout)
    except subprocess.TimeoutExpired:
        pass
    finally:
        for p in procs:
            if p.poll() is None:
                p.terminate()
                p.wait(10)
    for p, log in zip(procs, logs):
        assert p.returncode == 0, log.read_text()[-3000:]


def the_game(c: Client, uid: str) -> str:
    games = c.get(f"/api/players/{uid}/games")["games"]
    assert len(games) == 1
    return games[0]["id"]


def match_between(server, tmp_path, length: int, first: tuple, second: tuple, timeout: float) -> str:
    """``first`` (args of its bot-client) challenges ``second`` (accepting rated matches) to a rated match of
    ``length`` points; both bot-clients stop after it. Returns the game id (checked: record, ratings)."""
    (c1, _n1, t1, args1), (c2, n2, t2, args2) = first, second
    logs = [tmp_path / "first.log", tmp_path / "second.log"]
    accepting = bot_client(server.url, t2, "--accept", "rated", *args2, log=logs[1])
    challenging = bot_client(server.url, t1, "--challenge", n2, "--length", str(length), "--rated", *args1, log=logs[0])
    finish([challenging, accepting], logs, timeout)
    assert "accepted challenge" in logs[1].read_text()
    with c1.http.stream("GET", "/api/stream/events", timeout=5) as r:
        if r.status_code == 200:  # the streams were read, not the lobby
            assert not any("no event stream" in log.read_text() for log in logs)
    gid = the_game(c1, me(c1)["id"])
    check_rated_record(c1, gid, [c1, c2], length)
    return gid


def test_two_engine_bots_play_a_rated_match_with_nardy_bot_client(server, tmp_path):
    c1, n1, t1 = bot_account(server.url, "ann")
    c2, n2, t2 = bot_account(server.url, "bob")
    fast = ("--level", "beginner", "--think", "2")
    match_between(server, tmp_path, 1, (c1, n1, t1, fast), (c2, n2, t2, fast), 300)


@pytest.mark.slow
@pytest.mark.skipif(gnubg_path() is None, reason="gnubg not installed (apt-get install -y gnubg)")
def test_gnubg_plays_a_rated_3_point_match_through_bot_client_against_our_bot(server, tmp_path):
    gnubg = GnubgExternal(str(tmp_path)).wait()
    try:
        c1, n1, t1 = bot_account(server.url, "gnubg")
        c2, n2, t2 = bot_account(server.url, "nardy")
        ext = ("--external", f"localhost:{gnubg.port}", "--level", "beginner")
        match_between(
            server, tmp_path, 3, (c1, n1, t1, ext), (c2, n2, t2, ("--level", "advanced", "--think", "5")), 900
        )
        assert any("Accepted connection" in line for line in gnubg.output)
    finally:
        gnubg.stop()


def test_the_example_bot_plays_a_player(server, tmp_path):
    bot, name, token = bot_account(server.url, "simple")
    person, _, _ = bot_account(server.url, "person", bot=False)
    needs_event_stream(person)
    log = tmp_path / "example.log"
    env = {**os.environ, "NARDY_TOKEN": token, "PYTHONPATH": str(ROOT)}
    example = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "simple_bot.py"), server.url, "beginner"],
        env=env,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
    )
    try:
        ch = person.challenge(name, length=1, clock="blitz", rated=False)
        out: dict = {}

        def play():
            # the game exists once the example accepted: find it among the person's events
            for event in person.events():
                if event.get("type") == "gameStart":
                    gid = event["game"]["id"]
                    out["view"] = BotRunner(person, EnginePlayer("beginner", think=2)).play_game(gid)
                    out["gid"] = gid
                    return

        t = threading.Thread(target=play, daemon=True)
        t.start()
        t.join(300)
        assert "view" in out, log.read_text()[-3000:]
        assert out["view"]["match_over"] and ch["id"]
        final = person.game(out["gid"])
        assert final["match_over"] and not final["online"]["rated"]
        for _ in range(50):
            if "over" in log.read_text():
                break
            threading.Event().wait(0.2)
        assert f"game {out['gid']} over" in log.read_text()
    finally:
        example.terminate()
        example.wait(10)

"""``nardy serve`` as a process: the command line, bot moves that do not block other requests, memory
with 100 games in progress, bad requests that leave the server running."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request

from click.testing import CliRunner

from nardy.cli import main

LEVELS = ["beginner", "advanced", "expert", "grandmaster"]
MIDGAME_LONG = "AGB1gT8AwK7APw"


def test_cli_help_and_bad_database(tmp_path):
    r = CliRunner().invoke(main, ["serve", "--help"])
    assert r.exit_code == 0 and "--database" in r.output and "--port" in r.output
    assert "serve" in CliRunner().invoke(main, ["--help"]).output
    r = CliRunner().invoke(main, ["serve", "--database", "nosuchdb://x/y"])
    assert r.exit_code != 0 and "database URL" in r.output
    r = CliRunner().invoke(main, ["serve", "--port", "70000"])
    assert r.exit_code == 2


def test_bot_thinking_does_not_block(make_server):
    s = make_server()
    slow = f"/api/move?game=long&position={MIDGAME_LONG}&die1=3&die2=3&level=grandmaster&n=50"
    s.get(slow)  # compile and load once
    took = []

    def run():
        t = time.perf_counter()
        s.get(slow)
        took.append(time.perf_counter() - t)

    threads = [threading.Thread(target=run) for _ in range(4)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    lat = []
    while any(th.is_alive() for th in threads):
        t = time.perf_counter()
        assert s.get("/api/health")["status"] == "ok"
        lat.append(time.perf_counter() - t)
        time.sleep(0.02)
    for th in threads:
        th.join()
    total = time.perf_counter() - t0
    assert len(took) == 4
    assert lat and max(lat) < max(0.5 * total, 0.05), (lat, took)


def test_memory_with_100_games_and_bad_requests(make_server):
    s = make_server()
    ids = []
    for i in range(100):
        game = ("backgammon", "short", "long")[i % 3]
        v = s.post(
            "/api/games",
            {"game": game, "level": LEVELS[i % 4], "seed": i, "opponent": "bot", "colour": ("white", "black")[i % 2]},
        )
        ids.append(v["id"])
        if v["phase"] == "move" and v["moves"]:
            frm = max(v["moves"], key=int)
            s.post(
                f"/api/games/{v['id']}/actions",
                {"action": "step", "from": int(frm), "to": v["moves"][frm][0], "seq": v["seq"]},
            )
    # a hint with the strongest level in each game, and a few bad requests: the server keeps serving
    for gid in ids[:3]:
        s.get(f"/api/games/{gid}/hints?level=grandmaster")
    for path, body in (
        ("/api/games", {"game": "chess"}),
        (f"/api/games/{ids[0]}/actions", {"action": "fly", "seq": 0}),
        ("/api/games/zzz/actions", {"action": "roll", "seq": 0}),
    ):
        try:
            s.post(path, body)
            raise AssertionError("accepted")
        except urllib.error.HTTPError as e:
            assert e.code in (404, 422) and json.loads(e.read())["detail"]
    try:
        s.get("/api/plays?die1=9&die2=1")
    except urllib.error.HTTPError as e:
        assert e.code == 422
    games = s.get("/api/games?limit=500")["games"]
    assert len(games) == 100 and all(g["status"] == "playing" for g in games)
    mem = s.memory_mb()
    print(f"server RSS with 100 games: {mem}")
    # the server's own memory (heap, games, compiled code); mapped libraries' resident pages (RssFile, ~100 MB of
    # numba's LLVM and numpy) vary with the page cache: the same server measured 257 to 302 MB of VmRSS
    assert mem["RssAnon"] < 200, f"server uses {mem['RssAnon']:.0f} MB of its own ({mem})"
    assert mem["VmRSS"] < 360, f"server uses {mem['VmRSS']:.0f} MB ({mem})"
    assert s.get("/api/health")["status"] == "ok"


def test_port_in_use_reported_without_url(tmp_path):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        r = CliRunner().invoke(
            main, ["serve", "--port", str(port), "--no-warm-up", "--database", f"sqlite:///{tmp_path / 'x.db'}"]
        )
    assert r.exit_code == 1 and "already in use" in r.output and str(port) in r.output
    assert "http://" not in r.output


def test_port_zero_prints_the_real_port(tmp_path):
    import os
    import re
    import subprocess
    import sys

    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nardy.cli",
            "serve",
            "--port",
            "0",
            "--no-warm-up",
            "--database",
            f"sqlite:///{tmp_path / 'z.db'}",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        line = p.stderr.readline()
        m = re.search(r"http://localhost:(\d+)/", line)
        assert m and int(m.group(1)) != 0, line
        with urllib.request.urlopen(f"http://127.0.0.1:{m.group(1)}/api/health", timeout=30) as r:
            assert json.loads(r.read())["status"] == "ok"
    finally:
        p.terminate()
        p.wait(10)


def test_cheap_password_hashing_is_only_for_a_server_started_with_the_benchmarks_flag(tmp_path):
    from nardy.web.routers.auth import DEFAULT_HASHER, INSECURE_HASHER, _hasher
    from nardy.web.server import _make_app

    base = {
        "database": f"sqlite:///{tmp_path / 'h.db'}",
        "allowed_hosts": None,
        "allow_seeds": False,
        "bot_workers": 1,
        "bot_queue": 8,
        "secure_cookies": False,
    }
    plain = _make_app({**base, "insecure_password_hashing": False})
    cheap = _make_app({**base, "insecure_password_hashing": True})

    class Conn:
        def __init__(self, app):
            self.app = app

    assert _hasher(Conn(plain)) is DEFAULT_HASHER and DEFAULT_HASHER.memory_cost == 65536
    assert _hasher(Conn(cheap)) is INSECURE_HASHER and INSECURE_HASHER.time_cost == 1
    # a password hashed cheaply is rehashed at the next log-in of a server without the flag
    assert DEFAULT_HASHER.check_needs_rehash(INSECURE_HASHER.hash("a password of some length"))
    for app in (plain, cheap):
        app.state.storage.close()
    result = CliRunner().invoke(main, ["serve", "--help"])
    words = " ".join(result.output.split())
    assert "--insecure-password-hashing" in words and "never for a server with real accounts" in words


def test_a_served_websocket_message_over_64_kib_closes_the_connection_1009(make_server):
    # uvicorn's own limit is 16 MiB; nardy serve takes at most 64 KiB a message (an action is at most 2,048 bytes)
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    s = make_server()
    s.post("/api/auth/guest", {"name": "Ann"})
    cookies = "; ".join(f"{c.name}={c.value}" for c in s.jar)
    with connect(s.url.replace("http", "ws") + "/api/lobby/live", additional_headers={"Cookie": cookies}) as ws:
        ws.recv(timeout=20)  # the lobby's first snapshot
        ws.send("ping")
        assert ws.recv(timeout=20) == "pong"
        ws.send("x" * 65_000)  # under the limit: ignored, the connection kept
        ws.send("ping")
        assert ws.recv(timeout=20) == "pong"
        ws.send("x" * 70_000)
        try:
            while True:
                ws.recv(timeout=20)
        except ConnectionClosed as e:
            assert e.rcvd is not None and e.rcvd.code == 1009

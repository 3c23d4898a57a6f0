"""Latency of the event stream of programs as players (issue 44, docs/bots.md "Server"): on a served process
(``nardy serve`` in a subprocess, SQLite in a temporary folder, or ``--url`` of a running server), a person
challenges a bot by name, the bot accepts, the person resigns and the bot accepts the resignation; measured on the
bot's NDJSON stream (``GET /api/stream/events``), from the request's start to the event read by the client:

* ``challenge``: ``POST /api/lobby/challenges {"to": bot}`` -> ``{"type": "challenge"}``;
* ``gameStart``: ``POST /api/lobby/challenges/{id}/accept`` -> ``{"type": "gameStart"}``;
* ``gameFinish``: the accepting of the resignation (the match over) -> ``{"type": "gameFinish"}``.

Printed: p50, p99 and max per event (ms), written to ``event_stream-<date>.json``; this machine's run:
bench/results/web/event_stream-2026-12-06.json.

    python bench/event_stream.py --rounds 50
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.web.streaming import Lines, Player  # noqa: E402  (the tests' stream reader and token player)

UNRATED = {"game": "long", "length": 1, "clock": "blitz", "rated": False}


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(folder: str) -> tuple[subprocess.Popen, str]:
    port = _port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "nardy.cli", "serve", "--port", str(port), "--database", f"sqlite:///{folder}/b.db"],
        cwd=str(ROOT),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )
    end = time.time() + 120
    while time.time() < end:
        try:
            if httpx.get(url + "/api/health", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run(url: str, rounds: int) -> dict:
    # a player makes at most 30 challenges an hour (nardy.web.store.community.MAX_PER_HOUR): 25 rounds each
    people = [Player(url, f"Ann{i}") for i in range((rounds + 24) // 25)]
    robo = Player(url, "Robo", bot=True)
    stream = Lines(url, "/api/stream/events", robo.headers)
    got: dict[str, list[float]] = {"challenge": [], "gameStart": [], "gameFinish": []}
    try:
        for i in range(rounds):
            ann = people[i // 25]
            t0 = time.perf_counter()
            ch = ann.post("/api/lobby/challenges", json={**UNRATED, "to": robo.me["name"]}).json()["challenge"]
            at, ev = stream.next_timed()
            assert ev["type"] == "challenge" and ev["challenge"]["id"] == ch["id"], ev
            got["challenge"].append(at - t0)
            t0 = time.perf_counter()
            gid = robo.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}).json()["id"]
            at, ev = stream.next_timed()
            assert ev["type"] == "gameStart" and ev["game"]["id"] == gid, ev
            got["gameStart"].append(at - t0)
            v = ann.get(f"/api/games/{gid}").json()
            ann.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
            v = robo.get(f"/api/games/{gid}").json()
            t0 = time.perf_counter()
            r = robo.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
            assert r.json()["match_over"] is True
            at, ev = stream.next_timed()
            assert ev["type"] == "gameFinish" and ev["game"]["id"] == gid, ev
            got["gameFinish"].append(at - t0)
    finally:
        stream.close()
    return {
        k: {
            "n": len(v),
            "p50_ms": round(pct(v, 50) * 1000, 1),
            "p99_ms": round(pct(v, 99) * 1000, 1),
            "max_ms": round(max(v) * 1000, 1),
        }
        for k, v in got.items()
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--url", help="a running server (default: nardy serve started here on SQLite)")
    args = ap.parse_args()
    proc = None
    with tempfile.TemporaryDirectory() as folder:
        url = args.url
        if url is None:
            proc, url = serve(folder)
        try:
            figures = run(url, args.rounds)
        finally:
            if proc is not None:
                proc.terminate()
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()
    for k, f in figures.items():
        print(f"{k:11s} n={f['n']:3d}  p50 {f['p50_ms']:7.1f} ms  p99 {f['p99_ms']:7.1f} ms  max {f['max_ms']:7.1f} ms")
    out = ROOT / "bench" / "results" / "web" / f"event_stream-{dt.date.today().isoformat()}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "rounds": args.rounds,
                "server": url if args.url else "nardy serve, SQLite, 1 process",
                "run": secrets.token_hex(3),
                "figures": figures,
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    print("written", out.relative_to(ROOT))


if __name__ == "__main__":
    main()

"""What chat costs the server, alone (issue 43): ``nardy serve --workers N`` on PostgreSQL, ``--pairs`` online games
(guests, no clock) with both players' live channels open, and chat messages posted at ``--rate`` a second in all
(a random game, a random one of its players: ``POST /api/games/{id}/chat``) for ``--seconds``. Measured: the time
from a message sent to its arrival on the *other* player's live channel (p50/p95/p99/max; with 2 processes about
half the messages cross from one to the other through PostgreSQL NOTIFY), the server processes' CPU per message,
and the CPU of all of PostgreSQL's processes per message (the whole database server: other users' work too, on a
shared machine). bench/online_load.py ``--chat-fraction`` measures chat beside moves and presence; this measures
the chat's own cost, the figure that is least moved by a machine shared with other work (CPU time, not wall time).

``--root DIR`` runs the server from another checkout (the code before a change: an A/B on the same machine at the
same time)::

    python bench/chat_cost.py --pairs 100 --rate 100 --seconds 30 --workers 2
    python bench/chat_cost.py --root /path/to/other/checkout --json old.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
import online_load  # noqa: E402  (its server process and schema)
from server_load import cpu_seconds, pct, source_address  # noqa: E402

TARGET_P99 = 0.250


#: Seconds the servers' idle CPU is measured before the messages.
IDLE = 5.0


def pg_cpu() -> dict[int, float]:
    """The CPU seconds of each PostgreSQL process now."""
    return {p: cpu_seconds([p]) for p in postgres_pids()}


def postgres_pids() -> list[int]:
    """The processes called ``postgres`` on this machine (the database server and its backends)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/comm") as f:
                    if f.read().strip() == "postgres":
                        out.append(int(d))
            except OSError:
                pass
    return out


class Player:
    def __init__(self, url: str, name: str, i: int):
        self.url = url
        self.name = name
        # a loopback address of its own: the server limits new guests per address, as for different people
        self.http = httpx.AsyncClient(
            base_url=url, timeout=30, transport=httpx.AsyncHTTPTransport(local_address=source_address(i))
        )
        self.ws = None
        self.id = ""

    async def post(self, path: str, body: dict) -> httpx.Response:
        csrf = self.http.cookies.get("nardy_csrf")
        return await self.http.post(path, json=body, headers={"X-CSRF-Token": csrf} if csrf else {})

    async def login(self) -> None:
        r = await self.post("/api/auth/guest", {"name": self.name})
        r.raise_for_status()
        self.id = r.json()["user"]["id"]


async def setup(url: str, pairs: int) -> list[tuple[str, Player, Player]]:
    games = []
    for i in range(pairs):
        a, b = Player(url, f"A{i}", 2 * i), Player(url, f"B{i}", 2 * i + 1)
        await a.login()
        await b.login()
        r = await a.post("/api/games", {"game": "long", "opponent": "online", "length": 1})
        r.raise_for_status()
        g = r.json()
        (await b.post(f"/api/games/{g['id']}/join", {"invite": g["invite"]})).raise_for_status()
        games.append((g["id"], a, b))
    return games


async def open_live(gid: str, p: Player, got: dict, lat: list) -> None:
    from websockets.asyncio.client import connect

    cookie = "; ".join(f"{k}={v}" for k, v in p.http.cookies.items())
    p.ws = await connect(
        p.url.replace("http://", "ws://") + f"/api/games/{gid}/live",
        additional_headers={"Cookie": cookie},
        open_timeout=60,
        max_size=None,
    )

    async def read():
        try:
            async for raw in p.ws:
                if '"type":"chat"' not in raw[:40]:
                    continue
                m = json.loads(raw)["message"]
                token = m["text"].rsplit(" ", 1)[-1]
                if m["from"]["id"] == p.id:
                    continue
                sent = got.pop(token, None)
                if sent is not None:
                    lat.append(time.monotonic() - sent)
        except Exception:
            pass

    asyncio.get_running_loop().create_task(read())


async def drive(args, server) -> dict:
    games = await setup(server.url, args.pairs)
    got: dict[str, float] = {}
    lat: list[float] = []
    for gid, a, b in games:
        await open_live(gid, a, got, lat)
        await open_live(gid, b, got, lat)
    await asyncio.sleep(2)  # the connections settled (presence pushed)
    rng = random.Random(args.seed)
    pids = server.pids()
    # the servers' CPU with no message (clock and presence rounds, the heartbeat): taken off the messages' share
    i0, ti = cpu_seconds(pids), time.monotonic()
    await asyncio.sleep(IDLE)
    idle_per_s = (cpu_seconds(pids) - i0) / (time.monotonic() - ti)
    pg0 = pg_cpu()
    cpu0, t0 = cpu_seconds(pids), time.monotonic()
    load0 = os.getloadavg()
    statuses: dict[str, int] = {}
    sent = 0
    tasks = set()

    async def say(gid: str, p: Player, token: str) -> None:
        got[token] = time.monotonic()
        r = await p.post(f"/api/games/{gid}/chat", {"text": f"gl {token}", "key": token})
        statuses[str(r.status_code)] = statuses.get(str(r.status_code), 0) + 1
        if r.status_code != 201:
            got.pop(token, None)

    # each player says at most 5 in 10 s (the server's limit): with --rate / (2 * --pairs) per player a second
    per_player = args.rate / (2 * args.pairs)
    if per_player > 0.45:
        raise SystemExit(f"--rate {args.rate} is over the players' limit: at most {0.45 * 2 * args.pairs:.0f}/s")
    end = t0 + args.seconds
    nxt = t0
    while time.monotonic() < end:
        nxt += rng.expovariate(args.rate)
        await asyncio.sleep(max(0.0, nxt - time.monotonic()))
        gid, a, b = games[rng.randrange(len(games))]
        sent += 1
        t = asyncio.get_running_loop().create_task(say(gid, a if rng.random() < 0.5 else b, f"m{sent}"))
        tasks.add(t)
        t.add_done_callback(tasks.discard)
    await asyncio.gather(*tasks, return_exceptions=True)
    elapsed = time.monotonic() - t0
    cpu1, pg1 = cpu_seconds(pids), pg_cpu()
    pg_used = sum(v - pg0.get(p, 0.0) for p, v in pg1.items())  # (a backend gone meanwhile: its part is missed)
    chat_cpu = (cpu1 - cpu0) - idle_per_s * elapsed
    await asyncio.sleep(3)  # the last ones arrive
    lost = len(got)
    for _, a, b in games:
        for p in (a, b):
            if p.ws is not None:
                await p.ws.close()
            await p.http.aclose()
    stored = statuses.get("201", 0)
    return {
        "workers": args.workers,
        "pairs": args.pairs,
        "rate_per_s": args.rate,
        "seconds": round(elapsed, 1),
        "sent": sent,
        "statuses": statuses,
        "received": len(lat),
        "lost": lost,
        "latency_ms": {
            k: (round(1000 * v, 1) if v is not None else None)
            for k, v in (
                ("p50", pct(lat, 50)),
                ("p95", pct(lat, 95)),
                ("p99", pct(lat, 99)),
                ("max", max(lat, default=None)),
            )
        },
        "server_cpu_s": round(cpu1 - cpu0, 2),
        "server_idle_cpu_per_s": round(idle_per_s, 3),
        "server_cpu_ms_per_message": round(1000 * chat_cpu / stored, 2) if stored else None,
        "postgres_cpu_s": round(pg_used, 2),
        "postgres_cpu_ms_per_message": round(1000 * pg_used / stored, 2) if stored else None,
        "loadavg_before": [round(x, 2) for x in load0],
        "loadavg_after": [round(x, 2) for x in os.getloadavg()],
        "root": str(online_load.ROOT),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=100)
    ap.add_argument("--rate", type=float, default=100.0, help="messages a second, all games together")
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--database", default=online_load.DEFAULT_DB)
    ap.add_argument("--root", default=None, help="the checkout the server runs from (default: this one)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if not 1 <= args.pairs <= 1000 or not 1 <= args.seconds <= 300 or not 0 < args.rate <= 2000:
        ap.error("--pairs 1..1000, --seconds 1..300, --rate 0..2000")
    online_load.check_loopback(args.database)
    online_load.raise_file_limit(8 * args.pairs + 256)
    if args.root:
        online_load.ROOT = Path(args.root).resolve()
    with tempfile.TemporaryDirectory(prefix="nardy-chat-cost-") as tmp:
        schema = online_load.Schema(args.database)
        server = online_load.ServerProc(schema.url, args.workers, Path(tmp))
        try:
            server.wait_ready()
            r = asyncio.run(drive(args, server))
        finally:
            server.stop()
            schema.drop()
    lat = r["latency_ms"]
    ok = lat["p99"] is not None and lat["p99"] < 1000 * TARGET_P99
    print(
        f"== chat alone: {r['workers']} worker(s), {r['pairs']} games, {r['rate_per_s']}/s for {r['seconds']} s "
        f"(server from {r['root']}) ==\n"
        f"  {r['sent']} sent, answers {r['statuses']}, {r['received']} reached the other player, lost {r['lost']}\n"
        f"  message -> other player's WebSocket p50 {lat['p50']} ms, p95 {lat['p95']} ms, p99 {lat['p99']} ms "
        f"(target < 250: {'met' if ok else 'NOT met'}), max {lat['max']} ms\n"
        f"  server CPU {r['server_cpu_s']} s ({r['server_idle_cpu_per_s']} s/s idle taken off) = "
        f"{r['server_cpu_ms_per_message']} ms a message; PostgreSQL (all its "
        f"processes) {r['postgres_cpu_s']} s = {r['postgres_cpu_ms_per_message']} ms a message; load average "
        f"{r['loadavg_before']} -> {r['loadavg_after']} ({os.cpu_count()} cores, shared)"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

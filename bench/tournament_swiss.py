"""A Swiss tournament end to end on two server processes (issue 44, docs/tournaments.md "Server").

64 accounts (by default) join a 5-round Swiss of 1-point long nardy on two ``nardy serve`` processes sharing one
PostgreSQL (``NARDY_TEST_POSTGRES_URL``; a schema of the bench's own, dropped at the end); half the players talk to
each process. Every game is played over HTTP by our engine (:func:`nardy.flow.bot.bot_player` at ``advanced``) for
both seats, a few games at a time on threads. The servers' tournament runner starts the tournament, pairs each
round (:mod:`nardy.flow.tournament`) and makes its games.

Printed and written to ``bench/results/web/tournament_swiss.json``: per round the pairing time (the library's
``swiss_pairings`` on that round's history, timed again here), the server's turnaround (the last game of the round
stored -> the next round's games made, including the runner's 1 s period), games played, games lost (a board whose
game is missing or never finished: target 0) and the total wall time.

    NARDY_TEST_POSTGRES_URL=postgresql://... python bench/tournament_swiss.py [--players 64] [--rounds 5]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import os
import secrets
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nardy.flow.bot import bot_player  # noqa: E402
from nardy.rules.position import Position  # noqa: E402
from nardy.rules.variants import get_rules  # noqa: E402
from tests.web.helpers import Server, pg_schema  # noqa: E402


class Player:
    """One account's HTTP client, from a loopback address of its own (the sign-up limit is per address)."""

    def __init__(self, url: str, i: int):
        self.c = httpx.Client(
            base_url=url,
            transport=httpx.HTTPTransport(local_address=f"127.0.{1 + i // 200}.{10 + i % 200}"),
            timeout=60,
        )
        self.id = ""

    def post(self, path: str, body=None) -> httpx.Response:
        csrf = self.c.cookies.get("nardy_csrf")
        return self.c.post(path, json=body if body is not None else {}, headers={"X-CSRF-Token": csrf} if csrf else {})

    def get(self, path: str) -> dict:
        r = self.c.get(path)
        r.raise_for_status()
        return r.json()


def drive(gid: str, players: tuple[Player, Player], bots: dict) -> int:
    """Play game ``gid`` (``players``: the two seated, either order) to the end with the engine for both."""
    seats: dict[int, Player] = {}
    for p in players:
        for side in p.get(f"/api/games/{gid}").get("you") or []:
            seats[side] = p
    sent = 0
    v = seats[0].get(f"/api/games/{gid}")
    for _ in range(5000):
        if v.get("match_over") or v["status"] in ("over", "aborted", "cancelled", "declined"):
            return sent
        side = v["to_act"]
        if side is None:
            time.sleep(0.05)
            v = seats[0].get(f"/api/games/{gid}")
            continue
        p = seats[side]
        if side not in (v.get("you") or []):  # the position is shown from the viewer's side: the mover's view
            v = p.get(f"/api/games/{gid}")
            continue
        if v["phase"] == "roll":
            body = {"action": "roll", "seq": v["seq"]}
        elif v["phase"] == "move":
            pos = Position.from_id(v["position_id"], v["game"])
            try:
                play = bots[v["game"]].choose_play(pos, tuple(v["dice"]))
            except ValueError:  # a stale view (the game just ended): read it again
                time.sleep(0.05)
                v = p.get(f"/api/games/{gid}")
                continue
            body = {"action": "play", "play": str(play), "seq": v["seq"]}
        else:
            body = {"action": "next", "seq": v["seq"]}
        r = p.post(f"/api/games/{gid}/actions", body)
        sent += 1
        v = r.json() if r.status_code == 200 else p.get(f"/api/games/{gid}")
    shown = {k: v.get(k) for k in ("status", "phase", "to_act", "you", "dice", "position_id", "match_over")}
    raise RuntimeError(f"game {gid} not over after {sent} actions: {shown}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--players", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=6)
    ap.add_argument("--level", default="advanced")
    ap.add_argument("--out", default=str(ROOT / "bench/results/web/tournament_swiss.json"))
    args = ap.parse_args()
    if not os.environ.get("NARDY_TEST_POSTGRES_URL"):
        sys.exit("set NARDY_TEST_POSTGRES_URL")
    url, drop = pg_schema("nardy_bench_tour")
    servers = [Server(url, extra=("--no-warm-up",)) for _ in range(2)]
    t0 = time.monotonic()
    try:
        for s in servers:
            s.start()
        players = [Player(servers[i % 2].url, i) for i in range(args.players)]
        for i, p in enumerate(players):
            r = p.post("/api/auth/register", {"name": f"b{i}{secrets.token_hex(2)}", "password": "correct horse"})
            assert r.status_code == 201, r.text
            p.id = r.json()["user"]["id"]
        by_id = {p.id: p for p in players}
        terms = {
            "name": "bench Swiss",
            "game": "long",
            "format": "swiss",
            "rounds": args.rounds,
            "length": 1,
            "clock": "none",
            "players": args.players,
            "grace_s": 3600,
        }
        r = players[0].post("/api/tournaments", terms)
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        t_start = time.monotonic()
        for p in players:
            assert p.post(f"/api/tournaments/{tid}/join").status_code == 200
        bots = {"long": bot_player(get_rules("long"), args.level, 1)}
        played: set[str] = set()
        actions = 0
        with cf.ThreadPoolExecutor(args.threads) as pool:
            running: dict[str, cf.Future] = {}
            while True:
                body = players[0].get(f"/api/tournaments/{tid}")
                if body["status"] == "finished":
                    break
                for b in body["pairings"]:
                    g = b["game"]
                    if g and b["result"] is None and g not in running and g not in played:
                        pair = (by_id[b["players"][0]["id"]], by_id[b["players"][1]["id"]])
                        running[g] = pool.submit(drive, g, pair, bots)
                for g, f in list(running.items()):
                    if f.done():
                        actions += f.result()
                        played.add(g)
                        del running[g]
                time.sleep(0.3)
        wall = time.monotonic() - t_start
        report = measure(url, tid, body, args, wall, actions, len(played))
    finally:
        for s in servers:
            s.stop()
        drop()
    report["total_wall_s_with_setup"] = round(time.monotonic() - t0, 1)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


def measure(url: str, tid: str, body: dict, args, wall: float, actions: int, driven: int) -> dict:
    """Pairing times (the library again, on each round's history), the server's turnaround per round, games
    played and lost, read from the database."""
    import sqlalchemy as sa

    from nardy.flow import tournament as core
    from nardy.web.store.db import games
    from nardy.web.store.storage import normalise_url
    from nardy.web.store.tournaments import pairings

    eng = sa.create_engine(normalise_url(url), poolclass=sa.pool.NullPool)
    with eng.connect() as c:
        rows = c.execute(sa.select(pairings).where(pairings.c.tournament_id == tid).order_by(pairings.c.seq)).all()
        gids = [r.game_id for r in rows if r.game_id]
        done = {
            r.id: r
            for r in c.execute(sa.select(games.c.id, games.c.status, games.c.updated).where(games.c.id.in_(gids))).all()
        }
    entrants = [core.Entrant(id=e["id"], rating=e["rating"], name=e["name"]) for e in body["entrants"]]
    history = [
        core.Pairing(
            round=r.round, players=(r.player0, r.player1), result=tuple(json.loads(r.result)) if r.result else None
        )
        for r in rows
    ]
    per_round = []
    for n in range(1, args.rounds + 1):
        before = [p for p in history if p.round < n]
        t = time.perf_counter()
        core.swiss_pairings(entrants, before, n)
        pairing_s = time.perf_counter() - t
        made = [r.created for r in rows if r.round == n]
        prev_end = [done[r.game_id].updated for r in rows if r.round == n - 1 and r.game_id in done]
        turnaround = (min(made) - max(prev_end)).total_seconds() if made and prev_end else None
        per_round.append(
            {
                "round": n,
                "boards": len(made),
                "pairing_s": round(pairing_s, 4),
                "server_turnaround_s": None if turnaround is None else round(turnaround, 2),
            }
        )
    lost = [g for g in gids if g not in done or done[g].status != "over"]
    report = {
        "bench": "tournament_swiss",
        "players": args.players,
        "rounds": args.rounds,
        "game": "long, 1 point, no clock",
        "level": args.level,
        "processes": 2,
        "database": "postgresql",
        "per_round": per_round,
        "games_played": len(gids),
        "games_driven_here": driven,
        "actions": actions,
        "games_lost": len(lost),
        "wall_s": round(wall, 1),
        "status": body["status"],
        "winner": body["standings"][0]["name"] if body["standings"] else None,
    }
    for r in per_round:
        print(
            f"round {r['round']}: {r['boards']} boards, pairing {r['pairing_s'] * 1000:.1f} ms, "
            f"turnaround {r['server_turnaround_s']} s"
        )
    print(f"games played {len(gids)}, lost {len(lost)}, wall {wall:.1f} s")
    return report


if __name__ == "__main__":
    main()

"""What the lobby's live channel sends, and the server CPU it costs, with N lobby connections
(nardy/web/routers/lobby.py).

Builds a database (SQLite in a temporary folder, or ``--database``) with N accounts online in the lobby, some
open challenges, seeks and blocks (one player in ten blocks another), puts N lobby connections into one
process's hub (sockets that count what they are sent), and runs the lobby's rounds the way the server does
(:func:`nardy.web.routers.lobby.publish_lobby`) for:

* a **change**: by turns a challenge made, a challenge withdrawn, a player come online, a quick-pairing seek
  made (``--changes`` of them, each followed by its round);
* a **presence round** with nothing changed (:class:`nardy.web.routers.lobby.PresenceKeeper`'s round: presence
  written, the lobby sent again).

Both ways in the same run: the **reference**, every connection sent the whole lobby every round
(:data:`nardy.web.routers.lobby.FULL_SNAPSHOTS`, the way before the live deltas), and the **deltas** (a snapshot when a
connection opens, then only what changed). Printed, per change and per presence round: messages, bytes, and
this process's CPU seconds (``time.process_time``: the database reads, the JSON, the sends, and the
compression a browser's WebSocket asks for, permessage-deflate: see :class:`CountingSocket`), with the
ratios. The first round (every connection's first snapshot) is printed apart. Nothing is asserted.

    python bench/lobby_fanout.py --players 100,500,1000 --changes 20
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import secrets
import tempfile
import time
import zlib

from lobby_render import clean  # bench/lobby_render.py: removes a run's rows (sys.path[0] is bench/)

from nardy.web.app import create_app
from nardy.web.routers import lobby
from nardy.web.services.live import Conn
from nardy.web.store import community
from nardy.web.store.community import LOBBY, Community
from nardy.web.store.storage import Storage

TERMS = {"game": "long", "length": 3, "clock": "blitz", "clock_class": "blitz", "rated": True}


class CountingSocket:
    """A connection's socket that counts the messages and bytes it is sent; ``deflate``: it compresses each
    message as a WebSocket with permessage-deflate does (browsers offer it, the server's ``websockets`` takes
    it: zlib, raw deflate, the connection's own context kept), the CPU a real socket adds (the framing and the
    kernel's copies, smaller, are not counted)."""

    def __init__(self, deflate: bool):
        self.messages = 0
        self.bytes = 0
        self.wire = 0
        self.z = zlib.compressobj(6, zlib.DEFLATED, -15) if deflate else None

    async def send_text(self, text: str) -> None:
        data = text.encode()
        self.messages += 1
        self.bytes += len(data)
        if self.z is not None:
            data = self.z.compress(data) + self.z.flush(zlib.Z_SYNC_FLUSH)
        self.wire += len(data)


def build(st: Storage, players: int, challenges: int) -> list[str]:
    com = Community(st)
    tag = secrets.token_hex(3)
    ids = [st.create_user(f"fan-{tag}-{i}", "hash").id for i in range(players)]
    now = dt.datetime.now(dt.UTC)
    com.touch([(u, LOBBY) for u in ids], now)
    for i in range(challenges):
        com.create_challenge(ids[i % players], {**TERMS, "length": 1 + i % 7}, now)
    for i in range(0, players - 1, 10):
        com.block(ids[i], ids[i + 1])
    return ids


async def measure(app, ids: list[str], changes: int, full: bool, deflate: bool) -> dict:
    """One way's figures: the first round, the changes, the presence rounds."""
    lobby.FULL_SNAPSHOTS = full
    app.state.lobby_feed = lobby.LobbyFeed()
    hub = app.state.hub
    socks = [CountingSocket(deflate) for _ in ids]
    conns = [Conn(s, u, [], None, "own", "en") for s, u in zip(socks, ids, strict=True)]
    for c in conns:
        hub.add(LOBBY, c)
    com = community.community(app)
    rng_owner = ids[len(ids) // 2 :]  # the players who make the changes
    made: list[tuple[str, str]] = []

    def totals() -> tuple[int, int, int]:
        return sum(s.messages for s in socks), sum(s.bytes for s in socks), sum(s.wire for s in socks)

    async def timed(step, publish: bool = True) -> tuple[int, int, float, int]:
        m0, b0, w0 = totals()
        t0 = time.process_time()
        await step()
        if publish:
            await lobby.publish_lobby(app)
        t = time.process_time() - t0
        m1, b1, w1 = totals()
        return m1 - m0, b1 - b0, t, w1 - w0

    async def nothing():
        return None

    out: dict = {"first": await timed(nothing)}
    per_change = []
    newcomers = []
    for k in range(changes):
        owner = rng_owner[k % len(rng_owner)]
        kind = k % 4

        async def step(kind=kind, owner=owner):
            if kind == 0:
                ch = await asyncio.to_thread(com.create_challenge, owner, {**TERMS, "length": 9})
                made.append((ch.id, owner))
            elif kind == 1 and made:
                cid, who = made.pop()
                await asyncio.to_thread(com.cancel_challenge, cid, who)
            elif kind == 2:
                u = await asyncio.to_thread(app.state.storage.create_user, f"new-{secrets.token_hex(4)}", "hash")
                newcomers.append(u.id)
                await asyncio.to_thread(com.touch, [(u.id, LOBBY)])
            else:
                await asyncio.to_thread(com.quick_pair, owner, {**TERMS, "length": 11}, 1500.0, lambda ch, c: "x")

        per_change.append(await timed(step))
    keeper = lobby.PresenceKeeper(app)
    keeper.rounds = 1  # no pruning in the rounds measured
    rounds = [await timed(keeper.tick, publish=False) for _ in range(3)]  # the round publishes
    for c in conns:
        hub.remove(LOBBY, c)
    # undo the changes (the other way starts from the same lobby): withdraw what is open, newcomers leave
    for cid, who in made:
        com.cancel_challenge(cid, who)
    for owner in rng_owner[:changes]:
        seek = com.seek(owner)
        if seek is not None and seek.status == "open":
            com.cancel_challenge(seek.id, owner)
    clean(app.state.storage, newcomers)
    out["change"] = tuple(sum(x[i] for x in per_change) / len(per_change) for i in range(4))
    out["round"] = tuple(sum(x[i] for x in rounds) / len(rounds) for i in range(4))
    return out


def show(n: int, ref: dict, new: dict, deflate: bool) -> None:
    def ratio(a, b):
        return f"{a / b:6.1f}x" if b else "   inf"

    for what, label in (("first", "first round"), ("change", "per change"), ("round", "presence round")):
        (rm, rb, rt, rw), (nm, nb, nt, nw) = ref[what], new[what]
        wire = f" ({rw / 1e3:7.1f} kB deflated)" if deflate else ""
        wire2 = f" ({nw / 1e3:7.1f} kB deflated)" if deflate else ""
        print(
            f"N={n:5d} {label:14s} reference {rm:5.0f} msgs {rb / 1e3:8.1f} kB{wire} {rt * 1e3:6.1f} ms CPU | "
            f"deltas {nm:5.0f} msgs {nb / 1e3:8.1f} kB{wire2} {nt * 1e3:6.1f} ms CPU | "
            f"bytes {ratio(rb, nb)} CPU {ratio(rt, nt)}"
        )


async def run_one(app, ids: list[str], changes: int, deflate: bool) -> None:
    ref = await measure(app, ids, changes, True, deflate)
    new = await measure(app, ids, changes, False, deflate)
    show(len(ids), ref, new, deflate)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="100,500,1000", help="lobby connections (comma-separated: several runs)")
    ap.add_argument("--challenges", type=int, default=60, help="open challenges in the lobby to begin with")
    ap.add_argument("--changes", type=int, default=20, help="changes measured (at most 200)")
    ap.add_argument("--database", help="a database URL (default: SQLite in a temporary folder)")
    ap.add_argument("--no-deflate", action="store_true", help="sockets that do not compress (bytes counted only)")
    a = ap.parse_args()
    sizes = [max(2, min(int(x), 2000)) for x in a.players.split(",")]
    changes = max(4, min(a.changes, 200))
    with tempfile.TemporaryDirectory() as tmp:
        url = a.database or f"sqlite:///{tmp}/fanout.db"
        st = Storage(url)
        app = create_app(storage=st)
        print(f"database {st.backend}; {changes} changes and 3 presence rounds each way; loaded machine figures")
        for n in sizes:
            ids = build(st, n, min(a.challenges, n))
            try:
                asyncio.run(run_one(app, ids, changes, not a.no_deflate))
            finally:
                lobby.FULL_SNAPSHOTS = False
                clean(st, ids)
        st.close()


if __name__ == "__main__":
    main()

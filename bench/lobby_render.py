"""How long one lobby notification takes to make every connection's message (nardy/web/routers/lobby.py).

A notification of the lobby makes, for each of this process's lobby connections, the lobby as that player
sees it, from the database. This builds a database (SQLite in a temporary folder, or ``--database``) with
``--players`` accounts online, ``--challenges`` open challenges, some seeks and blocks, then times:

* the reference: each connection's lobby read on its own (:func:`nardy.web.routers.lobby.lobby_view`, a few queries
  per connection);
* the lobby's own way: the shared part read once, and the connections' seeks, taken challenges and blocks
  read for all of them at once (what :func:`nardy.web.routers.lobby.publish_lobby` does).

Printed: seconds per notification for each, and the ratio. Nothing is asserted.

    python bench/lobby_render.py --players 500 --challenges 100
"""

from __future__ import annotations

import argparse
import datetime as dt
import secrets
import tempfile
import time

from nardy.web.routers.lobby import _personal, _snapshot, lobby_view
from nardy.web.store.community import LOBBY, Community
from nardy.web.store.storage import Storage

TERMS = {"game": "long", "length": 3, "clock": "blitz", "clock_class": "blitz", "rated": True}


def build(st: Storage, players: int, challenges: int) -> list[str]:
    com = Community(st)
    tag = secrets.token_hex(3)  # names of this run's own (account names are unique)
    ids = [st.create_user(f"bench-{tag}-{i}", "hash").id for i in range(players)]
    now = dt.datetime.now(dt.UTC)
    com.touch([(u, LOBBY) for u in ids], now)
    for i in range(challenges):
        com.create_challenge(ids[i % players], {**TERMS, "length": 1 + i % 7}, now)
    for i in range(0, players, 10):
        com.quick_pair(ids[i], {**TERMS, "length": 25}, 1500.0, lambda ch, c: "x", now)
    for i in range(0, players - 1, 7):
        com.block(ids[i], ids[i + 1])
    return ids


def clean(st: Storage, ids: list[str]) -> None:
    """Remove this run's rows from a database given by ``--database``."""
    from nardy.web.store.community import blocks, challenges, presence
    from nardy.web.store.storage import users

    with st.engine.begin() as c:
        for table, col in ((challenges, "owner"), (presence, "user_id"), (blocks, "blocker"), (users, "id")):
            c.execute(table.delete().where(table.c[col].in_(ids)))


def per_connection(com: Community, ids: list[str]) -> None:
    for u in ids:
        lobby_view(com, u)


def batched(com: Community, ids: list[str]) -> None:
    snap = _snapshot(com)
    avoid, mine = com.avoided(ids), com.mine(ids)
    for u in ids:
        _personal(snap, u, avoid.get(u, set()), mine.get(u, {}))


def timed(fn, *args, rounds: int) -> float:
    fn(*args)  # warm
    t0 = time.perf_counter()
    for _ in range(rounds):
        fn(*args)
    return (time.perf_counter() - t0) / rounds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=300)
    ap.add_argument("--challenges", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument(
        "--database", help="a database URL (default: SQLite in a temporary folder); this run's rows are removed after"
    )
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        st = Storage(a.database or f"sqlite:///{d}/lobby.db")
        ids = build(st, a.players, a.challenges)
        com = Community(st)
        ref = timed(per_connection, com, ids, rounds=a.rounds)
        own = timed(batched, com, ids, rounds=a.rounds)
        if a.database:
            clean(st, ids)
        st.close()
    print(f"{a.players} lobby connections, {a.challenges} open challenges ({st.backend})")
    print(f"  each connection read on its own (reference): {ref * 1000:8.1f} ms a notification")
    print(f"  shared part once, the rest for all at once:  {own * 1000:8.1f} ms a notification")
    print(f"  ratio: {ref / own:.1f}x faster")


if __name__ == "__main__":
    main()

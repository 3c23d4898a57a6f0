"""Races of two server processes on one PostgreSQL acting on one game (issue 41): both players' browsers send, at
once and through both processes, the action chosen on a view several times over (HTTP and the live channel), a
stale copy of it, and the same action out of turn. Exactly one copy is applied per view, every answer is 200, 403
or 409 (never a 5xx), the seqs only grow, both processes show the same game, and the stored game loads (its
history checked by ``Session.from_dict``) and its ``.mat`` replays through the rules, with as many plays in its log
as were acknowledged.

Real ``nardy serve`` subprocesses on loopback; PostgreSQL from ``NARDY_TEST_POSTGRES_URL`` (a schema of its own),
skipped with a reason when it is not set."""

from __future__ import annotations

import concurrent.futures as cf
import json
import queue
import random
import threading
import time

import pytest

from nardy.rules.position import Position

from .helpers import HttpPlayer, Server, pg_schema


@pytest.fixture(scope="module")
def two_on_one_game():
    """Two processes on one PostgreSQL schema: ``(servers, url of the database)``."""
    url, drop = pg_schema("nardy_race")
    servers = [Server(url, extra=("--no-warm-up",)) for _ in range(2)]
    try:
        servers[0].start()  # makes the schema
        servers[1].start()
        yield servers, url
    finally:
        for s in servers:
            s.stop()
        drop()


class LiveActor:
    """A player's live channel (``WS /api/games/{id}/live``) on one process: sends actions as the page does
    (``{"type": "action", "id", "body"}``), keeps the answers by id and the seqs of the views it is pushed."""

    def __init__(self, server_url: str, player: HttpPlayer, gid: str):
        from websockets.sync.client import connect

        cookies = "; ".join(f"{c.name}={c.value}" for c in player.jar)
        url = server_url.replace("http://", "ws://") + f"/api/games/{gid}/live"
        self.ws = connect(url, additional_headers={"Cookie": cookies}, open_timeout=30)
        self.seqs: list[int] = []
        self.answers: dict[str, queue.Queue] = {}
        self.lock = threading.Lock()
        self.send_lock = threading.Lock()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for msg in self.ws:
                if not (isinstance(msg, str) and msg.startswith("{")):
                    continue
                m = json.loads(msg)
                if m.get("type") == "view":
                    self.seqs.append(m["view"]["seq"])
                elif m.get("type") == "answer":
                    if m.get("status") == 200:
                        self.seqs.append(m["view"]["seq"])
                    self._box(str(m["id"])).put(m)
        except Exception:
            pass

    def _box(self, rid: str) -> queue.Queue:
        with self.lock:
            return self.answers.setdefault(rid, queue.Queue())

    def act(self, body: dict) -> tuple[int, dict]:
        """Send ``body`` as an action; ``(status, view or error)`` once answered (one action at a time per
        connection, as the server reads them)."""
        rid = f"r{random.getrandbits(48)}"
        with self.send_lock:
            self.ws.send(json.dumps({"type": "action", "id": rid, "body": body}))
            m = self._box(rid).get(timeout=60)
        return m["status"], m.get("view") or m.get("error")

    def close(self):
        self.ws.close()
        self.thread.join(5)


def _player(url: str, name: str) -> HttpPlayer:
    p = HttpPlayer(url)
    p.post("/api/auth/guest", {"name": name})
    return p


def _on(p: HttpPlayer, url: str) -> HttpPlayer:
    """``p``'s browser sending to the process at ``url`` (the same cookies: one database)."""
    q = HttpPlayer(url)
    q.jar = p.jar
    q.opener = p.opener
    return q


def _choice(v: dict, rng: random.Random) -> dict:
    """A random legal action for the side to act on view ``v``."""
    if v["phase"] == "move" and v.get("dice"):
        plays = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))
        return {"action": "play", "play": str(rng.choice(plays)), "seq": v["seq"]}
    acts = [a for a in v["actions"] if a not in ("resign", "double")]
    return {"action": "roll" if "roll" in acts else acts[0], "seq": v["seq"]}


def fuzz(servers, rounds: int, seed: int) -> dict:
    """Play an online game by concurrent duplicate actions through both processes; returns what was seen."""
    rng = random.Random(seed)
    a, b = _player(servers[0].url, "Ann"), _player(servers[1].url, "Bob")
    terms = {"game": "long", "opponent": "online", "length": 3, "clock": {"initial": 3600}}
    g = a.post("/api/games", terms, status=201)
    gid = g["id"]
    v = b.post(f"/api/games/{gid}/join", {"invite": g["invite"]})
    side = {v["you"][0]: b, 1 - v["you"][0]: a}
    http = {s: [_on(p, srv.url) for srv in servers] for s, p in side.items()}
    live = {s: [LiveActor(srv.url, p, gid) for srv in servers] for s, p in side.items()}
    seen = {"statuses": {}, "applied": [], "plays": 0, "gid": gid, "live": live, "http": http, "start": v["seq"]}
    with cf.ThreadPoolExecutor(max_workers=12) as pool:
        for _ in range(rounds):
            view = http[0][rng.randrange(2)].get(f"/api/games/{gid}")
            if view["status"] != "playing":
                break
            mover = view["to_act"]
            body = _choice(http[mover][rng.randrange(2)].get(f"/api/games/{gid}"), rng)
            tries = [("http", mover, k % 2, body) for k in range(rng.randint(2, 4))]
            tries += [("ws", mover, k, body) for k in (0, 1)]
            tries += [("http", 1 - mover, rng.randrange(2), body), ("ws", 1 - mover, rng.randrange(2), body)]
            if body["seq"] > 0:
                tries.append(("http", mover, rng.randrange(2), {**body, "seq": body["seq"] - 1}))
            rng.shuffle(tries)

            def send(way, who, proc, b_):
                if way == "http":
                    return http[who][proc].request("POST", f"/api/games/{gid}/actions", b_), b_
                return live[who][proc].act(b_), b_

            answers = [f.result() for f in [pool.submit(send, *t) for t in tries]]
            ok = []
            for (status, out), sent in answers:
                seen["statuses"][status] = seen["statuses"].get(status, 0) + 1
                if status == 200:
                    ok.append((sent, out))
            assert len(ok) == 1, (seed, body, [s for (s, _), _ in answers])
            sent, out = ok[0]
            assert sent == body and out["seq"] > body["seq"], (seed, sent, out["seq"])
            seen["applied"].append(out["seq"])
            seen["plays"] += body["action"] == "play"
    return seen


def _check(servers, db_url: str, seen: dict) -> None:
    from nardy.records.mat import parse_mat, replay
    from nardy.web.gamecache import materialise
    from nardy.web.sessions import Session
    from nardy.web.store.storage import Storage

    gid = seen["gid"]
    assert set(seen["statuses"]) <= {200, 403, 409}, seen["statuses"]
    assert seen["applied"] == sorted(set(seen["applied"])), "a seq applied twice or going back"
    views = [q.get(f"/api/games/{gid}") for q in seen["http"][0]]
    for key in ("seq", "board", "history", "dice", "to_act", "status", "score"):
        assert views[0][key] == views[1][key], key
    assert views[0]["seq"] == seen["applied"][-1]
    for actors in seen["live"].values():  # every live connection: seqs only grow, and it reached the last one
        for actor in actors:
            deadline = time.monotonic() + 5
            while (not actor.seqs or actor.seqs[-1] < views[0]["seq"]) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert actor.seqs == sorted(actor.seqs) and actor.seqs[-1] == views[0]["seq"], actor.seqs[-5:]
            actor.close()
    store = Storage(db_url)
    try:
        saved = store.get(gid)
        assert saved.revision == views[0]["seq"] and len(saved.actions) == saved.revision - (saved.base or 0)
        # the snapshot with the logged actions applied, saved and read again: from_dict checks the history
        session = Session.from_dict(materialise(saved).to_dict())
    finally:
        store.close()
    log = session.table.log
    assert [e["n"] for e in log] == list(range(len(log)))
    assert sum(1 for e in log if e["type"] == "act" and e["action"] == "play") == seen["plays"]
    with seen["http"][0][0].opener.open(f"{servers[0].url}/api/games/{gid}/mat", timeout=60) as r:
        record = parse_mat(r.read().decode())
    replay(record)  # through the rules
    # every acknowledged play is in the record once (a roll that cannot be played is passed by the server: "")
    moves = sum(1 for g in record.games for x in g.actions if x.kind == "move" and x.text.strip())
    assert moves == seen["plays"], (moves, seen["plays"])


def test_duplicate_and_out_of_turn_actions_through_two_processes_apply_exactly_once(two_on_one_game):
    servers, url = two_on_one_game
    seed = random.randrange(2**32)
    seen = fuzz(servers, rounds=25, seed=seed)
    assert len(seen["applied"]) == 25 and seen["statuses"][409] > 25, seen["statuses"]
    _check(servers, url, seen)


@pytest.mark.slow
def test_a_whole_match_played_by_racing_duplicates_through_two_processes_stays_consistent(two_on_one_game):
    servers, url = two_on_one_game
    seed = random.randrange(2**32)
    seen = fuzz(servers, rounds=2000, seed=seed)
    assert seen["http"][0][0].get(f"/api/games/{seen['gid']}")["status"] == "over", seed
    _check(servers, url, seen)

"""The server is safe to expose: each finding of the security review as a regression test.

1. no API input is ever read as a path; 2. the computer's work is bounded, fair and cancellable, and
cheap requests never wait behind it; 3. no 500 and no leaked internals (records, the database down);
4. request bodies are bounded; 5. what decides a real game's dice is never shown; 6. actions name the
state they act on (``seq``): a retry changes nothing; 7. HEAD answers, and the Host header is checked.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
import warnings

import pytest

pytest.importorskip("httpx")
import httpx  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")

from nardy.engine.search import Deadline  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402
from nardy.rules.position import Position  # noqa: E402
from nardy.web.app import create_app  # noqa: E402
from nardy.web.botwork import BotWork, Busy, ClientGone  # noqa: E402
from nardy.web.guard import Guard, host_names_for  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

#: A backgammon position with 619 legal plays for 2-2 (a grandmaster hint list of 100 takes seconds).
HEAVY = "PgAAQCyFsHIIAA"


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'sec.db'}"


@pytest.fixture
def client(db):
    with PlayerClient(create_app(db)) as c:
        yield c


def error_of(r, status):
    assert r.status_code == status, r.text
    body = r.json()
    assert isinstance(body["detail"], str) and body["detail"] and body["error"], body
    return body


def act(c, gid, action, **kw):
    if "seq" not in kw:
        kw["seq"] = c.get(f"/api/games/{gid}").json()["seq"]
    return c.post(f"/api/games/{gid}/actions", json={"action": action, **kw})


# ----- 1. no input is a path ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/etc/passwd", "/proc/self/environ", "/etc/hostname"])
def test_mat_body_naming_a_server_file_is_parsed_as_text_not_read(client, path):
    for kw in ({"content": path.encode()}, {"json": {"text": path}}):
        body = error_of(client.post("/api/mat", **kw), 422)
        assert "root:" not in body["detail"] and "PATH=" not in body["detail"]
        assert body["error"] == "RecordError"


def test_mat_body_naming_a_record_on_disk_is_not_imported(client):
    from nardy.cli.replay import sample_records

    real = sample_records()["backgammon-match"]  # a record shipped with nardy: on disk in every install
    assert real.is_file()
    r = client.post("/api/mat?save=true", content=str(real).encode())
    error_of(r, 422)
    assert client.get("/api/games").json()["games"] == []


def test_mat_errors_do_not_tell_whether_a_path_exists(client):
    there = client.post("/api/mat", content=b"/etc/passwd").json()
    missing = client.post("/api/mat", content=b"/etc/no-such-file-here").json()
    assert there["error"] == missing["error"]
    assert there["detail"].replace("passwd", "X") == missing["detail"].replace("no-such-file-here", "X")


# ----- 3. no 500, no leaked internals ------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        " 1 point match\n\n Game 1\n a : 0                    b : " + "9" * 400,
        "a" * 300,
        " " + "9" * 5000 + " point match\n",
    ],
)
def test_mat_inputs_that_used_to_crash_get_422(client, text):
    body = error_of(client.post("/api/mat", content=text.encode()), 422)
    assert "Traceback" not in body["detail"] and "Error:" not in body["detail"]
    assert len(body["detail"]) < 400


def test_connection_stays_usable_after_an_error(db):
    # the same keep-alive connection serves the request after an error (no ECONNRESET)
    with PlayerClient(create_app(db)) as c:
        error_of(c.post("/api/mat", content=("a" * 300).encode()), 422)
        assert c.get("/api/health").status_code == 200


def test_unexpected_exception_is_a_json_500_without_detail_and_the_server_goes_on():
    async def broken(scope, receive, send):
        raise RuntimeError("secret internal detail /srv/db password=hunter2")

    async def run():
        transport = httpx.ASGITransport(app=Guard(broken))
        async with httpx.AsyncClient(transport=transport, base_url="http://x") as c:
            return await c.get("/anything")

    r = asyncio.run(run())
    body = error_of(r, 500)
    assert "secret" not in r.text and "hunter2" not in r.text and body["error"] == "InternalError"


def test_database_failure_is_503_without_driver_text_and_health_says_so(tmp_path):
    path = tmp_path / "broken.db"
    with PlayerClient(create_app(f"sqlite:///{path}")) as c:
        gid = c.post("/api/games", json={"opponent": "human"}).json()["id"]
        assert c.get("/api/health").status_code == 200
        c.app.state.storage.engine.dispose()
        path.write_bytes(b"this is not an SQLite database" * 200)
        for r in (
            c.get(f"/api/games/{gid}"),
            c.get("/api/games"),
            c.get("/api/health"),
            c.post("/api/games", json={"opponent": "human"}),
        ):
            body = error_of(r, 503)
            assert body["error"] == "DatabaseUnavailable" and r.headers["Retry-After"]
            for leak in ("sqlite", "SELECT", "nardy_games", "file is not a database", str(tmp_path)):
                assert leak not in r.text, (leak, r.text)


# ----- 4. bounded bodies -------------------------------------------------------------------------------
def test_body_over_the_limit_is_refused_before_it_is_read(client):
    r = client.post("/api/games", content=b"{" + b" " * (1 << 20) + b"}", headers={"Content-Type": "application/json"})
    assert error_of(r, 413)["error"] == "RequestTooLarge"
    r = client.post("/api/mat", content=b"x" * (2 << 20))
    error_of(r, 413)


def test_streamed_body_over_the_limit_is_cut_off(client):
    sent = []

    def chunks():
        for _ in range(100):  # 100 x 64 KiB, no Content-Length
            sent.append(1)
            yield b" " * 65536

    r = client.post("/api/games", content=chunks(), headers={"Content-Type": "application/json"})
    error_of(r, 413)


# ----- 5. what decides the dice is never shown ---------------------------------------------------------
def test_seeded_games_are_refused_unless_the_server_allows_seeded_dice(client, db):
    body = error_of(client.post("/api/games", json={"seed": 7}), 422)
    assert "seed" in body["detail"]
    with PlayerClient(create_app(db, allow_seeds=True)) as c:
        gid = c.post("/api/games", json={"seed": 7, "opponent": "human"}).json()["id"]
        rec = c.get(f"/api/games/{gid}/record").json()
        assert rec["settings"]["seeded"] is True and "seed" not in rec["settings"]
        assert "seed" not in json.dumps(c.get(f"/api/games/{gid}").json()).replace("seeded", "")


def test_real_games_show_no_dice_state(client):
    gid = client.post("/api/games", json={"opponent": "human"}).json()["id"]
    for path in (f"/api/games/{gid}", f"/api/games/{gid}/record", "/api/games"):
        text = client.get(path).text
        assert '"seed"' not in text and "rng" not in text.lower() and "state" not in json.loads(text)


def test_real_games_roll_the_operating_systems_dice_and_store_no_generator_state(client):
    gid = client.post("/api/games", json={"opponent": "human"}).json()["id"]
    stored = client.app.state.storage.get(gid).data
    assert stored["table"]["match"]["dice_source"] == {"kind": "system", "state": None}


def test_system_dice_are_fair_and_round_trip():
    from collections import Counter

    from nardy.rules.dice import SystemDice, dice_from_dict

    src = SystemDice()
    counts = Counter(src.roll() for _ in range(36_000))
    assert set(counts) == {(a, b) for a in range(1, 7) for b in range(1, 7)}
    chi2 = sum((n - 1000) ** 2 / 1000 for n in counts.values())
    assert chi2 < 75, chi2  # 35 degrees of freedom: p < 1e-4 beyond 75
    assert isinstance(dice_from_dict(src.to_dict()), SystemDice) and src.get_state() is None


# ----- 6. actions name the state they act on -----------------------------------------------------------
def test_a_repeated_action_is_refused_with_409_and_changes_nothing(client):
    v = client.post("/api/games", json={"opponent": "human", "auto_roll": False}).json()
    gid = v["id"]
    assert "roll" in v["actions"] or v["phase"] == "move"
    if v["phase"] == "move":  # the opening roll is played by the starter: finish that turn
        while v["moves"]:
            frm = next(iter(v["moves"]))
            v = act(client, gid, "step", **{"from": int(frm), "to": v["moves"][frm][0]}).json()
        v = act(client, gid, "confirm").json()
    assert v["phase"] == "roll"
    seq, to_act = v["seq"], v["to_act"]
    first = client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": seq})
    assert first.status_code == 200 and first.json()["seq"] == seq + 1
    after = first.json()
    again = client.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": seq})
    body = error_of(again, 409)
    assert body["error"] == "StaleAction" and body["seq"] == seq + 1
    now = client.get(f"/api/games/{gid}").json()
    assert now["seq"] == seq + 1 and now["dice"] == after["dice"] and now["to_act"] == to_act
    assert now["history"] == after["history"]


def test_an_action_without_seq_is_refused(client):
    gid = client.post("/api/games", json={"opponent": "human"}).json()["id"]
    body = error_of(client.post(f"/api/games/{gid}/actions", json={"action": "roll"}), 422)
    assert "seq" in body["detail"]


def test_concurrent_copies_of_one_action_act_once(db):
    with PlayerClient(create_app(db)) as c:
        v = c.post("/api/games", json={"opponent": "human", "auto_roll": False}).json()
        gid, seq = v["id"], v["seq"]
        codes = []

        def send():
            codes.append(
                c.post(
                    f"/api/games/{gid}/actions", json={"action": "undo" if v["phase"] == "move" else "roll", "seq": seq}
                ).status_code
            )

        if v["phase"] == "move":
            frm = next(iter(v["moves"]))
            v = act(c, gid, "step", **{"from": int(frm), "to": v["moves"][frm][0]}).json()
            seq = v["seq"]
        threads = [threading.Thread(target=send) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(codes) == [200] + [409] * 7
        assert c.get(f"/api/games/{gid}").json()["seq"] == seq + 1


# ----- 7. HEAD and Host ---------------------------------------------------------------------------------
def test_head_answers_on_get_routes_without_a_body(client):
    for path in ("/", "/api/health", "/api/info", "/static/app.js"):
        get, head = client.get(path), client.head(path)
        assert head.status_code == 200 == get.status_code, path
        assert head.content == b"" and head.headers.get("content-type") == get.headers.get("content-type")


def test_host_header_must_name_the_server(db):
    with PlayerClient(create_app(db, allowed_hosts=host_names_for("127.0.0.1")), base_url="http://localhost:8000") as c:
        assert c.get("/api/health").status_code == 200
        assert c.get("/api/health", headers={"Host": "127.0.0.1:8000"}).status_code == 200
        assert c.get("/api/health", headers={"Host": "[::1]:8000"}).status_code == 200
        body = error_of(c.get("/api/health", headers={"Host": "attacker.example"}), 400)
        assert body["error"] == "InvalidHost"
        error_of(c.get("/", headers={"Host": "localhost.attacker.example:8000"}), 400)


def test_default_host_names_follow_the_listening_address():
    assert set(host_names_for("127.0.0.1")) >= {"localhost", "127.0.0.1"}
    assert host_names_for("192.168.1.5") == ["192.168.1.5"]
    assert host_names_for("0.0.0.0") is None and host_names_for("::") is None


# ----- 2. the computer's work: bounded, fair, cancellable ---------------------------------------------
def test_deadline_cuts_a_search_short_and_keeps_the_best_so_far():
    pos = Position.from_id(HEAVY)
    bot = Bot("backgammon", level="grandmaster")
    d = Deadline(0.0)
    hs = bot.hints(pos, (2, 2), n=100, deadline=d)
    assert d.hit and len(hs) == 100 and all(h.ply == 0 for h in hs)
    full = bot.hints(pos, (2, 2), n=3, deadline=Deadline(None))
    assert [h.ply for h in full] == [2, 2, 2]
    assert bot.choose_play(pos, (2, 2), deadline=Deadline(0.0)) in pos.legal_plays((2, 2))


def test_no_deadline_gives_the_same_play_as_before():
    pos = Position.from_id(HEAVY)
    bot = Bot("backgammon", level="grandmaster")
    assert str(bot.choose_play(pos, (2, 2))) == str(bot.choose_play(pos, (2, 2), deadline=Deadline(60)))


def _blocking_work(**kw):
    work = BotWork(workers=1, **kw)
    gate = threading.Event()
    return work, gate


def _wait_running(work, n=1):
    t = time.monotonic()
    while work.stats()["running"] != n and time.monotonic() - t < 5:
        time.sleep(0.005)
    assert work.stats()["running"] == n


def test_bot_work_is_shared_round_robin_between_clients():
    work, gate = _blocking_work(per_client=10)
    order = []
    first = work.submit("a", lambda d: gate.wait(5))  # occupies the only worker
    _wait_running(work)
    jobs = [work.submit("a", lambda d, i=i: order.append(("a", i))) for i in range(4)]
    jobs.append(work.submit("b", lambda d: order.append(("b", 0))))
    gate.set()
    for j in [first, *jobs]:
        j.future.result(5)
    assert order == [("a", 0), ("b", 0), ("a", 1), ("a", 2), ("a", 3)]
    work.close()


def test_bot_work_refuses_too_many_from_one_client_and_a_full_queue():
    work, gate = _blocking_work(per_client=2, max_queued=2)
    work.submit("a", lambda d: gate.wait(5))
    _wait_running(work)
    work.submit("a", lambda d: None)
    with pytest.raises(Busy) as e:
        work.submit("a", lambda d: None)
    assert e.value.status == 429 and e.value.retry_after >= 1
    work.submit("b", lambda d: None)
    with pytest.raises(Busy) as e:
        work.submit("c", lambda d: None)
    assert e.value.status == 503
    gate.set()
    work.close()


def test_bot_work_drops_what_waited_too_long_and_what_the_client_left():
    async def run():
        work, gate = _blocking_work(max_wait=0.3)
        work.submit("x", lambda d: gate.wait(5))
        with pytest.raises(Busy) as e:
            await work.run("a", lambda d: None, poll=0.05)
        assert e.value.status == 503

        async def gone():
            return True

        with pytest.raises(ClientGone):
            await work.run("b", lambda d: None, is_disconnected=gone, poll=0.05)
        assert work.stats()["waiting"] == 0 and work.counts["expired"] == 1 and work.counts["cancelled"] == 1
        gate.set()
        # a running job is cancelled through its deadline
        seen = threading.Event()

        def long(d):
            seen.set()
            while not d.expired():
                time.sleep(0.01)
            return "stopped"

        calls = 0

        async def later():
            nonlocal calls
            calls += 1
            return seen.is_set()

        with pytest.raises(ClientGone):
            await work.run("c", long, is_disconnected=later, poll=0.05, budget=30)
        t = time.monotonic()
        while work.stats()["running"] and time.monotonic() - t < 5:
            await asyncio.sleep(0.02)
        assert work.stats()["running"] == 0
        work.close()

    asyncio.run(run())


def test_engine_request_over_budget_answers_with_the_best_so_far(db):
    work = BotWork(workers=1, budget=0.2)
    with PlayerClient(create_app(db, bot_work=work)) as c:
        r = c.get("/api/move", params={"position": HEAVY, "die1": 2, "die2": 2, "level": "grandmaster", "n": 100})
        assert r.status_code == 200, r.text
        out = r.json()
        assert out["complete"] is False and len(out["moves"]) == 100


def test_cheap_requests_do_not_wait_behind_bot_work(make_server):
    """32 concurrent heavy engine requests (seconds each) and abandoned ones: a saved game's view still
    answers fast, and the abandoned work is dropped."""
    import concurrent.futures
    import urllib.error
    import urllib.request

    s = make_server()
    gid = s.post("/api/games", {"opponent": "human"})["id"]
    url = f"{s.url}/api/move?position={HEAVY}&die1=2&die2=2&level=grandmaster&n=100"

    def heavy(timeout, i):
        # each as a client of its own, as behind a reverse proxy (uvicorn trusts X-Forwarded-For from
        # loopback); the addresses are documentation addresses, only written in a header
        req = urllib.request.Request(url, headers={"X-Forwarded-For": f"203.0.113.{i}"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status
        except urllib.error.HTTPError as e:
            assert e.code in (429, 503) and e.headers["Retry-After"], e.code
            return e.code
        except (TimeoutError, OSError):
            return "gone"

    with concurrent.futures.ThreadPoolExecutor(60) as pool:
        futs = [pool.submit(heavy, 120, i) for i in range(12)] + [pool.submit(heavy, 1, 12 + i) for i in range(20)]
        time.sleep(2)
        worst = 0.0
        for _ in range(10):
            t = time.monotonic()
            s.get(f"/api/games/{gid}")
            worst = max(worst, time.monotonic() - t)
            time.sleep(0.2)
        codes = [f.result() for f in futs]
    assert worst < 1.0, worst
    assert codes.count("gone") == 20, codes
    assert codes.count(200) >= 2 and all(c in (200, 429, 503, "gone") for c in codes), codes
    stats = s.get("/api/health")["bot_work"]
    assert stats["waiting"] == 0 and stats["running"] == 0 and stats["cancelled"] + stats["refused"] >= 20, stats

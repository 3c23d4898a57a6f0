"""Analyses wait their turn, fairly, signed-in players first (nardy.web.analysisqueue; issue 41, item 9).

One client's long analysis used to make everyone else's 503 while it ran. Here the analysis itself is replaced
by one that waits for the test (so "long" lasts exactly as long as the test wants), each client at an address of
its own (the test client's peer address), and the rest is the server's: the routes, the replay of the record,
the computer's work queue, the analysis queue.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

import nardy  # noqa: E402
from nardy.web.analysisqueue import AnalysisQueue  # noqa: E402
from nardy.web.app import create_app  # noqa: E402
from nardy.web.botwork import Busy, ClientGone  # noqa: E402
from nardy.web.routers import review  # noqa: E402

SAMPLE = Path(nardy.__file__).parent / "data" / "samples" / "backgammon-match.mat"


class SlowAnalysis:
    """Stands in for :func:`nardy.web.routers.review.analysis_answer`: notes whose record it analyses (White's name) in
    the order they start, and holds the record of White ``slow`` until :attr:`release` is set."""

    def __init__(self):
        self.started: list[str] = []
        self.release = threading.Event()

    def __call__(self, match, level, deadline=None, source=""):
        name = match.players[0]
        self.started.append(name)
        if name == "slow":
            assert self.release.wait(60)
        return {"format": "nardy-analysis", "players": [{"name": n} for n in match.players]}


@pytest.fixture
def analysis(monkeypatch):
    fake = SlowAnalysis()
    monkeypatch.setattr(review, "analysis_answer", fake)
    yield fake
    fake.release.set()


@pytest.fixture
def app(tmp_path, analysis):
    app = create_app(f"sqlite:///{tmp_path / 'queue.db'}")
    with TestClient(app):  # the app's lifespan, for the whole test
        yield app


def record(white: str) -> str:
    return SAMPLE.read_text().replace("nardy-advanced", white)


def at(app, address: str) -> TestClient:
    return TestClient(app, client=(address, 40000))


def analyse(c: TestClient, white: str):
    headers = {"X-CSRF-Token": c.cookies["nardy_csrf"]} if "nardy_csrf" in c.cookies else {}
    return c.post("/api/analyse", json={"text": record(white), "level": "advanced"}, headers=headers)


def until(cond, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


def waiting(app) -> int:
    return review.analysis_queue(app).stats()["waiting"]


def test_while_one_clients_long_analysis_runs_anothers_is_queued_and_served(app, analysis):
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        a = pool.submit(analyse, at(app, "203.0.113.1"), "slow")
        until(lambda: analysis.started == ["slow"])
        b = pool.submit(analyse, at(app, "203.0.113.2"), "bee")
        until(lambda: waiting(app) == 1)
        time.sleep(0.3)
        assert not b.done() and analysis.started == ["slow"]  # B waits: not refused, not run beside A
        analysis.release.set()
        ra, rb = a.result(60), b.result(60)
    assert ra.status_code == 200 and rb.status_code == 200, (ra.text, rb.text)
    assert rb.json()["players"][0]["name"] == "bee" and rb.json()["cached"] is False
    assert analysis.started == ["slow", "bee"]
    stats = review.analysis_queue(app).stats()
    assert stats["started"] == 2 and stats["waiting"] == stats["running"] == 0


def test_a_signed_in_player_goes_before_guests_and_anonymous_clients_waiting(app, analysis):
    account = at(app, "203.0.113.4")
    assert account.post("/api/auth/register", json={"name": "Member", "password": "a good password"}).status_code == 201
    guest = at(app, "203.0.113.3")
    assert guest.post("/api/auth/guest", json={"name": "Visitor"}).status_code == 200
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        slow = pool.submit(analyse, at(app, "203.0.113.1"), "slow")
        until(lambda: analysis.started == ["slow"])
        first = pool.submit(analyse, at(app, "203.0.113.2"), "anonymous")
        until(lambda: waiting(app) == 1)
        second = pool.submit(analyse, guest, "guest")
        until(lambda: waiting(app) == 2)
        third = pool.submit(analyse, account, "member")
        until(lambda: waiting(app) == 3)
        assert review.analysis_queue(app).stats()["waiting_signed_in"] == 1
        analysis.release.set()
        answers = [f.result(60) for f in (slow, first, second, third)]
    assert [r.status_code for r in answers] == [200, 200, 200, 200], [r.text for r in answers]
    assert analysis.started == ["slow", "member", "anonymous", "guest"]


def test_a_client_has_one_analysis_running_or_waiting(app, analysis):
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        a = pool.submit(analyse, at(app, "203.0.113.1"), "slow")
        until(lambda: analysis.started == ["slow"])
        r = analyse(at(app, "203.0.113.1"), "again")
        assert r.status_code == 429 and r.json()["code"] == "too_many_requests", r.text
        assert int(r.headers["Retry-After"]) >= 1
        analysis.release.set()
        assert a.result(60).status_code == 200
    assert analysis.started == ["slow"]


def test_a_full_queue_and_a_wait_past_its_bound_answer_503_with_retry_after(app, analysis, monkeypatch):
    queue = review.analysis_queue(app)
    monkeypatch.setattr(queue, "max_waiting", 1)
    monkeypatch.setattr(queue, "max_wait", 1.0)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        a = pool.submit(analyse, at(app, "203.0.113.1"), "slow")
        until(lambda: analysis.started == ["slow"])
        b = pool.submit(analyse, at(app, "203.0.113.2"), "bee")
        until(lambda: waiting(app) == 1)
        full = analyse(at(app, "203.0.113.3"), "sea")
        assert full.status_code == 503 and full.json()["code"] == "busy", full.text
        assert int(full.headers["Retry-After"]) >= 1
        late = b.result(30)  # waited past max_wait while A ran
        assert late.status_code == 503 and late.json()["code"] == "busy" and "waited" in late.json()["detail"]
        assert int(late.headers["Retry-After"]) >= 1
        analysis.release.set()
        assert a.result(60).status_code == 200
    assert analysis.started == ["slow"]
    stats = queue.stats()
    assert stats["waiting"] == stats["running"] == 0 and stats["expired"] == 1 and stats["refused"] == 1


# ----- the queue alone ------------------------------------------------------------------------------------------
def test_a_client_that_goes_away_leaves_the_queue_and_frees_its_place():
    async def main():
        queue = AnalysisQueue(at_once=1, per_client=1)
        hold = asyncio.Event()

        async def run(client, gone=None):
            async with queue.slot(client, is_disconnected=gone, poll=0.01):
                await hold.wait()

        first = asyncio.create_task(run("a"))
        await asyncio.sleep(0.05)
        left = asyncio.Event()

        async def gone():
            return left.is_set()

        second = asyncio.create_task(run("b", gone))
        await asyncio.sleep(0.05)
        assert queue.stats()["waiting"] == 1
        left.set()
        with pytest.raises(ClientGone):
            await second
        assert queue.stats()["waiting"] == 0 and queue.stats()["cancelled"] == 1
        third = asyncio.create_task(run("b"))  # b's place is free again
        await asyncio.sleep(0.05)
        assert queue.stats()["waiting"] == 1
        hold.set()
        await asyncio.gather(first, third)
        assert queue.stats()["running"] == 0 and queue.stats()["started"] == 2

    asyncio.run(main())


def test_clients_waiting_are_served_in_turn_not_in_order_of_asking():
    async def main():
        queue = AnalysisQueue(at_once=1, per_client=3, max_waiting=10)
        order: list[str] = []
        gate = asyncio.Event()

        async def run(client, tag):
            async with queue.slot(client, poll=0.01):
                order.append(tag)
                if tag == "x":
                    await gate.wait()

        tasks = [asyncio.create_task(run("x", "x"))]
        await asyncio.sleep(0.02)
        for tag in ("a1", "a2", "a3", "b1"):  # a asks three times before b asks once
            tasks.append(asyncio.create_task(run(tag[0], tag)))
            await asyncio.sleep(0.01)
        with pytest.raises(Busy) as e:
            async with queue.slot("a"):
                pass
        assert e.value.status == 429
        gate.set()
        await asyncio.gather(*tasks)
        assert order == ["x", "a1", "b1", "a2", "a3"]

    asyncio.run(main())

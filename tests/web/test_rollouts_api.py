"""Rollouts of a saved game's analysis over HTTP (:mod:`nardy.web.routers.rollouts`): only the game's players,
only after the analysis, bounded settings (422), one rollout per player (429), the analysis queue's refusals
(503), progress by polling, the time budget leaving the rest for the next ask, the figures written into the
analysis.

Real data: the 3-point match of ``gnubg-matches/gnubg-1002.mat`` analysed at 0-ply; rollouts of a few trials
truncated after a ply or two so the module stays quick.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("httpx")

from nardy.web.app import create_app  # noqa: E402
from nardy.web.routers import review, rollouts  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.helpers import shared_path  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    db = tmp_path_factory.mktemp("rollouts") / "rollouts.db"
    return create_app(storage=Storage(f"sqlite:///{db}"), allow_seeds=True)


@pytest.fixture(scope="module")
def ann(app):
    with PlayerClient(app) as c:
        c.guest("Ann")
        yield c


@pytest.fixture(scope="module")
def bob(app):
    with PlayerClient(app) as c:
        c.guest("Bob")
        yield c


def _store(client) -> str:
    text = shared_path(*RECORD).read_text()
    r = client.post("/api/mat?save=true", content=text, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, r.text
    return r.json()["id"]


@pytest.fixture(scope="module")
def stored(ann):
    return _store(ann)


def refused(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code and body["detail"] and body["error"], body
    return body


def _url(gid: str, **q) -> str:
    query = "&".join(f"{k}={v}" for k, v in q.items())
    return f"/api/games/{gid}/analysis/rollout" + (f"?{query}" if query else "")


def _wait(client, gid: str, limit: float = 180.0) -> dict:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r = client.get(_url(gid))
        assert r.status_code == 200, r.text
        st = r.json()
        if st["state"] not in ("waiting", "running"):
            return st
        time.sleep(0.2)
    raise AssertionError("the rollout did not finish")


def test_a_rollout_needs_the_analysis_and_a_player_of_the_game(app, ann, bob, stored):
    refused(ann.post(_url(stored)), 409, "not_analysed")
    refused(ann.get(_url(stored)), 404, "no_rollout")
    # another person: the private game is answered as a missing one; no log-in, the same
    refused(bob.post(_url(stored)), 404, "not_found")
    refused(bob.get(_url(stored)), 404, "not_found")
    nobody = PlayerClient(app)  # no lifespan of its own: leaving it would stop the app's computer work
    refused(nobody.post(_url(stored)), 404, "not_found")
    refused(ann.post(_url("nosuchgame")), 404, "not_found")


@pytest.mark.parametrize(
    "q", [{"trials": 0}, {"trials": 145}, {"truncate": 0}, {"truncate": 31}, {"candidates": 4}, {"trials": "x"}]
)
def test_settings_out_of_bounds_are_422(ann, stored, q):
    r = ann.post(_url(stored, **q))
    assert r.status_code == 422, r.text
    assert r.json()["detail"] and r.json()["error"]


def test_the_marked_decisions_are_rolled_out_and_the_analysis_carries_the_figures(ann, stored, monkeypatch):
    assert ann.post(f"/api/games/{stored}/analysis?level=advanced").status_code == 200
    # the time budget spent before the first decision: nothing done, the rest left for the next ask
    monkeypatch.setattr(rollouts, "ROLLOUT_BUDGET", 0.0)
    r = ann.post(_url(stored, trials=6, truncate=1, candidates=1))
    assert r.status_code == 202, r.text
    st = _wait(ann, stored)
    assert (st["state"], st["done"], st["total"], st["complete"]) == ("done", 0, 13, False)
    monkeypatch.setattr(rollouts, "ROLLOUT_BUDGET", 60.0)
    r = ann.post(_url(stored, trials=6, truncate=1, candidates=1))
    assert r.status_code == 202 and r.json()["state"] in ("waiting", "running", "done"), r.text
    st = _wait(ann, stored)
    assert (st["state"], st["done"], st["total"], st["complete"]) == ("done", 13, 13, True), st
    a = st["analysis"]
    rolled = [d for d in a["decisions"] if "rollout" in d]
    assert len(rolled) == 13 and a["id"] == stored and len(a["review"]["steps"]) == len(a["decisions"])
    for d in rolled:
        ro = d["rollout"]
        assert (ro["trials"], ro["truncation"]) == (6, 1) and "nply" in d
        assert {c["play"] for c in ro["candidates"]} >= {d["played"]}
        assert all(c["ci"] >= 0 for c in ro["candidates"])
    # the analysis kept for the game is the rolled-out one now; the same ask again is answered at once
    kept = ann.get(f"/api/games/{stored}/analysis").json()
    assert kept["rollout_status"]["complete"] and kept["decisions"] == a["decisions"]
    again = ann.post(_url(stored, trials=6, truncate=1, candidates=1))
    assert again.status_code == 200 and again.json()["state"] == "done"
    # other settings: rolled out afresh from the n-ply analysis, not from the rolled-out one
    r = ann.post(_url(stored, trials=4, truncate=1, candidates=1))
    assert r.status_code == 202, r.text
    st = _wait(ann, stored)
    assert (st["state"], st["done"], st["total"], st["complete"]) == ("done", 13, 13, True), st
    redo = st["analysis"]["decisions"]
    assert all(d["rollout"]["trials"] == 4 for d in redo if "rollout" in d)
    assert [d.get("nply") for d in redo] == [d.get("nply") for d in a["decisions"]]


def test_one_rollout_at_a_time_per_player(ann, monkeypatch):
    gid = _store(ann)
    assert ann.post(f"/api/games/{gid}/analysis?level=advanced").status_code == 200
    gate = threading.Event()
    real = rollouts.rollout_analysis

    def held(*a, **kw):
        gate.wait(60)
        return real(*a, **kw)

    monkeypatch.setattr(rollouts, "rollout_analysis", held)
    try:
        r = ann.post(_url(gid, trials=2, truncate=1, candidates=1))
        assert r.status_code == 202, r.text
        body = refused(ann.post(_url(gid, trials=3, truncate=1, candidates=1)), 429, "rollout_running")
        assert "Retry-After" in ann.post(_url(gid, trials=4, truncate=1, candidates=1)).headers and body["message"]
        # the same ask while it runs: its state, not a second rollout
        same = ann.post(_url(gid, trials=2, truncate=1, candidates=1))
        assert same.status_code == 202 and same.json()["state"] in ("waiting", "running")
    finally:
        gate.set()
    assert _wait(ann, gid)["complete"] is True


def test_a_full_analysis_queue_answers_503(app, ann, monkeypatch):
    gid = _store(ann)
    assert ann.post(f"/api/games/{gid}/analysis?level=advanced").status_code == 200
    queue = review.analysis_queue(app)
    monkeypatch.setattr(queue, "at_once", 0)  # every slot taken
    monkeypatch.setattr(queue, "max_waiting", 0)  # and no room to wait
    r = ann.post(_url(gid, trials=2, truncate=1, candidates=1))
    refused(r, 503, "busy")
    assert int(r.headers["Retry-After"]) > 0
    refused(ann.get(_url(gid)), 404, "no_rollout")  # nothing was started

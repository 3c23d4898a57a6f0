"""Tournaments over HTTP (issue 44, docs/tournaments.md "Server"): making one, joining and leaving, the start
when enough have joined, the first round's pairings and games, standings, the CSV and the records' zip, and the
refusals (4xx JSON with ``tour_*`` codes)."""

from __future__ import annotations

import csv
import io
import time
import zipfile

import pytest

from nardy.web.app import create_app
from nardy.web.store.storage import Storage

from .test_lobby import account, finish_by_resignation, guest

SWISS = {"game": "long", "format": "swiss", "rounds": 2, "length": 1, "clock": "blitz", "players": 4}


@pytest.fixture
def app(tmp_path):
    a = create_app(storage=Storage(f"sqlite:///{tmp_path / 'tour.db'}"))
    a.state.tour_runner.period = 0.05
    return a


@pytest.fixture
def people(app):
    cs = [account(app, n) for n in ("Ann", "Bob", "Cid", "Dan", "Eve")]
    yield cs
    for c in cs:
        c.__exit__(None, None, None)


def wait_for(c, tid: str, check, timeout: float = 20.0) -> dict:
    """GET the tournament until ``check(body)`` holds (the runner steps it in the background)."""
    end = time.monotonic() + timeout
    while True:
        body = c.get(f"/api/tournaments/{tid}").json()
        if check(body):
            return body
        assert time.monotonic() < end, body
        time.sleep(0.05)


def test_a_tournament_is_made_listed_and_shown_with_its_terms(people):
    ann = people[0]
    r = ann.post("/api/tournaments", json={**SWISS, "name": "Friday long"})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    listed = ann.get("/api/tournaments", params={"status": "waiting"}).json()["tournaments"]
    row = next(t for t in listed if t["id"] == tid)
    assert (row["name"], row["game"], row["format"], row["status"], row["players"], row["joined"], row["rounds"]) == (
        "Friday long",
        "long",
        "swiss",
        "waiting",
        4,
        0,
        2,
    )
    assert row["created_by"]["id"] == ann.me["id"]
    body = ann.get(f"/api/tournaments/{tid}").json()
    assert body["settings"]["clock_class"] == "blitz" and body["settings"]["draw_points"] == "half"
    assert body["settings"]["length"] == 1 and body["status"] == "waiting" and body["round"] == 0
    assert body["you"] == {"joined": False, "next_game": None, "starts_in": None}
    assert ann.get("/api/tournaments", params={"status": "finished"}).json()["tournaments"] == []


def test_join_leave_and_the_start_when_the_players_have_joined(people):
    ann, bob, cid, dan, eve = people
    tid = ann.post("/api/tournaments", json=SWISS).json()["id"]
    assert ann.post(f"/api/tournaments/{tid}/join").json() == {"joined": True, "new": True}
    assert ann.post(f"/api/tournaments/{tid}/join").json() == {"joined": True, "new": False}  # idempotent
    assert bob.post(f"/api/tournaments/{tid}/join").status_code == 200
    assert bob.post(f"/api/tournaments/{tid}/leave").json() == {"left": "left"}
    body = ann.get(f"/api/tournaments/{tid}").json()
    assert [e["id"] for e in body["entrants"]] == [ann.me["id"]] and body["you"]["joined"] is True
    for c in (bob, cid, dan):
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    body = wait_for(ann, tid, lambda b: b["status"] == "playing")
    assert body["round"] == 1 and body["rounds"] == 2
    boards = body["pairings"]
    assert len(boards) == 2 and all(b["game"] and b["result"] is None for b in boards)
    seated = sorted(p["id"] for b in boards for p in b["players"])
    assert seated == sorted(c.me["id"] for c in (ann, bob, cid, dan))
    # the round's games are online games between the two, with the tournament's terms
    mine = body["you"]["next_game"]
    assert mine in {b["game"] for b in boards}
    g = ann.get(f"/api/games/{mine}").json()
    assert g["status"] == "playing" and g["game"] == "long"
    # the fifth may not join a started tournament
    r = eve.post(f"/api/tournaments/{tid}/join")
    assert r.status_code == 409 and r.json()["code"] == "tour_started"


def test_refusals_are_4xx_json_with_tour_codes(app, people):
    ann = people[0]
    r = ann.get("/api/tournaments/nosuch")
    assert r.status_code == 404 and r.json()["code"] == "tour_not_found"
    r = ann.post("/api/tournaments/nosuch/join")
    assert r.status_code == 404 and r.json()["code"] == "tour_not_found"
    r = ann.post("/api/tournaments", json={**SWISS, "rounds": None})
    assert r.status_code == 422
    r = ann.post("/api/tournaments", json={**SWISS, "rated": True, "clock": "none"})
    assert r.status_code == 422 and r.json()["code"] == "tour_rated_needs_clock"
    r = ann.post("/api/tournaments", json={**SWISS, "players": 1})
    assert r.status_code == 422
    tid = ann.post("/api/tournaments", json=SWISS).json()["id"]
    r = ann.post(f"/api/tournaments/{tid}/leave")
    assert r.status_code == 409 and r.json()["code"] == "tour_not_joined"
    cat = guest(app, "Cat")
    r = cat.post("/api/tournaments", json=SWISS)
    assert r.status_code == 403 and r.json()["code"] == "tour_account_needed"
    r = cat.post(f"/api/tournaments/{tid}/join")
    assert r.status_code == 403 and r.json()["code"] == "tour_account_needed"
    cat.__exit__(None, None, None)
    for _ in range(4):
        assert ann.post("/api/tournaments", json=SWISS).status_code == 201
    r = ann.post("/api/tournaments", json=SWISS)
    assert r.status_code == 409 and r.json()["code"] == "tour_too_many"


def test_a_two_player_swiss_of_one_round_ends_with_standings_csv_and_records(people):
    ann, bob = people[:2]
    tid = ann.post("/api/tournaments", json={**SWISS, "rounds": 1, "players": 2}).json()["id"]
    for c in (ann, bob):
        c.post(f"/api/tournaments/{tid}/join")
    body = wait_for(ann, tid, lambda b: b["status"] == "playing")
    gid = body["pairings"][0]["game"]
    finish_by_resignation(bob, ann, gid)  # Bob resigns: Ann wins 1-0
    body = wait_for(ann, tid, lambda b: b["status"] == "finished")
    assert body["pairings"][0]["result"] == (
        [1.0, 0.0] if body["pairings"][0]["players"][0]["id"] == ann.me["id"] else [0.0, 1.0]
    )
    top = body["standings"][0]
    assert (top["rank"], top["id"], top["points"]) == (1, ann.me["id"], 1.0)
    assert body["standings"][1]["points"] == 0.0 and set(top["tiebreaks"]) >= {"buchholz", "sonneborn_berger"}
    r = ann.get(f"/api/tournaments/{tid}/results.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.text)))
    assert rows[0][:4] == ["rank", "id", "name", "points"] and rows[1][:2] == ["1", ann.me["id"]]
    r = ann.get(f"/api/tournaments/{tid}/records.zip")
    assert r.status_code == 200 and r.headers["content-type"] == "application/zip"
    z = zipfile.ZipFile(io.BytesIO(r.content))
    names = z.namelist()
    assert names == [f"round01-board001-{gid}.mat"]
    assert "1 point match" in z.read(names[0]).decode()
    r = ann.post(f"/api/tournaments/{tid}/leave")
    assert r.status_code == 409 and r.json()["code"] == "tour_finished"

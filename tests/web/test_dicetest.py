"""The dice self-test (nardy/web/routers/dicetest.py): counts of the fair dice scheme from fresh seeds, the chi-square
figures the page shows, the bound on N, and the page at /dice."""

from __future__ import annotations

import hashlib
import hmac
import math

import pytest

from nardy.rules import fairdice
from nardy.rules.position import Position
from nardy.web.app import create_app
from nardy.web.routers.dicetest import MAX_ROLLS, chi2_sf, chi_square, roll_counts, summary
from nardy.web.store.storage import Storage

from .players import PlayerClient


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("dicetest") / "d.db"
    with PlayerClient(create_app(storage=Storage(f"sqlite:///{db}")), base_url="http://testserver") as c:
        yield c


@pytest.mark.parametrize(
    ("x", "df", "p"),
    [
        # critical values of the chi-square distribution (any statistics table): P(X >= x) = p
        (3.841458820694124, 1, 0.05),
        (11.070497693516351, 5, 0.05),
        (15.086272469388987, 5, 0.01),
        (49.80184956820181, 35, 0.05),
        (57.34207473156201, 35, 0.01),
        (31.410432844230918, 20, 0.05),
        # the mean of a chi-square with df 2 is 2: P(X >= 2) = exp(-1)
        (2.0, 2, math.exp(-1)),
    ],
)
def test_chi2_sf_matches_the_tables(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-6)


def test_chi2_sf_is_one_at_zero_and_falls_to_zero():
    assert chi2_sf(0, 35) == 1.0 and chi2_sf(-1, 5) == 1.0
    assert chi2_sf(500, 35) < 1e-70 and 0 < chi2_sf(500, 35)


def test_counts_are_the_rolls_of_the_scheme():
    """Each roll counted is HMAC-SHA256(seed, "s0:s1:n") read as docs/fairness.md says (bytes >= 252 skipped)."""
    key = bytes(range(32))
    counts = roll_counts(key, ("abc", "def"), 500)
    expected = [[0] * 6 for _ in range(6)]
    for n in range(500):
        digest = hmac.new(key, f"abc:def:{n}".encode(), hashlib.sha256).digest()
        d1, d2 = [b % 6 + 1 for b in digest if b < 252][:2]
        expected[d1 - 1][d2 - 1] += 1
    assert counts == expected and sum(map(sum, counts)) == 500


def test_summary_counts_faces_and_the_21_rolls_with_their_expectations():
    counts = [[(i * 6 + j) % 7 + 1 for j in range(6)] for i in range(6)]
    s = summary(counts)
    n = sum(map(sum, counts))
    assert s["n"] == n and sum(s["faces"]) == 2 * n and s["faces_expected"] == 2 * n / 6
    r = {x["roll"]: x for x in s["rolls21"]}
    assert len(r) == 21 and r["1-1"]["count"] == counts[0][0] and r["2-5"]["count"] == counts[1][4] + counts[4][1]
    assert r["1-1"]["expected"] == n / 36 and r["2-5"]["expected"] == 2 * n / 36
    assert sum(x["count"] for x in s["rolls21"]) == n
    assert s["pairs_test"]["df"] == 35 and s["faces_test"]["df"] == 5 and s["rolls21_test"]["df"] == 20
    # perfectly even counts: chi-square 0, p 1
    assert chi_square([10] * 6, [10.0] * 6) == {"chi2": 0.0, "df": 5, "p": 1.0}


def test_the_endpoint_rolls_fresh_seeds_and_reveals_them(client):
    r = client.get("/api/dice/test", params={"n": 3600, "client_seed": "mybrowser"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["scheme"] == fairdice.SCHEME and d["n"] == 3600 and d["client_seeds"][0] == "mybrowser"
    assert fairdice.commitment(bytes.fromhex(d["server_seed"])) == d["commitment"]
    # the counts are those of the seeds it shows (anyone can recompute them)
    assert d["pairs"] == roll_counts(bytes.fromhex(d["server_seed"]), tuple(d["client_seeds"]), 3600)
    assert 0 <= d["pairs_test"]["p"] <= 1 and d["pairs_test"]["chi2"] >= 0
    # a new server seed each time
    assert client.get("/api/dice/test", params={"n": 36}).json()["server_seed"] != d["server_seed"]


def test_the_number_of_rolls_is_bounded_and_the_seed_checked(client):
    assert client.get("/api/dice/test", params={"n": MAX_ROLLS + 1}).status_code == 422
    assert client.get("/api/dice/test", params={"n": 35}).status_code == 422
    r = client.get("/api/dice/test", params={"n": 36, "client_seed": "no spaces!"})
    assert r.status_code == 422 and r.json()["code"] == "invalid_option"


def test_the_page_is_served_at_dice(client):
    r = client.get("/dice")
    assert r.status_code == 200 and "/static/dice.js" in r.text and r.headers["content-type"].startswith("text/html")


def test_the_rolls_of_finished_online_games_are_counted(client, tmp_path):
    """/api/dice/played counts the two-dice rolls of finished online games (openings' single dice and
    unfinished or computer games left out)."""
    with PlayerClient(client.app, base_url="http://testserver") as b:
        client.guest("Ann")
        b.guest("Bob")
        before = client.get("/api/dice/played").json()
        body = {"game": "backgammon", "opponent": "online", "length": 1}
        g = client.post("/api/games", json=body).json()
        v = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}).json()
        unfinished = client.post("/api/games", json=body).json()
        b.post(f"/api/games/{unfinished['id']}/join", json={"invite": unfinished["invite"]})
        # the starter plays (the other side's roll follows), then resigns a backgammon; the other accepts
        mover, other = (client, b) if v["to_act"] == 0 else (b, client)
        w = mover.get(f"/api/games/{g['id']}").json()
        play = Position.from_id(w["position_id"], "backgammon").legal_plays(tuple(w["dice"]))[0]
        r = mover.post(f"/api/games/{g['id']}/actions", json={"action": "play", "play": str(play), "seq": w["seq"]})
        assert r.status_code == 200, r.text
        r = mover.post(f"/api/games/{g['id']}/actions", json={"action": "resign", "level": 2, "seq": r.json()["seq"]})
        assert r.status_code == 200, r.text
        r = other.post(f"/api/games/{g['id']}/actions", json={"action": "accept", "seq": r.json()["seq"]})
        assert r.status_code == 200 and r.json()["match_over"], r.text
        rolls = [x for x in client.get(f"/api/games/{g['id']}/fairness").json()["rolls"] if len(x) == 2]
        after = client.get("/api/dice/played").json()
    assert after["games"] == before["games"] + 1
    assert rolls and after["n"] == before.get("n", 0) + len(rolls)
    d1, d2 = rolls[0]
    assert after["pairs"][d1 - 1][d2 - 1] >= 1
    assert client.get("/api/dice/played", params={"games": 201}).status_code == 422

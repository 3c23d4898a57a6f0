"""Tournaments played to the end over HTTP (issue 44, docs/tournaments.md "Server"): a Swiss of 4 over 3 rounds
(no rematch, standings 3-2-1-0 with Buchholz), a knockout of 5 (byes to the top three seeds, the winners go on, the
strongest wins), an arena with berserk (a berserk win scores a point more), a player absent past ``grace_s`` losing
the board, and the results of a board's game (a last-roll draw ½-½ or 1-1 by ``draw_points``, an aborted match
0-0). Each game is played through the API: both sides play, then the weaker player resigns."""

from __future__ import annotations

import time

import pytest

from nardy import Position
from nardy.web.app import create_app
from nardy.web.services.tournaments import board_result
from nardy.web.store.storage import Storage

from .test_lobby import account
from .test_tournaments_api import wait_for


@pytest.fixture
def app(tmp_path):
    a = create_app(storage=Storage(f"sqlite:///{tmp_path / 'tour.db'}"))
    a.state.tour_runner.period = 0.05
    return a


@pytest.fixture
def people(app):
    cs = [account(app, n) for n in ("Ann", "Bob", "Cid", "Dan", "Eve")]
    yield cs  # strongest first: the earlier in this list wins every game
    for c in cs:
        c.__exit__(None, None, None)


def decide(people, gid: str) -> None:
    """Play game ``gid`` through the API: each side makes a play, then the weaker one (later in ``people``)
    resigns on their turn and the stronger accepts."""
    by_side = {}
    for c in people:
        v = c.get(f"/api/games/{gid}").json()
        for side in v.get("you") or []:
            by_side[side] = c
    assert sorted(by_side) == [0, 1]
    loser_side = 0 if people.index(by_side[0]) > people.index(by_side[1]) else 1
    played = [0, 0]
    for _ in range(60):
        v = by_side[0].get(f"/api/games/{gid}").json()
        assert not v["match_over"], v["status"]
        side = v["to_act"]
        c = by_side[side]
        v = c.get(f"/api/games/{gid}").json()
        if side == loser_side and min(played) >= 1 and v["phase"] in ("roll", "move"):
            r = c.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
            assert r.status_code == 200, r.text
            w = by_side[1 - side]
            v = w.get(f"/api/games/{gid}").json()
            r = w.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
            assert r.status_code == 200 and r.json()["match_over"], r.text
            return
        if v["phase"] == "roll":
            body = {"action": "roll", "seq": v["seq"]}
        else:
            play = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))[0]
            body = {"action": "play", "play": str(play), "seq": v["seq"]}
            played[side] += 1
        r = c.post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == 200, r.text
    raise AssertionError("the game was not decided")


def play_round(people, body: dict) -> None:
    for b in body["pairings"]:
        if b["round"] == body["round"] and b["result"] is None and b["game"]:
            decide(people, b["game"])


def test_a_swiss_of_four_over_three_rounds_is_played_to_the_end_without_rematches(people):
    four = people[:4]
    ann = four[0]
    terms = {"game": "long", "format": "swiss", "rounds": 3, "length": 1, "clock": "blitz", "players": 4}
    tid = ann.post("/api/tournaments", json=terms).json()["id"]
    for c in four:
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    for r in (1, 2, 3):
        body = wait_for(ann, tid, lambda b, r=r: b["status"] == "playing" and b["round"] == r)
        assert len([b for b in body["pairings"] if b["round"] == r]) == 2
        play_round(four, body)
    body = wait_for(ann, tid, lambda b: b["status"] == "finished")
    met = [frozenset(p["id"] for p in b["players"]) for b in body["pairings"]]
    assert len(met) == 6 and len(set(met)) == 6  # everyone met everyone once, no rematch
    ids = [c.me["id"] for c in four]
    assert [s["id"] for s in body["standings"]] == ids
    assert [s["points"] for s in body["standings"]] == [3.0, 2.0, 1.0, 0.0]
    assert [s["rank"] for s in body["standings"]] == [1, 2, 3, 4]
    # Buchholz: the opponents' points (everyone met everyone): 6 - own
    assert [s["tiebreaks"]["buchholz"] for s in body["standings"]] == [3.0, 4.0, 5.0, 6.0]
    assert all(len(b["game"]) > 0 and b["result"] in ([1.0, 0.0], [0.0, 1.0]) for b in body["pairings"])


def test_a_knockout_of_five_gives_byes_to_the_top_seeds_and_the_strongest_wins(people):
    ann = people[0]
    terms = {"game": "short", "format": "knockout", "length": 1, "lengths": [1, 1, 1], "clock": "blitz", "players": 5}
    tid = ann.post("/api/tournaments", json=terms).json()["id"]
    for c in people:
        assert c.post(f"/api/tournaments/{tid}/join").status_code == 200
    body = wait_for(ann, tid, lambda b: b["status"] == "playing")
    assert body["rounds"] == 3
    first = [b for b in body["pairings"] if b["round"] == 1]
    byes = {b["players"][0]["id"] for b in first if b["players"][1] is None}
    assert byes == {c.me["id"] for c in people[:3]}  # equal ratings: seeded in joining order
    games = [b for b in first if b["players"][1] is not None]
    assert len(games) == 1 and {p["id"] for p in games[0]["players"]} == {people[3].me["id"], people[4].me["id"]}
    for r in (1, 2, 3):
        body = wait_for(ann, tid, lambda b, r=r: b["round"] == r or b["status"] == "finished")
        play_round(people, body)
    body = wait_for(ann, tid, lambda b: b["status"] == "finished")
    final = [b for b in body["pairings"] if b["round"] == 3]
    assert len(final) == 1 and {p["id"] for p in final[0]["players"]} == {people[0].me["id"], people[1].me["id"]}
    assert body["standings"][0]["id"] == ann.me["id"] and body["standings"][0]["rank"] == 1
    assert len(body["pairings"]) == 4 + 2 + 1


def test_an_arena_with_berserk_scores_a_berserk_win_a_point_more(people):
    ann, bob = people[:2]
    terms = {"game": "long", "format": "arena", "duration_min": 0.2, "length": 1, "clock": "blitz"}
    tid = ann.post("/api/tournaments", json={**terms, "players": 2, "berserk": True}).json()["id"]
    for c in (ann, bob):
        c.post(f"/api/tournaments/{tid}/join")
    body = wait_for(ann, tid, lambda b: b["status"] == "playing" and b["pairings"])
    gid = body["pairings"][0]["game"]
    before = ann.get(f"/api/games/{gid}").json()
    r = ann.post(f"/api/tournaments/{tid}/berserk", json={"game": gid})
    assert r.status_code == 200, r.text
    r = ann.post(f"/api/tournaments/{tid}/berserk", json={"game": gid})
    assert r.status_code == 409 and r.json()["code"] == "tour_no_berserk"  # once
    after = ann.get(f"/api/games/{gid}").json()
    me = after["you"][0]
    assert after["clock"]["remaining"][me] == pytest.approx(before["clock"]["remaining"][me] / 2, abs=2)
    decide([ann, bob], gid)  # Ann wins, berserk: 2 + 1
    body = wait_for(ann, tid, lambda b: any(s["points"] == 3.0 for s in b["standings"]))
    assert body["standings"][0]["id"] == ann.me["id"] and body["pairings"][0]["berserk"][me] is True
    # arena pairs the free players again while there is time; the games begun before the end are played out
    end = time.monotonic() + 60
    while body["status"] != "finished":
        assert time.monotonic() < end
        for b in body["pairings"]:
            if b["result"] is None and b["game"]:
                decide([ann, bob], b["game"])
        time.sleep(0.1)
        body = ann.get(f"/api/tournaments/{tid}").json()
    n = len(body["pairings"])
    assert n >= 1 and all(b["result"] == [1.0, 0.0] or b["result"] == [0.0, 1.0] for b in body["pairings"])
    # Ann won them all: 2, 2, then 4 a win on a streak of two or more, and 1 for the berserk win
    want = 1 + sum(2 if i < 2 else 4 for i in range(n))
    assert body["standings"][0]["points"] == want and body["standings"][1]["points"] == 0.0


def test_a_player_absent_past_grace_loses_the_board(people):
    ann, bob = people[:2]
    terms = {"game": "long", "format": "swiss", "rounds": 1, "length": 1, "clock": "rapid", "players": 2}
    tid = ann.post("/api/tournaments", json={**terms, "grace_s": 5}).json()["id"]
    for c in (ann, bob):
        c.post(f"/api/tournaments/{tid}/join")
    body = wait_for(ann, tid, lambda b: b["status"] == "playing")
    t0 = time.monotonic()
    body = wait_for(ann, tid, lambda b: b["status"] == "finished", timeout=30)
    assert time.monotonic() - t0 >= 3
    board = body["pairings"][0]
    gid = board["game"]
    v = ann.get(f"/api/games/{gid}").json()
    absent = v["to_act"] if v["to_act"] is not None else None
    assert v["match_over"] and sorted(board["result"]) == [0.0, 1.0]
    # White rolled (automatically) and never moved: White loses by absence
    assert board["result"] == [0.0, 1.0] and absent in (None, 0)


@pytest.mark.parametrize(
    "status, summary, draw_points, points",
    [
        ("playing", {"winner": None, "score": [0, 0], "length": 1}, "half", None),
        ("over", {"winner": 1, "score": [0, 1], "length": 1}, "half", (0.0, 1.0)),
        ("over", {"winner": None, "score": [1, 1], "length": 1}, "one", (1.0, 1.0)),
        ("over", {"winner": None, "score": [1.5, 1.5], "length": 1}, "half", (0.5, 0.5)),
        ("over", {"winner": None, "score": [0, 0], "length": 3}, "half", (0.0, 0.0)),
        ("aborted", {"winner": None, "score": [0, 0], "length": 1}, "one", (0.0, 0.0)),
    ],
)
def test_a_boards_result_follows_the_match_and_the_last_roll_draw_points(status, summary, draw_points, points):
    assert board_result(status, summary, draw_points) == points

"""The position editor's API: POST /api/positions/check, POST /api/rollout, POST /api/games with start."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx")

from nardy.rules.position import Position
from nardy.web.app import create_app
from nardy.web.routers.editor import MAX_TRIALS, MAX_TRIALS_VR
from nardy.web.store.storage import Storage
from tests.web.players import PlayerClient

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("editor") / "editor.db"
    app = create_app(storage=Storage(f"sqlite:///{db}"), allow_seeds=True)
    with PlayerClient(app) as c:
        yield c


def check(client, **body):
    r = client.post("/api/positions/check", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def start_points(game="backgammon"):
    """The starting position in wildbg's signed form."""
    p = Position.start(game)
    a = p.board
    pts = [0] * 26
    for i in range(1, 25):
        pts[i] = a[i]
    return pts


def test_check_of_the_starting_position_gives_its_ids_and_pips(client):
    out = check(client, game="backgammon", points=start_points())
    assert out["ok"] is True and out["errors"] == []
    assert out["position"] == START
    assert out["xgid"] == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert out["pips"] == [167, 167]


def test_check_names_each_impossible_thing(client):
    pts = start_points()
    pts[6] = 4  # the mover: 14 checkers
    out = check(client, game="backgammon", points=pts, off=[0, 0], dice=[0, 7], cube=3, score=[5, 1], length=5)
    assert out["ok"] is False and out["position"] is None and out["xgid"] is None
    assert [e["code"] for e in out["errors"]] == ["checker_count", "dice_range", "cube_value", "score_not_below_length"]
    assert "14 checkers" in out["errors"][0]["detail"]


def test_check_long_nardy_both_sides_on_a_point_and_the_bar(client):
    m = [0] * 26
    m[24], m[12], m[25] = 13, 1, 1  # one on the opponent's head, one on a bar long nardy has not
    o = [0] * 26
    o[24] = 15
    out = check(client, game="long", mover=m, opponent=o, cube=2)
    codes = [e["code"] for e in out["errors"]]
    assert codes == ["both_sides_on_point", "bar_in_long_nardy", "cube_in_long_nardy"]
    assert out["xgid"] is None


def test_check_reads_an_xgid_with_its_dice_cube_and_score(client):
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:1:1:31:2:1:0:5:10"
    out = check(client, game="backgammon", position=xgid)
    assert out["ok"] is True
    assert (out["dice"], out["cube"], out["owner"], out["score"], out["length"]) == ([3, 1], 2, "mover", [2, 1], 5)
    assert out["xgid"] == xgid
    # a body field wins over the XGID's
    assert check(client, game="backgammon", position=xgid, dice=[6, 5])["xgid"].split(":")[4] == "65"


def test_check_refuses_malformed_bodies(client):
    r = client.post("/api/positions/check", json={"game": "backgammon"})
    assert r.status_code == 422 and "one form" in r.json()["detail"]
    r = client.post("/api/positions/check", json={"points": [0] * 25})
    assert r.status_code == 422
    r = client.post("/api/positions/check", json={"points": [0] * 26, "mover": [0] * 26, "opponent": [0] * 26})
    assert r.status_code == 422
    r = client.post("/api/positions/check", json={"position": "not an id!"})
    assert r.status_code == 422 and r.json()["error"] == "InvalidIdError"
    r = client.post("/api/positions/check", json={"points": [500] + [0] * 25})
    assert r.status_code == 422


def test_rollout_is_bounded(client):
    r = client.post("/api/rollout", json={"game": "backgammon", "position": START, "trials": MAX_TRIALS + 1})
    assert r.status_code == 422
    r = client.post(
        "/api/rollout", json={"game": "backgammon", "position": START, "trials": MAX_TRIALS_VR + 1, "vr": True}
    )
    assert r.status_code == 422 and r.json()["code"] == "too_many_trials"
    out = client.post("/api/rollout", json={"game": "backgammon", "position": START, "trials": 36, "seed": 3}).json()
    assert out["trials"] == 36 and out["position"] == START
    assert -3 < out["equity"] < 3 and out["ci"] == pytest.approx(1.96 * out["std_error"], abs=1e-4)
    assert 0 <= out["probabilities"]["win"] <= 1
    again = client.post("/api/rollout", json={"game": "backgammon", "position": START, "trials": 36, "seed": 3})
    assert again.json()["equity"] == out["equity"]  # reproducible from the seed


def test_a_game_against_the_computer_begins_at_the_set_up_position(client):
    # White on roll with 3-1 to play, the cube on 2 owned by White, 7-point match at 2-4
    body = {
        "game": "backgammon",
        "length": 7,
        "opponent": "bot",
        "level": "beginner",
        "seed": 5,
        "start": {"position": START, "turn": "white", "dice": [3, 1], "cube": 2, "owner": "mover", "score": [2, 4]},
    }
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    gid = r.json()["id"]
    v = client.get(f"/api/games/{gid}").json()  # read back from the store
    assert (v["position_id"], v["phase"], v["turn"], v["dice"]) == (START, "move", 0, [3, 1])
    assert v["cube"] == {"enabled": True, "value": 2, "owner": 0, "offered_by": None}
    assert (v["score"], v["length"], v["history"]) == ([2, 4], 7, [{"kind": "setup"}])
    # the person plays 3-1 and the computer answers: the game goes on from the set-up position
    r = client.post(f"/api/games/{gid}/actions", json={"action": "play", "play": "8/5 6/5", "seq": v["seq"]})
    assert r.status_code == 200, r.text
    after = client.get(f"/api/games/{gid}").json()
    assert [h["kind"] for h in after["history"]][:2] == ["setup", "play"]
    # a .mat record cannot say where the game began: refused rather than written wrong
    r = client.get(f"/api/games/{gid}/mat")
    assert r.status_code == 422 and r.json()["code"] == "setup_not_in_mat"
    assert client.get(f"/api/games/{gid}/record").status_code == 200


def test_a_start_with_a_second_person_at_the_device(client):
    body = {"game": "short", "opponent": "human", "start": {"position": START, "turn": "black", "dice": [6, 6]}}
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    v = r.json()
    assert (v["turn"], v["dice"], v["humans"], v["phase"]) == (1, [6, 6], [True, True], "move")


def test_a_start_with_black_on_roll_turns_the_score_and_cube_to_the_players(client):
    from nardy.web.routers.games import NewGame, _start_of

    body = NewGame(
        game="backgammon",
        length=7,
        start={"position": START, "turn": "black", "cube": 4, "owner": "opponent", "score": [1, 3]},
    )
    s = _start_of(body)
    assert s["setup"]["turn"] == 1 and s["setup"]["cube_owner"] == 0 and s["setup"]["cube_value"] == 4
    assert s["score"] == (3, 1)


def test_a_start_is_refused_online_and_when_impossible(client):
    r = client.post("/api/games", json={"opponent": "online", "start": {"position": START}})
    assert r.status_code == 422 and r.json()["code"] == "start_online"
    r = client.post("/api/games", json={"opponent": "bot", "start": {"position": START, "score": [1, 0]}})
    assert r.status_code == 422 and r.json()["code"] == "score_in_money"
    assert [p["code"] for p in r.json()["params"]["problems"]] == ["score_in_money"]
    # a finished side: 15 borne off (the mover's board empty)
    r = client.post("/api/games", json={"opponent": "bot", "start": {"position": "AAAAAAAAAAAAAA"}})
    assert r.status_code == 422 and r.json()["code"] == "both_borne_off"


def test_the_editor_page_is_served(client):
    r = client.get("/editor")
    assert r.status_code == 200 and "editor.js" in r.text


def test_a_rollout_is_the_callers_computer_work_refused_when_they_have_too_much_waiting(tmp_path):
    import threading

    from nardy.web.botwork import BotWork

    work = BotWork(workers=1, per_client=1)
    app = create_app(storage=Storage(f"sqlite:///{tmp_path / 'busy.db'}"), bot_work=work)
    gate = threading.Event()
    with PlayerClient(app) as c:
        work.submit("testclient", lambda d: gate.wait(10))  # this client's one job, still running
        r = c.post("/api/rollout", json={"game": "backgammon", "position": START, "trials": 36})
        gate.set()
    assert r.status_code == 429 and r.json()["code"] == "too_many_requests" and "Retry-After" in r.headers

"""The HTTP API in-process (FastAPI's test client): every endpoint, good and bad input."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")

from nardy.flow.game import Game
from nardy.records.mat import write_mat
from nardy.rules.dice import DiceSource
from nardy.rules.position import Position
from nardy.web.app import create_app
from nardy.web.store.storage import Storage
from tests.helpers import SHARED
from tests.web.players import PlayerClient

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("api") / "api.db"
    app = create_app(storage=Storage(f"sqlite:///{db}"), allow_seeds=True)
    with PlayerClient(app) as c:
        yield c


def ok(r, code=200):
    assert r.status_code == code, r.text
    return r.json() if r.content else None


def bad(r, code=422, *words):
    assert r.status_code == code, r.text
    body = r.json()
    assert isinstance(body["detail"], str) and body["detail"] and body["error"]
    for w in words:
        assert w.lower() in body["detail"].lower(), body["detail"]
    return body


def act(client, gid, action, **kw):
    """An action on the game's current state (its ``seq`` read first, as the page has it)."""
    if "seq" not in kw:
        kw["seq"] = client.get(f"/api/games/{gid}").json().get("seq", 0)
    return client.post(f"/api/games/{gid}/actions", json={"action": action, **kw})


# ----- page and docs --------------------------------------------------------------------------------------
def test_page_static_and_docs(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"] and 'id="board"' in r.text
    for f in ("app.js", "board.js", "i18n.js", "style.css"):
        assert client.get(f"/static/{f}").status_code == 200
    assert client.get("/static/nothing.js").status_code == 404
    docs = client.get("/docs").text
    assert "swagger" in docs.lower() and "cdn" not in docs.lower()  # served offline
    assert client.get("/static-offline-docs/swagger-ui-bundle.js").status_code == 200
    paths = ok(client.get("/openapi.json"))["paths"]
    for p in (
        "/api/plays",
        "/api/move",
        "/api/eval",
        "/api/cube",
        "/api/mat",
        "/api/games",
        "/api/games/{gid}",
        "/api/games/{gid}/actions",
        "/api/games/{gid}/hints",
        "/api/games/{gid}/mat",
        "/api/games/{gid}/record",
        "/api/health",
        "/api/info",
    ):
        assert p in paths, p


def test_health_and_info(client):
    assert ok(client.get("/api/health"))["status"] == "ok"
    info = ok(client.get("/api/info"))
    assert set(info["games"]) == {"backgammon", "short", "long"}
    assert info["games"]["short"]["result_names"] == ["oyun", "mars", "home mars", "koks"]
    assert info["games"]["backgammon"]["options"]["cube"] is True
    assert info["games"]["long"]["numberings"] == ["own", "absolute"]
    assert "grandmaster" in info["levels"] and "random" in info["levels"]
    bad(client.get("/api/nothing"), 404)


def test_the_game_routes_answer_the_typed_view_documented_by_openapi(client):
    from nardy.web.view import SavedGameView

    api = ok(client.get("/openapi.json"))
    for path, method, code in (
        ("/api/games", "post", "201"),
        ("/api/games/{gid}", "get", "200"),
        ("/api/games/{gid}/actions", "post", "200"),
    ):
        schema = api["paths"][path][method]["responses"][code]["content"]["application/json"]["schema"]
        assert schema == {"$ref": "#/components/schemas/SavedGameView"}, path
    fields = api["components"]["schemas"]["SavedGameView"]["required"]
    assert fields[:2] == ["id", "seq"] and "board" in fields and "history" in fields
    v = ok(client.post("/api/games", json={"game": "short", "opponent": "human", "seed": 4}), 201)
    assert list(v)[:3] == ["id", "seq", "game"]
    assert SavedGameView.model_validate(v).model_dump(mode="json", by_alias=True) == v
    assert v["rules"]["strict-bear-off"] is True and v["history"][0]["kind"] == "opening"


# ----- engine ---------------------------------------------------------------------------------------------
def test_plays(client):
    r = ok(client.get("/api/plays", params={"die1": 3, "die2": 1}))
    assert r["game"] == "backgammon" and r["position"] == START and r["dice"] == [3, 1]
    texts = [p["play"] for p in r["plays"]]
    assert "8/5 6/5" in texts and len(texts) == len(set(texts)) == 16
    p = r["plays"][texts.index("8/5 6/5")]
    assert {(s["from"], s["to"], s["die"]) for s in p["steps"]} == {(8, 5, 3), (6, 5, 1)}
    assert len(p["position"]) == 14
    # long nardy, absolute numbering for Black: the head is 12
    r = ok(
        client.get(
            "/api/plays", params={"game": "long", "die1": 6, "die2": 6, "numbering": "absolute", "side": "black"}
        )
    )
    assert [p["play"] for p in r["plays"]] == ["12/6(2)"]
    r = ok(client.get("/api/plays", params={"game": "short-nardy", "position": START, "die1": 6, "die2": 5}))
    assert r["game"] == "short"


def test_plays_bad_input(client):
    bad(client.get("/api/plays", params={"die1": 7, "die2": 1}), 422, "die1")
    bad(client.get("/api/plays", params={"die1": 0, "die2": 1}), 422)
    bad(client.get("/api/plays", params={"die1": "x", "die2": 1}), 422)
    bad(client.get("/api/plays", params={"die1": 3}), 422, "die2")
    body = bad(client.get("/api/plays", params={"position": "not-an-id", "die1": 3, "die2": 1}), 422, "not-an-id")
    assert body["error"] == "InvalidIdError"
    bad(client.get("/api/plays", params={"position": "AAAAAAAAAAAAAA", "die1": 3, "die2": 1}), 422)
    bad(client.get("/api/plays", params={"game": "chess", "die1": 3, "die2": 1}), 422, "game")
    bad(client.get("/api/plays", params={"die1": 3, "die2": 1, "numbering": "absolute"}), 422, "long nardy")
    bad(client.get("/api/plays", params={"position": "x" * 200, "die1": 3, "die2": 1}), 422)


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_move_and_eval_all_games(client, game):
    r = ok(client.get("/api/move", params={"game": game, "die1": 6, "die2": 3, "level": "advanced", "n": 3}))
    assert r["play"] == r["moves"][0]["play"] and r["result"] == r["moves"][0]["position"]
    assert 1 <= len(r["moves"]) <= 3
    eqs = [m["equity"] for m in r["moves"]]
    assert eqs == sorted(eqs, reverse=True) and r["moves"][0]["loss"] == 0
    legal = {p["play"] for p in ok(client.get("/api/plays", params={"game": game, "die1": 6, "die2": 3}))["plays"]}
    assert {m["play"] for m in r["moves"]} <= legal
    e = ok(client.get("/api/eval", params={"game": game, "level": "advanced"}))
    levels = {
        "backgammon": ["single", "gammon", "backgammon"],
        "short": ["oyun", "mars", "home mars", "koks"],
        "long": ["oyn", "mars"],
    }[game]
    assert e["result_levels"] == levels
    pr = e["probabilities"]
    assert 0.3 < pr["win"] < 0.7 and abs(pr["win"] + pr["lose"] - 1) < 1e-4
    assert abs(sum(e["exclusive"]["win"].values()) - pr["win"]) < 1e-3
    assert len(e["exclusive"]["win"]) == len(levels)
    assert -1 < e["equity"] < 1


def test_move_best_play_known(client):
    r = ok(client.get("/api/move", params={"die1": 3, "die2": 1, "level": "expert"}))
    assert r["play"] == "8/5 6/5"
    # a finished game has no play; its evaluation is exact
    from nardy.rules.position import Position

    me = [0] * 26
    me[0] = 15
    opp = [0] * 26
    opp[6] = 15
    done = Position.from_boards(me, opp, "backgammon").id()
    bad(client.get("/api/move", params={"position": done, "die1": 3, "die2": 1}), 400, "finished")
    e = ok(client.get("/api/eval", params={"position": done}))
    assert e["probabilities"]["win"] == 1 and e["probabilities"]["win_gammon"] == 1


def test_move_eval_bad_input(client):
    bad(client.get("/api/move", params={"die1": 3, "die2": 1, "level": "godlike"}), 422, "level")
    bad(client.get("/api/move", params={"die1": 3, "die2": 1, "n": 0}), 422)
    bad(client.get("/api/move", params={"die1": 3}), 422)
    bad(client.get("/api/eval", params={"position": "@@@@@@@@@@@@@@"}), 422)
    bad(client.get("/api/eval", params={"game": "go"}), 422)


def test_cube(client):
    r = ok(client.get("/api/cube", params={"level": "advanced"}))
    assert r["action"] == "no double" and r["double"] is False and r["take"] is True and r["response"] == "take"
    assert set(r["equities"]) == {"no double", "double/take", "double/pass"}
    # a race far ahead: White 5 checkers on the 1-point, Black 15 on its 6-point -> double, pass
    from nardy.rules.position import Position

    me = [0] * 26
    me[1] = 5
    me[0] = 10
    opp = [0] * 26
    opp[6] = 15
    pid = Position.from_boards(me, opp, "backgammon").id()
    r = ok(client.get("/api/cube", params={"position": pid, "level": "advanced"}))
    assert r["response"] == "pass"
    # owned by the opponent: the side on roll cannot double
    r = ok(client.get("/api/cube", params={"position": pid, "owner": "opponent", "cube": 2, "level": "advanced"}))
    assert r["double"] is False and r["reason"]
    # match play and the Crawford game
    r = ok(
        client.get(
            "/api/cube", params={"length": 5, "score_me": 4, "score_opponent": 2, "crawford": True, "level": "advanced"}
        )
    )
    assert r["double"] is False and "crawford" in r["reason"].lower()
    ok(client.get("/api/cube", params={"game": "long", "level": "advanced"}))


def test_cube_bad_input(client):
    bad(client.get("/api/cube", params={"cube": 3}), 422, "power of two")
    bad(client.get("/api/cube", params={"cube": 0}), 422)
    bad(client.get("/api/cube", params={"owner": "bank"}), 422)
    bad(client.get("/api/cube", params={"length": 3, "score_me": 3}), 422, "match length")


# ----- records --------------------------------------------------------------------------------------------
def _played_record(game="backgammon", seed=1):
    g = Game(game, dice=DiceSource(seed))
    g.start()
    while not g.is_over:
        if g.phase == "roll":
            g.roll()
        else:
            g.play(g.legal_plays()[-1])
    return g, write_mat(g)


def test_mat_import(client):
    g, text = _played_record("long", 2)
    r = ok(client.post("/api/mat", content=text, headers={"Content-Type": "text/plain"}))
    rec = r["record"]
    assert rec["game"] == "long" and rec["games"][0]["result"]["winner"] == g.result.winner
    assert "id" not in r
    plays = [e for e in rec["games"][0]["events"] if e["type"] == "play"]
    assert len(plays) == sum(1 for e in g.history if e.type == "play")
    # as JSON, and saved for viewing
    r = ok(client.post("/api/mat?save=true", json={"text": text}))
    v = ok(client.get(f"/api/games/{r['id']}"))
    assert v["phase"] == "over" and v["result"]["winner"] == g.result.winner and "next" in v["actions"]
    assert v["humans"] == [True, True]


def test_mat_import_bad(client):
    _, text = _played_record("backgammon", 3)
    broken = text.replace(": 24/", ": 24/3/", 1)
    body = bad(client.post("/api/mat", content=broken), 422)
    assert body["error"] == "RecordError"
    bad(client.post("/api/mat", content="   "), 422, "empty")
    bad(client.post("/api/mat", content=b'; [Variation "Chess"]\n\n 1 point match\n'), 422, "variation")
    bad(client.post("/api/mat", json={"txt": "x"}), 422)
    bad(client.post("/api/mat", content="{not json", headers={"Content-Type": "application/json"}), 422)


# ----- saved games ----------------------------------------------------------------------------------------
def new(client, **kw):
    body = {"level": "random", "seed": 1, **kw}
    return ok(client.post("/api/games", json=body), 201)


def test_create_view_list_delete(client):
    v = new(client, game="long", level="beginner", seed=4)
    gid = v["id"]
    assert v["game"] == "long" and v["players"] == ["Player", "nardy-beginner"] and v["humans"] == [True, False]
    assert v["rules"]["last-roll"] == "off" and v["cube"]["enabled"] is False
    assert len(v["board"]["points"]) == 25 and sum(abs(x) for x in v["board"]["points"]) == 30
    assert v["pips"][0] >= 300 and len(v["labels"]) == 24
    assert v["status"] == "playing" and v["human_to_act"] and v["to_act"] == 0
    assert v["phase"] == "move" and v["moves"], "auto roll: the person is to move"
    again = ok(client.get(f"/api/games/{gid}"))
    assert again["board"] == v["board"] and again["history"] == v["history"]
    games = ok(client.get("/api/games"))["games"]
    row = next(g for g in games if g["id"] == gid)
    assert row["game"] == "long" and row["status"] == "playing" and row["score"] == [0, 0]
    assert ok(client.get("/api/games", params={"status": "over"}))["games"] == [] or all(
        g["status"] == "over" for g in ok(client.get("/api/games", params={"status": "over"}))["games"]
    )
    assert client.delete(f"/api/games/{gid}").status_code == 204
    bad(client.get(f"/api/games/{gid}"), 404, gid)
    bad(client.delete(f"/api/games/{gid}"), 404)
    bad(act(client, gid, "roll"), 404)


def test_create_bad_input(client):
    bad(client.post("/api/games", json={"game": "chess"}), 422, "chess")
    body = bad(client.post("/api/games", json={"game": "long", "options": {"head-exception": "sometimes"}}), 422)
    assert body["error"] == "InvalidOptionError"
    bad(client.post("/api/games", json={"options": {"colour": "red"}}), 422, "unknown option")
    bad(client.post("/api/games", json={"level": "godlike"}), 422, "level")
    bad(client.post("/api/games", json={"length": -1}), 422)
    bad(client.post("/api/games", json={"length": 3, "jacoby": True}), 422, "money")
    bad(client.post("/api/games", json={"unknown": 1}), 422)
    bad(client.post("/api/games", json={"players": ["one"]}), 422)
    bad(client.post("/api/games", content="{oops", headers={"Content-Type": "application/json"}), 422)
    bad(client.get("/api/games", params={"limit": 0}), 422)


def test_view_numbering_and_viewer(client):
    v = new(client, game="short", colour="black", seed=2)
    gid = v["id"]
    assert v["viewer"] == 1 and v["humans"] == [False, True]
    t = ok(client.get(f"/api/games/{gid}", params={"numbering": "traditional"}))
    assert t["labels"][:3] == ["1", "2", "3"] and t["labels"][12] == "012" and t["labels"][23] == "01"
    w = ok(client.get(f"/api/games/{gid}", params={"viewer": 0}))
    assert w["viewer"] == 0
    assert w["board"]["points"][1:] == [-x for x in reversed(v["board"]["points"][1:])]
    assert w["pips"] == list(reversed(v["pips"]))
    # a numbering the game does not have falls back to own; a made-up one is refused
    assert ok(client.get(f"/api/games/{gid}", params={"numbering": "absolute"}))["numbering"] == "own"
    bad(client.get(f"/api/games/{gid}", params={"numbering": "roman"}), 422)
    bad(client.get(f"/api/games/{gid}", params={"viewer": 2}), 422)
    # long nardy absolute numbering for Black: the viewer's own 24 is absolute 12
    lv = new(client, game="long", colour="black", seed=3)
    la = ok(client.get(f"/api/games/{lv['id']}", params={"numbering": "absolute"}))
    assert la["labels"][23] == "12" and la["labels"][11] == "24"


def _pick(moves):
    frm = max(moves, key=int)
    return int(frm), max(moves[frm], key=lambda t: -t)


def test_steps_undo_confirm_and_bad_actions(client):
    v = new(client, game="backgammon", seed=5, level="random")
    gid = v["id"]
    while not (v["phase"] == "move" and v["human_to_act"]):
        v = ok(act(client, gid, "roll"))
    frm, to = _pick(v["moves"])
    # not a legal destination
    illegal = next(p for p in range(1, 25) if p not in v["moves"].get(str(frm), []) and p != frm)
    body = bad(act(client, gid, "step", **{"from": frm, "to": illegal}), 400)
    assert body["error"] == "IllegalPlayError"
    bad(act(client, gid, "step", **{"from": frm}), 400, "from")
    bad(act(client, gid, "step", **{"from": 26, "to": 1}), 422)
    bad(act(client, gid, "undo"), 400, "no step")
    bad(act(client, gid, "confirm"), 400, "not a complete")
    bad(act(client, gid, "roll"), 400, "phase")
    bad(act(client, gid, "double"), 400)
    bad(act(client, gid, "take"), 400)
    bad(act(client, gid, "accept"), 400)
    bad(act(client, gid, "next"), 400, "not over")
    bad(act(client, gid, "fly"), 422)
    bad(client.post(f"/api/games/{gid}/actions", json={"action": "step", "from": 1, "to": 2, "extra": 1}), 422)
    bad(act(client, gid, "roll", player=1), 400, "computer")
    bad(act(client, gid, "play", play="25/1"), 400)
    body = bad(act(client, gid, "play", play="hello world"), 422)
    assert body["error"] == "NotationError"
    bad(act(client, gid, "play"), 400, "notation")
    v1 = ok(act(client, gid, "step", **{"from": frm, "to": to}))
    assert v1["steps"] and "undo" in v1["actions"] and len(v1["dice_left"]) == len(v["dice_left"]) - 1
    v2 = ok(act(client, gid, "undo"))
    assert v2["board"] == v["board"] and v2["steps"] == ""
    # a whole turn by steps, then confirm; the computer answers and auto-roll gives the person new dice
    n_hist = len(v2["history"])
    for _ in range(4):
        if v2["can_confirm"]:
            break
        f, t = _pick(v2["moves"])
        v2 = ok(act(client, gid, "step", **{"from": f, "to": t}))
    assert v2["can_confirm"] and "confirm" in v2["actions"]
    v3 = ok(act(client, gid, "confirm"))
    assert len(v3["history"]) > n_hist + 1
    assert v3["last_play"] is not None


def test_play_by_notation_and_hints(client):
    v = new(client, game="long", seed=6, level="random")
    gid = v["id"]
    h = ok(client.get(f"/api/games/{gid}/hints", params={"level": "advanced", "n": 3}))
    assert h["kind"] == "plays" and 1 <= len(h["plays"]) <= 3 and h["player"] == v["turn"]
    assert h["plays"][0]["loss"] == 0
    bad(client.get(f"/api/games/{gid}/hints", params={"level": "nope"}), 422)
    bad(client.get(f"/api/games/{gid}/hints", params={"n": 0}), 422)
    bad(client.get("/api/games/unknown/hints"), 404)
    v2 = ok(act(client, gid, "play", play=h["plays"][0]["play"]))
    assert any(e["kind"] == "play" and e["player"] == 0 for e in v2["history"])


def test_two_people_double_take_redouble_drop(client):
    v = new(client, game="backgammon", opponent="human", seed=8, auto_roll=False)
    gid = v["id"]
    assert v["humans"] == [True, True] and v["players"] == ["White", "Black"]
    # play to the first turn that starts with a roll
    for _ in range(10):
        if v["phase"] == "roll":
            break
        v = ok(
            act(
                client,
                gid,
                "play",
                play=ok(client.get(f"/api/games/{gid}/hints", params={"level": "random", "n": 1}))["plays"][0]["play"],
            )
        )
    assert v["phase"] == "roll" and v["actions"][:2] == ["roll", "double"]
    h = ok(client.get(f"/api/games/{gid}/hints", params={"level": "advanced"}))
    assert h["kind"] == "cube" and h["action"] in ("double", "no double")
    doubler = v["to_act"]
    v = ok(act(client, gid, "double"))
    assert v["phase"] == "double" and v["to_act"] == 1 - doubler and v["actions"][:2] == ["take", "drop"]
    assert v["cube"]["offered_by"] == doubler
    bad(act(client, gid, "take", player=doubler), 400)
    v = ok(act(client, gid, "take"))
    assert v["cube"]["value"] == 2 and v["cube"]["owner"] == 1 - doubler and v["phase"] == "roll"
    assert "double" not in v["actions"]
    v = ok(act(client, gid, "roll"))
    v = ok(
        act(
            client,
            gid,
            "play",
            play=ok(client.get(f"/api/games/{gid}/hints", params={"level": "random"}))["plays"][0]["play"],
        )
    )
    assert v["to_act"] == 1 - doubler and "double" in v["actions"]
    v = ok(act(client, gid, "double"))
    v = ok(act(client, gid, "drop"))
    assert v["phase"] == "over" and v["result"]["reason"] == "drop" and v["result"]["points"] == 2
    assert v["result"]["winner"] == 1 - doubler and "next" in v["actions"]
    assert v["score"][1 - doubler] == 2 and v["status"] == "game-over"
    bad(act(client, gid, "roll"), 400, "over")
    v = ok(act(client, gid, "next"))
    assert v["game_number"] == 2 and v["phase"] in ("move", "roll") and v["score"][1 - doubler] == 2
    mat = client.get(f"/api/games/{gid}/mat")
    assert mat.status_code == 200 and "attachment" in mat.headers["content-disposition"]
    assert "Doubles => 2" in mat.text and "Drops" in mat.text and "Game 2" in mat.text
    rec = ok(client.get(f"/api/games/{gid}/record"))
    assert len(rec["record"]["games"]) == 2 and rec["record"]["score"][1 - doubler] == 2
    bad(client.get("/api/games/nothing/mat"), 404)
    bad(client.get("/api/games/nothing/record"), 404)


def test_resign_to_the_computer(client):
    v = new(client, game="short", seed=9, level="advanced")
    gid = v["id"]
    bad(act(client, gid, "resign", level="bogus"), 400, "resignation level")
    bad(act(client, gid, "resign", level=9), 400)
    # at the start the computer's expectation is below one point: it accepts a single (oyun) resignation
    v = ok(act(client, gid, "resign", level=0))
    assert v["phase"] == "over" and v["result"]["reason"] == "resign" and v["result"]["winner"] == 1
    assert [e["kind"] for e in v["history"]][-3:] == ["resign", "accept", "end"]


def test_resignation_declined_between_people(client):
    # two people: the one offered decides; decline goes back to play
    v = new(client, game="long", opponent="human", seed=10)
    gid = v["id"]
    v = ok(act(client, gid, "resign", level="oyn"))
    assert v["phase"] == "resign" and v["actions"][:2] == ["accept", "decline"]
    assert v["resignation"]["level_name"] == "oyn"
    bad(act(client, gid, "resign"), 400, "already")
    v = ok(act(client, gid, "decline"))
    assert v["phase"] == "move" and v["resignation"] is None


def test_one_point_match_ends(client):
    v = new(client, game="long", length=1, opponent="bot", level="random", seed=11)
    gid = v["id"]
    for _ in range(1000):
        if v["phase"] == "over":
            break
        if "roll" in v["actions"]:
            v = ok(act(client, gid, "roll"))
        elif v["can_confirm"]:
            v = ok(act(client, gid, "confirm"))
        else:
            f, t = _pick(v["moves"])
            v = ok(act(client, gid, "step", **{"from": f, "to": t}))
    assert v["match_over"] and v["status"] == "over" and "next" not in v["actions"]
    assert max(v["score"]) >= 1 and v["match_winner"] in (0, 1)
    bad(act(client, gid, "next"), 400, "match is over")
    row = next(g for g in ok(client.get("/api/games"))["games"] if g["id"] == gid)
    assert row["status"] == "over" and row["winner"] == v["match_winner"]


def test_seeded_games_repeat(client):
    a = new(client, game="backgammon", seed=12, level="beginner")
    b = new(client, game="backgammon", seed=12, level="beginner")
    for _ in range(3):
        hint = {"level": "advanced", "n": 1}
        a = ok(
            act(
                client,
                a["id"],
                "play",
                play=ok(client.get(f"/api/games/{a['id']}/hints", params=hint))["plays"][0]["play"],
            )
        )
        b = ok(
            act(
                client,
                b["id"],
                "play",
                play=ok(client.get(f"/api/games/{b['id']}/hints", params=hint))["plays"][0]["play"],
            )
        )
        if a["phase"] == "roll":
            a = ok(act(client, a["id"], "roll"))
            b = ok(act(client, b["id"], "roll"))
    assert a["history"] == b["history"] and a["board"] == b["board"]


def test_computer_declines_a_cheap_resignation():
    """The computer accepts a resignation only when it is worth at least what it expects to win."""
    from nardy.flow.match import Match
    from nardy.rules.position import Position
    from nardy.web.sessions import HostedGame

    me = [0] * 26
    for p in (19, 20, 21, 22, 23):
        me[p] = 3  # all in the computer's home board, nothing off: a backgammon
    bot = [0] * 26
    bot[0] = 14
    bot[1] = 1  # the computer bears off next turn
    g = Game.from_position(Position.from_boards(me, bot, "backgammon"), turn=0, cube=False)
    d = Match("backgammon", length=0).to_dict()
    d["games"] = [g.to_dict()]
    s = HostedGame.from_match(
        Match.from_dict(d),
        {"humans": [True, False], "level": "advanced", "seed": 1, "auto_roll": False, "viewer": 0, "opponent": "bot"},
    )
    s.act("resign", level="single")
    v = s.view()
    assert v["phase"] == "roll" and [e["kind"] for e in v["history"]][-2:] == ["resign", "decline"]
    s.act("resign", level="backgammon")
    v = s.view()
    assert v["phase"] == "over" and v["result"]["points"] == 3 and v["result"]["winner"] == 1


def test_bad_parameters_are_refused_before_the_game_is_looked_up(client):
    """The routes check their parameters and body first: an unknown game asked for badly is a 422, not a 404."""
    bad(client.get("/api/games/nosuchgame", params={"viewer": 5}), 422, "viewer")
    bad(client.get("/api/games/nosuchgame/hints", params={"n": 0}), 422, "n")
    bad(client.post("/api/games/nosuchgame/actions", json={"action": "fly", "seq": 0}), 422, "action")
    for path in ("", "/hints", "/mat", "/record"):
        assert bad(client.get(f"/api/games/nosuchgame{path}"), 404)["error"] == "NotFound"
    assert (
        bad(client.post("/api/games/nosuchgame/actions", json={"action": "roll", "seq": 0}), 404)["code"] == "not_found"
    )
    assert bad(client.delete("/api/games/nosuchgame"), 404)["error"] == "NotFound"


def test_the_page_offers_confirm_when_the_game_accepts_it():
    """can_confirm is Game.can_confirm(): short nardy's 6/off with 6-4 is already the play 6/2/off, though
    2/off (the 4) may follow."""
    from nardy.flow.match import Match
    from nardy.web.sessions import HostedGame

    g = Game.from_position(Position.from_id("rwzgAg5/fwgAAA", "short"), turn=0)
    g.roll((6, 4))
    d = Match("short", length=0).to_dict()
    d["games"] = [g.to_dict()]
    settings = {"humans": [True, True], "level": "advanced", "seed": 1, "auto_roll": False, "viewer": 0}
    s = HostedGame.from_match(Match.from_dict(d), {**settings, "opponent": "human"})
    v = s.view()
    assert not v["can_confirm"] and "confirm" not in v["actions"] and v["dice_left"] == [6, 4]
    s.act("step", frm=6, to=0)
    v = s.view()
    assert v["can_confirm"] and "confirm" in v["actions"] and v["moves"] == {"2": [0]} and v["dice_left"] == [4]
    s.act("confirm")
    v = s.view()
    assert v["last_play"]["text"] == "6/off" and v["last_play"]["dice"] == [6, 4] and v["turn"] == 1


# ----- regressions --------------------------------------------------------------------------------------------
def test_games_offset_too_large_is_422(client):
    bad(client.get("/api/games", params={"offset": 9223372036854775808}), 422, "offset")
    bad(client.get("/api/games", params={"offset": 10**9 + 1}), 422, "offset")
    ok(client.get("/api/games", params={"offset": 10**9}))


@pytest.mark.parametrize(
    "name, word",
    [
        ("Jo\nSmith", "control"),
        ("x" * 10_000, "at most 40"),
        ('Jo "X" : 3', ":"),
        ("   ", "empty"),
        ("Tab\there", "control"),
    ],
)
def test_player_names_validated(client, name, word):
    body = bad(client.post("/api/games", json={"opponent": "human", "players": ["Bob", name]}), 422, "players", word)
    assert "player 2" in body["detail"]


def test_player_names_stripped_and_exported_mat_reads_back(client):
    v = new(client, opponent="human", players=["  Анна Петровна ", "O'Brien-2"])
    assert v["players"] == ["Анна Петровна", "O'Brien-2"]
    text = client.get(f"/api/games/{v['id']}/mat").text
    rec = ok(client.post("/api/mat", content=text))["record"]
    assert rec["players"] == ["Анна Петровна", "O'Brien-2"]


def test_saved_truncated_record_is_playable(client):
    src = SHARED / "data" / "gnubg-matches" / "gnubg-1004.mat"  # without ../shared: the stand-in below
    if src.exists():
        lines = src.read_text().splitlines()
        cut = next(i for i, x in enumerate(lines) if x.strip() == "Game 1") + 2  # "Game 1" and its score line
        text = "\n".join(lines[:cut]) + "\n"
    else:
        text = " 7 point match\n\n Game 1\n gnubg : 0                      root : 0\n"
    gid = ok(client.post("/api/mat", params={"save": "true"}, content=text))["id"]
    v = ok(client.get(f"/api/games/{gid}"))
    assert v["phase"] != "opening" and v["to_act"] in (0, 1) and v["actions"], v
    if v["phase"] == "move":
        h = ok(client.get(f"/api/games/{gid}/hints", params={"level": "beginner", "n": 1}))
        v2 = ok(act(client, gid, "play", play=h["plays"][0]["play"]))
    else:
        v2 = ok(act(client, gid, "roll"))
    assert len(v2["history"]) > len(v["history"]) and v2["to_act"] in (0, 1)


def test_cube_crawford_checked(client):
    bad(client.get("/api/cube", params={"crawford": True}), 422, "crawford", "money")
    bad(client.get("/api/cube", params={"crawford": True, "length": 5, "score_me": 3}), 422, "crawford", "4")
    bad(
        client.get("/api/cube", params={"crawford": True, "length": 5, "score_me": 4, "score_opponent": 4}),
        422,
        "crawford",
    )
    ok(client.get("/api/cube", params={"crawford": True, "length": 5, "score_opponent": 4, "level": "beginner"}))


def test_validation_messages_have_no_pydantic_url(client):
    for r in (
        client.post("/api/mat", json={"text": None}),
        client.post("/api/mat", json={"txt": "x"}),
        client.post("/api/mat", content="{not json", headers={"Content-Type": "application/json"}),
        client.post("/api/games", json={"length": -1}),
        client.get("/api/games", params={"limit": "x"}),
        client.post("/api/games", json={"players": ["a\nb", "c"]}),
    ):
        body = bad(r, 422)
        assert "errors.pydantic.dev" not in r.text and "For further information" not in r.text, body
    bad(client.post("/api/mat", json={"text": None}), 422, "text", "string")


def test_refusals_carry_a_code_and_a_message_in_the_players_language(client):
    v = new(client, game="backgammon", opponent="human", seed=21, auto_roll=False)
    gid = v["id"]
    assert v["phase"] == "move"  # the starter plays the opening dice
    body = bad(act(client, gid, "roll"), 400)
    assert body["code"] == "wrong_phase" and body["params"]["phase"] == "move"
    ru = client.post(
        f"/api/games/{gid}/actions",
        json={"action": "roll", "seq": v["seq"]},
        headers={"Accept-Language": "ru-RU,ru;q=0.9"},
    ).json()
    assert ru["code"] == "wrong_phase" and ru["message"] == "не сейчас: сначала нужно закончить ход"
    en = client.post(f"/api/games/{gid}/actions?lang=en", json={"action": "roll", "seq": v["seq"]}).json()
    assert en["message"] == "not now: the play must be finished first"
    step = client.post(
        f"/api/games/{gid}/actions?lang=ru", json={"action": "step", "from": 1, "to": 0, "seq": v["seq"]}
    ).json()
    assert step["code"] == "illegal_step" and "сейчас невозможен" in step["message"]
    stale = client.post(f"/api/games/{gid}/actions?lang=ru", json={"action": "roll", "seq": 10**6}).json()
    assert stale["code"] == "stale_action" and "партия уже изменилась" in stale["message"]
    gone = client.get("/api/games/nosuchgame?lang=ru").json()
    assert gone["code"] == "not_found" and gone["message"].startswith("не найдено")

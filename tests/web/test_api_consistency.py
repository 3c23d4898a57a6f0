"""The HTTP API's consistency (issue 18): a position in every form the tools use (Position ID, XGID, wildbg's
p0..p25), unknown query parameters refused on every route, every numbering /api/info lists accepted, steps
in the numbering asked for and in the CLI's shape, and long nardy's last roll analysable."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("httpx")

from click.testing import CliRunner  # noqa: E402
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from nardy.cli import main  # noqa: E402
from nardy.rules.position import Position  # noqa: E402
from nardy.web.app import create_app  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

START = "4HPwATDgc/ABMA"
XGID_START = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
#: wildbg's own example: the backgammon start, p1..p24 from the mover's view (+ mover, - opponent).
WILDBG_START = {"p24": 2, "p19": -5, "p17": -3, "p13": 5, "p12": -5, "p8": 3, "p6": 5, "p1": -2}


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    db = tmp_path_factory.mktemp("consistency") / "c.db"
    return create_app(storage=Storage(f"sqlite:///{db}"), allow_seeds=True)


@pytest.fixture(scope="module")
def client(app):
    with PlayerClient(app) as c:
        yield c


def ok(r, code=200):
    assert r.status_code == code, r.text
    return r.json()


def refused(r, code=422, *words):
    assert r.status_code == code, r.text
    body = r.json()
    assert body["error"] and body["code"]
    for w in words:
        assert w.lower() in body["detail"].lower(), body["detail"]
    return body


# ----- XGID wherever a position is accepted ----------------------------------------------------------------
def test_xgid_is_accepted_wherever_a_position_is(client):
    for route, extra in (
        ("/api/plays", {"die1": 3, "die2": 1}),
        ("/api/move", {"die1": 3, "die2": 1, "level": "advanced"}),
    ):
        by_id = ok(client.get(route, params={"position": START, **extra}))
        by_xgid = ok(client.get(route, params={"position": XGID_START, **extra}))
        assert by_xgid["position"] == START and by_xgid == by_id
    e1 = ok(client.get("/api/eval", params={"position": START, "level": "advanced"}))
    e2 = ok(client.get("/api/eval", params={"position": XGID_START[5:], "level": "advanced"}))  # without XGID=
    assert e1 == e2
    c1 = ok(client.get("/api/cube", params={"position": START, "level": "advanced"}))
    c2 = ok(client.get("/api/cube", params={"position": XGID_START, "level": "advanced"}))
    assert c1 == c2
    # short nardy reads XGIDs too; long nardy has none
    s = ok(client.get("/api/plays", params={"game": "short", "position": XGID_START, "die1": 6, "die2": 5}))
    assert s["game"] == "short" and len(s["plays"]) == 7
    refused(
        client.get("/api/plays", params={"game": "long", "position": XGID_START, "die1": 6, "die2": 5}), 422, "XGID"
    )


def test_xgid_dice_and_cube_fields_are_used(client):
    rolled = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"
    p = ok(client.get("/api/plays", params={"position": rolled}))
    assert p["dice"] == [3, 1] and len(p["plays"]) == 16
    m = ok(client.get("/api/move", params={"position": rolled, "level": "advanced"}))
    assert m["dice"] == [3, 1] and m["play"] == "8/5 6/5"
    ok(client.get("/api/plays", params={"position": rolled, "die1": 1, "die2": 3}))  # the same roll: fine
    refused(client.get("/api/plays", params={"position": rolled, "die1": 6, "die2": 5}), 422, "XGID's dice")
    refused(client.get("/api/plays", params={"position": XGID_START}), 422, "die1 and die2")
    refused(client.get("/api/plays", params={"position": START, "die1": 3}), 422, "die2")
    # cube 4 owned by the side on roll (turn 1 = bottom owns: 1), a 7-point match at 3-5 (bottom on roll: 3)
    match = "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:3:5:0:7:10"
    c = ok(client.get("/api/cube", params={"position": match, "level": "advanced"}))
    same = ok(
        client.get(
            "/api/cube",
            params={
                "position": START,
                "cube": 4,
                "owner": "me",
                "length": 7,
                "score_me": 3,
                "score_opponent": 5,
                "level": "advanced",
            },
        )
    )
    assert c == same
    ok(client.get("/api/cube", params={"position": match, "cube": 4, "length": 7, "level": "advanced"}))
    refused(client.get("/api/cube", params={"position": match, "cube": 2}), 422, "differs from the XGID", "cube=2")
    pending = "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:0:0:0:0:10"
    refused(client.get("/api/eval", params={"position": pending}), 422, "waiting for an answer")


# ----- wildbg's p0..p25 ------------------------------------------------------------------------------------
def test_wildbg_points_form_on_move_and_eval(client):
    m1 = ok(client.get("/api/move", params={"position": START, "die1": 3, "die2": 1, "level": "advanced"}))
    m2 = ok(client.get("/api/move", params={**WILDBG_START, "die1": 3, "die2": 1, "level": "advanced"}))
    assert m2["position"] == START and m1 == m2 and m2["play"] == "8/5 6/5"
    e1 = ok(client.get("/api/eval", params={"position": START, "level": "advanced"}))
    e2 = ok(client.get("/api/eval", params={**WILDBG_START, "level": "advanced"}))
    assert e1 == e2
    # bars: p25 the mover's (0..15), p0 the opponent's (0..-15); the rest borne off
    barred = {**WILDBG_START, "p24": 1, "p25": 1, "p1": -1, "p0": -1}
    e = ok(client.get("/api/plays", params={**barred, "die1": 3, "die2": 1}))
    assert e["plays"] and all(any(s["from"] == 25 for s in p["steps"]) for p in e["plays"])
    pos = Position.from_id(e["position"])
    assert pos.mover[25] == 1 and pos.opponent[25] == 1 and pos.mover[24] == 1
    # long nardy: the opponent's head (their 24) is the mover's 12
    lg = ok(client.get("/api/eval", params={"game": "long", "p24": 15, "p12": -15, "level": "advanced"}))
    assert lg["position"] == Position.start("long").id()


def test_wildbg_points_refused_when_impossible(client):
    refused(client.get("/api/eval", params={"p0": 1}), 422, "p0")
    refused(client.get("/api/eval", params={"p25": -1}), 422, "p25")
    refused(client.get("/api/eval", params={"p24": 15, "p23": 1}), 422, "more than 15")
    refused(client.get("/api/eval", params={"position": START, "p24": 2}), 422, "not both")
    refused(client.get("/api/eval", params={"game": "long", "p24": 15, "p12": -14, "p0": -1}), 422, "no bar")
    refused(client.get("/api/move", params={"p24": 16, "die1": 3, "die2": 1}), 422, "p24")


# ----- unknown parameters ------------------------------------------------------------------------------------
def test_unknown_query_parameters_are_refused_on_every_api_route(app, client):
    seen = 0
    for path, operations in app.openapi()["paths"].items():
        if not path.startswith("/api/"):
            continue
        url = path.replace("{gid}", "nosuchgame")
        for method in sorted(operations):
            r = client.request(method, url, params={"levle": "expert", "lang": "ru"})
            body = refused(r, 422, "levle")
            assert body["code"] == "unknown_parameter" and body["params"]["parameters"] == "levle"
            assert body["message"] == "неизвестный параметр запроса: levle"
            seen += 1
    assert seen >= 20
    # the route's own parameters, and lang, are still taken
    ok(client.get("/api/plays", params={"die1": 3, "die2": 1, "lang": "en"}))
    r = refused(client.get("/api/eval", params={"levl": "x", "Level": "y", "position": START}), 422)
    assert r["params"]["parameters"] == "Level, levl" and "position" in r["params"]["allowed"]


def test_unknown_parameter_on_the_live_channel_closes_it(client):
    with pytest.raises(WebSocketDisconnect) as e:
        with client.websocket_connect("/api/games/nosuchgame/live?bogus=1") as ws:
            ws.receive_text()
    assert e.value.code == 1008


# ----- numberings and steps ----------------------------------------------------------------------------------
def test_every_numbering_that_info_lists_is_accepted(client):
    info = ok(client.get("/api/info"))
    for game, g in info["games"].items():
        for numbering in g["numberings"]:
            for side in ("white", "black"):
                r = ok(
                    client.get(
                        "/api/plays", params={"game": game, "die1": 6, "die2": 5, "numbering": numbering, "side": side}
                    )
                )
                assert r["numbering"] == numbering and r["plays"]
                m = ok(
                    client.get(
                        "/api/move",
                        params={
                            "game": game,
                            "die1": 6,
                            "die2": 5,
                            "numbering": numbering,
                            "side": side,
                            "level": "advanced",
                        },
                    )
                )
                assert m["play"] in {p["play"] for p in r["plays"]}
        for numbering in {"own", "absolute", "traditional"} - set(g["numberings"]):
            refused(client.get("/api/plays", params={"game": game, "die1": 6, "die2": 5, "numbering": numbering}))


def test_steps_follow_the_numbering(client):
    # long nardy for Black in absolute numbering: the head is 12, steps too (they were 24->18)
    r = ok(
        client.get(
            "/api/plays", params={"game": "long", "die1": 6, "die2": 6, "numbering": "absolute", "side": "black"}
        )
    )
    (p,) = r["plays"]
    assert p["play"] == "12/6(2)"
    # the first turn's 6-6: two checkers leave the head (the opponent's head blocks the rest)
    assert [(s["from"], s["to"], s["from_label"], s["to_label"]) for s in p["steps"]] == [(12, 6, "12", "6")] * 2
    own = ok(client.get("/api/plays", params={"game": "long", "die1": 6, "die2": 6}))
    assert [(s["from"], s["to"]) for s in own["plays"][0]["steps"]] == [(24, 18)] * 2
    # short nardy, traditional numbering for White: own 24/18 13/8 is 01/07 012/8
    t = ok(
        client.get(
            "/api/plays", params={"game": "short", "die1": 6, "die2": 5, "numbering": "traditional", "side": "white"}
        )
    )
    play = next(p for p in t["plays"] if p["play"] == "01/07 012/8")
    labels = sorted((s["from_label"], s["to_label"]) for s in play["steps"])
    assert labels == [("01", "07"), ("012", "8")]
    # the numbers are the board's fixed numbering (White's own): 01 is 24, 012 is 13
    assert sorted((s["from"], s["to"]) for s in play["steps"]) == [(13, 8), (24, 18)]


def test_steps_have_one_shape_in_the_cli_and_the_api(client):
    runner = CliRunner()
    for game, dice, numbering, side in (
        ("backgammon", (3, 1), "own", "white"),
        ("short", (6, 5), "traditional", "black"),
        ("long", (3, 3), "absolute", "black"),
    ):
        r = runner.invoke(
            main,
            ["moves", "--game", game, "--dice", *map(str, dice), "--numbering", numbering, "--side", side, "--json"],
        )
        assert r.exit_code == 0, r.output
        cli = json.loads(r.output)
        api = ok(
            client.get(
                "/api/plays",
                params={"game": game, "die1": dice[0], "die2": dice[1], "numbering": numbering, "side": side},
            )
        )
        assert cli["plays"] == api["plays"]
        assert set(cli["plays"][0]["steps"][0]) == {"from", "to", "die", "hit", "from_label", "to_label"}


def test_cli_moves_takes_an_xgid():
    r = CliRunner().invoke(main, ["moves", "--position", XGID_START, "--dice", "3", "1"])
    assert r.exit_code == 0 and len(r.output.strip().splitlines()) == 16


# ----- long nardy's last roll ----------------------------------------------------------------------------------
def _last_roll_position(mover_points: dict[int, int]) -> str:
    mover = [0] * 26
    for p, n in mover_points.items():
        mover[p] = n
    mover[0] = 15 - sum(mover_points.values())
    return Position.from_boards(mover, [15] + [0] * 25, "long").id()


def test_long_nardy_last_roll_is_analysed_exactly(client):
    """docs/rules.md long nardy, option last-roll: after the starter bears off the last checker the other side
    rolls once more; bearing off all the rest draws. Checkers on 6 and 5 come off together with 6-5, 6-6, 5-5,
    4-4, 3-3 (6 of 36 rolls); 13 are already off, so every other roll loses an oyn."""
    pid = _last_roll_position({6: 1, 5: 1})
    e = ok(client.get("/api/eval", params={"game": "long", "position": pid, "last_roll": "half"}))
    assert e["last_roll"] is True and e["draw"] == pytest.approx(6 / 36, abs=1e-5)
    assert e["probabilities"]["lose"] == pytest.approx(30 / 36, abs=1e-5) and e["probabilities"]["lose_mars"] == 0
    assert e["equity"] == pytest.approx(-30 / 36, abs=1e-5)
    m = ok(client.get("/api/move", params={"game": "long", "position": pid, "die1": 6, "die2": 5, "last_roll": "one"}))
    assert m["last_roll"] and m["play"] == "6/off 5/off" and m["moves"][0]["probabilities"]["draw"] == 1
    assert m["moves"][0]["equity"] == 0
    p = ok(
        client.get("/api/plays", params={"game": "long", "position": pid, "die1": 2, "die2": 1, "last_roll": "half"})
    )
    assert p["last_roll"] and p["plays"]
    # without the option the position is a finished game, and the refusal says how to ask
    refused(client.get("/api/move", params={"game": "long", "position": pid, "die1": 6, "die2": 5}), 400, "last_roll")
    assert ok(client.get("/api/plays", params={"game": "long", "position": pid, "die1": 6, "die2": 5}))["plays"] == []
    body = refused(client.get("/api/cube", params={"game": "long", "position": pid, "last_roll": "half"}), 400)
    assert body["code"] == "last_roll"
    refused(client.get("/api/eval", params={"position": START, "last_roll": "half"}), 422, "long nardy")


def test_long_nardy_last_roll_mars_when_nothing_comes_off(client):
    """15 on the 6 point: a checker comes off only with a 6, 5-1, 4-2, 3-3 or 2-2 (17 of 36 rolls: oyn); every
    other roll leaves all 15 on the board: mars, 2 points."""
    pid = _last_roll_position({6: 15})
    e = ok(client.get("/api/eval", params={"game": "long", "position": pid, "last_roll": "half"}))
    assert e["draw"] == 0 and e["probabilities"]["lose_mars"] == pytest.approx(19 / 36, abs=1e-5)
    assert e["exclusive"]["lose"] == {"oyn": pytest.approx(17 / 36, abs=1e-5), "mars": pytest.approx(19 / 36, abs=1e-5)}
    assert e["equity"] == pytest.approx(-(17 + 2 * 19) / 36, abs=1e-5)


def test_saved_game_hints_in_the_last_roll_are_exact():
    """A saved game's hints (GET /api/games/{gid}/hints, Session.hints) in long nardy's last roll give each
    play's exact result (the net would count a draw as a win), as /api/move does for the same position."""
    from nardy.flow.game import last_roll_plays
    from nardy.web.sessions import new_session

    for seed in range(40):
        s = new_session("long", opponent="human", options={"last-roll": "half"}, seed=seed)
        g = s.game
        while not g.is_over and not (g.in_last_roll and g.phase == "move"):
            if g.phase == "move":
                s.act("play", play=str(g.legal_plays()[0]))
            else:
                s.act("roll")
            g = s.game
        if g.in_last_roll:
            break
    else:
        pytest.skip("no last roll reached in 40 seeded games")
    h = s.hints(n=50)
    assert h["last_roll"] and h["complete"]
    exact = last_roll_plays(g.position, g.dice, s.match.rules)
    assert [p["play"] for p in h["plays"]] == [str(p) for p, _ in exact]
    assert [p["equity"] for p in h["plays"]] == [pts for _, (_, _, pts) in exact]
    assert {p["equity"] for p in h["plays"]} <= {0.0, -1.0, -2.0}
    for p in h["plays"]:
        assert p["probabilities"]["draw"] == (1.0 if p["equity"] == 0 else 0.0)

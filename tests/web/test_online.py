"""Online play through the API: invitations, seats, who may act, watchers, stale actions, fair dice, clocks,
rematch and the live channel (docs/online.md)."""

from __future__ import annotations

import time

import pytest

from nardy.rules import fairdice
from nardy.rules.position import Position
from nardy.web.app import create_app
from nardy.web.store.storage import Storage

from .players import PlayerClient


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    db = tmp_path_factory.mktemp("online") / "online.db"
    return create_app(storage=Storage(f"sqlite:///{db}"))


@pytest.fixture
def players(app):
    clients = [PlayerClient(app, base_url="http://testserver") for _ in range(3)]
    for c in clients:
        c.__enter__()
    for c, name in zip(clients, ("Ann", "Bob", "Cat")):
        c.guest(name)
    yield clients
    for c in clients:
        c.__exit__(None, None, None)


def new_online(c, **kw):
    body = {"game": "long", "opponent": "online", "length": 1, "own_seed": True, **kw}
    r = c.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def give_seed(c, gid, seed):
    """The player's own seed, sent with the commitment the game shows them (docs/fairness.md, the order)."""
    shown = view(c, gid)["online"]["commitment"]
    r = c.post(f"/api/games/{gid}/seed", json={"client_seed": seed, "commitment": shown})
    assert r.status_code == 200, r.text
    return r.json()


def joined(a, b, **kw):
    g = new_online(a, **kw)
    give_seed(a, g["id"], "annseed")
    r = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"], "own_seed": True})
    assert r.status_code == 200, r.text
    return g["id"], give_seed(b, g["id"], "bobseed")


def view(c, gid):
    r = c.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    return r.json()


def code(r, status):
    assert r.status_code == status, r.text
    return r.json()["code"]


def play_first(c, gid):
    """The side to act (this client's) plays the first legal play of its roll."""
    v = view(c, gid)
    pos = Position.from_id(v["position_id"], v["game"])
    play = pos.legal_plays(tuple(v["dice"]))[0]
    r = c.post(f"/api/games/{gid}/actions", json={"action": "play", "play": str(play), "seq": v["seq"]})
    assert r.status_code == 200, r.text
    return r.json()


def test_an_invitation_waits_for_the_other_seat_and_whoever_opens_it_takes_it(players):
    a, b, _ = players
    g = new_online(a)
    assert g["status"] == "waiting" and g["you"] == [0] and g["online"]["waiting"] is True
    assert g["invite_url"].endswith(f"/join/{g['id']}#{g['invite']}")
    assert [s["taken"] for s in g["seats"]] == [True, False] and g["seats"][0]["name"] == "Ann"
    assert len(g["online"]["commitment"]) == 64 and g["actions"] == []
    # the owner sees the invitation again (a reload); nobody else does
    assert view(a, g["id"])["online"]["invite"] == g["invite"]
    r = b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]})
    v = r.json()
    assert r.status_code == 200 and v["status"] == "waiting" and v["online"]["seed_wanted"] is False
    assert v["you"] == [1] and v["viewer"] == 1 and v["online"]["seeds_due"] is not None
    v = give_seed(a, g["id"], "annseed")  # the owner's own seed was awaited: the match begins with it
    assert v["status"] == "playing"
    assert [s["name"] for s in v["seats"]] == ["Ann", "Bob"]
    assert view(a, g["id"])["status"] == "playing" and view(a, g["id"])["online"]["invite"] is None
    # the seat is taken now: the link does not seat anyone else, nor the owner
    assert code(b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}), 409) == "own_game"


def test_a_wrong_invitation_seats_nobody(players):
    a, b, c = players
    g = new_online(a)
    # a private invitation: whoever does not hold it is answered as for a missing game
    assert code(b.post(f"/api/games/{g['id']}/join", json={"invite": "guess"}), 404) == "not_found"
    assert code(a.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}), 409) == "own_game"
    assert view(a, g["id"])["status"] == "waiting"
    # one open to watchers exists for everyone: the wrong invitation is told so
    open_g = new_online(a, watchers=True)
    assert code(b.post(f"/api/games/{open_g['id']}/join", json={"invite": "guess"}), 403) == "bad_invite"


def test_a_player_acts_only_for_their_side_and_only_on_their_turn(players):
    a, b, c = players
    gid, v = joined(a, b)
    mover = [a, b][v["to_act"]]
    other = [a, b][1 - v["to_act"]]
    seq = view(a, gid)["seq"]
    # the other player can neither act now nor name the mover's side
    assert code(other.post(f"/api/games/{gid}/actions", json={"action": "confirm", "seq": seq}), 403) == (
        "not_your_turn"
    )
    r = other.post(f"/api/games/{gid}/actions", json={"action": "confirm", "seq": seq, "player": v["to_act"]})
    assert code(r, 403) == "not_your_side"
    # nobody else may act or read a private game: to them it is as if there were none
    assert code(c.post(f"/api/games/{gid}/actions", json={"action": "confirm", "seq": seq}), 404) == "not_found"
    assert code(c.get(f"/api/games/{gid}"), 404) == "not_found"
    assert code(c.get(f"/api/games/{gid}/record"), 404) == "not_found"
    # no hints against a person
    assert code(mover.get(f"/api/games/{gid}/hints"), 403) == "no_hints_online"
    play_first(mover, gid)
    assert view(a, gid)["to_act"] != v["to_act"] or view(a, gid)["status"] != "playing"


def test_a_stale_seq_is_refused_and_changes_nothing(players):
    a, b, _ = players
    gid, v = joined(a, b)
    mover = [a, b][v["to_act"]]
    before = view(mover, gid)
    play_first(mover, gid)
    after = view(a, gid)
    pos = Position.from_id(before["position_id"], "long")
    play = pos.legal_plays(tuple(before["dice"]))[0]
    r = mover.post(f"/api/games/{gid}/actions", json={"action": "play", "play": str(play), "seq": before["seq"]})
    assert r.status_code in (403, 409), r.text
    assert view(a, gid)["seq"] == after["seq"]


def test_watchers_see_a_game_that_allows_them_but_cannot_act(players):
    a, b, c = players
    gid, v = joined(a, b, watchers=True)
    w = view(c, gid)
    assert w["you"] == [] and w["actions"] == [] and w["moves"] == {}
    r = c.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": w["seq"]})
    assert code(r, 403) == "not_seated"


def test_a_game_against_the_computer_is_its_owners_alone(players):
    a, b, _ = players
    g = a.post("/api/games", json={"game": "backgammon", "opponent": "bot", "level": "random"}).json()
    assert code(b.get(f"/api/games/{g['id']}"), 404) == "not_found"
    assert code(b.delete(f"/api/games/{g['id']}"), 404) == "not_found"
    assert code(b.post(f"/api/games/{g['id']}/actions", json={"action": "roll", "seq": g["seq"]}), 404) == "not_found"
    assert g["id"] not in [x["id"] for x in b.get("/api/games").json()["games"]]
    assert g["id"] in [x["id"] for x in a.get("/api/games").json()["games"]]
    assert a.delete(f"/api/games/{g['id']}").status_code == 204


def test_the_owner_cancels_and_the_invited_declines_an_invitation(players):
    a, b, c = players
    g = new_online(a)
    assert code(c.post(f"/api/games/{g['id']}/cancel"), 404) == "not_found"  # a private game: as if none
    assert a.post(f"/api/games/{g['id']}/cancel").json()["status"] == "cancelled"
    assert code(b.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]}), 409) == "invite_closed"
    g2 = new_online(a)
    assert code(b.post(f"/api/games/{g2['id']}/decline", json={"invite": "nope"}), 404) == "not_found"
    assert b.post(f"/api/games/{g2['id']}/decline", json={"invite": g2["invite"]}).json()["status"] == "declined"
    # a cancelled invitation reveals its unused server seed
    fair = a.get(f"/api/games/{g['id']}/fairness").json()
    assert (
        fair["server_seed"] is not None
        and fairdice.commitment(bytes.fromhex(fair["server_seed"])) == (g["online"]["commitment"])
    )


def play_out(a, b, gid, limit=2000):
    """Both players play their first legal play until the match is over."""
    for _ in range(limit):
        v = view(a, gid)
        if v["status"] == "over":
            return v
        mover = [a, b][v["to_act"]]
        mv = view(mover, gid)
        if mv["phase"] == "move":
            play_first(mover, gid)
        else:
            act = "roll" if "roll" in mv["actions"] else mv["actions"][0]
            r = mover.post(f"/api/games/{gid}/actions", json={"action": act, "seq": mv["seq"]})
            assert r.status_code == 200, r.text
    raise AssertionError("the match did not end")


def test_a_finished_match_reveals_its_server_seed_and_every_roll_verifies(players, tmp_path):
    a, b, _ = players
    gid, _ = joined(a, b)
    fair = a.get(f"/api/games/{gid}/fairness").json()
    assert fair["server_seed"] is None and fair["client_seeds"] == ["annseed", "bobseed"]
    v = play_out(a, b, gid)
    assert v["match_over"] and v["match_winner"] in (0, 1)
    fair = b.get(f"/api/games/{gid}/fairness").json()
    assert fair["server_seed"] is not None and len(fair["rolls"]) > 20
    result = fairdice.verify(fair)
    assert result.ok, result
    # the record carries the same fairness object: nardy verify-dice checks a downloaded record
    rec = a.get(f"/api/games/{gid}/record").json()
    assert rec["fairness"] == fair
    # a rematch: colours swapped, the seat kept for the opponent, who joins without the link
    r = b.post(f"/api/games/{gid}/rematch", json={"own_seed": True})
    assert r.status_code == 201, r.text
    g2 = r.json()
    assert g2["you"] == [0] and g2["status"] == "waiting"
    assert view(a, gid)["online"]["rematch"] == g2["id"]
    j = a.post(f"/api/games/{g2['id']}/join", json={"own_seed": True})
    assert j.status_code == 200 and j.json()["you"] == [1] and j.json()["online"]["seed_wanted"] is True
    give_seed(b, g2["id"], "bob2")
    assert give_seed(a, g2["id"], "ann2")["status"] == "playing"


def test_running_out_of_time_loses_the_match(players, app):
    a, b, _ = players
    gid, v = joined(a, b, clock={"initial": 1, "increment": 0, "delay": 0})
    assert v["clock"]["running"] == v["to_act"] and v["clock"]["remaining"][v["to_act"]] <= 1
    time.sleep(1.3)
    mover = [a, b][v["to_act"]]
    seq = view(mover, gid)["seq"]
    assert code(mover.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": seq}), 400) == "time_out"
    w = view(a, gid)
    assert w["status"] == "over" and w["online"]["ended"] == {
        "reason": "time",
        "winner": 1 - v["to_act"],
        "loser": v["to_act"],
    }
    assert w["match_winner"] == 1 - v["to_act"] and w["clock"]["running"] is None


def test_the_live_channel_pushes_each_stored_change(players):
    a, b, c = players
    gid, v = joined(a, b)
    mover = [a, b][v["to_act"]]
    watcher = [a, b][1 - v["to_act"]]
    with watcher.websocket_connect(f"/api/games/{gid}/live") as ws:
        first = ws.receive_json()
        assert first["type"] == "view" and first["view"]["id"] == gid
        play_first(mover, gid)
        pushed = ws.receive_json()
        assert pushed["view"]["seq"] > first["view"]["seq"]
        ws.send_text("ping")
        assert ws.receive_text() == "pong"
    # another site's page may not open it, nor may a stranger to a private game
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect):
        with a.websocket_connect(f"/api/games/{gid}/live", headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    with pytest.raises(WebSocketDisconnect):
        with c.websocket_connect(f"/api/games/{gid}/live") as ws:
            ws.receive_json()

"""The order of the provably fair dice through every way an online game starts (docs/fairness.md, "The
order"): the server's commitment is shown to each player before their client seed is taken, the seed comes
back with that commitment, the record's ``order`` shows it, and nardy verify-dice accepts the record.

Ways a game starts: an invitation link (create, join), a rematch (offer, join), an open challenge (create,
accept), quick pairing (two seeks). For each, the answer that takes a player's seed comes after an answer that
showed that player the commitment (the seed request must carry it), and the revealed server seed hashes to it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
import subprocess
import sys
import time

import pytest

from nardy.rules import fairdice
from nardy.web.app import create_app
from nardy.web.seeds import SEED_WAIT
from nardy.web.store.storage import Storage

from .players import PlayerClient

BLITZ = {"game": "long", "length": 1, "clock": "blitz", "rated": True}


@pytest.fixture
def app(tmp_path):
    return create_app(storage=Storage(f"sqlite:///{tmp_path / 'order.db'}"))


@pytest.fixture
def people(app):
    """Ann and Bob (accounts: rated games need them) and Cat (a guest)."""
    made = []
    for name in ("Ann", "Bob"):
        c = PlayerClient(app, base_url="http://testserver")
        c.__enter__()
        r = c.post("/api/auth/register", json={"name": f"{name}{secrets.token_hex(2)}", "password": "correct horse"})
        assert r.status_code == 201, r.text
        c.me = r.json()["user"]
        made.append(c)
    c = PlayerClient(app, base_url="http://testserver")
    c.__enter__()
    c.me = c.guest("Cat")
    made.append(c)
    yield made
    for c in made:
        c.__exit__(None, None, None)


def refused(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    assert r.json()["code"] == code, r.text
    return r.json()


def shown_commitment(c, gid: str) -> str:
    """The commitment the game shows player ``c`` now (any view of it carries it)."""
    r = c.get(f"/api/games/{gid}")
    assert r.status_code == 200, r.text
    c64 = r.json()["online"]["commitment"]
    assert len(c64) == 64
    return c64


def send_seed(c, gid: str, seed: str, commitment: str) -> dict:
    r = c.post(f"/api/games/{gid}/seed", json={"client_seed": seed, "commitment": commitment})
    assert r.status_code == 200, r.text
    return r.json()


def seed_after_view(c, gid: str, seed: str) -> str:
    """The browser's order: read the game (its commitment), then send the seed with it. Returns the
    commitment the player was shown."""
    v = c.get(f"/api/games/{gid}").json()
    assert v["online"]["seed_wanted"] is True and v["status"] == "waiting"
    send_seed(c, gid, seed, v["online"]["commitment"])
    return v["online"]["commitment"]


def finish(a, b, gid: str) -> None:
    """The player to act resigns, the other accepts: the 1-point match is over (its server seed shown)."""
    v = a.get(f"/api/games/{gid}").json()
    loser, winner = (a, b) if v["to_act"] in v["you"] else (b, a)
    v = loser.get(f"/api/games/{gid}").json()
    r = loser.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = winner.get(f"/api/games/{gid}").json()
    r = winner.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": v["seq"]})
    assert r.status_code == 200 and r.json()["match_over"], r.text


def check_record(c, gid: str, seen: dict[int, str], by=("player", "player"), tmp_path=None) -> dict:
    """The finished game's record: its order shows the commitment first, then each seat's seed with the
    commitment its player was shown (``seen``: seat -> what the game showed them before their seed); the
    revealed server seed hashes to it; verify and nardy verify-dice accept it."""
    rec = c.get(f"/api/games/{gid}/record").json()["fairness"]
    assert rec["server_seed"] and hashlib.sha256(bytes.fromhex(rec["server_seed"])).hexdigest() == rec["commitment"]
    order = rec["order"]
    assert order[0]["event"] == "commit" and order[0]["commitment"] == rec["commitment"]
    seeds = {e["seat"]: e for e in order if e["event"] == "seed"}
    assert sorted(seeds) == [0, 1] and len(order) == 3
    for seat, e in seeds.items():
        assert e["by"] == by[seat] and e["client_seed"] == rec["client_seeds"][seat]
        assert e["t"] >= order[0]["t"] and order.index(e) > 0
        if e["by"] == "player":
            assert e["commitment"] == seen[seat] == rec["commitment"]
    v = fairdice.verify(rec)
    assert v.ok and v.order_checked and v.server_seats == tuple(i for i in (0, 1) if by[i] == "server")
    if tmp_path is not None:
        path = tmp_path / f"{gid}.json"
        path.write_text(json.dumps(rec), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "nardy.cli", "verify-dice", str(path), "--lang", "en"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    return rec


# ----- an invitation link ---------------------------------------------------------------------------------
def test_an_invitation_shows_each_player_the_commitment_before_it_takes_their_seed(people, tmp_path):
    ann, bob, _ = people
    body = {"game": "long", "opponent": "online", "length": 1}
    # a seed sent with the creation would come before the commitment exists: refused
    refused(ann.post("/api/games", json={**body, "client_seed": "annseed"}), 422, "seed_before_commitment")
    r = ann.post("/api/games", json={**body, "own_seed": True})
    assert r.status_code == 201, r.text
    g = r.json()
    # the answer that made the game shows its commitment; Ann's seed is awaited, nothing is rolled
    c = g["online"]["commitment"]
    assert len(c) == 64 and g["online"]["seed_wanted"] is True and g["dice"] is None
    # a seed sent with another commitment (not the one shown) is refused; so is one without a commitment
    refused(
        ann.post(f"/api/games/{g['id']}/seed", json={"client_seed": "annseed", "commitment": "0" * 64}),
        409,
        "commitment_mismatch",
    )
    assert ann.post(f"/api/games/{g['id']}/seed", json={"client_seed": "annseed"}).status_code == 422
    v = send_seed(ann, g["id"], "annseed", c)
    assert v["online"]["seed_wanted"] is False and v["status"] == "waiting"  # the other seat is still empty
    # the same seed again answers the same; another one is refused
    assert send_seed(ann, g["id"], "annseed", c)["seq"] == v["seq"]
    refused(ann.post(f"/api/games/{g['id']}/seed", json={"client_seed": "other", "commitment": c}), 409, "seed_given")
    # Bob: a join with a seed but no commitment is refused (he has not been shown it); so is a wrong one,
    # and neither seats him
    join = f"/api/games/{g['id']}/join"
    refused(bob.post(join, json={"invite": g["invite"], "client_seed": "bobseed"}), 422, "seed_before_commitment")
    bad = {"invite": g["invite"], "client_seed": "bobseed", "commitment": "1" * 64}
    refused(bob.post(join, json=bad), 409, "commitment_mismatch")
    assert shown_commitment(ann, g["id"]) == c and ann.get(f"/api/games/{g['id']}").json()["online"]["waiting"]
    # he joins asking to give his own seed: the answer shows him the commitment, then he sends his seed
    r = bob.post(join, json={"invite": g["invite"], "own_seed": True})
    assert r.status_code == 200, r.text
    assert r.json()["online"]["commitment"] == c and r.json()["online"]["seed_wanted"] is True
    assert r.json()["status"] == "waiting" and r.json()["dice"] is None
    v = send_seed(bob, g["id"], "bobseed", r.json()["online"]["commitment"])
    assert v["status"] == "playing" and v["online"]["seeds_due"] is None
    finish(ann, bob, g["id"])
    rec = check_record(ann, g["id"], {0: c, 1: c}, tmp_path=tmp_path)
    assert rec["client_seeds"] == ["annseed", "bobseed"]


def test_a_joiner_who_has_seen_the_commitment_may_send_the_seed_with_the_join(people):
    ann, bob, _ = people
    r = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1, "watchers": True})
    g = r.json()
    c = shown_commitment(bob, g["id"])  # the game allows watchers: Bob sees it, and its commitment, first
    r = bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"], "client_seed": "bobseed", "commitment": c})
    assert r.status_code == 200 and r.json()["status"] == "playing", r.text
    order = ann.get(f"/api/games/{g['id']}/fairness").json()["order"]
    # Ann asked for no seed of her own: the server made hers as the game was made; Bob's came with the commitment
    assert [(e["event"], e.get("seat"), e.get("by")) for e in order] == [
        ("commit", None, None),
        ("seed", 0, "server"),
        ("seed", 1, "player"),
    ]
    assert order[2]["commitment"] == c and order[2]["client_seed"] == "bobseed"


# ----- a rematch ------------------------------------------------------------------------------------------
def test_a_rematch_is_a_new_commitment_shown_to_both_before_their_seeds(people, tmp_path):
    ann, bob, _ = people
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]})
    finish(ann, bob, g["id"])
    old = ann.get(f"/api/games/{g['id']}/fairness").json()["commitment"]
    refused(bob.post(f"/api/games/{g['id']}/rematch", json={"client_seed": "b2"}), 422, "seed_before_commitment")
    r = bob.post(f"/api/games/{g['id']}/rematch", json={"own_seed": True})
    assert r.status_code == 201, r.text
    rid = r.json()["id"]
    c = r.json()["online"]["commitment"]
    assert c != old and r.json()["online"]["seed_wanted"] is True
    send_seed(bob, rid, "bob2", c)
    r = ann.post(f"/api/games/{rid}/join", json={"own_seed": True})
    assert r.status_code == 200 and r.json()["online"]["commitment"] == c and r.json()["online"]["seed_wanted"]
    v = send_seed(ann, rid, "ann2", r.json()["online"]["commitment"])
    assert v["status"] == "playing"
    finish(ann, bob, rid)
    check_record(ann, rid, {0: c, 1: c}, tmp_path=tmp_path)


# ----- an open challenge ----------------------------------------------------------------------------------
def test_a_challenge_shows_taker_and_owner_the_commitment_before_their_seeds(people, tmp_path):
    ann, bob, _ = people
    refused(ann.post("/api/lobby/challenges", json={**BLITZ, "client_seed": "annseed"}), 422, "seed_before_commitment")
    r = ann.post("/api/lobby/challenges", json={**BLITZ, "own_seed": True, "colour": "white"})
    assert r.status_code == 201, r.text
    cid = r.json()["challenge"]["id"]
    ann.get("/api/lobby")  # Ann is in the lobby (online): her challenge is listed
    refused(
        bob.post(f"/api/lobby/challenges/{cid}/accept", json={"client_seed": "bobseed"}), 422, "seed_before_commitment"
    )
    r = bob.post(f"/api/lobby/challenges/{cid}/accept", json={"own_seed": True})
    assert r.status_code == 200, r.text
    v = r.json()
    gid = v["id"]
    # the game is made now: its answer shows Bob the commitment; nothing rolled until both seeds are in
    assert v["status"] == "waiting" and v["online"]["seed_wanted"] and v["dice"] is None and v["you"] == [1]
    assert v["online"]["seeds_due"] >= time.time() + SEED_WAIT - 5
    seen = {1: v["online"]["commitment"]}
    send_seed(bob, gid, "bobseed", seen[1])
    # while a seed is awaited the game is under way: nothing to play yet, nor may its owner delete it
    refused(ann.delete(f"/api/games/{gid}"), 409, "game_in_progress")
    v = ann.get(f"/api/games/{gid}").json()
    r = ann.post(f"/api/games/{gid}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 400 and v["actions"] == []
    # Ann's lobby names the game; its view shows her the commitment, then she sends her seed
    assert ann.get("/api/lobby").json()["taken"]["game_id"] == gid
    seen[0] = seed_after_view(ann, gid, "annseed")
    assert ann.get(f"/api/games/{gid}").json()["status"] == "playing"
    finish(ann, bob, gid)
    check_record(bob, gid, seen, tmp_path=tmp_path)


# ----- quick pairing --------------------------------------------------------------------------------------
def test_quick_pairing_shows_both_players_the_commitment_before_their_seeds(people, tmp_path):
    ann, bob, _ = people
    refused(ann.post("/api/lobby/quick", json={**BLITZ, "client_seed": "annseed"}), 422, "seed_before_commitment")
    assert ann.post("/api/lobby/quick", json={**BLITZ, "own_seed": True}).json()["status"] == "waiting"
    r = bob.post("/api/lobby/quick", json={**BLITZ, "own_seed": True})
    assert r.status_code == 200 and r.json()["status"] == "paired", r.text
    gid = r.json()["game"]
    assert ann.get("/api/lobby/quick").json()["game"] == gid
    # each reads the game (the commitment), then sends the seed with it; the seeds go in either order
    seen = {}
    for c, seed in ((bob, "bobseed"), (ann, "annseed")):
        side = c.get(f"/api/games/{gid}").json()["you"][0]
        seen[side] = seed_after_view(c, gid, seed)
    assert ann.get(f"/api/games/{gid}").json()["status"] == "playing"
    finish(ann, bob, gid)
    check_record(ann, gid, seen, tmp_path=tmp_path)


def test_a_player_who_asks_for_no_seed_of_their_own_gets_the_servers_and_the_record_says_so(people):
    ann, bob, _ = people
    ann.post("/api/lobby/quick", json={**BLITZ, "own_seed": True})
    gid = bob.post("/api/lobby/quick", json=BLITZ).json()["game"]  # Bob leaves his seed to the server
    assert bob.get(f"/api/games/{gid}").json()["online"]["seed_wanted"] is False
    side = ann.get(f"/api/games/{gid}").json()["you"][0]
    seen = {side: seed_after_view(ann, gid, "annseed")}
    finish(ann, bob, gid)
    by = ["server", "server"]
    by[side] = "player"
    check_record(ann, gid, seen, by=tuple(by))


# ----- seeds that do not come -----------------------------------------------------------------------------
def test_a_game_whose_seeds_do_not_come_in_time_is_aborted_and_frees_its_players(app, people):
    ann, bob, _ = people
    ann.post("/api/lobby/quick", json={**BLITZ, "own_seed": True})
    gid = bob.post("/api/lobby/quick", json={**BLITZ, "own_seed": True}).json()["game"]
    seed_after_view(bob, gid, "bobseed")
    due = bob.get(f"/api/games/{gid}").json()["online"]["seeds_due"]
    # before its time the keeper leaves it; after it, the game is aborted: no result, nothing rated
    assert asyncio.run(app.state.clock_keeper.tick(due - 1)) == 0
    assert ann.get(f"/api/games/{gid}").json()["status"] == "waiting"
    assert asyncio.run(app.state.clock_keeper.tick(due + 0.1)) == 1
    v = ann.get(f"/api/games/{gid}").json()
    assert v["status"] == "aborted" and v["online"]["closed"] == "aborted" and not v["match_over"]
    assert v["online"]["seed_wanted"] is False
    c = v["online"]["commitment"]
    refused(ann.post(f"/api/games/{gid}/seed", json={"client_seed": "late", "commitment": c}), 409, "game_closed")
    # nobody was rated, and both may pair again at once
    assert ann.get(f"/api/players/{ann.me['id']}/history").json()["history"] == []
    assert ann.post("/api/lobby/quick", json={**BLITZ, "own_seed": True}).json()["status"] == "waiting"
    assert bob.post("/api/lobby/quick", json={**BLITZ, "own_seed": True}).json()["status"] == "paired"
    # the aborted game's server seed is shown (nothing was rolled with it): it hashes to the commitment
    rec = ann.get(f"/api/games/{gid}/fairness").json()
    assert hashlib.sha256(bytes.fromhex(rec["server_seed"])).hexdigest() == c and rec["rolls"] == []


def test_the_seed_route_refuses_strangers_and_nonsense_without_changing_the_game(people):
    ann, bob, cat = people
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1, "own_seed": True}).json()
    c = g["online"]["commitment"]
    url = f"/api/games/{g['id']}/seed"
    # a stranger to the private game is answered as for a missing one; nothing changes
    stranger = cat.post(url, json={"client_seed": "x", "commitment": c})
    missing = cat.post("/api/games/nosuchgame/seed", json={"client_seed": "x", "commitment": c})
    assert stranger.status_code == missing.status_code == 404
    assert stranger.json()["code"] == missing.json()["code"] == "not_found"
    for body in (
        {"client_seed": "no spaces", "commitment": c},
        {"client_seed": "x" * 65, "commitment": c},
        {"client_seed": "x", "commitment": c.upper()},
        {"client_seed": "x", "commitment": c, "extra": 1},
        {"commitment": c},
    ):
        assert ann.post(url, json=body).status_code == 422, body
    assert ann.post("/api/games/nosuchgame/seed", json={"client_seed": "x", "commitment": c}).status_code == 404
    assert ann.get(f"/api/games/{g['id']}").json()["online"]["seed_wanted"] is True
    assert ann.get(f"/api/games/{g['id']}/fairness").json()["client_seeds"] == [None, None]
    # a watcher of a game open to watchers sees the commitment but has no seat to give a seed for
    w = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1, "watchers": True}).json()
    body = {"client_seed": "x", "commitment": shown_commitment(cat, w["id"])}
    refused(cat.post(f"/api/games/{w['id']}/seed", json=body), 403, "not_seated")


def test_a_game_made_before_the_order_was_kept_plays_on_and_its_record_says_the_order_is_unknown():
    """A waiting invitation saved before the order was kept (its owner's seed taken with the creation, no
    ``order``) is joined and played as before; its record has no ``order``: verify says it was not checked."""
    from nardy.web.seeds import give_seed
    from nardy.web.sessions import HostedGame, new_session

    s = new_session("long", length=1, opponent="online", owner="ann", client_seed="oldann", players=["Ann", "?"])
    fair = s.settings["fair"]
    for key in ("order", "own", "due"):
        del fair[key]  # what such a game has: server seed, commitment, client seeds
    s = HostedGame.from_dict(json.loads(json.dumps(s.to_dict())))
    side = s.join("bob", "Bob", None, 1000.0, own_seed=True)
    assert s.status == "waiting" and s.fairness()["client_seeds"] == ["oldann", None]
    assert give_seed(s, side, "bobseed", s.settings["fair"]["commitment"], 1001.0)
    assert s.status == "playing" and len(s.fairness()["rolls"]) >= 2
    rec = s.fairness()
    assert "order" not in rec
    rec["server_seed"] = fair["server_seed"]  # as it is shown once the match is over
    v = fairdice.verify(rec)
    assert v.ok and not v.order_checked

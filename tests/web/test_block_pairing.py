"""Two players one of whom blocks the other are never paired (docs/online.md "Fair play", issue 41): not by quick
pairing, also when the block is made while a seek waits and when it is made through another server process;
not by taking a challenge, also one named by a quick-pairing seek's id; not by a rematch offer."""

from __future__ import annotations

import pytest

from nardy.web.app import create_app
from nardy.web.store.storage import Storage

from .players import PlayerClient
from .rated_play import play_turns
from .test_lobby import BLITZ, account, finish_by_resignation, refused


@pytest.fixture
def db(tmp_path):
    return f"sqlite:///{tmp_path / 'blocks.db'}"


@pytest.fixture
def app(db):
    return create_app(storage=Storage(db))


@pytest.fixture
def three(app):
    made = [account(app, n) for n in ("Ann", "Bob", "Cat")]
    yield made
    for c in made:
        c.__exit__(None, None, None)


def quick(c) -> dict:
    r = c.post("/api/lobby/quick", json=BLITZ)
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("blocker", ["waiting", "arriving"])
def test_a_block_made_while_a_seek_waits_keeps_the_two_apart(three, blocker):
    ann, bob, cat = three
    seek = quick(ann)
    assert seek["status"] == "waiting"
    # the block comes after Ann's seek, from either side
    by, of = (ann, bob) if blocker == "waiting" else (bob, ann)
    assert by.post("/api/blocks", json={"user": of.me["id"]}).json()["new"] is True
    assert quick(bob)["status"] == "waiting"  # Bob waits in his turn, not paired with Ann
    assert quick(bob)["status"] == "waiting" and quick(ann)["seek"]["id"] == seek["seek"]["id"]  # again: the same
    # Ann's seek is still there for anyone else: Cat takes it
    paired = quick(cat)
    assert paired["status"] == "paired" and paired["seek"]["owner"] == ann.me["id"]
    assert ann.get("/api/lobby/quick").json()["game"] == paired["game"]
    assert bob.get("/api/lobby/quick").json()["status"] == "waiting"


def test_a_block_made_through_another_process_keeps_the_two_apart(app, db, three):
    ann, bob, _ = three
    assert quick(ann)["status"] == "waiting"
    other = create_app(storage=Storage(db))  # a second server process on the same database
    with PlayerClient(other, base_url="http://testserver", cookies=dict(bob.cookies)) as bob2:
        assert bob2.post("/api/blocks", json={"user": ann.me["id"]}).status_code == 200
        assert quick(bob2)["status"] == "waiting"
    assert quick(bob)["status"] == "waiting"


def test_blocked_players_take_neither_challenges_nor_seeks_by_id(three):
    ann, bob, _ = three
    seek = quick(ann)["seek"]
    ch = ann.post("/api/lobby/challenges", json={**BLITZ, "rated": False}).json()["challenge"]
    assert bob.post("/api/blocks", json={"user": ann.me["id"]}).status_code == 200
    refused(bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}), 403, "blocked")
    refused(bob.post(f"/api/lobby/challenges/{seek['id']}/accept", json={}), 403, "blocked")
    theirs = bob.post("/api/lobby/challenges", json={**BLITZ, "rated": False}).json()["challenge"]
    refused(ann.post(f"/api/lobby/challenges/{theirs['id']}/accept", json={}), 403, "blocked")
    assert ann.get("/api/lobby/quick").json()["status"] == "waiting"  # nothing was made


def test_no_rematch_between_blocked_players(three):
    ann, bob, _ = three
    quick(ann)
    gid = quick(bob)["game"]
    play_turns((ann, bob), gid)
    finish_by_resignation(bob, ann, gid)
    assert bob.post("/api/blocks", json={"user": ann.me["id"]}).status_code == 200
    refused(ann.post(f"/api/games/{gid}/rematch", json={}), 403, "blocked")
    refused(bob.post(f"/api/games/{gid}/rematch", json={}), 403, "blocked")
    assert bob.delete(f"/api/blocks/{ann.me['id']}").status_code == 204
    assert ann.post(f"/api/games/{gid}/rematch", json={}).status_code == 201

"""nardy's bot client (nardy.client, issue 44): two bots play a rated match on a served process through the HTTP
API, each action chosen by nardy's engine from the game view and sent with the view's seq; the match ends, the
record replays and both ratings change (docs/online.md "Ratings")."""

from __future__ import annotations

import secrets
import threading

import pytest

from nardy.client.bot import AcceptFilter, BotRunner, parse_accept
from nardy.client.http import Client, ClientError
from nardy.client.players import EnginePlayer
from nardy.records.matparse import parse_mat
from nardy.records.matreplay import replay
from tests.web.helpers import serve_sqlite


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    yield from serve_sqlite(tmp_path_factory, "botclient")


def account(url: str, name: str) -> Client:
    c = Client(url)
    c.register(f"{name}{secrets.token_hex(2)}", "correct horse battery")
    return c


def test_a_refusal_quotes_the_servers_code_and_message(server):
    c = Client(server.url)
    with pytest.raises(ClientError) as e:
        c.challenge("nobody", length=1)
    assert e.value.status == 401 and e.value.code == "login_needed" and "401 login_needed" in str(e.value)
    with pytest.raises(ClientError) as e:
        c.game("nosuchgame")
    assert e.value.status == 404 and isinstance(e.value, ValueError)


def me(c: Client) -> dict:
    got = c.me()
    return got.get("user") or got


def check_rated_record(c: Client, gid: str, players: list[Client], length: int) -> None:
    """The finished match's record replays through our rules (its .mat) to the final score, and each
    player's rating moved from the start (1500) with the match in their history."""
    final = c.game(gid)
    assert final["match_over"] and final["online"]["rated"] and max(final["score"]) >= length
    assert c.http.get(f"/api/games/{gid}/record").status_code == 200
    mat = c.http.get(f"/api/games/{gid}/mat")
    assert mat.status_code == 200
    m = replay(parse_mat(mat.text))
    assert m.is_over and list(m.score) == list(final["score"])
    for p in players:
        uid = me(p)["id"]
        h = c.get(f"/api/players/{uid}/history")["history"]
        assert [x["game_id"] for x in h] == [gid] and h[0]["before"] == 1500 and h[0]["after"] != 1500


def play(client: Client, gid: str, level: str, seed: int, out: dict) -> None:
    runner = BotRunner(client, EnginePlayer(level, "backgammon", seed=seed, think=5), poll=0.1)
    out[seed] = (runner.play_game(gid), runner.errors)


def test_two_engine_bots_play_a_rated_1_point_match_to_the_end(server):
    ann, bob = account(server.url, "ann"), account(server.url, "bob")
    ch = ann.challenge(me(bob)["name"], game="backgammon", length=1, clock="blitz", rated=True)
    view = bob.accept(ch["id"])
    gid = view["id"]
    out: dict = {}
    threads = [threading.Thread(target=play, args=(c, gid, "beginner", seed, out)) for c, seed in ((ann, 1), (bob, 2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(240)
    assert not any(t.is_alive() for t in threads), "the match did not end in 240 s"
    for seed in (1, 2):
        last, errors = out[seed]
        assert errors == [] and last["match_over"] and last["status"] == "over"
    check_rated_record(ann, gid, [ann, bob], 1)


def test_accept_filters_read_the_command_line_values():
    f = parse_accept(["rated", "max-length=5", "from=Ann"], "backgammon")
    ch = {"game": "backgammon", "length": 3, "rated": True, "from": {"name": "ann"}}
    assert f.accepts(ch)
    assert not f.accepts({**ch, "length": 7}) and not f.accepts({**ch, "rated": False})
    assert not f.accepts({**ch, "game": "long"}) and not f.accepts({**ch, "from": {"name": "bob"}})
    assert parse_accept(["any"], "long").accepts({**ch, "game": "short"})
    assert AcceptFilter(games={"long"}).accepts({"game": "long"})
    with pytest.raises(ValueError, match="max-length"):
        parse_accept(["max-length=99"])
    with pytest.raises(ValueError, match="expected backgammon"):
        parse_accept(["chess"])

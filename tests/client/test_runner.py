"""The bot runner's handling of events without a server (nardy.client.bot): challenges accepted or declined by
the filters, each game played once however often its gameStart comes, the event stream opened again after a
drop, a revoked token ending the run."""

from __future__ import annotations

import httpx

from nardy.client.bot import BotRunner, parse_accept
from nardy.client.http import ClientError


class FakeClient:
    """Streams scripted events; each call of events() takes the next script (an exception: raised)."""

    def __init__(self, scripts):
        self.scripts = list(scripts)
        self.calls: list[tuple] = []
        self.views: dict[str, list[dict]] = {}

    def events(self):
        self.calls.append(("events",))
        script = self.scripts.pop(0) if self.scripts else ClientError(401, "token_invalid", "revoked")
        if isinstance(script, Exception):
            raise script
        yield from script

    def accept(self, cid):
        self.calls.append(("accept", cid))
        return {"id": f"game-{cid}"}

    def decline(self, cid):
        self.calls.append(("decline", cid))

    def game_stream(self, gid):
        self.calls.append(("stream", gid))
        yield from self.views.get(gid, [{"id": gid, "seq": 1, "status": "over", "match_over": True}])

    def act(self, gid, action):
        self.calls.append(("act", gid, action["action"]))
        return {"id": gid, "seq": action["seq"] + 1, "status": "playing"}


class Roller:
    def decide(self, view):
        if view.get("status") == "playing" and view.get("human_to_act"):
            return {"action": "roll", "seq": view["seq"]}
        return None


def challenge(cid, game="backgammon", rated=True, length=3, name="ann"):
    return {
        "type": "challenge",
        "challenge": {"id": cid, "game": game, "rated": rated, "length": length, "from": {"name": name}},
    }


def test_challenges_are_accepted_by_the_filters_and_the_others_declined():
    c = FakeClient([[challenge("c2", game="long"), challenge("c3", length=9), challenge("c1")]])
    r = BotRunner(c, Roller(), parse_accept(["rated", "max-length=5"], "backgammon"), matches=1)
    r.max_backoff = 0.01
    r.run()
    assert ("accept", "c1") in c.calls and ("decline", "c2") in c.calls and ("decline", "c3") in c.calls
    assert r.finished == ["game-c1"] and ("stream", "game-c1") in c.calls


def test_a_dropped_event_stream_is_opened_again_and_each_game_played_once():
    start = {"type": "gameStart", "game": {"id": "g1"}}
    c = FakeClient([[start], httpx.ReadError("dropped"), [start, {"type": "gameStart", "game": {"id": "g2"}}]])
    c.views["g1"] = [
        {"id": "g1", "seq": 4, "status": "playing", "human_to_act": True},
        {"id": "g1", "seq": 4, "status": "playing", "human_to_act": True},  # the same state again: no action
        {"id": "g1", "seq": 6, "status": "over", "match_over": True},
    ]
    r = BotRunner(c, Roller(), None, matches=2)
    r.max_backoff = 0.01
    r._sleep = lambda s: None  # no pauses in the test
    r.run()
    assert [x for x in c.calls if x[0] == "events"] == [("events",)] * 3
    assert c.calls.count(("stream", "g1")) == 1 and c.calls.count(("stream", "g2")) == 1
    assert c.calls.count(("act", "g1", "roll")) == 1
    assert sorted(r.finished) == ["g1", "g2"] and r.errors == []


def test_a_revoked_token_ends_the_run_with_the_servers_error():
    c = FakeClient([ClientError(401, "token_invalid", "unknown or revoked token")])
    r = BotRunner(c, Roller(), None)
    r.run()
    assert r.stopped and "token_invalid" in r.errors[0]


def test_a_server_without_the_event_stream_is_served_from_the_lobby():
    c = FakeClient([ClientError(404, "http_404", "Not Found")])
    lobby = {"named": [{"id": "c9", "game": "backgammon", "rated": True, "length": 1, "owner": {"name": "ann"}}]}
    c.get = lambda path: (c.calls.append(("get", path)), lobby)[1]
    r = BotRunner(c, Roller(), parse_accept([], "backgammon"), matches=1)
    r.lobby_poll = 0.01
    r.run()
    assert ("get", "/api/lobby") in c.calls and ("accept", "c9") in c.calls and r.finished == ["game-c9"]

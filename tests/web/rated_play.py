"""Playing a real game through the API for the tests of rated matches: each side takes turns (the first legal
play of its roll) until both have taken enough for the result to be rated (nardy.web.ratings.MIN_TURNS)."""

from __future__ import annotations

from nardy import Position
from nardy.web.ratings import MIN_TURNS


def play_turns(clients, gid: str, turns: int = MIN_TURNS) -> dict:
    """``clients``: the two seated players' test clients (either order). The player to act plays the first legal
    play of their roll (rolling first when the game waits for a roll) until each side has played ``turns``
    plays; returns the last view. Raises AssertionError when an action is refused or the match ends first."""
    by_side = {}
    for c in clients:
        for side in c.get(f"/api/games/{gid}").json()["you"]:
            by_side[side] = c
    assert sorted(by_side) == [0, 1], by_side
    played = [0, 0]
    v = by_side[0].get(f"/api/games/{gid}").json()
    for _ in range(20 * turns + 20):
        if min(played) >= turns:
            return v
        assert v["status"] == "playing" and not v["match_over"], v["status"]
        side = v["to_act"]
        c = by_side[side]
        v = c.get(f"/api/games/{gid}").json()
        if v["phase"] == "roll":
            body = {"action": "roll", "seq": v["seq"]}
        else:
            assert v["phase"] == "move", v["phase"]
            play = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))[0]
            body = {"action": "play", "play": str(play), "seq": v["seq"]}
            played[side] += 1
        r = c.post(f"/api/games/{gid}/actions", json=body)
        assert r.status_code == 200, r.text
        v = r.json()
    raise AssertionError(f"no {turns} plays each in {20 * turns + 20} actions: {played}")

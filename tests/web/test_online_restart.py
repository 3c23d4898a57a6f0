"""A server killed mid-game (SIGKILL) loses nothing it acknowledged, and gives the running clock back the
time it was down (docs/online.md, "Clocks")."""

from __future__ import annotations

import signal
import time

from nardy.rules.position import Position

from .helpers import HttpPlayer


def _play_first(p: HttpPlayer, gid: str) -> dict:
    v = p.get(f"/api/games/{gid}")
    pos = Position.from_id(v["position_id"], v["game"])
    play = pos.legal_plays(tuple(v["dice"]))[0]
    return p.post(f"/api/games/{gid}/actions", {"action": "play", "play": str(play), "seq": v["seq"]})


def test_sigkill_mid_game_keeps_every_acknowledged_action_and_the_clock(make_server):
    s = make_server()
    a, b = HttpPlayer(s.url), HttpPlayer(s.url)
    a.post("/api/auth/guest", {"name": "Ann"})
    b.post("/api/auth/guest", {"name": "Bob"})
    g = a.post(
        "/api/games",
        {"game": "long", "opponent": "online", "length": 3, "clock": {"initial": 600}},
        status=201,
    )
    v = b.post(f"/api/games/{g['id']}/join", {"invite": g["invite"]})
    players = [a, b]
    for _ in range(3):
        v = _play_first(players[v["to_act"]], g["id"])
    acked = v
    alive_since_spell = time.monotonic()
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait(10)
    time.sleep(8)  # the server is down: nobody's time should run
    s.start()
    after = players[acked["you"][0]].get(f"/api/games/{g['id']}")  # the same player's view as acked
    # the same position and roll (the seq may have moved on: giving the clock back is a stored change)
    assert after["seq"] >= acked["seq"] and after["board"] == acked["board"] and after["dice"] == acked["dice"]
    assert after["history"] == acked["history"] and after["to_act"] == acked["to_act"]
    mover = acked["to_act"]
    charged = acked["clock"]["remaining"][mover] - after["clock"]["remaining"][mover]
    alive = time.monotonic() - alive_since_spell - 8  # the time the server was up since the last action
    # at most a heartbeat period (5 s) of the downtime is charged, never the 8 s the server was down
    assert charged < alive + 5.5, (charged, alive)
    assert after["clock"]["running"] == mover and after["status"] == "playing"
    # play goes on after the restart
    nxt = _play_first(players[mover], g["id"])
    assert nxt["seq"] > after["seq"]

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


def _pair(s, clock: dict) -> tuple[HttpPlayer, HttpPlayer, str, dict]:
    """Two guests at an online game with ``clock``: (owner, joiner, id, the joiner's first view)."""
    a, b = HttpPlayer(s.url), HttpPlayer(s.url)
    a.post("/api/auth/guest", {"name": "Ann"})
    b.post("/api/auth/guest", {"name": "Bob"})
    g = a.post("/api/games", {"game": "long", "opponent": "online", "length": 3, "clock": clock}, status=201)
    v = b.post(f"/api/games/{g['id']}/join", {"invite": g["invite"]})
    return a, b, g["id"], v


def _time_entries(p: HttpPlayer, gid: str) -> list[dict]:
    return [e for e in p.get(f"/api/games/{gid}/record")["log"] if e["type"] == "time"]


def test_a_clock_restarted_in_the_middle_still_runs_out_on_time_and_only_once(make_server):
    from nardy.web.services.live import HEARTBEAT

    # docs/online.md, "Clocks": while the server is down nobody's time runs, and a clock still runs out (the keeper
    # notices within a second); a match already lost on time before the crash stays lost, once
    s = make_server()
    a, b, short, v = _pair(s, {"initial": 6})
    f, _, flagged, _ = _pair(s, {"initial": 2})
    deadline = time.monotonic() + 6
    while f.get(f"/api/games/{flagged}")["status"] == "playing" and time.monotonic() < deadline:
        time.sleep(0.2)
    lost = f.get(f"/api/games/{flagged}")
    assert lost["online"]["ended"]["reason"] == "time", lost["online"]
    mover = v["to_act"]
    left_at_kill = a.get(f"/api/games/{short}")["clock"]["remaining"][mover]
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait(10)
    time.sleep(7)  # longer than the whole clock: had the downtime been charged, the match would be lost at start
    booting = time.monotonic()
    s.start()
    after = a.get(f"/api/games/{short}")
    up = time.monotonic() - booting  # the new process was up, its clocks running, at most this long
    assert after["status"] == "playing" and after["clock"]["running"] == mover, after["status"]
    left = after["clock"]["remaining"][mover]
    # charged: at most the last moments before the crash (the time since the last heartbeat is given back) and the
    # time the new process has been up, never the 7 s down
    assert left > left_at_kill - (HEARTBEAT + 0.5) - up, (left_at_kill, left, up)
    # nobody acts: the clock runs out on time after the restart, within the keeper's second and a probe's
    t0 = time.monotonic()
    while a.get(f"/api/games/{short}")["status"] == "playing":
        assert time.monotonic() - t0 < left + 3, f"no time-out {left + 3:.1f} s after the restart ({left:.1f} s left)"
        time.sleep(0.2)
    ended = a.get(f"/api/games/{short}")["online"]["ended"]
    assert ended == {"reason": "time", "winner": 1 - mover, "loser": mover}
    assert time.monotonic() - t0 > left - 1.5, "the clock ran out before its time"
    assert len(_time_entries(a, short)) == 1
    # the match lost before the crash: unchanged, one time-out
    again = f.get(f"/api/games/{flagged}")
    assert again["seq"] == lost["seq"] and again["online"]["ended"] == lost["online"]["ended"]
    assert len(_time_entries(f, flagged)) == 1


def _resume(tmp_path, beat_after_spell: float, down: float):
    """A stored online game whose clock runs since ``since``; the last heartbeat ``beat_after_spell`` seconds after
    the spell began (negative: before it), the server back ``down`` seconds after that heartbeat: ClockKeeper.resume
    at that moment. Returns (games moved, the spell's start before, its start after, the resume's time)."""
    import asyncio
    import datetime as dt

    from nardy.web.app import create_app
    from nardy.web.gamecache import columns
    from nardy.web.sessions import Session, new_session
    from nardy.web.store.storage import Storage

    s = new_session("long", length=3, opponent="online", owner="ann", client_seed="a", clock={"initial": 600})
    s.join("bob", "Bob", "b", time.time() - 30)
    s.run_bots(now=time.time() - 30)
    app = create_app(storage=Storage(f"sqlite:///{tmp_path / 'clock.db'}"))
    store = app.state.storage
    saved = store.create(s.to_dict(), s.match.rules.name, s.status, s.title(), s.summary(), columns(s))
    since = s.table.clock.since
    beat = since + beat_after_spell
    store.set_heartbeat(dt.datetime.fromtimestamp(beat, dt.UTC))
    moved = asyncio.run(app.state.clock_keeper.resume(now=beat + down))
    after = Session.from_dict(store.get(saved.id).data).table.clock
    store.close()
    return moved, since, after.since, beat + down


def test_a_restart_of_a_few_seconds_gives_the_running_clocks_back_their_downtime(tmp_path):
    # docs/online.md, "Clocks": while the server is down nobody's time runs. A restart takes a few seconds; the clocks
    # were once given back only a heartbeat gap of over two heartbeat periods (10 s), so such a restart charged all of
    # its downtime to the player to act. Now any gap longer than two heartbeats (2 s) is given back.
    moved, since, after, _ = _resume(tmp_path, beat_after_spell=1.0, down=4.0)
    assert moved == 1 and abs(after - (since + 4.0)) < 0.001, (moved, after - since)


def test_a_spell_begun_after_the_last_heartbeat_gets_back_its_own_time_and_no_more(tmp_path):
    # the spell began 3 s after the last heartbeat and the server came back 7 s after that heartbeat: only the 4 s
    # of the spell can have been down. Giving back all 7 once put the spell's start 3 s in the future, so the
    # player to act had 3 s more than their clock showed (it stood still, then ran out late).
    moved, since, after, now = _resume(tmp_path, beat_after_spell=-3.0, down=7.0)
    assert moved == 1 and abs(after - now) < 0.001, (after - now, after - since)

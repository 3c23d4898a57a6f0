"""A stored game's analysis is kept in the database (issue 45): a server restarted answers it without analysing
again, and another server process on the same database answers it too (docs/analysis.md, "Stored analyses").

Real ``nardy serve`` subprocesses on loopback ports, on an SQLite file and (``NARDY_TEST_POSTGRES_URL``) on a
PostgreSQL schema of the test's own; the record is the 3-point match ``gnubg-matches/gnubg-1002.mat`` analysed at
0-ply (``advanced``).
"""

from __future__ import annotations

import json
import urllib.request

from tests.helpers import shared_path

from .helpers import HttpPlayer, Server, pg_schema

RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")


def _save_record(p: HttpPlayer) -> str:
    """Save the record as a game of player ``p`` (``POST /api/mat?save=true``, the record's text as the body)."""
    csrf = next(c.value for c in p.jar if c.name == "nardy_csrf")
    req = urllib.request.Request(
        p.url + "/api/mat?save=true",
        data=shared_path(*RECORD).read_bytes(),
        method="POST",
        headers={"Content-Type": "text/plain", "X-CSRF-Token": csrf},
    )
    with p.opener.open(req, timeout=120) as r:
        return json.loads(r.read())["id"]


def _analysed(url: str) -> tuple[HttpPlayer, str, dict]:
    p = HttpPlayer(url)
    p.post("/api/auth/guest", {"name": "Ann"})
    gid = _save_record(p)
    made = p.post(f"/api/games/{gid}/analysis?level=advanced")
    assert made["cached"] is False and len(made["decisions"]) > 50
    return p, gid, made


def test_a_stored_analysis_survives_a_server_restart(empty_db):
    s = Server(empty_db, extra=("--no-warm-up",)).start()
    try:
        p, gid, made = _analysed(s.url)
        s.stop()
        s.start()
        got = p.get(f"/api/games/{gid}/analysis")
        assert got["cached"] is True and got["decisions"] == made["decisions"] and got["players"] == made["players"]
        assert [i["level"] for i in got["levels"]] == ["advanced"]
        # asked to analyse again at the same level: the stored one is answered, nothing computed
        assert p.post(f"/api/games/{gid}/analysis?level=advanced")["cached"] is True
    finally:
        s.stop()


def test_a_stored_analysis_is_answered_by_another_server_process():
    url, drop = pg_schema("nardy_an")
    one, two = Server(url, extra=("--no-warm-up",)), Server(url, extra=("--no-warm-up",))
    try:
        one.start()
        two.start()
        p, gid, made = _analysed(one.url)
        other = HttpPlayer(two.url)
        other.jar = p.jar  # the same player (the same log-in cookie) on the other process
        other.opener = p.opener
        got = other.get(f"/api/games/{gid}/analysis")
        assert got["cached"] is True and got["decisions"] == made["decisions"]
        status, body = HttpPlayer(two.url).request("GET", f"/api/games/{gid}/analysis")
        assert status == 404 and body["code"] == "not_found"  # a stranger: as for a missing game
    finally:
        one.stop()
        two.stop()
        drop()

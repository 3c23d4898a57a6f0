"""``GET /api/games/{id}/claim``: when a seated player may claim a rated match their opponent left (docs/online.md
"Fair play"; issue 43: the page offers the claim only then). ``claim_in`` agrees with what a claim is answered."""

from __future__ import annotations

from nardy.web.presence import ABANDON_GRACE

from .test_lobby import account, refused
from .test_presence_claims import app, clock, db, pair  # noqa: F401  (fixtures, by name)


def test_claim_in_counts_down_the_grace_period_and_is_zero_exactly_when_a_claim_is_taken(app, clock, pair):  # noqa: F811
    gid, x, y = pair
    x.get(f"/api/games/{gid}")  # the player to act is seen now
    c = y.get(f"/api/games/{gid}/claim").json()
    assert c["grace"] == ABANDON_GRACE and ABANDON_GRACE - 6 <= c["claim_in"] <= ABANDON_GRACE
    refused(y.post(f"/api/games/{gid}/claim"), 409, "opponent_present")
    clock.offset = ABANDON_GRACE / 2
    assert 0 < y.get(f"/api/games/{gid}/claim").json()["claim_in"] <= ABANDON_GRACE / 2 + 0.1
    clock.offset = ABANDON_GRACE + 2
    assert y.get(f"/api/games/{gid}/claim").json()["claim_in"] == 0
    assert y.post(f"/api/games/{gid}/claim").json()["online"]["ended"]["reason"] == "abandoned"
    # over: no claim for anyone
    assert y.get(f"/api/games/{gid}/claim").json()["claim_in"] is None


def test_claim_in_is_null_on_ones_own_turn_and_a_watcher_is_refused(app, pair):  # noqa: F811
    gid, x, _ = pair
    assert x.get(f"/api/games/{gid}/claim").json() == {"claim_in": None, "grace": ABANDON_GRACE}
    carol = account(app, "Carol")
    try:
        refused(carol.get(f"/api/games/{gid}/claim"), 403, "not_seated")  # a watcher sits nowhere
    finally:
        carol.__exit__(None, None, None)

"""A play typed in the game page's box (docs/online.md, "Playing faster"): ``{"action": "play", "play": text,
"typed": true}`` reads the text in the view's numbering (``?numbering=``: own, absolute board numbers...),
with slashes or dashes, and plays it as the ``play`` action does (stored, idempotent by ``seq``); a label
the numbering lacks is refused with its code and nothing is played."""

from __future__ import annotations

from nardy import Position
from nardy.rules.numbering import Numbering

from .test_correspondence import CORR
from .test_lobby import account, app  # noqa: F401  (the app fixture)


def _to_move(app):  # noqa: F811
    ann, bob = account(app, "Ann"), account(app, "Bob")
    ch = ann.post("/api/lobby/challenges", json={**CORR, "rated": False, "colour": "white"}).json()["challenge"]
    gid = bob.post(f"/api/lobby/challenges/{ch['id']}/accept", json={}).json()["id"]
    for _ in range(4):  # the side on roll rolls (a roll that cannot be played passes: roll again)
        v = ann.get(f"/api/games/{gid}").json()
        c = ann if v["to_act"] in v["you"] else bob
        v = c.get(f"/api/games/{gid}").json()
        if v["phase"] == "move":
            return c, gid, v
        r = c.post(f"/api/games/{gid}/actions", json={"action": "roll", "seq": v["seq"]})
        assert r.status_code == 200, r.text
    raise AssertionError("no roll to play")


def test_a_typed_play_in_board_numbers_with_dashes_is_played_and_stored(app):  # noqa: F811
    c, gid, v = _to_move(app)
    side = v["to_act"]
    play = Position.from_id(v["position_id"], v["game"]).legal_plays(tuple(v["dice"]))[0]
    typed = Numbering("absolute", "long").relabel(str(play), side).replace("/", "-")
    # a label the numbering lacks: refused with its code, nothing played
    r = c.post(
        f"/api/games/{gid}/actions?numbering=absolute",
        json={"action": "play", "play": "99-98", "typed": True, "seq": v["seq"]},
    )
    assert r.status_code in (400, 422) and r.json()["code"] in ("bad_point", "bad_notation"), r.text
    assert c.get(f"/api/games/{gid}").json()["seq"] == v["seq"]
    body = {"action": "play", "play": typed, "typed": True, "seq": v["seq"]}
    r = c.post(f"/api/games/{gid}/actions?numbering=absolute", json=body)
    assert r.status_code == 200, r.text
    after = r.json()
    assert after["seq"] == v["seq"] + 1 and after["to_act"] == 1 - side
    rec = c.get(f"/api/games/{gid}/record").json()
    assert str(play) in str(rec), rec
    # the same request again (a retry) changes nothing: 409 stale
    assert c.post(f"/api/games/{gid}/actions?numbering=absolute", json=body).status_code == 409

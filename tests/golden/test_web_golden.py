"""Golden files of the web server's saved games (issue 42, step 0): the views a page is answered with while a
person plays a seeded game, and the game as the server stores it (the row's fields and its data), through the
app in-process (FastAPI's test client, an SQLite file).

Each game is a script of intentions (roll, a step, undo, a whole turn in steps, double, resign...) turned into
requests from the view the page has; every request's status and answer is kept (refusals too: their JSON
message), then the stored row, the list of saved games, the game's ``.mat`` record and its ``/record``.
Normalised: the ids the server draws (the game's, the guest's) are replaced by ``<game>`` and ``<owner>``, wall
times (``created``, ``updated``, the log's ``"t"``) by 0, the dice source's state by a digest (see
:mod:`tests.golden.golden`).
"""

from __future__ import annotations

import pytest

from tests.golden.golden import check_json, check_text, replace_values, shorten_dice_states, zero_keys

pytest.importorskip("httpx")

#: name -> (the new game's settings, the person's intentions in order, query of the views asked for).
GAMES = {
    "backgammon-match3-beginner": (
        {"game": "backgammon", "length": 3, "level": "beginner", "seed": 11},
        ["roll", "step", "undo", "turn", "hint", "roll", "turn", "resign", "next", "roll", "turn", "double", "turn"],
        {},
    ),
    "long-money-random-absolute": (
        {"game": "long", "level": "random", "seed": 4, "colour": "black", "options": {"last-roll": "half"}},
        ["step", "step", "undo", "confirm", "turn", "hint", "turn", "roll", "turn", "turn"],
        {"numbering": "absolute"},
    ),
    "short-match1-two-people": (
        {"game": "short", "length": 1, "opponent": "human", "seed": 8, "players": ["Ann", "Bob"]},
        ["turn", "turn", "double", "turn", "step", "undo", "turn", "turn", "resign"],
        {"numbering": "traditional"},
    ),
}

#: Volatile values in answers and rows: wall times (replaced by 0).
TIMES = {"t", "created", "updated"}


def make_client(folder):
    """A page's client of a new app with seeded dice allowed, its games in an SQLite file in ``folder`` (a file,
    not ``sqlite://``: the server's threads then each have their own connection, as in use)."""
    from nardy.web.app import create_app
    from nardy.web.store.storage import Storage
    from tests.web.players import PlayerClient

    return PlayerClient(create_app(storage=Storage(f"sqlite:///{folder / 'golden.db'}"), allow_seeds=True))


def request_for(intent: str, view: dict) -> dict:
    """The action body the page would send for ``intent`` on ``view``: ``step`` (and each step of a ``turn``) the
    first legal step (the lowest point that can move, its first target), ``confirm`` once the play is complete;
    ``resign`` a single game; any other intent is the action of that name."""
    seq = view["seq"]
    if intent in ("step", "turn"):
        if view["can_confirm"] or not view["moves"]:
            return {"action": "confirm", "seq": seq}
        frm = min(view["moves"], key=int)
        return {"action": "step", "from": int(frm), "to": view["moves"][frm][0], "seq": seq}
    if intent == "resign":
        return {"action": "resign", "level": 0, "seq": seq}
    return {"action": intent, "seq": seq}


def post_action(client, gid: str, body: dict, query: dict, kept: list) -> dict:
    """Send an action, keep its status and answer; return the view the page then has (the answer, or the view
    read again after a refusal)."""
    r = client.post(f"/api/games/{gid}/actions", json=body, params=query)
    kept.append({"request": body, "status": r.status_code, "answer": r.json()})
    if r.status_code == 200:
        return r.json()
    view = client.get(f"/api/games/{gid}", params=query)
    assert view.status_code == 200, view.text
    return view.json()


def play_script(client, name: str) -> tuple[str, list[dict]]:
    settings, intents, query = GAMES[name]
    r = client.post("/api/games", json=settings)
    assert r.status_code == 201, r.text
    view = r.json()
    gid = view["id"]
    kept = [{"request": {"new": settings}, "status": r.status_code, "answer": view}]
    for intent in intents:
        while view.get("phase") == "double" and view.get("human_to_act"):  # the computer doubled: take
            view = post_action(client, gid, {"action": "take", "seq": view["seq"]}, query, kept)
        if intent == "hint":
            r = client.get(f"/api/games/{gid}/hints", params={"level": "advanced", "n": 3, **query})
            kept.append({"request": {"hints": "advanced"}, "status": r.status_code, "answer": r.json()})
            continue
        while True:
            body = request_for(intent, view)
            view = post_action(client, gid, body, query, kept)
            # a turn goes on step by step until it is confirmed (or refused)
            if intent != "turn" or body["action"] == "confirm" or kept[-1]["status"] != 200:
                break
    if "resign" in intents and view["phase"] == "resign":  # the other person answers a resignation
        r = client.post(f"/api/games/{gid}/actions", json={"action": "accept", "seq": view["seq"]}, params=query)
        kept.append({"request": {"action": "accept"}, "status": r.status_code, "answer": r.json()})
    return gid, kept


@pytest.mark.parametrize("name", sorted(GAMES))
def test_web_views_and_stored_game_are_unchanged(name, tmp_path):
    with make_client(tmp_path) as client:
        gid, kept = play_script(client, name)
        saved = client.app.state.storage.get(gid)
        names = {gid: "<game>"}
        if saved.owner:
            names[saved.owner] = "<owner>"
        stored = {
            "id": saved.id,
            "game": saved.game,
            "status": saved.status,
            "title": saved.title,
            "revision": saved.revision,
            "base": saved.base,
            "actions": saved.actions,
            "owner": saved.owner,
            "seat0": saved.seat0,
            "seat1": saved.seat1,
            "visibility": saved.visibility,
            "clock_due": saved.clock_due,
            "summary": saved.summary,
            "data": saved.data,
        }
        listed = client.get("/api/games").json()
        record = client.get(f"/api/games/{gid}/record").json()
        mat = client.get(f"/api/games/{gid}/mat")
        assert mat.status_code == 200 and f"nardy-{gid}.mat" in mat.headers["content-disposition"]

    def clean(x):
        return zero_keys(replace_values(shorten_dice_states(x), names), TIMES)

    assert any(k["status"] != 200 for k in kept) or name != "backgammon-match3-beginner"
    check_json(f"web/{name}-views.json", clean(kept))
    check_json(f"web/{name}-stored.json", clean({"row": stored, "list": listed, "record": record}))
    check_text(f"web/{name}.mat", mat.text)

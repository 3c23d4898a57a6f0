"""Analysis and review over HTTP (issue 16, :mod:`nardy.web.routers.review`): records and stored games analysed,
the bounds on size and time, who may see a game's analysis, the cache, and the tutor's check of a play.

Real data: a 3-point match between GNU Backgammon and a person (``gnubg-matches/gnubg-1002.mat``),
analysed at 0-ply (``advanced``) so the module stays quick.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("httpx")

from nardy.web.app import create_app  # noqa: E402
from nardy.web.routers import review  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.helpers import shared_path  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

RECORD = ("data", "gnubg-matches", "gnubg-1002.mat")


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    db = tmp_path_factory.mktemp("review") / "review.db"
    return create_app(storage=Storage(f"sqlite:///{db}"), allow_seeds=True)


@pytest.fixture(scope="module")
def ann(app):
    with PlayerClient(app) as c:
        c.guest("Ann")
        yield c


@pytest.fixture(scope="module")
def bob(app):
    with PlayerClient(app) as c:
        c.guest("Bob")
        yield c


@pytest.fixture(scope="module")
def record_text():
    return shared_path(*RECORD).read_text()


@pytest.fixture(scope="module")
def analysed(ann, record_text):
    r = ann.post("/api/analyse", json={"text": record_text, "level": "advanced"})
    assert r.status_code == 200, r.text
    return r.json()


def test_the_routes_offer_the_analysis_levels():
    from typing import get_args

    from nardy.analysis import ANALYSIS_LEVELS

    assert list(get_args(review.AnalysisLevel)) == list(ANALYSIS_LEVELS)


def refused(r, status: int, code: str) -> dict:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code and body["detail"] and body["error"], body
    return body


# ----- records sent as text -------------------------------------------------------------------------------
def test_a_gnubg_record_is_analysed_with_the_documented_keys(analysed):
    d = analysed
    assert d["format"] == "nardy-analysis" and d["game"] == "backgammon" and d["length"] == 3
    assert d["engine"]["level"] == "advanced" and d["engine"]["ply"] == 0
    assert {"players", "games", "decisions", "thresholds", "units", "review"} <= set(d)
    assert [p["name"] for p in d["players"]] == ["gnubg", "root"]
    for p in d["players"]:
        assert {"error_rate", "pr", "rating", "errors", "luck", "decisions"} <= set(p)
    # the record: game 1's third line is a double (gnubg) and a take (root), a close decision: the 256-unit net
    # of 2026-12-02 calls the take right (double/take 0.5949 against double/pass 0.5995 of the doubler's match
    # winning chances); the net before it called it a wrong take by 0.015 of equity, below the first mark
    from nardy.analysis.core import mark_of

    take = next(x for x in d["decisions"] if x["action"] == "take")
    assert take["game"] == 1 and take["move"] == 3 and take["player"] == 1 and take["played"] == "take"
    mwc = take["cube"]["mwc"]
    assert mwc["double/take"] < mwc["double/pass"] and mwc["double/take"] > mwc["no double"]
    assert take["best"] == "take" and take["error_kind"] == "" and take["equity_loss"] == 0.0
    assert take["mark"] == mark_of(take["equity_loss"])
    # one board per decision; every board holds 15 checkers a side
    steps = d["review"]["steps"]
    assert len(steps) == len(d["decisions"]) > 50
    for s in steps:
        b = s["board"]
        white = sum(x for x in b["points"] if x > 0) + b["bar"][0] + b["off"][0]
        black = -sum(x for x in b["points"] if x < 0) + b["bar"][1] + b["off"][1]
        assert white == black == 15
    # the first decision is gnubg's first play, 31: 8/5 6/5, from the starting position
    first, s0 = d["decisions"][0], steps[0]
    assert first["kind"] == "checker" and first["dice"] == [3, 1] and first["played"] == "8/5 6/5"
    assert s0["board"]["points"][6] == 5 and s0["board"]["points"][24] == 2 and s0["board"]["points"][1] == -2
    assert s0["after"]["points"][5] == 2 and s0["after"]["points"][6] == 4 and s0["after"]["points"][8] == 2
    assert sorted(s0["after"]["steps"]) == [[6, 5], [8, 5]]
    # Black's reply, 31: 13/10 24/23 in Black's numbering, is White's 12/15 and 1/2
    k = next(i for i, x in enumerate(d["decisions"]) if x["player"] == 1 and x["kind"] == "checker")
    assert sorted(d["decisions"][k]["played"].split()) == ["13/10", "24/23"]
    assert sorted(steps[k]["after"]["steps"]) == [[1, 2], [12, 15]]
    assert len(s0["candidates_after"]) == len(first["candidates"])
    # the graph: player 0's match winning chance before each decision
    assert all(0 <= x["value_before"] <= 1 for x in d["decisions"])


def test_a_second_ask_is_answered_from_the_cache(ann, analysed, record_text):
    t = time.monotonic()
    r = ann.post("/api/analyse", json={"text": record_text, "level": "advanced"})
    assert r.status_code == 200 and r.json()["cached"] is True and analysed["cached"] is False
    assert time.monotonic() - t < 2.0
    assert r.json()["decisions"] == analysed["decisions"]


def test_an_sgf_record_is_analysed_as_its_mat_twin(ann, analysed, record_text):
    sgf = pytest.importorskip("nardy.records.sgf", reason="SGF records not in this version")
    from nardy.records.mat import replay

    text = sgf.write_sgf(replay(record_text))
    assert text.lstrip().startswith("(;")
    r = ann.post("/api/analyse", json={"text": text, "level": "advanced"})
    assert r.status_code == 200, r.text
    d = r.json()
    assert [x["played"] for x in d["decisions"]] == [x["played"] for x in analysed["decisions"]]
    assert [x["mark"] for x in d["decisions"]] == [x["mark"] for x in analysed["decisions"]]
    refused(ann.post("/api/analyse", json={"text": "(;GM[6]", "format": "sgf"}), 422, "bad_record")


def test_records_over_the_limit_or_unreadable_are_refused(ann):
    big = "x" * (review.ANALYSE_LIMIT + 1)
    body = refused(ann.post("/api/analyse", json={"text": big}), 413, "too_large")
    assert body["params"]["most"] == review.ANALYSE_LIMIT
    # a body over the route's limit is refused before it is read
    huge = "x" * (review.ANALYSE_BODY_LIMIT + 10)
    refused(
        ann.post("/api/analyse", content='{"text": "' + huge + '"}', headers={"Content-Type": "application/json"}),
        413,
        "too_large",
    )
    refused(ann.post("/api/analyse", json={"text": "  \n"}), 422, "bad_record")
    body = refused(ann.post("/api/analyse", json={"text": "not a record\n 1) 31: 8/5"}), 422, "bad_record")
    assert body["message"] == "the record cannot be read"
    ru = ann.post("/api/analyse?lang=ru", json={"text": "not a record"}).json()
    assert ru["code"] == "bad_record" and ru["message"] == "запись партии не читается"
    refused(ann.post("/api/analyse", json={"text": "x", "level": "godlike"}), 422, "invalid_request")
    refused(ann.post("/api/analyse", json={"text": "x", "path": "/etc/passwd"}), 422, "invalid_request")


def test_an_analysis_past_its_time_budget_is_refused(ann, record_text, monkeypatch):
    monkeypatch.setattr(review, "ANALYSE_BUDGET", 0.0)
    body = refused(ann.post("/api/analyse", json={"text": record_text, "level": "expert"}), 422, "analysis_too_long")
    assert body["params"]["total"] > 0 and "shorter record" in body["message"]


def test_a_full_analysis_queue_answers_503_with_retry_after(app, ann, record_text, monkeypatch):
    queue = review.analysis_queue(app)
    monkeypatch.setattr(queue, "at_once", 0)  # every slot taken
    monkeypatch.setattr(queue, "max_waiting", 0)  # and no room to wait
    r = ann.post("/api/analyse", json={"text": record_text + "\n", "level": "advanced"})
    refused(r, 503, "busy")
    assert int(r.headers["Retry-After"]) > 0


# ----- stored games -------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def stored(ann, record_text):
    r = ann.post("/api/mat?save=true", content=record_text, headers={"Content-Type": "text/plain"})
    assert r.status_code == 200, r.text
    return r.json()["id"]


def test_a_stored_game_is_analysed_for_its_player_and_kept(ann, stored):
    refused(ann.get(f"/api/games/{stored}/analysis"), 404, "not_analysed")
    r = ann.post(f"/api/games/{stored}/analysis?level=advanced")
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["id"] == stored and d["cached"] is False and len(d["review"]["steps"]) == len(d["decisions"]) > 50
    assert [p["name"] for p in d["players"]] == ["gnubg", "root"]
    t = time.monotonic()
    again = ann.get(f"/api/games/{stored}/analysis")
    assert again.status_code == 200 and again.json()["cached"] is True and time.monotonic() - t < 2.0
    assert again.json()["decisions"] == d["decisions"]
    assert ann.post(f"/api/games/{stored}/analysis?level=advanced").json()["cached"] is True


def test_a_private_games_analysis_is_answered_to_others_as_for_a_missing_game(app, bob, stored):
    refused(bob.post(f"/api/games/{stored}/analysis?level=advanced"), 404, "not_found")
    refused(bob.get(f"/api/games/{stored}/analysis"), 404, "not_found")
    nobody = PlayerClient(app)  # no lifespan of its own: leaving it would stop the app's computer work
    refused(nobody.get(f"/api/games/{stored}/analysis"), 404, "not_found")
    refused(bob.post("/api/games/nosuchgame/analysis"), 404, "not_found")


def test_an_online_game_is_analysed_only_after_its_match(ann, bob):
    g = ann.post("/api/games", json={"game": "long", "opponent": "online", "length": 1}).json()
    r = bob.post(f"/api/games/{g['id']}/join", json={"invite": g["invite"]})
    assert r.status_code == 200, r.text
    refused(ann.post(f"/api/games/{g['id']}/analysis?level=advanced"), 409, "analysis_after_match")
    refused(ann.get(f"/api/games/{g['id']}/tutor"), 403, "no_hints_online")
    # Ann resigns, Bob accepts: the match is over, both players may see its analysis
    v = ann.get(f"/api/games/{g['id']}").json()
    r = ann.post(f"/api/games/{g['id']}/actions", json={"action": "resign", "level": 0, "seq": v["seq"]})
    assert r.status_code == 200, r.text
    r = bob.post(f"/api/games/{g['id']}/actions", json={"action": "accept", "seq": r.json()["seq"]})
    assert r.status_code == 200 and r.json()["match_over"], r.text
    for c in (ann, bob):
        r = c.post(f"/api/games/{g['id']}/analysis?level=advanced")
        assert r.status_code == 200, r.text
        d = r.json()
        assert d["game"] == "long" and d["players"][1]["name"] == "Bob"
        # long nardy: the opening play is there, each side's 15 checkers on the boards, White's head at 24
        assert d["decisions"] and d["decisions"][0]["kind"] == "checker"
        board = d["review"]["steps"][0]["board"]
        assert sum(x for x in board["points"] if x > 0) == 15 and -sum(x for x in board["points"] if x < 0) == 15


# ----- the tutor --------------------------------------------------------------------------------------------
def _opening_53(client) -> dict:
    # seed 5: the person (White) opens with 5-3 against the computer
    v = client.post("/api/games", json={"game": "backgammon", "opponent": "bot", "level": "advanced", "seed": 5})
    assert v.status_code == 201, v.text
    v = v.json()
    assert v["phase"] == "move" and v["turn"] == 0 and v["dice"] == [5, 3]
    return v


def _steps(client, v, steps) -> dict:
    for a, b in steps:
        r = client.post(f"/api/games/{v['id']}/actions", json={"action": "step", "from": a, "to": b, "seq": v["seq"]})
        assert r.status_code == 200, r.text
        v = r.json()
    return v


def test_the_tutor_warns_of_a_blunder_before_it_is_confirmed(ann, bob):
    v = _opening_53(ann)
    refused(ann.get(f"/api/games/{v['id']}/tutor?level=advanced"), 400, "tutor_no_play")
    v = _steps(ann, v, [(8, 5), (8, 3)])  # 8/5 8/3 gives up the 8 point for nothing: about half a point
    assert v["can_confirm"]
    r = ann.get(f"/api/games/{v['id']}/tutor?level=advanced")
    assert r.status_code == 200, r.text
    t = r.json()
    assert t["warn"] is True and t["mark"] == "blunder" and t["loss"] > 0.3
    assert t["played_text"] == "8/5 8/3" and t["best_text"] == "8/3 6/3"
    # nothing was played: the game waits for the confirmation
    assert ann.get(f"/api/games/{v['id']}").json()["seq"] == v["seq"]
    refused(bob.get(f"/api/games/{v['id']}/tutor"), 404, "not_found")  # another's game: as if there were none


def test_the_tutor_is_silent_on_the_best_play(ann):
    v = _steps(ann, _opening_53(ann), [(8, 3), (6, 3)])
    t = ann.get(f"/api/games/{v['id']}/tutor?level=advanced").json()
    assert t["warn"] is False and t["loss"] == 0.0 and t["played_text"] == "8/3 6/3"


def test_the_tutor_judges_cube_actions(ann):
    v = _steps(ann, _opening_53(ann), [(8, 3), (6, 3)])
    r = ann.post(f"/api/games/{v['id']}/actions", json={"action": "confirm", "seq": v["seq"]})
    assert r.status_code == 200, r.text
    v = r.json()
    assert v["phase"] == "roll" and v["to_act"] == 0 and "double" in v["actions"]
    # doubling at the start of a game gives the cube away for nothing: the right action is no double
    t = ann.get(f"/api/games/{v['id']}/tutor?level=advanced&action=double").json()
    assert t["kind"] == "cube" and t["warn"] is True and t["best"] == "no double" and t["loss"] > 0.1
    assert t["mark"] in ("error", "blunder")
    # no double is waiting: a take or a pass now is no decision to judge
    t = ann.get(f"/api/games/{v['id']}/tutor?level=advanced&action=take").json()
    assert t["warn"] is False
    refused(ann.get(f"/api/games/{v['id']}/tutor?action=beaver"), 422, "invalid_request")


def test_every_text_of_the_review_page_is_in_the_catalogue():
    """review.js asks the shared catalogue (nardy/data/catalogue.toml) for its words, in both languages:
    the keys it names and those it builds from the analysis' values."""
    import re
    from pathlib import Path

    from nardy.analysis import ANALYSIS_LEVELS, LUCK_THRESHOLDS, THRESHOLDS
    from nardy.texts import catalogue

    js = (Path(review.__file__).parents[1] / "static" / "review.js").read_text(encoding="utf-8")
    page = set(catalogue.entries("page")) | set(catalogue.entries("common"))
    named = {k for k in re.findall(r"""\bt\(\s*["']([^"']+)["']""", js) if not k.endswith("_")}
    # and every literal of its own keys (passed to helpers that call t: line("rv_played", ...), btn(...))
    named |= {k for k in re.findall(r"""["']((?:rv|tutor)[a-z_]*)["']""", js) if not k.endswith("_")}
    # (a button drawn with a symbol names only its title: rv_next -> rv_next_title)
    named = {k if k in page or k + "_title" not in page else k + "_title" for k in named}
    assert len(named) > 40 and not sorted(named - page), sorted(named - page)
    built = (
        [f"rv_level_{x}" for x in ANALYSIS_LEVELS]
        + [f"rv_mark_{x}" for x in dict(THRESHOLDS)]
        + [f"rv_marks_{x}" for x in dict(THRESHOLDS)]
        + [f"rv_luck_{x.replace(' ', '_')}" for x in dict(LUCK_THRESHOLDS)]
        + [f"rv_cube_{x}" for x in ("no_double", "double", "take", "pass", "double_take", "double_pass")]
        + [f"{k}_title" for k in ("rv_first", "rv_prev", "rv_next", "rv_last", "rv_prev_error", "rv_next_error")]
    )
    assert not [k for k in built if k not in page], [k for k in built if k not in page]
    for k in named | set(built):
        e = catalogue.entries("page").get(k) or catalogue.entries("common")[k]
        assert e["en"] and e["ru"], k

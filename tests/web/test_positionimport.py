"""POST /api/positions/import reads a pasted position (XGID, Position ID, XG's text export); GET
/api/positions/xgtext writes one in XG's layout. Bad input is a 422 JSON error, never a 5xx."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("httpx")

from nardy.records.xgtext import parse_xg_text
from nardy.rules.position import Position
from nardy.web.app import create_app
from nardy.web.routers.positionimport import IMPORT_TEXT_LIMIT
from nardy.web.store.storage import Storage
from tests.web.players import PlayerClient

DATA = Path(__file__).resolve().parents[1] / "data" / "xgtext"
EXPORT = (DATA / "checker_match_en.txt").read_text(encoding="utf-8")
XGID = "XGID=-B-CBBB---a---A---ABcbbbd-:1:-1:1:21:3:6:0:7:10"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("xgtext") / "api.db"
    app = create_app(storage=Storage(f"sqlite:///{db}"))
    with PlayerClient(app) as c:
        yield c


def bad(r, *words, code=422):
    assert r.status_code == code, r.text
    body = r.json()
    assert body["error"] and isinstance(body["detail"], str)
    for w in words:
        assert w.lower() in body["detail"].lower(), body["detail"]
    return body


def test_import_of_xgs_export_gives_position_dice_cube_score_and_analysis(client):
    r = client.post("/api/positions/import", json={"text": "Forum post:\r\n" + EXPORT.replace("\n", "\r\n")})
    assert r.status_code == 200, r.text
    out = r.json()
    assert {
        k: out[k] for k in ("game", "position", "xgid", "dice", "cube", "owner", "score", "length", "crawford")
    } == {
        "game": "backgammon",
        "position": Position.from_xgid(XGID).id(),
        "xgid": XGID,
        "dice": [2, 1],
        "cube": 2,
        "owner": "opponent",
        "score": [3, 6],
        "length": 7,
        "crawford": False,
    }
    assert out["names"] == ["Player 1", "Player 2"]
    assert out["plays"][0] == {
        "play": "19/18 14/12",
        "equity": -0.491,
        "level": "4-ply",
        "probabilities": [0.2545, 0.0, 0.0, 0.3109, 0.0009],
    }


def test_import_of_a_cube_export_gives_the_cube_analysis(client):
    out = client.post("/api/positions/import", json={"text": (DATA / "cube_match_en.txt").read_text()}).json()
    assert out["dice"] is None and out["plays"] == []
    assert out["cube_analysis"]["action"] == "no double/take"
    assert (out["cube_analysis"]["no_double"], out["cube_analysis"]["double_pass"]) == (0.337, 1.0)


def test_import_of_a_bare_xgid_and_of_a_position_id(client):
    out = client.post(
        "/api/positions/import", json={"text": " XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10 "}
    ).json()
    assert (out["position"], out["dice"], out["score"], out["length"]) == ("4HPwATDgc/ABMA", [5, 2], None, 0)
    out = client.post("/api/positions/import", json={"text": "AACA/z8AAID/Pw:F11", "game": "long"}).json()
    assert (out["game"], out["position"], out["xgid"], out["dice"]) == ("long", "AACA/z8AAID/Pw", None, None)
    out = client.post(
        "/api/positions/import", json={"text": "-b----E-C---eE---c-e----B-:1:1:1:00:2:4:0:7:10", "game": "short"}
    ).json()
    assert (out["game"], out["cube"], out["owner"], out["score"], out["length"]) == ("short", 2, "mover", [2, 4], 7)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"text": "hello, what is the play here?"}, ["no XGID line", "hello"]),
        ({"text": "XGID=-b----E-C---eE---c-e----Z-:0:0:1:52:0:0:3:0:10"}, ["XGID=-b----E-C---eE---c-e----Z-"]),
        ({"text": "XGID=-b----E-C---eE---c-e----B-:1:0:1:D:0:0:0:0:10"}, ["double is waiting"]),
        ({"text": "notanid"}, ["notanid"]),
        ({"text": EXPORT, "game": "short"}, ["backgammon position"]),
        ({"text": "x" * (IMPORT_TEXT_LIMIT + 1)}, ["20000"]),
        ({"text": ""}, []),
        ({"text": "   "}, ["empty text"]),
        ({"text": 5}, []),
        ({"position": "4HPwATDgc/ABMA"}, []),
        ({"text": EXPORT, "extra": 1}, []),
    ],
)
def test_import_of_bad_text_is_a_422_json_error(client, body, words):
    bad(client.post("/api/positions/import", json=body), *words)


def test_import_of_an_oversized_body_is_refused_before_reading_it(client):
    r = client.post("/api/positions/import", json={"text": "\u00e9" * 30_000})
    assert r.status_code in (413, 422), r.text
    assert r.json()["error"]


def test_xgtext_writes_the_position_in_xgs_layout(client):
    r = client.get("/api/positions/xgtext", params={"position": XGID})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    assert r.text.splitlines()[:20] == EXPORT.splitlines()[:20]
    x = parse_xg_text(r.text)
    assert (x.dice, x.cube, x.owner, x.score, x.length, x.plays) == ((2, 1), 2, 1, (3, 6), 7, ())


def test_xgtext_takes_dice_cube_score_and_names_from_the_query(client):
    r = client.get(
        "/api/positions/xgtext",
        params={"dice": "6-4", "cube": 4, "owner": "mover", "score": "2-4", "length": 7, "names": "Ann, Bob"},
    )
    assert r.status_code == 200, r.text
    x = parse_xg_text(r.text)
    assert x.position == Position.start()
    assert (x.dice, x.cube, x.owner, x.score, x.length, x.names) == ((6, 4), 4, 0, (2, 4), 7, ("Ann", "Bob"))
    assert "X to play 64" in r.text and "Cube: 4, X own cube" in r.text and "X:Ann   O:Bob" in r.text


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"game": "long"}, ["backgammon"]),
        ({"dice": "7-1"}, ["7"]),
        ({"dice": "61"}, ["A-B"]),
        ({"cube": 3}, ["power of two"]),
        ({"score": "7-1", "length": 7}, ["below the length"]),
        ({"score": "1-1"}, ["money"]),
        ({"owner": "mover"}, ["2 or more"]),
        ({"names": "a,b,c"}, ["A,B"]),
        ({"crawford": "true", "length": 5, "score": "1-1"}, ["Crawford"]),
        ({"position": "zzz"}, ["zzz"]),
    ],
)
def test_xgtext_bad_query_is_a_422_json_error(client, params, words):
    bad(client.get("/api/positions/xgtext", params=params), *words)

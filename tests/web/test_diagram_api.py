"""``GET /api/diagram.svg`` and ``/api/diagram.png`` (issue 47): the one board renderer over HTTP, inputs checked
at the edge (422 JSON with a code), answers cached by ETag, the SVG served with a script-free CSP."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import pytest

pytest.importorskip("httpx")

from nardy.rules.diagram import Diagram, diagram_svg  # noqa: E402
from nardy.rules.position import Position  # noqa: E402
from nardy.web.app import create_app  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
START = "4HPwATDgc/ABMA"
#: The starting position, the top player to play 5-2, cube 2 owned by the bottom player, score bottom 3 top 1
#: of 7.
XGID = "XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:3:1:0:7:10"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("diagram") / "api.db"
    app = create_app(storage=Storage(f"sqlite:///{db}"))
    with PlayerClient(app) as c:
        yield c


def texts(svg: str, cls: str) -> list[str]:
    root = ET.fromstring(svg)
    return [e.text or "" for e in root.iter(SVG + "text") if cls in (e.get("class") or "").split()]


def checkers(svg: str) -> int:
    root = ET.fromstring(svg)
    return sum(1 for e in root.iter(SVG + "circle") if "checker" in (e.get("class") or "").split())


@pytest.mark.parametrize("game", ["backgammon", "short", "long"])
def test_svg_of_each_games_start_has_30_checkers_and_a_script_free_csp(client, game):
    r = client.get("/api/diagram.svg", params={"game": game, "position": Position.start(game).id(), "dice": "6-4"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("image/svg+xml")
    assert checkers(r.text) == 30
    csp = r.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "sandbox" in csp and "script-src" not in csp
    assert r.headers["cache-control"] == "public, max-age=86400"
    assert r.headers["etag"].startswith('"')
    assert r.headers["x-content-type-options"] == "nosniff"


def test_svg_is_the_renderers_drawing_of_the_query(client):
    params = {
        "position": START,
        "dice": "64",
        "cube": 4,
        "owner": "mover",
        "score": "2-5",
        "length": 7,
        "names": "Ann,Борис",
        "numbering": "traditional",
        "side": "black",
        "theme": "print",
        "title": "Puzzle 7",
        "crawford": "false",
    }
    r = client.get("/api/diagram.svg", params=params)
    assert r.status_code == 200, r.text
    d = Diagram(
        Position.from_id(START),
        dice=(6, 4),
        cube=4,
        cube_owner=0,
        score=(2, 5),
        length=7,
        names=("Ann", "Борис"),
        numbering="traditional",
        side=1,
        title="Puzzle 7",
    )
    assert r.text == diagram_svg(d, "print")


def test_an_xgids_cube_score_and_dice_are_drawn_unless_the_query_gives_them(client):
    r = client.get("/api/diagram.svg", params={"position": XGID})
    assert r.status_code == 200, r.text
    assert texts(r.text, "score") == ["1-3, match to 7"]
    assert texts(r.text, "cube") == ["2"]
    r = client.get(
        "/api/diagram.svg", params={"position": XGID, "score": "0-0", "length": 0, "cube": 1, "owner": "centre"}
    )
    assert texts(r.text, "score") == ["0-0"]
    assert texts(r.text, "cube") == ["64"]


def test_png_decodes_at_the_fixed_scale(client):
    from PIL import Image

    r = client.get("/api/diagram.png", params={"game": "long", "dice": "3-3", "theme": "dark"})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "image/png"
    img = Image.open(io.BytesIO(r.content))
    assert img.format == "PNG" and img.size == (790, 630)
    assert r.headers["cache-control"] == "public, max-age=86400"


def test_the_same_query_answers_304_to_its_etag(client):
    for path in ("/api/diagram.svg", "/api/diagram.png"):
        r = client.get(path, params={"position": START})
        etag = r.headers["etag"]
        again = client.get(path, params={"position": START}, headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        assert again.headers["etag"] == etag
        other = client.get(path, params={"position": START, "theme": "dark"}, headers={"If-None-Match": etag})
        assert other.status_code == 200 and other.headers["etag"] != etag


@pytest.mark.parametrize(
    "params,code,words",
    [
        ({"position": "xyz"}, "invalid_id", "xyz"),
        ({"game": "chess"}, "unknown_game", "chess"),
        ({"dice": "7-1"}, "invalid_dice", "1-6"),
        ({"cube": 3}, "invalid_option", "power of two"),
        ({"cube": 8192}, "invalid_request", "cube"),
        ({"owner": "left"}, "invalid_request", "owner"),
        ({"score": "two-one"}, "invalid_option", "score"),
        ({"score": "1-2-3"}, "invalid_option", "score"),
        ({"length": -1}, "invalid_request", "length"),
        ({"names": "a,b,c"}, "invalid_option", "names"),
        ({"names": "x" * 41 + ",b"}, "invalid_option", "40"),
        ({"names": "x" * 90}, "invalid_request", "names"),
        ({"names": "a\x07,b"}, "invalid_option", "control"),
        ({"numbering": "absolute"}, "invalid_option", "absolute"),
        ({"numbering": "roman"}, "invalid_request", "numbering"),
        ({"theme": "neon"}, "invalid_request", "theme"),
        ({"title": "t" * 121}, "invalid_request", "title"),
        ({"title": "line\nbreak"}, "invalid_option", "title"),
        ({"game": "long", "position": XGID}, "invalid_id", "XGID"),
        ({"scale": 3}, "unknown_parameter", "scale"),
    ],
)
@pytest.mark.parametrize("path", ["/api/diagram.svg", "/api/diagram.png"])
def test_bad_input_is_refused_with_422_and_a_code(client, path, params, code, words):
    r = client.get(path, params=params)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["code"] == code, body
    assert words in body["detail"]
    assert r.headers["content-type"].startswith("application/json")


def test_lang_ru_draws_the_words_in_russian_and_is_cached_apart(client):
    params = {"position": Position.start("backgammon").id(), "score": "1-2", "length": "5"}
    en = client.get("/api/diagram.svg", params=params)
    ru = client.get("/api/diagram.svg", params={**params, "lang": "ru"})
    assert en.status_code == ru.status_code == 200
    assert texts(en.text, "score") == ["1-2, match to 5"] and texts(ru.text, "score") == ["1-2, матч до 5"]
    assert en.headers["etag"] != ru.headers["etag"]
    assert client.get("/api/diagram.svg", params={**params, "lang": "de"}).status_code == 422

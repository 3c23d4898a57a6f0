"""eXtreme Gammon's .xg files over HTTP: ``POST /api/mat`` imports one sent as bytes, ``POST /api/analyse/xg``
analyses one with XG's figures beside nardy's; damaged or foreign bytes and files over the limit are 4xx
JSON, never 5xx (tests/data/xg: real matches, see its README)."""

from __future__ import annotations

import pytest

pytest.importorskip("httpx")

from nardy.records.xgfile import RECORD_SIZE, read_archive  # noqa: E402
from nardy.web.app import create_app  # noqa: E402
from nardy.web.routers import review  # noqa: E402
from nardy.web.store.storage import Storage  # noqa: E402
from tests.helpers import DATA  # noqa: E402
from tests.records.test_xg import pack  # noqa: E402
from tests.web.players import PlayerClient  # noqa: E402

CHARLOT = (DATA / "xg" / "charlot.xg").read_bytes()
OCTETS = {"Content-Type": "application/octet-stream"}


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    db = tmp_path_factory.mktemp("xg") / "xg.db"
    with PlayerClient(create_app(storage=Storage(f"sqlite:///{db}"))) as c:
        c.guest("Ann")
        yield c


def _refused(r, code, *words):
    assert r.status_code == code, r.text
    body = r.json()
    assert body["detail"] and body["error"]
    for w in words:
        assert w.lower() in body["detail"].lower(), body["detail"]
    return body


def test_mat_import_takes_xg_bytes(client):
    r = client.post("/api/mat", content=CHARLOT, headers=OCTETS)
    assert r.status_code == 200, r.text
    rec = r.json()["record"]
    assert rec["players"] == ["charlot1", "charlot2"]
    assert rec["length"] == 7
    assert rec["score"] == [9, 2]
    assert [g["score"] for g in rec["games"]] == [[0, 0], [0, 2], [2, 2], [6, 2]]


def test_mat_import_saves_an_xg_match(client):
    r = client.post("/api/mat?save=true", content=CHARLOT, headers=OCTETS)
    assert r.status_code == 200, r.text
    assert r.json()["id"]


def test_mat_import_of_damaged_xg_is_422(client):
    _refused(client.post("/api/mat", content=CHARLOT[:40000], headers=OCTETS), 422, "not a valid XG file")


def test_analyse_xg_gives_nardys_and_xgs_figures(client):
    body = read_archive(CHARLOT)["temp.xg"]
    short = pack({"temp.xg": body[: 14 * RECORD_SIZE]})  # the match's first six turns
    r = client.post("/api/analyse/xg?level=advanced", content=short, headers=OCTETS)
    assert r.status_code == 200, r.text
    data = r.json()
    assert data["review"]["players"] == ["charlot1", "charlot2"]
    first = data["decisions"][0]
    assert first["played"] == "24/23 13/9"
    assert first["xg"]["best"] == "24/23 13/9"
    assert first["xg"]["equities"][0] == ["24/23 13/9", -0.003054]
    again = client.post("/api/analyse/xg?level=advanced", content=short, headers=OCTETS)
    assert again.json()["cached"] is True


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"", ("empty",)),
        (b"RGMH" + bytes(20), ("truncated",)),
        (b'; [Variation "Backgammon"]\n 1 point match\n', ("not an XG file",)),
        (CHARLOT[:-10], ("not a valid XG file",)),
    ],
)
def test_analyse_xg_refuses_what_is_not_an_xg_file(client, content, words):
    _refused(client.post("/api/analyse/xg", content=content, headers=OCTETS), 422, *words)


def test_analyse_xg_over_the_limit_is_413(client, monkeypatch):
    monkeypatch.setattr(review, "XG_LIMIT", 1000)
    _refused(client.post("/api/analyse/xg", content=CHARLOT, headers=OCTETS), 413, "too large")


def test_analyse_xg_body_over_the_server_limit_is_413(client):
    _refused(client.post("/api/analyse/xg", content=bytes(review.XG_LIMIT + 10), headers=OCTETS), 413)


def test_analyse_xg_level_is_checked(client):
    r = client.post("/api/analyse/xg?level=godlike", content=CHARLOT, headers=OCTETS)
    assert r.status_code == 422

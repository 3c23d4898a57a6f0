"""The analysis report's figures that GNU Backgammon's HTML export and ``show statistics match`` have (issue
45): the Match ID beside the Position ID, the percentage after the proper cube action, the beaver and
dead-cube words, the cube errors split below / above the cash, double and too-good points, the error and
luck rates in MWC, the Snowie error rate, the FIBS rating figures and the record's match information.

The gnubg figures below come from GNU Backgammon 1.07 on the same record (``import mat gnubg-1002.mat``,
``analyse match``, ``export match html``, ``show statistics match``); each test names the ones it uses.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from nardy.analysis.load import analyse_file
from nardy.analysis.report import html_report
from nardy.analysis.reportcube import match_id_of, proper_code, window_percent
from nardy.analysis.reportstats import (
    absolute_fibs_rating,
    cube_error_split,
    fibs_rating_loss_checker,
    fibs_rating_loss_cube,
    match_info,
    player_stats,
    relative_fibs_rating,
)
from nardy.analysis.results import proper_cube_action
from nardy.records.matparse import read_mat
from nardy.texts.catalogue import page_texts

DATA = Path("/work/shared/data")
if not DATA.exists():
    DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
RECORD = DATA / "gnubg-matches" / "gnubg-1002.mat"
HEADED = DATA / "real-mat" / "lazyBG" / "match1.txt"
pytestmark = pytest.mark.skipif(not RECORD.exists(), reason=f"real record {RECORD} not here")

#: gnubg 1.07's export of gnubg-1002.mat: (move number, Position ID, Match ID) of game 1's entries.
GNUBG_IDS = [
    (2, "sGfwATDgc/ABMA", "cIllAAAAAAAE"),  # root to play 31 (after its "no double")
    (3, "4HPiASiwZ/ABMA", "MAFzAAAAAAAE"),  # gnubg to play 64
    (4, "xk7wATDgc+IBUA", "cAlpAAAAAAAE"),  # root to play 22
    (5, "4HPiAVDGTvABMA", "MAFgAAAAAAAE"),  # gnubg on roll, cube decision? (no dice)
    (6, "4HPiAVDGTvABMA", "MBlgAAAAAAAE"),  # gnubg doubles, root to answer (double offered)
    (7, "4HPiAVDGTvABMA", "EQFvAAAAAAAE"),  # gnubg to play 63, root owns the 2-cube
    (8, "xl3gATDgc+IBUA", "UQlmAAAAAAAE"),  # root to play 41 with its cube
]

#: gnubg's cube blocks of the same export: its cubeful equities ND, DT, DP (doubler's view) and the
#: percentage it prints after "No double, take" / "No redouble, take".
GNUBG_WINDOWS = [
    ((-0.242, -0.807, 1.0), 31.2),
    ((0.394, 0.236, 1.0), 20.7),
    ((-0.489, -1.099, 1.0), 29.1),
    ((-0.260, -0.451, 1.0), 13.2),
    ((-0.323, -0.604, 1.0), 17.5),
    ((-0.554, -0.839, 1.0), 15.5),
    ((0.156, -0.028, 1.0), 18.0),
    ((0.144, -0.052, 1.0), 18.6),
    ((0.346, 0.234, 1.0), 14.7),
]


@pytest.fixture(scope="module")
def data():
    return analyse_file(RECORD, level="advanced").to_dict()


@pytest.fixture(scope="module")
def page(data):
    return html_report(data, page_texts("en"), "en")


def _sections(page: str) -> dict:
    return {
        m.group(1): m.group(2)
        for m in re.finditer(r"<section class='entry[^']*' id='(g\d+-m\d+)'>(.*?)</section>", page, re.S)
    }


def _row(page: str, table: str, label: str) -> list[str]:
    """The cells of one row of a statistics table (``table``: its id)."""
    t = page[page.index(f"id='{table}'") :]
    t = t[: t.index("</table>")]
    m = re.search(r"<tr><td class='l'>" + re.escape(html.escape(label, quote=True)) + r"</td>(.*?)</tr>", t)
    assert m, label
    return [html.unescape(c) for c in re.findall(r"<td>(.*?)</td>", m.group(1))]


def test_the_match_id_beside_the_position_id_is_gnubgs(data, page):
    sec = _sections(page)
    for number, pid, mid in GNUBG_IDS:
        body = sec[f"g1-m{number}"]
        assert f"<code>{pid}</code>" in body, number
        assert f"Match ID <code class='mid'>{mid}</code>" in body, number
    # every checker and cube decision of the record has one; long nardy has none (the ID is backgammon's)
    ds = [d for d in data["decisions"] if d["kind"] != "resign"]
    assert all(len(match_id_of(d, data)) == 12 for d in ds)
    assert match_id_of(ds[0], {**data, "game": "long"}) == ""


def test_the_percentage_after_the_proper_action_is_gnubgs_window_position():
    for (nd, dt, dp), pct in GNUBG_WINDOWS:
        eqs = {"no double": nd, "double/take": dt, "double/pass": dp}
        code = proper_cube_action(eqs)
        assert code == "no_double_take"
        assert 100 * window_percent(code, eqs) == pytest.approx(pct, abs=0.15)
    # too good / pass past the cash point: (ND - DP) / (DT - DP) where DT >= ND; none for a double
    eqs = {"no double": 1.2, "double/take": 1.5, "double/pass": 1.0}
    assert proper_cube_action(eqs) == "too_good_pass" and window_percent("too_good_pass", eqs) == pytest.approx(0.4)
    assert window_percent("too_good_pass", {"no double": 1.6, "double/take": 1.5, "double/pass": 1.0}) is None
    assert window_percent("double_take", {"no double": 0.7, "double/take": 0.8, "double/pass": 1.0}) is None


def test_the_report_prints_the_percentage_from_its_own_cubeful_equities(data, page):
    shown = re.findall(r"data-code='no_double_take'>Proper cube action: <b>No double, take \(([\d.]+)%\)</b>", page)
    nd = [
        d
        for d in data["decisions"]
        if d["kind"] == "cube" and d["action"] == "double" and d["cube_analysis"]["proper"] == "no_double_take"
    ]
    assert nd and len(shown) == len(nd)
    for d, pct in zip(nd, shown):
        e = d["cube_analysis"]["equities"]
        want = (e["no double"] - e["double/take"]) / (e["double/pass"] - e["double/take"])
        assert float(pct) == pytest.approx(100 * want, abs=0.051)


def _cube(player=0, action="double", played="no double", kind="", nd=0.5, dt=0.8, dp=1.0, loss=0.05, mwc=0.01):
    return {
        "game": 1,
        "move": 1,
        "player": player,
        "kind": "cube",
        "action": action,
        "played": played,
        "forced": False,
        "counted": True,
        "mark": "error",
        "equity_loss": loss,
        "mwc_loss": mwc,
        "error_kind": kind,
        "cube": {"value": 1, "owner": None},
        "candidates": {"no double": nd, "double/take": dt, "double/pass": dp},
        "luck": None,
    }


def test_cube_errors_are_split_as_gnubg_splits_them_with_emg_and_mwc_totals():
    ds = [
        _cube(kind="missed double", nd=0.6, dt=0.8, loss=0.2, mwc=0.02),  # DT < DP: below the cash point
        _cube(kind="missed double", nd=0.7, dt=1.3, loss=0.3, mwc=0.03),  # DT > DP: above it
        _cube(played="double", kind="wrong double", nd=0.3, dt=-0.2, loss=0.5, mwc=0.05),  # below the double point
        _cube(played="double", kind="wrong double", nd=1.4, dt=1.6, loss=0.4, mwc=0.04),  # above too good
        _cube(player=0, action="take", played="pass", kind="wrong pass", nd=0.6, dt=0.8, loss=0.1, mwc=0.01),
        _cube(player=1, action="take", played="take", kind="wrong take", nd=1.2, dt=1.3, loss=0.25, mwc=0.025),
    ]
    assert [cube_error_split(d) for d in ds] == [
        "missed double below cp",
        "missed double above cp",
        "wrong double below dp",
        "wrong double above tg",
        "wrong pass",
        "wrong take",
    ]
    c = player_stats(ds, 0)["cube"]
    assert c["split"] == {
        "missed double below cp": 1,
        "missed double above cp": 1,
        "wrong double below dp": 1,
        "wrong double above tg": 1,
        "wrong take": 0,
        "wrong pass": 1,
    }
    assert c["split_error"]["wrong double above tg"] == pytest.approx(0.4)
    assert c["split_mwc"]["missed double above cp"] == pytest.approx(0.03)
    assert c["rate_mwc"] == pytest.approx(0.15 / 5)  # MWC per close cube decision
    assert player_stats(ds, 1)["cube"]["split"]["wrong take"] == 1


def test_dead_cube_and_beaver_are_worded_as_gnubg_words_them(data):
    eqs = {"no double": 0.2, "double/take": -0.1, "double/pass": 1.0}
    d = _cube(nd=0.2, dt=-0.1)
    money = {"game": "backgammon", "length": 0, "games": [{"game": 1, "score": [0, 0]}]}
    # money with beavers: DP > ND > DT and DT in [-2, 0]: the opponent would beaver
    assert proper_code(d, {**money, "options": {"beavers": True}}, eqs, "no_double_take") == "no_double_beaver"
    assert proper_code(d, {**money, "options": {"beavers": False}}, eqs, "no_double_take") == "no_double_take"
    dbl = {"no double": -0.4, "double/take": -0.1, "double/pass": 1.0}  # doubling right, the take a beaver
    assert proper_code(d, {**money, "options": {"beavers": True}}, dbl, "double_take") == "double_beaver"
    # match play: the Crawford game, or the doubler's score plus the cube reaching the length: dead cube
    crawford = {"game": "backgammon", "length": 3, "games": [{"game": 1, "score": [1, 2], "crawford": True}]}
    assert proper_code(d, crawford, eqs, "no_double_take") == "never_double_take"
    post = {"game": "backgammon", "length": 3, "games": [{"game": 1, "score": [2, 1]}]}
    assert proper_code(d, post, eqs, "no_double_take") == "never_double_take"
    live = {"game": "backgammon", "length": 3, "games": [{"game": 1, "score": [0, 1]}]}
    assert proper_code(d, live, eqs, "no_double_take") == "no_double_take"
    tr = page_texts("en")
    assert tr("rp_proper_never_double_take") == "Never double, take (dead cube)"
    assert tr("rp_proper_no_double_beaver") == "No double, beaver"
    assert page_texts("ru")("rp_proper_double_beaver") == "Удвоить, бобёр"


def test_fibs_rating_figures_follow_gnubgs_formulas():
    # gnubg's "show statistics match" of gnubg-1002.mat (3-point match): chequer play -0.734 EMG over 25
    # unforced moves (gnubg), -0.606 over 21 (root); no cube error; luck +26.827% / -30.790% MWC; gnubg
    # won the match (actual result +50%).
    assert fibs_rating_loss_checker(0.734 / 25, 3) == pytest.approx(508.2, abs=0.2)
    assert fibs_rating_loss_checker(0.606 / 21, 3) == pytest.approx(499.7, abs=0.5)  # -0.606 is rounded
    assert fibs_rating_loss_cube(0.0, 3) == 0.0
    assert absolute_fibs_rating(0.734 / 25, 0.0, 3) == pytest.approx(1541.8, abs=0.2)
    assert relative_fibs_rating(0.5 + 0.5 - 0.26827 + -0.30790, 3) == pytest.approx(-153.97, abs=0.05)
    assert relative_fibs_rating(1.0, 3) is None and relative_fibs_rating(0.0, 3) is None
    assert relative_fibs_rating(1e-9, 1) == -2100.0  # gnubg's floor


def test_the_statistics_have_gnubgs_mwc_rates_snowie_rate_and_fibs_rows(data, page):
    st = [player_stats(data["decisions"], k) for k in (0, 1)]
    every = sum(1 for d in data["decisions"] if d["kind"] == "checker")
    for k, s in enumerate(st):
        ch = s["checker"]
        assert ch["rate_mwc"] == pytest.approx(ch["error_mwc"] / ch["unforced"])
        assert s["overall"]["snowie"] == pytest.approx(1000 * s["overall"]["error"] / every)
        cells = _row(page, "summary", "Error rate mEMG (MWC)")
        assert cells[k] == f"{-ch['rate']:.1f} ({-100 * ch['rate_mwc']:+.3f}%)"
    assert _row(page, "summary", "Snowie error rate") == [f"{-s['overall']['snowie']:.1f}" for s in st]
    n = data["length"]
    want = absolute_fibs_rating(st[0]["checker"]["rate"] / 1000, st[0]["cube"]["rate"] / 1000, n)
    assert _row(page, "summary", "Error based abs. FIBS rating")[0] == f"{want:.1f}"
    diff = relative_fibs_rating(data["players"][0]["luck_adjusted_result"], n)
    assert _row(page, "summary", "Luck based FIBS rating diff.") == [f"{diff:+.2f}", ""]
    assert _row(page, "summary", "Chequerplay errors rating loss")[1] == (
        f"{fibs_rating_loss_checker(st[1]['checker']['rate'] / 1000, n):.1f}"
    )
    assert _row(page, "summary", "Missed doubles above CP EMG (MWC)") == ["0", "0"]
    assert _row(page, "stats-1", "Wrong doubles below DP EMG (MWC)") == ["0", "0"]


def test_match_information_comes_from_the_records_headers(data, page):
    assert data["info"] == {"date": "2026.11.30"}  # gnubg-1002.mat's one header, EventDate
    assert "<table class='info' id='match-info'>" in page and "2026.11.30" in page
    if not HEADED.exists():
        pytest.skip(f"{HEADED} not here")
    info = match_info(read_mat(HEADED).headers)
    assert info == {
        "players": "Johan HUYCK Michael LARSEN - Kévin UNGER Nicolas HARMAND",
        "event": "Aachen Backgammon Festival",
        "round": "round 3",
        "date": "2024.08.10 03.00",
        "place": "Aachen",
        "transcriber": "Kévin UNGER",
    }
    ru = html_report({**data, "info": {**info, "comment": "<b>a</b>"}}, page_texts("ru"), "ru")
    assert "Турнир" in ru and "Aachen Backgammon Festival" in ru and "&lt;b&gt;a&lt;/b&gt;" in ru
    assert match_info({"Annotator": "x\x07y", "Comment": "c" * 900}) == {"annotator": "xy", "comment": "c" * 500}

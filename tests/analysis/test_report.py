"""The analysis report (nardy.analysis.report): every decision of a real record listed, collapsible per game,
numbered as GNU Backgammon's HTML export numbers its moves; the cube block's figures are the analysis'; the
proper cube action in gnubg's words; statistics per game and for the match; Russian and English; PDF.

The gnubg figures below come from GNU Backgammon 1.07's own export of the same record
(``import mat``, ``analyse match``, ``export match html``): its game 1 has moves 1..55, move 5 is
"gnubg on roll, cube decision?" (the double), 6 "gnubg doubles to 2" (root accepts), 7 "gnubg to play 63";
move 2 (root's 31, a "no double" then 24/23 13/10) is one numbered move.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from nardy.analysis.load import analyse_file
from nardy.analysis.report import html_report
from nardy.analysis.reportstats import luck_rating_of, player_stats
from nardy.analysis.results import gnubg_numbers, proper_cube_action
from nardy.cli import main
from nardy.texts.catalogue import page_texts

RECORD = Path("/work/shared/data/gnubg-matches/gnubg-1002.mat")
if not RECORD.exists():  # the repository's copy of the shared data, where there is one
    RECORD = Path(__file__).resolve().parents[2] / "shared" / "data" / "gnubg-matches" / "gnubg-1002.mat"
pytestmark = pytest.mark.skipif(not RECORD.exists(), reason=f"real record {RECORD} not here")


@pytest.fixture(scope="module")
def data():
    return analyse_file(RECORD, level="advanced").to_dict()


@pytest.fixture(scope="module")
def page_en(data):
    return html_report(data, page_texts("en"), "en")


def _sections(page: str) -> dict:
    """The report's numbered entries: anchor -> the section's HTML."""
    out = {}
    for m in re.finditer(r"<section class='entry[^']*' id='(g\d+-m\d+)'>(.*?)</section>", page, re.S):
        out[m.group(1)] = m.group(2)
    return out


def test_the_moves_are_numbered_as_gnubgs_html_export_numbers_them(data, page_en):
    ds = data["decisions"]
    assert [d["number"] for d in ds] == gnubg_numbers(ds)
    double = next(d for d in ds if d["action"] == "double" and d["played"] == "double")
    take = next(d for d in ds if d["action"] == "take")
    assert (double["number"], double["player"]) == (5, 0)
    assert (take["number"], take["played"]) == (6, "take")
    after = ds[ds.index(take) + 1]
    assert after["number"] == 7 and after["dice"] == [6, 3]
    assert max(d["number"] for d in ds if d["game"] == 1) == 55
    # root's "no double" and its play share move 2
    assert [(d["kind"], d["player"]) for d in ds if d["number"] == 2] == [("cube", 1), ("checker", 1)]
    sec = _sections(page_en)
    assert len(sec) == 55
    assert "Move 5: gnubg on roll, cube decision?" in sec["g1-m5"]
    assert "Move 6: gnubg doubles to 2" in sec["g1-m6"] and "root accepts" in sec["g1-m6"]
    assert "Move 7: gnubg to play 63" in sec["g1-m7"]
    assert "Move 2: root to play 31" in sec["g1-m2"]


def test_every_board_is_the_diagram_with_names_cube_score_and_caption(data, page_en):
    sec = _sections(page_en)
    body = sec["g1-m7"]  # gnubg to play 63 after root took gnubg's double: root owns the cube at 2
    svg = body[body.index("<svg") : body.index("</svg>")]
    assert 'class="board diagram"' in svg
    texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]
    assert texts[0] == "Move 7: gnubg to play 63"  # the caption, above the board
    assert "gnubg" in texts and "root" in texts and "0-0, match to 3" in texts
    assert "2" in texts  # the cube's value
    assert "pips 153" in texts or any(t.startswith("pips ") for t in texts)
    # the numbering chosen: long nardy's absolute numbering is refused for backgammon, traditional drawn
    with pytest.raises(ValueError):
        html_report(data, page_texts("en"), "en", numbering="absolute")
    trad = _sections(html_report(data, page_texts("en"), "en", numbering="traditional"))["g1-m7"]
    assert trad != body


def test_gnubg_numbers_restart_each_game_and_a_no_double_shares_the_play_s_number():
    def d(game, kind, action="play", played=""):
        return {"game": game, "kind": kind, "action": action, "played": played}

    ds = [
        d(1, "checker"),
        d(1, "cube", "double", "no double"),
        d(1, "checker"),
        d(1, "cube", "double", "double"),
        d(1, "cube", "take", "pass"),
        d(2, "checker"),
        d(2, "checker"),
    ]
    assert gnubg_numbers(ds) == [1, 2, 2, 3, 4, 1, 2]


def test_every_decision_of_the_record_is_in_the_report_collapsible_per_game(data, page_en):
    games = {d["game"] for d in data["decisions"]}
    assert page_en.count("<details class='game'") == len(games) == len(data["games"])
    sec = _sections(page_en)
    for d in data["decisions"]:
        body = html.unescape(sec[f"g{d['game']}-m{d['number']}"])
        name = data["players"][d["player"]]["name"]
        if d["kind"] == "checker":
            assert (f"{name} moves {d['played']}" if d["played"] else f"{name} cannot move") in body
        elif d["kind"] == "resign":  # shown with the move before it (gnubg numbers no resignation)
            assert (f"{name} resigns: " if d["action"] == "resign" else f"{name} accepts the resignation") in body
        elif d["action"] == "double":
            assert f"{name} {'doubles' if d['played'] == 'double' else 'does not double'}" in body
        else:
            assert f"{name} accepts" in body
    # unmarked decisions too: far more entries than marks; one board each
    assert sum(1 for d in data["decisions"] if d["mark"]) < len(sec)
    assert all(s.count("<svg") == 1 for s in sec.values())


def test_the_cube_block_shows_the_analysis_equities_and_the_proper_action(data, page_en):
    sec = _sections(page_en)
    cubes = [d for d in data["decisions"] if d["kind"] == "cube"]
    assert len(cubes) >= 10
    for d in cubes:
        body = sec[f"g{d['game']}-m{d['number']}"]
        ca = d["cube_analysis"]
        assert ca["equities"] == d["candidates"]
        rows = dict(re.findall(r"<tr data-action='([^']+)'>.*?<td class='eq'>([^<]+)</td>", body))
        assert rows == {k: f"{v:+.3f}" for k, v in d["candidates"].items()}
        words = {
            "no_double_take": "No double, take",
            "double_take": "Double, take",
            "no_redouble_take": "No redouble, take",
            "redouble_take": "Redouble, take",
        }
        # gnubg's words, with its window percentage after "No (re)double, take" (tests/analysis/test_report_gnubg.py)
        proper = re.search(r"Proper cube action: <b>([^<(]*?)(?: \([\d.]+%\))?</b>", body)
        assert proper and proper.group(1) == words.get(ca["proper"], "?"), ca["proper"]
        assert f"{ca['cubeless_equity']:+.3f}" in body and f"{ca['cubeless_money']:+.3f}" in body
        # gnubg's money cubeless equity from the cubeless probabilities (backgammon: single, gammon, backgammon)
        p = d["probabilities"]
        money = (2 * p["win"] - 1) + (p["win_gammon"] - p["lose_gammon"]) + (p["win_backgammon"] - p["lose_backgammon"])
        assert ca["cubeless_money"] == pytest.approx(money, abs=4e-4)  # the probabilities are rounded to 4 places
        assert ca["error"] == pytest.approx(d["equity_loss"], abs=1e-6)
    # gnubg's double at move 5 ("Proper cube action: Double, take") is ours too at 0-ply
    double = next(d for d in cubes if d["played"] == "double" and d["player"] == 0)
    assert double["cube_analysis"]["proper"] == "double_take"
    # the cube gnubg owns after the take: its later decisions are redoubles
    assert any(d["cube_analysis"]["redouble"] for d in cubes)


def test_proper_cube_action_is_gnubgs_words_of_the_three_equities():
    def pca(nd, dt, dp, re=False):
        return proper_cube_action({"no double": nd, "double/take": dt, "double/pass": dp}, redouble=re)

    # the two decisions of gnubg's export of gnubg-1002 (moves 2 and 5)
    assert pca(-0.242, -0.807, 1.0) == "no_double_take"
    assert pca(0.787, 0.926, 1.0) == "double_take"
    assert pca(0.9, 1.2, 1.0) == "double_pass"
    assert pca(1.1, 1.2, 1.0) == "too_good_pass"
    assert pca(1.1, 0.7, 1.0) == "too_good_take"
    assert pca(0.8, 0.7, 1.0, re=True) == "no_redouble_take"
    assert pca(0.5, 1.2, 1.0, re=True) == "redouble_pass"


def test_luck_ratings_are_gnubgs_by_the_luck_rate():
    assert [luck_rating_of(r) for r in (0.07, 0.04, 0.0, -0.04, -0.07)] == [
        "Go to Las Vegas",
        "Good dice, man!",
        "None",
        "Bad dice, man!",
        "Go to bed",
    ]


def test_the_statistics_per_game_and_for_the_match_are_the_decisions(data, page_en):
    for k, p in enumerate(data["players"]):
        st = player_stats(data["decisions"], k)
        assert st["overall"]["error"] == pytest.approx(p["total_loss"], abs=1e-5)
        assert st["checker"]["unforced"] == p["checker_decisions"]
        assert st["cube"]["close"] == p["cube_decisions"]
        assert st["luck"]["total"] == pytest.approx(p["luck_emg"], abs=1e-5)
        assert st["overall"]["pr"] == pytest.approx(p["pr"], abs=1e-3)
    assert "id='summary'" in page_en and "id='stats-1'" in page_en
    # gnubg's rows, per game too
    stats1 = page_en[page_en.index("id='stats-1'") :]
    for label in ("Unforced moves", "Rolls marked very lucky", "Close or actual cube decisions", "Luck rating"):
        assert label in stats1
    # the game's result: gnubg wins 4 points at 0-0 to 3, the match (MWC from 50% to 100%)
    assert re.search(r"Actual result</td><td>\+50\.00%</td><td>-50\.00%</td>", stats1)


def test_luck_words_per_roll_are_shown(data, page_en):
    marked = [d for d in data["decisions"] if d.get("luck_mark")]
    assert marked
    sec = _sections(page_en)
    for d in marked:
        assert f"— {d['luck_mark']}" in sec[f"g{d['game']}-m{d['number']}"]


def test_the_report_in_russian(data):
    page = html_report(data, page_texts("ru"), "ru")
    assert "<html lang='ru'>" in page
    for text in ("Статистика матча", "Правильное решение", "Ход 5: gnubg на ходу, удваивать ли?", "Эквити с кубом"):
        assert text in page, text
    assert "Proper cube action" not in page and "Match statistics" not in page


def test_rollout_figures_replace_the_n_ply_ones_and_are_marked(data):
    ds = [dict(d) for d in data["decisions"]]
    cube = next(d for d in ds if d["kind"] == "cube")
    cube["rollout"] = {
        "trials": 1296,
        "truncation": 0,
        "cubeful": True,
        "level": "expert",
        "nd": 0.1234,
        "dt": 0.5678,
        "dp": 1.0,
        "ci": 0.0123,
    }
    chk = next(d for d in ds if d["kind"] == "checker" and not d["forced"])
    chk["rollout"] = {
        "trials": 648,
        "truncation": 10,
        "cubeful": True,
        "level": "expert",
        "candidates": [
            {"play": chk["candidates"][0]["play"], "equity": 0.4321, "ci": 0.021, "probs": [0.6, 0.2, 0.01, 0.1, 0.005]}
        ],
    }
    page = html_report({**data, "decisions": ds}, page_texts("en"), "en")
    sec = _sections(page)
    body = sec[f"g{cube['game']}-m{cube['number']}"]
    assert "rollout: 1296 trials, 95% interval ±0.012" in body
    assert "<td class='eq'>+0.123</td>" in body and "<td class='eq'>+0.568</td>" in body
    body = sec[f"g{chk['game']}-m{chk['number']}"]
    assert "rollout: 648 trials, truncated at 10 plies, 95% interval ±0.021" in body and "+0.432" in body


def test_nardy_analyse_writes_the_report_in_russian_and_refuses_pdf_without_chromium(tmp_path, monkeypatch):
    import nardy.cli.pdf as pdf

    page = tmp_path / "r.html"
    monkeypatch.setattr(pdf, "find_chromium", lambda: None)
    r = CliRunner().invoke(
        main, ["analyse", str(RECORD), "--level", "advanced", "-q", "--pdf", str(tmp_path / "r.pdf")]
    )
    assert r.exit_code != 0 and "--pdf needs Chromium" in r.output
    r = CliRunner().invoke(
        main, ["analyse", str(RECORD), "--level", "advanced", "-q", "--lang", "ru", "--html", str(page)]
    )
    assert r.exit_code == 0, r.output
    assert "Статистика матча" in page.read_text(encoding="utf-8")


def test_nardy_analyse_pdf_prints_the_report(tmp_path):
    from nardy.cli.pdf import find_chromium

    if find_chromium() is None:
        pytest.skip("chromium not installed")
    out = tmp_path / "r.pdf"
    r = CliRunner().invoke(main, ["analyse", str(RECORD), "--level", "advanced", "-q", "--pdf", str(out)])
    assert r.exit_code == 0, r.output
    pdf = out.read_bytes()
    assert pdf.startswith(b"%PDF")
    # printed with every game open: one page or so per numbered move (55), never all on a few pages
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) >= 40


def test_a_resignation_is_shown_judged_with_its_answer_in_both_languages():
    """A record that rolls then resigns (written by gnubg): the resignation's block lists "Play on" before
    "Resign" with their equities, the alert names "resigned too early", and the answer is worded as one."""
    from tests.helpers import shared_path

    rec = shared_path("data", "real-mat", "gnubgparser-gnubg-made", "gnubg_roll_then_resign_1p.mat")
    d = analyse_file(Path(rec), level="advanced").to_dict()
    res, acc = [x for x in d["decisions"] if x["kind"] == "resign"]
    page = html.unescape(html_report(d, page_texts("en")))
    assert "charlot2 resigns: single game" in page
    assert "charlot1 accepts the resignation" in page
    block = re.search(r"<table class='cubeeq resign'>(.*?)</table>", page, re.S).group(1)
    rows = re.findall(r"data-action='([^']+)'.*?<td class='eq'>([^<]+)</td>", block)
    assert rows == [
        ("play on", f"{res['candidates']['play on']:+.3f}"),
        ("resign", f"{res['candidates']['resign']:+.3f}"),
    ]
    assert f"Alert: resigned too early, {res['mark']}" in page.replace("Blunder", "blunder")
    ru = html.unescape(html_report(d, page_texts("ru")))
    assert "charlot2 сдаётся: одинарная партия" in ru and "преждевременная сдача" in ru

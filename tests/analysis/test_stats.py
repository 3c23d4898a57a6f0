"""Statistics over many analyses (issue 45, :mod:`nardy.analysis.stats`): the kind of each decision on real
positions, the digest of an analysis, the sums and the ranking of the kinds of error.

The positions are decisions of real analysed matches: ``gnubg-matches/gnubg-1004.mat`` (a 7-point backgammon
match between GNU Backgammon and a person) and ``tests/golden/data/play/long-match3-lastroll-seed6.mat`` (a
3-point long nardy match), their Position IDs, rolls and plays as the analysis gave them.
"""

from __future__ import annotations

from nardy.analysis.stats import KINDS, classify, digest, period_of, summarise
from nardy.rules.position import Position


def checker(game: int, player: int, position: str, dice, played: str, best: str | None = None, **kw) -> dict:
    return {
        "game": game,
        "player": player,
        "kind": "checker",
        "action": "play",
        "position": position,
        "dice": list(dice),
        "played": played,
        "best": best if best is not None else played,
        "counted": True,
        "equity_loss": 0.0,
        "mark": "",
        **kw,
    }


def cube(game: int, player: int, action: str, **kw) -> dict:
    return {
        "game": game,
        "player": player,
        "kind": "cube",
        "action": action,
        "position": "4HPwATDgc/ABMA",
        "dice": None,
        "counted": True,
        "equity_loss": 0.0,
        "mark": "",
        **kw,
    }


# backgammon, gnubg-1004.mat: game 1 (two plays of each side first: the opening), game 2's race and bear-off
BG = [
    checker(1, 1, "4HPwATDgc/ABMA", (3, 1), "8/5 6/5"),
    checker(1, 0, "sGfwATDgc/ABMA", (6, 3), "24/15"),
    checker(1, 1, "4HPwCSCwZ/ABMA", (5, 2), "24/22 13/8"),
    checker(1, 0, "sOfgASTgc/AJIA", (6, 6), "13/1* 13/1", "15/3* 13/7(2)"),
    checker(1, 1, "g8/BCSCw5+ABRA", (4, 4), "bar/21 22/10*"),
    cube(1, 0, "double"),
    cube(1, 1, "take"),
    checker(2, 1, "ve4OAAC2dwOEAA", (6, 4), "18/12 14/10"),
    checker(2, 0, "tndDAgC97g4AAA", (6, 5), "6/off 5/off"),
]

# long nardy, long-match3-lastroll-seed6.mat
LONG = [
    checker(1, 0, "AACA/z8AAID/Pw", (4, 3), "24/17"),
    checker(1, 1, "AAAB/z8AAID/Pw", (1, 1), "24/20"),
    checker(1, 0, "AAAI/z8AAAH/Pw", (2, 6), "24/22 17/11"),
    checker(1, 1, "AARA/j8AAAj/Pw", (5, 4), "24/15"),
    checker(1, 0, "AEAQ/j8ABED+Pw", (6, 3), "24/15"),
    checker(1, 1, "QAiC8j+AIKDyPw", (5, 5), "21/6 20/15", "21/6 13/8"),
    checker(1, 1, "GAlYkD+gIlBSPw", (6, 3), "18/9"),
    checker(1, 1, "/QEASD7X1g8AAA", (1, 5), "6/off"),
    checker(2, 0, "AAAADoAIb2oAAA", (6, 5), "24/18 23/18"),
]


def test_backgammon_decisions_are_classified_opening_contact_cube_race_and_bear_off():
    kinds = classify({"game": "backgammon", "decisions": BG})
    assert kinds == ["opening", "opening", "opening", "opening", "contact", "double", "take", "opening", "opening"]
    # past each side's first two plays of a game, the same race and bear-off positions are told apart
    later = [dict(d, game=3) for d in BG[:4]] + [dict(BG[7], game=3), dict(BG[8], game=3)]
    assert classify({"game": "backgammon", "decisions": later})[4:] == ["race", "bear-off"]
    home = Position.from_id("tndDAgC97g4AAA")
    assert sum(home.mover[1:7]) + home.mover[0] == 15  # every checker home: bearing off


def test_long_nardy_decisions_are_classified_head_blocking_contact_race_and_bear_off():
    kinds = classify({"game": "long", "decisions": LONG})
    # game 1: each side's first two plays the opening; then a play from the head (24/15), a play whose best
    # move is off the head's side (contact), a play making a block, a bear-off; game 2 a race (no contact)
    assert kinds == ["opening"] * 4 + ["head", "contact", "blocking", "bear-off", "opening"]
    later = [dict(d, game=3) for d in LONG[:4]] + [dict(LONG[8], game=3)]
    assert classify({"game": "long", "decisions": later})[-1] == "race"
    assert set(kinds) <= set(KINDS)


def test_a_digest_counts_each_sides_counted_decisions_errors_loss_and_luck_per_kind():
    decisions = [
        checker(1, 0, "4HPwATDgc/ABMA", (3, 1), "8/5 6/5", equity_loss=0.0, luck=0.1),
        checker(1, 1, "sGfwATDgc/ABMA", (6, 3), "24/15", equity_loss=0.05, mark="doubtful", luck=-0.2),
        cube(1, 0, "double", equity_loss=0.2, mark="blunder"),
        cube(1, 1, "take", equity_loss=0.07, mark="error"),
        checker(1, 0, "sOfgASTgc/AJIA", (6, 6), "13/1* 13/1", counted=False, luck=0.3),  # forced: not counted
    ]
    dg = digest({"game": "backgammon", "length": 7, "games": [{}, {}], "players": [{"name": "A"}, {"name": "B"}],
                 "decisions": decisions})  # fmt: skip
    a, b = dg["sides"]
    assert dg["games"] == 2 and dg["length"] == 7 and (a["name"], b["name"]) == ("A", "B")
    assert a["decisions"] == 2 and abs(a["loss"] - 0.2) < 1e-9 and abs(a["luck"] - 0.4) < 1e-9
    assert a["kinds"] == {"opening": [1, 0, 0.0], "double": [1, 1, 0.2]}
    assert b["kinds"] == {"opening": [1, 1, 0.05], "take": [1, 1, 0.07]}


def test_summaries_add_up_per_game_type_and_month_and_rank_the_kinds_of_error():
    def dg(game, loss, decisions, luck, kinds):
        side = {"name": "A", "decisions": decisions, "loss": loss, "luck": luck, "kinds": kinds}
        return {"version": 1, "game": game, "length": 5, "games": 2, "sides": [side, dict(side, name="B")]}

    items = [
        ("A", "2026-11", dg("backgammon", 0.5, 50, 0.2, {"contact": [40, 4, 0.4], "take": [10, 1, 0.1]}), 0),
        ("A", "2026-12", dg("backgammon", 0.1, 50, -0.6, {"contact": [40, 1, 0.05], "take": [10, 2, 0.05]}), 0),
        ("A", "2026-12", dg("long", 0.3, 100, 0.0, {"head": [60, 3, 0.3], "contact": [40, 0, 0.0]}), 1),
    ]
    out = summarise(items)
    rows = {(r["game"], r["period"]): r for r in out["rows"]}
    allbg = rows[("backgammon", "all")]
    assert (allbg["matches"], allbg["games"], allbg["decisions"]) == (2, 4, 100)
    assert allbg["error_rate"] == 6.0 and allbg["pr"] == 3.0 and allbg["luck_per_game"] == -0.1
    assert rows[("backgammon", "2026-12")]["error_rate"] == 2.0
    # the backgammon rows: all first, then the months newest first
    assert [r["period"] for r in out["rows"] if r["game"] == "backgammon"] == ["all", "2026-12", "2026-11"]
    bg = [(k["kind"], k["errors"]) for k in out["kinds"] if k["game"] == "backgammon"]
    assert bg == [("contact", 5), ("take", 3)]
    assert [(k["kind"], k["errors"]) for k in out["kinds"] if k["game"] == "long"] == [("head", 3)]
    assert period_of("2026-12-06T05:00:00+00:00") == "2026-12" and period_of(None) == ""

"""The statistics of the analysis report (:mod:`nardy.analysis.report`), per game and for the match, as GNU
Backgammon's "Game statistics" table groups them (checker play, luck, cube, overall), computed from the
decision dicts of an analysis (:meth:`nardy.analysis.results.MatchAnalysis.to_dict`).

Units as the analysis': errors and luck in normalised equity (EMG) and, in match play, match winning chance
(MWC, a fraction); rates in millipoints (mp) per decision or per roll. The words of ratings are gnubg's:
:func:`nardy.analysis.results.rating_of` for errors and :func:`luck_rating_of` for luck.
"""

from __future__ import annotations

from ..flow.met import get_met
from .results import rating_of

__all__ = ["LUCK_RATINGS", "luck_rating_of", "player_stats", "game_results"]

#: gnubg's luck ratings by the luck rate (normalised luck per roll): above each bound, that word (gnubg's
#: manual, "Luck ratings"), worst last; below -0.06 "Go to bed".
LUCK_RATINGS = ((0.06, "Go to Las Vegas"), (0.03, "Good dice, man!"), (-0.03, "None"), (-0.06, "Bad dice, man!"))


def luck_rating_of(rate: float) -> str:
    """gnubg's luck rating of a luck rate ``rate`` (normalised equity per roll, not mp): "Go to Las Vegas"
    above 0.06, "Good dice, man!" above 0.03, "None" down to -0.03, "Bad dice, man!" down to -0.06, "Go to
    bed" below."""
    for bound, word in LUCK_RATINGS:
        if rate > bound:
            return word
    return "Go to bed"


def _ratio(total: float, n: int) -> float:
    return 1000.0 * total / n if n else 0.0


def player_stats(decisions: list, player: int) -> dict:
    """``player``'s statistics over ``decisions`` (decision dicts: one game's, or the match's).

    Returns ``{"checker": {...}, "luck": {...}, "cube": {...}, "overall": {...}}``: checker play ``moves``
    (every turn, forced ones too), ``unforced``, ``marks`` (counts of doubtful/error/blunder), ``error``
    (EMG), ``error_mwc`` (MWC, match play, else ``None``), ``rate`` (mp per unforced move), ``rating``;
    luck ``rolls``, ``marks`` (very lucky .. very unlucky, and ``unmarked``), ``total`` (EMG), ``total_mwc``,
    ``rate`` (mp per roll), ``rating`` (:func:`luck_rating_of`); cube ``total`` (every cube decision),
    ``close`` (the counted: close or actual), ``doubles``, ``takes``, ``passes``, ``errors`` (counts by kind),
    ``error_by_kind`` (EMG by kind), ``error``, ``error_mwc``, ``rate`` (mp per close decision), ``rating``;
    overall ``error``, ``error_mwc``, ``rate`` (mp per unforced move and close cube decision), ``pr``
    (rate / 2) and ``rating``."""
    mine = [d for d in decisions if d["player"] == player]
    chk = [d for d in mine if d["kind"] == "checker"]
    unforced = [d for d in chk if not d["forced"] and d["counted"]]
    cube = [d for d in mine if d["kind"] == "cube"]
    close = [d for d in cube if d["counted"]]
    match = any(d.get("mwc_loss") is not None for d in mine)

    def mwc(ds):
        return sum(d.get("mwc_loss") or 0.0 for d in ds) if match else None

    c_err = sum(d["equity_loss"] for d in unforced)
    checker = {
        "moves": len(chk),
        "unforced": len(unforced),
        "marks": {m: sum(1 for d in unforced if d["mark"] == m) for m in ("doubtful", "error", "blunder")},
        "error": c_err,
        "error_mwc": mwc(unforced),
        "rate": _ratio(c_err, len(unforced)),
        "rating": rating_of(_ratio(c_err, len(unforced))) if unforced else "",
    }
    rolls = [d for d in chk if d.get("luck") is not None]
    marks = {
        m: sum(1 for d in rolls if d.get("luck_mark") == m) for m in ("very lucky", "lucky", "unlucky", "very unlucky")
    }
    marks["unmarked"] = len(rolls) - sum(marks.values())
    l_tot = sum(d["luck"] for d in rolls)
    luck = {
        "rolls": len(rolls),
        "marks": marks,
        "total": l_tot,
        "total_mwc": sum(d.get("luck_native") or 0.0 for d in rolls) if match else None,
        "rate": _ratio(l_tot, len(rolls)),
        "rating": luck_rating_of(l_tot / len(rolls)) if rolls else "",
    }
    kinds = ("missed double", "wrong double", "wrong take", "wrong pass")
    u_err = sum(d["equity_loss"] for d in close)
    cub = {
        "total": len(cube),
        "close": len(close),
        "doubles": sum(1 for d in cube if d["action"] == "double" and d["played"] == "double"),
        "takes": sum(1 for d in cube if d["action"] == "take" and d["played"] == "take"),
        "passes": sum(1 for d in cube if d["action"] == "take" and d["played"] == "pass"),
        "errors": {k: sum(1 for d in close if d.get("error_kind") == k) for k in kinds},
        "error_by_kind": {k: sum(d["equity_loss"] for d in close if d.get("error_kind") == k) for k in kinds},
        "error": u_err,
        "error_mwc": mwc(close),
        "rate": _ratio(u_err, len(close)),
        "rating": rating_of(_ratio(u_err, len(close))) if close else "",
    }
    n = len(unforced) + len(close)
    rate = _ratio(c_err + u_err, n)
    overall = {
        "error": c_err + u_err,
        "error_mwc": (checker["error_mwc"] or 0.0) + (cub["error_mwc"] or 0.0) if match else None,
        "rate": rate,
        "pr": rate / 2.0,
        "rating": rating_of(rate) if n else "",
    }
    return {"checker": checker, "luck": luck, "cube": cub, "overall": overall}


def game_results(data: dict, game: dict) -> list:
    """Each player's actual and luck-adjusted result of one game (``game``: an entry of ``data["games"]``),
    as GNU Backgammon's per-game statistics give them: money play, the points won (negative when lost);
    match play, the change of the player's match winning chance over the game (the match equity table's
    chance at the score before it against after it). The luck-adjusted result is the result less the
    player's luck net of the opponent's (``luck_native`` of the game's rolls). ``None`` for a game
    without a result. Returns ``[(result, luck_adjusted) or None, ...]`` for players 0 and 1."""
    res = game.get("result")
    if not res or res.get("winner") is None:
        return [None, None]
    w, pts = res["winner"], res["points"]
    length = data.get("length") or 0
    ds = [d for d in data["decisions"] if d["game"] == game["game"]]
    luck = [
        sum(d.get("luck_native") or 0.0 for d in ds if d["player"] == k and d.get("luck") is not None) for k in (0, 1)
    ]
    out = []
    for k in (0, 1):
        if not length:
            r = float(pts if w == k else -pts)
        else:
            met = get_met(data["game"])
            score = game["score"]
            me, opp = length - score[k], length - score[1 - k]
            post = (me == 1 or opp == 1) and not game.get("crawford")
            before = met.mwc(me, opp, post_crawford=post)
            a, b = (pts, 0) if w == k else (0, pts)
            after = met.mwc_after(max(me - a, 0), max(opp - b, 0), me, opp)
            r = after - before
        out.append((r, r - (luck[k] - luck[1 - k])))
    return out

"""The statistics of the analysis report (:mod:`nardy.analysis.report`), per game and for the match, as GNU
Backgammon's "Game statistics" table groups them (checker play, luck, cube, overall), computed from the
decision dicts of an analysis (:meth:`nardy.analysis.results.MatchAnalysis.to_dict`).

Units as the analysis': errors and luck in normalised equity (EMG) and, in match play, match winning chance
(MWC, a fraction); rates in millipoints (mp) per decision or per roll. The words of ratings are gnubg's:
:func:`nardy.analysis.results.rating_of` for errors and :func:`luck_rating_of` for luck. gnubg's further
figures: the cube errors split below / above the cash, double and too-good points (:func:`cube_error_split`),
the MWC per decision (``rate_mwc``), the Snowie error rate (the error over both players' moves), the FIBS
ratings of match play (:func:`relative_fibs_rating`, :func:`absolute_fibs_rating`, with gnubg's formulas) and
the record's match information (:func:`match_info`).
"""

from __future__ import annotations

from ..flow.met import get_met
from .results import rating_of

__all__ = [
    "LUCK_RATINGS",
    "CUBE_ERROR_SPLIT",
    "RATING_OFFSET",
    "luck_rating_of",
    "cube_error_split",
    "relative_fibs_rating",
    "fibs_rating_loss_checker",
    "fibs_rating_loss_cube",
    "absolute_fibs_rating",
    "player_stats",
    "game_results",
    "match_info",
    "INFO_HEADERS",
]

#: gnubg's split of the cube errors (its statistics' rows "Missed doubles below CP", "Missed doubles above
#: CP", "Wrong doubles below DP", "Wrong doubles above TG", "Wrong takes", "Wrong passes"), in that order.
CUBE_ERROR_SPLIT = (
    "missed double below cp",
    "missed double above cp",
    "wrong double below dp",
    "wrong double above tg",
    "wrong take",
    "wrong pass",
)

#: gnubg's rating offset R0 of the error-based absolute FIBS rating (gnubg's ``rRatingOffset``, 2050 by default).
RATING_OFFSET = 2050.0

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


def cube_error_split(d: dict) -> str:
    """Which of gnubg's cube error rows (:data:`CUBE_ERROR_SPLIT`) a cube decision dict ``d`` counts in, or
    ``""`` for none. As gnubg's analysis (analysis.c ``updateStatcontext``) splits them, from the doubler's
    cubeful equities ND / DT / DP (normalised: double/pass is +1): a missed double is *above the cash point*
    when DT > DP (the opponent should have passed), else *below*; a wrong double is *above the too-good
    point* when ND > DP (playing on beats the cash), else *below the double point*; wrong takes and passes
    as they are."""
    kind = d.get("error_kind") or ""
    if kind in ("wrong take", "wrong pass"):
        return kind
    if kind not in ("missed double", "wrong double"):
        return ""
    eqs = (d.get("cube_analysis") or {}).get("equities") or d.get("candidates") or {}
    if not isinstance(eqs, dict) or not all(k in eqs for k in ("no double", "double/take", "double/pass")):
        return kind + (" below cp" if kind == "missed double" else " below dp")
    if kind == "missed double":
        return "missed double " + ("above cp" if eqs["double/take"] > eqs["double/pass"] else "below cp")
    return "wrong double " + ("above tg" if eqs["no double"] > eqs["double/pass"] else "below dp")


def relative_fibs_rating(r: float, n: int) -> float | None:
    """gnubg's "Luck based FIBS rating diff." (analysis.c ``relativeFibsRating``): the FIBS rating difference
    that makes ``r`` the chance of winning an ``n``-point match, ``-2000 / sqrt(n) * log10(1 / r - 1)``
    (FIBS's formula: the favourite wins with ``1 / (1 + 10 ** (-D * sqrt(n) / 2000))``), at least -2100.
    ``r`` is player 0's luck-adjusted result of the match (0.5 + actual result - own luck + the opponent's
    luck, in MWC); ``None`` where ``r`` is not inside (0, 1) or ``n`` < 1 (gnubg prints "n/a")."""
    if n < 1 or not 0.0 < r < 1.0:
        return None
    import math

    return max(-2000.0 / math.sqrt(n) * math.log10(1.0 / r - 1.0), -2100.0)


def fibs_rating_loss_checker(rate: float, n: int) -> float:
    """gnubg's "Chequerplay errors rating loss" (analysis.c ``absoluteFibsRatingChequer``, after Kees van den
    Doel's fit): ``a2(N) * EPM`` with ``a2(N) = 8798 + 25526 / N``, EPM the normalised error per unforced
    move (EMG, not mEMG) and N the match length."""
    return rate * (8798.0 + 25526.0 / n)


def fibs_rating_loss_cube(rate: float, n: int) -> float:
    """gnubg's "Cube errors rating loss" (analysis.c ``absoluteFibsRatingCube``): ``b(N) * EPC`` with
    ``b(N) = 863 - 519 / N``, EPC the normalised error per close cube decision."""
    return rate * (863.0 - 519.0 / n)


def absolute_fibs_rating(checker_rate: float, cube_rate: float, n: int, offset: float = RATING_OFFSET) -> float:
    """gnubg's "Error based abs. FIBS rating" (analysis.c ``absoluteFibsRating``; gnubg's manual, "FIBS
    rating"): ``R0 - (a2(N) * EPM + b(N) * EPC)`` (:func:`fibs_rating_loss_checker`,
    :func:`fibs_rating_loss_cube`), R0 = :data:`RATING_OFFSET`."""
    return offset - (fibs_rating_loss_checker(checker_rate, n) + fibs_rating_loss_cube(cube_rate, n))


def _ratio(total: float, n: int) -> float:
    return 1000.0 * total / n if n else 0.0


def _rate_mwc(total: float | None, n: int) -> float | None:
    return None if total is None else (total / n if n else 0.0)


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
        "rate_mwc": _rate_mwc(mwc(unforced), len(unforced)),
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
        "rate_mwc": _rate_mwc(sum(d.get("luck_native") or 0.0 for d in rolls) if match else None, len(rolls)),
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
        "split": {k: sum(1 for d in close if cube_error_split(d) == k) for k in CUBE_ERROR_SPLIT},
        "split_error": {k: sum(d["equity_loss"] for d in close if cube_error_split(d) == k) for k in CUBE_ERROR_SPLIT},
        "split_mwc": {k: mwc([d for d in close if cube_error_split(d) == k]) for k in CUBE_ERROR_SPLIT},
        "error_by_kind": {k: sum(d["equity_loss"] for d in close if d.get("error_kind") == k) for k in kinds},
        "error": u_err,
        "error_mwc": mwc(close),
        "rate": _ratio(u_err, len(close)),
        "rate_mwc": _rate_mwc(mwc(close), len(close)),
        "rating": rating_of(_ratio(u_err, len(close))) if close else "",
    }
    n = len(unforced) + len(close)
    rate = _ratio(c_err + u_err, n)
    o_mwc = (checker["error_mwc"] or 0.0) + (cub["error_mwc"] or 0.0) if match else None
    every = sum(1 for d in decisions if d["kind"] == "checker")  # both players' moves, forced ones too
    overall = {
        "error": c_err + u_err,
        "error_mwc": o_mwc,
        "rate": rate,
        "rate_mwc": _rate_mwc(o_mwc, n),
        "snowie": _ratio(c_err + u_err, every),
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


#: The match information the report shows, as GNU Backgammon's "Match information" (its export's header:
#: players, event, round, date, place, annotator, comments), each from the first ``.mat`` header present of
#: its names (case, spaces, ``-`` and ``_`` ignored).
INFO_HEADERS = (
    ("players", ("Player 1", "Player 2")),
    ("event", ("Event",)),
    ("round", ("Round",)),
    ("date", ("EventDate", "Date")),
    ("time", ("EventTime", "Time")),
    ("place", ("Site", "Place")),
    ("annotator", ("Annotator",)),
    ("transcriber", ("Transcriber",)),
    ("comment", ("Comment", "Comments", "Kibitz")),
)
MAX_INFO = 500  # characters kept of one header's value


def match_info(headers: dict) -> dict:
    """The match information of a record's ``; [Key "value"]`` headers (:data:`INFO_HEADERS`): ``{"players":
    "A - B", "event", "round", "date", "time", "place", "annotator", "transcriber", "comment"}``, only those
    the record has, each without control characters and cut to :data:`MAX_INFO` characters. ``date`` and
    ``time`` joined as "2024.08.10 03.00"."""

    def norm(k: str) -> str:
        return "".join(c for c in str(k).lower() if c not in " -_")

    by = {norm(k): str(v) for k, v in (headers or {}).items()}

    def clean(v: str) -> str:
        return "".join(c for c in v if c.isprintable()).strip()[:MAX_INFO]

    out: dict[str, str] = {}
    for key, names in INFO_HEADERS:
        if key == "players":
            ps = [clean(by[norm(n)]) for n in names if by.get(norm(n))]
            if len(ps) == 2:
                out[key] = f"{ps[0]} - {ps[1]}"
            continue
        v = next((clean(by[norm(n)]) for n in names if by.get(norm(n)) and clean(by[norm(n)])), "")
        if v:
            out[key] = v
    if "time" in out:
        t = out.pop("time")
        out["date"] = f"{out['date']} {t}" if "date" in out else t
    return out

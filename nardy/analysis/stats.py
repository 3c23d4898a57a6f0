"""A player's statistics over many analyses: error rate, PR and luck per game type and month, and the kinds of
decision they err in most (issue 45; docs/analysis.md, "Statistics over many games").

* :func:`classify` gives each decision of an analysis (:meth:`nardy.analysis.MatchAnalysis.to_dict`) its kind
  (:data:`KINDS`): cube decisions are ``double`` (whether to double) or ``take`` (take or pass: the take
  points); a checker play is ``opening`` (the first two plays of each side in a game), ``bear-off`` (the mover
  has every checker in the home board, points 1-6 of their own numbering, or off), ``race`` (no contact left:
  :func:`nardy.engine._kernels.is_race`), in long nardy ``head`` (the play made or the best play takes a checker
  from the head, point 24) or ``blocking`` (the play made or the best play holds four or more points in a row,
  a block), else ``contact``. Short nardy is classified as backgammon. The first kind that fits, in that order.
* :func:`digest` makes of one analysis a small summary per side (decisions, equity lost, luck, per kind the
  decisions, errors and loss): what the server stores beside an analysis (:mod:`nardy.web.store.analyses`).
* :func:`summarise` adds digests up per player, game type and month (and over all months), and ranks the kinds
  of error.

Units: losses and luck in normalised equity (EMG, as the analysis: docs/analysis.md); ``error_rate`` millipoints
per counted decision (mEMG), ``pr`` half of it (XG's scale), ``luck_per_game`` normalised equity per game
played. An error is a counted decision marked doubtful or worse (loss of 0.03 or more: :data:`THRESHOLDS
<nardy.analysis.results.THRESHOLDS>`).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..rules.errors import NardyError
from ..rules.position import Position

__all__ = ["KINDS", "DIGEST_VERSION", "classify", "digest", "summarise", "period_of"]

#: The kinds of decision, in the order they are tried (the first that fits).
KINDS = ("double", "take", "opening", "bear-off", "race", "head", "blocking", "contact")

#: The digest's format (:func:`digest`); a stored digest of another version is made again.
DIGEST_VERSION = 1

#: Checker plays of each side in each game counted as the opening.
OPENING_PLAYS = 2

#: Points in a row that make a block (long nardy).
BLOCK = 4


def _is_race(pos: Position) -> bool:
    from ..engine._kernels import is_race

    return bool(is_race(np.ascontiguousarray(pos.array, np.int8), pos.rules.hitting))


def _bearing_off(pos: Position) -> bool:
    m = pos.mover
    return m[25] == 0 and m[0] + sum(m[1:7]) == 15


def _longest_run(board) -> int:
    """The most points 1..24 in a row the mover holds on ``board`` (28 signed counts)."""
    best = run = 0
    for p in range(1, 25):
        run = run + 1 if board[p] > 0 else 0
        best = max(best, run)
    return best


def _plays(pos: Position, dice, texts) -> list:
    out = []
    for text in texts:
        if not text:
            continue
        try:
            out.append(pos.parse_play(text, tuple(dice)))
        except (NardyError, ValueError):
            continue
    return out


def _checker_kind(d: dict, game: str, nth: int) -> str:
    if nth < OPENING_PLAYS:
        return "opening"
    try:
        pos = Position.from_id(d["position"], game)
    except (NardyError, ValueError, KeyError, TypeError):
        return "contact"
    if _bearing_off(pos):
        return "bear-off"
    if _is_race(pos):
        return "race"
    if game == "long" and d.get("dice"):
        plays = _plays(pos, d["dice"], (d.get("played"), d.get("best")))
        if any(st.frm == 24 for play in plays for st in play.steps):
            return "head"
        if any(_longest_run(play.result.array) >= BLOCK for play in plays):
            return "blocking"
    return "contact"


def classify(analysis: dict) -> list[str]:
    """The kind (one of :data:`KINDS`) of each decision of ``analysis`` (a :meth:`MatchAnalysis.to_dict`), in
    the order of its ``decisions``; see the module docstring for the rules."""
    game = analysis.get("game", "backgammon")
    seen: dict[tuple, int] = {}
    out = []
    for d in analysis.get("decisions", []):
        if d.get("kind") == "cube":
            out.append("take" if d.get("action") == "take" else "double")
            continue
        key = (d.get("game"), d.get("player"))
        nth = seen.get(key, 0)
        seen[key] = nth + 1
        out.append(_checker_kind(d, game, nth))
    return out


def digest(analysis: dict) -> dict:
    """A small summary of ``analysis`` per side: ``{"version", "game", "length", "games", "sides": [two of
    {"name", "decisions", "loss", "luck", "kinds": {kind: [decisions, errors, loss]}}]}``: counted decisions,
    normalised equity lost over them, luck (normalised equity, the rolls' total), per kind of decision
    (:func:`classify`) the counted decisions, the errors (marked doubtful or worse) and the loss. Forced plays
    are not counted (as in the analysis' own summary)."""
    players = analysis.get("players") or [{}, {}]
    sides: list[dict] = [
        {"name": str(players[k].get("name", "")), "decisions": 0, "loss": 0.0, "luck": 0.0, "kinds": {}} for k in (0, 1)
    ]
    for d, kind in zip(analysis.get("decisions", []), classify(analysis), strict=True):
        p = d.get("player")
        if p not in (0, 1):
            continue
        s = sides[p]
        if d.get("luck") is not None:
            s["luck"] += float(d["luck"])
        if not d.get("counted"):
            continue
        loss = float(d.get("equity_loss") or 0.0)
        s["decisions"] += 1
        s["loss"] += loss
        row = s["kinds"].setdefault(kind, [0, 0, 0.0])
        row[0] += 1
        row[1] += 1 if d.get("mark") else 0
        row[2] += loss
    for s in sides:
        s["loss"] = round(s["loss"], 6)
        s["luck"] = round(s["luck"], 6)
        s["kinds"] = {k: [n, e, round(x, 6)] for k, (n, e, x) in s["kinds"].items()}
    return {
        "version": DIGEST_VERSION,
        "game": analysis.get("game", "backgammon"),
        "length": int(analysis.get("length") or 0),
        "games": len(analysis.get("games") or []) or 1,
        "sides": sides,
    }


def period_of(when) -> str:
    """The month of a :class:`datetime.datetime` or ISO 8601 text: ``"YYYY-MM"`` (``""`` when unknown)."""
    if when is None:
        return ""
    text = when.isoformat() if hasattr(when, "isoformat") else str(when)
    return text[:7] if len(text) >= 7 and text[4] == "-" else ""


def _row(acc: dict) -> dict:
    n, loss = acc["decisions"], acc["loss"]
    rate = 1000.0 * loss / n if n else 0.0
    return {
        "matches": acc["matches"],
        "games": acc["games"],
        "decisions": n,
        "loss": round(loss, 6),
        "error_rate": round(rate, 3),
        "pr": round(rate / 2.0, 3),
        "luck": round(acc["luck"], 6),
        "luck_per_game": round(acc["luck"] / acc["games"], 6) if acc["games"] else 0.0,
    }


def summarise(items: Iterable[tuple[str, str, dict, int]], top: int = 10) -> dict:
    """Statistics over many analyses. ``items``: ``(who, period, digest, side)``: the player's name or id, the
    month (:func:`period_of`, ``""`` when unknown), a :func:`digest` and the side (0 or 1) the player played.

    Returns ``{"rows": [...], "kinds": [...]}``: ``rows`` per player, game type and period (``"all"``: every
    period together, listed first for each player and game type, then the months, newest first)
    ``{"who", "game", "period", "matches", "games", "decisions", "loss", "error_rate", "pr", "luck",
    "luck_per_game"}``; ``kinds`` per player and game type the kinds of decision with errors, most errors first
    (then the largest loss), at most ``top`` each: ``{"who", "game", "kind", "decisions", "errors", "loss",
    "error_rate"}`` (``error_rate``: mEMG per decision of that kind)."""
    acc: dict[tuple, dict] = {}
    kinds: dict[tuple, list] = {}
    for who, period, dg, side in items:
        s = dg["sides"][side]
        for per in ("all", period or "?"):
            a = acc.setdefault(
                (who, dg["game"], per), {"matches": 0, "games": 0, "decisions": 0, "loss": 0.0, "luck": 0.0}
            )
            a["matches"] += 1
            a["games"] += int(dg.get("games", 1))
            a["decisions"] += int(s["decisions"])
            a["loss"] += float(s["loss"])
            a["luck"] += float(s["luck"])
        for kind, (n, e, loss) in s["kinds"].items():
            k = kinds.setdefault((who, dg["game"], kind), [0, 0, 0.0])
            k[0] += n
            k[1] += e
            k[2] += loss
    rows = []
    for who, game, per in sorted(acc, key=lambda k: (k[0], k[1], k[2] != "all", _desc(k[2]))):
        rows.append({"who": who, "game": game, "period": per, **_row(acc[(who, game, per)])})
    ranked: dict[tuple, list] = {}
    for (who, game, kind), (n, e, loss) in kinds.items():
        if e:
            ranked.setdefault((who, game), []).append(
                {
                    "who": who,
                    "game": game,
                    "kind": kind,
                    "decisions": n,
                    "errors": e,
                    "loss": round(loss, 6),
                    "error_rate": round(1000.0 * loss / n, 3) if n else 0.0,
                }
            )
    out_kinds = []
    for key in sorted(ranked):
        out_kinds += sorted(ranked[key], key=lambda r: (-r["errors"], -r["loss"], r["kind"]))[:top]
    return {"rows": rows, "kinds": out_kinds}


def _desc(period: str) -> tuple:
    # newest month first: order by the negated characters' codes
    return tuple(-ord(c) for c in period)

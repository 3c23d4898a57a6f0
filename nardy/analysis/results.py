"""The figures of an analysis (:mod:`nardy.analysis.core`): the marks and ratings of decisions (GNU Backgammon's
thresholds and words), one :class:`Decision`, a player's :class:`PlayerSummary` and the :class:`MatchAnalysis`
(``to_dict()``: the JSON of ``nardy analyse``). Units and formulas: the docstring of :mod:`nardy.analysis.core`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "THRESHOLDS",
    "LUCK_THRESHOLDS",
    "RATINGS",
    "Decision",
    "PlayerSummary",
    "MatchAnalysis",
    "mark_of",
    "luck_mark_of",
    "rating_of",
    "PROPER_ACTIONS",
    "proper_cube_action",
    "gnubg_numbers",
]

#: Marks by normalised equity lost (GNU Backgammon's defaults): (mark, lowest loss), worst first.
THRESHOLDS = (("blunder", 0.12), ("error", 0.06), ("doubtful", 0.03))
#: Luck marks by normalised equity (GNU Backgammon's defaults).
LUCK_THRESHOLDS = (("very lucky", 0.6), ("lucky", 0.3), ("unlucky", -0.3), ("very unlucky", -0.6))
#: gnubg's ratings by error rate (mp per decision): below each bound, that word.
RATINGS = (
    (2.0, "Supernatural"),
    (5.0, "World class"),
    (8.0, "Expert"),
    (12.0, "Advanced"),
    (18.0, "Intermediate"),
    (26.0, "Casual player"),
    (35.0, "Beginner"),
)


def mark_of(loss: float) -> str:
    """The mark of a decision that lost ``loss`` normalised equity: ``"blunder"``, ``"error"``,
    ``"doubtful"`` or ``""`` (:data:`THRESHOLDS`)."""
    for name, lo in THRESHOLDS:
        if loss >= lo - 1e-12:
            return name
    return ""


def luck_mark_of(luck: float) -> str:
    """``"very lucky"``, ``"lucky"``, ``"unlucky"``, ``"very unlucky"`` or ``""`` (:data:`LUCK_THRESHOLDS`)."""
    if luck >= 0.6:
        return "very lucky"
    if luck >= 0.3:
        return "lucky"
    if luck <= -0.6:
        return "very unlucky"
    if luck <= -0.3:
        return "unlucky"
    return ""


def rating_of(error_rate: float) -> str:
    """GNU Backgammon's words for an error rate in mp per decision (``Supernatural`` below 2 ... ``Awful!``)."""
    for bound, word in RATINGS:
        if error_rate < bound:
            return word
    return "Awful!"


#: The proper cube actions, as GNU Backgammon words them (eval.c ``GetCubeRecommendation``): the code of
#: :func:`proper_cube_action` and its English words (the report and the page word them from the catalogue,
#: ``rp_proper_<code>``).
PROPER_ACTIONS = {
    "double_take": "Double, take",
    "double_pass": "Double, pass",
    "no_double_take": "No double, take",
    "too_good_take": "Too good to double, take",
    "too_good_pass": "Too good to double, pass",
    "redouble_take": "Redouble, take",
    "redouble_pass": "Redouble, pass",
    "no_redouble_take": "No redouble, take",
    "too_good_re_take": "Too good to redouble, take",
    "too_good_re_pass": "Too good to redouble, pass",
}


def proper_cube_action(equities: dict, redouble: bool = False) -> str:
    """The proper cube action (a key of :data:`PROPER_ACTIONS`) from the doubler's ``{"no double",
    "double/take", "double/pass"}`` (any units, higher better for the doubler), as GNU Backgammon decides
    it (eval.c ``FindBestCubeDecision``): the opponent passes when taking is worse for it (``DT >= DP``);
    then the doubler is *too good* when playing on beats the pass (``ND > DP``) and doubles otherwise;
    when the opponent should take, the doubler doubles when ``DT >= ND``, is too good when ``ND > DP`` and
    does not double otherwise. ``redouble``: the cube is already the doubler's (words with "redouble").
    Beavers and dead cubes are not told apart here: the report adds gnubg's "No double, beaver", "Double,
    beaver" and "Never double, take (dead cube)" (:func:`nardy.analysis.reportcube.proper_code`)."""
    nd, dt, dp = equities["no double"], equities["double/take"], equities["double/pass"]
    if dt >= dp:
        code = "too_good_pass" if nd > dp else "double_pass"
    elif dt >= nd:
        code = "double_take"
    elif nd > dp:
        code = "too_good_take"
    else:
        code = "no_double_take"
    if redouble:
        code = _REDOUBLE[code]
    return code


_REDOUBLE = {
    "double_take": "redouble_take",
    "double_pass": "redouble_pass",
    "no_double_take": "no_redouble_take",
    "too_good_take": "too_good_re_take",
    "too_good_pass": "too_good_re_pass",
}


def gnubg_numbers(decisions: list) -> list[int]:
    """GNU Backgammon's move numbers (its HTML export's "Move number N") of decision dicts in order: per
    game from 1, one number per turn's roll and play (the "no double" before it shares the number of the
    play that follows), one for a double and one for its answer; a resignation and its answer share the number of
    the move before them (gnubg 1.07's export of gnubg-1002.mat, whose game 1 ends in one, numbers 1-55)."""
    out: list[int] = []
    game = None
    n = 0
    pending = False  # a "no double" waits for its play's number
    for d in decisions:
        if d["game"] != game:
            game, n, pending = d["game"], 0, False
        if d["kind"] == "resign" and n:  # shown with the move it follows (gnubg numbers no resignation)
            out.append(n)
            continue
        if d["kind"] == "cube" and d["action"] == "double" and d["played"] == "no double":
            if not pending:
                n += 1
                pending = True
            out.append(n)
            continue
        if not pending:
            n += 1
        pending = False
        out.append(n)
    return out


@dataclass
class Decision:
    """One decision of one player.

    Attributes:
        game: game number (1-based); move: the line of the ``.mat`` record (as GNU Backgammon numbers
            them); player: 0 (White, first name) or 1; kind: ``"checker"`` or ``"cube"``.
        action: ``"play"`` (checker), ``"double"`` (the doubler's decision: doubled or not) or ``"take"``
            (the answer: take or pass).
        position: Position ID before the decision, from the deciding player's view (the doubler's for a
            take); match_id: GNU Backgammon Match ID (backgammon, else ``""``); dice: the roll or ``None``.
        played, best: the play made / the best play (notation, own numbering; ``""`` for a dance), or
            ``"no double"``, ``"double"``, ``"take"``, ``"pass"``.
        equity_loss: normalised equity lost (>= 0, mover's view); mwc_loss: the same in match winning
            chance (match play, else ``None``); mark: :func:`mark_of`; forced: one legal play (not counted);
            counted: counted in the player's statistics.
        luck: the roll's luck (normalised, checker decisions; ``None`` for cube ones); luck_native: in
            points (money, times the cube) or match winning chance; luck_mark: :func:`luck_mark_of`.
        equity_before: the decider's normalised cubeful equity before the roll (the luck's base; for a cube
            decision, with its best cube action); value_before: the same in points or MWC for player 0 (the
            graph); equity_after / value_after: the same after the play made (checker decisions).
        candidates: the best plays ``{"play", "equity", "loss", "ply", "probabilities", "mwc"}``
            (mover's view after the play) or the cube's ``{"no double", "double/take", "double/pass"}``.
        cube: the cube's value and owner at the decision; error_kind: for cube errors ``"missed double"``,
            ``"wrong double"``, ``"wrong take"``, ``"wrong pass"``; ``""`` otherwise.
        xg: eXtreme Gammon's figures of the decision where the record (an ``.xg`` file) holds them
            (:func:`nardy.analysis.xgbeside.attach_xg`), else ``None`` (then absent from :meth:`to_dict`).
        probabilities: the cubeless probabilities of a cube decision (the doubler's view, before the roll).
        cube_analysis: a cube decision's figures as GNU Backgammon's "Cube decision" block gives them (the
            doubler's view): ``ply``; ``cubeless_equity`` (normalised: money, per unit of the cube; match,
            the cubeless MWC as EMG) and ``cubeless_money`` (per unit of the cube, whatever the score);
            ``cubeless_mwc`` (match play); ``equities`` ND/DT/DP normalised (as ``candidates``), ``mwc``
            the same as match winning chances (match play); ``proper``: :func:`proper_cube_action`'s code;
            ``redouble``; ``error``: this decision's loss (normalised, the decider's).
    In the JSON (:meth:`MatchAnalysis.to_dict`) each decision also carries ``number``: GNU Backgammon's move
    number (:func:`gnubg_numbers`).
    """

    game: int
    move: int
    player: int
    kind: str
    action: str
    position: str
    match_id: str
    dice: tuple | None
    played: str
    best: str
    equity_loss: float
    mwc_loss: float | None
    mark: str
    forced: bool
    counted: bool
    luck: float | None = None
    luck_native: float | None = None
    luck_mark: str = ""
    equity_before: float | None = None
    value_before: float | None = None
    equity_after: float | None = None
    value_after: float | None = None
    candidates: Any = field(default_factory=list)
    cube: dict = field(default_factory=dict)
    error_kind: str = ""
    probabilities: dict | None = None
    xg: dict | None = None
    cube_analysis: dict | None = None

    def to_dict(self) -> dict:
        d = {
            "game": self.game,
            "move": self.move,
            "player": self.player,
            "kind": self.kind,
            "action": self.action,
            "position": self.position,
            "match_id": self.match_id,
            "dice": list(self.dice) if self.dice else None,
            "played": self.played,
            "best": self.best,
            "equity_loss": _r(self.equity_loss),
            "mwc_loss": _r(self.mwc_loss),
            "mark": self.mark,
            "forced": self.forced,
            "counted": self.counted,
            "luck": _r(self.luck),
            "luck_native": _r(self.luck_native),
            "luck_mark": self.luck_mark,
            "equity_before": _r(self.equity_before),
            "value_before": _r(self.value_before),
            "equity_after": _r(self.equity_after),
            "value_after": _r(self.value_after),
            "candidates": self.candidates,
            "cube": self.cube,
            "error_kind": self.error_kind,
            "probabilities": self.probabilities,
        }
        if self.xg is not None:
            d["xg"] = self.xg
        if self.cube_analysis is not None:
            d["cube_analysis"] = self.cube_analysis
        return d


def _r(x, nd: int = 6):
    """``x`` rounded to ``nd`` places (``None`` kept); a result that rounds to zero is written ``0.0``, never
    ``-0.0``, so the JSON does not depend on the sign of a last-bit difference between machines."""
    return None if x is None else round(float(x), nd) + 0.0


@dataclass
class PlayerSummary:
    """One player's statistics over the analysed decisions (see the module docstring for the formulas).

    ``error_rate`` mp per counted decision; ``pr`` = error_rate / 2 (XG's scale); ``checker_error_rate`` /
    ``cube_error_rate`` the same per kind; ``errors``: counts by mark over both kinds; ``cube_errors``:
    counts by cube error kind; ``luck``: total luck in points (money) or match winning chance (match);
    ``luck_emg``: total luck in normalised equity; ``luck_rate`` mp per roll; ``result``: points won
    (money) or 1/0 for the match (match play); ``luck_adjusted_result``: result - (own luck - the
    opponent's luck), as GNU Backgammon (it may pass 100% in match play)."""

    name: str
    decisions: int = 0
    checker_decisions: int = 0
    cube_decisions: int = 0
    total_loss: float = 0.0
    checker_loss: float = 0.0
    cube_loss: float = 0.0
    errors: dict = field(default_factory=lambda: {"doubtful": 0, "error": 0, "blunder": 0})
    cube_errors: dict = field(
        default_factory=lambda: {"missed double": 0, "wrong double": 0, "wrong take": 0, "wrong pass": 0}
    )
    luck: float = 0.0
    luck_emg: float = 0.0
    rolls: int = 0
    luck_marks: dict = field(default_factory=lambda: {"very lucky": 0, "lucky": 0, "unlucky": 0, "very unlucky": 0})
    result: float = 0.0
    net_luck: float = 0.0

    @property
    def error_rate(self) -> float:
        return 1000.0 * self.total_loss / self.decisions if self.decisions else 0.0

    @property
    def pr(self) -> float:
        return self.error_rate / 2.0

    def to_dict(self) -> dict:
        cer = 1000.0 * self.checker_loss / self.checker_decisions if self.checker_decisions else 0.0
        uer = 1000.0 * self.cube_loss / self.cube_decisions if self.cube_decisions else 0.0
        return {
            "name": self.name,
            "error_rate": round(self.error_rate, 3),
            "pr": round(self.pr, 3),
            "rating": rating_of(self.error_rate),
            "decisions": self.decisions,
            "checker_decisions": self.checker_decisions,
            "cube_decisions": self.cube_decisions,
            "checker_error_rate": round(cer, 3),
            "cube_error_rate": round(uer, 3),
            "total_loss": round(self.total_loss, 6),
            "errors": dict(self.errors),
            "cube_errors": dict(self.cube_errors),
            "luck": round(self.luck, 6),
            "luck_emg": round(self.luck_emg, 6),
            "luck_rate": round(1000.0 * self.luck_emg / self.rolls, 3) if self.rolls else 0.0,
            "luck_marks": dict(self.luck_marks),
            "result": round(self.result, 6),
            "luck_adjusted_result": round(self.result - self.net_luck, 6),
        }


@dataclass
class MatchAnalysis:
    """The analysis of a match: ``players`` (two :class:`PlayerSummary`), ``decisions`` (every
    :class:`Decision` in order), ``games`` (per game: number, score before, result, the equity swing and
    its explanation), and what made it (``engine``); ``info``: the match information of the record's headers
    (:func:`nardy.analysis.reportstats.match_info`: event, date, place, annotator, comments ...), ``options``:
    the money session's ``jacoby`` and ``beavers``. :meth:`to_dict` is the JSON of ``nardy analyse`` (``info``
    and ``options`` only where not empty)."""

    game: str
    length: int
    players: list
    decisions: list
    games: list
    engine: dict
    seconds: float = 0.0
    source: str = ""
    info: dict = field(default_factory=dict)
    options: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {
            "format": "nardy-analysis",
            "version": 1,
            "source": self.source,
            "game": self.game,
            "length": self.length,
            "match_play": bool(self.length),
            "units": {
                "equity_loss": "normalised equity (EMG: per unit of the cube; match play through the MET)",
                "error_rate": "millipoints of normalised equity per counted decision",
                "pr": "error_rate / 2 (eXtreme Gammon's PR scale)",
                "luck": "points (money) or match winning chance (match play)",
            },
            "thresholds": dict(THRESHOLDS),
            "engine": self.engine,
            "seconds": round(self.seconds, 3),
            "players": [p.to_dict() for p in self.players],
            "games": self.games,
            "decisions": _numbered([d.to_dict() for d in self.decisions]),
            **({"info": dict(self.info)} if self.info else {}),
            **({"options": dict(self.options)} if self.options else {}),
        }


def _numbered(decisions: list) -> list:
    for d, n in zip(decisions, gnubg_numbers(decisions)):
        d["number"] = n
    return decisions

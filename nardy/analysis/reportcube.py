"""GNU Backgammon's remaining words and figures of the report's cube block and position line
(:mod:`nardy.analysis.reporthtml`): the Match ID of a decision, the proper cube action with gnubg's
beaver and dead-cube words, and the percentage gnubg prints after it.

* **Match ID** (:func:`match_id_of`): the 12 characters of GNU Backgammon's Match ID
  (:func:`nardy.rules.ids.match_id_from_state`) of the state a decision was taken in, as gnubg's HTML export
  shows it beside the Position ID: a play, the mover on roll and to act with the dice as rolled; a double
  (or not), the doubler on roll and to act, no dice; a take or pass, the doubler on roll, the taker to act,
  the double offered, the cube still at its value before the double. Backgammon only (the Match ID is
  backgammon's). gnubg 1.07 writes the first move of each game with game state 0 ("no game"); ours says 1
  (playing) there.
* **Percentage** (:func:`window_percent`): gnubg's ``getPercent`` (eval.c), printed as "Proper cube action:
  No double, take (31.2%)": where the position stands in the doubling window, from the doubler's cubeful
  equities ND, DT, DP. For *no double, take* (and *no double, beaver*): ``(ND - DT) / (DP - DT)``, how far
  from the double point (0%) to the point where doubling is right (100%; "how many doubles should be dropped
  before it is correct to double"); for *too good to double, pass* with DT >= ND: ``(ND - DP) / (DT - DP)``,
  how far past the cash point ("how many doubles should be taken before it is correct to double"). No
  percentage where the proper action is to double, too good / take, or a dead cube (gnubg prints none).
  These are the same three cubeful equities the block shows, so the figure is honest from ours.
* **Beaver and dead cube** (:func:`proper_code`): as gnubg's ``FindBestCubeDecision`` (eval.c): in money
  play with beavers allowed, *No double, beaver* where the opponent's take leaves the doubler at DT in
  [-2, 0] (normalised; the taker may beaver) with DP > ND > DT, and *Double, beaver* where doubling is right
  but the take is a beaver (DT in [-2, 0], DT * 2 >= ND; else *No double, beaver*); in match play a cube
  that cannot gain (the Crawford game, or the doubler's score plus the cube's value reaches the match
  length) with the cube centred or the doubler's is *Never double, take (dead cube)* / *Never redouble,
  take (dead cube)*.
"""

from __future__ import annotations

from ..rules.ids import MatchState, match_id_from_state

__all__ = ["match_id_of", "window_percent", "proper_code", "cube_is_dead"]


def match_id_of(d: dict, data: dict) -> str:
    """The GNU Backgammon Match ID of decision ``d`` (a decision dict of ``data``, the analysis' JSON form), or
    ``""`` where there is none (not backgammon; a resignation; figures out of the ID's range)."""
    if data.get("game") != "backgammon" or d.get("kind") not in ("checker", "cube"):
        return ""
    length = int(data.get("length") or 0)
    game = next((g for g in data.get("games", []) if g["game"] == d["game"]), {})
    score = tuple(int(x) for x in (game.get("score") or (0, 0))) if length else (0, 0)
    cube = d.get("cube") or {}
    owner = cube.get("owner")
    take = d["action"] == "take"
    mover = 1 - d["player"] if take else d["player"]
    dice = tuple(int(x) for x in d["dice"]) if d["kind"] == "checker" and d.get("dice") else (0, 0)
    try:
        state = MatchState(
            cube_value=int(cube.get("value") or 1),
            cube_owner=-1 if owner is None else int(owner),
            player_on_roll=mover,
            crawford=bool(game.get("crawford")) and bool(length),
            game_state=1,
            turn=d["player"],
            double_offered=take,
            dice=dice,
            match_length=length,
            score=score,
            no_jacoby=bool(length) or not (data.get("options") or {}).get("jacoby", False),
        )
        return match_id_from_state(state)
    except ValueError:
        return ""


def window_percent(code: str, eqs: dict) -> float | None:
    """gnubg's percentage after the proper cube action ``code`` (:func:`proper_code`), a fraction, from the
    doubler's ``{"no double", "double/take", "double/pass"}`` (module docstring); ``None`` where gnubg
    prints none or the window has no width."""
    nd, dt, dp = eqs["no double"], eqs["double/take"], eqs["double/pass"]
    if code in ("no_double_take", "no_redouble_take", "no_double_beaver", "no_redouble_beaver"):
        return (nd - dt) / (dp - dt) if dp != dt else None
    if code in ("too_good_pass", "too_good_re_pass"):
        if nd > dt or dt == dp:
            return None
        return (nd - dp) / (dt - dp)
    return None


def cube_is_dead(d: dict, data: dict) -> bool:
    """Whether decision ``d``'s cube is dead for its doubler in match play as gnubg's ``GetDPEq`` tells it
    (the Crawford game, or the doubler's score plus the cube's value reaches the match length), the cube
    being centred or the doubler's (else the cube is merely not the doubler's to turn)."""
    length = int(data.get("length") or 0)
    if not length or d.get("kind") != "cube":
        return False
    game = next((g for g in data.get("games", []) if g["game"] == d["game"]), {})
    doubler = 1 - d["player"] if d["action"] == "take" else d["player"]
    cube = d.get("cube") or {}
    owner = cube.get("owner")
    if owner is not None and owner != doubler:
        return False
    score = game.get("score") or (0, 0)
    return bool(game.get("crawford")) or int(score[doubler]) + int(cube.get("value") or 1) >= length


def proper_code(d: dict, data: dict, eqs: dict, code: str) -> str:
    """The proper action's catalogue code (``rp_proper_<code>``) with gnubg's beaver and dead-cube words
    added to ``code`` (:func:`nardy.analysis.results.proper_cube_action`'s, from ``eqs``): see the module
    docstring. Beavers count only where the analysis says the money session allows them
    (``data["options"]["beavers"]``)."""
    redouble = code.startswith(("redouble", "no_redouble", "too_good_re"))
    if cube_is_dead(d, data):
        return "never_redouble_take" if redouble else "never_double_take"
    beavers = not data.get("length") and bool((data.get("options") or {}).get("beavers"))
    if not beavers:
        return code
    nd, dt, dp = eqs["no double"], eqs["double/take"], eqs["double/pass"]
    if not -2.0 <= dt <= 0.0:
        return code
    if dp > nd > dt and code in ("no_double_take", "no_redouble_take"):
        return "no_redouble_beaver" if redouble else "no_double_beaver"
    if code == "double_take":  # gnubg: "not a double if we can beaver" where DT * 2 < ND
        return "no_double_beaver" if dt * 2.0 < nd else "double_beaver"
    return code

"""How games end, judged (:mod:`nardy.analysis.core` calls these): long nardy's last roll and resignations.

* **Long nardy's last roll** (option ``last-roll``): when the player who moved first has borne off its last
  checker, the other side has one more roll, and every play's result is known
  (:func:`nardy.rules.lastroll.last_roll_plays`): a draw when it bears off all the rest, else a loss (oyn or
  mars). The play made is judged against the exact best (its loss and mark as any checker play), and the
  roll's luck is exact: the roll's exact value minus the mean of the 36 rolls' (:func:`~.luck.last_roll_values`).
* **Resignations** (GNU Backgammon judges them too): the resigner gives up the position's value for the
  resignation's (the level's points times the cube, or the match winning chance after losing them). Resigning
  is right when the resignation is worth at least what the position is worth to the resigner, else it is
  *too early*, and the loss is the difference. The opponent's answer is judged the other way round: accepting
  is right when the resignation gives it at least the position's value, declining when it does not. The
  position's value is the analysis level's: the cubeful value on roll (its best cube action) before a roll,
  the best play's value after it, the best answer's value while a double waits, the exact value in the
  last roll. Resignation decisions are marked with the usual thresholds and their losses explain the
  game's swing, but they are not counted in the error rates (a resignation is one decision a game at most,
  and gnubg's error rates count checker and cube decisions only).
"""

from __future__ import annotations

import numpy as np

from ..engine.evaluator import OUTPUT_NAMES
from ..rules.lastroll import LastRollPosition, last_roll_plays, last_roll_position
from .luck import WEIGHTS, last_roll_values, luck_of, roll_index
from .results import Decision, luck_mark_of, mark_of

__all__ = [
    "draw_points",
    "last_roll_decision",
    "last_roll_value",
    "position_value",
    "resign_value",
    "resign_decisions",
]


def draw_points(rules) -> float:
    """The points each side scores for a last-roll draw (option ``last-roll``: ``half`` ½, else 1)."""
    return 0.5 if rules.last_roll == "half" else 1.0


def _as_last_roll(position):
    return position if isinstance(position, LastRollPosition) else last_roll_position(position)


def _other(v: float, ctx) -> float:
    """A native value for one side as the other side's."""
    return 1.0 - v if ctx.length else -v


def _norm(v: float, p: int, ctx) -> float:
    """``p``'s native value as normalised equity (money: per unit of the cube; match: gnubg's mwc2eq)."""
    if not ctx.length:
        return v / ctx.cube_value
    w, lo = ctx.win_lose(p)
    return 2.0 * (v - lo) / (w - lo) - 1.0 if w - lo > 1e-9 else 0.0


def _p0(v: float, p: int, ctx) -> float:
    return float(v) if p == 0 else _other(float(v), ctx)


def _exact_probs(game: str, kind: str, level: int) -> dict:
    """The certain result of a last-roll play as the analysis' probabilities (mover's view): it cannot win; a
    draw or an oyn loss leaves every output 0, a mars loss sets ``lose_mars``."""
    names = OUTPUT_NAMES[game]
    vals = [0.0] * len(names)
    if kind == "lose":
        for i in range(1, level + 1):  # cumulative: a loss at a level is a loss at every level below it
            vals[len(names) // 2 + i] = 1.0
    return dict(zip(names, vals))


def last_roll_decision(position, ctx, player: int, dice, played_text: str, game: int, move: int) -> Decision:
    """The decision of long nardy's last roll: ``player`` (on roll in ``position``, its view, the other side
    having borne off all 15) threw ``dice`` and played ``played_text`` (notation; ``""`` when no play
    followed). Judged exactly (module docstring): loss, mark, candidates, and the exact luck."""
    lr = _as_last_roll(position)
    dp = draw_points(ctx.rules)
    values, ranked = last_roll_values(ctx, lr, player, dp)
    luck_native, before = luck_of(values, dice)
    plays = ranked[roll_index(dice)]
    outcomes = {str(p): o for p, o in last_roll_plays(lr, tuple(dice))}
    played = lr.parse_play(played_text, tuple(dice)) if played_text else None
    best_v = plays[0][1]
    v_played = next((v for p, v in plays if p == played), best_v) if played is not None else best_v
    native_loss = max(0.0, best_v - v_played)
    scale = ctx.scale(player)
    loss = native_loss * scale
    forced = len(plays) <= 1
    counted = not forced and played is not None
    cands = []
    shown = plays[:5]
    if played is not None and all(p != played for p, _ in shown):
        shown = shown + [(played, v_played)]
    for p, v in shown:
        kind, level, _ = outcomes[str(p)]
        c = {
            "play": str(p),
            "equity": round(_norm(v, player, ctx), 6),
            "loss": round((best_v - v) * scale, 6),
            "ply": 0,
            "probabilities": _exact_probs(ctx.rules.name, kind, level),
            "exact": kind if kind == "draw" else ctx.rules.result_names[level],
        }
        if ctx.length:
            c["mwc"] = round(v, 6)
        cands.append(c)
    luck = luck_native * scale
    return Decision(
        game=game,
        move=move,
        player=player,
        kind="checker",
        action="play",
        position=position.id(),
        match_id="",
        dice=tuple(dice),
        played=str(played) if played is not None else "",
        best=str(plays[0][0]),
        equity_loss=loss,
        mwc_loss=native_loss if ctx.length else None,
        mark=mark_of(loss) if counted else "",
        forced=forced,
        counted=counted,
        luck=luck,
        luck_native=luck_native,
        luck_mark=luck_mark_of(luck),
        equity_before=_norm(before, player, ctx),
        value_before=_p0(before, player, ctx),
        equity_after=_norm(v_played, player, ctx),
        value_after=_p0(v_played, player, ctx),
        candidates=cands,
        cube={"value": ctx.cube_value, "owner": ctx.owner},
        error_kind="last roll: exact",
    )


def last_roll_value(ctx, position, player: int) -> float:
    """``player``'s exact value (native units) before its last roll in ``position`` (its view)."""
    values, _ = last_roll_values(ctx, _as_last_roll(position), player, draw_points(ctx.rules))
    return float(np.dot(WEIGHTS, values))


def position_value(analyser, game, ctx, player: int, pending=None) -> float:
    """``player``'s native value (money points times the cube, or match winning chance) of ``game`` (a
    :class:`~nardy.flow.game.Game` replayed by the analysis) as it stands, at the analysis level: on roll,
    the cubeful value with the best cube action; after a roll, the best play's; while a double waits
    (``pending``: the analysis' record of it), the taker's best answer's; in long nardy's last roll, exact."""
    pos = game.position
    t = game.turn
    if game.phase == "double" and pending is not None:
        eqs = pending["eqs"]  # the doubler's view
        v = min(eqs["double/take"], eqs["double/pass"])
        d = pending["doubler"]
        return v if player == d else _other(v, ctx)
    if getattr(game, "in_last_roll", False):
        if game.phase == "move" and game.dice:
            values, _ = last_roll_values(ctx, _as_last_roll(pos), t, draw_points(ctx.rules))
            v = float(values[roll_index(game.dice)])
        else:
            v = last_roll_value(ctx, pos, t)
    elif game.phase == "move" and game.dice:
        v = analyser.checker(pos, tuple(game.dice), ctx, t)["plays"][0][1]
    else:
        v = ctx.value_on_roll(analyser.probabilities(pos), pos, t)
    return v if player == t else _other(v, ctx)


def resign_value(game, ctx, player: int, level: int) -> float:
    """What resigning at ``level`` leaves ``player`` (native units): minus the points it gives
    (:meth:`Game.points_for`: the level's value times the cube, a single under Jacoby's rule), or the match
    winning chance after the opponent scores them."""
    pts = game.points_for(level)
    if not ctx.length:
        return -float(pts)
    me, opp = ctx.aways(player)
    return ctx.met.mwc_after(me, opp - pts, me, opp)


def resign_decisions(analyser, game, ctx, resigner: int, level: int, level_name: str, answer, pending, where):
    """The two decisions of a resignation at ``level`` by ``resigner`` in ``game`` (before it is offered):
    the resigner's (was resigning right?) and, when ``answer`` is ``"accept"`` or ``"decline"``, the
    opponent's (was the answer right?); ``where`` is ``(game number, move number of the resigner, move number
    of the answer)``. Returns a list of :class:`Decision` (kind ``"resign"``, actions ``"resign"`` and
    ``"accept"``)."""
    v = position_value(analyser, game, ctx, resigner, pending)
    rv = resign_value(game, ctx, resigner, level)
    gno, move_r, move_a = where
    pid = game.position.id()
    dice = tuple(game.dice) if game.dice else None

    def decision(move, player, action, played, best, nl, before, after, candidates, error_kind):
        # ``nl``: the loss in native units (points or MWC); ``before``/``after``: values of ``player``
        loss = nl * ctx.scale(player)
        return Decision(
            game=gno,
            move=move,
            player=player,
            kind="resign",
            action=action,
            position=pid,
            match_id="",
            dice=dice,
            played=played,
            best=best,
            equity_loss=loss,
            mwc_loss=nl if ctx.length else None,
            mark=mark_of(loss),
            forced=False,
            counted=False,
            equity_before=_norm(before, player, ctx),
            value_before=_p0(before, player, ctx),
            equity_after=_norm(after, player, ctx),
            value_after=_p0(after, player, ctx),
            candidates={k: round(_norm(x, player, ctx), 6) for k, x in candidates.items()},
            cube={"value": ctx.cube_value, "owner": ctx.owner},
            error_kind=error_kind if loss > 1e-9 else "",
        )

    out = [
        decision(
            move_r,
            resigner,
            "resign",
            f"resign {level_name}",
            "resign" if rv >= v - 1e-9 else "play on",
            max(0.0, v - rv),
            v,
            rv,
            {"resign": rv, "play on": v},
            "resigned too early",
        )
    ]
    if answer in ("accept", "decline"):
        q = 1 - resigner
        vq, rq = _other(v, ctx), _other(rv, ctx)
        nl = max(0.0, vq - rq) if answer == "accept" else max(0.0, rq - vq)
        after = rq if answer == "accept" else vq
        best = "accept" if rq >= vq - 1e-9 else "decline"
        kind = "wrong accept" if answer == "accept" else "wrong decline"
        out.append(decision(move_a, q, "accept", answer, best, nl, vq, after, {"accept": rq, "decline": vq}, kind))
    return out

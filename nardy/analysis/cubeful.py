"""The cube and score around a decision of an analysis (:mod:`nardy.analysis.core`), and the conversions of
cubeless probabilities to cubeful values: the cube decisions are game flow's
(:func:`nardy.flow.cubetheory.cube_decision`), fed with the analysis' own probabilities.
"""

from __future__ import annotations

import numpy as np

from ..engine.evaluator import flip_probs
from ..flow.cubetheory import CubeDecision, CubeState, cube_decision, match_cube_decision, money_cube_decision
from ..flow.game import Game
from ..flow.met import get_met
from ..rules.position import Position


class _Ctx:
    """The cube and score around a decision, and the conversions to cubeful values."""

    def __init__(self, rules, length, score, game: Game, post_crawford: bool):
        self.rules = rules
        self.values = tuple(rules.scoring)
        self.length = length
        self.score = score
        self.cube_value = game.cube_value
        self.owner = game.cube_owner
        self.enabled = game.cube_enabled
        self.crawford = game.crawford
        self.post = post_crawford
        self.jacoby = game.jacoby
        self.limit = game.cube.limit
        self.met = get_met(rules.name) if length else None
        # long nardy's last roll (option last-roll): the starter's last checker off is not yet a win
        self.last_roll_starter = (
            getattr(game, "starter", None)
            if not rules.hitting and getattr(rules, "last_roll", "off") != "off"
            else None
        )

    def aways(self, player):
        return self.length - self.score[player], self.length - self.score[1 - player]

    def can_double(self, player) -> bool:
        if not self.enabled or self.crawford or self.owner not in (None, player):
            return False
        if self.limit is not None and self.cube_value * 2 > self.limit:
            return False
        if self.length:
            me, _ = self.aways(player)
            if me <= self.cube_value:  # a win already takes the match: the cube is dead for this side
                return False
        return True

    def owner_rel(self, player) -> str:
        if self.owner is None:
            return "centre"
        return "me" if self.owner == player else "opponent"

    def win_lose(self, player):
        """MWC of ``player`` after winning / losing the current cube's value (match play)."""
        me, opp = self.aways(player)
        c = self.cube_value
        return self.met.mwc_after(me - c, opp, me, opp), self.met.mwc_after(me, opp - c, me, opp)

    def scale(self, player) -> float:
        """Normalised equity per native unit for ``player``: 2 / (W - L) in match play, 1 / cube in money."""
        if not self.length:
            return 1.0 / self.cube_value
        w, lo = self.win_lose(player)
        return 2.0 / (w - lo) if w - lo > 1e-9 else 0.0

    def decision(self, probs, position, player) -> tuple[dict, CubeDecision]:
        """The cube decision of ``player`` on roll in ``position`` with cubeless ``probs`` (on-roll view):
        :func:`nardy.flow.cubetheory.cube_decision` at this cube and score (a cube not in use, or a Crawford
        game: a dead cube, efficiency 0, centred), and its ND/DT/DP in native units (money: points times the
        cube; match: MWC). Its ``double`` is the right action where ``player`` owns the cube or it is centred
        (:meth:`can_double` says whether the rules let it)."""
        usable = self.enabled and not self.crawford
        state = CubeState(
            position,
            turn=player,
            cube_value=self.cube_value,
            cube_owner=self.owner if self.enabled else None,
            jacoby=self.jacoby and self.enabled,
            score=self.score,
            length=self.length,
        )
        d = cube_decision(lambda _position: probs, state, scoring=self.values, efficiency=None if usable else 0.0)
        eqs = d.equities if self.length else {k: v * self.cube_value for k, v in d.equities.items()}
        return eqs, d

    def cube_eqs(self, probs, position, player) -> dict:
        """ND/DT/DP for ``player`` on roll in ``position`` with cubeless ``probs`` (on-roll view), native
        units (money: points times the cube; match: MWC)."""
        return self.decision(probs, position, player)[0]

    def cubeless(self, probs, player) -> float:
        """``player``'s cubeless value on roll with cubeless ``probs`` (on-roll view) at this cube: money
        play, ``p W - (1 - p) L`` points times the cube (``W``, ``L``: the average win and loss by the
        game's scoring); match play, the match winning chance of playing the game out with the cube dead
        (``p MWC(win) + (1 - p) MWC(loss)``, each weighted by the gammon and backgammon shares): GNU
        Backgammon's "cubeless equity"."""
        if self.length:
            me, opp = self.aways(player)
            owner = self.owner_rel(player)
            return match_cube_decision(probs, self.values, 0.0, owner, me, opp, self.cube_value, self.met)["no double"]
        return self.money_cubeless(probs) * self.cube_value

    def money_cubeless(self, probs) -> float:
        """The cubeless money equity of ``probs`` (on-roll view) per unit of the cube, whatever the score
        (gnubg's "Money:" figure beside the match's cubeless equity)."""
        return money_cube_decision(probs, self.values, 0.0, "centre")["no double"]  # a dead cube: p W - (1 - p) L

    def value_on_roll(self, probs, position, player) -> float:
        """``player``'s cubeful value on roll (native units), taking its best cube action."""
        eqs, d = self.decision(probs, position, player)
        if self.can_double(player) and d.double:
            return min(eqs["double/take"], eqs["double/pass"])
        return eqs["no double"]

    def value_after_play(self, probs_mover, result: Position, player) -> float:
        """The mover's (``player``'s) cubeful value after its play (``probs_mover``: mover's view of the
        result board), the opponent on roll with its best cube action."""
        opp = 1 - player
        if result.mover[0] >= 15 and player == self.last_roll_starter and result.array[27] < 15:
            # long nardy's last roll: the other side's one more roll may draw; its exact value
            from .endings import last_roll_value

            v = last_roll_value(self, result.mirror(), opp)
            return (1.0 - v) if self.length else -v
        if result.mover[0] >= 15 or result.is_game_over():
            return self._terminal(probs_mover, player)
        v = self.value_on_roll(flip_probs(np.asarray(probs_mover), self.rules.name), result.mirror(), opp)
        return (1.0 - v) if self.length else -v

    def _terminal(self, probs_mover, player) -> float:
        a = np.asarray(probs_mover, np.float64)
        L = len(self.values)
        # the level won: the highest cumulative output that is 1
        level = 0
        for i in range(1, L):
            if a[i] > 0.5:
                level = i
        pts = self.values[level] * self.cube_value
        if self.jacoby and self.enabled and not self.length and self.owner is None and self.cube_value == 1:
            pts = self.values[0]
        if self.length:
            me, opp = self.aways(player)
            return self.met.mwc_after(me - pts, opp, me, opp)
        return float(pts)

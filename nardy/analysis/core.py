"""Analysis of a finished match or game: every decision of both players judged by a bot.

For every turn of every game the analysis replays the record through the rules (a fresh
:class:`~nardy.flow.game.Game` per game) and, at each decision, asks the bots (:class:`nardy.flow.bot.Bot`, its
:class:`~nardy.engine.search.Searcher`, :mod:`nardy.flow.cubetheory`, :mod:`nardy.flow.met`) what the
decision was worth:

* **checker plays**: the legal plays are ranked at the level's search depth with the bot's own move
  filters (:meth:`Searcher.rank`); the play made is searched to the same depth when the filters dropped it.
  Each candidate's probabilities (after the play, mover's view) are turned into the mover's *cubeful*
  value with the opponent on roll (:func:`~nardy.flow.cubetheory.cube_decision`): Janowski's money formula
  (:func:`~nardy.flow.cubetheory.money_cube_decision`) or match winning chances through the match equity
  table (:func:`~nardy.flow.cubetheory.match_cube_decision`),
  the opponent taking its best cube action (double when right, as GNU Backgammon's cubeful evaluation).
  Candidates are ranked by that value (so gammons count as the score makes them count); the loss of the
  play made is the best value minus its value.
* **cube decisions**: wherever the player on roll may double, :func:`nardy.flow.cubetheory.cube_decision`
  (what :meth:`Bot.cube_action` uses) fed with the level's probabilities gives no double / double-take /
  double-pass (:mod:`nardy.analysis.cubeful`). The doubler's loss is the optimal value
  (``ND`` or ``min(DT, DP)``) minus the value of what was done (``ND`` for no double, ``min(DT, DP)`` for
  a double); the taker's loss is (from the doubler's view) the value of the answer given minus
  ``min(DT, DP)``.
* **luck** (:mod:`nardy.analysis.luck`): the value of the roll thrown minus the mean of the values of all 36
  rolls, each roll's value being its best play's cubeful value at the *luck depth* (one ply below the level:
  1-ply at grandmaster, the net at advanced and expert; GNU Backgammon uses 0-ply), so the 36 rolls' lucks
  sum to zero exactly (an opening roll, never a double: the 30 others). A dance in a bad position has
  negative luck. Over a game the luck and the errors explain the swing up to ``unexplained``: the
  difference between the level's own figure of each roll (its best play's value minus its value of the
  position) and the luck's.
* **endings** (:mod:`nardy.analysis.endings`): long nardy's last roll judged exactly; resignations judged
  (was resigning right, was accepting or declining right).

Units. Losses and luck are in **normalised equity** (GNU Backgammon's EMG, "equity in money game
units"): money equity per unit of the cube in money play; in match play, match winning chance converted
linearly so that winning the current cube's points is +1 and losing them -1 (gnubg's ``mwc2eq``). One
millipoint (mp) is 0.001 of it. Match play decisions also carry the loss in match winning chance
(``mwc_loss``, a fraction).

Marks (GNU Backgammon's default analysis thresholds, ``show analysis`` in gnubg 1.07): a loss of at
least 0.03 is *doubtful*, 0.06 an *error* (gnubg: "bad"), 0.12 a *blunder* (gnubg: "very bad"). Rolls:
luck >= +0.6 "very lucky", >= +0.3 "lucky", <= -0.3 "unlucky", <= -0.6 "very unlucky".

What counts (as GNU Backgammon): forced plays (a single legal play, a dance) are listed but never
counted; a "no double" is counted only when it was close (no double within 0.16 of doubling, or
doubling correct) or wrong; every double, take and pass counts.

Per player: ``error_rate`` = 1000 x the mean loss per counted decision (mp per decision, gnubg's "error
rate"); ``pr`` = 500 x the same mean, the scale of eXtreme Gammon's Performance Rating (XG's PR is "the
average error per decision times 500" with its own engine and its own rules for which decisions count,
so figures compare in scale, not to the decimal). Ratings words are gnubg's, from the error rate.
"""

from __future__ import annotations

import time

import numpy as np

from ..engine.evaluator import Probabilities, flip_probs
from ..engine.search import Candidate, mirror_boards
from ..flow.bot import Bot
from ..flow.events import (
    AcceptEvent,
    BeaverEvent,
    DeclineEvent,
    DoubleEvent,
    DropEvent,
    OpeningEvent,
    PassEvent,
    PlayEvent,
    ResignEvent,
    RollEvent,
    SetupEvent,
    TakeEvent,
)
from ..flow.game import Game
from ..flow.met import get_met
from ..rules.dice import FixedDice
from ..rules.errors import NardyError
from ..rules.position import Position
from .cubeful import _Ctx
from .endings import last_roll_decision, resign_decisions
from .luck import luck_of, roll_values
from .results import (
    LUCK_THRESHOLDS,
    THRESHOLDS,
    Decision,
    MatchAnalysis,
    PlayerSummary,
    luck_mark_of,
    mark_of,
    proper_cube_action,
    rating_of,
)

__all__ = [
    "THRESHOLDS",
    "LUCK_THRESHOLDS",
    "ANALYSIS_LEVELS",
    "DEFAULT_ANALYSIS_LEVEL",
    "Decision",
    "PlayerSummary",
    "MatchAnalysis",
    "Analyser",
    "analyse_match",
    "mark_of",
    "rating_of",
]

#: A "no double" counts as a decision when doubling is within this much of it (gnubg's close decision).
CLOSE_CUBE = 0.16
#: Analysis levels (bot levels that search without noise), weakest first, and their search depth.
ANALYSIS_LEVELS = {"advanced": 0, "expert": 1, "grandmaster": 2}
#: The default level: the strongest that analyses a 7-point backgammon match in under a minute on the
#: project's 2-core machine (``bench/analysis_speed.py``).
DEFAULT_ANALYSIS_LEVEL = "grandmaster"
#: Candidates kept per checker decision in the output.
TOP_CANDIDATES = 5


class Analyser:
    """Analyses matches at one level (the bots are made once and reused).

    Args:
        game: the game (name or :class:`~nardy.rules.Rules`); level: one of :data:`ANALYSIS_LEVELS`.
        candidates: how many of the best plays each checker decision lists at most (default 5).
        filters: ``"bot"`` (default): the candidates the bot's own move filters keep are searched to the
            full depth (plus the best and the play made); ``"wide"``: the first ``candidates`` plays all are
            (slower, about 1.5x at 2-ply; the same losses in most decisions).
        luck_ply: the depth of the luck (:mod:`nardy.analysis.luck`): the depth each roll's best play is
            valued at, for all 21 rolls a turn. Default: one ply below the level (0, the net, at ``advanced``
            and ``expert``; 1 at ``grandmaster``, whose value of the position before a roll is then that same
            average of the 21 rolls at 1-ply, and whose luck agrees with GNU Backgammon's within 0.08 MWC a
            player on the records checked in ``tests/analysis/test_luck.py``).
    Raises:
        ValueError: an unknown level or a negative ``luck_ply``.
    """

    def __init__(
        self,
        game,
        level: str = DEFAULT_ANALYSIS_LEVEL,
        candidates: int = TOP_CANDIDATES,
        seed: int = 0,
        filters: str = "bot",
        luck_ply: int | None = None,
    ):
        if level not in ANALYSIS_LEVELS:
            raise ValueError(f"unknown analysis level {level!r}: expected one of {', '.join(ANALYSIS_LEVELS)}")
        self.bot = Bot(game, level=level, seed=seed)
        self.rules = self.bot.rules
        self.level = level
        self.ply = ANALYSIS_LEVELS[level]
        self.n = max(1, int(candidates))
        if filters not in ("bot", "wide"):
            raise ValueError(f"filters {filters!r}: expected 'bot' or 'wide'")
        self.filters = filters
        if luck_ply is None:
            luck_ply = max(0, self.ply - 1)
        if int(luck_ply) < 0:
            raise ValueError(f"luck_ply {luck_ply!r}: expected 0 or more")
        self.luck_ply = int(luck_ply)
        self.searcher = self.bot.searcher
        self._current_game = 0
        self._cache: dict = {}

    # ----- building blocks, usable on their own (the tutor, tests) -----------------------------
    def checker(self, position: Position, dice, ctx: _Ctx, player: int, played=None) -> dict:
        """Judge a checker decision: the ranked candidates (cubeful, native units and normalised), the best,
        and (when ``played`` is given, a :class:`~nardy.rules.position.Play` of ``position.legal_plays(dice)``) its
        loss. Returns a dict with ``plays`` (list of (Play, native value, probs, ply), best first), ``best``,
        ``loss`` (normalised), ``native_loss`` and ``forced``."""
        plays = position.legal_plays(dice)
        forced = len(plays) <= 1
        scale = ctx.scale(player)
        if forced:
            p = plays[0]
            results = p.result.array.reshape(1, 28).astype(np.int8)
            c = Candidate(0, np.zeros(0, np.float32), 0.0, 0)
            self._deepen(position, results, c)
            if results[0, 0] >= 15:
                c.probs = self.searcher.result_values(results, np.array([position.first_turn[1]], np.bool_))[0]
            v = ctx.value_after_play(c.probs, p.result, player)
            rows = [(p, v, c.probs, self.ply)]
            return {"plays": rows, "loss": 0.0, "native_loss": 0.0, "forced": True, "scale": scale}
        results = np.stack([p.result.array for p in plays]).astype(np.int8)
        # "wide": as Bot.hints, the first ``n`` plays of the 0-ply (then 1-ply) ranking are all searched to the
        # full depth; "bot": the bot's own move filters (candidates within a window of the best), the best and
        # the play made then searched to the full depth if the filters stopped short of it. Only plays searched
        # to the full depth are compared, so losses compare like with like.
        if self.filters == "wide":
            keep = max(self.n, 1)
            filters = ((max(8, keep), float("inf")), (keep, float("inf")))
        else:
            filters = self.searcher.filters
        cands = self.searcher.rank(position, dice, ply=self.ply, filters=filters, results=results)
        deep = {c.index: c for c in cands if c.ply == self.ply}
        need = [cands[0]]
        if played is not None:
            idx = next(i for i, p in enumerate(plays) if p == played)
            need.append(next(c for c in cands if c.index == idx))
        for c in need:
            if c.index not in deep:
                self._deepen(position, results, c)
                deep[c.index] = c
        rows = []
        for c in cands:
            if c.index in deep:
                p = plays[c.index]
                rows.append((p, ctx.value_after_play(c.probs, p.result, player), np.asarray(c.probs), c.ply))
        rows.sort(key=lambda r: -r[1])
        out = {"plays": rows, "forced": False, "scale": scale, "loss": 0.0, "native_loss": 0.0}
        if played is not None:
            vp = next(r[1] for r in rows if r[0] == played)
            nl = max(0.0, rows[0][1] - vp)
            out["native_loss"] = nl
            out["loss"] = nl * scale
        return out

    def _deepen(self, position, results, cand):
        res = results[cand.index]
        if res[0] >= 15:
            cand.ply = self.ply
            return
        child = mirror_boards(res.reshape(1, 28), self.rules.hitting)
        cf = np.zeros((1, 2), np.bool_)
        cf[0, 0] = position.first_turn[1]
        vals = flip_probs(self.searcher.evaluate_positions(child, cf, self.ply), self.rules.name)
        cand.probs = vals[0]
        cand.equity = float(self.searcher.equity(vals)[0])
        cand.ply = self.ply

    def probabilities(self, position: Position):
        """Cubeless probabilities of ``position`` (side on roll, before the roll) at the level's depth (the
        average over the 36 rolls of the best reply's figures one ply shallower; the net itself at 0-ply),
        cached per position: the cube decisions and the luck of the turn share them."""
        key = (position.id(), position.first_turn)
        hit = self._cache.get(key)
        if hit is None:
            hit = self.bot.evaluate(position, ply=self.ply)
            if len(self._cache) > 4096:
                self._cache.clear()
            self._cache[key] = hit
        return hit

    def roll_values(self, position: Position, ctx: _Ctx, player: int):
        """The value (native units, ``player``'s view) of each of the 21 rolls for ``player`` on roll in
        ``position``: its best play's cubeful value at the luck depth (:func:`nardy.analysis.luck.roll_values`,
        float64[21] in the order of :data:`nardy.analysis.luck.ROLLS`). Their weighted mean is the value
        before the roll the luck is measured from, so the 36 rolls' lucks sum to zero."""
        return roll_values(self.searcher, ctx, position, player, self.luck_ply)

    def cube(self, position: Position, ctx: _Ctx, player: int) -> dict:
        """Cube equities (native units, ``player`` on roll) at the level's depth, with ``double`` and ``take``
        (the right actions) and the probabilities used."""
        probs = self.probabilities(position)
        eqs, d = ctx.decision(probs, position, player)
        return {"equities": eqs, "double": d.double, "take": d.take, "probabilities": probs}

    # ----- a whole match ------------------------------------------------------------------------
    def analyse(self, match, progress=None, source: str = "") -> MatchAnalysis:
        """Analyse every game of a :class:`~nardy.flow.match.Match` (replayed or played; the last game may be
        unfinished). ``progress(done, total)`` is called after each decision (``total`` = the turns).

        Raises:
            AnalysisError: the match is of another game or its history cannot be replayed.
        """
        t0 = time.perf_counter()
        if match.rules.name != self.rules.name:
            raise AnalysisError(f"this analyser is for {self.rules.name}, the match is {match.rules.name}")
        players = [PlayerSummary(str(match.players[0])), PlayerSummary(str(match.players[1]))]
        decisions: list[Decision] = []
        games = []
        total = sum(sum(1 for e in g.history if isinstance(e, (PlayEvent, PassEvent))) for g in match.games)
        done = [0]
        for i, g in enumerate(match.games):
            score = match.score_before(i)
            post = bool(match.length) and any(h.crawford for h in match.games[:i]) and not g.crawford
            gd = self._game(match, i, g, score, post, players, done, total, progress)
            decisions += gd["decisions"]
            games.append(gd["summary"])
        # results; the luck-adjusted result takes each side's luck net of the other's
        if match.length:
            w = match.winner
            if w is not None:
                players[w].result = 1.0
        else:
            s = match.score
            players[0].result = float(s[0] - s[1])
            players[1].result = float(s[1] - s[0])
        for k in (0, 1):
            players[k].net_luck = players[k].luck - players[1 - k].luck
        engine = {
            "program": "nardy",
            "net": _net_name(self.rules.name),
            "level": self.level,
            "ply": self.ply,
            "filters": [list(f) for f in self.searcher.filters],
            "cube": "Janowski cubeful money equity; match play through "
            + (get_met(self.rules.name).name + " match equity table" if match.length else "no table (money)"),
            "luck": f"cubeful, at {self.luck_ply}-ply: the best play for the roll thrown against the mean of the "
            "36 rolls' best plays (the same depth, net and cube: the 36 lucks sum to zero)",
            "luck_ply": self.luck_ply,
            "thresholds": "gnubg defaults: doubtful 0.03, error 0.06, blunder 0.12 (normalised equity)",
        }
        return MatchAnalysis(
            self.rules.name,
            match.length,
            players,
            decisions,
            games,
            engine,
            time.perf_counter() - t0,
            source,
        )

    def _game(self, match, index, g, score, post, players, done, total, progress):
        rules = match.rules
        self._current_game = index + 1
        ng = Game(
            rules,
            dice=FixedDice(),
            cube=g.cube_enabled,
            crawford=g.crawford,
            jacoby=g.jacoby,
            beavers=g.cube.beavers,
            cube_limit=g.cube.limit,
            players=match.players,
        )
        out: list[Decision] = []
        cell = [0]
        first_value = None

        def move_no(player):
            if cell[0] % 2 != player:
                cell[0] += 1
            n = cell[0] // 2 + 1
            return n

        def advance():
            cell[0] += 1

        def step_done():
            """One play or pass of the history judged (or listed): tell ``progress(done, total)``."""
            done[0] += 1
            if progress:
                progress(done[0], total)

        hist = list(g.history)
        pending_double = None  # (decision info) while a double waits
        for k, ev in enumerate(hist):
            if isinstance(ev, SetupEvent):
                # a game set up at a position (analysis, puzzles): the cube as the game had it then
                try:
                    start = Position.from_id(ev.position, rules)
                except ValueError as e:
                    raise AnalysisError(f"game {index + 1}: set-up position {ev.position!r}: {e}") from None
                ng = Game.from_position(
                    start,
                    ev.turn,
                    dice=FixedDice(),
                    cube=g.cube_enabled,
                    crawford=g.crawford,
                    jacoby=g.jacoby,
                    beavers=g.cube.beavers,
                    cube_limit=g.cube.limit,
                    players=match.players,
                    cube_value=ev.value,
                    cube_owner=ev.owner,
                )
                cell[0] = ev.turn
                continue
            if isinstance(ev, OpeningEvent):
                ng.start(starter=ev.starter, dice=ev.dice if ev.dice else None)
                cell[0] = ev.starter
                if ev.dice:  # the starter plays the opening dice
                    ctx = _Ctx(rules, match.length, score, ng, post)
                    first_value = self._turn(
                        ng.position,
                        ctx,
                        ev.starter,
                        tuple(ev.dice),
                        hist,
                        k,
                        out,
                        players,
                        move_no,
                        opening=True,
                        first_value=first_value,
                    )
                    step_done()
                continue
            if isinstance(ev, RollEvent) and getattr(ng, "in_last_roll", False):
                # long nardy's last roll (option last-roll): every play's result is known, judged exactly
                p = ev.player
                before = ng.position
                ctx = _Ctx(rules, match.length, score, ng, post)
                ng.roll(ev.dice)
                nxt = next((e for e in hist[k + 1 :] if isinstance(e, (PlayEvent, PassEvent))), None)
                text = nxt.play if isinstance(nxt, PlayEvent) else ""
                d = last_roll_decision(before, ctx, p, tuple(ev.dice), text, self._current_game, move_no(p))
                out.append(d)
                self._count(players[p], d)
                step_done()
                continue
            if isinstance(ev, RollEvent):
                p = ev.player
                ctx = _Ctx(rules, match.length, score, ng, post)
                if first_value is None:
                    opt = self.cube(ng.position, ctx, p)
                    e = opt["equities"]
                    best_v = min(e["double/take"], e["double/pass"]) if _may_double(ng, p) and opt["double"] else None
                    first_value = _to_p0(e["no double"] if best_v is None else best_v, p, ctx)
                if _may_double(ng, p) and ctx.can_double(p) and pending_double is None:
                    # the player could have doubled and rolled instead: a "no double" decision
                    self._cube_decision(ng, ctx, p, False, None, out, players, move_no)
                before = ng.position
                ng.roll(ev.dice)
                first_value = self._turn(
                    before,
                    ctx,
                    p,
                    tuple(ev.dice),
                    hist,
                    k,
                    out,
                    players,
                    move_no,
                    opening=False,
                    first_value=first_value,
                )
                step_done()
                continue
            if isinstance(ev, PlayEvent):
                ng.play(ev.play, player=ev.player)
                advance()
                continue
            if isinstance(ev, PassEvent):  # Game.roll passed the turn already
                advance()
                continue
            if isinstance(ev, DoubleEvent):
                p = ev.player
                ctx = _Ctx(rules, match.length, score, ng, post)
                pending_double = self._cube_decision(ng, ctx, p, True, None, out, players, move_no)
                if first_value is None:
                    first_value = pending_double["decision"].value_before
                ng.double(player=p)
                advance()
                continue
            if isinstance(ev, (TakeEvent, DropEvent, BeaverEvent)):
                p = ev.player
                info = pending_double
                pending_double = None
                took = not isinstance(ev, DropEvent)
                if info is not None:
                    self._take_decision(info, p, took, out, players, move_no)
                if isinstance(ev, TakeEvent):
                    ng.take(player=p)
                elif isinstance(ev, BeaverEvent):
                    ng.beaver(player=p)
                else:
                    ng.drop(player=p)
                advance()
                continue
            if isinstance(ev, ResignEvent):
                # judged before it is offered: was resigning right, and was the answer (the next event) right?
                ctx = _Ctx(rules, match.length, score, ng, post)
                ans = next((e for e in hist[k + 1 : k + 2] if isinstance(e, (AcceptEvent, DeclineEvent))), None)
                answer = "accept" if isinstance(ans, AcceptEvent) else "decline" if ans is not None else ""
                mr = move_no(ev.player)
                where = (self._current_game, mr, (cell[0] + 1) // 2 + 1)  # the answer's move, not advancing it
                out += resign_decisions(
                    self, ng, ctx, ev.player, ev.level, ev.level_name, answer, pending_double, where
                )
                ng.resign(ev.level, player=ev.player)
            elif isinstance(ev, AcceptEvent):
                ng.accept_resignation(player=ev.player)
            elif isinstance(ev, DeclineEvent):
                ng.decline_resignation(player=ev.player)
        # the game's swing and what explains it
        res = g.result
        summ: dict = {
            "game": index + 1,
            "score": list(score),
            "crawford": g.crawford,
            "result": res.to_dict() if res else None,
        }
        if first_value is not None and res is not None:
            final = self._final_value(match, score, res, post)
            luck0 = sum(d.luck_native or 0.0 for d in out if d.player == 0 and d.kind == "checker") - sum(
                d.luck_native or 0.0 for d in out if d.player == 1 and d.kind == "checker"
            )
            err0 = sum(_native_loss(d) for d in out if d.player == 0) - sum(
                _native_loss(d) for d in out if d.player == 1
            )
            summ.update(
                {
                    "value_start": round(first_value, 6),
                    "value_end": round(final, 6),
                    "swing": round(final - first_value, 6),
                    "luck": round(luck0, 6),
                    "error": round(err0, 6),
                    "unexplained": round(final - first_value - luck0 + err0, 6),
                }
            )
        return {"decisions": out, "summary": summ}

    def _final_value(self, match, score, res, post) -> float:
        """Player 0's value at the end of a game (points won, or MWC after it)."""
        a, b = res.score()
        if not match.length:
            return float(a - b)
        met = get_met(self.rules.name)
        me, opp = match.length - score[0], match.length - score[1]
        return met.mwc_after(me - a, opp - b, me, opp)

    def _turn(self, pos, ctx, p, dice, hist, k, out, players, move_no, opening, first_value):
        """A checker decision of ``p`` in ``pos`` (its view) with ``dice``: the roll's luck and the play made.

        The luck is the roll's value minus the mean of the 36 rolls' values, all at the luck depth
        (:meth:`roll_values`, :func:`nardy.analysis.luck.luck_of`; ``opening``: the 30 rolls that are not
        doubles), so that it sums to zero over the rolls. ``equity_before``/``value_before`` stay the level's
        value of the position with the cube as it now is (no double), the same figure the opponent's last play
        was judged by, so the graph has no jumps; over a game the luck and the errors add up to the swing
        up to what the level's figures and the luck's differ by (the game's ``unexplained``)."""
        eqs = ctx.cube_eqs(self.probabilities(pos), pos, p)
        before = eqs["no double"]
        scale = ctx.scale(p)
        v0 = _to_p0(before, p, ctx)
        if first_value is None:
            first_value = v0
        # the play made
        nxt = next((e for e in hist[k + 1 :] if isinstance(e, (PlayEvent, PassEvent))), None)
        no_play = nxt is None
        played = None
        text = ""
        if isinstance(nxt, PlayEvent):
            played = pos.parse_play(nxt.play, dice)
            text = str(played)
        judged = self.checker(pos, dice, ctx, p, played=played)
        rows = judged["plays"]
        best = rows[0][0]
        luck_native, _ = luck_of(self.roll_values(pos, ctx, p), dice, opening=opening)
        luck = luck_native * scale
        row = next((r for r in rows if r[0] == played), rows[0]) if played is not None else rows[0]
        v_played = row[1]
        # the probabilities of the play made are those of the opponent's next position at the same depth:
        # keep them for its turn (its cube decision and luck), the same figures without searching again
        after = row[0].result
        if not after.is_game_over() and row[3] == self.ply:
            nxt = after.mirror()
            self._cache[(nxt.id(), nxt.first_turn)] = Probabilities(
                self.rules.name, flip_probs(row[2], self.rules.name)
            )
        forced = judged["forced"]
        loss = judged["loss"]
        # a roll after which no play came (the game ended by a resignation) is listed with its luck, not counted
        counted = not forced and not no_play
        mark = mark_of(loss) if counted else ""
        cands = []
        for pl, v, probs, ply in rows[: self.n]:
            c = {
                "play": str(pl),
                "equity": round(v * scale if not ctx.length else _emg(v, p, ctx), 6),
                "loss": round((rows[0][1] - v) * scale, 6),
                "ply": ply,
                "probabilities": _probs_dict(self.rules.name, probs),
            }
            if ctx.length:
                c["mwc"] = round(v, 6)
            cands.append(c)
        if played is not None and all(str(played) != c["play"] for c in cands):
            r = next(r for r in rows if r[0] == played)
            cands.append(
                {
                    "play": str(played),
                    "equity": round(r[1] * scale if not ctx.length else _emg(r[1], p, ctx), 6),
                    "loss": round(loss, 6),
                    "ply": r[3],
                    "probabilities": _probs_dict(self.rules.name, r[2]),
                    **({"mwc": round(r[1], 6)} if ctx.length else {}),
                }
            )
        d = Decision(
            game=self._current_game,
            move=move_no(p),
            player=p,
            kind="checker",
            action="play",
            position=pos.id(),
            match_id="",
            dice=tuple(dice),
            played=text,
            best=str(best) if not forced else text,
            equity_loss=loss,
            mwc_loss=judged["native_loss"] if ctx.length else None,
            mark=mark,
            forced=forced,
            counted=counted,
            luck=luck,
            luck_native=luck_native,
            luck_mark=luck_mark_of(luck),
            equity_before=before * scale if not ctx.length else _emg(before, p, ctx),
            value_before=v0,
            equity_after=(v_played * scale if not ctx.length else _emg(v_played, p, ctx)),
            value_after=_to_p0(v_played, p, ctx),
            candidates=cands,
            cube={"value": ctx.cube_value, "owner": ctx.owner},
        )
        out.append(d)
        self._count(players[p], d)
        return first_value

    @staticmethod
    def _count(ps: PlayerSummary, d: Decision) -> None:
        """A checker decision's roll (its luck) and, when counted, its loss in the player's statistics."""
        ps.rolls += 1
        ps.luck_emg += d.luck or 0.0
        ps.luck += d.luck_native or 0.0
        if d.luck_mark:
            ps.luck_marks[d.luck_mark] += 1
        if d.counted:
            ps.decisions += 1
            ps.checker_decisions += 1
            ps.total_loss += d.equity_loss
            ps.checker_loss += d.equity_loss
            if d.mark:
                ps.errors[d.mark] += 1

    def _cube_decision(self, ng, ctx, p, doubled, _unused, out, players, move_no):
        pos = ng.position
        cd = self.cube(pos, ctx, p)
        eqs = cd["equities"]
        scale = ctx.scale(p)
        dbl_value = min(eqs["double/take"], eqs["double/pass"])
        optimal = dbl_value if cd["double"] else eqs["no double"]
        chosen = dbl_value if doubled else eqs["no double"]
        native_loss = max(0.0, optimal - chosen)
        loss = native_loss * scale
        close = (eqs["no double"] - dbl_value) < CLOSE_CUBE / scale if scale > 0 else True
        counted = doubled or close or loss > 1e-9
        kind = ""
        if loss > 1e-9:
            kind = "wrong double" if doubled else "missed double"
        mark = mark_of(loss) if counted else ""
        best = "double" if cd["double"] else "no double"
        if cd["double"]:
            best += ", take" if cd["take"] else ", pass"
        d = Decision(
            game=self._current_game,
            move=move_no(p),
            player=p,
            kind="cube",
            action="double",
            position=pos.id(),
            match_id="",
            dice=None,
            played="double" if doubled else "no double",
            best=best,
            equity_loss=loss,
            mwc_loss=native_loss if ctx.length else None,
            mark=mark,
            forced=False,
            counted=counted,
            equity_before=(optimal * scale) if not ctx.length else _emg(optimal, p, ctx),
            value_before=_to_p0(optimal, p, ctx),
            candidates={k: round(v * scale if not ctx.length else _emg(v, p, ctx), 6) for k, v in eqs.items()},
            cube={"value": ctx.cube_value, "owner": ctx.owner},
            error_kind=kind,
            probabilities=_probs_dict(self.rules.name, cd["probabilities"].array),
        )
        if ctx.length:
            d.cube["mwc"] = {k: round(v, 6) for k, v in eqs.items()}
        d.cube_analysis = self._cube_analysis(cd, ctx, p, d.candidates, loss)
        out.append(d)
        ps = players[p]
        if counted:
            ps.decisions += 1
            ps.cube_decisions += 1
            ps.total_loss += loss
            ps.cube_loss += loss
            if mark:
                ps.errors[mark] += 1
            if kind:
                ps.cube_errors[kind] += 1
        return {"decision": d, "eqs": eqs, "scale": scale, "ctx": ctx, "take": cd["take"], "doubler": p}

    def _cube_analysis(self, cd, ctx, p, equities, loss) -> dict:
        """The figures of GNU Backgammon's "Cube decision" block (the doubler ``p``'s view): the cubeless
        equity (normalised, and money per cube) and match winning chance, ND/DT/DP (normalised and MWC), the
        proper action's code (:func:`~nardy.analysis.results.proper_cube_action`) and the decision's error."""
        probs = cd["probabilities"]
        cubeless = ctx.cubeless(probs, p)
        redouble = ctx.owner is not None
        out = {
            "ply": self.ply,
            "cubeless_equity": round(cubeless * ctx.scale(p) if not ctx.length else _emg(cubeless, p, ctx), 6),
            "cubeless_money": round(ctx.money_cubeless(probs), 6),
            "equities": dict(equities),
            "proper": proper_cube_action(cd["equities"], redouble=redouble),
            "redouble": redouble,
            "error": round(loss, 6),
        }
        if ctx.length:
            out["cubeless_mwc"] = round(cubeless, 6)
            out["mwc"] = {k: round(v, 6) for k, v in cd["equities"].items()}
        return out

    def _take_decision(self, info, p, took, out, players, move_no):
        eqs, scale, ctx = info["eqs"], info["scale"], info["ctx"]
        dd = info["decision"]
        best_for_taker = min(eqs["double/take"], eqs["double/pass"])
        chosen = eqs["double/take"] if took else eqs["double/pass"]
        native_loss = max(0.0, chosen - best_for_taker)  # doubler's units: the taker's loss
        tscale = ctx.scale(p)
        loss = native_loss * tscale
        kind = ("wrong take" if took else "wrong pass") if loss > 1e-9 else ""
        mark = mark_of(loss)
        d = Decision(
            game=dd.game,
            move=move_no(p),
            player=p,
            kind="cube",
            action="take",
            position=dd.position,
            match_id="",
            dice=None,
            played="take" if took else "pass",
            best="take" if info["take"] else "pass",
            equity_loss=loss,
            mwc_loss=native_loss if ctx.length else None,
            mark=mark,
            forced=False,
            counted=True,
            equity_before=dd.equity_before,
            value_before=dd.value_before,
            candidates=dd.candidates,
            cube=dict(dd.cube),
            error_kind=kind,
            probabilities=dd.probabilities,
            cube_analysis={**dd.cube_analysis, "error": round(loss, 6)} if dd.cube_analysis else None,
        )
        out.append(d)
        ps = players[p]
        ps.decisions += 1
        ps.cube_decisions += 1
        ps.total_loss += loss
        ps.cube_loss += loss
        if mark:
            ps.errors[mark] += 1
        if kind:
            ps.cube_errors[kind] += 1
        del scale


def _may_double(g: Game, player: int) -> bool:
    """The player on turn may double now (the game's own rule, read as ``why_not_double``)."""
    return g.phase == "roll" and g.why_not_double(player) is None


def _native_loss(d: Decision) -> float:
    """A decision's loss in native units (points, or MWC) for the swing bookkeeping."""
    if d.mwc_loss is not None:
        return d.mwc_loss if d.counted or d.forced or d.kind == "resign" else 0.0
    cube = d.cube.get("value", 1) if isinstance(d.cube, dict) else 1
    return d.equity_loss * cube


def _to_p0(v, p, ctx) -> float:
    """A native value for player ``p`` as player 0's."""
    if p == 0:
        return float(v)
    return float(1.0 - v) if ctx.length else float(-v)


def _emg(mwc, p, ctx) -> float:
    """Player ``p``'s MWC as normalised equity at the current cube (gnubg's mwc2eq)."""
    w, lo = ctx.win_lose(p)
    if w - lo <= 1e-9:
        return 0.0
    return 2.0 * (mwc - lo) / (w - lo) - 1.0


def _probs_dict(game, probs) -> dict:
    from ..engine.evaluator import OUTPUT_NAMES

    return {n: round(float(v), 4) for n, v in zip(OUTPUT_NAMES[game], np.asarray(probs))}


def _net_name(game: str) -> str:
    from ..engine.net import shipped_path

    try:
        import hashlib

        path = shipped_path(game)
        h = hashlib.sha256(open(path, "rb").read()).hexdigest()[:12]
        return f"{path.name} (sha256 {h})"
    except (OSError, ValueError):
        return "shipped net"


class AnalysisError(NardyError):
    """A match that cannot be analysed (another game, a history that cannot be replayed, a file that is
    not a record); worded as a record that cannot be read."""

    default_code = "bad_record"


def analyse_match(
    match, level: str = DEFAULT_ANALYSIS_LEVEL, progress=None, source: str = "", candidates: int = TOP_CANDIDATES
) -> MatchAnalysis:
    """Analyse a :class:`~nardy.flow.match.Match` (from :func:`nardy.records.mat.replay`, a saved game, the
    server) at ``level`` (:data:`ANALYSIS_LEVELS`; default :data:`DEFAULT_ANALYSIS_LEVEL`).

    Returns a :class:`MatchAnalysis` (``.to_dict()`` for JSON). Deterministic: the same record and level
    give the same figures (no randomness is used at these levels).

    Raises:
        ValueError: unknown level; AnalysisError: a history that cannot be replayed.
    """
    an = Analyser(match.rules, level, candidates=candidates)
    return an.analyse(match, progress=progress, source=source)

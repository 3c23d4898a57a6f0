"""The :class:`Engine`: the computer's choice of plays, hints and evaluations of positions, for any of the three
games, at a named level. It knows positions only; the computer player of games (cube actions, whole turns) is
:class:`nardy.flow.bot.Bot` (``nardy.Bot``), an ``Engine`` with the cube.

Levels (weakest first), :data:`BOT_LEVELS`:

=============  =========================================================================
``random``     a uniformly random legal play
``heuristic``  a simple hand-made scoring of the results (no net): a benchmark opponent
``beginner``   0-ply net, normal noise (sd 0.30 equity) on every play's equity
``casual``     0-ply net, noise sd 0.12
``intermediate`` 0-ply net, noise sd 0.04
``advanced``   0-ply net (the evaluator's own choice)
``expert``     1-ply search with gnubg-style candidate filtering
``grandmaster`` 2-ply search with candidate filtering (the default: under 60 ms a backgammon move)
``champion``   3-ply search (the 2-ply's best 2 within 0.04 searched a ply deeper; the strongest);
               (:class:`nardy.flow.bot.Bot`'s cube decisions as grandmaster's, 2-ply)
=============  =========================================================================

``champion`` costs about 8x grandmaster's time (backgammon 0.45 s a move on one core, up to 3 s in
the worst positions); give it a :class:`~nardy.engine.search.Deadline` to bound a move (the server does, through
:meth:`nardy.flow.table.Table.advance`: :data:`nardy.flow.table.BOT_MOVE_BUDGET` seconds a decision). Judged by
bgsage 4-ply on
2,000 positions of gnubg self-play it loses 0.33 mp/move against grandmaster's 0.45 and gnubg 2-ply's 0.42
(docs/bots.md, "A 3-ply level").

Example::

    >>> from nardy import Position
    >>> from nardy.engine import Engine
    >>> bot = Engine("backgammon", level="grandmaster")
    >>> pos = Position.start("backgammon")
    >>> bot.choose_play(pos, (3, 1))         # one of pos.legal_plays((3, 1))
    <Play 8/5 6/5 -> 4HPwATCwZ/ABMA>
    >>> round(bot.evaluate(pos).win, 2)      # P(the side on roll wins)
    0.52
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.position import Position, check_dice
from ..rules.variants import get_rules
from . import _kernels as K
from .evaluator import HybridEvaluator, Probabilities, default_evaluator, terminal_probs
from .net import GAME_CODES, Net
from .search import Searcher

__all__ = ["Engine", "Hint", "BOT_LEVELS", "STRONGEST_LEVEL", "DEFAULT_LEVEL"]

#: level -> (search ply, noise sd); ``None`` ply for the non-net players.
BOT_LEVELS = {
    "random": (None, 0.0),
    "heuristic": (None, 0.0),
    "beginner": (0, 0.30),
    "casual": (0, 0.12),
    "intermediate": (0, 0.04),
    "advanced": (0, 0.0),
    "expert": (1, 0.0),
    "grandmaster": (2, 0.0),
    "champion": (3, 0.0),
}
#: The strongest level (the computer's default in ``nardy play``).
STRONGEST_LEVEL = "champion"
#: The default of :class:`Bot` and of hints and analysis: the strongest level that stays under 60 ms a move.
DEFAULT_LEVEL = "grandmaster"


@dataclass
class Hint:
    """A ranked play: the :class:`~nardy.rules.position.Play`, its probabilities after the play (mover's view),
    its cubeless money equity (mover's view, cube 1), the ply it was evaluated at, and ``loss``: the
    equity given up against the best play (0 for the best)."""

    play: object
    probabilities: Probabilities
    equity: float
    ply: int
    loss: float = 0.0

    def to_dict(self) -> dict:
        return {
            "play": str(self.play),
            "equity": self.equity,
            "loss": self.loss,
            "ply": self.ply,
            "probabilities": self.probabilities.as_dict(),
        }


class Engine:
    """The engine's player of positions: chooses plays, ranks them (hints) and evaluates positions at a level.

    It knows positions only, never a game, a match or the cube: :class:`nardy.flow.bot.Bot` (``nardy.Bot``)
    is an ``Engine`` that also decides cube actions and takes whole turns of a game.

    Args:
        game: ``"backgammon"``, ``"short"``, ``"long"`` (any alias) or a :class:`~nardy.rules.Rules`
            (options such as the scoring values are honoured).
        level: one of :data:`BOT_LEVELS` (default ``"grandmaster"``; ``"champion"`` is stronger and ~8x
            slower).
        seed: seed of the bot's own random generator (noise of the weak levels, ``random`` choices);
            ``None`` for a fresh one. With a seed the bot is deterministic.
        weights: a path to ``.npz`` weights or a :class:`~nardy.engine.net.Net` instead of the shipped ones.
        evaluator: any :class:`~nardy.engine.evaluator.Evaluator` instead (overrides ``weights``).
        bearoff: use the exact bearoff database in races where both sides are home (default True).
    Raises:
        ValueError: unknown level; UnknownGameError: unknown game; FileNotFoundError: no weights.
    """

    def __init__(
        self,
        game="backgammon",
        level: str = DEFAULT_LEVEL,
        seed=None,
        weights=None,
        evaluator=None,
        bearoff: bool = True,
    ):
        self.rules = get_rules(game)
        self.game = self.rules.name
        if level not in BOT_LEVELS:
            raise ValueError(f"unknown bot level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
        self.level = level
        self.ply, self.noise = BOT_LEVELS[level]
        self.rng = np.random.default_rng(seed)
        self._evaluator = evaluator
        self._weights = weights
        self._bearoff = bearoff
        self._searcher = None

    # ----- evaluator ----------------------------------------------------------------------------
    @property
    def evaluator(self):
        """The evaluator (loaded on first use)."""
        if self._evaluator is None:
            if self._weights is None:
                self._evaluator = default_evaluator(self.game, bearoff=self._bearoff)
            else:
                net = self._weights if isinstance(self._weights, Net) else Net.load(self._weights)
                if net.game != self.game:
                    raise ValueError(f"weights are for {net.game}, not {self.game}")
                self._evaluator = HybridEvaluator(net, bearoff=self._bearoff)
        return self._evaluator

    @property
    def searcher(self) -> Searcher:
        if self._searcher is None:
            self._searcher = Searcher(self.evaluator, self.rules)
        return self._searcher

    def _check(self, position: Position):
        if not isinstance(position, Position):
            raise TypeError(f"expected a Position, got {type(position).__name__}")
        if position.game != self.game:
            raise ValueError(f"this bot plays {self.game}, the position is {position.game}")

    # ----- plays --------------------------------------------------------------------------------
    def choose_play(self, position: Position, dice, deadline=None):
        """The bot's play for ``position`` (the bot is the mover) and ``dice``: one of
        ``position.legal_plays(dice)`` (the single empty play when nothing can move).

        ``deadline`` (a :class:`~nardy.engine.search.Deadline`) bounds the search: when it runs out the best
        play found so far is returned (see :meth:`Searcher.rank`); without one the full search runs.

        Raises:
            InvalidDiceError: bad dice; ValueError: another game's position or a finished game.
        """
        self._check(position)
        dice = check_dice(dice)
        plays = position.legal_plays(dice)
        if not plays:
            raise ValueError("the game is over: no play to choose")
        if len(plays) == 1:
            return plays[0]
        if self.level == "random":
            return plays[int(self.rng.integers(len(plays)))]
        if self.level == "heuristic":
            code = GAME_CODES[self.game]
            for p in plays:
                if p.result.array[0] >= 15:
                    return p
            scores = [K.heuristic_score(np.ascontiguousarray(p.result.array), code) for p in plays]
            return plays[int(np.argmax(scores))]
        cands = self.searcher.rank(
            position, dice, ply=self.ply, noise=self.noise, rng=self.rng, results=_results_of(plays), deadline=deadline
        )
        return plays[cands[0].index]

    def hints(self, position: Position, dice, n: int = 5, ply: int | None = None, deadline=None) -> list[Hint]:
        """The ``n`` best plays, best first, with probabilities and equities (mover's view, cubeless money
        equity at cube 1). ``ply`` defaults to the level's search depth (0 for the non-net levels); no
        noise is added. The ``n`` hints are all searched to the full depth (filters widened to keep them).

        ``deadline`` (a :class:`~nardy.engine.search.Deadline`) bounds the search: when it runs out, hints
        not reached keep their shallower figures (their ``ply`` says which) and ``deadline.hit`` is set."""
        self._check(position)
        dice = check_dice(dice)
        plays = position.legal_plays(dice)
        if not plays:
            return []
        depth = self.ply if ply is None else ply
        depth = 0 if depth is None else depth
        # every one of the n hints is searched to the full depth, so the list is ordered and the losses
        # compare like with like (the play-choosing filters would drop some to shallower figures)
        keep = max(n, 1)
        cands = self.searcher.rank(
            position,
            dice,
            ply=depth,
            results=_results_of(plays),
            filters=((max(8, keep), float("inf")), (keep, float("inf"))),
            deadline=deadline,
        )
        best = cands[0].equity
        return [
            Hint(plays[c.index], Probabilities(self.game, c.probs), c.equity, c.ply, best - c.equity) for c in cands[:n]
        ]

    def evaluate(self, position: Position, ply: int | None = None) -> Probabilities:
        """Probabilities for the side on roll of ``position`` (before it rolls), at ``ply`` (default: the
        level's depth capped at 1; the non-net levels use the net at 0-ply). Exact for finished games.

        Named access: ``p.win``, ``p["win_gammon"]``, ``p.as_dict()``; levels in
        :data:`nardy.engine.evaluator.OUTPUT_NAMES`.
        """
        self._check(position)
        term = terminal_probs(position.array, self.game)
        if term is not None:
            return Probabilities(self.game, term)
        depth = min(self.ply or 0, 1) if ply is None else ply
        first = np.array([position.first_turn], np.bool_)
        out = self.searcher.evaluate_positions(position.array.reshape(1, 28), first, depth)[0]
        return Probabilities(self.game, out)


def _results_of(plays) -> np.ndarray:
    """The result boards of plays (int8[n, 28]) without generating them again."""
    return np.frombuffer(b"".join(p._rb for p in plays), np.int8).reshape(len(plays), 28).copy()

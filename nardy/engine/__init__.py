"""The engine: evaluators, nets, bearoff database, search, rollouts, training. It knows positions, never a game,
a match or the cube.

Public API:

* :class:`Engine`: ``Engine(game, level="grandmaster")`` with ``choose_play``, ``hints`` and ``evaluate``;
  levels in :data:`BOT_LEVELS` (``random``, ``heuristic``, ``beginner``, ``casual``, ``intermediate``,
  ``advanced``, ``expert``, ``grandmaster``, ``champion``). The computer player of games (``nardy.Bot``, with
  ``cube_action`` and ``take_turn``) is game flow's :class:`nardy.flow.bot.Bot`, an ``Engine``.
* Evaluators (:mod:`nardy.engine.evaluator`): :class:`Evaluator` protocol, :class:`Probabilities`,
  :class:`NeuralEvaluator`, :class:`BearoffEvaluator`, :class:`HybridEvaluator`.
* :mod:`nardy.engine.search` (n-ply search), :mod:`nardy.engine.tdtrain` (``nardy train``),
  :mod:`nardy.engine.bearoff` (one-sided bearoff database), :mod:`nardy.engine.rollout` (rollouts,
  ``rollout(position, trials=1296)``, and the datasets of rollout training).
"""

from .bot import BOT_LEVELS, DEFAULT_LEVEL, STRONGEST_LEVEL, Engine, Hint
from .evaluator import (
    LEVELS,
    OUTPUT_NAMES,
    BearoffEvaluator,
    Evaluator,
    HybridEvaluator,
    NeuralEvaluator,
    Probabilities,
    default_evaluator,
)

__all__ = [
    "Engine",
    "Hint",
    "BOT_LEVELS",
    "STRONGEST_LEVEL",
    "DEFAULT_LEVEL",
    "Evaluator",
    "Probabilities",
    "NeuralEvaluator",
    "BearoffEvaluator",
    "HybridEvaluator",
    "default_evaluator",
    "LEVELS",
    "OUTPUT_NAMES",
]

"""Bots: evaluators, nets, bearoff database, search, cube decisions, training.

Public API:

* :class:`Bot` (``nardy.Bot``): ``Bot(game, level="grandmaster")`` with ``choose_play``, ``hints``,
  ``evaluate`` and ``cube_action``; levels in :data:`BOT_LEVELS` (``random``, ``heuristic``, ``beginner``,
  ``casual``, ``intermediate``, ``advanced``, ``expert``, ``grandmaster``, ``champion``). :class:`RandomBot`,
  :class:`HeuristicBot`.
* Evaluators (:mod:`nardy.engine.evaluator`): :class:`Evaluator` protocol, :class:`Probabilities`,
  :class:`NeuralEvaluator`, :class:`BearoffEvaluator`, :class:`HybridEvaluator`.
* :mod:`nardy.engine.search` (n-ply search), :mod:`nardy.flow.cubetheory` (cube decisions),
  :mod:`nardy.flow.met` (match equity tables), :mod:`nardy.engine.tdtrain` (``nardy train``),
  :mod:`nardy.engine.bearoff` (one-sided bearoff database), :mod:`nardy.engine.rollout` (rollouts,
  ``rollout(position, trials=1296)``, and the datasets of rollout training).
"""

from ..flow.cubetheory import CubeDecision
from .bot import BOT_LEVELS, DEFAULT_LEVEL, STRONGEST_LEVEL, Bot, HeuristicBot, Hint, RandomBot
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
    "Bot",
    "RandomBot",
    "HeuristicBot",
    "Hint",
    "BOT_LEVELS",
    "STRONGEST_LEVEL",
    "DEFAULT_LEVEL",
    "CubeDecision",
    "Evaluator",
    "Probabilities",
    "NeuralEvaluator",
    "BearoffEvaluator",
    "HybridEvaluator",
    "default_evaluator",
    "LEVELS",
    "OUTPUT_NAMES",
]

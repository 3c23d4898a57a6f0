"""Bots: evaluators, nets, bearoff database, search, cube decisions, training.

Public API:

* :class:`Bot` (``nardy.Bot``): ``Bot(game, level="grandmaster")`` with ``choose_play``, ``hints``,
  ``evaluate`` and ``cube_action``; levels in :data:`BOT_LEVELS` (``random``, ``heuristic``, ``beginner``,
  ``casual``, ``intermediate``, ``advanced``, ``expert``, ``grandmaster``, ``champion``). :class:`RandomBot`,
  :class:`HeuristicBot`.
* Evaluators (:mod:`nardy.bots.evaluator`): :class:`Evaluator` protocol, :class:`Probabilities`,
  :class:`NeuralEvaluator`, :class:`BearoffEvaluator`, :class:`HybridEvaluator`.
* :mod:`nardy.bots.search` (n-ply search), :mod:`nardy.bots.cubeful` (cube decisions),
  :mod:`nardy.bots.met` (match equity tables), :mod:`nardy.bots.train` (``nardy train``),
  :mod:`nardy.bots.bearoff` (one-sided bearoff database), :mod:`nardy.bots.rollout` (rollouts,
  ``rollout(position, trials=1296)``, and the datasets of rollout training).
"""

from .bot import BOT_LEVELS, DEFAULT_LEVEL, STRONGEST_LEVEL, Bot, HeuristicBot, Hint, RandomBot
from .cubeful import CubeDecision
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

"""Compiled kernels of the engine (numba): input encoding, the MLP, outcomes, self-play TD(lambda), matches.

Everything here works on ``int8[28]`` boards in the layout of :mod:`nardy.rules._movegen`, from the view of the
side **on roll** (the mover). Game codes: ``GAME_BG = 0`` (backgammon), ``GAME_SHORT = 1`` (short nardy),
``GAME_LONG = 2`` (long nardy).

Outputs of an evaluator (``K`` floats, all from the mover's view, cumulative like GNU Backgammon's):
``[P(win), P(win at level >= 2), ..., P(win at level L), P(lose at level >= 2), ..., P(lose at level L)]``
where the levels are the game's result levels (docs/rules.md scoring): backgammon single/gammon/backgammon
(K = 5), short nardy oyun/mars/home mars/koks (K = 7), long nardy oyn/mars (K = 3).

The kernels live by what they do, and this module gathers their names (``from . import _kernels as K``, then
``K.encode``...): :mod:`~nardy.engine._outcomes` (game codes, outcome vectors), :mod:`~nardy.engine._features`
(contact, hits, escapes, primes, mobility, bear-off positions), :mod:`~nardy.engine._encode` (the nets' inputs:
the encoding and its versions), :mod:`~nardy.engine._mlp` (the net: forward, batches, a gradient step),
:mod:`~nardy.engine._selfplay` (policies, TD(lambda) self-play, matches). Each kernel module imports the
kernels it calls at module level (numba compiles a callee into its caller). numba caches each compiled kernel
beside its own module (``cache=True``) and renews it when that module's file changes, not when a kernel of
another module it calls does (numba's documented limit): after editing a kernel module, delete the caches
(``nardy/engine/__pycache__/*.nbi``, ``*.nbc``) before measuring or testing.
"""

from __future__ import annotations

from ._encode import (
    N_INPUTS,
    N_INPUTS_V1,
    N_INPUTS_V2,
    N_INPUTS_V3,
    N_INPUTS_V4,
    SIDE_INPUTS,
    _units,
    encode,
    encode_batch,
    unique_boards,
)
from ._features import (
    ESCAPES,
    LONG_PLAN_NAMES,
    N_PLANS,
    PLAN_NAMES,
    _back_escapes,
    _best_hit,
    _block_run,
    _crashed_side,
    _escape_table,
    _escapes_from,
    _home_points,
    _long_mobility,
    _min_escapes,
    _opp_block_run,
    _own_count,
    _prime,
    bearoff_mask,
    board_plan,
    game_plan,
    game_plans,
    hit_chance,
    hit_stats,
    is_crashed,
    is_race,
    long_plan,
    plan_names,
)
from ._mlp import (
    ROW_BLOCK,
    _first_layer,
    _second_layer_rows,
    _sigmoid,
    forward,
    forward_batch,
    hidden2_batch,
    hidden_batch,
    hidden_boards,
    output_batch,
    sgd_step,
)
from ._outcomes import (
    GAME_BG,
    GAME_LONG,
    GAME_SHORT,
    N_LEVELS,
    N_OUTPUTS,
    flip,
    game_params,
    money_equity,
    outcome_vector,
    sanitize,
    win_level,
)
from ._selfplay import (
    MAX_GAME_PLIES,
    POLICY_HEURISTIC,
    POLICY_NET,
    POLICY_RANDOM,
    _choose,
    _first_roll,
    heuristic_score,
    pass_turn,
    play_buffers,
    play_matches,
    td_train,
)

__all__ = [
    "GAME_BG",
    "GAME_LONG",
    "GAME_SHORT",
    "N_LEVELS",
    "N_OUTPUTS",
    "flip",
    "game_params",
    "money_equity",
    "outcome_vector",
    "sanitize",
    "win_level",
    "ESCAPES",
    "_back_escapes",
    "_best_hit",
    "_block_run",
    "_crashed_side",
    "_escape_table",
    "_escapes_from",
    "_home_points",
    "_long_mobility",
    "_min_escapes",
    "_opp_block_run",
    "_own_count",
    "_prime",
    "N_PLANS",
    "PLAN_NAMES",
    "LONG_PLAN_NAMES",
    "plan_names",
    "bearoff_mask",
    "board_plan",
    "game_plan",
    "game_plans",
    "long_plan",
    "hit_chance",
    "hit_stats",
    "is_crashed",
    "is_race",
    "N_INPUTS",
    "N_INPUTS_V1",
    "N_INPUTS_V2",
    "N_INPUTS_V3",
    "N_INPUTS_V4",
    "SIDE_INPUTS",
    "_units",
    "encode",
    "encode_batch",
    "unique_boards",
    "ROW_BLOCK",
    "_first_layer",
    "_second_layer_rows",
    "_sigmoid",
    "forward",
    "forward_batch",
    "hidden2_batch",
    "hidden_batch",
    "hidden_boards",
    "output_batch",
    "sgd_step",
    "MAX_GAME_PLIES",
    "POLICY_HEURISTIC",
    "POLICY_NET",
    "POLICY_RANDOM",
    "_choose",
    "_first_roll",
    "heuristic_score",
    "pass_turn",
    "play_buffers",
    "play_matches",
    "td_train",
]

"""Teachers: a deeper evaluation than the net's own, to label positions for :mod:`nardy.training.fit`.

A teacher labels pre-roll positions (``boards int8[n, 28]``, side on roll as mover; ``firsts bool[n, 2]``)
with that side's cumulative result probabilities (``float32[n, K]``, the outputs of
:mod:`nardy.engine._kernels`: backgammon ``[win, win g+, win bg, lose g+, lose bg]``). ``label`` is a pure
function of its inputs and ``seed`` (the chunk's seed, used by teachers that draw dice), so labels do not
depend on how the positions are split between workers.

* :class:`SearchTeacher`: nardy's own n-ply search (:meth:`nardy.engine.search.Searcher.evaluate_positions`)
  with a net (default the shipped one) and the bearoff database: the label for the nardy games, which have no
  outside engine.
* :class:`RolloutTeacher`: nardy's rollouts (the net at 0-ply on both sides, optional truncation and
  variance reduction, :func:`nardy.engine._rollout.rollout_batch`).
* :class:`BgsageTeacher`: backgammon only, the open engine bgsage (``pip install bgsage``, MPL-2.0; its
  weights may be used by anyone) at its ``1ply`` (raw nets; gnubg's 0-ply) to ``4ply``, cubeless. A
  training-time dependency only: nothing at run time imports it.

:func:`make_teacher` reads a spec such as ``"search:2"``, ``"rollout:144:vr"`` or ``"bgsage:2ply"``.
"""

from __future__ import annotations

import numpy as np

from ..engine import _kernels as K
from ..engine.evaluator import HybridEvaluator
from ..engine.net import GAME_CODES, Net, shipped_path
from ..rules.variants import get_rules

__all__ = [
    "Teacher",
    "SearchTeacher",
    "RolloutTeacher",
    "BgsageTeacher",
    "make_teacher",
    "bgsage_board",
    "bgsage_evaluate",
    "bgsage_bearoff_db",
]


class Teacher:
    """Base of the teachers: ``game``, ``name`` (written into datasets and weights' provenance) and
    :meth:`label`."""

    game: str
    name: str

    def label(self, boards: np.ndarray, firsts: np.ndarray, seed: int = 0) -> np.ndarray:
        """Labels ``float32[n, K]`` (side on roll's view) of ``boards`` with flags ``firsts``."""
        raise NotImplementedError


def _net(game: str, weights) -> Net:
    return Net.load(weights if weights is not None else shipped_path(game))


class SearchTeacher(Teacher):
    """nardy's n-ply search value of each position (``plies`` >= 1: the average over the 21 rolls of the
    position after the best play, found and valued as :class:`nardy.engine.search.Searcher` does)."""

    def __init__(self, game: str, plies: int = 1, weights=None):
        from ..engine.search import Searcher

        if plies < 0:
            raise ValueError(f"plies must be 0 or more, not {plies}")
        self.game = get_rules(game).name
        self.plies = int(plies)
        self.weights = None if weights is None else str(weights)
        self._searcher = Searcher(HybridEvaluator(_net(self.game, weights)), get_rules(self.game))
        self.name = f"nardy {self.plies}-ply search"

    def label(self, boards, firsts, seed: int = 0) -> np.ndarray:
        out = np.empty((len(boards), int(K.N_OUTPUTS[GAME_CODES[self.game]])), np.float32)
        for i in range(0, len(boards), 512):
            out[i : i + 512] = self._searcher.evaluate_positions(boards[i : i + 512], firsts[i : i + 512], self.plies)
        return out

    def __reduce__(self):
        return (SearchTeacher, (self.game, self.plies, self.weights))


class RolloutTeacher(Teacher):
    """The mean outcome of ``trials`` rollouts by the net at 0-ply (truncated after ``truncate`` plies when
    above 0, the net's outputs then standing in for the outcome), with variance reduction if ``vr``; the dice
    of position ``i`` of a chunk come from ``(seed, i)`` (:func:`nardy.engine._rollout.rollout_batch`)."""

    def __init__(self, game: str, trials: int = 144, truncate: int = 0, vr: bool = True, weights=None):
        self.game = get_rules(game).name
        self.trials, self.truncate, self.vr = int(trials), int(truncate), bool(vr)
        self.weights = None if weights is None else str(weights)
        self._net = _net(self.game, weights)
        self.name = f"nardy rollouts ({self.trials} trials{', vr' if vr else ''}"
        self.name += f", truncated at {self.truncate})" if self.truncate else ")"

    def label(self, boards, firsts, seed: int = 0) -> np.ndarray:
        from ..engine.rollout import rollout_boards

        mean, _, _ = rollout_boards(self._net, boards, firsts, self.trials, int(seed), self.truncate, self.vr)
        return mean

    def __reduce__(self):
        return (RolloutTeacher, (self.game, self.trials, self.truncate, self.vr, self.weights))


def bgsage_board(board) -> list[int]:
    """bgsage's 26-element board (mover's view: index 1..24 the mover's points, + mover, - opponent; 25 the
    mover's bar; 0 the opponent's bar, a positive count) of a nardy ``int8[28]`` board."""
    b = [int(x) for x in board[:26]]
    b[0] = int(board[26])
    return b


_BGSAGE_LEVELS = ("1ply", "2ply", "3ply", "4ply")
_BGSAGE_CACHE: dict = {}


def bgsage_bearoff_db():
    """bgsage's one-sided bearoff database (its ``bgbot_cpp.BearoffDB``), loaded once per process.

    Raises:
        ImportError: bgsage missing (``pip install bgsage``). RuntimeError: its database file missing or
            unreadable.
    """
    if "db" not in _BGSAGE_CACHE:
        try:
            import bgbot_cpp
            from bgsage.weights import bearoff_db_path
        except ImportError:
            raise ImportError("the bgsage teacher needs bgsage: pip install bgsage (training time only)") from None
        db = bgbot_cpp.BearoffDB()
        path = bearoff_db_path()
        if path is None or not db.load(path):
            raise RuntimeError("bgsage's bearoff database is missing or did not load")
        _BGSAGE_CACHE["db"] = db
    return _BGSAGE_CACHE["db"]


def _bgsage_strategy(level: str):
    """bgsage's evaluation at ``level`` with its one-sided bearoff database attached, built once per process.

    ``bgsage.batch_evaluate`` and ``batch_post_move_evaluate`` build their strategies *without* the bearoff
    database (only its ``BgBotAnalyzer`` attaches it), so in bear-offs they answer with the nets alone, which
    can be far off: on the post-move bear-off ``0 4 0 1 / -2 -3`` (our 3/off 1/off against 3/2 3/off, exactly
    equal, 0.2122 to win) the batch path gives -0.66/-0.73 at 1ply and -0.51/-0.73 at 4ply, a phantom 0.22
    difference. The strategy here is built the analyzer's way (``BearoffStrategy`` at 1ply,
    ``multipy_set_bearoff_db`` above) and returns -0.5756 for both at every level."""
    if level not in _BGSAGE_LEVELS:
        raise ValueError(f"bgsage level {level!r}: one of {', '.join(_BGSAGE_LEVELS)}")
    if level in _BGSAGE_CACHE:
        return _BGSAGE_CACHE[level]
    db = bgsage_bearoff_db()
    import bgbot_cpp
    from bgsage.weights import default_weights

    w = default_weights()
    if level == "1ply":
        raw = bgbot_cpp.create_strategy(w.strategy_type, w.weight_paths_list, w.hidden_sizes_list)
        strategy = bgbot_cpp.BearoffStrategy(raw, db)
        _BGSAGE_CACHE["raw"] = raw  # the wrapper keeps a reference only on the C++ side
    else:
        strategy = bgbot_cpp.create_multipy(
            w.strategy_type,
            w.weight_paths_list,
            w.hidden_sizes_list,
            n_plies=int(level[0]),
            filter_max_moves=5,
            filter_threshold=0.08,
            parallel_evaluate=False,
            parallel_threads=0,
        )
        bgbot_cpp.multipy_set_bearoff_db(strategy, db)
    _BGSAGE_CACHE[level] = strategy
    return strategy


def bgsage_evaluate(boards, level: str = "2ply", *, post_move: bool = False, threads: int = 1):
    """bgsage's cubeless money evaluation of backgammon positions, with its bearoff database.

    ``boards``: nardy ``int8[28]`` boards (a sequence or ``int8[n, 28]``), from the mover's view. Pre-roll
    (``post_move=False``): the mover is on roll. Post-move (``post_move=True``): the mover has just played
    and the opponent rolls next (bgsage's post-move evaluation). Returns ``(probs float32[n, 5], equity
    float64[n])``: the mover's ``[win, win g+, win bg, lose g+, lose bg]`` and cubeless equity (points per
    game, gammons counted: no Jacoby). ``level``: bgsage's ``1ply`` (raw nets) to ``4ply`` (XG's numbering).

    Raises:
        ValueError: an unknown level. ImportError: bgsage missing (``pip install bgsage``).
    """
    strategy = _bgsage_strategy(level)
    import bgbot_cpp
    import bgsage.analyzer

    owner = bgsage.analyzer.resolve_owner("centered")

    if post_move:
        cpp = [(bgsage_board(b), owner) for b in boards]
        res = bgbot_cpp.batch_evaluate_post_move(cpp, strategy, int(threads), jacoby=False)
    else:
        cpp = [(bgsage_board(b), 1, owner) for b in boards]
        res = bgbot_cpp.batch_evaluate_positions(cpp, strategy, int(threads), jacoby=False, beaver=False)
    probs = np.array([list(r["probs"]) for r in res], np.float32).reshape(len(cpp), 5)
    equity = np.array([r["cubeless_equity"] for r in res], np.float64)
    return probs, equity


class BgsageTeacher(Teacher):
    """bgsage's cubeless evaluation of each (backgammon) position at ``level`` (``1ply`` = its raw nets,
    ``2ply``, ``3ply``, ``4ply``; bgsage counts plies as XG does, one more than gnubg), one thread per
    worker, with bgsage's bearoff database in bear-offs (:func:`bgsage_evaluate`). Raises ImportError with
    the install line when bgsage is missing."""

    LEVELS = _BGSAGE_LEVELS

    def __init__(self, level: str = "2ply", threads: int = 1):
        if level not in self.LEVELS:
            raise ValueError(f"bgsage level {level!r}: one of {', '.join(self.LEVELS)}")
        try:
            import bgsage
        except ImportError:
            raise ImportError("the bgsage teacher needs bgsage: pip install bgsage (training time only)") from None
        self.game = "backgammon"
        self.level = level
        self.threads = int(threads)
        self.name = f"bgsage {bgsage.PRODUCTION_MODEL} {level} (cubeless, with its bearoff database)"

    def label(self, boards, firsts, seed: int = 0) -> np.ndarray:
        probs, _ = bgsage_evaluate(boards, self.level, post_move=False, threads=self.threads)
        return probs

    def __reduce__(self):
        return (BgsageTeacher, (self.level, self.threads))


def make_teacher(spec: str, game: str, weights=None) -> Teacher:
    """A teacher from a spec: ``search:N`` (nardy N-ply), ``rollout:TRIALS[:vr][:tT]`` (nardy rollouts,
    ``t40`` = truncated at 40 plies) or ``bgsage:LEVEL`` (backgammon). ``weights``: the net the nardy teachers
    use (default the shipped one).

    Raises:
        ValueError: an unknown spec, or bgsage for a nardy game (naming the spec).
    """
    kind, _, rest = spec.partition(":")
    parts = [p for p in rest.split(":") if p]
    if kind == "search":
        return SearchTeacher(game, int(parts[0]) if parts else 1, weights)
    if kind == "rollout":
        trials = int(parts[0]) if parts else 144
        truncate = next((int(p[1:]) for p in parts[1:] if p.startswith("t")), 0)
        return RolloutTeacher(game, trials, truncate, "vr" in parts[1:], weights)
    if kind == "bgsage":
        if get_rules(game).name != "backgammon":
            raise ValueError(f"teacher {spec!r}: bgsage plays backgammon only, not {game}")
        return BgsageTeacher(parts[0] if parts else "2ply")
    raise ValueError(f"unknown teacher {spec!r}: search:N, rollout:TRIALS[:vr][:tN] or bgsage:LEVEL")

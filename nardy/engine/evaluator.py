"""Evaluators: a position (side on roll's view) to its result probabilities.

Every evaluator follows the :class:`Evaluator` protocol:

* ``evaluate(position) -> Probabilities`` for one :class:`~nardy.rules.position.Position`;
* ``evaluate_batch(boards, first=None) -> float32[n, K]`` for many ``int8[n, 28]`` boards (layout of
  :mod:`nardy.rules._movegen`, each from the view of the side **on roll**, before it rolls). ``first`` is an optional
  ``bool[n, 2]`` of long nardy first-turn flags (on-roll side, other side).

Outputs are cumulative, GNU Backgammon style (see :mod:`nardy.engine._kernels`):
``[P(win), P(win >= level 2), ..., P(lose >= level 2), ...]`` with the game's levels (:data:`LEVELS`):

* backgammon: ``win, win_gammon, win_backgammon, lose_gammon, lose_backgammon`` (K = 5);
* short nardy: ``win, win_mars, win_home_mars, win_koks, lose_mars, lose_home_mars, lose_koks`` (K = 7;
  "mars" means at least a mars: the loser bore off nothing);
* long nardy: ``win, win_mars, lose_mars`` (K = 3).

Implementations: :class:`NeuralEvaluator` (a trained :class:`~nardy.engine.net.Net`), :class:`BearoffEvaluator`
(exact one-sided bearoff database, :mod:`nardy.engine.bearoff`, for positions where both sides have all
checkers home and no contact) and :class:`HybridEvaluator` (bearoff where it applies, the net elsewhere;
what :class:`nardy.engine.Engine` uses).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numba import njit

from ..rules import _movegen as _core
from ..rules.variants import get_rules
from . import _kernels as K
from . import net as _net
from .net import GAME_CODES, Net, shipped_path

__all__ = [
    "LEVELS",
    "OUTPUT_NAMES",
    "Evaluator",
    "Probabilities",
    "NeuralEvaluator",
    "BearoffEvaluator",
    "HybridEvaluator",
    "default_evaluator",
    "money_equity",
    "flip_probs",
    "terminal_probs",
]

#: Result level names of each game, lowest first (docs/rules.md scoring).
LEVELS = {
    "backgammon": ("single", "gammon", "backgammon"),
    "short": ("oyun", "mars", "home_mars", "koks"),
    "long": ("oyn", "mars"),
}


def _output_names(game):
    lv = LEVELS[game]
    return ("win",) + tuple(f"win_{n}" for n in lv[1:]) + tuple(f"lose_{n}" for n in lv[1:])


#: Names of the K outputs of each game, in order.
OUTPUT_NAMES = {g: _output_names(g) for g in LEVELS}
_DEFAULT_VALUES = {"backgammon": (1, 2, 3), "short": (1, 2, 4, 8), "long": (1, 2)}


def money_equity(probs: np.ndarray, game: str, values=None) -> np.ndarray:
    """Cubeless money equity (points per game at cube 1, on-roll side's view) of outputs ``probs``
    (``float[K]`` or ``float[n, K]``); ``values`` = the points of each level (default docs/rules.md scoring)."""
    v = np.asarray(values if values is not None else _DEFAULT_VALUES[game], np.float64)
    p = np.asarray(probs, np.float64)
    L = len(v)
    e = v[0] * (2.0 * p[..., 0] - 1.0)
    for i in range(1, L):
        e = e + (v[i] - v[i - 1]) * (p[..., i] - p[..., L - 1 + i])
    return e


def flip_probs(probs: np.ndarray, game: str) -> np.ndarray:
    """The same outputs from the other side's view (``float[K]`` or ``float[n, K]``)."""
    p = np.asarray(probs)
    L = len(LEVELS[game])
    out = np.empty_like(p)
    out[..., 0] = 1.0 - p[..., 0]
    out[..., 1:L] = p[..., L:]
    out[..., L:] = p[..., 1:L]
    return out


def terminal_probs(board, game: str):
    """Exact outputs (on-roll side's view) of a finished board, or ``None`` if the game is not over.

    A board where the side on roll has borne off all 15 is a win for it; one where the other side has is
    a loss, at the level docs/rules.md gives.
    """
    code = GAME_CODES[game]
    k = int(K.N_OUTPUTS[code])
    b = np.asarray(board, np.int8)
    out = np.zeros(k, np.float32)
    if b[0] >= 15:
        K.outcome_vector(K.win_level(b, code), code, out)
        return out
    if b[27] >= 15:
        m = _core.mirror_hitting(b) if code != K.GAME_LONG else _core.mirror_long(b)
        K.outcome_vector(K.win_level(m, code), code, out)
        return flip_probs(out, game)
    return None


class Probabilities:
    """Result probabilities of a position for the side on roll.

    Attributes:
        game: the game name; ``array``: float32[K] cumulative outputs (see the module docstring).

    Access by name: ``p["win_gammon"]`` or ``p.win``, ``p.lose`` (= 1 - win); :meth:`as_dict`;
    :meth:`exclusive` gives P(exactly each level) per side; :meth:`equity` the cubeless money equity.
    """

    __slots__ = ("game", "array")

    def __init__(self, game: str, array):
        self.game = game
        self.array = np.asarray(array, np.float32).copy()

    @property
    def names(self) -> tuple:
        return OUTPUT_NAMES[self.game]

    def __getitem__(self, name: str) -> float:
        if name == "lose":
            return 1.0 - float(self.array[0])
        try:
            return float(self.array[self.names.index(name)])
        except ValueError:
            raise KeyError(f"{name!r}: expected one of {', '.join(self.names)}, lose") from None

    def __getattr__(self, name):
        if name in ("game", "array"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def as_dict(self) -> dict:
        """``{"win": .., "win_gammon": .., ..., "lose_gammon": ..}`` (cumulative), plus ``"lose"``."""
        d = {n: float(v) for n, v in zip(self.names, self.array)}
        d["lose"] = 1.0 - d["win"]
        return d

    def exclusive(self) -> dict:
        """P(exactly each result): ``{"win": {"single": .., "gammon": ..}, "lose": {...}}``."""
        lv = LEVELS[self.game]
        L = len(lv)
        a = self.array.astype(np.float64)
        win = [a[0]] + list(a[1:L])
        lose = [1.0 - a[0]] + list(a[L:])
        out = {}
        for side, cum in (("win", win), ("lose", lose)):
            out[side] = {lv[i]: float(cum[i] - (cum[i + 1] if i + 1 < L else 0.0)) for i in range(L)}
        return out

    def equity(self, values=None) -> float:
        """Cubeless money equity (points per game at cube 1) for the side on roll."""
        return float(money_equity(self.array, self.game, values))

    def flipped(self) -> Probabilities:
        """The other side's view."""
        return Probabilities(self.game, flip_probs(self.array, self.game))

    def __repr__(self):
        inner = ", ".join(f"{n}={v:.3f}" for n, v in zip(self.names, self.array))
        return f"Probabilities({self.game}: {inner})"


@runtime_checkable
class Evaluator(Protocol):
    """What search and bots need from an evaluator (see the module docstring)."""

    game: str

    def evaluate(self, position) -> Probabilities: ...

    def evaluate_batch(self, boards: np.ndarray, first: np.ndarray | None = None) -> np.ndarray: ...


class _Base:
    game: str

    def evaluate(self, position) -> Probabilities:
        """Probabilities of ``position`` for its side on roll (exact when the game is over).

        Raises:
            ValueError: the position is of another game.
        """
        if position.game != self.game:
            raise ValueError(f"a {self.game} evaluator cannot evaluate a {position.game} position")
        b = position.array
        term = terminal_probs(b, self.game)
        if term is not None:
            return Probabilities(self.game, term)
        first = np.array([position.first_turn], np.bool_)
        return Probabilities(self.game, self.evaluate_batch(b.reshape(1, 28), first)[0])


def _first(first, n):
    if first is None:
        return np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    f = np.asarray(first, np.bool_).reshape(n, 2)
    return np.ascontiguousarray(f[:, 0]), np.ascontiguousarray(f[:, 1])


class NeuralEvaluator(_Base):
    """The net alone (no bearoff database; its :attr:`~nardy.engine.net.Net.race` net for races, its
    :attr:`~nardy.engine.net.Net.crashed` net for crashed contact boards and its
    :attr:`~nardy.engine.net.Net.plans` net of the side on roll's plan class for the other contact boards
    (game plan in the hitting games, blocks and head in long nardy), when it has them: :func:`phase_codes`):
    outputs sanitised so that every level <= the one below and losses <= 1 - win. Finished boards are not
    special-cased by :meth:`evaluate_batch`.

    The main net and the plan nets compute their rows on the path (row kernel or layer by layer) that the
    main net would take for all of them together: plan nets that are copies of the main net give its outputs
    bit for bit.

    Batches of :attr:`dedupe_from` rows or more are evaluated once per distinct (board, flags): search batches
    repeat boards (rolls with the same total, doubles, transpositions; about three rows in four at long nardy
    2-ply), and the outputs are bit for bit those of evaluating every row (``bench/search_speed.py``)."""

    #: Smallest batch checked for repeated boards.
    dedupe_from = 16

    def __init__(self, net: Net):
        self.net = net
        self.game = net.game
        self.code = net.code

    def evaluate_batch(self, boards, first=None) -> np.ndarray:
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
        fm, fo = _first(first, boards.shape[0])
        n = boards.shape[0]
        race, crashed, plans = self.net.race, self.net.crashed, self.net.plans
        hitting = self.code != K.GAME_LONG
        plan_mask = plan_bits(plans)
        if not n or (race is None and crashed is None and not plan_mask):
            return self._forward(self.net, boards, fm, fo)
        # each board to its phase's net: race, crashed (contact left), its game plan's net, the main net
        phase = phase_codes(boards, hitting, race is not None, crashed is not None, plan_mask)
        if not phase.any():
            return self._forward(self.net, boards, fm, fo)
        out = np.empty((n, self.net.n_outputs), np.float32)
        # the main net's rows and the plan nets' on one path: that of the main net for all of them
        main_dense = int(np.count_nonzero((phase == 0) | (phase >= 3))) >= _net.DENSE_BATCH
        nets = [(0, self.net, main_dense), (1, race, None), (2, crashed, None)]
        if plan_mask:
            assert plans is not None
            nets += [(3 + k, p, main_dense) for k, p in enumerate(plans)]
        for code, net, dense in nets:
            if net is None:
                continue
            m = phase == code
            if m.any():
                out[m] = self._forward(net, boards[m], fm[m], fo[m], dense)
        return out

    def _forward(self, net: Net, boards, fm, fo, dense: bool | None = None) -> np.ndarray:
        n = boards.shape[0]
        if dense is None:
            dense = n >= _net.DENSE_BATCH
        if n >= self.dedupe_from:
            # each distinct (board, flags) once, on the path the whole batch would take (same bits)
            first, inverse = K.unique_boards(boards, fm, fo)
            if first.shape[0] < n:
                out = net.forward_boards(boards[first], fm[first], fo[first], dense=dense)
                out = out[inverse]
                _sanitize_rows(out, len(LEVELS[self.game]))
                return out
        out = net.forward_boards(boards, fm, fo, dense=dense)
        _sanitize_rows(out, len(LEVELS[self.game]))
        return out


@njit(cache=True, nogil=True)
def race_mask(boards, hitting):
    """bool[n]: boards (side on roll's view) with no contact left (:func:`nardy.engine._kernels.is_race`), where
    a net's :attr:`~nardy.engine.net.Net.race` net evaluates them."""
    n = boards.shape[0]
    out = np.zeros(n, np.bool_)
    for i in range(n):
        out[i] = K.is_race(boards[i], hitting)
    return out


def crashed_mask(boards) -> np.ndarray:
    """bool[n]: contact boards (hitting games) where a side's board has crashed
    (:func:`nardy.engine._kernels.is_crashed`, GNU Backgammon's ``CLASS_CRASHED``), where a net's
    :attr:`~nardy.engine.net.Net.crashed` net evaluates them (:func:`phase_codes`' code 2)."""
    return phase_codes(np.ascontiguousarray(boards, np.int8).reshape(-1, 28), True, False, True) == 2


def plan_bits(plans) -> int:
    """The bit mask of the game plans ``k`` with a net in ``plans`` (:attr:`~nardy.engine.net.Net.plans`:
    bit ``k`` set when ``plans[k]`` is not ``None``; 0 for ``None``), :func:`phase_codes`' ``plan_mask``."""
    if plans is None:
        return 0
    return sum(1 << k for k, p in enumerate(plans) if p is not None)


@njit(cache=True, nogil=True)
def phase_codes(boards, hitting, with_race, with_crashed, plan_mask=0):
    """int8[n]: the net each board (side on roll's view) goes to: 1 race (no contact, ``with_race``), else
    for the hitting games 2 crashed (:func:`~nardy.engine._kernels.is_crashed`, ``with_crashed``; a crashed
    board never goes to a plan net), else ``3 + k`` for plan class ``k``
    (:func:`~nardy.engine._features.game_plan` in the hitting games, :func:`~nardy.engine._features.long_plan`
    in long nardy) when bit ``k`` of ``plan_mask`` is set (:func:`plan_bits`), else 0 the main net."""
    n = boards.shape[0]
    out = np.zeros(n, np.int8)
    for i in range(n):
        if K.is_race(boards[i], hitting):
            if with_race:
                out[i] = 1
        elif with_crashed or plan_mask:
            if hitting and K.is_crashed(boards[i]):
                if with_crashed:
                    out[i] = 2
            elif plan_mask:
                k = K.board_plan(boards[i], hitting)
                if (plan_mask >> k) & 1:
                    out[i] = 3 + k
    return out


def _sanitize_rows(out: np.ndarray, L: int):
    np.clip(out, 0.0, 1.0, out=out)
    for i in range(1, L):
        np.minimum(out[:, i], out[:, i - 1], out=out[:, i])
    np.minimum(out[:, L], 1.0 - out[:, 0], out=out[:, L])
    for i in range(L + 1, 2 * L - 1):
        np.minimum(out[:, i], out[:, i - 1], out=out[:, i])


#: Boards the bearoff evaluator computes at once: its work arrays are float64[n, rolls] each (about 1.5 KB a board
#: in all), so a 2-ply search's 100,000 boards would take about 150 MB at once.
_BEAROFF_CHUNK = 4096


class BearoffEvaluator(_Base):
    """Exact race probabilities from the one-sided bearoff database (:func:`nardy.engine.bearoff.load_database`).

    Applies to boards where both sides have all their checkers in their own home board (hence no contact):
    :meth:`applies` tells which. The side on roll wins if it needs no more rolls than the other side
    (independent roll counts, each side minimising its expected rolls, as GNU Backgammon's one-sided
    database does; short nardy's figures follow its strict bear-off, :mod:`nardy.engine.bearoff`). The
    second level (gammon / mars) comes from the first-checker-off distribution;
    higher levels are impossible when all the loser's checkers are home. The database is built on first use.
    """

    def __init__(self, game: str, db=None):
        self.game = game
        self.code = GAME_CODES[game]
        self._db = db

    @property
    def db(self):
        """The database for the game's default bear-off rule (short nardy: the strict one)."""
        if self._db is None:
            from .bearoff import load_database

            self._db = load_database(strict=get_rules(self.game).strict_bear_off)
        return self._db

    def applies(self, boards) -> np.ndarray:
        """bool[n]: which boards (on-roll side's view) are pure bear-offs this evaluator handles."""
        return _bearoff_mask(np.ascontiguousarray(boards, np.int8).reshape(-1, 28), self.code != K.GAME_LONG)

    def evaluate_batch(self, boards, first=None) -> np.ndarray:
        """Outputs for bear-off boards (see :meth:`applies`); raises ValueError for others."""
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
        if not self.applies(boards).all():
            raise ValueError("BearoffEvaluator: a board is not a pure bear-off position")
        n = boards.shape[0]
        if n > _BEAROFF_CHUNK:  # rows on their own: pieces bound the float64 work arrays (bit for bit the same)
            k = int(K.N_OUTPUTS[self.code])
            out = np.empty((n, k), np.float32)
            for s in range(0, n, _BEAROFF_CHUNK):
                out[s : s + _BEAROFF_CHUNK] = self._rows(boards[s : s + _BEAROFF_CHUNK])
            return out
        return self._rows(boards)

    def _rows(self, boards: np.ndarray) -> np.ndarray:
        db = self.db
        im, io = _bearoff_indices(boards, self.code != K.GAME_LONG)
        a = db.rolls[im].astype(np.float64)  # on-roll side: P(all off in exactly n rolls)
        b = db.rolls[io].astype(np.float64)
        fa = db.first_off[im].astype(np.float64)
        fb = db.first_off[io].astype(np.float64)
        tail_b = np.cumsum(b[:, ::-1], axis=1)[:, ::-1]  # P(Y >= n)
        tail_fb = np.cumsum(fb[:, ::-1], axis=1)[:, ::-1]
        win = np.clip((a * tail_b).sum(axis=1), 0.0, 1.0)
        win_g = np.clip((a * tail_fb).sum(axis=1), 0.0, 1.0)  # X_m <= F_o
        lose_g = np.clip((b * (1.0 - np.cumsum(fa, axis=1))).sum(axis=1), 0.0, 1.0)  # X_o < F_m
        win_g[boards[:, 27] > 0] = 0.0
        lose_g[boards[:, 0] > 0] = 0.0
        k = int(K.N_OUTPUTS[self.code])
        L = len(LEVELS[self.game])
        out = np.zeros((boards.shape[0], k), np.float32)
        out[:, 0] = win
        out[:, 1] = np.minimum(win_g, win)
        out[:, L] = np.minimum(lose_g, 1.0 - win)
        return out


def _bearoff_mask(boards: np.ndarray, hitting: bool) -> np.ndarray:
    return K.bearoff_mask(boards, hitting)


def _bearoff_indices(boards: np.ndarray, hitting: bool):
    from .bearoff import board_indices

    return board_indices(boards, hitting)


class HybridEvaluator(_Base):
    """The bearoff database where it applies (both sides all home), the net elsewhere.

    ``bearoff=False`` turns the database off (net only). This is the evaluator :class:`nardy.engine.Engine` uses.
    """

    def __init__(self, net: Net, bearoff: bool = True, db=None):
        self.net = net
        self.game = net.game
        self.neural = NeuralEvaluator(net)
        self.race = BearoffEvaluator(net.game, db) if bearoff else None

    def evaluate_batch(self, boards, first=None) -> np.ndarray:
        boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
        if self.race is None:
            return self.neural.evaluate_batch(boards, first)
        mask = self.race.applies(boards)
        if not mask.any():
            return self.neural.evaluate_batch(boards, first)
        out = np.empty((boards.shape[0], int(K.N_OUTPUTS[self.net.code])), np.float32)
        out[mask] = self.race.evaluate_batch(boards[mask])
        rest = ~mask
        if rest.any():
            f = None if first is None else np.asarray(first, np.bool_).reshape(-1, 2)[rest]
            out[rest] = self.neural.evaluate_batch(boards[rest], f)
        return out


_DEFAULT: dict = {}


def default_evaluator(game: str, bearoff: bool = True) -> HybridEvaluator:
    """The shipped evaluator of a game (``nardy/data/<game>.npz`` plus the bearoff database), cached.

    Raises:
        FileNotFoundError: no weights are shipped for the game.
    """
    g = get_rules(game).name
    key = (g, bearoff)
    ev = _DEFAULT.get(key)
    if ev is None:
        path = shipped_path(g)
        if not path.exists():
            raise FileNotFoundError(f"no shipped weights for {g} ({path}); train some with `nardy train --game {g}`")
        ev = _DEFAULT[key] = HybridEvaluator(Net.load(path), bearoff=bearoff)
    return ev

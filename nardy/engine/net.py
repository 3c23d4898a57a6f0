"""A small multilayer perceptron (a sigmoid hidden layer, optionally a second one with a skip to the outputs,
sigmoid outputs), numpy inference only.

The weights are float32 and stored as ``.npz`` files with the arrays ``W1`` (``N_INPUTS x H``), ``b1``
(``H``), ``W2`` (``H x K``), ``b2`` (``K``), for a net with a second hidden layer (a *deep* net,
:attr:`Net.hidden2` = H2 > 0) also ``V`` (``H x H2``), ``c`` (``H2``) and ``U`` (``H2 x K``)::

    h1 = sigmoid(x @ W1 + b1)
    h2 = sigmoid(h1 @ V + c)
    o  = sigmoid(h1 @ W2 + h2 @ U + b2)

(``U = 0``: the one-layer net's outputs exactly, so a deep net can start from a one-layer one; a one-layer
file has no ``V``, ``c``, ``U``), and metadata (``game``, ``games_trained``, ``seed``, ``version``;
optionally ``provenance``, a JSON text saying how supervised weights were made: teacher, data, fit). A file
may hold a second net for races (``race_W1``, ``race_b1``, ``race_W2``, ``race_b2``, deep: ``race_V``,
``race_c``, ``race_U``: :attr:`Net.race`), which the
evaluators use for positions with no contact left (:func:`nardy.engine._kernels.is_race`), and a third for
crashed contact positions (``crashed_W1`` ...: :attr:`Net.crashed`, :func:`nardy.engine._kernels.is_crashed`),
as GNU Backgammon splits its nets by phase (contact, race, crashed). Contact boards of the hitting games that
have not crashed may go further to a net per game plan of the side on roll (``plan0_W1`` ... ``plan4_W1``,
``plan{k}_b1``, ``plan{k}_W2``, ``plan{k}_b2``, deep: ``plan{k}_V``, ``plan{k}_c``, ``plan{k}_U``:
:attr:`Net.plans`, :func:`nardy.engine._features.game_plan`: 0 racing, 1 attacking, 2 priming, 3 holding,
4 other), as bgsage splits its contact nets by game plan; long nardy's contact boards the same way by
:func:`nardy.engine._features.long_plan` (0 opening, 1 blocking, 2 blocked, 3 leading, 4 other). A file holds
the plan nets it has, any of the five.
The inputs are :func:`nardy.engine._kernels.encode` of a board from the view of the side on roll; the
outputs are that side's cumulative result probabilities (see :mod:`nardy.engine._kernels`).

Shipped weights live in ``nardy/data/<game>.npz`` (:func:`shipped_path`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from . import _kernels as K

__all__ = ["Net", "shipped_path", "read_npz", "scoring_values", "start_board", "GAME_CODES", "ENCODING_VERSION"]

#: Game name -> kernel game code.
GAME_CODES = {"backgammon": K.GAME_BG, "short": K.GAME_SHORT, "long": K.GAME_LONG}
#: Bumped whenever the input encoding changes (weights of another version are refused).
ENCODING_VERSION = 5
#: Inputs of each older encoding version (read with zero weights for the inputs they lack).
_OLD_INPUTS = {1: K.N_INPUTS_V1, 2: K.N_INPUTS_V2, 3: K.N_INPUTS_V3, 4: K.N_INPUTS_V4}

DATA_DIR = Path(__file__).resolve().parent.parent / "data"


def shipped_path(game: str) -> Path:
    """Path of the weights shipped in the package for a game (``nardy/data/<game>.npz``)."""
    return DATA_DIR / f"{game}.npz"


def scoring_values(game: str) -> np.ndarray:
    """float64 points of each result level of a game with default options (``Rules.scoring``, docs/rules.md
    scoring), the ``values`` the kernels take."""
    from ..rules.variants import get_rules

    return np.array(get_rules(game).scoring, np.float64)


def start_board(game: str) -> np.ndarray:
    """The starting board of a game (``int8[28]``, side on roll's view), a writable copy."""
    from ..rules.position import Position

    return Position.start(game).array.copy()


def read_npz(path, keys, kind: str, optional=()) -> dict:
    """The arrays ``keys`` of the ``.npz`` archive at ``path`` (no pickled objects), and those of ``optional``
    that it holds.

    Raises:
        FileNotFoundError: no such file. ValueError: ``"<path>: not a <kind> (...)"`` when the file is not
            an ``.npz`` archive or lacks some of ``keys``.
    """
    try:
        z = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except (OSError, ValueError):
        raise ValueError(f"{path}: not a {kind} (not a NumPy .npz archive)") from None
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise ValueError(f"{path}: not a {kind} (a single array, expected an .npz archive)")
    with z:
        missing = set(keys) - set(z.files)
        if missing:
            raise ValueError(f"{path}: not a {kind} (missing {', '.join(sorted(missing))})")
        return {k: z[k] for k in (*keys, *(o for o in optional if o in z.files))}


_RACE_KEYS = ("race_W1", "race_b1", "race_W2", "race_b2")
_CRASHED_KEYS = ("crashed_W1", "crashed_b1", "crashed_W2", "crashed_b2")
#: The second hidden layer's arrays (main, race, crashed net), present only for deep nets.
_DEEP_KEYS = ("V", "c", "U")
_DEEP_PREFIX = {"": _DEEP_KEYS, "race_": tuple("race_" + k for k in _DEEP_KEYS)}
_DEEP_PREFIX["crashed_"] = tuple("crashed_" + k for k in _DEEP_KEYS)
#: The game-plan nets' key prefixes, ``plan0_`` ... ``plan4_`` (:attr:`Net.plans`), and their arrays.
_PLAN_PREFIXES = tuple(f"plan{k}_" for k in range(K.N_PLANS))
_PLAN_KEYS = {pre: tuple(pre + k for k in ("W1", "b1", "W2", "b2")) for pre in _PLAN_PREFIXES}
for _pre in _PLAN_PREFIXES:
    _DEEP_PREFIX[_pre] = tuple(_pre + k for k in _DEEP_KEYS)

#: Rows from which :meth:`Net.forward_inputs` computes layer by layer with a vectorised sigmoid instead of
#: row by row (see ``bench/net_forward.py``).
DENSE_BATCH = 64

#: Rows computed at once on the layer-by-layer path: a larger batch is cut into pieces of this many rows, which
#: bounds the hidden layer's array (``CHUNK_ROWS x hidden`` float32, 4 MiB at 4,096 x 256) instead of one array
#: of the whole batch (a 2-ply search evaluates 100,000 boards at once: about 100 MB). Every row is computed
#: on its own, so the outputs are bit for bit those of one piece (``bench/analysis_memory.py``).
CHUNK_ROWS = 4096


def _sigmoid_inplace(z: np.ndarray) -> None:
    """``z <- 1 / (1 + exp(-z))`` in place (float32), pre-activations clipped to [-40, 40]."""
    np.clip(z, -40.0, 40.0, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    z += 1.0
    np.reciprocal(z, out=z)


class Net:
    """An MLP evaluator's weights for one game.

    Attributes:
        game: ``backgammon``, ``short`` or ``long``; ``code``: the kernel game code.
        W1, b1, W2, b2: float32 arrays (``N_INPUTS x H``, ``H``, ``H x K``, ``K``).
        V, c, U: the second hidden layer, float32 arrays (``H x H2``, ``H2``, ``H2 x K``); empty
            (``H2 = 0``, :attr:`hidden2`) for a one-layer net. Given as keywords, all three or none.
        games_trained: self-play games behind these weights (metadata).
        provenance: JSON text on how the weights were made after self-play (teacher, positions, fit; see
            :mod:`nardy.training`), ``""`` for none.
        race: the net for race positions (same game, any width), or ``None``: this net there.
        crashed: the net for crashed contact positions (hitting games; same game, any width), or ``None``:
            this net there.
        plans: ``None`` (no game-plan nets), or a tuple of :data:`~nardy.engine._features.N_PLANS` (5) nets
            or ``None``s: ``plans[k]`` answers the contact boards (hitting games: those that have not crashed)
            whose plan class is ``k`` (:func:`~nardy.engine._features.board_plan`; same game, any width, deep or
            not; ``None``: this net for that class). The phase nets themselves carry no plan nets.
    """

    race: Net | None = None
    crashed: Net | None = None
    plans: tuple[Net | None, ...] | None = None

    def __init__(
        self,
        game: str,
        W1,
        b1,
        W2,
        b2,
        games_trained: int = 0,
        seed: int = 0,
        provenance: str = "",
        *,
        V=None,
        c=None,
        U=None,
    ):
        if game not in GAME_CODES:
            raise ValueError(f"unknown game {game!r} for a net")
        self.game = game
        self.code = GAME_CODES[game]
        self.W1 = np.ascontiguousarray(W1, np.float32)
        self.b1 = np.ascontiguousarray(b1, np.float32)
        self.W2 = np.ascontiguousarray(W2, np.float32)
        self.b2 = np.ascontiguousarray(b2, np.float32)
        k = int(K.N_OUTPUTS[self.code])
        if self.W1.shape[0] != K.N_INPUTS or self.W2.shape[1] != k or self.W1.shape[1] != self.W2.shape[0]:
            raise ValueError(
                f"net shapes {self.W1.shape}, {self.W2.shape} do not fit {game} ({K.N_INPUTS} inputs, {k} outputs)"
            )
        if (V is None) != (c is None) or (V is None) != (U is None):
            raise ValueError("a net's second hidden layer needs V, c and U together")
        h = self.W1.shape[1]
        if V is None:
            V, c, U = np.zeros((h, 0)), np.zeros(0), np.zeros((0, k))
        self.V = np.ascontiguousarray(V, np.float32)
        self.c = np.ascontiguousarray(c, np.float32)
        self.U = np.ascontiguousarray(U, np.float32)
        h2 = self.c.shape[0] if self.c.ndim == 1 else -1
        if self.V.shape != (h, h2) or self.U.shape != (h2, k):
            raise ValueError(
                f"second hidden layer shapes {self.V.shape}, {self.c.shape}, {self.U.shape} do not fit a net of "
                f"{h} hidden units and {k} outputs (expected ({h}, H2), (H2,), (H2, {k}))"
            )
        self.games_trained = int(games_trained)
        self.seed = int(seed)
        self.provenance = str(provenance)

    @property
    def hidden(self) -> int:
        """Units of the first hidden layer (H)."""
        return int(self.b1.shape[0])

    @property
    def hidden2(self) -> int:
        """Units of the second hidden layer (H2; 0 for a one-layer net)."""
        return int(self.c.shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.b2.shape[0])

    @property
    def weights(self) -> tuple:
        """``(W1, b1, W2, b2)``: the first hidden layer and the outputs' weights from it (a one-layer net's
        arrays; the kernels take :attr:`kernel_weights`)."""
        return self.W1, self.b1, self.W2, self.b2

    @property
    def deep_weights(self) -> tuple:
        """``(V, c, U)``: the second hidden layer (empty arrays for a one-layer net)."""
        return self.V, self.c, self.U

    @property
    def kernel_weights(self) -> tuple:
        """``(W1, b1, W2, b2, V, c, U)``, the arrays the kernels take (:func:`nardy.engine._mlp.forward`)."""
        return self.W1, self.b1, self.W2, self.b2, self.V, self.c, self.U

    def require_one_layer(self, what: str) -> None:
        """Raise ``ValueError`` naming ``what`` when this net or one of its phase nets has a second hidden
        layer (the compiled gradient steps, :func:`nardy.engine._mlp.sgd_step`, train one-layer nets only)."""
        for name, n in self._subnets(" "):
            if n is not None and n.hidden2:
                raise ValueError(
                    f"{what} trains one-layer nets only; this {name}net has a second hidden layer of "
                    f"{n.hidden2} units (fit deep nets with `nardy teach fit --hidden2`)"
                )

    def _subnets(self, sep: str = "_") -> list:
        """``[(prefix, net or None)]``: this net (prefix ``""``), its race, crashed and plan nets (prefixes
        ``race``, ``crashed``, ``plan0`` ... followed by ``sep``)."""
        out = [("", self), ("race" + sep, self.race), ("crashed" + sep, self.crashed)]
        if self.plans is not None:
            out += [(f"plan{k}{sep}", n) for k, n in enumerate(self.plans)]
        return out

    def set_plans(self, plans) -> None:
        """Set :attr:`plans` from a sequence of :data:`~nardy.engine._features.N_PLANS` nets or ``None``s
        (``None`` or all ``None``: no plan nets).

        Raises:
            ValueError: not 5 entries, a net of another game, or a plan net that has phase or plan nets of its
                own.
        """
        if plans is None:
            self.plans = None
            return
        plans = tuple(plans)
        if len(plans) != K.N_PLANS:
            raise ValueError(f"a net's plan nets are {K.N_PLANS} nets or None, got {len(plans)}")
        if all(n is None for n in plans):
            self.plans = None
            return
        for k, n in enumerate(plans):
            if n is None:
                continue
            if not isinstance(n, Net) or n.game != self.game:
                raise ValueError(f"plan net {k}: expected a {self.game} Net or None")
            if n.race is not None or n.crashed is not None or n.plans is not None:
                raise ValueError(f"plan net {k}: a plan net has no race, crashed or plan nets of its own")
        self.plans = plans

    @classmethod
    def random(cls, game: str, hidden: int = 80, seed: int = 0, hidden2: int = 0) -> Net:
        """Fresh weights: normal(0, 0.1) from ``numpy.random.default_rng(seed)``, zero biases; with ``hidden2``
        a second hidden layer (``V``, ``U`` normal(0, 0.1), drawn after the others; ``c`` zero)."""
        rng = np.random.default_rng(seed)
        k = int(K.N_OUTPUTS[GAME_CODES[game]])
        W1 = rng.standard_normal((K.N_INPUTS, hidden)) * 0.1
        W2 = rng.standard_normal((hidden, k)) * 0.1
        deep = {}
        if hidden2:
            V = rng.standard_normal((hidden, hidden2)) * 0.1
            U = rng.standard_normal((hidden2, k)) * 0.1
            deep = dict(V=V, c=np.zeros(hidden2), U=U)
        return cls(game, W1, np.zeros(hidden), W2, np.zeros(k), 0, seed, **deep)

    def copy(self) -> Net:
        """A deep copy (arrays, phase nets, metadata)."""
        c = Net(
            self.game,
            self.W1.copy(),
            self.b1.copy(),
            self.W2.copy(),
            self.b2.copy(),
            self.games_trained,
            self.seed,
            self.provenance,
            V=self.V.copy(),
            c=self.c.copy(),
            U=self.U.copy(),
        )
        if self.race is not None:
            c.race = self.race.copy()
        if self.crashed is not None:
            c.crashed = self.crashed.copy()
        if self.plans is not None:
            c.plans = tuple(None if n is None else n.copy() for n in self.plans)
        return c

    @classmethod
    def load(cls, path) -> Net:
        """Load weights from an ``.npz`` written by :meth:`save`.

        Raises:
            ValueError: not a net file (naming the path), another encoding version, or shapes that do not
                fit the game. FileNotFoundError: no such file.
        """
        keys = ("W1", "b1", "W2", "b2", "game", "games_trained", "seed", "version")
        deep_keys = [k for names in _DEEP_PREFIX.values() for k in names]
        plan_keys = [k for names in _PLAN_KEYS.values() for k in names]
        z = read_npz(path, keys, "nardy net file", ("provenance", *_RACE_KEYS, *_CRASHED_KEYS, *plan_keys, *deep_keys))
        version = int(z["version"])

        def inputs(W1):
            if version in _OLD_INPUTS and W1.shape[0] == _OLD_INPUTS[version]:
                # older versions lack the last inputs: zero weights keep their outputs unchanged
                return np.vstack([W1, np.zeros((K.N_INPUTS - W1.shape[0], W1.shape[1]), W1.dtype)])
            if version != ENCODING_VERSION:
                raise ValueError(f"{path}: encoding version {version}, expected {ENCODING_VERSION}")
            return W1

        def deep(prefix):
            names = _DEEP_PREFIX[prefix]
            if not any(k in z for k in names):
                return {}
            if not all(k in z for k in names):
                raise ValueError(f"{path}: not a nardy net file (a second hidden layer lacks some of {names})")
            return dict(zip("VcU", (z[k] for k in names)))

        W1 = inputs(z["W1"])
        prov = str(z["provenance"]) if "provenance" in z else ""
        game, gt, seed = str(z["game"]), int(z["games_trained"]), int(z["seed"])
        net = cls(game, W1, z["b1"], z["W2"], z["b2"], gt, seed, prov, **deep(""))

        def sub(names, prefix):
            if not any(k in z for k in names):
                return None
            if not all(k in z for k in names):
                raise ValueError(f"{path}: not a nardy net file (a net lacks some of {', '.join(names)})")
            rw = [z[k] for k in names]
            rw[0] = inputs(rw[0])
            return cls(net.game, *rw, gt, seed, **deep(prefix))

        for attr, names in (("race", _RACE_KEYS), ("crashed", _CRASHED_KEYS)):
            if all(k in z for k in names):
                setattr(net, attr, sub(names, attr + "_"))
        if any(k in z for k in plan_keys):
            net.set_plans([sub(_PLAN_KEYS[pre], pre) for pre in _PLAN_PREFIXES])
        return net

    def save(self, path) -> Path:
        """Write the weights (float32, compressed ``.npz``) atomically; returns the path."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp.npz")
        np.savez_compressed(
            tmp,
            W1=self.W1,
            b1=self.b1,
            W2=self.W2,
            b2=self.b2,
            game=np.str_(self.game),
            games_trained=np.int64(self.games_trained),
            seed=np.int64(self.seed),
            version=np.int32(ENCODING_VERSION),
            **({"provenance": np.str_(self.provenance)} if self.provenance else {}),
            **(dict(zip(_RACE_KEYS, self.race.weights)) if self.race is not None else {}),
            **(dict(zip(_CRASHED_KEYS, self.crashed.weights)) if self.crashed is not None else {}),
            **self._plan_arrays(),
            **self._deep_arrays(),
        )
        tmp.replace(path)
        return path

    def _deep_arrays(self) -> dict:
        """The second hidden layers' arrays by their ``.npz`` keys (none for one-layer nets: their files are
        as before)."""
        out = {}
        for prefix, n in self._subnets():
            if n is not None and n.hidden2:
                out.update(zip(_DEEP_PREFIX[prefix], n.deep_weights))
        return out

    def _plan_arrays(self) -> dict:
        """The plan nets' first layer and outputs' arrays by their ``.npz`` keys (``plan{k}_W1`` ...)."""
        out: dict = {}
        for pre, n in zip(_PLAN_PREFIXES, self.plans or ()):
            if n is not None:
                out.update(zip(_PLAN_KEYS[pre], n.weights))
        return out

    def forward_boards(
        self, boards: np.ndarray, first_m: np.ndarray, first_o: np.ndarray, dense: bool | None = None
    ) -> np.ndarray:
        """Outputs (float32[n, K], not sanitised) for boards (int8[n, 28], side on roll's view) with long
        nardy first-turn flags ``first_m``/``first_o`` (bool[n]): :meth:`forward_inputs` of their encoding,
        bit for bit. Batches of :data:`DENSE_BATCH` rows or more are encoded row by row inside the first
        layer's product (no ``n x N_INPUTS`` input array), clipped and negated there, so that numpy's
        vectorised ``exp`` and reciprocal finish the sigmoid (``bench/net_forward.py``: "boards").
        ``dense`` forces the choice of path (True: layer by layer at any size), which keeps a batch's outputs
        bit for bit the same when a caller evaluates a subset of it."""
        if dense is None:
            dense = boards.shape[0] >= DENSE_BATCH
        if not dense:
            return K.forward_batch(*self.kernel_weights, K.encode_batch(boards, self.code, first_m, first_o))
        n = boards.shape[0]
        if n > CHUNK_ROWS:
            out = np.empty((n, self.n_outputs), np.float32)
            for s in range(0, n, CHUNK_ROWS):
                e = s + CHUNK_ROWS
                out[s:e] = self._dense_boards(boards[s:e], first_m[s:e], first_o[s:e])
            return out
        return self._dense_boards(boards, first_m, first_o)

    def _dense_boards(self, boards, first_m, first_o) -> np.ndarray:
        h = K.hidden_boards(self.W1, self.b1, boards, self.code, first_m, first_o)
        np.exp(h, out=h)  # the rest of _sigmoid_inplace: hidden_boards clipped and negated
        h += 1.0
        np.reciprocal(h, out=h)
        return self._outputs(h)

    def _outputs(self, h: np.ndarray) -> np.ndarray:
        """Outputs (float32[n, K]) from the first hidden layer's activations ``h`` (float32[n, H]); a deep net's
        second layer on the way (:func:`nardy.engine._mlp.hidden2_batch`, then the outputs over ``[h1, h2]``
        by :func:`nardy.engine._mlp.output_batch`: sums in the row kernel's order)."""
        if self.hidden2:
            h2 = K.hidden2_batch(self.V, self.c, h)
            _sigmoid_inplace(h2)
            o = K.output_batch(np.vstack((self.W2, self.U)), self.b2, np.hstack((h, h2)))
        else:
            o = K.output_batch(self.W2, self.b2, h)
        _sigmoid_inplace(o)
        return o

    def forward_inputs(self, x: np.ndarray) -> np.ndarray:
        """Outputs (float32[n, K], not sanitised) for encoded inputs ``x`` (float32[n, N_INPUTS]).

        Batches of at least :data:`DENSE_BATCH` rows are computed layer by layer: compiled sparse products
        (zero inputs skipped) and numpy's vectorised ``exp`` for the sigmoids over the whole batch, which is
        where the row kernel spends most of its time. Smaller batches go through the compiled row kernel.
        Both give the same outputs up to float32 rounding (about 1e-6); pre-activations are clipped to
        [-40, 40] as in the kernel's sigmoid. No BLAS: numpy's matrix product was as fast on one thread but
        OpenBLAS's thread buffers added about 50 MB to a server. ``bench/net_forward.py`` measures both.
        """
        x = np.ascontiguousarray(x, np.float32)
        if x.shape[0] < DENSE_BATCH:
            return K.forward_batch(*self.kernel_weights, x)
        n = x.shape[0]
        if n > CHUNK_ROWS:
            out = np.empty((n, self.n_outputs), np.float32)
            for s in range(0, n, CHUNK_ROWS):
                out[s : s + CHUNK_ROWS] = self._dense_inputs(x[s : s + CHUNK_ROWS])
            return out
        return self._dense_inputs(x)

    def _dense_inputs(self, x: np.ndarray) -> np.ndarray:
        h = K.hidden_batch(self.W1, self.b1, x)
        _sigmoid_inplace(h)
        return self._outputs(h)

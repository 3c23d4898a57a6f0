"""A small multilayer perceptron (one sigmoid hidden layer, sigmoid outputs), numpy inference only.

The weights are float32 and stored as ``.npz`` files with the arrays ``W1`` (``N_INPUTS x H``), ``b1``
(``H``), ``W2`` (``H x K``), ``b2`` (``K``) and metadata (``game``, ``games_trained``, ``seed``, ``version``;
optionally ``provenance``, a JSON text saying how supervised weights were made: teacher, data, fit). A file
may hold a second net for races (``race_W1``, ``race_b1``, ``race_W2``, ``race_b2``: :attr:`Net.race`), which the
evaluators use for positions with no contact left (:func:`nardy.engine._kernels.is_race`), and a third for
crashed contact positions (``crashed_W1`` ...: :attr:`Net.crashed`, :func:`nardy.engine._kernels.is_crashed`),
as GNU Backgammon splits its nets by phase (contact, race, crashed).
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
        games_trained: self-play games behind these weights (metadata).
        provenance: JSON text on how the weights were made after self-play (teacher, positions, fit; see
            :mod:`nardy.training`), ``""`` for none.
        race: the net for race positions (same game, any width), or ``None``: this net there.
        crashed: the net for crashed contact positions (hitting games; same game, any width), or ``None``:
            this net there.
    """

    race: Net | None = None
    crashed: Net | None = None

    def __init__(self, game: str, W1, b1, W2, b2, games_trained: int = 0, seed: int = 0, provenance: str = ""):
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
        self.games_trained = int(games_trained)
        self.seed = int(seed)
        self.provenance = str(provenance)

    @property
    def hidden(self) -> int:
        return int(self.b1.shape[0])

    @property
    def n_outputs(self) -> int:
        return int(self.b2.shape[0])

    @property
    def weights(self) -> tuple:
        """``(W1, b1, W2, b2)``, the arrays the kernels take."""
        return self.W1, self.b1, self.W2, self.b2

    @classmethod
    def random(cls, game: str, hidden: int = 80, seed: int = 0) -> Net:
        """Fresh weights: normal(0, 0.1) from ``numpy.random.default_rng(seed)``, zero biases."""
        rng = np.random.default_rng(seed)
        k = int(K.N_OUTPUTS[GAME_CODES[game]])
        W1 = rng.standard_normal((K.N_INPUTS, hidden)) * 0.1
        W2 = rng.standard_normal((hidden, k)) * 0.1
        return cls(game, W1, np.zeros(hidden), W2, np.zeros(k), 0, seed)

    def copy(self) -> Net:
        c = Net(
            self.game,
            self.W1.copy(),
            self.b1.copy(),
            self.W2.copy(),
            self.b2.copy(),
            self.games_trained,
            self.seed,
            self.provenance,
        )
        if self.race is not None:
            c.race = self.race.copy()
        if self.crashed is not None:
            c.crashed = self.crashed.copy()
        return c

    @classmethod
    def load(cls, path) -> Net:
        """Load weights from an ``.npz`` written by :meth:`save`.

        Raises:
            ValueError: not a net file (naming the path), another encoding version, or shapes that do not
                fit the game. FileNotFoundError: no such file.
        """
        keys = ("W1", "b1", "W2", "b2", "game", "games_trained", "seed", "version")
        z = read_npz(path, keys, "nardy net file", ("provenance", *_RACE_KEYS, *_CRASHED_KEYS))
        version = int(z["version"])

        def inputs(W1):
            if version in _OLD_INPUTS and W1.shape[0] == _OLD_INPUTS[version]:
                # older versions lack the last inputs: zero weights keep their outputs unchanged
                return np.vstack([W1, np.zeros((K.N_INPUTS - W1.shape[0], W1.shape[1]), W1.dtype)])
            if version != ENCODING_VERSION:
                raise ValueError(f"{path}: encoding version {version}, expected {ENCODING_VERSION}")
            return W1

        W1 = inputs(z["W1"])
        prov = str(z["provenance"]) if "provenance" in z else ""
        net = cls(str(z["game"]), W1, z["b1"], z["W2"], z["b2"], int(z["games_trained"]), int(z["seed"]), prov)
        for attr, names in (("race", _RACE_KEYS), ("crashed", _CRASHED_KEYS)):
            if all(k in z for k in names):
                rw = [z[k] for k in names]
                rw[0] = inputs(rw[0])
                setattr(net, attr, cls(net.game, *rw, net.games_trained, net.seed))
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
        )
        tmp.replace(path)
        return path

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
            return K.forward_batch(
                self.W1, self.b1, self.W2, self.b2, K.encode_batch(boards, self.code, first_m, first_o)
            )
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
            return K.forward_batch(self.W1, self.b1, self.W2, self.b2, x)
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
        o = K.output_batch(self.W2, self.b2, h)
        _sigmoid_inplace(o)
        return o

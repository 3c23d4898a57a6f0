"""Labelling positions as Ray tasks, resumable, the same labels whatever the number of workers.

The positions are cut into chunks of ``chunk`` rows in order; chunk ``i`` is labelled by one task with the
seed ``seed * 1_000_003 + i`` (used only by teachers that draw dice), so a label depends on the position,
the teacher, the seed and the chunk size, never on the number of workers or on which worker ran it.
``workers=0`` labels in this process without Ray (the reference the tests compare Ray's labels with).
Ray runs on all local cores by default, or joins a running cluster by address (``ray start --head`` on one
machine, ``ray start --address HEAD:6379`` on the others, then ``--ray HEAD:6379``).

Datasets (``.npz``, no pickles): ``game``, ``boards int8[n, 28]``, ``firsts bool[n, 2]``, ``targets
float32[n, K]``, ``done bool[chunks]``, ``chunk``, ``seed``, ``teacher`` (its name) and ``source`` (how the
positions were drawn). A run over an existing dataset of the same positions, teacher, seed and chunk size
labels only the chunks not yet done.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from ..engine.net import read_npz

__all__ = ["label_positions", "save_dataset", "load_dataset", "chunk_seed"]

_KEYS = ("game", "boards", "firsts", "targets", "done", "chunk", "seed", "teacher", "source")


def chunk_seed(seed: int, i: int) -> int:
    """The seed of chunk ``i`` of a run with ``seed``."""
    return int(seed) * 1_000_003 + int(i)


def save_dataset(path, data: dict) -> Path:
    """Write a dataset (keys of :func:`load_dataset`) atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.npz")
    np.savez(
        tmp,
        game=np.str_(data["game"]),
        boards=np.asarray(data["boards"], np.int8),
        firsts=np.asarray(data["firsts"], np.bool_),
        targets=np.asarray(data["targets"], np.float32),
        done=np.asarray(data["done"], np.bool_),
        chunk=np.int64(data["chunk"]),
        seed=np.int64(data["seed"]),
        teacher=np.str_(data["teacher"]),
        source=np.str_(data.get("source", "")),
    )
    tmp.replace(path)
    return path


def load_dataset(path) -> dict:
    """A dataset written by :func:`save_dataset`: the arrays, ``game``/``teacher``/``source`` as ``str``,
    ``chunk``/``seed`` as ``int``, and ``labelled`` (bool[n]: rows whose chunk is done).

    Raises:
        FileNotFoundError; ValueError naming the path when it is not a labelled dataset.
    """
    z = read_npz(path, _KEYS, "labelled dataset")
    d = {k: z[k] for k in ("boards", "firsts", "targets", "done")}
    d.update(game=str(z["game"]), teacher=str(z["teacher"]), source=str(z["source"]))
    d.update(chunk=int(z["chunk"]), seed=int(z["seed"]))
    d["labelled"] = np.repeat(d["done"], d["chunk"])[: len(d["boards"])]
    return d


def _label_chunk(teacher, boards, firsts, seed):
    return teacher.label(boards, firsts, seed)


def label_positions(
    teacher,
    boards: np.ndarray,
    firsts: np.ndarray,
    *,
    seed: int = 0,
    chunk: int = 2048,
    workers: int | None = None,
    address: str | None = None,
    path=None,
    source: str = "",
    save_every: float = 60.0,
    progress=None,
) -> dict:
    """Label ``boards``/``firsts`` with ``teacher`` (see the module docstring); returns the dataset.

    Args:
        workers: Ray workers on this machine (``None``: all cores; ``0``: no Ray, in this process).
        address: a Ray cluster to join instead (``ray.init(address=...)``); ``workers`` then bounds the tasks
            in flight (default twice the cluster's CPUs).
        path: a dataset file to resume from and to save to (every ``save_every`` seconds and at the end).
        progress: ``progress(rows_done, rows)`` after each finished chunk.
    Raises:
        ValueError: ``chunk`` below 1, or ``path`` holding a dataset of other positions, teacher, seed or chunk
            size (it is left alone).
    """
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, not {chunk}")
    boards = np.ascontiguousarray(boards, np.int8)
    firsts = np.ascontiguousarray(firsts, np.bool_)
    n = len(boards)
    n_chunks = (n + chunk - 1) // chunk
    targets = None
    done = np.zeros(n_chunks, np.bool_)
    if path is not None and Path(path).exists():
        old = load_dataset(path)
        same = (
            old["teacher"] == teacher.name
            and old["seed"] == seed
            and old["chunk"] == chunk
            and np.array_equal(old["boards"], boards)
            and np.array_equal(old["firsts"], firsts)
        )
        if not same:
            raise ValueError(f"{path} holds another dataset (teacher {old['teacher']!r}); choose another file")
        targets, done = old["targets"].copy(), old["done"].copy()
    data = {"game": teacher.game, "boards": boards, "firsts": firsts, "chunk": chunk, "seed": seed}
    data.update(teacher=teacher.name, source=source)

    def put(i, lab):
        nonlocal targets
        if targets is None:
            targets = np.zeros((n, lab.shape[1]), np.float32)
        targets[i * chunk : i * chunk + len(lab)] = lab
        done[i] = True

    todo = [i for i in range(n_chunks) if not done[i]]
    last_save = time.monotonic()

    def tick():
        nonlocal last_save
        if progress is not None:
            progress(int(min(n, done.sum() * chunk)), n)
        if path is not None and time.monotonic() - last_save > save_every and targets is not None:
            save_dataset(path, {**data, "targets": targets, "done": done})
            last_save = time.monotonic()

    try:
        if workers == 0:
            for i in todo:
                s = slice(i * chunk, (i + 1) * chunk)
                put(i, teacher.label(boards[s], firsts[s], chunk_seed(seed, i)))
                tick()
        elif todo:
            import ray

            started_here = not ray.is_initialized()
            if started_here:
                if address:
                    ray.init(address=address, log_to_driver=False)
                else:
                    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            try:
                remote = ray.remote(num_cpus=1)(_label_chunk)
                cap = workers * 2 if workers else int(2 * ray.cluster_resources().get("CPU", 1))
                tref = ray.put(teacher)
                pending: dict = {}
                queue = list(todo)
                while queue or pending:
                    while queue and len(pending) < cap:
                        i = queue.pop(0)
                        s = slice(i * chunk, (i + 1) * chunk)
                        pending[remote.remote(tref, boards[s], firsts[s], chunk_seed(seed, i))] = i
                    ready, _ = ray.wait(list(pending), num_returns=1)
                    for r in ready:
                        put(pending.pop(r), np.asarray(ray.get(r), np.float32))
                    tick()
            finally:
                if started_here:
                    ray.shutdown()
    except BaseException:
        # stopped (Ctrl-C, a failed task): keep the chunks finished so far for the next run
        if path is not None and targets is not None:
            save_dataset(path, {**data, "targets": targets, "done": done})
        raise
    if targets is None:
        from ..engine import _kernels as K
        from ..engine.net import GAME_CODES

        k = int(K.N_OUTPUTS[GAME_CODES[teacher.game]])
        targets = np.zeros((n, k), np.float32)
    data.update(targets=targets, done=done)
    if path is not None:
        save_dataset(path, data)
    data["labelled"] = np.repeat(done, chunk)[:n]
    return data

"""Positions to label: from self-play and from match records, from the view of the side on roll.

Every function returns ``(boards, firsts)``: ``boards`` ``int8[n, 28]`` in the layout of :mod:`nardy.rules._movegen`
with the side on roll as mover (pre-roll positions), ``firsts`` ``bool[n, 2]`` the long nardy first-turn
flags (side on roll, other side; all False in the hitting games). Finished positions are never returned.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.net import Net
from ..engine.rollout import sample_positions

__all__ = ["self_play_positions", "record_positions", "sibling_positions", "dedupe", "concat"]


def self_play_positions(net: Net, n: int, seed: int, eps: float = 0.05, keep: float = 0.1):
    """``n`` positions from ``net``'s 0-ply self-play (a random play with probability ``eps``, each position
    after the first two plies kept with probability ``keep``), reproducible from ``seed``
    (:func:`nardy.engine.rollout.sample_positions`)."""
    return sample_positions(net, int(n), int(seed), eps, keep)


def sibling_positions(net: Net, boards, firsts, top: int = 6, seed: int = 0, block: int = 4096):
    """The positions after the ``top`` best plays of one roll of each root: what a net must rank well.

    Self-play keeps mostly the positions after the play the net chose; a move decision compares that one
    with its siblings, the positions after the other good plays of the same roll, which the net then has
    rarely seen labelled. For each root (``boards int8[n, 28]`` / ``firsts bool[n, 2]``, side on roll) one
    roll is drawn (``numpy.random.default_rng(seed)``, in root order), its legal plays ranked by ``net``
    at 0-ply (with the bearoff database, as :class:`nardy.engine.Engine` ranks its hints; equal equities in the
    order of :meth:`nardy.rules.position.Position.legal_plays`; the batch's sums may round a near tie the other
    way than one position's hints do), and the positions after
    the best ``top`` are returned from the opponent's view (pre-roll: the opponent on roll; the mover's
    first-turn flag cleared). Positions that end the game are left out. The roots are worked through in
    batches of ``block`` (legal plays generated and evaluated together).

    Returns:
        ``(boards int8[m, 28], firsts bool[m, 2])``, ``m <= n * top``, not deduplicated.
    """
    from ..engine.evaluator import HybridEvaluator
    from ..engine.search import Searcher, mirror_boards
    from ..rules import _movegen as _core
    from ..rules.variants import get_rules

    rules = get_rules(net.game)
    searcher = Searcher(HybridEvaluator(net), rules)
    boards = np.ascontiguousarray(boards, np.int8).reshape(-1, 28)
    firsts = np.asarray(firsts, np.bool_).reshape(-1, 2)
    rng = np.random.default_rng(seed)
    dice = rng.integers(1, 7, size=(len(boards), 2)).astype(np.int64)
    rows, flags = [], []
    for s in range(0, len(boards), block):
        b, f, d = boards[s : s + block], firsts[s : s + block], dice[s : s + block]
        cap = max(4096, len(b) * 64)
        while True:
            out = np.empty((cap, 28), np.int8)
            offs = np.empty(len(b) + 1, np.int64)
            tot = _core.batch_results(
                b, d, searcher.hitting, searcher.strict, np.ascontiguousarray(f[:, 0]), searcher.head_mode, out, offs
            )
            if tot >= 0:
                break
            cap *= 4
        res = out[:tot]
        owner = np.repeat(np.arange(len(b)), np.diff(offs))
        eq = searcher.equity(searcher.result_values(res, f[owner, 1]))
        for i in range(len(b)):
            lo, hi = offs[i], offs[i + 1]
            if lo == hi:
                continue
            best = lo + np.argsort(-eq[lo:hi], kind="stable")[:top]
            keep = best[res[best, 0] < 15]  # a play that bears off the last checker ends the game
            if len(keep):
                rows.append(mirror_boards(res[keep], searcher.hitting))
                fl = np.zeros((len(keep), 2), np.bool_)
                fl[:, 0] = f[i, 1]  # the opponent on roll keeps its own flag; the mover's is cleared
                flags.append(fl)
    if not rows:
        return np.zeros((0, 28), np.int8), np.zeros((0, 2), np.bool_)
    return np.concatenate(rows).astype(np.int8), np.concatenate(flags)


def record_positions(paths, game: str = "backgammon", limit: int | None = None):
    """The positions before every play of the match records at ``paths`` (``.mat``/``.sgf`` files, or
    folders searched for them, sorted by name), replayed through the rules; records of another game, or
    that do not replay, are skipped. Cube decisions are not positions of their own (the position before the
    play that follows is). At most ``limit`` positions.

    Returns:
        ``(boards, firsts, stats)`` with ``stats = {"files", "read", "skipped", "positions"}``.
    """
    from nardy.records.files import read_record
    from nardy.records.mat import replay

    from ..rules.position import Position

    files: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            files += sorted(q for q in p.rglob("*") if q.suffix.lower() in (".mat", ".sgf", ".txt"))
        else:
            files.append(p)
    rows, firsts = [], []
    read = skipped = 0
    for f in files:
        try:
            rec = read_record(f)
            match = replay(rec)
        except (ValueError, OSError):
            skipped += 1
            continue
        if match.rules.name != game:
            skipped += 1
            continue
        read += 1
        for g in match.games:
            for e in g.history:
                if getattr(e, "type", None) != "play":
                    continue
                pos = Position.from_id(e.position, game)
                rows.append(pos.array.copy())
                firsts.append(pos.first_turn)
        if limit is not None and len(rows) >= limit:
            break
    boards = np.array(rows, np.int8).reshape(-1, 28)[:limit]
    fl = np.array(firsts, np.bool_).reshape(-1, 2)[:limit]
    return boards, fl, {"files": len(files), "read": read, "skipped": skipped, "positions": len(boards)}


def dedupe(boards: np.ndarray, firsts: np.ndarray):
    """The distinct ``(board, flags)`` rows, in the order of their first occurrence."""
    key = np.concatenate([np.asarray(boards, np.int8), np.asarray(firsts, np.int8)], axis=1)
    _, idx = np.unique(key, axis=0, return_index=True)
    idx.sort()
    return boards[idx], firsts[idx]


def concat(*parts):
    """``(boards, firsts)`` of several ``(boards, firsts[, ...])`` parts joined in order."""
    return (
        np.concatenate([p[0] for p in parts]).astype(np.int8),
        np.concatenate([p[1] for p in parts]).astype(np.bool_),
    )

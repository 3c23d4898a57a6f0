"""Who plays whom in a tournament and how they stand: the web's side of the tournament core.

The pairing and standing rules are :mod:`nardy.flow.tournament` (issue 44's tournament core) when it is
installed; this module turns the stored boards (:class:`nardy.web.store.tournaments.Board`) into its inputs and
its pairings back into ``(player0, player1 | None)`` pairs. Without it (the core is built in parallel) a plain
fallback of the same rules pairs: Swiss by score then rating without rematches (a bye, scoring 1, to the
lowest-ranked player without one), knockout seeded 1 v N with byes for the top seeds, arena pairing the free
players by score then rating avoiding their last opponent; standings with Buchholz and Sonneborn-Berger (Swiss,
knockout) or lichess's arena points (2 a win, 4 on a streak of 2+ wins, +1 a berserk win).

Everything is deterministic given its inputs.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ..store.tournaments import Board, Entrant

try:  # the tournament core (branch tourcore); absent until it is merged
    from ...flow import tournament as _core  # type: ignore[attr-defined,unused-ignore]
except ImportError:  # pragma: no cover - depends on the merge
    _core = None

__all__ = ["swiss_round", "knockout_round", "knockout_rounds", "arena_round", "standings", "BYE_POINTS"]

#: Points of a bye.
BYE_POINTS = 1.0

Pair = tuple[str, str | None]


def _points(boards: Sequence[Board]) -> dict[str, float]:
    out: dict[str, float] = {}
    for b in boards:
        if b.result is None:
            continue
        a, o = b.players
        out[a] = out.get(a, 0.0) + b.result[0]
        if o is not None:
            out[o] = out.get(o, 0.0) + b.result[1]
    return out


def _met(boards: Sequence[Board]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for b in boards:
        a, o = b.players
        if o is not None:
            out.setdefault(a, set()).add(o)
            out.setdefault(o, set()).add(a)
    return out


def _core_pairs(pairs) -> list[Pair]:
    return [(p.players[0], p.players[1]) for p in pairs]


def _core_history(boards: Sequence[Board]):
    return [
        _core.Pairing(
            round=b.round,
            players=b.players,
            result=b.result,
            game=b.game,
            board=b.board,
            berserk=tuple(bool(x) for x in b.extra.get("berserk", (False, False))),
        )
        for b in boards
    ]


def _core_entrants(people: Sequence[Entrant]):
    return [_core.Entrant(id=e.id, rating=e.rating, name=e.name, withdrawn=e.withdrawn) for e in people]


def swiss_round(people: Sequence[Entrant], boards: Sequence[Board], round_no: int) -> list[Pair]:
    """Round ``round_no``'s pairs of a Swiss among the entrants not withdrawn (``(p, None)``: a bye)."""
    if _core is not None and hasattr(_core, "swiss_pairings"):
        return _core_pairs(_core.swiss_pairings(_core_entrants(people), _core_history(boards), round_no))
    live = [e for e in people if not e.withdrawn]
    pts = _points(boards)
    met = _met(boards)
    order = sorted(live, key=lambda e: (-pts.get(e.id, 0.0), -e.rating, e.seq, e.id))
    pairs: list[Pair] = []
    if len(order) % 2:
        had_bye = {b.players[0] for b in boards if b.players[1] is None}
        bye = next((e for e in reversed(order) if e.id not in had_bye), order[-1])
        order.remove(bye)
        pairs.append((bye.id, None))
    ids = [e.id for e in order]
    found = _pair_without_rematch(ids, met) or [(ids[i], ids[i + 1]) for i in range(0, len(ids), 2)]
    return found + pairs


def _pair_without_rematch(ids: list[str], met: dict[str, set[str]], budget: list[int] | None = None):
    """Pairs of ``ids`` (in rank order) with no two who met before, the top one paired with the nearest it may
    play (backtracking with a bound on the work: ``None`` when none is found within it)."""
    budget = budget if budget is not None else [20000]
    if not ids:
        return []
    first, rest = ids[0], ids[1:]
    for i, other in enumerate(rest):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        if other in met.get(first, ()):
            continue
        tail = _pair_without_rematch(rest[:i] + rest[i + 1 :], met, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


def knockout_rounds(n: int) -> int:
    """Rounds of a knockout of ``n`` entrants (a bracket of the next power of two)."""
    return max(1, math.ceil(math.log2(max(2, n))))


def knockout_round(
    people: Sequence[Entrant], boards: Sequence[Board], round_no: int, ratings: dict[str, float]
) -> list[Pair]:
    """Round ``round_no``'s pairs of a knockout: round 1 seeded by rating (1 v N..., byes to a power of two for the
    top seeds), later rounds the winners of the boards before in bracket order. A withdrawn player's match is a
    walkover (a bye for the other); a drawn match goes to the higher seed."""
    if round_no == 1:
        seeded = sorted((e for e in people if not e.withdrawn), key=lambda e: (-e.rating, e.seq, e.id))
        size = 1 << knockout_rounds(len(seeded))
        slots: list[str | None] = [e.id for e in seeded] + [None] * (size - len(seeded))
        order = _bracket_order(size)
        return [
            (slots[order[i]] or slots[order[i + 1]] or "", slots[order[i + 1]] if slots[order[i]] else None)
            for i in range(0, size, 2)
            if slots[order[i]] or slots[order[i + 1]]
        ]
    out = [b for b in boards if b.round == round_no - 1]
    gone = {e.id for e in people if e.withdrawn}
    winners = [knockout_winner(b, ratings) for b in sorted(out, key=lambda b: b.board)]
    pairs: list[Pair] = []
    for i in range(0, len(winners), 2):
        a = winners[i]
        b = winners[i + 1] if i + 1 < len(winners) else None
        if a in gone:
            a, b = b, None
        if b in gone:
            b = None
        if a is None:
            continue
        pairs.append((a, b))
    return pairs


def knockout_winner(b: Board, ratings: dict[str, float]) -> str:
    """Who goes on from board ``b`` (a bye: its player; a draw: the higher rated)."""
    a, o = b.players
    if o is None or b.result is None:
        return a
    if b.result[0] != b.result[1]:
        return a if b.result[0] > b.result[1] else o
    return a if ratings.get(a, 0.0) >= ratings.get(o, 0.0) else o


def _bracket_order(size: int) -> list[int]:
    """Seed indices (0-based) in bracket order: 1 v N, then the winners meet as seeds would (1 v 4 v...)."""
    order = [0]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n - 1 - s)]
    return order


def arena_round(
    free: Sequence[Entrant], boards: Sequence[Board], scores: dict[str, float], now: float = 0.0
) -> list[Pair]:
    """Pairs of the free players of an arena (none of them at a board), by score then rating, each avoiding the
    last opponent when another is free; an odd one out waits."""
    if _core is not None and hasattr(_core, "arena_pairings"):
        last = _last_opponents(boards)
        got = _core.arena_pairings(_core_entrants(free), last, now)
        return _core_pairs(got)
    last = _last_opponents(boards)
    order = sorted(free, key=lambda e: (-scores.get(e.id, 0.0), -e.rating, e.seq, e.id))
    ids = [e.id for e in order]
    pairs: list[Pair] = []
    while len(ids) >= 2:
        a = ids.pop(0)
        pick = next((i for i, o in enumerate(ids) if last.get(a) != o), 0)
        pairs.append((a, ids.pop(pick)))
    return pairs


def _last_opponents(boards: Sequence[Board]) -> dict[str, str]:
    last: dict[str, str] = {}
    for b in sorted(boards, key=lambda b: (b.round, b.board)):
        a, o = b.players
        if o is not None:
            last[a], last[o] = o, a
    return last


def standings(fmt: str, people: Sequence[Entrant], boards: Sequence[Board]) -> list[dict[str, Any]]:
    """The standings, best first: ``{"rank", "id", "points", "tiebreaks"}``; Swiss and knockout: points, then
    Buchholz (the opponents' points) and Sonneborn-Berger (the points of the opponents beaten, half of those
    drawn); arena: lichess's points (2 a win, 4 on a streak of two wins or more, a draw 1, +1 a berserk win) then
    performance (the average opponent's rating, +400 a win, -400 a loss)."""
    if _core is not None and hasattr(_core, "standings"):
        got = _core.standings(_core_entrants(people), _core_history(boards), fmt)
        return [{"rank": s.rank, "id": s.id, "points": s.points, "tiebreaks": dict(s.tiebreaks)} for s in got]
    rating = {e.id: e.rating for e in people}
    done = [b for b in boards if b.result is not None]
    if fmt == "arena":
        return _arena_standings(people, done, rating)
    pts = _points(done)
    bh: dict[str, float] = {}
    sb: dict[str, float] = {}
    for b in done:
        a, o = b.players
        if o is None or b.result is None:
            continue
        for me, other, mine, theirs in ((a, o, b.result[0], b.result[1]), (o, a, b.result[1], b.result[0])):
            bh[me] = bh.get(me, 0.0) + pts.get(other, 0.0)
            if mine > theirs:
                sb[me] = sb.get(me, 0.0) + pts.get(other, 0.0)
            elif mine == theirs:
                sb[me] = sb.get(me, 0.0) + pts.get(other, 0.0) / 2
    rows = [
        {
            "id": e.id,
            "points": pts.get(e.id, 0.0),
            "tiebreaks": {"buchholz": bh.get(e.id, 0.0), "sonneborn_berger": sb.get(e.id, 0.0)},
        }
        for e in people
    ]
    if fmt == "knockout":  # how far each went first
        far = {}
        for b in boards:
            for p in b.players:
                if p is not None:
                    far[p] = max(far.get(p, 0), b.round)
        for r in rows:
            r["tiebreaks"]["round"] = float(far.get(r["id"], 0))
        rows.sort(key=lambda r: (-r["tiebreaks"]["round"], -r["points"], -rating.get(r["id"], 0.0), r["id"]))
    else:
        rows.sort(
            key=lambda r: (
                -r["points"],
                -r["tiebreaks"]["buchholz"],
                -r["tiebreaks"]["sonneborn_berger"],
                -rating.get(r["id"], 0.0),
                r["id"],
            )
        )
    return [{"rank": i + 1, **r} for i, r in enumerate(rows)]


def _arena_standings(people: Sequence[Entrant], done: Sequence[Board], rating: dict[str, float]) -> list[dict]:
    pts: dict[str, float] = {}
    streak: dict[str, int] = {}
    perf: dict[str, list[float]] = {}
    for b in sorted(done, key=lambda b: (b.finished or b.created or 0, b.round, b.board)):  # type: ignore[arg-type,return-value]
        a, o = b.players
        assert b.result is not None
        berserk = b.extra.get("berserk", [False, False])
        for i, (me, other) in enumerate(((a, o), (o, a))):
            if me is None:
                continue
            mine, theirs = b.result[i], b.result[1 - i]
            if other is None:
                pts[me] = pts.get(me, 0.0) + 2
                continue
            if mine > theirs:
                streak[me] = streak.get(me, 0) + 1
                pts[me] = pts.get(me, 0.0) + (4 if streak[me] > 2 else 2) + (1 if berserk[i] else 0)
                perf.setdefault(me, []).append(rating.get(other, 1500.0) + 400)
            elif mine == theirs:
                pts[me] = pts.get(me, 0.0) + (2 if streak.get(me, 0) >= 2 else 1)
                perf.setdefault(me, []).append(rating.get(other, 1500.0))
            else:
                streak[me] = 0
                perf.setdefault(me, []).append(rating.get(other, 1500.0) - 400)
    rows = [
        {
            "id": e.id,
            "points": pts.get(e.id, 0.0),
            "tiebreaks": {"performance": round(sum(perf[e.id]) / len(perf[e.id]), 1) if perf.get(e.id) else 0.0},
        }
        for e in people
    ]
    rows.sort(key=lambda r: (-r["points"], -r["tiebreaks"]["performance"], r["id"]))
    return [{"rank": i + 1, **r} for i, r in enumerate(rows)]

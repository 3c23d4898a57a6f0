"""Knockout brackets (issue 44): seeding by rating, byes for the top seeds, winners advance.

The bracket has ``size`` = the smallest power of two >= the number of entrants; seeds 1..n are placed in the
standard order (1 v size, size/2+1 v size/2, ...: for 8, boards 1-4 hold 1v8, 4v5, 2v7, 3v6), so seeds 1 and 2
can meet only in the final, 1..4 only from the semi-finals. The seeds past n are missing, so the top
``size - n`` seeds get a bye in round 1. The winners of boards 2k-1 and 2k of a round meet on board k of the
next.

A match ends level only in long nardy's last-roll draw (½-½ or 1-1): it is replayed (a new pairing of the same
round and board). A withdrawn player loses its later matches by walkover (its opponent scores 1-0 with no game);
if both players of a match have withdrawn, the first one "advances" and loses its next match by walkover.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from nardy.flow.tournament.model import Entrant, Pairing, Standing, entrants_by_id, rank_rows


def seed_order(size: int) -> list[int]:
    """The seeds (1-based) in bracket order for a bracket of ``size`` (a power of two): the pairs of
    consecutive items are round 1's boards. ``seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]``. Raises ValueError
    if ``size`` is not a power of two."""
    if size < 1 or size & (size - 1):
        raise ValueError(f"size must be a power of two, not {size}")
    order = [1]
    while len(order) < size:
        m = 2 * len(order) + 1
        order = [x for s in order for x in (s, m - s)]
    return order


@dataclass(frozen=True)
class Bracket:
    """A knockout bracket: ``seeds`` (the entrants' ids, seed 1 first), ``size`` (a power of two), ``rounds``
    (log2 of size), ``lengths`` (the match length in points of each round, the last value repeated when
    shorter) and ``first_round`` (round 1's pairings by board; a bye has its result set)."""

    seeds: tuple[str, ...]
    size: int
    rounds: int
    lengths: tuple[int, ...]
    first_round: tuple[Pairing, ...]

    def length(self, round_no: int) -> int:
        """The match length of round ``round_no`` (1-based) in points."""
        return self.lengths[min(round_no, len(self.lengths)) - 1]


def knockout_bracket(entrants: Sequence[Entrant], lengths_per_round: Sequence[int]) -> Bracket:
    """The bracket of ``entrants`` seeded by rating (high first, then id); withdrawn entrants are left out.

    ``lengths_per_round``: match lengths by round (at least one, each >= 1). Raises ValueError with fewer than
    two entrants, bad lengths or duplicate ids.
    """
    entrants_by_id(entrants)
    present = sorted((e for e in entrants if not e.withdrawn), key=lambda e: (-e.rating, e.id))
    if len(present) < 2:
        raise ValueError("a knockout needs at least two entrants")
    if not lengths_per_round or any(int(x) < 1 for x in lengths_per_round):
        raise ValueError("lengths_per_round needs at least one length, each >= 1")
    size = 1
    while size < len(present):
        size *= 2
    rounds = size.bit_length() - 1
    lengths = tuple(int(x) for x in lengths_per_round)
    order = seed_order(size)
    seeds = tuple(e.id for e in present)
    first: list[Pairing] = []
    for board in range(size // 2):
        a, b = order[2 * board], order[2 * board + 1]  # a < b: the better seed first
        pa = seeds[a - 1]
        pb = seeds[b - 1] if b <= len(seeds) else None
        first.append(
            Pairing(
                round=1,
                players=(pa, pb),
                result=(1.0, 0.0) if pb is None else None,
                board=board + 1,
                length=lengths[0],
            )
        )
    return Bracket(seeds=seeds, size=size, rounds=rounds, lengths=lengths, first_round=tuple(first))


def _decisive(pairings: Sequence[Pairing]) -> dict[tuple[int, int], Pairing]:
    """The last pairing of each (round, board) in ``pairings`` (replays come after the match they replay)."""
    out: dict[tuple[int, int], Pairing] = {}
    for p in pairings:
        out[(p.round, p.board)] = p
    return out


def _advancing(p: Pairing, withdrawn: Collection[str]) -> str | None:
    """Who goes on from the finished pairing ``p``: the winner, or on equal points the one who has not withdrawn
    (the first player if both have); None if unfinished or a level result to replay."""
    if p.result is None:
        return None
    w = p.winner()
    if w is not None:
        return w
    a, b = p.players
    if b is None:
        return a
    if a in withdrawn or b in withdrawn:
        return b if a in withdrawn and b not in withdrawn else a
    return None


def _walkover(p: Pairing, withdrawn: Collection[str]) -> Pairing:
    """``p`` with a walkover result if a player in it has withdrawn."""
    a, b = p.players
    wa, wb = a in withdrawn, b is not None and b in withdrawn
    if p.result is not None or not (wa or wb):
        return p
    return p.with_result((0.0 if wa else 1.0, 0.0 if wb else 1.0) if b is not None else (0.0, 0.0))


def knockout_next(bracket: Bracket, results: Sequence[Pairing], withdrawn: Collection[str] = ()) -> list[Pairing]:
    """The pairings to make now, given every pairing made so far with the results known (``results``, in the
    order they were made).

    * nothing made yet: round 1 (with walkovers for the withdrawn);
    * a match of the current round ended level (last-roll draw) and both players are present: its replay, same
      round and board;
    * every board of the current round decided: the next round's pairings (winners of boards 2k-1 and 2k on
      board k, the first seat to the upper board's winner; walkover results set for withdrawn players);
    * else (matches still played, or the final decided): ``[]``.

    ``withdrawn``: ids of entrants who withdrew; their pairings not yet finished get a walkover (the caller
    applies it to the matches in play). Raises ValueError if ``results`` hold a round past the bracket's.
    """
    wd = set(withdrawn)
    if not results:
        return [_walkover(p, wd) for p in bracket.first_round]
    last = _decisive(results)
    current = max(r for r, _ in last)
    if current > bracket.rounds:
        raise ValueError(f"round {current} is past the bracket's {bracket.rounds} rounds")
    boards = bracket.size >> current
    replays: list[Pairing] = []
    winners: list[str] = []
    for board in range(1, boards + 1):
        p = last.get((current, board))
        if p is None:
            return []
        if p.result is None:
            w = _walkover(p, wd)
            if w.result is None:
                return []
            p = w
        who = _advancing(p, wd)
        if who is None:
            replays.append(Pairing(round=current, players=p.players, board=board, length=p.length))
        else:
            winners.append(who)
    if replays:
        return replays
    if current == bracket.rounds:
        return []
    nxt = current + 1
    return [
        _walkover(
            Pairing(round=nxt, players=(winners[2 * k], winners[2 * k + 1]), board=k + 1, length=bracket.length(nxt)),
            wd,
        )
        for k in range(boards // 2)
    ]


def knockout_champion(bracket: Bracket, results: Sequence[Pairing], withdrawn: Collection[str] = ()) -> str | None:
    """The winner of the final, or None while it is not decided."""
    p = _decisive(results).get((bracket.rounds, 1))
    return None if p is None else _advancing(p, set(withdrawn))


def knockout_standings(entrants: Sequence[Entrant], results: Sequence[Pairing]) -> list[Standing]:
    """Knockout standings: by the last round reached (the champion counts one round past the final), then
    matches won, then rating, then id; players out in the same round share a rank (1, 2, 3, 3, 5, 5, 5, 5...).
    ``points`` are matches won (byes and walkovers included); ``tiebreaks``: ``round_reached``. The final is
    recognised as a round of a single board."""
    won: dict[str, float] = {e.id: 0.0 for e in entrants}
    reached: dict[str, float] = {e.id: 0.0 for e in entrants}
    last = _decisive(results)
    for (rnd, _board), p in last.items():
        for pid in p.players:
            if pid is not None and pid in reached:
                reached[pid] = max(reached[pid], float(rnd))
        who = p.winner() or (p.players[0] if p.is_bye and p.result is not None else None)
        if who is not None and who in won:
            won[who] += 1.0
    if last:
        final = max(r for r, _ in last)
        boards = [b for r, b in last if r == final]
        champion = _advancing(last[(final, boards[0])], ()) if len(boards) == 1 else None
        if boards == [1] and champion is not None and champion in reached:
            reached[champion] = float(final + 1)
    order = sorted(entrants, key=lambda e: (-reached[e.id], -won[e.id], -e.rating, e.id))
    rows = [(e.id, won[e.id], {"round_reached": reached[e.id]}) for e in order]
    return rank_rows(rows, lambda pts, tb: tb["round_reached"])

"""Swiss pairings and tie-breaks (issue 44).

Pairing rules (after the basics of the FIDE Dutch system, FIDE Handbook C.04.3, simplified: no colours, no
float history):

* withdrawn entrants are not paired; two players never meet twice (absolute, C.04.1 (b));
* players are ranked by points, then rating, then id; a *score group* is the players on equal points;
* within a score group of size g ranked S1..Sg, the top half meets the bottom half (S1 v S(g/2+1), S2 v
  S(g/2+2), ...); an odd player out floats down to meet the top of the next group;
* when the number of players is odd, the lowest-ranked player who has not had a bye gets it (C.04.1 (c)); the bye
  scores :attr:`Regulation.bye_points` (1);
* these are preferences: the pairing is made player by player from the top, each one getting the first opponent
  in that order *with whom all the others can still be paired without a rematch* (:mod:`.matching`, Edmonds'
  blossom algorithm), so a legal pairing is found whenever one exists.

Tie-breaks (FIDE Handbook C.07, simplified): Buchholz is the sum of the final points of a player's opponents;
Sonneborn-Berger the sum over its matches of the match points scored times the opponent's final points. A bye
counts in both as a match against a virtual opponent with *the player's own final points* (a won match in SB).
Withdrawn opponents count with the points they had. Unfinished matches count as 0 points.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from nardy.flow.tournament.matching import pair_in_order
from nardy.flow.tournament.model import (
    Entrant,
    Pairing,
    Regulation,
    Standing,
    entrants_by_id,
    opponents_by_player,
    points_by_player,
    rank_rows,
)


def ranked(entrants: Iterable[Entrant], points: dict[str, float]) -> list[Entrant]:
    """``entrants`` by points (high first), then rating (high first), then id."""
    return sorted(entrants, key=lambda e: (-points.get(e.id, 0.0), -e.rating, e.id))


def swiss_pairings(
    entrants: Sequence[Entrant],
    history: Sequence[Pairing],
    round_no: int,
    regulation: Regulation | None = None,
) -> list[Pairing]:
    """The pairings of Swiss round ``round_no`` (1-based), given the pairings of the earlier rounds with their
    results (``history``; a match without a result counts as played with 0 points each).

    Returns the pairings by board (board 1 = the top-ranked player's), the bye last with its result already set
    (``(bye_points, 0)``, ``players = (id, None)``). The higher-ranked player of a pair is seat 0. Raises
    PairingImpossible when every complete pairing would repeat a match, ValueError for duplicate ids.
    """
    reg = regulation or Regulation()
    entrants_by_id(entrants)
    points = points_by_player(history)
    met = opponents_by_player(history)
    had_bye = {p.players[0] for p in history if p.is_bye}
    order = [e.id for e in ranked((e for e in entrants if not e.withdrawn), points)]
    position = {pid: i for i, pid in enumerate(order)}

    def allowed(a: str, b: str) -> bool:
        return b not in met.get(a, ())

    def candidates(u: str, rest: Sequence[str]) -> list[str]:
        mine = points.get(u, 0.0)
        group = [c for c in rest if points.get(c, 0.0) == mine]
        ideal = (len(group) + 1) // 2 - 1  # index in `group` (u excluded) of S(g/2+1), g = len(group) + 1
        in_group = sorted(range(len(group)), key=lambda i: (i < ideal, abs(i - ideal)))
        others = sorted(
            (c for c in rest if points.get(c, 0.0) != mine), key=lambda c: (abs(points.get(c, 0.0) - mine), position[c])
        )
        return [group[i] for i in in_group] + others

    bye_order = [p for p in reversed(order) if p not in had_bye] or list(reversed(order))
    pairs, left = pair_in_order(order, allowed, candidates, bye_order)
    out = [Pairing(round=round_no, players=(a, b), board=i + 1) for i, (a, b) in enumerate(pairs)]
    for bye in left:
        out.append(Pairing(round=round_no, players=(bye, None), result=reg.bye(), board=len(out) + 1))
    return out


def swiss_standings(entrants: Sequence[Entrant], history: Sequence[Pairing]) -> list[Standing]:
    """The Swiss standings: points, then Buchholz, then Sonneborn-Berger, then rating, then id; entrants equal on
    points and both tie-breaks share a rank. Each :class:`Standing` carries ``tiebreaks`` ``buchholz`` and
    ``sonneborn_berger`` (see the module's docstring for byes and withdrawals)."""
    points = points_by_player(history)
    buchholz: dict[str, float] = {e.id: 0.0 for e in entrants}
    sb: dict[str, float] = {e.id: 0.0 for e in entrants}
    for p in history:
        for seat, pid in enumerate(p.players):
            if pid is None or pid not in buchholz:
                continue
            opp = p.players[1 - seat]
            opp_points = points.get(pid, 0.0) if opp is None else points.get(opp, 0.0)
            mine = p.result[seat] if p.result is not None else 0.0
            buchholz[pid] += opp_points
            sb[pid] += mine * opp_points
    rows = [
        (
            points.get(e.id, 0.0),
            {"buchholz": buchholz[e.id], "sonneborn_berger": sb[e.id]},
            e,
        )
        for e in entrants
    ]
    rows.sort(key=lambda r: (-r[0], -r[1]["buchholz"], -r[1]["sonneborn_berger"], -r[2].rating, r[2].id))
    return rank_rows([(e.id, pts, tb) for pts, tb, e in rows], lambda pts, tb: (pts, tuple(tb.values())))

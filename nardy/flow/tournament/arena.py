"""Arena tournaments (issue 44), after lichess's arena rules (https://lichess.org/tournament/help).

An arena runs for a fixed time; a player who finishes a match is *free* and is paired again at once with another
free player: by points then rating (neighbours in the ranking meet), never with the opponent of its last match
when another choice exists this wave (if it does not, the player waits for the next wave).

Points per match (lichess): a win 2, a draw (long nardy's last-roll draw, whatever :attr:`Regulation.draw_points`
says) 1, a loss 0. After two wins in a row a player is *on a streak*: its matches count double (a win 4, a draw
2) until a match it does not win, which ends the streak. A berserk player (half its clock) who wins gets
:attr:`Regulation.berserk_bonus` (1) more, not doubled. A double forfeit (0-0) is a loss for both.

Performance: the mean rating of the opponents met plus 400 × (wins − losses) / matches (FIDE's linear
"algorithm of 400"; draws count neither way); 0 before the first match.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from nardy.flow.tournament.matching import pair_in_order
from nardy.flow.tournament.model import Entrant, Pairing, Regulation, Standing, rank_rows


def arena_pairings(
    free_entrants: Sequence[Entrant],
    recent_opponents: Mapping[str, str],
    now: float,
    *,
    scores: Mapping[str, float] | None = None,
    round_no: int = 0,
    ends_at: float | None = None,
    min_left_s: float = 0.0,
) -> list[Pairing]:
    """Pair the free players now.

    ``free_entrants``: the players free to play (withdrawn ones are skipped); ``recent_opponents``: each
    player's last opponent (id -> id); ``scores``: arena points so far (missing = 0); ``now`` and ``ends_at``:
    seconds on any one clock (e.g. UNIX time): no pairing is made when ``ends_at - now < min_left_s`` (too late to
    play a match). ``round_no`` numbers the wave (stored in each Pairing's ``round``).

    Returns as many pairs as possible (by board: the top-ranked first; higher-ranked player seat 0); the players
    left out wait. Never returns a pair of players who played each other last.
    """
    if ends_at is not None and ends_at - now < min_left_s:
        return []
    pts = scores or {}
    players = sorted(
        (e for e in free_entrants if not e.withdrawn), key=lambda e: (-pts.get(e.id, 0.0), -e.rating, e.id)
    )
    order = [e.id for e in players]

    def allowed(a: str, b: str) -> bool:
        return recent_opponents.get(a) != b and recent_opponents.get(b) != a

    pairs, _left = pair_in_order(order, allowed, lambda _u, rest: rest, complete=False)
    return [Pairing(round=round_no, players=(a, b), board=i + 1) for i, (a, b) in enumerate(pairs)]


def arena_match_points(history: Sequence[Pairing], regulation: Regulation | None = None) -> dict[str, list[int]]:
    """Each player's arena points match by match, in the order of ``history`` (unfinished pairings and byes
    skipped): e.g. win, win, win, draw, loss, win gives ``[2, 2, 4, 2, 0, 2]``."""
    reg = regulation or Regulation()
    out: dict[str, list[int]] = {}
    wins_in_a_row: dict[str, int] = {}
    for p in history:
        if p.result is None or p.is_bye:
            continue
        for seat, pid in enumerate(p.players):
            assert pid is not None
            mine, theirs = p.result[seat], p.result[1 - seat]
            streak = wins_in_a_row.get(pid, 0) >= 2
            factor = 2 if streak else 1
            if mine > theirs:
                got = 2 * factor + (reg.berserk_bonus if p.berserk[seat] else 0)
                wins_in_a_row[pid] = wins_in_a_row.get(pid, 0) + 1
            elif mine == theirs and mine > 0:
                got = factor
                wins_in_a_row[pid] = 0
            else:
                got = 0
                wins_in_a_row[pid] = 0
            out.setdefault(pid, []).append(got)
    return out


def arena_standings(
    entrants: Sequence[Entrant], history: Sequence[Pairing], regulation: Regulation | None = None
) -> list[Standing]:
    """Arena standings: points (see the module's docstring), then performance, then rating, then id; equal
    points and performance share a rank. ``tiebreaks``: ``performance``, ``matches``, ``streak`` (1.0 when the
    player is on a streak now)."""
    rating = {e.id: e.rating for e in entrants}
    per_match = arena_match_points(history, regulation)
    opp_ratings: dict[str, list[float]] = {}
    balance: dict[str, int] = {}
    last_two: dict[str, list[bool]] = {}
    for p in history:
        if p.result is None or p.is_bye:
            continue
        for seat, pid in enumerate(p.players):
            opp = p.players[1 - seat]
            assert pid is not None and opp is not None
            opp_ratings.setdefault(pid, []).append(rating.get(opp, 0.0))
            mine, theirs = p.result[seat], p.result[1 - seat]
            won = mine > theirs
            lost = mine < theirs or mine == theirs == 0
            balance[pid] = balance.get(pid, 0) + (1 if won else -1 if lost else 0)
            seq = last_two.setdefault(pid, [])
            seq[:] = (seq + [won])[-2:] if won else []
    rows = []
    for e in entrants:
        opps = opp_ratings.get(e.id, [])
        perf = sum(opps) / len(opps) + 400.0 * balance.get(e.id, 0) / len(opps) if opps else 0.0
        tb = {
            "performance": round(perf, 1),
            "matches": float(len(opps)),
            "streak": 1.0 if len(last_two.get(e.id, [])) == 2 else 0.0,
        }
        rows.append((e.id, float(sum(per_match.get(e.id, []))), tb, e.rating))
    rows.sort(key=lambda r: (-r[1], -r[2]["performance"], -r[3], r[0]))
    return rank_rows([(pid, pts, tb) for pid, pts, tb, _ in rows], lambda pts, tb: (pts, tb["performance"]))

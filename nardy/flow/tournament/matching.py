"""Pairing players by preference while a complete pairing stays possible (Swiss and arena pairings).

The method: a maximum matching of the "may meet" graph is kept at every step (Edmonds' blossom algorithm for
general graphs, cardinality version: J. Edmonds, "Paths, trees, and flowers", 1965); players are then paired in
rank order, each with the first opponent of its preference list such that the players still unpaired can all be
paired. Forcing a pair (u, v) into a perfect matching M of the rest costs one augmenting-path search: drop u and
v, whose partners u' and v' in M become the only free vertices, and search a path from u' (it can only end at
v'). So a legal pairing is always found when one exists, and the result is the best one in the order of the
preferences (lexicographically: the top player gets its best possible opponent, then the next...).

Time: one search is O(n²) at most (n players, all pairs allowed); the starting matching is the greedy one made
with the same preferences, so most steps find the wanted pair already matched and cost nothing.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Sequence

from nardy.flow.tournament.model import PairingImpossible


class _Blossom:
    """A matching on vertices 0..n-1 of a graph given by adjacency lists, with removable vertices."""

    def __init__(self, adj: list[list[int]]) -> None:
        self.n = len(adj)
        self.adj = adj
        self.mate = [-1] * self.n
        self.removed = [False] * self.n

    def augment_from(self, root: int) -> bool:
        """Search an augmenting path from the free vertex ``root`` (Edmonds, blossoms shrunk through a base
        array); if one is found, flip it (the matching grows by one) and return True."""
        n, adj, mate, removed = self.n, self.adj, self.mate, self.removed
        parent = [-1] * n
        base = list(range(n))
        used = [False] * n
        used[root] = True
        queue = deque([root])

        def lca(a: int, b: int) -> int:
            seen = set()
            while True:
                a = base[a]
                seen.add(a)
                if mate[a] == -1:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if b in seen:
                    return b
                b = parent[mate[b]]

        def mark(v: int, b: int, child: int, blossom: list[bool]) -> None:
            while base[v] != b:
                blossom[base[v]] = blossom[base[mate[v]]] = True
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        while queue:
            v = queue.popleft()
            for to in adj[v]:
                if removed[to] or base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                    cur = lca(v, to)
                    blossom = [False] * n
                    mark(v, cur, to, blossom)
                    mark(to, cur, v, blossom)
                    for i in range(n):
                        if blossom[base[i]]:
                            base[i] = cur
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if mate[to] == -1:
                        while to != -1:
                            pv = parent[to]
                            nxt = mate[pv]
                            mate[to] = pv
                            mate[pv] = to
                            to = nxt
                        return True
                    used[mate[to]] = True
                    queue.append(mate[to])
        return False

    def maximize(self) -> None:
        """Grow the matching to a maximum one (a vertex that cannot be augmented once never can be later)."""
        for v in range(self.n):
            if self.mate[v] == -1 and not self.removed[v]:
                self.augment_from(v)

    def free(self) -> list[int]:
        """The vertices not removed and not matched."""
        return [v for v in range(self.n) if self.mate[v] == -1 and not self.removed[v]]

    def fix(self, vs: Sequence[int]) -> bool:
        """Take out the vertices ``vs``: one vertex (a bye) or two to be paired together, keeping the matching
        maximum: the pair counts as one matched edge, a single vertex as nothing. At most one augmenting-path
        search is needed, from a partner that ``vs`` leave free. Returns False, changing nothing, if the matching
        of the rest would be smaller than that."""
        mate, removed = self.mate, self.removed
        old = {v: mate[v] for v in vs}
        partners = [m for m in old.values() if m != -1 and m not in old]
        needed = len(partners) - (len(vs) - 1) > 0
        for v in vs:
            removed[v] = True
            mate[v] = -1
        for m in partners:
            mate[m] = -1
        if needed and not any(self.augment_from(p) for p in partners):
            for v in vs:
                removed[v] = False
            for v, m in old.items():
                mate[v] = m
                if m != -1:
                    mate[m] = v
            return False
        if len(vs) == 2:
            mate[vs[0]], mate[vs[1]] = vs[1], vs[0]
        return True


def pair_in_order(
    players: Sequence[str],
    allowed: Callable[[str, str], bool],
    candidates: Callable[[str, Sequence[str]], Iterable[str]],
    bye_order: Sequence[str] = (),
    complete: bool = True,
) -> tuple[list[tuple[str, str]], list[str]]:
    """Pair every one of ``players`` (in rank order, the top first), one left over for a bye when their number
    is odd.

    ``allowed(a, b)``: whether a and b may meet (symmetric). ``candidates(u, rest)``: u's opponents in order of
    preference, among ``rest`` (the players still unpaired, in rank order, u excluded); players not listed are
    tried after, in rank order. ``bye_order``: the players who may get the bye, the first one first (an odd
    number of players only); the first one with whom a complete pairing of the others exists gets it.

    ``complete=False``: pair as many as possible instead (a maximum matching), the others left over
    (``bye_order`` unused).

    Returns the pairs (the higher-ranked player first, in the rank order of the first) and the players left
    over (the bye, or none; with ``complete=False`` any number, in rank order). Raises PairingImpossible when no
    complete pairing exists (or no one of ``bye_order`` can take the bye).
    """
    index = {p: i for i, p in enumerate(players)}
    if len(index) != len(players):
        raise ValueError("a player is listed twice")
    n = len(players)
    adj: list[list[int]] = [[] for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            if allowed(players[i], players[j]):
                adj[i].append(j)
                adj[j].append(i)
    m = _Blossom(adj)
    # the starting matching: greedy with the same preferences, then made maximum
    rest = list(players)
    while rest:
        u = rest.pop(0)
        if m.mate[index[u]] != -1:
            continue
        for c in _ordered(u, rest, candidates):
            ci = index[c]
            if m.mate[ci] == -1 and allowed(u, c):
                m.mate[index[u]], m.mate[ci] = ci, index[u]
                break
    m.maximize()
    if complete and len(m.free()) > n % 2:
        raise PairingImpossible(f"no complete pairing of {n} players exists")
    bye: str | None = None
    if complete and n % 2:
        for b in bye_order:
            if m.fix([index[b]]):
                bye = b
                break
        else:
            raise PairingImpossible("no player who may take the bye leaves a complete pairing of the others")
    pairs: list[tuple[str, str]] = []
    left = [] if bye is None else [bye]
    rest = [p for p in players if p != bye]
    while rest:
        u = rest.pop(0)
        ui = index[u]
        for c in _ordered(u, rest, candidates):
            ci = index[c]
            if allowed(u, c) and m.fix([ui, ci]):
                pairs.append((u, c))
                rest.remove(c)
                break
        else:
            # no maximum matching pairs u: u is free in the one kept (else its mate would have done)
            if complete:  # pragma: no cover - the matching kept says u can be paired
                raise AssertionError(f"{u} could not be paired though a complete pairing exists")
            m.fix([ui])
            left.append(u)
    return pairs, left


def _ordered(u: str, rest: Sequence[str], candidates: Callable[[str, Sequence[str]], Iterable[str]]) -> list[str]:
    """u's candidates in preference order (those not in ``rest`` dropped), then the rest of ``rest`` in rank
    order."""
    inside = set(rest)
    pref = list(dict.fromkeys(c for c in candidates(u, rest) if c in inside))
    seen = set(pref)
    return pref + [c for c in rest if c not in seen]

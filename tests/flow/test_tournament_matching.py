"""Pairing by preference with Edmonds' blossom algorithm (nardy/flow/tournament/matching.py): a complete
pairing is found exactly when one exists (checked against exhaustive search on small random graphs, odd cycles
included), as many pairs as a maximum matching otherwise, and the preferences decide among the legal ones."""

from __future__ import annotations

import itertools
import random

import pytest

from nardy.flow.tournament.matching import pair_in_order
from nardy.flow.tournament.model import PairingImpossible


def max_matching_size(n: int, edges: set[frozenset[int]]) -> int:
    """Exhaustive maximum matching size (small n)."""

    def best(free: tuple[int, ...]) -> int:
        if len(free) < 2:
            return 0
        u, rest = free[0], free[1:]
        out = best(rest)  # u left out
        for i, v in enumerate(rest):
            if frozenset((u, v)) in edges:
                out = max(out, 1 + best(rest[:i] + rest[i + 1 :]))
        return out

    return best(tuple(range(n)))


def random_graph(rng: random.Random, n: int, p: float) -> set[frozenset[int]]:
    return {frozenset(e) for e in itertools.combinations(range(n), 2) if rng.random() < p}


@pytest.mark.parametrize("seed", range(150))
def test_a_complete_pairing_is_found_exactly_when_one_exists(seed):
    rng = random.Random(seed)
    n = rng.randint(2, 11)
    edges = random_graph(rng, n, rng.choice([0.2, 0.35, 0.5, 0.8]))
    names = [f"v{i}" for i in range(n)]
    idx = {v: i for i, v in enumerate(names)}

    def allowed(a: str, b: str) -> bool:
        return frozenset((idx[a], idx[b])) in edges

    prefs = {v: rng.sample(names, n) for v in names}
    best = max_matching_size(n, edges)
    # maximum pairing
    pairs, left = pair_in_order(names, allowed, lambda u, rest: prefs[u], complete=False)
    assert len(pairs) == best and all(allowed(a, b) for a, b in pairs)
    assert sorted([x for pr in pairs for x in pr] + left) == sorted(names)
    # complete pairing (one bye when odd, anyone may take it)
    if best == n // 2:
        pairs, left = pair_in_order(names, allowed, lambda u, rest: prefs[u], bye_order=names[::-1])
        assert len(pairs) == n // 2 and len(left) == n % 2 and all(allowed(a, b) for a, b in pairs)
    else:
        with pytest.raises(PairingImpossible):
            pair_in_order(names, allowed, lambda u, rest: prefs[u], bye_order=names[::-1])


def test_blossoms_an_odd_cycle_with_a_tail_is_paired():
    # the 5-cycle a-b-c-d-e-a with a tail e-f: the only perfect matchings go through the cycle's blossom
    edges = {("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("e", "a"), ("e", "f")}
    allowed = lambda x, y: (x, y) in edges or (y, x) in edges  # noqa: E731
    pairs, left = pair_in_order(list("abcdef"), allowed, lambda u, rest: rest)
    assert left == [] and sorted(pairs) == [("a", "b"), ("c", "d"), ("e", "f")]


def test_the_top_player_gets_its_first_choice_when_the_rest_can_still_be_paired():
    names = list("abcdef")
    # a prefers f, but then b, c, d, e must pair: b-c forbidden, d-e forbidden => a-f leaves b-d, c-e
    forbidden = {frozenset("bc"), frozenset("de")}
    allowed = lambda x, y: frozenset((x, y)) not in forbidden  # noqa: E731
    prefs = {"a": ["f"], "b": ["c", "e", "d"]}
    pairs, _ = pair_in_order(names, allowed, lambda u, rest: prefs.get(u, []))
    assert pairs == [("a", "f"), ("b", "e"), ("c", "d")]


def test_the_bye_goes_to_the_first_of_the_bye_order_that_leaves_a_complete_pairing():
    # b and c may not meet: a bye for a would leave them to each other, so the bye goes to b
    allowed = lambda x, y: {x, y} != {"c", "b"}  # noqa: E731
    pairs, left = pair_in_order(["a", "b", "c"], allowed, lambda u, rest: rest, bye_order=["a", "b", "c"])
    assert left == ["b"] and pairs == [("a", "c")]

"""Knockout brackets (nardy/flow/tournament/knockout.py, docs/tournaments.md "Knockout"): seeded by rating, byes
to a power of two for the top seeds, seeds 1 and 2 meet only in the final, winners advance with the length of
their round, a level match (last-roll draw) is replayed, a withdrawn player loses by walkover."""

from __future__ import annotations

import random

import pytest

from nardy.flow.tournament import (
    Entrant,
    Pairing,
    knockout_bracket,
    knockout_champion,
    knockout_next,
    seed_order,
    standings,
)


def field_of(n: int) -> list[Entrant]:
    """s1..sn, s1 the highest rated (given in a shuffled order: seeding must sort them)."""
    es = [Entrant(f"s{i}", 2000.0 - 10 * i) for i in range(1, n + 1)]
    random.Random(n).shuffle(es)
    return es


def run(bracket, pick, withdrawn=()) -> list[Pairing]:
    """Play the bracket to the end, ``pick(pairing) -> result`` deciding every match played."""
    made: list[Pairing] = []
    while True:
        nxt = knockout_next(bracket, made, withdrawn)
        if not nxt:
            return made
        made += [p if p.result is not None else p.with_result(pick(p)) for p in nxt]


def seed_of(pid: str) -> int:
    return int(pid[1:])


def higher_seed_wins(p: Pairing):
    return (1, 0) if seed_of(p.players[0]) < seed_of(p.players[1]) else (0, 1)


def test_seed_order_puts_seeds_one_and_two_in_opposite_halves():
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_order(4) == [1, 4, 2, 3]
    order = seed_order(16)
    assert 1 in order[:8] and 2 in order[8:] and {3, 4} <= set(order[8:]) | set(order[:8])
    with pytest.raises(ValueError):
        seed_order(6)


@pytest.mark.parametrize(
    ("n", "size", "byes"),
    [(5, 8, ["s1", "s2", "s3"]), (8, 8, []), (13, 16, ["s1", "s2", "s3"])],
)
def test_a_bracket_has_byes_to_a_power_of_two_for_the_top_seeds(n, size, byes):
    b = knockout_bracket(field_of(n), [3, 5])
    assert b.size == size and b.rounds == size.bit_length() - 1
    assert b.seeds == tuple(f"s{i}" for i in range(1, n + 1))
    got = [p.players[0] for p in b.first_round if p.is_bye]
    assert sorted(got, key=seed_of) == byes[: size - n] and len(got) == size - n
    assert all(p.result == (1.0, 0.0) for p in b.first_round if p.is_bye)
    assert all(p.result is None for p in b.first_round if not p.is_bye)
    assert [p.board for p in b.first_round] == list(range(1, size // 2 + 1))
    assert all(p.round == 1 and p.length == 3 for p in b.first_round)


def test_thirteen_players_give_byes_to_seeds_one_to_three():
    b = knockout_bracket(field_of(13), [1])
    assert [p.players for p in b.first_round] == [
        ("s1", None),
        ("s8", "s9"),
        ("s4", "s13"),
        ("s5", "s12"),
        ("s2", None),
        ("s7", "s10"),
        ("s3", None),
        ("s6", "s11"),
    ]


@pytest.mark.parametrize("n", [5, 8, 13])
def test_seeds_one_and_two_meet_only_in_the_final(n):
    b = knockout_bracket(field_of(n), [3, 5, 7])
    made = run(b, higher_seed_wins)
    final = [p for p in made if p.round == b.rounds]
    assert [p.players for p in final] == [("s1", "s2")] and final[0].length == 7
    assert all(set(p.players) != {"s1", "s2"} for p in made if p.round < b.rounds)
    assert knockout_champion(b, made) == "s1"
    # lengths per round, the last repeated
    assert {p.round: p.length for p in made} == {r: [3, 5, 7][min(r, 3) - 1] for r in range(1, b.rounds + 1)}
    # whatever the results, 1 and 2 sit in opposite halves: they cannot meet before the final
    rng = random.Random(n)
    for _ in range(20):
        made = run(b, lambda p: rng.choice([(1, 0), (0, 1)]))
        assert all(set(p.players) != {"s1", "s2"} for p in made if p.round < b.rounds)


def test_winners_advance_to_the_board_of_their_pair_of_boards():
    b = knockout_bracket(field_of(8), [3])
    r1 = [p.with_result((0, 1)) for p in knockout_next(b, [])]  # every lower seed wins
    r2 = knockout_next(b, r1)
    assert [(p.round, p.board, p.players) for p in r2] == [(2, 1, ("s8", "s5")), (2, 2, ("s7", "s6"))]
    assert knockout_next(b, r1[:3]) == []  # a board of round 1 still to play


def test_a_last_roll_draw_is_replayed_on_the_same_board():
    b = knockout_bracket(field_of(4), [1])
    r1 = knockout_next(b, [])
    made = [r1[0].with_result((1, 1)), r1[1].with_result((1, 0))]
    replay = knockout_next(b, made)
    assert [(p.round, p.board, p.players, p.result) for p in replay] == [(1, 1, ("s1", "s4"), None)]
    made.append(replay[0].with_result((0, 1)))
    assert [p.players for p in knockout_next(b, made)] == [("s4", "s2")]


def test_a_withdrawn_player_loses_its_later_matches_by_walkover():
    b = knockout_bracket(field_of(4), [3])
    r1 = [p.with_result((1, 0)) for p in knockout_next(b, [])]  # s1 and s2 win
    final = knockout_next(b, r1, withdrawn={"s2"})
    assert [(p.players, p.result, p.game) for p in final] == [(("s1", "s2"), (1.0, 0.0), None)]
    made = r1 + final
    assert knockout_next(b, made, {"s2"}) == [] and knockout_champion(b, made, {"s2"}) == "s1"
    # withdrawn before the start: round 1 is a walkover too
    r1 = knockout_next(b, [], withdrawn={"s4"})
    assert r1[0].players == ("s1", "s4") and r1[0].result == (1.0, 0.0)
    # a level result where one player withdrew sends the other on
    made = [r1[0], r1[1].with_result((0.5, 0.5))]
    assert knockout_next(b, made, {"s3"})[0].players == ("s1", "s2")


def test_knockout_standings_rank_by_the_round_reached():
    b = knockout_bracket(field_of(5), [1])
    made = run(b, higher_seed_wins)
    rows = standings(field_of(5), made, "knockout")
    assert [(s.rank, s.id, s.points, s.tiebreaks["round_reached"]) for s in rows] == [
        (1, "s1", 3.0, 4.0),
        (2, "s2", 2.0, 3.0),
        (3, "s3", 1.0, 2.0),
        (3, "s4", 1.0, 2.0),
        (5, "s5", 0.0, 1.0),
    ]


def test_a_bracket_needs_two_players_and_lengths():
    with pytest.raises(ValueError):
        knockout_bracket(field_of(1), [1])
    with pytest.raises(ValueError):
        knockout_bracket(field_of(4), [])
    with pytest.raises(ValueError):
        knockout_bracket(field_of(4), [0])

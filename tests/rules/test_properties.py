"""Invariants and property tests: notation round trips, checker conservation, pip accounting,
symmetry, golden play lists, and fuzzed input always ending in nardy's own error types."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nardy import IllegalPlayError, InvalidIdError, NardyError, NotationError, Position
from tests.helpers import DATA, random_positions

POOLS = {g: random_positions(g, 300, seed=5, doubles_share=0.3) for g in ("backgammon", "short", "long")}
games = st.sampled_from(sorted(POOLS))
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def position_and_dice(draw):
    game = draw(games)
    pool = POOLS[game]
    p, d = pool[draw(st.integers(0, len(pool) - 1))]
    return p, d


@SETTINGS
@given(position_and_dice())
def test_notation_round_trip_every_legal_play(pd):
    p, d = pd
    for play in p.legal_plays(d):
        assert p.parse_play(str(play), d) == play
        assert p.parse_play(str(play), (d[1], d[0])) == play


@SETTINGS
@given(position_and_dice())
def test_long_nardy_absolute_numbering_round_trip(pd):
    p, d = pd
    if p.game != "long":
        return
    for side in ("white", "black"):
        for play in p.legal_plays(d):
            text = play.notation("absolute", side)
            assert p.parse_play(text, d, numbering="absolute", side=side) == play


@SETTINGS
@given(position_and_dice())
def test_checkers_conserved_and_pips_accounted(pd):
    p, d = pd
    m0, o0 = p.pip_count()
    for play in p.legal_plays(d):
        r = play.result
        assert sum(r.mover) == 15 and sum(r.opponent) == 15
        m1, o1 = r.pip_count()
        moved = sum(s.frm - s.to for s in play.steps)
        assert m0 - m1 == moved
        assert o1 - o0 == sum(s.to for s in play.steps if s.hit)
        assert len(play.steps) <= (4 if d[0] == d[1] else 2)
        assert all(s.die in d for s in play.steps)


@SETTINGS
@given(position_and_dice())
def test_dice_order_does_not_matter_and_plays_are_distinct(pd):
    p, d = pd
    a = p.legal_plays(d)
    b = p.legal_plays((d[1], d[0]))
    assert {x.result for x in a} == {x.result for x in b}
    assert len({x.result for x in a}) == len(a)
    assert [str(x) for x in a] == [str(x) for x in p.legal_plays(d)]  # deterministic order


@SETTINGS
@given(position_and_dice())
def test_mirror_symmetry_plays_of_swapped_sides(pd):
    p, d = pd
    m = p.mirror()
    q = Position.from_boards(p.opponent, p.mover, p.rules, first_turn=p.first_turn[::-1])
    assert m == q
    assert [str(x) for x in m.legal_plays(d)] == [str(x) for x in q.legal_plays(d)]
    assert m.mirror() == p


@SETTINGS
@given(position_and_dice())
def test_position_id_round_trip(pd):
    p, _ = pd
    assert Position.from_id(p.id(), p.rules) == p


def test_position_id_is_the_gnubg_encoding_of_both_sides_on_every_legal_result():
    # Position.id encodes from its own board (and keeps the text); the reference is the validating encoder
    from nardy.rules.ids import long_id_suffix, position_id_from_boards

    checked = 0
    for game, pool in POOLS.items():
        for p, d in pool[:60]:
            for q in [p, p.mirror()] + [x.result for x in p.legal_plays(d)]:
                m, o = q.mover, q.opponent
                want = position_id_from_boards(m[1:25] + (m[25],), o[1:25] + (o[25],))
                if game == "long" and q.first_turn != (m[24] == 15, o[24] == 15):
                    want += long_id_suffix(*q.first_turn)
                assert q.id() == want and q.id() is q.id()
                checked += 1
    assert checked > 3 * 60 * 3


def test_golden_play_lists():
    cases = json.loads((DATA / "golden_plays.json").read_text())
    assert len(cases) >= 3 * 30
    for c in cases:
        p = Position.from_id(c["position"], c["game"])
        got = sorted(str(x) for x in p.legal_plays(tuple(c["dice"])))
        assert len(got) == c["count"], c
        assert got == c["plays"], c


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=40), st.sampled_from(["backgammon", "short", "long"]))
def test_fuzzed_play_text_raises_only_nardy_errors(text, game):
    p = Position.start(game)
    try:
        p.parse_play(text, (3, 1))
    except (NotationError, IllegalPlayError):
        pass


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from("0123456789/ *()barofBAROF,"), max_size=30).map("".join))
def test_fuzzed_notation_like_text_raises_only_nardy_errors(text):
    p = Position.start("backgammon")
    try:
        p.parse_play(text, (5, 5))
    except NardyError:
        pass


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=30), st.sampled_from(["backgammon", "short", "long"]))
def test_fuzzed_position_ids_raise_only_invalid_id(text, game):
    try:
        Position.from_id(text, game)
    except InvalidIdError:
        pass


@pytest.mark.parametrize(
    "bad",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMA=", "!!!!!!!!!!!!!!", "//////////////", None, 12345, "4HPwATDgc/ABMA:F11"],
)
def test_malformed_position_ids_raise_clear_errors(bad):
    with pytest.raises(InvalidIdError) as e:
        Position.from_id(bad, "backgammon")
    assert repr(bad) in str(e.value) or str(bad) in str(e.value)


def test_long_nardy_id_suffix_round_trip():
    p = Position.start("long").with_first_turn((False, True))
    assert p.id().endswith(":F01")
    assert Position.from_id(p.id(), "long") == p
    assert Position.from_id(Position.start("long").id(), "long").first_turn == (True, True)


@SETTINGS
@given(position_and_dice())
def test_xgid_round_trip_hitting_games(pd):
    p, d = pd
    if p.game == "long":
        with pytest.raises(InvalidIdError):
            p.xgid()
        return
    text = p.xgid(dice=d)
    assert text.startswith("XGID=") and text.endswith(":10")
    assert Position.from_xgid(text, p.rules) == p


def test_xgid_start_position():
    from nardy.rules.ids import START_XGID

    assert Position.from_xgid(START_XGID).id() == "4HPwATDgc/ABMA"

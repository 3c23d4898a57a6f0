"""Saved games and matches are checked whole when they are loaded (``Game.from_dict``,
``Match.from_dict``, ``Cube.from_dict``, ``dice_from_dict``): anything that is not the saved state of a
game played by the rules is refused with GameStateError naming the field and quoting the value, and
nothing accepted crashes later (``nardy serve`` loads saved games sent by anyone).

The regression tests each rebuild one crash found (what the old ``from_dict`` accepted and what then
crashed is said in the docstring); the property tests mutate one field of real saved games and
matches (played with seeded dice and a random bot) and check that the result is refused or works.
"""

from __future__ import annotations

import copy
import functools
import json
import random

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from nardy.flow.bot import Bot
from nardy.flow.cube import Cube
from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.rules.dice import DiceSource, FixedDice, dice_from_dict
from nardy.rules.errors import GameStateError, InvalidDiceError, NardyError
from nardy.rules.position import Position


# ----- real saved games -----------------------------------------------------------------------------
def act(g: Game, rng: random.Random, bot: Bot | None = None) -> None:
    """One random action allowed in the game's phase (cube, resignations, step entry, undo included);
    a refused action (NardyError) changes nothing."""
    r = rng.random()
    try:
        if g.phase == "roll":
            if r < 0.1 and g.may_double:
                g.double()
            elif r < 0.13:
                g.resign(rng.randrange(len(g.rules.result_names)))
            elif r < 0.15:
                g.undo_turn()
            else:
                g.roll()
        elif g.phase == "double":
            if r < 0.1:
                g.drop()
            elif r < 0.2 and g.cube.beavers:
                g.beaver()
            elif r < 0.25:
                g.resign(0)
            else:
                g.take()
        elif g.phase == "resign":
            (g.accept_resignation if r < 0.3 else g.decline_resignation)()
        elif g.phase == "move":
            if r < 0.3 and g.legal_steps():
                g.step(*rng.choice(g.legal_steps()))
            elif r < 0.35 and g.can_confirm():
                g.confirm()
            elif r < 0.38 and g.steps_taken:
                g.undo_step()
            elif r < 0.40:
                g.resign(0)
            elif r < 0.42:
                g.undo_turn()
            elif bot is not None:
                g.play(bot.choose_play(g.position, g.dice))
            else:
                g.play(rng.choice(g.legal_plays()))
    except NardyError:
        pass


_CONFIGS = [
    ("backgammon", {}),
    ("backgammon", {"jacoby": True, "beavers": True, "cube_limit": 8}),
    ("short", {"cube": True}),
    ("long", {"cube": True}),
    ("long", {"last_roll": "half"}),
    ("long", {"last_roll": "one", "opening": "use-opening-dice", "cube": True}),
    ("backgammon", {"opening": "reroll"}),
    ("short", {"crawford": True, "cube": True}),
]


def _endgame(rules, rng) -> Position:
    m, o = [0] * 26, [0] * 26
    for side in (m, o):
        for _ in range(rng.randint(1, 5)):
            side[rng.randint(1, 6)] += 1
    return Position.from_boards(m, o, rules)


def played_game(seed: int, actions: int | None = None) -> Game:
    """A game of one of :data:`_CONFIGS` played for a random number of actions (some set up at an
    endgame position, so that they end, some with long nardy's last roll)."""
    from nardy.rules.variants import get_rules

    rng = random.Random(seed)
    name, cfg = _CONFIGS[seed % len(_CONFIGS)]
    cfg = dict(cfg)
    opts = {k: cfg.pop(k) for k in list(cfg) if k in ("last_roll", "opening")}
    rules = get_rules(name, **opts)
    if seed % 3 == 2:
        g = Game.from_position(_endgame(rules, rng), turn=rng.randrange(2), dice=DiceSource(seed), **cfg)
    else:
        g = Game(rules, dice=DiceSource(seed), **cfg)
        if seed % 10 == 9:
            return g
        g.start()
    bot = Bot(rules.name, level="random", seed=seed)
    for _ in range(rng.randrange(0, 160) if actions is None else actions):
        if g.is_over:
            break
        act(g, rng, bot)
    return g


def played_match(seed: int) -> Match:
    rng = random.Random(seed)
    name = ("backgammon", "short", "long")[seed % 3]
    m = Match(name, length=rng.choice([0, 3, 5]), dice=DiceSource(seed), cube=True)
    bot = Bot(name, level="random", seed=seed)
    for _ in range(rng.randrange(1, 4)):
        if m.is_over or (m.current is not None and not m.current.is_over):
            break
        g = m.new_game(start=True)
        for _ in range(rng.randrange(20, 400)):
            if g.is_over:
                break
            act(g, rng, bot)
    return m


def saved(obj) -> dict:
    return json.loads(json.dumps(obj.to_dict()))


@functools.cache
def pool() -> tuple:
    games = tuple(("game", saved(played_game(s))) for s in range(24))
    matches = tuple(("match", saved(played_match(s))) for s in range(6))
    return games + matches


def game_at(phase: str, game: str = "backgammon", **kw) -> Game:
    """A real game reaching ``phase`` (seeded dice, first legal plays)."""
    for seed in range(200):
        g = Game(game, dice=DiceSource(seed), cube=True, **kw)
        g.start()
        rng = random.Random(seed)
        for _ in range(300):
            if g.phase == phase and (phase != "roll" or len(g.history) > 2):
                return g
            if g.is_over:
                break
            if phase == "double" and g.phase == "roll" and g.may_double:
                g.double()
            elif g.phase == "roll":
                g.roll()
            elif g.phase == "move":
                g.play(rng.choice(g.legal_plays()))
            elif g.phase == "double":
                g.take()
        if g.phase == phase:
            return g
    raise AssertionError(phase)


def refused(d: dict, *fragments: str, match: bool = False) -> str:
    """``from_dict`` refuses ``d`` with GameStateError whose message holds every fragment."""
    with pytest.raises(GameStateError) as info:
        (Match if match else Game).from_dict(d)
    msg = str(info.value)
    for f in fragments:
        assert f in msg, msg
    return msg


# ----- the crashes found, one test each ----------------------------------------------------------------
def test_phase_move_needs_the_dice():
    """Was accepted; legal_steps() then raised AttributeError ('NoneType' has no attribute 'children')."""
    d = saved(game_at("move"))
    d["state"]["dice"] = None
    refused(d, "state.dice None", "needs the dice")


def test_cube_owner_is_null_0_or_1_never_a_float():
    """Was accepted (0.0 == 0); why_not_double()/may_double() then raised TypeError (a float index)."""
    g = game_at("roll")
    g.double()
    g.take()
    d = saved(g)
    d["state"]["cube"]["owner"] = float(d["state"]["cube"]["owner"])
    refused(d, "state.cube.owner", "0.0" if g.cube_owner == 0 else "1.0", "expected null, 0 or 1")


def test_phase_over_needs_a_result():
    """Was accepted: a game 'over' with no result (is_over False, every action refused, nothing to score)."""
    d = saved(played_game(5, actions=10_000))
    assert d["state"]["phase"] == "over"
    d["state"]["result"] = None
    refused(d, "state.result None", "phase 'over'")
    d = saved(game_at("roll"))
    d["state"]["phase"] = "over"
    refused(d, "state.result None")


def test_a_result_only_when_the_game_is_over():
    d = saved(played_game(5, actions=10_000))
    r = d["state"]["result"]
    d = saved(game_at("roll"))
    d["state"]["result"] = r
    refused(d, "state.result")


def test_resignation_level_is_one_of_the_games_levels():
    """Was accepted; accept_resignation() then raised IndexError (no level 9 in the scoring)."""
    g = game_at("roll")
    g.resign(0)
    d = saved(g)
    d["state"]["resign"] = [g.turn, 9]
    refused(d, "state.resign[1] 9", "expected an integer 0-2")


def test_phase_resign_needs_a_waiting_resignation():
    """Was accepted; to_act then raised TypeError ('NoneType' object is not subscriptable)."""
    d = saved(game_at("roll"))
    d["state"]["phase"] = "resign"
    refused(d, "state.resign None")


def test_phase_double_needs_a_double_offered_by_the_player_on_turn():
    d = saved(game_at("roll"))
    d["state"]["phase"] = "double"
    refused(d, "state.cube.offered_by None")
    d = saved(game_at("double"))
    d["state"]["cube"]["offered_by"] = 1 - d["state"]["turn"]
    refused(d, "state.cube.offered_by", "only the player on turn doubles")


def test_partial_turn_steps_must_be_legal_steps_of_the_roll():
    """A step with a die not rolled was accepted; dice_left/legal_steps then raised ValueError
    (list.remove). An illegal step was accepted and left a turn that could not be completed."""
    g = game_at("move")
    d1, d2 = g.dice
    bad_die = next(x for x in range(1, 7) if x not in (d1, d2))
    frm = next(p for p in range(24, 6, -1) if g.position.array[p] > 0)
    d = saved(g)
    d["state"]["steps"] = [[[frm, frm - bad_die, bad_die, False]]]
    refused(d, "state.steps[0][0]", "not a legal step now")
    d["state"]["steps"] = [[[frm, frm - 1, 1, 0]]]
    refused(d, "state.steps[0][0][3] 0", "expected true or false")
    step = g.legal_steps()[0]
    g.step(*step)
    back = Game.from_dict(saved(g))  # legal steps are kept
    assert back.steps_taken == g.steps_taken and back.partial_position == g.partial_position


def test_result_winner_is_0_or_1():
    """Was accepted; the result's text (_result_text, every refused action's message) raised IndexError."""
    d = saved(played_game(5, actions=10_000))
    d["state"]["result"]["winner"] = 5
    refused(d, "state.result.winner 5", "expected 0 or 1")


def test_result_points_and_level_follow_from_the_position_and_cube():
    """A string as the points was accepted; a match's score then raised TypeError (int + str)."""
    d = saved(played_game(5, actions=10_000))
    d["state"]["result"]["points"] = "3"
    refused(d, "state.result.points '3'")
    d = saved(played_game(5, actions=10_000))
    d["state"]["result"]["points"] += 1
    refused(d, "state.result.points")


def test_saved_dice_source_state_is_checked():
    """A negative number in the generator state made from_dict raise OverflowError."""
    d = saved(game_at("roll"))
    d["state"]["dice_source"]["state"][1][3] = -1
    refused(d, "state.dice_source.state[1][3] -1")
    d = saved(game_at("roll"))
    d["state"]["dice_source"]["state"][1][624] = 625
    refused(d, "state.dice_source.state[1][624] 625")


def test_saved_dice_source_is_a_dict_or_null():
    """A list was taken as the dice source itself; roll() then raised AttributeError."""
    d = saved(game_at("roll"))
    d["state"]["dice_source"] = [1]
    refused(d, "state.dice_source [1]", "expected a dict")
    m = Match("backgammon", length=3, dice=DiceSource(1))
    md = saved(m)
    md["dice_source"] = 10**30
    refused(md, "dice_source 1000000000000000000000000000000", match=True)


def test_undo_points_are_checked_like_the_state():
    """Broken undo points were accepted; undo_turn() then raised KeyError/TypeError."""
    g = game_at("roll")
    d = saved(g)
    del d["undo"][-1]["state"]["turn"]
    refused(d, "undo[", ".state.turn", "missing")
    d = saved(g)
    d["undo"] = "move"
    refused(d, "undo 'move'", "expected a list")
    d = saved(g)
    d["undo"][-1]["hist"] = 10**30
    refused(d, ".hist 1000000000000000000000000000000")
    d = saved(g)
    d["undo"][-1]["state"]["dice_source"] = d["state"]["dice_source"]
    refused(d, ".state.dice_source", "an undo point keeps no dice source")


def test_a_bool_is_not_an_int():
    """turn=True was accepted (True == 1) and saved back as true."""
    d = saved(game_at("roll"))
    d["state"]["turn"] = True
    refused(d, "state.turn True", "expected 0 or 1")
    d = saved(game_at("roll"))
    d["state"]["cube"]["value"] = True
    refused(d, "state.cube.value True")


@pytest.mark.parametrize(
    "field,value,says",
    [
        ("phase", "zzz", "expected one of"),
        ("turn", 2, "expected 0 or 1"),
        ("turn", -1, "expected 0 or 1"),
        ("turn", 10**30, "expected 0 or 1"),
        ("dice", [7, 1], "two dice 1-6"),
        ("dice", "31", "two dice"),
        ("crawford", 1, "expected true or false"),
        ("first_turn", True, "expected a list"),
        ("position", "zzz", "Position ID"),
        ("position", "x" * 500, "at most 64 characters"),
        ("steps", None, "expected a list"),
        ("resume", "over", "expected one of"),
    ],
)
def test_state_fields_are_checked_by_type_and_range(field, value, says):
    d = saved(game_at("roll"))
    d["state"][field] = value
    refused(d, f"state.{field}", says)


def test_cube_value_is_a_power_of_two_within_the_limit():
    d = saved(game_at("roll"))
    d["state"]["cube"]["value"] = 3
    refused(d, "state.cube.value 3", "power of two")
    g = Game("backgammon", dice=DiceSource(1), cube_limit=4)
    g.start()
    d = saved(g)
    d["state"]["cube"]["value"] = 8
    refused(d, "state.cube.value 8", "above the cube limit 4")


def test_history_entries_are_checked_by_shape():
    """A history entry that is not a dict made from_dict raise ValueError from dict(); events with
    missing fields broke the readers of the history."""
    g = game_at("roll")
    d = saved(g)
    d["history"].append("x")
    refused(d, "history[", "'x'", "expected a dict")
    d = saved(g)
    del d["history"][1]["dice"]
    refused(d, "history[1].dice", "missing")
    d = saved(g)
    d["history"][1]["player"] = 0.0
    refused(d, "history[1].player 0.0")


def test_history_leads_to_the_saved_state():
    """A dropped or duplicated history entry no longer matches the state."""
    g = game_at("roll")
    d = saved(g)
    d["history"] = d["history"][:-1]
    refused(d)
    d = saved(g)
    d["history"].append(copy.deepcopy(d["history"][-1]))
    refused(d)


def test_play_events_steps_fit_the_roll_and_the_text():
    g = game_at("roll")
    d = saved(g)
    k = next(i for i, e in enumerate(d["history"]) if e["type"] == "play" and e["steps"])
    d["history"][k]["play"] = "24/1"
    refused(d, f"history[{k}].play '24/1'")
    d = saved(g)
    s = d["history"][k]["steps"][0]
    d["history"][k]["steps"][0] = [s[0], s[0] - 6 if s[0] > 6 else 0, 6, False]
    refused(d, f"history[{k}].steps")


def test_drawn_long_nardy_game_loads():
    """A drawn game (option last-roll: both sides bore off all 15) could not be loaded at all."""
    m, o = [0] * 26, [0] * 26
    m[0], m[1], o[0], o[1] = 14, 1, 14, 1
    g = Game.from_position(
        Position.from_boards(m, o, "long"), turn=0, dice=FixedDice([(1, 2), (1, 2)]), last_roll="half"
    )
    g.roll()
    g.play(g.legal_plays()[0])
    g.roll()
    g.play(g.legal_plays()[0])
    assert g.result.reason == "draw"
    d = saved(g)
    back = Game.from_dict(d)
    assert back.result == g.result and back.position == g.position and saved(back) == d
    back.undo_turn()  # and can be reopened
    assert back.phase == "roll" and back.turn == 1
    match = Match("long", length=0, dice=DiceSource(1), last_roll="half").to_dict()
    match["games"] = [d]
    assert Match.from_dict(match).score == (0.5, 0.5)


def test_match_games_before_the_last_are_finished_and_none_after_the_end():
    m = Match("backgammon", length=3, dice=DiceSource(4))
    m.new_game(start=True)
    d = saved(m)
    d["games"].append(copy.deepcopy(d["games"][0]))
    refused(d, "games[0].state.phase", "only the last game", match=True)
    m = played_match(1)
    d = saved(m)
    if m.is_over:
        d["games"].append(copy.deepcopy(d["games"][-1]))
        refused(d, "the match was already over", match=True)


def test_match_games_have_the_matchs_rules_players_and_crawford_flags():
    m = Match("backgammon", length=5, dice=DiceSource(2))
    m.new_game(start=True)
    d = saved(m)
    d["games"][0]["players"] = ["A", "B"]
    refused(d, "games[0].players", match=True)
    d = saved(m)
    d["games"][0]["state"]["crawford"] = True
    for u in d["games"][0]["undo"]:
        u["state"]["crawford"] = True
    refused(d, "games[0].state", match=True)
    d = saved(m)
    d["games"][0] = saved(Game("short", dice=DiceSource(1)))
    refused(d, "games[0].rules", match=True)


@pytest.mark.parametrize(
    "field,value",
    [
        ("length", -1),
        ("length", True),
        ("length", 10**30),
        ("jacoby", 1),
        ("cube_limit", 3),
        ("players", "ab"),
        ("games", {}),
        ("rules", {"name": "chess"}),
    ],
)
def test_match_fields_are_checked(field, value):
    d = saved(Match("backgammon", length=3, dice=DiceSource(1)))
    d[field] = value
    refused(d, field, match=True)


def test_messages_name_the_field_and_quote_the_value_shortened():
    d = saved(game_at("roll"))
    d["players"] = ["White", "x" * 10_000]
    d["state"]["turn"] = "y" * 10_000
    msg = refused(d, "state.turn", "'yyyy")
    assert len(msg) < 300
    m = Match("backgammon", length=3, dice=DiceSource(1))
    m.new_game(start=True)
    md = saved(m)
    md["games"][0]["state"]["cube"]["owner"] = 0.0
    refused(md, "not a saved match: games[0].state.cube.owner 0.0", match=True)


def test_cube_from_dict_checks_every_key():
    c = Cube(value=8, owner=1, limit=64, beavers=True)
    assert Cube.from_dict(c.to_dict()).to_dict() == c.to_dict()
    for key, value in (
        ("owner", 0.0),
        ("owner", True),
        ("value", 6),
        ("enabled", 1),
        ("limit", 0),
        ("offered_by", 2),
        ("value", 128),
    ):
        with pytest.raises(GameStateError, match=f"cube.{key}"):
            Cube.from_dict(dict(c.to_dict(), **{key: value}))
    with pytest.raises(GameStateError):
        Cube.from_dict({"enabled": True})
    with pytest.raises(GameStateError):
        Cube.from_dict(dict(c.to_dict(), extra=1))


def test_dice_sources_check_their_saved_state():
    src = DiceSource(5)
    back = dice_from_dict(json.loads(json.dumps(src.to_dict())))
    assert [back.roll() for _ in range(5)] == [src.roll() for _ in range(5)]
    fixed = FixedDice([(3, 1), 4, 2])
    fixed.roll()
    again = dice_from_dict(json.loads(json.dumps(fixed.to_dict())))
    assert again.roll() == fixed.roll()
    for bad in (
        {"kind": "loaded", "state": None},
        {"kind": "random"},
        {"kind": "random", "state": [3, [], None]},
        {"kind": "random", "state": [3, [0] * 624 + [0.5], None]},
        {"kind": "fixed", "state": {"index": 3, "rolls": [[1, 2]]}},
        {"kind": "fixed", "state": {"index": "0", "rolls": []}},
        {"kind": "fixed", "state": {"index": 0, "rolls": [[7, 1]]}},
    ):
        with pytest.raises(GameStateError, match="dice_source"):
            dice_from_dict(bad)
    with pytest.raises(InvalidDiceError):
        DiceSource().set_state([3, [-1] * 625, None])
    with pytest.raises(InvalidDiceError):
        FixedDice().set_state({"rolls": [True], "index": 0})


def test_saved_games_of_every_kind_still_load_and_round_trip_exactly():
    """Real games at every point of play (steps, doubles, beavers, resignations, undo, last roll,
    draws, set-up positions) are accepted and saved back the same."""
    for seed in range(16):
        rng = random.Random(seed)
        g = played_game(seed, actions=0)
        bot = Bot(g.rules.name, level="random", seed=seed)
        for _ in range(400):
            d = saved(g)
            back = Game.from_dict(d)
            d2 = saved(back)
            if not (d["state"]["phase"] == "over" and d["state"]["steps"]):
                assert d2 == d  # (a game resigned mid-turn drops its unfinished steps)
            if g.is_over:
                break
            act(g, rng, bot)


# ----- property tests: one field of a real saved game or match mutated -------------------------------
def _paths(obj, pre=()):
    """Paths to every value in ``obj``; of a long list (a dice generator's 625 words) only the ends."""
    yield pre
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _paths(v, pre + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            if len(obj) > 100 and 2 <= i < len(obj) - 2:
                continue
            yield from _paths(v, pre + (i,))


_REPLACEMENTS = [
    None,
    0.0,
    1.5,
    float("nan"),
    True,
    False,
    "x",
    "",
    "over",
    "move",
    10**30,
    -1,
    -(10**30),
    0,
    1,
    2,
    7,
    25,
    [],
    [1, 2],
    [0, 0],
    {},
    {"a": 1},
]


@st.composite
def mutated(draw):
    kind, d = draw(st.sampled_from(pool()))
    d = copy.deepcopy(d)
    paths = [p for p in _paths(d) if p]
    path = draw(st.sampled_from(paths))
    parent = d
    for k in path[:-1]:
        parent = parent[k]
    k = path[-1]
    how = draw(st.sampled_from(["delete", "duplicate", "nudge", "replace", "replace", "replace"]))
    if how == "delete":
        del parent[k]
    elif how == "duplicate" and isinstance(parent, list):
        parent.insert(k, copy.deepcopy(parent[k]))
    elif how == "nudge" and type(parent[k]) is int:
        parent[k] += draw(st.sampled_from([-1, 1]))
    else:
        parent[k] = copy.deepcopy(draw(st.sampled_from(_REPLACEMENTS)))
    return kind, d


def _views(g: Game) -> None:
    g.position.id()
    g.to_act, g.phase, g.turn, g.is_over, g.result, g.resignation, g.steps_taken, g.dice_left, repr(g)
    g.may_double, g.why_not_double(), g.can_confirm(), g.cube_value, g.cube_owner, repr(g.cube)
    g.partial_position.id(), g.position_for(0).id(), g.position_for(1).id()
    if g.result is not None:
        g.result.score()
    if g.phase == "move":
        g.legal_steps()
        g.legal_plays()


def _use_game(g: Game, rng: random.Random) -> None:
    """Everything a front end does with a loaded game: views, save again (accepted again), play on."""
    _views(g)
    Game.from_dict(saved(g))
    for _ in range(25):
        if g.is_over:
            break
        act(g, rng)
        _views(g)
    saved(g)


def _use_match(m: Match, rng: random.Random) -> None:
    m.score, m.is_over, m.winner, m.is_crawford_game(), m.crawford, m.post_crawford, repr(m)
    try:
        m.match_id()
    except NardyError:
        pass
    Match.from_dict(saved(m))
    for g in m.games:
        _views(g)
    if not m.is_over:
        g = m.current if m.current is not None and not m.current.is_over else m.new_game(start=True)
        _use_game(g, rng)
    saved(m)


def _check_mutated(kind: str, d: dict, seed: int) -> None:
    try:
        obj = (Game if kind == "game" else Match).from_dict(d)
    except GameStateError:
        event("refused")
        return
    event("accepted")
    # accepted: it must work (an illegal action may only be refused with a NardyError)
    rng = random.Random(seed)
    if kind == "game":
        _use_game(obj, rng)
    else:
        _use_match(obj, rng)


_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@settings(**_SETTINGS)
@given(mutated(), st.integers(0, 1000))
def test_a_mutated_save_is_refused_or_works(case, seed):
    _check_mutated(*case, seed)


@pytest.mark.slow
@settings(max_examples=5000, **_SETTINGS)
@given(mutated(), st.integers(0, 1000))
def test_a_mutated_save_is_refused_or_works_many_examples(case, seed):
    _check_mutated(*case, seed)


@pytest.mark.slow
def test_saved_games_of_every_kind_still_load_many_games():
    for seed in range(16, 200):
        rng = random.Random(seed)
        g = played_game(seed, actions=0)
        for _ in range(400):
            d = saved(g)
            d2 = saved(Game.from_dict(d))
            if not (d["state"]["phase"] == "over" and d["state"]["steps"]):
                assert d2 == d
            if g.is_over:
                break
            act(g, rng)

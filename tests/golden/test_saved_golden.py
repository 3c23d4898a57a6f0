"""Golden files of saved games (issue 42, step 0): ``Game.to_dict()``, ``Match.to_dict()`` and ``Table.to_dict()``
(the form the terminal and the web server store) of seeded games and matches of each game at several points,
each read back by ``from_dict`` to the same data.

A table of two computer seats (cheap levels) plays a seeded match decision by decision at an injected clock
(``now`` grows by 7.25 s a decision), and its saved form is kept at chosen decisions, at the first cube action and
at the end. A game on its own (as a library user drives it) is kept through every phase: the opening, a roll, a
partial turn with steps taken, a double, a resignation waiting and declined, a resignation accepted. Normalised:
the dice source's state (a digest, see :mod:`tests.golden.golden`); the round trips compare the full data.
"""

from __future__ import annotations

import json

import pytest

from nardy.flow.bot import Bot, bot_player
from nardy.flow.clock import Clock, ClockSpec
from nardy.flow.game import Game
from nardy.flow.match import Match
from nardy.flow.table import Seat, SeatKind, Table
from nardy.rules.dice import DiceSource
from tests.golden.golden import check_json, shorten_dice_states

#: A table's matches: name -> (game, length, (White's level, Black's level), seed, options).
MATCHES = {
    "backgammon-match3": ("backgammon", 3, ("intermediate", "advanced"), 12, {}),
    "backgammon-money-jacoby": ("backgammon", 0, ("beginner", "advanced"), 39, {"jacoby": True}),
    "short-money-cube": ("short", 0, ("intermediate", "heuristic"), 20, {"cube": True}),
    "long-match1-clock-lastroll": (
        "long",
        1,
        ("beginner", "intermediate"),
        43,
        {"clock": (300.0, 10.0, 2.0), "last_roll": "half"},
    ),
}

#: Decisions after which the saved form is kept (besides the start, the first cube action and the end).
KEEP_AT = (1, 7)

T0 = 1_800_000_000.0  # the injected clock at the start (seconds)
TICK = 7.25  # seconds a decision takes (exact in binary)


def new_table(name: str) -> Table:
    game, length, levels, seed, opts = MATCHES[name]
    opts = dict(opts)
    clock = opts.pop("clock", None)
    options = {"last_roll": opts.pop("last_roll")} if "last_roll" in opts else {}
    players = tuple(f"nardy-{lv}" for lv in levels)
    match = Match(game, length=length, dice=DiceSource(seed), players=players, **opts, **options)
    seats = [Seat(SeatKind.COMPUTER, players[i], level=levels[i]) for i in (0, 1)]
    return Table(
        match,
        seats,
        clock=Clock(ClockSpec(*clock)) if clock else None,
        auto_roll=True,
        auto_next=bool(length),
        seed=seed,
        computer=bot_player,
    )


def play_out(table: Table, now: float, keep=None) -> float:
    """Let the computer act until the match (a money session: its one game) is over; ``keep(n, done, table)``
    after each decision. Returns the clock at the end."""
    n = 0
    while table.computer_to_act():
        now += TICK
        done = table.computer_act(now=now)
        n += 1
        if keep is not None:
            keep(n, done, table)
    return now


def check_round_trips(d: dict) -> None:
    """The saved table, its match and its games each rebuild (through JSON text) to the same data."""
    d = json.loads(json.dumps(d))
    assert Table.from_dict(d).to_dict() == d
    assert Match.from_dict(d["match"]).to_dict() == d["match"]
    for g in d["match"]["games"]:
        assert Game.from_dict(g).to_dict() == g


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_saved_table_match_and_games_are_unchanged(name):
    table = new_table(name)
    table.start(now=T0)
    kept = [{"decisions": 0, "done": None, "table": table.to_dict()}]
    cube_seen = []

    def keep(n, done, t):
        cube = done["action"] in ("double", "take", "drop") and not cube_seen
        if cube:
            cube_seen.append(n)
        if n in KEEP_AT or cube:
            entry = {"decisions": n, "done": {**done, "play": str(done["play"]) if done["play"] else None}}
            kept.append({**entry, "table": t.to_dict()})

    play_out(table, T0, keep)
    assert table.is_over or not table.match.length
    assert table.game.is_over
    kept.append({"decisions": "end", "done": None, "table": table.to_dict()})
    for k in kept:
        check_round_trips(k["table"])
        m = k["table"]["match"]
        assert m == table.match.to_dict() or k["decisions"] != "end"
    assert kept[-1]["table"]["match"]["games"][-1] == table.game.to_dict()
    check_json(f"saved/table-{name}.json", shorten_dice_states(kept))


@pytest.mark.parametrize("name", ["backgammon-match3", "long-match1-clock-lastroll"])
def test_a_saved_table_resumes_to_the_same_end(name):
    """Saved after 25 decisions, rebuilt from its JSON and played on: the same match to the last byte as the
    uninterrupted one (the computer's choices are seeded by the table's seed and the place in the match)."""
    whole = new_table(name)
    whole.start(now=T0)
    play_out(whole, T0)

    part = new_table(name)
    part.start(now=T0)
    now = T0
    for _ in range(25):
        now += TICK
        part.computer_act(now=now)
    resumed = Table.from_dict(json.loads(json.dumps(part.to_dict())), computer=bot_player)
    play_out(resumed, now)
    assert resumed.to_dict() == whole.to_dict()


def game_snapshots(game_name: str, seed: int) -> list[dict]:
    """A game driven through the library's API, kept at each phase: opening, roll, a partial turn (one step
    taken), the turn played, a double waiting and taken, a resignation waiting and declined, one accepted."""
    g = Game(game_name, dice=DiceSource(seed), cube=True, players=("Ann", "Bob"))
    bots = [Bot(game_name, level="advanced", seed=seed), Bot(game_name, level="casual", seed=seed + 1)]
    kept = [("new", g.to_dict())]
    g.start()
    kept.append(("opening", g.to_dict()))
    while g.phase != "roll":
        bots[g.to_act].take_turn(g)
    g.roll()
    kept.append(("rolled", g.to_dict()))
    frm, to = g.legal_steps()[0]
    g.step(frm, to)
    kept.append(("one step taken", g.to_dict()))
    g.undo_step()
    g.step(frm, to)
    while not g.can_confirm():
        g.step(*g.legal_steps()[0])
    g.confirm()
    kept.append(("turn confirmed", g.to_dict()))
    g.roll()
    g.play(bots[g.to_act].choose_play(g.position, g.dice))
    g.double()
    kept.append(("double offered", g.to_dict()))
    g.take()
    kept.append(("double taken", g.to_dict()))
    g.roll()
    g.play(bots[g.to_act].choose_play(g.position, g.dice))
    g.resign(1)
    kept.append(("gammon resignation offered", g.to_dict()))
    g.decline_resignation()
    kept.append(("resignation declined", g.to_dict()))
    bots[g.to_act].take_turn(g)
    g.resign(0)
    g.accept_resignation()
    kept.append(("single game resigned and accepted: over", g.to_dict()))
    return [{"at": at, "game": d} for at, d in kept]


@pytest.mark.parametrize("game_name, seed", [("backgammon", 31), ("short", 32), ("long", 33)])
def test_saved_game_at_each_phase_is_unchanged(game_name, seed):
    kept = game_snapshots(game_name, seed)
    phases = [k["game"]["state"]["phase"] for k in kept]
    assert {"opening", "roll", "move", "double", "resign", "over"} <= set(phases), phases
    for k in kept:
        d = json.loads(json.dumps(k["game"]))
        assert Game.from_dict(d).to_dict() == d, k["at"]
    check_json(f"saved/game-{game_name}.json", shorten_dice_states(kept))

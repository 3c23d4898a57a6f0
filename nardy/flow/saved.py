"""Validation of saved games and matches (:meth:`Game.from_dict <nardy.flow.game.Game.from_dict>`,
:meth:`Match.from_dict <nardy.flow.match.Match.from_dict>`).

A saved game is plain JSON data that may come from anywhere (a file, a web client), so it is checked
whole before anything is rebuilt from it, and anything that is not what :meth:`Game.to_dict` writes
for a game played by the rules is refused with :class:`~nardy.rules.errors.GameStateError`, whose message
names the field (``state.cube.owner``, ``history[12].dice``, ``games[2].state.turn``) and quotes the
bad value (shortened). The checks:

* every field by type and range: exact ints (a bool or a float is not an int), bools, strings, dice
  1-6, players 0/1, cube values and limits powers of two, result levels within the game's levels;
* the rules (:func:`~nardy.rules.get_rules`), the players' names, the dice source's saved state;
* the state as a whole: the position is a valid :class:`~nardy.rules.position.Position` of the game (a
  finished game's final position, a drawn long nardy game's too), and what each phase needs and
  allows: dice exactly while a play is due, a result exactly when the game is over and consistent with
  the position, the cube and the scoring (points, level, winner), a waiting double only from the
  player on turn who may double, a waiting resignation, long nardy's last roll, the cube's invariants
  (a turned cube has an owner, within its limit, untouched in a Crawford game or when not in use);
* the steps of a partial turn are replayed through the rules (each must be a legal single step that
  can still be completed to a legal play, as :meth:`Game.step` allows);
* the history, event by event, by the game's turn grammar: each event has its type's fields and
  follows from the one before (who rolls, who plays which dice, doubles, takes and drops with the cube
  values, resignations and their answers, passes, the last roll, the end), and where the history ends
  must be the saved state (phase, turn, dice, cube, resignation, result). The plays' checker moves are
  checked for shape (each step moves a checker by a die of the roll), not replayed through the rules;
* the undo points: each is a valid state at a turn boundary, at the place in the history where the
  turn grammar puts one.

A match is checked field by field, each game as above, and across games: the same rules and players,
every game but the last finished, no game after the match was won, the Crawford flags as the match
sets them.
"""

from __future__ import annotations

from .savedhistory import check_history
from .savedstate import (
    PHASES,
    Checker,
    check_dice_source,
    check_players,
    check_rules,
    check_state,
    drawn_position,
    replay_steps,
    same,
)

__all__ = ["check_game_dict", "check_match_dict", "Checker", "PHASES", "check_state", "drawn_position", "replay_steps"]


# ----- whole games and matches ---------------------------------------------------------------------
def check_game_dict(d, c: Checker | None = None) -> dict:
    """Check a saved game (:meth:`Game.to_dict`) whole; returns the checked parts for
    :meth:`Game.from_dict`: ``rules``, ``players``, ``jacoby``, ``state``, ``history``, ``undo``."""
    c = c or Checker("game")
    c.dict(d, "", ("rules", "players", "jacoby", "state", "history", "undo"))
    if "version" in d and not same(d["version"], 1):
        c.fail("version", d["version"], "expected 1")
    rules = check_rules(c, d["rules"])
    players = check_players(c, d["players"])
    jacoby = c.bool(d["jacoby"], "jacoby")
    facts = check_state(c, d["state"], rules, jacoby=jacoby)
    undo = check_history(c, d["history"], d["undo"], facts, d["state"], rules, jacoby=jacoby)
    return {
        "rules": rules,
        "players": players,
        "jacoby": jacoby,
        "state": d["state"],
        "history": d["history"],
        "undo": undo,
        "facts": facts,
    }


def trusted_game_dict(d: dict) -> dict:
    """The parts :meth:`Game.from_dict` builds a game from, as :func:`check_game_dict` returns them, of a saved
    game that this program wrote itself (``check=False``: a stored row of the web server): nothing is checked;
    data from anywhere else goes through :func:`check_game_dict`."""
    from ..rules.variants import get_rules

    r = d["rules"]
    return {
        "rules": get_rules(r["name"], **{k: v for k, v in r.items() if k != "name"}),
        "players": tuple(d["players"]),
        "jacoby": d["jacoby"],
        "state": d["state"],
        "history": d["history"],
        "undo": d["undo"],
    }


def trusted_match_dict(d: dict) -> dict:
    """:func:`check_match_dict`'s parts of a saved match that this program wrote itself, unchecked (see
    :func:`trusted_game_dict`)."""
    from ..rules.variants import get_rules

    r = d["rules"]
    return {
        "start_score": tuple(d.get("start_score", (0, 0))),
        "start_post_crawford": d.get("start_post_crawford", False),
        "rules": get_rules(r["name"], **{k: v for k, v in r.items() if k != "name"}),
        "length": d["length"],
        "jacoby": d["jacoby"],
        "beavers": d["beavers"],
        "cube_limit": d["cube_limit"],
        "crawford": d["crawford"],
        "cube": d["cube"],
        "players": tuple(d["players"]),
        "dice_source": d["dice_source"],
        "games": d["games"],
    }


def check_match_dict(d, c: Checker | None = None) -> dict:
    """Check the match's own fields (the games are checked one by one by :meth:`Match.from_dict`)."""
    c = c or Checker("match")
    c.dict(
        d,
        "",
        ("rules", "length", "jacoby", "beavers", "cube_limit", "crawford", "cube", "players", "dice_source", "games"),
    )
    if "version" in d and not same(d["version"], 1):
        c.fail("version", d["version"], "expected 1")
    rules = check_rules(c, d["rules"])
    length = c.int(d["length"], "length", 0, 0x7FFF)
    jacoby = c.bool(d["jacoby"], "jacoby")
    beavers = c.bool(d["beavers"], "beavers")
    if length and (jacoby or beavers):
        c.fail("jacoby" if jacoby else "beavers", True, "Jacoby and beavers are money-play options (length 0)")
    limit = c.pow2(d["cube_limit"], "cube_limit", none=True)
    crawford = c.bool(d["crawford"], "crawford")
    cube = c.bool(d["cube"], "cube")
    players = check_players(c, d["players"])
    if d["dice_source"] is not None:
        check_dice_source(c, d["dice_source"], "dice_source")
    games = c.list(d["games"], "games")
    start = [0, 0]
    if "start_score" in d:  # a resumed match (Match(start_score=...)); absent when 0-0
        c.list(d["start_score"], "start_score")
        if len(d["start_score"]) != 2:
            c.fail("start_score", d["start_score"], "expected two scores")
        top = length - 1 if length else 0x7FFF
        start = [c.int(v, f"start_score[{i}]", 0, top) for i, v in enumerate(d["start_score"])]
    post = c.bool(d["start_post_crawford"], "start_post_crawford") if "start_post_crawford" in d else False
    return {
        "start_score": tuple(start),
        "start_post_crawford": post,
        "rules": rules,
        "length": length,
        "jacoby": jacoby,
        "beavers": beavers,
        "cube_limit": limit,
        "crawford": crawford,
        "cube": cube,
        "players": players,
        "dice_source": d["dice_source"],
        "games": games,
    }

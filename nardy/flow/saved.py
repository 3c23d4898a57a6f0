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

import functools

import numpy as np

from ..rules.errors import GameStateError, NardyError
from ..rules.ids import _quote
from ..rules.notation import Step, format_steps

#: The phases of a game, as in :data:`nardy.flow.game.PHASES`.
PHASES = ("opening", "roll", "double", "resign", "move", "over")
_REASONS = ("bear-off", "drop", "resign", "draw")
_STATE_KEYS = (
    "position",
    "first_turn",
    "turn",
    "dice",
    "phase",
    "starter",
    "cube",
    "crawford",
    "result",
    "steps",
    "resign",
    "resume",
    "last_roll",
    "dice_source",
)
_RESULT_KEYS = ("winner", "level", "level_name", "points", "cube", "reason")
#: The fields of each history event type (besides ``type``).
_EVENT_KEYS = {
    "setup": ("position", "turn"),
    "opening": ("starter", "rolls", "dice"),
    "roll": ("player", "dice"),
    "pass": ("player", "dice"),
    "play": ("player", "dice", "play", "steps", "position"),
    "last-roll": ("player",),
    "end": _RESULT_KEYS,
    "double": ("player", "value"),
    "take": ("player", "value"),
    "beaver": ("player", "value"),
    "drop": ("player",),
    "resign": ("player", "level", "level_name"),
    "accept": ("player",),
    "decline": ("player",),
}
_EVENT_KEYSETS = {t: frozenset(("type",) + keys) for t, keys in _EVENT_KEYS.items()}
_MAX_ID = 64  # a Position ID is 14 characters (long nardy: plus a 4-character suffix)


class Checker:
    """Raises :class:`GameStateError` naming a field of the saved data (``what``: ``"game"`` or
    ``"match"``; ``base``: the path of the checked dict inside it, e.g. ``"games[2]."``)."""

    def __init__(self, what: str = "game", base: str = ""):
        self.what = what
        self.base = base

    def _name(self, field: str) -> str:
        return (self.base + field).rstrip(".") or "the data"

    def fail(self, field: str, value, why: str):
        raise GameStateError(f"not a saved {self.what}: {self._name(field)} {_quote(value)}: {why}")

    def fail_plain(self, field: str, why: str):
        raise GameStateError(f"not a saved {self.what}: {self._name(field)}: {why}")

    # ----- field checks -------------------------------------------------------------------------
    def dict(self, v, field: str, keys=None) -> dict:
        if not isinstance(v, dict):
            self.fail(field, v, "expected a dict (JSON object)")
        for k in keys or ():
            if k not in v:
                self.fail_plain(f"{field}.{k}" if field else k, "missing")
        return v

    def list(self, v, field: str, max_len: int | None = None) -> list:
        if not isinstance(v, (list, tuple)):
            self.fail(field, v, "expected a list")
        if max_len is not None and len(v) > max_len:
            self.fail(field, v, f"expected at most {max_len} entries")
        return v

    def int(self, v, field: str, lo: int, hi: int | None = None) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(field, v, "expected an integer" + (f" {lo}-{hi}" if hi is not None else ""))
        if v < lo or (hi is not None and v > hi):
            self.fail(field, v, f"expected an integer {lo}-{hi}" if hi is not None else f"expected an integer >= {lo}")
        return v

    def bool(self, v, field: str) -> bool:
        if not isinstance(v, bool):
            self.fail(field, v, "expected true or false")
        return v

    def str(self, v, field: str, max_len: int | None = None) -> str:
        if not isinstance(v, str):
            self.fail(field, v, "expected a string")
        if max_len is not None and len(v) > max_len:
            self.fail(field, v, f"expected at most {max_len} characters")
        return v

    def player(self, v, field: str, none: bool = False):
        if v is None and none:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v not in (0, 1):
            self.fail(field, v, "expected 0 or 1" + (" or null" if none else ""))
        return v

    def pow2(self, v, field: str, none: bool = False):
        if v is None and none:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
            self.fail(field, v, "expected a power of two (1, 2, 4, ...)" + (" or null" if none else ""))
        return v

    def dice(self, v, field: str, none: bool = False):
        if v is None and none:
            return None
        if (
            not isinstance(v, (list, tuple))
            or len(v) != 2
            or any(isinstance(x, bool) or not isinstance(x, int) or not 1 <= x <= 6 for x in v)
        ):
            self.fail(field, v, "expected two dice 1-6 such as [3, 1]" + (" or null" if none else ""))
        return (v[0], v[1])

    def choice(self, v, field: str, options) -> str:
        if not isinstance(v, str) or v not in options:
            self.fail(field, v, f"expected one of {', '.join(repr(o) for o in options)}")
        return v


def same(a, b) -> bool:
    """Equality that also compares types (``True`` is not ``1``, ``1.0`` is not ``1``); lists and
    tuples compare alike."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# ----- rules, players, dice source ------------------------------------------------------------------
def check_rules(c: Checker, v, field: str = "rules"):
    """The rules of a saved ``{"name": ..., options...}`` dict."""
    from ..rules.variants import get_rules

    c.dict(v, field, ("name",))
    opts = {}
    for k, val in v.items():
        if not isinstance(k, str):
            c.fail(field, k, "option names must be strings")
        if k != "name":
            opts[k] = val
    c.str(v["name"], f"{field}.name", 40)
    if isinstance(opts.get("scoring"), (dict, set)):
        c.fail(f"{field}.scoring", opts["scoring"], "expected a list of result values")
    try:
        return get_rules(v["name"], **opts)
    except (NardyError, TypeError, ValueError) as e:
        c.fail(field, v, str(e))


def check_players(c: Checker, v, field: str = "players") -> tuple:
    c.list(v, field)
    if len(v) != 2:
        c.fail(field, v, "expected two names")
    for i, name in enumerate(v):
        c.str(name, f"{field}[{i}]")
    return tuple(v)


def check_dice_source(c: Checker, v, field: str) -> None:
    """A saved dice source: ``None`` or ``{"kind": "random"|"system"|"fixed"|"fair", "state": ...}`` (the
    state checked as :func:`nardy.rules.dice.check_source_dict` does)."""
    if v is None:
        return
    from ..rules.dice import check_source_dict

    check_source_dict(v, lambda sub, value, why: c.fail(f"{field}{sub}", value, why))


def check_cube(c: Checker, v, field: str):
    from .cube import check_cube_dict

    return check_cube_dict(v, lambda sub, value, why: c.fail(f"{field}{sub}", value, why))


# ----- positions ---------------------------------------------------------------------------------
def drawn_position(rules):
    """The final position of a drawn long nardy game (both sides have borne off all 15), which
    :meth:`Position.from_id` refuses as a position to play."""
    from ..rules.position import Position

    b = np.zeros(28, np.int8)
    b[0] = 15
    b[27] = 15
    return Position(b.tobytes(), rules, (False, False))


@functools.lru_cache(maxsize=1 << 14)
def _position_from_id(pid: str, rules, first_turn):
    """:meth:`Position.from_id`, remembered: a saved game is read again and again (a web session at
    every request) and its undo points hold a position each; refusals are not remembered."""
    from ..rules.position import Position

    pos = Position.from_id(pid, rules, first_turn=first_turn)
    return pos, pos.id()


def _position(c: Checker, st: dict, rules, drawn: bool, field: str):
    from .game import _LastRollPosition

    pid = c.str(st["position"], f"{field}.position", _MAX_ID)
    ft = c.list(st["first_turn"], f"{field}.first_turn")
    if len(ft) != 2 or not all(isinstance(f, bool) for f in ft):
        c.fail(f"{field}.first_turn", ft, "expected two booleans [mover, opponent]")
    if drawn:
        pos = drawn_position(rules)
        if pid != pos.id():
            c.fail(f"{field}.position", pid, f"a drawn game ends with both sides borne off ({pos.id()!r})")
    else:
        try:
            pos, canonical = _position_from_id(pid, rules, (ft[0], ft[1]))
        except NardyError as e:
            c.fail(f"{field}.position", pid, str(e))
    if pos.first_turn != (ft[0], ft[1]):
        c.fail(f"{field}.first_turn", ft, f"expected {list(pos.first_turn)} for this position and game")
    if not drawn and canonical != pid:
        c.fail(f"{field}.position", pid, f"with first_turn {list(ft)} the position is written {canonical!r}")
    if st["last_roll"] is True:
        pos = _LastRollPosition(pos._b, pos.rules, pos.first_turn)
    return pos


def _valid_steps(hitting: bool) -> frozenset:
    out = set()
    for frm in range(1, 26 if hitting else 25):
        for die in range(1, 7):
            to = max(frm - die, 0)
            out.add((frm, to, die, False))
            if hitting and to:
                out.add((frm, to, die, True))
    return frozenset(out)


#: Every single step ``(from, to, die, hit)`` a checker can make, by ``rules.hitting``.
_STEPS = {True: _valid_steps(True), False: _valid_steps(False)}


def _check_steps_shape(c: Checker, steps, field: str, hitting: bool) -> list:
    """A list of single steps ``[from, to, die, hit]`` (mover's view); returns them as Steps."""
    if type(steps) is list and len(steps) <= 4:  # the common case, fast
        valid = _STEPS[hitting]
        out = []
        for s in steps:
            if not (
                type(s) is list
                and len(s) == 4
                and type(s[0]) is int
                and type(s[1]) is int
                and type(s[2]) is int
                and type(s[3]) is bool
                and (s[0], s[1], s[2], s[3]) in valid
            ):
                break
            out.append(Step(s[0], s[1], s[2], s[3]))
        else:
            return out
    c.list(steps, field, 4)
    out = []
    for j, s in enumerate(steps):
        f = f"{field}[{j}]"
        c.list(s, f)
        if len(s) != 4:
            c.fail(f, s, "expected a step [from, to, die, hit]")
        frm = c.int(s[0], f"{f}[0]", 1, 25 if hitting else 24)
        to = c.int(s[1], f"{f}[1]", 0, 24)
        die = c.int(s[2], f"{f}[2]", 1, 6)
        hit = c.bool(s[3], f"{f}[3]")
        if (to != 0 and frm - to != die) or (to == 0 and die < frm):
            c.fail(f, s, f"a step from {frm} to {to} cannot be made with a {die}")
        if hit and (not hitting or to == 0):
            c.fail(f, s, "this step cannot hit")
        out.append(Step(frm, to, die, hit))
    return out


def _dice_used(c: Checker, steps, dice, field: str):
    left = [dice[0]] * 4 if dice[0] == dice[1] else [dice[0], dice[1]]
    for s in steps:
        if s.die not in left:
            c.fail(field, [list(x) for x in steps], f"the steps use dice that roll {dice[0]}-{dice[1]} does not give")
        left.remove(s.die)


def replay_steps(c: Checker, steps: list, pos, dice, field: str) -> None:
    """The steps of a partial turn, groups of single steps of one checker: each must be a legal step
    that can still be completed to a legal play (as :meth:`Game.step` takes them)."""
    from .game import _Turn

    turn = _Turn(pos, dice, pos.legal_plays(dice))
    state = turn._start_state()
    for gi, group in enumerate(steps):
        if len(group) == 0:
            c.fail(f"{field}[{gi}]", group, "expected at least one step")
        prev = None
        for si, s in enumerate(group):
            if prev is not None and (s.frm != prev.to or prev.to == 0):
                c.fail(
                    f"{field}[{gi}][{si}]",
                    list(s),
                    "a group of steps moves one checker on (from where the step before ended)",
                )
            children = dict(turn.children(state))
            if s not in children:
                c.fail(
                    f"{field}[{gi}][{si}]",
                    list(s),
                    f"not a legal step now (roll {dice[0]}-{dice[1]}, position {pos.id()}, after the steps before it)",
                )
            state = children[s]
            prev = s


# ----- the state ---------------------------------------------------------------------------------
def _check_result_shape(c: Checker, r, field: str, rules) -> dict:
    c.dict(r, field, _RESULT_KEYS)
    extra = set(r) - set(_RESULT_KEYS) - ({"type"} if field.startswith("history") else set())
    if extra:
        c.fail(field, r, f"unexpected field(s) {', '.join(sorted(map(str, extra)))}")
    reason = c.choice(r["reason"], f"{field}.reason", _REASONS)
    names = rules.result_names
    if reason == "draw":
        if r["winner"] is not None:
            c.fail(f"{field}.winner", r["winner"], "a draw has no winner (null)")
    else:
        c.player(r["winner"], f"{field}.winner")
    level = c.int(r["level"], f"{field}.level", 0, len(names) - 1)
    if reason in ("draw", "drop") and level != 0:
        c.fail(f"{field}.level", level, f"a {reason} is scored at level 0")
    want = "draw" if reason == "draw" else names[level]
    if not isinstance(r["level_name"], str) or r["level_name"] != want:
        c.fail(f"{field}.level_name", r["level_name"], f"expected {want!r} (level {level})")
    c.pow2(r["cube"], f"{field}.cube")
    p = r["points"]
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not p > 0 or p != p or p == float("inf"):
        c.fail(f"{field}.points", p, "expected a positive number")
    return r


def check_state(
    c: Checker, st, rules, *, jacoby: bool, field: str = "state", snapshot: bool = False, config=None
) -> dict:
    """Check a saved state (``Game._state()``); returns the facts the history is compared with.

    ``snapshot``: an undo point (a turn boundary: phase roll or move, no dice source); ``config``:
    ``(cube enabled, limit, beavers, crawford)`` the state must have (undo points keep the game's)."""
    c.dict(st, field, _STATE_KEYS)
    f = field + "."
    phase = c.choice(st["phase"], f + "phase", PHASES)
    turn = c.player(st["turn"], f + "turn", none=True)
    starter = c.player(st["starter"], f + "starter", none=True)
    dice = c.dice(st["dice"], f + "dice", none=True)
    crawford = c.bool(st["crawford"], f + "crawford")
    last_roll = c.bool(st["last_roll"], f + "last_roll")
    cube = check_cube(c, st["cube"], f + "cube")
    names = rules.result_names
    result = st["result"]
    if result is not None:
        _check_result_shape(c, result, f + "result", rules)
    resign = st["resign"]
    if resign is not None:
        c.list(resign, f + "resign")
        if len(resign) != 2:
            c.fail(f + "resign", resign, "expected [player, level]")
        c.player(resign[0], f + "resign[0]")
        c.int(resign[1], f + "resign[1]", 0, len(names) - 1)
    resume = st["resume"]
    if resume is not None:
        c.choice(resume, f + "resume", ("roll", "move", "double"))
    groups = c.list(st["steps"], f + "steps", 4)
    steps = []
    for gi, g in enumerate(groups):
        steps.append(_check_steps_shape(c, g, f"{f}steps[{gi}]", rules.hitting))
    if sum(len(g) for g in steps) > 4:
        c.fail(f + "steps", groups, "more steps than dice")
    if snapshot:
        if st["dice_source"] is not None:
            c.fail(f + "dice_source", st["dice_source"], "an undo point keeps no dice source (null)")
    else:
        check_dice_source(c, st["dice_source"], f + "dice_source")
    if config is not None:
        if (cube.enabled, cube.limit, cube.beavers, crawford) != config:
            c.fail_plain(f + "cube", "an undo point must keep the game's cube settings and Crawford flag")

    reason = result["reason"] if result is not None else None
    drawn = phase == "over" and reason == "draw"
    pos = _position(c, st, rules, drawn, field)
    arr = pos.array

    # who is on turn
    if phase == "opening":
        for name, v in (("turn", turn), ("starter", starter)):
            if v is not None:
                c.fail(f + name, v, "a game not started has no player on turn (null)")
    else:
        for name, v in (("turn", turn), ("starter", starter)):
            if v is None:
                c.fail(f + name, v, f"phase {phase!r} needs a player (0 or 1)")
    # the dice: exactly while a play is due
    wants_dice = phase == "move" or (phase == "resign" and resume == "move")
    if wants_dice and dice is None:
        c.fail(f + "dice", None, f"phase {phase!r}{' (from move)' if phase == 'resign' else ''} needs the dice")
    if not wants_dice and dice is not None:
        c.fail(f + "dice", st["dice"], f"no dice in phase {phase!r}")
    # the result: exactly when over
    if (phase == "over") != (result is not None):
        c.fail(f + "result", result, "a finished game (phase 'over') has a result, and only a finished game")
    # a waiting resignation
    if (phase == "resign") != (resign is not None):
        c.fail(f + "resign", resign, "a resignation waits (phase 'resign') exactly when there is one")
    if phase == "resign" and resume is None:
        c.fail(f + "resume", None, "a resignation needs the phase to resume (roll, move or double)")
    if phase not in ("resign", "over") and resume is not None:
        c.fail(f + "resume", resume, f"nothing to resume in phase {phase!r}")
    if phase == "over" and resume is not None and reason != "resign":
        c.fail(f + "resume", resume, "only an accepted resignation leaves a phase to resume")
    # the steps of a partial turn
    if steps and not (wants_dice or (phase == "over" and reason == "resign" and resume == "move")):
        c.fail(f + "steps", groups, f"no steps in phase {phase!r}")
    if snapshot and (phase not in ("roll", "move") or steps):
        c.fail(f + "phase", phase, "an undo point is taken at the start of a turn (phase roll or move, no steps)")
    # long nardy's last roll
    if last_roll:
        if rules.hitting or rules.last_roll == "off":
            c.fail(f + "last_roll", True, "only long nardy with option last-roll has a last roll")
        if phase in ("opening", "double") or (phase == "over" and reason != "resign"):
            c.fail(f + "last_roll", True, f"no last roll in phase {phase!r}")
        if turn != 1 - starter:
            c.fail(f + "turn", turn, "the last roll is the other player's (not the starter's)")
        if arr[27] != 15:
            c.fail(f + "position", st["position"], "on the last roll the starter has borne off all 15")
    elif phase != "over" and pos.is_game_over():
        c.fail(f + "position", st["position"], f"a side has borne off all 15 checkers but the phase is {phase!r}")
    # the cube
    _check_cube_state(
        c, cube, f + "cube", phase=phase, resume=resume, turn=turn, crawford=crawford, last_roll=last_roll
    )
    if phase == "opening":
        from ..rules.position import Position

        if pos != Position.start(rules):
            c.fail(f + "position", st["position"], "a game not started is at the starting position")
        if last_roll or steps:
            c.fail_plain(field, "a game not started has no last roll and no steps")
    if phase == "over":
        _check_result(c, result, f + "result", rules, jacoby=jacoby, cube=cube, pos=pos, turn=turn, starter=starter)
        if pos.is_game_over() and reason not in ("bear-off", "draw") and not last_roll:
            c.fail(
                f + "position", st["position"], f"a side has borne off all 15 checkers but the game ended by {reason}"
            )
    # a play that is due can be made, and the steps taken so far are legal
    if dice is not None:
        plays = pos.legal_plays(dice)
        if not plays or (len(plays) == 1 and not plays[0].steps):
            c.fail(
                f + "dice",
                st["dice"],
                f"no checker can move with this roll in position {pos.id()}: the turn would have passed",
            )
        if steps:
            replay_steps(c, steps, pos, dice, f + "steps")
    return {
        "phase": phase,
        "turn": turn,
        "starter": starter,
        "dice": dice,
        "cube": cube,
        "crawford": crawford,
        "last_roll": last_roll,
        "resign": tuple(resign) if resign is not None else None,
        "resume": resume,
        "result": result,
        "position": pos,
    }


def _check_cube_state(c: Checker, cube, field: str, *, phase, resume, turn, crawford, last_roll):
    if (cube.value > 1) != (cube.owner is not None):
        c.fail(field, cube.to_dict(), "a turned cube (value above 1) has an owner, a centred cube is at 1")
    if (not cube.enabled or crawford or phase == "opening") and (cube.value != 1 or cube.offered_by is not None):
        why = "not in use" if not cube.enabled else ("in the Crawford game" if crawford else "before the opening")
        c.fail(field, cube.to_dict(), f"the cube is {why}: it stays centred at 1")
    offered = phase == "double" or (phase == "resign" and resume == "double")
    if offered != (cube.offered_by is not None):
        c.fail(
            f"{field}.offered_by",
            cube.offered_by,
            "a double waits for an answer exactly in phase 'double' (or a resignation made there)",
        )
    if offered:
        if cube.offered_by != turn:
            c.fail(f"{field}.offered_by", cube.offered_by, "only the player on turn doubles")
        if cube.owner not in (None, turn):
            c.fail(f"{field}.owner", cube.owner, "the doubler must own the cube or it must be centred")
        if cube.limit is not None and cube.value * 2 > cube.limit:
            c.fail(f"{field}.value", cube.value, f"a double would pass the cube limit {cube.limit}")
        if last_roll:
            c.fail(f"{field}.offered_by", cube.offered_by, "no doubling on the last roll")


def _check_result(c: Checker, r: dict, field: str, rules, *, jacoby, cube, pos, turn, starter):
    from .game import result_level

    reason, winner, level = r["reason"], r["winner"], r["level"]
    if r["cube"] != cube.value:
        c.fail(f"{field}.cube", r["cube"], f"the cube is at {cube.value}")
    arr = pos.array
    if reason == "draw":
        if rules.hitting or rules.last_roll == "off":
            c.fail(f"{field}.reason", reason, "only long nardy with option last-roll has draws")
        if turn != 1 - starter:
            c.fail(f"{field}.reason", reason, "a draw ends on the other player's last roll")
        points = 0.5 if rules.last_roll == "half" else 1
    elif reason == "drop":
        if winner != turn:
            c.fail(f"{field}.winner", winner, "a dropped double is won by the doubler, the player on turn")
        if not cube.enabled:
            c.fail(f"{field}.reason", reason, "the cube is not in use")
        points = cube.value
    else:
        if reason == "bear-off":
            if arr[0] == 15:
                want_winner, want_level = turn, result_level(rules, pos.opponent)
            elif arr[27] == 15 and not rules.hitting and rules.last_roll != "off" and turn == 1 - starter:
                want_winner, want_level = 1 - turn, result_level(rules, pos.mover)
            else:
                c.fail(f"{field}.reason", reason, f"nobody has borne off all 15 checkers in position {pos.id()}")
            if winner != want_winner:
                c.fail(f"{field}.winner", winner, f"the position is won by player {want_winner}")
            if level != want_level:
                c.fail(
                    f"{field}.level", level, f"the position gives level {want_level} ({rules.result_names[want_level]})"
                )
        lv = 0 if (jacoby and not cube.turned) else level
        points = rules.scoring[lv] * cube.value
    if not same(r["points"], points):
        c.fail(
            f"{field}.points",
            r["points"],
            f"expected {points!r} ({reason}, level {level}, cube {cube.value}{', Jacoby' if jacoby else ''})",
        )


# ----- the history ---------------------------------------------------------------------------------
class _Flow:
    """The turn grammar of :class:`~nardy.flow.game.Game`: which event may come next and what it changes.

    :meth:`run` walks a history; afterwards the attributes hold where it ends (phase, turn, dice, cube,
    resignation, the ``end`` event) and :attr:`snapshots` the undo points the game takes on the way
    (history length and the facts there)."""

    def __init__(self, c: Checker, rules, cube, crawford: bool):
        self.c = c
        self.rules = rules
        self.enabled, self.limit, self.beavers = cube.enabled, cube.limit, cube.beavers
        self.crawford = crawford
        self.phase = "opening"
        self.turn = self.starter = None
        self.dice = None
        self.value, self.owner, self.offered = 1, None, None
        self.resign = None
        self.resume = None
        self.last_roll = False
        self.end = None
        self.snapshots: list[tuple[int, dict]] = []
        #: (history index, undo point) of each event that names the position its turn began at
        self.positions: list[tuple[int, int]] = []
        self._handlers = {
            "setup": self._setup,
            "opening": self._opening,
            "roll": self._roll,
            "pass": self._play,
            "play": self._play,
            "double": self._double,
            "take": self._take,
            "beaver": self._take,
            "drop": self._drop,
            "resign": self._resign,
            "accept": self._answer,
            "decline": self._answer,
        }

    def facts(self) -> dict:
        return {
            "phase": self.phase,
            "turn": self.turn,
            "starter": self.starter,
            "dice": self.dice,
            "value": self.value,
            "owner": self.owner,
            "offered_by": self.offered,
            "last_roll": self.last_roll,
        }

    def snapshot(self, hist: int):
        self.snapshots.append((hist, self.facts()))

    def run(self, history) -> None:
        c = self.c
        c.list(history, "history")
        for i, e in enumerate(history):
            if type(e) is dict:  # the common case, fast
                t = e.get("type")
                if type(t) is str and e.keys() == _EVENT_KEYSETS.get(t, ()):
                    continue
            c.dict(e, f"history[{i}]", ("type",))
            t = c.choice(e["type"], f"history[{i}].type", tuple(_EVENT_KEYS))
            keys = _EVENT_KEYS[t]
            for k in keys:
                if k not in e:
                    c.fail_plain(f"history[{i}].{k}", f"missing (a {t!r} event has {', '.join(keys)})")
            extra = set(e) - set(keys) - {"type"}
            if extra:
                c.fail(f"history[{i}]", e, f"unexpected field(s) {', '.join(sorted(map(str, extra)))} in a {t!r} event")
        i, n = 0, len(history)
        while i < n:
            i = self.event(history, i)

    # ----- helpers --------------------------------------------------------------------------------
    def fail(self, i: int, key: str, value, why: str):
        self.c.fail(f"history[{i}].{key}", value, why)

    def need(self, i: int, e: dict, phases, who=None):
        if self.phase not in phases:
            self.fail(i, "type", e["type"], f"a {e['type']!r} event cannot come in phase {self.phase!r}")
        if who is not None and e["player"] != who:
            self.fail(i, "player", e["player"], f"it is player {who}'s turn to act")

    def event(self, h, i: int) -> int:
        """Apply ``h[i]`` (and the events the game adds by itself after it); returns the next index."""
        e = h[i]
        t = e["type"]
        if self.phase == "over":
            self.fail(i, "type", t, "the game is over: nothing follows its 'end' event")
        if (i == 0) != (t == "setup" or t == "opening"):
            self.fail(i, "type", t, "a history begins with an 'opening' or 'setup' event, and only there")
        if "player" in e:
            p = e["player"]
            if type(p) is not int or (p != 0 and p != 1):
                self.c.player(p, f"history[{i}].player")
        handler = self._handlers.get(t)
        if handler is None:
            self.fail(
                i,
                "type",
                t,
                "the game adds this event by itself, right after a play, a drop or an accepted resignation",
            )
        return handler(h, i, e)

    def _dice(self, i, e):
        d = e["dice"]
        if (
            type(d) is list
            and len(d) == 2
            and type(d[0]) is int
            and type(d[1]) is int
            and 1 <= d[0] <= 6
            and 1 <= d[1] <= 6
        ):
            return (d[0], d[1])
        return self.c.dice(d, f"history[{i}].dice")

    def _value(self, i, e, want):
        v = self.c.pow2(e["value"], f"history[{i}].value")
        if v != want:
            self.fail(i, "value", v, f"expected {want} (the cube is at {self.value})")
        if self.limit is not None and v > self.limit:
            self.fail(i, "value", v, f"the cube limit is {self.limit}")
        return v

    # ----- the events -----------------------------------------------------------------------------
    def _setup(self, h, i, e) -> int:
        self.c.str(e["position"], f"history[{i}].position", _MAX_ID)
        self.turn = self.starter = self.c.player(e["turn"], f"history[{i}].turn")
        self.phase = "roll"
        self.snapshot(1)
        self.positions.append((i, 0))
        return 1

    def _opening(self, h, i, e) -> int:
        c, rules = self.c, self.rules
        f = f"history[{i}]"
        starter = c.player(e["starter"], f"{f}.starter")
        rolls = c.list(e["rolls"], f"{f}.rolls")
        for k, r in enumerate(rolls):
            d = c.dice(r, f"{f}.rolls[{k}]")
            last = k == len(rolls) - 1
            if (d[0] == d[1]) == last:
                c.fail(f"{f}.rolls[{k}]", r, "opening rolls are ties rolled again, then one that is not a tie")
            if last and (0 if d[0] > d[1] else 1) != starter:
                c.fail(
                    f"{f}.starter",
                    starter,
                    f"the opening roll {list(d)} makes player {0 if d[0] > d[1] else 1} the starter",
                )
        self.turn = self.starter = starter
        if rules.opening == "use-opening-dice":
            if e["dice"] is None:
                c.fail(f"{f}.dice", None, "with opening use-opening-dice the starter plays the opening dice")
            d = c.dice(e["dice"], f"{f}.dice")
            if d[0] == d[1]:
                c.fail(f"{f}.dice", e["dice"], "the opening roll is not a double")
            if rolls and list(d) != [max(rolls[-1]), min(rolls[-1])]:
                c.fail(f"{f}.dice", e["dice"], f"the opening roll was {list(rolls[-1])}")
            self.dice = d
            self.phase = "move"
            nxt = 1
            if len(h) > 1 and h[1]["type"] == "pass":
                nxt = self.event(h, 1)
            self.snapshot(nxt)
            return nxt
        if e["dice"] is not None:
            c.fail(f"{f}.dice", e["dice"], "with opening reroll the starter rolls (no opening dice: null)")
        self.phase = "roll"
        self.snapshot(1)
        return 1

    def _roll(self, h, i, e) -> int:
        self.need(i, e, ("roll",), self.turn)
        self.dice = self._dice(i, e)
        self.phase = "move"
        return i + 1

    def _play(self, h, i, e) -> int:
        self.need(i, e, ("move",), self.turn)
        if self._dice(i, e) != self.dice:
            self.fail(i, "dice", e["dice"], f"the roll is {list(self.dice)}")
        if e["type"] == "pass":
            before = h[i - 1]
            if not (before["type"] == "roll" or (before["type"] == "opening" and before["dice"] is not None)):
                self.fail(i, "type", "pass", "a roll that cannot be played passes at once (right after the roll)")
        else:
            c = self.c
            steps = _check_steps_shape(c, e["steps"], f"history[{i}].steps", self.rules.hitting)
            _dice_used(c, steps, self.dice, f"history[{i}].steps")
            text = e["play"]
            if type(text) is not str or text != _format(tuple(steps)):
                c.str(text, f"history[{i}].play", 200)
                self.fail(i, "play", text, f"the steps are written {_format(tuple(steps))!r}")
            pid = e["position"]
            if type(pid) is not str or len(pid) > _MAX_ID:
                c.str(pid, f"history[{i}].position", _MAX_ID)
            self.positions.append((i, len(self.snapshots) - 1))
        return self._after_play(h, i)

    def _double(self, h, i, e) -> int:
        self.need(i, e, ("roll",), self.turn)
        if not self.enabled or self.crawford or self.last_roll:
            self.fail(
                i, "type", "double", "no doubling here (the cube is not in use, a Crawford game or the last roll)"
            )
        if self.owner not in (None, self.turn):
            self.fail(i, "player", e["player"], f"player {self.owner} owns the cube")
        self._value(i, e, self.value * 2)
        self.offered = self.turn
        self.phase = "double"
        return i + 1

    def _take(self, h, i, e) -> int:
        self.need(i, e, ("double",), 1 - self.turn)
        beaver = e["type"] == "beaver"
        if beaver and not self.beavers:
            self.fail(i, "type", "beaver", "beavers are not allowed in this game")
        self.value = self._value(i, e, self.value * (4 if beaver else 2))
        self.owner = e["player"]
        self.offered = None
        self.phase = "roll"
        return i + 1

    def _drop(self, h, i, e) -> int:
        self.need(i, e, ("double",), 1 - self.turn)
        self.offered = None
        return self._end(h, i + 1, ("drop",), self.turn)

    def _resign(self, h, i, e) -> int:
        self.need(i, e, ("roll", "move", "double"))
        names = self.rules.result_names
        lv = self.c.int(e["level"], f"history[{i}].level", 0, len(names) - 1)
        if e["level_name"] != names[lv]:
            self.fail(i, "level_name", e["level_name"], f"level {lv} is {names[lv]!r}")
        self.resign = (e["player"], lv)
        self.resume = self.phase
        self.phase = "resign"
        return i + 1

    def _answer(self, h, i, e) -> int:
        self.need(i, e, ("resign",))
        loser, lv = self.resign
        self.need(i, e, ("resign",), 1 - loser)
        if e["type"] == "decline":
            self.phase = self.resume
            self.resign = self.resume = None
            return i + 1
        self.offered = None
        self.resign = None
        nxt = self._end(h, i + 1, ("resign",), 1 - loser)
        if self.end["level"] != lv:
            self.fail(i + 1, "level", self.end["level"], f"the resignation was at level {lv}")
        return nxt

    def _after_play(self, h, i: int) -> int:
        """The end of a play or pass at ``h[i]``: the turn passes, the last roll begins, or the game ends."""
        c, rules = self.c, self.rules
        mover = self.turn
        nxt = h[i + 1] if i + 1 < len(h) else None
        self.dice = None
        if self.last_roll:
            self.last_roll = False
            if nxt is None:
                c.fail_plain(f"history[{i}]", "the last roll ends the game, but no 'end' event follows")
            return self._end(h, i + 1, ("bear-off", "draw"), None)
        if nxt is not None and nxt["type"] == "last-roll":
            if rules.hitting or rules.last_roll == "off" or mover != self.starter or h[i]["type"] != "play":
                self.fail(
                    i + 1,
                    "type",
                    "last-roll",
                    "the last roll follows only the starter's bearing off the "
                    "last checker in long nardy with option last-roll",
                )
            if nxt["player"] != 1 - mover:
                self.fail(i + 1, "player", nxt["player"], f"the last roll is player {1 - mover}'s")
            self.last_roll = True
            self.turn = 1 - mover
            self.phase = "roll"
            self.snapshot(i + 2)
            return i + 2
        if nxt is not None and nxt["type"] == "end":
            if h[i]["type"] == "pass":
                self.fail(i + 1, "type", "end", "a pass does not end the game (except on the last roll)")
            if not rules.hitting and rules.last_roll != "off" and mover == self.starter:
                self.fail(
                    i + 1,
                    "type",
                    "end",
                    "the starter's bearing off gives the other player a last roll first (option last-roll)",
                )
            return self._end(h, i + 1, ("bear-off",), mover)
        self.turn = 1 - mover
        self.phase = "roll"
        self.snapshot(i + 1)
        return i + 1

    def _end(self, h, j: int, reasons, winner) -> int:
        c = self.c
        if j >= len(h) or h[j]["type"] != "end":
            c.fail_plain(f"history[{j - 1}]", "the game ends here, but no 'end' event follows")
        e = h[j]
        _check_result_shape(c, e, f"history[{j}]", self.rules)
        if e["reason"] not in reasons:
            self.fail(j, "reason", e["reason"], f"expected {' or '.join(repr(r) for r in reasons)} here")
        if e["reason"] == "draw":
            pass
        elif e["reason"] == "bear-off" and winner is None:
            if e["winner"] != self.starter:
                self.fail(j, "winner", e["winner"], "the last roll did not bear off all 15: the starter wins")
        elif e["winner"] != winner:
            self.fail(j, "winner", e["winner"], f"player {winner} wins here")
        self.end = e
        self.phase = "over"
        self.dice = None
        return j + 1


@functools.lru_cache(maxsize=1 << 12)
def _format(steps: tuple) -> str:
    return format_steps(steps)


def check_history(c: Checker, history, undo, state_facts: dict, st: dict, rules, *, jacoby: bool) -> list:
    """Run the history through the turn grammar and compare where it ends with the saved state; check
    the undo points against the turn boundaries. Returns the undo list (checked)."""
    cube = state_facts["cube"]
    flow = _Flow(c, rules, cube, state_facts["crawford"])
    flow.run(history)
    # where the history ends is the saved state
    f = "state."
    for name, got, want in (
        ("phase", state_facts["phase"], flow.phase),
        ("turn", state_facts["turn"], flow.turn),
        ("starter", state_facts["starter"], flow.starter),
        ("last_roll", state_facts["last_roll"], flow.last_roll),
    ):
        if got != want:
            c.fail(f + name, got, f"the history leads to {want!r}")
    d = state_facts["dice"]
    if (d is None) != (flow.dice is None) or (d is not None and list(d) != list(flow.dice)):
        c.fail(f + "dice", st["dice"], f"the history leads to {list(flow.dice) if flow.dice else None!r}")
    for name, got, want in (
        ("value", cube.value, flow.value),
        ("owner", cube.owner, flow.owner),
        ("offered_by", cube.offered_by, flow.offered),
    ):
        if got != want:
            c.fail(f"{f}cube.{name}", got, f"the history leads to {want!r}")
    if state_facts["resign"] != flow.resign:
        c.fail(f + "resign", st["resign"], f"the history leads to {list(flow.resign) if flow.resign else None!r}")
    if state_facts["resume"] != flow.resume:
        c.fail(f + "resume", st["resume"], f"the history leads to {flow.resume!r}")
    if flow.end is not None:
        want = {k: v for k, v in flow.end.items() if k != "type"}
        if not same(st["result"], want):
            c.fail(f + "result", st["result"], f"the history's 'end' event says {want!r}")
    # the undo points
    c.list(undo, "undo")
    if len(undo) != len(flow.snapshots):
        c.fail("undo", undo, f"expected {len(flow.snapshots)} undo points (one per turn of the history)")
    config = (cube.enabled, cube.limit, cube.beavers, state_facts["crawford"])
    out = []
    for k, (u, (hist, facts)) in enumerate(zip(undo, flow.snapshots)):
        uf = f"undo[{k}]"
        c.dict(u, uf, ("hist", "state"))
        if set(u) != {"hist", "state"}:
            c.fail(uf, u, "expected {hist, state}")
        h = c.int(u["hist"], f"{uf}.hist", 0)
        if h != hist:
            c.fail(f"{uf}.hist", h, f"the turn begins at history entry {hist}")
        got = _snapshot_fast(u["state"], rules, config)
        if got is None:
            sf = check_state(c, u["state"], rules, jacoby=jacoby, field=f"{uf}.state", snapshot=True, config=config)
            got = {
                "phase": sf["phase"],
                "turn": sf["turn"],
                "starter": sf["starter"],
                "dice": sf["dice"],
                "value": sf["cube"].value,
                "owner": sf["cube"].owner,
                "offered_by": sf["cube"].offered_by,
                "last_roll": sf["last_roll"],
            }
        for name in got:
            g, w = got[name], facts[name]
            if name == "dice":
                g = list(g) if g else None
                w = list(w) if w else None
            if g != w:
                field = f"{uf}.state.cube.{name}" if name in ("value", "owner", "offered_by") else f"{uf}.state.{name}"
                c.fail(field, g, f"the history leads to {w!r} at entry {hist}")
        out.append(u)
    # the positions the history names are those its turns began at, and the state's (unless a
    # bear-off ended the game) is the last turn's
    for i, k in flow.positions:
        want = undo[k]["state"]["position"]
        if history[i]["position"] != want:
            c.fail(f"history[{i}].position", history[i]["position"], f"the turn began at {want!r} (undo[{k}])")
    if undo and not (flow.phase == "over" and flow.end["reason"] in ("bear-off", "draw")):
        want = undo[-1]["state"]["position"]
        if st["position"] != want:
            c.fail(
                "state.position",
                st["position"],
                f"the turn began at {want!r} (undo[{len(undo) - 1}]) and no play has ended it",
            )
    return out


_STATE_KEYSET = frozenset(_STATE_KEYS)
_CUBE_KEYSET = frozenset(("enabled", "value", "owner", "limit", "offered_by", "beavers"))


def _pow2(v) -> bool:
    return type(v) is int and v >= 1 and not v & (v - 1)


def _snapshot_fast(st, rules, config):
    """The facts of a common undo point (phase roll, not the last roll), checked as :func:`check_state`
    would accept it; ``None`` for anything else, which is then checked the long way (and refused
    there with a message)."""
    if type(st) is not dict or st.keys() != _STATE_KEYSET:
        return None
    if (
        st["phase"] != "roll"
        or st["last_roll"] is not False
        or st["dice"] is not None
        or st["result"] is not None
        or st["resign"] is not None
        or st["resume"] is not None
        or st["dice_source"] is not None
        or type(st["steps"]) is not list
        or st["steps"]
    ):
        return None
    turn, starter, crawford = st["turn"], st["starter"], st["crawford"]
    if (
        type(turn) is not int
        or turn not in (0, 1)
        or type(starter) is not int
        or starter not in (0, 1)
        or type(crawford) is not bool
    ):
        return None
    cube = st["cube"]
    if type(cube) is not dict or cube.keys() != _CUBE_KEYSET:
        return None
    enabled, value, owner, limit = cube["enabled"], cube["value"], cube["owner"], cube["limit"]
    if (
        type(enabled) is not bool
        or type(cube["beavers"]) is not bool
        or not _pow2(value)
        or not (limit is None or _pow2(limit))
        or cube["offered_by"] is not None
        or not (owner is None or (type(owner) is int and owner in (0, 1)))
        or (enabled, limit, cube["beavers"], crawford) != config
        or (value > 1) != (owner is not None)
        or ((not enabled or crawford) and value != 1)
        or (limit is not None and value > limit)
    ):
        return None
    pid, ft = st["position"], st["first_turn"]
    if (
        type(pid) is not str
        or len(pid) > _MAX_ID
        or type(ft) is not list
        or len(ft) != 2
        or type(ft[0]) is not bool
        or type(ft[1]) is not bool
    ):
        return None
    try:
        pos, canonical = _position_from_id(pid, rules, (ft[0], ft[1]))
    except NardyError:
        return None
    if pos.first_turn != (ft[0], ft[1]) or pos.is_game_over() or canonical != pid:
        return None
    return {
        "phase": "roll",
        "turn": turn,
        "starter": starter,
        "dice": None,
        "value": value,
        "owner": owner,
        "offered_by": None,
        "last_roll": False,
    }


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

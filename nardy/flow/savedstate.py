"""The checks of a saved game's fields and state (:mod:`nardy.flow.saved` describes them all): the
:class:`Checker` that names the field and quotes the bad value, the rules, players, dice source and cube, the
position, the steps of a partial turn replayed through the rules, the result, and the state as a whole
(:func:`check_state`).
"""

from __future__ import annotations

import functools

import numpy as np

from ..rules.dice import check_source_dict
from ..rules.errors import GameStateError, NardyError
from ..rules.ids import _quote
from ..rules.lastroll import LastRollPosition
from ..rules.notation import Step
from ..rules.position import Position
from ..rules.scoring import result_kind
from ..rules.variants import get_rules
from .cube import check_cube_dict
from .turn import TurnEntry

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
#: Fields an event may have besides those of :data:`_EVENT_KEYS` (a set-up's cube, when not centred at 1).
_EVENT_OPTIONAL = {"setup": ("value", "owner")}
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

    check_source_dict(v, lambda sub, value, why: c.fail(f"{field}{sub}", value, why))


def check_cube(c: Checker, v, field: str):

    return check_cube_dict(v, lambda sub, value, why: c.fail(f"{field}{sub}", value, why))


# ----- positions ---------------------------------------------------------------------------------
def drawn_position(rules):
    """The final position of a drawn long nardy game (both sides have borne off all 15), which
    :meth:`Position.from_id` refuses as a position to play."""

    b = np.zeros(28, np.int8)
    b[0] = 15
    b[27] = 15
    return Position(b.tobytes(), rules, (False, False))


@functools.lru_cache(maxsize=1 << 14)
def _position_from_id(pid: str, rules, first_turn):
    """:meth:`Position.from_id`, remembered: a saved game is read again and again (a web session at
    every request) and its undo points hold a position each; refusals are not remembered."""

    pos = Position.from_id(pid, rules, first_turn=first_turn)
    return pos, pos.id()


def _position(c: Checker, st: dict, rules, drawn: bool, field: str):
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
        pos = LastRollPosition(pos._b, pos.rules, pos.first_turn)
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
    turn = TurnEntry(pos, dice, pos.legal_plays(dice))
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
                want_winner, want_level = turn, result_kind(rules, pos.opponent)
            elif arr[27] == 15 and not rules.hitting and rules.last_roll != "off" and turn == 1 - starter:
                want_winner, want_level = 1 - turn, result_kind(rules, pos.mover)
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

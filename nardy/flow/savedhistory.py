"""The check of a saved game's history and undo points (:mod:`nardy.flow.saved` describes them all): the turn
grammar of :class:`~nardy.flow.game.Game` walked event by event (:func:`check_history`), ending at the saved
state, and the undo points at the places the grammar puts them (a common one checked the short way).
"""

from __future__ import annotations

import functools

from ..rules.errors import NardyError
from ..rules.notation import format_steps
from .savedstate import (
    _EVENT_KEYS,
    _EVENT_KEYSETS,
    _EVENT_OPTIONAL,
    _MAX_ID,
    _STATE_KEYS,
    Checker,
    _check_result_shape,
    _check_steps_shape,
    _dice_used,
    _position_from_id,
    check_state,
    same,
)


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
            extra = set(e) - set(keys) - set(_EVENT_OPTIONAL.get(t, ())) - {"type"}
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
        if "value" in e or "owner" in e:
            if "value" not in e or "owner" not in e:
                self.c.fail_plain(f"history[{i}]", "a set-up's cube has both value and owner, or neither")
            v = self.c.pow2(e["value"], f"history[{i}].value")
            if self.limit is not None and v > self.limit:
                self.fail(i, "value", v, f"the cube limit is {self.limit}")
            owner = e["owner"]
            if owner is not None:
                owner = self.c.player(owner, f"history[{i}].owner")
            if (v != 1 or owner is not None) and (not self.enabled or self.crawford):
                self.fail(i, "value", v, "the cube is not in use in this game (or it is a Crawford game)")
            self.value, self.owner = v, owner
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

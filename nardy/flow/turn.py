"""Step-by-step entry of one play (docs/rules.md rule 8): the steps of a turn taken so far, and which next steps
can still be completed to a legal play. :class:`nardy.flow.game.Game` enters its turns with it; the checks of
saved games (:mod:`nardy.flow.saved`) replay saved steps with it.
"""

from __future__ import annotations

import numpy as np

from ..rules.notation import Step
from ..rules.position import Play, Position

__all__ = ["TurnEntry", "event_steps"]


def _diff_step(b, nb) -> tuple[int, int, bool]:
    """The single step (from, to, hit) that turns board ``b`` into ``nb`` (mover's view; 28 counts each, lists
    or arrays)."""
    frm = to = None
    if nb[0] > b[0]:
        to = 0
    for i in range(1, 26):
        if nb[i] < b[i] and b[i] > 0:
            frm = i
        elif nb[i] > b[i] and nb[i] > 0:
            to = i
    return frm, to, bool(nb[26] > b[26])


class TurnEntry:
    """Step-by-step entry of one play (docs/rules.md rule 8): the steps taken so far, and which next
    steps can still be completed to a legal play (``Position.partial_results`` intersected with the
    legal plays' results)."""

    def __init__(self, position: Position, dice, plays):
        self.position = position
        d1, d2 = dice
        self.all_dice = [d1] * 4 if d1 == d2 else [d1, d2]
        self.targets = {p._rb: p for p in plays}
        self.hitting = position.rules.hitting
        self.hl = 1 if self.hitting else position.head_limit(dice)
        self.groups: list[list[Step]] = []
        #: the next steps of each sequence of steps taken (:meth:`legal_steps`), worked out once per turn state
        self._legal: dict[tuple[Step, ...], list[tuple[int, int]]] = {}

    def legal_steps(self) -> list[tuple[int, int]]:
        """The single steps ``(from, to)`` that may be taken next after the steps taken so far and can still
        be completed to a legal play, highest first (:meth:`Game.legal_steps`); each turn state's worked out
        once (a view asks for them twice: the moves and the blocked checkers; every live connection's view)."""
        key = tuple(self.steps)
        out = self._legal.get(key)
        if out is None:
            out = self._legal[key] = sorted({(s.frm, s.to) for s, _ in self.children(self.state())}, reverse=True)
        return list(out)

    @property
    def steps(self) -> list[Step]:
        return [s for g in self.groups for s in g]

    def _start_state(self):
        return (self.position.array.copy(), np.zeros(26, np.int8), 0, list(self.all_dice))

    def _apply(self, state, step: Step):
        b, moved, heads, left = state
        b = b.copy()
        moved = moved.copy()
        b[step.frm] -= 1
        # a checker that moved this turn steps on where there is one, but a strict bear-off by a die larger
        # than the point takes one that has not moved (docs/rules.md, short nardy bear-off), as the core does
        larger_off = step.to == 0 and step.frm < step.die and self.position.rules.strict_bear_off
        if moved[step.frm] > 0 and not larger_off:
            moved[step.frm] -= 1
        if step.to == 0:
            b[0] += 1
        else:
            if b[step.to] == -1 and self.hitting:
                b[step.to] = 0
                b[26] += 1
            b[step.to] += 1
            moved[step.to] += 1
        left = list(left)
        left.remove(step.die)
        return (b, moved, heads + (1 if (not self.hitting and step.frm == 24) else 0), left)

    def state(self):
        st = self._start_state()
        for s in self.steps:
            st = self._apply(st, s)
        return st

    def _pos(self, b) -> Position:
        return Position(b.tobytes(), self.position.rules, self.position.first_turn)

    def children(self, state):
        """Every single step from ``state`` that can still be completed to a legal play:
        list of ``(Step, new_state)``."""
        b, moved, heads, left = state
        if not left or b[0] >= 15:
            return []
        out = []
        pos = self._pos(b)
        bl = b.tolist()
        for d in sorted(set(left), reverse=True):
            leaves = pos.partial_results([d], moved, heads, self.hl)
            for nb in leaves.tolist():  # plain lists: a scan of 28 ints, not of numpy scalars
                if nb == bl:
                    continue
                frm, to, hit = _diff_step(bl, nb)
                step = Step(frm, to, d, hit)
                ns = self._apply(state, step)
                if self.can_finish(ns):
                    out.append((step, ns))
        return out

    def can_finish(self, state) -> bool:
        b, moved, heads, left = state
        targets = self.targets
        if b.tobytes() in targets:
            return True
        if not left or b[0] >= 15:
            return False
        leaves = self._pos(b).partial_results(left, moved, heads, self.hl)
        raw, w = leaves.tobytes(), leaves.shape[1]  # each leaf's bytes, sliced from one buffer
        return any(raw[i : i + w] in targets for i in range(0, len(raw), w))

    def complete_play(self) -> Play | None:
        b = self.state()[0]
        return self.targets.get(b.tobytes())

    def find_path(self, frm: int, to: int, die: int | None):
        """Single steps moving one checker from ``frm`` to ``to`` (fewest steps; a checker path that
        hits nothing in passing first; with ``die`` only a single step with that die)."""
        start = self.state()
        found = []
        frontier: list[tuple[tuple, list[Step]]] = [(start, [])]
        for _ in range(len(start[3])):
            nxt = []
            for st, path in frontier:
                cur = path[-1].to if path else frm
                if cur == 0:
                    continue
                for step, ns in self.children(st):
                    if step.frm != cur:
                        continue
                    if die is not None and (path or step.die != die):
                        continue
                    if step.to == to:
                        found.append(path + [step])
                    else:
                        nxt.append((ns, path + [step]))
            if found:
                break
            frontier = nxt
        if not found:
            return None

        def key(path):
            passing_hits = sum(1 for s in path[:-1] if s.hit)
            exact = 0 if (to != 0 or path[-1].die == path[-1].frm) else 1
            return (passing_hits, exact, [s.die for s in path])

        return min(found, key=key)


def event_steps(steps) -> tuple:
    """Steps as the ``(from, to, die, hit)`` tuples of a :class:`~nardy.flow.events.PlayEvent`."""
    return tuple((s.frm, s.to, s.die, bool(s.hit)) for s in steps)

"""Dice sources: injected, seedable, serialisable (RULES.md rules 1 and 7).

Game flow never touches module-level :mod:`random`: a :class:`~nardy.game.Game` or
:class:`~nardy.match.Match` is handed a dice source, or builds a :class:`DiceSource` of its own.
Every source can save its state to plain JSON data and continue exactly from it.

* :class:`DiceSource`: pseudo-random dice from a private :class:`random.Random` (Mersenne Twister).
* :class:`FixedDice`: a fixed list of rolls (tests, replays of records); it raises
  :class:`~nardy.errors.GameStateError` when it runs out.

Example::

    >>> src = DiceSource(seed=7)
    >>> a = src.roll(); state = src.get_state(); b = src.roll()
    >>> src.set_state(state); src.roll() == b
    True
"""

from __future__ import annotations

import random
from typing import Iterable

from .errors import GameStateError, InvalidDiceError

__all__ = ["DiceSource", "FixedDice", "dice_from_dict"]


class DiceSource:
    """Seedable pseudo-random dice.

    Args:
        seed: any value :class:`random.Random` accepts (int, str, bytes); ``None`` seeds from the
            operating system. The seed is only used once: the state afterwards is what
            :meth:`get_state` saves.
    """

    kind = "random"

    def __init__(self, seed=None):
        self._rng = random.Random(seed)
        self.seed = seed if isinstance(seed, (int, str)) or seed is None else repr(seed)

    def roll_one(self) -> int:
        """One die, 1..6."""
        return self._rng.randint(1, 6)

    def roll(self) -> tuple[int, int]:
        """Two dice ``(d1, d2)``, each 1..6."""
        return self.roll_one(), self.roll_one()

    def get_state(self):
        """The generator's state as JSON-serialisable data (lists and ints)."""
        version, internal, gauss = self._rng.getstate()
        return [version, list(internal), gauss]

    def set_state(self, state) -> None:
        """Restore a state returned by :meth:`get_state` (lists or tuples)."""
        try:
            version, internal, gauss = state
            self._rng.setstate((version, tuple(internal), gauss))
        except (TypeError, ValueError) as e:
            raise InvalidDiceError(f"dice source state is not a saved DiceSource state: {e}") from None

    def to_dict(self) -> dict:
        """JSON-able description: kind and state (see :func:`dice_from_dict`)."""
        return {"kind": self.kind, "state": self.get_state()}


class FixedDice:
    """Dice from a fixed list, in order (for tests and for replaying records).

    Args:
        rolls: two-dice rolls such as ``[(3, 1), (6, 6)]`` or ``["31", "66"]``; single dice
            (for :meth:`roll_one`, used by the opening roll) may be mixed in as ints.
        index: where to start in the list.
    Raises:
        InvalidDiceError: a value that is not a die or a roll.
        GameStateError: (when rolling) the list is used up.
    """

    kind = "fixed"

    def __init__(self, rolls: Iterable = (), index: int = 0):
        from .position import check_dice
        self.rolls = []
        for r in rolls:
            if isinstance(r, int) and not isinstance(r, bool):
                if not 1 <= r <= 6:
                    raise InvalidDiceError(f"die {r!r} in FixedDice: expected 1-6")
                self.rolls.append(r)
            else:
                self.rolls.append(check_dice(r))
        self.index = int(index)

    def _next(self):
        if self.index >= len(self.rolls):
            raise GameStateError(f"FixedDice: all {len(self.rolls)} rolls are used up")
        r = self.rolls[self.index]
        self.index += 1
        return r

    def roll(self) -> tuple[int, int]:
        """The next roll of the list (a single die entry is paired with the one after it)."""
        r = self._next()
        if isinstance(r, int):
            s = self._next()
            if not isinstance(s, int):
                raise GameStateError("FixedDice: a single die must be followed by another single die")
            return (r, s)
        return r

    def roll_one(self) -> int:
        """The next single die; a two-dice entry gives its first die, then its second."""
        r = self.rolls[self.index] if self.index < len(self.rolls) else None
        if isinstance(r, tuple):
            # split the roll into two single dice in place
            self.rolls[self.index:self.index + 1] = [r[0], r[1]]
        return self._next()

    def get_state(self):
        """The position in the list and the list (JSON-able)."""
        return {"index": self.index, "rolls": [list(r) if isinstance(r, tuple) else r for r in self.rolls]}

    def set_state(self, state) -> None:
        """Restore a state from :meth:`get_state`."""
        self.__init__([tuple(r) if isinstance(r, list) else r for r in state["rolls"]], state["index"])

    def to_dict(self) -> dict:
        """JSON-able description (see :func:`dice_from_dict`)."""
        return {"kind": self.kind, "state": self.get_state()}


def dice_from_dict(d) -> "DiceSource | FixedDice":
    """Rebuild a dice source saved with ``to_dict()``; other sources can be passed through unchanged
    by giving the object itself."""
    if not isinstance(d, dict):
        return d
    kind = d.get("kind")
    if kind == "random":
        src = DiceSource(0)
    elif kind == "fixed":
        src = FixedDice()
    else:
        raise InvalidDiceError(f"unknown dice source kind {kind!r}: expected random or fixed")
    src.set_state(d["state"])
    return src

"""Dice sources: injected, seedable, serialisable (docs/rules.md rules 1 and 7).

Game flow never touches module-level :mod:`random`: a :class:`~nardy.flow.game.Game` or
:class:`~nardy.flow.match.Match` is handed a dice source, or builds a :class:`DiceSource` of its own.
Every source can save its state to plain JSON data and continue exactly from it.

* :class:`DiceSource`: pseudo-random dice from a private :class:`random.Random` (Mersenne Twister).
* :class:`SystemDice`: dice from the operating system's random source (:mod:`secrets`), with no state
  to save or predict: the dice of games played for real (the server's).
* :class:`FixedDice`: a fixed list of rolls (tests, replays of records); it raises
  :class:`~nardy.rules.errors.GameStateError` when it runs out.
* :class:`~nardy.rules.fairdice.FairDice` (in :mod:`nardy.rules.fairdice`): provably fair dice, checkable by the
  players once the match is over (docs/fairness.md); :func:`dice_from_dict` rebuilds it (kind ``fair``).

Example::

    >>> src = DiceSource(seed=7)
    >>> a = src.roll(); state = src.get_state(); b = src.roll()
    >>> src.set_state(state); src.roll() == b
    True
"""

from __future__ import annotations

import math
import random
import secrets
from collections.abc import Iterable

from .errors import GameStateError, InvalidDiceError
from .fairdice import FairDice, check_fair_state

__all__ = ["DiceSource", "SystemDice", "FixedDice", "FairDice", "dice_from_dict"]


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
        """Restore a state returned by :meth:`get_state` (lists or tuples).

        Raises:
            InvalidDiceError: not a saved state (version 3, 625 integers, the last 0-624, the others
                0..2**32-1, and None or a float); the message names the bad entry.
        """
        check_random_state(state, _raise_invalid_dice)
        version, internal, gauss = state
        self._rng.setstate((version, tuple(internal), gauss))

    def to_dict(self) -> dict:
        """JSON-able description: kind and state (see :func:`dice_from_dict`)."""
        return {"kind": self.kind, "state": self.get_state()}


class SystemDice:
    """Dice from the operating system's random source (``secrets.randbelow``: unbiased, unpredictable).

    Nothing that decides the next roll is kept, saved or shown (:meth:`get_state` is ``None``), so no
    one, whatever they see of a game, its record or the stored data, can predict its dice. For games
    played for real; use :class:`DiceSource` with a seed for reproducible games.
    """

    kind = "system"
    seed = None

    def roll_one(self) -> int:
        """One die, 1..6."""
        return secrets.randbelow(6) + 1

    def roll(self) -> tuple[int, int]:
        """Two dice ``(d1, d2)``, each 1..6."""
        return self.roll_one(), self.roll_one()

    def get_state(self):
        """``None``: there is no state."""
        return None

    def set_state(self, state) -> None:
        """Accepts only ``None`` (there is no state).

        Raises:
            InvalidDiceError: any other value."""
        if state is not None:
            _raise_invalid_dice("", state, "system dice have no state (expected null)")

    def to_dict(self) -> dict:
        """JSON-able description (see :func:`dice_from_dict`)."""
        return {"kind": self.kind, "state": None}


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

        self.rolls: list[int | tuple[int, int]] = []
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
            self.rolls[self.index : self.index + 1] = [r[0], r[1]]
        return self._next()

    def get_state(self):
        """The position in the list and the list (JSON-able)."""
        return {"index": self.index, "rolls": [list(r) if isinstance(r, tuple) else r for r in self.rolls]}

    def set_state(self, state) -> None:
        """Restore a state from :meth:`get_state`.

        Raises:
            InvalidDiceError: not a saved state (``{"index": i, "rolls": [...]}`` with dice 1-6 and
                ``0 <= i <= len(rolls)``); the message names the bad entry.
        """
        check_fixed_state(state, _raise_invalid_dice)
        rolls = [tuple(r) if isinstance(r, list) else r for r in state["rolls"]]
        self.__init__(rolls, state["index"])  # type: ignore[misc]

    def to_dict(self) -> dict:
        """JSON-able description (see :func:`dice_from_dict`)."""
        return {"kind": self.kind, "state": self.get_state()}


def dice_from_dict(d) -> DiceSource | SystemDice | FixedDice | FairDice:
    """Rebuild a dice source saved with ``to_dict()``; other sources can be passed through unchanged
    by giving the object itself.

    Raises:
        GameStateError: a dict that is not a saved dice source (``{"kind": "random" | "system" |
            "fixed" | "fair", "state": ...}`` with a valid state); the message names the bad entry
            (``dice_source.state.rolls[3]``).
    """
    if not isinstance(d, dict):
        return d

    def fail(field, value, why):
        from .ids import _quote

        raise GameStateError(f"not a saved dice source: dice_source{field} {_quote(value)}: {why}")

    check_source_dict(d, fail)
    if d["kind"] == "system":
        return SystemDice()
    if d["kind"] == "fair":
        st = d["state"]
        return FairDice(bytes.fromhex(st["server_seed"]), tuple(st["client_seeds"]), st["n"], st["rolls"])
    src = DiceSource(0) if d["kind"] == "random" else FixedDice()
    src.set_state(d["state"])
    return src


def _raise_invalid_dice(field, value, why):
    from .ids import _quote

    raise InvalidDiceError(f"dice source state{field} {_quote(value)}: {why}")


def _die(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, int) and 1 <= v <= 6


def check_random_state(state, fail) -> None:
    """Check a :meth:`DiceSource.get_state` value; ``fail(subfield, value, why)`` raises."""
    if not isinstance(state, (list, tuple)) or len(state) != 3:
        fail("", state, "expected [version, 625 integers, gauss]")
    version, internal, gauss = state
    if isinstance(version, bool) or version != 3 or not isinstance(version, int):
        fail("[0]", version, "expected 3 (the version of random.Random's state)")
    if not isinstance(internal, (list, tuple)) or len(internal) != 625:
        fail("[1]", internal, "expected a list of 625 integers")
    if (
        all(type(v) is int for v in internal)
        and min(internal) >= 0
        and max(internal[:624]) < 2**32
        and internal[624] <= 624
    ):
        ok = True  # the common case, fast
    else:
        ok = False
    for k, v in enumerate(() if ok else internal):
        hi = 624 if k == 624 else 2**32 - 1
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= hi:
            fail(f"[1][{k}]", v, f"expected an integer 0..{hi}")
    if gauss is not None and not (isinstance(gauss, float) and math.isfinite(gauss)):
        fail("[2]", gauss, "expected null or a number")


def check_fixed_state(state, fail) -> None:
    """Check a :meth:`FixedDice.get_state` value; ``fail(subfield, value, why)`` raises."""
    if not isinstance(state, dict):
        fail("", state, "expected {index, rolls}")
    for key in ("index", "rolls"):
        if key not in state:
            fail(f".{key}", None, "missing")
    if set(state) != {"index", "rolls"}:
        fail("", state, "expected exactly the keys index and rolls")
    rolls = state["rolls"]
    if not isinstance(rolls, (list, tuple)):
        fail(".rolls", rolls, "expected a list of rolls")
    for k, r in enumerate(rolls):
        if not (_die(r) or (isinstance(r, (list, tuple)) and len(r) == 2 and all(_die(x) for x in r))):
            fail(f".rolls[{k}]", r, "expected a die 1-6 or a roll of two dice such as [3, 1]")
    index = state["index"]
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index <= len(rolls):
        fail(".index", index, f"expected an integer 0..{len(rolls)} (the next roll's place in the list)")


def check_source_dict(d, fail) -> None:
    """Check a saved dice source ``{"kind": ..., "state": ...}``; ``fail(subfield, value, why)`` raises
    (``subfield`` like ``".state[1][3]"``)."""
    if not isinstance(d, dict):
        fail("", d, "expected a dict {kind, state}")
    for k in ("kind", "state"):
        if k not in d:
            fail(f".{k}", None, "missing")
    if set(d) != {"kind", "state"}:
        fail("", d, "expected exactly the keys kind and state")
    kind = d["kind"]
    if kind == "random" and isinstance(kind, str):
        check_random_state(d["state"], lambda f, v, w: fail(".state" + f, v, w))
    elif kind == "fixed" and isinstance(kind, str):
        check_fixed_state(d["state"], lambda f, v, w: fail(".state" + f, v, w))
    elif kind == "system" and isinstance(kind, str):
        if d["state"] is not None:
            fail(".state", d["state"], "system dice have no state (expected null)")
    elif kind == "fair" and isinstance(kind, str):
        check_fair_state(d["state"], lambda f, v, w: fail(".state" + f, v, w))
    else:
        fail(".kind", kind, "expected 'random', 'system', 'fixed' or 'fair'")

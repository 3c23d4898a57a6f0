"""The doubling cube (docs/rules.md "Doubling cube and matches", seed 004).

The cube starts centred at 1. Before rolling, a player who may double (cube centred, or owned by
them) offers; the opponent takes (the cube doubles and the taker owns it), passes (loses the cube
value before the double; the game ends) or, in money play with beavers, beavers (takes and at once
redoubles, keeping the cube). The cube is used when the game's ``cube`` option is on (default: on for
backgammon, off for short and long nardy); nobody may double in the Crawford game; a cube limit caps
the value.

:class:`Cube` only keeps the cube's state and checks its own rules; whose turn it is and the game
phase are checked by :class:`nardy.flow.game.Game`.
"""

from __future__ import annotations

from ..rules.errors import GameStateError, InvalidOptionError, why_not_double_text

__all__ = ["Cube"]

PLAYER_NAMES = ("White", "Black")


class Cube:
    """State of the doubling cube.

    Attributes:
        enabled: the cube is in use at all.
        value: 1, 2, 4, ...
        owner: ``None`` (centred) or the player (0/1) who owns it.
        limit: the largest value allowed (``None``: no limit).
        offered_by: the player whose double is waiting for an answer, or ``None``.
        beavers: a player who is doubled may beaver (money play).
    """

    __slots__ = ("enabled", "value", "owner", "limit", "offered_by", "beavers")

    def __init__(
        self,
        enabled: bool = True,
        value: int = 1,
        owner: int | None = None,
        limit: int | None = None,
        offered_by: int | None = None,
        beavers: bool = False,
    ):
        if limit is not None:
            if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1 or limit & (limit - 1):
                raise InvalidOptionError(f"cube limit {limit!r}: expected a power of two (1, 2, 4, ...)")
        if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value & (value - 1):
            raise InvalidOptionError(f"cube value {value!r}: expected a power of two")
        if not (_player_or_none(owner) and _player_or_none(offered_by)):
            raise InvalidOptionError(f"cube owner {owner!r} / offered_by {offered_by!r}: expected None, 0 or 1")
        if limit is not None and value > limit:
            raise InvalidOptionError(f"cube value {value!r} is above the cube limit {limit!r}")
        self.enabled = bool(enabled)
        self.value = value
        self.owner = owner
        self.limit = limit
        self.offered_by = offered_by
        self.beavers = bool(beavers)

    @property
    def turned(self) -> bool:
        """True once the cube has been doubled (Jacoby rule: gammons count only then)."""
        return self.value > 1

    def why_not_double(self, player: int, crawford: bool = False) -> str | None:
        """Why ``player`` may not double now (cube rules only), as a code, or ``None`` if they may.

        Codes (English in :data:`nardy.rules.errors.WHY_NOT_DOUBLE`; front ends word them from the message catalogue):
        ``cube_disabled`` (option cube is off), ``crawford`` (the Crawford game), ``double_waiting`` (a double
        waits for an answer), ``cube_owned`` (the other side owns the cube), ``cube_limit`` (doubling would
        pass the cube limit). docs/rules.md "Doubling cube and matches".
        """
        if not self.enabled:
            return "cube_disabled"
        if crawford:
            return "crawford"
        if self.offered_by is not None:
            return "double_waiting"
        if self.owner is not None and self.owner != player:
            return "cube_owned"
        if self.limit is not None and self.value * 2 > self.limit:
            return "cube_limit"
        return None

    def refusal(self, code: str, player: int) -> GameStateError:
        """The error for ``player``'s double refused with ``code`` (English detail, code, params)."""
        params = {"player": player, "owner": self.owner, "limit": self.limit, "value": self.value}
        why = why_not_double_text(code, owner_name=PLAYER_NAMES[self.owner or 0], **params)
        return GameStateError(f"{PLAYER_NAMES[player]} cannot double: {why}", code=code, params=params)

    def offer(self, player: int, crawford: bool = False) -> int:
        """``player`` doubles; returns the value offered. Raises GameStateError if not allowed."""
        code = self.why_not_double(player, crawford)
        if code:
            raise self.refusal(code, player)
        self.offered_by = player
        return self.value * 2

    def take(self) -> int:
        """The double is taken: the value doubles, the taker owns the cube. Returns the new value."""
        if self.offered_by is None:
            raise GameStateError("no double to take", code="no_double")
        self.value *= 2
        self.owner = 1 - self.offered_by
        self.offered_by = None
        return self.value

    def beaver(self) -> int:
        """The double is taken and at once redoubled by the taker, who keeps the cube (money play)."""
        if self.offered_by is None:
            raise GameStateError("no double to beaver", code="no_double")
        if not self.beavers:
            raise GameStateError("beavers are not allowed (money-play option beavers is off)", code="no_beavers")
        if self.limit is not None and self.value * 4 > self.limit:
            raise GameStateError(
                f"a beaver would pass the cube limit {self.limit}", code="cube_limit", params={"limit": self.limit}
            )
        self.value *= 4
        self.owner = 1 - self.offered_by
        self.offered_by = None
        return self.value

    def drop(self) -> int:
        """The double is passed: returns the points the doubler wins (the value before the double)."""
        if self.offered_by is None:
            raise GameStateError("no double to pass", code="no_double")
        self.offered_by = None
        return self.value

    def to_dict(self) -> dict:
        """JSON-able state."""
        return {
            "enabled": self.enabled,
            "value": self.value,
            "owner": self.owner,
            "limit": self.limit,
            "offered_by": self.offered_by,
            "beavers": self.beavers,
        }

    @classmethod
    def from_dict(cls, d: dict) -> Cube:
        """Rebuild from :meth:`to_dict`.

        Raises:
            GameStateError: not a saved cube: a missing or unknown key, a value of the wrong type (a
                bool or float for a number, a number for a bool), a value that is not a power of two,
                an owner or offer not None/0/1, a value above the limit (the message names the key).
        """

        def fail(field, value, why):
            from ..rules.ids import _quote

            raise GameStateError(f"not a saved cube: cube{field} {_quote(value)}: {why}")

        return check_cube_dict(d, fail)

    def copy(self) -> Cube:
        return Cube(self.enabled, self.value, self.owner, self.limit, self.offered_by, self.beavers)

    def __repr__(self):
        own = "centred" if self.owner is None else PLAYER_NAMES[self.owner]
        return f"<Cube {self.value} {own}{' offered' if self.offered_by is not None else ''}>"


def _player_or_none(v) -> bool:
    return v is None or (type(v) is int and v in (0, 1))


_CUBE_KEYS = ("enabled", "value", "owner", "limit", "offered_by", "beavers")


def check_cube_dict(d, fail) -> Cube:
    """The :class:`Cube` of a saved ``to_dict()``, every key checked; ``fail(subfield, value, why)``
    raises (``subfield`` like ``".owner"``)."""
    if not isinstance(d, dict):
        fail("", d, "expected a dict (JSON object)")
    for k in _CUBE_KEYS:
        if k not in d:
            fail(f".{k}", None, "missing")
    extra = set(d) - set(_CUBE_KEYS)
    if extra:
        fail("", d, f"unexpected key(s) {', '.join(sorted(map(str, extra)))}")
    for k in ("enabled", "beavers"):
        if not isinstance(d[k], bool):
            fail(f".{k}", d[k], "expected true or false")
    for k, none in (("value", False), ("limit", True)):
        v = d[k]
        if v is None and none:
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < 1 or v & (v - 1):
            fail(f".{k}", v, "expected a power of two (1, 2, 4, ...)" + (" or null" if none else ""))
    for k in ("owner", "offered_by"):
        if not _player_or_none(d[k]):
            fail(f".{k}", d[k], "expected null, 0 or 1")
    if d["limit"] is not None and d["value"] > d["limit"]:
        fail(".value", d["value"], f"above the cube limit {d['limit']}")
    if d["offered_by"] is not None and not d["enabled"]:
        fail(".offered_by", d["offered_by"], "a double is offered only when the cube is in use")
    return Cube(**{k: d[k] for k in _CUBE_KEYS})

"""Rules objects: one per game, carrying the options of ``docs/rules.md``.

Three games share one board (docs/rules.md "Board, points, views"):

* ``backgammon``: hitting game, doubling cube on by default, scored 1/2/3 (single/gammon/backgammon).
* ``short``: short nardy (короткие нарды, trictrac), backgammon's moves with the strict bear-off rule,
  scored oyun/mars/home mars/koks on the scale 1/2/4/8.
* ``long``: long nardy (длинные нарды), no hitting, head rule, six-block rule, scored oyn/mars 1/2.

Options (docs/rules.md names, with ``-`` or ``_`` accepted in keyword form):

=================  =====================================================  ==========================
option             values                                                 default
=================  =====================================================  ==========================
opening            ``use-opening-dice`` | ``reroll``                      backgammon: use-opening-dice,
                                                                          nardy games: reroll
head-exception     ``head-block`` | ``always`` | ``none`` (long only)     head-block
strict-bear-off    bool                                                   short: True, others: False
scoring            tuple of result values, lowest level first             bg (1,2,3), short (1,2,4,8),
                                                                          long (1,2)
last-roll          ``off`` | ``half`` (½-½) | ``one`` (1-1) (long only)   off
cube               bool                                                   backgammon: True, others False
=================  =====================================================  ==========================
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .errors import InvalidOptionError, UnknownGameError
from .numbering import HEAD_EXCEPTIONS, head_mode

GAMES = ("backgammon", "short", "long")

_ALIASES = {
    "backgammon": "backgammon",
    "bg": "backgammon",
    "nardy-backgammon": "backgammon",
    "short": "short",
    "short-nardy": "short",
    "short_nardy": "short",
    "shortnardy": "short",
    "trictrac": "short",
    "tric-trac": "short",
    "tavla": "short",
    "korotkie": "short",
    "короткие": "short",
    "короткие нарды": "short",
    "short nardy": "short",
    "long": "long",
    "long-nardy": "long",
    "long_nardy": "long",
    "longnardy": "long",
    "narde": "long",
    "nardi": "long",
    "nardy": "long",
    "long nardy": "long",
    "dlinnye": "long",
    "длинные": "long",
    "длинные нарды": "long",
    "нарды": "long",
}

OPENINGS = ("use-opening-dice", "reroll")
LAST_ROLL = ("off", "half", "one")

#: Names of the result levels of each game, lowest first (docs/rules.md scoring sections).
RESULT_NAMES = {
    "backgammon": ("single", "gammon", "backgammon"),
    "short": ("oyun", "mars", "home mars", "koks"),
    "long": ("oyn", "mars"),
}

_DEFAULT_SCORING = {"backgammon": (1, 2, 3), "short": (1, 2, 4, 8), "long": (1, 2)}


@dataclass(frozen=True)
class Rules:
    """The rules of one game with its options (docs/rules.md).

    Immutable and hashable; build with :func:`get_rules` (which fills the per-game defaults)
    or :meth:`with_options`.

    Attributes:
        name: ``"backgammon"``, ``"short"`` or ``"long"``.
        opening: ``"use-opening-dice"`` or ``"reroll"`` (docs/rules.md rule 7).
        head_exception: ``"head-block"``, ``"always"`` or ``"none"`` (long nardy head rule).
        strict_bear_off: short nardy's seed-003 rule 26 (a checker that moved this turn may not be
            borne off by a die larger than its point).
        scoring: points for each result level, lowest first (see :data:`RESULT_NAMES`).
        last_roll: long nardy's optional last roll for a draw: ``"off"``, ``"half"`` or ``"one"``.
        cube: whether the doubling cube is used.
    """

    name: str
    opening: str
    head_exception: str = "head-block"
    strict_bear_off: bool = False
    scoring: tuple = field(default=(1, 2, 3))
    last_roll: str = "off"
    cube: bool = False
    if TYPE_CHECKING:  # cached by __post_init__; not dataclass fields at run time
        _hash: int = field(init=False)
        code_base: int = field(init=False)

    def __post_init__(self):
        if self.name not in GAMES:
            raise UnknownGameError(f"unknown game {self.name!r}: expected one of {', '.join(GAMES)}")
        if self.opening not in OPENINGS:
            raise InvalidOptionError(f"option opening={self.opening!r}: expected one of {', '.join(OPENINGS)}")
        if self.head_exception not in HEAD_EXCEPTIONS:
            raise InvalidOptionError(
                f"option head-exception={self.head_exception!r}: expected one of {', '.join(HEAD_EXCEPTIONS)}"
            )
        if self.last_roll not in LAST_ROLL:
            raise InvalidOptionError(f"option last-roll={self.last_roll!r}: expected one of {', '.join(LAST_ROLL)}")
        n = len(RESULT_NAMES[self.name])
        sc = self.scoring
        if (
            not isinstance(sc, tuple)
            or len(sc) != n
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 64 for v in sc)
            or any(a > b for a, b in zip(sc, sc[1:]))
        ):
            raise InvalidOptionError(
                f"option scoring={sc!r}: expected {n} integers 1-64 for {self.name}, lowest level first, "
                f"never decreasing"
            )
        if not isinstance(self.strict_bear_off, bool) or not isinstance(self.cube, bool):
            raise InvalidOptionError("options strict-bear-off and cube must be booleans")
        # Cached for the hot path: the hash, and the rule bits of nardy.rules._movegen.pack_code.
        object.__setattr__(
            self,
            "_hash",
            hash(
                (
                    self.name,
                    self.opening,
                    self.head_exception,
                    self.strict_bear_off,
                    self.scoring,
                    self.last_roll,
                    self.cube,
                )
            ),
        )
        object.__setattr__(
            self,
            "code_base",
            (int(self.name != "long") << 6)
            | (int(self.strict_bear_off) << 7)
            | ((head_mode(self.head_exception, self.name != "long") + 1) << 9),
        )

    def __hash__(self):
        return self._hash

    @property
    def hitting(self) -> bool:
        """True for the hitting games (backgammon, short nardy): bar, blots hit."""
        return self.name != "long"

    @property
    def result_names(self) -> tuple:
        """Names of the result levels, lowest first (e.g. single, gammon, backgammon)."""
        return RESULT_NAMES[self.name]

    def with_options(self, **options) -> Rules:
        """A copy with some options changed; keys as in :func:`get_rules`.

        Raises:
            InvalidOptionError: an unknown option or a bad value.
        """
        return replace(self, **_normalise_options(options))

    def options(self) -> dict:
        """The options as a dict with docs/rules.md's names (``head-exception`` ...)."""
        return {
            "opening": self.opening,
            "head-exception": self.head_exception,
            "strict-bear-off": self.strict_bear_off,
            "scoring": list(self.scoring),
            "last-roll": self.last_roll,
            "cube": self.cube,
        }

    def __str__(self) -> str:
        return self.name


_OPTION_KEYS = {
    "opening": "opening",
    "head-exception": "head_exception",
    "head_exception": "head_exception",
    "strict-bear-off": "strict_bear_off",
    "strict_bear_off": "strict_bear_off",
    "scoring": "scoring",
    "last-roll": "last_roll",
    "last_roll": "last_roll",
    "cube": "cube",
}


def _normalise_options(options: dict) -> dict:
    out = {}
    for key, value in options.items():
        k = _OPTION_KEYS.get(key)
        if k is None:
            raise InvalidOptionError(
                f"unknown option {key!r}: expected one of opening, head-exception, strict-bear-off, "
                f"scoring, last-roll, cube"
            )
        if k == "scoring":
            if isinstance(value, str):
                try:
                    value = tuple(int(v) for v in value.replace(",", "/").split("/"))
                except ValueError:
                    raise InvalidOptionError(f"option scoring={value!r}: expected numbers like 1/2/4/8") from None
            else:
                value = tuple(value)
        if k in ("strict_bear_off", "cube") and isinstance(value, str):
            low = value.lower()
            if low in ("on", "true", "yes", "1"):
                value = True
            elif low in ("off", "false", "no", "0"):
                value = False
            else:
                raise InvalidOptionError(f"option {key}={value!r}: expected on or off")
        out[k] = value
    return out


def game_name(name) -> str:
    """The canonical game name (``backgammon``, ``short``, ``long``) for a name, alias or Rules.

    Raises:
        UnknownGameError: the name is not a known game or alias (the message quotes it).
    """
    if isinstance(name, Rules):
        return name.name
    if not isinstance(name, str):
        raise UnknownGameError(f"unknown game {name!r}: expected a game name")
    key = name.strip().lower()
    if key in _ALIASES:
        return _ALIASES[key]
    raise UnknownGameError(f"unknown game {name!r}: expected backgammon, short (short nardy) or long (long nardy)")


def get_rules(name="backgammon", **options) -> Rules:
    """The :class:`Rules` of a game by name or alias, with docs/rules.md's defaults and any options given.

    Args:
        name: ``"backgammon"``, ``"short"``, ``"long"`` or an alias (``"long-nardy"``, ``"narde"``,
            ``"trictrac"``, ``"short-nardy"``, ...), or a :class:`Rules` (options then override it).
        **options: option overrides, docs/rules.md names with ``_`` for ``-`` (``head_exception="none"``)
            or passed as a dict with the dashed names (``**{"last-roll": "half"}``).

    Raises:
        UnknownGameError: unknown game name.
        InvalidOptionError: unknown option or bad value.
    """
    if isinstance(name, Rules):
        return name.with_options(**options) if options else name
    g = game_name(name)
    base: dict[str, Any] = dict(
        name=g,
        opening="use-opening-dice" if g == "backgammon" else "reroll",
        head_exception="head-block",
        strict_bear_off=(g == "short"),
        scoring=_DEFAULT_SCORING[g],
        last_roll="off",
        cube=(g == "backgammon"),
    )
    base.update(_normalise_options(options))
    return Rules(**base)


BACKGAMMON = get_rules("backgammon")
SHORT = get_rules("short")
LONG = get_rules("long")

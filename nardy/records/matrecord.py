"""The parsed form of a ``.mat`` record (:class:`MatchRecord`, :class:`MatGame`, :class:`MatAction`) and the
bounds on what a record may state (``MAX_LINE``, ``MAX_CUBE``, ...).

:func:`~nardy.records.matparse.parse_mat` makes a :class:`MatchRecord` from the text;
:func:`~nardy.records.matreplay.replay` plays it through the rules. The headers name the game and its
options (``Variation``, ``Opening``, ``Scoring``, ..., docs/rules.md "Records"): :meth:`MatchRecord.rules`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..rules.errors import NardyError, RecordError
from ..rules.variants import Rules, game_name, get_rules
from .matwarnings import quote

__all__ = [
    "MatAction",
    "MatGame",
    "MatchRecord",
    "MAX_LINE",
    "MAX_LENGTH",
    "MAX_GAMES",
    "MAX_MOVE",
    "MAX_CUBE",
    "MAX_POINTS",
    "MAX_SCORE",
    "MAX_PLAY",
    "MAX_NAME",
    "MAX_OPTION",
    "is_on",
]

#: Bounds on what a record may state. Every number is checked against them before it is used (so it
#: fits what the game code and the Match ID accept), and every line is read in time linear in its
#: length; text beyond them is a :class:`~nardy.rules.errors.RecordError`, never another exception.
MAX_LINE = 1000  # characters in one line
MAX_LENGTH = 9999  # match length (0 = money session)
MAX_GAMES = 9999  # games in a record
MAX_MOVE = 9999  # move number of a line
MAX_CUBE = 1 << 15  # cube value: the Match ID holds log2 of the cube in 4 bits
MAX_POINTS = 64 * MAX_CUBE  # points of one game: the highest scoring level (64) times the largest cube
MAX_SCORE = 0x7FFF  # a score stated at a game's start (the Match ID's 15 bits)
MAX_PLAY = 40  # characters in one play (the longest real one, 25/21* 21/17* 17/13* 13/9*, has 26)
MAX_NAME = 64  # characters in a player name
MAX_OPTION = 40  # characters in the value of a header that sets a rule or option


@dataclass
class MatAction:
    """One cell of a record.

    Attributes:
        player: 0 (left column) or 1 (right column).
        kind: ``"move"`` (a roll and its play), ``"double"``, ``"take"``, ``"drop"``, ``"beaver"``,
            ``"wins"`` or ``"draw"``.
        dice: the roll for a move, else ``None``.
        text: the play as written (``""`` for a dance), else ``""``.
        value: the cube value for a double/beaver, the points for wins/draw.
        move: the move number of the line; line: the line number in the file (1-based).
    """

    player: int
    kind: str
    dice: tuple | None = None
    text: str = ""
    value: int | float | None = None
    move: int = 0
    line: int = 0

    def to_dict(self) -> dict:
        d = {"player": self.player, "kind": self.kind, "move": self.move}
        if self.dice:
            d["dice"] = list(self.dice)
        if self.kind == "move":
            d["play"] = self.text
        if self.value is not None:
            d["value"] = self.value
        return d


@dataclass
class MatGame:
    """One game of a record: its number, the score stated at its start and its cells in order."""

    number: int
    score: tuple | None = None
    names: tuple | None = None
    actions: list = field(default_factory=list)
    line: int = 0


@dataclass
class MatchRecord:
    """A parsed ``.mat`` record.

    Attributes:
        length: match length (0 = money session / unknown).
        players: the two names (from the headers or the first score line).
        games: list of :class:`MatGame`.
        headers: ``; [Key "value"]`` headers, in order.
        warnings: the :class:`RecordWarning` of each non-standard thing read (empty when ``strict``);
            :func:`replay` adds those it meets.
        strict: parsed with ``strict=True`` (only the standard format; :func:`replay` of the record is strict).
    """

    length: int = 0
    players: tuple = ("White", "Black")
    games: list = field(default_factory=list)
    headers: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    strict: bool = False

    def header(self, *names, default=None):
        """A header's value by any of ``names`` (case, spaces, ``-`` and ``_`` ignored)."""
        want = {_norm_key(n) for n in names}
        for k, v in self.headers.items():
            if _norm_key(k) in want:
                return v
        return default

    @property
    def game(self) -> str:
        """The game named by the ``Variation`` header (``backgammon`` when absent)."""
        var = self.header("Variation")
        if var is None:
            return "backgammon"
        try:
            return game_name(var)
        except NardyError:
            raise RecordError(
                f"unknown Variation {quote(var)}: expected Backgammon, Short Nardy or Long Nardy",
                reason="unknown variation",
                partial=self,
            ) from None

    def rules(self) -> Rules:
        """The :class:`~nardy.rules.Rules` the headers describe."""
        opts = {}
        for names, key in (
            (("Opening",), "opening"),
            (("Scoring",), "scoring"),
            (("Strict Bear-off", "StrictBearOff"), "strict-bear-off"),
            (("Head Exception", "HeadException"), "head-exception"),
            (("Last Roll", "LastRoll"), "last-roll"),
            (("Cube",), "cube"),
        ):
            v = self.header(*names)
            if v is not None:
                if len(v) > MAX_OPTION:
                    raise RecordError(
                        f"bad rules header: {names[0]} {quote(v)} is too long "
                        f"({len(v)} characters, at most {MAX_OPTION})",
                        reason=f"{names[0]} too long",
                        partial=self,
                    )
                opts[key] = v.strip().lower() if key != "scoring" else v
        game = self.game
        try:
            return get_rules(game, **opts)
        except NardyError as e:
            raise RecordError(f"bad rules header: {e}", reason=str(e), partial=self) from None

    def to_dict(self) -> dict:
        return {
            "length": self.length,
            "players": list(self.players),
            "headers": dict(self.headers),
            "games": [
                {
                    "number": g.number,
                    "score": list(g.score) if g.score else None,
                    "actions": [a.to_dict() for a in g.actions],
                }
                for g in self.games
            ],
        }


def _norm_key(k: str) -> str:
    return re.sub(r"[\s_\-]", "", k).lower()


def is_on(v, default: bool) -> bool:
    """Whether a header's value ``v`` says on (``On``, ``yes``, ``true``, ``1``); ``default`` when absent."""
    if v is None:
        return default
    return v.strip().lower() in ("on", "yes", "true", "1")

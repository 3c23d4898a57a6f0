"""The non-standard things a ``.mat`` record may hold (:data:`WARNINGS`, :class:`RecordWarning`), and how a
message quotes a piece of the input (:func:`quote`, :func:`short_name`).

The readings themselves are :func:`~nardy.records.matparse.parse_mat`'s and :func:`~nardy.records.matreplay.replay`'s;
docs/records.md lists each code with what the file holds and GNU Backgammon's reading of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["WARNINGS", "RecordWarning", "QUOTE", "NAME_QUOTE", "quote", "short_name"]

QUOTE = 40  # characters of the input quoted in a message (a cut one ends in ...)
NAME_QUOTE = 30  # characters of a player name in a message


def quote(text) -> str:
    """A piece of the input quoted for a message: its ``repr``, cut to ``QUOTE`` characters."""
    text = str(text)
    return repr(text if len(text) <= QUOTE else text[:QUOTE] + "...")


def short_name(name) -> str:
    """A player name for a message, cut to ``NAME_QUOTE`` characters."""
    name = str(name)
    return name if len(name) <= NAME_QUOTE else name[:NAME_QUOTE] + "..."


#: The non-standard things a record may hold that :func:`parse_mat` and :func:`replay` read (unless
#: ``strict``), each a :class:`RecordWarning` code with its English detail (``{params}`` filled in;
#: ``{player}`` is 0 for the left column, 1 for the right one, worded as the player's name). Front ends word
#: them from the code in the player's language (nardy.texts.messages). What GNU Backgammon's import does with the
#: same text is the reference: each reading gives the final score gnubg gives (docs/records.md).
WARNINGS = {
    "byte_order_mark": "the file starts with a byte-order mark (ignored)",
    "galaxy_losses": (
        "'Losses {points} point' (Backgammon Galaxy's line for the loser, {player}) ignored: the winner's "
        "'Wins' line scores the game"
    ),
    "losses_resign": (
        "'Losses {points} point' with no 'Wins' line after it: read as {player} resigning, worth {points}"
    ),
    "missing_line_break": "a second move number '{move})' inside the line: read as the start of a new line",
    "cannot_move": "'Cannot Move' after the roll {dice}: read as a dance (no play)",
    "resigns_line": "'Resigns' ({player}): the 'Wins' line after it scores the resignation",
    "roll_then_resign": "{player} rolled {dice} and resigned without playing (an empty play, then 'Wins')",
    "unknown_play_resign": (
        "'{text}' after the roll {dice} (the play is unknown): read as {player} resigning after the roll, as "
        "XG writes it"
    ),
    "forced_play_blank": "no play written for {dice}: the only legal play {play} is made",
    "wins_capped": (
        "'Wins {stated}' is capped at the points the winner needed or the match length; the game is worth "
        "{points} ({level}, cube {cube}), which counts"
    ),
    "wins_differs": "'Wins {stated}' but the game is worth {points} ({level}, cube {cube}), which counts",
    "resign_value": (
        "'Wins {stated}' before the game is over: no resignation is worth exactly that; read as a "
        "resignation of a {level}, worth {points} with the cube at {cube}"
    ),
    "resumed_match": "the first game starts at {score0}-{score1}: a resumed match, scored from there",
    "resumed_post_crawford": "the resumed match doubles in its first game: the Crawford game was before it",
    "unplayed_last_roll": "the record ends with {player}'s roll {dice}, not played: the game is unfinished",
    "empty_name": "player {column} has no name: called '{name}'",
}


@dataclass(frozen=True)
class RecordWarning:
    """A non-standard thing a record holds, read the way GNU Backgammon's import reads it.

    Attributes:
        code: a key of :data:`WARNINGS` (worded in English and Russian by nardy.texts.messages).
        params: the values the code's text needs (JSON values; ``player`` 0/1 = the left/right column).
        line: the line of the file (1-based) where it is, or ``None``.
        game: the game number (1-based), or ``None``; move: the move number of the line, or ``None``.
    """

    code: str
    params: dict = field(default_factory=dict)
    line: int | None = None
    game: int | None = None
    move: int | None = None

    def message(self, players=None) -> str:
        """The English detail, with ``players`` (the two names) for ``{player}`` (default White/Black)."""
        names = players or ("White", "Black")
        params = dict(self.params)
        if params.get("player") in (0, 1):
            params["player"] = short_name(names[params["player"]])
        if isinstance(params.get("dice"), (list, tuple)):
            params["dice"] = "".join(str(d) for d in params["dice"])
        where = f"line {self.line}: " if self.line else (f"game {self.game}: " if self.game else "")
        return where + WARNINGS[self.code].format(**params)

    def to_dict(self, players=None) -> dict:
        """``{"code", "params", "line", "game", "move", "message"}`` (the English detail)."""
        return {
            "code": self.code,
            "params": dict(self.params),
            "line": self.line,
            "game": self.game,
            "move": self.move,
            "message": self.message(players),
        }

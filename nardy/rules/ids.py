"""Position and match identifiers: GNU Backgammon Position ID and Match ID, XGID.

Board layout
------------
Every board here is a 25-sequence in the **gnubg layout**, in that side's *own*
numbering: index ``0..23`` = the side's points 1..24, index ``24`` = its bar.
Borne-off checkers are not stored (they are ``15 - sum(board)``). ``mover`` is the
side on roll (gnubg's ``anBoard[1]``), ``opponent`` the other side (``anBoard[0]``);
``gnubg_nn`` takes and returns ``[opponent, mover]``.

GNU Backgammon Position ID (14 characters)
------------------------------------------
Source: GNU Backgammon manual, "A technical description of the Position ID".
An 80-bit key: for each side in turn, for each of its 25 slots (points 1..24, bar),
as many ``1`` bits as it has checkers there, then one ``0``; padded with ``0`` to
80 bits, packed little-endian (first bit = least significant bit of byte 0), then
base64 (``A-Z a-z 0-9 + /``) without the ``==`` padding. gnubg writes
``anBoard[0]`` (the opponent) first and the mover second; ``gnubg_nn.position_id``
agrees. (The manual's prose says "the player on roll" first; the code and
``gnubg_nn`` say otherwise, and the symmetric starting position cannot tell them
apart: it is ``4HPwATDgc/ABMA``.)

The same 14-character ID serves all three games: each side's checkers are always
counted in its own numbering, so a long nardy position (both sides moving the
same way round, the opponent's head on the mover's point 12) encodes just as a
backgammon one does. Which game a position belongs to is not part of the ID.

Long nardy suffix
-----------------
The encoding cannot say whether each side is still on its first turn, which the
long nardy head rule needs (docs/rules.md). A long nardy ID may therefore carry the
suffix ``":F" + m + o`` where ``m`` / ``o`` are ``"1"`` if the mover / opponent is
still on its first turn and ``"0"`` otherwise, e.g. ``"AACA/z8AAID/Pw:F11"`` (the long nardy start)
(not a gnubg ID; strip it before handing the ID to gnubg). :func:`long_id_suffix`
builds the suffix, :func:`split_long_id` takes it apart; an ID without the
suffix carries no first-turn information.

GNU Backgammon Match ID (12 characters)
---------------------------------------
Source: GNU Backgammon manual, "A technical description of the Match ID"; the bit
after the 66 documented ones comes from gnubg's ``matchid.c`` (1.06 and later).
A 72-bit key, little-endian like the Position ID, base64 without padding. Bits
(0-based): 0-3 log2 of the cube value, 4-5 cube owner (0, 1, 3 = centred),
6 player on roll (who rolls or rolled), 7 Crawford game, 8-10 game state
(0 none, 1 playing, 2 over, 3 resigned, 4 dropped cube), 11 turn (who must act
now: the opponent of the roller while a double or resignation is pending),
12 double offered, 13-14 resignation offered (0 none, 1 single, 2 gammon,
3 backgammon), 15-17 die 1, 18-20 die 2, 21-35 match length (0 = money),
36-50 player 0's score, 51-65 player 1's score, 66 set when the Jacoby rule is
**not** in use (a gnubg extension the manual does not list; gnubg 1.06+ writes it,
IDs built as the manual describes leave it clear), 67-71 always 0.

XGID (eXtreme Gammon ID)
------------------------
``XGID=<position>:<cube>:<cube owner>:<turn>:<dice>:<score bottom>:<score top>:``
``<crawford/jacoby>:<match length>:<max cube>``. Position: 26 characters; the
first is the top player's bar, then the bottom player's points 1..24, then the
bottom player's bar. ``-`` = empty, ``A``..``O`` = 1..15 bottom checkers, ``a``..``o``
= 1..15 top checkers (the top player's own point ``q`` is character ``25 - q``).
Cube: log2 of the value. Cube owner: 1 bottom, -1 top, 0 centred. Turn: 1 bottom,
-1 top. Dice: two digits 1-6, ``00`` not rolled, ``D`` doubled (take/drop pending),
``B`` beavered, ``R`` raccooned. Crawford/Jacoby: in a match 1 = Crawford game;
in money play 1 = Jacoby, 2 = beavers, 3 = both (the money reading follows
third-party validators; XG's own text only names Jacoby). Match length: 0 = money.
Max cube: log2 of the largest cube value allowed (older XGIDs omit the field).
With ``D``/``B``/``R`` the turn names the side that must answer the cube.
Sources: the XGID description shipped with eXtreme Gammon as quoted by readers
of the format (e.g. ankigammon's ``xgid.py``, lassehjorthmadsen/backgammon); no
official page was reachable. The starting position is
``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10``.

Errors
------
Every decoder raises :class:`nardy.rules.errors.InvalidIdError` (a ``ValueError``) for
any input that is not a valid ID, str or not, with a message quoting the input;
encoders raise :class:`~nardy.rules.errors.InvalidPositionError` for impossible boards
and :class:`~nardy.rules.errors.InvalidIdError` for states the format cannot hold.
"""

from __future__ import annotations

import base64
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from .errors import InvalidIdError, InvalidPositionError

__all__ = [
    "position_id_from_boards",
    "position_id_of_slots",
    "boards_from_position_id",
    "long_id_suffix",
    "split_long_id",
    "MatchState",
    "match_id_from_state",
    "state_from_match_id",
    "XgidState",
    "parse_xgid",
    "format_xgid",
    "START_POSITION_ID",
    "START_XGID",
]

START_POSITION_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_INDEX = {c: i for i, c in enumerate(_B64)}
_MAX_CHECKERS = 15
_PID_LEN = 14
_MID_LEN = 12
_LONG_SUFFIX_RE = re.compile(r":F([01])([01])\Z")


# ----------------------------------------------------------------------------
# helpers


def _quote(value: object) -> str:
    """A short, safe repr of an offending input for error messages."""
    try:
        if isinstance(value, str) and len(value) > 80:
            return f"{value[:60]!r}... ({len(value)} characters)"
        text = repr(value)
    except Exception:  # pragma: no cover - a broken __repr__
        text = f"<{type(value).__name__} object>"
    if len(text) > 100:
        text = text[:80] + "..."
    return text


def _b64_value(text: str, what: str) -> int:
    """Big-endian integer of a base64 string (6 bits a character)."""
    value = 0
    index = _B64_INDEX
    for pos, ch in enumerate(text):
        digit = index.get(ch)
        if digit is None:
            raise InvalidIdError(
                f"invalid {what} {_quote(text)}: character {ch!r} at position {pos + 1} "
                f"is not in the base64 alphabet (A-Z a-z 0-9 + /)"
            )
        value = (value << 6) | digit
    return value


def _check_str(text: object, length: int, what: str) -> str:
    if not isinstance(text, str):
        raise InvalidIdError(f"{what} must be a str, got {type(text).__name__} {_quote(text)}")
    if len(text) != length:
        raise InvalidIdError(f"invalid {what} {_quote(text)}: expected {length} characters, got {len(text)}")
    return text


def _board(seq: object, name: str) -> tuple[int, ...]:
    """Validate a 25-slot gnubg board and return it as a tuple of ints."""
    try:
        items = list(seq)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidPositionError(f"{name} board must be a sequence of 25 checker counts, got {_quote(seq)}") from None
    if len(items) != 25:
        raise InvalidPositionError(
            f"{name} board must have 25 slots (points 1-24, bar), got {len(items)}: {_quote(seq)}"
        )
    try:
        board = tuple(operator.index(n) for n in items)
    except TypeError:
        raise InvalidPositionError(f"{name} board must hold integers, got {_quote(seq)}") from None
    if min(board) < 0:
        raise InvalidPositionError(f"{name} board has a negative checker count: {_quote(board)}")
    if sum(board) > _MAX_CHECKERS:
        raise InvalidPositionError(
            f"{name} board has {sum(board)} checkers, more than {_MAX_CHECKERS}: {_quote(board)}"
        )
    return board


# ----------------------------------------------------------------------------
# Position ID


def position_id_from_boards(mover: Sequence[int], opponent: Sequence[int]) -> str:
    """Encode two gnubg boards as a 14-character GNU Backgammon Position ID.

    ``mover`` (the side on roll, gnubg's ``anBoard[1]``) and ``opponent``
    (``anBoard[0]``) are 25-sequences of non-negative ints, each in that side's
    own numbering: index 0..23 = points 1..24, index 24 = bar; at most 15
    checkers a side. The result equals ``gnubg_nn.position_id([opponent, mover])``;
    the starting backgammon position gives ``"4HPwATDgc/ABMA"``. Whether the two
    sides share a point is not checked (that depends on the game).

    Raises :class:`~nardy.rules.errors.InvalidPositionError` for a board of the wrong
    length, a non-integer or negative count, or more than 15 checkers a side.
    Format: GNU Backgammon manual, "A technical description of the Position ID".
    """
    return position_id_of_slots(_board(opponent, "opponent") + _board(mover, "mover"))


def position_id_of_slots(slots: Sequence[int]) -> str:
    """The Position ID text of 50 checker counts, unchecked: the opponent's 25 slots then the mover's, each
    side's points 1-24 then its bar (the layout of :func:`position_id_from_boards`, which checks them). gnubg's
    80-bit key puts, for each slot, as many ones as checkers and a zero, the first bit least significant; its
    10 bytes, little endian, in base64 without padding (GNU Backgammon manual, "A technical description of the
    Position ID")."""
    key = 0
    shift = 0
    for n in slots:
        key |= ((1 << n) - 1) << shift
        shift += n + 1
    return base64.b64encode(key.to_bytes(10, "little"))[:_PID_LEN].decode("ascii")


def boards_from_position_id(pid: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Decode a GNU Backgammon Position ID into ``(mover, opponent)``.

    Returns two tuples of 25 ints in the gnubg layout (index 0..23 = that side's
    points 1..24, index 24 = bar; see :func:`position_id_from_boards`), the mover
    being the side on roll. Inverse of :func:`position_id_from_boards`.

    Strict: ``pid`` must be a str of exactly 14 base64 characters
    (``A-Z a-z 0-9 + /``, no padding, no long nardy suffix: see
    :func:`split_long_id`); its 84 bits must hold exactly 50 zero separators
    within the first 80, at most 15 checkers a side, and zeros everywhere after
    the 50th separator (including the 4 unused bits of the last character).
    Anything else raises :class:`~nardy.rules.errors.InvalidIdError` quoting the input.
    """
    _check_str(pid, _PID_LEN, "Position ID")
    value = _b64_value(pid, "Position ID")
    if value & 0xF:
        raise InvalidIdError(
            f"invalid Position ID {_quote(pid)}: the unused low bits of the last character "
            f"must be 0 (last character {pid[-1]!r})"
        )
    key = int.from_bytes((value >> 4).to_bytes(10, "big"), "little")
    bits = format(key, "080b")[::-1]  # bit 0 first
    runs = bits.split("0")
    if len(runs) < 51:
        raise InvalidIdError(
            f"invalid Position ID {_quote(pid)}: {len(runs) - 1} zero separators, 50 needed (too many checkers)"
        )
    if any(runs[50:]):
        raise InvalidIdError(f"invalid Position ID {_quote(pid)}: bits after the 50th separator must all be 0")
    counts = [len(r) for r in runs[:50]]
    opp = tuple(counts[:25])
    mov = tuple(counts[25:])
    for name, side in (("opponent", opp), ("mover", mov)):
        if sum(side) > _MAX_CHECKERS:
            raise InvalidIdError(
                f"invalid Position ID {_quote(pid)}: the {name} has {sum(side)} checkers, more than {_MAX_CHECKERS}"
            )
    return mov, opp


def long_id_suffix(mover_first: bool, opponent_first: bool) -> str:
    """The long nardy first-turn suffix: ``":F"`` + ``"1"``/``"0"`` for each side.

    ``mover_first`` / ``opponent_first``: whether the mover / the opponent is
    still on its first turn. ``long_id_suffix(True, False) == ":F10"``. Append it
    to a 14-character Position ID; see the module docstring for the format.
    """
    return ":F" + ("1" if mover_first else "0") + ("1" if opponent_first else "0")


def split_long_id(text: str) -> tuple[str, tuple[bool, bool] | None]:
    """Split ``"<pid>"`` or ``"<pid>:F<m><o>"`` into ``(pid, flags)``.

    ``flags`` is ``(mover_first_turn, opponent_first_turn)`` when the suffix is
    present, else ``None``. The returned ``pid`` is checked for its length only;
    decode it with :func:`boards_from_position_id`.

    Raises :class:`~nardy.rules.errors.InvalidIdError` (quoting the input) when
    ``text`` is not a str, has any other suffix (``m`` and ``o`` must each be
    ``0`` or ``1``), or the part before it is not 14 characters long.
    """
    if not isinstance(text, str):
        raise InvalidIdError(f"position ID must be a str, got {type(text).__name__} {_quote(text)}")
    if len(text) == _PID_LEN:
        return text, None
    if len(text) == _PID_LEN + 4 and text[_PID_LEN] == ":":
        m = _LONG_SUFFIX_RE.match(text, _PID_LEN)
        if m is None:
            raise InvalidIdError(
                f"invalid long nardy position ID {_quote(text)}: the suffix must be ':F' "
                f"followed by two of 0/1 (mover, opponent first turn), got {text[_PID_LEN:]!r}"
            )
        return text[:_PID_LEN], (m.group(1) == "1", m.group(2) == "1")
    raise InvalidIdError(
        f"invalid position ID {_quote(text)}: expected 14 characters, optionally followed by "
        f"':F<m><o>' (18 characters), got {len(text)}"
    )


# ----------------------------------------------------------------------------
# Match ID


def _int_field(value: object, name: str, owner: str) -> int:
    try:
        return operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidIdError(f"{owner}.{name} must be an int, got {_quote(value)}") from None


def _cube_log(value: int, owner: str, name: str = "cube_value") -> int:
    if value < 1 or value & (value - 1) or value > 1 << 15:
        raise InvalidIdError(f"{owner}.{name} must be a power of two from 1 to 32768, got {value}")
    return value.bit_length() - 1


def _dice(value: object, owner: str) -> tuple[int, int]:
    try:
        d1, d2 = cast(Any, value)
        dice = (operator.index(d1), operator.index(d2))
    except (TypeError, ValueError):
        raise InvalidIdError(f"{owner}.dice must be a pair of ints, got {_quote(value)}") from None
    if dice != (0, 0) and not (1 <= dice[0] <= 6 and 1 <= dice[1] <= 6):
        raise InvalidIdError(f"{owner}.dice must be (0, 0) or two values 1-6, got {dice}")
    return dice


@dataclass(frozen=True)
class MatchState:
    """The content of a GNU Backgammon Match ID (players are numbered 0 and 1).

    Fields: ``cube_value`` (1, 2, 4, ... 32768), ``cube_owner`` (-1 centred, 0, 1),
    ``player_on_roll`` (0/1: who rolls or rolled), ``crawford`` (this is the
    Crawford game), ``game_state`` (0 no game, 1 playing, 2 over, 3 resigned,
    4 dropped cube), ``turn`` (0/1: who must act now), ``double_offered``,
    ``resignation`` (0 none, 1 single, 2 gammon, 3 backgammon offered),
    ``dice`` ((d1, d2) as rolled, or (0, 0)), ``match_length`` (0 = money),
    ``score`` ((player 0, player 1)), ``no_jacoby`` (gnubg 1.06+ bit: set when the
    Jacoby rule is not in use; IDs built as the manual describes leave it False).

    Construction validates every field (ranges above, scores 0..32767 and at most
    the match length in a match, no Crawford game in money play) and raises
    :class:`~nardy.rules.errors.InvalidIdError` otherwise.
    """

    cube_value: int = 1
    cube_owner: int = -1
    player_on_roll: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    no_jacoby: bool = False

    def __post_init__(self) -> None:
        own = "MatchState"
        fix = object.__setattr__
        for name in ("cube_value", "cube_owner", "player_on_roll", "game_state", "turn", "resignation", "match_length"):
            fix(self, name, _int_field(getattr(self, name), name, own))
        for name in ("crawford", "double_offered", "no_jacoby"):
            value = getattr(self, name)
            if value not in (0, 1):  # True/False and 0/1
                raise InvalidIdError(f"{own}.{name} must be a bool, got {_quote(value)}")
            fix(self, name, bool(value))
        _cube_log(self.cube_value, own)
        if self.cube_owner not in (-1, 0, 1):
            raise InvalidIdError(f"{own}.cube_owner must be -1 (centred), 0 or 1, got {self.cube_owner}")
        for name in ("player_on_roll", "turn"):
            if getattr(self, name) not in (0, 1):
                raise InvalidIdError(f"{own}.{name} must be 0 or 1, got {getattr(self, name)}")
        if not 0 <= self.game_state <= 4:
            raise InvalidIdError(f"{own}.game_state must be 0..4, got {self.game_state}")
        if not 0 <= self.resignation <= 3:
            raise InvalidIdError(f"{own}.resignation must be 0..3, got {self.resignation}")
        fix(self, "dice", _dice(self.dice, own))
        if not 0 <= self.match_length <= 0x7FFF:
            raise InvalidIdError(f"{own}.match_length must be 0..32767, got {self.match_length}")
        try:
            s0, s1 = self.score
            score = (operator.index(s0), operator.index(s1))
        except (TypeError, ValueError):
            raise InvalidIdError(f"{own}.score must be a pair of ints, got {_quote(self.score)}") from None
        fix(self, "score", score)
        for s in score:
            if not 0 <= s <= 0x7FFF:
                raise InvalidIdError(f"{own}.score values must be 0..32767, got {score}")
            if self.match_length and s > self.match_length:
                raise InvalidIdError(f"{own}.score {score} exceeds the match length {self.match_length}")
        if self.crawford and not self.match_length:
            raise InvalidIdError(f"{own}: a money game (match_length 0) cannot be a Crawford game")


def match_id_from_state(state: MatchState) -> str:
    """Encode a :class:`MatchState` as a 12-character GNU Backgammon Match ID.

    The dice are written in the order given (gnubg itself writes the larger
    first). Raises :class:`~nardy.rules.errors.InvalidIdError` if ``state`` is not a
    :class:`MatchState`. Format: GNU Backgammon manual, "A technical description
    of the Match ID", plus gnubg's bit 66 (see the module docstring).
    """
    if not isinstance(state, MatchState):
        raise InvalidIdError(f"expected a MatchState, got {type(state).__name__} {_quote(state)}")
    s = state
    key = (
        _cube_log(s.cube_value, "MatchState")
        | (s.cube_owner & 3) << 4
        | s.player_on_roll << 6
        | int(s.crawford) << 7
        | s.game_state << 8
        | s.turn << 11
        | int(s.double_offered) << 12
        | s.resignation << 13
        | s.dice[0] << 15
        | s.dice[1] << 18
        | s.match_length << 21
        | s.score[0] << 36
        | s.score[1] << 51
        | int(s.no_jacoby) << 66
    )
    return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def state_from_match_id(mid: str) -> MatchState:
    """Decode a 12-character GNU Backgammon Match ID into a :class:`MatchState`.

    Strict: ``mid`` must be a str of exactly 12 base64 characters; the cube owner
    bits must not be ``10``, the game state at most 4, each die 0..6 with both
    zero or both non-zero, scores at most the match length in a match, no
    Crawford flag in money play, and bits 67-71 zero. Otherwise raises
    :class:`~nardy.rules.errors.InvalidIdError` quoting the input. Example (manual):
    ``QYkqASAAIAAA`` = 9-point match, score 2-4, player 0 owns a 2-cube,
    player 1 has rolled 5-2.
    """
    _check_str(mid, _MID_LEN, "Match ID")
    value = _b64_value(mid, "Match ID")
    key = int.from_bytes(value.to_bytes(9, "big"), "little")

    def bits(pos: int, n: int) -> int:
        return (key >> pos) & ((1 << n) - 1)

    def bad(reason: str) -> InvalidIdError:
        return InvalidIdError(f"invalid Match ID {_quote(mid)}: {reason}")

    if key >> 67:
        raise bad("bits 67-71 must be 0")
    owner = bits(4, 2)
    if owner == 2:
        raise bad("cube owner bits are 10 (only 00, 01 and 11 = centred exist)")
    game_state = bits(8, 3)
    if game_state > 4:
        raise bad(f"game state {game_state} is not one of 0..4")
    dice = (bits(15, 3), bits(18, 3))
    if dice[0] > 6 or dice[1] > 6:
        raise bad(f"dice {dice} out of range 0..6")
    if (dice[0] == 0) != (dice[1] == 0):
        raise bad(f"dice {dice}: both must be rolled or both 0")
    match_length = bits(21, 15)
    score = (bits(36, 15), bits(51, 15))
    crawford = bool(bits(7, 1))
    if match_length and max(score) > match_length:
        raise bad(f"score {score[0]}-{score[1]} exceeds the match length {match_length}")
    if crawford and not match_length:
        raise bad("Crawford flag set in a money game")
    return MatchState(
        cube_value=1 << bits(0, 4),
        cube_owner=-1 if owner == 3 else owner,
        player_on_roll=bits(6, 1),
        crawford=crawford,
        game_state=game_state,
        turn=bits(11, 1),
        double_offered=bool(bits(12, 1)),
        resignation=bits(13, 2),
        dice=dice,
        match_length=match_length,
        score=score,
        no_jacoby=bool(bits(66, 1)),
    )


# ----------------------------------------------------------------------------
# XGID

_XGID_PREFIX = "XGID="
_XG_CUBE_ACTIONS = ("", "D", "B", "R")
_XG_INT_RE = re.compile(r"(?:0|-?[1-9][0-9]{0,5})\Z")


@dataclass(frozen=True)
class XgidState:
    """The content of an XGID.

    ``mover`` / ``opponent``: 25-tuples in the gnubg layout (own numbering, index
    24 = bar) of the side named by ``turn`` and of the other side. ``turn``:
    1 = the bottom player (uppercase letters) acts, -1 = the top player
    (lowercase) acts; with a pending cube action (``cube_action`` ``"D"``, ``"B"``
    or ``"R"``) XG names the side that must answer it. ``cube_value``: 1, 2,
    4 ... 32768. ``cube_owner``: XG's numbers, 1 bottom, -1 top, 0 centred.
    ``dice``: (d1, d2) as written, or (0, 0). ``score_bottom``, ``score_top``.
    ``crawford_jacoby``: the raw field (match: 1 = Crawford game; money: 1 Jacoby,
    2 beavers, 3 both). ``match_length``: 0 = money. ``max_cube``: the largest
    cube value allowed (a power of two), or ``None`` when the XGID had no such
    field.

    Construction validates every field and raises
    :class:`~nardy.rules.errors.InvalidIdError` (or
    :class:`~nardy.rules.errors.InvalidPositionError` for a bad board).
    """

    mover: tuple[int, ...]
    opponent: tuple[int, ...]
    cube_value: int = 1
    cube_owner: int = 0
    turn: int = 1
    dice: tuple[int, int] = (0, 0)
    cube_action: str = ""
    score_bottom: int = 0
    score_top: int = 0
    crawford_jacoby: int = 0
    match_length: int = 0
    max_cube: int | None = 1024

    def __post_init__(self) -> None:
        own = "XgidState"
        fix = object.__setattr__
        fix(self, "mover", _board(self.mover, "mover"))
        fix(self, "opponent", _board(self.opponent, "opponent"))
        for i in range(24):
            if self.mover[i] and self.opponent[23 - i]:
                raise InvalidPositionError(
                    f"{own}: mover point {i + 1} and opponent point {24 - i} are the same point and both hold checkers"
                )
        for name in (
            "cube_value",
            "cube_owner",
            "turn",
            "score_bottom",
            "score_top",
            "crawford_jacoby",
            "match_length",
        ):
            fix(self, name, _int_field(getattr(self, name), name, own))
        cube_log = _cube_log(self.cube_value, own)
        if self.max_cube is not None:
            fix(self, "max_cube", _int_field(self.max_cube, "max_cube", own))
            if _cube_log(self.max_cube, own, "max_cube") < cube_log:
                raise InvalidIdError(f"{own}: cube value {self.cube_value} exceeds the max cube {self.max_cube}")
        if self.cube_owner not in (-1, 0, 1):
            raise InvalidIdError(f"{own}.cube_owner must be 1 (bottom), -1 (top) or 0, got {self.cube_owner}")
        if self.turn not in (-1, 1):
            raise InvalidIdError(f"{own}.turn must be 1 (bottom) or -1 (top), got {self.turn}")
        fix(self, "dice", _dice(self.dice, own))
        if self.cube_action not in _XG_CUBE_ACTIONS:
            raise InvalidIdError(f"{own}.cube_action must be '', 'D', 'B' or 'R', got {_quote(self.cube_action)}")
        if self.cube_action and self.dice != (0, 0):
            raise InvalidIdError(f"{own}: dice {self.dice} cannot go with a pending cube action")
        if not 0 <= self.match_length <= 0x7FFF:
            raise InvalidIdError(f"{own}.match_length must be 0..32767, got {self.match_length}")
        for name in ("score_bottom", "score_top"):
            s = getattr(self, name)
            if not 0 <= s <= 0x7FFF:
                raise InvalidIdError(f"{own}.{name} must be 0..32767, got {s}")
            if self.match_length and s >= self.match_length:
                raise InvalidIdError(f"{own}.{name} {s} must be below the match length {self.match_length}")
        allowed = (0, 1) if self.match_length else (0, 1, 2, 3)
        if self.crawford_jacoby not in allowed:
            raise InvalidIdError(
                f"{own}.crawford_jacoby must be one of {allowed} "
                f"({'match' if self.match_length else 'money'} play), got {self.crawford_jacoby}"
            )

    @property
    def crawford(self) -> bool:
        """This is the Crawford game of a match."""
        return bool(self.match_length) and self.crawford_jacoby == 1

    @property
    def jacoby(self) -> bool:
        """Money play with the Jacoby rule."""
        return not self.match_length and bool(self.crawford_jacoby & 1)

    @property
    def beaver(self) -> bool:
        """Money play with beavers allowed."""
        return not self.match_length and bool(self.crawford_jacoby & 2)

    @property
    def cube_holder(self) -> str | None:
        """``"mover"``, ``"opponent"`` or ``None`` (centred cube)."""
        if self.cube_owner == 0:
            return None
        return "mover" if self.cube_owner == self.turn else "opponent"


def _xg_int(text: str, field: str, xgid: str) -> int:
    if not _XG_INT_RE.match(text):
        raise InvalidIdError(f"invalid XGID {_quote(xgid)}: {field} {text!r} is not an integer")
    return int(text)


def parse_xgid(text: str) -> XgidState:
    """Parse an XGID (with or without the ``XGID=`` prefix) into an :class:`XgidState`.

    The position's 26 characters map to the boards as in the module docstring:
    character 0 = top bar, 1..24 = bottom's points 1..24 (top's ``25 - i``),
    25 = bottom bar; ``mover`` is the bottom side when ``turn`` is 1, the top
    side when it is -1. Strict: 10 colon-separated fields (9 accepted, without
    max cube), only ``-``, ``A``-``O``, ``a``-``o`` in the position, uppercase never
    on the top bar nor lowercase on the bottom bar, at most 15 checkers a side,
    integers written plainly (``00`` only for unrolled dice), and every field in
    range (see :class:`XgidState`). Anything else raises
    :class:`~nardy.rules.errors.InvalidIdError` quoting the input.
    Example: ``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10`` is the start.
    """
    if not isinstance(text, str):
        raise InvalidIdError(f"XGID must be a str, got {type(text).__name__} {_quote(text)}")
    body = text[len(_XGID_PREFIX) :] if text.startswith(_XGID_PREFIX) else text
    fields = body.split(":")
    if len(fields) not in (9, 10):
        raise InvalidIdError(
            f"invalid XGID {_quote(text)}: expected 10 ':'-separated fields after 'XGID=', got {len(fields)}"
        )
    pos = fields[0]
    if len(pos) != 26:
        raise InvalidIdError(f"invalid XGID {_quote(text)}: the position must be 26 characters, got {len(pos)}")
    bottom = [0] * 25
    top = [0] * 25
    for i, ch in enumerate(pos):
        if ch == "-":
            continue
        if "A" <= ch <= "O":
            if i == 0:
                raise InvalidIdError(f"invalid XGID {_quote(text)}: bottom checkers ({ch!r}) on the top player's bar")
            bottom[i - 1] = ord(ch) - 64  # i == 25 -> index 24 = bar
        elif "a" <= ch <= "o":
            if i == 25:
                raise InvalidIdError(f"invalid XGID {_quote(text)}: top checkers ({ch!r}) on the bottom player's bar")
            top[24 if i == 0 else 24 - i] = ord(ch) - 96
        else:
            raise InvalidIdError(
                f"invalid XGID {_quote(text)}: position character {ch!r} at {i + 1} is not '-', 'A'-'O' or 'a'-'o'"
            )
    for name, side in (("bottom", bottom), ("top", top)):
        if sum(side) > _MAX_CHECKERS:
            raise InvalidIdError(
                f"invalid XGID {_quote(text)}: the {name} player has {sum(side)} checkers, more than {_MAX_CHECKERS}"
            )
    cube_log = _xg_int(fields[1], "cube", text)
    if not 0 <= cube_log <= 15:
        raise InvalidIdError(f"invalid XGID {_quote(text)}: cube exponent {cube_log} not in 0..15")
    cube_owner = _xg_int(fields[2], "cube owner", text)
    turn = _xg_int(fields[3], "turn", text)
    dice_text = fields[4]
    if dice_text in ("D", "B", "R"):
        dice, action = (0, 0), dice_text
    elif dice_text == "00":
        dice, action = (0, 0), ""
    elif len(dice_text) == 2 and dice_text[0] in "123456" and dice_text[1] in "123456":
        dice, action = (int(dice_text[0]), int(dice_text[1])), ""
    else:
        raise InvalidIdError(
            f"invalid XGID {_quote(text)}: dice {dice_text!r} must be '00', two digits 1-6, 'D', 'B' or 'R'"
        )
    score_bottom = _xg_int(fields[5], "bottom score", text)
    score_top = _xg_int(fields[6], "top score", text)
    crawford_jacoby = _xg_int(fields[7], "Crawford/Jacoby", text)
    match_length = _xg_int(fields[8], "match length", text)
    max_cube: int | None = None
    if len(fields) == 10:
        max_log = _xg_int(fields[9], "max cube", text)
        if not 0 <= max_log <= 15:
            raise InvalidIdError(f"invalid XGID {_quote(text)}: max cube exponent {max_log} not in 0..15")
        max_cube = 1 << max_log
    mover, opponent = (bottom, top) if turn == 1 else (top, bottom)
    try:
        return XgidState(
            mover=tuple(mover),
            opponent=tuple(opponent),
            cube_value=1 << cube_log,
            cube_owner=cube_owner,
            turn=turn,
            dice=dice,
            cube_action=action,
            score_bottom=score_bottom,
            score_top=score_top,
            crawford_jacoby=crawford_jacoby,
            match_length=match_length,
            max_cube=max_cube,
        )
    except (InvalidIdError, InvalidPositionError) as exc:
        raise InvalidIdError(f"invalid XGID {_quote(text)}: {exc}") from None


def format_xgid(state: XgidState) -> str:
    """Write an :class:`XgidState` as ``XGID=...`` (inverse of :func:`parse_xgid`).

    Always emits the ``XGID=`` prefix; the max cube field is omitted when
    ``state.max_cube`` is None. Raises :class:`~nardy.rules.errors.InvalidIdError` if
    ``state`` is not an :class:`XgidState`.
    """
    if not isinstance(state, XgidState):
        raise InvalidIdError(f"expected an XgidState, got {type(state).__name__} {_quote(state)}")
    bottom, top = (state.mover, state.opponent) if state.turn == 1 else (state.opponent, state.mover)
    chars = ["-"] * 26
    for i in range(24):
        if bottom[i]:
            chars[i + 1] = chr(64 + bottom[i])
        if top[i]:
            chars[24 - i] = chr(96 + top[i])
    if top[24]:
        chars[0] = chr(96 + top[24])
    if bottom[24]:
        chars[25] = chr(64 + bottom[24])
    dice = state.cube_action or f"{state.dice[0]}{state.dice[1]}"
    fields = [
        "".join(chars),
        str(state.cube_value.bit_length() - 1),
        str(state.cube_owner),
        str(state.turn),
        dice,
        str(state.score_bottom),
        str(state.score_top),
        str(state.crawford_jacoby),
        str(state.match_length),
    ]
    if state.max_cube is not None:
        fields.append(str(state.max_cube.bit_length() - 1))
    return _XGID_PREFIX + ":".join(fields)

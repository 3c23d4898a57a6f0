"""Positions and plays of the three games, from the mover's view.

A :class:`Position` is one immutable, hashable value: the checkers of both sides, seen by the side to
move (the *mover*), the game's :class:`~nardy.rules.Rules`, and for long nardy whether each side is
still on its first turn (docs/rules.md head rule). See docs/rules.md "Board, points, views".

Example::

    >>> from nardy import Position
    >>> pos = Position.start("backgammon")
    >>> pos.id()
    '4HPwATDgc/ABMA'
    >>> plays = pos.legal_plays((3, 1))
    >>> len(plays), str(plays[0])
    (16, '24/23 24/21')
    >>> play = pos.parse_play("8/5 6/5", (3, 1))
    >>> play                                  # the result's ID, still from the mover's view
    <Play 8/5 6/5 -> 4HPwATCwZ/ABMA>
    >>> play in plays
    True
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from . import _movegen as _core
from .errors import (
    InvalidDiceError,
    InvalidIdError,
    InvalidPositionError,
    NotationError,
)
from .notation import Step, format_steps
from .numbering import BLACK, NUMBERINGS, WHITE, head_mode, label_fn, opponent_point
from .playparse import parse_among
from .variants import Rules, get_rules

__all__ = ["Position", "Play", "Step", "check_dice"]


def check_dice(dice) -> tuple[int, int]:
    """Validate a roll: two integers 1..6 (a string ``"31"``/``"3-1"``/``"3 1"`` is accepted).

    Returns:
        ``(d1, d2)`` as ints.
    Raises:
        InvalidDiceError: anything else (the message quotes the input).
    """
    orig = dice
    if isinstance(dice, str):
        s = dice.replace("-", "").replace(" ", "").replace(",", "")
        if len(s) == 2 and s.isdigit():
            dice = (int(s[0]), int(s[1]))
        else:
            raise InvalidDiceError(f"dice {orig!r}: expected two digits 1-6 such as '31'")
    try:
        d1, d2 = dice
    except (TypeError, ValueError):
        raise InvalidDiceError(f"dice {orig!r}: expected two dice") from None
    for d in (d1, d2):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or not 1 <= d <= 6:
            raise InvalidDiceError(f"dice {orig!r}: each die must be an integer 1-6")
    return int(d1), int(d2)


# Per-thread scratch buffers for the generator (plays are copied out of them).
class _Buffers:
    def __init__(self):
        self.out, self.boards, self.work64 = _core.new_workspace()
        self.b = np.empty((_core.MAX_PLAYS, _core.BOARD_LEN), np.int8)
        self.s = np.empty((_core.MAX_PLAYS, 4, 4), np.int8)
        self.n = np.empty(_core.MAX_PLAYS, np.int8)
        self.k = np.empty((_core.MAX_PLAYS, 2), np.uint64)


_tls = threading.local()


def _buffers() -> _Buffers:
    buf = getattr(_tls, "buf", None)
    if buf is None:
        buf = _tls.buf = _Buffers()
    return buf


#: Every step the generator can write, by its 4 bytes (from, to, die, hit): the Step objects are shared.
_STEPS = {
    bytes((f, t, d, h)): Step(f, t, d, h == 1)
    for f in range(26)
    for t in range(26)
    for d in range(1, 7)
    for h in (0, 1)
}
_W = _core.OUT_W

_DICE_OK = {(a, b): (a, b) for a in range(1, 7) for b in range(1, 7)}
_DICE_CODE = {(a, b): a | (b << 3) for a in range(1, 7) for b in range(1, 7)}

_ENTRY: list = []


def _legal_into(a, code, out, work64):
    """``_core.legal_into`` through its compiled entry point once resolved: the arguments here always
    have the same types (read-only int8[28] board, int, C int8 2-D buffer, int64 scratch), so numba's
    per-call type dispatch is skipped (about a sixth of a per-call ``legal_results``)."""
    if _ENTRY:
        return _ENTRY[0](a, code, out, work64)
    n = _core.legal_into(a, code, out, work64)
    fn = _core.legal_into
    sig = tuple(fn.typeof_pyval(x) for x in (a, code, out, work64))
    cres = fn.overloads.get(sig)
    if cres is not None and not a.flags.writeable:
        _ENTRY.append(cres.entry_point)
    return n


def _dice(dice) -> tuple[int, int]:
    """Fast path of :func:`check_dice` for a tuple of two ints."""
    if type(dice) is tuple and len(dice) == 2 and type(dice[0]) is int and type(dice[1]) is int:
        d = _DICE_OK.get(dice)
        if d is not None:
            return d
    return check_dice(dice)


#: For each mover's point p (1..24), the opponent's slot index (its own point number - 1), by ``hitting``.
_OTHER_SLOT = {h: [0] + [opponent_point(p, h) - 1 for p in range(1, 25)] for h in (True, False)}


class Position:
    """A position from the mover's view (immutable, hashable).

    Build with :meth:`start`, :meth:`from_id` or :meth:`from_boards`. The board is held as 28 signed
    counts (see :mod:`nardy.rules._movegen`): index 0 mover off, 1..24 points in the mover's numbering
    (positive mover, negative opponent), 25 mover's bar, 26 opponent's bar, 27 opponent's off.
    """

    __slots__ = ("_b", "_rules", "_first", "_hash", "_arr", "_code", "_id")

    def __init__(self, board: bytes, rules: Rules, first_turn=(False, False)):
        # Internal: callers use the class methods, which validate.
        self._b = board
        self._rules = rules
        self._first = first_turn
        self._hash: int | None = None
        self._arr: np.ndarray | None = None
        self._code = rules.code_base | (256 if first_turn[0] else 0)  # rule bits of _core.legal_into
        self._id: str | None = None  # the Position ID, once asked for

    # ----- construction -------------------------------------------------------------------------
    @classmethod
    def start(cls, game="backgammon") -> Position:
        """The starting position of a game (docs/rules.md): backgammon/short 2-5-3-5 on own 24/13/8/6; long
        nardy all 15 on own 24 (the head), both sides on their first turn."""
        rules = get_rules(game)
        mover = [0] * 26
        opp = [0] * 26
        if rules.hitting:
            for p, n in ((24, 2), (13, 5), (8, 3), (6, 5)):
                mover[p] = opp[p] = n
            return cls.from_boards(mover, opp, rules)
        mover[24] = opp[24] = 15
        return cls.from_boards(mover, opp, rules, first_turn=(True, True))

    @classmethod
    def from_boards(cls, mover: Sequence[int], opponent: Sequence[int], game="backgammon", first_turn=None) -> Position:
        """A position from each side's checkers in its own numbering.

        Args:
            mover, opponent: 26 counts each, in that side's own numbering: ``[0]`` borne off,
                ``[1..24]`` points, ``[25]`` bar. The borne-off count may be given as anything when the
                rest sums to at most 15: it is then taken as 15 minus the rest.
            game: a game name, alias or :class:`Rules`.
            first_turn: long nardy only: ``(mover, opponent)`` first-turn flags; ``None`` infers them
                (a side is on its first turn when all 15 of its checkers are on its head).
        Raises:
            InvalidPositionError: wrong lengths, negative counts, not 15 checkers a side, a point held
                by both sides, a checker on the bar in long nardy, impossible first-turn flags.
            UnknownGameError, InvalidOptionError: bad ``game``.
        """
        rules = get_rules(game)
        sides = []
        for name, side in (("mover", mover), ("opponent", opponent)):
            try:
                vals = [int(v) for v in side]
            except (TypeError, ValueError):
                raise InvalidPositionError(f"{name} board {side!r}: expected 26 integer counts") from None
            if any(v != w for v, w in zip(vals, side)):
                raise InvalidPositionError(f"{name} board {side!r}: counts must be whole numbers")
            if len(vals) != 26:
                raise InvalidPositionError(f"{name} board {side!r}: expected 26 counts (off, points 1-24, bar)")
            if any(v < 0 for v in vals):
                raise InvalidPositionError(f"{name} board {side!r}: negative count")
            on_board = sum(vals[1:])
            if on_board > 15:
                raise InvalidPositionError(f"{name} board has {on_board} checkers on the board and bar; at most 15")
            vals[0] = 15 - on_board
            if not rules.hitting and vals[25]:
                raise InvalidPositionError(f"{name} has {vals[25]} checker(s) on the bar: long nardy has no bar")
            sides.append(vals)
        m, o = sides
        b = [0] * 28
        b[0], b[25], b[26], b[27] = m[0], m[25], o[25], o[0]
        for p in range(1, 25):
            b[p] = m[p]
        for q in range(1, 25):
            if o[q]:
                p = opponent_point(q, rules.hitting)
                if b[p]:
                    raise InvalidPositionError(f"point {p} (opponent's {q}) holds checkers of both sides")
                b[p] = -o[q]
        if m[0] == 15 and o[0] == 15:
            raise InvalidPositionError("both sides have borne off all 15 checkers")
        return cls._make(bytes(np.array(b, np.int8).tobytes()), rules, first_turn)

    @classmethod
    def _make(cls, board: bytes, rules: Rules, first_turn) -> Position:
        if rules.hitting:
            return cls(board, rules, (False, False))
        arr = np.frombuffer(board, np.int8)
        inferred = (bool(arr[24] == 15), bool(arr[12] == -15))
        if first_turn is None:
            first = inferred
        else:
            ok_flags = (
                isinstance(first_turn, (tuple, list))
                and len(first_turn) == 2
                and all(isinstance(f, (bool, np.bool_)) or f in (0, 1) for f in first_turn)
            )
            if not ok_flags:
                raise InvalidPositionError(f"first_turn {first_turn!r}: expected (mover, opponent) booleans")
            first = (bool(first_turn[0]), bool(first_turn[1]))
            for who, flag, ok in (("mover", first[0], inferred[0]), ("opponent", first[1], inferred[1])):
                if flag and not ok:
                    raise InvalidPositionError(
                        f"the {who} cannot be on the first turn: not all 15 checkers are on the head"
                    )
        return cls(board, rules, first)

    @classmethod
    def from_id(cls, position_id: str, game="backgammon", first_turn=None) -> Position:
        """Decode a GNU Backgammon Position ID (14 characters) for a game.

        For long nardy the ID may carry the first-turn suffix documented in :mod:`nardy.rules.ids`
        (e.g. ``"...:F10"``); ``first_turn`` given here overrides it, and ``None`` with no suffix
        infers the flags (all 15 of a side's checkers on its head).

        Raises:
            InvalidIdError: malformed ID, or one describing an impossible position for this game
                (the message quotes the ID).
        """
        from . import ids

        rules = get_rules(game)
        if not isinstance(position_id, str):
            raise InvalidIdError(f"position ID {position_id!r} is not a string")
        text = position_id.strip()
        flags = None
        if text.upper().startswith("XGID="):
            raise InvalidIdError(
                f"position ID {position_id!r} is an XGID, not a GNU Backgammon Position ID: "
                "read it with Position.from_xgid"
            )
        if not rules.hitting:
            text, flags = ids.split_long_id(text)
        elif ":" in text:
            raise InvalidIdError(f"position ID {position_id!r}: a suffix is only used for long nardy")
        mover25, opp25 = ids.boards_from_position_id(text)
        mover = [0] + list(mover25[:24]) + [mover25[24]]
        opp = [0] + list(opp25[:24]) + [opp25[24]]
        if first_turn is None:
            first_turn = flags
        try:
            return cls.from_boards(mover, opp, rules, first_turn=first_turn)
        except InvalidPositionError as e:
            raise InvalidIdError(f"position ID {position_id!r} is not a valid {rules.name} position: {e}") from None

    @classmethod
    def from_xgid(cls, xgid: str, game="backgammon") -> Position:
        """The position of an XGID (eXtreme Gammon ID), from the view of the side the turn field names.

        Backgammon and short nardy only; the cube, score and dice fields are read by
        :func:`nardy.rules.ids.parse_xgid` (use it for those).

        Raises:
            InvalidIdError: malformed XGID or an impossible position (the message quotes it).
        """
        from . import ids

        rules = get_rules(game)
        if not rules.hitting:
            raise InvalidIdError(f"XGID {xgid!r}: XGID is defined for backgammon and short nardy only")
        st = ids.parse_xgid(xgid)
        mover = [0] + list(st.mover[:24]) + [st.mover[24]]
        opp = [0] + list(st.opponent[:24]) + [st.opponent[24]]
        try:
            return cls.from_boards(mover, opp, rules)
        except InvalidPositionError as e:
            raise InvalidIdError(f"XGID {xgid!r} is not a valid {rules.name} position: {e}") from None

    def xgid(
        self,
        dice=(0, 0),
        cube_value: int = 1,
        cube_owner: int = 0,
        score=(0, 0),
        match_length: int = 0,
        crawford_jacoby: int = 0,
        max_cube=1024,
    ) -> str:
        """This position as an XGID with the mover as the side on turn (XGID turn 1).

        ``cube_owner`` uses XG's convention (1 the mover, -1 the opponent, 0 centred); ``score`` is
        ``(mover, opponent)``. Backgammon and short nardy only.

        Raises:
            InvalidIdError: long nardy, or bad cube/score/dice values.
        """
        from . import ids

        if not self._rules.hitting:
            raise InvalidIdError("XGID is defined for backgammon and short nardy only")
        m = self.mover
        o = self.opponent
        st = ids.XgidState(
            mover=tuple(m[1:25]) + (m[25],),
            opponent=tuple(o[1:25]) + (o[25],),
            cube_value=cube_value,
            cube_owner=cube_owner,
            turn=1,
            dice=tuple(dice),
            score_bottom=score[0],
            score_top=score[1],
            crawford_jacoby=crawford_jacoby,
            match_length=match_length,
            max_cube=max_cube,
        )
        return ids.format_xgid(st)

    # ----- accessors ----------------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The game's :class:`Rules`."""
        return self._rules

    @property
    def game(self) -> str:
        """The game's name: ``backgammon``, ``short`` or ``long``."""
        return self._rules.name

    @property
    def first_turn(self) -> tuple[bool, bool]:
        """Long nardy: ``(mover, opponent)`` still on the first turn; ``(False, False)`` elsewhere."""
        return self._first

    @property
    def array(self) -> np.ndarray:
        """The board as a read-only ``int8[28]`` array (layout in :mod:`nardy.rules._movegen`)."""
        if self._arr is None:
            self._arr = np.frombuffer(self._b, np.int8)
        return self._arr

    @property
    def board(self) -> tuple:
        """The board as a tuple of 28 ints (layout in :mod:`nardy.rules._movegen`)."""
        return tuple(int(x) for x in self.array)

    def _side(self, opponent: bool) -> tuple:
        a = self.array
        if not opponent:
            out = [int(a[0])] + [max(0, int(a[p])) for p in range(1, 25)] + [int(a[25])]
            return tuple(out)
        out = [0] * 26
        out[0] = int(a[27])
        out[25] = int(a[26])
        for p in range(1, 25):
            if a[p] < 0:
                q = opponent_point(p, self._rules.hitting)
                out[q] = -int(a[p])
        return tuple(out)

    @property
    def mover(self) -> tuple:
        """The mover's checkers in the mover's numbering: 26 counts, ``[0]`` off, ``[1..24]``, ``[25]`` bar."""
        return self._side(False)

    @property
    def opponent(self) -> tuple:
        """The opponent's checkers in the opponent's own numbering (26 counts, as :attr:`mover`)."""
        return self._side(True)

    def pip_count(self) -> tuple[int, int]:
        """``(mover, opponent)`` pip counts: for each checker, its point number in its own numbering
        (the bar counts 25)."""
        m, o = _core.pip_counts(self.array, self._rules.hitting)
        return int(m), int(o)

    def is_game_over(self) -> bool:
        """True when a side has borne off all 15 checkers."""
        a = self.array
        return bool(a[0] == 15 or a[27] == 15)

    def mirror(self) -> Position:
        """The same position from the opponent's view (as after the mover's turn ends)."""
        a = self.array
        r = _core.mirror_hitting(a) if self._rules.hitting else _core.mirror_long(a)
        return Position(r.tobytes(), self._rules, (self._first[1], self._first[0]))

    def with_first_turn(self, first_turn) -> Position:
        """A copy with other long nardy first-turn flags (validated as in :meth:`from_boards`)."""
        return Position._make(self._b, self._rules, first_turn)

    # ----- IDs ----------------------------------------------------------------------------------
    def id(self) -> str:
        """The GNU Backgammon Position ID (14 characters), mover as the player on roll.

        Long nardy uses the same encoding with each side's checkers in its own numbering, and adds the
        first-turn suffix of :mod:`nardy.rules.ids` only when the flags differ from what the board implies.
        Worked out once per position (:func:`nardy.rules.ids.position_id_from_boards` gives the same text).
        """
        pid = self._id
        if pid is None:
            pid = self._id = self._make_id()
        return pid

    def _make_id(self) -> str:
        from . import ids

        a = self.array.tolist()
        hitting = self._rules.hitting
        # each side's 25 slots in its own numbering (points 1-24, bar), the opponent's first (ids.position_id_of_slots)
        opp = [0] * 25
        mov = [0] * 25
        other = _OTHER_SLOT[hitting]
        for p in range(1, 25):
            x = a[p]
            if x > 0:
                mov[p - 1] = x
            elif x < 0:
                opp[other[p]] = -x
        mov[24] = a[25]
        opp[24] = a[26]
        pid = ids.position_id_of_slots(opp + mov)
        if not hitting:
            inferred = (a[24] == 15, a[12] == -15)
            if inferred != self._first:
                pid += ids.long_id_suffix(*self._first)
        return pid

    # ----- plays --------------------------------------------------------------------------------
    def _params(self):
        r = self._rules
        return r.hitting, r.strict_bear_off, head_mode(r.head_exception, r.hitting)

    def _generate(self, dice):
        """Run the generator into this thread's buffer; returns ``(buffer, count)``."""
        if type(dice) is tuple and len(dice) == 2 and type(dice[0]) is int and type(dice[1]) is int:
            d = _DICE_OK.get(dice) or check_dice(dice)
        else:
            d = check_dice(dice)
        buf = _tls.__dict__.get("buf") or _buffers()
        code = self._code | d[0] | (d[1] << 3)
        a = self._arr
        if a is None:
            a = self.array
        return buf.out, _legal_into(a, code, buf.out, buf.work64)

    def legal_plays(self, dice) -> list[Play]:
        """Every legal play for a roll, one per distinct resulting position (docs/rules.md rules 1-6 and the
        game's own rules), in a deterministic order.

        Args:
            dice: two dice, e.g. ``(3, 1)``; order does not matter.
        Returns:
            A list of :class:`Play`; when no checker can move it holds one empty play whose result is
            this position. Empty for a finished game.
        Raises:
            InvalidDiceError: bad dice.
        """
        if self.is_game_over():
            _dice(dice)
            return []
        out, n = self._generate(dice)
        first = (False, self._first[1])
        rules = self._rules
        plays = []
        raw = out[:n].tobytes()  # rows of _core.OUT_W bytes: board, step count, steps (from, to, die, hit)
        steps_of = _STEPS.__getitem__
        steps: tuple[Step, ...]
        for o in range(0, n * _W, _W):
            k = raw[o + 28]
            if k == 2:
                steps = (steps_of(raw[o + 29 : o + 33]), steps_of(raw[o + 33 : o + 37]))
            else:
                steps = tuple([steps_of(raw[a : a + 4]) for a in range(o + 29, o + 29 + 4 * k, 4)])
            plays.append(Play(self, steps, raw[o : o + 28], rules, first))
        return plays

    def legal_results(self, dice) -> np.ndarray:
        """The boards after every legal play, as ``int8[n, 28]`` (mover's view, sides not swapped).

        The fast path for bots: no :class:`Play` objects are built. Same order as :meth:`legal_plays`.

        Raises:
            InvalidDiceError: bad dice.
        """
        try:
            dc = _DICE_CODE[dice]
            if type(dice[0]) is bool or type(dice[1]) is bool:
                raise KeyError(dice)
        except (KeyError, TypeError, IndexError):
            d = check_dice(dice)
            dc = d[0] | (d[1] << 3)
        buf = _tls.__dict__.get("buf") or _buffers()
        a = self._arr
        if a is None:
            a = self.array
        out = buf.boards
        if _ENTRY:
            n = _ENTRY[0](a, self._code | dc, out, buf.work64)
        else:
            n = _legal_into(a, self._code | dc, out, buf.work64)
        return out[:n].copy()

    def partial_results(
        self, dice_left: Sequence[int], moved: Sequence[int] | None = None, heads_used: int = 0, head_limit: int = 1
    ) -> np.ndarray:
        """Boards reachable by playing some of ``dice_left`` (any order), for turn building.

        Every leaf (a sequence that cannot go on) is returned, whether or not it uses all dice;
        :class:`nardy.flow.game.Turn` intersects these with the legal plays' results.
        """
        hitting, strict, hm = self._params()
        buf = _buffers()
        dl = list(dice_left)
        if not dl:
            return self.array.reshape(1, -1).copy()
        dice = np.zeros(4, np.int64)
        dice[: len(dl)] = dl
        mv = np.zeros(26, np.int8) if moved is None else np.asarray(moved, np.int8)
        hl = 0 if hm < 0 else head_limit
        n = _core.generate(
            self.array,
            mv,
            heads_used,
            dice,
            len(dl),
            True,
            hitting,
            strict,
            hl,
            False,
            True,
            buf.b,
            buf.s,
            buf.n,
            buf.k,
        )
        return buf.b[:n].copy()

    def head_limit(self, dice) -> int:
        """Long nardy: how many checkers may leave the head with this roll (1, or 2 on a first-turn
        6-6/4-4/3-3 under the ``head-exception`` option); 0 for the hitting games."""
        d1, d2 = check_dice(dice)
        hitting, _, hm = self._params()
        if hitting:
            return 0
        return int(_core.head_limit(self.array, d1, d2, self._first[0], hm))

    def parse_play(self, text: str, dice, numbering: str = "own", side: str | None = None) -> Play:
        """The legal play that ``text`` describes (docs/rules.md "Notation" and rule 4).

        Any legal way of writing the play is accepted: merged hops (``24/13`` for 6-5), chains
        (``24/18/13``), ``bar``/``25``, ``off``/``0``, ``(n)`` counts, optional ``*`` hit marks. The
        text's steps are applied and the resulting position is matched against :meth:`legal_plays`.

        Args:
            text: the play; ``""`` for no play (only legal when nothing can move).
            dice: the roll.
            numbering: ``"own"`` (mover's numbering, default) or, for long nardy, ``"absolute"``
                (White's head 24, Black's head 12; then ``side`` must be ``"white"`` or ``"black"``).
        Raises:
            NotationError: the text is not notation.
            IllegalPlayError: no legal play matches, or several do (ambiguous); the message quotes the
                text, the roll and the Position ID and says why.
        """
        d1, d2 = check_dice(dice)
        return self._parse_among(text, (d1, d2), self.legal_plays((d1, d2)), numbering, side)

    def _parse_among(self, text: str, dice: tuple[int, int], plays: list[Play], numbering="own", side=None) -> Play:
        """:meth:`parse_play` matched against ``plays``: this position's legal plays for ``dice`` (checked),
        already worked out (a game's current roll, :meth:`nardy.flow.game.Game.play`). Raises as it does
        (:func:`nardy.rules.playparse.parse_among`)."""
        return parse_among(self, text, dice, plays, numbering, side)

    # ----- dunder -------------------------------------------------------------------------------
    def __eq__(self, other):
        if not isinstance(other, Position):
            return NotImplemented
        return self._b == other._b and self._rules == other._rules and self._first == other._first

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self._b, self._rules, self._first))
        return self._hash

    def __repr__(self):
        return f"Position.from_id({self.id()!r}, game={self.game!r})"

    def __str__(self):
        from .boardtext import board_text

        return board_text(self)

    def __reduce__(self):
        return (Position, (self._b, self._rules, self._first))


class Play:
    """One legal play: the steps of one turn and the position they lead to.

    Attributes:
        position: the :class:`Position` before the play.
        steps: tuple of :class:`~nardy.rules.notation.Step` (one canonical step list; empty when no checker
            can move).
        result: the :class:`Position` after the play, still from the mover's view (sides not swapped,
            as GNU Backgammon's move generator reports); the mover's first-turn flag is cleared.

    ``str(play)`` gives standard notation (``24/18 13/11``, ``bar/22*``, ``6/off``, ``8/4(2)``); two
    plays are equal when they start from the same position and reach the same result (rule 4).
    """

    __slots__ = ("position", "steps", "_rb", "_rules", "_first", "_result")

    def __init__(self, position, steps, result_board: bytes, rules, first):
        self.position = position
        self.steps = steps
        self._rb = result_board
        self._rules = rules
        self._first = first
        self._result: Position | None = None

    @property
    def result(self) -> Position:
        if self._result is None:
            self._result = Position(self._rb, self._rules, self._first)
        return self._result

    @property
    def hits(self) -> int:
        """Number of opponent blots this play hits."""
        return sum(1 for s in self.steps if s.hit)

    def notation(self, numbering: str = "own", side: str | None = None) -> str:
        """The play in notation: ``own`` numbering (default, same as ``str(play)``) or a numbering the game
        allows (:data:`nardy.rules.numbering.NUMBERINGS`) as ``side`` (``"white"`` or ``"black"``): long nardy's
        ``absolute`` (White: own = absolute; Black: own point p is absolute ((p + 11) % 24) + 1, so Black's
        head is 12), backgammon's and short nardy's ``traditional`` (White's half 1-12, Black's half
        01-012; docs/rules.md "Notation").

        Raises:
            NotationError: a numbering the game does not allow, or ``side`` not white/black.
        """
        if numbering == "own":
            return format_steps(self.steps)
        return format_steps(self.steps, numbering=label_fn(numbering, self._side_index(numbering, side)))

    def _side_index(self, numbering: str, side: str | None) -> int:
        if numbering not in NUMBERINGS[self._rules.name] or side not in ("white", "black"):
            raise NotationError(
                f"numbering {numbering!r} with side {side!r} is not available for {self._rules.name}: "
                f"numberings {', '.join(NUMBERINGS[self._rules.name])}, side white or black"
            )
        return BLACK if side == "black" else WHITE

    def step_dicts(self, numbering: str = "own", side: str | None = None) -> list[dict]:
        """The steps as JSON-ready dicts, the one shape of ``nardy moves --json`` and the HTTP API:
        ``{"from": int, "to": int, "die": int, "hit": bool, "from_label": str, "to_label": str}``.

        ``from``/``to`` are points in ``numbering``: ``own`` gives the mover's own numbers; the fixed
        numberings (``absolute``, ``traditional``) give White's own number of the point (the board's fixed
        numbering: long nardy's absolute point; in ``traditional`` Black's half 01-012 is White's 24-13).
        25 is the mover's bar and 0 off in every numbering. ``from_label``/``to_label`` write the point as
        the numbering does (``"24"``, ``"01"``, ``"bar"``, ``"off"``), as in :meth:`notation`.

        Raises:
            NotationError: a numbering the game does not allow, or ``side`` not white/black.
        """
        from .numbering import label, view_point

        if numbering == "own":
            who = WHITE
            fixed = False
        else:
            who = self._side_index(numbering, side)
            fixed = True
        hitting = self._rules.hitting

        def num(p: int) -> int:
            return view_point(p, who, WHITE, hitting) if fixed else p

        def lab(p: int) -> str:
            return label(numbering, who, p)

        return [
            {
                "from": num(s.frm),
                "to": num(s.to),
                "die": int(s.die),
                "hit": bool(s.hit),
                "from_label": lab(s.frm),
                "to_label": lab(s.to),
            }
            for s in self.steps
        ]

    def __str__(self):
        return format_steps(self.steps)

    def __repr__(self):
        return f"<Play {format_steps(self.steps) or '(no play)'} -> {self.result.id()}>"

    def __eq__(self, other):
        if not isinstance(other, Play):
            return NotImplemented
        return self._rb == other._rb and self.position == other.position

    def __hash__(self):
        return hash((self._rb, self.position))

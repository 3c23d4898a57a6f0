"""One game of backgammon, short nardy or long nardy: turn flow, cube, resignation, result.

A :class:`Game` holds the position (from the view of the player on turn, like :class:`Position`),
whose turn it is, the dice, the doubling cube and the history, and enforces docs/rules.md:

* the opening (rule 7): each player rolls one die, ties are rolled again; with the ``opening``
  option ``use-opening-dice`` the starter plays those two dice, with ``reroll`` the starter rolls;
* turns: roll (or double first), then a legal play, entered whole (:meth:`Game.play`) or step by
  step with take-back until confirmed (:meth:`Game.step`, :meth:`Game.undo_step`,
  :meth:`Game.confirm`, rule 8); a roll that cannot be played passes the turn by itself;
* the end (rule 6) and the result: backgammon single/gammon/backgammon, short nardy
  oyun/mars/home mars/koks, long nardy oyn/mars, each times the cube; long nardy's optional
  ``last-roll`` draw; a drop scores the cube value before the double; resignations;
* the doubling cube (:mod:`nardy.flow.cube`) when the ``cube`` option is on, not in a Crawford game.

Players are numbered 0 (White, the first player listed, the left column of a ``.mat`` record) and 1
(Black). Every action may be given ``player=`` so that a front end gets a clear
:class:`~nardy.rules.errors.GameStateError` for an action out of turn; nothing changes when an action is
refused. Dice come from an injected source (:mod:`nardy.rules.dice`); explicit dice may be passed to
:meth:`Game.start` and :meth:`Game.roll` (replays, analysis).

Example::

    >>> from nardy.flow.game import Game
    >>> from nardy.rules.dice import DiceSource
    >>> g = Game("backgammon", dice=DiceSource(seed=1))
    >>> g.start()                        # the opening: Black rolls higher and plays both dice
    >>> g.phase, g.turn, g.dice              # phases are a StrEnum: Phase.MOVE == "move"
    (<Phase.MOVE: 'move'>, 1, (5, 2))
    >>> while not g.is_over:             # each side plays its first legal play
    ...     if g.phase == "roll":
    ...         dice = g.roll()
    ...     else:
    ...         play = g.play(g.legal_plays()[0])
    >>> g.result.reason, g.result.level_name, g.result.points
    ('bear-off', 'single', 1)
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable

from ..rules.dice import DiceSource
from ..rules.errors import (
    GameStateError,
    IllegalPlayError,
    InvalidOptionError,
    why_not_double_text,
)
from ..rules.lastroll import (
    LastRollPosition,
    last_roll_odds,
    last_roll_plays,
    last_roll_position,
    last_roll_result,
)
from ..rules.notation import Step, format_steps
from ..rules.position import Play, Position, check_dice
from ..rules.scoring import result_kind
from ..rules.variants import Rules, get_rules
from . import entry as _entry
from .cube import Cube
from .events import (
    PHASES,
    AcceptEvent,
    BeaverEvent,
    DeclineEvent,
    DoubleEvent,
    DropEvent,
    EndEvent,
    Event,
    GameResult,
    LastRollEvent,
    OpeningEvent,
    PassEvent,
    Phase,
    PlayEvent,
    ResignEvent,
    RollEvent,
    SetupEvent,
    TakeEvent,
)
from .gamesave import GamePersistence
from .players import play_turn
from .turn import TurnEntry, event_steps

log = logging.getLogger("nardy")

__all__ = [
    "Game",
    "GameResult",
    "result_kind",
    "result_level",
    "last_roll_position",
    "last_roll_result",
    "last_roll_plays",
    "last_roll_odds",
    "PHASES",
    "Phase",
]


#: The old name of :func:`nardy.rules.scoring.result_kind` (a result's size is its kind; its points are the
#: rules' scoring): kept one release.
result_level = result_kind


class MayDouble:
    """The value of :attr:`Game.may_double`: true or false like a bool (``if game.may_double:``), and,
    for old code, callable as the method it was (``game.may_double(player)``, with a DeprecationWarning)."""

    __slots__ = ("_game", "_value")

    def __init__(self, game: Game, value: bool):
        self._game = game
        self._value = bool(value)

    def __bool__(self) -> bool:
        return self._value

    def __eq__(self, other):
        return self._value == other if isinstance(other, (bool, MayDouble)) else NotImplemented

    def __hash__(self):
        return hash(self._value)

    def __repr__(self):
        return repr(self._value)

    def __call__(self, player: int | None = None) -> bool:
        warnings.warn(
            "Game.may_double is a property now, like Game.is_over: write 'game.may_double' "
            "(another player: 'game.why_not_double(player) is None')",
            DeprecationWarning,
            stacklevel=2,
        )
        g = self._game
        return g.phase == "roll" and g.why_not_double(player) is None


class Game(GamePersistence):
    """One game with its turn flow, cube, resignations and result (see the module docstring).

    Args:
        rules_or_name: a :class:`~nardy.rules.Rules` or a game name/alias (``"backgammon"``,
            ``"short"``, ``"long"``).
        dice: a dice source (:class:`~nardy.rules.dice.DiceSource`, :class:`~nardy.rules.dice.FixedDice` or
            anything with ``roll()``, ``roll_one()``); default a fresh unseeded ``DiceSource``.
        cube: use the doubling cube; ``None`` takes the rules' ``cube`` option.
        crawford: this is a match's Crawford game (nobody may double).
        jacoby: money play's Jacoby rule (gammons, mars... count only with a turned cube).
        beavers: money play's beavers.
        cube_limit: the largest cube value allowed (a power of two) or ``None``.
        players: the two players' names (for messages and records).
        **options: rules options (docs/rules.md names, ``_`` for ``-``) applied to ``rules_or_name``.

    Attributes:
        rules, position (from the view of :attr:`turn`; before the opening White's), turn (0/1, the
        player on roll; ``None`` before the opening), dice (the current roll or ``None``), phase
        (a :class:`~nardy.flow.events.Phase`), history (list of :class:`~nardy.flow.events.Event`), result
        (:class:`GameResult` or
        ``None``), starter (who moved first), crawford, jacoby, players.
    """

    def __init__(
        self,
        rules_or_name="backgammon",
        dice=None,
        cube: bool | None = None,
        *,
        crawford: bool = False,
        jacoby: bool = False,
        beavers: bool = False,
        cube_limit: int | None = None,
        players=("White", "Black"),
        **options,
    ):
        self.rules: Rules = get_rules(rules_or_name, **options)
        self.dice_source = dice if dice is not None else DiceSource()
        enabled = self.rules.cube if cube is None else bool(cube)
        self._cube = Cube(enabled=enabled, limit=cube_limit, beavers=beavers)
        self.crawford = bool(crawford)
        self.jacoby = bool(jacoby)
        self.players = tuple(players)
        if len(self.players) != 2:
            raise InvalidOptionError(f"players {players!r}: expected two names")
        self.position: Position = Position.start(self.rules)
        self.turn: int | None = None
        self.dice: tuple[int, int] | None = None
        self.phase: Phase = Phase.OPENING
        self.history: list[Event] = []
        self.result: GameResult | None = None
        self.starter: int | None = None
        self._turn: TurnEntry | None = None
        self._plays: list[Play] | None = None
        self._resign: tuple[int, int] | None = None  # (player, level)
        self._resume: Phase | None = None  # phase to return to after a declined resignation
        self._last_roll = False
        #: the turn's undo points: (len(history), the state as JSON text): text, not dicts, because a server keeps
        #: hundreds of games and a game some fifty of these (objects the garbage collector would walk)
        self._undo: list[tuple[int, str]] = []

    @classmethod
    def from_position(
        cls,
        position: Position,
        turn: int = 0,
        dice=None,
        *,
        cube_value: int = 1,
        cube_owner: int | None = None,
        **kwargs,
    ) -> Game:
        """A game set up at ``position`` (from the view of ``turn``, who is to roll), for analysis,
        tests and puzzles. ``turn`` counts as the starter (long nardy ``last-roll``). Other arguments
        as for :class:`Game`; the rules are the position's.

        ``cube_value`` and ``cube_owner`` set up the cube (a power of two within ``cube_limit``; ``None``
        centred, or the player 0/1 who owns it); a cube other than centred at 1 needs the cube in use (and
        no Crawford game). The set-up event of the history records the cube, so such a game is saved and
        read back like any other (:meth:`from_dict`).

        Raises:
            GameStateError: ``turn`` not 0/1, or the position is over.
            InvalidOptionError: a cube value or owner that is not one, or a cube set up when not in use.
        """
        if turn not in (0, 1):
            raise GameStateError(f"turn {turn!r}: expected 0 or 1")
        g = cls(position.rules, dice=dice, **kwargs)
        if position.is_game_over():
            raise GameStateError(f"position {position.id()} is already over")
        c = g._cube
        # the cube's constructor checks the value (a power of two within the limit) and the owner
        cube = Cube(enabled=c.enabled, value=cube_value, owner=cube_owner, limit=c.limit, beavers=c.beavers)
        if (not c.enabled or g.crawford) and (cube.value != 1 or cube.owner is not None):
            raise InvalidOptionError(
                f"cube value {cube_value!r} / owner {cube_owner!r}: the cube is not in use in this game"
                + (" (nobody doubles in the Crawford game)" if c.enabled else "")
            )
        g._cube = cube
        g.position = position
        g.turn = turn
        g.starter = turn
        g.phase = Phase.ROLL
        g.history.append(SetupEvent(position.id(), turn, cube.value, cube.owner))
        g._snapshot()
        return g

    # ----- views --------------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """True once the game has a result."""
        return self.result is not None

    @property
    def in_last_roll(self) -> bool:
        """Long nardy's last roll is being played (option ``last-roll``): the starter has borne off all 15 and
        the other side has one more roll (:func:`last_roll_plays` ranks its plays exactly)."""
        return self._last_roll

    @property
    def cube(self) -> Cube:
        """The :class:`~nardy.flow.cube.Cube` (read it; change it only through the game's actions)."""
        return self._cube

    @property
    def cube_value(self) -> int:
        return self._cube.value

    @property
    def cube_owner(self) -> int | None:
        """``None`` (centred), 0 or 1."""
        return self._cube.owner

    @property
    def cube_enabled(self) -> bool:
        return self._cube.enabled

    @property
    def to_act(self) -> int | None:
        """The player who must act now: the player on turn, except while a double (the taker) or a
        resignation (the other side) waits for an answer; ``None`` before the opening and at the end."""
        if self.phase in ("opening", "over"):
            return None
        if self.phase == "double":
            return 1 - self.turn
        if self.phase == "resign":
            return 1 - self._resign[0]
        return self.turn

    @property
    def resignation(self) -> tuple[int, int] | None:
        """``(player, level)`` of a resignation waiting for an answer, or ``None``."""
        return self._resign

    @property
    def steps_taken(self) -> list[Step]:
        """The steps of the current turn taken so far (step-by-step entry)."""
        return self._turn.steps if self._turn else []

    @property
    def partial_position(self) -> Position:
        """The position after the steps taken so far this turn (mover's view); :attr:`position`
        when none are taken."""
        if not self._turn or not self._turn.groups:
            return self.position
        b = self._turn.state()[0]
        return Position(b.tobytes(), self.rules, self.position.first_turn)

    def position_for(self, player: int, partial: bool = True) -> Position:
        """The position from ``player``'s view (0 White, 1 Black), with the steps taken so far this
        turn when ``partial``; for front ends that keep one side at the bottom."""
        if player not in (0, 1):
            raise GameStateError(f"player {player!r}: expected 0 or 1")
        pos = self.partial_position if partial else self.position
        mover = 0 if self.turn is None else self.turn
        return pos if player == mover else pos.mirror()

    def player_name(self, player: int) -> str:
        return self.players[player]

    def _who(self, player) -> str:
        return f"{self.players[player]} (player {player})"

    def _check_player(self, player, expected, action: str):
        if player is None:
            return
        if player not in (0, 1):
            raise GameStateError(
                f"player {player!r}: expected 0 or 1", code="bad_player", params={"player": str(player)[:20]}
            )
        if player != expected:
            raise GameStateError(
                f"{self._who(player)} cannot {action}: it is {self._who(expected)}'s turn to act (phase {self.phase})",
                code="not_your_turn",
                params={"player": player, "expected": expected, "action": action, "phase": self.phase.value},
            )

    def _need(self, phases, action: str):
        if self.phase == "over":
            raise GameStateError(
                f"cannot {action}: the game is over ({self.result_text()})",
                code="game_over",
                params={"action": action},
            )
        if self.phase not in phases:
            raise GameStateError(
                f"cannot {action} now: the game is in phase {self.phase.value!r} "
                f"(expected {' or '.join(repr(str(p)) for p in phases)})",
                code="wrong_phase",
                params={"action": action, "phase": self.phase.value},
            )

    def result_text(self) -> str:
        """The result in words for messages (English): ``"White (player 0) won 2 point(s), gammon"``,
        ``"drawn, 1 point(s) each"``, or ``"no result"`` while the game goes on."""
        r = self.result
        if r is None:
            return "no result"
        if r.winner is None:
            return f"drawn, {r.points} point(s) each"
        return f"{self._who(r.winner)} won {r.points} point(s), {r.level_name}"

    # ----- a computer player's turn ---------------------------------------------------------------
    def play_turn(self, bot, match=None) -> list[tuple[str, object]]:
        """Let ``bot`` (a :class:`~nardy.flow.bot.Bot` of this game) act for the player who must act now until
        the other player must act or the game is over: a bot-vs-bot game is a few lines
        (``Bot.take_turn(game)`` is the same)::

            >>> from nardy import Bot
            >>> from nardy.rules.dice import DiceSource
            >>> game = Game("backgammon", dice=DiceSource(seed=3))
            >>> bots = (Bot("backgammon", level="beginner", seed=1), Bot("backgammon", level="casual", seed=2))
            >>> game.start()
            >>> while not game.is_over:
            ...     done = bots[game.to_act].take_turn(game)      # roll or double, play; or take / pass
            >>> game.result_text(), game.cube_value
            ('Black (player 1) won 4 point(s), gammon', 2)

        Before the roll the bot doubles when its cube decision says so (the turn then waits for the answer:
        the opponent's bot takes or passes), else it rolls and plays; it answers a double waiting for it,
        and a resignation (accepting one worth at least its cubeless equity). Before the opening it plays the
        opening (:meth:`start`) and stops.

        Args:
            bot: the player: a :class:`~nardy.flow.players.Player` (``choose_play(position, dice)``,
                ``cube_action(state)``, ``accepts_resignation(game, side)``) as :class:`~nardy.flow.bot.Bot` is;
                without ``accepts_resignation`` its ``evaluate(position)`` answers resignations
                (:func:`nardy.flow.players.accepts_resignation`).
            match: the :class:`~nardy.flow.match.Match` this game belongs to, for cube decisions at its score
                (default: money play).
        Returns:
            What was done, in order: ``("start", None)``, ``("double", value)``, ``("roll", dice)``,
            ``("play", Play)``, ``("take", value)``, ``("drop", GameResult)``, ``("accept", GameResult)``,
            ``("decline", None)``.
        Raises:
            GameStateError: the game is over.
        """
        return play_turn(self, bot, match)

    # ----- opening and rolls --------------------------------------------------------------------
    def start(self, starter: int | None = None, dice=None) -> None:
        """Play the opening (docs/rules.md rule 7).

        Without arguments each player rolls one die from the dice source, ties are rolled again and
        the higher starts; with ``use-opening-dice`` the starter then plays those two dice, with
        ``reroll`` the starter is to roll (and may double first if the cube is in use).

        Args:
            starter: give the starter instead of rolling (replays); with ``use-opening-dice``
                ``dice`` must then give the opening roll (two different dice).
            dice: the opening dice (``use-opening-dice``) when ``starter`` is given.
        Raises:
            GameStateError: the game has already started.
            InvalidDiceError: bad dice, or a double as the opening roll.
        """
        self._need(("opening",), "start the game")
        use_dice = self.rules.opening == "use-opening-dice"
        rolls = []
        if starter is None:
            if dice is not None:
                d = check_dice(dice)
                if d[0] == d[1]:
                    raise GameStateError(f"opening dice {d}: a tie is rolled again")
                rolls = [list(d)]
            else:
                while True:
                    d = (self.dice_source.roll_one(), self.dice_source.roll_one())
                    rolls.append(list(d))
                    if d[0] != d[1]:
                        break
            starter = 0 if d[0] > d[1] else 1
            opening = (max(d), min(d))
        else:
            if starter not in (0, 1):
                raise GameStateError(f"starter {starter!r}: expected 0 or 1")
            opening = None
            if use_dice:
                if dice is None:
                    raise GameStateError("with opening use-opening-dice the starter's opening dice must be given")
                opening = check_dice(dice)
                if opening[0] == opening[1]:
                    from ..rules.errors import InvalidDiceError

                    raise InvalidDiceError(
                        f"opening dice {opening}: the opening roll cannot be a double "
                        f"(ties are rolled again) with opening use-opening-dice"
                    )
            elif dice is not None:
                raise GameStateError("with opening reroll the starter rolls: give the dice to roll()")
        self.starter = starter
        self.turn = starter
        if starter == 1:
            self.position = self.position.mirror()
        self.history.append(
            OpeningEvent(starter, tuple(tuple(r) for r in rolls), tuple(opening) if (use_dice and opening) else None)
        )
        if use_dice:
            self._begin_move(tuple(opening))
        else:
            self.phase = Phase.ROLL
        self._snapshot()

    def roll(self, dice=None, player: int | None = None) -> tuple[int, int]:
        """Roll the dice for the player on turn (from the dice source, or ``dice`` if given).

        A roll that cannot be played passes the turn at once (history ``pass`` event).
        Returns the dice. Raises GameStateError out of phase or out of turn.
        """
        self._need(("roll",), "roll")
        self._check_player(player, self.turn, "roll")
        d = check_dice(dice) if dice is not None else tuple(self.dice_source.roll())
        self.history.append(RollEvent(self.turn, tuple(d)))
        self._begin_move(d)
        return d

    def _begin_move(self, d):
        self.dice = tuple(d)
        self.phase = Phase.MOVE
        plays = self.position.legal_plays(d)
        self._plays = plays
        self._turn = TurnEntry(self.position, d, plays)
        if len(plays) == 1 and not plays[0].steps:
            self.history.append(PassEvent(self.turn, tuple(d)))
            self._finish_play(plays[0])

    # ----- plays --------------------------------------------------------------------------------
    def legal_plays(self) -> list[Play]:
        """The legal plays for the current roll (phase ``move``), as :meth:`Position.legal_plays`."""
        self._need(("move",), "list plays")
        return list(self._plays)

    def play(self, play, player: int | None = None) -> Play:
        """Make a whole play for the current roll and end the turn.

        Args:
            play: a :class:`~nardy.rules.position.Play` from :meth:`legal_plays` or notation text
                (parsed by :meth:`Position.parse_play`, own numbering); steps taken so far are
                discarded.
        Returns:
            The play made.
        Raises:
            GameStateError: not the phase to move, or out of turn.
            IllegalPlayError / NotationError: the play is not legal for the position and roll.
        """
        self._need(("move",), "play")
        self._check_player(player, self.turn, "play")
        if isinstance(play, Play):
            match = [p for p in self._plays if p == play]
            if not match:
                raise IllegalPlayError(
                    f"play {play} is not legal with roll {max(self.dice)}-{min(self.dice)} "
                    f"in position {self.position.id()}",
                    text=str(play),
                    dice=self.dice,
                    position_id=self.position.id(),
                    reason="not a legal play",
                    code="illegal_play",
                )
            chosen = match[0]
            steps = play.steps
        else:
            # the roll's legal plays are known: the text is matched against them (Position.parse_play)
            d1, d2 = self.dice
            plays = self._plays if self._plays is not None else self.position.legal_plays((d1, d2))
            chosen = self.position._parse_among(play, (d1, d2), plays)
            steps = chosen.steps
        self._record_play(chosen, steps)
        return chosen

    def _record_play(self, chosen: Play, steps):
        self.history.append(
            PlayEvent(self.turn, tuple(self.dice), format_steps(steps), event_steps(steps), self.position.id())
        )
        self._finish_play(chosen)

    def legal_steps(self) -> list[tuple[int, int]]:
        """The single steps ``(from, to)`` that may be taken next and can still be completed to a
        legal play (25 = bar, 0 = off); empty when the play is complete (then :meth:`confirm`)."""
        self._need(("move",), "list steps")
        return self._turn.legal_steps()

    @property
    def dice_left(self) -> list[int]:
        """The dice of the current roll not yet used by the steps taken (empty outside phase ``move``)."""
        if self.phase != "move" or self._turn is None:
            return []
        return list(self._turn.state()[3])

    def can_confirm(self) -> bool:
        """True when the steps taken so far make a complete legal play (then :meth:`confirm` ends the turn)."""
        return self.phase == "move" and self._turn is not None and self._turn.complete_play() is not None

    def step(self, frm: int, to: int, die: int | None = None, player: int | None = None) -> list[Step]:
        """Take one step of the play being entered (docs/rules.md rule 8).

        ``frm``/``to`` are mover points (25 bar, 0 off). A hop over several dice (``24/13`` with 6-5)
        is taken as single steps of one checker; ``die`` picks the die when a bear-off could use
        either. Returns the single steps taken. Raises IllegalPlayError when no legal play continues
        that way (nothing changes).
        """
        self._need(("move",), "step")
        self._check_player(player, self.turn, "step")
        path = self._turn.find_path(int(frm), int(to), die)
        if path is None:
            raise IllegalPlayError(
                f"step {frm}/{to} is not possible now (roll {self.dice[0]}-{self.dice[1]}, steps so far "
                f"{format_steps(self._turn.steps) or 'none'}): no legal play continues that way",
                text=f"{frm}/{to}",
                dice=self.dice,
                position_id=self.position.id(),
                reason="illegal step",
                code="illegal_step",
                params={"from": int(frm), "to": int(to), "dice": list(self.dice_left)},
            )
        self._turn.groups.append(path)
        return path

    def enter(self, text: str, numbering="own", side: int | None = None) -> list[Step]:
        """Enter a play typed by ``side`` (default: the mover) in ``numbering`` (``"own"``, ``"absolute"``,
        ``"traditional"`` or a :class:`~nardy.rules.numbering.Numbering`): the whole play when no step of the
        turn is taken yet and the text names one (then the turn ends), else its steps one by one, taken back
        when one is refused (:mod:`nardy.flow.entry`). Returns the steps taken.

        Raises:
            NotationError: ``bad_point``, ``bad_notation``; AmbiguousPlayError: ``ambiguous_play``;
            IllegalPlayError: the whole play's or the refused step's code, ``false_hit``/``no_hitting`` for a
            ``*`` that hits nothing (nothing changed); GameStateError: not ``side``'s move.
        """
        self._need(("move",), "enter a play")
        side = self.turn if side is None else side
        self._check_player(side, self.turn, "enter a play")
        actions: dict[str, Callable[..., object]] = {"play": self.play, "step": self.step, "undo": self.undo_step}
        resolved = _entry.resolve(self, text, numbering, side)
        return _entry.apply(self, resolved, lambda action, **kw: actions[action](player=side, **kw))[0]

    def undo_step(self, player: int | None = None) -> list[Step]:
        """Take back the last step (or multi-die hop) of the current turn; returns it."""
        self._need(("move",), "take back a step")
        self._check_player(player, self.turn, "take back a step")
        if not self._turn.groups:
            raise GameStateError("no step of this turn to take back", code="nothing_to_undo")
        return self._turn.groups.pop()

    def confirm(self, player: int | None = None) -> Play:
        """End the turn with the steps taken, if they make a legal play; returns the play."""
        self._need(("move",), "confirm")
        self._check_player(player, self.turn, "confirm")
        chosen = self._turn.complete_play()
        if chosen is None:
            left = self._turn.state()[3]
            raise IllegalPlayError(
                f"the steps {format_steps(self._turn.steps) or '(none)'} are not a complete legal play for "
                f"roll {self.dice[0]}-{self.dice[1]}: dice {left} must still be played",
                text=format_steps(self._turn.steps),
                dice=self.dice,
                position_id=self.position.id(),
                reason="incomplete play",
                code="incomplete_play",
                params={"dice": list(left)},
            )
        self._record_play(chosen, self._turn.steps)
        return chosen

    def _finish_play(self, chosen: Play):
        res = chosen.result
        mover = self.turn
        self._turn = None
        self._plays = None
        if self._last_roll:
            self._last_roll = False
            if res.mover[0] == 15:
                pts = 0.5 if self.rules.last_roll == "half" else 1
                self._end(GameResult(None, 0, "draw", pts, self._cube.value, "draw"), res)
            else:
                winner = 1 - mover
                self._end_win(winner, result_kind(self.rules, res.mover), "bear-off", res)
            return
        if res.mover[0] == 15:
            if not self.rules.hitting and self.rules.last_roll != "off" and mover == self.starter:
                self._last_roll = True
                nxt = res.mirror()
                self.position = LastRollPosition(nxt._b, self.rules, nxt.first_turn)
                self.turn = 1 - mover
                self.dice = None
                self.phase = Phase.ROLL
                self.history.append(LastRollEvent(self.turn))
                self._snapshot()
                return
            self._end_win(mover, result_kind(self.rules, res.opponent), "bear-off", res)
            return
        self.position = res.mirror()
        self.turn = 1 - mover
        self.dice = None
        self.phase = Phase.ROLL
        self._snapshot()

    # ----- results ------------------------------------------------------------------------------
    def points_for(self, level: int) -> int:
        """What a win at result level ``level`` (an index of ``rules.result_names``) scores now: the level's
        value times the cube (a single game's value when Jacoby's rule holds and the cube is not turned)."""
        if self.jacoby and not self._cube.turned:
            level = 0
        return self.rules.scoring[level] * self._cube.value

    def _end_win(
        self, winner: int, level: int, reason: str, final_pos: Position | None = None, points: int | None = None
    ):
        if points is None:
            points = self.points_for(level)
        self._end(
            GameResult(winner, level, self.rules.result_names[level], points, self._cube.value, reason), final_pos
        )

    def _end(self, result: GameResult, final_pos: Position | None):
        if self.result is not None:
            raise GameStateError("the game already has a result; a game is scored once")
        if final_pos is not None:
            self.position = Position(final_pos._b, final_pos.rules, final_pos.first_turn)
        self.result = result
        self.phase = Phase.OVER
        self.dice = None
        self._resign = None
        self.history.append(EndEvent(**result.to_dict()))

    # ----- cube ---------------------------------------------------------------------------------
    def why_not_double(self, player: int | None = None) -> str | None:
        """Why the player on turn (or ``player``) may not double now, as a code (see
        :meth:`nardy.flow.cube.Cube.why_not_double`; also ``not_before_roll``, ``not_your_turn`` and
        ``last_roll``), or ``None`` if they may. :data:`nardy.rules.errors.WHY_NOT_DOUBLE` has the English."""
        p = self.turn if player is None else player
        if not self._cube.enabled:
            return self._cube.why_not_double(p, self.crawford)
        if self.phase != "roll":
            return "not_before_roll"
        if p != self.turn:
            return "not_your_turn"
        if self._last_roll:
            return "last_roll"
        return self._cube.why_not_double(p, self.crawford)

    def cube_state(self):
        """What a cube decision needs (:class:`nardy.flow.cubetheory.CubeState`): the position from the view of
        the player on turn, the cube, the phase, Jacoby and Crawford, and why the player may not double
        (a code) if so; money play (score 0-0, length 0): a :class:`~nardy.flow.match.Match` gives its score.

        Raises:
            GameStateError: the game has not started or is over."""
        from .cubetheory import CubeState

        if self.phase in (Phase.OPENING, Phase.OVER):
            raise GameStateError(
                f"no cube decision in phase {self.phase.value!r}",
                code="wrong_phase",
                params={"action": "decide on the cube", "phase": self.phase.value},
            )
        return CubeState(
            self.position,
            turn=self.turn,
            cube_value=self.cube_value,
            cube_owner=self.cube_owner,
            enabled=self.cube_enabled,
            phase=self.phase.value,
            jacoby=self.jacoby,
            crawford=self.crawford,
            why_not_double=None if self.phase == Phase.DOUBLE else self.why_not_double(),
            cube_limit=self._cube.limit,
        )

    @property
    def may_double(self) -> MayDouble:
        """True if the player on turn may double now (a property, like :attr:`is_over`; for another player:
        ``why_not_double(player) is None``). The old spelling ``may_double()`` / ``may_double(player)``
        still works and warns (DeprecationWarning)."""
        return MayDouble(self, self.phase == "roll" and self.why_not_double() is None)

    def double(self, player: int | None = None) -> int:
        """The player on turn offers a double (before rolling); returns the value offered.

        Raises GameStateError: out of phase or turn, cube not in use, Crawford game, the opponent
        owns the cube, the cube limit.
        """
        self._need(("roll",), "double")
        self._check_player(player, self.turn, "double")
        code = self.why_not_double()
        if code:
            params = {
                "player": self.turn,
                "owner": self.cube_owner,
                "limit": self._cube.limit,
                "value": self.cube_value,
                "phase": self.phase.value,
            }
            why = why_not_double_text(code, owner_name=self._who(self.cube_owner or 0), **params)
            raise GameStateError(f"{self._who(self.turn)} cannot double: {why}", code=code, params=params)
        value = self._cube.offer(self.turn, self.crawford)
        self.phase = Phase.DOUBLE
        self.history.append(DoubleEvent(self.turn, value))
        return value

    def take(self, player: int | None = None) -> int:
        """The doubled player takes: the cube doubles and they own it; the doubler then rolls."""
        self._need(("double",), "take")
        taker = 1 - self.turn
        self._check_player(player, taker, "take")
        value = self._cube.take()
        self.phase = Phase.ROLL
        self.history.append(TakeEvent(taker, value))
        return value

    def beaver(self, player: int | None = None) -> int:
        """The doubled player beavers (money play): takes and redoubles at once, keeping the cube."""
        self._need(("double",), "beaver")
        taker = 1 - self.turn
        self._check_player(player, taker, "beaver")
        value = self._cube.beaver()
        self.phase = Phase.ROLL
        self.history.append(BeaverEvent(taker, value))
        return value

    def drop(self, player: int | None = None) -> GameResult:
        """The doubled player passes: the doubler wins the cube value before the double."""
        self._need(("double",), "drop")
        taker = 1 - self.turn
        self._check_player(player, taker, "drop")
        points = self._cube.drop()
        self.history.append(DropEvent(taker))
        self._end_win(self.turn, 0, "drop", points=points)
        return self.result

    # ----- resignation --------------------------------------------------------------------------
    def _level(self, level) -> int:
        names = self.rules.result_names
        if isinstance(level, str):
            key = level.strip().lower()
            if key not in names:
                raise GameStateError(
                    f"resignation level {level!r}: expected one of {', '.join(names)}",
                    code="bad_resign_level",
                    params={"level": level[:20]},
                )
            return names.index(key)
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level < len(names):
            raise GameStateError(
                f"resignation level {level!r}: expected 0..{len(names) - 1} or one of {', '.join(names)}",
                code="bad_resign_level",
                params={"level": str(level)[:20]},
            )
        return level

    def resign(self, level=0, player: int | None = None) -> None:
        """Offer to resign at a level (index or name: single/gammon/backgammon, oyun/mars/home
        mars/koks, oyn/mars). ``player`` defaults to the player who must act now.

        Raises GameStateError: the game is over or not started, or a resignation is already waiting.
        """
        if self.phase == "resign":
            raise GameStateError("a resignation is already waiting for an answer", code="resign_waiting")
        self._need(("roll", "move", "double"), "resign")
        p = self.to_act if player is None else player
        if p not in (0, 1):
            raise GameStateError(f"player {player!r}: expected 0 or 1")
        lv = self._level(level)
        self._resign = (p, lv)
        self._resume = self.phase
        self.phase = Phase.RESIGN
        self.history.append(ResignEvent(p, lv, self.rules.result_names[lv]))

    def accept_resignation(self, player: int | None = None) -> GameResult:
        """The opponent accepts the resignation: the game ends at that level times the cube."""
        self._need(("resign",), "accept a resignation")
        p, lv = self._resign
        self._check_player(player, 1 - p, "accept the resignation")
        self.history.append(AcceptEvent(1 - p))
        self._cube.offered_by = None
        self._end_win(1 - p, lv, "resign")
        return self.result

    def decline_resignation(self, player: int | None = None) -> None:
        """The opponent declines the resignation: play goes on where it was."""
        self._need(("resign",), "decline a resignation")
        p, _ = self._resign
        self._check_player(player, 1 - p, "decline the resignation")
        self.history.append(DeclineEvent(1 - p))
        self.phase = self._resume
        self._resign = None
        self._resume = None

    def __str__(self):
        """The board from the side on roll, White ``O`` and Black ``X`` as in ``nardy play``
        (:func:`nardy.rules.boardtext.board_text`), with the steps taken so far this turn."""
        from ..rules.boardtext import board_text

        return board_text(self.partial_position, mover=0 if self.turn is None else self.turn)

    def __repr__(self):
        return (
            f"<Game {self.rules.name} phase={self.phase} turn={self.turn} dice={self.dice} "
            f"cube={self._cube.value} {self.position.id()}>"
        )

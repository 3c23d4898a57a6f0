"""What the two environments share: the action index, the observation, the turn loop and the reward.

No Gymnasium or PettingZoo here (they are imported by :mod:`nardy.envs.single` and :mod:`nardy.envs.aec`
only), so this module can be read and tested without the ``rl`` extra.

**Actions.** An action is an index into the *sorted* list of the legal plays of the roll being played
(:func:`sorted_plays`: ordered by the resulting board, its 28 counts of :attr:`nardy.Position.array` as
bytes, one distinct board per legal play, so the order depends only on the position and the roll, never on
the generator's search order; :meth:`NardyMatchup.notation` gives the plays' notation in that order). The action
space is ``Discrete(MAX_ACTIONS)`` for every game; ``action_mask[i]`` is 1 for ``i < len(plays)`` and 0
after. :data:`MAX_ACTIONS` is :data:`nardy.rules._movegen.MAX_PLAYS`, the capacity of the legal-play generator:
it never returns more plays for one roll, so every legal play always has an index (the most found in a
search of positions reached by random play is far lower, see ``docs/design.md`` "RL environments").

**Observations** (float32[:data:`OBS_LEN`], all from the view of the side that observes, in its own
numbering, docs/rules.md "Board, points, views"):

=============  =====================================================================================
``[0:26]``     own checkers: ``[0]`` borne off, ``[1..24]`` own points 1-24, ``[25]`` the bar
``[26:52]``    the opponent's checkers on the same places, indexed by the observer's point numbers:
               ``[26 + p]`` = the opponent's checkers on the observer's point ``p``; ``[26]`` the
               opponent's borne off, ``[51]`` the opponent's bar
``[52:54]``    the roll being played (larger die first); 0, 0 when no roll is on the board
``[54:56]``    long nardy's first-turn flags (observer, opponent: 1 = still on the first turn, head
               rule); 0 in the other games
``[56]``       1 when the observer is the side to play the roll, else 0
=============  =====================================================================================

**Reward**: the points of the game (:class:`nardy.flow.game.GameResult`), from the side's view: +points for
a win, -points for a loss, given once when the game ends: backgammon 1/2/3 (single, gammon,
backgammon), short nardy 1/2/4/8 (oyun, mars, home mars, koks), long nardy 1/2 (oyn, mars), 0 for a
long nardy ``last-roll`` draw (an option, off by default: both sides score the same). The doubling
cube is left out: every game is played at cube 1 (the ``cube`` option is forced off).
"""

from __future__ import annotations

import numpy as np

from ..flow.bot import BOT_LEVELS, Bot
from ..flow.game import Game
from ..rules._movegen import MAX_PLAYS
from ..rules.dice import DiceSource
from ..rules.errors import IllegalPlayError, InvalidOptionError
from ..rules.position import Play, Position
from ..rules.variants import get_rules

__all__ = [
    "MAX_ACTIONS",
    "OBS_LEN",
    "OBS_HIGH",
    "GAMES",
    "sorted_plays",
    "observation",
    "action_mask",
    "NardyMatchup",
]

#: Size of the action space (every game): the legal-play generator's capacity.
MAX_ACTIONS = MAX_PLAYS
#: Length of an observation vector (layout in the module docstring).
OBS_LEN = 57
#: Upper bound of every observation entry (15 checkers a side; dice 1-6; flags 0/1).
OBS_HIGH = 15.0
#: The games, canonical names.
GAMES = ("backgammon", "short", "long")


def sorted_plays(position: Position, dice) -> list[Play]:
    """The legal plays of ``position`` (mover's view) for ``dice``, in the environments' action order: by
    the resulting board (``play.result.array`` as bytes; every legal play has a board of its own). One empty
    play when nothing can move; ``[]`` for a finished game.

    Raises:
        InvalidDiceError: bad dice.
    """
    return _in_action_order(position.legal_plays(dice))


def _in_action_order(plays: list[Play]) -> list[Play]:
    return sorted(plays, key=lambda p: p.result.array.tobytes())


def observation(position: Position, dice, to_play: bool) -> np.ndarray:
    """The observation of ``position`` (from the observer's view: the observer is the position's mover)
    with ``dice`` (or ``None``) on the board; ``to_play`` says whether the observer plays them. Layout in
    the module docstring; float32[:data:`OBS_LEN`]."""
    a = position.array
    out = np.zeros(OBS_LEN, np.float32)
    pts = a[1:25].astype(np.float32)
    out[0] = a[0]
    out[1:25] = np.maximum(pts, 0)
    out[25] = a[25]
    out[26] = a[27]
    out[27:51] = np.maximum(-pts, 0)
    out[51] = a[26]
    if dice is not None:
        out[52], out[53] = max(dice), min(dice)
    out[54], out[55] = position.first_turn
    out[56] = 1.0 if to_play else 0.0
    return out


def action_mask(n_plays: int) -> np.ndarray:
    """int8[:data:`MAX_ACTIONS`]: 1 for the first ``n_plays`` indices (the legal plays), 0 after."""
    m = np.zeros(MAX_ACTIONS, np.int8)
    m[:n_plays] = 1
    return m


class NardyMatchup:
    """One game between two sides, stepped one play at a time: the turn loop both environments run.

    The game is a :class:`nardy.flow.game.Game` with the cube off (rules options otherwise as given), dice from
    a :class:`~nardy.rules.dice.DiceSource` seeded by :meth:`new_game`. Rolls are made by the environment, and a
    roll that cannot be played passes by itself, so the game always waits either for a play of the side
    on turn (:attr:`plays` non-empty) or is over.

    Args:
        game: ``"backgammon"``, ``"short"``, ``"long"`` (any alias).
        options: rules options (docs/rules.md names, ``-`` or ``_``); ``cube`` is forced off.
    Raises:
        UnknownGameError / InvalidOptionError: an unknown game or option.
    """

    def __init__(self, game: str = "backgammon", options: dict | None = None):
        opts = {k.replace("-", "_"): v for k, v in (options or {}).items()}
        opts["cube"] = False
        self.rules = get_rules(game, **opts)
        self.game: Game | None = None
        self.plays: list[Play] = []

    def new_game(self, seed: int) -> None:
        """Start a new game (the opening roll decides who moves first) with dice seeded by ``seed``."""
        self.game = Game(self.rules, dice=DiceSource(seed), cube=False)
        self.game.start()
        self._advance()

    def _advance(self) -> None:
        g = self.game
        while not g.is_over and g.phase == "roll":
            g.roll()
        self.plays = [] if g.is_over else _in_action_order(g.legal_plays())  # the game's own list, reordered

    @property
    def over(self) -> bool:
        return self.game is not None and self.game.is_over

    @property
    def turn(self) -> int:
        """The side (0 White, 1 Black) to play the roll (meaningless once the game is over)."""
        return int(self.game.turn)

    def is_legal(self, action) -> bool:
        """``action`` is the index of one of :attr:`plays` (an integer whose mask entry is 1)."""
        try:
            i = int(action)
        except (TypeError, ValueError):
            return False
        return i == action and 0 <= i < len(self.plays)

    def play(self, action) -> Play:
        """Play the legal play of index ``action`` (of :attr:`plays`) for the side on turn, then roll for
        the next side.

        Raises:
            IllegalPlayError: ``action`` is not the index of a legal play (its mask entry is 0);
            InvalidOptionError: ``action`` is not an integer.
        """
        try:
            i = int(action)
        except (TypeError, ValueError):
            raise InvalidOptionError(f"action {action!r}: expected an integer play index") from None
        if i != action or not 0 <= i < len(self.plays):
            raise IllegalPlayError(
                f"action {action!r} is not a legal play index: this roll has {len(self.plays)} legal "
                f"play(s), indices 0..{len(self.plays) - 1} (see the action mask)",
                code="illegal_play",
            )
        chosen = self.plays[i]
        self.game.play(chosen)
        self._advance()
        return chosen

    def notation(self) -> list[str]:
        """The legal plays of the roll in action order, in notation (own numbering of the side on turn);
        ``[]`` once the game is over."""
        return [str(p) for p in self.plays]

    def observe(self, side: int) -> np.ndarray:
        """The observation of ``side`` (0/1), from its own view."""
        g = self.game
        pos = g.position if g.turn == side else g.position.mirror()
        on_board = None if g.is_over else g.dice
        return observation(pos, on_board, not g.is_over and g.turn == side)

    def mask(self, side: int) -> np.ndarray:
        """The action mask of ``side``: the legal plays when it is on turn, else all 0."""
        return action_mask(len(self.plays) if not self.over and self.turn == side else 0)

    def points(self, side: int) -> float:
        """The result for ``side`` once the game is over: +points won, -points lost, 0 for a draw (and 0
        while the game goes on)."""
        r = self.game.result if self.game is not None else None
        if r is None or r.winner is None:
            return 0.0
        return float(r.points if r.winner == side else -r.points)

    def bot(self, level: str, seed: int) -> Bot:
        """A computer player of this game at ``level`` (:data:`nardy.engine.BOT_LEVELS`) seeded by ``seed``.

        Raises:
            InvalidOptionError: an unknown level.
        """
        if level not in BOT_LEVELS:
            raise InvalidOptionError(f"opponent level {level!r}: expected one of {', '.join(BOT_LEVELS)}")
        return Bot(self.rules, level=level, seed=seed)

    def bot_action(self, bot: Bot) -> int:
        """The index of ``bot``'s choice among :attr:`plays` (the bot plays the side on turn)."""
        chosen = bot.choose_play(self.game.position, self.game.dice)
        return self.plays.index(chosen)

    def render(self) -> str:
        """A text board of the position, from the view of the side on turn, with the roll."""
        g = self.game
        if g is None:
            return ""
        who = g.players[g.turn] if g.turn is not None else "?"
        head = (
            f"{self.rules.name}: {who} to play {g.dice}" if not g.is_over else f"{self.rules.name}: {g.result_text()}"
        )
        return f"{head}\n{g.position}"

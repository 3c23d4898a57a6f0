"""The computer player of games: :class:`Bot` (``nardy.Bot``), an :class:`~nardy.engine.bot.Engine` (plays,
hints, evaluations of positions) that also decides cube actions (:func:`nardy.flow.cubetheory.cube_decision`
fed with its own evaluations) and takes whole turns of a :class:`~nardy.flow.game.Game`.

Levels: :data:`BOT_LEVELS` (see :mod:`nardy.engine.bot`). Cube decisions are fed probabilities searched at
most :data:`CUBE_MAX_PLY` plies deep.

Example::

    >>> import nardy
    >>> bot = nardy.Bot("backgammon", level="grandmaster")
    >>> pos = nardy.Position.start("backgammon")
    >>> bot.choose_play(pos, (3, 1))         # one of pos.legal_plays((3, 1))
    <Play 8/5 6/5 -> 4HPwATCwZ/ABMA>
    >>> bot.cube_action(pos).action          # the side on roll, centred cube, money play
    'no double'
"""

from __future__ import annotations

from ..engine.bot import BOT_LEVELS, DEFAULT_LEVEL, STRONGEST_LEVEL, Engine, Hint
from ..rules.lastroll import LastRollPosition, last_roll_plays
from ..rules.position import check_dice
from .cubetheory import CubeDecision, cube_decision
from .players import accepts_resignation

__all__ = [
    "Bot",
    "RandomBot",
    "HeuristicBot",
    "Hint",
    "CubeDecision",
    "BOT_LEVELS",
    "STRONGEST_LEVEL",
    "DEFAULT_LEVEL",
    "CUBE_MAX_PLY",
    "CUBE_CLOSE_MARGIN",
    "CUBE_CLOSE_PLY",
    "bot_player",
]

#: The deepest search that feeds cube decisions: a 3-ply position evaluation costs 21 2-ply ones (seconds a
#: decision), and the 2-ply cube already errs only 0.3 / 0.8 mp per money double / take (docs/bots.md).
CUBE_MAX_PLY = 2
#: Levels searching 3-ply or deeper (``champion``) decide the cube on 2-ply probabilities and decide again on
#: 3-ply ones when the 2-ply decision is close: the doubler's margin ``|min(DT, DP) - ND|``, or (a double at
#: least close) the take margin ``|DP - DT|``, below this (normalised equity, units of the current cube). About a
#: third of bench/cube_vs_bgsage.py's sample (70% close by design), 0.3-0.5 s each; journal "2026-12-06".
CUBE_CLOSE_MARGIN = 0.04
#: The search depth of that second decision.
CUBE_CLOSE_PLY = 3


class Bot(Engine):
    """A computer player of games: an :class:`~nardy.engine.bot.Engine` (same arguments, levels, plays, hints
    and evaluations) with cube decisions and whole turns. It has what a game asks of a player (a play for the
    roll, a cube action, an answer to a double or a resignation: :class:`nardy.flow.players.Player`)."""

    # ----- plays ----------------------------------------------------------------------------------
    def choose_play(self, position, dice, deadline=None):
        """The bot's play for ``position`` and ``dice`` (:meth:`~nardy.engine.bot.Engine.choose_play`), except in
        long nardy's last roll: a :class:`~nardy.rules.lastroll.LastRollPosition` (the game's position when the
        side that bore off first leaves the other one roll, docs/rules.md "Long nardy") is played exactly, the
        best of :func:`~nardy.rules.lastroll.last_roll_plays` (a draw, else the smallest loss: the ranking the
        hints of every front end show), not by the net; the ``random`` level still plays at random.

        Raises:
            InvalidDiceError: bad dice; ValueError: another game's position or a finished game.
        """
        if isinstance(position, LastRollPosition) and self.level != "random":
            self._check(position)
            return last_roll_plays(position, check_dice(dice), self.rules)[0][0]
        return super().choose_play(position, dice, deadline=deadline)

    # ----- a whole turn ----------------------------------------------------------------------------
    def take_turn(self, game, match=None) -> list:
        """Act in ``game`` (a :class:`nardy.flow.game.Game`) for the player who must act now until the other must
        act or the game is over: double or roll and play, or answer a double or a resignation. The same as
        ``game.play_turn(bot, match)`` (see there for the example, what is returned and the errors)."""
        return game.play_turn(self, match)

    def accepts_resignation(self, game, side: int) -> bool:
        """Whether this bot, answering for ``side``, accepts the resignation waiting in ``game``: when it is worth
        at least ``side``'s cubeless equity (:func:`nardy.flow.players.accepts_resignation`, this bot's
        evaluations at its level's depth capped at 1)."""
        return accepts_resignation(self.evaluate, game, side)

    # ----- cube ---------------------------------------------------------------------------------
    def cube_action(
        self, state, score=None, match_length: int | None = None, ply: int | None = None, crawford: bool | None = None
    ) -> CubeDecision:
        """Cube decision for a game in progress: :func:`~nardy.flow.cubetheory.cube_decision` fed with this
        bot's evaluations (its rules' scoring values).

        Args:
            state: a :class:`~nardy.flow.cubetheory.CubeState`, anything with a ``cube_state()`` method (a
                :class:`nardy.flow.game.Game`, whose score is that of money play unless ``score``/``match_length``
                are given; a :class:`nardy.flow.match.Match`: its current game, score, length and Crawford
                state), or a :class:`~nardy.rules.position.Position` (side on roll to decide, centred cube at 1,
                money).
            score: ``(player 0, player 1)`` match score, with ``match_length`` (0 or None = money); they
                override the state's.
            ply: evaluation depth of the cubeless probabilities the cube formula is fed (default: the level's
                search depth capped at :data:`CUBE_MAX_PLY`: 0 advanced, 1 expert, 2 grandmaster and champion;
                0 for the non-net levels; champion decides close calls again at :data:`CUBE_CLOSE_PLY`, see
                :data:`CUBE_CLOSE_MARGIN`). Judged by
                bgsage 3-ply (bench/cube_vs_bgsage.py), 2-ply probabilities err less than 1-ply ones in
                money doubles (docs/bots.md, "Cube decisions").
            crawford: override the Crawford flag.
        Returns:
            A :class:`~nardy.flow.cubetheory.CubeDecision`: ``double`` (should the player on roll double),
            ``take`` (should the opponent take), and ``action`` for whoever must act now: ``"double"`` /
            ``"no double"`` before the roll, ``"take"`` / ``"pass"`` when a double waits for an answer.
            When the cube cannot be used, ``double`` is False and ``reason`` says why.
        Raises:
            TypeError: ``state`` is none of these; ValueError: a match with no game in progress, or another
                game's position.
        """
        depth = min(self.ply or 0, CUBE_MAX_PLY) if ply is None else ply

        def decide(d: int) -> CubeDecision:
            return cube_decision(
                lambda position: self.evaluate(position, ply=d),
                state,
                score=score,
                match_length=match_length,
                crawford=crawford,
                scoring=self.rules.scoring,
            )

        out = decide(depth)
        if ply is None and (self.ply or 0) >= CUBE_CLOSE_PLY and _close(out):
            out = decide(CUBE_CLOSE_PLY)
        return out


def _close(d: CubeDecision) -> bool:
    """Whether a cube decision is close enough to be decided again deeper (:data:`CUBE_CLOSE_MARGIN`): the
    doubler's margin, or with a double at least close the take margin, is small (cube available only)."""
    if d.reason or d.margins is None:
        return False
    g, t = d.margins
    m = CUBE_CLOSE_MARGIN
    return abs(g) < m or (g > -m and abs(t) < m)


def bot_player(rules, level: str, seed: int | None) -> Bot:
    """The computer player of a table (a :data:`nardy.flow.players.ComputerPlayers` factory): a :class:`Bot` of
    ``rules`` at ``level`` with ``seed``."""
    return Bot(rules, level=level, seed=seed)


class RandomBot(Bot):
    """``Bot(game, level="random")``: uniformly random legal plays (seedable)."""

    def __init__(self, game="backgammon", seed=None):
        super().__init__(game, level="random", seed=seed)


class HeuristicBot(Bot):
    """``Bot(game, level="heuristic")``: the simple hand-made scoring of
    :func:`nardy.engine._kernels.heuristic_score`."""

    def __init__(self, game="backgammon", seed=None):
        super().__init__(game, level="heuristic", seed=seed)

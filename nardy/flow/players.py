"""What a game asks of a player that is not a person: the :class:`Player` protocol, and the rule for answering a
resignation from cubeless probabilities.

A :class:`~nardy.flow.table.Table` runs the computer's side through a :data:`ComputerPlayers` factory its caller
gives it (the terminal and the web pass :func:`nardy.flow.bot.bot_player`); :meth:`nardy.flow.game.Game.play_turn`
takes a :class:`Player` for a whole turn. :class:`nardy.flow.bot.Bot` is the library's player.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..rules.errors import GameStateError
from ..rules.position import Play, Position
from .events import Phase

if TYPE_CHECKING:  # the engine is loaded by whoever evaluates: a game alone does not load it
    from ..engine.evaluator import Probabilities

__all__ = ["Player", "ComputerPlayers", "accepts_resignation", "play_turn"]


@runtime_checkable
class Player(Protocol):
    """A player of games: chooses a play for a roll, decides cube actions, answers a resignation.

    * ``choose_play(position, dice, deadline=None)``: one of ``position.legal_plays(dice)`` (the player is the
      mover of ``position``; ``deadline``: a :class:`~nardy.engine.search.Deadline` bounding its search);
    * ``cube_action(state)``: an object with ``double`` (the side on roll should double) and ``take`` (its
      opponent should take), for ``state`` a :class:`~nardy.flow.cubetheory.CubeState`, a game or a match
      (:class:`~nardy.flow.cubetheory.CubeDecision`);
    * ``accepts_resignation(game, side)``: whether ``side`` accepts the resignation waiting in ``game``.
    """

    def choose_play(self, position: Position, dice, deadline=None) -> Play: ...

    def cube_action(self, state) -> Any: ...

    def accepts_resignation(self, game, side: int) -> bool: ...


#: ``factory(rules, level, seed)`` -> the :class:`Player` of the computer's next decision at a table: ``rules``
#: the match's :class:`~nardy.rules.variants.Rules`, ``level`` a level of :data:`nardy.engine.bot.BOT_LEVELS`,
#: ``seed`` an int (or ``None``: fresh randomness) the table derives from its own seed and the place in the match.
ComputerPlayers = Callable[[Any, str, "int | None"], Player]


def accepts_resignation(evaluate: Callable[[Position], Probabilities], game, side: int) -> bool:
    """Whether ``side`` (0 or 1) accepts the resignation waiting in ``game`` (a
    :class:`~nardy.flow.game.Game` in phase ``resign``): when it is worth at least ``side``'s cubeless equity by
    the game's scoring values. ``evaluate(position)`` gives the probabilities of the side on roll of
    ``position``."""
    _, level = game.resignation
    probs = evaluate(game.position)
    if game.turn != side:
        probs = probs.flipped()
    scoring = game.rules.scoring
    return scoring[level] >= probs.equity(scoring) - 1e-9


def play_turn(game, bot, match=None) -> list[tuple[str, object]]:
    """Let ``bot`` act in ``game`` for the player who must act now until the other must act or the game is over:
    :meth:`nardy.flow.game.Game.play_turn` (see there for what is done, returned and raised)."""
    if game.phase == Phase.OVER:
        raise GameStateError("the game is over", code="game_over")
    if game.phase == Phase.OPENING:
        game.start()
        return [("start", None)]
    state = match if match is not None else game
    side = game.to_act
    done: list[tuple[str, object]] = []
    if game.phase == Phase.DOUBLE:
        if bot.cube_action(state).take:
            done.append(("take", game.take()))
        else:
            done.append(("drop", game.drop()))
        return done
    if game.phase == Phase.RESIGN:
        answer = getattr(bot, "accepts_resignation", None)  # a bot of before the Player protocol: evaluate
        if answer(game, side) if answer is not None else accepts_resignation(bot.evaluate, game, side):
            done.append(("accept", game.accept_resignation()))
        else:
            game.decline_resignation()
            done.append(("decline", None))
        return done
    if game.phase == Phase.ROLL:
        if game.may_double and bot.cube_action(state).double:
            done.append(("double", game.double()))
            return done
        done.append(("roll", game.roll()))
    if game.phase == Phase.MOVE and game.turn == side:
        done.append(("play", game.play(bot.choose_play(game.position, game.dice))))
    return done

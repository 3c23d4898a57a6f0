"""Matches and money sessions (docs/rules.md "Doubling cube and matches", seed 004).

A :class:`Match` is a series of :class:`~nardy.flow.game.Game` objects of one game (backgammon, short or
long nardy) sharing one dice source:

* played to ``length`` points, or, with ``length=0``, an unlimited money session;
* the running :attr:`Match.score` is the sum of the finished games' results (each game is scored
  once: a game's result can be set only once, see :class:`~nardy.flow.game.Game`);
* the Crawford rule (option ``crawford``, on by default): in the first game after either player
  reaches ``length - 1`` nobody may double; later (post-Crawford) games allow doubling again;
* money-play options: ``jacoby`` (gammons/mars count only with a turned cube), ``beavers`` and a
  ``cube_limit`` (which also applies to matches);
* :meth:`Match.match_id` gives GNU Backgammon's Match ID of the current state (:mod:`nardy.rules.ids`).

Player 0 is White (the first player listed, the left column of a ``.mat`` record), player 1 Black.
"""

from __future__ import annotations

import dataclasses
import logging

from ..rules.dice import DiceSource, dice_from_dict
from ..rules.errors import UNEXPECTED_LOAD_ERRORS, GameStateError, InvalidOptionError
from ..rules.position import Position
from ..rules.variants import Rules, get_rules
from .game import Game
from .saved import Checker, check_match_dict, trusted_match_dict

log = logging.getLogger("nardy")

__all__ = ["Match"]


class Match:
    """A match to ``length`` points or a money session (``length=0``).

    Args:
        rules_or_name: a :class:`~nardy.rules.Rules` or a game name/alias.
        length: points needed to win; 0 for money play (no end).
        dice: a dice source shared by all games (default: a fresh ``DiceSource()``).
        jacoby, beavers: money-play options (refused with a match length).
        cube_limit: the largest cube value allowed, or ``None``.
        crawford: apply the Crawford rule in a match (default on).
        cube: use the doubling cube; ``None`` takes the rules' ``cube`` option.
        players: the two players' names.
        start_score: ``(player 0, player 1)`` points the match resumes at (a record of a match whose
            first games are not in it); :attr:`score` counts from there. Each below ``length`` in a match.
        start_post_crawford: the Crawford game was played before the match resumed (with a player at
            ``length - 1`` in ``start_score``: the first game is then not the Crawford game).
        **options: rules options (docs/rules.md names), applied to ``rules_or_name``.
    Raises:
        InvalidOptionError: bad length, money options in a match, bad rules options, a bad start score.
    """

    def __init__(
        self,
        rules_or_name="backgammon",
        length: int = 0,
        dice=None,
        *,
        jacoby: bool = False,
        beavers: bool = False,
        cube_limit: int | None = None,
        crawford: bool = True,
        cube: bool | None = None,
        players=("White", "Black"),
        start_score=(0, 0),
        start_post_crawford: bool = False,
        **options,
    ):
        self.rules: Rules = get_rules(rules_or_name, **options)
        if isinstance(length, bool) or not isinstance(length, int) or length < 0:
            raise InvalidOptionError(f"match length {length!r}: expected 0 (money) or a positive number of points")
        if length and (jacoby or beavers):
            raise InvalidOptionError("Jacoby and beavers are money-play options (match length 0)")
        self.length = length
        self.dice_source = dice if dice is not None else DiceSource()
        self.jacoby = bool(jacoby)
        self.beavers = bool(beavers)
        self.cube_limit = cube_limit
        self.crawford_rule = bool(crawford)
        self.cube = self.rules.cube if cube is None else bool(cube)
        self.players = tuple(players)
        if len(self.players) != 2:
            raise InvalidOptionError(f"players {players!r}: expected two names")
        self.start_score: tuple = _check_start_score(start_score, length)
        self.start_post_crawford = bool(start_post_crawford) and bool(length) and (length - 1) in self.start_score
        self.games: list[Game] = []
        self._crawford_flags: list[bool] = []
        #: what a record's import read that is not the standard format (nardy.records.mat.RecordWarning),
        #: set by nardy.records.mat.replay; empty otherwise (not saved by to_dict).
        self.warnings: list = []

    # ----- score --------------------------------------------------------------------------------
    @property
    def is_money(self) -> bool:
        return self.length == 0

    @property
    def score(self) -> tuple:
        """``(player 0, player 1)`` points from the finished games."""
        return self.score_before(len(self.games))

    def score_before(self, index: int) -> tuple:
        """The score before game ``index`` (0-based) was played (from :attr:`start_score`)."""
        s0, s1 = self.start_score
        for g in self.games[:index]:
            if g.result is not None:
                a, b = g.result.score()
                s0 += a
                s1 += b
        return (s0, s1)

    @property
    def is_over(self) -> bool:
        """True when a player has reached the match length (never in money play)."""
        return bool(self.length) and max(self.score) >= self.length

    @property
    def winner(self) -> int | None:
        """The match winner (0/1), or ``None`` while the match goes on (and in money play)."""
        if not self.is_over:
            return None
        s0, s1 = self.score
        if s0 == s1:
            return None
        return 0 if s0 > s1 else 1

    @property
    def current(self) -> Game | None:
        """The last game (in progress or finished), or ``None`` before the first."""
        return self.games[-1] if self.games else None

    def cube_state(self):
        """The current game's :meth:`~nardy.flow.game.Game.cube_state` with the match's score before it, its
        length and its Crawford state.

        Raises:
            GameStateError: no game in progress."""
        g = self.current
        if g is None:
            raise GameStateError("the match has no game in progress", code="no_game")
        return dataclasses.replace(
            g.cube_state(), score=self.score_before(len(self.games) - 1), length=self.length, crawford=self.crawford
        )

    def is_crawford_game(self) -> bool:
        """Whether the next game would be the Crawford game: the first game started with a player at
        ``length - 1`` (and nobody at ``length``)."""
        if not self.length or not self.crawford_rule:
            return False
        score = self.score
        return (
            (self.length - 1) in score
            and max(score) < self.length
            and not self.start_post_crawford
            and not any((self.length - 1) in self.score_before(i) for i in range(len(self.games)))
        )

    @property
    def crawford(self) -> bool:
        """True when the current game is the Crawford game (nobody may double)."""
        return bool(self._crawford_flags and self._crawford_flags[-1])

    @property
    def post_crawford(self) -> bool:
        """True once the Crawford game has been played (later games allow doubling again)."""
        return any(self._crawford_flags) and not self._crawford_flags[-1]

    # ----- games --------------------------------------------------------------------------------
    def new_game(self, start: bool = False) -> Game:
        """Begin the next game (phase ``opening``; ``start=True`` also plays the opening).

        Raises GameStateError: the current game is not over, or the match is over.
        """
        kwargs = self._next_game()
        g = Game(self.rules, **kwargs)
        self.games.append(g)
        self._crawford_flags.append(kwargs["crawford"])
        if start:
            g.start()
        return g

    def new_game_from(
        self, position, turn: int = 0, dice=None, *, cube_value: int = 1, cube_owner: int | None = None
    ) -> Game:
        """Begin the next game at a set-up ``position`` (from the view of ``turn``, who is to roll), with
        the cube at ``cube_value`` owned by ``cube_owner`` (``None`` centred), and ``dice`` (the roll to play,
        or ``None``: ``turn`` rolls). The game's history begins with its set-up (:meth:`Game.from_position`),
        so it is saved and read back like any other; the match's score, Crawford flag and options apply.

        Raises:
            GameStateError: the current game is not over, the match is over, the position is over, or
                ``turn`` is not 0/1.
            InvalidOptionError: a cube that is not one (or set up in a game without the cube, or in the
                Crawford game); InvalidDiceError: bad dice.
        """
        if position.game != self.rules.name:
            raise InvalidOptionError(f"a {position.game} position for a {self.rules.name} match")
        # the same board under the match's rules (its options)
        position = Position.from_boards(position.mover, position.opponent, self.rules, first_turn=position.first_turn)
        kwargs = self._next_game()
        g = Game.from_position(position, turn, cube_value=cube_value, cube_owner=cube_owner, **kwargs)
        if dice is not None:
            g.roll(dice=dice, player=turn)
        self.games.append(g)
        self._crawford_flags.append(kwargs["crawford"])
        return g

    def _next_game(self) -> dict:
        """The settings of the next game (:class:`Game`'s arguments but the rules), once it may begin.

        Raises GameStateError: the current game is not over, or the match is over."""
        if self.games and not self.games[-1].is_over:
            raise GameStateError(f"game {len(self.games)} is still in progress")
        if self.is_over:
            raise GameStateError(
                f"the match is over: {self.players[self.winner]} won {self.score[0]}-{self.score[1]}"
                if self.winner is not None
                else "the match is over"
            )
        return dict(
            dice=self.dice_source,
            cube=self.cube,
            crawford=self.is_crawford_game(),
            jacoby=self.jacoby and self.is_money,
            beavers=self.beavers and self.is_money,
            cube_limit=self.cube_limit,
            players=self.players,
        )

    # ----- IDs and persistence ------------------------------------------------------------------
    def match_state(self):
        """The current state as a :class:`nardy.rules.ids.MatchState` (GNU Backgammon Match ID fields)."""
        from ..rules.ids import MatchState

        g = self.current

        def capped(sc) -> tuple[int, int]:  # a score for the Match ID: capped at the match length
            s0, s1 = (int(s) for s in sc)
            return (min(s0, self.length), min(s1, self.length)) if self.length else (s0, s1)

        score = capped(self.score_before(len(self.games) - 1 if g is not None else 0))
        if g is None or g.phase == "opening":
            return MatchState(
                cube_value=1,
                cube_owner=-1,
                player_on_roll=0,
                crawford=self.is_crawford_game(),
                game_state=0,
                turn=0,
                match_length=self.length,
                score=capped(self.score),
                no_jacoby=not self.jacoby,
            )
        if g.is_over:
            r = g.result
            state = {"bear-off": 2, "draw": 2, "resign": 3, "drop": 4}[r.reason]
        else:
            state = 1
        resign = 0
        if g.resignation is not None:
            resign = min(g.resignation[1] + 1, 3)
        turn = g.to_act if g.to_act is not None else g.turn
        return MatchState(
            cube_value=g.cube_value,
            cube_owner=-1 if g.cube_owner is None else g.cube_owner,
            player_on_roll=g.turn,
            crawford=g.crawford,
            game_state=state,
            turn=turn,
            double_offered=g.phase == "double",
            resignation=resign,
            dice=g.dice if (g.dice and g.phase in ("move", "resign")) else (0, 0),
            match_length=self.length,
            score=score,
            no_jacoby=not self.jacoby,
        )

    def match_id(self) -> str:
        """GNU Backgammon Match ID (12 characters) of the current state (backgammon fields; for the
        nardy games the same fields are filled, resignation levels above 3 are written as 3)."""
        from ..rules.ids import match_id_from_state

        return match_id_from_state(self.match_state())

    def to_dict(self) -> dict:
        """The match as JSON-able data; :meth:`from_dict` resumes it exactly (score, every game,
        the game in progress with its dice source state)."""
        return {
            "version": 1,
            "rules": {"name": self.rules.name, **self.rules.options()},
            "length": self.length,
            "jacoby": self.jacoby,
            "beavers": self.beavers,
            "cube_limit": self.cube_limit,
            "crawford": self.crawford_rule,
            "cube": self.cube,
            "players": list(self.players),
            **({"start_score": list(self.start_score)} if any(self.start_score) else {}),
            **({"start_post_crawford": True} if self.start_post_crawford else {}),
            "dice_source": self.dice_source.to_dict() if hasattr(self.dice_source, "to_dict") else None,
            "games": [g.to_dict() for g in self.games],
        }

    @classmethod
    def from_dict(cls, d: dict, dice=None, *, check: bool = True) -> Match:
        """Rebuild a match saved with :meth:`to_dict` (``dice`` replaces the saved dice source; ``check=False``:
        data this program wrote itself, built without the checks, :func:`nardy.flow.saved.trusted_match_dict`).

        The data is checked whole first: the match's own fields by type and range, each game as
        :meth:`Game.from_dict` checks it, and across the games: the match's rules and players, every
        game but the last finished, none begun after the match was won, the Crawford flags as
        :meth:`new_game` sets them.

        Raises:
            GameStateError: not a saved match, or not one played by the rules; the message names the
                field (``games[2].state.turn``) and quotes the value.
        """
        c = Checker("match")
        try:
            ok = check_match_dict(d, c) if check else trusted_match_dict(d)
            src = dice if dice is not None else (dice_from_dict(ok["dice_source"]) if ok["dice_source"] else None)
            m = cls(
                ok["rules"],
                length=ok["length"],
                dice=src,
                jacoby=ok["jacoby"],
                beavers=ok["beavers"],
                cube_limit=ok["cube_limit"],
                crawford=ok["crawford"],
                cube=ok["cube"],
                players=ok["players"],
                start_score=ok["start_score"],
                start_post_crawford=ok["start_post_crawford"],
            )
            score = list(m.start_score)
            earlier_at_match_point = m.start_post_crawford
            for k, gd in enumerate(ok["games"]):
                f = f"games[{k}]"
                if k and not m.games[-1].is_over:
                    c.fail_plain(f"games[{k - 1}].state.phase", "only the last game of a match may be unfinished")
                if m.length and max(score) >= m.length:
                    c.fail_plain(f, f"the match was already over at {score[0]}-{score[1]}")
                g = Game._from_saved(gd, m.dice_source, Checker("match", f + "."), check)
                if g.rules != m.rules:
                    c.fail(f"{f}.rules", gd["rules"], f"the match is {m.rules.name} with options {m.rules.options()}")
                if g.players != m.players:
                    c.fail(f"{f}.players", gd["players"], f"the match's players are {list(m.players)}")
                at_mp = bool(m.length) and (m.length - 1) in score
                crawford = m.crawford_rule and at_mp and max(score) < m.length and not earlier_at_match_point
                if g.crawford != crawford:
                    c.fail(
                        f"{f}.state.crawford",
                        g.crawford,
                        f"the match makes this game {'the' if crawford else 'not the'} Crawford game",
                    )
                earlier_at_match_point = earlier_at_match_point or at_mp
                m.games.append(g)
                m._crawford_flags.append(g.crawford)
                if g.result is not None:
                    a, b = g.result.score()
                    score = [score[0] + a, score[1] + b]
        except GameStateError:
            raise
        except UNEXPECTED_LOAD_ERRORS as e:  # not expected after the checks: a last safety net
            # the exception's text could name internals: it goes to the log, not into the message
            log.warning("saved data passed the checks but failed to load: %r", e)
            raise GameStateError("not a saved match: inconsistent data") from None
        return m

    def __repr__(self):
        kind = f"{self.length}-point match" if self.length else "money session"
        return f"<Match {self.rules.name} {kind} score={self.score} games={len(self.games)}>"


def _check_start_score(score, length: int) -> tuple:
    """``score`` as a pair of whole numbers from 0, each below ``length`` in a match (0x7FFF at most, what a
    Match ID holds). Raises InvalidOptionError otherwise."""
    ok = isinstance(score, (tuple, list)) and len(score) == 2
    ok = ok and all(not isinstance(v, bool) and isinstance(v, int) and 0 <= v <= 0x7FFF for v in score)
    if not ok or (length and max(score) >= length):
        limit = f"below the match length {length}" if length else "from 0"
        raise InvalidOptionError(f"start score {score!r}: expected two whole numbers {limit}")
    return (int(score[0]), int(score[1]))

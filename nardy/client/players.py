"""Players of a bot client: the action a bot sends for a game view (``GET /api/games/{id}``, the game stream).

A *player* is anything with ``decide(view) -> dict | None``: the body of ``POST /api/games/{id}/actions``
(``{"action": "roll", "seq": 12}``, ``{"action": "play", "play": "24/18 13/11", "seq": 13}``...) when one of
the view's ``you`` sides must act now, else ``None``. :class:`EnginePlayer` decides with nardy's own engine
(:class:`nardy.flow.bot.Bot`, the computer seat of the web server at the same level);
:class:`nardy.client.external.ExternalPlayer` asks a GNU Backgammon external player.

What a view asks (docs/rules.md rules 7 and 8, the cube's "Doubling cube and matches"):

* ``actions`` has ``next``: the game is over and the next one waits to be started;
* phase ``roll``: roll, or ``double`` when ``actions`` offers it and the bot would;
* phase ``double``: ``take`` or ``drop``;
* phase ``resign``: ``accept`` (the resignation is worth at least the bot's cubeless equity) or ``decline``;
* phase ``move``: ``play``, the whole play in the mover's own numbering.

The position is read from the view's ``position_id`` (the side on turn's view, before this turn's steps).
"""

from __future__ import annotations

from typing import Any

from ..engine.search import Deadline
from ..flow.bot import Bot
from ..flow.cubetheory import CubeState
from ..rules.position import Position

__all__ = ["EnginePlayer", "ViewState", "read_view"]


class ViewState:
    """What a decision needs from a game view (a dict of ``GET /api/games/{id}``): the game, the position from
    the view of the side on turn, who is on turn and who acts, dice, cube, score, match length, Crawford.

    Attributes:
        game: ``"backgammon"``, ``"short"`` or ``"long"``; position: :class:`Position` (side on turn's view).
        turn: the side on turn (0 White, 1 Black); me: the side this view acts for (``to_act``).
        phase, actions, seq: the view's; dice: ``(d1, d2)`` or ``None``.
        cube_value, cube_owner (``None`` centred, else the side), cube_enabled; score: ``(side 0, side 1)``;
        length: match length (0 money); crawford: the Crawford game.
        resignation: ``(side, level)`` of a waiting resignation, or ``None``; scoring: points per result level.
    """

    def __init__(self, view: dict):
        self.game = view["game"]
        self.phase = str(view["phase"])
        self.actions = list(view.get("actions") or [])
        self.seq = int(view["seq"])
        self.turn = view.get("turn")
        self.me = view.get("to_act")
        self.position = Position.from_id(view["position_id"], self.game)
        dice = view.get("dice")
        self.dice = (int(dice[0]), int(dice[1])) if dice else None
        cube = view.get("cube") or {}
        self.cube_value = int(cube.get("value", 1))
        self.cube_owner = cube.get("owner")
        self.cube_enabled = bool(cube.get("enabled", True))
        self.score = tuple(view.get("score") or (0, 0))
        self.length = int(view.get("length") or 0)
        self.crawford = bool(view.get("crawford"))
        res = view.get("resignation")
        self.resignation = (int(res["player"]), int(res["level"])) if res else None
        self.scoring = list((view.get("rules") or {}).get("scoring") or [1, 2, 3])

    def cube_state(self) -> CubeState:
        """The :class:`~nardy.flow.cubetheory.CubeState` of a roll or double phase (from the side on turn)."""
        return CubeState(
            self.position,
            turn=int(self.turn or 0),
            cube_value=self.cube_value,
            cube_owner=self.cube_owner,
            enabled=self.cube_enabled,
            phase="double" if self.phase == "double" else "roll",
            crawford=self.crawford,
            score=(int(self.score[0]), int(self.score[1])),
            length=self.length,
        )


def read_view(view: dict) -> ViewState | None:
    """The :class:`ViewState` of ``view`` when one of its ``you`` sides must act now (``human_to_act``), else
    ``None`` (the opponent's turn, a finished match, a seat still empty, a watcher's view).

    Raises:
        KeyError, ValueError, InvalidIdError: not a game view of this server."""
    if view.get("status") != "playing" or not view.get("human_to_act"):
        return None
    if view.get("to_act") not in (view.get("you") or []):
        return None
    return ViewState(view)


def next_game(view: dict) -> dict | None:
    """``{"action": "next", "seq"}`` when the view's game is over and the next one waits to be started by a
    player (servers that start it themselves never offer it)."""
    if "next" in (view.get("actions") or []) and view.get("you"):
        return {"action": "next", "seq": int(view["seq"])}
    return None


class EnginePlayer:
    """nardy's engine as a bot client's player (:meth:`decide`).

    Args:
        level: a :data:`~nardy.engine.bot.BOT_LEVELS` level (``"advanced"``, ``"expert"``...).
        game: the game it plays (``"backgammon"``, ``"short"``, ``"long"``); ``None``: each view's.
        seed: the bot's seed (its noise at the weak levels).
        think: seconds one play's search may take at most (then its best so far); ``None``: no bound.
    """

    def __init__(
        self, level: str = "expert", game: str | None = None, seed: int | None = None, think: float | None = 20.0
    ):
        self.level, self.game, self.seed, self.think = level, game, seed, think
        self._bots: dict[str, Bot] = {}

    def bot(self, game: str) -> Bot:
        """The :class:`~nardy.flow.bot.Bot` of ``game`` (made once)."""
        if game not in self._bots:
            self._bots[game] = Bot(game, level=self.level, seed=self.seed)
        return self._bots[game]

    def decide(self, view: dict) -> dict | None:
        """The action body for ``view`` (see the module's description), or ``None`` when nothing is ours to do.

        Raises:
            ValueError: the view is of another game than this player's ``game``; the engine's errors for a
            view that is not a position of its game."""
        nxt = next_game(view)
        if nxt is not None:
            return nxt
        st = read_view(view)
        if st is None:
            return None
        if self.game is not None and st.game != self.game:
            raise ValueError(f"this player plays {self.game}, the game is {st.game}")
        return self.decide_state(st)

    def decide_state(self, st: ViewState) -> dict[str, Any]:
        """The action body for a :class:`ViewState` whose side must act."""
        bot = self.bot(st.game)
        seq = st.seq
        if st.phase == "move":
            if st.dice is None:
                raise ValueError("a move phase without dice")
            deadline = Deadline(self.think) if self.think else None
            play = bot.choose_play(st.position, st.dice, deadline=deadline)
            return {"action": "play", "play": play.notation("own"), "seq": seq}
        if st.phase == "double":
            take = bot.cube_action(st.cube_state()).take
            return {"action": "take" if take else "drop", "seq": seq}
        if st.phase == "resign":
            return {"action": "accept" if self.accepts(st) else "decline", "seq": seq}
        if st.phase == "roll":
            if "double" in st.actions and bot.cube_action(st.cube_state()).double:
                return {"action": "double", "seq": seq}
            return {"action": "roll", "seq": seq}
        raise ValueError(f"nothing to decide in phase {st.phase!r}")

    def accepts(self, st: ViewState) -> bool:
        """Whether the bot accepts the waiting resignation: it is worth at least the bot's cubeless equity
        (:func:`nardy.flow.players.accepts_resignation`'s rule, by the game's scoring values)."""
        if st.resignation is None:
            return False
        _, level = st.resignation
        probs = self.bot(st.game).evaluate(st.position)
        if st.turn != st.me:
            probs = probs.flipped()
        scoring = st.scoring
        return scoring[min(level, len(scoring) - 1)] >= probs.equity(scoring) - 1e-9

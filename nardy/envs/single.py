"""A Gymnasium environment: the agent plays one side of a game against a nardy computer player.

Needs the ``rl`` extra (``pip install nardy[rl]``). Action, observation and reward are described in
:mod:`nardy.envs.common`; in short: ``Discrete(MAX_ACTIONS)``, an index into the sorted legal plays of
the roll, with ``info["action_mask"]`` (int8, 1 = legal); a float32 board from the agent's view plus the
dice; reward +/- the points of the game at its end (cube left out).

Example::

    >>> import numpy as np
    >>> from nardy.envs import NardyEnv
    >>> env = NardyEnv("long", opponent="random")
    >>> obs, info = env.reset(seed=1)
    >>> int(info["action_mask"].sum()) == len(env.legal_plays())
    True

``import nardy.envs`` registers ``nardy/Backgammon-v0``, ``nardy/Short-v0`` and ``nardy/Long-v0`` with
Gymnasium (``gymnasium.make("nardy/Long-v0", opponent="expert")``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from .common import MAX_ACTIONS, OBS_HIGH, OBS_LEN, NardyMatchup

__all__ = ["NardyEnv"]


class NardyEnv(gymnasium.Env):
    """One game of ``game`` per episode; the agent plays ``agent_side``, the computer the other side.

    Args:
        game: ``"backgammon"``, ``"short"`` or ``"long"`` (any alias).
        opponent: the computer's level (:data:`nardy.engine.BOT_LEVELS`: ``random`` ... ``grandmaster``;
            default ``heuristic``, fast and not random).
        agent_side: 0 (White) or 1 (Black); ``None`` draws the side at each reset from the env's seeded
            generator. Who moves first is decided by the opening roll, as in a real game.
        options: rules options (docs/rules.md names, e.g. ``{"last-roll": "half"}``); the cube is off.
        render_mode: ``None`` or ``"ansi"`` (:meth:`render` returns a text board).
        illegal_action: what an action outside the mask does: ``"lose"`` (the default, as PettingZoo's
            ``TerminateIllegalWrapper``: the episode ends at once with the reward of the worst loss of
            the game, ``-max(scoring)``: -3 backgammon, -8 short nardy, -2 long nardy, and
            ``info["illegal_action"]`` True) or ``"raise"`` (IllegalPlayError, nothing changes).

    Episode: :meth:`reset` starts a game and plays the computer's turns until the agent has a roll to play
    (rolls are made for both sides; a roll that cannot be played passes by itself). :meth:`step` plays the
    agent's chosen play, then the computer's turns, until the agent's next roll or the end of the game
    (``terminated``; never ``truncated``: every game ends). ``info``: ``action_mask``, ``dice``, ``position``
    (Position ID, agent's view) and, at the end, ``result`` (:meth:`nardy.flow.game.GameResult.to_dict`);
    :meth:`legal_plays` gives the plays' notation in action order.

    ``reset(seed=s)`` makes the episode reproducible: the dice, the computer's choices (weak levels add
    seeded noise) and the side drawn all derive from ``s``.

    Raises:
        UnknownGameError / InvalidOptionError: an unknown game, option, level or side;
        IllegalPlayError (from :meth:`step`, with ``illegal_action="raise"``): an action whose mask
        entry is 0.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        game: str = "backgammon",
        opponent: str = "heuristic",
        agent_side: int | None = 0,
        options: dict | None = None,
        render_mode: str | None = None,
        illegal_action: str = "lose",
    ):
        from ..rules.errors import InvalidOptionError

        self._m = NardyMatchup(game, options)
        if agent_side not in (0, 1, None):
            raise InvalidOptionError(f"agent_side {agent_side!r}: expected 0 (White), 1 (Black) or None")
        if render_mode not in (None, "ansi"):
            raise InvalidOptionError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        if illegal_action not in ("lose", "raise"):
            raise InvalidOptionError(f"illegal_action {illegal_action!r}: expected 'lose' or 'raise'")
        self.illegal_action = illegal_action
        self._m.bot(opponent, 0)  # checks the level
        self.game = self._m.rules.name
        self.opponent = opponent
        self.agent_side_option = agent_side
        self.agent_side = 0 if agent_side is None else agent_side
        self.render_mode = render_mode
        self.observation_space = spaces.Box(0.0, OBS_HIGH, shape=(OBS_LEN,), dtype=np.float32)
        self.action_space = spaces.Discrete(MAX_ACTIONS)
        self._bot = None
        self._illegal = False

    def _run_opponent(self) -> None:
        m = self._m
        while not m.over and m.turn != self.agent_side:
            m.play(m.bot_action(self._bot))

    def _info(self) -> dict[str, Any]:
        m = self._m
        g = m.game
        pos = g.position if g.turn == self.agent_side else g.position.mirror()
        info: dict[str, Any] = {
            "action_mask": m.mask(self.agent_side),
            "dice": tuple(g.dice) if not m.over else None,
            "position": pos.id(),
        }
        if m.over:
            info["result"] = g.result.to_dict()
        return info

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a new game (see the class docstring); returns ``(observation, info)``."""
        super().reset(seed=seed)
        self._illegal = False
        rng = self.np_random
        if self.agent_side_option is None:
            self.agent_side = int(rng.integers(2))
        self._bot = self._m.bot(self.opponent, int(rng.integers(2**63)))
        self._m.new_game(int(rng.integers(2**63)))
        self._run_opponent()
        return self._m.observe(self.agent_side), self._info()

    def step(self, action):
        """Play the legal play of index ``action``; returns ``(observation, reward, terminated, truncated,
        info)``, reward the agent's points at the end of the game (+ win, - loss), else 0."""
        m = self._m
        if m.game is None:
            from ..rules.errors import GameStateError

            raise GameStateError("call reset() before step()")
        if m.over or self._illegal:
            from ..rules.errors import GameStateError

            raise GameStateError("the game is over: call reset() to start another")
        if self.illegal_action == "lose" and not m.is_legal(action):
            self._illegal = True
            info = self._info()
            info["illegal_action"] = True
            return m.observe(self.agent_side), -float(max(m.rules.scoring)), True, False, info
        m.play(action)
        self._run_opponent()
        reward = m.points(self.agent_side) if m.over else 0.0
        return m.observe(self.agent_side), reward, m.over, False, self._info()

    def render(self):
        """``"ansi"``: the board as text (view of the side on turn) with the roll; ``None`` otherwise."""
        if self.render_mode == "ansi":
            return self._m.render()
        return None

    def legal_plays(self) -> list[str]:
        """The legal plays of the agent's roll in action order, in notation (the agent's own numbering)."""
        return self._m.notation()

    def action_masks(self) -> np.ndarray:
        """The current action mask (as ``info["action_mask"]``), for libraries that ask the env for it
        (sb3-contrib's ``MaskablePPO``)."""
        return self._m.mask(self.agent_side)

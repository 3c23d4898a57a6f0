"""A PettingZoo AEC environment: two agents, ``"player_0"`` (White) and ``"player_1"`` (Black), play one game.

Needs the ``rl`` extra (``pip install nardy[rl]``). As in PettingZoo's classic games, each agent's
observation is a dict ``{"observation": float32[OBS_LEN], "action_mask": int8[MAX_ACTIONS]}``: the board
from that agent's own view and the legal plays of the roll (all 0 for the agent not on turn); the action
is an index into the sorted legal plays (:mod:`nardy.envs.common`). Rolls are made by the environment (a
roll that cannot be played passes by itself), so ``agent_selection`` is always the side with a roll to
play. Rewards: at the end, +points to the winner and -points to the loser (1/2/3 backgammon, 1/2/4/8
short nardy, 1/2 long nardy; 0 each for a long nardy last-roll draw); the cube is left out.

Example::

    >>> from nardy.envs import aec_env
    >>> env = aec_env("short")
    >>> env.reset(seed=3)
    >>> obs, reward, terminated, truncated, info = env.last()
    >>> int(obs["action_mask"].sum()) >= 1
    True
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from .common import MAX_ACTIONS, OBS_HIGH, OBS_LEN, NardyMatchup

__all__ = ["NardyAECEnv", "env", "raw_env"]

#: The agents: ``player_0`` plays White (side 0), ``player_1`` Black (PettingZoo's naming).
AGENTS = ("player_0", "player_1")


class NardyAECEnv(AECEnv):
    """Two agents play ``game`` (see the module docstring).

    Args:
        game: ``"backgammon"``, ``"short"`` or ``"long"`` (any alias).
        options: rules options (docs/rules.md names); the cube is off.
        render_mode: ``None`` or ``"ansi"``.

    ``reset(seed=s)``: the game's dice derive from ``s`` (reproducible); ``infos[agent]`` holds, at the end,
    ``result`` (:meth:`nardy.flow.game.GameResult.to_dict`); :meth:`legal_plays` gives the notation of the plays
    of the agent on turn in action order.

    Raises:
        UnknownGameError / InvalidOptionError: an unknown game or option; IllegalPlayError (from
        :meth:`step`): an action whose mask entry is 0.
    """

    metadata = {"render_modes": ["ansi"], "name": "nardy_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: str = "backgammon", options: dict | None = None, render_mode: str | None = None):
        from ..rules.errors import InvalidOptionError

        super().__init__()
        if render_mode not in (None, "ansi"):
            raise InvalidOptionError(f"render_mode {render_mode!r}: expected None or 'ansi'")
        self._m = NardyMatchup(game, options)
        self.game = self._m.rules.name
        self.metadata = {**self.metadata, "name": f"nardy_{self.game}_v0"}
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, OBS_HIGH, shape=(OBS_LEN,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(MAX_ACTIONS,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(AGENTS, obs_space)
        self.action_spaces = {a: spaces.Discrete(MAX_ACTIONS) for a in AGENTS}
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def observe(self, agent) -> dict[str, np.ndarray]:
        side = AGENTS.index(agent)
        return {"observation": self._m.observe(side), "action_mask": self._m.mask(side)}

    def _infos(self) -> dict[str, dict[str, Any]]:
        m = self._m
        out: dict[str, dict[str, Any]] = {a: {} for a in AGENTS}
        if m.over:
            for a in AGENTS:
                out[a]["result"] = m.game.result.to_dict()
        return out

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        self._m.new_game(int(self._np_random.integers(2**63)))
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos = self._infos()
        self.agent_selection = AGENTS[self._m.turn]

    def step(self, action) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        m = self._m
        self._cumulative_rewards[self.agent_selection] = 0.0
        m.play(action)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        if m.over:
            for i, a in enumerate(AGENTS):
                self.rewards[a] = m.points(i)
                self.terminations[a] = True
        else:
            self.agent_selection = AGENTS[m.turn]
        self.infos = self._infos()
        self._accumulate_rewards()

    def legal_plays(self) -> list[str]:
        """The legal plays of ``agent_selection``'s roll in action order, in notation (its own numbering)."""
        return self._m.notation()

    def render(self):
        if self.render_mode == "ansi":
            return self._m.render()
        return None

    def close(self) -> None:
        pass


def raw_env(game: str = "backgammon", **kwargs) -> NardyAECEnv:
    """The environment without PettingZoo's wrappers."""
    return NardyAECEnv(game, **kwargs)


def env(game: str = "backgammon", **kwargs):
    """The environment wrapped as PettingZoo's classic games are: an action outside the mask ends the game
    with the worst loss of the game for its agent (``-max(scoring)``: -3 backgammon, -8 short nardy, -2
    long nardy; the unwrapped :func:`raw_env` raises IllegalPlayError instead), an action outside the space
    is refused, the order of calls is checked."""
    from pettingzoo.utils import wrappers

    e = raw_env(game, **kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-float(max(e._m.rules.scoring)))
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e

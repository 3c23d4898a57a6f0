"""Reinforcement-learning environments for the three games (the ``rl`` extra: Gymnasium, PettingZoo).

* :class:`NardyEnv` (:mod:`nardy.envs.single`): Gymnasium, the agent against a nardy computer player;
* :class:`NardyAECEnv` and :func:`aec_env` (:mod:`nardy.envs.aec`): PettingZoo AEC, two agents.

Actions, observations and rewards are the same in both (:mod:`nardy.envs.common`). The classes are
loaded on first use, so ``import nardy.envs`` works without the extra; using one without it raises
ImportError naming the extra. With Gymnasium installed, ``import nardy.envs`` registers
``nardy/Backgammon-v0``, ``nardy/Short-v0`` and ``nardy/Long-v0`` (``gymnasium.make("nardy/Long-v0")``).
"""

from __future__ import annotations

from .common import GAMES, MAX_ACTIONS, OBS_LEN, observation, sorted_plays

__all__ = ["NardyEnv", "NardyAECEnv", "aec_env", "MAX_ACTIONS", "OBS_LEN", "GAMES", "observation", "sorted_plays"]

_LAZY = {"NardyEnv": ("single", "NardyEnv"), "NardyAECEnv": ("aec", "NardyAECEnv"), "aec_env": ("aec", "env")}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attr = _LAZY[name]
    import importlib

    try:
        mod = importlib.import_module(f"{__name__}.{module}")
    except ImportError as e:
        raise ImportError(f"nardy.envs.{name} needs Gymnasium and PettingZoo: pip install 'nardy[rl]' ({e})") from e
    return getattr(mod, attr)


def _register_with_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:
        return
    for game, name in (("backgammon", "Backgammon"), ("short", "Short"), ("long", "Long")):
        env_id = f"nardy/{name}-v0"
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point="nardy.envs.single:NardyEnv", kwargs={"game": game})


_register_with_gymnasium()

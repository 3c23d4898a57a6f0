"""Collection settings of the whole test run (tests/ and the doctests under nardy/)."""

from __future__ import annotations

import importlib.util

#: Modules whose doctests need an optional extra: skipped when it is not installed (the ``rl`` extra:
#: Gymnasium and PettingZoo, for nardy.envs; tests/envs/test_envs.py skips itself with the reason).
collect_ignore_glob: list[str] = []


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


if not (_installed("gymnasium") and _installed("pettingzoo")):
    collect_ignore_glob += ["nardy/envs/single.py", "nardy/envs/aec.py"]

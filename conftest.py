"""Collection settings of the whole test run (tests/ and the doctests under nardy/)."""

from __future__ import annotations

import importlib.util
import os
import sys

import pytest

#: Modules whose doctests need an optional extra: skipped when it is not installed (the ``rl`` extra:
#: Gymnasium and PettingZoo, for nardy.envs; tests/test_envs.py skips itself with the reason).
collect_ignore_glob: list[str] = []


def _installed(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


if not (_installed("gymnasium") and _installed("pettingzoo")):
    collect_ignore_glob += ["nardy/envs/single.py", "nardy/envs/aec.py"]


_exit_status: list[int] = []


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _exit_status.append(int(exitstatus))


def pytest_unconfigure(config: pytest.Config) -> None:
    """End the test process with pytest's status once its report is written, skipping interpreter teardown.

    By then the run has loaded numba's OpenMP thread pool (the parallel rollout kernel) and Ray's client,
    and now and then their destructors abort the exiting process with "free(): invalid pointer" after every
    test has passed (2 runs in 5 of tests/bots + tests/analysis + tests/training on a 2-core machine),
    turning a green run red. Nothing a test checks happens after this point. Set NARDY_TEST_NORMAL_EXIT=1
    to exit the usual way (to look for that crash).
    """
    if _exit_status and not os.environ.get("NARDY_TEST_NORMAL_EXIT"):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(_exit_status[-1])

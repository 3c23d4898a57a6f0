"""RL environment throughput: steps per second of nardy.envs against a bare play loop, same process.

Usage: python bench/envs.py [--seconds 5] [--seed 1]

For each game, random legal plays for both sides:
  * reference: a bare loop over ``Position.legal_plays`` + ``random.choice`` + ``mirror()`` (no game object,
    no opening, no observation, no mask): what the rules cost alone;
  * ``NardyAECEnv`` (PettingZoo, unwrapped): one ``step`` per play, with the observation and mask of
    the agent to act read each step (``last()``), as a training loop does;
  * ``NardyEnv`` (Gymnasium, against ``opponent="random"``): agent steps per second (each also plays the
    opponent's turn).
Printed: plays per second and the ratio to the reference. Needs the rl extra.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nardy import Position  # noqa: E402
from nardy.envs.aec import NardyAECEnv  # noqa: E402
from nardy.envs.single import NardyEnv  # noqa: E402


def bare(game: str, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        pos = Position.start(game)
        while not pos.is_game_over():
            pos = rng.choice(pos.legal_plays((rng.randint(1, 6), rng.randint(1, 6)))).result.mirror()
            n += 1
    return n / (time.perf_counter() - t0)


def aec(game: str, seconds: float, seed: int) -> float:
    env = NardyAECEnv(game)
    rng = np.random.default_rng(seed)
    n, t0, k = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        env.reset(seed=seed + k)
        k += 1
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            n += 1
    return n / (time.perf_counter() - t0)


def gym(game: str, seconds: float, seed: int) -> float:
    env = NardyEnv(game, opponent="random")
    rng = np.random.default_rng(seed)
    n, t0, k = 0, time.perf_counter(), 0
    while time.perf_counter() - t0 < seconds:
        _, info = env.reset(seed=seed + k)
        k += 1
        done = False
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            n += 1
    return n / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    for game in ("backgammon", "short", "long"):
        bare(game, 0.5, a.seed)  # warm the compiled kernels
        ref = bare(game, a.seconds, a.seed)
        pz = aec(game, a.seconds, a.seed)
        gm = gym(game, a.seconds, a.seed)
        print(
            f"{game:<10}  bare loop {ref:8.0f} plays/s   AEC {pz:8.0f} plays/s ({pz / ref:.2f}x)   "
            f"Gymnasium {gm:8.0f} agent steps/s ({gm / ref:.2f}x)",
            flush=True,
        )


if __name__ == "__main__":
    main()

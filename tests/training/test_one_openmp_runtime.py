"""A process that fits a net and runs the rollouts' parallel kernel holds one OpenMP runtime, whichever comes
first (nardy.training.fit imports PyTorch after numba's OpenMP pool: see its ``_torch``)."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("torch")

SCRIPT = """
from nardy.training.fit import _torch
torch = _torch()
(torch.randn(64, 64) @ torch.randn(64, 64)).sum()
import numpy as np
from numba import njit, prange, threading_layer

@njit(parallel=True)
def f(n):
    s = np.zeros(n)
    for i in prange(n):
        s[i] = i
    return s.sum()

f(1000)
maps = {line.split()[-1] for line in open("/proc/self/maps") if "libgomp" in line}
print(threading_layer(), len(maps), sorted(maps))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_pytorch_first_then_the_parallel_kernel_share_one_openmp_runtime():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    layer, count, maps = out.stdout.split(" ", 2)
    if layer != "omp":
        pytest.skip(f"numba chose its {layer} threading layer: no OpenMP runtime of its own")
    assert count == "1", maps

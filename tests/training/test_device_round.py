"""The scripted round for a lent GPU machine (scripts/device/, docs/bots.md "A round on a GPU machine").

The round runs only where a GPU machine is lent, for minutes that must not be wasted on a broken script, so
the script itself is checked here in miniature (two workers, a few seconds of labels, one epoch on the CPU).
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts" / "device"


def test_the_round_downloads_the_bgsage_that_pyproject_pins():
    """prepare.sh fetches the bgsage wheel of the version the [train] extra pins (the teacher's labels
    must be the ones a run here would make)."""
    pin = re.search(r'"bgsage==([^"]+)"', (ROOT / "pyproject.toml").read_text()).group(1)
    script = (SCRIPTS / "prepare.sh").read_text()
    assert f"BGSAGE_VERSION={pin}\n" in script
    assert '"bgsage==${BGSAGE_VERSION}"' in script


@pytest.mark.slow
def test_the_round_labels_fits_and_leaves_a_net_the_bots_load_within_the_devices_file_limits(tmp_path):
    """A miniature round: every worker's labels are fitted, the net and its figures come back in $OUT in at
    most 8 files (what the device tool returns), and the net plays."""
    pytest.importorskip("torch", reason="the fit needs the [train] extra")
    pytest.importorskip("bgsage", reason="the labels need bgsage")
    from nardy import Bot, Position
    from nardy.engine.net import Net
    from nardy.training.jobs import load_dataset

    out, data = tmp_path / "out", tmp_path / "data"
    env = dict(os.environ, LABEL_SECONDS="60", WORKERS="2", ROOTS="25", SIBLINGS="2", EPOCHS="1")
    env.update(TEACHER="bgsage:1ply", DEVICE="cpu", OUT=str(out), DATA=str(data))
    run = subprocess.run(["bash", str(SCRIPTS / "bg_round.sh")], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    files = sorted(p.name for p in out.iterdir())
    assert files == ["backgammon-round.npz", "fit.json", "fit.log", "label.log", "labels.npz"]
    workers = [load_dataset(data / f"w{i}.npz") for i in (1, 2)]
    assert all(w["labelled"].all() for w in workers)
    back = load_dataset(out / "labels.npz")
    assert len(back["boards"]) == sum(len(w["boards"]) for w in workers)
    assert np.array_equal(back["targets"], np.concatenate([w["targets"] for w in workers]))
    net = Net.load(out / "backgammon-round.npz")
    assert net.game == "backgammon" and len(net.plans) == 5 and all(p is not None for p in net.plans)
    assert '"plan4"' in (out / "fit.json").read_text()
    bot = Bot("backgammon", level="advanced", seed=1, weights=str(out / "backgammon-round.npz"))
    start = Position.start("backgammon")
    assert bot.choose_play(start, (3, 1)) in start.legal_plays((3, 1))

"""Peak memory (resident set) of ``nardy analyse`` on a 13-point match against GNU Backgammon analysing the same
match (``gnubg -t``: ``import mat``, ``analyse match``), each in a process of its own, with two references: the
bare runtime nardy needs before any analysis (CPython, NumPy, numba: ``import nardy.analysis``) and gnubg that
only imports the match (its runtime, nets and bearoff database).

``python bench/analysis_memory.py [--level grandmaster] [--no-gnubg] [FILE]``; the default record is a 13-point
Backgammon Studio export from /work/shared/data/real-mat (the one issue 45 names). gnubg's analysis at its
default setting (2-ply) takes minutes: ``--no-gnubg`` skips it.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DEFAULT = Path("/work/shared/data/real-mat/td-gammon-human") / (
    "Cluedo - snarheim 13pt Backgammon Studio 2024_03_26 16_57_49_1711472580.txt"
)
_PEAK = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, "
    "stderr=subprocess.DEVNULL); print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
)


def peak_mb(cmd: list[str]) -> float:
    """Peak resident set (MB) of ``cmd`` run in a fresh process of its own (``RUSAGE_CHILDREN`` of a wrapper).

    Raises:
        RuntimeError: the command failed.
    """
    out = subprocess.run([sys.executable, "-c", _PEAK, *cmd], capture_output=True, text=True, check=True)
    rc, kb = out.stdout.split()
    if rc != "0":
        raise RuntimeError(f"{cmd[0]} exited {rc}")
    return int(kb) / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", nargs="?", default=str(DEFAULT))
    ap.add_argument("--level", default="grandmaster")
    ap.add_argument("--no-gnubg", action="store_true")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        mat = Path(tmp) / "match.mat"  # gnubg's import wants a plain path
        shutil.copyfile(args.file, mat)
        runtime = peak_mb([sys.executable, "-c", "import nardy.analysis, numba"])
        ours = peak_mb(
            [
                sys.executable,
                "-m",
                "nardy.cli",
                "analyse",
                "-q",
                "--level",
                args.level,
                str(mat),
                "--json",
                f"{tmp}/a.json",
            ]
        )
        print(f"{Path(args.file).name}")
        print(f"  nardy runtime (import nardy.analysis, numba)   {runtime:6.0f} MB")
        print(f"  nardy analyse --level {args.level:<12}            {ours:6.0f} MB  (adds {ours - runtime:.0f} MB)")
        gnubg = shutil.which("gnubg") or "/usr/games/gnubg"
        if args.no_gnubg or not Path(gnubg).exists():
            return 0
        cmds = Path(tmp) / "load.cmd"
        cmds.write_text(f"import mat {mat}\n")
        base = peak_mb([gnubg, "-t", "-q", "-c", str(cmds)])
        cmds.write_text(f"import mat {mat}\nanalyse match\n")
        theirs = peak_mb([gnubg, "-t", "-q", "-c", str(cmds)])
        print(f"  gnubg -t, the match imported                   {base:6.0f} MB")
        print(f"  gnubg -t, analyse match                        {theirs:6.0f} MB  (adds {theirs - base:.0f} MB)")
        print(f"  ratio nardy / gnubg: {ours / theirs:.2f}; runtime alone / gnubg: {runtime / theirs:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

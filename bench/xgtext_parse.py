"""How long does reading XG's text export take, for real exports and for hostile pasted text at the size
the web route accepts (``POST /api/positions/import``: 20,000 characters)? Prints the time of each text.

Hostile texts are built to make the line patterns backtrack (long runs of spaces, digits or tabs on a line
that starts like a candidate); lines are cut to ``nardy.records.xgtext.MAX_LINE`` characters before they are
read, which keeps each bounded.

``python bench/xgtext_parse.py --size 20000 --repeat 3``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def texts(size: int) -> dict[str, str]:
    from nardy.records.xgtext import MAX_LINE

    x = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10\n"
    line = MAX_LINE - 1
    out = {p.name: p.read_text(encoding="utf-8") for p in sorted((ROOT / "tests/data/xgtext").glob("*.txt"))}
    hostile = {
        "spaces after a rank": "1. " + " " * line + "a\n",
        "spaces before a colon": "1. a" + " " * line + ":\n",
        "digits after a candidate": "1" * line + "\n",
        "tabs before a colon": "1. a" + "\t" * 30 + ":\n",
        "colons and numbers": "a: 1 " * (line // 5) + "x\n",
        "one long line": "1. " + " " * size + "a\n",
    }
    for name, unit in hostile.items():
        head = x + ("1. a 1/2 eq:+1\n" if "digits" in name else "")
        out[name] = (head + unit * (size // len(unit) + 1))[:size]
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=20_000, help="characters of each hostile text")
    ap.add_argument("--repeat", type=int, default=3, help="reads of each text (the best time is printed)")
    args = ap.parse_args(argv)
    from nardy.records.xgtext import parse_xg_text
    from nardy.rules.errors import NardyError

    print(f"{'text':<32} {'chars':>7} {'ms':>9}")
    for name, text in texts(args.size).items():
        best = float("inf")
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            try:
                parse_xg_text(text)
            except NardyError:
                pass
            best = min(best, time.perf_counter() - t0)
        print(f"{name:<32} {len(text):>7} {best * 1000:>9.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

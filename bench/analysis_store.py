"""How much storing an analysis costs: the bytes of a record's analysis answer (the JSON the server stores and
answers, review boards included) before and after zlib (what ``nardy_analyses.data`` holds,
:mod:`nardy.web.store.analyses`) and gzip (the HTTP answer to a client that accepts it), and the time to pack and
unpack it.

    python bench/analysis_store.py [RECORD.mat ...] [--level advanced]

Default record: /work/shared/data/gnubg-matches/gnubg-1004.mat (a 7-point backgammon match between GNU
Backgammon and a player). Against: the JSON itself (the ratio is the figure).
"""

from __future__ import annotations

import argparse
import gzip
import json
import time
import zlib

from nardy.analysis.load import load_match
from nardy.web.routers.review import analysis_answer
from nardy.web.store.analyses import ZLIB_LEVEL, pack, unpack

DEFAULT = "/work/shared/data/gnubg-matches/gnubg-1004.mat"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("records", nargs="*", default=[DEFAULT])
    ap.add_argument("--level", default="advanced")
    args = ap.parse_args()
    for path in args.records:
        match = load_match(path)
        t = time.perf_counter()
        data = analysis_answer(match, args.level, source=path)
        took = time.perf_counter() - t
        raw = json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()
        t = time.perf_counter()
        blob, size = pack(data)
        t_pack = time.perf_counter() - t
        t = time.perf_counter()
        unpack(blob)
        t_unpack = time.perf_counter() - t
        z9 = len(zlib.compress(raw, 9))
        gz = len(gzip.compress(raw, 6))
        print(
            f"{path}: {data['game']}, length {data['length']}, {len(data['decisions'])} decisions "
            f"({args.level}, analysed in {took:.1f} s)"
        )
        ratio = size / len(blob)
        print(f"  JSON {size:,} bytes; zlib {ZLIB_LEVEL} {len(blob):,} ({ratio:.1f}x); zlib 9 {z9:,}; gzip 6 {gz:,}")
        print(f"  pack {1000 * t_pack:.1f} ms, unpack {1000 * t_unpack:.1f} ms")


if __name__ == "__main__":
    main()

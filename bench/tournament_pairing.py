"""How long tournament pairings take (nardy/flow/tournament, issue 44): Swiss rounds for 64 and 256 players.

For each field size, ``--runs`` seeded tournaments of ``--rounds`` Swiss rounds with random results (wins, ½-½
and 1-1 last-roll draws) and a few withdrawals; each round's :func:`swiss_pairings` is timed, as are the final
standings, an arena wave pairing every player and a knockout bracket. Also: how far a Swiss of 16 players gets
towards a complete round robin (15 rounds) before no pairing without a rematch exists (the pairing looks one
round ahead only). Prints milliseconds per round (mean, max) and writes the figures as JSON to
bench/results/speed/tournament-pairing-*.json (the date). Nothing is asserted.

    python bench/tournament_pairing.py --runs 5
"""

from __future__ import annotations

import argparse
import datetime
import json
import pathlib
import random
import statistics
import time

from nardy.flow.tournament import (
    Entrant,
    Pairing,
    PairingImpossible,
    arena_pairings,
    knockout_bracket,
    standings,
    swiss_pairings,
)

RESULTS = ((1, 0), (0, 1), (1, 0), (0, 1), (0.5, 0.5), (1, 1))


def swiss_run(n: int, rounds: int, seed: int) -> tuple[list[float], float, int]:
    """Milliseconds of each round's pairing, of the final standings, and the rounds played, of one Swiss."""
    rng = random.Random(seed)
    es = [Entrant(f"e{i}", rng.uniform(1200, 2200)) for i in range(n)]
    hist: list[Pairing] = []
    per_round: list[float] = []
    played = 0
    for rnd in range(1, rounds + 1):
        if rnd > 1 and rng.random() < 0.5:
            i = rng.randrange(n)
            es[i] = Entrant(es[i].id, es[i].rating, withdrawn=True)
        t = time.perf_counter()
        try:
            ps = swiss_pairings(es, hist, rnd)
        except PairingImpossible:
            break
        per_round.append((time.perf_counter() - t) * 1000)
        played = rnd
        hist += [p if p.result is not None else p.with_result(rng.choice(RESULTS)) for p in ps]
    t = time.perf_counter()
    standings(es, hist, "swiss")
    return per_round, (time.perf_counter() - t) * 1000, played


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[64, 256])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(pathlib.Path("bench", "results", "speed")))
    args = ap.parse_args()
    figures: dict = {"rounds": args.rounds, "runs": args.runs, "sizes": []}
    print(f"{'players':>8}{'round ms mean':>15}{'round ms max':>14}{'per round (mean over runs)':>40}")
    for n in args.sizes:
        rows = [swiss_run(n, args.rounds, args.seed + k) for k in range(args.runs)]
        flat = [ms for r in rows for ms in r[0]]
        by_round = [statistics.mean(r[0][i] for r in rows if len(r[0]) > i) for i in range(args.rounds)]
        rng = random.Random(args.seed)
        es = [Entrant(f"e{i}", rng.uniform(1200, 2200)) for i in range(n)]
        scores = {e.id: float(rng.randrange(30)) for e in es}
        last = {es[i].id: es[i + 1].id for i in range(0, n - 1, 2)}
        t = time.perf_counter()
        arena_pairings(es, last, 0.0, scores=scores)
        arena_ms = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        knockout_bracket(es, [3, 5, 7])
        ko_ms = (time.perf_counter() - t) * 1000
        entry = {
            "players": n,
            "round_ms_mean": round(statistics.mean(flat), 2),
            "round_ms_max": round(max(flat), 2),
            "round_ms_by_round": [round(x, 2) for x in by_round],
            "standings_ms_mean": round(statistics.mean(r[1] for r in rows), 2),
            "arena_wave_ms": round(arena_ms, 2),
            "knockout_bracket_ms": round(ko_ms, 2),
        }
        figures["sizes"].append(entry)
        per = " ".join(f"{x:.1f}" for x in by_round)
        print(f"{n:>8}{entry['round_ms_mean']:>15.1f}{entry['round_ms_max']:>14.1f}    {per}")
        print(
            f"{'':>8}standings {entry['standings_ms_mean']:.1f} ms, arena wave of {n} {arena_ms:.1f} ms, "
            f"knockout bracket {ko_ms:.2f} ms"
        )
    reached = [swiss_run(16, 15, args.seed + k)[2] for k in range(20)]
    figures["round_robin_16"] = {"tries": 20, "rounds_reached": reached}
    print(f"Swiss of 16 towards 15 rounds (20 tries): rounds reached {sorted(reached)}")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"tournament-pairing-{datetime.date.today().isoformat()}.json"
    path.write_text(json.dumps(figures) + "\n")
    print(f"written {path}")


if __name__ == "__main__":
    main()

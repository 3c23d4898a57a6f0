"""Backgammon error rate judged by bgsage (an independent engine), several players on the same positions.

Positions come from GNU Backgammon self-play (gnubg-nn 0-ply on both sides, seeded dice; only rolls with more
than one legal play), as in ``bench/bot_error_rate.py``. For every position the judge first ranks **every**
legal play by bgsage at ``--screen`` (default 2ply) and keeps the ``--top`` best; each player's choice is
added, and all of these are evaluated at ``--judge`` (default 4ply; bgsage counts plies as XG does, its
1ply is its raw nets). A player's loss on a position = the best judged equity of the screen's ``--top``
plays minus the judged equity of its play, zero when its play is judged better than all of them (cubeless
money, the mover's view; bgsage with its bearoff database attached, as its own analyzer runs it: its plain
batch calls skip the database and misjudge bear-offs by up to 0.2), reported in millipoints per move (1000 =
one point), with a 95% interval, split race/contact, and paired differences against the first player.
The reference is the same whichever players run together; until 2026-12-05 it also counted the other
players' choices, so a player's figure moved by up to 0.05 mp/move with its company (paired differences
within one run were fair either way).

Players: ``nardy:LEVEL`` (optionally ``nardy:LEVEL:WEIGHTS.npz``), ``gnubg:PLIES`` (gnubg-nn), ``bgsage:LEVEL``
(bgsage's own choice: ``1ply`` is its raw nets, the reference for a 0-ply net). Judged
equities are cached by resulting position in ``--cache`` (JSON), so a new player costs only its new plays.

    python bench/error_rate_bgsage.py --positions 1000 --players nardy:advanced,nardy:grandmaster,gnubg:0,gnubg:2
    python bench/error_rate_bgsage.py --players nardy:advanced,bgsage:1ply,bgsage:3ply --judge 3ply
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bot_error_rate import sample_positions  # noqa: E402
from bot_vs_gnubg import gnubg_choice  # noqa: E402

from nardy.engine._kernels import is_race  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402
from nardy.training.teachers import bgsage_evaluate  # noqa: E402


def result_value(play) -> float | None:
    """The mover's exact points when ``play`` ends the game, else None."""
    res = play.result
    if not res.is_game_over():
        return None
    o = res.opponent
    if o[0] > 0:
        return 1.0
    return 3.0 if (o[25] > 0 or any(o[q] for q in range(19, 25))) else 2.0


def cache_key(level: str, play) -> str:
    """The judged-equity cache key of ``play``'s result. Races are keyed ``LEVEL+db:ID``: they are judged
    with bgsage's bearoff database since 2026-12-02 (earlier caches hold the batch path's net-only values
    there, which are wrong in bear-offs); contact positions keep ``LEVEL:ID`` (a bear-off is never reached
    within the judge's plies from contact in practice, so their values did not change)."""
    board = play.result.array
    return f"{level}+db:{play.result.id()}" if is_race(board, True) else f"{level}:{play.result.id()}"


def judge(plays, level: str, threads: int, cache: dict | None = None) -> list[float]:
    """bgsage's cubeless equity (mover's view, after the play) of each play at ``level``, with bgsage's
    bearoff database (:func:`nardy.training.teachers.bgsage_evaluate`; the plain batch call skips it)."""
    out: list = [None] * len(plays)
    need, keys = [], []
    for i, p in enumerate(plays):
        v = result_value(p)
        if v is not None:
            out[i] = v
            continue
        key = cache_key(level, p)
        if cache is not None and key in cache:
            out[i] = cache[key]
            continue
        need.append(i)
        keys.append(key)
    if need:
        _, equity = bgsage_evaluate([plays[i].result.array for i in need], level, post_move=True, threads=threads)
        for i, k, e in zip(need, keys, equity):
            out[i] = float(e)
            if cache is not None:
                cache[k] = out[i]
    return out


def make_player(spec: str):
    kind, _, rest = spec.partition(":")
    if kind == "gnubg":
        plies = int(rest or 0)
        return lambda pos, dice: gnubg_choice(pos, dice, plies)
    if kind == "nardy":
        level, _, weights = rest.partition(":")
        bot = Bot("backgammon", level=level or "advanced", seed=1, weights=weights or None)
        return bot.choose_play
    if kind == "bgsage":
        level = rest or "1ply"
        return lambda pos, dice: bgsage_choice(pos, dice, level)
    raise SystemExit(f"unknown player {spec!r}: nardy:LEVEL[:WEIGHTS], gnubg:PLIES or bgsage:LEVEL")


def bgsage_choice(pos, dice, level: str):
    """bgsage's own choice at ``level`` (``1ply`` = its raw nets, the issue's "bgsage raw net"): the legal
    play whose result it values most (post-move cubeless equity with its bearoff database, one thread, so
    its time is comparable with the other players'); ties go to the first play in nardy's order."""
    plays = pos.legal_plays(dice)
    if len(plays) == 1:
        return plays[0]
    eq = judge(plays, level, 1)
    return plays[int(np.argmax(eq))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=21)
    ap.add_argument("--players", default="nardy:advanced,nardy:grandmaster,gnubg:0,gnubg:2")
    ap.add_argument("--judge", default="4ply")
    ap.add_argument("--screen", default="2ply")
    ap.add_argument("--top", type=int, default=3)
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--cache", default=None, help="JSON cache of judged equities (read and updated)")
    ap.add_argument("--results", default=None, help="write each position's losses per player (JSON)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    specs = [s for s in args.players.split(",") if s]
    players = [make_player(s) for s in specs]
    cache = {}
    if args.cache and Path(args.cache).exists():
        cache = json.loads(Path(args.cache).read_text())
    positions = sample_positions(args.positions, args.seed)
    losses = {s: [] for s in specs}
    race = []
    think = dict.fromkeys(specs, 0.0)
    for i, (pos, dice) in enumerate(positions):
        plays = pos.legal_plays(dice)
        screen = judge(plays, args.screen, args.threads, cache)
        top = {int(j) for j in np.argsort(screen)[::-1][: args.top]}
        keep = set(top)
        chosen = []
        for s, pl in zip(specs, players):
            t = time.perf_counter()
            c = pl(pos, dice)
            think[s] += time.perf_counter() - t
            j = next(k for k, p in enumerate(plays) if p.result == c.result)
            chosen.append(j)
            keep.add(j)
        idx = sorted(keep)
        eq = dict(zip(idx, judge([plays[j] for j in idx], args.judge, args.threads, cache)))
        best = max(eq[j] for j in top)  # the reference: the same for every player
        for s, j in zip(specs, chosen):
            losses[s].append(max(0.0, best - eq[j]))
        race.append(bool(is_race(pos.array, True)))
        if (i + 1) % 100 == 0:
            msg = ", ".join(f"{s} {1000 * np.mean(losses[s]):.2f}" for s in specs)
            print(f"  {i + 1}: {msg} mp/move ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
            if args.cache:
                Path(args.cache).write_text(json.dumps(cache))
    if args.cache:
        Path(args.cache).write_text(json.dumps(cache))
    r = np.array(race)
    out = {"positions": len(race), "judge": f"bgsage {args.judge}", "screen": f"{args.screen} top {args.top}"}
    ref = np.array(losses[specs[0]])
    rows = {}
    for s in specs:
        a = np.array(losses[s])
        row = {
            "mp_per_move": 1000 * float(a.mean()),
            "ci95": 1000 * 1.96 * float(a.std(ddof=1)) / np.sqrt(len(a)),
            "race_mp": 1000 * float(a[r].mean()) if r.any() else None,
            "contact_mp": 1000 * float(a[~r].mean()),
            "blunders_over_100mp": int((a > 0.1).sum()),
            "ms_per_move": 1000 * think[s] / len(a),
        }
        if s != specs[0]:
            d = a - ref
            row["vs_first"] = [1000 * float(d.mean()), 1000 * 1.96 * float(d.std(ddof=1)) / np.sqrt(len(d))]
        rows[s] = row
    out["players"] = rows
    out["race_positions"] = int(r.sum())
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    print(f"error per move judged by bgsage {args.judge} on {len(race)} positions (gnubg self-play):")
    for s in specs:
        x = rows[s]
        extra = f", vs {specs[0]} {x['vs_first'][0]:+.2f} ± {x['vs_first'][1]:.2f}" if "vs_first" in x else ""
        print(f"  {s:32s} {x['mp_per_move']:6.2f} ± {x['ci95']:.2f} mp/move{extra}")
    if args.results:
        Path(args.results).write_text(json.dumps({"losses": losses, "race": race}))
    print(json.dumps(out))


if __name__ == "__main__":
    main()

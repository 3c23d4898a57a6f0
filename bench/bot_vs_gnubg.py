"""Backgammon: nardy's bot against GNU Backgammon's net (gnubg-nn, ``gnubg_nn.best_move``), duplicate dice.

Money play (single 1, gammon 2, backgammon 3), cubeless or with ``--cube``. Each dice sequence is played twice
with the sides swapped (game 2i: nardy moves first; game 2i+1: gnubg moves first, same rolls in the same
order), so the luck of the dice cancels within a pair. Reports nardy's points per game with a 95% confidence
interval (over pairs), and the speed of nardy's choices.

**With the cube** (``--cube``; issue 46's money target): before each roll the side on roll may double when
the cube is centred or its own (no Jacoby rule, no beavers, no cube limit); a pass ends the game for the
cube's value before the double, a take turns the cube over to the taker; a finished game scores its level
times the cube. nardy's doubles and takes are its bot's (``Bot.cube_action``: grandmaster feeds 2-ply
probabilities to :mod:`nardy.flow.cubetheory`'s Janowski formula). gnubg-nn has no money cube decisions
(``evaluate_cube_decision`` answers only match play), so gnubg's side uses the same formula fed gnubg-nn's
own ``--gnubg-ply`` cubeless probabilities (``gnubg_nn.probabilities``) of the position before the roll: the
two sides differ in their checker play and in the probabilities their cube decisions rest on. With the
cube, each game's final cube value and whether it ended in a pass are logged too.

**Luck-adjusted points** (variance reduction; GNU Backgammon's "luck adjusted result"): before each roll the
luck of the dice thrown is measured from the side on roll's view as in :mod:`nardy.analysis.luck`: every one
of the 21 rolls gets the cubeless money equity (nardy's 0-ply net) after its best 0-ply play, and the roll's
luck is its value minus their weighted mean (the opening roll: over the 30 non-doubles), times the cube
then in play. A game's luck is the sum over its rolls from nardy's view, and its adjusted points are its
points minus its luck. Each roll's luck has mean zero whatever happened before it, so the adjusted points
have the same expectation as the points (the estimate stays unbiased whatever the net's errors) and a
smaller spread the better the net follows the game. The log keeps each game's luck; the report gives the
adjusted ppg beside the raw one when every pair has it (pairs logged before it was added have none).

    python bench/bot_vs_gnubg.py --games 1000 --level advanced
    python bench/bot_vs_gnubg.py --games 5000 --level grandmaster --workers 2 --results gm.json
    python bench/bot_vs_gnubg.py --games 4000 --level grandmaster --gnubg-ply 2 --cube --workers 2 --log cube.jsonl

The dice of pair ``i`` come from ``numpy.random.default_rng([seed, i])``, so a run's games do not depend on
``--workers`` (processes that split the pairs between them). ``--log F`` appends every pair to F as it
finishes; a rerun with the same arguments plays only the pairs missing from F (long runs can be stopped and
resumed, or extended with a larger ``--games``).

``gnubg_nn.best_move(board, d1, d2, n=plies, b=1)`` takes the board as ``[opponent25, mover25]`` (index
0..23 = own points 1..24, 24 = bar) and returns the chosen move and the key of the resulting board, from
the next player's view.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import gnubg_nn  # noqa: E402

from nardy import Position  # noqa: E402
from nardy.analysis.luck import luck_adjusted, money_luck  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402
from nardy.flow.cubetheory import CubeState, cube_efficiency, decide, money_cube_decision  # noqa: E402
from nardy.rules.scoring import result_kind  # noqa: E402


def gnubg_board(pos: Position):
    m, o = pos.mover, pos.opponent
    return [list(o[1:25]) + [o[25]], list(m[1:25]) + [m[25]]]


def gnubg_choice(pos: Position, dice, plies: int):
    """The legal play gnubg picks (matched by the resulting position)."""
    plays = pos.legal_plays(dice)
    if len(plays) == 1:
        return plays[0]
    _, key = gnubg_nn.best_move(gnubg_board(pos), dice[0], dice[1], n=plies, b=1)
    opp, mov = gnubg_nn.board_from_position_key(key)
    nxt = Position.from_boards([0] + list(mov[:24]) + [mov[24]], [0] + list(opp[:24]) + [opp[24]], "backgammon")
    for p in plays:
        if p.result.mirror() == nxt:
            return p
    raise RuntimeError(f"gnubg's move not found among the legal plays of {pos.id()} {dice}")


def pair_rolls(rng) -> list:
    """The dice of one pair of games: a non-double opening roll, then 2,000 rolls."""
    rolls = []
    first = rng.integers(1, 7, size=2)
    while first[0] == first[1]:
        first = rng.integers(1, 7, size=2)
    rolls.append((int(first[0]), int(first[1])))
    rolls += [(int(a), int(b)) for a, b in rng.integers(1, 7, size=(2000, 2))]
    return rolls


def game_level(res: Position) -> int:
    """Points of a finished game at cube 1 for the side that just bore off (``res``: after its play, its
    view): 1 single, 2 gammon, 3 backgammon (:func:`nardy.rules.scoring.result_kind` of the loser's checkers)."""
    return res.rules.scoring[result_kind(res.rules, res.opponent)]


def roll_luck(bot: Bot, pos: Position, dice, opening: bool) -> float:
    """The luck of ``dice`` for the side on roll of ``pos`` (its view), in cubeless money points at cube 1:
    :func:`nardy.analysis.luck.money_luck` by ``bot``'s net (each roll valued after its best 0-ply play; the
    mean over the 21 rolls, ``opening``: over the 30 non-doubles)."""
    return money_luck(bot.searcher, pos, dice, opening=opening)


def take_turn(bot: Bot, pos: Position, dice, nardy_moves: bool, gnubg_plies: int, timing: list) -> Position:
    """The position after the side on roll plays ``dice`` (nardy's bot or gnubg-nn), from the mover's view;
    nardy's thinking time is appended to ``timing`` (seconds)."""
    if not nardy_moves:
        return gnubg_choice(pos, dice, gnubg_plies).result
    t0 = time.perf_counter()
    play = bot.choose_play(pos, dice)
    timing.append(time.perf_counter() - t0)
    return play.result


def play_pair(bot: Bot, rng, gnubg_plies: int, timing: list):
    """Two cubeless money games on the same dice; ``[(points, luck), ...]`` from nardy's view (points: + nardy
    won; luck: the sum of :func:`roll_luck` over the game's rolls, + for nardy)."""
    rolls = pair_rolls(rng)
    out = []
    for nardy_first in (True, False):
        pos = Position.start("backgammon")
        luck = 0.0
        for t, dice in enumerate(rolls):
            nardy_moves = (t % 2 == 0) == nardy_first
            lk = roll_luck(bot, pos, dice, opening=t == 0)
            luck += lk if nardy_moves else -lk
            res = take_turn(bot, pos, dice, nardy_moves, gnubg_plies, timing)
            if res.is_game_over():
                level = game_level(res)
                out.append((level if nardy_moves else -level, luck))
                break
            pos = res.mirror()
    return out


def gnubg_cube(pos: Position, plies: int, cube: int, owner: str) -> tuple[bool, bool]:
    """``(double, take)`` for the side on roll of ``pos`` (before its roll) by nardy's money cube formula fed
    gnubg-nn's ``plies`` cubeless probabilities; ``owner``: ``"centre"`` or ``"me"`` (the side on roll)."""
    probs = gnubg_nn.probabilities(gnubg_board(pos), plies)
    eqs = money_cube_decision(probs, pos.rules.scoring, cube_efficiency(pos), owner, cube_value=cube)
    return decide(eqs)


def play_pair_cube(bot: Bot, rng, gnubg_plies: int, timing: list):
    """Two money games with the cube on the same dice; ``[(points, final cube, passed, luck), ...]`` from
    nardy's view (points: + nardy won; luck: the sum over the game's rolls of :func:`roll_luck` times the cube
    in play at the roll, + for nardy)."""
    rolls = pair_rolls(rng)
    out = []
    for nardy_first in (True, False):
        pos = Position.start("backgammon")
        cube, owner = 1, None  # owner: None centred, True nardy, False gnubg
        luck = 0.0
        for t, dice in enumerate(rolls):
            nardy_moves = (t % 2 == 0) == nardy_first
            if t > 0 and owner in (None, nardy_moves):
                rel = "centre" if owner is None else "me"
                state = CubeState(pos, cube_value=cube, cube_owner=None if owner is None else 0)
                if nardy_moves:
                    double = bot.cube_action(state).double
                else:
                    double = gnubg_cube(pos, gnubg_plies, cube, rel)[0]
                if double:
                    if nardy_moves:
                        take = gnubg_cube(pos, gnubg_plies, cube, rel)[1]
                    else:
                        take = bot.cube_action(
                            CubeState(pos, cube_value=cube, cube_owner=state.cube_owner, phase="double")
                        ).take
                    if not take:
                        out.append((cube if nardy_moves else -cube, cube, True, luck))
                        break
                    cube, owner = 2 * cube, not nardy_moves
            lk = cube * roll_luck(bot, pos, dice, opening=t == 0)
            luck += lk if nardy_moves else -lk
            res = take_turn(bot, pos, dice, nardy_moves, gnubg_plies, timing)
            if res.is_game_over():
                points = game_level(res) * cube
                out.append((points if nardy_moves else -points, cube, False, luck))
                break
            pos = res.mirror()
    return out


_BOT = {}


def _pair_worker(args):
    i, level, seed, gnubg_plies, weights, cube = args
    key = (level, weights)
    if key not in _BOT:
        _BOT.clear()
        _BOT[key] = Bot("backgammon", level=level, seed=seed, weights=weights)
    timing = []
    rng = np.random.default_rng([seed, i])
    if cube:
        games = play_pair_cube(_BOT[key], rng, gnubg_plies, timing)
        rec = {"points": [g[0] for g in games], "cubes": [g[1] for g in games], "passes": [g[2] for g in games]}
    else:
        games = play_pair(_BOT[key], rng, gnubg_plies, timing)
        rec = {"points": [g[0] for g in games]}
    rec["luck"] = [round(g[-1], 5) for g in games]
    return i, rec, timing


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=1000, help="games (rounded up to even)")
    ap.add_argument("--level", default="advanced", help="nardy bot level (advanced = 0-ply)")
    ap.add_argument("--gnubg-ply", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--weights", default=None, help="nardy weights (.npz) instead of the shipped ones")
    ap.add_argument("--workers", type=int, default=1, help="processes playing the pairs")
    ap.add_argument("--results", default=None, help="also write every game's points to this JSON file")
    ap.add_argument(
        "--log",
        default=None,
        help="JSON-lines file every pair is appended to as it finishes; "
        "pairs already in it (same level, seed, gnubg ply, weights) are not played again",
    )
    ap.add_argument("--cube", action="store_true", help="money play with the cube (see the module's text)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    n_pairs = (args.games + 1) // 2
    key = {"level": args.level, "seed": args.seed, "gnubg_ply": args.gnubg_ply, "weights": args.weights}
    if args.cube:
        key["cubeful"] = True
    by_pair, extra, timing = {}, {}, []
    if args.log and Path(args.log).exists():
        with open(args.log) as f:
            for line in f:
                rec = json.loads(line)
                same = all(rec.get(k) == v for k, v in key.items()) and rec.get("cubeful", False) == args.cube
                if same and rec["pair"] < n_pairs:
                    by_pair[rec["pair"]] = rec["points"]
                    extra[rec["pair"]] = {k: rec[k] for k in ("cubes", "passes", "luck") if k in rec}
                    timing += [t / 1000 for t in rec["ms"]]
    jobs = [
        (i, args.level, args.seed, args.gnubg_ply, args.weights, args.cube) for i in range(n_pairs) if i not in by_pair
    ]
    log = open(args.log, "a") if args.log else None
    t0 = time.perf_counter()
    if args.workers > 1:
        import multiprocessing as mp

        pool = mp.get_context("fork").Pool(args.workers)
        it = pool.imap_unordered(_pair_worker, jobs, chunksize=4)
    else:
        pool, it = None, map(_pair_worker, jobs)
    for i, res, tm in it:
        by_pair[i] = res.pop("points")
        extra[i] = res
        timing += tm
        if log:
            rec = {**key, "pair": i, "points": by_pair[i], **res, "ms": [round(1000 * t, 3) for t in tm]}
            log.write(json.dumps(rec) + "\n")
            log.flush()
        if len(by_pair) % 50 == 0 and not args.json:
            r = np.concatenate([by_pair[k] for k in by_pair])
            print(
                f"  {len(r)} games: {r.mean():+.3f} ppg ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True
            )
    if pool is not None:
        pool.close()
    if log:
        log.close()
    results = [x for i in range(n_pairs) for x in by_pair[i]]
    # each game's luck, where every pair logged it (pairs logged before the luck was added have none)
    luck = (
        [x for i in range(n_pairs) for x in extra[i]["luck"]]
        if all("luck" in extra[i] for i in range(n_pairs))
        else None
    )
    if args.results:
        doc = {"level": args.level, "seed": args.seed, "points": results}
        if luck is not None:
            doc["luck"] = luck
        Path(args.results).write_text(json.dumps(doc))
    r = np.array(results, float)
    pairs = r.reshape(-1, 2).mean(axis=1)
    ci = 1.96 * pairs.std(ddof=1) / np.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    out = {
        "level": args.level,
        "gnubg_ply": args.gnubg_ply,
        "games": len(r),
        "ppg": float(r.mean()),
        "ci95": float(ci),
        "win_rate": float((r > 0).mean()),
        "nardy_ms_per_move": 1000 * float(np.mean(timing)),
        "wall_s": time.perf_counter() - t0,
    }
    if luck is not None and n_pairs > 1:
        out.update(luck_adjusted(r, luck))
    if args.cube:
        cubes = np.array([c for i in range(n_pairs) for c in extra[i]["cubes"]])
        passes = np.array([c for i in range(n_pairs) for c in extra[i]["passes"]], bool)
        out["cube"] = True
        out["mean_cube"] = float(cubes.mean())
        out["doubled_share"] = float((cubes > 1).mean())
        out["passed_share"] = float(passes.mean())
    if args.json:
        print(json.dumps(out))
    else:
        print(
            f"nardy {args.level} vs gnubg-nn {args.gnubg_ply}-ply, {len(r)} games (duplicate dice, "
            f"{'with the cube' if args.cube else 'cubeless'}): {out['ppg']:+.3f} ppg ± {ci:.3f} (95%), "
            f"wins {out['win_rate']:.1%}, nardy {out['nardy_ms_per_move']:.2f} ms/move, {out['wall_s']:.0f} s"
        )
        if "luck_adjusted_ppg" in out:
            print(
                f"  luck-adjusted: {out['luck_adjusted_ppg']:+.3f} ppg ± {out['luck_adjusted_ci95']:.3f} (95%); "
                f"a pair's sd {out['luck_adjusted_pair_sd']:.2f} against {out['pair_sd']:.2f} unadjusted"
            )
        if args.cube:
            print(
                f"  cube: {out['doubled_share']:.1%} of games doubled, {out['passed_share']:.1%} ended in a pass, "
                f"mean final cube {out['mean_cube']:.2f}"
            )


if __name__ == "__main__":
    main()

"""Backgammon cube decisions against bgsage: the equity nardy's doubles, takes and passes lose, judged by bgsage.

Positions: pre-roll positions of GNU Backgammon self-play (gnubg-nn 0-ply playing both sides with seeded
random dice; the opening roll is skipped, one position in three is kept to spread them over the games).
Each candidate gets a cube state: money play with a centred cube (60%), money play with the side on roll
owning the cube at 2 (20%), or a 5-point match at a random score with both sides 2..5 away and a centred
cube (20%). bgsage screens the candidates at 1-ply (``batch_cube_action(..., jacoby=False,
beaver=False)``) and the sample is drawn by a fixed rule on its equities, from the side on roll's view
(``ND``, ``DT``, ``DP``; the doubler's margin ``g = min(DT, DP) - ND``, the take margin ``t = DP - DT``):

* 15% *clear pass*: ``t < -0.15`` (double/pass or too good to double; a wrong take is punished here, and a
  missed double or a wrong double where the doubler's margin is large);
* 70% *close*, of the rest: ``|g| <= 0.15`` or (``g >= -0.15`` and ``|t| <= 0.15``): a real double or take
  decision;
* 15% *clear no double*, of the rest: ``g < -0.15`` (over-doubling is punished here).

The judge then evaluates the sample at ``--judge`` (default 3-ply); in bearoff positions its own bearoff
database replaces its net (see :func:`judge`). For each nardy level (advanced 0-ply,
expert 1-ply, grandmaster 2-ply) the bot's own decision functions are asked
(``Bot.cube_action(CubeState(...)).double`` as the doubler, ``.take`` as the taker) and scored:

* doubler error = judge's ``max(ND, min(DT, DP))`` minus the judge's equity of nardy's action (every position);
* taker error = judge's ``max(-DT, -DP)`` minus the judge's equity of nardy's answer from the taker's view,
  counted on the positions where the judge's double is at least close (``g >= -0.10``): those where a
  double would be offered.

Errors are in millipoints of the normalised equity (units of the current cube; match play: bgsage's
normalised match equity), mean per decision with a 95% interval (normal approximation over positions),
with counts of wrong doubles (nardy doubles, the judge does not), missed doubles, wrong takes and wrong
passes. Reference rows through the same scoring: nardy's cube formula (:mod:`nardy.flow.cubetheory`) fed the
judge's own cubeless probabilities (what is left is the cube model alone) and gnubg-nn's 0- and 2-ply
probabilities (gnubg_nn's ``evaluate_cube_decision`` answers only match play ("Not implemented for
money"), so gnubg-nn's own cube decisions cannot be asked for the money positions).

**Match mode** (``--match money,3,5,7,11``): ``--positions`` per entry, each drawn from its own pool of
self-play positions (seed derived from ``--seed`` and the length) by the same selection rule, after one
position of every score has been taken (a close one where the pool has one), so every score is represented:

* money: as above (centred at 1 or owned by the side on roll at 2, 75% / 25%);
* an N-point match: every pre-Crawford score with both sides 2..N away, and every post-Crawford score with
  the trailer 2..N away on roll against the leader 1 away (the trailer's double, the leader's take or free
  drop); the Crawford game has no cube decision (nobody may double) and the leader's post-Crawford cube is
  dead, so neither is sampled. The cube is centred at 1, or (25%, where legal by bgsage's
  ``can_double_match``: the side on roll still needs more points than the cube) owned by the side on roll at
  2. Bearoff positions are left out of the match pools (the judge's batch evaluates them with its net).

The judge's match equities are bgsage's own: ``bgsage.batch_cube_action`` with ``away1``/``away2``/
``is_crawford`` (``is_crawford=False`` at a post-Crawford score; its C++ ``get_met`` is the Kazaross-XG2 table
nardy ships), the Janowski/``Cl2CfMatch`` model on its N-ply cubeless probabilities, normalised so that
winning the current cube is +1 and losing it -1 (bgsage's ``equity_dp`` is 1). Reference players: **bgsage
1-ply and 2-ply's own cube decisions** (``batch_cube_action`` at those plies, their bearoff database in money
bearoffs as for the judge; double when their ``min(DT, DP) > ND``, take when their ``DT <= DP``), scored as
nardy's. Each row reports, per entry, the doubler error and the taker error (mp per decision, 95% interval)
and **the sum per position**: for every position its doubler error plus its taker error where the taker's
decision counts (the judge's double at least close, as above) and 0 elsewhere, averaged over all positions
(= doubler mean + taker mean x taker decisions / positions), with its 95% interval over positions.

    python bench/cube_vs_bgsage.py                       # 500 positions, judge 3-ply
    python bench/cube_vs_bgsage.py --positions 200 --judge 2ply --seed 11 --results cube.json
    python bench/cube_vs_bgsage.py --match money,3,5,7,11 --positions 300 --results match.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import bgsage  # noqa: E402
import gnubg_nn  # noqa: E402
from bgsage.batch import bgbot_cpp  # noqa: E402

from nardy import Position  # noqa: E402
from nardy.engine._kernels import is_race  # noqa: E402
from nardy.flow.bot import Bot  # noqa: E402
from nardy.flow.cubetheory import CubeState, cube_efficiency, decide, match_cube_decision, money_cube_decision  # noqa: E402
from nardy.flow.met import get_met  # noqa: E402
from nardy.training.teachers import bgsage_bearoff_db  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bot_vs_gnubg import gnubg_board, gnubg_choice  # noqa: E402

LEVELS = ("advanced", "expert", "grandmaster")
MATCH_LENGTH = 5
#: bgsage's reference players of match mode (their own ``batch_cube_action`` decisions at these plies)
BGSAGE_REFERENCES = ("1ply", "2ply")


def bgsage_board(pos: Position) -> list[int]:
    """bgsage's 26-element board from the side on roll's view: 1..24 the points (+mover, -opponent),
    25 the mover's bar, 0 the opponent's bar (a positive count); nardy's int8[28] layout in nardy/rules/_movegen.py."""
    b = [int(v) for v in pos.array[:26]]
    b[0] = int(pos.array[26])
    return b


def self_play_positions(n: int, seed: int) -> list[Position]:
    """``n`` pre-roll positions (side on roll's view) of gnubg-nn 0-ply self-play, one in three kept."""
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.start("backgammon")
        for turn in range(400):
            if turn > 0 and rng.random() < 1 / 3:
                out.append(pos)
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            play = gnubg_choice(pos, dice, 0)
            if play.result.is_game_over():
                break
            pos = play.result.mirror()
    return out[:n]


def bearoff_db():
    """bgsage's own one-sided bearoff database (``batch_cube_action`` does not consult it)."""
    return bgsage_bearoff_db()


def cube_states(positions, rng) -> list[dict]:
    """A cube state for every position: money centred (60%), money owned at 2 (20%), 5-point match (20%;
    bearoff positions get a money state instead, see :func:`judge`)."""
    out = []
    db = bearoff_db()
    for pos in positions:
        u = rng.random()
        if u >= 0.8 and db.is_bearoff(bgsage_board(pos)):
            u = rng.random() * 0.8
        if u < 0.6:
            st = {"kind": "money", "cube_value": 1, "owner": "centered", "away": (0, 0)}
        elif u < 0.8:
            st = {"kind": "owned", "cube_value": 2, "owner": "player", "away": (0, 0)}
        else:
            a = (int(rng.integers(2, MATCH_LENGTH + 1)), int(rng.integers(2, MATCH_LENGTH + 1)))
            st = {"kind": "match", "cube_value": 1, "owner": "centered", "away": a}
        out.append({"position": pos, **st})
    return out


def bgsage_query(items) -> list[dict]:
    q = []
    for it in items:
        d = {"board": bgsage_board(it["position"]), "cube_value": it["cube_value"], "cube_owner": it["owner"]}
        if it["kind"] == "match":
            d["away1"], d["away2"], d["is_crawford"] = it["away"][0], it["away"][1], False
        q.append(d)
    return q


def judge(items, level: str, threads: int, weights=None):
    """(ND, DT, DP) arrays from bgsage at ``level``, side on roll's view, normalised to the current cube,
    and bgsage's cubeless probabilities.

    ``batch_cube_action`` evaluates bearoff positions with its net, not its bearoff database (in
    ``BwAAsAEAAAAAAA``, 4 checkers on 6 pips against 3 on the ace point, it says 57% where the roller wins
    86%); for money positions in its database's range the probabilities are bgsage's database's and the
    equities come from bgsage's own money formula (``cl2cf_money`` with its ``cube_efficiency``), which
    is what its batch does with its net's probabilities. Match positions are never bearoffs (see
    :func:`cube_states`)."""
    res = bgsage.batch_cube_action(bgsage_query(items), level, weights, n_threads=threads, jacoby=False, beaver=False)
    eq = np.array([(r.equity_nd, r.equity_dt, r.equity_dp) for r in res], np.float64)
    probs = np.array(
        [
            (r.probs.win, r.probs.gammon_win, r.probs.backgammon_win, r.probs.gammon_loss, r.probs.backgammon_loss)
            for r in res
        ]
    )
    db = bearoff_db()
    owners = {"centered": bgbot_cpp.CubeOwner.CENTERED, "player": bgbot_cpp.CubeOwner.PLAYER}
    for i, it in enumerate(items):
        b = bgsage_board(it["position"])
        if it["kind"] == "match" or not db.is_bearoff(b):
            continue
        p = [float(v) for v in db.lookup_probs(b, post_move=False)]
        pp, op = bgbot_cpp.pip_counts(b)
        x = bgbot_cpp.cube_efficiency(p, bgbot_cpp.is_race(b), pp, op)
        nd = bgbot_cpp.cl2cf_money(p, owners[it["owner"]], x, jacoby_active=False)
        dt = 2 * bgbot_cpp.cl2cf_money(p, bgbot_cpp.CubeOwner.OPPONENT, x, jacoby_active=False)
        eq[i] = nd, dt, 1.0
        probs[i] = p
    return eq, probs


def margins(eq):
    nd, dt, dp = eq[:, 0], eq[:, 1], eq[:, 2]
    return np.minimum(dt, dp) - nd, dp - dt


def select(items, eq, n: int, rng) -> list[dict]:
    """The sample by the selection rule of the module docstring (15% clear pass, 70% close, 15% clear ND)."""
    g, t = margins(eq)
    clear_pass = np.flatnonzero(t < -0.15)
    close = np.setdiff1d(np.flatnonzero((np.abs(g) <= 0.15) | ((g >= -0.15) & (np.abs(t) <= 0.15))), clear_pass)
    clear_nd = np.setdiff1d(np.flatnonzero(g < -0.15), np.union1d(close, clear_pass))
    want = {"close": round(0.7 * n), "clear no double": round(0.15 * n)}
    want["clear pass"] = n - want["close"] - want["clear no double"]
    chosen = []
    for name, idx in (("close", close), ("clear no double", clear_nd), ("clear pass", clear_pass)):
        k = min(want[name], len(idx))
        if k < want[name]:
            print(f"  only {len(idx)} {name} candidates for {want[name]}: use a larger --pool", file=sys.stderr)
        for i in rng.choice(idx, size=k, replace=False):
            chosen.append({**items[int(i)], "class": name})
    return chosen


def state_of(it) -> CubeState:
    """nardy's :class:`CubeState` of a candidate (the side on roll is player 0; a post-Crawford score is told by
    the leader's 1 away, as :meth:`nardy.flow.met.MatchEquityTable.mwc_after` reads it)."""
    away = it["away"]
    if it["kind"] == "match":
        n = it.get("length", MATCH_LENGTH)
        owner = 0 if it["owner"] == "player" else None
        return CubeState(
            it["position"], cube_value=it["cube_value"], cube_owner=owner, score=(n - away[0], n - away[1]), length=n
        )
    if it["kind"] == "owned":
        return CubeState(it["position"], cube_value=2, cube_owner=0)
    return CubeState(it["position"])


def bot_decisions(bot: Bot, items, probs: list | None = None) -> np.ndarray:
    """(double, take) of the bot's own cube decisions, bool[n, 2]; the cubeless probabilities they were fed
    are appended to ``probs`` when it is given."""
    out = np.zeros((len(items), 2), bool)
    for i, it in enumerate(items):
        d = bot.cube_action(state_of(it))
        out[i] = d.double, d.take
        if probs is not None:
            probs.append([round(float(v), 6) for v in d.probabilities.array])
    return out


def formula_decisions(items, probs) -> np.ndarray:
    """(double, take) of nardy's cube formula fed other cubeless probabilities (win, wg, wbg, lg, lbg)."""
    met = get_met("backgammon")
    out = np.zeros((len(items), 2), bool)
    for i, it in enumerate(items):
        p = probs[i]
        x = cube_efficiency(it["position"])
        owner = "me" if it["owner"] == "player" else "centre"
        if it["kind"] == "match":
            a = it["away"]
            eqs = match_cube_decision(p, (1, 2, 3), x, owner, a[0], a[1], it["cube_value"], met)
        else:
            eqs = money_cube_decision(p, (1, 2, 3), x, owner, cube_value=it["cube_value"])
        out[i] = decide(eqs)
    return out


def score(eq, dec, mask=None) -> dict:
    """Doubler and taker errors (millipoints) of decisions ``dec`` (bool[n, 2]) against the judge ``eq``."""
    nd, dt, dp = eq[:, 0], eq[:, 1], eq[:, 2]
    g, _ = margins(eq)
    if mask is None:
        mask = np.ones(len(eq), bool)
    best_double = g > 0
    ours = np.where(dec[:, 0], np.minimum(dt, dp), nd)
    derr = (np.maximum(nd, np.minimum(dt, dp)) - ours)[mask]
    best_take = dt <= dp
    tmask = mask & (g >= -0.10)
    terr = (np.maximum(-dt, -dp) - np.where(dec[:, 1], -dt, -dp))[tmask]

    def mean_ci(e):
        if len(e) == 0:
            return float("nan"), float("nan")
        ci = 1.96 * e.std(ddof=1) / np.sqrt(len(e)) if len(e) > 1 else float("nan")
        return 1000 * float(e.mean()), 1000 * float(ci)

    dm, dci = mean_ci(derr)
    tm, tci = mean_ci(terr)
    return {
        "doubler_mp": dm,
        "doubler_ci": dci,
        "doubler_n": int(mask.sum()),
        "taker_mp": tm,
        "taker_ci": tci,
        "taker_n": int(tmask.sum()),
        "wrong_doubles": int((dec[:, 0] & ~best_double & mask).sum()),
        "missed_doubles": int((~dec[:, 0] & best_double & mask).sum()),
        "wrong_takes": int((dec[:, 1] & ~best_take & tmask).sum()),
        "wrong_passes": int((~dec[:, 1] & best_take & tmask).sum()),
        "same_action": float((dec[:, 0] == best_double)[mask].mean()),
    }


def line(name, s) -> str:
    return (
        f"{name:<28} doubler {s['doubler_mp']:6.1f} ± {s['doubler_ci']:5.1f} mp (n {s['doubler_n']:3d})  "
        f"taker {s['taker_mp']:6.1f} ± {s['taker_ci']:5.1f} mp (n {s['taker_n']:3d})  "
        f"wrong D {s['wrong_doubles']:3d} missed D {s['missed_doubles']:3d} "
        f"wrong T {s['wrong_takes']:3d} wrong P {s['wrong_passes']:3d}  same {s['same_action']:.1%}"
    )


# ----- match mode (--match) ------------------------------------------------------------------------------------


def match_scores(length: int) -> list[tuple[int, int]]:
    """Every score (away of the side on roll, away of the opponent) with a cube decision in a ``length``-point
    match: both sides 2..length away, and post-Crawford the trailer 2..length away against the leader 1 away.
    ``length`` 0 is money play: ``[(0, 0)]``."""
    if length == 0:
        return [(0, 0)]
    pre = [(a, b) for a in range(2, length + 1) for b in range(2, length + 1)]
    return pre + [(a, 1) for a in range(2, length + 1)]


def match_pool(length: int, n: int, seed: int) -> list[dict]:
    """``n`` candidates of one entry of ``--match``: self-play positions (no bearoffs in match play), the scores
    of :func:`match_scores` in turn (shuffled), and a cube state each (see the module docstring)."""
    rng = np.random.default_rng([seed, 2, length])
    db = bearoff_db()
    positions = self_play_positions(2 * n if length else n, seed * 1000 + length)
    if length:
        positions = [p for p in positions if not db.is_bearoff(bgsage_board(p))][:n]
    scores = match_scores(length)
    order = rng.permutation(len(scores))
    out = []
    for i, pos in enumerate(positions):
        a = scores[int(order[i % len(scores)])]
        owned = rng.random() < 0.25
        if length == 0:
            st = {"kind": "owned" if owned else "money", "cube_value": 2 if owned else 1}
            st["owner"] = "player" if owned else "centered"
        else:
            post = a[1] == 1
            owned = owned and not post and bgbot_cpp.can_double_match(a[0], a[1], 2, bgbot_cpp.CubeOwner.PLAYER, False)
            st = {"kind": "match", "cube_value": 2 if owned else 1, "owner": "player" if owned else "centered"}
        out.append({"position": pos, "length": length, "away": a, **st})
    return out


def classes_of(eq) -> np.ndarray:
    """The selection class of every candidate (module docstring): clear pass, close, clear no double, other."""
    g, t = margins(eq)
    out = np.full(len(eq), "other", dtype=object)
    out[g < -0.15] = "clear no double"
    out[(np.abs(g) <= 0.15) | ((g >= -0.15) & (np.abs(t) <= 0.15))] = "close"
    out[t < -0.15] = "clear pass"
    return out


def select_covering(items, eq, n: int, rng) -> list[dict]:
    """The sample of one entry: first one candidate of every score (a close one where there is one, else of any
    class), then the rest by the selection rule (70% close, 15% clear no double, 15% clear pass overall)."""
    cls = classes_of(eq)
    chosen: list[int] = []
    for a in dict.fromkeys(it["away"] for it in items):
        idx = [i for i, it in enumerate(items) if it["away"] == a]
        close = [i for i in idx if cls[i] == "close"]
        chosen.append(int(rng.choice(close or idx)))
    want = {"close": round(0.7 * n), "clear no double": round(0.15 * n)}
    want["clear pass"] = n - want["close"] - want["clear no double"]
    for name in want:
        want[name] -= sum(cls[i] == name for i in chosen)
    want["close"] -= sum(cls[i] == "other" for i in chosen)
    taken = set(chosen)
    for name in ("close", "clear no double", "clear pass"):
        idx = [i for i in range(len(items)) if cls[i] == name and i not in taken]
        k = max(0, min(want[name], len(idx), n - len(chosen)))
        if len(idx) < want[name]:
            print(f"  only {len(idx)} more {name} candidates for {want[name]}: use a larger --pool", file=sys.stderr)
        pick = [int(i) for i in rng.choice(idx, size=k, replace=False)] if k else []
        chosen += pick
        taken.update(pick)
    return [{**items[i], "class": cls[i]} for i in chosen]


def per_position(eq, dec) -> tuple[np.ndarray, np.ndarray]:
    """Every position's doubler error and taker error (NaN where the taker's decision does not count), in
    units of the judge's normalised equity, of decisions ``dec`` (bool[n, 2])."""
    nd, dt, dp = eq[:, 0], eq[:, 1], eq[:, 2]
    g, _ = margins(eq)
    derr = np.maximum(nd, np.minimum(dt, dp)) - np.where(dec[:, 0], np.minimum(dt, dp), nd)
    terr = np.maximum(-dt, -dp) - np.where(dec[:, 1], -dt, -dp)
    return derr, np.where(g >= -0.10, terr, np.nan)


def summary(derr, terr) -> dict:
    """Means (mp) with 95% intervals: doubler, taker, and the sum per position (module docstring)."""

    def mean_ci(e):
        if len(e) == 0:
            return float("nan"), float("nan")
        ci = 1.96 * e.std(ddof=1) / np.sqrt(len(e)) if len(e) > 1 else float("nan")
        return round(1000 * float(e.mean()), 3), round(1000 * float(ci), 3)

    t = terr[~np.isnan(terr)]
    s = derr + np.nan_to_num(terr)
    (dm, dci), (tm, tci), (sm, sci) = mean_ci(derr), mean_ci(t), mean_ci(s)
    return {
        "doubler_mp": dm,
        "doubler_ci": dci,
        "n": len(derr),
        "taker_mp": tm,
        "taker_ci": tci,
        "taker_n": len(t),
        "sum_mp": sm,
        "sum_ci": sci,
    }


def match_main(args) -> dict:
    """``--match``: sample every entry, judge it, ask every player, print and return the figures."""
    t0 = time.perf_counter()
    lengths = [0 if s in ("money", "0") else int(s) for s in args.match.split(",") if s]
    items: list[dict] = []
    for length in lengths:
        rng = np.random.default_rng([args.seed, 3, length])
        pool = match_pool(length, args.pool or 8 * args.positions, args.seed)
        eq1, _ = judge(pool, "1ply", args.threads)
        items += select_covering(pool, eq1, args.positions, rng)
    eq, jprobs = judge(items, args.judge, args.threads)
    print(f"{len(items)} positions judged at bgsage {args.judge} ({time.perf_counter() - t0:.0f} s)", flush=True)
    rows: dict[str, tuple[np.ndarray, float]] = {}
    nprobs: dict[str, list] = {}
    for level in [s for s in args.levels.split(",") if s]:
        t1 = time.perf_counter()
        bot = Bot("backgammon", level=level, weights=args.weights)
        nprobs[f"nardy {level}"] = []
        rows[f"nardy {level}"] = (bot_decisions(bot, items, nprobs[f"nardy {level}"]), time.perf_counter() - t1)
        print(f"  nardy {level}: {rows[f'nardy {level}'][1]:.0f} s", flush=True)
    for ply in BGSAGE_REFERENCES:
        t1 = time.perf_counter()
        req, _ = judge(items, ply, args.threads)
        rows[f"bgsage {ply}"] = (
            np.stack([np.minimum(req[:, 1], req[:, 2]) > req[:, 0], req[:, 1] <= req[:, 2]], 1),
            time.perf_counter() - t1,
        )
    if not args.no_reference:
        rows["formula on judge probs"] = (formula_decisions(items, jprobs), 0.0)
    length_of = np.array([it["length"] for it in items])
    post = np.array([it["away"][1] == 1 for it in items])
    out: dict = {"positions": len(items), "seed": args.seed, "judge": args.judge, "lengths": lengths, "rows": {}}
    losses: dict[str, dict] = {}
    for name, (dec, secs) in rows.items():
        derr, terr = per_position(eq, dec)
        losses[name] = {
            "doubler": derr.round(6).tolist(),
            "taker": [None if np.isnan(v) else round(float(v), 6) for v in terr],
            "double": dec[:, 0].tolist(),
            "take": dec[:, 1].tolist(),
            **({"probs": nprobs[name]} if name in nprobs else {}),
        }
        r = {
            ("money" if n == 0 else f"{n}-point"): summary(derr[length_of == n], terr[length_of == n]) for n in lengths
        }
        m = length_of > 0
        if m.any():
            r["match, all"] = summary(derr[m], terr[m])
            r["match, post-Crawford"] = summary(derr[m & post], terr[m & post])
        r["s"] = round(secs, 1)
        out["rows"][name] = r
    for part in next(iter(out["rows"].values())):
        if part == "s":
            continue
        print(f"-- {part} ({out['rows'][next(iter(rows))][part]['n']} positions):")
        for name, r in out["rows"].items():
            x = r[part]
            print(
                f"  {name:<24} doubler {x['doubler_mp']:6.2f} ± {x['doubler_ci']:5.2f}  taker {x['taker_mp']:6.2f} ± "
                f"{x['taker_ci']:5.2f} (n {x['taker_n']:3d})  sum {x['sum_mp']:6.2f} ± {x['sum_ci']:5.2f} mp"
            )
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    if args.results:
        Path(args.results).write_text(
            json.dumps(
                {
                    **{k: out[k] for k in ("positions", "seed", "judge", "lengths")},
                    "ids": [it["position"].id() for it in items],
                    "length": length_of.tolist(),
                    "away": [list(it["away"]) for it in items],
                    "cube": [[it["cube_value"], it["owner"]] for it in items],
                    "classes": [it["class"] for it in items],
                    "judge_eq": eq.round(6).tolist(),
                    "judge_probs": jprobs.round(6).tolist(),
                    "losses": losses,
                }
            )
        )
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=500)
    ap.add_argument("--pool", type=int, default=0, help="candidates screened (default 8 x --positions)")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--judge", default="3ply", choices=("1ply", "2ply", "3ply", "4ply"))
    ap.add_argument("--threads", type=int, default=1, help="bgsage threads")
    ap.add_argument("--levels", default=",".join(LEVELS))
    ap.add_argument("--weights", default=None, help="nardy weights (.npz) instead of the shipped ones")
    ap.add_argument("--no-reference", action="store_true", help="skip the gnubg-nn and judge-probability rows")
    ap.add_argument("--results", default=None, help="also write every position's judge equities and decisions")
    ap.add_argument("--match", default=None, help="match mode: entries money,3,5,7,11 (--positions each)")
    args = ap.parse_args(argv)
    if args.match:
        print(json.dumps(match_main(args)))
        return
    t0 = time.perf_counter()
    rng = np.random.default_rng([args.seed, 1])
    pool = cube_states(self_play_positions(args.pool or 8 * args.positions, args.seed), rng)
    eq1, _ = judge(pool, "1ply", args.threads)
    items = select(pool, eq1, args.positions, rng)
    eq, jprobs = judge(items, args.judge, args.threads)
    t_judge = time.perf_counter() - t0
    kinds = np.array([it["kind"] for it in items])
    race = np.array([bool(is_race(it["position"].array, True)) for it in items])
    g, t = margins(eq)
    print(
        f"{len(items)} cube positions (seed {args.seed}; money centred {np.sum(kinds == 'money')}, owned "
        f"{np.sum(kinds == 'owned')}, {MATCH_LENGTH}-point match {np.sum(kinds == 'match')}; race "
        f"{race.sum()}); judge bgsage {args.judge}: double {np.sum(g > 0)}, of them pass {np.sum((g > 0) & (t < 0))}"
        f" ({t_judge:.0f} s)"
    )
    rows, decisions = {}, {}
    for level in [s for s in args.levels.split(",") if s]:
        t1 = time.perf_counter()
        bot = Bot("backgammon", level=level, weights=args.weights)
        decisions[level] = bot_decisions(bot, items)
        rows[f"nardy {level}"] = (decisions[level], time.perf_counter() - t1)
    if not args.no_reference:
        rows["formula on judge probs"] = (formula_decisions(items, jprobs), 0.0)
        for plies in (0, 2):
            gp = np.array([gnubg_nn.probabilities(gnubg_board(it["position"]), plies) for it in items])
            rows[f"formula on gnubg-nn {plies}-ply"] = (formula_decisions(items, gp), 0.0)
    out = {"positions": len(items), "seed": args.seed, "judge": args.judge, "rows": {}}
    money = kinds != "match"
    for name, (dec, secs) in rows.items():
        s = score(eq, dec, money)
        out["rows"][name] = {
            "money": s,
            "match": score(eq, dec, ~money),
            "all": score(eq, dec),
            "money_race": score(eq, dec, money & race),
            "money_contact": score(eq, dec, money & ~race),
            "s": round(secs, 1),
        }
    for part in ("money", "money_contact", "money_race", "match"):
        print(f"-- {part}:")
        for name, r in out["rows"].items():
            print("  " + line(name, r[part]))
    out["wall_s"] = round(time.perf_counter() - t0, 1)
    if args.results:
        Path(args.results).write_text(
            json.dumps(
                {
                    "judge_eq": eq.tolist(),
                    "judge_probs": jprobs.tolist(),
                    "kinds": kinds.tolist(),
                    "race": race.tolist(),
                    "classes": [it["class"] for it in items],
                    "away": [list(it["away"]) for it in items],
                    "ids": [it["position"].id() for it in items],
                    "decisions": {k: v[0].tolist() for k, v in rows.items()},
                }
            )
        )
    print(json.dumps(out))


if __name__ == "__main__":
    main()

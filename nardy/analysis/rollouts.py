"""Rollouts of an analysis' decisions worth one (issue 45): the marked decisions' top candidates played out.

An analysis (:mod:`nardy.analysis.core`) judges every decision at a search depth; where it marks a decision
(doubtful, error, blunder) a **rollout** is the stronger judge. :func:`rollout_analysis` takes an analysis (the
dict of :meth:`~nardy.analysis.results.MatchAnalysis.to_dict`, or the object) and its match, and

* chooses the decisions: the marked ones (``which="marked"``) or every decision that is not forced
  (``which="all"``);
* for a checker play rolls out the ``candidates`` best plays of the analysis plus the play made (the position
  after each play, the opponent on roll), for a cube decision the position before the roll (the doubler on
  roll), the net at 0-ply on both sides, the first roll
  stratified over the 36 rolls (the first two with 1,296 trials), **variance reduction** (each roll's luck
  subtracted, as GNU Backgammon's rollouts), optional **truncation** after ``truncate`` plies, dice from a seed
  (the candidates of one decision share their dice: common random numbers, so their differences are less
  noisy than the figures themselves);
* where the cube is **live** (in use, not a Crawford game, either side may still double) plays the trials
  with the cube in play (:func:`nardy.flow.cuberollout.cubeful_rollout`: 0-ply cube actions through
  :func:`nardy.flow.cubetheory.cube_decision` at the score, a pass ending the trial, each game counted at the
  cube's final value or from the match equity table, truncation at the cubeful 0-ply value, variance
  reduction by each roll's cubeful luck); a checker play's position with the cube as it was (the opponent
  on roll), a cube decision's twice ("no double": no double at the first turn; "double/take": the cube
  doubled and owned by the taker; "double/pass" is exact). The figures are the trials' mean, normalised per
  the decision's cube, with a 95% interval of 1.96 standard errors of the trials' results;
* where the cube is **dead** (long nardy, no cube, a Crawford game) plays them cubeless with
  :func:`nardy.engine.rollout.rollout_boards` and turns the rolled-out probabilities into the analysis'
  units the way the analysis does at n-ply (:class:`nardy.analysis.cubeful._Ctx`); the interval: the
  trials run in ``B`` batches (2 to 8, 36 trials or more each, seeds from the decision's seed), the
  cubeless equity's standard error from all trials scaled to the cubeful figure by the ratio of the two
  figures' spreads over the batches (1 in money play, where the two are the same figure);
* writes ``"rollout"`` into each decision (``docs/analysis.md``; the contract of the report): for checker plays
  ``{"trials", "truncation", "cubeful", "level", "seed", "variance_reduction", "candidates": [{"play",
  "equity", "ci", "probs", ...}], "best", "equity_loss", "mark"}``, for cube decisions ``{..., "nd", "dt",
  "dp", "ci", "double", "take"}``; where the rolled-out figures mark the decision otherwise, the decision's
  ``equity_loss``, ``mwc_loss``, ``mark``, ``best`` and ``error_kind`` become the rollout's, and the n-ply
  figures stay beside them under ``"nply"``; the players' error counts and rates are recomputed.

Work runs one decision per task: in this process (``workers=1``), on local processes (``workers > 1``, each
kernel on one thread), or on a Ray cluster (``address``; ``"local"`` starts Ray on this machine). Results do
not depend on where they ran (the dice come from the seed only). Each decision's result is written to a
``checkpoint`` (JSON) as it finishes; a run with ``resume=True`` keeps the decisions done and rolls out the
rest, and gives exactly the figures of one uninterrupted run.
"""

from __future__ import annotations

import copy
import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np

from ..engine.evaluator import OUTPUT_NAMES, flip_probs, money_equity
from ..flow.cubetheory import decide
from ..rules.errors import NardyError
from ..rules.position import Position
from .core import _emg
from .cubeful import _Ctx
from .results import THRESHOLDS, mark_of, rating_of

__all__ = [
    "DEFAULT_TRIALS",
    "DEFAULT_CANDIDATES",
    "MAX_TRIALS",
    "RolloutError",
    "select_decisions",
    "rollout_analysis",
    "roll_unit",
    "batch_sizes",
]

#: Trials per rolled-out position by default (a multiple of 36: every first roll equally often).
DEFAULT_TRIALS = 324
#: Candidates rolled out per checker decision by default (plus the play made).
DEFAULT_CANDIDATES = 3
#: The most trials a position may be given here.
MAX_TRIALS = 1_000_000
#: The marks that make a decision worth a rollout.
MARKS = tuple(name for name, _ in THRESHOLDS)
#: The largest number of batches a position's trials are cut into (for the cubeful interval).
MAX_BATCHES = 8
#: How the cube enters the rollouts (part of a checkpoint's key).
CUBE_METHOD = "cubeful trials where the cube is live"
#: The format name of a checkpoint file.
CHECKPOINT_FORMAT = "nardy-rollout-checkpoint"
_MAX_SEED = 2**63 - 1


class RolloutError(NardyError, ValueError):
    """Rollouts that cannot be made as asked: bad settings, a checkpoint of another run, an analysis that
    does not fit its match, or Ray missing."""

    default_code = "bad_rollout"


# ----- the work of one decision (runs anywhere: plain data in, plain data out) ---------------------------------
def batch_sizes(trials: int) -> list[int]:
    """The trials of one position cut into batches: ``min(8, trials // 36)`` batches (2 at least, 1 for a
    single trial) of whole blocks of 36 trials as far as they go (so each batch stratifies the first roll
    when ``trials`` is a multiple of 36), the remainder in the last."""
    if trials < 2:
        return [trials]
    blocks = trials // 36
    b = max(2, min(MAX_BATCHES, blocks))
    if blocks >= b:
        sizes = [36 * (blocks // b + (1 if i < blocks % b else 0)) for i in range(b)]
        sizes[-1] += trials - 36 * blocks
        return sizes
    return [trials // b + (1 if i < trials % b else 0) for i in range(b)]


def _batch_seed(seed: int, b: int) -> int:
    return (int(seed) * 17 + b) % _MAX_SEED


_NETS: dict = {}


def _net(game: str, weights: str | None):
    from ..engine.net import Net, shipped_path

    key = (game, weights)
    if key not in _NETS:
        _NETS[key] = Net.load(weights or shipped_path(game))
    return _NETS[key]


class _Stopped(Exception):
    """A decision's rollout stopped between batches (its deadline passed): nothing of it is kept."""


def roll_unit(unit: dict, stop: Callable[[], bool] | None = None) -> dict:
    """Roll out the positions of one decision (plain data, so that it runs in another process or on Ray).

    Args:
        unit: ``{"index", "game", "boards" (int lists [28], on-roll view), "firsts" ([bool, bool] each),
            "trials", "truncate", "seed", "vr", "weights" (a net file or None: the shipped net), "threads"
            (kernel threads, 0: as they are)}``. stop: asked between batches (in this process only); when it
            says so the decision is given up (:class:`_Stopped`).
    Returns:
        ``{"index", "seconds", "rolls": [{"mean" (K floats, on-roll view), "se" (standard error of the cubeless
        money equity), "batches" ([K floats] per batch), "sizes" (trials per batch), "cut"}]}``.
    """
    from ..engine.rollout import rollout_boards

    if unit.get("threads"):
        import numba

        before = numba.get_num_threads()  # per thread: given back, the thread may search for a bot next
        numba.set_num_threads(max(1, min(int(unit["threads"]), numba.config.NUMBA_NUM_THREADS)))
        try:
            return roll_unit({**unit, "threads": 0}, stop)
        finally:
            numba.set_num_threads(before)
    t0 = time.perf_counter()
    net = _net(unit["game"], unit.get("weights"))
    sizes = batch_sizes(int(unit["trials"]))
    rolls = []
    cubes = unit.get("cubes") or [None] * len(unit["boards"])
    for board, first, cube in zip(unit["boards"], unit["firsts"], cubes):
        if cube is not None:
            rolls.append(_cubeful_roll(unit, board, first, cube, sizes, stop))
            continue
        b = np.asarray(board, np.int8).reshape(1, 28)
        f = np.asarray(first, np.bool_).reshape(1, 2)
        means, ses, cut = [], [], 0
        for i, n in enumerate(sizes):
            if stop is not None and stop():
                raise _Stopped()
            m, se, c = rollout_boards(
                net, b, f, n, _batch_seed(unit["seed"], i), int(unit["truncate"]), bool(unit["vr"])
            )
            means.append(m[0].astype(np.float64))
            ses.append(float(se[0]))
            cut += int(c[0])
        w = np.asarray(sizes, np.float64)
        mean = (np.stack(means) * w[:, None]).sum(0) / w.sum()
        se = math.sqrt(sum((n * s) ** 2 for n, s in zip(sizes, ses))) / w.sum()
        rolls.append(
            {
                "mean": [float(x) for x in mean],
                "se": float(se),
                "batches": [[float(x) for x in m] for m in means],
                "sizes": sizes,
                "cut": cut,
            }
        )
    return {"index": unit["index"], "rolls": rolls, "seconds": time.perf_counter() - t0}


_SEARCHERS: dict = {}


def _searcher(game: str, weights: str | None):
    from ..engine.evaluator import NeuralEvaluator
    from ..engine.search import Searcher
    from ..rules.variants import get_rules

    key = (game, weights)
    if key not in _SEARCHERS:
        _SEARCHERS[key] = Searcher(NeuralEvaluator(_net(game, weights)), get_rules(game))
    return _SEARCHERS[key]


def _cubeful_roll(unit: dict, board, first, cube: dict, sizes: list[int], stop) -> dict:
    """One position rolled out with the cube in play (:func:`nardy.flow.cuberollout.cubeful_rollout`), in
    ``sizes`` batches (seeds as the cubeless batches'; ``stop`` asked between them).

    ``cube``: ``{"turn", "value", "owner", "jacoby", "limit", "score", "length", "no_double_first"}``.
    Returns ``{"cubeful": True, "value" (mean, the side on roll's view, native units), "se", "mean" (cubeless
    outcome probabilities, the side on roll's view), "sizes", "doubles", "passes", "cut"}``."""
    from ..flow.cuberollout import cubeful_rollout
    from ..flow.cubetheory import CubeState
    from ..rules.variants import get_rules

    rules = get_rules(unit["game"])
    pos = Position(np.asarray(board, np.int8).tobytes(), rules, (bool(first[0]), bool(first[1])))
    state = CubeState(
        pos,
        turn=int(cube["turn"]),
        cube_value=int(cube["value"]),
        cube_owner=None if cube["owner"] is None else int(cube["owner"]),
        enabled=True,
        jacoby=bool(cube["jacoby"]),
        cube_limit=cube["limit"],
        score=(int(cube["score"][0]), int(cube["score"][1])),
        length=int(cube["length"]),
    )
    searcher = _searcher(unit["game"], unit.get("weights"))
    values, probs, doubles, passes, cut = [], [], 0, 0, 0
    for i, n in enumerate(sizes):
        if stop is not None and stop():
            raise _Stopped()
        r = cubeful_rollout(
            state,
            searcher,
            n,
            _batch_seed(unit["seed"], i),
            int(unit["truncate"]),
            bool(unit["vr"]),
            bool(cube.get("no_double_first")),
        )
        values.append(r.values)
        probs.append(r.probs * n)
        doubles, passes, cut = doubles + r.doubles, passes + r.passes, cut + r.cut_off
    v = np.concatenate(values)
    se = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else 0.0
    return {
        "cubeful": True,
        "value": float(v.mean()),
        "se": se,
        "mean": [float(x) for x in np.sum(probs, axis=0) / len(v)],
        "sizes": sizes,
        "doubles": doubles,
        "passes": passes,
        "cut": cut,
    }


def _init_worker():
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle


# ----- choosing and planning -------------------------------------------------------------------------------------
def _decisions(data: dict) -> list[dict]:
    """The decision dicts of an analysis, in order (the flat ``decisions`` list of ``MatchAnalysis.to_dict``;
    or per game, where an analysis nests them there)."""
    if isinstance(data.get("decisions"), list):
        return data["decisions"]
    out: list[dict] = []
    for g in data.get("games", []):
        out += g.get("decisions", [])
    return out


def select_decisions(data: dict, which: str = "marked") -> list[int]:
    """Indexes (into the analysis' decisions) of those worth a rollout: ``"marked"`` the doubtful ones, errors
    and blunders; ``"all"`` every decision that is not forced (checker plays with a choice, cube decisions).

    Raises:
        RolloutError: ``which`` is neither.
    """
    if which not in ("marked", "all"):
        raise RolloutError(f"which decisions: {which!r}; expected 'marked' or 'all'")
    out = []
    for i, d in enumerate(_decisions(data)):
        if d.get("forced"):
            continue
        if d["kind"] == "checker" and not (d.get("dice") and d.get("candidates")):
            continue
        if which == "all" or d.get("mark") in MARKS:
            out.append(i)
    return out


def _ctx_of(match, rules, d: dict) -> _Ctx:
    """The cube and score around decision ``d`` (the analysis' own: its game's cube settings, the score before
    it, the cube's value and owner it records)."""
    gi = int(d["game"]) - 1
    if not 0 <= gi < len(match.games):
        raise RolloutError(f"the analysis names game {gi + 1}; the match has {len(match.games)}")
    g = match.games[gi]
    score = match.score_before(gi)
    post = bool(match.length) and any(h.crawford for h in match.games[:gi]) and not g.crawford
    cube = d.get("cube") or {}
    shim = SimpleNamespace(
        cube_value=int(cube.get("value", 1)),
        cube_owner=cube.get("owner"),
        cube_enabled=g.cube_enabled,
        crawford=g.crawford,
        jacoby=g.jacoby,
        cube=SimpleNamespace(limit=g.cube.limit),
    )
    return _Ctx(rules, match.length, score, cast(Any, shim), post)  # the attributes of a Game it reads


def _plan(data: dict, match, indexes: list[int], n_cands: int) -> list[dict]:
    """Per chosen decision what is rolled out: ``{"index", "kind", "items": [...], "ctx", "player"}``; an
    item is a play ``{"play", "result" (Position), "roll" (position rolled out, on-roll view, or None for a
    finished game), "probs" (exact, finished games)}`` or the cube's ``{"roll": Position}``."""
    rules = match.rules
    game = rules.name
    plans = []
    decisions = _decisions(data)
    for i in indexes:
        d = decisions[i]
        try:
            pos = Position.from_id(d["position"], rules)
        except (NardyError, ValueError) as e:
            raise RolloutError(f"decision {i}: position {d['position']!r}: {e}") from None
        ctx = _ctx_of(match, rules, d)
        plan: dict[str, Any] = {"index": i, "kind": d["kind"], "ctx": ctx, "where": f"{d['position']} {d.get('dice')}"}
        if d["kind"] == "checker":
            plays = [c["play"] for c in d["candidates"][:n_cands]]
            if d.get("played") and d["played"] not in plays:
                plays.append(d["played"])
            items = []
            for text in plays:
                try:
                    play = pos.parse_play(text, tuple(d["dice"]))
                except (NardyError, ValueError) as e:
                    raise RolloutError(f"decision {i}: play {text!r}: {e}") from None
                res = play.result
                item: dict[str, Any] = {"play": text, "result": res, "roll": None}
                if res.mover[0] >= 15 or res.is_game_over():
                    cand = next((c for c in d["candidates"] if c["play"] == text), None)
                    if cand is None or not isinstance(cand.get("probabilities"), dict):
                        raise RolloutError(f"decision {i}: no figures for the finishing play {text!r}")
                    item["probs"] = np.array([cand["probabilities"][n] for n in OUTPUT_NAMES[game]], np.float64)
                else:
                    item["roll"] = res.mirror()
                items.append(item)
            plan["items"] = items
            plan["player"] = d["player"]
        else:
            plan["items"] = [{"roll": pos}]
            plan["player"] = d["player"] if d["action"] == "double" else 1 - d["player"]
        plans.append(plan)
    return plans


def _decision_seed(seed: int, where: str) -> int:
    """The dice's seed of one decision: from the run's seed and the decision's position and roll (so a
    double and its take, the same position, are rolled out with the same dice)."""
    h = int(hashlib.sha256(where.encode()).hexdigest()[:15], 16)
    return (int(seed) * 1_000_003 + h) % _MAX_SEED


def _cube_of(ctx: _Ctx, turn: int, value: int, owner, no_double_first: bool = False) -> dict:
    return {
        "turn": int(turn),
        "value": int(value),
        "owner": owner,
        "jacoby": bool(ctx.jacoby),
        "limit": ctx.limit,
        "score": [int(ctx.score[0]), int(ctx.score[1])],
        "length": int(ctx.length or 0),
        "no_double_first": bool(no_double_first),
    }


def _unit(plan: dict, game: str, settings: dict) -> dict:
    """The plain-data work of one decision: its positions, and for each the cube it is rolled out with
    (``None``: cubeless, the cube dead). Where the cube is live a checker play's position is rolled out with
    the cube as it was (the opponent on roll), a cube decision twice: "no double" (the doubler on roll, no
    double at its first turn) and "double/take" (the cube doubled, the taker owning it)."""
    ctx, player = plan["ctx"], plan["player"]
    rolls = [it["roll"] for it in plan["items"] if it["roll"] is not None]
    cubes: list = [None] * len(rolls)
    if plan["kind"] == "cube" and ctx.enabled and not ctx.crawford:
        rolls = rolls * 2
        cubes = [
            _cube_of(ctx, player, ctx.cube_value, ctx.owner, no_double_first=True),
            _cube_of(ctx, player, 2 * ctx.cube_value, 1 - player),
        ]
    elif plan["kind"] == "checker" and _cube_live(ctx, player):
        cubes = [_cube_of(ctx, 1 - player, ctx.cube_value, ctx.owner) for _ in rolls]
    return {
        "index": plan["index"],
        "game": game,
        "boards": [[int(x) for x in p.array] for p in rolls],
        "firsts": [[bool(p.first_turn[0]), bool(p.first_turn[1])] for p in rolls],
        "cubes": cubes,
        "trials": settings["trials"],
        "truncate": settings["truncate"],
        "seed": _decision_seed(settings["seed"], plan["where"]),
        "vr": settings["variance_reduction"],
        "weights": settings.get("weights"),
        "threads": 0,
    }


# ----- figures from the rolled-out probabilities ------------------------------------------------------------
def _norm(v: float, player: int, ctx: _Ctx) -> float:
    """A native value (points times the cube, or MWC) as normalised equity (the analysis' units)."""
    return v * ctx.scale(player) if not ctx.length else _emg(v, player, ctx)


def _ratio(f_batches: list[float], e_batches: list[float]) -> float:
    """How much the cubeful figure spreads over the batches per unit of the cubeless equity's spread."""
    if len(e_batches) < 2:
        return 1.0
    se, sf = float(np.std(e_batches)), float(np.std(f_batches))
    return sf / se if se > 1e-12 else 1.0


def _cube_live(ctx: _Ctx, player: int) -> bool:
    return bool(ctx.enabled and not ctx.crawford and (ctx.can_double(player) or ctx.can_double(1 - player)))


def _level(settings: dict, cubeful: bool = False) -> str:
    """How a figure was made (the ``level`` of the contract)."""
    if cubeful:
        parts = ["cubeful rollout: the net at 0-ply on both sides, the cube in play (0-ply cube decisions)"]
    else:
        parts = ["rollout: the net at 0-ply on both sides, cubeless play"]
    if settings["variance_reduction"]:
        parts.append("variance reduction")
    if settings["truncate"]:
        parts.append(f"truncated at {settings['truncate']} plies" + (" (cubeful 0-ply value)" if cubeful else ""))
    else:
        parts.append("played to the end")
    if cubeful:
        return ", ".join(parts)
    return ", ".join(parts) + "; cubeful figures from the rolled-out probabilities (Janowski / match equity table)"


def _mover_native(v_root: float, ctx: _Ctx) -> float:
    """The mover's native value from its opponent's (the side on roll after the play)."""
    return 1.0 - v_root if ctx.length else -v_root


def _checker_figures(plan: dict, raw: dict, game: str, settings: dict, d: dict) -> tuple[dict, float, float]:
    """The ``rollout`` dict of a checker decision, and the play made's loss (normalised, native)."""
    ctx, player = plan["ctx"], plan["player"]
    values = ctx.values
    rolls = iter(raw["rolls"])
    cands = []
    for it in plan["items"]:
        res = it["result"]
        if it["roll"] is None:
            probs = it["probs"]
            v = ctx.value_after_play(probs, res, player)
            cands.append({"play": it["play"], "native": v, "equity": _norm(v, player, ctx), "ci": 0.0, "p": probs})
            continue
        r = next(rolls)
        probs = flip_probs(np.asarray(r["mean"], np.float64), game)
        if r.get("cubeful"):  # rolled out with the cube in play: its mean is the figure itself
            v = _mover_native(float(r["value"]), ctx)
            ci = 1.96 * float(r["se"]) * abs(ctx.scale(player))
            cands.append({"play": it["play"], "native": v, "equity": _norm(v, player, ctx), "ci": ci, "p": probs})
            continue
        v = ctx.value_after_play(probs, res, player)
        fb, eb = [], []
        for m in r["batches"]:
            pm = flip_probs(np.asarray(m, np.float64), game)
            fb.append(_norm(ctx.value_after_play(pm, res, player), player, ctx))
            eb.append(float(money_equity(pm, game, values)))
        ci = 1.96 * r["se"] * _ratio(fb, eb)
        cands.append({"play": it["play"], "native": v, "equity": _norm(v, player, ctx), "ci": ci, "p": probs})
    cands.sort(key=lambda c: -c["native"])
    best = cands[0]
    made = next((c for c in cands if c["play"] == d.get("played")), None)
    native_loss = max(0.0, best["native"] - made["native"]) if made is not None else 0.0
    loss = native_loss * ctx.scale(player)
    out_cands = []
    for c in cands:
        e: dict[str, Any] = {
            "play": c["play"],
            "equity": round(c["equity"], 6),
            "ci": round(c["ci"], 6),
            "probs": [round(float(x), 6) for x in c["p"]],
            "loss": round((best["native"] - c["native"]) * ctx.scale(player), 6),
        }
        if ctx.length:
            e["mwc"] = round(c["native"], 6)
        out_cands.append(e)
    live = _cube_live(ctx, player)
    ro = {
        "trials": settings["trials"],
        "truncation": settings["truncate"],
        "cubeful": live,
        "level": _level(settings, live and any(r.get("cubeful") for r in raw["rolls"])),
        "seed": settings["seed"],
        "variance_reduction": settings["variance_reduction"],
        "candidates": out_cands,
        "best": best["play"],
    }
    return ro, loss, native_loss


def _cube_figures(plan: dict, raw: dict, game: str, settings: dict) -> tuple[dict, dict]:
    """The ``rollout`` dict of a cube decision and the native ND/DT/DP (doubler's view)."""
    ctx, player = plan["ctx"], plan["player"]
    pos = plan["items"][0]["roll"]
    r = raw["rolls"][0]
    probs = np.asarray(r["mean"], np.float64)
    cubeful = bool(r.get("cubeful"))
    if cubeful:  # "no double" and "double/take" rolled out with the cube in play; "double/pass" is exact
        nd, dt = raw["rolls"][0], raw["rolls"][1]
        eqs = {
            "no double": float(nd["value"]),
            "double/take": float(dt["value"]),
            "double/pass": float(ctx.cube_value) if not ctx.length else ctx.win_lose(player)[0],
        }
        double, take = decide(eqs)
        dec = SimpleNamespace(double=double, take=take)
        ci = 1.96 * max(float(nd["se"]), float(dt["se"])) * abs(ctx.scale(player))
    else:
        eqs, dec = ctx.decision(probs, pos, player)
        spreads: dict[str, list[float]] = {k: [] for k in eqs}
        eb = []
        for m in r["batches"]:
            pm = np.asarray(m, np.float64)
            be, _ = ctx.decision(pm, pos, player)
            for k in eqs:
                spreads[k].append(_norm(be[k], player, ctx))
            eb.append(float(money_equity(pm, game, ctx.values)))
        ci = 1.96 * r["se"] * max(_ratio(spreads[k], eb) for k in eqs)
    ro = {
        "trials": settings["trials"],
        "truncation": settings["truncate"],
        "cubeful": bool(ctx.enabled and not ctx.crawford),
        "level": _level(settings, cubeful),
        "seed": settings["seed"],
        "variance_reduction": settings["variance_reduction"],
        "nd": round(_norm(eqs["no double"], player, ctx), 6),
        "dt": round(_norm(eqs["double/take"], player, ctx), 6),
        "dp": round(_norm(eqs["double/pass"], player, ctx), 6),
        "ci": round(ci, 6),
        "double": bool(dec.double),
        "take": bool(dec.take),
        "probs": [round(float(x), 6) for x in probs],
    }
    return ro, eqs


def _apply(data: dict, plan: dict, raw: dict, settings: dict) -> None:
    """Write the rollout of one decision into ``data`` and re-mark it by the rolled-out figures."""
    d = _decisions(data)[plan["index"]]
    game = data["game"]
    ctx, player = plan["ctx"], plan["player"]
    nply = {k: d.get(k) for k in ("equity_loss", "mwc_loss", "mark", "best", "error_kind")}
    if d["kind"] == "checker":
        ro, loss, native_loss = _checker_figures(plan, raw, game, settings, d)
        best, kind = ro["best"], d.get("error_kind", "")
    else:
        ro, eqs = _cube_figures(plan, raw, game, settings)
        dbl = min(eqs["double/take"], eqs["double/pass"])
        if d["action"] == "double":
            optimal = dbl if ro["double"] else eqs["no double"]
            chosen = dbl if d["played"] == "double" else eqs["no double"]
            native_loss = max(0.0, optimal - chosen)
            loss = native_loss * ctx.scale(player)
            best = "double" if ro["double"] else "no double"
            if ro["double"]:
                best += ", take" if ro["take"] else ", pass"
            kind = ("wrong double" if d["played"] == "double" else "missed double") if loss > 1e-9 else ""
        else:
            chosen = eqs["double/take"] if d["played"] == "take" else eqs["double/pass"]
            native_loss = max(0.0, chosen - dbl)
            loss = native_loss * ctx.scale(d["player"])
            best = "take" if ro["take"] else "pass"
            kind = ("wrong take" if d["played"] == "take" else "wrong pass") if loss > 1e-9 else ""
    mark = mark_of(loss) if d.get("counted") else ""
    ro["equity_loss"] = round(loss, 6)
    ro["mark"] = mark
    d["rollout"] = ro
    d["nply"] = nply
    d["equity_loss"] = round(loss, 6)
    if ctx.length:
        d["mwc_loss"] = round(native_loss, 6)
    d["mark"] = mark
    d["best"] = best
    d["error_kind"] = kind


def _recount(data: dict) -> None:
    """The players' error counts, losses and rates again from the decisions (after re-marking)."""
    decisions = _decisions(data)
    for k, p in enumerate(data.get("players", [])):
        mine = [d for d in decisions if d["player"] == k and d.get("counted")]
        total = sum(float(d["equity_loss"] or 0.0) for d in mine)
        chk = [d for d in mine if d["kind"] == "checker"]
        cub = [d for d in mine if d["kind"] == "cube"]
        n = len(mine)
        rate = 1000.0 * total / n if n else 0.0
        p["total_loss"] = round(total, 6)
        p["error_rate"] = round(rate, 3)
        p["pr"] = round(rate / 2.0, 3)
        p["rating"] = rating_of(rate)
        p["checker_error_rate"] = round(1000.0 * sum(d["equity_loss"] for d in chk) / len(chk), 3) if chk else 0.0
        p["cube_error_rate"] = round(1000.0 * sum(d["equity_loss"] for d in cub) / len(cub), 3) if cub else 0.0
        p["errors"] = {m: sum(1 for d in mine if d.get("mark") == m) for m in ("doubtful", "error", "blunder")}
        kinds = ("missed double", "wrong double", "wrong take", "wrong pass")
        p["cube_errors"] = {e: sum(1 for d in cub if d.get("error_kind") == e) for e in kinds}


# ----- the checkpoint -------------------------------------------------------------------------------------------
def _fingerprint(data: dict, plans: list[dict]) -> str:
    h = hashlib.sha256()
    h.update(str(data.get("game")).encode())
    for p in plans:
        d = _decisions(data)[p["index"]]
        rolled = [it["play"] if "play" in it else "cube" for it in p["items"]]
        h.update(json.dumps([p["index"], d["position"], d.get("dice"), rolled, d.get("cube")]).encode())
    return h.hexdigest()


def _load_checkpoint(path: Path, key: dict) -> dict:
    try:
        ck = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise RolloutError(f"{path}: not a rollout checkpoint ({e})") from None
    if not isinstance(ck, dict) or ck.get("format") != CHECKPOINT_FORMAT:
        raise RolloutError(f"{path}: not a rollout checkpoint")
    if ck.get("key") != key:
        raise RolloutError(
            f"{path} holds rollouts of another run (other decisions or settings); choose another file or remove it"
        )
    return {int(k): v for k, v in ck.get("results", {}).items()}


def _save_checkpoint(path: Path, key: dict, results: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    body = {"format": CHECKPOINT_FORMAT, "version": 1, "key": key, "results": {str(k): results[k] for k in results}}
    tmp.write_text(json.dumps(body), encoding="utf-8")
    tmp.replace(path)


# ----- running the units ---------------------------------------------------------------------------------------
def _run_local(units: list[dict], workers: int, put: Callable[[dict], None], deadline) -> None:
    if workers <= 1:
        stop = deadline.expired if deadline is not None else None
        for u in units:
            try:
                put(roll_unit(u, stop))
            except _Stopped:
                return
        return
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(min(workers, len(units)), initializer=_init_worker)
    try:
        for out in pool.imap_unordered(roll_unit, [{**u, "threads": 1} for u in units]):
            put(out)
            if deadline is not None and deadline.expired():
                break
        pool.close()
    finally:
        pool.terminate()
        pool.join()


def _run_ray(units: list[dict], address: str, workers: int, put: Callable[[dict], None], deadline) -> None:
    try:
        import ray
    except ImportError:
        raise RolloutError(
            "rollouts on Ray need the ray package: pip install 'nardy[train]' (or pip install ray)"
        ) from None
    started_here = not ray.is_initialized()
    if started_here:
        if address == "local":
            ray.init(num_cpus=workers or None, include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    pending: dict = {}
    try:
        remote = ray.remote(num_cpus=1)(roll_unit)
        cap = workers * 2 if workers else int(2 * ray.cluster_resources().get("CPU", 1))
        queue = [{**u, "threads": 1} for u in units]
        while queue or pending:
            if deadline is not None and deadline.expired():
                break
            while queue and len(pending) < cap:
                u = queue.pop(0)
                pending[remote.remote(u)] = u["index"]
            ready, _ = ray.wait(list(pending), num_returns=1)
            for r in ready:
                pending.pop(r)
                put(ray.get(r))
    finally:
        for r in pending:
            ray.cancel(r, force=True)
        if started_here:
            ray.shutdown()


def rollout_analysis(
    analysis,
    match,
    *,
    trials: int = DEFAULT_TRIALS,
    truncate: int = 0,
    candidates: int = DEFAULT_CANDIDATES,
    seed: int = 1,
    variance_reduction: bool = True,
    which: str = "marked",
    workers: int = 1,
    address: str | None = None,
    checkpoint=None,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    deadline=None,
    weights: str | None = None,
    only=None,
    threads: int = 0,
) -> dict:
    """Roll out the decisions of ``analysis`` worth it (see the module docstring) and return the analysis dict
    with the ``rollout`` figures written in (a copy: ``analysis`` is left as it was).

    Args:
        analysis: a :class:`~nardy.analysis.results.MatchAnalysis` or its ``to_dict()``; match: the
            :class:`~nardy.flow.match.Match` it analysed.
        trials: games per rolled-out position (1 to :data:`MAX_TRIALS`; multiples of 36 stratify the first roll).
        truncate: plies per game, then the net's view (0: to the end). candidates: the analysis' best plays
            rolled out per checker decision (1 to 20), plus the play made. seed: 0 to 2**63 - 1.
        which: ``"marked"`` or ``"all"``. workers: processes on this machine (1: this process, the kernel on all
            cores); with ``address`` the tasks in flight (0: twice the cluster's CPUs).
        address: a Ray cluster (``ray.init(address=...)``), or ``"local"`` to start Ray here.
        checkpoint: a JSON file each finished decision is saved to; with ``resume`` its decisions are kept
            (it must be of the same analysis and settings) and only the others are rolled out. A dict instead
            keeps them in memory the same way (``{"key", "results"}``: the server's rollouts).
        progress: ``progress(done, total)`` (decisions) after each. deadline: an object with ``expired()``
            (:class:`nardy.engine.search.Deadline`): no new decision is started after it (the answer then
            holds the decisions done; ``rollout_status`` says how many).
        weights: a net file to play with (default: the game's shipped net). only: indexes of decisions to
            keep of those ``which`` chooses (``None``: all of them). threads: kernel threads of a rollout in
            this process (0: numba's setting; a server gives 1; processes and Ray tasks always use 1).
    Returns:
        The analysis dict with ``rollout`` in the decisions rolled out, ``engine["rollout"]`` (the settings
        and method) and ``rollout_status`` ``{"done", "total", "complete", "seconds", "trials_per_second"}``.
    Raises:
        RolloutError: settings out of range, a checkpoint of another run, Ray missing; KeyboardInterrupt
            passes through (the checkpoint then holds every decision finished).
    """
    t0 = time.perf_counter()
    for name, v, lo, hi in (
        ("trials", trials, 1, MAX_TRIALS),
        ("truncate", truncate, 0, 100_000),
        ("candidates", candidates, 1, 20),
        ("seed", seed, 0, _MAX_SEED),
        ("workers", workers, 0, 1024),
    ):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise RolloutError(f"{name} must be a whole number from {lo} to {hi}, not {v!r}")
    data = copy.deepcopy(analysis if isinstance(analysis, dict) else analysis.to_dict())
    if data.get("game") != match.rules.name:
        raise RolloutError(f"the analysis is of {data.get('game')}, the match of {match.rules.name}")
    indexes = select_decisions(data, which)
    if only is not None:
        keep = {int(i) for i in only}
        indexes = [i for i in indexes if i in keep]
    plans = _plan(data, match, indexes, candidates)
    settings = {
        "trials": trials,
        "truncate": truncate,
        "candidates": candidates,
        "seed": seed,
        "variance_reduction": bool(variance_reduction),
        "which": which,
        "weights": weights,
        "only": None if only is None else sorted(indexes),
    }
    key = {k: v for k, v in settings.items() if k != "weights"}
    key["net"] = os.path.basename(weights) if weights else "shipped"
    key["cube"] = CUBE_METHOD  # checkpoints of the cubeless-with-conversion rollouts are of another run
    key["fingerprint"] = _fingerprint(data, plans)
    memory = checkpoint if isinstance(checkpoint, dict) else None
    path = Path(checkpoint) if checkpoint is not None and memory is None else None
    results: dict[int, dict] = {}
    if path is not None and resume and path.exists():
        results = _load_checkpoint(path, key)
    if memory is not None:
        if resume and memory.get("key") not in (None, key):
            raise RolloutError("the rollouts kept are of another run (other decisions or settings)")
        if resume and memory.get("key") == key:
            results = memory["results"]
        memory["key"], memory["results"] = key, results
    game = match.rules.name
    by_index = {p["index"]: p for p in plans}
    todo = [{**_unit(p, game, settings), "threads": threads} for p in plans if p["index"] not in results]
    total = len(plans)
    rolled_positions = sum(len(u["boards"]) for u in todo)
    if progress is not None:
        progress(len(results), total)

    def put(out: dict) -> None:
        i = int(out["index"])
        results[i] = {"rolls": out["rolls"], "seconds": round(float(out.get("seconds", 0.0)), 3)}
        if path is not None:
            _save_checkpoint(path, key, results)
        if progress is not None:
            progress(len(results), total)

    if path is not None and not results:
        _save_checkpoint(path, key, results)
    t_work = time.perf_counter()
    if todo:
        if address:
            _run_ray(todo, address, workers, put, deadline)
        else:
            _run_local(todo, workers or (os.cpu_count() or 1), put, deadline)
    work_seconds = time.perf_counter() - t_work
    for i in sorted(results):
        if i in by_index:
            _apply(data, by_index[i], results[i], settings)
    _recount(data)
    done_now = sum(len(u["boards"]) for u in todo if u["index"] in results)
    data.setdefault("engine", {})["rollout"] = {
        **{k: v for k, v in key.items() if k != "fingerprint"},
        "method": _level(settings, True) + " where the cube is live; " + _level(settings) + " where it is dead",
        "interval": "95%: 1.96 x the standard error over the trials; where the cube is live, of the trials' "
        "cubeful results (normalised); where it is dead, of the cubeless equity scaled by the cubeful figure's "
        "spread over the trials' batches",
    }
    data["rollout_status"] = {
        "done": len(results),
        "total": total,
        "complete": len(results) >= total,
        "seconds": round(time.perf_counter() - t0, 3),
        "trials_per_second": round(done_now * trials / work_seconds, 1) if done_now and work_seconds > 0 else None,
        "positions": rolled_positions,
    }
    return data

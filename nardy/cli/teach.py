"""``nardy teach``: label positions with a teacher and fit a net to them (see :mod:`nardy.training`).

Examples::

    # backgammon: 1.2M self-play positions and the real-mat records, labelled by bgsage 2-ply on all cores
    nardy teach label --game backgammon --self-play 1200000 --records ../shared/data/real-mat \\
        --teacher bgsage:2ply --seed 17 --out bg-bgsage2.npz
    # the same on a Ray cluster
    nardy teach label ... --ray HEAD:6379
    # fit a 128-unit net starting from the shipped one
    nardy teach fit bg-bgsage2.npz --hidden 128 --epochs 20 --init shipped --out bg.npz
    # add a second hidden layer of 64 units to the shipped 256-unit net (starts from its outputs)
    nardy teach fit bg-bgsage2.npz --hidden 256 --hidden2 64 --init shipped --out bg-deep.npz
    # keep the shipped nets and fit a 400-unit net for each game plan but priming (contact, not crashed)
    nardy teach fit bg-bgsage2.npz --init shipped --keep-main --plan-hidden 400 --plans 0,1,3,4 --out bg-plans.npz
"""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import click
import numpy as np

from .options import game_option, seed_option

__all__ = ["teach"]


def _plan_list(text: str) -> list[int]:
    """The game plans of ``--plans`` (``"0,1,3"`` -> ``[0, 1, 3]``, sorted, each 0..4 once).

    Raises:
        click.UsageError: not a comma-separated list of distinct plans 0..4.
    """
    try:
        ks = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        ks = []
    if not ks or len(set(ks)) != len(ks) or not all(0 <= k <= 4 for k in ks):
        raise click.UsageError(f"--plans {text!r}: expected distinct game plans 0..4, comma-separated (e.g. 0,1,3)")
    return sorted(ks)


@click.group("teach")
def teach():
    """Supervised training: label positions with a deeper teacher, fit a net to the labels."""


@teach.command("label")
@game_option("backgammon, short or long", required=True)
@click.option("--self-play", "self_play", default=0, type=click.IntRange(0, 10**9), help="positions from self-play")
@click.option("--eps", default=0.05, show_default=True, type=click.FloatRange(0, 1), help="random play share")
@click.option("--records", multiple=True, type=click.Path(exists=True), help="match records (files or folders) to add")
@click.option(
    "--teacher",
    "-t",
    default="search:2",
    show_default=True,
    help="search:N | rollout:TRIALS[:vr][:tN] | bgsage:1ply..4ply (backgammon)",
)
@click.option(
    "--siblings",
    default=0,
    show_default=True,
    type=click.IntRange(0, 64),
    help="also the positions after the K best plays (0-ply) of one roll of each root",
)
@click.option(
    "--sibling-roots",
    "sibling_roots",
    default=None,
    type=click.IntRange(1, 10**9),
    help="roots for --siblings: this many of the drawn positions, chosen by --seed (default all)",
)
@click.option("--weights", type=click.Path(exists=True, dir_okay=False), default=None, help="net of self-play/teacher")
@seed_option(short=True, default=1, limit=2**31 - 1)
@click.option("--chunk", default=4096, show_default=True, type=click.IntRange(1, 10**6), help="positions per task")
@click.option(
    "--workers", "-j", default=None, type=click.IntRange(0, 4096), help="Ray workers (default all cores; 0: no Ray)"
)
@click.option("--ray", "address", default=None, help="join this Ray cluster (HOST:PORT) instead of starting one")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False), help="dataset file (resumed if present)")
def label(game, self_play, eps, records, teacher, siblings, sibling_roots, weights, seed, chunk, workers, address, out):
    """Draw positions and label them with a teacher into a dataset (.npz); rerun to resume."""
    from ..engine.net import Net, shipped_path
    from ..rules.variants import get_rules
    from ..training.jobs import label_positions
    from ..training.positions import concat, dedupe, record_positions, self_play_positions, sibling_positions
    from ..training.teachers import make_teacher

    game = get_rules(game).name
    t0 = time.perf_counter()
    parts, source = [], []
    if self_play:
        net = Net.load(weights or shipped_path(game))
        parts.append(self_play_positions(net, self_play, seed, eps))
        source.append(f"{self_play} self-play positions (seed {seed}, eps {eps})")
    if records:
        b, f, st = record_positions(records, game)
        parts.append((b, f))
        source.append(f"{st['positions']} positions of {st['read']} records")
        click.echo(f"records: {st['read']} read, {st['skipped']} skipped, {st['positions']} positions", err=True)
    if not parts:
        raise click.UsageError("give --self-play N and/or --records PATH")
    if siblings:
        roots_b, roots_f = concat(*parts)
        if sibling_roots is not None and sibling_roots < len(roots_b):
            pick = np.sort(np.random.default_rng(seed).choice(len(roots_b), sibling_roots, replace=False))
            roots_b, roots_f = roots_b[pick], roots_f[pick]
        net = Net.load(weights or shipped_path(game))
        parts.append(sibling_positions(net, roots_b, roots_f, siblings, seed))
        source.append(f"the {siblings} best plays' positions of {len(roots_b)} roots (seed {seed})")
    boards, firsts = dedupe(*concat(*parts))
    click.echo(f"{len(boards)} distinct positions in {time.perf_counter() - t0:.1f} s", err=True)
    try:
        tch = make_teacher(teacher, game, weights)
    except (ValueError, ImportError) as e:
        raise click.UsageError(str(e)) from None
    t1 = time.perf_counter()
    last = [0.0]

    def progress(done, n):
        if time.perf_counter() - last[0] > 30 or done == n:
            last[0] = time.perf_counter()
            rate = done / max(1e-9, last[0] - t1)
            click.echo(f"labelled {done}/{n} ({rate:.0f}/s)", err=True)

    def stop(signum, frame):  # a batch system's SIGTERM stops the run as Ctrl-C does: finished chunks are kept
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        data = label_positions(
            tch,
            boards,
            firsts,
            seed=seed,
            chunk=chunk,
            workers=workers,
            address=address,
            path=out,
            source="; ".join(source),
            progress=progress,
        )
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    dt = time.perf_counter() - t1
    click.echo(
        json.dumps(
            {"positions": len(boards), "labelled": int(data["labelled"].sum()), "seconds": round(dt, 1), "out": out}
        )
    )


@teach.command("fit")
@click.argument("datasets", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--hidden", default=128, show_default=True, type=click.IntRange(1, 4096))
@click.option(
    "--hidden2",
    default=None,
    type=click.IntRange(0, 4096),
    help="units of a second hidden layer with a skip to the outputs (0: none; default: --init's, else none)",
)
@click.option("--init", "init", default=None, help="start from a net: a weights file or 'shipped'")
@click.option("--epochs", default=20, show_default=True, type=click.IntRange(1, 10**4))
@click.option("--lr", default=1e-3, show_default=True, type=float)
@click.option("--lr-final", default=2e-5, show_default=True, type=float)
@click.option("--batch", default=512, show_default=True, type=click.IntRange(1, 10**6))
@click.option("--holdout", default=0.05, show_default=True, type=click.FloatRange(0, 0.5))
@seed_option(short=True, default=1, limit=2**31 - 1)
@click.option(
    "--race-hidden",
    default=0,
    show_default=True,
    type=click.IntRange(0, 4096),
    help="also fit a race net of this width on the race positions (0: none)",
)
@click.option(
    "--race-hidden2",
    default=0,
    show_default=True,
    type=click.IntRange(0, 4096),
    help="the race net's second hidden layer (with --race-hidden; 0: none)",
)
@click.option(
    "--race-net",
    default=None,
    help="keep the race net of this weights file (or 'shipped') instead of fitting one (not with --race-hidden)",
)
@click.option(
    "--crashed-hidden",
    default=0,
    show_default=True,
    type=click.IntRange(0, 4096),
    help="also fit a crashed net of this width on the crashed contact positions (hitting games; 0: none)",
)
@click.option(
    "--crashed-hidden2",
    default=0,
    show_default=True,
    type=click.IntRange(0, 4096),
    help="the crashed net's second hidden layer (with --crashed-hidden; 0: none)",
)
@click.option(
    "--plan-hidden",
    default=0,
    show_default=True,
    type=click.IntRange(0, 4096),
    help="also fit plan nets of this width, each on the contact positions (hitting games: not crashed) of its "
    "plan class (0: none; see --plans)",
)
@click.option(
    "--plan-hidden2",
    default=0,
    show_default=True,
    type=click.IntRange(0, 4096),
    help="the plan nets' second hidden layer (with --plan-hidden; 0: none)",
)
@click.option(
    "--plans",
    "plan_list",
    default="0,1,2,3,4",
    show_default=True,
    help="the plan classes whose nets --plan-hidden fits, comma-separated: 0 racing, 1 attacking, 2 priming, "
    "3 holding, 4 other (long nardy: 0 opening, 1 blocking, 2 blocked, 3 leading, 4 other)",
)
@click.option(
    "--keep-main",
    is_flag=True,
    help="keep --init's main net (and its race, crashed and plan nets unless refitted or --race-net is given) "
    "and fit only the phase and plan nets asked for",
)
@click.option("--device", default=None, help="cuda or cpu (default: the GPU when there is one)")
@click.option("--threads", default=None, type=click.IntRange(1, 1024), help="PyTorch CPU threads")
@click.option("--out", "-o", required=True, type=click.Path(dir_okay=False), help="weights file (.npz)")
def fit(
    datasets,
    hidden,
    hidden2,
    init,
    epochs,
    lr,
    lr_final,
    batch,
    holdout,
    seed,
    race_hidden,
    race_hidden2,
    race_net,
    crashed_hidden,
    crashed_hidden2,
    plan_hidden,
    plan_hidden2,
    plan_list,
    keep_main,
    device,
    threads,
    out,
):
    """Fit a net to one or more labelled datasets of the same game; write the numpy weights.

    Besides the main net, a race net (``--race-hidden``) and a crashed net (``--crashed-hidden``) can be fitted
    on the positions of their phase, each starting from the ``--init`` net's net of that phase (else its main
    net) where the width allows; ``--keep-main`` fits only those. ``--hidden2`` (``--race-hidden2``,
    ``--crashed-hidden2``) adds a second hidden layer with a skip to the outputs; from a one-layer net it starts
    with no effect (zero weights to the outputs), so the fit starts from that net's outputs.

    ``--plan-hidden`` (``--plan-hidden2``) fits a net per plan class of ``--plans``
    (:func:`nardy.engine._features.game_plan`; long nardy :func:`nardy.engine._features.long_plan`) on the
    contact positions of that class (hitting games: that have not crashed),
    each from the ``--init`` net's plan net of that plan, else its main net; with ``--init`` the held-out error
    of the net each replaces (what the ``--init`` net answered there) is printed before the fitted one's.
    """
    from ..engine._features import N_PLANS, plan_names
    from ..engine.net import Net, shipped_path
    from ..training.fit import fit_net
    from ..training.jobs import load_dataset

    ds = [load_dataset(p) for p in datasets]
    games = {d["game"] for d in ds}
    if len(games) != 1:
        raise click.UsageError(f"datasets of several games: {', '.join(sorted(games))}")
    game = games.pop()
    boards = np.concatenate([d["boards"][d["labelled"]] for d in ds])
    firsts = np.concatenate([d["firsts"][d["labelled"]] for d in ds])
    targets = np.concatenate([d["targets"][d["labelled"]] for d in ds])
    init_net = None
    if init:
        init_net = Net.load(shipped_path(game) if init == "shipped" else init)
        if init_net.game != game:
            raise click.UsageError(f"--init {init}: a {init_net.game} net, the datasets are {game}")
    if keep_main and (init_net is None or not (race_hidden or crashed_hidden or plan_hidden)):
        raise click.UsageError(
            "--keep-main keeps the --init net's main net and fits phase nets: give --init and "
            "--race-hidden, --crashed-hidden or --plan-hidden"
        )
    if plan_list != "0,1,2,3,4" and not plan_hidden:
        raise click.UsageError("--plans picks the game plans whose nets --plan-hidden fits: give --plan-hidden too")
    plan_ks = _plan_list(plan_list) if plan_hidden else []
    if plan_hidden2 and not plan_hidden:
        raise click.UsageError("--plan-hidden2 is the fitted plan nets' second layer: give --plan-hidden too")
    if race_hidden2 and not race_hidden:
        raise click.UsageError("--race-hidden2 is the fitted race net's second layer: give --race-hidden too")
    if crashed_hidden2 and not crashed_hidden:
        raise click.UsageError("--crashed-hidden2 is the fitted crashed net's second layer: give --crashed-hidden too")
    if crashed_hidden and game == "long":
        raise click.UsageError("--crashed-hidden: crashed positions are a hitting games' phase (not long nardy)")
    kept_race = None
    if race_net:
        if race_hidden:
            raise click.UsageError("--race-net keeps a race net, --race-hidden fits one: give one of them")
        kept_race = Net.load(shipped_path(game) if race_net == "shipped" else race_net)
        if kept_race.game != game:
            raise click.UsageError(f"--race-net {race_net}: a {kept_race.game} net, the datasets are {game}")
        if kept_race.race is None:
            raise click.UsageError(f"--race-net {race_net}: that net has no race net")
    prov = {
        "teachers": sorted({d["teacher"] for d in ds}),
        "data": [
            {"file": Path(p).name, "source": d["source"], "positions": int(d["labelled"].sum())}
            for p, d in zip(datasets, ds)
        ],
        "self_play_init": None if init_net is None else int(init_net.games_trained),
    }
    if init_net is not None and init_net.provenance:
        # the net this fit starts from was itself fitted: keep how (rounds of training nest their records)
        prov["init_provenance"] = json.loads(init_net.provenance)

    def progress(row):
        click.echo(
            f"epoch {row['epoch']}: train mse {row['train_mse']:.6f}, held-out mse {row['holdout_mse']:.6f}, "
            f"equity error {row['holdout_equity_mae']:.4f} ({row['seconds']:.0f} s)",
            err=True,
        )

    # the settings every fit shares (the main net, and the phase nets on their positions)
    common = dict(
        epochs=epochs,
        lr=lr,
        lr_final=lr_final,
        batch=batch,
        holdout=holdout,
        seed=seed,
        device=device,
        threads=threads,
        progress=progress,
    )

    def fit_phase(name: str, m: np.ndarray, width: int, width2: int, start: Net | None, what: str = ""):
        click.echo(f"{name} net: {int(m.sum())} {what or name} positions", err=True)
        # start from the old net of the phase, else from the old main net, where the widths allow; the old
        # net's held-out error first (the net this one replaces there)
        old = start
        if start is not None and (start.hidden > width or start.hidden2 > width2):
            start = None
        r = fit_net(
            game, boards[m], firsts[m], targets[m], hidden=width, hidden2=width2, init=start, baseline=old, **common
        )
        if r.before is not None and r.history:
            a, b = r.before, r.history[-1]
            click.echo(
                f"{name} net: held-out mse {a['holdout_mse']:.6f} -> {b['holdout_mse']:.6f}, equity error "
                f"{a['holdout_equity_mae']:.4f} -> {b['holdout_equity_mae']:.4f} (--init's net there -> fitted)",
                err=True,
            )
        return r

    phases = {}
    try:
        from ..engine.evaluator import _bearoff_mask, crashed_mask, phase_codes, race_mask

        hitting = game != "long"
        p: dict
        if keep_main:
            assert init_net is not None  # checked above
            net = init_net.copy()
            p = {"kept_main": Path(init).name, **prov}
        else:
            res = fit_net(
                game, boards, firsts, targets, hidden=hidden, hidden2=hidden2, init=init_net, provenance=prov, **common
            )
            net, p = res.net, json.loads(res.net.provenance)
            net.race = net.crashed = None
        if race_hidden:
            # the race net answers where no contact is left but the bearoff database does not apply
            # (HybridEvaluator): pure bear-offs are left out of its fit
            m = race_mask(boards, hitting) & ~_bearoff_mask(boards, hitting)
            start = None if init_net is None else (init_net.race or init_net)
            phases["race"] = fit_phase("race", m, race_hidden, race_hidden2, start)
        if crashed_hidden:
            start = None if init_net is None else (init_net.crashed or init_net)
            phases["crashed"] = fit_phase("crashed", crashed_mask(boards), crashed_hidden, crashed_hidden2, start)
        if plan_ks:
            # the boards the evaluators send to plan net k: contact, not crashed (hitting games), plan class k
            codes = phase_codes(np.ascontiguousarray(boards, np.int8), hitting, True, True, 0b11111)
            for k in plan_ks:
                old_plans = None if init_net is None else init_net.plans
                start = None if init_net is None else ((old_plans[k] if old_plans else None) or init_net)
                what = f"{plan_names(game)[k]} (plan {k})"
                if not (codes == 3 + k).any():
                    raise ValueError(f"--plans: no {what} positions in the datasets to fit its net on")
                phases[f"plan{k}"] = fit_phase(f"plan{k}", codes == 3 + k, plan_hidden, plan_hidden2, start, what)
    except (ValueError, ImportError) as e:
        raise click.UsageError(str(e)) from None
    plans = list(net.plans or (None,) * N_PLANS)
    for name, r in phases.items():
        if name.startswith("plan"):
            plans[int(name[4:])] = r.net
        else:
            setattr(net, name, r.net)
        p[name] = json.loads(r.net.provenance)["fit"]
        if r.before is not None:
            p[name]["before"] = r.before
    net.set_plans(plans)
    if kept_race is not None:
        # the race net kept as it was, with what its provenance said of it
        net.race = kept_race.race
        old = json.loads(kept_race.provenance or "{}")
        p["race"] = {"kept_from": Path(race_net).name, **({"fit": old["race"]} if "race" in old else {})}
    net.provenance = json.dumps(p, sort_keys=True)
    res_rows = {
        name: {**r.history[-1], **({"before": r.before} if r.before is not None else {})} for name, r in phases.items()
    }
    if not keep_main:
        res_rows = {**res.history[-1], **res_rows}
    net.save(out)
    click.echo(json.dumps({"out": out, **res_rows}))

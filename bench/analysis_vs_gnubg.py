"""nardy's match analysis against GNU Backgammon's on the same backgammon records.

For a sample of records from /work/shared/data/gnubg-matches and /work/shared/data/real-mat (seeded), each
match is analysed by gnubg (``gnubg -t``: ``import mat``, ``analyse match``, ``export match text``, at
``--gnubg-plies``, 2 by default as gnubg's own default) and by ``nardy.analysis`` (``--level``), the
decisions are paired (same game, same position ID, same dice) and the script prints:

* checker plays: the Pearson and Spearman correlation of the equity lost per decision (non-forced plays
  both analyses judged), and the agreement on blunders (>= 0.12, gnubg's "very bad") and on errors or
  worse (>= 0.06): how many of gnubg's we also mark, how many of ours gnubg also marks, and the Jaccard
  index of the two sets; the same for luck per roll (correlation);
* cube decisions: how often the proper action (no double / double, take / pass) agrees;
* players: each player's overall error rate (mp per decision) by both, their Spearman correlation over
  all (match, player) pairs, and in how many matches both name the same player as the one who erred less.

``python bench/analysis_vs_gnubg.py --matches 10 --level grandmaster`` (about 1 min per 7-point match for
both analyses on a loaded 2-core machine); ``--results F`` keeps every paired decision (JSON lines).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SHARED = Path("/work/shared/data")
GNUBG = "/usr/games/gnubg"

_ACTION = re.compile(r"^\* (?P<name>.+?) (?P<act>moves (?P<play>.*)|cannot move|doubles|accepts|rejects|beavers)\s*$")
_STAR = re.compile(r"^\*\s+(?P<rank>\d+)\.\s.*?Eq\.:\s*(?P<eq>[+-]?\d+\.\d+)(?:\s*\((?P<diff>[+-]\d+\.\d+)\))?")
_ROLLED = re.compile(r"^Rolled (?P<dice>\d\d)(?: \((?P<luck>[+-]\d+\.\d+)\))?:")
_POS = re.compile(r"Position ID: (?P<pid>\S+)")
_CUBE_EQ = re.compile(
    r"^\d\. (?P<what>No double|Double, pass|Double, take|No redouble|Redouble, pass|Redouble, take)\s+"
    r"(?P<v>[+-]\d+\.\d+)"
)


def gnubg_analyse(mat: Path, plies: int, out_dir: Path) -> list[Path]:
    """Run gnubg on one record; the text export's files (one per game), in order."""
    base = out_dir / "g.txt"
    cmds = (
        f"set analysis chequerplay evaluation plies {plies}\n"
        f"set analysis cubedecision evaluation plies {plies}\n"
        f'import mat "{mat}"\nanalyse match\nexport match text "{base}"\n'
    )
    subprocess.run([GNUBG, "-t", "-q"], input=cmds, text=True, capture_output=True, timeout=3600, check=False)
    files = [base] + sorted(out_dir.glob("g_[0-9][0-9][0-9].txt"))
    return [f for f in files if f.exists()]


def _cube_eqs(lines) -> dict:
    eqs = {}
    for ln in lines:
        m = _CUBE_EQ.match(ln.strip())
        if m:
            key = m["what"].replace("Redouble", "Double").replace("No redouble", "No double").lower()
            key = {"no double": "nd", "double, take": "dt", "double, pass": "dp", "no redouble": "nd"}[key]
            eqs[key] = float(m["v"])
    return eqs


def parse_gnubg_text(files: list[Path]) -> dict:
    """gnubg's decisions per game and the players' overall error rates (from "Match statistics")."""
    games = []
    overall = None
    checker = None
    names = None
    for f in files:
        text = f.read_text(errors="replace")
        if names is None:
            m = re.search(r"The score \(after \d+ games?\) is: (.+?) (-?\d+), (.+?) (-?\d+) \(", text)
            if m:
                names = (m[1], m[3])
        blocks = re.split(r"^Move number \d+:", text, flags=re.M)[1:]
        dec = []
        for b in blocks:
            lines = b.splitlines()
            pid = next((m["pid"] for m in map(_POS.search, lines) if m), None)
            act = next((m for m in map(_ACTION.match, lines) if m), None)
            if act is None or pid is None:
                continue
            a = act["act"]
            i_act = next(i for i, ln in enumerate(lines) if _ACTION.match(ln))
            after = lines[i_act:]
            if "Cube analysis" in b and not a.startswith(("doubles", "accepts", "rejects", "beavers")):
                # the mover's cube decision before the roll (it did not double)
                ci = next(i for i, ln in enumerate(after) if ln.startswith("Cube analysis"))
                eqs = _cube_eqs(after[ci : ci + 9])
                if {"nd", "dt", "dp"} <= eqs.keys():
                    best = max(eqs["nd"], min(eqs["dt"], eqs["dp"]))
                    dec.append(
                        {
                            "kind": "double",
                            "name": act["name"],
                            "position": pid,
                            "played": "no double",
                            "loss": max(0.0, best - eqs["nd"]),
                            "eqs": eqs,
                        }
                    )
            if a.startswith(("moves", "cannot")):
                rolled = next((m for m in map(_ROLLED.match, after) if m), None)
                star = next((m for m in map(_STAR.match, after) if m), None)
                loss = 0.0
                if star is not None and star["diff"] is not None:
                    loss = -float(star["diff"])
                dice = tuple(sorted(int(c) for c in rolled["dice"])) if rolled else None
                ri = next((i for i, ln in enumerate(after) if _ROLLED.match(ln)), len(after))
                n_cands = sum(1 for ln in after[ri + 1 :] if re.match(r"^\*?\s+\d+\.\s", ln))
                forced = n_cands <= 1  # one legal play (or none: a dance)
                dec.append(
                    {
                        "kind": "checker",
                        "name": act["name"],
                        "position": pid,
                        "dice": dice,
                        "played": (act["play"] or "").strip(),
                        "loss": loss,
                        "forced": forced,
                        "luck": float(rolled["luck"]) if rolled and rolled["luck"] else None,
                    }
                )
            elif a == "doubles":
                ci = next((i for i, ln in enumerate(after) if ln.startswith("Cube analysis")), None)
                eqs = _cube_eqs(after[ci : ci + 9]) if ci is not None else {}
                if {"nd", "dt", "dp"} <= eqs.keys():
                    best = max(eqs["nd"], min(eqs["dt"], eqs["dp"]))
                    dec.append(
                        {
                            "kind": "double",
                            "name": act["name"],
                            "position": pid,
                            "played": "double",
                            "loss": max(0.0, best - min(eqs["dt"], eqs["dp"])),
                            "eqs": eqs,
                        }
                    )
            elif a in ("accepts", "rejects", "beavers"):
                ci = next((i for i, ln in enumerate(after) if ln.startswith("Cube analysis")), None)
                eqs = _cube_eqs(after[ci : ci + 9]) if ci is not None else {}
                if {"nd", "dt", "dp"} <= eqs.keys():  # the taker's view
                    best = max(eqs["dt"], eqs["dp"])
                    chosen = eqs["dp"] if a == "rejects" else eqs["dt"]
                    dec.append(
                        {
                            "kind": "take",
                            "name": act["name"],
                            "position": pid,
                            "played": "pass" if a == "rejects" else "take",
                            "loss": max(0.0, best - chosen),
                            "eqs": eqs,
                        }
                    )
        games.append(dec)
        if "Match statistics" in text:
            ms = text[text.index("Match statistics") :]
            ov = ms[ms.index("Overall statistics") :] if "Overall statistics" in ms else ""
            m = re.search(r"Error rate mEMG \(MWC\)\s+(-?\d+\.\d+).*?\s{2,}(-?\d+\.\d+)", ov)
            if m:
                overall = (abs(float(m[1])), abs(float(m[2])))
            cs = ms[ms.index("Chequerplay statistics") :] if "Chequerplay statistics" in ms else ""
            m = re.search(r"Error rate mEMG \(MWC\)\s+(-?\d+\.\d+).*?\s{2,}(-?\d+\.\d+)", cs)
            if m:
                checker = (abs(float(m[1])), abs(float(m[2])))
    return {"games": games, "overall": overall, "checker": checker, "names": names}


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s or "").lower()


def pair(ours: dict, theirs: dict, players) -> list[dict]:
    """Pair nardy's decisions with gnubg's: per game, in order, by kind, position ID and dice."""
    out = []
    by_game: dict[int, list] = {}
    for d in ours["decisions"]:
        by_game.setdefault(d["game"], []).append(d)
    for gi, gdec in enumerate(theirs["games"]):
        mine = by_game.get(gi + 1, [])
        used = set()
        for t in gdec:
            kind = {"checker": "checker", "double": "cube", "take": "cube"}[t["kind"]]
            action = {"checker": "play", "double": "double", "take": "take"}[t["kind"]]
            for j, d in enumerate(mine):
                if j in used or d["kind"] != kind or d["action"] != action or d["position"] != t["position"]:
                    continue
                if kind == "checker" and tuple(sorted(d["dice"] or ())) != (t.get("dice") or ()):
                    continue
                used.add(j)
                out.append({"game": gi + 1, "ours": d, "gnubg": t})
                break
    del players
    return out


def _spearman(a, b) -> float:
    ra = np.argsort(np.argsort(a)).astype(float)
    rb = np.argsort(np.argsort(b)).astype(float)
    return float(np.corrcoef(ra, rb)[0, 1]) if len(a) > 2 else float("nan")


def _agreement(pairs, lo: float) -> dict:
    g = {i for i, p in enumerate(pairs) if p["gnubg"]["loss"] >= lo - 1e-9}
    n = {i for i, p in enumerate(pairs) if p["ours"]["equity_loss"] >= lo - 1e-9}
    both = g & n
    return {
        "gnubg": len(g),
        "nardy": len(n),
        "both": len(both),
        "of_gnubg_also_nardy": round(len(both) / len(g), 3) if g else None,
        "of_nardy_also_gnubg": round(len(both) / len(n), 3) if n else None,
        "jaccard": round(len(both) / len(g | n), 3) if g | n else None,
    }


def sample_records(n: int, seed: int) -> list[Path]:
    from nardy.records.mat import read_mat

    files = sorted(p for d in ("gnubg-matches", "real-mat") for p in (SHARED / d).rglob("*.mat"))
    ok = []
    for f in files:
        try:
            rec = read_mat(f)
        except ValueError:
            continue
        if rec.game == "backgammon":
            ok.append(f)
    rnd = random.Random(seed)
    rnd.shuffle(ok)
    return ok[:n]


def _proper(eqs) -> str:
    if eqs["nd"] >= min(eqs["dt"], eqs["dp"]):
        return "no double"
    return "double, take" if eqs["dt"] <= eqs["dp"] else "double, pass"


def as_judge(theirs: dict, names) -> dict:
    """gnubg's decisions in the shape of nardy's analysis (to compare two gnubg depths the same way)."""
    decs = []
    for gi, game in enumerate(theirs["games"]):
        for t in game:
            kind = "checker" if t["kind"] == "checker" else "cube"
            action = {"checker": "play", "double": "double", "take": "take"}[t["kind"]]
            loss = t["loss"]
            decs.append(
                {
                    "game": gi + 1,
                    "kind": kind,
                    "action": action,
                    "position": t["position"],
                    "dice": list(t["dice"]) if t.get("dice") else None,
                    "equity_loss": loss,
                    "forced": t.get("forced", False),
                    "luck": t.get("luck"),
                    "played": t.get("played", ""),
                    "best": _proper(t["eqs"]) if t["kind"] == "double" else "",
                }
            )
    ov = theirs["overall"] or (0.0, 0.0)
    ch = theirs["checker"] or (0.0, 0.0)
    return {
        "decisions": decs,
        "players": [{"name": n, "error_rate": ov[k], "checker_error_rate": ch[k]} for k, n in enumerate(names)],
    }


def metrics(pairs_all: list, per_player: list) -> dict:
    """The comparison figures of one judge against gnubg (see the module docstring)."""
    chk = [
        p for p in pairs_all if p["ours"]["kind"] == "checker" and not p["ours"]["forced"] and not p["gnubg"]["forced"]
    ]
    a = np.array([p["ours"]["equity_loss"] for p in chk])
    b = np.array([p["gnubg"]["loss"] for p in chk])
    luck = [
        (p["ours"]["luck"], p["gnubg"]["luck"])
        for p in pairs_all
        if p["ours"]["kind"] == "checker" and p["ours"]["luck"] is not None and p["gnubg"].get("luck") is not None
    ]
    cube = [p for p in pairs_all if p["ours"]["kind"] == "cube" and p["gnubg"]["kind"] == "double"]
    cube_agree = sum(1 for p in cube if _proper(p["gnubg"]["eqs"]) == p["ours"]["best"])
    rates_n = [x["judge"] for x in per_player]
    rates_g = [x["gnubg"] for x in per_player]
    same_better = nm = 0
    for i in range(0, len(per_player) - 1, 2):
        x, y = per_player[i], per_player[i + 1]
        if x["source"] != y["source"] or x["gnubg"] == y["gnubg"]:
            continue
        nm += 1
        same_better += (x["judge"] < y["judge"]) == (x["gnubg"] < y["gnubg"])
    big = len(chk) > 2
    return {
        "paired_decisions": len(pairs_all),
        "checker_pairs": len(chk),
        "checker_loss_pearson": round(float(np.corrcoef(a, b)[0, 1]), 3) if big else None,
        "checker_loss_spearman": round(_spearman(a, b), 3) if big else None,
        "mean_checker_loss_mp": {"judge": round(1000 * float(a.mean()), 2), "gnubg": round(1000 * float(b.mean()), 2)}
        if len(chk)
        else None,
        "blunders": _agreement(chk, 0.12),
        "errors_or_worse": _agreement(chk, 0.06),
        # both call the play made the best one, or both call it not the best
        "best_play_agreement": round(
            sum((p["ours"]["equity_loss"] < 1e-9) == (p["gnubg"]["loss"] < 1e-9) for p in chk) / len(chk), 3
        )
        if chk
        else None,
        "luck_pearson": round(float(np.corrcoef(*zip(*luck))[0, 1]), 3) if len(luck) > 2 else None,
        "cube_pairs": len(cube),
        "cube_proper_action_agreement": round(cube_agree / len(cube), 3) if cube else None,
        "player_error_rates": per_player,
        "player_error_rate_spearman": round(_spearman(np.array(rates_n), np.array(rates_g)), 3)
        if len(per_player) > 2
        else None,
        "player_error_rate_pearson": round(float(np.corrcoef(rates_n, rates_g)[0, 1]), 3)
        if len(per_player) > 2
        else None,
        "matches_same_player_better": f"{same_better}/{nm}",
        "player_checker_error_rate_spearman": round(
            _spearman(
                np.array([x["judge_checker"] for x in per_player]), np.array([x["gnubg_checker"] for x in per_player])
            ),
            3,
        )
        if len(per_player) > 2
        else None,
        "player_checker_error_rate_pearson": round(
            float(
                np.corrcoef([x["judge_checker"] for x in per_player], [x["gnubg_checker"] for x in per_player])[0, 1]
            ),
            3,
        )
        if len(per_player) > 2
        else None,
        "cube_loss_total": {
            "judge": round(sum(p["ours"]["equity_loss"] for p in cube), 3),
            "gnubg": round(sum(p["gnubg"]["loss"] for p in cube), 3),
        },
        "checker_loss_total": {"judge": round(float(a.sum()), 3), "gnubg": round(float(b.sum()), 3)},
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=10)
    ap.add_argument("--level", default="grandmaster")
    ap.add_argument("--gnubg-plies", type=int, default=2)
    ap.add_argument(
        "--reference-plies",
        type=int,
        default=None,
        help="also judge gnubg at this depth against gnubg at --gnubg-plies (what a strength gap alone gives)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-games", type=int, default=12, help="skip records with more games (bounded run)")
    ap.add_argument("--results", default=None, help="write the paired decisions here (JSON lines)")
    ap.add_argument("files", nargs="*", help="records to use instead of the sample")
    args = ap.parse_args(argv)
    from nardy.analysis import analyse_match
    from nardy.records.mat import replay

    files = [Path(f) for f in args.files] or sample_records(args.matches * 3, args.seed)
    judges = ["nardy"] + ([f"gnubg {args.reference_plies}-ply"] if args.reference_plies is not None else [])
    pairs_all: dict[str, list] = {j: [] for j in judges}
    per_player: dict[str, list] = {j: [] for j in judges}
    t_ours = t_gnubg = 0.0
    used = 0
    pool = ThreadPoolExecutor(max_workers=1)
    for f in files:
        if used >= args.matches:
            break
        try:
            match = replay(f)
        except ValueError as e:
            print(f"skip {f.name}: {e}", file=sys.stderr)
            continue
        if len(match.games) > args.max_games:
            continue
        used += 1
        with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp2:
            t0 = time.perf_counter()
            fut = pool.submit(gnubg_analyse, f, args.gnubg_plies, Path(tmp))
            ours = analyse_match(match, level=args.level, source=f.name).to_dict()
            t1 = time.perf_counter()
            gfiles = fut.result()
            t2 = time.perf_counter()
            theirs = parse_gnubg_text(gfiles)
            ref = None
            if args.reference_plies is not None:
                ref = as_judge(parse_gnubg_text(gnubg_analyse(f, args.reference_plies, Path(tmp2))), match.players)
        t_ours += t1 - t0
        t_gnubg += t2 - t0
        g_names = theirs["names"] or match.players
        gi = [1, 0] if g_names and _norm(g_names[0]) == _norm(match.players[1]) else [0, 1]
        for j, data in zip(judges, [ours, ref]):
            pairs = pair(data, theirs, match.players)
            for p in pairs:
                p["source"] = f.name
            pairs_all[j] += pairs
            if theirs["overall"]:
                for k in (0, 1):
                    per_player[j].append(
                        {
                            "source": f.name,
                            "player": ours["players"][k]["name"],
                            "judge": data["players"][gi[k] if j != "nardy" else k]["error_rate"],
                            "gnubg": theirs["overall"][gi[k]],
                            "judge_checker": data["players"][gi[k] if j != "nardy" else k]["checker_error_rate"],
                            "gnubg_checker": (theirs["checker"] or (0.0, 0.0))[gi[k]],
                        }
                    )
        n_dec = sum(len(g) for g in theirs["games"])
        print(
            f"{f.name}: {len(match.games)} games, gnubg {n_dec} decisions, paired {len(pairs_all['nardy'])} so far; "
            f"nardy {t1 - t0:.0f} s, gnubg {t2 - t0:.0f} s",
            file=sys.stderr,
        )
    pool.shutdown()
    out = {
        "matches": used,
        "level": args.level,
        "gnubg_plies": args.gnubg_plies,
        "seconds": {"nardy": round(t_ours, 1), "gnubg": round(t_gnubg, 1)},
        "load_average": round(os.getloadavg()[0], 1),
    }
    for j in judges:
        out[f"{j} vs gnubg {args.gnubg_plies}-ply"] = metrics(pairs_all[j], per_player[j])
    print(json.dumps(out, indent=1))
    if args.results:
        with open(args.results, "w") as fh:
            for p in pairs_all["nardy"]:
                row = {
                    "source": p["source"],
                    "game": p["game"],
                    "position": p["ours"]["position"],
                    "kind": p["ours"]["kind"],
                    "nardy": p["ours"]["equity_loss"],
                    "gnubg": p["gnubg"]["loss"],
                    "nardy_mark": p["ours"]["mark"],
                }
                fh.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

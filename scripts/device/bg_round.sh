#!/usr/bin/env bash
# One backgammon round on a lent GPU machine (issue 46; docs/bots.md "A round on a GPU machine"): label
# fresh positions with bgsage on every core for a fixed time, fit the game-plan nets on the GPU from the
# shipped net, and leave the fitted net, the fit's figures and the logs in $OUT (the device tool brings them
# back). Judging the net (bench/error_rate_bgsage.py) is done here afterwards, at no device time.
#
# Here first: scripts/device/prepare.sh (the bgsage wheel into .whl/). Then the device tool's run with
#   command "bash scripts/device/bg_round.sh", carry [".whl"], timeout_s 590
# The defaults end in about 8 minutes of the 10 a command may run: a warm-up (numba compiles the kernels
# once, into the on-disk cache the workers share), LABEL_SECONDS of labelling, then the fit. Anything may be
# set in the command, e.g. "TEACHER=bgsage:3ply LABEL_SECONDS=300 bash scripts/device/bg_round.sh".
# A miniature run checks the script on any machine (tests/training/test_device_round.py, marked slow):
#   LABEL_SECONDS=20 WORKERS=2 ROOTS=60 EPOCHS=1 DEVICE=cpu OUT=/tmp/round bash scripts/device/bg_round.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
T0=$(date +%s)
say() { echo "[round +$(($(date +%s) - T0)) s] $*"; }

TEACHER=${TEACHER:-bgsage:2ply}
LABEL_SECONDS=${LABEL_SECONDS:-330}
WORKERS=${WORKERS:-$(nproc)}
SIBLINGS=${SIBLINGS:-6}
SEED=${SEED:-4600}
# Self-play roots a worker draws: sized to be labelled in LABEL_SECONDS at RATE positions a second a core
# (bgsage 2-ply about 375, 3-ply about 53 on the 2-core machine; each root gives about 5.3 positions with 6
# siblings). A worker still labelling at the deadline is stopped and keeps its finished chunks.
case "$TEACHER" in
  bgsage:3ply) RATE=${RATE:-60} ;;
  bgsage:4ply) RATE=${RATE:-6} ;;
  *) RATE=${RATE:-400} ;;
esac
ROOTS=${ROOTS:-$((LABEL_SECONDS * RATE * 10 / (10 + 43 * SIBLINGS / 6)))}
CHUNK=${CHUNK:-512}
PLAN_HIDDEN=${PLAN_HIDDEN:-256}
EPOCHS=${EPOCHS:-30}
LR=${LR:-1e-3}
BATCH=${BATCH:-512}
FIT_ARGS=${FIT_ARGS:---race-hidden 128 --crashed-hidden 256}
OUT=${OUT:-$PWD/round-out}
DATA=${DATA:-/tmp/nardy-round-labels}
LABELS_BACK_MB=${LABELS_BACK_MB:-15.8}
# A rerun with RESUME=1 on the same warm machine goes on with the datasets already there (same settings).
[ -n "${RESUME:-}" ] || rm -f "$DATA"/w*.npz "$DATA"/label-w*.log
mkdir -p "$OUT" "$DATA"

if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
  export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
python3 - <<'PY'
import bgsage, numba, numpy, torch
print("numpy", numpy.__version__, "numba", numba.__version__, "torch", torch.__version__,
      "cuda", torch.cuda.is_available() and torch.cuda.get_device_name(0))
PY
say "teacher $TEACHER, $WORKERS workers x $ROOTS roots, $LABEL_SECONDS s; fit $PLAN_HIDDEN units, $EPOCHS epochs"

# Warm-up: one small run compiles the kernels into numba's cache, so the workers load them.
python3 -m nardy.cli teach label -g backgammon --self-play 40 --siblings 2 -t "$TEACHER" -j 0 -s 1 \
  -o "$DATA/warm.npz" 2>&1 | tail -n 1
rm -f "$DATA/warm.npz"
say "warm"

pids=()
for i in $(seq 1 "$WORKERS"); do
  timeout -s TERM "$LABEL_SECONDS" python3 -m nardy.cli teach label -g backgammon --self-play "$ROOTS" \
    --siblings "$SIBLINGS" -t "$TEACHER" -j 0 -s $((SEED + i)) --chunk "$CHUNK" -o "$DATA/w$i.npz" \
    >"$DATA/label-w$i.log" 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || true; done
tail -q -n 3 "$DATA"/label-w*.log >"$OUT/label.log" || true
tail -n 3 "$OUT/label.log"
say "labelled"

python3 - "$DATA" "$OUT" "$LABELS_BACK_MB" <<'PY'
# How many positions were labelled, and the labels themselves in $OUT when they fit its size limit.
import sys
from pathlib import Path

import numpy as np

from nardy.training.jobs import load_dataset, save_dataset

data, out, cap = Path(sys.argv[1]), Path(sys.argv[2]), float(sys.argv[3])
ds = [load_dataset(p) for p in sorted(data.glob("w*.npz"))]
n = sum(int(d["labelled"].sum()) for d in ds)
print(f"{n} positions labelled by {ds[0]['teacher'] if ds else '-'} in {len(ds)} files")
if ds:
    merged = {
        "game": ds[0]["game"], "teacher": ds[0]["teacher"], "chunk": max(1, n), "seed": ds[0]["seed"],
        "done": np.ones(1, np.bool_), "source": "; ".join(f"{d['source']} ({int(d['labelled'].sum())} labelled)" for d in ds),
    }
    for k in ("boards", "firsts", "targets"):
        merged[k] = np.concatenate([d[k][d["labelled"]] for d in ds])
    size = sum(merged[k].nbytes for k in ("boards", "firsts", "targets")) / 2**20
    if n and size <= cap:
        save_dataset(out / "labels.npz", merged)
        print(f"labels.npz: {size:.1f} MiB")
    else:
        print(f"labels not kept: {size:.1f} MiB over {cap} MiB")
PY

set -o pipefail
# shellcheck disable=SC2086
python3 -m nardy.cli teach fit "$DATA"/w*.npz --init shipped --keep-main --plan-hidden "$PLAN_HIDDEN" \
  $FIT_ARGS --epochs "$EPOCHS" --lr "$LR" --batch "$BATCH" ${DEVICE:+--device "$DEVICE"} \
  -o "$OUT/backgammon-round.npz" 2>"$OUT/fit.log" | tail -n 1 >"$OUT/fit.json"
grep -E "net:" "$OUT/fit.log" || true
say "fitted: $OUT/backgammon-round.npz"

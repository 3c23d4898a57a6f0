#!/usr/bin/env bash
# Here, before a round on a lent GPU machine (issue 46; docs/bots.md "A round on a GPU machine"): download
# the wheels that machine lacks into .whl/ (git ignores it through .git/info/exclude), for its Python 3.12 on
# x86-64. The machine has numpy, numba, torch, click, rich, pyyaml and pillow; `nardy teach label` with
# bgsage as the teacher needs bgsage besides (the version pinned in pyproject.toml).
set -euo pipefail
cd "$(dirname "$0")/../.."
BGSAGE_VERSION=2.0.20260907
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >>.git/info/exclude
rm -rf .whl
mkdir .whl
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64 --platform manylinux_2_17_x86_64 \
  --platform manylinux2014_x86_64 -d .whl "bgsage==${BGSAGE_VERSION}"
ls -l .whl

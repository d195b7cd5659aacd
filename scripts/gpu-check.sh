#!/usr/bin/env bash
# On a GPU machine, from the repo root: the GPU test suite, then `gravel bench` with every baseline on
# Kronecker scale 22, whose table comes last. `--all` adds the operator benchmark, the 4096x4096 grid
# and Kronecker scale 24; `--locality` runs only the blocking and reordering benchmarks (issue 5's
# graphs; several minutes).
# Results land in ${OUT:-/tmp/gravel-gpu}.
# Set GRAVEL_DATASETS to a copy of the shared datasets to include their tests.
set -uo pipefail
out=${OUT:-/tmp/gravel-gpu}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAVEL_CACHE_DIR=${GRAVEL_CACHE_DIR:-/tmp/gravel-cache}
bench() { python3 -m gravel.cli bench "$@" --device cuda 2>&1 | grep -v generating; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
if [ "${1:-}" = "--locality" ]; then
  road=${GRAVEL_DATASETS:-../shared/datasets}/USA-road-NE.pace.gr.gz  # the largest real graph there
  python3 benchmarks/blocking.py kron:23 kron:24 kron:25 urand:24 "$road" \
    --json "$out/blocking.json" 2>&1 | tr '\r' '\n' | grep -v generating | grep . | tee "$out/blocking.log"
  python3 benchmarks/reorder.py kron:22 urand:22 grid:2048x2048 rgg:22 "$road" --scramble 0.02 0.05 0.1 0.2 0.4 \
    --json "$out/reorder.json" 2>&1 | tr '\r' '\n' | grep -v generating | grep . | tee "$out/reorder.log"
  # the graphs whose sweeps stage in shared memory, where auto weighs a degree sort
  python3 benchmarks/reorder.py kron:23 kron:24 kron:25 \
    --json "$out/reorder-staged.json" 2>&1 | tr '\r' '\n' | grep -v generating | grep . | tee "$out/reorder-staged.log"
  exit 0
fi
python3 -m pytest -q -m gpu -p no:cacheprovider tests 2>&1 | tee "$out/gpu-tests.log" | tail -5
if [ "${1:-}" = "--all" ]; then
  python3 benchmarks/operators.py --repeat 30 --json "$out/operators.json" 2>&1 | grep -v generating \
    | tee "$out/operators.log"
  bench grid:4096x4096 --repeat 3 --json "$out/grid.json" | tee "$out/grid.log"
  bench kron:24 --algo bfs --algo pagerank --algo cc --algo sssp --no-baselines --repeat 5 \
    --json "$out/kron24.json" | tee "$out/kron24.log"
fi
bench kron:22 --repeat 5 --json "$out/kron22.json" | tee "$out/kron22.log"

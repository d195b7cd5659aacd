#!/usr/bin/env bash
# On a GPU machine, from the repo root: the GPU test suite, then `gravel bench` with every baseline on
# Kronecker scale 22, whose table comes last. `--all` adds the operator benchmark, the 4096x4096 grid
# and Kronecker scale 24; `--locality` the blocking and reordering benchmarks (each several minutes).
# Results land in ${OUT:-/tmp/gravel-gpu}.
# Set GRAVEL_DATASETS to a copy of the shared datasets to include their tests.
set -uo pipefail
out=${OUT:-/tmp/gravel-gpu}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAVEL_CACHE_DIR=${GRAVEL_CACHE_DIR:-/tmp/gravel-cache}
bench() { python3 -m gravel.cli bench "$@" --device cuda 2>&1 | grep -v generating; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -m pytest -q -m gpu -p no:cacheprovider tests 2>&1 | tee "$out/gpu-tests.log" | tail -5
if [ "${1:-}" = "--all" ]; then
  python3 benchmarks/operators.py --repeat 30 --json "$out/operators.json" 2>&1 | grep -v generating \
    | tee "$out/operators.log"
  bench grid:4096x4096 --repeat 3 --json "$out/grid.json" | tee "$out/grid.log"
  bench kron:24 --algo bfs --algo pagerank --algo cc --algo sssp --no-baselines --repeat 5 \
    --json "$out/kron24.json" | tee "$out/kron24.log"
fi
if [ "${1:-}" = "--locality" ]; then
  python3 benchmarks/blocking.py kron:23 kron:24 kron:25 urand:24 --json "$out/blocking.json" 2>&1 \
    | grep -v generating | tee "$out/blocking.log"
  python3 benchmarks/reorder.py kron:22 urand:22 grid:2048x2048 --json "$out/reorder.json" 2>&1 \
    | grep -v generating | tee "$out/reorder.log"
fi
bench kron:22 --repeat 5 --json "$out/kron22.json" | tee "$out/kron22.log"

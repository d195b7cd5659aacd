#!/usr/bin/env bash
# On a GPU machine, from the repo root: the GPU test suite, the operator benchmark, then every primitive
# against its baselines (`gravel bench`), whose table comes last. Results land in ${OUT:-/tmp/gravel-gpu}.
# Set GRAVEL_DATASETS to a copy of the shared datasets to include their tests.
set -uo pipefail
out=${OUT:-/tmp/gravel-gpu}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAVEL_CACHE_DIR=$out/cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -m pytest -q -m gpu -p no:cacheprovider tests "$@" 2>&1 | tee "$out/gpu-tests.log" | tail -5
python3 benchmarks/operators.py --json "$out/operators.json" 2>&1 | grep -v generating | tee "$out/operators.log"
python3 -m gravel.cli bench kron:22 grid:2048x2048 --device cuda --repeat 5 --json "$out/primitives.json" 2>&1 \
  | grep -v generating | tee "$out/primitives.log"

#!/usr/bin/env bash
# On a GPU machine, from the repo root: the whole test suite (GPU tests included), then the benchmarks,
# a short table last. Results land in ${OUT:-/tmp/gravel-gpu}.
set -uo pipefail
out=${OUT:-/tmp/gravel-gpu}
mkdir -p "$out"
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAVEL_CACHE_DIR=$out/cache
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -m pytest -q -m gpu -p no:cacheprovider tests "$@" 2>&1 | tee "$out/gpu-tests.log" | tail -25
python3 benchmarks/operators.py --json "$out/operators.json" 2>&1 | tee "$out/operators.log"

#!/usr/bin/env bash
# gravel.distributed on a machine with 2 (or 4) GPUs: install the carried Dask wheels (.whl/), run
# the GPU tests of the distributed package, then the multi-GPU benchmark, whose short table is the
# last thing printed. Each step has a time limit, so a hung NCCL collective ends the step, not the
# machine's session.
#
#   GRAPHS="kron:24 urand:24" scripts/multi-gpu-check.sh      # smaller graphs: a quick look
#   ONLY=tests scripts/multi-gpu-check.sh                     # tests only (ONLY=bench: the bench)
#   ONLY=bench BFS_DIRECTION=top-down scripts/multi-gpu-check.sh   # BFS without bottom-up levels
set -uo pipefail
cd "$(dirname "$0")/.."

export NCCL_NVLS_ENABLE=0 PYTHONFAULTHANDLER=1
GRAPHS=${GRAPHS:-"kron:26 urand:26"}
VALIDATE=${VALIDATE:-kron:20}
REPEAT=${REPEAT:-3}
BFS_DIRECTION=${BFS_DIRECTION:-auto}
OUT=${OUT:-/tmp}

python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:src
python3 - <<'PY' || exit 1
import importlib
missing = []
for name in ("dask", "distributed", "click", "jinja2", "yaml", "packaging", "psutil", "fsspec",
             "cloudpickle", "toolz", "msgpack", "tornado", "zict", "tblib", "partd"):
    try:
        importlib.import_module(name)
    except ImportError as e:
        missing.append(f"{name} ({e})")
if missing:
    raise SystemExit("missing here, carry them as wheels: " + ", ".join(missing))
import cupy, dask, distributed
from cupy.cuda import nccl
print(f"dask {dask.__version__}, distributed {distributed.__version__}, cupy {cupy.__version__},"
      f" nccl {nccl.get_version()}, {cupy.cuda.runtime.getDeviceCount()} GPUs")
PY
nvidia-smi --query-gpu=index,name,memory.used,memory.total --format=csv,noheader

status=0
if [ "${ONLY:-}" != bench ]; then
    echo "== tests: the part kernels, tests/distributed/test_gpu.py (GPU and CPU), tests/distributed"
    timeout -k 10 300 python3 -m pytest -q -x -p no:cacheprovider tests/backends/test_part_kernels.py \
        || status=1
    timeout -k 10 420 python3 -m pytest -q -x -p no:cacheprovider tests/distributed/test_gpu.py \
        || status=1
    timeout -k 10 300 python3 -m pytest -q -x -p no:cacheprovider tests/distributed \
        --ignore=tests/distributed/test_gpu.py || status=1
fi
if [ "${ONLY:-}" != tests ]; then
    echo "== benchmark: $GRAPHS (validate $VALIDATE, BFS $BFS_DIRECTION), json $OUT/multigpu.json"
    # shellcheck disable=SC2086
    timeout -k 10 540 python3 benchmarks/multigpu.py $GRAPHS --repeat "$REPEAT" \
        --validate "$VALIDATE" --bfs-direction "$BFS_DIRECTION" --json "$OUT/multigpu.json" \
        || status=1
fi
nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader  # nothing left behind
exit $status

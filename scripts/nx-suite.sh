#!/usr/bin/env bash
# NetworkX's own tests run through gravel's backend (docs/networkx.md), in two runs:
# 1. fallback off for gravel's functions: the test modules of every function the backend
#    implements (scripts/nx_test_modules.py); NetworkX runs the functions gravel lacks. The
#    plugin scripts/nx_served.py makes a call gravel declines an expected failure and counts
#    the calls gravel served and declined, with the reasons, in $NX_SERVED_REPORT (default
#    /tmp/nx-served.md).
# 2. fallback on: the whole networkx.algorithms suite, NetworkX running what gravel declines.
# The backend runs where nx.config.backends.gravel.device says ("auto": the GPU where CuPy sees
# one and the graph holds 65,536 arcs or more, so NetworkX's small test graphs run on the CPU);
# NX_SUITE_DEVICE=cuda sends the first run's calls to the GPU whatever their size (the second
# keeps "auto": the GPU's launches on every small graph of the whole suite take too long). Extra
# arguments go to pytest. Run from the repo root; gravel must be installed (its entry
# point registers the backend): the script installs it editable without dependencies when not.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-backend.sh || exit 1
scripts=$PWD/scripts
mapfile -t modules < <(python3 scripts/nx_test_modules.py) || exit 1
export NETWORKX_TEST_BACKEND=gravel PYTHONPATH="$scripts${PYTHONPATH:+:$PYTHONPATH}"
export NX_SERVED_REPORT=${NX_SERVED_REPORT:-/tmp/nx-served.md}
python3 -c "import gravel.nx, networkx as nx; print('backend device:', nx.config.backends.gravel.device)"
echo "the first run's device: ${NX_SUITE_DEVICE:-the same}"
# NX_SUITE_LOGS: a folder that keeps both runs' logs (each test named as it ends, so that a run
# cut off by a time limit still says how far it got, and the slowest listed)
logs=
if [ -n "${NX_SUITE_LOGS:-}" ]; then
  logs=$(realpath -m "$NX_SUITE_LOGS") && mkdir -p "$logs" && set -- -v -v --durations=20 "$@"
fi
# an empty folder outside the repository: NetworkX's conftest, not ours
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT && cd "$work" || exit 1
logs=${logs:-$work}
mkdir counts
workers=(-n "${NX_SUITE_WORKERS:-2}" --dist "$("$scripts/xdist-mode.sh")")
status=0

NETWORKX_FALLBACK_TO_NX=True NX_SERVED_DIR=$work/counts python3 -m pytest -q -p no:cacheprovider \
  -p nx_served -p nx_device "${workers[@]}" "$@" --pyargs "${modules[@]}" > "$logs/off.log" 2>&1 \
  || { status=1; tail -60 "$logs/off.log"; }
echo "fallback off for gravel's functions, ${#modules[@]} modules: $(tail -1 "$logs/off.log")"
grep '^gravel served' "$logs/off.log"

NETWORKX_FALLBACK_TO_NX=True python3 -m pytest -q -p no:cacheprovider "${workers[@]}" "$@" \
  --pyargs networkx.algorithms > "$logs/on.log" 2>&1 || { status=1; tail -60 "$logs/on.log"; }
echo "fallback on, networkx.algorithms: $(tail -1 "$logs/on.log")"
exit $status

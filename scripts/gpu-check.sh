#!/usr/bin/env bash
# On a GPU machine, from the repo root: the GPU test suite, then `gravel bench` with every baseline on
# Kronecker scale 22, whose table comes last.
#   --all       adds benchmarks/operators.py, benchmarks/emogi.py (placements over the bus), the
#               4096x4096 grid and Kronecker scale 24
#   --locality  runs only benchmarks/blocking.py and benchmarks/reorder.py (several minutes)
#   --tuning    runs only the benchmarks of tuned constants: sweep.py, steps.py, sssp_delta.py,
#               bc_pull.py
#   --bus       runs only benchmarks/bus_bytes.py (Nsight Compute) and emogi.py's managed urand:27
#   --beyond [SPEC]  runs only benchmarks/beyond_memory.py (default kron:30:13, 111 GB of ids: the
#               two-H100 machine with 256 GB of host memory)
#   --primitives  runs only primitives.py on kron:22 and urand:22, NetworkX at scale 14 (issue 22)
#   --nx        runs only NetworkX's suite through the backend (scripts/nx-suite.sh): its first run,
#               NetworkX's tests of gravel's functions, on the GPU (NX_SUITE_DEVICE=cuda)
#   --nx-table [DONE.json ...]  runs only benchmarks/nx_backend.py on kron:20 on the GPU: the calls
#               not in the rows of the given records of earlier runs
#   --programs  runs only programs.py: programs against the built-ins on kron:22 and urand:22,
#               the hybrid on kron:25 (issue 53)
#   --suite     installs gravel (and dask, NetworKit, igraph from .whl/, when carried), runs
#               scripts/record-kernels.py (its instances.json and log copied to $OUT; RECORD_SECONDS=0
#               leaves it out), gravel.prebuild (KEEP_PREBUILT=1: its cubins to $OUT, to carry
#               next time; KEEP_CUPY_CACHE=1 and KEEP_NUMBA_CACHE=1: CuPy's and Numba's caches too)
#               and then the whole GPU suite, its log to $OUT/gpu-suite.log: what a merge of GPU
#               code needs (over 600 s on an H100; RECORD_SECONDS caps the recording, SUITE_SECONDS
#               the whole, from the script's start)
#   --suite-rest  runs the GPU tests that a --suite run cut off by its cap did not get to (its log,
#               and those of earlier --suite-rest runs, read from $OUT: a later call on the same
#               warm machine, OUT pointing to a folder that stays, such as build/; each run a log
#               of its own); both name each test as it ends, list the slowest,
#               and run the failed tests again in one process (RERUN_SECONDS kept for it)
#   --kernels   runs only kernel_times.py on kron:22 and urand:22: issue 23's six GPU cells, kernel
#               by kernel
#   --bounds    runs only kernel_times.py on the cells whose targets are still missed (issue 54):
#               kron:16 and urand:16, where Gunrock is as fast (BFS, SSSP, PageRank: how much of a
#               call is launches and waits), then urand:26 and kron:26 against the floor (BFS, CC,
#               SSSP)
#               (--nx fits one call of the device tool; --primitives and --programs may not:
#               split them with primitives.py --algo/--devices, or programs.py's runs above)
#   --gap DIR   runs only benchmarks/gap.py on kron:22 and urand:22 beside GAP built from DIR (a
#               sbeamer/gapbs checkout: copy it to third_party/gapbs, which git ignores, and carry it;
#               a copy without .git names its commit in a file COMMIT);
#               GAP_ARGS adds gap.py's options, e.g. GAP_ARGS="--algo bfs --threads 1,4,16" for a
#               scaling table (NUMBA_THREADING_LAYER=tbb, with tbb installed, for dynamic shares), or
#               GAP_ARGS="--gunrock third_party/gunrock-bin --peers" for every peer in one table
#               (GAP_GRAPHS="kron:22" runs one graph: a call of the device tool may not hold both
#               with Gunrock and the CPU peers)
#               (Gunrock's apps built by scripts/build-gunrock.sh and carried; .whl/ carried)
#   --load [DIR]  runs only benchmarks/load.py on kron:22 and urand:22 (issue 55), beside GAP
#               built from DIR where given
#   --scaling DIR  runs only gap.py's scaling table (threads 1, 4 and every core) for BFS, SSSP and
#               CC on kron:22 and urand:22 beside GAP from DIR, on Numba's omp layer, then
#               cpu_phases.py (each kernel on 1 thread and on every core), then gap.py on Numba's tbb
#               layer with chunk sizes 0 and 1024 where .tbb/ holds the tbb and tcmlib wheels (which
#               git ignores; carry it)
#   --compare DIR bench|blocking|gap|programs|kernels [GAPDIR]   times this tree against DIR (another
#               commit's src/ and benchmarks/, from `git archive`) in one session, alternately:
#               `gravel bench kron:22 urand:22` of the six primitives twice each,
#               benchmarks/blocking.py on kron:25 once each, the CPU path beside GAP from GAPDIR (gap.py on every core; GAP_ARGS picks, e.g. "--algo
#               bfs") twice each, the GPU programs against their primitives on kron:22
#               (programs.py --primitives-only) twice each, or kernel_times.py on kron:22 and
#               urand:22 twice each (KERNEL_ARGS picks the primitives, default "--algo bfs --algo
#               tc")
# JSON and logs land in ${OUT:-/tmp/gravel-gpu}, the JSON named as in benchmarks/results/<card>/.
# Set GRAVEL_DATASETS to a folder holding USA-road-NE.pace.gr.gz to include it and the dataset tests;
# without it, build/datasets where carried (a copy of the datasets that sit beside the checkout).
set -uo pipefail
[ -z "${GRAVEL_DATASETS:-}" ] && [ -d build/datasets ] && export GRAVEL_DATASETS=$PWD/build/datasets
out=${OUT:-/tmp/gravel-gpu}
mkdir -p "$out" && out=$(cd "$out" && pwd)  # absolute: some steps run in other folders
export PYTHONPATH=src PYTHONUNBUFFERED=1 GRAVEL_CACHE_DIR=${GRAVEL_CACHE_DIR:-/tmp/gravel-cache}
# CuPy's cache of what NVRTC compiled (gravel's generated kernels, the tests' instances), unpacked
# from build/cupy-cache.tar.xz where carried; KEEP_CUPY_CACHE=1 packs it back to $out after
# --suite and --suite-rest, so that a later machine compiles only what changed
export CUPY_CACHE_DIR=${CUPY_CACHE_DIR:-$PWD/build/cupy-cache}
if [ -f build/cupy-cache.tar.xz ] && [ ! -d "$CUPY_CACHE_DIR" ]; then
  mkdir -p "$CUPY_CACHE_DIR" && tar -xJf build/cupy-cache.tar.xz -C "$CUPY_CACHE_DIR"
fi
# the kernels gravel.prebuild compiled on an earlier machine, unpacked from build/prebuilt.tar.xz
# where carried: a first call then compiles only what changed
if [ -f build/prebuilt.tar.xz ] && [ ! -d src/gravel/backends/cuda/prebuilt ]; then
  tar -xJf build/prebuilt.tar.xz -C src/gravel/backends/cuda
fi
# Numba's cache of the CPU kernels (content-stamped: gravel.backends.cpu.cache), unpacked from
# build/numba-cache.tar.xz where carried (files already there, newer on a warm machine, kept);
# KEEP_NUMBA_CACHE=1 packs it back to $out with CuPy's, so that the suite's workers load the CPU
# kernels their comparisons run instead of each compiling them. Entries of changed sources stay in
# the archive unused: delete build/numba-cache.tar.xz to start afresh
if [ -f build/numba-cache.tar.xz ]; then
  tar -xJf build/numba-cache.tar.xz -C src/gravel --skip-old-files
fi
keep_caches() {
  [ "${KEEP_CUPY_CACHE:-0}" = 1 ] && [ -d "$CUPY_CACHE_DIR" ] \
    && XZ_OPT=-T0 tar -cJf "$out/cupy-cache.tar.xz" -C "$CUPY_CACHE_DIR" . \
    && du -h "$out/cupy-cache.tar.xz"
  [ "${KEEP_NUMBA_CACHE:-0}" = 1 ] \
    && (cd src/gravel && find . -name '*.nbi' -o -name '*.nbc' \
      | XZ_OPT=-T0 tar -cJf "$out/numba-cache.tar.xz" -T -) \
    && du -h "$out/numba-cache.tar.xz"
  return 0
}
bench() { python3 -m gravel bench "$@" --device cuda 2>&1 | grep --line-buffered -v generating; }
PRIMARY="--algo bfs --algo sssp --algo pagerank --algo cc --algo bc --algo tc"
# run NAME SCRIPT ARGS...: a benchmark script, its JSON to $out/NAME.json, its output to $out/NAME.log;
# RUN_SECONDS stops it with SIGTERM after that many seconds (a script that catches it writes what
# it has)
run() {
  local name=$1 script=$2
  shift 2
  # line-buffered throughout, so that a call cut off by its time limit keeps what was printed
  timeout "${RUN_SECONDS:-0}" python3 "benchmarks/$script" "$@" --json "$out/$name.json" 2>&1 \
    | stdbuf -oL tr "\r" "\n" \
    | grep --line-buffered -v generating | grep --line-buffered . \
    | tee "$out/$name.log"
}
# dask and the CPU peers (NetworKit, igraph), which the GPU machine lacks, from the wheels
# carried in .whl/
install_wheels() {
  [ -d .whl ] && python3 -m pip install -q --no-index --find-links .whl "dask[distributed]" \
    networkit igraph
  return 0
}
# rerun_failed NAME: the tests that failed in $out/NAME.log again, in one process (a timing check
# then runs without the other workers' load), with their tracebacks (a cut run prints none), to
# $out/NAME-failed.log; its summary line printed
rerun_failed() {
  local failed
  # whole test ids (a parameter may hold spaces), up to pytest's " - reason"
  mapfile -t failed < <(grep -oP '(?:^|\] )(?:FAILED|ERROR) \Ktests/\S.*?(?= - | *$)' "$out/$1.log" \
    | sort -u)
  [ ${#failed[@]} = 0 ] && return 0
  timeout -s INT "$(left 0)" python3 -m pytest -q -p no:cacheprovider --tb=long "${failed[@]}" \
    >"$out/$1-failed.log" 2>&1
  echo "again, one process: $(grep -E " in [0-9.]+s" "$out/$1-failed.log" | tail -1)"
}
# left KEEP: the seconds left of SUITE_SECONDS (counted from the script's start) less KEEP, at
# least 1 (timeout takes 0 as no limit)
left() {
  local t=$((${SUITE_SECONDS:-3600} - $1 - SECONDS))
  echo $((t > 0 ? t : 1))
}
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
road=${GRAVEL_DATASETS:+$GRAVEL_DATASETS/USA-road-NE.pace.gr.gz}
case "${1:-}" in
  --locality)
    run blocking blocking.py kron:23 kron:24 kron:25 urand:24 $road
    run reorder reorder.py kron:22 urand:22 grid:2048x2048 rgg:22 $road --scramble 0.02 0.05 0.1 0.2 0.4
    # the graphs whose sweeps stage in shared memory, where auto weighs a degree sort
    run reorder-staged reorder.py kron:23 kron:24 kron:25
    exit 0 ;;
  --tuning)
    run sweep sweep.py kron:22 kron:25
    run steps steps.py 4096
    run sssp_delta sssp_delta.py kron:22 urand:22 rgg:20:32 grid:1024x1024
    run bc_pull bc_pull.py kron:22 urand:22
    exit 0 ;;
  --primitives)
    run primitives primitives.py kron:22 urand:22 --repeat 3 --nx-timeout 30
    exit 0 ;;
  --nx)
    # installs gravel (the backend's entry point); both runs' logs kept in $out; gravel's own
    # functions (the first run) on the GPU whatever the graph's size
    NX_SUITE_DEVICE=${NX_SUITE_DEVICE:-cuda} NX_SUITE_WORKERS=${NX_SUITE_WORKERS:-12} \
      NX_SUITE_LOGS=$out/nx-suite scripts/nx-suite.sh | tee "$out/nx-suite.log"
    exit 0 ;;
  --nx-table)
    GRAVEL_PREBUILD=0 scripts/install-backend.sh
    # the GPU column of docs/networkx.md's table: kron:20, one run a call (as the CPU column),
    # NetworkX alone stopped after 3 s a call, heavy calls left out, each conversion timed once;
    # the calls not yet in the JSON records named after --nx-table (none: every call), so that a
    # run cut off by RUN_SECONDS goes on where it stopped
    shift
    mapfile -t names < <(python3 -c "import json, sys; sys.path.insert(0, 'benchmarks'); \
from nx_calls import CALLS; done = {r['function'] for f in sys.argv[1:] \
for r in json.load(open(f))['rows']}; print(*(n for n in CALLS if n not in done), sep='\n')" "$@")
    run "nx_backend-kron20-$(($# + 1))" nx_backend.py kron:20 --devices cuda --nx-timeout 3 \
      --heavy-max-edges 1000000 --incl-repeat 0 --convert-repeat 1 --repeat 1 --calls "${names[@]}"
    exit 0 ;;
  --programs)
    # docs/programs.md's tables (issue 53): the programs against the built-ins on kron:22 and
    # urand:22, then the hybrid on kron:25 under budgets of a third and a tenth of its ids
    for g in kron:22 urand:22; do
      run "programs-primitives-${g/:/}" programs.py --primitives "$g" --primitives-only --repeat 3
    done
    run programs-hybrid-kron25 programs.py kron:25 --budget-fractions 0.333 0.1 --modes gpu \
      gpu-tiered gpu-host hybrid cpu --primitives '' --repeat 3 --cpu-repeat 1
    exit 0 ;;
  --suite)
    # the NetworkX backend's entry point needs gravel installed; dask and the CPU peers (NetworKit,
    # igraph) travel as wheels in .whl/
    GRAVEL_PREBUILD=0 python3 -m pip install -q --no-deps --no-build-isolation -e .
    install_wheels
    # its whole output logged: a traceback (instances.json then left as it was) lands in $out too
    if [ "${RECORD_SECONDS:-1800}" != 0 ]; then
      timeout "${RECORD_SECONDS:-1800}" python3 scripts/record-kernels.py 2>&1 | tr "\r" "\n" \
        | tee "$out/record-kernels.log" | grep "kernel instances"
      cp src/gravel/backends/cuda/kernels/instances.json "$out/instances.json"
    fi
    # the built-in kernels compiled once on every core, not by each test worker in turn; with
    # KEEP_PREBUILT=1 they come back as $out/prebuilt.tar.xz, to unpack into
    # src/gravel/backends/cuda/ and carry: a later machine then builds only what changed
    python3 -m gravel.prebuild 2>&1 | tail -1
    [ "${KEEP_PREBUILT:-0}" = 1 ] && XZ_OPT=-T0 tar -cJf "$out/prebuilt.tar.xz" -C src/gravel/backends/cuda prebuilt
    # SIGINT at the time limit (RERUN_SECONDS before it); -v names each test as it ends, so a cut
    # run's log still tells what it ran (an earlier suite's --suite-rest logs go: they are not its)
    rm -f "$out"/gpu-suite-rest*.log
    timeout -s INT "$(left "${RERUN_SECONDS:-60}")" \
      python3 -m pytest -v -m gpu -p no:cacheprovider tests -rA -n "$(($(nproc) - 1))" \
      --dist "$(scripts/xdist-mode.sh)" --durations=40 >"$out/gpu-suite.log" 2>&1
    grep -E "^(FAILED|ERROR) | in [0-9.]+s" "$out/gpu-suite.log"
    rerun_failed gpu-suite
    keep_caches
    exit 0 ;;
  --suite-rest)
    # the tests that a cut-off --suite run and the --suite-rest runs after it (their logs in $out:
    # gpu-suite-rest.log, gpu-suite-rest2.log, ...) did not get to, in a later call
    logs=("$out/gpu-suite.log")
    for f in "$out"/gpu-suite-rest*.log; do
      [[ $f =~ /gpu-suite-rest[0-9]*\.log$ ]] && logs+=("$f")  # not the -failed.log reruns
    done
    rest=gpu-suite-rest$([ ${#logs[@]} -gt 1 ] && echo ${#logs[@]})
    timeout -s INT "$(left "${RERUN_SECONDS:-60}")" \
      python3 scripts/gpu-suite-rest.py "${logs[@]}" -v -n "$(($(nproc) - 1))" \
      --dist "$(scripts/xdist-mode.sh)" --durations=40 >"$out/$rest.log" 2>&1
    grep -E "^(FAILED|ERROR) | to run| in [0-9.]+s" "$out/$rest.log"
    rerun_failed "$rest"
    keep_caches
    exit 0 ;;
  --kernels)
    run kernel-times kernel_times.py kron:22 urand:22 --algo bfs --algo sssp --algo pagerank \
      --algo cc --algo bc --algo tc
    exit 0 ;;
  --bounds)
    run kernel-times-small kernel_times.py kron:16 urand:16 --algo bfs --algo sssp --algo pagerank
    run kernel-times-26 kernel_times.py urand:26 kron:26 --algo bfs --algo cc --algo sssp --repeat 3
    exit 0 ;;
  --gap)
    install_wheels  # --peers in GAP_ARGS: NetworKit and igraph
    # shellcheck disable=SC2086  # GAP_GRAPHS and GAP_ARGS: words
    run gap gap.py ${GAP_GRAPHS:-kron:22 urand:22} --gap "$2" --repeat 3 ${GAP_ARGS:-}
    exit 0 ;;
  --load)
    # issue 55 on the GPU machine: text in and out on every core and on the GPU, file -> answer
    # beside GAP's converter and kernels (with DIR, a gapbs checkout; NetworkX's read_edgelist
    # runs up to scale 18 only, so not here)
    [ -n "${2:-}" ] && make -s -C "$2" -j "$(nproc)" >/dev/null
    # the files in build/, on the checkout's disk (/tmp may be a tmpfs, which no read finds cold)
    mkdir -p build
    run load load.py kron:22 urand:22 --folder build ${2:+--gap "$2"}
    exit 0 ;;
  --scaling)
    all=$(nproc)
    scale=(kron:22 urand:22 --gap "$2" --repeat 3 --algo bfs --algo sssp --algo cc)
    run scaling-omp gap.py "${scale[@]}" --threads "1,4,$all"
    run cpu-phases cpu_phases.py kron:22 urand:22 --threads "$all" --repeat 3
    if compgen -G ".tbb/tbb-*.whl" >/dev/null; then
      for w in .tbb/*.whl; do python3 -m zipfile -e "$w" /tmp/gravel-tbb; done
      LD_LIBRARY_PATH=$(printf '%s:' /tmp/gravel-tbb/*/data/lib)${LD_LIBRARY_PATH:-} \
        NUMBA_THREADING_LAYER=tbb run scaling-tbb gap.py "${scale[@]}" --threads "1,4,$all" \
        --chunksize 0,1024
    fi
    exit 0 ;;
  --bus)
    # bytes over the bus per id byte (Nsight Compute), then managed memory where urand:27 fits
    run bus_bytes bus_bytes.py kron:22 urand:22
    run emogi-urand27-managed emogi.py urand:27 --cases managed --repeat 3
    exit 0 ;;
  --beyond)
    # a graph larger than the card (on the two-H100 machine, one GPU): CC and BFS over the bus
    CUDA_VISIBLE_DEVICES=0 run beyond-memory beyond_memory.py "${2:-kron:30:13}" --placements auto
    exit 0 ;;
  --compare)
    base=$2
    for round in 1 2; do
      for side in "$base" .; do
        tag=$([ "$side" = . ] && echo this || echo base)
        if [ "$3" = bench ]; then
          # docs/performance.md's first table, streamed: a call cut off by its limit keeps its rows
          # shellcheck disable=SC2086
          PYTHONPATH=$side/src bench kron:22 urand:22 --no-baselines --repeat 5 $PRIMARY \
            --json "$out/bench-primitives-$tag-$round.json" | tee "$out/bench-$tag-$round.log"
        elif [ "$3" = gap ]; then
          # shellcheck disable=SC2086
          PYTHONPATH=$side/src run "gap-$tag-$round" gap.py kron:22 urand:22 --gap "$4" \
            --repeat 3 --threads "$(nproc)" ${GAP_ARGS:-}
        elif [ "$3" = kernels ]; then
          # shellcheck disable=SC2086
          PYTHONPATH=$side/src run "kernels-$tag-$round" kernel_times.py kron:22 urand:22 \
            ${KERNEL_ARGS:---algo bfs --algo tc}
        elif [ "$3" = programs ]; then
          PYTHONPATH=$side/src run "programs-$tag-$round" programs.py --primitives kron:22 \
            --primitives-only --repeat 3
        elif [ "$round" = 1 ]; then
          PYTHONPATH=$side/src run "blocking-kron25-$tag" ../"$side"/benchmarks/blocking.py kron:25
        fi
      done
    done
    exit 0 ;;
esac
# the built-in kernels, as an install builds them (kept in src/: later runs reuse them); the modes
# above leave it out (a fresh machine spends minutes on it, and their benchmarks warm up anyway)
python3 -m gravel.prebuild 2>&1 | tail -2
python3 -m pytest -q -m gpu -p no:cacheprovider -n auto tests 2>&1 | tee "$out/gpu-tests.log" | tail -5
if [ "${1:-}" = "--all" ]; then
  run operators operators.py --repeat 30
  run emogi emogi.py kron:24 urand:24 --repeat 3
  bench grid:4096x4096 --repeat 3 --json "$out/bench-grid4096.json" | tee "$out/bench-grid4096.log"
  bench kron:24 --algo bfs --algo pagerank --algo cc --algo sssp --no-baselines --repeat 5 \
    --json "$out/bench-kron24.json" | tee "$out/bench-kron24.log"
fi
bench kron:22 --repeat 5 --json "$out/bench-kron22.json" | tee "$out/bench-kron22.log"

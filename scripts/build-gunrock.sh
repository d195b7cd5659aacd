#!/usr/bin/env bash
# Build Gunrock's example apps (bfs, sssp, pr, bc, tc) for benchmarks/gunrock.py and gap.py's
# --gunrock, on a machine with the CUDA toolkit (CUDA_HOME, default /usr/local/cuda; no GPU
# needed) and without a network:
#
#   scripts/build-gunrock.sh GUNROCK DEPS [BIN] [ARCH]
#
# GUNROCK: a gunrock/gunrock source tree (its files, or a git checkout; not changed: the build
# patches a copy). DEPS: a folder with the source trees Gunrock's CMake would fetch, as
# cxxopts/ (jarro2783/cxxopts at its tag v3.0.0), json/ (nlohmann/json) and cmake_modules/
# (rpavlik/cmake-modules); CCCL (Thrust, CUB) is the toolkit's. BIN (default
# third_party/gunrock-bin, which git ignores: carry it to the GPU machine) receives the five apps
# and COMMIT, the Gunrock commit built (from GUNROCK_COMMIT, or GUNROCK's git head). ARCH: the
# GPU architecture (default 90: H100 and H200).
#
# scripts/gunrock.patch goes on the copy first: its device code (atomics in util/math.hxx, the
# frontiers' copy constructors) is chosen by __HIP_DEVICE_COMPILE__, which nvcc never defines, so
# that nvcc's device pass took the host branch (a plain read for atomic::min: BFS and SSSP found no
# vertex); the patch takes the device branch under __CUDA_ARCH__ too. BC advances block-mapped, as
# BFS and SSSP do by default, where it used the merge-path (v2) advance, which reads its frontier
# at tile-relative positions (right for a frontier of one tile only) and prints whole frontiers at
# every step; its example zeroes the centralities before each of its -n runs, which added into
# them; and the block-mapped advance returns at an empty input, where it launched a grid of no
# blocks (an invalid argument, which the next thrust call reported as its own): BC's backward
# pass begins at the forward pass's last frontier, which is empty. The patch makes print::head print every value, at round-trip precision, when GUNROCK_PRINT_ALL is set, so that
# gravel's verifiers check the whole answer (an integer result leaves the stream at precision 0:
# the time printed after it has one digit, so benchmarks/gunrock.py times such apps in a second
# run without GUNROCK_PRINT_ALL). Its binary CSR reader (a file ending in .csr, which
# benchmarks/gunrock.py writes) threw after every whole read (it tested fread's count against 0),
# and bfs, sssp, pr and bc parsed the file as Matrix Market text before reaching it: the patch
# checks the counts read and has those apps parse text only for a text file, so that a run loads
# its graph in one read. And TC (since Gunrock's d6ba041) advanced over the enactor's frontier,
# which it never fills, counting no triangle: the patch restores its advance over every vertex.
#
# The apps link the libraries Gunrock names as needed only, and these five use none of cuRAND,
# cuSPARSE and the driver API (CUDA's runtime, linked statically, loads the driver itself): empty
# stand-ins of those libraries satisfy the link where the toolkit lacks them (a build machine
# without a driver). An app that did call one of them would fail to link, not to run.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,14p' "$0"; exit 2; }
src=$(realpath "$1") deps=$(realpath "$2")
bin=$(realpath -m "${3:-$(dirname "$0")/../third_party/gunrock-bin}") arch=${4:-90}
patch=$(realpath "$(dirname "$0")/gunrock.patch")
for d in cxxopts json cmake_modules; do
  [ -d "$deps/$d" ] || { echo "build-gunrock: $deps/$d is missing" >&2; exit 2; }
done
# the checkout's head only where GUNROCK is a checkout's top, not a copy inside another repository
[ "$(git -C "$src" rev-parse --show-toplevel 2>/dev/null)" = "$src" ] \
  && checkout_head=$(git -C "$src" rev-parse HEAD)
commit=${GUNROCK_COMMIT:-${checkout_head:-}}
[ -n "$commit" ] || { echo "build-gunrock: $src is not a git checkout: set GUNROCK_COMMIT" >&2; exit 2; }
cuda=$(realpath "${CUDA_HOME:-/usr/local/cuda}")
[ -x "$cuda/bin/nvcc" ] && [ -d "$cuda/include/cccl" ] \
  || { echo "build-gunrock: no CUDA toolkit with CCCL in $cuda: set CUDA_HOME" >&2; exit 2; }

work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
mkdir "$work/src" "$work/stubs"
tar -C "$src" --exclude=./.git --exclude=./datasets -cf - . | tar -C "$work/src" -xf -
patch -s -d "$work/src" -p1 <"$patch"
# the empty stand-ins (libcuda's soname the driver's, as the toolkit's own stub has it)
echo 'void gravel_gunrock_stub(void) {}' >"$work/stubs/stub.c"
cc -shared -fPIC -Wl,-soname,libcuda.so.1 -o "$work/stubs/libcuda.so" "$work/stubs/stub.c"
for lib in curand cusparse; do
  [ -e "$cuda/lib64/lib$lib.so" ] || cc -shared -fPIC -o "$work/stubs/lib$lib.so" "$work/stubs/stub.c"
done

cmake -S "$work/src" -B "$work/build" -DCMAKE_BUILD_TYPE=Release \
  -DESSENTIALS_NVIDIA_BACKEND=ON -DESSENTIALS_AMD_BACKEND=OFF -DESSENTIALS_BUILD_TESTS=OFF \
  -DESSENTIALS_BUILD_BENCHMARKS=OFF -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DCMAKE_CUDA_COMPILER="$cuda/bin/nvcc" \
  -DFETCHCONTENT_FULLY_DISCONNECTED=ON \
  -DFETCHCONTENT_SOURCE_DIR_CCCL="$cuda/include/cccl" \
  -DFETCHCONTENT_SOURCE_DIR_CXXOPTS="$deps/cxxopts" \
  -DFETCHCONTENT_SOURCE_DIR_JSON="$deps/json" \
  -DFETCHCONTENT_SOURCE_DIR_CMAKE_MODULES="$deps/cmake_modules" \
  -DCMAKE_MODULE_PATH="$deps/cmake_modules" \
  -DJSON_BuildTests=OFF -DCXXOPTS_BUILD_EXAMPLES=OFF -DCXXOPTS_BUILD_TESTS=OFF \
  -DCMAKE_EXE_LINKER_FLAGS="-Wl,--as-needed -L$work/stubs" \
  -DCMAKE_CUDA_FLAGS="-L$work/stubs" >"$work/cmake.log" 2>&1 \
  || { tail -40 "$work/cmake.log" >&2; exit 1; }
apps=(bfs sssp pr bc tc)
cmake --build "$work/build" -j "$(nproc)" --target "${apps[@]}" >"$work/build.log" 2>&1 \
  || { grep -E "error|Error" "$work/build.log" | head -40 >&2; exit 1; }
mkdir -p "$bin"
for app in "${apps[@]}"; do
  cp "$work/build/bin/$app" "$bin/$app"
done
echo "$commit" >"$bin/COMMIT"
echo "Gunrock $commit for sm_$arch: ${apps[*]} in $bin"

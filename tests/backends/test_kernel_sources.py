"""Every kernel compiles with a functor of the kind the operators splice in: user parameters (one
named `k`, which a kernel local once shadowed, and one `s`, once a helper's parameter), the `step`
of multi-step advances, a pull's `where` and "any", a fused neighbor_reduce update and its sums. CI
has nvcc but no GPU; NVRTC compiles the same source on the device."""

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor

import pytest

from gravel.backends.cuda import runtime
from gravel.layouts.staged import KERNEL_DEFINES
from gravel.operators import codegen as ops
from gravel.operators.neighbor_reduce import SUMS_ARRAY
from gravel.operators.steps import STEPS_BLOCK, STEPS_BLOCKS_PER_SM

pytestmark = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")

PARAMS = [
    ("int*", "depth"),
    ("int", "level"),
    ("int", "k"),
    ("float*", "x"),
    ("unsigned char*", "s"),
]
VISIT = {ops.ADVANCE_OP: "(atomicCAS(&depth[dst], -1, level + step + k) == -1 && x[src] >= 0.0f)"}
SUMMED = {
    ops.NR_REDUCE: "((a) + (b))",
    ops.NR_SUMS: "2",
    ops.NR_APPLY: "{ float r = 0.15f + 0.85f * acc; x[v] = r + k; "
    + ops.sums_op(["r", "fabsf(r - x[v])"], "gravel_s")
    + " }",
}
CASES = [
    ("advance/thread_mapped.cu", "gravel_advance_thread_mapped<1, int>", VISIT),
    ("advance/twc.cu", "gravel_advance_twc<2, long long>", VISIT),
    ("advance/block_mapped.cu", "gravel_advance_block_mapped<1, int, 256>", VISIT),
    ("advance/merge_path.cu", "gravel_advance_merge_path<0, int, 256, 4>", VISIT),
    ("advance/steps.cu", f"gravel_advance_steps<{STEPS_BLOCK}, {STEPS_BLOCKS_PER_SM}>", VISIT),
    ("advance/steps.cu", f"gravel_advance_replay<{STEPS_BLOCK}, {STEPS_BLOCKS_PER_SM}>", VISIT),
    ("advance/buckets.cu", f"gravel_advance_buckets<{STEPS_BLOCK}, {STEPS_BLOCKS_PER_SM}>", VISIT),
    (
        "advance/pull.cu",
        "gravel_advance_pull<3, unsigned int>",
        VISIT | {ops.PULL_WHERE: "(depth[v] < 0)"},
    ),
    ("filter/compact.cu", "gravel_filter_flags<256>", {ops.FILTER_OP: "(depth[v] == level + k)"}),
    ("filter/cull.cu", "gravel_filter_cull", {ops.FILTER_OP: "(x[v] > 0.0f)"}),
    ("filter/split.cu", "gravel_split_keys<256>", {ops.SPLIT_OP: "(depth[v] - level + k)"}),
    ("filter/split.cu", "gravel_split_write<256>", {}),
    (
        "compute/compute.cu",
        "gravel_compute",
        {ops.COMPUTE_OP: "{ float acc = x[v]; depth[v] = (int)acc + k; }"},
    ),
    (
        "neighbor_reduce/pull.cu",
        "gravel_neighbor_reduce_pull<float, 4>",
        {
            ops.NR_VALUE: "((float)(x[u] * weight))",
            ops.NR_REDUCE: "((a) + (b))",
            ops.NR_APPLY: "{ float r = 0.15f + 0.85f * acc; x[v] = r + k; }",
        },
    ),
    (
        "neighbor_reduce/pull.cu",
        "gravel_neighbor_reduce_pull<int, 8>",
        {
            ops.NR_VALUE: "((int)(s[u] ? depth[u] : 2147483647))",
            ops.NR_REDUCE: "(min((a), (b)))",
            ops.NR_FIRST: "1",
        },
    ),
    (
        "compute/sums.cu",
        "gravel_compute_sums<2, 256>",
        {ops.SUMS_OP: ops.sums_op(["x[v] * k * s[v]", "(double)i"])},
    ),
    ("frontier/degree_scan.cu", "gravel_degree_scan_block<1024>", {}),
    (
        "neighbor_reduce/pull_long.cu",
        "gravel_neighbor_reduce_pull_long<float, 256>",
        {
            ops.NR_VALUE: "((float)(x[u] * weight))",
            ops.NR_REDUCE: "((a) + (b))",
            ops.NR_APPLY: "{ float r = 0.15f + 0.85f * acc; x[v] = r + k; }",
        },
    ),
    (
        "neighbor_reduce/blocked_merge.cu",
        "gravel_neighbor_reduce_merge<float, 2048>",
        {
            ops.NR_REDUCE: "((a) + (b))",
            ops.NR_APPLY: "{ float r = 0.15f + 0.85f * acc; x[v] = r + k; }",
        },
    ),
    # a push: an advance folding the value atomically, through its own function in the preamble
    (
        "advance/merge_path.cu",
        "gravel_advance_merge_path<0, int, 256, 4>",
        {
            ops.ADVANCE_OP: "(gravel_atomic_fold<float, 0>(&x[dst], "
            "gravel_push_value(dst, src, edge, weight, depth, level, k, x, s)), false)"
        },
        PARAMS,
        "__device__ __forceinline__ float gravel_push_value(int v, int u, long long edge, "
        "float weight GRAVEL_USER_FN_PARAMS) { return ((float)(x[u] * weight)); }",
    ),
    # the staged gather of x[u] alone (COMBINE 0), x[u] + weight (1) and x[u] * weight (2)
    ("neighbor_reduce/staged.cu", "gravel_staged_copy<float, 0>", {}),
    ("neighbor_reduce/staged.cu", "gravel_staged_copy<int, 1>", {}),
    ("neighbor_reduce/staged.cu", "gravel_staged_copy<double, 2>", {}),
    ("neighbor_reduce/staged.cu", "gravel_staged_gather<float, 0>", {ops.NR_REDUCE: "((a) + (b))"}),
    (
        "neighbor_reduce/staged.cu",
        "gravel_staged_gather<double, 0>",
        {ops.NR_REDUCE: "(min((a), (b)))"},
    ),
    (
        "neighbor_reduce/staged.cu",
        "gravel_staged_gather<float, 1>",
        {ops.NR_REDUCE: "(min((a), (b)))"},
    ),
    ("neighbor_reduce/staged.cu", "gravel_staged_gather<int, 2>", {ops.NR_REDUCE: "((a) + (b))"}),
    (
        "neighbor_reduce/staged.cu",
        "gravel_staged_merge<float, 0>",
        {
            ops.NR_REDUCE: "((a) + (b))",
            ops.NR_APPLY: "{ float r = 0.15f + 0.85f * acc; x[v] = r + k; }",
        },
    ),
    (
        "neighbor_reduce/staged.cu",
        "gravel_staged_merge<double, 1>",
        {ops.NR_REDUCE: "(min((a), (b)))", ops.NR_APPLY: "{ x[v] = (float)acc + k; }"},
    ),
    # the apply's sums (neighbor_reduce's `sums`), put in through their own parameter
    *[
        (path, instance, SUMMED, PARAMS + [("double*", SUMS_ARRAY)], "")
        for path, instance in (
            ("neighbor_reduce/pull.cu", "gravel_neighbor_reduce_pull<float, 32>"),
            ("neighbor_reduce/pull_long.cu", "gravel_neighbor_reduce_pull_long<float, 256>"),
            ("neighbor_reduce/blocked_merge.cu", "gravel_neighbor_reduce_merge<float, 2048>"),
            ("neighbor_reduce/staged.cu", "gravel_staged_merge<float, 0>"),
        )
    ],
]


def compile_case(case, tmp_path):
    path, instance, macros, *own = case
    params, preamble = own or (PARAMS, "")
    src = runtime.source(
        path, runtime.define_lines(KERNEL_DEFINES) + ops.prelude(params, macros, preamble)
    )
    src += f"\nvoid* gravel_check = (void*){instance};\n"
    cu = tmp_path / (instance.split("<")[0] + f"_{abs(hash(instance))}.cu")
    cu.write_text(src)
    # to PTX: what a functor adds is checked by the front end; .ci/run assembles every file
    run = subprocess.run(
        ["nvcc", "-arch=sm_90", "-std=c++17", "-ptx", str(cu), "-o", "/dev/null"],
        capture_output=True,
        text=True,
    )
    return instance, run.returncode, run.stderr[-3000:]


def test_every_kernel_compiles_with_a_functor(tmp_path):
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c: compile_case(c, tmp_path), CASES))
    failed = [f"{inst}:\n{err}" for inst, rc, err in results if rc]
    assert not failed, "\n".join(failed)


@pytest.mark.parametrize("name", ["2x", "x-y", "déjà", "", 3])
def test_a_parameter_name_that_is_no_c_identifier_is_refused(name):
    with pytest.raises(ValueError, match="not a C identifier"):
        ops.check_param_name(name)

"""Does an L2 persistence window (cudaAccessPolicyWindow, which GraphCage's GPUs lacked) speed up the rows
pass of the blocked PageRank pull? The rows pass three ways: one launch over every row (gravel's way),
one launch per block, and one launch per block with the window set over that block's slice of the
gathered values. CUDA events, median of 5 after a warm-up; the partial sums of the three must agree.

    PYTHONPATH=src python scripts/probe_l2_window.py kron:25
"""

import ctypes
import statistics
import sys

import cupy
import numpy as np

from gravel import operators as ops
from gravel.algorithms._common import Timer
from gravel.backends.cuda import runtime
from gravel.blocking import block_width, pull_layout
from gravel.cli import open_graph

CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1
PERSISTING, STREAMING = 2, 1


class AccessPolicyWindow(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int)]


class StreamAttrValue(ctypes.Union):  # CUlaunchAttributeValue: 64 bytes
    _fields_ = [("accessPolicyWindow", AccessPolicyWindow), ("pad", ctypes.c_char * 64)]


libcuda = ctypes.CDLL("libcuda.so.1")


def set_window(stream, ptr, nbytes, hit_ratio):
    value = StreamAttrValue()
    value.accessPolicyWindow = AccessPolicyWindow(ptr, nbytes, hit_ratio, PERSISTING if nbytes else 0, STREAMING)
    check(libcuda.cuStreamSetAttribute(ctypes.c_void_p(stream.ptr), CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW,
                                       ctypes.byref(value)), "cuStreamSetAttribute")


def check(rc, what):
    if rc:
        raise RuntimeError(f"{what} failed: CUresult {rc}")


def main():
    spec = sys.argv[1] if len(sys.argv) > 1 else "kron:24"
    G, _ = open_graph(spec)
    dg = G.to("cuda")
    width = block_width(4)
    L = pull_layout(dg, width)
    attrs = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    persist_max, window_max = attrs["persistingL2CacheMaxSize"], attrs["accessPolicyMaxWindowSize"]
    check(libcuda.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(persist_max)), "cuCtxSetLimit")
    x = cupy.random.random(G.n, dtype=cupy.float32)
    prelude, extra = ops._functor({"x": x}, {ops.NR_VALUE: "((float)(x[u]))", ops.NR_REDUCE: "((a) + (b))"})
    vec = ops.lanes_per_item(L.sources.size / max(L.rows, 1))
    k = runtime.kernel("neighbor_reduce/pull.cu", "gravel_neighbor_reduce_pull", templates=("float", vec),
                       prelude=prelude)
    starts = L.tile_rows.reshape(L.blocks, L.tiles + 1)[:, 0].get().tolist() + [L.rows]
    stream = cupy.cuda.Stream(non_blocking=True)

    def rows(partial, lo, hi):
        k(runtime.blocks_for((hi - lo) * vec, ops.BLOCK, resident=8), ops.BLOCK,
          (L.offsets[lo:hi + 1], L.sources, ops._dummy(cupy.float32), np.int32(0), L.row_vertex[lo:hi],
           np.int32(0), np.int32(1), np.int64(hi - lo), np.float32(0), partial[lo:hi]) + extra)

    def one_launch(partial):
        rows(partial, 0, L.rows)

    def per_block(window):
        def run(partial):
            for b in range(L.blocks):
                if window:
                    lo_v = b * width
                    nbytes = min(width, G.n - lo_v) * 4
                    set_window(stream, x.data.ptr + 4 * lo_v, min(nbytes, window_max), min(1.0, persist_max / nbytes))
                rows(partial, starts[b], starts[b + 1])
            if window:
                set_window(stream, 0, 0, 0.0)
                check(libcuda.cuCtxResetPersistingL2Cache(), "cuCtxResetPersistingL2Cache")
        return run

    results = {}
    with stream:
        for name, fn in (("one launch", one_launch), ("per block", per_block(False)),
                         ("per block + window", per_block(True))):
            partial = cupy.empty(L.rows, cupy.float32)
            times = []
            for _ in range(6):
                with Timer("cuda") as t:
                    fn(partial)
                times.append(t.seconds)
            results[name] = partial
            assert cupy.allclose(partial, results["one launch"], rtol=1e-5), name
            print(f"{spec} ({G.n:,} vertices, {L.blocks} blocks of {width:,}, {L.rows:,} rows): rows pass, {name}: "
                  f"{1e3 * statistics.median(times[1:]):.3f} ms; persisting L2 max {persist_max / 2**20:.1f} MiB, "
                  f"window max {window_max / 2**20:.1f} MiB, {runtime.props().name}")


if __name__ == "__main__":
    main()

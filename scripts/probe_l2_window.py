"""Does an L2 persistence window (cudaAccessPolicyWindow, which GraphCage's GPUs lacked) speed up the rows
pass of the blocked PageRank pull? The rows pass three ways, each one pass of CTAs: one launch over
every row (gravel's way), one launch per block, and one launch per block with the window set over
that block's slice of the gathered values. Then the whole sweep, plain and blocked (rows and merge).
CUDA events, median of 5 after a warm-up; the sums of every variant must agree. The block width is a
fraction of the L2 (default: gravel's).

    PYTHONPATH=src python scripts/probe_l2_window.py kron:25 [L2 FRACTION]
"""

import ctypes
import sys

import cupy
import numpy as np

from gravel import operators as ops
from gravel.backends.cuda import runtime
from gravel.bench import median_ms
from gravel.blocking import L2_FRACTION, block_width, pull_layout
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
    fraction = float(sys.argv[2]) if len(sys.argv) > 2 else L2_FRACTION
    G, _ = open_graph(spec)
    dg = G.to("cuda")
    width = block_width(4, fraction=fraction)
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

    def rows(partial, lo, hi):  # one pass of CTAs over rows lo..hi
        k(runtime.blocks_for((hi - lo) * vec, ops.BLOCK), ops.BLOCK,
          (L.offsets[lo:hi + 1], L.sources, ops._dummy(cupy.float32), np.int32(0), L.row_vertex[lo:hi],
           np.int32(0), np.int32(1), np.int32(0), np.int64(hi - lo), np.int32(1), np.int32(1), np.float32(0),
           partial[lo:hi]) + extra)

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

    variants = {"one launch": lambda p: rows(p, 0, L.rows),
                "a launch per block": per_block(False),
                "a launch per block + window": per_block(True)}
    tag = f"{spec} ({G.n:,} vertices, {L.blocks} blocks of {width:,}, {L.rows:,} rows, {runtime.props().name})"
    reference = None
    with stream:
        for name, fn in variants.items():
            partial = cupy.empty(L.rows, cupy.float32)
            ms = median_ms(lambda: fn(partial), 5)
            reference = partial if reference is None else reference
            assert cupy.allclose(partial, reference, rtol=1e-5), name
            print(f"{tag}: rows pass, {name}: {ms:.3f} ms")
        print(f"{tag}: persisting L2 max {persist_max / 2**20:.1f} MiB, window max {window_max / 2**20:.1f} MiB")
        plain = ops.neighbor_reduce(dg, None, "x[u]", params={"x": x})
        for name, blocking in (("plain pull", None), ("blocked pull (rows + merge)", width)):
            ms = median_ms(lambda: ops.neighbor_reduce(dg, None, "x[u]", params={"x": x}, blocking=blocking), 5)
            print(f"{tag}: neighbor_reduce, {name}: {ms:.3f} ms")
        assert cupy.allclose(ops.neighbor_reduce(dg, None, "x[u]", params={"x": x}, blocking=width), plain, rtol=1e-4)


if __name__ == "__main__":
    main()

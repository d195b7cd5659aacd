"""Where does the staged sweep's time go? One sweep of x[u] summed over every vertex's in-edges
(neighbor_reduce, CUDA events, median of 7 after a warm-up that builds the layouts): plain, blocked
through the L2 (a quarter of it per block), staged in shared memory, and the staged gather pass alone;
the staged sums must equal the plain ones. `--merge` adds staged sweeps with other merge tiles (bytes of
accumulators) and threads per merge CTA (256 at most); `--share` adds staged sweeps whose layout combines pairs up to
other shares of the edges (blocking.STAGED_PAIRS_SHARE; 1: always).

    PYTHONPATH=src python scripts/probe_staged.py kron:22 kron:25 --merge 32768:256 8192:128 --share 1
"""

import argparse

import cupy
import numpy as np

from gravel import blocking, operators as ops
from gravel.bench import median_ms
from gravel.blocking import STAGED_TILE_BYTES, block_width, shared_width, staged_layout
from gravel.cli import open_graph
from gravel.reorder import reorder


def staged_with(dg, x, width, tile_bytes, threads):
    """A staged sweep with merge tiles of `tile_bytes` and `threads` per merge CTA."""
    default = blocking.STAGED_TILE_BYTES, ops.STAGED_MERGE_BLOCK
    blocking.STAGED_TILE_BYTES, ops.STAGED_MERGE_BLOCK = tile_bytes, threads
    try:
        return ops.neighbor_reduce(dg, None, x, blocking=width)
    finally:
        blocking.STAGED_TILE_BYTES, ops.STAGED_MERGE_BLOCK = default


def main():
    p = argparse.ArgumentParser()
    p.add_argument("graphs", nargs="+")
    p.add_argument("--merge", nargs="*", default=[], help="TILE_BYTES:THREADS of more staged merges")
    p.add_argument("--share", type=float, nargs="*", default=[], help="more pairs shares of the staged layout")
    a = p.parse_args()
    width = shared_width(4)
    for spec in a.graphs:
        G, _ = open_graph(spec)
        for label, H in ((spec, G), (f"{spec} degree-sorted", reorder(G, "degree"))):
            dg = H.to("cuda")
            x = cupy.random.random(H.n, dtype=cupy.float32)
            plain = ops.neighbor_reduce(dg, None, x)
            staged = ops.neighbor_reduce(dg, None, x, blocking=width)
            assert cupy.allclose(plain, staged, rtol=1e-4, atol=1e-3), label
            L = staged_layout(dg, width, STAGED_TILE_BYTES // 4)
            f32 = np.dtype(np.float32)
            gather = lambda: ops.staged_gather(L, x, "((a) + (b))", f32, 0.0)  # noqa: E731
            times = {"plain": median_ms(lambda: ops.neighbor_reduce(dg, None, x)),
                     "L2-blocked": median_ms(lambda: ops.neighbor_reduce(dg, None, x, blocking=block_width(4))),
                     "staged": median_ms(lambda: ops.neighbor_reduce(dg, None, x, blocking=width)),
                     "staged gather": median_ms(gather)}
            for variant in a.merge:
                tile_bytes, threads = (int(v) for v in variant.split(":"))
                assert cupy.allclose(plain, staged_with(dg, x, width, tile_bytes, threads), rtol=1e-4, atol=1e-3)
                times[f"staged {variant}"] = median_ms(lambda: staged_with(dg, x, width, tile_bytes, threads))
            for share in a.share:
                dg.derived.pop("staged_pull")
                default, blocking.STAGED_PAIRS_SHARE = blocking.STAGED_PAIRS_SHARE, share
                try:
                    assert cupy.allclose(plain, ops.neighbor_reduce(dg, None, x, blocking=width), rtol=1e-4, atol=1e-3)
                    pairs = staged_layout(dg, width, STAGED_TILE_BYTES // 4).pairs
                    times[f"staged share {share} ({pairs / H.nnz:.2f} pairs an edge)"] = median_ms(
                        lambda: ops.neighbor_reduce(dg, None, x, blocking=width))
                finally:
                    blocking.STAGED_PAIRS_SHARE = default
            print(f"{label:>22}: " + ", ".join(f"{k} {v:7.3f} ms" for k, v in times.items())
                  + f"; {L.blocks} blocks, {L.chunk_block.size} chunks, {L.tiles} tiles, {L.pieces} pieces, "
                  f"{L.seg_start.size} segments, {L.pairs:,} pairs of {H.nnz:,} edges", flush=True)
            dg.derived.clear()


if __name__ == "__main__":
    main()

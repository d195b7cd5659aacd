"""How should the pull kernel's CTAs cover the items? For each graph, as given and degree-sorted: the
plain pull sweep (neighbor_reduce of x[u] over every vertex) and the blocked one (rows pass + merge)
with each launch shape (passes, resident waves; see operators.STRIDING). CUDA events, median of 5
after a warm-up; every shape's sums must agree.

    PYTHONPATH=src python scripts/probe_pull_shape.py kron:22 /tmp/kron25.gravel
"""

import sys

import cupy

from gravel import operators as ops
from gravel.backends.cuda import runtime
from gravel.bench import median_ms
from gravel.blocking import block_width
from gravel.cli import open_graph
from gravel.reorder import reorder

SHAPES = [(1, 8), (1, None), (16, None), (64, None), (16, 8)]


def main():
    width = block_width(4)
    for spec in sys.argv[1:]:
        G, _ = open_graph(spec)
        G.to("cuda")
        for label, H in ((spec, G), (f"{spec} degree-sorted", reorder(G, "degree"))):
            dg = H.to("cuda")
            x = cupy.random.random(H.n, dtype=cupy.float32)
            expect = None
            for shape in SHAPES:
                ops.ROWS_SHAPE = shape
                ops.pull_shape = lambda graph, bytes_per_vertex=4, shape=shape: shape
                cells = []
                for blocking in (None, width):
                    out = ops.neighbor_reduce(dg, None, "x[u]", params={"x": x}, blocking=blocking)
                    expect = out if expect is None else expect
                    assert cupy.allclose(out, expect, rtol=1e-4), (shape, blocking)
                    ms = median_ms(lambda: ops.neighbor_reduce(dg, None, "x[u]", params={"x": x}, blocking=blocking), 5)
                    cells.append(f"{'plain' if blocking is None else 'blocked'} {ms:7.3f} ms")
                print(f"{label:>32}: passes {shape[0]:2}, resident {str(shape[1]):>4}: "
                      + ", ".join(cells)
                      + f" ({runtime.props().name})")
            dg.derived.clear()


if __name__ == "__main__":
    main()

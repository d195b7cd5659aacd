"""What bounds advance on Kronecker scale 24 with every vertex in the frontier: the same advance with
no gather, gathering x[dst] (random), gathering x[src] (in order), and cupy.take of the same random
gathers with no traversal at all. ms, CUDA events, median of 10 after a warm-up.

    PYTHONPATH=src python scripts/probe_advance.py
"""

import cupy

import gravel
from gravel import operators as ops
from gravel.bench import median_ms
from gravel.frontier import Frontier
from gravel.operators import LoadBalance

G = gravel.generate.kronecker(24, 16)
dg = G.to("cuda")
frontier = Frontier.all(G.n)
x = cupy.ones(G.n, cupy.float32)
sink = cupy.zeros(1, cupy.int32)


def ms(fn):
    return round(median_ms(fn, 10), 3)


for name, op in [("ids only", "dst < 0 && (atomicAdd(&sink[0], 1), true)"),
                 ("gather x[dst]", "x[dst] < 0.0f && (atomicAdd(&sink[0], 1), true)"),
                 ("gather x[src]", "x[src] < 0.0f && (atomicAdd(&sink[0], 1), true)")]:
    print(name, {lb.name: ms(lambda: ops.advance(dg, frontier, op, params={"x": x, "sink": sink}, output=None,
                                                 strategy=lb))
                 for lb in (LoadBalance.TWC, LoadBalance.LB, LoadBalance.THREAD)})
y = cupy.empty(G.nnz, cupy.float32)
print("cupy.take(x, indices)", ms(lambda: cupy.take(x, dg.indices, out=y)),
      "copy of the indices", ms(lambda: cupy.copyto(y.view(cupy.int32), dg.indices)))

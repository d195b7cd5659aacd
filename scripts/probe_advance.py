import cupy, gravel, statistics
from gravel import operators as ops
from gravel.frontier import Frontier
from gravel.operators import LoadBalance
G = gravel.generate.kronecker(24, 16); dg = G.to("cuda"); f = Frontier.all(G.n)
x = cupy.ones(G.n, cupy.float32); sink = cupy.zeros(1, cupy.int32)
def t(fn, r=10):
    fn(); ts=[]
    for _ in range(r):
        a,b=cupy.cuda.Event(),cupy.cuda.Event(); a.record(); fn(); b.record(); b.synchronize(); ts.append(cupy.cuda.get_elapsed_time(a,b))
    return statistics.median(ts)
for name, op in [("ids only", "dst < 0 && (atomicAdd(&sink[0], 1), true)"), ("gather", "x[dst] < 0.0f && (atomicAdd(&sink[0], 1), true)"),
                 ("gather src-sorted", "x[src] < 0.0f && (atomicAdd(&sink[0], 1), true)")]:
    print(name, {lb.name: round(t(lambda: ops.advance(dg, f, op, params={"x": x, "sink": sink}, output=None, strategy=lb)), 3) for lb in (LoadBalance.TWC, LoadBalance.LB, LoadBalance.THREAD)})
y = cupy.empty(G.nnz, cupy.float32)
print("gather x[indices] with cupy.take", round(t(lambda: cupy.take(x, dg.indices, out=y)), 3), "copy indices", round(t(lambda: cupy.copyto(y.view(cupy.int32), dg.indices)), 3))

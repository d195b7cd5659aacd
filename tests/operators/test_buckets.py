"""Delta-stepping's buckets on the device (advance_buckets): distances against SciPy's Dijkstra on
random graphs, at narrow and wide widths, with launches cut short in every way; a bucket change
alone against NumPy."""

import numpy as np
import pytest
import scipy.sparse.csgraph as csgraph

from gravel import generate, transform

pytestmark = pytest.mark.gpu

cupy = pytest.importorskip("cupy")
from gravel import operators as ops  # noqa: E402
from gravel.frontier import FrontierQueue  # noqa: E402
from gravel.operators.buckets import PILE_PUSH  # noqa: E402

from .helpers import GRAPHS, LONG_LISTS, split_long_lists  # noqa: E402

RELAX = (
    PILE_PUSH
    + """
__device__ bool relax(float* dist, unsigned int* stamp, int* far, unsigned long long* far_len,
                      long long far_cap, float split, int src, int dst, float w, unsigned int tag) {
    float d = dist[src] + w;
    if (!(d < dist[dst])) return false;
    if (!(__int_as_float(atomicMin((int*)&dist[dst], __float_as_int(d))) > d)) return false;
    if (d >= split && gravel_pile_push(far, far_len, far_cap, dst)) return false;
    return atomicExch(&stamp[dst], tag) != tag;
}
"""
)
OP = "relax(dist, stamp, far, far_len, far_cap, split[0], src, dst, weight, tag + step)"


def shortest_paths(G, source, delta, *, capacity=None, **kw):
    """Distances by advance_buckets, relaunched until done (each launch's segments checked to
    hold a vertex once), and the launches that ended before the queue ran short (its room below
    `n`, the step bound) with work left."""
    n = G.n
    dg = G.to("cuda")
    dist = cupy.full(n, cupy.inf, cupy.float32)
    dist[source] = 0
    stamp = cupy.zeros(n, cupy.uint32)
    buckets = ops.Buckets(dist, delta, capacity)
    queue, tag, early = FrontierQueue(n, 3 * n + 1, [source]), 1, 0
    while not buckets.done:
        params = {"dist": dist, "stamp": stamp, "tag": np.uint32(tag)}
        first = len(queue)
        ran = ops.advance_buckets(
            dg,
            queue,
            OP,
            buckets,
            stamp=stamp,
            tag=tag,
            params=params,
            step_bound=n,
            preamble=RELAX,
            **kw,
        )
        assert len(queue) == first + ran
        for i in range(first, len(queue)):
            ids = queue.segment(i).get()
            assert np.unique(ids).size == ids.size, i
        early += not buckets.done and queue.room >= n
        tag, queue = tag + ran, FrontierQueue(n, 3 * n + 1, queue.last)
    return dist.get(), early


def dijkstra(G, source):
    """SciPy's distances (parallel arcs: the lightest)."""
    return csgraph.dijkstra(transform.deduplicate(G).to_scipy(), directed=True, indices=source)


CUTS = [
    ("whole", {}, None),
    ("limit 8", {"limit": 8}, None),
    ("3 steps a launch", {"max_steps": 3}, None),
    ("pile of 16", {}, 16),
    ("one block an SM", {"blocks_per_sm": 1}, None),
]


@pytest.mark.parametrize("name,G", GRAPHS, ids=[g[0] for g in GRAPHS])
@pytest.mark.parametrize("width", [0.5, 4.0, 1000.0])
@pytest.mark.parametrize("cut,kw,capacity", CUTS, ids=[c[0] for c in CUTS])
def test_buckets_give_dijkstras_distances(name, G, width, cut, kw, capacity):
    rng = np.random.default_rng()
    source = int(rng.integers(G.n))
    mean = float(np.mean(G.weights)) if G.weighted else 1.0
    got, early = shortest_paths(G, source, width * mean, capacity=capacity, **kw)
    expect = dijkstra(G, source)
    assert np.array_equal(np.isinf(got), np.isinf(expect)), (name, cut)
    finite = np.isfinite(expect)
    assert np.allclose(got[finite], expect[finite], rtol=1e-5), (name, cut)
    if cut == "whole":  # a launch goes on until the queue runs short
        assert early == 0


@pytest.mark.parametrize("long_list", LONG_LISTS)
def test_buckets_with_long_lists_set_aside(long_list, monkeypatch):
    split_long_lists(monkeypatch, long_list)
    G = dict(GRAPHS)["hubs"]
    got, _ = shortest_paths(G, 0, 0.25)
    expect = dijkstra(G, 0)
    finite = np.isfinite(expect)
    assert np.array_equal(np.isfinite(got), finite)
    assert np.allclose(got[finite], expect[finite], rtol=1e-5)


def change_bucket(dg, queue, buckets, stamp, tag):
    """advance_buckets with an empty near frontier and max_steps=0: one bucket change at most."""
    params = {"dist": buckets.keys, "stamp": stamp, "tag": np.uint32(tag)}
    return ops.advance_buckets(
        dg, queue, OP, buckets, stamp=stamp, tag=tag, params=params, max_steps=0, preamble=RELAX
    )


def test_a_bucket_change_alone_matches_numpy():
    """An empty near frontier and max_steps=0: one bucket change. The pile's vertices whose keys
    lie between the split and the next one (past the lowest live key, by delta at least) form the
    new segment, once each; those beyond it stay on the pile, once each; stale ones (below the
    split) go."""
    rng = np.random.default_rng()
    n, delta = 5000, 3.0
    keys = rng.uniform(0, 100, n).astype(np.float32)
    keys[rng.choice(n, 20, replace=False)] = np.inf  # unreached vertices are never piled: no matter
    dg = generate.grid(50, 100).to("cuda")
    pile = rng.choice(np.flatnonzero(np.isfinite(keys)), 3000).astype(np.int32)  # repeats
    buckets = ops.Buckets(cupy.asarray(keys), delta)
    split = 40.0
    buckets.at[0], buckets.split[0] = split, np.float32(split)
    buckets.pile[: pile.size] = cupy.asarray(pile)
    buckets.length[0] = pile.size
    stamp = cupy.zeros(n, cupy.uint32)
    queue = FrontierQueue(n, n, [])
    ran = change_bucket(dg, queue, buckets, stamp, 7)
    live = np.unique(pile[keys[pile] >= np.float32(split)])
    lowest = keys[live].min()
    nxt = max(split + delta, (np.floor(lowest / delta) + 1) * delta)
    assert ran == 1 and not buckets.done
    moved = np.sort(queue.last.get())
    assert np.array_equal(moved, live[keys[live] < np.float32(nxt)])
    kept = int(buckets.length.get()[0])
    assert np.array_equal(np.sort(buckets.pile[:kept].get()), live[keys[live] >= np.float32(nxt)])
    assert float(buckets.at.get()[0]) == nxt and buckets.split.get()[0] == np.float32(nxt)
    assert np.all(stamp.get()[live] == 7)
    # a pile of stale vertices only: nothing left
    buckets.pile[:5] = cupy.asarray(live[keys[live] < np.float32(nxt)][:5])
    buckets.length[0] = 5
    ran = change_bucket(dg, FrontierQueue(n, n, []), buckets, stamp, 9)
    assert ran == 0 and buckets.done and int(buckets.length.get()[0]) == 0


def test_bucket_widths_and_overflow_are_checked():
    with pytest.raises(ValueError, match="delta must be positive"):
        ops.Buckets(cupy.zeros(4, cupy.float32), 0.0)
    G = generate.grid(20, 20)
    dist = cupy.full(G.n, cupy.inf, cupy.float32)
    dist[0] = 0
    stamp = cupy.zeros(G.n, cupy.uint32)
    buckets = ops.Buckets(dist, 1000.0)
    params = {"dist": dist, "stamp": stamp, "tag": np.uint32(1)}
    with pytest.raises(RuntimeError, match="overflowed"):
        ops.advance_buckets(
            G.to("cuda"),
            FrontierQueue(G.n, 10, [0]),
            OP,
            buckets,
            stamp=stamp,
            tag=1,
            params=params,
            limit=G.n,
            preamble=RELAX,
        )

"""Graphs, frontiers and NumPy references shared by the GPU operators' tests."""

import importlib

import numpy as np

import gravel
from gravel import generate, transform
from gravel.layouts import staged
from gravel.operators import LoadBalance, sweep_plan
from gravel.operators import steps as steps_module

# the module whose name its operator shadows in gravel.operators
nr = importlib.import_module("gravel.operators.neighbor_reduce")

STRATEGIES = [
    LoadBalance.THREAD_MAPPED,
    LoadBalance.TWC,
    LoadBalance.BLOCK_MAPPED,
    LoadBalance.MERGE_PATH,
    "auto",
]
POISON = -7


def combined(x, w, combine, dtype):
    """Each arc's value as staged.cu's COMBINE computes it: x (of `dtype`) alone, x + w or x * w in
    float32 for float32 and int32 values (then truncated to an int), in float64 for float64; in
    float64."""
    if combine is None:
        return x.astype(np.float64)
    wide = np.float64 if dtype == np.float64 else np.float32
    v = x.astype(wide) + w.astype(wide) if combine == "+" else x.astype(wide) * w.astype(wide)
    return (np.trunc(v) if dtype == np.int32 else v).astype(np.float64)


def fresh_staged(monkeypatch, *, pairs_share=None):
    """Blocking "auto" for small graphs too, the staged layout's pairs share if given, and a list
    that records the width of each staged sweep neighbor_reduce runs."""
    monkeypatch.setattr(sweep_plan, "AUTO_L2_SHARE", 0.0)
    if pairs_share is not None:
        monkeypatch.setattr(staged, "STAGED_PAIRS_SHARE", pairs_share)
    runs, real = [], nr.staged_sweep
    monkeypatch.setattr(
        nr,
        "staged_sweep",
        lambda graph, width, *rest: (runs.append(width), real(graph, width, *rest))[1],
    )
    return runs


def star(leaves):
    """Vertex 0 joined to `leaves` others: one list of more than a million entries."""
    return gravel.Graph.from_edges(
        np.zeros(leaves, np.int64), np.arange(1, leaves + 1), directed=False
    )


def with_loops_and_isolated(rng):
    n = 300
    src = rng.integers(0, 200, 2000)
    dst = rng.integers(0, 200, 2000)
    src[:50] = dst[:50]  # self loops; vertices 200..299 are isolated
    return gravel.Graph.from_edges(
        src, dst, rng.integers(1, 9, 2000).astype(np.float32), n=n, directed=True
    )


def with_hubs(rng):
    """A sparse random graph and three hubs whose lists (2,500 to 9,000 entries) exceed LONG_LIST
    (2,048)."""
    n = 12000
    sizes = (2500, 5000, 9000)
    src = np.concatenate([rng.integers(0, n, 30000)] + [np.full(k, h) for h, k in enumerate(sizes)])
    dst = np.concatenate(
        [rng.integers(0, n, 30000)] + [rng.choice(n, k, replace=False) for k in sizes]
    )
    return transform.deduplicate(
        gravel.Graph.from_edges(
            src, dst, rng.random(src.size).astype(np.float32) + 0.5, n=n, directed=False
        )
    )


def graphs():
    rng = np.random.default_rng()
    yield (
        "kron",
        transform.add_random_weights(
            generate.kronecker(14, 16, seed=int(rng.integers(1 << 30))), seed=1
        ),
    )
    yield "grid", generate.grid(64, 80)
    yield "loops+isolated", with_loops_and_isolated(rng)
    yield "hubs", with_hubs(rng)


GRAPHS = list(graphs())


def frontiers(G, rng):
    n = G.n
    yield "empty", np.zeros(0, np.int32)
    yield "all", np.arange(n, dtype=np.int32)
    yield "random", rng.choice(n, size=max(1, n // 10), replace=False).astype(np.int32)
    yield "duplicates", rng.integers(0, n, size=max(1, n // 5)).astype(np.int32)
    yield "small", rng.choice(n, size=min(n, 100), replace=False).astype(np.int32)


def reference_edges(G, ids):
    """(src, dst, edge, weight) of every out-edge of the frontier, duplicates included."""
    deg = G.out_degree[ids]
    src = np.repeat(ids, deg)
    starts = np.repeat(G.offsets[ids], deg)
    local = np.arange(deg.sum()) - np.repeat(np.cumsum(deg) - deg, deg)
    edge = starts + local
    w = G.weights[edge] if G.weights is not None else np.ones(edge.size, np.float32)
    return src, G.indices[edge], edge, w


def bfs_levels(G, source):
    """Host BFS: the list of each level's vertices (sorted), the source's level first."""
    depth = np.full(G.n, -1)
    depth[source] = 0
    levels = [np.array([source])]
    while levels[-1].size:
        src, dst, _, _ = reference_edges(G, levels[-1].astype(np.int32))
        new = np.unique(dst[depth[dst] < 0])
        depth[new] = len(levels)
        levels.append(new)
    return levels


def split_long_lists(monkeypatch, how):
    """Make the multi-step kernels set aside lists of `how` entries or more ("room 2": every list,
    with room for two per step, the rest walked by their own block)."""
    if how == "room 2":
        import cupy

        plain = steps_module._long_lists
        monkeypatch.setattr(
            steps_module,
            "_long_lists",
            lambda graph: (
                plain(graph)[0],
                np.int64(2),
                np.int64(1),
                cupy.zeros(3, dtype=cupy.uint64),
            ),
        )
    else:
        monkeypatch.setattr(steps_module, "LONG_LIST", how)


LONG_LISTS = [2048, 4, 1, "room 2"]

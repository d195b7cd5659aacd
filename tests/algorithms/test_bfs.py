"""BFS: the published levels of the shared datasets; the CPU BFS's top-down levels against a
reference on random frontiers: every unvisited out-neighbour of the frontier claimed once, by a
frontier vertex with an arc to it, serially and in parallel chunks; runs of levels against
SciPy's depths."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse.csgraph
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.bfs import verify_bfs
from gravel.backends.cpu import bfs as kernels

from ..conftest import dataset_ids, load_dataset, reference
from ..strategies import graphs

REF = reference()


def check_step(G, frontier, visited, chunks, serial_below):
    """One top-down level from `frontier` with `visited` already claimed, checked; returns how
    many vertices it claimed."""
    parent = np.full(G.n, -1, np.int32)
    depth = np.full(G.n, -1, np.int32)
    parent[visited], depth[visited] = visited, 0
    out, level, unexplored, scout = kernels.top_down_levels(
        G.offsets, G.indices, frontier, parent, depth, 6, G.nnz, 0, serial_below, 1, chunks
    )
    deg = np.diff(G.offsets)
    assert level == 7 and unexplored == G.nnz - int(deg[frontier].sum())
    src = np.repeat(frontier, deg[frontier])
    dst = np.concatenate([G.indices[G.offsets[u] : G.offsets[u + 1]] for u in frontier] or [[]])
    fresh = np.setdiff1d(dst, visited).astype(np.int32)
    assert np.array_equal(np.sort(out), fresh)  # each reached vertex once
    assert scout == int(deg[fresh].sum())
    assert np.all(depth[fresh] == 7) and np.all(depth[visited] == 0)
    arcs_set = set(zip(src.tolist(), dst.tolist(), strict=True))
    assert all((int(parent[v]), int(v)) in arcs_set for v in fresh)
    untouched = np.setdiff1d(np.arange(G.n), np.union1d(fresh, visited))
    assert np.all(parent[untouched] == -1)
    return fresh.size


@settings(max_examples=150, deadline=None)
@given(G=graphs(max_n=60, max_m=400), data=st.data())
def test_top_down_level_claims_each_reached_vertex_once(G, data):
    if G.n == 0:
        return
    frontier = np.unique(data.draw(st.lists(st.integers(0, G.n - 1), min_size=1, max_size=G.n)))
    rest = np.setdiff1d(np.arange(G.n), frontier)
    more = data.draw(st.lists(st.sampled_from(rest.tolist()), max_size=10)) if rest.size else []
    visited = np.union1d(frontier, more).astype(np.int32)
    serial_below = data.draw(st.sampled_from([0, G.n + 1]))
    check_step(G, frontier.astype(np.int32), visited, data.draw(st.integers(1, 8)), serial_below)


@settings(max_examples=60, deadline=None)
@given(G=graphs(max_n=80, max_m=500), data=st.data())
def test_top_down_levels_reach_scipys_depths(G, data):
    """Runs of levels, serial or parallel per level and stopped by a small budget of arcs, called
    again until no vertex is left: SciPy's depths, each parent one level up along an arc."""
    if G.n == 0:
        return
    s = data.draw(st.integers(0, G.n - 1))
    serial_below, budget = data.draw(st.integers(0, 8)), data.draw(st.integers(1, 50))
    parent = np.full(G.n, -1, np.int32)
    depth = np.full(G.n, -1, np.int32)
    parent[s], depth[s] = s, 0
    frontier, level, unexplored = np.array([s], np.int32), 0, G.nnz
    while frontier.size:
        frontier, level, unexplored, _ = kernels.top_down_levels(
            G.offsets, G.indices, frontier, parent, depth, level, unexplored, 0, serial_below,
            budget, data.draw(st.integers(1, 5)),
        )  # fmt: skip
    expect = scipy.sparse.csgraph.shortest_path(
        G.to_scipy(), indices=s, unweighted=True, directed=True
    )
    reached = np.isfinite(expect)
    assert np.array_equal(depth >= 0, reached)
    assert np.array_equal(depth[reached], expect[reached].astype(np.int32))
    assert verify_bfs(G, s, depth, parent) == []


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 300), data=st.data())
def test_bitmap_round_trip(n, data):
    """A queue's bits, set by threads that may share a word, read back as the sorted set."""
    queue = np.array(data.draw(st.lists(st.integers(0, n - 1), max_size=2 * n)), np.int32)
    bitmap = np.full(kernels.bitmap_words(n), 0xFFFF, np.uint64)  # cleared by the kernel
    kernels.queue_to_bitmap(queue, bitmap)
    assert np.array_equal(
        kernels.bitmap_to_queue(bitmap, data.draw(st.integers(1, 9))), np.unique(queue)
    )


@settings(max_examples=100, deadline=None)
@given(G=graphs(max_n=150, max_m=600), data=st.data())
def test_bottom_up_step_finds_a_parent_in_the_frontier(G, data):
    """Each unvisited vertex with an in-neighbour in the frontier takes one as its parent (its
    first, in in-list order), and only those."""
    if G.n == 0:
        return
    visited = np.unique(data.draw(st.lists(st.integers(0, G.n - 1), min_size=1, max_size=G.n)))
    frontier = np.array(data.draw(st.lists(st.sampled_from(visited.tolist()))), np.int32)
    parent = np.full(G.n, -1, np.int32)
    depth = np.full(G.n, -1, np.int32)
    parent[visited], depth[visited] = visited, 0
    front = np.zeros(kernels.bitmap_words(G.n), np.uint64)
    nxt = np.empty_like(front)
    kernels.queue_to_bitmap(frontier, front)
    in_off, in_idx, _ = G.csc()
    awake = kernels.bottom_up_step(in_off, in_idx, front, nxt, parent, depth, 3)
    inside = np.zeros(G.n, bool)
    inside[frontier] = True
    expect = np.full(G.n, -1, np.int32)
    for v in np.setdiff1d(np.arange(G.n), visited):
        found = [u for u in in_idx[in_off[v] : in_off[v + 1]] if inside[u]]
        expect[v] = found[0] if found else -1
    fresh = np.flatnonzero(expect >= 0).astype(np.int32)
    assert awake == fresh.size
    assert np.array_equal(kernels.bitmap_to_queue(nxt, 4), fresh)
    assert np.array_equal(parent[fresh], expect[fresh]) and np.all(depth[fresh] == 3)
    assert np.all(parent[visited] == visited) and np.all(depth[visited] == 0)


@pytest.mark.parametrize("seed", range(3))
def test_top_down_level_races_on_shared_neighbours(seed):
    """A big frontier whose lists overlap heavily: the chunks' threads race for the same
    vertices, each still ends with one parent, and chunks of more than LOCAL_CLAIMS claims
    reserve their room more than once."""
    G = gravel.generate.kronecker(14, seed=seed)
    rng = np.random.default_rng(seed)
    frontier = np.sort(rng.choice(G.n, G.n // 4, replace=False)).astype(np.int32)
    check_step(G, frontier, frontier, 64, 0)
    assert check_step(G, frontier[: G.n // 64], frontier[: G.n // 64], 2, 0) > 2 * (
        kernels.LOCAL_CLAIMS
    )  # a chunk reserved room twice at least


@pytest.mark.parametrize("entry", REF, ids=dataset_ids(REF))
def test_bfs_matches_published_levels(entry):
    G, internal = load_dataset(entry)
    c = entry["checks"]
    s = internal(c["bfs_source_label"])
    r = gravel.bfs(G, s, device="cpu")
    reached = r.depth >= 0
    assert reached.sum() == c["bfs_reached"]
    assert r.depth.max() == c["bfs_max_depth"]
    assert r.depth[reached].sum() == c["bfs_sum_depth"]
    levels = np.bincount(r.depth[reached])[:64]
    assert levels.tolist() == c["bfs_level_sizes"][: len(levels)]
    assert verify_bfs(G, s, r.depth, r.parent) == []


@settings(max_examples=60, deadline=None)
@given(graphs())
def test_random_bfs(G):
    if G.n == 0:
        return  # no source (the empty graph's BFS: test_bfs_on_the_empty_graph_has_no_source)
    for s in {0, G.n - 1, G.n // 2}:
        r = gravel.bfs(G, s, device="cpu")
        assert verify_bfs(G, s, r.depth, r.parent) == []


@pytest.mark.parametrize("bad", (-1, 4, 2.0, "0", True))
def test_bfs_source_that_does_not_exist(bad):
    G = gravel.generate.grid(2, 2)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.bfs(G, bad)


def test_bfs_on_the_empty_graph_has_no_source():
    G = gravel.Graph.from_edges([], [], n=0)
    with pytest.raises(gravel.VertexNotFoundError):
        gravel.bfs(G, 0)


@settings(max_examples=25, deadline=None)
@given(graphs(), st.integers(0, 10**6))
def test_verify_bfs_reads_caller_ids_on_a_reordered_graph(G, pick):
    assume(G.n > 0)
    R = gravel.reorder.reorder(G, "degree")
    s = pick % G.n
    r = gravel.bfs(R, s, device="cpu")
    assert verify_bfs(R, s, r.depth, r.parent) == []
    # the depths of the stored ids are caught wherever they differ from the caller's
    stored = gravel.bfs(gravel.Graph(R.offsets, R.indices), s, device="cpu")
    right = np.array_equal(stored.depth, r.depth)
    assert (verify_bfs(R, s, stored.depth, r.parent) == []) == right


@pytest.mark.parametrize("threads", [1, 2])
def test_direction_optimizing_bfs_on_one_thread_and_more(threads):
    """The large graphs' path forced (every top-down level of the kernel parallel): on one Numba
    thread every level runs serially instead; SciPy's depths and valid parents either way, with
    bottom-up steps among them."""
    import numba

    from gravel.prebuild_cpu import large_paths

    G = gravel.generate.kronecker(11, seed=3)
    s = int(np.argmax(G.out_degree))
    old = numba.get_num_threads()
    try:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        with large_paths():
            r = gravel.bfs(G, s, device="cpu")
    finally:
        numba.set_num_threads(old)
    expect = scipy.sparse.csgraph.shortest_path(
        G.to_scipy(), indices=s, unweighted=True, directed=True
    )
    reached = np.isfinite(expect)
    assert np.array_equal(r.depth >= 0, reached)
    assert np.array_equal(r.depth[reached], expect[reached].astype(np.int32))
    assert r.stats["bottom_up_steps"] > 0
    assert verify_bfs(G, s, r.depth, r.parent) == []


@given(G=graphs(max_n=80, max_m=500), data=st.data())
def test_verify_bfs_rejects_a_depth_off_by_one(G, data):
    """The verifier takes NetworkX's hop counts with any parent one level up, and rejects them
    with one reached vertex's depth moved by one (its tree depths are pointer-jumped)."""
    if G.n == 0:
        return
    s = data.draw(st.integers(0, G.n - 1))
    hops = nx.single_source_shortest_path_length(G.to_networkx(), s)
    depth = np.full(G.n, -1, np.int64)
    depth[list(hops)] = list(hops.values())
    parent = np.full(G.n, -1, np.int64)
    src, dst = G.edges()
    up = depth[src] == depth[dst] - 1
    parent[dst[up]] = src[up]
    parent[s] = s
    assert verify_bfs(G, s, depth, parent) == []
    v = data.draw(st.sampled_from(sorted(hops)))
    depth[v] += data.draw(st.sampled_from((-1, 1))) if depth[v] else 1
    assert f"depth differs at {v}" in verify_bfs(G, s, depth, parent)


@settings(max_examples=80, deadline=None)
@given(G=graphs(max_n=80, max_m=600), data=st.data())
def test_search_kept_to_a_subgraph_reaches_scipys_depths_there(G, data):
    """bfs.search enters only the vertices whose parent is -1 on entry (SCC's searches): its depths
    are SciPy's on the subgraph those vertices induce, and nothing else is written."""
    from gravel.algorithms.bfs import search

    assume(G.n > 0)
    inside = np.array(data.draw(st.lists(st.booleans(), min_size=G.n, max_size=G.n)))
    source = data.draw(st.integers(0, G.n - 1))
    inside[source] = True
    parent = np.where(inside, np.int32(-1), np.int32(G.n))
    depth = np.full(G.n, -1, np.int32)
    parent[source], depth[source] = source, 0
    in_off, in_idx, _ = G.csc()
    search(G.offsets, G.indices, in_off, in_idx, source, parent, depth)
    keep = np.flatnonzero(inside)
    sub = G.to_scipy()[keep][:, keep]
    hops = scipy.sparse.csgraph.shortest_path(
        sub, unweighted=True, indices=int(np.searchsorted(keep, source))
    )
    expected = np.full(G.n, -1)
    expected[keep] = np.where(np.isinf(hops), -1, hops)
    assert np.array_equal(depth, expected)
    assert np.all(parent[~inside] == G.n)

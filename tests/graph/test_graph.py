import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel import transform
from gravel.backends.cpu import csr as _csr

from ..strategies import graphs


def test_from_edges_builds_sorted_csr():
    G = gravel.Graph.from_edges([2, 0, 0, 1], [0, 2, 1, 2], [4, 3, 1, 2])
    assert G.n == 3 and G.m == 4 and G.directed
    assert G.offsets.tolist() == [0, 2, 3, 4]
    assert G.indices.tolist() == [1, 2, 2, 0]
    assert G.weights.tolist() == [1, 3, 2, 4]
    assert (
        G.offsets.dtype == np.int64
        and G.indices.dtype == np.int32
        and G.weights.dtype == np.float32
    )


def test_undirected_stores_both_directions_and_loops_once():
    G = gravel.Graph.from_edges([0, 1], [1, 1], directed=False)
    assert G.nnz == 3 and G.m == 2 and G.self_loops == 1
    assert G.csc()[0] is G.offsets


def test_arrays_are_read_only():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(ValueError):
        G.indices[0] = 1


@pytest.mark.parametrize(
    "src,dst,n,msg",
    [
        ([0, -1], [1, 0], None, "negative"),
        ([0, 5], [1, 0], 3, "out of range"),
        ([0.5], [1], None, "non-integer"),
        ([0, 1], [1], None, "entries"),
        ([0], [1], -3, "n must be an integer number of vertices >= 0, not -3"),
        ([0], [1], "5", "n must be an integer"),
        ([0], [1], 3.5, "not 3.5"),
        ([0], [1], True, "not True"),
    ],
)
def test_bad_edges_are_rejected(src, dst, n, msg):
    with pytest.raises(gravel.InvalidGraphError, match=msg):
        gravel.Graph.from_edges(src, dst, n=n)


@pytest.mark.parametrize(
    ("offsets", "indices", "weights", "says"),
    [
        ([0, 1, 1, 1], [1], None, "arc 0 -> 1 has no 1 -> 0"),
        ([0, 1, 2], [1, 0], [2.0, 3.0], re.escape("arc 0 -> 1 has weights [2.0], 1 -> 0 [3.0]")),
        ([0, 2, 3], [1, 1, 0], None, "arc 0 -> 1 is listed 2 times, 1 -> 0 1 times"),
        ([0, 1], [np.nan], None, "integer vertex ids, not nan"),
        ([0, 1, 1], [0.5], None, "integer vertex ids, not 0.5"),
    ],
)
@pytest.mark.parametrize("parallel", [False, True], ids=["numpy", "numba"])
def test_an_undirected_csr_must_list_each_edge_both_ways(
    offsets, indices, weights, says, parallel, monkeypatch
):
    if parallel:
        monkeypatch.setattr(_csr, "SMALL_ARCS", -1)
    with pytest.raises(gravel.InvalidGraphError, match=says):
        gravel.Graph(offsets, indices, weights, directed=False)


@pytest.mark.parametrize("parallel", [False, True], ids=["numpy", "numba"])
def test_mirrored_csrs_are_taken(parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(_csr, "SMALL_ARCS", -1)
    # parallel edges with their weights listed in another order one way than the other
    G = gravel.Graph([0, 2, 4], [1, 1, 0, 0], [2.0, 3.0, 3.0, 2.0], directed=False)
    assert G.nnz == 4 and sorted(G.weights[:2]) == [2.0, 3.0]
    assert gravel.Graph([0, 1, 2], [1.0, 0.0], directed=False).indices.tolist() == [1, 0]
    loop = gravel.Graph([0, 2, 3], [0, 1, 0], [np.nan, 1.0, 1.0], directed=False)  # NaN: alike
    assert loop.nnz == 3
    K = gravel.generate.kronecker(10, 8, seed=3)
    assert gravel.Graph(K.offsets, K.indices, directed=False).nnz == K.nnz


@pytest.mark.parametrize("parallel", [False, True], ids=["numpy", "numba"])
def test_a_one_way_arc_among_many_is_found(parallel, monkeypatch):
    if parallel:
        monkeypatch.setattr(_csr, "SMALL_ARCS", -1)
    K = gravel.generate.kronecker(10, 8, seed=3)
    indices = K.indices.copy()
    e = K.nnz // 2  # an arc u -> v becomes u -> w, w not a neighbour of u
    u = int(np.searchsorted(K.offsets, e, side="right")) - 1
    w = next(x for x in range(K.n) if x != u and not K.has_arcs(u, x))
    indices[e] = w
    with pytest.raises(gravel.InvalidGraphError, match="undirected graph: arc"):
        gravel.Graph(K.offsets, indices, directed=False)


def test_labels_are_one_per_vertex():
    with pytest.raises(gravel.InvalidGraphError, match=re.escape("labels has shape (2,)")):
        gravel.Graph([0, 1], [0], labels=["a", "b"])


def test_empty_graph():
    G = gravel.Graph.from_edges([], [], n=0)
    assert G.n == 0 and G.m == 0 and G.max_out_degree == 0
    G = gravel.Graph.from_edges([], [], n=5)
    assert G.n == 5 and G.out_degree.tolist() == [0] * 5 and G.max_out_degree == 0
    G = gravel.Graph.from_edges([0, 0, 2, 0], [1, 2, 1, 3], n=4)
    assert G.max_out_degree == 3 == max(G.out_degree)


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True))
def test_scipy_round_trip(G):
    G = transform.deduplicate(G)
    H = gravel.Graph.from_scipy(G.to_scipy(), directed=G.directed)
    assert H == G


@settings(max_examples=40, deadline=None)
@given(graphs())
def test_networkx_round_trip_matches_networkx_edges(G):
    g = G.to_networkx()
    assert g.number_of_nodes() == G.n
    simple = transform.deduplicate(G)
    assert g.number_of_edges() == simple.m
    H = gravel.Graph.from_networkx(g, weight=None)
    assert H == simple


@given(graphs(max_n=30, max_m=120))
def test_has_parallel_arcs_against_the_distinct_arcs(G):
    rows = np.repeat(np.arange(G.n), np.diff(G.offsets))
    distinct = np.unique(rows * max(G.n, 1) + G.indices).size
    assert G.has_parallel_arcs == (distinct < G.nnz)


def test_has_parallel_arcs_across_a_row_end():
    """Row 0 ends with 1 and row 1 starts with 1: neighbours in the ids, not twins."""
    G = gravel.Graph.from_edges([0, 0, 1, 1], [0, 1, 1, 2])
    assert G.indices.tolist()[1:3] == [1, 1] and not G.has_parallel_arcs
    assert gravel.Graph.from_edges([0, 0, 1], [1, 1, 2]).has_parallel_arcs


def test_from_networkx_keeps_labels():
    g = nx.Graph([("a", "b"), ("b", "c")])
    G = gravel.Graph.from_networkx(g)
    assert G.labels.tolist() == ["a", "b", "c"] and not G.directed and G.m == 2


@settings(max_examples=40, deadline=None)
@given(graphs(weighted=True))
def test_transforms_against_scipy(G):
    A = G.to_scipy()
    D = transform.deduplicate(G)
    assert D.nnz == len(set(zip(*map(np.ndarray.tolist, G.edges()))))
    # deduplicate keeps the minimum weight of parallel arcs
    src, dst = G.edges()
    best = {}
    for u, v, w in zip(src.tolist(), dst.tolist(), G.weights.tolist()):
        best[u, v] = min(w, best.get((u, v), np.inf))
    assert dict(zip(zip(*map(np.ndarray.tolist, D.edges())), D.weights.tolist())) == best
    L = transform.drop_self_loops(G)
    assert L.self_loops == 0 and L.nnz == G.nnz - G.self_loops
    S = transform.symmetrize(G)
    sym = S.to_scipy()
    assert (abs(sym - sym.T)).nnz == 0 or not G.directed
    assert not S.directed and sp.csr_array((A + A.T) != 0).nnz == sp.csr_array(sym != 0).nnz


def test_random_weights_are_symmetric_and_in_range():
    G = gravel.generate.kronecker(10)
    W = transform.add_random_weights(G, 1, 64, seed=3)
    A = W.to_scipy()
    assert (A != A.T).nnz == 0
    assert (
        W.weights.min() >= 1 and W.weights.max() <= 64 and np.all(W.weights == np.round(W.weights))
    )
    assert np.array_equal(W.weights, transform.add_random_weights(G, 1, 64, seed=3).weights)


@given(graphs(directed=False), st.integers(1, 9))
@settings(max_examples=60, deadline=None)
def test_undirected_weights_hashed_in_chunks_equal_one_pass(G, chunk):
    """Rows hashed WEIGHT_CHUNK arcs at a time (whole rows, so a chunk may hold more) give each arc
    the hash of its unordered pair that one pass over every arc gives."""
    whole = transform.add_random_weights(G, 1, 255, seed=4).weights
    src, dst = G.edges()
    key = np.minimum(src, dst).astype(np.uint64) * np.uint64(G.n)
    key += np.maximum(src, dst).astype(np.uint64)
    salt = np.uint64(gravel.seeds.rng(4).integers(0, 2**63))
    assert np.array_equal(whole, 1 + transform.mix64(key ^ salt) % np.uint64(255))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(transform, "WEIGHT_CHUNK", chunk)
        assert np.array_equal(transform.add_random_weights(G, 1, 255, seed=4).weights, whole)


@given(graphs(weighted=True), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_relabel_matches_a_graph_built_from_renamed_arcs(G, rnd):
    """The row permutation against an independent reference: every arc (u, v, w) renamed, then a CSR
    built from scratch (rows sorted by id, weights following; parallel arcs keep their order)."""
    perm = np.array(rnd.sample(range(G.n), G.n), dtype=np.int64)
    H = transform.relabel(G, perm)
    src, dst = G.edges()
    R = gravel.Graph(*_reference_csr(perm[src], perm[dst], G.weights, G.n), directed=G.directed)
    assert np.array_equal(H.offsets, R.offsets) and np.array_equal(H.indices, R.indices)
    assert np.array_equal(H.weights, R.weights)


def _reference_csr(src, dst, w, n):
    order = np.lexsort(
        (dst, src)
    )  # stable: parallel arcs keep their order, as the relabel's sort does
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=offsets[1:])
    return offsets, dst[order].astype(np.int32), w[order]


def test_relabel_transparent_keeps_caller_ids():
    G = gravel.generate.kronecker(8)
    perm = np.random.default_rng(1).permutation(G.n)
    H = transform.relabel(G, perm)
    assert H.order is None and H.m == G.m
    assert np.array_equal(H.out_degree[perm], G.out_degree)
    T = transform.relabel(G, perm, transparent=True)
    assert np.array_equal(T.order, perm)
    for algo in (
        lambda g: gravel.bfs(g, 3, device="cpu").depth,
        lambda g: gravel.connected_components(g, device="cpu").labels,
        lambda g: gravel.core_number(g, device="cpu").core,
        lambda g: gravel.triangles(g, device="cpu").triangles,
    ):
        assert np.array_equal(algo(T), algo(G))
    with pytest.raises(gravel.InvalidGraphError):
        transform.relabel(G, np.zeros(G.n, int))


@given(graphs(weighted=True), st.randoms(use_true_random=False))
@settings(max_examples=60, deadline=None)
def test_array_permutation_matches_the_row_permutation(G, rnd):
    """permute_csr (the GPU's sort-based relabelling, run here with NumPy) against the host's."""
    perm = np.array(rnd.sample(range(G.n), G.n), dtype=np.int32)
    H = transform.relabel(G, perm)
    off, idx, w = transform.permute_csr(G.offsets, G.indices, G.weights, perm)
    assert (
        np.array_equal(off, H.offsets)
        and np.array_equal(idx, H.indices)
        and np.array_equal(w, H.weights)
    )


@given(graphs(weighted=True), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_relabel_where_the_graph_lives_copies_to_the_host_only_when_asked(G, rnd):
    """A graph with a device copy (NumPy arrays standing in for CuPy's) is relabelled there; its
    host arrays appear on first use and equal the host path's, sizes known before."""
    from gravel.backends.cuda.graph import DeviceGraph

    perm = np.array(rnd.sample(range(G.n), G.n), dtype=np.int32)
    expect = transform.relabel(G, perm, transparent=True)
    D = gravel.Graph.from_device(
        DeviceGraph.from_arrays(G.offsets, G.indices, G.weights, directed=G.directed)
    )
    H = transform.relabel(D, perm, transparent=True)
    assert H._arrays is None and (H.n, H.nnz, H.weighted, H.directed) == (
        G.n,
        G.nnz,
        G.weighted,
        G.directed,
    )
    assert H.to("cuda").host is H and H._arrays is None
    assert H == expect and np.array_equal(H.order, expect.order) and H._arrays is not None


@given(graphs(weighted=True))
@settings(max_examples=60, deadline=None)
def test_from_edges_dedupe_merges_while_building(G):
    src, dst = G.edges()
    if not G.directed:  # each undirected edge once, as from_edges takes them
        keep = src <= dst
        src, dst, w = src[keep], dst[keep], G.weights[keep]
    else:
        w = G.weights
    H = gravel.Graph.from_edges(src, dst, w, n=G.n, directed=G.directed, dedupe=True)
    assert H == transform.deduplicate(G)


def test_simple_undirected_is_built_once_without_transform():
    G = gravel.Graph.from_edges([0, 1, 1, 2, 2], [1, 0, 2, 2, 0], [5, 1, 2, 3, 4])
    S = G.simple_undirected()
    assert S is G.simple_undirected() and S is transform.simple_undirected(G)
    assert not S.directed and not S.weighted and S.self_loops == 0
    assert S.offsets.tolist() == [0, 2, 4, 6] and S.indices.tolist() == [1, 2, 0, 2, 0, 1]


@pytest.mark.parametrize(
    "w,match",
    [
        (-1.0, "non-negative weights: arc 1 -> 2 has weight -1.0"),
        (np.nan, "numbers: arc 1 -> 2 has weight nan"),
        (np.inf, "finite weights .*: arc 1 -> 2 has weight inf"),
        (-np.inf, "finite weights"),
        (1e39, "finite weights .*float32.*: arc 1 -> 2 has weight inf"),  # beyond float32's range
    ],
)
def test_check_weights_names_the_arc(w, match):
    with np.errstate(over="ignore"):
        G = gravel.Graph.from_edges([0, 1, 1], [1, 2, 0], [1.0, w, 2.0])
    with pytest.raises(gravel.InvalidWeightError, match=match):
        gravel.check_weights(G, name="sssp")
    with pytest.raises(gravel.InvalidWeightError, match=r"arc 1 -> 2"):
        gravel.sssp(G, 0, device="cpu")


def test_check_weights_accepts_what_it_is_told_to():
    gravel.check_weights(gravel.generate.grid(3, 3))  # unweighted: all ones
    G = gravel.Graph.from_edges([0, 1], [1, 2], [0.0, -2.0])
    gravel.check_weights(G, negative=True)
    with pytest.raises(gravel.InvalidWeightError, match="negative"):
        gravel.check_weights(G)
    N = gravel.Graph.from_edges([0, 1], [1, 2], [np.nan, -2.0])
    with pytest.raises(gravel.InvalidWeightError, match="numbers"):
        gravel.check_weights(N, negative=True)


def test_check_weights_names_arcs_as_the_caller_does():
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -2.0], labels=np.array(["a", "b", "c"]))
    with pytest.raises(gravel.InvalidWeightError, match="arc b -> c"):
        gravel.check_weights(G)
    perm = np.array([2, 0, 1], np.int32)
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -2.0])
    R = transform.relabel(G, perm, transparent=True)
    with pytest.raises(gravel.InvalidWeightError, match="arc 1 -> 2"):
        gravel.check_weights(R)


@settings(max_examples=50, deadline=None)
@given(graphs(directed=True))
def test_simple_undirected_of_a_directed_graph(G):
    src, dst = G.edges()
    keep = src != dst
    pairs = set(zip(src[keep].tolist(), dst[keep].tolist()))
    pairs |= {(v, u) for u, v in pairs}
    S = G.simple_undirected()
    assert not S.directed and S.n == G.n
    got = list(zip(*(a.tolist() for a in S.edges())))
    assert got == sorted(pairs)  # each arc once, rows sorted


@settings(max_examples=50, deadline=None)
@given(G=graphs(max_n=40, max_m=200), data=st.data(), small=st.booleans())
def test_has_arcs_against_the_edge_set(G, data, small):
    """Both searches (NumPy keys up to SMALL_ARCS arcs, a row binary search above) against a set
    of the arcs, on every vertex pair drawn."""
    if G.n == 0:
        return
    from gravel.backends.cpu import csr

    pairs = st.lists(st.tuples(st.integers(0, G.n - 1), st.integers(0, G.n - 1)), max_size=60)
    src, dst = np.array(data.draw(pairs), np.int64).reshape(-1, 2).T
    arcs = set(zip(*(a.tolist() for a in G.edges()), strict=True))
    want = [(u, v) in arcs for u, v in zip(src.tolist(), dst.tolist(), strict=True)]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(csr, "SMALL_ARCS", 1 << 40 if small else -1)
        assert G.has_arcs(src, dst).tolist() == want
        u, v = G.edges()
        assert G.has_arcs(u, v).all()


def test_has_arcs_names_an_id_out_of_range():
    G = gravel.Graph.from_edges([0, 1], [1, 2], n=3)
    assert G.has_arcs(0, 1) and not G.has_arcs(1, 0)
    with pytest.raises(gravel.VertexNotFoundError, match="dst 3 is not a vertex"):
        G.has_arcs([0], [3])
    with pytest.raises(gravel.VertexNotFoundError, match="src -1 is not a vertex"):
        G.has_arcs([-1], [0])


@pytest.mark.parametrize("high", [float("inf"), 2.5, 2**24])
def test_weight_bounds_are_integers_float32_holds(high):
    with pytest.raises(gravel.InvalidGraphError, match=f"not {high!r}"):
        gravel.transform.add_random_weights(gravel.generate.grid(2, 2), 1, high)


def test_a_vertex_count_past_the_memory_available_is_refused(monkeypatch):
    from gravel import placement

    monkeypatch.setattr(placement, "host_free_bytes", lambda: 2**30)
    with pytest.raises(gravel.GraphTooLargeError, match=r"100,000,000 vertices.* 2\.24 GiB"):
        gravel.Graph.from_edges([0], [1], n=10**8)


def test_from_scipy_checks_an_undirected_matrix_entry_by_entry():
    nan = np.array([[0, np.nan], [np.nan, 0]])  # NaN matches NaN
    assert gravel.Graph.from_scipy(sp.csr_array(nan), directed=False).nnz == 2
    lopsided = sp.csr_array(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(gravel.InvalidGraphError, match=re.escape("arc 0 -> 1 has weights [1.0]")):
        gravel.Graph.from_scipy(lopsided, directed=False)
    one_way = sp.csr_array(np.array([[0, 1.0], [0, 0]]))
    with pytest.raises(gravel.InvalidGraphError, match="arc 0 -> 1 has no 1 -> 0"):
        gravel.Graph.from_scipy(one_way, directed=False)


def _built_by_networkx(G):
    """G as ``add_weighted_edges_from`` over its arcs builds it: the reference."""
    g = nx.DiGraph() if G.directed else nx.Graph()
    names = G.labels.tolist() if G.labels is not None else list(range(G.n))
    g.add_nodes_from(names)
    src, dst = G.edges()
    w = np.ones(G.nnz) if G.weights is None else G.weights
    heads, tails = ([names[i] for i in a.tolist()] for a in (src, dst))
    g.add_weighted_edges_from(zip(heads, tails, w.tolist()))
    if G.weights is None:
        for _, _, d in g.edges(data=True):
            d.clear()
    return g


def _adjacency(g, ways):
    return [(v, list(getattr(g, way)[v].items())) for way in ways for v in g]


@settings(max_examples=60, deadline=None)
@given(graphs(weighted=True), st.booleans(), st.booleans())
def test_to_networkx_is_built_as_networkx_builds_it(G, weighted, labelled):
    labels = np.array([f"v{i}" for i in range(G.n)], dtype=object) if labelled else None
    weights = G.weights if weighted else None
    G = gravel.Graph(G.offsets, G.indices, weights, directed=G.directed, labels=labels)
    got, want = G.to_networkx(), _built_by_networkx(G)
    ways = ("succ", "pred") if G.directed else ("adj",)
    # the same nodes, neighbours in the same order, the same attributes
    assert list(got.nodes(data=True)) == list(want.nodes(data=True))
    assert _adjacency(got, ways) == _adjacency(want, ways)
    # both directions of an edge (succ and pred; u-v and v-u) hold one dict, as in NetworkX
    for u, v, d in got.edges(data=True):
        assert (got.pred if G.directed else got.adj)[v][u] is d

"""Louvain communities against NetworkX's louvain_communities and modularity (hypothesis graphs,
weighted and not, generated and real graphs), on the CPU path; the verifier and the errors."""

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.louvain import louvain_communities, verify_louvain
from gravel.backends.cpu import serial
from gravel.cli import open_graph

from ..strategies import graphs


def communities(labels):
    labels = np.asarray(labels)
    return [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]


@settings(max_examples=50, deadline=None)
@given(G=graphs(max_n=50, max_m=200, directed=False, weighted=True))
def test_random_graphs_give_valid_partitions(G):
    """Every run a partition labelled by its smallest vertices, with its modularity; the best of
    five seeds within 5 % of the worst of NetworkX's five. On graphs this small both depend on
    the visit order more than on larger ones, NetworkX's own runs included: a near-complete graph
    of 11 vertices gave NetworkX 0.0154 on three seeds and 0 (one community) on two, and gravel 0
    on five, so the median of NetworkX's five (the verifier's rule, held by the generated and real
    graphs below) is no fixed mark here."""
    G = G.simple_undirected()  # as a networkx.Graph holds it
    g = G.to_networkx()
    for weight in (True, False):
        runs = [louvain_communities(G, weight=weight, seed=seed, device="cpu") for seed in range(5)]
        for r in runs:
            assert r.labels.dtype == np.int32 and r.labels.shape == (G.n,)
            kw = {"modularity": r.modularity, "weight": weight, "quality": False}
            assert verify_louvain(G, r.labels, **kw) == []
        if g.number_of_edges() == 0:
            continue
        key = "weight" if weight and G.weighted else None
        theirs = [nx.community.louvain_communities(g, weight=key, seed=s) for s in range(5)]
        worst = min(nx.community.modularity(g, p, weight=key) for p in theirs)
        best = max(r.modularity for r in runs)
        assert best >= worst - 0.05 * abs(worst) - 1e-9


@pytest.mark.parametrize("spec", ["kron:11", "urand:11", "grid:30x30"])
def test_generated_graphs_within_five_percent_of_networkx(spec):
    G = gravel.generate.from_spec(spec).simple_undirected()
    r = louvain_communities(G, seed=0, device="cpu")
    assert verify_louvain(G, r.labels, modularity=r.modularity) == []
    g = G.to_networkx()
    assert r.modularity == pytest.approx(nx.community.modularity(g, communities(r.labels)))


@pytest.mark.parametrize("spec", ["kron:11", "urand:11", "grid:30x30"])
def test_coloured_cpu_moves_within_five_percent_of_networkx(spec, monkeypatch):
    """The CPU's moves by colour classes in parallel (levels over SMALL_ARCS arcs), weighted and
    not."""
    monkeypatch.setattr(serial, "SMALL_ARCS", -1)
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec).simple_undirected())
    for weight in (True, False):
        r = louvain_communities(G, weight=weight, seed=0, device="cpu")
        assert verify_louvain(G, r.labels, modularity=r.modularity, weight=weight) == []


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=50, max_m=200, directed=False, weighted=True))
def test_coloured_cpu_moves_on_random_graphs(G):
    """Valid partitions, never below the modularity of every vertex alone (a class's moves chosen
    against stale totals are kept only where they raise it: at high resolutions they often would
    not)."""
    from gravel.algorithms.lpa import modularity

    G = G.simple_undirected()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        for weight, resolution in ((True, 1.0), (False, 1.0), (False, 2.5)):
            r = louvain_communities(G, weight=weight, resolution=resolution, seed=1, device="cpu")
            kw = {"modularity": r.modularity, "weight": weight, "quality": False}
            assert verify_louvain(G, r.labels, resolution=resolution, **kw) == []
            w = G.weights if weight and G.weighted else None
            alone = modularity(G.offsets, G.indices, np.arange(G.n), w, resolution)
            assert r.modularity >= alone - 1e-12


def test_bundled_real_graph():
    from importlib import resources

    with resources.as_file(resources.files("gravel") / "data" / "facebook_combined.txt.gz") as p:
        facebook = gravel.load(p, undirected=True, cache=False)
    r = louvain_communities(facebook, seed=0, device="cpu")
    assert r.modularity > 0.8  # ego networks: strong communities (NetworkX: about 0.83)
    assert verify_louvain(facebook, r.labels, modularity=r.modularity) == []


def test_resolution_and_seed():
    G = gravel.generate.kronecker(10, 8, seed=2).simple_undirected()
    fine = louvain_communities(G, resolution=4.0, seed=1, device="cpu")
    coarse = louvain_communities(G, resolution=0.25, seed=1, device="cpu")
    assert np.unique(fine.labels).size > np.unique(coarse.labels).size
    for r, res in ((fine, 4.0), (coarse, 0.25)):
        assert verify_louvain(G, r.labels, modularity=r.modularity, resolution=res) == []
    again = louvain_communities(G, resolution=4.0, seed=1, device="cpu")
    assert np.array_equal(fine.labels, again.labels)


def test_two_cliques_and_a_bridge():
    a = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    b = [(i + 5, j + 5) for i, j in a]
    src, dst = np.array(a + b + [(4, 5)]).T
    r = louvain_communities(gravel.Graph.from_edges(src, dst, directed=False), device="cpu")
    assert r.labels.tolist() == [0] * 5 + [5] * 5


def test_parallel_edges_add_their_weights_in_the_verifier_too():
    """Modularity counts parallel edges as one edge of their summed weight, as NetworkX's on the
    matching MultiGraph does; the verifier agrees, and takes zero weights without dividing by 0."""
    import networkx as nx

    G = gravel.Graph.from_edges([0, 0, 1, 2, 3, 3], [1, 1, 2, 3, 4, 4], directed=False)
    r = louvain_communities(G, seed=1, device="cpu")
    multi = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 3), (3, 4), (3, 4)])
    parts = [set(np.flatnonzero(r.labels == c).tolist()) for c in np.unique(r.labels)]
    assert r.modularity == pytest.approx(nx.community.modularity(multi, parts))
    assert verify_louvain(G, r.labels, modularity=r.modularity) == []
    assert verify_louvain(G, r.labels, modularity=0.21875) != []  # the merged graph's value
    Z = gravel.Graph.from_edges([0, 1], [1, 2], [0.0, 0.0], directed=False)
    assert verify_louvain(Z, louvain_communities(Z, device="cpu").labels, modularity=0.0) == []


def test_bad_input():
    D = gravel.generate.kronecker(6, 4, directed=True)
    with pytest.raises(gravel.InvalidGraphError, match="not implemented for directed"):
        louvain_communities(D, device="cpu")
    neg = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, -1.0], directed=False)
    with pytest.raises(gravel.InvalidWeightError, match="louvain_communities needs non-negative"):
        louvain_communities(neg, device="cpu")
    assert louvain_communities(neg, weight=False, device="cpu").labels.tolist() == [0, 0, 0]
    for bad in ({"resolution": -1}, {"threshold": float("nan")}, {"resolution": "high"}):
        with pytest.raises(gravel.InvalidArgumentError):
            louvain_communities(neg, weight=False, device="cpu", **bad)


def test_empty_and_edgeless_graphs():
    for n in (0, 4):
        G = gravel.Graph.from_edges([], [], n=n, directed=False)
        r = louvain_communities(G, device="cpu")
        assert r.labels.tolist() == list(range(n)) and r.modularity == 0.0


# The GPU's Louvain (every vertex moving at once) is written over an array module: NumPy runs it
# here, CuPy on the GPU.


def parallel_labels(G, weight=True, resolution=1.0):
    from gravel.algorithms.louvain_parallel import parallel_louvain

    labels, _ = parallel_louvain(np, G, weight and G.weighted, resolution, 1e-7)
    return labels


@pytest.mark.parametrize(
    "spec", ["kron:11", "urand:11", "grid:30x30", pytest.param("urand:12", marks=pytest.mark.slow)]
)
def test_parallel_moves_within_five_percent_of_networkx(spec):
    """The GPU test's kinds of graph, weighted and not; unweighted urand:12 (a few large
    communities, found more slowly by moves at once) comes closest to the limit."""
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec).simple_undirected())
    for weight in (True, False):
        assert verify_louvain(G, smallest_member(parallel_labels(G, weight)), weight=weight) == []


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=50, max_m=200, directed=False, weighted=True))
def test_parallel_moves_on_random_graphs(G):
    G = G.simple_undirected()
    for weight in (True, False):
        labels = smallest_member(parallel_labels(G, weight))
        assert verify_louvain(G, labels, weight=weight, quality=False) == []


def test_parallel_moves_with_resolution():
    G = gravel.generate.kronecker(10, 8, seed=2).simple_undirected()
    fine, coarse = parallel_labels(G, resolution=4.0), parallel_labels(G, resolution=0.25)
    assert np.unique(fine).size > np.unique(coarse).size


def smallest_member(labels):
    """Communities labelled by their smallest vertex, as the verifier wants them."""
    smallest = np.full(labels.size, labels.size, np.int64)
    np.minimum.at(smallest, labels, np.arange(labels.size))
    return smallest[labels]


@pytest.mark.gpu
@pytest.mark.parametrize("spec", ["kron:12", "urand:12", "grid:40x40"])
def test_gpu_within_five_percent_of_networkx(spec):
    G = gravel.transform.add_random_weights(gravel.generate.from_spec(spec).simple_undirected())
    for weight in (True, False):
        r = louvain_communities(G, weight=weight, device="cuda")
        assert r.device == "cuda"
        assert verify_louvain(G, r.labels, modularity=r.modularity, weight=weight) == []


@pytest.mark.gpu
def test_gpu_on_the_bundled_graph_and_edgeless_ones():
    from importlib import resources

    with resources.as_file(resources.files("gravel") / "data" / "facebook_combined.txt.gz") as p:
        facebook = gravel.load(p, undirected=True, cache=False)
    assert louvain_communities(facebook, device="cuda").modularity > 0.8
    for n in (0, 1, 4):
        r = louvain_communities(gravel.Graph.from_edges([], [], n=n, directed=False), device="cuda")
        assert r.labels.tolist() == list(range(n)) and r.modularity == 0.0
    # a level that ends with no arc between communities (the aggregate's sums over nothing)
    r = louvain_communities(disjoint_cliques(), device="cuda")
    assert r.labels.tolist() == [0] * 5 + [5] * 5 + [10] * 5


def disjoint_cliques(k=3, size=5):
    """`k` cliques of `size` vertices and no edge between them."""
    pairs = [(c * size + i, c * size + j) for c in range(k) for i in range(size) for j in range(i)]
    src, dst = zip(*pairs, strict=True)
    return gravel.Graph.from_edges(src, dst, n=k * size, directed=False)


def test_parallel_moves_on_disjoint_cliques():
    labels = smallest_member(parallel_labels(disjoint_cliques()))
    assert labels.tolist() == [0] * 5 + [5] * 5 + [10] * 5


@settings(max_examples=25, deadline=None)
@given(G=graphs(max_n=60, max_m=300, directed=False, weighted=True), data=st.data())
def test_parallel_aggregation_matches_numpy(G, data):
    """The parallel aggregation (graphs over SMALL_ARCS arcs) builds the same community graph as
    the NumPy one, on any partition."""
    from gravel.backends.cpu import louvain as _k

    if G.n == 0:
        return
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    keep = src != G.indices
    offsets = np.zeros(G.n + 1, np.int64)
    np.cumsum(np.bincount(src[keep], minlength=G.n), out=offsets[1:])
    w = G.weights.astype(np.float64)
    level = (offsets, G.indices[keep], w[keep], np.bincount(src[~keep], w[~keep], G.n))
    k = data.draw(st.integers(1, G.n))
    community = np.unique(
        data.draw(st.lists(st.integers(0, k - 1), min_size=G.n, max_size=G.n)), return_inverse=True
    )[1]
    expect = _k.aggregate(*level, community)
    got = _k._aggregate(*level, community, int(community.max()) + 1, 2)
    for e, g in zip(expect[:2], got[:2], strict=True):
        np.testing.assert_array_equal(g, e)
    for e, g in zip(expect[2:], got[2:], strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=40, max_m=300, directed=False, weighted=True), data=st.data())
def test_dense_links_choose_as_the_hash_table(G, data):
    """The moves of vertices of many arcs (links summed in an array over the communities) are
    the hash table's: the same community and inside term, for every vertex of any partition."""
    from gravel.backends.cpu import louvain as _k

    if G.n == 0:
        return
    src = np.repeat(np.arange(G.n), np.diff(G.offsets))
    keep = src != G.indices
    offsets = np.zeros(G.n + 1, np.int64)
    np.cumsum(np.bincount(src[keep], minlength=G.n), out=offsets[1:])
    w = G.weights.astype(np.float64)[keep]
    loops = np.bincount(src[~keep], G.weights.astype(np.float64)[~keep], G.n)
    parts = data.draw(st.integers(1, G.n))
    community = np.array(
        data.draw(st.lists(st.integers(0, parts - 1), min_size=G.n, max_size=G.n)), np.int32
    )
    k, total = _k._degrees(offsets, w, loops, community)
    if k.sum() == 0:
        return
    arcs, q = (offsets, G.indices[keep], w), (k.sum(), data.draw(st.sampled_from([0.5, 1.0, 2.0])))
    slots = 2 * int(2 ** np.ceil(np.log2(2 * (np.diff(offsets).max() + 1))))
    keys, link, gathered = np.empty(slots, np.int64), np.empty(slots), np.empty(slots, np.int32)
    dense, reached = np.full(G.n, -1.0), np.empty(G.n, np.int32)
    for v in range(G.n):
        expect = _k._best_move(arcs, community, total, k, v, q, keys, link, gathered)
        got = _k._best_move_dense(arcs, community, total, k, v, q, dense, reached, gathered)
        assert got[0] == expect[0]
        assert got[1] == pytest.approx(expect[1], rel=1e-12, abs=1e-15)
        assert np.all(dense == -1.0)  # left as found


def test_coloured_cpu_moves_never_lose_modularity_at_high_resolution():
    """At resolutions 2-3 moves chosen against a class's stale totals would often lower the
    modularity, below that of every vertex alone; those moves are undone."""
    from gravel.algorithms.lpa import modularity

    rng = np.random.default_rng(5)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(serial, "SMALL_ARCS", -1)
        for _ in range(40):
            n, m = int(rng.integers(5, 40)), int(rng.integers(5, 150))
            G = gravel.Graph.from_edges(
                rng.integers(0, n, m), rng.integers(0, n, m), n=n, directed=False
            ).simple_undirected()
            for resolution in (2.0, 3.0):
                alone = modularity(G.offsets, G.indices, np.arange(n), None, resolution)
                for seed in range(3):
                    r = louvain_communities(G, resolution=resolution, seed=seed, device="cpu")
                    assert r.modularity >= alone - 1e-12


def test_numpy_scalars_are_numbers():
    """NumPy scalars are taken as the numbers they hold: the same seed, the same communities
    (seed None draws a fresh order, which on this grid ends at either of two modularities)."""
    G = gravel.generate.grid(3, 3)
    q = louvain_communities(
        G, resolution=np.float32(1), threshold=np.float16(0), seed=np.int64(3), device="cpu"
    )
    assert q.modularity == louvain_communities(G, threshold=0.0, seed=3, device="cpu").modularity


@pytest.mark.parametrize("spec", ["kron:10", "grid:20x20"])
def test_levels_coarsen_and_end_with_the_labels(spec):
    """Each level's partition merges the one before (the last is refined after the levels, and
    is the labels), and the modularity does not fall from level to level."""
    G, _ = open_graph(spec)
    r = louvain_communities(G, seed=2, device="cpu")
    assert len(r.partitions) == r.iterations >= 1
    assert np.array_equal(r.partitions[-1], r.labels)
    g = nx.Graph(G.to_networkx())
    q = [nx.community.modularity(g, communities(p)) for p in r.partitions]
    assert q == sorted(q)
    for fine, coarse in zip(r.partitions[:-2], r.partitions[1:-1]):
        assert np.array_equal(coarse[fine], coarse)  # one community of `coarse` per one of `fine`

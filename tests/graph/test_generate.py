import networkx as nx
import numpy as np
import pytest

import gravel
from gravel import generate


def test_kronecker_is_deterministic_undirected_and_simple():
    G = generate.kronecker(12, 8, seed=5)
    assert G.n == 4096 and not G.directed and G.self_loops == 0
    assert G == generate.kronecker(12, 8, seed=5)
    assert G != generate.kronecker(12, 8, seed=6)
    A = G.to_scipy()
    assert (A != A.T).nnz == 0
    assert G.nnz == gravel.transform.deduplicate(G).nnz
    # Graph500 edge factor: about 8 * 4096 generated edges, a few percent lost to repeats and loops
    assert 0.75 * 8 * 4096 < G.m <= 8 * 4096


def test_kronecker_is_skewed_and_ids_are_permuted():
    G = generate.kronecker(14)
    deg = G.out_degree
    assert deg.max() > 50 * deg.mean()
    # without the permutation vertex 0 would be the biggest hub
    assert np.argmax(deg) != 0 or deg[0] < deg.max()
    assert np.corrcoef(np.arange(G.n), deg)[0, 1] < 0.1


def test_uniform_random_degree():
    G = generate.uniform_random(12, 16, seed=1)
    assert G.n == 4096 and 15 * 4096 < G.m <= 16 * 4096
    assert G.out_degree.max() < 4 * G.out_degree.mean()


@pytest.mark.parametrize("r,c,diag", [(1, 1, False), (3, 4, False), (5, 2, True), (0, 3, False)])
def test_grid_matches_networkx(r, c, diag):
    G = generate.grid(r, c, diagonals=diag)
    ref = nx.grid_2d_graph(r, c)
    if diag:
        ref.add_edges_from(
            ((i, j), (i + 1, j + dj))
            for i in range(r - 1)
            for j in range(c)
            for dj in (-1, 1)
            if 0 <= j + dj < c
        )
    assert G.n == r * c and G.m == ref.number_of_edges()
    mapping = {(i, j): i * c + j for i in range(r) for j in range(c)}
    assert set(map(tuple, np.sort(np.array(G.edges()).T, axis=1).tolist())) == {
        tuple(sorted((mapping[a], mapping[b]))) for a, b in ref.edges()
    }


def test_random_geometric_edges_are_short():
    G = generate.random_geometric(10, 8, seed=2)
    xy = generate._gen._points(G.n, 2)
    src, dst = G.edges()
    radius = np.sqrt(8 / (np.pi * G.n))
    assert np.all(np.hypot(*(xy[src] - xy[dst]).T) < radius)
    # and every pair within the radius is an edge (brute force)
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    close = (d < radius) & ~np.eye(G.n, dtype=bool)
    assert close.sum() == G.nnz
    assert 4 < G.nnz / G.n < 12


@pytest.mark.parametrize(
    "spec,n",
    [
        ("kron:8", 256),
        ("kron:8:4", 256),
        ("urand:7:3", 128),
        ("grid:3x5", 15),
        ("grid:3x5:diag", 15),
        ("rgg:6", 64),
    ],
)
def test_specs(spec, n):
    assert generate.from_spec(spec).n == n


@pytest.mark.parametrize(
    "spec", ["kron", "kron:x", "kron:1:2:3", "grid:3", "grid:3x4:foo", "bogus:3", "kron:40"]
)
def test_bad_specs(spec):
    with pytest.raises(gravel.GravelError):
        generate.from_spec(spec)


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("kron:5:-3", "edge factor must be an integer of at least 1, not -3"),
        ("kron:5:0", "edge factor must be an integer of at least 1, not 0"),
        ("urand:5:-1", "degree must be an integer of at least 1, not -1"),
        ("rgg:5:0", "degree must be a number > 0, not 0"),
        ("grid:2x-1", "cols must be an integer of at least 0, not -1"),
    ],
)
def test_impossible_sizes_are_named(spec, says):
    with pytest.raises(gravel.InvalidGraphError, match=says):
        generate.from_spec(spec)


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: generate.grid(2.5, 5), "rows must be an integer of at least 0, not 2.5"),
        (lambda: generate.kronecker(5, 2.5), "edge factor must be an integer"),
        (lambda: generate.kronecker(True), "scale must be an integer of at least 0, not True"),
        (lambda: generate.random_geometric(5, float("nan")), "degree must be a number > 0"),
        (lambda: generate.random_geometric(5, -1), "degree must be a number > 0, not -1"),
    ],
)
def test_generator_arguments_are_checked(make, says):
    with pytest.raises(gravel.InvalidGraphError, match=says):
        make()


def test_issue_18_streamed_generators_give_the_same_graphs():
    """The streamed build gives the graphs the whole-edge-list build gave (same seed, same
    arrays): digests of the arrays as they were before streaming."""
    import hashlib

    def digest(G):
        return hashlib.sha1(G.offsets.tobytes() + G.indices.tobytes()).hexdigest()[:12]

    assert digest(generate.kronecker(16)) == "06e3a262a2f5"
    assert digest(generate.uniform_random(17, 8, seed=3)) == "04bd5add898e"
    assert digest(generate.kronecker(10, directed=True)) == "ecdbc9d3080d"


def test_issue_18_a_generated_graph_peaks_near_its_csr(monkeypatch):
    """Edges are made in blocks, twice, straight into the CSR: the traced peak stays under 1.3
    times the CSR's bytes (a whole edge list and then the CSR made it 2.1)."""
    import tracemalloc

    from gravel.backends.cpu import csr

    monkeypatch.setattr(csr, "BLOCK_EDGES", 1 << 15)
    generate.uniform_random(16, 1)  # compiled outside the trace
    tracemalloc.start()
    try:
        G = generate.uniform_random(16)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1.3 * (G.offsets.nbytes + G.indices.nbytes)


def test_generator_device_is_checked():
    with pytest.raises(gravel.errors.InvalidArgumentError, match="device must be"):
        generate.kronecker(4, device="gpu")
    if not gravel.backends.cuda.available():
        with pytest.raises(gravel.errors.InvalidArgumentError, match="device='cuda'"):
            generate.uniform_random(4, device="cuda")


@pytest.mark.parametrize("seed", [-1, 1.5, 2**63, True, None, "7"])
@pytest.mark.parametrize(
    "make",
    [
        lambda seed: generate.kronecker(4, seed=seed, device="cpu", progress=False),
        lambda seed: generate.uniform_random(4, seed=seed, device="cpu", progress=False),
        lambda seed: generate.random_geometric(4, seed=seed),
    ],
    ids=["kronecker", "uniform_random", "random_geometric"],
)
def test_issue_51_a_seed_the_kernels_cannot_take_is_refused(make, seed):
    """Negative, fractional or wider than 63 bits: refused, naming the seed (they wrapped,
    truncated or overflowed inside the kernels)."""
    with pytest.raises(gravel.errors.InvalidArgumentError, match="seed"):
        make(seed)


def test_issue_51_the_largest_seed_is_taken():
    G = generate.kronecker(4, seed=2**63 - 1, device="cpu", progress=False)
    assert G.n == 16


def test_issue_51_from_spec_names_a_bad_device_or_seed():
    """The generator's own refusal reaches the caller (it was turned into "unknown spec")."""
    with pytest.raises(gravel.errors.InvalidArgumentError, match="device must be"):
        generate.from_spec("kron:4", device="gpu")
    with pytest.raises(gravel.errors.InvalidArgumentError, match="seed"):
        generate.from_spec("urand:4", seed=-1)

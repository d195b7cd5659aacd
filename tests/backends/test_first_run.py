"""A first run compiles little (issue 17): small texts are parsed with NumPy and small graphs run
serial twins of the parallel kernels. Each small path is checked against the path it stands in
for, on random inputs."""

import re

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import gravel
from gravel.algorithms.bfs import verify_bfs
from gravel.backends.cpu import arcs, bc, cc, csr, fill, serial, tc
from gravel.backends.cpu import sssp as sssp_kernels
from gravel.io import _parse

from ..strategies import graphs


def run_both(monkeypatch, algorithm, G, **kw):
    """`algorithm` on G with the serial twins, then with the parallel kernels."""
    small = algorithm(G, device="cpu", **kw)
    with monkeypatch.context() as m:
        m.setattr(serial, "SMALL_ARCS", -1)
        large = algorithm(G, device="cpu", **kw)
    return small, large


# text ------------------------------------------------------------------------------------------

_PIECES = ["1", "23", "0", "9" * 18, "9" * 19, " ", "\t", ",", "\r", "\n", "#", "%", "-", ".5", "x"]


def reference_parse(buf):
    """What the Numba tokenizer reads: (rows, columns, error code, src, dst)."""
    cap = int(np.count_nonzero(buf == 10)) + 1
    src, dst, w = np.empty(cap, np.int64), np.empty(cap, np.int64), np.empty(cap)
    rows, ncols, err, _ = _parse.parse_lines(buf, np.frombuffer(b"#%", np.uint8), 0, src, dst, w)
    return rows, ncols, err, src[:rows], dst[:rows]


@settings(max_examples=300, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 10**9)), max_size=5),
    noise=st.lists(st.sampled_from(_PIECES), max_size=20),
)
@example(pairs=[], noise=["1", ",", "1", ","])  # a trailing comma: the tokenizer's, declined here
def test_numpy_reader_agrees_with_the_tokenizer(pairs, noise):
    text = "# header\n" + "".join(f"{u} {v}\n" for u, v in pairs) + "".join(noise)
    buf = np.frombuffer(text.encode(), np.uint8)
    rows, ncols, err, src, dst = reference_parse(buf)
    got = _parse.id_pairs(buf)
    if got is None:
        # declined: only where the tokenizer finds an error or a weight column, or a line ends in
        # a comma after its last field (a trailing separator the tokenizer takes and this reader
        # leaves to it)
        trailing = any(re.search(r"\d[ \t\r]*,[ \t\r,]*$", line) for line in text.split("\n"))
        assert err != _parse.OK or ncols == 3 or trailing
    else:
        assert err == _parse.OK and ncols in (0, 2)
        assert np.array_equal(got[0], src) and np.array_equal(got[1], dst)
        assert got[0].dtype == got[1].dtype == np.int64


def test_small_id_pairs_do_not_compile_the_tokenizer(monkeypatch):
    def refuse(*args):
        raise AssertionError("the Numba tokenizer ran")

    monkeypatch.setattr(_parse, "parse_lines", refuse)
    buf = np.frombuffer(b"# c\n% c\n  # c\n0 1\r\n2,3\n\n 4\t5 \n", np.uint8)
    src, dst, w = _parse.parse(buf)
    assert src.tolist() == [0, 2, 4] and dst.tolist() == [1, 3, 5] and w is None


# kernels ---------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=60, max_m=300), data=st.data())
def test_serial_bfs_gives_the_parallel_depths(G, data):
    if G.n == 0:
        return
    source = data.draw(st.integers(0, G.n - 1))
    with pytest.MonkeyPatch.context() as mp:
        small, large = run_both(mp, lambda G, **kw: gravel.bfs(G, source, **kw), G)
    assert small.strategy == "top-down, serial" and large.strategy == "direction-optimizing"
    assert np.array_equal(small.depth, large.depth)
    assert verify_bfs(G, source, small.depth, small.parent) == []
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fill, "fill", refuse_parallel_fill)  # a small BFS's arrays come from np.full
        assert np.array_equal(gravel.bfs(G, source, device="cpu").depth, small.depth)


def refuse_parallel_fill(*args):
    raise AssertionError("the parallel fill ran on a small graph")


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=60, max_m=300))
def test_serial_cc_gives_the_parallel_labels(G):
    with pytest.MonkeyPatch.context() as mp:
        small, large = run_both(mp, gravel.connected_components, G)
    assert np.array_equal(small.labels, large.labels)


@pytest.mark.parametrize("weighted", [False, True])
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_serial_pagerank_gives_the_parallel_ranks(weighted, data):
    G = data.draw(graphs(max_n=60, max_m=300, weighted=weighted))
    with pytest.MonkeyPatch.context() as mp:
        small, large = run_both(mp, gravel.pagerank, G)
    assert np.allclose(small.rank, large.rank, rtol=1e-12, atol=0)


_K4 = gravel.Graph.from_edges([0, 0, 0, 1, 1, 2], [1, 2, 3, 2, 3, 3], directed=False)


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=60, max_m=300, directed=False), threads=st.integers(1, 5))
@example(G=_K4, threads=5)  # more threads than rows with arcs
@example(G=gravel.Graph.from_edges([], [], n=0, directed=False), threads=3)
def test_triangle_threads_give_networkx_counts(G, threads):
    """The oriented rows dealt to 1-5 counting threads (ARCS_PER_THREAD 1, so that a small graph
    takes them all): per vertex and in total, NetworkX's triangles."""
    import networkx as nx

    S = G.simple_undirected()
    O = gravel.transform.orient_by_degree(S)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tc, "ARCS_PER_THREAD", 1)
        total, per = tc.count(O.offsets, O.indices, threads, True)
        alone, none = tc.count(O.offsets, O.indices, threads, False)
    rows = np.repeat(np.arange(S.n), np.diff(S.offsets))
    ref = nx.Graph()
    ref.add_nodes_from(range(S.n))
    ref.add_edges_from((u, v) for u, v in zip(rows.tolist(), S.indices.tolist()) if u != v)
    expect = np.array([nx.triangles(ref, v) for v in range(S.n)], np.int64)
    assert per.dtype == np.int64 and np.array_equal(per, expect)
    assert total == alone == expect.sum() // 3 and none.size == 0


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=60, max_m=300, directed=False))
def test_numpy_orientation_is_the_parallel_one(G):
    S = G.simple_undirected()
    off, idx = tc.orient(S.offsets, S.indices, S.out_degree)
    no_stop = np.zeros(1, np.uint8)
    ref_off, ref_idx = tc._orient_parallel(S.offsets, S.indices, S.out_degree, no_stop)
    assert np.array_equal(off, ref_off) and off.dtype == ref_off.dtype
    assert np.array_equal(idx, ref_idx) and idx.dtype == ref_idx.dtype


def test_a_small_sssp_runs_no_parallel_kernel(monkeypatch):
    # a star of 2000 leaves: both its frontiers pass SERIAL_ARCS (2000 out-arcs each)
    G = gravel.Graph.from_edges(np.zeros(2000, int), np.arange(1, 2001), directed=False)
    small, large = run_both(monkeypatch, lambda G, **kw: gravel.sssp(G, 0, **kw), G)
    assert np.array_equal(small.distance, large.distance)

    def refuse(*args):
        raise AssertionError("a parallel SSSP kernel ran")

    for name in ("arc_ends", "relax", "file_lowered", "next_frontier", "as_distances"):
        monkeypatch.setattr(sssp_kernels, name, refuse)
    monkeypatch.setattr(fill, "fill", refuse_parallel_fill)
    assert np.array_equal(gravel.sssp(G, 0, device="cpu").distance, small.distance)


@settings(max_examples=30, deadline=None)
@given(G=graphs(max_n=60, max_m=300), threads=st.integers(2, 5))
def test_brandes_threads_share_the_sources(G, threads):
    sources = np.arange(G.n, dtype=np.int32)
    one = bc.brandes(G.offsets, G.indices, sources, 1)
    assert np.allclose(bc.brandes(G.offsets, G.indices, sources, threads), one, rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(G=graphs(max_n=60, max_m=300))
def test_numpy_loop_count_is_the_parallel_one(G):
    assert arcs.count_loops(G.offsets, G.indices) == arcs._count_loops(G.offsets, G.indices)


@settings(max_examples=60, deadline=None)
@given(
    G=graphs(max_n=30, max_m=200),
    weights=st.data(),
    dedupe=st.booleans(),
    drop_loops=st.booleans(),
)
def test_numpy_compaction_is_the_kernel_one(G, weights, dedupe, drop_loops):
    # few distinct weights, NaN among them: duplicates tie, and NaN comes first or later
    values = st.sampled_from([0.0, 1.0, 2.0, np.nan])
    w = np.array(weights.draw(st.lists(values, min_size=G.nnz, max_size=G.nnz)), np.float32)
    out = []
    for compact in (csr._compact_small, csr._compact_in_place):
        offsets, indices, ws = G.offsets.copy(), G.indices.copy(), w.copy()
        nnz = compact(offsets, indices, ws, dedupe, drop_loops)
        out.append((offsets, indices[:nnz], ws[:nnz]))
    (o1, i1, w1), (o2, i2, w2) = out
    assert np.array_equal(o1, o2) and np.array_equal(i1, i2)
    assert np.array_equal(w1, w2, equal_nan=True)


def test_twins_are_cached_apart_from_their_kernels():
    twin = serial.twins(cc.compress)
    assert twin.compress.py_func.__qualname__ == "compress_serial"
    assert not twin.compress.targetoptions.get("parallel")
    assert cc.compress.targetoptions.get("parallel")


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(0, 5000),
    value=st.sampled_from([-1, 0, 2**31 - 1, np.inf]),
    dtype=st.sampled_from([np.int32, np.int64, np.float64]),
)
def test_parallel_full_is_numpys(n, value, dtype):
    assume(dtype is np.float64 or np.isfinite(value))  # SSSP fills float64 distances with inf
    got = fill.full(n, value, dtype)
    assert got.dtype == dtype and np.array_equal(got, np.full(n, value, dtype))

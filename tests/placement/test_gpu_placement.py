"""Graphs whose lists live outside device memory (issue 18): pinned host memory read over the bus
(EMOGI's zero-copy), managed memory, and the tiered placement; every primitive gives the answers it
gives on the device, and the line-aligned advances read every list whatever its alignment and
length."""

import mmap

import numpy as np
import pytest
from hypothesis import given, settings

import gravel
from gravel import generate, transform
from gravel.algorithms.bfs import verify_bfs
from gravel.algorithms.cc import verify_cc
from gravel.algorithms.sssp import verify_sssp
from gravel.frontier import Frontier
from gravel.operators import advance
from gravel.placement import budget_for, plan

from ..strategies import graphs

pytestmark = pytest.mark.gpu
cupy = pytest.importorskip("cupy")

PLACEMENTS = ["host", "managed", "tiered"]


def half_the_lists(G):
    """A device budget that holds about half of the arcs."""
    return budget_for(G, G.nnz // 2)


def placed(G, placement):
    """A fresh copy of G on the GPU with `placement` (a Graph decides its placement once)."""
    copy = gravel.Graph.from_csr(G.offsets, G.indices, G.weights, directed=G.directed, trusted=True)
    budget = half_the_lists(G) if placement == "tiered" else None
    copy.to("cuda", placement=placement, budget=budget)
    return copy


def check_primitives(G, placement):
    P = placed(G, placement)
    assert P.to("cuda").placement == placement
    for s in {0, G.n // 2, G.n - 1}:
        r = gravel.bfs(P, s, device="cuda")
        assert verify_bfs(G, s, r.depth.get(), r.parent.get()) == []
        r = gravel.sssp(P, s, device="cuda")
        d = r.distance.get().astype(float)
        assert verify_sssp(G, s, d, r.predecessor.get(), rtol=1e-5) == []
    assert verify_cc(G, gravel.connected_components(P, device="cuda").labels.get()) == []
    pr = gravel.pagerank(P, device="cuda").rank.get()
    assert np.abs(pr - gravel.pagerank(G, device="cpu").rank).sum() < 1e-4
    tri = gravel.triangles(P, device="cuda").triangles.get()
    assert np.array_equal(tri, gravel.triangles(G, device="cpu").triangles)
    core = gravel.core_number(P, device="cuda").core.get()
    assert np.array_equal(core, gravel.core_number(G, device="cpu").core)
    bc = gravel.betweenness_centrality(P, k=min(G.n, 8), seed=1, device="cuda").centrality.get()
    ref = gravel.betweenness_centrality(G, k=min(G.n, 8), seed=1, device="cpu").centrality
    assert np.allclose(bc, ref, equal_nan=True)


@pytest.mark.parametrize("placement", PLACEMENTS)
@pytest.mark.parametrize(
    "G",
    [
        transform.add_random_weights(generate.kronecker(10, 8, seed=2)),
        transform.add_random_weights(generate.uniform_random(10, 6, seed=3, directed=True)),
        generate.grid(20, 30),
    ],
    ids=["kron", "urand-directed", "grid"],
)
def test_every_primitive_on_every_placement(G, placement):
    check_primitives(G, placement)


@pytest.mark.parametrize("placement", PLACEMENTS)
@settings(max_examples=15, deadline=None)
@given(G=graphs(max_n=60, max_m=300, weighted=True))
def test_random_graphs_on_every_placement(placement, G):
    if G.n:
        check_primitives(G, placement)


def lists_at_every_alignment():
    """Lists of 1 to 70 ids one after another, so that they start at every offset of a line, with
    empty lists and two hubs of thousands of lines among them."""
    rng = np.random.default_rng(5)
    degrees = np.tile(np.arange(0, 71), 3)
    degrees[[40, 150]] = 100_003, 70_001
    n = degrees.size
    src = np.repeat(np.arange(n), degrees)
    dst = rng.integers(0, n, src.size)
    w = rng.random(src.size).astype(np.float32) + 1
    return gravel.Graph.from_edges(src, dst, w, n=n)


def lines_of(offsets, rows):
    """The 128-byte lines of 4-byte ids that hold the lists `rows` of a CSR with `offsets`."""
    begin, end = offsets[rows], offsets[rows + 1]
    return int(np.where(end > begin, (end - 1) // 32 - begin // 32 + 1, 0).sum())


@pytest.mark.parametrize("strategy", ["warp_aligned", "line_balanced"])
@pytest.mark.parametrize("placement", ["device", "host", "tiered"])
@pytest.mark.parametrize("part", ["every", "some"])
def test_line_aligned_advances_read_every_arc_once(placement, strategy, part):
    G = lists_at_every_alignment()
    dg = placed(G, placement).to("cuda")
    rows = np.arange(G.n, dtype=np.int32)
    if part == "some":  # a shuffled frontier: every other list, the first hub among them
        rows = np.random.default_rng(1).permutation(rows[::2])
    seen = cupy.zeros(G.nnz, cupy.float32)
    lines = cupy.zeros(1, cupy.uint64)
    out = advance(
        dg,
        Frontier.from_ids(G.n, rows),
        "(seen[edge] += weight, true)",
        params={"seen": seen},
        output="edge",
        strategy=strategy,
        capacity=G.nnz,
        lines=lines,
    )
    arcs = np.concatenate([np.arange(G.offsets[v], G.offsets[v + 1]) for v in rows])
    assert np.array_equal(np.sort(out.ids[: len(out)].get()), np.sort(arcs))
    expect = np.zeros(G.nnz, np.float32)
    expect[arcs] = G.weights[arcs]
    assert np.array_equal(seen.get(), expect)  # each arc once, with its own weight
    if placement == "tiered":  # only the cold lists' lines are read over the bus
        rows = rows[np.diff(dg.hot.offsets.get())[rows] == 0]
    if placement != "device":
        assert int(lines.get()[0]) == lines_of(G.offsets, rows)


def test_a_graph_goes_where_it_is_asked():
    G = generate.kronecker(10, 8, seed=4)
    assert placed(G, "host").to("cuda").indices.data.ptr == G.indices.ctypes.data  # in place
    hot = placed(G, "tiered").to("cuda").hot
    assert 0 < hot.indices.size < G.nnz
    expect = plan(G, "tiered", half_the_lists(G)).hot  # the tier holds the plan's lists
    tier_lengths = np.diff(hot.offsets.get())
    assert np.array_equal(tier_lengths, np.where(expect, G.out_degree, 0))


@pytest.mark.parametrize("placement", ["host", "tiered"])
@pytest.mark.parametrize(
    "G",
    [
        transform.add_random_weights(generate.kronecker(10, 8, seed=7)),
        transform.add_random_weights(generate.uniform_random(10, 6, seed=8, directed=True)),
    ],
    ids=["kron", "urand-directed"],
)
def test_streamed_sweeps_match_the_bus_and_the_cpu(G, placement, monkeypatch):
    from gravel.operators import neighbor_reduce, stream

    monkeypatch.setattr(stream, "STREAM_CHUNK_BYTES", 1024)  # many chunks; hubs longer than one
    P = placed(G, placement)
    for weight in (True, False):
        ref = gravel.pagerank(G, weight=weight, device="cpu").rank
        for blocking in ("auto", "streamed", None):
            r = gravel.pagerank(P, weight=weight, blocking=blocking, device="cuda")
            assert ("streamed" in r.strategy) == (blocking is not None)
            assert np.abs(r.rank.get() - ref).sum() < 1e-4
    dg = P.to("cuda")
    x = cupy.asarray(np.random.default_rng(2).random(G.n, dtype=np.float32))
    expect = neighbor_reduce(dg, None, "x[u] * weight", "min", params={"x": x}, blocking=None)
    got = neighbor_reduce(dg, None, "x[u] * weight", "min", params={"x": x}, blocking="streamed")
    assert np.array_equal(got.get(), expect.get())


def test_a_streamed_sweep_needs_lists_in_host_memory():
    from gravel.operators import plan_sweep

    with pytest.raises(ValueError, match="host memory"):
        plan_sweep(placed(generate.grid(4, 4), "device").to("cuda"), "streamed")


@pytest.mark.parametrize("where", ["host", "device"])
def test_the_bus_ceiling_kernel_reads_every_word(where):
    from gravel.backends.cuda.pinned import mapped
    from gravel.bench import bus_read

    words = np.random.default_rng(3).integers(0, 2**32, 4 * 100_003, dtype=np.uint32)
    view = mapped(words) if where == "host" else cupy.asarray(words)
    assert int(bus_read(view).get()[0]) == int(np.bitwise_xor.reduce(words))


def test_arrays_that_share_pages_are_pinned_and_read_right():
    from gravel.backends.cuda.pinned import mapped
    from gravel.bench import bus_read

    pages = np.frombuffer(mmap.mmap(-1, 1 << 16), np.uint32)  # 1,024 words a page
    pages[:] = np.random.default_rng(4).integers(0, 2**32, pages.size, dtype=np.uint32)
    # the middle one shares a page with each of the others
    parts = [pages[24:1224], pages[1400:2600], pages[2800:4000]]
    views = [mapped(part) for part in parts]
    for part, view in zip(parts, views):
        assert int(bus_read(view).get()[0]) == int(np.bitwise_xor.reduce(part))


def test_an_array_the_driver_will_not_pin_in_place_is_pinned_as_a_copy(monkeypatch):
    from gravel.backends.cuda import pinned
    from gravel.bench import bus_read

    register, refused = cupy.cuda.runtime.hostRegister, []

    def refuse_once(*args):
        if not refused:
            refused.append(args)
            raise cupy.cuda.runtime.CUDARuntimeError(712)  # cudaErrorHostMemoryAlreadyRegistered
        return register(*args)

    monkeypatch.setattr(cupy.cuda.runtime, "hostRegister", refuse_once)
    words = np.random.default_rng(5).integers(0, 2**32, 4 * 1_001, dtype=np.uint32)
    with pytest.warns(UserWarning, match="16,016 bytes .* pinned a copy"):
        pin = pinned.HostPin(words)
    assert refused and pin.array.ctypes.data != words.ctypes.data
    assert np.array_equal(pin.array, words)
    assert int(bus_read(pin.device).get()[0]) == int(np.bitwise_xor.reduce(words))


def test_a_failed_pin_names_the_limit_and_the_fix(monkeypatch):
    def refuse(*args):
        raise cupy.cuda.runtime.CUDARuntimeError(2)  # cudaErrorMemoryAllocation

    monkeypatch.setattr(cupy.cuda.runtime, "hostRegister", refuse)
    G = generate.kronecker(8, 8, seed=1)
    with pytest.raises(gravel.PinnedMemoryError, match="locked-memory limit is .*ulimit -l"):
        placed(G, "host")


def test_an_interrupted_placement_leaves_nothing_pinned(monkeypatch):
    import gc

    from gravel.backends.cuda import pinned, tiers

    def interrupt(*args):
        raise KeyboardInterrupt

    G = generate.kronecker(10, 8, seed=4)
    monkeypatch.setattr(tiers, "hot_lists", interrupt)  # after the cold lists were pinned
    with pytest.raises(KeyboardInterrupt):
        placed(G, "tiered")
    gc.collect()
    assert (G.indices.ctypes.data, G.indices.nbytes) not in pinned._pins
    # nothing registered is left behind: the same memory pins again
    rt = cupy.cuda.runtime
    rt.hostRegister(G.indices.ctypes.data, G.indices.nbytes, 0)
    rt.hostUnregister(G.indices.ctypes.data)

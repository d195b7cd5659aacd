"""GAP's serialized graphs (.sg, .wsg): files GAP's converter wrote read as the same graph as GAP's
own edge list of it, written back byte for byte, random graphs round-tripped, and damaged files
refused with the file named."""

import gzip
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gravel
from gravel.errors import GraphFormatError

DATA = Path(__file__).resolve().parents[1] / "data" / "gapbs"


@pytest.mark.parametrize(
    ("name", "reference", "directed"), [("k8", "k8.wel", False), ("d", "d.wel", True)]
)
def test_gap_files_are_gaps_edge_list(name, reference, directed):
    # GAP's edge list of an undirected graph holds each edge both ways: read as directed arcs
    wel = gravel.load(DATA / reference, cache=False)
    G, W = gravel.load(DATA / f"{name}.sg"), gravel.load(DATA / f"{name}.wsg")
    assert G.directed == W.directed == directed and not G.weighted and W.weighted
    arcs = gravel.Graph(wel.offsets, wel.indices, wel.weights, directed=directed)
    assert W == arcs
    assert G == gravel.Graph(wel.offsets, wel.indices, directed=directed)
    assert gravel.load(DATA / f"{name}.wsg", weighted=False) == G


@pytest.mark.parametrize("name", ["k8.sg", "k8.wsg", "d.sg", "d.wsg"])
def test_written_back_byte_for_byte(name, tmp_path):
    out = gravel.save(gravel.load(DATA / name), tmp_path / name)
    assert out.read_bytes() == (DATA / name).read_bytes()


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 40),
    seed=st.integers(0, 2**31 - 1),
    directed=st.booleans(),
    weighted=st.booleans(),
)
def test_random_graphs_round_trip(tmp_path_factory, n, seed, directed, weighted):
    rng = np.random.default_rng(seed)
    m = int(rng.integers(0, 4 * n))
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(1, 256, m).astype(np.float32) if weighted else None
    G = gravel.Graph.from_edges(src, dst, w, n=n, directed=directed)
    path = tmp_path_factory.mktemp("sg") / ("g.wsg" if weighted else "g.sg")
    assert gravel.load(gravel.save(G, path)) == G


def test_sg_leaves_weights_out(tmp_path):
    W = gravel.load(DATA / "k8.wsg")
    assert gravel.load(gravel.save(W, tmp_path / "g.sg")) == gravel.load(DATA / "k8.sg")


def test_wsg_needs_whole_weights(tmp_path):
    G = gravel.Graph.from_edges([0, 1], [1, 2], [1.0, 2.5], n=3)
    with pytest.raises(GraphFormatError, match="int32 weights"):
        gravel.save(G, tmp_path / "g.wsg")
    with pytest.raises(GraphFormatError, match="has none"):
        gravel.save(gravel.load(DATA / "k8.sg"), tmp_path / "g.wsg")
    assert not list(tmp_path.iterdir())  # nothing left behind


def damaged(tmp_path, name, edit):
    data = bytearray((DATA / name).read_bytes())
    edit(data)
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda b: b.__delitem__(slice(-4, None)), "truncated"),
        (lambda b: b.extend(b"\0" * 4), "too long"),
        (lambda b: b.__delitem__(slice(10, None)), "under its header"),
        (lambda b: b.__setitem__(0, 7), "directed byte 7"),
        (lambda b: b.__setitem__(slice(-4, None), (300).to_bytes(4, "little")), "out of range"),
        (lambda b: b.__setitem__(slice(17 + 8, 17 + 16), (10**6).to_bytes(8, "little")), "valid"),
    ],
    ids=["short", "long", "header", "flag", "id", "offsets"],
)
def test_damaged_files_are_refused_with_their_name(tmp_path, edit, message):
    path = damaged(tmp_path, "k8.sg", edit)
    with pytest.raises(GraphFormatError, match=message) as e:
        gravel.load(path)
    assert str(path) in str(e.value)


def test_unsorted_lists_are_sorted(tmp_path):
    def swap(b):  # vertex 1's first two neighbours, swapped
        first = 17 + 8 * 257 + 4 * int(np.frombuffer(bytes(b[25:33]), np.int64)[0])
        b[first : first + 8] = b[first + 4 : first + 8] + b[first : first + 4]

    assert gravel.load(damaged(tmp_path, "k8.sg", swap)) == gravel.load(DATA / "k8.sg")


def test_compressed_files_are_refused(tmp_path):
    with pytest.raises(GraphFormatError, match="uncompressed"):
        gravel.save(gravel.load(DATA / "k8.sg"), tmp_path / "g.sg.gz")
    packed = tmp_path / "g.sg"
    packed.write_bytes(gzip.compress((DATA / "k8.sg").read_bytes()))
    with pytest.raises(GraphFormatError, match="gzip") as e:
        gravel.load(packed)
    assert str(packed) in str(e.value)


def test_a_graph_without_arcs_takes_its_form_from_the_name(tmp_path):
    G = gravel.Graph.from_edges([], [], [], n=3, directed=False)
    for name, weighted in (("g.sg", False), ("g.wsg", True)):
        H = gravel.load(gravel.save(G, tmp_path / name))
        assert (H.n, H.nnz, H.weighted) == (3, 0, weighted)

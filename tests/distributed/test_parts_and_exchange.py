"""gravel.distributed's partitioning and its exchange, in this process: gd.split's parts hold every
arc once in an out-list and once in an in-list, edge-balanced bounds, the owner of each vertex,
parts that do not divide the vertices (issue 21) and bad part counts; the collectives routed
between parts, and a program driven by a Communicator."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gravel
import gravel.distributed as gd
from gravel.distributed import exchange
from gravel.errors import InvalidArgumentError

from ..strategies import graphs
from .helpers import FAST, check_bfs, check_cc, check_pagerank, check_sssp


def _arcs(src, dst, w):
    cols = [src.astype(np.float64), dst.astype(np.float64)]
    if w is not None:
        cols.append(w.astype(np.float64))
    a = np.stack(cols, axis=1) if cols[0].size else np.zeros((0, len(cols)))
    return a[np.lexsort(a.T[::-1])] if a.size else a


# -- partitioning ------------------------------------------------------------------------------


@FAST
@given(G=graphs(weighted=True), parts=st.integers(1, 5))
def test_every_arc_in_one_out_list_and_one_in_list(G, parts):
    pieces = gd.split(G, parts)
    bounds = pieces[0].bounds
    assert bounds[0] == 0 and bounds[-1] == G.n and np.all(np.diff(bounds) >= 0)
    outs, ins = [], []
    for p in pieces:
        rows = np.repeat(np.arange(p.lo, p.hi), np.diff(p.out_offsets))
        outs.append(_arcs(rows, p.out_targets, p.out_weights))
        cols = np.repeat(np.arange(p.lo, p.hi), np.diff(p.in_offsets))
        ins.append(_arcs(p.in_sources, cols, p.in_weights))
    src, dst = G.edges()
    want = _arcs(src, dst, G.weights)
    assert np.array_equal(np.concatenate(outs) if outs else want[:0], want)
    assert np.array_equal(_arcs(*[np.concatenate(c) for c in zip(*_split3(ins))]), want)


def _split3(blocks):
    for b in blocks:
        yield b[:, 0], b[:, 1], b[:, 2]


@FAST
@given(G=graphs(max_n=60, max_m=300), parts=st.integers(1, 6))
def test_parts_balanced_within_one_list(G, parts):
    bounds = gd.edge_balanced_bounds(G.offsets, parts)
    arcs = np.diff(G.offsets[bounds])
    if G.nnz:
        assert np.all(np.abs(arcs - G.nnz / parts) < G.max_out_degree)
    else:
        assert np.all(np.diff(bounds) <= -(-G.n // parts))


@FAST
@given(G=graphs(), parts=st.integers(1, 5))
def test_owner_round_trips(G, parts):
    pieces = gd.split(G, parts)
    ids = np.arange(G.n)
    expect = np.concatenate([np.full(p.size, p.index) for p in pieces]) if pieces else ids
    assert np.array_equal(gd.owner(pieces[0].bounds, ids), expect)
    for p in pieces:
        assert np.all(p.owner(np.arange(p.lo, p.hi)) == p.index)


@pytest.mark.parametrize(("shape", "parts"), [((5, 7), 4), ((3, 3), 2), ((1, 3), 5)])
def test_issue_21_parts_that_do_not_divide(shape, parts):
    # 35 vertices in 4 parts, 9 in 2, and 3 in 5 (two parts own no vertex)
    G = gravel.transform.add_random_weights(gravel.generate.grid(*shape), seed=1)
    pieces = gd.split(G, parts)
    assert sum(p.size for p in pieces) == G.n and len(pieces) == parts
    for direction in ("top-down", "bottom-up"):
        check_bfs(G, 0, gd.bfs(G, 0, direction=direction, parts=parts, cluster="in-process"))
    check_sssp(G, 0, gd.sssp(G, 0, parts=parts, cluster="in-process"))
    check_pagerank(G, gd.pagerank(G, parts=parts, cluster="in-process"))
    check_cc(G, gd.connected_components(G, parts=parts, cluster="in-process"))


def test_bad_parts():
    G = gravel.generate.grid(2, 2)
    with pytest.raises(InvalidArgumentError):
        gd.split(G, 0)
    with pytest.raises(InvalidArgumentError):
        gd.split(G, 2, bounds=[0, 3, 2])


# -- the exchange ------------------------------------------------------------------------------


def test_route_collectives():
    a = np.arange
    sends = [exchange.alltoall([a(1), a(2)]), exchange.alltoall([a(3), a(4)])]
    got = exchange.route(sends)
    assert [x.tolist() for x in got[1]] == [[0, 1], [0, 1, 2, 3]]
    gathered = exchange.route([exchange.allgather((a(2), a(1))), exchange.allgather((a(1), a(2)))])
    assert [x.tolist() for x in gathered[0]] == [[0, 1, 0], [0, 0, 1]]
    assert exchange.route([exchange.allreduce(3, "min"), exchange.allreduce(2, "min")]) == [2, 2]
    with pytest.raises(RuntimeError, match="out of step"):
        exchange.route([exchange.allreduce(1), exchange.allgather(a(1))])


def test_drive_with_a_communicator():
    class Alone(exchange.Communicator):  # one part: each collective gives back its input
        rank, size = 0, 1

        def alltoall(self, sends):
            return list(sends)

        def allgather(self, data):
            return data

        def allreduce(self, data, op):
            return data

    G = gravel.generate.grid(3, 3)
    (part,) = gd.split(G, 1)
    depth, *_ = exchange.drive(gd.algorithms.bfs_program(part, 0), Alone())
    assert np.array_equal(depth, gravel.bfs(G, 0, device="cpu").depth)

"""What the hybrid tests share (test_hybrid.py on the CPU stand-in, test_hybrid_gpu.py on a GPU):
the cases, the budgets, the sides the state may live on and the expected results."""

import contextlib

import numpy as np
import pytest

from gravel import programs
from gravel.programs import cpu_part
from gravel.programs.cuda_part import vertex_bytes
from gravel.transform import add_random_weights

from .helpers import with_loops

DIRECTIONS = ("auto", "pull", "push")
HYBRID = ("hybrid-seed", "hybrid")
LIBRARY = ("bfs", "sssp", "connected_components", "pagerank", "triangles")


def case(graph, name, direction):
    """The graph, program and direction a library program runs on: PageRank pulls a graph with a
    loop on every vertex, triangles count on the simple undirected graph, SSSP weighs edges."""
    G = add_random_weights(graph, seed=3)
    if name == "pagerank":
        G, direction = with_loops(graph), "pull"
    if name == "triangles":
        G = G.simple_undirected()
    return G, getattr(programs, name)(), direction


#: the part's prior share that puts the state on each side (where most of the work is expected)
PRIORS = {"cpu": 0.5, "gpu": 0.9}


@contextlib.contextmanager
def state_on(side):
    """Hybrid runs within the block keep the state on `side` ("cpu", or "gpu": the part's), the
    CPU's stand-in for the part and the GPU's alike, by the part's prior share."""
    from gravel.programs import cuda_part

    with pytest.MonkeyPatch.context() as mp:
        for part in (cpu_part.CpuPart, cuda_part.CudaPart):
            mp.setattr(part, "prior_share", PRIORS[side])
        yield


#: (execution, the side the state lives on): the seed's scheme keeps it on the CPU
RUNS = [("hybrid-seed", "cpu"), ("hybrid", "cpu"), ("hybrid", "gpu")]


def assert_same(got, expect, rtol=1e-9):
    """The same state (a GPU's sums in another order: within `rtol`, the iterations free)."""
    assert got.state.dtype == expect.state.dtype and got.converged == expect.converged
    if rtol < 1e-6:
        assert got.iterations == expect.iterations
    for f in got.state.dtype.names or (None,):
        a, b = (got.state, expect.state) if f is None else (got.state[f], expect.state[f])
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-12)


def smallest_label(way):
    """Each vertex takes the smallest id it hears along its edges `way` ("out": from the
    vertices that reach it; "in": from those it reaches; "both": its weak component's)."""
    return programs.Program(
        "int32",
        "int32",
        init="v",
        send="state",
        process="message",
        reduce="min",
        apply="min(state, total)",
        direction=way,
    )


#: arcs 1 -> 0, 1 -> 2, 3 -> 2, 4 -> 3 and 5 -> 4 (and 6 alone): every label needs its way
ARCS = ([1, 1, 3, 4, 5], [0, 2, 2, 3, 4])
#: the smallest label of each vertex by the program's way, on the directed graph and undirected
LABELS = {
    ("out", True): [0, 1, 1, 3, 4, 5, 6],  # the smallest ancestor (or itself)
    ("in", True): [0, 0, 2, 2, 2, 2, 6],  # the smallest descendant (or itself)
    ("both", True): [0, 0, 0, 0, 0, 0, 6],
    **{(way, False): [0, 0, 0, 0, 0, 0, 6] for way in ("out", "in", "both")},
}


def list_sets(G, prog, direction):
    """The sets of lists a hybrid run of `prog` reads: an undirected graph's one; a directed
    graph's in- and out-lists where the run both pulls and pushes, or its messages go both ways."""
    if not G.directed:
        return 1
    pushes = isinstance(prog.reduce, str) and prog.senders != "all"
    both = direction == "auto" and pushes
    return 2 if both or prog.direction == "both" else 1


def budget(G, prog, fraction, direction="auto", home=False):
    """A device budget whose room for lists holds `fraction` of the arcs of the sets of lists
    the run reads: the part's vertex arrays (with the state's, `home`), the offsets of its device
    rows and of its bus rows, then the arcs."""
    sets, arc = list_sets(G, prog, direction), 4 + 4 * G.weighted
    ways = 2 if G.directed and prog.direction == "both" else 1
    per_vertex = vertex_bytes(prog, ways if home else 0)
    return per_vertex * G.n + 2 * sets * 8 * (G.n + 1) + int(fraction * sets * G.nnz * arc)


def shares(result):
    """(device share, bus share) of each pull of a hybrid run."""
    pulls = [s for s in result.steps if s.direction == "pull"]
    return [(s.gpu_share - s.bus_share, s.bus_share) for s in pulls]


#: the budgets of the three-way split, as fractions of the arcs: the device rows, bus rows and
#: the CPU's (k < j < n); no device rows, the GPU reading all of its share over the bus (k == 0)
FRACTIONS = {"k<j<n": 0.25, "k==0": None}


#: the shares the scripted measure gives: past the cap over the bus, within it, all the GPU's
#: (j == n), none, past the cap again; each move, from a prior share of 0.5 or 1.0, one that
#: split.next_share takes (it saves the side that finished last over a tenth of its time)
SCRIPT = (0.8, 0.1, 1.0, 0.0, 0.6)

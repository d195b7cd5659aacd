"""Helpers that several tests/programs files share (and tests/cli/test_cli.py, which benches a
program file): the graphs programs run on, programs of the user's own, a program file."""

import textwrap
from importlib import resources

import numpy as np

import gravel
from gravel.programs import Program


def bundled():
    with resources.as_file(resources.files("gravel") / "data" / "facebook_combined.txt.gz") as p:
        return gravel.load(p, undirected=True, cache=False)


GRAPHS = {
    "kron8": lambda: gravel.generate.kronecker(8, 8, seed=1),
    "kron8-directed": lambda: gravel.generate.kronecker(8, 8, seed=2, directed=True),
    "grid": lambda: gravel.generate.grid(9, 13),
    "facebook": bundled,
}


def with_loops(G):
    """G with a self loop on every vertex: every vertex has an in-edge and an out-edge, where a
    PageRank program's fixed point is gravel.pagerank's."""
    src, dst = G.edges()
    loops = np.arange(G.n)
    return gravel.Graph.from_edges(np.r_[src, loops], np.r_[dst, loops], n=G.n, directed=G.directed)


def parent_bfs(depth="state.depth + 1", parent="v", heard="message.parent"):
    """BFS from vertex 0 keeping a parent: a structured state, a structured message reduced field
    by field (the smallest parent among the senders of the smallest depth). `depth` and `parent`
    are the sent fields' expressions, `heard` the parent process takes."""
    return Program(
        [("depth", "int32"), ("parent", "int64")],
        [("depth", "int32"), ("parent", "int64")],
        init={"depth": "0 if v == 0 else -1", "parent": "-1"},
        start="v == 0",
        send={"depth": depth, "parent": parent},
        process={"depth": "message.depth", "parent": heard},
        reduce="min",
        apply={
            "depth": "total.depth if state.depth < 0 else state.depth",
            "parent": "total.parent if state.depth < 0 else state.parent",
        },
    )


#: the parent sent by each sender (``v``)
PARENT_BFS = parent_bfs()


#: reachability from vertex 0 by a named semiring
REACH = Program(
    "bool",
    "bool",
    init="v == 0",
    start="v == 0",
    send="state",
    semiring="or_and",
    apply="state or total",
)
#: the widest path's width from vertex 0 (max-times: inf wherever 0 reaches)
WIDEST = Program(
    "float64",
    "float64",
    init="inf if v == 0 else 0.0",
    start="v == 0",
    send="state",
    semiring="max_times",
    apply="max(state, total)",
)
#: the lowest id each vertex is connected to, by a reduce of the user's own
LOWEST = Program(
    "int64",
    "int64",
    init="v",
    send="state",
    process="message",
    reduce="a if a < b else b",
    identity=2**62,
    apply="min(state, total)",
    direction="both",
)


# -- collaborative filtering -----------------------------------------------------------------------
def ratings(users=40, items=25, m=300, seed=0):
    """A bipartite graph: users 0.., items after them, ratings 1..5 as weights."""
    rng = np.random.default_rng(seed)
    u, i = rng.integers(0, users, m), rng.integers(users, users + items, m)
    r = rng.integers(1, 6, m).astype(np.float32)
    return gravel.Graph.from_edges(u, i, r, n=users + items, directed=False)


# -- program files --------------------------------------------------------------------------------
BFS_FILE = """
from gravel.programs import Program

program = Program(
    "int32", "int32",
    init="0 if v == source else -1", start="v == source",
    send="state + 1", process="message", reduce="min",
    apply="total if state < 0 else state",
    params={"source": 0},
)
"""


def write(tmp_path, text, name="prog.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path

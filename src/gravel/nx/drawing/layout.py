"""forceatlas2_layout (networkx.drawing.layout), by :func:`gravel.forceatlas2_layout`.

gravel iterates NetworkX's ForceAtlas2 step for step in float64 (the forces on the GPU or the
CPU). The start positions are NetworkX's own: the same draws from the ``RandomState`` that
NetworkX's ``np_random_state`` hands the backend (``random_layout``'s, float32 as NetworkX rounds
them, for ``pos=None``; the box of the given positions for a partial `pos`). So a seed, or a
`pos`, gives NetworkX's layout up to rounding, which the iteration amplifies: after tens of
iterations the two drift apart, each as good a layout. Positions come as float64 arrays.
"""

import networkx as nx
import numpy as np

from gravel.algorithms import forceatlas2_layout as gravel_fa2
from gravel.algorithms.layout import degree_mass
from gravel.arrays import host

from .._algorithm import algorithm, device


def _start(G, pos, seed, dim):
    """NetworkX's start positions, n x dim float64, from the same draws of `seed`."""
    n = len(G)
    if pos is None:
        return seed.rand(n, dim).astype(np.float32).astype(np.float64)
    if len(pos) == n:
        return np.array([pos[node] for node in G], np.float64)
    given = np.array(list(pos.values()))
    top, bottom = given.max(axis=0), given.min(axis=0)
    start = bottom + seed.rand(n, top.size) * (top - bottom)
    for i, node in enumerate(G):
        if node in pos:
            start[i] = pos[node]
    return start.astype(np.float64)


def _per_node(G, values, default):
    """`values` (a dict by node) as an array over the vertices, `default`'s entry where absent."""
    out = np.array(default, np.float64)
    for i, node in enumerate(G):
        if node in values:
            out[i] = values[node]
    return out


@algorithm
def forceatlas2_layout(
    G,
    pos=None,
    *,
    max_iter=100,
    jitter_tolerance=1.0,
    scaling_ratio=2.0,
    gravity=1.0,
    distributed_action=False,
    strong_gravity=False,
    node_mass=None,
    node_size=None,
    weight=None,
    linlog=False,
    seed=None,
    dim=2,
    store_pos_as=None,
):
    if len(G) == 0:
        return {}
    n = len(G)
    mass = None if node_mass is None else _per_node(G, node_mass, degree_mass(G.graph))
    size = None if node_size is None else _per_node(G, node_size, np.ones(n))
    r = gravel_fa2(
        G.graph,
        _start(G, pos, seed, dim),
        max_iter=max_iter,
        jitter_tolerance=jitter_tolerance,
        scaling_ratio=scaling_ratio,
        gravity=gravity,
        distributed_action=distributed_action,
        strong_gravity=strong_gravity,
        node_mass=mass,
        node_size=size,
        weight=weight is not None,
        linlog=linlog,
        device=device(G.graph),
    )
    positions = dict(zip(G.labels, host(r.pos)))
    if store_pos_as is not None:
        nx.set_node_attributes(G.origin(), positions, store_pos_as)
    return positions

"""The catalog's CPU baselines compute what their algorithms compute: each one's answer against
gravel's own CPU run on generated graphs, so that the bench times the same work."""

import numpy as np
import pytest

import gravel
from gravel.algorithms.catalog import CATALOG
from gravel.generate import from_spec, uniform_random
from gravel.transform import add_random_weights


def same_partition(a, b):
    """Whether two labellings group the vertices alike."""
    pairs = np.unique(np.stack([np.asarray(a), np.asarray(b)]), axis=1)
    return pairs.shape[1] == np.unique(a).size == np.unique(b).size


def reached(result, answer):
    """BFS: the vertices the baseline's order holds are those gravel reached."""
    order = answer[0]
    return np.array_equal(np.sort(order), np.flatnonzero(result.depth >= 0))


def distances(result, answer):
    """SSSP: the same distances, infinite where unreachable."""
    return np.allclose(np.asarray(answer, np.float64), result.distance.astype(np.float64))


def components(result, answer):
    """Components: the same partition of the vertices."""
    return same_partition(answer[1], result.labels)


def forest_weight(result, answer):
    """Spanning forest: the same total weight."""
    return np.isclose(answer.sum(), result.total_weight)


#: how a baseline's answer matches its algorithm's result, by the algorithm's name
SAME = {
    "bfs": reached,
    "sssp": distances,
    "bellman_ford": distances,
    "cc": components,
    "scc": components,
    "msf": forest_weight,
}

#: generated graphs by name: (directed, builder)
GRAPHS = {
    "kron": (False, lambda: add_random_weights(from_spec("kron:7"))),
    "uniform": (True, lambda: add_random_weights(uniform_random(7, 4, directed=True))),
}

CPU_BASELINES = [
    (name, base)
    for name, algo in CATALOG.items()
    for base in algo.baselines
    if base.device == "cpu"
]
RUNS = [
    (name, base, graph)
    for name, base in CPU_BASELINES
    for graph in GRAPHS
    if not (GRAPHS[graph][0] and CATALOG[name].undirected_only)
]


def test_every_cpu_baseline_is_checked():
    assert sorted({name for name, _ in CPU_BASELINES}) == sorted(SAME)


@pytest.mark.parametrize("name,base,graph", RUNS, ids=[f"{n}-{b.name}-{g}" for n, b, g in RUNS])
def test_a_baseline_answers_as_its_algorithm(name, base, graph):
    algo, G = CATALOG[name], GRAPHS[graph][1]()
    source = int(np.argmax(G.out_degree))
    args = (G, source) if algo.takes_source else (G,)
    result = getattr(gravel, algo.function_name)(*args, device="cpu")
    assert SAME[name](result, base.build(G, source)())

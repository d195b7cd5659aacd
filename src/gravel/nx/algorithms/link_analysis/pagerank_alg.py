"""pagerank (networkx.algorithms.link_analysis.pagerank_alg), with NetworkX's stopping rule."""

import networkx as nx
import numpy as np

from gravel.algorithms import pagerank as gravel_pagerank
from gravel.algorithms.pagerank import PowerIterationFailedConvergence
from gravel.arrays import host
from gravel.errors import InvalidArgumentError, InvalidWeightError

from ..._algorithm import algorithm, device


def _vector(G, values):
    """A dict keyed by node as an array over vertex ids (missing nodes 0), as NetworkX reads it."""
    return None if values is None else np.array([values.get(v, 0) for v in G.labels], float)


def _can_run(G, alpha, personalization, max_iter, tol, nstart, weight, dangling):
    if callable(weight):
        return "weight functions are not supported by gravel"
    if tol <= 0:
        return "gravel reads tol=0 as 'run max_iter iterations'"
    return True


@algorithm(can_run=_can_run)
def pagerank(
    G,
    alpha=0.85,
    personalization=None,
    max_iter=100,
    tol=1.0e-6,
    nstart=None,
    weight="weight",
    dangling=None,
):
    if len(G) == 0:
        return {}
    p = _vector(G, personalization)
    if p is not None and p.sum() == 0:
        raise ZeroDivisionError
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    try:
        rank = gravel_pagerank(
            G.graph,
            alpha,
            p,
            max_iter,
            tol,
            _vector(G, nstart),
            weight is not None,
            _vector(G, dangling),
            stopping="networkx",
            device=device(G.graph),
        ).rank
    except PowerIterationFailedConvergence as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    except (InvalidArgumentError, InvalidWeightError) as exc:
        raise NotImplementedError(str(exc)) from exc
    return G.to_dict(host(rank).astype(np.float64))

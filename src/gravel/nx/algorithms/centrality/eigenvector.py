"""eigenvector_centrality (networkx.algorithms.centrality.eigenvector), by gravel's power
iteration: NetworkX's iteration (x + A^T x, scaled to a Euclidean norm of 1) and stopping rule."""

import networkx as nx

from gravel.algorithms import eigenvector_centrality as gravel_eigenvector
from gravel.arguments import is_real
from gravel.arrays import host
from gravel.errors import InvalidWeightError, PowerIterationFailedConvergence

from ..._algorithm import algorithm, device, start_values_ok


def _can_run(G, max_iter, tol, nstart, weight):
    if callable(weight):
        return "weight functions are not supported by gravel"
    if not start_values_ok(G, nstart):
        return "gravel takes an nstart of non-negative values for every node"
    return True


def in_start_order(G, values, nstart):
    """``{label: value}`` of per-vertex `values`, keyed in `nstart`'s order where given (NetworkX
    builds its result from the start's dict)."""
    scores = G.to_dict(values)
    return scores if nstart is None else {v: scores[v] for v in nstart}


def run_power(G, weight, max_iter, call):
    """`call()`'s centrality as a host array, gravel's errors as NetworkX's: non-convergence as
    PowerIterationFailedConvergence, weights gravel refuses (or float32 cannot hold) as
    NotImplementedError, so that NetworkX runs the call."""
    if weight is not None and not G.exact_weights:
        raise NotImplementedError("float32 does not hold these weights exactly")
    try:
        return host(call().centrality)
    except PowerIterationFailedConvergence as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    except InvalidWeightError as exc:
        raise NotImplementedError(str(exc)) from exc


@algorithm(can_run=_can_run)
def eigenvector_centrality(G, max_iter=100, tol=1e-06, nstart=None, weight=None):
    if len(G) == 0:
        raise nx.NetworkXPointlessConcept("cannot compute centrality for the null graph")
    if nstart is not None and all(v == 0 for v in nstart.values()):
        raise nx.NetworkXError("initial vector cannot have all zero values")
    if max_iter <= 0 or not (is_real(tol) and tol > 0):  # NetworkX's test never passes
        raise nx.PowerIterationFailedConvergence(max_iter)
    start = None if nstart is None else [nstart[v] for v in G.labels]
    x = run_power(
        G,
        weight,
        max_iter,
        lambda: gravel_eigenvector(
            G.graph, max_iter, tol, start, weight is not None, device=device(G.graph)
        ),
    )
    return in_start_order(G, x, nstart)

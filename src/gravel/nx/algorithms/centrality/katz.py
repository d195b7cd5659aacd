"""katz_centrality (networkx.algorithms.centrality.katz), by gravel's power iteration:
NetworkX's iteration (alpha A^T x + beta, from zeros or nstart) and stopping rule."""

import math

import networkx as nx

from gravel.algorithms import katz_centrality as gravel_katz
from gravel.arguments import is_real

from ..._algorithm import algorithm, device
from .eigenvector import in_start_order, run_power


def _can_run(G, alpha, beta, max_iter, tol, nstart, normalized, weight):
    if callable(weight):
        return "weight functions are not supported by gravel"
    if not (is_real(alpha) and math.isfinite(alpha)):
        return "gravel takes a finite number as alpha"
    if nstart is not None:
        try:
            if set(nstart) != set(G) or not all(math.isfinite(v) for v in nstart.values()):
                return "gravel takes an nstart of finite numbers for every node"
        except TypeError:
            return "gravel takes an nstart of finite numbers for every node"
    return True


def _beta(G, beta):
    """`beta` as NetworkX reads it: one number, or a dict over every node (else NetworkXError);
    NotImplementedError for values gravel cannot take."""
    try:
        b = float(beta)
    except (TypeError, ValueError, AttributeError) as err:
        if set(beta) != set(G):
            raise nx.NetworkXError("beta dictionary must have a value for every node") from err
        b = [beta[v] for v in G.labels]
        if not all(is_real(x) and math.isfinite(x) for x in b):
            raise NotImplementedError("gravel takes finite numbers as beta") from err
        return b
    if not math.isfinite(b):
        raise NotImplementedError("gravel takes a finite beta")
    return b


@algorithm(can_run=_can_run)
def katz_centrality(
    G,
    alpha=0.1,
    beta=1.0,
    max_iter=1000,
    tol=1.0e-6,
    nstart=None,
    normalized=True,
    weight=None,
):
    if len(G) == 0:
        return {}
    b = _beta(G, beta)
    if max_iter <= 0 or not (is_real(tol) and tol > 0):  # NetworkX's test never passes
        raise nx.PowerIterationFailedConvergence(max_iter)
    start = None if nstart is None else [nstart[v] for v in G.labels]
    x = run_power(
        G,
        weight,
        max_iter,
        lambda: gravel_katz(
            G.graph,
            alpha,
            b,
            max_iter,
            tol,
            start,
            normalized,
            weight is not None,
            device=device(G.graph),
        ),
    )
    return in_start_order(G, x, nstart)

"""hits (networkx.algorithms.link_analysis.hits_alg), by gravel's power iteration.

NetworkX takes the leading singular vectors of A with ARPACK's ``svds``; gravel iterates
a = A^T h, h = A a to the same vectors. ARPACK's `max_iter` counts restarts, each of up to
ARPACK_VECTORS Lanczos steps, so gravel allows that many power iterations per unit. Lanczos
converges faster where the two largest singular values are close (within a few per cent): there
gravel may run out of iterations, and raise, where NetworkX converges.
With ``normalized=False`` the authorities have a Euclidean norm of 1 and the hubs are A times
them, as NetworkX's are (up to ARPACK's sign).
"""

import math

import networkx as nx
import numpy as np

from gravel.algorithms import hits as gravel_hits
from gravel.arguments import is_real
from gravel.arrays import host
from gravel.errors import InvalidArgumentError, InvalidWeightError, PowerIterationFailedConvergence

from ..._algorithm import algorithm, device, start_values_ok

#: Lanczos vectors per ARPACK restart in ``svds(k=1)`` (``ncv = max(2k + 1, 20)``)
ARPACK_VECTORS = 20


def _can_run(G, max_iter, tol, nstart, normalized):
    if not (is_real(tol) and tol > 0):
        return "gravel reads tol=0 as 'run max_iter iterations'"
    if not start_values_ok(G, nstart):
        return "gravel takes an nstart of non-negative values for every node"
    return True


@algorithm(can_run=_can_run)
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True):
    n = len(G)
    if n == 0:
        return {}, {}
    if max_iter <= 0:
        raise nx.PowerIterationFailedConvergence(max_iter)
    if n == 1:  # ARPACK's
        raise ValueError("`k` must be an integer satisfying `0 < k < min(A.shape)`.")
    if G.graph.nnz == 0:
        raise NotImplementedError("a graph without edges: NetworkX's SVD gives arbitrary scores")
    if not G.exact_weights:
        raise NotImplementedError("float32 does not hold these weights exactly")
    start = None
    if nstart is not None and sum(nstart.values()) > 0:
        start = np.array([nstart[v] for v in G.labels], float)
    steps = max_iter * ARPACK_VECTORS
    try:
        res = gravel_hits(G.graph, steps, tol, start, normalized, device=device(G.graph))
    except PowerIterationFailedConvergence as exc:
        raise nx.PowerIterationFailedConvergence(max_iter) from exc
    except (InvalidArgumentError, InvalidWeightError) as exc:
        raise NotImplementedError(str(exc)) from exc
    h, a = host(res.hubs), host(res.authorities)
    if not normalized:  # NetworkX's: a unit authority vector, and A times it
        a = a / math.sqrt(a @ a)
        h = G.graph.to_scipy() @ a
    return G.to_dict(h), G.to_dict(a)

"""HITS hubs and authorities (Kleinberg, JACM 1999), as ``networkx.hits`` normalises them.

Power iteration from uniform hubs, as NetworkX's reference ``_hits_python``: each iteration pulls
the authorities a = A^T h over the in-lists, then the hubs h = A a over the out-lists (one gather
each, no atomics: backends/cpu/hits.py), and scales both to a maximum of 1. It stops when the L1
change of the hubs is below `tol`; the scores are then scaled to sum to 1. ``networkx.hits``
computes the same vectors with ARPACK's SVD (the leading singular vectors of A). On the GPU the two
gathers are two pull neighbor_reduces, over the graph and over its reverse (``_hits_cuda``).
"""

import math
from dataclasses import dataclass

import numpy as np

from ..arguments import is_integer, is_real
from ..backends.cpu import hits as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import InvalidArgumentError, PowerIterationFailedConvergence
from ..results import Result, Timer
from ..transform import check_weights
from ._vectors import distribution


@dataclass
class HITSResult(Result):
    """HITS hub and authority scores, as :func:`hits` returns them.

    Attributes
    ----------
    hubs : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids (a CuPy array from the GPU path).
    authorities : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids.
    stats : dict
        ``"error"``: the L1 change of the hubs in the last iteration.
    """

    hubs: np.ndarray = None

    vertex_arrays = ("hubs", "authorities")
    authorities: np.ndarray = None


@takes_graph
def hits(G, max_iter=100, tol=1.0e-8, nstart=None, normalized=True, *, device="auto"):
    """Hub and authority scores of every vertex.

    Power iteration from uniform hubs, as NetworkX's reference ``_hits_python``: each iteration
    pulls the authorities a = A^T h over the in-lists, then the hubs h = A a over the out-lists,
    and scales both to a maximum of 1.

    Parameters
    ----------
    G : Graph
        Edge weights, where G has them, weigh the arcs (as NetworkX reads ``"weight"``); parallel
        arcs add up. An undirected graph's edges run both ways, so its hubs equal its authorities.
    max_iter : int, default 100
        Most iterations.
    tol : float, default 1e-8
        Stop when the L1 change of the hubs (each scaled to a maximum of 1) is below `tol`.
        ``tol=0`` runs exactly `max_iter` iterations (for benchmarks) and never raises.
    nstart : dict or array, optional
        Starting hub values: a dict keyed by the caller's vertex ids (or, on a labelled graph,
        labels; missing vertices get 0), or an array over the caller's ids; normalised to sum 1.
        Uniform if None.
    normalized : bool, default True
        Scale the hubs and the authorities to sum to 1; else each has a maximum of 1.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. Both iterate in float64.

    Returns
    -------
    HITSResult
        ``hubs`` and ``authorities`` (float64, caller ids; CuPy arrays on the GPU); ``iterations``
        and the last change in ``stats["error"]``.

    Raises
    ------
    InvalidArgumentError
        `max_iter` below 1, `tol` negative or not finite, or `nstart` of the wrong length, with
        negative values or a zero sum; on the CPU, scores that became all 0 or NaN (weights of 0,
        an `nstart` only on vertices without out-arcs).
    VertexNotFoundError
        An `nstart` key that is neither a vertex id nor a label of G.
    InvalidWeightError
        A weight is negative, NaN or infinite, naming its arc.
    PowerIterationFailedConvergence
        The change stayed at or above `tol` for `max_iter` iterations (``tol > 0``).
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.salsa : the random-walk cousin of HITS.
    networkx.hits

    Notes
    -----
    After Kleinberg (JACM 1999). ``networkx.hits`` computes the same vectors with ARPACK's SVD
    (the leading singular vectors of A). Each iteration reads every arc twice:
    O(max_iter * (n + m)). The iteration converges at the rate of the ratio of the two largest
    eigenvalues of A^T A; where the largest is repeated (two alike components, say) the scores are
    one of its eigenvectors, which may differ from NetworkX's. A graph without arcs has uniform
    scores (NetworkX gives NaN).

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1], [1, 2, 2])
    >>> r = gravel.hits(G, device="cpu")
    >>> r.hubs.round(3).tolist(), r.authorities.round(3).tolist()
    ([0.618, 0.382, 0.0], [0.0, 0.382, 0.618])
    """
    if not is_integer(max_iter) or max_iter < 1:
        raise InvalidArgumentError(f"max_iter must be an integer of at least 1, not {max_iter!r}")
    if not is_real(tol) or not (math.isfinite(tol) and tol >= 0):
        raise InvalidArgumentError(f"tol must be a finite number >= 0, not {tol!r}")
    check_weights(G, name="hits")
    start = distribution(G, nstart, "nstart")
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "hits")](
        G, int(max_iter), float(tol), start
    )
    if normalized:
        res.hubs /= res.hubs.sum()
        res.authorities /= res.authorities.sum()
    res.hubs, res.authorities = to_caller(G, res.hubs), to_caller(G, res.authorities)
    return res


def _uniform(G, device, m):
    """The scores of a graph without arcs: uniform (array module `m`)."""
    h = m.full(G.n, 1.0 / max(G.n, 1))
    return HITSResult("hits", device, 0.0, 0, "power", {"error": 0.0}, hubs=h, authorities=h.copy())


def _not_converged(max_iter, err, tol):
    return PowerIterationFailedConvergence(
        f"hits did not converge in {max_iter} iterations (last L1 change {err:.3g}, tol {tol:.3g})"
    )


def _hits_cpu(G, max_iter, tol, start):
    n = G.n
    if G.nnz == 0:
        return _uniform(G, "cpu", np)
    h = np.full(n, 1.0 / n) if start is None else start
    a = np.empty(n)
    in_off, in_idx, in_w = G.csc()
    last = np.empty(n)
    k = _k.kernels(G.nnz)
    with Timer() as t:
        for it in range(1, max_iter + 1):
            h, last = last, h
            k.gather(in_off, in_idx, in_w, last, a)
            k.gather(G.offsets, G.indices, G.weights, a, h)
            err = k.scale(h, a, last)
            if not math.isfinite(err):
                raise _all_zero(it)
            if err < tol:
                break
        else:
            if tol > 0:
                raise _not_converged(max_iter, err, tol)
    return HITSResult("hits", "cpu", t.seconds, it, "power", {"error": err}, hubs=h, authorities=a)


def _hits_cuda(G, max_iter, tol, start):
    """The CPU path's iteration on the GPU, in float64: the authorities pull the hubs over the
    in-lists (a sum neighbor_reduce over the graph), the hubs pull the authorities over the
    out-lists (the same over its reverse), each times the arc's weight. The host reads each
    iteration's L1 change (a sync) to stop."""
    import cupy

    from ..operators import neighbor_reduce

    n = G.n
    if G.nnz == 0:
        return _uniform(G, "cuda", cupy)
    dg = G.to("cuda")
    rev = dg.reverse()
    h = cupy.full(n, 1.0 / n) if start is None else cupy.asarray(start, cupy.float64)
    value = "x[u] * weight"  # weight is 1 on an unweighted graph

    def gather(graph, x):
        return neighbor_reduce(graph, None, value, "sum", dtype=np.float64, params={"x": x})

    with Timer("cuda") as t:
        for it in range(1, max_iter + 1):
            a = gather(dg, h)
            last, h = h, gather(rev, a)
            h /= h.max()
            a /= a.max()
            err = float(cupy.abs(h - last).sum())  # sync; NaN where a largest entry was 0
            if not math.isfinite(err):
                raise _all_zero(it)
            if err < tol:
                break
        else:
            if tol > 0:
                raise _not_converged(max_iter, err, tol)
    return HITSResult("hits", "cuda", t.seconds, it, "power", {"error": err}, hubs=h, authorities=a)


def _all_zero(iteration):
    return InvalidArgumentError(
        f"hits: every hub or every authority is 0 or NaN after iteration {iteration} (weights"
        " of 0, or an nstart only on vertices without out-arcs)"
    )


def verify_hits(G, hubs, authorities, *, rtol=1e-5):
    """Check HITS scores by the eigenvector property, with SciPy: the authorities `a` satisfy
    A^T A a = s^2 a and the hubs are A a, up to a factor, where s is A's largest singular value
    (dense SVD up to 512 vertices, ARPACK's ``svds`` above). Scores must be finite and
    non-negative.

    Parameters
    ----------
    G : Graph
    hubs : array_like
        The hub scores, over the caller's ids, on the host.
    authorities : array_like
        The authority scores, likewise.
    rtol : float, default 1e-5
        Relative tolerance of both checks (scaled by sqrt(n)).

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the scores pass.
    """
    from scipy.sparse.linalg import svds

    hubs, a = np.asarray(hubs, np.float64), np.asarray(authorities, np.float64)
    if not (np.all(np.isfinite(hubs)) and np.all(np.isfinite(a))):
        return ["scores are not all finite"]
    if np.any(hubs < 0) or np.any(a < 0):
        return ["negative scores"]
    if G.nnz == 0 or not a.any():
        return [] if G.nnz == 0 else ["all authorities are zero on a graph with arcs"]
    order = G.order if G.order is not None else np.arange(G.n)
    A = G.to_scipy()[order][:, order]  # in the caller's ids
    if G.n <= 512:
        s = np.linalg.svd(A.toarray(), compute_uv=False)[0]
    else:
        s = svds(A.astype(np.float64), k=1, return_singular_vectors=False)[0]
    a = a / np.linalg.norm(a)
    Aa = A @ a
    problems = []
    if np.linalg.norm(A.T @ Aa - s * s * a) > rtol * s * s * math.sqrt(G.n):
        problems.append(f"authorities are not a leading eigenvector of A^T A (s^2 = {s * s:.6g})")
    h = hubs / max(np.linalg.norm(hubs), 1e-300)
    if np.linalg.norm(h - Aa / np.linalg.norm(Aa)) > rtol * math.sqrt(G.n):
        problems.append("hubs are not proportional to A times the authorities")
    return problems


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _hits_cpu, "cuda": _hits_cuda}

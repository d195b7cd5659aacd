"""Eigenvector centrality, by NetworkX's power iteration (``networkx.eigenvector_centrality``).

Each iteration pulls x + A^T x over the in-lists (one gather, no atomics: the CPU kernel is HITS's,
backends/cpu/hits.py; on the GPU a pull neighbor_reduce, as HITS's GPU path), then scales it to a
Euclidean norm of 1. It stops when the L1 change is below ``n * tol``, NetworkX's rule. The pulled
product and the result class are shared with Katz centrality (:mod:`gravel.algorithms.katz`).
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
class CentralityResult(Result):
    """A centrality score per vertex, as :func:`eigenvector_centrality` and
    :func:`gravel.katz_centrality` return it.

    Attributes
    ----------
    centrality : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids (a CuPy array from the GPU path).
    stats : dict
        ``"error"``: the L1 change in the last iteration.
    """

    vertex_arrays = ("centrality",)

    centrality: np.ndarray = None


def check_iteration(max_iter, tol):
    """Refuse a `max_iter` below 1 or a `tol` that is not a finite number >= 0.

    Parameters
    ----------
    max_iter : int
        Most iterations.
    tol : float
        The stopping tolerance.

    Raises
    ------
    InvalidArgumentError
        Naming the value at fault.
    """
    if not is_integer(max_iter) or max_iter < 1:
        raise InvalidArgumentError(f"max_iter must be an integer of at least 1, not {max_iter!r}")
    if not is_real(tol) or not (math.isfinite(tol) and tol >= 0):
        raise InvalidArgumentError(f"tol must be a finite number >= 0, not {tol!r}")


def pulled_product(G, weighted, device):
    """The product x -> A^T x over G's in-lists, on `device`'s arrays.

    Parameters
    ----------
    G : Graph
    weighted : bool
        Weigh each arc by its weight (G's weights where it has them, else 1).
    device : {"cpu", "cuda"}

    Returns
    -------
    callable
        Of a float64 array over the internal ids (NumPy on the CPU, CuPy on the GPU), giving
        ``y[v] = sum of weight(u, v) * x[u]`` over v's in-arcs, a new array of the same kind.
    """
    weighted = weighted and G.weighted
    if device == "cpu":
        in_off, in_idx, in_w = G.csc()
        w = in_w if weighted else None
        gather = _k.kernels(G.nnz).gather

        def product(x):
            y = np.empty_like(x)
            gather(in_off, in_idx, w, x, y)
            return y

        return product
    from ..operators import neighbor_reduce

    dg = G.to("cuda")
    value = "x[u] * weight" if weighted else "x[u]"
    return lambda x: neighbor_reduce(dg, None, value, "sum", dtype=np.float64, params={"x": x})


def not_converged(name, max_iter, err, limit):
    """The exception of a power iteration that ran out of iterations.

    Parameters
    ----------
    name : str
        The algorithm, for the message.
    max_iter : int
        The iterations run.
    err : float
        The last L1 change.
    limit : float
        The change it had to fall below.

    Returns
    -------
    PowerIterationFailedConvergence
    """
    return PowerIterationFailedConvergence(
        f"{name} did not converge in {max_iter} iterations (last L1 change {err:.3g}, "
        f"needed below {limit:.3g})"
    )


@takes_graph
def eigenvector_centrality(
    G, max_iter=100, tol=1.0e-6, nstart=None, weight=False, *, device="auto"
):
    """Eigenvector centrality of every vertex, by NetworkX's power iteration.

    Each iteration takes x + A^T x (every vertex adds the scores of its in-neighbours, weighted,
    to its own) and scales it to a Euclidean norm of 1, as ``networkx.eigenvector_centrality``
    does; the shift by x keeps bipartite graphs from oscillating.

    Parameters
    ----------
    G : Graph
        An undirected graph's edges run both ways; parallel arcs add up.
    max_iter : int, default 100
        Most iterations.
    tol : float, default 1e-6
        Stop when the L1 change of the scores is below ``n * tol`` (NetworkX's rule). ``tol=0``
        runs exactly `max_iter` iterations (for benchmarks) and never raises.
    nstart : dict or array, optional
        Starting values: a dict keyed by the caller's vertex ids (or, on a labelled graph,
        labels; missing vertices get 0), or an array over the caller's ids; normalised to sum 1.
        Uniform if None.
    weight : bool, default False
        Weigh each arc by its weight (NetworkX's default reads no weights).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. Both iterate in float64.

    Returns
    -------
    CentralityResult
        ``centrality`` (float64, caller ids, Euclidean norm 1; a CuPy array on the GPU),
        ``iterations`` and the last change in ``stats["error"]``.

    Raises
    ------
    InvalidArgumentError
        `max_iter` below 1, `tol` negative or not finite, G without vertices, or `nstart` of the
        wrong length, with negative values or a zero sum.
    VertexNotFoundError
        An `nstart` key that is neither a vertex id nor a label of G.
    InvalidWeightError
        With `weight`, a weight that is negative, NaN or infinite, naming its arc.
    PowerIterationFailedConvergence
        The change stayed at or above ``n * tol`` for `max_iter` iterations (``tol > 0``).
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.katz_centrality : the same product with a damping and a constant term.
    networkx.eigenvector_centrality

    Notes
    -----
    After Bonacich (1987). Each iteration reads every arc once: O(max_iter * (n + m)). The
    iteration converges at the rate of the ratio of the two largest eigenvalues of I + A^T; where
    the largest is repeated (two alike components, say) the scores are one of its eigenvectors,
    as NetworkX's are. A graph without arcs keeps its start (uniform, scaled).

    Examples
    --------
    >>> import gravel
    >>> G = gravel.generate.grid(1, 3)  # the path 0 - 1 - 2
    >>> gravel.eigenvector_centrality(G, device="cpu").centrality.round(3).tolist()
    [0.5, 0.707, 0.5]
    """
    check_iteration(max_iter, tol)
    if G.n == 0:
        raise InvalidArgumentError("eigenvector centrality of a graph without vertices")
    if weight:
        check_weights(G, name="eigenvector_centrality")
    start = distribution(G, nstart, "nstart")
    dev = choose_device(device, IMPLEMENTATIONS, "eigenvector_centrality")
    res = IMPLEMENTATIONS[dev](G, int(max_iter), float(tol), start, bool(weight))
    res.centrality = to_caller(G, res.centrality)
    return res


def _eigenvector(G, max_iter, tol, start, weighted, device, m):
    """The power iteration on `device` with array module `m`, from `start` (None: uniform)."""
    product = pulled_product(G, weighted, device)
    x = m.full(G.n, 1.0 / G.n) if start is None else m.asarray(start, dtype=m.float64)
    limit = G.n * tol
    with Timer(device) as t:
        for it in range(1, max_iter + 1):
            last = x
            x = last + product(last)
            norm = float(m.sqrt((x * x).sum()))  # the host reads it: a sync on the GPU
            x /= norm or 1.0
            err = float(m.abs(x - last).sum())
            if err < limit:
                break
        else:
            if tol > 0:
                raise not_converged("eigenvector_centrality", max_iter, err, limit)
    return CentralityResult(
        "eigenvector_centrality", device, t.seconds, it, "power", {"error": err}, centrality=x
    )


def _eigenvector_cpu(G, max_iter, tol, start, weighted):
    return _eigenvector(G, max_iter, tol, start, weighted, "cpu", np)


def _eigenvector_cuda(G, max_iter, tol, start, weighted):
    import cupy

    return _eigenvector(G, max_iter, tol, start, weighted, "cuda", cupy)


def verify_eigenvector(G, centrality, *, weight=False, rtol=1e-3):
    """Check eigenvector centrality by the eigenvector property: the scores x, non-negative with a
    Euclidean norm of 1, satisfy A^T x = s x for A's largest eigenvalue s (dense up to 512
    vertices, ARPACK's ``eigs`` above).

    Parameters
    ----------
    G : Graph
    centrality : array_like
        The scores, over the caller's ids, on the host.
    weight : bool, default False
        Whether the scores weighed the arcs (A holds G's weights, else ones).
    rtol : float, default 1e-3
        Relative tolerance of the residual (scaled by s).

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the scores pass.
    """
    x = np.asarray(centrality, np.float64)
    if not np.all(np.isfinite(x)):
        return ["scores are not all finite"]
    if np.any(x < -rtol):
        return ["negative scores"]
    if abs(np.linalg.norm(x) - 1) > rtol:
        return [f"the scores' Euclidean norm is {np.linalg.norm(x):.6g}, not 1"]
    if G.nnz == 0:
        return []
    A = caller_matrix(G, weight).T
    s = _largest_eigenvalue(A)
    if np.linalg.norm(A @ x - s * x) > rtol * max(s, 1.0):
        return [f"scores are not a leading eigenvector of A^T (eigenvalue {s:.6g})"]
    return []


def caller_matrix(G, weight):
    """G's adjacency matrix in the caller's ids, SciPy CSR of float64.

    Parameters
    ----------
    G : Graph
    weight : bool
        Hold G's weights (where it has them); else each arc is 1.

    Returns
    -------
    scipy.sparse.csr_matrix
        Entry (u, v) sums the arcs u -> v (an undirected edge both ways).
    """
    order = G.order if G.order is not None else np.arange(G.n)
    A = G.to_scipy().astype(np.float64)
    if not weight:
        A.data[:] = 1.0
    return A[order][:, order].tocsr()


def _largest_eigenvalue(A):
    """The largest real eigenvalue of a non-negative square matrix (its spectral radius)."""
    from scipy.sparse.linalg import eigs

    if A.shape[0] <= 512:
        return float(np.max(np.linalg.eigvals(A.toarray()).real))
    return float(eigs(A, k=1, which="LR", return_eigenvectors=False)[0].real)


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _eigenvector_cpu, "cuda": _eigenvector_cuda}

"""Katz centrality, by NetworkX's power iteration (``networkx.katz_centrality``).

Each iteration pulls alpha A^T x + beta over the in-lists (the product of eigenvector centrality,
:func:`gravel.algorithms.eigenvector.pulled_product`), from zeros or a given start, and stops
when the L1 change is below ``n * tol``, NetworkX's rule; the scores are then scaled to a
Euclidean norm of 1 where asked.
"""

import math
from dataclasses import dataclass

import numpy as np

from ..arguments import is_real
from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import InvalidArgumentError
from ..results import Timer
from ..transform import check_weights
from ._vectors import per_vertex
from .eigenvector import (
    CentralityResult,
    caller_matrix,
    check_iteration,
    not_converged,
    pulled_product,
)


@dataclass
class KatzResult(CentralityResult):
    """What :func:`katz_centrality` returns: :class:`CentralityResult`'s fields and the damping.

    Attributes
    ----------
    alpha : float
        The damping used (the default's value where none was given).
    """

    alpha: float = None


@takes_graph
def katz_centrality(
    G,
    alpha=None,
    beta=1.0,
    max_iter=1000,
    tol=1.0e-6,
    nstart=None,
    normalized=True,
    weight=False,
    *,
    device="auto",
):
    """Katz centrality of every vertex, by NetworkX's power iteration.

    Each iteration takes alpha A^T x + beta (every vertex adds its in-neighbours' scores, weighted
    and damped by `alpha`, to its own `beta`), as ``networkx.katz_centrality`` does.

    Parameters
    ----------
    G : Graph
        An undirected graph's edges run both ways; parallel arcs add up.
    alpha : float, optional
        The damping; the iteration converges where it is below 1 / the largest eigenvalue of A.
        Default: 1 / (1 + the largest weighted in-degree), which is (a bound of that eigenvalue);
        NetworkX's default is 0.1.
    beta : float, dict or array, default 1.0
        The constant term: one number, or one per vertex (a dict keyed by the caller's vertex ids
        or labels, missing vertices 0, or an array over the caller's ids).
    max_iter : int, default 1000
        Most iterations.
    tol : float, default 1e-6
        Stop when the L1 change of the scores is below ``n * tol`` (NetworkX's rule). ``tol=0``
        runs exactly `max_iter` iterations (for benchmarks) and never raises.
    nstart : dict or array, optional
        Starting values, read as `beta` is (not normalised). Zeros if None.
    normalized : bool, default True
        Scale the scores to a Euclidean norm of 1 (all-zero scores stay as they are).
    weight : bool, default False
        Weigh each arc by its weight (NetworkX's default reads no weights).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. Both iterate in float64.

    Returns
    -------
    KatzResult
        ``centrality`` (float64, caller ids; a CuPy array on the GPU), the ``alpha`` used,
        ``iterations`` and the last change in ``stats["error"]``.

    Raises
    ------
    InvalidArgumentError
        `max_iter` below 1, `tol` negative or not finite, `alpha` not a finite number, or `beta`
        or `nstart` not finite, or of the wrong length.
    VertexNotFoundError
        A `beta` or `nstart` key that is neither a vertex id nor a label of G.
    InvalidWeightError
        With `weight`, a weight that is negative, NaN or infinite, naming its arc.
    PowerIterationFailedConvergence
        The change stayed at or above ``n * tol`` for `max_iter` iterations (``tol > 0``), or the
        scores overflowed (`alpha` too large).
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.eigenvector_centrality : the undamped product.
    networkx.katz_centrality

    Notes
    -----
    After Katz (1953). Each iteration reads every arc once: O(max_iter * (n + m)). Where it
    converges, the scores solve (I - alpha A^T) x = beta.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.generate.grid(1, 3)  # the path 0 - 1 - 2
    >>> gravel.katz_centrality(G, 0.1, device="cpu").centrality.round(3).tolist()
    [0.56, 0.611, 0.56]
    """
    check_iteration(max_iter, tol)
    if weight:
        check_weights(G, name="katz_centrality")
    if alpha is None:
        alpha = 1 / (1 + _largest_in_sum(G, weight))
    if not is_real(alpha) or not math.isfinite(alpha):
        raise InvalidArgumentError(f"alpha must be a finite number, not {alpha!r}")
    if is_real(beta):
        if not math.isfinite(beta):
            raise InvalidArgumentError(f"beta must be finite, not {beta!r}")
        b = float(beta)
    else:
        b = per_vertex(G, beta, "beta")
    start = per_vertex(G, nstart, "nstart")
    dev = choose_device(device, IMPLEMENTATIONS, "katz_centrality")
    res = IMPLEMENTATIONS[dev](
        G, float(alpha), b, int(max_iter), float(tol), start, bool(normalized), bool(weight)
    )
    res.centrality = to_caller(G, res.centrality)
    res.alpha = float(alpha)
    return res


def _largest_in_sum(G, weight):
    """The largest weighted in-degree (in-degree where not `weight`), which bounds A's spectral
    radius: the largest column sum of A is a matrix norm."""
    if weight and G.weighted:
        sums = np.bincount(G.indices, weights=G.weights, minlength=G.n)
        return float(sums.max(initial=0.0))
    return float(G.in_degree.max(initial=0))


def _katz(G, alpha, beta, max_iter, tol, start, normalized, weighted, device, m):
    """The iteration on `device` with array module `m` (none without vertices)."""
    if G.n == 0:
        stats = {"error": 0.0}
        return KatzResult("katz_centrality", device, 0.0, 0, "power", stats, centrality=m.zeros(0))
    product = pulled_product(G, weighted, device)
    beta = beta if isinstance(beta, float) else m.asarray(beta)
    x = m.zeros(G.n) if start is None else m.asarray(start, dtype=m.float64)
    limit = G.n * tol
    # a diverging iteration overflows to inf, which ends it below: no warning on the way
    with Timer(device) as t, np.errstate(over="ignore", invalid="ignore"):
        for it in range(1, max_iter + 1):
            last = x
            x = alpha * product(last) + beta
            err = float(m.abs(x - last).sum())  # the host reads it: a sync on the GPU
            if not math.isfinite(err):
                raise not_converged("katz_centrality", it, err, limit)
            if err < limit:
                break
        else:
            if tol > 0:
                raise not_converged("katz_centrality", max_iter, err, limit)
        if normalized:
            x /= float(m.sqrt((x * x).sum())) or 1.0
    return KatzResult(
        "katz_centrality", device, t.seconds, it, "power", {"error": err}, centrality=x
    )


def _katz_cpu(G, alpha, beta, max_iter, tol, start, normalized, weighted):
    return _katz(G, alpha, beta, max_iter, tol, start, normalized, weighted, "cpu", np)


def _katz_cuda(G, alpha, beta, max_iter, tol, start, normalized, weighted):
    import cupy

    return _katz(G, alpha, beta, max_iter, tol, start, normalized, weighted, "cuda", cupy)


def verify_katz(G, centrality, *, alpha=None, weight=False, rtol=1e-3):
    """Check Katz scores by their equation: x - alpha A^T x is a constant vector c (beta times
    the normalisation), with SciPy; `centrality` must be finite.

    Parameters
    ----------
    G : Graph
    centrality : array_like
        The scores (with a constant `beta`), over the caller's ids, on the host.
    alpha : float, optional
        The damping used; default :func:`katz_centrality`'s.
    weight : bool, default False
        Whether the scores weighed the arcs.
    rtol : float, default 1e-3
        Relative tolerance of the residual.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the scores pass.
    """
    x = np.asarray(centrality, np.float64)
    if not np.all(np.isfinite(x)):
        return ["scores are not all finite"]
    if alpha is None:
        alpha = 1 / (1 + _largest_in_sum(G, weight))
    r = x - alpha * (caller_matrix(G, weight).T @ x)
    c = r.mean() if len(r) else 0.0
    if np.abs(r - c).max(initial=0.0) > rtol * max(abs(c), np.abs(x).max(initial=0.0), 1e-300):
        return [f"x - alpha A^T x is not constant (alpha {alpha:.6g}): not Katz scores"]
    return []


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _katz_cpu, "cuda": _katz_cuda}

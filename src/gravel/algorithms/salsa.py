"""SALSA hubs and authorities (Lempel and Moran, WWW 2000), the random-walk cousin of HITS that
Gunrock's who-to-follow ranks with.

An authority's score is the stationary probability of the walk that goes back along a random in-arc
to a hub and forward along a random out-arc of that hub, started uniformly over the authorities
(the vertices with in-arcs); a hub's, of the walk the other way round, started uniformly over the
hubs (the vertices with out-arcs). Lempel and Moran show a walk keeps to a connected component of
the hub-authority graph (a copy of each vertex on each side, an edge per arc) and, inside one,
settles in proportion to the degrees: so ``a[v] = |A_C| / |A| * indeg(v) / indeg(C)`` for v's
component C, and ``h[u] = |H_C| / |H| * outdeg(u) / outdeg(C)``. That closed form is exact and takes
one pass and a parallel union-find over the arcs (backends/cpu/salsa.py), where a power iteration
would take as many passes as the walk needs to mix; the verifier checks each side is its walk's
fixed point.
"""

from dataclasses import dataclass

import numpy as np

from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import InvalidGraphError
from ..results import Result, Timer
from ..transform import check_weights


@dataclass
class SALSAResult(Result):
    """SALSA hub and authority scores, as :func:`salsa` returns them.

    Attributes
    ----------
    hubs : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids (a CuPy array from the GPU path): summing to 1
        over the vertices with out-arcs, 0 elsewhere.
    authorities : numpy.ndarray or cupy.ndarray
        float64 per vertex, over the caller's ids: summing to 1 over the vertices with in-arcs, 0
        elsewhere.
    """

    hubs: np.ndarray = None

    vertex_arrays = ("hubs", "authorities")
    authorities: np.ndarray = None


@takes_graph
def salsa(G, *, weight=True, device="auto"):
    """SALSA hub and authority scores of every vertex.

    Parameters
    ----------
    G : Graph
        An undirected graph's edges run both ways (its hubs then equal its authorities).
        Weights, where G has them and `weight` is true, weigh the arcs (the walk takes an arc
        with probability proportional to its weight); parallel arcs add up.
    weight : bool, default True
        Use G's weights where it has them; else every arc weighs 1.
    device : {"auto", "cpu", "cuda"}, default "auto"
        The same closed form on either; "auto" is the GPU where one is available.

    Returns
    -------
    SALSAResult
        ``hubs`` and ``authorities`` (float64, caller ids; CuPy arrays on the GPU), each summing
        to 1 over the vertices with out-arcs (in-arcs); 0 elsewhere, and everywhere on a graph
        without arcs.

    Raises
    ------
    InvalidWeightError
        A weight is negative, NaN or infinite (weights in use).
    InvalidGraphError
        G has 2**30 vertices or more (its 2n copies need 32-bit ids).
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.hits
    gravel.who_to_follow : ranks with SALSA's authorities.

    Notes
    -----
    Lempel and Moran (WWW 2000). An authority's score is the stationary probability of the walk
    that goes back along a random in-arc to a hub and forward along a random out-arc of that hub,
    started uniformly over the authorities; a hub's, of the walk the other way round. A walk keeps
    to a connected component C of the hub-authority graph and settles there in proportion to the
    degrees, so ``a[v] = |A_C| / |A| * indeg(v) / indeg(C)`` and
    ``h[u] = |H_C| / |H| * outdeg(u) / outdeg(C)``: one pass and a union-find over the arcs,
    where a power iteration would take as many passes as the walk needs to mix.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 3], [1, 2, 2, 4])
    >>> r = gravel.salsa(G, device="cpu")
    >>> r.authorities.round(3).tolist(), r.hubs.round(3).tolist()
    ([0.0, 0.222, 0.444, 0.0, 0.333], [0.444, 0.222, 0.0, 0.333, 0.0])
    """
    weighted = bool(weight) and G.weighted
    if weighted:
        check_weights(G, name="salsa")
    if 2 * G.n >= 2**31:
        raise InvalidGraphError(f"salsa: 2n = {2 * G.n} hub and authority copies need 32-bit ids")
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "salsa")](G, weighted)
    res.hubs, res.authorities = to_caller(G, res.hubs), to_caller(G, res.authorities)
    return res


def _salsa_cpu(G, weighted):
    from ..backends.cpu import cc as _cc
    from ..backends.cpu import hits as _hits
    from ..backends.cpu import salsa as _k

    n = G.n
    with Timer() as t:
        w = G.weights if weighted else None
        out_deg = np.empty(n)
        _hits.kernels(G.nnz).gather(G.offsets, G.indices, w, np.ones(n), out_deg)
        in_deg = np.bincount(G.indices, weights=w, minlength=n).astype(np.float64)
        comp = np.arange(2 * n, dtype=np.int32)
        _k.kernels(G.nnz).link_sides(G.offsets, G.indices, comp)
        _cc.kernels(G.nnz).compress(comp)
        h, a = _scores(np, comp, out_deg, in_deg)
    kind = "closed form, " + ("weighted" if weighted else "unweighted")
    return SALSAResult("salsa", "cpu", t.seconds, 1, kind, hubs=h, authorities=a)


def _salsa_cuda(G, weighted):
    """The closed form on the GPU: an advance over every arc u -> v unions hub u with authority
    n + v (ECL-CC's union-find, as cc.py's), a compute points each copy at its root, and the
    degrees and shares are CuPy reductions."""
    import cupy

    from ..frontier import Frontier
    from ..operators import advance, compute
    from .cc import _UNION_FIND

    n = G.n
    if n == 0:
        return SALSAResult(
            "salsa", "cuda", 0.0, 1, "closed form", hubs=cupy.zeros(0), authorities=cupy.zeros(0)
        )
    dg = G.to("cuda")
    with Timer("cuda") as t:
        comp = cupy.arange(2 * n, dtype=cupy.int32)
        if G.nnz:
            params = {"comp": comp, "nv": np.int32(n)}
            link = "(gravel_union(comp, src, nv + dst), false)"
            advance(dg, Frontier.all(n), link, params=params, output=None, preamble=_UNION_FIND)
            compute(
                None,
                "comp[v] = gravel_root(comp, v)",
                params={"comp": comp},
                n=2 * n,
                preamble=_UNION_FIND,
            )
        w = dg.weights.astype(cupy.float64) if weighted else cupy.ones(G.nnz)
        ends = cupy.concatenate((cupy.zeros(1), cupy.cumsum(w)))
        out_deg = ends[dg.offsets[1:]] - ends[dg.offsets[:-1]]
        in_deg = cupy.bincount(dg.indices, weights=w, minlength=n).astype(cupy.float64)
        h, a = _scores(cupy, comp, out_deg, in_deg)
    kind = "closed form, " + ("weighted" if weighted else "unweighted")
    return SALSAResult("salsa", "cuda", t.seconds, 1, kind, hubs=h, authorities=a)


def _scores(xp, comp, out_deg, in_deg):
    """(hubs, authorities) from the components `comp` of the 2n hub and authority copies and the
    degrees: each side's scores are its component's share of that side's vertices, split by degree
    inside it. `xp` is the arrays' module (NumPy or CuPy)."""
    n = out_deg.shape[0]
    return _side(xp, comp[:n], out_deg), _side(xp, comp[n:], in_deg)


def _side(xp, comp, deg):
    """One side's scores: |S_C| / |S| * deg(v) / deg(C), S the vertices of degree > 0."""
    n = deg.shape[0]
    on = deg > 0
    share = xp.bincount(comp[on], minlength=2 * n) / max(int(on.sum()), 1)
    total = xp.bincount(comp, weights=deg, minlength=2 * n)
    return xp.where(on, share[comp] * deg / xp.maximum(total[comp], 1e-300), 0.0)


def verify_salsa(G, hubs, authorities, *, weight=True, rtol=1e-9):
    """Check SALSA's definition with SciPy, by the walks themselves: the authorities are a fixed
    point of one step back to the hubs and forward again (a = A^T D_out^-1 A D_in^-1 a, where A
    weighs the arcs), the hubs of the step the other way round (h = A D_in^-1 A^T D_out^-1 h), and
    each connected component of the hub-authority graph holds the share of each side's vertices
    it started with.

    Parameters
    ----------
    G : Graph
    hubs : array_like
        The hub scores, over the caller's ids, on the host.
    authorities : array_like
        The authority scores, likewise.
    weight : bool, default True
        Weigh the arcs by G's weights where it has them (parallel arcs add up); else 1 each.
    rtol : float, default 1e-9
        Relative tolerance of the fixed-point check.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the scores pass.
    """
    from scipy.sparse import bmat, csr_matrix
    from scipy.sparse.csgraph import connected_components as scipy_cc

    h, a = np.asarray(hubs, np.float64), np.asarray(authorities, np.float64)
    n = G.n
    if not (np.all(np.isfinite(h)) and np.all(np.isfinite(a))) or np.any(h < 0) or np.any(a < 0):
        return ["scores must be finite and non-negative"]
    w = G.weights if weight and G.weighted else np.ones(G.nnz)
    A = csr_matrix((np.asarray(w, np.float64), G.indices, G.offsets), shape=(n, n), copy=True)
    A.sum_duplicates()  # parallel arcs add up
    order = G.order if G.order is not None else np.arange(n)
    A = A[order][:, order].tocsr()  # in the caller's ids
    if A.nnz == 0:
        return [] if not (h.any() or a.any()) else ["scores on a graph without arcs"]
    out_deg, in_deg = np.asarray(A.sum(axis=1)).ravel(), np.asarray(A.sum(axis=0)).ravel()
    problems = []
    _, comp = scipy_cc(bmat([[None, A], [A.T, None]]), directed=False)
    for name, x, back, deg, way in (
        ("authorities", a, in_deg, out_deg, A),
        ("hubs", h, out_deg, in_deg, A.T.tocsr()),
    ):
        middle = way @ np.divide(x, back, out=np.zeros(n), where=back > 0)
        step = way.T @ np.divide(middle, deg, out=np.zeros(n), where=deg > 0)
        if not np.allclose(step, x, rtol=rtol, atol=1e-15):
            problems.append(f"{name} are not a fixed point of their walk")
        side = comp[n:] if name == "authorities" else comp[:n]
        start = np.bincount(side[back > 0], minlength=comp.max() + 1) / (back > 0).sum()
        if not np.allclose(np.bincount(side, weights=x, minlength=start.size), start, atol=1e-12):
            problems.append(f"a component holds another share of the {name} than it started with")
    return problems


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _salsa_cpu, "cuda": _salsa_cuda}

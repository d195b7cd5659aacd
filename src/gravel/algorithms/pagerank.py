"""PageRank by power iteration, pulling over in-edges: NetworkX's iteration (:func:`pagerank` gives
it), stopped by default by a bound on the L1 change that does not loosen as the graph grows. The
CPU path iterates in float64; the GPU path keeps float32 ranks and sums in float64."""

import math
from dataclasses import dataclass

import numpy as np

from ..arguments import is_integer, is_real
from ..arrays import host
from ..backends.cpu import pagerank as _k
from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import (
    InvalidArgumentError,
    InvalidGraphError,
    InvalidWeightError,
    PowerIterationFailedConvergence,
    UnknownNameError,
)
from ..results import Result, Timer
from ..transform import caller_name, check_weights
from ._vectors import Vectors, distribution, uses_weights

#: the out-weights W(u) whose contributions rank / W(u) float32 holds as normal numbers (the GPU's)
FLOAT32_OUT_WEIGHTS = (2.0**-100, 2.0**80)
#: the default bound on the last iteration's L1 change: the result then lies within
#: alpha / (1 - alpha) * tol of the fixed point (docs/tuning.md, DEFAULT_TOL)
DEFAULT_TOL = 1e-6
#: the stopping rules: the L1 change below tol, or below n * tol as networkx.pagerank stops
STOPPING = ("absolute", "networkx")


@dataclass
class PageRankResult(Result):
    """PageRank's ``rank`` (caller ids; float64, float32 on the GPU). ``stats["error"]`` is the L1
    change of the last iteration, ``stats["changes"]`` the list of every iteration's (both paths
    compute it to test the stopping rule; :func:`gravel.plots.pagerank_convergence` plots it)."""

    vertex_arrays = ("rank",)

    rank: np.ndarray = None

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables, less ``changes`` (a list).

        Returns
        -------
        dict
        """
        out = super().summary()
        out.pop("changes", None)  # a list, not a fact of the summary
        return out


@takes_graph
def pagerank(
    G,
    alpha=0.85,
    personalization=None,
    max_iter=100,
    tol=DEFAULT_TOL,
    nstart=None,
    weight=True,
    dangling=None,
    *,
    stopping="absolute",
    direction="pull",
    blocking="auto",
    device="auto",
):
    """PageRank of every vertex (scores sum to 1), as ``networkx.pagerank`` defines it.

    Parameters
    ----------
    G : Graph
        An undirected edge counts in both directions, a self loop once, parallel arcs each.
    alpha : float, default 0.85
        Damping factor, in [0, 1].
    personalization : dict or array, optional
        Where the ``1 - alpha`` teleport goes: a dict from vertex to value (missing vertices get
        0), keyed by the caller's ids or, on a labelled graph, by labels as NetworkX keys it
        (:func:`gravel.dispatch.caller_id`), or an array of n values over the caller's
        ids; non-negative, normalized to sum 1. Default uniform.
    max_iter : int, default 100
        Most iterations; 0 returns the starting vector (only with ``tol=0``).
    tol : float, default 1e-6
        Stop when the L1 change of an iteration, ``sum(|x_new - x|)``, is below `tol` (below
        ``n * tol`` with ``stopping="networkx"``). ``tol=0`` runs exactly `max_iter` iterations
        (for benchmarks) and never raises. The GPU's float32 ranks round by some 1e-7 of their
        sum per sweep, so a `tol` much below 1e-6 may not be reached there.
    nstart : dict or array, optional
        Starting vector, as `personalization` takes it (normalized). Default uniform.
    weight : True, str or None, default True
        True (or an attribute name, as NetworkX's ``weight="weight"``: a Graph holds one weight
        array) uses the graph's weights when it has them: u passes its rank along each out-edge in
        proportion to the edge's weight. None or False ignores them (each out-edge an equal share).
        Weights must be finite and non-negative.
    dangling : dict or array, optional
        Where the rank of dangling vertices (zero out-weight) goes, as `personalization` takes it.
        Default: the personalization vector (uniform without one), as in NetworkX.
    stopping : {"absolute", "networkx"}, default "absolute"
        The stopping rule: the L1 change below `tol`, or below ``n * tol`` (NetworkX's rule).
    direction : {"pull", "push"}
        Pull sums over in-edges with no atomics; push (GPU only) adds along out-edges atomically.
    blocking : "auto", "streamed", None or int
        Cache blocking of the GPU sweep (:func:`gravel.operators.plan_sweep`): an int is the block
        width in vertices (unweighted pull: up to :func:`gravel.layouts.shared_width`, each block's
        ranks are staged in shared memory; wider blocks, and any weighted pull, read them through
        the L2); ``"auto"`` blocks where the ranks outgrow half the L2, the unweighted pull by the
        shared-memory width, a weighted pull and the push by a quarter of the L2 unless the hubs
        come first; the unweighted pull stages on smaller graphs too, from
        :data:`gravel.operators.sweep_plan.STAGE_FROM` vertices and STAGE_MIN_DEGREE arcs a vertex,
        unless the hubs come first. A pull over lists in host memory (placement "host" or "tiered")
        is not blocked: ``"auto"`` and ``"streamed"`` copy them to the device in chunks through the
        copy engines, None reads them over the bus. The blocked layout is built on the first sweep
        and kept with the graph's device copy; the result's ``strategy`` says how the sweep ran. The
        CPU path takes only "auto".
    device : {"auto", "cpu", "cuda"}, default "auto"

    Returns
    -------
    PageRankResult
        ``rank``: the scores over the caller's ids (float64 on the CPU, float32 on the GPU);
        ``iterations``: the iterations run; ``stats["error"]``: the L1 change of the last
        iteration (None when none ran); ``stats["changes"]``: the L1 change of each iteration.

    Raises
    ------
    InvalidArgumentError
        `alpha`, `max_iter` or `tol` out of range, ``max_iter=0`` with ``tol > 0``, or a vector
        with a negative or non-finite value, the wrong length, or a zero sum.
    VertexNotFoundError
        A dict key that is neither a vertex id nor a label of the graph.
    InvalidWeightError
        A negative or non-finite weight (with `weight` on); on the GPU, a vertex whose out-weight
        lies outside ``FLOAT32_OUT_WEIGHTS``.
    PowerIterationFailedConvergence
        No convergence within `max_iter` iterations (``tol > 0``).
    UnknownNameError
        `stopping`, `direction` or `device` is not one of its values.
    InvalidGraphError
        ``direction="push"`` or a `blocking` other than "auto" off the GPU.

    Notes
    -----
    Each iteration computes ``x_new = alpha * (x P + s * d) + (1 - alpha) * p``, where P moves
    ``x[u] * w(u, v) / W(u)`` along each arc (W(u) the sum of u's out-weights, or its out-degree),
    s is the rank of the dangling vertices, d the `dangling` vector and p the personalization.
    Iteration stops when ``sum(|x_new - x|) < tol`` (``< n * tol`` with ``stopping="networkx"``)
    and returns x_new. The distance to the fixed point is then at most about ``alpha / (1 - alpha)``
    times the last change: below 6e-6 (L1) at the default `tol`, within at most
    ``log(tol / 2) / log(alpha)`` iterations (about 90 at the defaults). NetworkX's rule, a mean
    change, loosens with n: on a million vertices it stops after a few iterations, far from
    converged. Each iteration reads every edge once: O(n + m) time.

    Examples
    --------
    >>> import gravel
    >>> gravel.pagerank(gravel.generate.grid(1, 2), device="cpu").rank.round(3).tolist()
    [0.5, 0.5]
    >>> G = gravel.Graph.from_edges([0, 0], [1, 2], [3.0, 1.0])
    >>> gravel.pagerank(G, personalization={0: 1}, device="cpu").rank.round(3).tolist()
    [0.541, 0.345, 0.115]
    """
    alpha, max_iter, tol = check_numbers(alpha, max_iter, tol)
    if stopping not in STOPPING:
        raise UnknownNameError(f"stopping must be 'absolute' or 'networkx', not {stopping!r}")
    if direction not in ("pull", "push"):
        raise UnknownNameError(f"direction must be 'pull' or 'push', not {direction!r}")
    weighted = uses_weights(G, weight)
    dev = choose_device(device, IMPLEMENTATIONS, "pagerank")
    if (blocking != "auto" or direction == "push") and dev != "cuda":
        raise InvalidGraphError(
            "push and blocking=None or a width are options of the GPU path (device='cuda')"
        )
    if weighted:
        check_weights(G, name="pagerank")
    vectors = Vectors()
    if G.n:
        p = distribution(G, personalization, "personalization")
        d = distribution(G, dangling, "dangling")
        vectors = Vectors(distribution(G, nstart, "nstart"), p, p if d is None else d)
    threshold = tol if stopping == "absolute" else G.n * tol
    args = (G, alpha, max_iter, threshold, weighted, vectors) + (
        (direction, blocking) if dev == "cuda" else ()
    )
    res = IMPLEMENTATIONS[dev](*args)
    res.rank = to_caller(G, res.rank)
    return res


def check_numbers(alpha, max_iter, tol):
    """alpha, max_iter and tol as float, int, float; InvalidArgumentError where one is out of its
    domain (max_iter=0 cannot meet a tol above 0).

    Parameters
    ----------
    alpha : float
        In [0, 1].
    max_iter : int
        At least 0.
    tol : float
        Finite and at least 0.

    Returns
    -------
    tuple of (float, int, float)

    Raises
    ------
    InvalidArgumentError
        Naming the argument at fault and its value.
    """
    if not is_real(alpha) or not 0 <= alpha <= 1:
        raise InvalidArgumentError(f"alpha must be a number in [0, 1], not {alpha!r}")
    if not is_real(tol) or not (math.isfinite(tol) and tol >= 0):
        raise InvalidArgumentError(f"tol must be a finite number >= 0, not {tol!r}")
    if not is_integer(max_iter):
        raise InvalidArgumentError(f"max_iter must be an integer, not {max_iter!r}")
    if max_iter < 0:
        raise InvalidArgumentError(f"max_iter must be at least 0, not {max_iter}")
    if max_iter == 0 and tol > 0:
        raise InvalidArgumentError(
            "max_iter=0 runs no iteration, so it cannot meet tol > 0: pass tol=0 for the "
            "starting vector"
        )
    return float(alpha), int(max_iter), float(tol)


def _pagerank_cpu(G, alpha, max_iter, threshold, weighted, vec):
    """Float64 power iteration, one pass per iteration (backends/cpu/pagerank.py, `iterate`): the
    pull sums the contributions x[u] / W(u) over each vertex's in-edges, writes the new ranks and
    the next contributions, and sums the dangling vertices' new rank and the L1 change. The
    contributions and dangling mass of the starting vector take a pass of their own."""
    n = G.n
    kind = "pull, weighted" if weighted else "pull"
    if n == 0:
        stats = {"error": None, "changes": []}
        return PageRankResult("pagerank", "cpu", 0.0, 0, kind, stats, rank=np.zeros(0))
    k = _k.kernels(G.nnz)
    in_off, in_idx, in_w = G.csc()
    out = k.out_weights(G.offsets, G.weights) if weighted else G.out_degree
    rank = np.full(n, 1.0 / n) if vec.start is None else vec.start.copy()
    # x_new = teleport + alpha * lost * dangling + alpha * (x P); a uniform vector is a stride-0
    # view of its one value, so the pull reads no n-long array for it
    if vec.teleport is None:
        teleport = np.broadcast_to((1.0 - alpha) / n, n)
    else:
        teleport = (1.0 - alpha) * vec.teleport
    dangling = np.broadcast_to(1.0 / n, n) if vec.dangling is None else vec.dangling
    new, contrib, nxt = np.empty(n), np.empty(n), np.empty(n)
    it, err, changes = 0, None, []
    edges = (in_off, in_idx, in_w if weighted else None)
    with Timer() as t:
        lost = k.contributions(rank, out, contrib)
        while it < max_iter:
            it += 1
            lost, err = k.iterate(
                *edges, out, contrib, teleport, dangling, alpha * lost, alpha, rank, new, nxt
            )
            changes.append(err)
            rank, new, contrib, nxt = new, rank, nxt, contrib
            if err < threshold:
                break
        else:
            if threshold > 0:
                raise PowerIterationFailedConvergence(
                    f"pagerank did not converge in {max_iter} iterations (last L1 change "
                    f"{err:.3g}, bound {threshold:.3g})"
                )
    stats = {"error": err, "changes": changes}
    return PageRankResult("pagerank", "cpu", t.seconds, it, kind, stats, rank=rank)


def _check_float32(G, out):
    """InvalidWeightError where a vertex's out-weight `out` lies outside FLOAT32_OUT_WEIGHTS (0
    aside)."""
    import cupy

    lo, hi = FLOAT32_OUT_WEIGHTS
    bad = cupy.flatnonzero((out > 0) & ((out < lo) | (out > hi)))
    if bad.size:  # sync
        v = int(bad[0])
        raise InvalidWeightError(
            f"pagerank on the GPU divides by each vertex's out-weight in float32, which needs it "
            f"in [2**-100, 2**80]: vertex {caller_name(G, v)}'s is {float(out[v]):.3g}; pass "
            "device='cpu'"
        )


def _pagerank_cuda(G, alpha, max_iter, threshold, weighted, vec, direction="pull", blocking="auto"):
    """PageRank on the GPU: per iteration one sweep sums contrib[u] = rank[u] / W(u) over every
    vertex's in-edges (times the edge's weight where weighted) and runs the update, which writes the
    new rank and the next contributions, and sums the dangling vertices' new rank and the L1 change
    (in the same pass where the sweep is blocked: _pull_sweep). The next sweep reads the dangling
    mass where this one left it, so the host never waits for an iteration before it launches the
    next: it reads each iteration's L1 change (copied to pinned memory) while the next one runs,
    and at convergence returns that iteration's ranks, which the one launched after it does not
    overwrite (it writes the other buffer). Float32 ranks, float64 sums. The sweep pulls (one
    neighbor_reduce with the update fused) or pushes (an advance adding atomically, then the
    update), either one blocked as GraphCage does (the unweighted pull by default with its blocks'
    ranks staged in shared memory; a weighted sweep's value reads the edge's weight, so its blocks
    go through the L2). Personalization and dangling vectors are device arrays the update reads."""
    import cupy
    import cupyx

    from ..operators import compute_sums, plan_sweep

    n = G.n
    kind = ", weighted" if weighted else ""
    if n == 0:
        rank = cupy.zeros(0, cupy.float32)
        stats = {"error": None, "changes": []}
        return PageRankResult("pagerank", "cuda", 0.0, 0, "pull" + kind, stats, rank=rank)
    dg = G.to("cuda")
    plan = plan_sweep(dg, blocking, stageable=direction == "pull" and not weighted)
    sweep = (_pull_sweep if direction == "pull" else _push_sweep)(dg, plan)
    out = dg.out_degree
    if weighted:
        _, sources, w = dg.csc()  # the sources of the in-edges: each arc's tail
        # float64 out-weights (cupy.bincount takes no empty array)
        out = cupy.bincount(sources, weights=w, minlength=n) if w.size else cupy.zeros(n)
        _check_float32(G, out)
    inv_deg = cupy.where(out > 0, 1.0 / cupy.maximum(out, 1e-300), 0.0).astype(cupy.float32)
    if vec.start is None:
        rank = cupy.full(n, 1.0 / n, cupy.float32)
    else:
        rank = cupy.asarray(vec.start, dtype=cupy.float32)
    new = cupy.empty_like(rank)
    contrib, nxt = rank * inv_deg, cupy.empty_like(rank)
    update, fixed = _update(alpha, n, vec, inv_deg)
    # the update's sums: the dangling vertices' new rank (the next update spreads it), the L1 change
    check = ["inv_deg[v] == 0.0f ? r : 0.0f", "fabsf(r - rank_in[v])"]
    seen, copied = cupyx.empty_pinned((2, 2), np.float64), [None, None]  # iteration k's: slot k % 2

    def change(k):
        """Iteration k's L1 change (waits for its copy, not for the iterations after it)."""
        copied[k % 2].synchronize()
        return float(seen[k % 2, 1])

    def value(x):
        """The sweep's value: x[u], or x[u] times the edge's weight (with x's own parameter)."""
        return ("contrib_in[u] * weight", {"contrib_in": x}) if weighted else x

    err, changes = None, []  # changes[k - 1]: iteration k's, read as the host reads it anyway
    with Timer("cuda") as t:
        # the first update's dangling mass: the check's own term, over the starting ranks
        sums = compute_sums(
            None,
            check[:1],
            op="float r = rank_in[v]",
            params={"rank_in": rank, "inv_deg": inv_deg},
            n=n,
        )
        it = 0
        while it < max_iter:
            it += 1
            params = fixed | {"lost": sums, "rank_in": rank, "rank_out": new, "contrib_out": nxt}
            sums = sweep(value(contrib), update, params, check)
            sums.get(out=seen[it % 2], blocking=False)
            copied[it % 2] = cupy.cuda.Event()
            copied[it % 2].record()
            rank, new, contrib, nxt = new, rank, nxt, contrib
            if it > 1:
                changes.append(err := change(it - 1))
                if err < threshold:
                    # the iteration before converged; this one wrote the other buffer
                    rank, it = new, it - 1
                    break
        else:
            if it:
                changes.append(err := change(it))
            if threshold > 0 and not err < threshold:
                raise PowerIterationFailedConvergence(
                    f"pagerank did not converge in {max_iter} iterations (last L1 change "
                    f"{err:.3g}, bound {threshold:.3g})"
                )
    strategy = f"{direction}, {plan}{kind}"
    stats = {"error": err, "changes": changes}
    return PageRankResult("pagerank", "cuda", t.seconds, it, strategy, stats, rank=rank)


def _update(alpha, n, vec, inv_deg):
    """The update statement (over v, the sum acc and the previous sweep's dangling mass lost[0])
    and its fixed parameters: r = (1 - alpha) * p[v] + alpha * (acc + lost * d[v]), with the
    uniform 1 / n folded into the constants where p or d is uniform (then the statement and the
    parameters are the unpersonalized sweep's own)."""
    import cupy

    fixed = {
        "inv_deg": inv_deg,
        "teleport": np.float64((1.0 - alpha) / (n if vec.teleport is None else 1)),
        "spread": np.float64(alpha / (n if vec.dangling is None else 1)),
        "alpha": np.float32(alpha),
    }
    teleport, spread = "teleport", "spread * lost[0]"
    if vec.teleport is not None:
        fixed["pers"] = cupy.asarray(vec.teleport, dtype=cupy.float32)
        teleport += " * (double)pers[v]"
    if vec.dangling is not None:
        same = vec.dangling is vec.teleport  # one array, read under both names
        fixed["dang"] = fixed["pers"] if same else cupy.asarray(vec.dangling, dtype=cupy.float32)
        spread += " * (double)dang[v]"
    update = (
        f"float r = (float)({teleport} + {spread}) + alpha * acc; rank_out[v] = r; "
        "contrib_out[v] = r * inv_deg[v]"
    )
    return update, fixed


def _pull_sweep(dg, plan):
    """sweep(x, apply, params, sums): reduce x[u] over every vertex's in-edges (x a value array, or
    a pair of an expression over u, v, edge, weight and its parameters) and run `apply` (a
    statement over v and the sum `acc`) as the sweep `plan` says; the device array of the `sums` of
    apply's terms. Blocked, the update and its sums come in the same pass. Unblocked, the pull
    writes the sums alone and a pass over the vertices runs the update and its sums, as after a
    push: sums fused into the unblocked pull cost more than a pass of their own (neighbor_reduce
    says why), and the update goes with them, leaving the pull the plain reduction's kernel."""
    from ..operators import neighbor_reduce

    def pull(x, apply, params, sums):
        x, own = x if isinstance(x, tuple) else (x, None)
        if plan.kind != "plain":
            every = params | (own or {})
            return neighbor_reduce(
                dg, None, x, "sum", apply=apply, sums=sums, params=every, blocking=plan
            )
        pulled = neighbor_reduce(dg, None, x, "sum", params=own)
        return _update_pass(pulled, apply, params, sums, dg.n)

    return pull


def _push_sweep(dg, plan):
    """sweep(x, apply, params, sums) by pushing: every out-edge u -> v adds x[u] (or x's
    expression, as _pull_sweep takes it) into v's sum atomically (neighbor_reduce, blocked by
    destination range as the plan says, so that a block's atomics stay in its L2-sized slice of the
    sums), then one pass over the vertices runs `apply` on each sum and sums its terms."""
    from ..operators import neighbor_reduce

    def push(x, apply, params, sums):
        value, own = x if isinstance(x, tuple) else (x, None)
        pushed = neighbor_reduce(
            dg, None, value, "sum", direction="push", blocking=plan, params=own
        )
        return _update_pass(pushed, apply, params, sums, dg.n)

    return push


def _update_pass(totals, apply, params, sums, n):
    """One pass over the vertices: `apply` on each vertex's sum in `totals`, and the `sums` of its
    terms (a device array)."""
    from ..operators import compute_sums

    op = f"float acc = g_totals[v]; {apply}"
    return compute_sums(None, sums, op=op, params={"g_totals": totals} | params, n=n)


def verify_pagerank(G, rank, alpha=0.85, tol=1e-6, *, weight=True):
    """One serial push step from `rank` (caller's ids; uniform teleport and dangling vectors) must
    leave it (almost) unchanged, as GAP's PRVerifier checks: the L1 change below ``2 * n * tol``.

    Parameters
    ----------
    G : Graph
    rank : array_like
    alpha, tol : float
    weight : True, str or None

    Returns
    -------
    list of str
    """
    n = G.n
    rank = np.asarray(host(rank), np.float64)
    if G.order is not None:
        internal = np.empty(n)
        internal[G.order] = rank
        rank = internal
    src, dst = G.edges()
    weighted = uses_weights(G, weight)
    w = G.weights.astype(np.float64) if weighted else np.ones(len(dst))
    out = np.bincount(src, weights=w, minlength=n)
    share = np.divide(rank, out, out=np.zeros(n), where=out > 0)
    nxt = np.bincount(dst, weights=w * share[src], minlength=n)
    dangling = rank[out == 0].sum()
    nxt = (1 - alpha) / n + alpha * (nxt + dangling / n)
    err = np.abs(nxt - rank).sum()
    return [] if err < 2 * n * tol else [f"one more iteration moves the ranks by {err:.3g} (L1)"]


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _pagerank_cpu, "cuda": _pagerank_cuda}

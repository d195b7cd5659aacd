"""PageRank by power iteration, pulling over in-edges.

Matches ``networkx.pagerank(G, alpha, weight=None)``: the rank of dangling vertices (no out-edges)
is spread uniformly, and iteration stops when the L1 change is below ``n * tol``."""

from dataclasses import dataclass

import numpy as np

from ..backends.cpu import pagerank as _k
from ..errors import GravelError, InvalidGraphError, UnknownNameError
from ._common import Result, Timer, choose_device, to_caller


class PowerIterationFailedConvergence(GravelError, RuntimeError):
    """PageRank did not reach `tol` within `max_iter` iterations."""


@dataclass
class PageRankResult(Result):
    rank: np.ndarray = None


def pagerank(
    G, alpha=0.85, *, max_iter=100, tol=1e-6, direction="pull", blocking="auto", device="auto"
):
    """PageRank of every vertex (scores sum to 1).

    Parameters
    ----------
    G : Graph
        Weights are ignored; an undirected edge counts in both directions.
    alpha : float, default 0.85
        Damping factor.
    max_iter : int, default 100
    tol : float, default 1e-6
        Stop when ``sum(|x_new - x|) < n * tol`` (NetworkX's rule: a mean change below `tol`, which
        large graphs meet after very few iterations). ``tol=0`` runs exactly `max_iter` iterations
        (for benchmarks) and never raises.
    direction : {"pull", "push"}
        Pull sums over in-edges with no atomics; push (GPU only) adds along out-edges atomically.
    blocking : "auto", None or int
        Cache blocking of the GPU sweep (:func:`gravel.operators.plan_sweep`): an int is the block
        width in vertices (pull: up to :func:`gravel.layouts.shared_width`, each block's ranks are
        staged in shared memory; wider blocks read them through the L2); ``"auto"`` blocks where the
        ranks outgrow half the L2, pull by the shared-memory width, push by a quarter of the L2
        unless the hubs come first. The blocked layout is built on the first sweep and kept with the
        graph's device copy; the result's ``strategy`` says how the sweep ran. The CPU path takes
        only "auto".
    device : {"auto", "cpu", "cuda"}

    Raises
    ------
    PowerIterationFailedConvergence
        No convergence within `max_iter` iterations.

    Examples
    --------
    >>> import gravel
    >>> r = gravel.pagerank(gravel.generate.grid(1, 2), device="cpu")
    >>> [round(x, 3) for x in r.rank]
    [0.5, 0.5]
    """
    if not 0 <= alpha <= 1:
        raise InvalidGraphError(f"alpha must lie in [0, 1], not {alpha}")
    if direction not in ("pull", "push"):
        raise UnknownNameError(f"direction must be 'pull' or 'push', not {direction!r}")
    dev = choose_device(device, _IMPLEMENTATIONS, "pagerank")
    if (blocking != "auto" or direction == "push") and dev != "cuda":
        raise InvalidGraphError(
            "push and blocking=None or a width are options of the GPU path (device='cuda')"
        )
    args = (G, float(alpha), int(max_iter), float(tol)) + (
        (direction, blocking) if dev == "cuda" else ()
    )
    res = _IMPLEMENTATIONS[dev](*args)
    res.rank = to_caller(G, res.rank)
    return res


def _pagerank_cpu(G, alpha, max_iter, tol):
    n = G.n
    if n == 0:
        return PageRankResult("pagerank", "cpu", 0.0, 0, "pull", rank=np.zeros(0))
    in_off, in_idx, _ = G.csc()
    rank = np.full(n, 1.0 / n)
    new = np.empty(n)
    contrib = np.empty(n)
    base = np.empty(n)
    with Timer() as t:
        for it in range(1, max_iter + 1):
            dangling = _k.contributions(rank, G.out_degree, contrib)
            base.fill((1.0 - alpha) / n + alpha * dangling / n)
            err = _k.pull(in_off, in_idx, contrib, base, alpha, rank, new)
            rank, new = new, rank
            if err < n * tol:
                break
        else:
            if tol > 0:
                raise PowerIterationFailedConvergence(
                    f"pagerank did not converge in {max_iter} iterations"
                )
    return PageRankResult("pagerank", "cpu", t.seconds, it, "pull", {"error": err}, rank=rank)


def _pagerank_cuda(G, alpha, max_iter, tol, direction="pull", blocking="auto"):
    """PageRank on the GPU: per iteration one sweep sums contrib[u] = rank[u] / outdeg[u] over every
    vertex's in-edges and runs the update, which writes the new rank and the next contributions, and
    sums the dangling vertices' new rank and the L1 change (in the same pass where the sweep is
    blocked: _pull_sweep). The next sweep reads the dangling mass where this one left it, so the
    host never waits for an iteration before it launches the next: it reads each iteration's L1
    change (copied to pinned memory) while the next one runs, and at convergence returns that
    iteration's ranks, which the one launched after it does not overwrite (it writes the other
    buffer). Float32 ranks, float64 sums. The sweep pulls (one neighbor_reduce with the update
    fused) or pushes (an advance adding atomically, then the update), either one blocked as
    GraphCage does (the pull by default with its blocks' ranks staged in shared memory)."""
    import cupy
    import cupyx

    from ..operators import compute_sums, plan_sweep

    n = G.n
    if n == 0:
        return PageRankResult("pagerank", "cuda", 0.0, 0, "pull", rank=cupy.zeros(0, cupy.float32))
    dg = G.to("cuda")
    plan = plan_sweep(dg, blocking, stageable=direction == "pull")
    sweep = (_pull_sweep if direction == "pull" else _push_sweep)(dg, plan)
    deg = dg.out_degree
    inv_deg = cupy.where(deg > 0, 1.0 / cupy.maximum(deg, 1), 0.0).astype(cupy.float32)
    rank = cupy.full(n, 1.0 / n, cupy.float32)
    new = cupy.empty_like(rank)
    contrib, nxt = rank * inv_deg, cupy.empty_like(rank)
    # the update's sums: the dangling vertices' new rank (the next update spreads it), the L1 change
    update = (
        "float r = (float)(teleport + spread * lost[0]) + alpha * acc; rank_out[v] = r; "
        "contrib_out[v] = r * inv_deg[v]"
    )
    check = ["inv_deg[v] == 0.0f ? r : 0.0f", "fabsf(r - rank_in[v])"]
    reread = "float r = rank_out[v]"  # r where the sums take a pass of their own
    fixed = {
        "inv_deg": inv_deg,
        "teleport": np.float64((1.0 - alpha) / n),
        "spread": np.float64(alpha / n),
        "alpha": np.float32(alpha),
    }
    seen, copied = (
        cupyx.empty_pinned((2, 2), np.float64),
        [None, None],
    )  # iteration k's sums in slot k % 2

    def change(k):
        """Iteration k's L1 change (waits for its copy, not for the iterations after it)."""
        if k == 0:
            return float("inf")
        copied[k % 2].synchronize()
        return float(seen[k % 2, 1])

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
            sums = sweep(
                contrib,
                update,
                fixed | {"lost": sums, "rank_in": rank, "rank_out": new, "contrib_out": nxt},
                check,
                reread,
            )
            sums.get(out=seen[it % 2], blocking=False)
            copied[it % 2] = cupy.cuda.Event()
            copied[it % 2].record()
            rank, new, contrib, nxt = new, rank, nxt, contrib
            if it > 1 and (err := change(it - 1)) < n * tol:
                rank, it = (
                    new,
                    it - 1,
                )  # the iteration before converged; this one wrote the other buffer
                break
        else:
            err = change(it)
            if not err < n * tol and tol > 0:
                raise PowerIterationFailedConvergence(
                    f"pagerank did not converge in {max_iter} iterations"
                )
    return PageRankResult(
        "pagerank", "cuda", t.seconds, it, f"{direction}, {plan}", {"error": err}, rank=rank
    )


def _pull_sweep(dg, plan):
    """sweep(x, apply, params, sums, reread): reduce x[u] over every vertex's in-edges and run
    `apply` (a statement over v and the sum `acc`) as the sweep `plan` says; the device array of the
    `sums` of apply's terms. Blocked, the sums come in the same pass. Unblocked, where fused sums
    cost more than a pass of their own (neighbor_reduce says why), a compute_sums pass after the
    sweep, whose statement `reread` recovers apply's locals from what it wrote."""
    from ..operators import compute_sums, neighbor_reduce

    def pull(x, apply, params, sums, reread):
        if plan.kind != "plain":
            return neighbor_reduce(
                dg, None, x, "sum", apply=apply, sums=sums, params=params, blocking=plan
            )
        neighbor_reduce(dg, None, x, "sum", apply=apply, params=params)
        return compute_sums(None, sums, op=reread, params=params, n=dg.n)

    return pull


def _push_sweep(dg, plan):
    """sweep(x, apply, params, sums, reread) by pushing: every out-edge u -> v adds x[u] into v's
    sum atomically (neighbor_reduce, blocked by destination range as the plan says, so that a
    block's atomics stay in its L2-sized slice of the sums), then one pass over the vertices runs
    `apply` on each sum and sums its terms."""
    from ..operators import compute_sums, neighbor_reduce

    def push(x, apply, params, sums, reread):
        pushed = neighbor_reduce(dg, None, x, "sum", direction="push", blocking=plan)
        return compute_sums(
            None,
            sums,
            op=f"float acc = pushed[v]; {apply}",
            params={"pushed": pushed} | params,
            n=dg.n,
        )

    return push


def verify_pagerank(G, rank, alpha=0.85, tol=1e-6):
    """One serial push step from `rank` must leave it (almost) unchanged, as GAP's PRVerifier
    checks."""
    n = G.n
    src, dst = G.edges()
    deg = G.out_degree.astype(np.float64)
    nxt = np.zeros(n)
    np.add.at(nxt, dst, rank[src] / deg[src])
    dangling = rank[deg == 0].sum()
    nxt = (1 - alpha) / n + alpha * (nxt + dangling / n)
    err = np.abs(nxt - rank).sum()
    return [] if err < 2 * n * tol else [f"one more iteration moves the ranks by {err:.3g} (L1)"]


_IMPLEMENTATIONS = {"cpu": _pagerank_cpu, "cuda": _pagerank_cuda}

"""The per-part programs' steps (:func:`gravel.distributed.programs.steps`) on a part on a GPU
(:class:`~.device_part.DevicePart`), each a call of gravel's operators over the part's graph: BFS's
push an advance, its pull a neighbor_reduce "any", SSSP's relaxation two advances, PageRank's
and CC's pulls neighbor_reduce sweeps planned as on one GPU. The host's steps are
:mod:`.host_steps`.
"""

import numpy as np

#: int32's largest: the empty result of the pulls' "any" and "min", and no predecessor yet
_NONE = np.iinfo(np.int32).max
#: +inf as the bits of a float64: no offer yet (non-negative doubles order as their bits)
_NO_OFFER = int(np.float64(np.inf).view(np.int64))

#: SSSP's offer: the lowest distance by an atomic minimum of its bits; true at a target's first
_OFFER = """
__device__ __forceinline__ bool offer_once(long long* best, int* seen, double offer) {
    atomicMin(best, __double_as_longlong(offer));
    return atomicExch(seen, 1) == 0;
}
"""


class DeviceSteps:
    """The per-part programs' steps (:func:`gravel.distributed.programs.steps`) on a
    :class:`~.device_part.DevicePart`, each an operator call over ``part.graph``."""

    #: PageRank's contributions travel and are gathered in float32, as the single GPU's are
    contributions_dtype = np.float32

    @staticmethod
    def claims(part):
        """BFS's claim array: one slot per vertex of the part's graph, each -1.

        Parameters
        ----------
        part : DevicePart

        Returns
        -------
        cupy.ndarray of int32
        """
        import cupy

        return cupy.full(part.graph.n, -1, cupy.int32)

    @staticmethod
    def found(part, frontier, depth, claim):
        """Top-down: the targets of the frontier's out-arcs that may be new (sorted global ids),
        each once, with a parent (global id). One advance whose functor claims each target by
        compare-and-swap, the part's own targets already reached left out.

        Parameters
        ----------
        part : DevicePart
        frontier : cupy.ndarray of int
            Own vertices.
        depth : cupy.ndarray of int32
            Per own vertex, its level or -1.
        claim : cupy.ndarray of int32
            :meth:`claims`, all -1; left so.

        Returns
        -------
        found, parents : cupy.ndarray of int32
        """
        import cupy

        from ..frontier import Frontier
        from ..operators import advance

        g = part.graph
        if frontier.size == 0:
            return cupy.zeros(0, cupy.int32), cupy.zeros(0, cupy.int32)
        front = Frontier(g.n, ids=frontier.astype(cupy.int32), length=int(frontier.size))
        out = advance(
            g,
            front,
            "(dst >= size || depth[dst] < 0) && atomicCAS(&claim[dst], -1, src) == -1",
            params={"depth": depth, "claim": claim, "size": np.int32(part.size)},
            capacity=g.n,
        ).ids
        parents = claim[out] + np.int32(part.lo)
        claim[out] = -1
        found = part.ids[out]
        order = cupy.argsort(found)
        return found[order], parents[order]

    @staticmethod
    def bottom_up(part, depth, seen):
        """Bottom-up: each unvisited own vertex with an in-neighbour in `seen` (global ids), with
        that neighbour (global id). A neighbor_reduce "any" over their in-lists, which stops a
        short list at its first hit.

        Parameters
        ----------
        part : DevicePart
        depth : cupy.ndarray of int32
        seen : cupy.ndarray of bool
            Every vertex of the graph: whether it is in the frontier.

        Returns
        -------
        ids : cupy.ndarray of int32
            Own vertices.
        parents : cupy.ndarray of int32
            Global ids.
        """
        import cupy

        from ..frontier import Frontier
        from ..operators import neighbor_reduce

        unvisited = cupy.flatnonzero(depth < 0).astype(cupy.int32)
        if unvisited.size == 0:
            return unvisited, unvisited
        g = part.graph
        front = Frontier(g.n, ids=unvisited, length=int(unvisited.size))
        mine = seen[part.ids]
        hit = neighbor_reduce(
            g, front, f"seen[u] ? u : {_NONE}", "any", dtype=np.int32, params={"seen": mine}
        )
        got = hit < _NONE
        return unvisited[got], part.ids[hit[got]]

    @staticmethod
    def offers(part, near, dist):
        """SSSP: each target's lowest offer (distance) over the out-arcs of the own vertices
        `near`, with its predecessor (global id; the lowest own id among equal offers). Two
        advances: one lowers each target's offer by an atomic minimum and emits the target
        once, the next names the predecessors whose arc made the lowest.

        Parameters
        ----------
        part : DevicePart
            Unit weights where it has none.
        near : cupy.ndarray of int
            Own vertices.
        dist : cupy.ndarray of float64
            Per own vertex.

        Returns
        -------
        ids : cupy.ndarray of int32
            Sorted global ids.
        offer : cupy.ndarray of float64
        via : cupy.ndarray of int32
        """
        import cupy

        from ..frontier import Frontier
        from ..operators import advance

        g = part.graph
        if near.size == 0:
            return cupy.zeros(0, cupy.int32), cupy.zeros(0), cupy.zeros(0, cupy.int32)
        best, seen, via = g.cached("distributed.offers", lambda: _offer_state(g.n))
        front = Frontier(g.n, ids=near.astype(cupy.int32), length=int(near.size))
        offer = "dist[src] + (double)weight"
        params = {"dist": dist, "best": best, "seen": seen}
        t = advance(
            g, front, f"offer_once(&best[dst], &seen[dst], {offer})", params=params,
            capacity=g.n, preamble=_OFFER,
        ).ids  # fmt: skip
        lowest = f"{offer} == __longlong_as_double(best[dst]) && (atomicMin(&via[dst], src), true)"
        advance(g, front, lowest, params={"dist": dist, "best": best, "via": via}, output=None)
        offers, who = best[t].view(cupy.float64), via[t] + np.int32(part.lo)
        best[t], seen[t], via[t] = _NO_OFFER, 0, _NONE
        ids = part.ids[t]
        order = cupy.argsort(ids)
        return ids[order], offers[order], who[order]

    @staticmethod
    def pagerank(part, weighted):
        """PageRank's steps on `part`: ``contributions(rank, out_weight, contrib)`` (returns
        the dangling rank) and ``pull(everyone, base, alpha, rank, new_rank)`` (returns the L1
        change), the pull a neighbor_reduce sweep over the part's in-lists as the single GPU's
        plan_sweep blocks it.

        Parameters
        ----------
        part : DevicePart
        weighted : bool

        Returns
        -------
        object
        """
        return _PageRank(part, weighted)

    @staticmethod
    def neighbour_min(part, everyone, labels):
        """``labels[v] = min(labels[v], the smallest label among v's out- and in-neighbours)``:
        neighbor_reduce "min" sweeps over the in-lists and (directed) the out-lists.

        Parameters
        ----------
        part : DevicePart
        everyone : cupy.ndarray of int32
            Every vertex's label, by global id.
        labels : cupy.ndarray of int32
            The own vertices' labels, lowered in place.
        """
        import cupy

        from ..operators import neighbor_reduce

        mine = everyone[part.ids]
        g = part.graph
        for view in (g, g.reverse()) if part.directed else (g,):
            plan = view.cached("distributed.min_plan", lambda v=view: _plan(v, True))
            low = neighbor_reduce(view, None, mine, "min", dtype=np.int32, blocking=plan)
            cupy.minimum(labels, low[: part.size], out=labels)


def _offer_state(n):
    """SSSP's per-vertex offer state, kept with the part's graph and left as it starts after each
    step: the lowest offer's bits, whether a target was emitted, its predecessor."""
    import cupy

    return (
        cupy.full(n, _NO_OFFER, cupy.int64),
        cupy.zeros(n, cupy.int32),
        cupy.full(n, _NONE, cupy.int32),
    )


def _plan(graph, stageable):
    from ..operators import plan_sweep

    return plan_sweep(graph, "auto", stageable=stageable)


class _PageRank:
    def __init__(self, part, weighted):
        self.part, self.weighted = part, weighted
        key = f"distributed.pagerank_plan.{weighted}"
        # staged as the single GPU's PageRank stages it: unweighted only (a weighted value
        # reads each arc's weight, so its blocks go through the L2)
        self.plan = part.graph.cached(key, lambda: _plan(part.graph, not weighted))

    @staticmethod
    def contributions(rank, out_weight, contrib):
        import cupy

        has = out_weight > 0
        contrib[...] = cupy.where(has, rank / cupy.where(has, out_weight, 1), 0.0)
        return float(cupy.where(has, 0.0, rank).sum())

    def pull(self, everyone, base, alpha, rank, new_rank):
        import cupy

        from ..operators import neighbor_reduce

        if everyone.dtype != cupy.float32:
            raise TypeError(f"PageRank's contributions must be float32, not {everyone.dtype}")
        p = self.part
        combine = "*" if self.weighted else None
        x = everyone[p.ids]
        sums = neighbor_reduce(p.graph, None, x, "sum", combine=combine, blocking=self.plan)
        new_rank[...] = base + alpha * sums[: p.size]
        return float(cupy.abs(new_rank - rank).sum())

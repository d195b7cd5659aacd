"""Leiden with every vertex moving at once: the GPU's Leiden, written over an array module (CuPy on
the GPU; NumPy runs the same steps in the tests).

A level's graph and its local moves are the parallel Louvain's (louvain_parallel.py: passes of
moves at once, restricted so that neighbours do not undo each other). After them:

- split: each community becomes its connected parts, by minimum-label propagation over the arcs
  inside communities, with pointer jumping;
- refine: the vertices are dealt at random into BATCHES batches; a batch's vertices that are still
  alone and well connected to their community choose at once, against the subcommunities as the
  batches before left them, a neighbouring well-connected subcommunity or staying, with
  probability proportional to exp(gain / theta) (the Gumbel-max trick: the largest of gain / theta
  plus Gumbel noise, the noise a hash of the vertex, the choice, the seed and the step). A vertex
  whose own singleton another vertex of its batch joins stays (of two that choose each other, the
  larger), so every subcommunity grows by arcs to members that do not leave it, and stays
  connected;
- aggregate: the refined subcommunities become the next level's vertices (Louvain's
  aggregation), which start in the communities that hold them.
"""

from .leiden_levels import Levels
from .louvain_parallel import (
    _aggregate,
    _degrees,
    _internal,
    _local_moves,
    _ordered,
    _sum_by_key,
    level_graph,
)

#: the random batches the refinement deals its vertices into; each batch chooses at once
BATCHES = 4
#: SplitMix64's increment, and another odd constant that starts each call's stream apart
GOLDEN, STEP = 0x9E3779B97F4A7C15, 0xD1B54A32D192ED03


class ParallelLevels(Levels):
    """The level graph of the GPU's Leiden and the steps of a level
    (:class:`gravel.algorithms.leiden_levels.Levels`), over the array module `xp` (CuPy on the
    GPU, NumPy in the tests).

    Parameters
    ----------
    xp : module
        ``cupy`` or ``numpy``.
    G : Graph
        Undirected; its CSR is read with `xp`.
    weighted : bool
        Weigh the edges by G's weights (checked by the caller); else 1 each.
    resolution : float
        The modularity's resolution.
    threshold : float
        The local moves' idle pass gain (louvain_parallel.py).
    theta : float
        The refinement's randomness, in edge weight.
    salt : int
        Seeds the refinement's hashes: below 2**31.
    """

    def __init__(self, xp, G, weighted, resolution, threshold, theta, salt):
        super().__init__(xp, level_graph(xp, G, weighted), G.n, resolution, threshold, theta)
        self.salt, self.steps = salt, 0

    def _degrees(self):
        """Each level vertex's weighted degree, its loop counted twice."""
        return _degrees(self.xp, *self.graph)

    def _inside(self, community):
        """The weight of the arcs inside `community`, each vertex's loop counted twice."""
        return _internal(*self.graph, community)

    def _move(self, community):
        """The parallel Louvain's passes of moves: (whether any pass gained, the communities)."""
        # the modularity as the passes compute it: an unchanged partition never counts as a gain
        q = self.modularity(community)
        moved, q_new = _local_moves(
            self.xp, *self.graph, self.resolution, self.threshold, q, community
        )
        if q_new is None:
            return False, community
        return True, moved

    def _components(self, community):
        """Each community's connected parts, labelled by their smallest vertex ids: minimum-label
        propagation over the arcs inside communities, with pointer jumping."""
        xp = self.xp
        src, dst = self.graph[0], self.graph[1]
        inside = community[src] == community[dst]
        s, d = src[inside], dst[inside]
        label = xp.arange(self.size, dtype=xp.int64)
        while True:
            new = label.copy()
            xp.minimum.at(new, s, label[d])
            new = new[new]
            if bool((new == label).all()):  # sync: one read per round
                return label
            label = new

    def _refine(self, community):
        """The refinement's subcommunities, labelled by vertex ids, in BATCHES random batches."""
        xp = self.xp
        src, dst, w, _ = self.graph
        size = self.size
        k = self._degrees()
        scale = self.resolution / float(k.sum())
        inside = community[src] == community[dst]
        s, d, w = src[inside], dst[inside], w[inside]
        whole = xp.bincount(community, weights=k, minlength=size)[community]  # K_S, per vertex
        alone_out = _sums(xp, s, w, size)  # E(v, S - v)
        undecided = alone_out >= scale * k * (whole - k)  # well connected
        ids = xp.arange(size, dtype=xp.int64)
        batch = (self._uniform(ids) * BATCHES).astype(xp.int64)
        refined = ids.copy()
        for b in range(BATCHES):
            members = xp.bincount(refined, minlength=size)
            active = undecided & (members[refined] == 1) & (batch == b)
            if not bool(active.any()):  # sync
                continue
            total = xp.bincount(refined, weights=k, minlength=size)  # K_C
            cross = refined[s] != refined[d]
            out = _sums(xp, refined[s[cross]], w[cross], size)  # E(C, S - C)
            a = active[s]
            key, link = _sum_by_key(xp, s[a] * size + refined[d[a]], w[a])
            undecided &= ~active  # each vertex of the batch moves, stays, or is joined
            if key.size == 0:
                continue
            v, c = key // size, key % size
            gain = link - scale * k[v] * total[c]
            ok = (gain >= 0) & (out[c] >= scale * total[c] * (whole[v] - total[c]))
            score = xp.where(ok, gain / self.theta + self._gumbel(key), -xp.inf)
            top = self._gumbel(ids * size + ids)  # staying alone: gain 0
            best = xp.full(size, _ordered(xp, xp.array(-xp.inf)))
            xp.maximum.at(best, v, _ordered(xp, score))
            top = xp.maximum(top, _ordered(xp, best).view(xp.float64))
            pick = xp.flatnonzero(ok & (score == top[v]))
            v, c = v[pick], c[pick]
            head = xp.ones(v.size, dtype=bool)  # one choice a vertex, should two scores tie
            head[1:] = v[1:] != v[:-1]
            v, c = v[head], c[head]
            joined = xp.zeros(size, dtype=bool)
            joined[c] = True
            choice = ids.copy()
            choice[v] = c
            # a vertex that another joins stays with it, but of two that choose each other the
            # smaller joins the larger
            go = ~joined[v] | ((choice[c] == v) & (v < c))
            refined[v[go]] = c[go]
        return refined

    def _aggregate(self, refined):
        """The graph of the subcommunities of `refined`, and its size."""
        return _aggregate(self.xp, *self.graph, refined)

    def _uniform(self, keys):
        """A pseudo-random float in (0, 1) per int64 key: SplitMix64's finaliser of the key and
        the salt, a new stream at each call."""
        xp = self.xp
        self.steps += 1
        u64 = xp.uint64
        x = keys.astype(u64) + u64((self.salt * GOLDEN + self.steps * STEP) % 2**64)
        x = (x ^ (x >> u64(30))) * u64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> u64(27))) * u64(0x94D049BB133111EB)
        x ^= x >> u64(31)
        return ((x >> u64(11)).astype(xp.float64) + 0.5) / 2.0**53

    def _gumbel(self, keys):
        """Gumbel noise per key: -log(-log(u))."""
        return -self.xp.log(-self.xp.log(self._uniform(keys)))


def _sums(xp, x, weights, size):
    """The sum of `weights` at each id of `x` below `size`: a bincount, zeros where `x` is empty
    (CuPy's bincount takes no empty array)."""
    if x.size == 0:
        return xp.zeros(size)
    return xp.bincount(x, weights=weights, minlength=size)

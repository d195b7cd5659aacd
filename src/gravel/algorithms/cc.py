"""Connected components (weakly connected, for directed graphs).

Afforest (Sutton et al., IPDPS'18), as in the GAP Benchmark Suite: link each vertex with its first
two neighbours, find the component most vertices already share, then link the remaining edges of
vertices outside it only. Every component is labelled with its smallest vertex id."""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import cc as _k
from ..dispatch import choose_device, ids_to_caller, takes_graph, to_caller
from ..results import Result, Timer

SAMPLE_ROUNDS = 2


@dataclass
class CCResult(Result):
    """Connected components as labels, as :func:`connected_components` returns them.

    Attributes
    ----------
    labels : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: the smallest vertex id of its component.
    """

    labels: np.ndarray = None

    vertex_arrays = ("labels",)

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``components``: how many.
        """
        return super().summary() | {"components": int(np.unique(host(self.labels)).size)}


@takes_graph
def connected_components(G, *, device="auto"):
    """Label every vertex with the smallest vertex id of its (weakly) connected component.

    Afforest (Sutton et al., IPDPS'18), as in the GAP Benchmark Suite: each vertex is linked with
    its first two neighbours, a sample names the component most vertices already share, and only
    the vertices outside it have their remaining edges linked.

    Parameters
    ----------
    G : Graph
        Directed or undirected; a directed graph's components are its weakly connected ones (arcs
        count both ways). Weights are ignored.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. The GPU links with
        ECL-CC's lock-free union-find.

    Returns
    -------
    CCResult
        ``labels[v]`` (int32, over the caller's ids): the smallest caller id in v's component.
        A NumPy array on the CPU; a CuPy array on the GPU, but a NumPy one where G is reordered
        (``G.order``), whose labels are remapped on the host. ``summary()["components"]``: how
        many.

    Raises
    ------
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.strongly_connected_components
    scipy.sparse.csgraph.connected_components

    Notes
    -----
    Two sampling rounds (SAMPLE_ROUNDS, GAP's default) come first. Sampling pays because the big
    component holds almost all of the edges, which the linking after it never touches; the
    figures are in docs/tuning.md, SAMPLE_ROUNDS.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([3, 1], [2, 0], n=5)
    >>> gravel.connected_components(G, device="cpu").labels.tolist()
    [0, 0, 2, 2, 4]
    """
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, "connected_components")](G)
    if G.order is not None:
        # after reordering the smallest internal id is not the smallest caller id: relabel by min
        labels = ids_to_caller(G, to_caller(G, host(res.labels)))
        smallest = np.full(G.n, G.n, np.int64)
        np.minimum.at(smallest, labels, np.arange(G.n))
        res.labels = smallest[labels].astype(np.int32)
    return res


def _sample(n):
    """The 1,024 vertices whose labels name the big component."""
    return np.random.default_rng(0).integers(0, n, 1024)


def _most_common(labels):
    values, counts = np.unique(labels, return_counts=True)  # not bincount: it allocates n counters
    return int(values[counts.argmax()])


def _most_common_cuda(labels):
    """The label that most of the sample's `labels` (a device array) carry, as a one-element device
    array (ties: the first in the sample); each label against every other, no read-back."""
    counts = (labels[:, None] == labels[None, :]).sum(axis=1)
    return labels[counts.argmax()].reshape(1)


def _cc_cpu(G):
    comp = np.arange(G.n, dtype=np.int32)
    k = _k.kernels(G.nnz)
    with Timer() as t:
        for r in range(SAMPLE_ROUNDS):
            k.link_neighbour(G.offsets, G.indices, comp, r)
            k.compress(comp)
        skip = -1
        if G.n:
            skip = _most_common(comp[_sample(G.n)])
        layouts = [(G.offsets, G.indices)]
        if G.directed:
            # a vertex of the big component may have an in-edge from outside it
            in_off, in_idx, _ = G.csc()
            layouts.append((in_off, in_idx))
        for i, (off, idx) in enumerate(layouts):
            # the sampling rounds already linked the first out-neighbours
            k.link_rest(off, idx, comp, SAMPLE_ROUNDS if i == 0 else 0, skip)
        k.compress(comp)
    return CCResult("connected_components", "cpu", t.seconds, 1, "afforest", labels=comp)


# ECL-CC's lock-free union-find (Jaiganesh and Burtscher, HPDC'18): find with path halving, and a
# union that hooks the larger root under the smaller by compare-and-swap, retrying when it loses a
# race. Reads go through a volatile pointer: other threads relink the forest while a thread walks
# it, and cached loads made the union retry on stale roots (road graphs ended with false splits).
# The last pass points each vertex at its root with gravel_root, which writes nothing while it
# walks: a halving store racing with a vertex's store of its root could put back a mere ancestor.
_UNION_FIND = """
__device__ int gravel_find(int* parent, int x) {
    volatile int* p = parent;
    while (true) {
        int px = p[x];
        if (px == x) return x;
        int gx = p[px];
        if (gx != px) p[x] = gx;
        x = px;
    }
}
__device__ int gravel_root(const int* parent, int x) {
    const volatile int* p = parent;
    for (int px = p[x]; px != x; px = p[x]) x = px;
    return x;
}
__device__ void gravel_union(int* parent, int a, int b) {
    while (true) {
        a = gravel_find(parent, a);
        b = gravel_find(parent, b);
        if (a == b) return;
        if (a < b) { int t = a; a = b; b = t; }
        if (atomicCAS(&parent[a], a, b) == a) return;
    }
}
"""


def _cc_cuda(G):
    """Afforest on the GPU operators, with ECL-CC's union-find as the link: a compute links every
    vertex with its first two neighbours, compresses, and a 1,024-vertex sample names the component
    most vertices already share; then an advance unions the edges of the vertices outside it only
    (and, on a directed graph, their in-edges: an edge from the big component into them is no
    out-edge of theirs), and a last compute points every vertex at its root. Hooking under the
    smaller root makes each root its component's smallest id. Sampling first pays because the big
    component holds almost all of the edges, which Afforest never touches (docs/tuning.md,
    SAMPLE_ROUNDS)."""
    import cupy

    from ..frontier import Frontier
    from ..operators import advance, compute
    from ..operators import filter_frontier as keep_if

    dg = G.to("cuda")
    comp = cupy.arange(G.n, dtype=cupy.int32)
    link = "(gravel_union(comp, src, dst), false)"
    with Timer("cuda") as t:
        if G.n:
            for r in range(SAMPLE_ROUNDS):
                compute(
                    None,
                    "if (offsets[v + 1] - offsets[v] > r) "
                    "gravel_union(comp, v, indices[offsets[v] + r])",
                    params={
                        "comp": comp,
                        "offsets": dg.offsets,
                        "indices": dg.indices,
                        "r": np.int32(r),
                    },
                    n=G.n,
                    preamble=_UNION_FIND,
                )
            compute(
                None,
                "comp[v] = gravel_root(comp, v)",
                params={"comp": comp},
                n=G.n,
                preamble=_UNION_FIND,
            )
            sample = dg.cached("cc_sample", lambda: cupy.asarray(_sample(G.n), cupy.int32))
            skip = _most_common_cuda(comp[sample])  # on the device: no read-back
            # outside the big component, with edges to union (isolated vertices are left out)
            edged = "out_off[v + 1] > out_off[v] || in_off[v + 1] > in_off[v]"
            rest = keep_if(
                Frontier.all(G.n),
                f"comp[v] != skip[0] && ({edged})",
                params={"comp": comp, "skip": skip, "out_off": dg.offsets, "in_off": dg.csc()[0]},
            )
            advance(dg, rest, link, params={"comp": comp}, output=None, preamble=_UNION_FIND)
            if G.directed:
                advance(
                    dg.reverse(),
                    rest,
                    link,
                    params={"comp": comp},
                    output=None,
                    preamble=_UNION_FIND,
                )
            compute(
                None,
                "comp[v] = gravel_root(comp, v)",
                params={"comp": comp},
                n=G.n,
                preamble=_UNION_FIND,
            )
    return CCResult(
        "connected_components", "cuda", t.seconds, 1, "afforest + ecl-cc union-find", labels=comp
    )


def verify_cc(G, labels):
    """Check connected-component labels: the same partition as SciPy's weak
    ``connected_components``, each component labelled with its smallest vertex id.

    Parameters
    ----------
    G : Graph
    labels : numpy.ndarray
        The result's labels, on the host, over the caller's ids.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the labels are right.

    Notes
    -----
    SciPy's components are found on G's stored ids; on a reordered graph (``G.order`` set) they
    are moved to the caller's ids, which the smallest-id rule then reads.
    """
    from scipy.sparse.csgraph import connected_components as scipy_cc

    k, ref = scipy_cc(G.to_scipy(), directed=True, connection="weak")
    if G.order is not None:  # the caller's vertex i is stored as order[i]
        ref = ref[G.order]
    problems = []
    first = np.full(k, G.n, np.int64)
    np.minimum.at(first, ref, np.arange(G.n))
    if not np.array_equal(first[ref], labels):
        problems.append("labels differ from SciPy's components labelled by their smallest vertex")
    return problems


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _cc_cpu, "cuda": _cc_cuda}

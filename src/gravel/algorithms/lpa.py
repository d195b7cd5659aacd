"""Label propagation communities, as ``networkx.community.label_propagation_communities``.

The semi-synchronous method of Cordasco and Gargano (BASNA 2010), NetworkX's deterministic variant,
rather than the asynchronous one (``asyn_lpa_communities``), whose answer depends on a random visit
order: with no seed to match, the same graph gives NetworkX's very partition, and the answer has a
checkable stopping rule. backends/cpu/lpa.py colours the graph greedily and updates one colour class
at a time; the GPU path (``_lpa_cuda``) updates each class with a sort and one neighbor_reduce, to
the same labels. The modularity of the communities (Newman and Girvan 2004) is reported beside them.
"""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..backends.cpu import chunks, shares
from ..backends.cpu import csr as _csr
from ..backends.cpu import lpa as _k
from ..backends.cpu import modularity as _mod
from ..dispatch import choose_device, takes_graph, to_caller
from ..errors import InvalidGraphError
from ..results import Result, Timer
from .coloring import colour_classes


@dataclass
class LPAResult(Result):
    """Communities as labels, and their modularity, as :func:`label_propagation_communities`
    returns them.

    Attributes
    ----------
    labels : numpy.ndarray or cupy.ndarray
        int32 per vertex, over the caller's ids: a caller id that names its community (a CuPy
        array from the GPU path).
    modularity : float
        The communities' unweighted modularity (Newman and Girvan 2004).
    """

    labels: np.ndarray = None

    vertex_arrays = ("labels",)
    modularity: float = 0.0

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict
            :meth:`gravel.results.Result.summary`'s entries, with ``communities``: how many, and
            ``modularity``.
        """
        return super().summary() | {
            "communities": int(np.unique(host(self.labels)).size),
            "modularity": self.modularity,
        }


@takes_graph
def label_propagation_communities(G, *, device="auto"):
    """Label every vertex with its community, found by semi-synchronous label propagation.

    Parameters
    ----------
    G : Graph
        Undirected. Weights are ignored, parallel edges count once and a self loop counts the
        vertex's own label once, as in a ``networkx.Graph``.
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where to run: "auto" is the GPU where one is usable, else the CPU. Both give the same
        labels.

    Returns
    -------
    LPAResult
        ``labels[v]`` (int32, caller ids; a CuPy array on the GPU): a caller id that names v's
        community; ``set(labels)`` has one entry per set NetworkX yields. ``modularity`` (float):
        the unweighted modularity of the communities; ``iterations``: the rounds run.

    Raises
    ------
    InvalidGraphError
        G is directed.
    UnknownNameError
        `device` is not "auto", "cpu" or "cuda".
    DeviceUnavailableError
        ``device="cuda"`` where no GPU is usable.
    TypeError
        G is not a :class:`gravel.Graph` (a NetworkX graph, say).

    See Also
    --------
    gravel.louvain_communities
    networkx.community.label_propagation_communities

    Notes
    -----
    A vertex starts with its own caller id as label. The colouring takes the vertices by degree,
    largest first (ties by caller id), each getting the smallest colour no neighbour has; each
    round updates the colour classes in order. Labelling stops when every vertex with a neighbour
    has a label among the most frequent of its neighbours' (NetworkX checks before each round; a
    round that changes no label is that check here). A round reads the arcs of the vertices with
    a neighbour relabelled since they last chose (every arc in the first round; the others would
    keep their labels), a class's vertices in parallel, tallying their neighbours' labels in small
    hash tables: expected O((rounds + 1) (n + m)) at most. A graph without edges has modularity 0
    (NetworkX divides by zero). The method is the semi-synchronous one of Cordasco and Gargano
    (BASNA 2010), NetworkX's deterministic variant.

    Examples
    --------
    >>> import gravel
    >>> G = gravel.Graph.from_edges([0, 0, 1, 3, 3, 4], [1, 2, 2, 4, 5, 5], directed=False)
    >>> r = gravel.label_propagation_communities(G, device="cpu")
    >>> r.labels.tolist(), round(r.modularity, 3)
    ([2, 2, 2, 5, 5, 5], 0.5)
    """
    name = "label_propagation_communities"
    if G.directed:
        raise InvalidGraphError(f"{name} is not implemented for directed graphs")
    res = IMPLEMENTATIONS[choose_device(device, IMPLEMENTATIONS, name)](G)
    res.labels = to_caller(G, res.labels)
    return res


def simple_graph(G):
    """G's rows without parallel arcs, self loops kept: the ``networkx.Graph`` that G stands for.

    Parameters
    ----------
    G : Graph
        Undirected.

    Returns
    -------
    offsets : numpy.ndarray
        int64 row offsets, n + 1, over G's internal ids.
    indices : numpy.ndarray
        int32 neighbours, each row's distinct ones: G's own arrays where G has no parallel arcs.
        Both read-only.

    Examples
    --------
    >>> import gravel
    >>> from gravel.algorithms.lpa import degrees, simple_graph
    >>> G = gravel.Graph.from_edges([0, 0, 1, 1], [1, 1, 2, 1], directed=False)
    >>> offsets, indices = simple_graph(G)
    >>> indices.tolist()
    [1, 0, 1, 2, 1]
    >>> degrees(offsets, indices).tolist()  # the loop at 1 adds 2
    [1.0, 4.0, 1.0]
    """
    if not G.has_parallel_arcs:
        return G.offsets, G.indices  # already simple: no copy
    offsets, indices, _ = _csr.clean_rows(G.offsets, G.indices, None, dedupe=True, drop_loops=False)
    # read-only as G's own arrays: the kernels compiled (and prebuilt) for one serve both
    offsets.flags.writeable = indices.flags.writeable = False
    return offsets, indices


def caller_ids(G):
    """The caller's id of each internal vertex.

    Parameters
    ----------
    G : Graph

    Returns
    -------
    numpy.ndarray
        int32, entry i the caller's id of internal vertex i: ``0..n-1`` in order where G is not
        reordered.
    """
    if G.order is None:
        return np.arange(G.n, dtype=np.int32)
    ids = np.empty(G.n, np.int32)
    ids[G.order] = np.arange(G.n, dtype=np.int32)
    return ids


def degrees(offsets, indices, weights=None):
    """Each vertex's degree as NetworkX counts it (weighted: the sum of its edges' weights): a
    self loop adds 2 (twice its weight).

    Parameters
    ----------
    offsets : numpy.ndarray
        int64 row offsets of an undirected CSR graph.
    indices : numpy.ndarray
        int32 neighbour ids.
    weights : numpy.ndarray, optional
        The entries' weights; None counts each edge 1.

    Returns
    -------
    numpy.ndarray
        float64 per vertex.
    """
    return _mod.kernels(indices.shape[0]).degrees(offsets, indices, weights)


def modularity(offsets, indices, labels, weights=None, resolution=1.0, *, degree=None):
    """Modularity of the partition `labels` of an undirected CSR graph (weighted where `weights`
    are given), as ``networkx.community.modularity`` defines it; 0 without edges.

    Parameters
    ----------
    offsets : numpy.ndarray
        int64 row offsets of an undirected CSR graph.
    indices : numpy.ndarray
        int32 neighbour ids.
    labels : numpy.ndarray
        Each vertex's community: a non-negative integer below n.
    weights : numpy.ndarray, optional
        The entries' weights; None counts each edge 1.
    resolution : float, default 1.0
        NetworkX's `resolution` (gamma).
    degree : numpy.ndarray, optional
        Each vertex's degree as :func:`degrees` gives it for these arcs and weights, where the
        caller has it (a loop over several partitions of one graph): not counted again.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> import gravel
    >>> from gravel.algorithms.lpa import modularity
    >>> G = gravel.Graph.from_edges([0, 0, 1, 3, 3, 4, 2], [1, 2, 2, 4, 5, 5, 3], directed=False)
    >>> round(modularity(G.offsets, G.indices, np.array([0, 0, 0, 3, 3, 3])), 3)
    0.357
    """
    if degree is None:
        degree = degrees(offsets, indices, weights)
    two_m = float(degree.sum())
    if two_m == 0:
        return 0.0
    internal = _mod.kernels(indices.shape[0]).inside(offsets, indices, labels, weights)
    totals = np.bincount(labels, weights=degree, minlength=labels.shape[0])
    return float(internal / two_m - resolution * np.sum(totals * totals) / (two_m * two_m))


def _lpa_cpu(G):
    n = G.n
    offsets, indices = simple_graph(G)
    labels = caller_ids(G)
    order = np.lexsort((labels, -degrees(offsets, indices)))
    colour = np.full(n, -1, np.int32)
    with Timer() as t:
        seen = np.full(n, -1, np.int32)
        shares.stoppable(_k.greedy_colour, offsets, indices, order, colour, seen)
        members, starts = colour_classes(colour)
        propagate = _k.kernels(offsets[-1]).propagate
        rounds = shares.stoppable(propagate, offsets, indices, members, starts, labels, chunks())
    q = modularity(offsets, indices, labels)
    return LPAResult(
        "label_propagation_communities",
        "cpu",
        t.seconds,
        rounds,
        "semi-synchronous",
        labels=labels,
        modularity=q,
    )


def _lpa_cuda(G):
    """The CPU path's rounds on the GPU. The colouring is greedy_color's (Jones-Plassmann in the
    same order: the same classes), and the graph is renumbered by class, so that a class is a range
    of rows and its arcs a range of entries. A class's update sorts its entries' (row, label) keys,
    scores each by (how often its label occurs in the row, found by two binary searches in the
    sorted keys; whether it is the row's own label; the label), and takes each row's best score
    with a max neighbor_reduce over the class's rows, whose apply writes the label: the most
    frequent, one's own first on a tie, else the largest (Prec-Max). Rounds run until one changes
    no label: the CPU path's stopping rule holds exactly then, so the labels are its."""
    import cupy

    from ..arrays import entry_rows
    from ..frontier import Frontier
    from ..graph import Graph
    from ..operators import neighbor_reduce
    from ..transform import relabel
    from .coloring import _coloring_cuda, largest_first

    n = G.n
    offsets, indices = simple_graph(G)
    if n == 0:
        return LPAResult("label_propagation_communities", "cuda", labels=cupy.zeros(0, cupy.int32))
    loops = Graph.from_csr(offsets, indices, directed=False, trusted=True)
    loops.to("cuda")
    with Timer("cuda") as t:
        colour = _coloring_cuda(G.simple_undirected(), largest_first(G)).colors
        members = cupy.argsort(colour).astype(cupy.int32)  # stable: rows of a class by id
        row_of = cupy.empty(n, cupy.int32)
        row_of[members] = cupy.arange(n, dtype=cupy.int32)
        H = relabel(loops, row_of).to("cuda")
        labels = cupy.asarray(caller_ids(G))[members]  # by row
        classes = cupy.searchsorted(colour[members], cupy.arange(int(colour.max()) + 2))
        bounds = classes.get().tolist()
        arcs = H.offsets[classes].get().tolist()
        entry_row = entry_rows(H.offsets, H.nnz)
        rows = cupy.arange(n, dtype=cupy.int32)
        changed = cupy.zeros(1, cupy.int32)
        params = {"labels": labels, "changed": changed, "np1": np.int64(n + 1)}
        update = (
            "if (acc >= 0) { int best = (int)(acc % np1); "
            "if (best != labels[v]) { labels[v] = best; atomicAdd(changed, 1); } }"
        )
        rounds = 0
        while True:
            changed.fill(0)
            for c in range(len(bounds) - 1):
                first, last = arcs[c], arcs[c + 1]
                if first == last:
                    continue
                keys = cupy.sort(entry_row[first:last] * n + labels[H.indices[first:last]])
                count = cupy.searchsorted(keys, keys, side="right") - cupy.searchsorted(keys, keys)
                row, label = cupy.divmod(keys, n)
                score = (2 * count + (label == labels[row])) * (n + 1) + label
                ids = rows[bounds[c] : bounds[c + 1]]
                frontier = Frontier(n, ids=ids, length=ids.size)
                neighbor_reduce(
                    H,
                    frontier,
                    "score[edge - first]",
                    "max",
                    dtype=np.int64,
                    apply=update,
                    params=params | {"score": score, "first": np.int64(first)},
                )
            if not int(changed[0]):  # sync: the round's changes
                break
            rounds += 1
    q = modularity(offsets, indices, labels[row_of].get())
    return LPAResult(
        "label_propagation_communities",
        "cuda",
        t.seconds,
        rounds,
        "semi-synchronous",
        labels=labels[row_of],
        modularity=q,
    )


def verify_lpa(G, labels, *, modularity=None):
    """Check label propagation's communities: NetworkX's stopping rule holds (every vertex with a
    neighbour has a label among its neighbours' most frequent), `modularity` is the partition's
    (``networkx.community.modularity``), and it is within 5 % of the modularity of NetworkX's own
    label propagation on G. Needs NetworkX.

    Parameters
    ----------
    G : Graph
        Undirected.
    labels : array_like
        The label of each vertex, over the caller's ids, on the host: vertex ids.
    modularity : float, optional
        The modularity the run reported; not compared if None.

    Returns
    -------
    list of str
        The problems found, each a sentence; empty if the communities pass.
    """
    import networkx as nx

    labels = np.asarray(labels)
    n = G.n
    if labels.shape != (n,) or (n and (labels.min() < 0 or labels.max() >= n)):
        return [f"labels must be {n} vertex ids"]
    offsets, indices = simple_graph(G)
    own = labels[caller_ids(G)]  # by internal id
    src = np.repeat(np.arange(n, dtype=np.int64), np.diff(offsets))
    pairs, count = np.unique(src * n + own[indices], return_counts=True)
    top = np.zeros(n, np.int64)
    np.maximum.at(top, pairs // n, count)
    mine = np.bincount(src, weights=own[indices] == own[src], minlength=n)  # own label's count
    stuck = np.flatnonzero(mine != top)
    if stuck.size:
        v = int(caller_ids(G)[stuck[0]])
        return [f"vertex {v}: label {int(labels[v])} is not among its neighbours' most frequent"]
    g = G.to_networkx()
    if g.number_of_edges() == 0:
        return [] if not modularity else [f"modularity {modularity}, expected 0 without edges"]
    names = np.asarray(list(g))
    ours = [set(names[labels == c].tolist()) for c in np.unique(labels)]
    expect = nx.community.modularity(g, ours, weight=None)
    theirs = nx.community.modularity(g, nx.community.label_propagation_communities(g), weight=None)
    problems = []
    if modularity is not None and abs(modularity - expect) > 1e-9:
        problems.append(f"modularity {modularity}, expected {expect}")
    if expect < theirs - 0.05 * abs(theirs) - 1e-9:
        problems.append(f"modularity {expect} is more than 5 % below NetworkX's {theirs}")
    return problems


#: the paths by device; the catalog's ``devices`` are its keys
IMPLEMENTATIONS = {"cpu": _lpa_cpu, "cuda": _lpa_cuda}

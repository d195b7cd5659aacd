"""Vertex reordering for cache locality (Balaji's thesis, chapters 2 and 3; DESIGN.md section 5).

Lightweight, degree-based orders put the hubs (degree above the average) next to each other so that
their data shares cache lines: degree sort, hub sort, hub cluster and DBG; RCM (SciPy's) is the classic
bandwidth-reducing order. The packing factor (the thesis's Algorithm 3) predicts whether hub sorting
pays: the lines that hold a hub in the current order over the fewest lines the hubs could fill.
``reorder(G, "auto")`` reorders above the threshold measured for where the graph lives: a hub sort, or
a degree sort where the graph's sweeps stage in shared memory (gravel.blocking); on the GPU, told how
many sweeps the caller will run, it also weighs their predicted saving against the cost of
reordering, which there takes as long as tens of PageRank iterations.

Every order is returned as ``perm`` with ``perm[v]`` the new id of vertex v. :func:`reorder` applies one
transparently (the Graph keeps the permutation, results stay in the caller's ids). Sort by out-degree
for pull code (its gathers read sources), by in-degree for push code. A graph already on the GPU is
reordered there (CuPy, the same code; the permutation and relabelling stay on the device), others on
the host. RCM is SciPy's, on the host.
"""

import numpy as np

from .arrays import xp
from .errors import UnknownNameError
from .transform import relabel

#: thesis threshold on its CPUs: below it, hub sorting cost up to 37 % end to end
PF_THRESHOLD = 4.0
#: on the GPU the gain starts at about the same packing factor: PageRank per iteration after a hub
#: sort, H200, kron:22 hub-sorted and then partly scrambled (benchmarks/results/2026-11-26-h200-
#: session6-run*-reorder*, three runs): PF 1.3 -4 to +2 %, 1.7 -1 to +5 %, 2.3 +2 to +8 %, 3.4 +4 to
#: +11 %, 5.2 +14 to +15 %, 7.7 (as generated) +25 to +26 %; urand, rgg, grids and road graphs (PF 1
#: to 1.9) -5 to +4 %. GPU_GAIN interpolates the share of a PageRank iteration saved.
GPU_PF_THRESHOLD = 4.0
GPU_GAIN = ((4.0, 0.0), (5.2, 0.14), (7.7, 0.25))
#: a hub sort where the graph is on the GPU costs, end to end, about this many PageRank iterations of
#: the graph as given: the order, the permuted CSR, the reordered graph's sweep set up again, the
#: caller's ids (same runs, whole runs of 100 iterations: 21 to 48 on ten graphs; kron:22 35). Both
#: grow with the arcs, so their ratio stands in for timing a sweep, which cost the decision 4 ms.
GPU_REORDER_SWEEPS = 35
#: a graph whose sweeps stage (its vertex data over half the L2, blocking.resolve_width) gains most
#: from a degree sort, which lets the staged gather combine more of a block's edges into one
#: destination. PageRank per iteration, H200, session 8 run 10 (final kernels; degree / hub sort /
#: DBG): kron:24 (PF 9.3) 33 / 20 / 31 %, kron:25 (8.3) 34 / 21 / 32 %; run 5: kron:24 degree-sorted and
#: then 40 % of its ids scrambled (5.7) 23 / 17 / 24 %. The packing factor predicts this gain poorly:
#: kron:23 (7.9) gains 19 / 19 / 20 % (run 10; as given its layout already combines to 0.33 pairs an
#: edge), and 10 %-scrambled kron:24 (2.4, below the threshold) 22 / 19 / 18 % (run 5)
STAGED_GAIN = ((4.0, 0.0), (5.7, 0.23), (9.3, 0.33))
#: there a reordering costs about this many staged iterations as given (run 10, whole runs of 100,
#: their setup included: kron:23 67, kron:24 63, kron:25 56), so it pays only after 180 or more of them
STAGED_REORDER_SWEEPS = 60


def _check_by(by):
    if by not in ("out", "in"):
        raise UnknownNameError(f"by must be 'out' or 'in', not {by!r}")


def _device_offsets(dg, by):
    """The offsets of a device copy's out- or in-lists."""
    _check_by(by)
    return dg.offsets if by == "out" else dg.csc()[0]


def _degrees(G, by):
    """Degrees where the graph lives: on the device when it has a device copy."""
    _check_by(by)
    if G._device is None:
        return (G.out_degree if by == "out" else G.in_degree).astype(np.int64)
    offsets = _device_offsets(G._device, by)
    return (offsets[1:] - offsets[:-1]).astype(np.int64)


def _perm_from_order(order):
    """order[k] = the vertex that becomes k  ->  perm[v] = new id of v."""
    m = xp(order)
    perm = m.empty(order.size, m.int32)
    perm[order] = m.arange(order.size, dtype=m.int32)
    return perm


def hubs(G, by="out"):
    """Boolean mask of the hubs: degree above the average."""
    # above arcs / n, the mean of either degree (no reduction, no wait for the device), tested in integers
    return _degrees(G, by) * G.n > G.nnz


def degree_sort(G, by="out"):
    """Every vertex by decreasing degree (ties keep their order)."""
    deg = _degrees(G, by)
    return _perm_from_order(xp(deg).argsort(-deg, kind="stable"))


def hub_sort(G, by="out"):
    """Hubs first by decreasing degree; the other vertices keep their relative order."""
    deg = _degrees(G, by)
    m = xp(deg)
    h = hubs(G, by)
    hub_ids = m.flatnonzero(h)
    hub_ids = hub_ids[m.argsort(-deg[hub_ids], kind="stable")]
    return _perm_from_order(m.concatenate([hub_ids, m.flatnonzero(~h)]))


def hub_cluster(G, by="out"):
    """Hubs first in their original order, then the rest: the cheapest grouping."""
    h = hubs(G, by)
    m = xp(h)
    return _perm_from_order(m.concatenate([m.flatnonzero(h), m.flatnonzero(~h)]))


def dbg(G, by="out"):
    """Degree-based grouping (Faldu et al., IISWC'19): groups of degree in [2^k, 2^(k+1)) times the
    average, k from -1 (and below) to 5 (and above), hottest group first, original order inside."""
    deg = _degrees(G, by)
    m = xp(deg)
    avg = max(G.nnz / G.n, 1e-12) if G.n else 1.0  # the mean of either degree, as in hubs()
    group = m.clip(m.floor(m.log2(m.maximum(deg, 1e-12) / avg)), -1, 5).astype(m.int64)
    group[deg == 0] = -2  # vertices without edges last
    return _perm_from_order(m.argsort(-group, kind="stable"))


def rcm(G, by="out"):
    """Reverse Cuthill-McKee on the symmetrised structure (SciPy's implementation)."""
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    if G.n == 0:
        return np.zeros(0, np.int32)
    A = G.to_scipy()
    A = (A + A.T).tocsr() if G.directed else A
    return _perm_from_order(np.asarray(reverse_cuthill_mckee(A, symmetric_mode=True), dtype=np.int64))


def packing_factor(G, by="out", *, line_bytes=64, value_bytes=4):
    """Algorithm 3 of the thesis: cache lines holding at least one hub in the current order, over
    ceil(hubs / vertices per line). 1 means hubs are already packed; large values predict gains.
    One pass over the degrees; on the device, one launch and one read-back."""
    per_line = max(line_bytes // value_bytes, 1)
    if G._device is not None and xp(G._device.offsets) is not np:
        n_hubs, lines_with_hub = _hub_lines_cuda(G, by, per_line)
    else:
        h = hubs(G, by)
        lines = np.concatenate([h, np.zeros(-h.size % per_line, bool)]).reshape(-1, per_line)
        n_hubs, lines_with_hub = int(h.sum()), int(lines.any(axis=1).sum())
    return lines_with_hub / -(-n_hubs // per_line) if n_hubs else 1.0


#: hubs among the vertices of line i (on the device): the same test as hubs(), degree * n > arcs
_LINE_HUBS = """
__device__ __forceinline__ int gravel_line_hubs(const long long *offsets, long long i, long long per_line,
                                                 long long n, long long arcs) {
    const long long end = min((i + 1) * per_line, n);
    int hubs = 0;
    for (long long v = i * per_line; v < end; ++v) hubs += (offsets[v + 1] - offsets[v]) * n > arcs;
    return hubs;
}
"""
#: its two sums: the hubs, and the lines that hold one
_LINE_HUB_TERMS = ("gravel_line_hubs(offsets, i, per_line, nv, arcs)",
                   "gravel_line_hubs(offsets, i, per_line, nv, arcs) > 0")


def _hub_lines_cuda(G, by, per_line):
    """(hubs, lines holding a hub) of a graph on the device: one compute_sums launch over the lines
    (CuPy's mask, pad, reshape and reductions took about ten launches, 0.9 ms on USA-road-NE)."""
    from .operators import compute_sums

    params = {"offsets": _device_offsets(G._device, by), "per_line": np.int64(per_line), "nv": np.int64(G.n),
              "arcs": np.int64(G.nnz)}
    sums = compute_sums(None, _LINE_HUB_TERMS, params=params, n=-(-G.n // per_line), preamble=_LINE_HUBS)
    return (int(x) for x in sums.get())  # sync: the two counts


#: every order by name (besides "auto")
ORDERS = {"degree": degree_sort, "hub_sort": hub_sort, "hub_cluster": hub_cluster, "dbg": dbg, "rcm": rcm}
METHODS = tuple(ORDERS)


def predicted_gain(pf, *, staged=False):
    """The share of a PageRank iteration that reordering should save on the GPU at packing factor `pf`:
    a hub sort's (GPU_GAIN), or a degree sort's where the sweeps stage (STAGED_GAIN)."""
    xs, ys = zip(*(STAGED_GAIN if staged else GPU_GAIN))
    return float(np.interp(pf, xs, ys))


def sweeps_stage(G):
    """Is `G` on the GPU, with vertex data large enough that its pull sweeps stage in shared memory
    (``blocking="auto"``)?"""
    from .blocking import resolve_width

    return G._device is not None and resolve_width("auto", G._device, staged=True) is not None


def auto_method(G):
    """The order ``reorder(G, "auto")`` applies where it reorders: a degree sort where the sweeps stage
    (:func:`sweeps_stage`), else a hub sort, the thesis's."""
    return "degree" if sweeps_stage(G) else "hub_sort"


def worth_reordering(G, sweeps=None, *, by="out", threshold=None):
    """Should `G` be reordered (by :func:`auto_method`)? Its packing factor must exceed `threshold`
    (default: the thesis's 4 on the host, GPU_PF_THRESHOLD where the graph is on the GPU). On the GPU,
    given `sweeps` (the sweeps over the edges the caller will run, in PageRank iterations), the
    iterations they should save (:func:`predicted_gain` of each) must also pay for the reordering
    (GPU_REORDER_SWEEPS, or STAGED_REORDER_SWEEPS where the sweeps stage). Costs one pass over the
    degrees (one launch)."""
    if sweeps is not None and not sweeps >= 0:
        raise ValueError(f"sweeps must be a count of sweeps, at least 0, not {sweeps!r}")
    on_gpu = G._device is not None
    if threshold is None:
        threshold = GPU_PF_THRESHOLD if on_gpu else PF_THRESHOLD
    pf = packing_factor(G, by)
    if pf <= threshold:
        return False
    if sweeps is None or not on_gpu:
        return True
    staged = sweeps_stage(G)
    return sweeps * predicted_gain(pf, staged=staged) > (STAGED_REORDER_SWEEPS if staged else GPU_REORDER_SWEEPS)


def reorder(G, method="auto", *, by="out", threshold=None, sweeps=None):
    """`G` relabelled by `method` (one of METHODS), transparently: algorithms on the result return the
    caller's ids. ``"auto"`` applies :func:`auto_method` where :func:`worth_reordering` says so
    (`threshold`, `sweeps`), else returns `G` itself."""
    if method == "auto":
        return reorder(G, auto_method(G), by=by) if worth_reordering(G, sweeps, by=by, threshold=threshold) else G
    if method not in ORDERS:
        raise UnknownNameError(f"unknown reordering {method!r} (expected auto or one of {', '.join(METHODS)})")
    return relabel(G, ORDERS[method](G, by), transparent=True)

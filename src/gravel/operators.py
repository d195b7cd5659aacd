"""Gunrock's operators on the GPU: advance, filter, compute, neighbor_reduce, intersect.

Each operator takes a DeviceGraph (``G.to("cuda")``) and frontiers, plus a user functor: a CUDA C++
expression over named variables, as CuPy's ElementwiseKernel takes them, spliced into the operator's
kernel. Extra device arrays and scalars are passed by name in ``params`` and appear under those names
in the expression; ``preamble`` may define helper functions. Examples (BFS)::

    advance(dg, front, "atomicCAS(&depth[dst], -1, level) == -1",
            params={"depth": depth, "level": np.int32(d)})

Each functor is evaluated in a scope of its own (its documented names and the params), so user names
cannot collide with a kernel's locals; they must not repeat the functor's own names (src, dst, edge,
weight, step; v, i; u) nor start with ``gravel_``. Load balancing is a
strategy of advance (:class:`LoadBalance`); ``"auto"`` picks one from the frontier
size and degrees (see :func:`choose_load_balance`).

Beyond Gunrock: :func:`advance_steps` runs many advance steps in one cooperative launch (a grid-wide
barrier between steps, every step's frontier kept in a :class:`~gravel.frontier.FrontierQueue`), for the
thousands of thin levels of road graphs and meshes, and :func:`advance_replay` walks recorded frontiers
again, in reverse if asked (Brandes' backward pass).
"""

import enum
import functools

import numpy as np

from .backends.cuda import runtime
from .errors import UnknownNameError
from .frontier import Frontier

BLOCK = 256
#: edges per merge-path tile (4 per thread)
MERGE_TILE = 4 * BLOCK
_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long", np.dtype(np.float32): "float",
           np.dtype(np.float64): "double", np.dtype(np.uint32): "unsigned int",
           np.dtype(np.uint64): "unsigned long long", np.dtype(np.uint8): "unsigned char",
           np.dtype(np.int8): "signed char", np.dtype(np.bool_): "bool"}


class LoadBalance(enum.Enum):
    """How advance maps a frontier's edges to threads."""

    THREAD = "thread_mapped"     #: one thread per frontier vertex
    TWC = "twc"                  #: thread / warp / CTA by list length
    LB_INPUT = "block_mapped"    #: block scans its input items' degrees, threads share the edges
    LB = "merge_path"            #: one thread per output edge, sorted search in the scanned degrees
    LB_CULL = "lb_cull"          #: LB fused with exact duplicate culling (needs `visited`)


class Output(enum.Enum):
    NONE = 0
    VERTEX = 1
    EDGE = 2
    BITMAP = 3


# -- user functors ----------------------------------------------------------------------------------------
def _ctype(x):
    dt = x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype
    try:
        return _CTYPES[np.dtype(dt)]
    except KeyError:
        raise UnknownNameError(f"unsupported parameter dtype {dt}") from None


# The macros through which each kernel takes its functor (see common.cuh and the operator's headers)
ADVANCE_OP = "GRAVEL_ADVANCE_OP(src, dst, edge, weight, step)"
PULL_WHERE = "GRAVEL_PULL_WHERE(v)"
FILTER_OP = "GRAVEL_FILTER_OP(v, i)"
COMPUTE_OP = "GRAVEL_COMPUTE_OP(v, i)"
SUMS_OP = "GRAVEL_SUMS_OP(v, i, s)"
NR_VALUE, NR_REDUCE, NR_APPLY = ("GRAVEL_NR_VALUE(v, u, edge, weight)", "GRAVEL_NR_REDUCE(a, b)",
                                 "GRAVEL_NR_APPLY(v, i, acc, out)")
NR_SUMS = "GRAVEL_NR_SUMS"


def prelude(decls, macros, preamble=""):
    """The source put before a kernel: the user parameters `decls`, (C type, name) pairs, then the
    operator's `macros` and the user's `preamble`. Kernels take the parameters prefixed, so no kernel
    local can shadow them; the functor's own function takes them under the user's names."""
    lines = [f"#define GRAVEL_USER_PARAMS {''.join(f', {t} gravel_p_{n}' for t, n in decls)}",
             f"#define GRAVEL_USER_ARGS {''.join(f', gravel_p_{n}' for _, n in decls)}",
             f"#define GRAVEL_USER_FN_PARAMS {''.join(f', {t} {n}' for t, n in decls)}"]
    lines += [f"#define {k} {v}" for k, v in macros.items()]
    return "\n".join(lines) + "\n" + preamble + "\n"


def _functor(params, macros, preamble=""):
    """(prelude source, extra kernel arguments) for user parameters and operator macros."""
    import cupy

    decls, args = [], []
    for name, value in (params or {}).items():
        if isinstance(value, cupy.ndarray):
            decls.append((f"{_ctype(value)}*", name))
        elif isinstance(value, np.generic):
            decls.append((_ctype(value), name))
        else:
            raise TypeError(f"parameter {name!r}: pass a CuPy array or an explicit NumPy scalar "
                            f"(np.int32(...)), not {type(value).__name__}")
        args.append(value)
    return prelude(decls, macros, preamble), tuple(args)


def _counter():
    import cupy

    return cupy.zeros(1, dtype=cupy.uint64)


def _read(counter):
    return int(counter.get()[0])  # sync: the output length, 8 bytes


# -- advance ----------------------------------------------------------------------------------------------
#: frontiers up to this many items have their degrees scanned by one block (frontier/degree_scan.cu)
SCAN_IN_ONE_BLOCK = 16384


def degree_scan(graph, ids):
    """Exclusive scan of the out-degrees of the frontier's vertices (length n + 1, int64)."""
    import cupy

    scan = cupy.empty(ids.size + 1, dtype=cupy.int64)
    if ids.size <= SCAN_IN_ONE_BLOCK:
        runtime.kernel("frontier/degree_scan.cu", "gravel_degree_scan_block", templates=(1024,))(
            1, 1024, (graph.offsets, ids, np.int64(ids.size), scan))
    else:
        degrees = cupy.empty(ids.size, dtype=cupy.int64)
        runtime.kernel("frontier/degree_scan.cu", "gravel_frontier_degrees")(
            runtime.blocks_for(ids.size, BLOCK, resident=8), BLOCK, (graph.offsets, ids, np.int64(ids.size), degrees))
        scan[0] = 0
        cupy.cumsum(degrees, out=scan[1:])
    return scan


def choose_load_balance(graph, n_frontier):
    """Gunrock's rule: merge-path LB on graphs of average degree >= 5, TWC otherwise.

    Measured (benchmarks/operators.py, H200, 2026-11-26, kron:24:16 as generated and degree-sorted,
    grid:4096x4096, frontiers of 0.1 % to 100 %; results/2026-11-26-h200-operators.json): on kron, LB was
    best or within 4 % of the best in every cell; TWC was best at 100 % as generated (5.38 vs 5.59 ms)
    but 3-23x slower than LB once hubs sit next to each other (degree-sorted: its block-wide phase walks
    a block's hubs one after another), so TWC for small frontiers, tried first, is not used (it put auto
    at 1.70x the best; results/2026-11-26-h200-operators-twc-small-frontiers.json). LB over the inputs
    (Gunrock's choice under 4096 items) was never best on kron. On the grid, TWC, thread-mapped and LB
    over the inputs tie, and LB pays its scan. Decided from the graph's average degree: no device sync.
    """
    return LoadBalance.LB if graph.nnz >= 5 * graph.n else LoadBalance.TWC


def advance(graph, frontier, op="true", *, params=None, output="vertex", strategy="auto", visited=None,
            capacity=None, preamble=""):
    """Visit every out-edge (src -> dst) of the frontier's vertices; `op` sees ``src, dst, edge,
    weight`` and the `params`; where it is true, ``dst`` (output="vertex") or ``edge`` ("edge") joins
    the output frontier. ``output=None`` returns None (a pure visit, with no host sync).

    `visited` (uint32 bitmap) with strategy LB_CULL emits each destination once. `capacity` bounds the
    output size when the caller knows one (n, for a functor that claims each vertex once): the
    frontier's degrees then need no scan and no sync, except under merge-path LB.
    """
    import cupy

    out_kind = {None: Output.NONE, "vertex": Output.VERTEX, "edge": Output.EDGE}[output]
    ids = frontier.ids
    nf = ids.size
    lb = _strategy(strategy) or choose_load_balance(graph, nf)
    if lb is LoadBalance.LB_CULL and visited is None:
        raise ValueError("LB_CULL needs a visited bitmap")
    merge = lb in (LoadBalance.LB, LoadBalance.LB_CULL)
    scan, total = None, None
    if merge or (out_kind is not Output.NONE and capacity is None):
        if frontier.every_vertex and frontier.n == graph.n:
            scan, total = graph.offsets, graph.nnz  # no scan, no sync
        else:
            scan = degree_scan(graph, ids)
            total = int(scan[-1])  # sync: sizes the output (and the merge-path grid)
        if not total:
            nf = 0
    out_t = cupy.int64 if out_kind is Output.EDGE else cupy.int32
    cap = 0 if out_kind is Output.NONE else (total if capacity is None else int(capacity))
    out = cupy.empty(max(cap, 1), dtype=out_t)
    length = _counter()
    prelude, extra = _functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    templates = (out_kind.value, "long long" if out_t == cupy.int64 else "int")
    common = _lists(graph.offsets, graph.indices, graph.weights) + (ids, np.int64(nf), out, length, np.uint64(cap))
    if nf and merge:
        tiles = -(-total // MERGE_TILE)
        part = cupy.empty(tiles + 1, dtype=cupy.int64)
        runtime.kernel("advance/merge_path.cu", "gravel_merge_path_partition")(
            runtime.blocks_for(tiles + 1, BLOCK, resident=4), BLOCK,
            (scan, np.int64(nf), np.int64(total), np.int64(MERGE_TILE), np.int64(tiles), part))
        k = runtime.kernel("advance/merge_path.cu", "gravel_advance_merge_path",
                           templates=templates + (BLOCK, MERGE_TILE // BLOCK), prelude=prelude)
        cull = lb is LoadBalance.LB_CULL
        k(min(tiles, 8 * runtime.props().sm_count * 8), BLOCK,
          common + (scan, np.int64(total), part, visited if cull else _dummy(cupy.uint32), np.int32(cull))
          + extra)
    elif nf and lb is LoadBalance.LB_INPUT:
        k = runtime.kernel("advance/block_mapped.cu", "gravel_advance_block_mapped",
                           templates=templates + (BLOCK,), prelude=prelude)
        k(runtime.blocks_for(nf, BLOCK, resident=8), BLOCK, common + extra)
    elif nf:
        k = runtime.kernel(f"advance/{lb.value}.cu", f"gravel_advance_{lb.value}", templates=templates,
                           prelude=prelude)
        k(runtime.blocks_for(nf, BLOCK, resident=8), BLOCK, common + extra)
    if out_kind is Output.NONE:
        return None
    n_out = _read(length)
    if n_out > cap:
        raise RuntimeError(f"advance produced {n_out} items, more than capacity={cap}")
    return Frontier(graph.n, ids=out, length=n_out)


#: threads per block of the multi-step kernels, and the blocks per SM their launch bounds guarantee
STEPS_BLOCK, STEPS_BLOCKS_PER_SM = 256, 4
_STEPS_TEMPLATES = (STEPS_BLOCK, STEPS_BLOCKS_PER_SM)
#: blocks per SM for runs of thin frontiers: the grid-wide barrier costs less with fewer blocks (a
#: 4096x4096 grid from its centre, H200, 2026-11-26: 9.5 us per step with 1, 11.1 with 4)
THIN_BLOCKS_PER_SM = 1


def steps_fit(G):
    """Should BFS and BC run levels in multi-step launches on `G`? Only where no list is longer than a
    block. Steps spread long lists over every block, which made SSSP on kron:22 faster (12.9 -> 11.1
    ms); with this gate open, kron:22's BFS neither won nor lost (1.15 against 1.14 ms), BC from 4
    sources lost (29.0 -> 43.3 ms) and k-core won (224 -> 154 ms, so it always runs multi-step; H200,
    2026-11-26, scripts/probe_steps_gate.py)."""
    return G.max_out_degree <= STEPS_BLOCK


def steps_width(blocks_per_sm=STEPS_BLOCKS_PER_SM):
    """Threads of one multi-step launch: a step's frontier up to this size takes one chunk per block."""
    return STEPS_BLOCK * blocks_per_sm * runtime.props().sm_count


def _steps_grid(blocks_per_sm):
    """Blocks of a multi-step launch: a cooperative launch must fit the device at once."""
    if not 1 <= blocks_per_sm <= STEPS_BLOCKS_PER_SM:
        raise ValueError(f"blocks_per_sm must lie in [1, {STEPS_BLOCKS_PER_SM}], not {blocks_per_sm}")
    return blocks_per_sm * runtime.props().sm_count


def advance_steps(graph, queue, op="true", *, params=None, limit=None, max_steps=None, step_bound=0,
                  blocks_per_sm=STEPS_BLOCKS_PER_SM, preamble=""):
    """Advance repeatedly in one cooperative launch: each step's output frontier is the next step's
    input, with a grid-wide barrier in between, so a run of thin levels costs one launch and one host
    round trip instead of one per level. `queue` (a :class:`FrontierQueue`) supplies the input as its
    last segment and receives every step's output as a new segment. The functor also sees ``step``
    (0, 1, ... within this call); a destination joins the output where it returns true.

    Stops after a step whose output is empty or holds more than `limit` items (default: the launch's
    thread count), after `max_steps` steps, or when fewer than `step_bound` entries of the queue remain.
    `blocks_per_sm` (1 to STEPS_BLOCKS_PER_SM) sizes the launch: fewer blocks make the grid-wide barrier
    cheaper, more hide latency on large frontiers. Returns the number of steps run. Raises RuntimeError
    if an output overflowed the queue.
    """
    import cupy

    grid = _steps_grid(blocks_per_sm)
    limit = steps_width(blocks_per_sm) if limit is None else int(limit)
    max_steps = (1 << 30) if max_steps is None else int(max_steps)
    if max_steps < 1 or not len(queue.last):
        return 0
    # bounds[s + 2] = end of step s's output; the room bounds the steps that can append anything
    slots = min(max_steps, queue.room + 1)
    bounds = cupy.empty(slots + 2, dtype=cupy.int64)
    status = cupy.zeros(2, dtype=cupy.int64)
    counts = cupy.zeros(3, dtype=cupy.uint64)
    prelude, extra = _functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    k = runtime.kernel("advance/steps.cu", "gravel_advance_steps", templates=_STEPS_TEMPLATES, prelude=prelude,
                       cooperative=True)
    begin, end = queue.bounds[-2], queue.bounds[-1]
    k(grid, STEPS_BLOCK,
      _lists(graph.offsets, graph.indices, graph.weights)
      + (queue.buffer, np.int64(queue.capacity), np.int64(begin), np.int64(end), bounds, np.int32(slots),
         np.int64(limit), np.int64(step_bound), counts, status) + _steps_longs(graph) + extra)
    steps, overflow = (int(x) for x in status.get())  # sync: how far it got
    if overflow:
        raise RuntimeError(f"advance_steps: a step's output overflowed the queue of {queue.capacity}")
    queue.bounds += bounds[2:steps + 2].get().tolist()
    return steps


def advance_replay(graph, queue, op, *, first=0, last=None, reverse=False, params=None,
                   blocks_per_sm=STEPS_BLOCKS_PER_SM, preamble=""):
    """Advance over the queue's segments first..last-1 (in reverse order if asked), one after the other
    in one cooperative launch, with no output; the functor sees the segment's index as ``step``."""
    import cupy

    grid = _steps_grid(blocks_per_sm)
    last = len(queue) if last is None else int(last)
    if last <= first:
        return
    bounds = cupy.asarray(np.asarray(queue.bounds, dtype=np.int64))
    prelude, extra = _functor(params, {ADVANCE_OP: f"({op})"}, preamble)
    k = runtime.kernel("advance/steps.cu", "gravel_advance_replay", templates=_STEPS_TEMPLATES, prelude=prelude,
                       cooperative=True)
    k(grid, STEPS_BLOCK,
      _lists(graph.offsets, graph.indices, graph.weights) + (queue.buffer, bounds, np.int32(first), np.int32(last),
                                                             np.int32(reverse)) + _steps_longs(graph) + extra)


def _steps_longs(graph):
    """The multi-step kernels' arguments for the long lists a step sets aside (LONG_LIST entries or
    more, see advance/steps.cu): a buffer with room for every such list (at most nnz / LONG_LIST; the
    buffer is kept in graph.derived), its room, the threshold and three zeroed counters."""
    import cupy

    cap = graph.nnz // LONG_LIST + 1
    if len(graph.derived.get("steps_longs", ())) < cap:
        graph.derived["steps_longs"] = cupy.empty(cap, dtype=cupy.int32)
    return (graph.derived["steps_longs"], np.int64(cap), np.int64(LONG_LIST), cupy.zeros(3, dtype=cupy.uint64))


@functools.cache
def _dummy(dtype):
    """A one-element device array for pointer arguments a kernel will not read."""
    import cupy

    return cupy.zeros(1, dtype=dtype)


def _lists(offsets, indices, weights):
    """The neighbour lists as every traversal kernel takes them: offsets, ids, weights (a stand-in
    when there are none) and whether there are."""
    import cupy

    return offsets, indices, weights if weights is not None else _dummy(cupy.float32), np.int32(weights is not None)


def _strategy(strategy):
    if strategy == "auto":
        return None
    if isinstance(strategy, LoadBalance):
        return strategy
    for lb in LoadBalance:
        if strategy in (lb.value, lb.name, lb.name.lower()):
            return lb
    raise UnknownNameError(f"unknown load-balancing strategy {strategy!r} "
                           f"(expected auto or one of {', '.join(lb.name.lower() for lb in LoadBalance)})")


def advance_pull(graph, frontier, candidates=None, op="true", *, where=None, params=None, output="vertex",
                 preamble=""):
    """Pull step: each candidate vertex v (those of the `candidates` frontier, or every vertex when it is
    None) for which `where` (an expression over ``v``) holds scans its in-edges (src -> v) for a src in
    `frontier` and stops at the first for which `op` holds (``dst`` is v in the expression); v then joins
    the output. ``output="bitmap"`` returns a dense frontier, counted as it is made (no popcount)."""
    import cupy

    front = frontier.to_dense().bitmap
    ids, count, all_ = _items(candidates, graph.n)
    in_off, in_idx, in_w = graph.csc()
    out_kind = {None: Output.NONE, "vertex": Output.VERTEX, "edge": Output.EDGE, "bitmap": Output.BITMAP}[output]
    if out_kind is Output.BITMAP:
        out, out_t = cupy.zeros((graph.n + 31) // 32, dtype=cupy.uint32), "unsigned int"
    else:
        out = cupy.empty(max(count, 1), dtype=cupy.int64 if out_kind is Output.EDGE else cupy.int32)
        out_t = _CTYPES[out.dtype]
    length = _counter()
    macros = {ADVANCE_OP: f"({op})", PULL_WHERE: f"({where or 'true'})"}
    prelude, extra = _functor(params, macros, preamble)
    k = runtime.kernel("advance/pull.cu", "gravel_advance_pull", templates=(out_kind.value, out_t), prelude=prelude)
    if count:
        k(runtime.blocks_for(count, BLOCK, resident=8), BLOCK,
          _lists(in_off, in_idx, in_w) + (ids, np.int32(all_), np.int64(count), front, out, length,
                                          np.uint64(out.size)) + extra)
    if out_kind is Output.NONE:
        return None
    if out_kind is Output.BITMAP:
        return Frontier(graph.n, bitmap=out, length=_read(length))
    return Frontier(graph.n, ids=out, length=_read(length))


# -- filter, compute --------------------------------------------------------------------------------------
def filter(frontier, predicate="true", *, params=None, mode="compact", visited=None, preamble=""):
    """Keep the items ``v`` (at position ``i``) for which `predicate` holds.

    ``mode="compact"``: exact and order-preserving (the predicate is evaluated once per item).
    ``mode="cull"``: Gunrock's inexact culling with the `visited` bitmap and warp history hashes, for
    idempotent traversals: items already visited are dropped; a few duplicates may remain.
    """
    import cupy

    ids = frontier.ids
    n = ids.size
    prelude, extra = _functor(params, {FILTER_OP: f"({predicate})"}, preamble)
    if mode == "cull":
        if visited is None:
            raise ValueError("mode='cull' needs a visited bitmap")
        out = cupy.empty(max(n, 1), dtype=cupy.int32)
        length = _counter()
        k = runtime.kernel("filter/cull.cu", "gravel_filter_cull", prelude=prelude)
        if n:
            k(runtime.blocks_for(n, BLOCK, resident=8), BLOCK,
              (ids, np.int64(n), visited, out, length, np.uint64(out.size)) + extra,
              shared_mem=(BLOCK // 32) * 128 * 4)
        return Frontier(frontier.n, ids=out, length=_read(length))
    if mode != "compact":
        raise UnknownNameError(f"unknown filter mode {mode!r} (expected compact or cull)")
    blocks = runtime.blocks_for(n, BLOCK)
    flags = cupy.empty(max(n, 1), dtype=cupy.uint8)
    counts = cupy.zeros(blocks + 1, dtype=cupy.int64)
    if n:
        runtime.kernel("filter/compact.cu", "gravel_filter_flags", templates=(BLOCK,), prelude=prelude)(
            blocks, BLOCK, (ids, np.int64(n), flags, counts[1:]) + extra)
    offsets = cupy.cumsum(counts)
    kept = int(offsets[-1])  # sync: output size
    out = cupy.empty(max(kept, 1), dtype=cupy.int32)
    if n:
        runtime.kernel("filter/compact.cu", "gravel_filter_write", templates=(BLOCK,), prelude=prelude)(
            blocks, BLOCK, (ids, np.int64(n), flags, offsets, out))
    return Frontier(frontier.n, ids=out, length=kept)


def compute(frontier, op, *, params=None, n=None, preamble=""):
    """Run `op` (a statement over ``v`` and ``i``) on every frontier item, or on every vertex 0..n-1
    when `frontier` is None."""
    prelude, extra = _functor(params, {COMPUTE_OP: f"{{ {op}; }}"}, preamble)
    k = runtime.kernel("compute/compute.cu", "gravel_compute", prelude=prelude)
    ids, count, all_ = _items(frontier, n)
    if count:
        k(runtime.blocks_for(count, BLOCK, resident=8), BLOCK, (ids, np.int32(all_), np.int64(count)) + extra)


def compute_sums(frontier, terms, *, op=None, params=None, n=None, preamble=""):
    """Sums of the expressions `terms` (over ``v`` and ``i``) over every frontier item, or every vertex
    0..n-1 when `frontier` is None, in float64 and in one launch: a device array, one sum per term, read
    back by the caller when it needs them (no sync here). `op`, a statement, runs on each item first,
    in the terms' scope (they see its locals): compute and sums in one pass."""
    import cupy

    body = sums_op(terms) if op is None else f"{{ {op}; {sums_op(terms)} }}"
    prelude, extra = _functor(params, {SUMS_OP: body}, preamble)
    k = runtime.kernel("compute/sums.cu", "gravel_compute_sums", templates=(len(terms), BLOCK), prelude=prelude)
    out = cupy.zeros(len(terms), dtype=cupy.float64)
    ids, count, all_ = _items(frontier, n)
    if count:
        k(runtime.blocks_for(count, BLOCK, resident=4), BLOCK, (ids, np.int32(all_), np.int64(count), out) + extra)
    return out


def sums_op(terms, into="s"):
    """compute_sums' functor: each of `terms` added to its sum in the array `into`."""
    adds = " ".join(f"{into}[{k}] += (double)({t});" for k, t in enumerate(terms))
    return f"{{ {adds} }}"


def _items(frontier, n):
    """(ids, count, all) kernel arguments for the items of `frontier`, or every vertex 0..n-1 if None."""
    import cupy

    if frontier is None:
        return _dummy(cupy.int32), n, 1
    return frontier.ids, len(frontier), 0


# -- neighbor reduce --------------------------------------------------------------------------------------
_REDUCE = {"sum": ("(a) + (b)", 0), "min": ("min((a), (b))", 1), "max": ("max((a), (b))", 2)}
_IDENTITY = {"sum": lambda dt: 0, "min": lambda dt: np.finfo(dt).max if dt.kind == "f" else np.iinfo(dt).max,
             "max": lambda dt: np.finfo(dt).min if dt.kind == "f" else np.iinfo(dt).min}


def lanes_per_item(mean_degree):
    """Lanes that share one neighbour list in pull neighbor_reduce: the power of two nearest above the
    mean degree, at most a warp (cuSPARSE's CSR-vector rule)."""
    return int(min(32, max(1, 1 << int(np.ceil(np.log2(max(mean_degree, 1.0)))))))


def neighbor_reduce(graph, frontier, value, reduce="sum", *, dtype=np.float32, identity=None, direction="pull",
                    apply=None, sums=None, params=None, preamble="", blocking=None):
    """Reduce `value` (an expression over ``v, u, edge, weight``, or a device array x of n values,
    which means ``x[u]``) over neighbour lists.

    ``direction="pull"``: ``out[i]`` reduces over the in-edges (u -> v) of item v of `frontier` (every
    vertex when None); `reduce` is "sum", "min", "max" or an expression over ``a`` and ``b`` (then
    `identity` is required). `apply`, a statement over ``v, i, acc`` and the params, replaces the
    write of ``out[i] = acc`` (then nothing is returned): the vertex update fused into the reduction.
    `sums`, expressions over the same names and the locals of `apply` (which it needs), are summed in
    float64 over every applied item, in the same pass: then a device array of their sums is returned
    (no sync), as :func:`compute_sums` would give after the sweep without reading its results again.
    Each CTA adds its share (shuffles, a barrier, an atomic): on an unblocked sweep over a large graph,
    millions of short CTAs, that costs more than a compute_sums pass of its own (PageRank's update on
    kron:25 as generated, H200: 15.6 against 13.0-14.0 ms per iteration).
    `blocking` (pull over every vertex): None, "auto" (see :func:`gravel.blocking.resolve_width`) or a
    block width in vertices: GraphCage's cache-blocked sweep, a reduction per (source block, vertex)
    row and a merge in shared memory (:mod:`gravel.blocking`; the layout is built on first use and kept
    with the graph). Its ``edge`` is the position in that layout, its ``weight`` the edge's weight.
    With a value array and a sum, min or max in float32, float64 or int32, widths up to
    :func:`gravel.blocking.shared_width` (the "auto" choice for arrays) stage each block's slice of x
    in shared memory (:class:`gravel.blocking.StagedPull`; an own layout, also kept with the graph).
    ``direction="push"``: every out-edge (u -> v) of a frontier item u folds into ``out[v]`` (length n)
    with an atomic; `reduce` must be sum, min or max.
    """
    import cupy

    from .blocking import resolve_width, stages

    dt = np.dtype(dtype)
    x = None
    if not isinstance(value, str):
        x = cupy.asarray(value)
        if x.shape != (graph.n,):
            raise ValueError(f"a value array holds one value per vertex ({graph.n}), not shape {x.shape}")
        params, value = {**(params or {}), _VALUE_ARRAY: x}, f"{_VALUE_ARRAY}[u]"
    ctype = _CTYPES[dt]
    if reduce in _REDUCE:
        expr, op_id = _REDUCE[reduce]
        if identity is None:
            identity = _IDENTITY[reduce](dt)
    else:
        expr, op_id = reduce, None
        if identity is None:
            raise ValueError("a custom reduce expression needs an identity")
    macros = {NR_VALUE: f"(({ctype})({value}))", NR_REDUCE: f"({expr})"}
    if sums and apply is None:
        raise ValueError("sums are taken over what apply computes: pass apply too")
    if apply is not None:
        if direction != "pull":
            raise ValueError("apply is supported by pull neighbor_reduce")
        macros[NR_APPLY] = f"{{ {apply}; {sums_op(sums or (), 'gravel_s')} }}"
    if sums:
        totals = cupy.zeros(len(sums), dtype=cupy.float64)
        params, macros[NR_SUMS] = {**(params or {}), _SUMS_ARRAY: totals}, str(len(sums))
    if blocking is not None and (direction != "pull" or frontier is not None):
        raise ValueError("blocking applies to a pull over every vertex (frontier=None)")
    stageable = x is not None and op_id is not None and dt in _STAGED_TYPES
    width = resolve_width(blocking, graph, dt.itemsize, staged=stageable)
    ids, count, all_ = _items(frontier, graph.n)
    if direction == "pull":
        out = cupy.empty(count, dtype=dt) if apply is None else _dummy(dt)
        if stageable and stages(width, dt.itemsize):
            _staged_pull(graph, width, x.astype(dt, copy=False), op_id, macros, params, preamble, dt, identity, out)
        elif width is not None:
            _blocked_pull(graph, width, macros, params, preamble, dt, identity, out)
        else:
            prelude, extra = _functor(params, macros, preamble)
            if frontier is None:
                _sweep(graph, dt, identity, out, prelude, extra)
            else:
                _pull(graph.csc(), ids, 0, False, count, dt, identity, out, prelude, extra, STRIDING)
        return out if apply is None else totals if sums else None
    if direction != "push":
        raise UnknownNameError(f"unknown direction {direction!r} (expected pull or push)")
    if op_id is None:
        raise ValueError("push neighbor_reduce supports sum, min and max (atomics)")
    prelude, extra = _functor(params, macros, preamble)
    out = cupy.full(graph.n, identity, dtype=dt)
    k = runtime.kernel("neighbor_reduce/push.cu", "gravel_neighbor_reduce_push", templates=(ctype, op_id),
                       prelude=prelude)
    if count:
        k(runtime.blocks_for(count, BLOCK, resident=8), BLOCK,
          _lists(graph.offsets, graph.indices, graph.weights) + (ids, np.int32(all_), np.int64(count), out) + extra)
    return out


#: how the pull kernel's CTAs cover the items: (passes, resident). A CTA takes `passes` consecutive
#: stretches of items (one CTA pass each); `resident` caps the grid at that many waves of CTAs, which
#: then stride over the items (None: one pass over them, in order, so the items in flight stay close
#: together). Measured on an H200 (scripts/probe_pull_shape.py, benchmarks/results/*pull-shape*): no
#: shape wins everywhere. Striding CTAs win where the gathered values fit in the L2 (kron:22, 1.63
#: against 1.88 ms in one pass) and where the hubs come first (degree-sorted kron:25, 7.8 against 11.3
#: ms); one pass wins on larger graphs as given (kron:25 13.5 against 19.6 ms, urand:24 8.1 against 9.1
#: ms), where striding CTAs drift apart over the hub lists and the reads in flight spread over the
#: whole graph. CTAs sharing runs of stretches, each taking every k-th, never beat both (third day).
STRIDING, ONE_PASS = (1, 8), (1, None)
#: the blocked rows pass keeps its rows in flight inside one block's range, 16 stretches per CTA
#: (kron:25, the whole blocked sweep: 9.96 ms, against 17.6 striding and 14.6 one stretch per CTA)
ROWS_SHAPE = (16, None)


def pull_shape(graph, bytes_per_vertex=4):
    """The pull kernel's launch shape for a sweep over every vertex of `graph` (see STRIDING)."""
    from .blocking import hub_front

    fits = graph.n * bytes_per_vertex <= runtime.props().l2_bytes
    return STRIDING if fits or hub_front(graph) else ONE_PASS


#: a sweep over every vertex takes its lists in bins by length, each bin with its own lanes per list
#: (lanes_per_item of the bin's mean): the lists below BINS[0] entries, those below BINS[1], ...; lists
#: of LONG_LIST entries or more get a CTA each (pull_long.cu), as one group of lanes walking a hub's
#: hundred thousand entries would finish long after the rest of the sweep.
LONG_LIST = 2048
BINS = (8, LONG_LIST)


def list_bins(derived, key, offsets):
    """The bins of a sweep over the lists (offsets), found once and kept in `derived` under `key`: a
    list of (items, lanes), items None for every item; lanes None for the long lists' CTAs."""
    import cupy

    if (key, BINS) not in derived:
        degree = offsets[1:] - offsets[:-1]
        cls = cupy.searchsorted(cupy.asarray(BINS, degree.dtype), degree, side="right")
        bins = []
        for c in range(len(BINS) + 1):
            items = cupy.flatnonzero(cls == c).astype(cupy.int32)
            if items.size:
                long_ = BINS[c - 1] >= LONG_LIST if c else False
                bins.append((items, None if long_ else lanes_per_item(float(degree[items].mean()))))
        if len(bins) == 1 and bins[0][1] is not None:
            bins = [(None, bins[0][1])]
        derived[(key, BINS)] = bins
    return derived[(key, BINS)]


def _sweep(graph, dt, identity, out, prelude, extra):
    """Pull over every vertex's in-edges, bin by bin (list_bins)."""
    csc = graph.csc()
    shape = pull_shape(graph, dt.itemsize)
    for items, lanes in list_bins(graph.derived, "in", csc[0]):
        if lanes is None:
            k = runtime.kernel("neighbor_reduce/pull_long.cu", "gravel_neighbor_reduce_pull_long",
                               templates=(_CTYPES[dt], BLOCK), prelude=prelude)
            k(int(items.size), BLOCK, _lists(*csc) + (items, dt.type(identity), out) + extra)
        elif items is None:
            _pull(csc, _dummy(np.int32), 1, False, graph.n, dt, identity, out, prelude, extra, shape, lanes)
        else:
            _pull(csc, items, 0, False, items.size, dt, identity, out, prelude, extra, shape, lanes, sweep=True)


def _pull(csc, ids, all_, by_item, count, dt, identity, out, prelude, extra, shape, lanes=None, sweep=False):
    """Launch the pull kernel over `count` items of the lists (offsets, indices, weights) `csc`, `lanes`
    per list (default: from the mean list); `sweep`: the items are a bin of a sweep (results by vertex)."""
    off, idx, w = csc
    if not count:
        return
    passes, resident = shape
    vec = lanes or lanes_per_item(idx.size / max(off.size - 1, 1))
    grid = -(-count // (BLOCK // vec * passes))
    if resident is not None:
        grid = min(grid, runtime.blocks_for(grid * BLOCK, BLOCK, resident=resident))
    k = runtime.kernel("neighbor_reduce/pull.cu", "gravel_neighbor_reduce_pull", templates=(_CTYPES[dt], vec),
                       prelude=prelude)
    k(grid, BLOCK, _lists(off, idx, w) + (ids, np.int32(all_), np.int32(by_item), np.int32(sweep), np.int64(count),
                                          np.int32(passes), dt.type(identity), out) + extra)


def _blocked_pull(graph, width, macros, params, preamble, dt, identity, out):
    """GraphCage's blocked sweep: the rows pass (the pull kernel over the layout's rows, each writing
    its partial result) and the merge of each vertex's partials by tiles in shared memory."""
    import cupy

    from .blocking import pull_layout

    L = pull_layout(graph, width)
    partial = cupy.empty(L.rows, dtype=dt)
    rows_macros = {k: v for k, v in macros.items() if k not in (NR_APPLY, NR_SUMS)}  # rows write their partial
    prelude, extra = _functor(params, rows_macros, preamble)
    _pull((L.offsets, L.sources, L.weights), L.row_vertex, 0, True, L.rows, dt, identity, partial, prelude,
          extra, ROWS_SHAPE)
    prelude, extra = _functor(params, macros, preamble)
    k = runtime.kernel("neighbor_reduce/blocked_merge.cu", "gravel_neighbor_reduce_merge",
                       templates=(_CTYPES[dt], L.tile), prelude=prelude)
    k(runtime.blocks_for(L.tiles * BLOCK, BLOCK, resident=8), BLOCK,
      (L.tile_rows, np.int32(L.blocks), np.int64(L.tiles), L.row_vertex, partial, np.int64(graph.n),
       dt.type(identity), out) + extra)


#: the staged sweep's merge folds with shared-memory atomics, which these types have for sum, min, max
_STAGED_TYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int32))
#: the parameter name under which a value array reaches the kernels
_VALUE_ARRAY = "gravel_value_array"
#: ... and the array of the apply's sums (neighbor_reduce.cuh: gravel_nr_sums_put)
_SUMS_ARRAY = "gravel_sums_array"
#: threads per CTA of the staged gather (one CTA per SM: its block's slice fills the shared memory)
#: and merge (8 warps sharing a piece's segments; its __launch_bounds__ allow 256 threads at most)
STAGED_GATHER_BLOCK, STAGED_MERGE_BLOCK = 1024, 256


def _staged_pull(graph, width, x, op_id, macros, params, preamble, dt, identity, out):
    """The staged blocked sweep (gravel.blocking.StagedPull): the gather of each edge's x[u] through
    its block's slice in shared memory, reduced to one value per (block, destination) pair or copied
    per edge (staged_gather), then the merge of the pairs by destination tiles (apply fused there)."""
    import cupy

    from .blocking import STAGED_TILE_BYTES, staged_layout

    L = staged_layout(graph, width, STAGED_TILE_BYTES // dt.itemsize)
    value = staged_gather(L, x, macros[NR_REDUCE], dt, identity)
    # the sums of tiles cut into pieces, and their pieces done: the merge leaves them as it found them
    key = ("staged_merge", dt, op_id, L.tiles)
    if key not in graph.derived:
        graph.derived[key] = (cupy.full(graph.n, identity, dtype=dt), cupy.zeros(L.tiles, cupy.uint32))
    total, done = graph.derived[key]
    functor, extra = _functor(params, macros, preamble)
    k = runtime.kernel("neighbor_reduce/staged.cu", "gravel_staged_merge", templates=(_CTYPES[dt], op_id),
                       prelude=functor)
    k(runtime.blocks_for(L.pieces * STAGED_MERGE_BLOCK, STAGED_MERGE_BLOCK, resident=8), STAGED_MERGE_BLOCK,
      (L.piece_first, L.piece_tile, L.tile_pieces, np.int64(L.pieces), L.seg_start, L.seg_end, L.target, value,
       np.int32(L.tile), np.int64(graph.n), dt.type(identity), total, done, out) + extra,
      shared_mem=L.tile * dt.itemsize)


def staged_gather(L, x, reduce, dt, identity):
    """The staged sweep's first pass over layout `L`: x[u] of each edge, reduced by `reduce` (the
    GRAVEL_NR_REDUCE expression) over each pair, or copied where each edge is its own pair; one value
    per pair, a device array."""
    import cupy

    value = cupy.empty(L.pairs, dtype=dt)
    if not L.edges:
        return value
    if L.pairs == L.edges:
        k = runtime.kernel("neighbor_reduce/staged.cu", "gravel_staged_copy", templates=(_CTYPES[dt],))
        k(int(L.chunk_block.size), STAGED_GATHER_BLOCK,
          (L.chunk_edges, L.chunk_block, np.int64(L.chunk_block.size), L.local, x, np.int64(L.n),
           np.int32(L.width), value), shared_mem=L.width * dt.itemsize)
    else:
        from .blocking import STAGED_SPAN, STAGED_STAGE

        if L.span != STAGED_SPAN:
            raise ValueError(f"the staged gather takes spans of {STAGED_SPAN} edges, not {L.span}")
        k = runtime.kernel("neighbor_reduce/staged.cu", "gravel_staged_gather", templates=(_CTYPES[dt],),
                           prelude=prelude([], {NR_REDUCE: reduce}))
        warps = STAGED_GATHER_BLOCK // 32
        k(int(L.chunk_block.size), STAGED_GATHER_BLOCK,
          (L.chunk_edges, L.chunk_block, np.int64(L.chunk_block.size), L.local, L.ends, L.span_pair, x,
           np.int64(L.n), np.int32(L.width), dt.type(identity), value),
          shared_mem=(L.width + warps * STAGED_STAGE) * dt.itemsize)
    return value


# -- segmented intersection -------------------------------------------------------------------------------
#: lists up to this long are "small": merged by one thread
SMALL = 128
#: a pair whose shorter list exceeds this is intersected by a whole block
LARGE = 1024


def intersect(graph, us, vs):
    """|N(u) ∩ N(v)| for every pair (us[i], vs[i]) of sorted out-neighbour lists.

    Pairs are split three ways: both lists short (one thread merges), one short (one thread binary-
    searches the short list's elements in the long one), both long (one block per pair). Returns
    (per-pair counts as int64, total).
    """
    import cupy

    us = cupy.ascontiguousarray(cupy.asarray(us, dtype=cupy.int32))
    vs = cupy.ascontiguousarray(cupy.asarray(vs, dtype=cupy.int32))
    deg = graph.out_degree
    du, dv = deg[us], deg[vs]
    lo, hi = cupy.minimum(du, dv), cupy.maximum(du, dv)
    counts = cupy.empty(us.size, dtype=cupy.int64)  # every pair falls in one class and is written
    total = _counter()
    classes = {"two_small": hi <= SMALL, "small_large": (hi > SMALL) & (lo <= LARGE), "large_large": lo > LARGE}
    for name, mask in classes.items():
        items = cupy.flatnonzero(mask).astype(cupy.int64)
        if not items.size:
            continue
        args = (graph.offsets, graph.indices, us, vs, items, np.int64(items.size), counts, total)
        if name == "large_large":
            k = runtime.kernel("intersect/large_large.cu", "gravel_intersect_large_large", templates=(BLOCK,))
            k(min(items.size, 64 * runtime.props().sm_count), BLOCK, args)
        else:
            k = runtime.kernel(f"intersect/{name}.cu", f"gravel_intersect_{name}")
            k(runtime.blocks_for(items.size, BLOCK, resident=8), BLOCK, args)
    return counts, _read(total)

"""filter_frontier, split, compute and compute_sums: per-item operators over a frontier or every
vertex."""

import numpy as np

from ..backends.cuda import runtime
from ..errors import UnknownNameError
from ..frontier import Frontier
from .codegen import (
    BLOCK,
    COMPUTE_OP,
    FILTER_OP,
    SPLIT_OP,
    SUMS_OP,
    counter,
    functor,
    items,
    read_count,
    sums_op,
)


def filter_frontier(
    frontier, predicate="true", *, params=None, mode="compact", visited=None, preamble=""
):
    """Gunrock's filter: keep the items ``v`` (at position ``i``) for which `predicate` holds.

    Parameters
    ----------
    frontier : Frontier
        The items, a sparse frontier on the device.
    predicate : str, default "true"
        A CUDA C++ bool expression over ``v``, ``i`` and the names of `params`.
    params : dict, optional
        Device arrays and scalars the predicate reads, by name.
    mode : {"compact", "cull"}, default "compact"
        "compact": exact and order-preserving (the predicate is evaluated once per item). "cull":
        Gunrock's inexact culling with the `visited` bitmap and warp history hashes, for
        idempotent traversals: items already visited are dropped; a few duplicates may remain.
    visited : device array of uint32, optional
        The visited bitmap "cull" reads and sets; needed by it.
    preamble : str, optional
        CUDA C++ helper definitions the predicate may call.

    Returns
    -------
    Frontier
        The kept items, a sparse frontier.

    Raises
    ------
    UnknownNameError
        `mode` is neither "compact" nor "cull".
    ValueError
        "cull" without a `visited` bitmap.
    """
    if mode == "cull":
        return _cull(frontier, predicate, params, visited, preamble)
    if mode != "compact":
        raise UnknownNameError(f"unknown filter mode {mode!r} (expected compact or cull)")
    import cupy

    ids = frontier.ids
    n = ids.size
    source, extra = functor(params, {FILTER_OP: f"({predicate})"}, preamble)
    blocks = runtime.blocks_for(n, BLOCK)
    flags = cupy.empty(max(n, 1), dtype=cupy.uint8)
    counts = cupy.zeros(blocks + 1, dtype=cupy.int64)
    if n:
        runtime.kernel(
            "filter/compact.cu", "gravel_filter_flags", templates=(BLOCK,), prelude=source
        )(blocks, BLOCK, (ids, np.int64(n), flags, counts[1:]) + extra)
    offsets = cupy.cumsum(counts)
    kept = int(offsets[-1])  # sync: output size
    out = cupy.empty(max(kept, 1), dtype=cupy.int32)
    if n:
        runtime.kernel(
            "filter/compact.cu", "gravel_filter_write", templates=(BLOCK,), prelude=source
        )(blocks, BLOCK, (ids, np.int64(n), flags, offsets, out))
    return Frontier(frontier.n, ids=out, length=kept)


#: most segments :func:`split` makes (the kernels' shared counts)
SPLIT_MAX = 32


def split(frontier, key, segments, *, lengths=None, params=None, preamble=""):
    """Split the items ``v`` (at position ``i``) by `key`: those whose key is k make the kth
    frontier, in their original order; any other key drops the item.

    Exact and atomic-free between blocks, like ``filter_frontier(mode="compact")``.

    Parameters
    ----------
    frontier : Frontier
        The items (a dense frontier is made sparse).
    key : str
        A CUDA C++ int expression over ``v``, ``i`` and the names of `params`; keys
        ``0 <= k < segments`` keep the item.
    segments : int
        How many frontiers to make, 1 to SPLIT_MAX.
    lengths : sequence of int, optional
        The segments' exact lengths where the caller knows them (a multi-step launch's
        counts), sparing the one sync that reads them; wrong ones give segments over unwritten
        slots.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        Device arrays and scalars the key reads, by name.
    preamble : str, default ""
        CUDA C++ helper definitions the key may call.

    Returns
    -------
    list of Frontier
        `segments` sparse frontiers, back to back in one buffer (views of it).

    Raises
    ------
    ValueError
        `segments` outside 1..SPLIT_MAX, or `lengths` not one per segment.
    """
    import cupy

    if not 0 < segments <= SPLIT_MAX:
        raise ValueError(f"split makes 1 to {SPLIT_MAX} segments, not {segments}")
    if lengths is not None and len(lengths) != segments:
        raise ValueError(f"{len(lengths)} lengths given for {segments} segments")
    ids = frontier.ids
    n = ids.size
    source, extra = functor(params, {SPLIT_OP: f"({key})"}, preamble)
    blocks = runtime.blocks_for(n, BLOCK)
    keys = cupy.empty(max(n, 1), dtype=cupy.int8)
    counts = cupy.zeros(segments * blocks + 1, dtype=cupy.int64)  # segment-major, after a 0
    shape = (ids, np.int64(n), np.int32(segments), keys)
    if n:
        runtime.kernel("filter/split.cu", "gravel_split_keys", templates=(BLOCK,), prelude=source)(
            blocks, BLOCK, shape + (counts[1:],) + extra
        )
    offsets = cupy.cumsum(counts)  # offsets[k * blocks + b]: block b's start in segment k
    if lengths is None:
        ends = [0] + offsets[blocks::blocks].get().tolist()  # sync: the segments' lengths
    else:
        ends = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()
    out = cupy.empty(max(n, 1), dtype=cupy.int32)  # every item fits, whatever `lengths` say
    if n:
        runtime.kernel("filter/split.cu", "gravel_split_write", templates=(BLOCK,))(
            blocks, BLOCK, shape + (offsets, out)
        )
    return [Frontier(frontier.n, ids=out[a:b], length=b - a) for a, b in zip(ends, ends[1:])]


def _cull(frontier, predicate, params, visited, preamble):
    import cupy

    if visited is None:
        raise ValueError("mode='cull' needs a visited bitmap")
    ids = frontier.ids
    n = ids.size
    source, extra = functor(params, {FILTER_OP: f"({predicate})"}, preamble)
    out = cupy.empty(max(n, 1), dtype=cupy.int32)
    length = counter()
    k = runtime.kernel("filter/cull.cu", "gravel_filter_cull", prelude=source)
    if n:
        k(
            runtime.blocks_for(n, BLOCK, resident=8),
            BLOCK,
            (ids, np.int64(n), visited, out, length, np.uint64(out.size)) + extra,
            shared_mem=(BLOCK // 32) * 128 * 4,
        )
    return Frontier(frontier.n, ids=out, length=read_count(length))


def compute(frontier, op, *, params=None, n=None, preamble=""):
    """Run `op` (a statement over ``v`` and ``i``) on every frontier item, or on every vertex 0..n-1
    when `frontier` is None.

    Asynchronous: the kernel is queued, nothing is read back (but a frontier's length still on
    the device).

    Parameters
    ----------
    frontier : Frontier or None
        The items; None: every vertex 0..n-1 (``i`` is then ``v``).
    op : str
        A CUDA C++ statement over ``v`` (the item), ``i`` (its position) and the names of
        `params`; it writes its results through the arrays of `params`.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        Device arrays and scalars, by name.
    n : int, optional
        The number of vertices, needed where `frontier` is None.
    preamble : str, default ""
        CUDA C++ helper definitions `op` may call.

    See Also
    --------
    compute_sums : compute and sum in one pass.
    """
    source, extra = functor(params, {COMPUTE_OP: f"{{ {op}; }}"}, preamble)
    k = runtime.kernel("compute/compute.cu", "gravel_compute", prelude=source)
    ids, count, all_ = items(frontier, n)
    if count:
        k(
            runtime.blocks_for(count, BLOCK, resident=8),
            BLOCK,
            (ids, np.int32(all_), np.int64(count)) + extra,
        )


def compute_sums(frontier, terms, *, op=None, params=None, n=None, preamble=""):
    """Sums of the expressions `terms` (over ``v`` and ``i``) over every frontier item, or every
    vertex 0..n-1 when `frontier` is None, in float64 and in one launch.

    Parameters
    ----------
    frontier : Frontier or None
        The items; None: every vertex 0..n-1.
    terms : sequence of str
        CUDA C++ expressions over ``v``, ``i`` and the names of `params`, each summed as a
        double.
    op : str, optional
        A statement run on each item first, in the terms' scope (they see its locals): compute
        and sums in one pass.
    params : dict of str to (cupy.ndarray or numpy.generic), optional
        Device arrays and scalars, by name.
    n : int, optional
        The number of vertices, needed where `frontier` is None.
    preamble : str, default ""
        CUDA C++ helper definitions the terms and `op` may call.

    Returns
    -------
    cupy.ndarray of float64, shape (len(terms),)
        One sum per term, read back by the caller when it needs them (no sync here).
    """
    import cupy

    body = sums_op(terms) if op is None else f"{{ {op}; {sums_op(terms)} }}"
    source, extra = functor(params, {SUMS_OP: body}, preamble)
    k = runtime.kernel(
        "compute/sums.cu", "gravel_compute_sums", templates=(len(terms), BLOCK), prelude=source
    )
    out = cupy.zeros(len(terms), dtype=cupy.float64)
    ids, count, all_ = items(frontier, n)
    if count:
        k(
            runtime.blocks_for(count, BLOCK, resident=4),
            BLOCK,
            (ids, np.int32(all_), np.int64(count), out) + extra,
        )
    return out

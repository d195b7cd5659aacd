"""Pull PageRank kernels: each vertex sums its in-neighbours' contributions, no atomics needed.

`iterate` runs an iteration in one pass: the pull also writes the next iteration's contributions
and sums the dangling vertices' new rank and the L1 change. `contributions` and `pull` are the two
passes of an iteration whose contributions go elsewhere in between (the distributed program
all-gathers them: distributed/programs.py); `out_weights` gives a weighted run its divisors. The
edge loop is where the time goes, and three things make it fast: edge positions and ids are read
as unsigned integers, so that Numba emits no negative-index wraparound (a compare and a select on
every access); the sum runs in four accumulators, so that consecutive additions do not wait for
each other; and the loop prefetches the edge list AHEAD positions ahead, which the hardware
prefetcher, its queue held by the random reads of the contributions, does not do early enough
(docs/tuning.md, AHEAD). The per-vertex helpers are inlined into the parallel loop: called, they
cost kron:18 a sixth of its iteration.
"""

import numba
import numpy as np
from llvmlite import ir
from numba import types, uint64
from numba.core import cgutils
from numba.extending import intrinsic

from .serial import by_size

#: how far ahead (in edges) the pull prefetches its edge list: 2 KB of int32 ids
AHEAD = 512


@intrinsic
def _prefetch(typingctx, array, index):
    """Ask the caches for array[index] (a read, to be kept in every level); no other effect."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        view = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, view, [args[1]], wraparound=False)
        byte_ptr, i32 = ir.IntType(8).as_pointer(), ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte_ptr, i32, i32, i32]),
            "llvm.prefetch.p0i8",
        )
        # read (0), highest locality (3), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, byte_ptr), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


@numba.njit(parallel=True, cache=True)
def contributions(rank, out_weight, contrib):
    """contrib[u] = rank[u] / out_weight[u] (the out-degree, or the sum of u's out-weights); returns
    the rank mass of dangling vertices (those whose out-weight is zero)."""
    dangling = 0.0
    for u in numba.prange(rank.shape[0]):
        d = out_weight[u]
        if d > 0:
            contrib[u] = rank[u] / d
        else:
            contrib[u] = 0.0
            dangling += rank[u]
    return dangling


@numba.njit(inline="always")
def _weight(in_weights, p):
    """In-edge p's weight, or 1 where `in_weights` is None (Numba prunes the branch on the
    argument's type, and LLVM drops the product by 1)."""
    if in_weights is None:
        return 1.0
    return in_weights[p]


@numba.njit(inline="always")
def _in_sum(in_offsets, in_indices, in_weights, contrib, v):
    """The sum of contrib over v's in-edges, each times its weight unless `in_weights` is None."""
    one, two, three, four = uint64(1), uint64(2), uint64(3), uint64(4)
    ahead, last = uint64(AHEAD), uint64(in_indices.shape[0] - 1)
    p, end = uint64(in_offsets[v]), uint64(in_offsets[v + 1])
    s0 = s1 = s2 = s3 = 0.0
    while p + four <= end:
        _prefetch(in_indices, min(p + ahead, last))
        if in_weights is not None:
            _prefetch(in_weights, min(p + ahead, last))
        s0 += _weight(in_weights, p) * contrib[uint64(in_indices[p])]
        s1 += _weight(in_weights, p + one) * contrib[uint64(in_indices[p + one])]
        s2 += _weight(in_weights, p + two) * contrib[uint64(in_indices[p + two])]
        s3 += _weight(in_weights, p + three) * contrib[uint64(in_indices[p + three])]
        p += four
    while p < end:
        s0 += _weight(in_weights, p) * contrib[uint64(in_indices[p])]
        p += one
    return (s0 + s1) + (s2 + s3)


@numba.njit(inline="always")
def _update(x, v, out_weight, rank, new_rank, new_contrib):
    """Store v's new rank x and its next contribution; returns (x's share of the dangling mass,
    x's share of the L1 change)."""
    new_rank[v] = x
    d = out_weight[v]
    lost = 0.0
    if d > 0:
        new_contrib[v] = x / d
    else:
        new_contrib[v] = 0.0
        lost = x
    return lost, abs(x - rank[v])


@numba.njit(parallel=True, cache=True)
def pull(in_offsets, in_indices, in_weights, contrib, base, alpha, rank, new_rank):
    """new_rank[v] = base[v] + alpha * sum of (weight *) contrib over in-edges (`in_weights` None:
    unweighted); returns the L1 change."""
    err = 0.0
    for v in numba.prange(rank.shape[0]):
        x = base[v] + alpha * _in_sum(in_offsets, in_indices, in_weights, contrib, v)
        new_rank[v] = x
        err += abs(x - rank[v])
    return err


@numba.njit(parallel=True, cache=True)
def iterate(
    in_offsets,
    in_indices,
    in_weights,
    out_weight,
    contrib,
    teleport,
    dangling,
    spread,
    alpha,
    rank,
    new_rank,
    new_contrib,
):
    """new_rank[v] = teleport[v] + spread * dangling[v] + alpha * (sum of contrib over in-edges,
    each times its weight unless `in_weights` is None), and new_contrib[v] = new_rank[v] /
    out_weight[v] (0 where dangling); returns (the new rank of the dangling vertices, the L1 change
    from rank). A uniform teleport or dangling vector may be a stride-0 view of its one value
    (np.broadcast_to)."""
    lost = 0.0
    err = 0.0
    for v in numba.prange(rank.shape[0]):
        s = _in_sum(in_offsets, in_indices, in_weights, contrib, v)
        x = teleport[v] + spread * dangling[v] + alpha * s
        dl, de = _update(x, v, out_weight, rank, new_rank, new_contrib)
        lost += dl
        err += de
    return lost, err


@numba.njit(parallel=True, cache=True)
def out_weights(offsets, weights):
    """Each vertex's out-weight (float64): the sum of its out-arcs' weights, a row of the CSR each,
    streamed (a bincount over the in-lists' sources scatters into n sums, and first converts both
    arrays)."""
    n = offsets.shape[0] - 1
    out = np.empty(n, np.float64)
    for u in numba.prange(n):
        s = 0.0
        for p in range(offsets[u], offsets[u + 1]):
            s += weights[p]
        out[u] = s
    return out


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(contributions, pull, iterate, out_weights)

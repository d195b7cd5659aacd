"""Pull PageRank kernels: each vertex sums its in-neighbours' contributions, no atomics needed."""

import numba

from ._serial import by_size


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


@numba.njit(parallel=True, cache=True)
def pull(in_offsets, in_indices, contrib, base, alpha, rank, new_rank):
    """new_rank[v] = base[v] + alpha * sum of contrib over in-edges; returns the L1 change."""
    err = 0.0
    for v in numba.prange(rank.shape[0]):
        s = 0.0
        for p in range(in_offsets[v], in_offsets[v + 1]):
            s += contrib[in_indices[p]]
        x = base[v] + alpha * s
        new_rank[v] = x
        err += abs(x - rank[v])
    return err


@numba.njit(parallel=True, cache=True)
def pull_weighted(in_offsets, in_indices, in_weights, contrib, base, alpha, rank, new_rank):
    """new_rank[v] = base[v] + alpha * sum of weight * contrib over in-edges; returns the L1
    change."""
    err = 0.0
    for v in numba.prange(rank.shape[0]):
        s = 0.0
        for p in range(in_offsets[v], in_offsets[v + 1]):
            s += in_weights[p] * contrib[in_indices[p]]
        x = base[v] + alpha * s
        new_rank[v] = x
        err += abs(x - rank[v])
    return err


#: the kernels for a graph of so many arcs (serial twins for small graphs)
kernels = by_size(contributions, pull, pull_weighted)

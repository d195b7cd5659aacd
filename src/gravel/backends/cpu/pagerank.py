"""Pull PageRank kernel: each vertex sums its in-neighbours' contributions, no atomics needed."""

import numba


@numba.njit(parallel=True, cache=True)
def contributions(rank, out_degree, contrib):
    """contrib[u] = rank[u] / outdeg(u); returns the rank mass of dangling vertices."""
    dangling = 0.0
    for u in numba.prange(rank.shape[0]):
        d = out_degree[u]
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

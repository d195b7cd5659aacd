"""Delta-stepping SSSP kernels (Meyer and Sanders; GAP's sssp.cc), parallel with Numba.

A phase relaxes the out-edges of the current bucket's vertices in parallel, each chunk writing the
improving (vertex, distance) requests into its own slice of a buffer; a short sequential pass then
applies the requests (taking the minimum, so no update is lost without atomics) and files improved
vertices into buckets. Buckets form a ring of ceil(max weight / delta) + 2 linked lists: every
pending distance lies within one maximum weight of the current bucket."""

import numba
import numpy as np


@numba.njit(parallel=True, cache=True)
def relax(offsets, indices, weights, frontier, dist, chunks, req_v, req_d, counts):
    """Write improving requests of each chunk into req_v/req_d from that chunk's edge offset."""
    nf = frontier.shape[0]
    starts = np.zeros(chunks + 1, np.int64)
    for c in numba.prange(chunks):
        s = 0
        for i in range(nf * c // chunks, nf * (c + 1) // chunks):
            u = frontier[i]
            s += offsets[u + 1] - offsets[u]
        starts[c + 1] = s
    starts = np.cumsum(starts)
    for c in numba.prange(chunks):
        k = starts[c]
        for i in range(nf * c // chunks, nf * (c + 1) // chunks):
            u = frontier[i]
            du = dist[u]
            for p in range(offsets[u], offsets[u + 1]):
                v = indices[p]
                nd = du + weights[p]
                if nd < dist[v]:
                    req_v[k] = v
                    req_d[k] = nd
                    k += 1
        counts[c] = k - starts[c]
    return starts


@numba.njit(cache=True)
def apply(req_v, req_d, starts, counts, dist, delta, head, nxt, entry_v, used):
    """Apply requests sequentially; push improved vertices into their bucket. Returns entries
    used."""
    ring = head.shape[0]
    for c in range(counts.shape[0]):
        for k in range(starts[c], starts[c] + counts[c]):
            v = req_v[k]
            d = req_d[k]
            if d < dist[v]:
                dist[v] = d
                b = np.int64(d / delta) % ring
                entry_v[used] = v
                nxt[used] = head[b]
                head[b] = used
                used += 1
    return used


@numba.njit(cache=True)
def take_bucket(b, delta, head, nxt, entry_v, dist, stamp, round_, out):
    """Pop bucket b (ring slot b % ring): its vertices whose distance still falls in bucket b,
    once."""
    ring = head.shape[0]
    slot = b % ring
    e = head[slot]
    head[slot] = -1
    k = 0
    lo = b * delta
    hi = lo + delta
    while e >= 0:
        v = entry_v[e]
        if lo <= dist[v] < hi and stamp[v] != round_:
            stamp[v] = round_
            out[k] = v
            k += 1
        e = nxt[e]
    return out[:k]


@numba.njit(cache=True)
def serial_phases(
    offsets,
    indices,
    weights,
    frontier,
    b,
    dist,
    delta,
    head,
    nxt,
    entry_v,
    used,
    stamp,
    round_,
    out,
    limit,
):
    """Run delta-stepping serially while the frontier stays below `limit` vertices: relax, file
    improved vertices, take the current (else the next non-empty) bucket. Road graphs have thousands
    of tiny buckets; one call covers many of them. Returns (frontier, bucket, entries used, rounds
    used); an empty frontier means no work is left. Entries must have room for every relaxation of
    the call (the caller sizes them for all arcs)."""
    ring = head.shape[0]
    cur = frontier.copy()
    while 0 < cur.shape[0] < limit:
        for i in range(cur.shape[0]):
            u = cur[i]
            du = dist[u]
            for p in range(offsets[u], offsets[u + 1]):
                v = indices[p]
                nd = du + weights[p]
                if nd < dist[v]:
                    dist[v] = nd
                    s = np.int64(nd / delta) % ring
                    entry_v[used] = v
                    nxt[used] = head[s]
                    head[s] = used
                    used += 1
        round_ += 1
        cur = take_bucket(b, delta, head, nxt, entry_v, dist, stamp, round_, out).copy()
        step = 0
        while cur.shape[0] == 0 and step < ring:
            step += 1
            if head[(b + step) % ring] >= 0:
                b += step
                step = 0
                round_ += 1
                cur = take_bucket(b, delta, head, nxt, entry_v, dist, stamp, round_, out).copy()
        if cur.shape[0] == 0:
            break
    return cur, b, used, round_


@numba.njit(cache=True)
def predecessors(offsets, indices, weights, dist, source):
    """A shortest-path tree of final distances: a BFS from `source` over the tight arcs (u -> v
    with dist[u] + w == dist[v], computed as the relaxations computed it), each vertex taking the
    first tight arc that reaches it. Every reached vertex has a tight in-arc from the vertex whose
    relaxation last lowered it, so the BFS reaches them all; claiming each vertex once keeps
    zero-weight cycles out of the tree. Returns (predecessor, -1 for the source and unreached
    vertices; number of vertices reached)."""
    n = dist.shape[0]
    pred = np.full(n, -1, np.int32)
    queue = np.empty(n, np.int32)
    pred[source] = source
    queue[0] = source
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u]
        for p in range(offsets[u], offsets[u + 1]):
            v = indices[p]
            if pred[v] < 0 and du + weights[p] == dist[v]:
                pred[v] = u
                queue[tail] = v
                tail += 1
    pred[source] = -1
    return pred, tail

"""Delta-stepping SSSP kernels (Meyer and Sanders; GAP's sssp.cc), parallel with Numba.

A phase relaxes the out-arcs of the current bucket's vertices in parallel, in batches of bounded arc
count, lowering distances by an atomic min (backends/cpu/atomics.py); each chunk of a batch writes
its lowerings (vertex, distance, from) into its own slice of a buffer, and a second parallel pass
records predecessors and files each lowered vertex once into its bucket, as GAP's sssp.cc does
without a sequential step. Buckets
form a ring of ceil(max weight / delta) + 2 linked lists: every pending distance lies within one
maximum weight of the current bucket.

The lists share a pool of entries, `pool = (head, nxt, entry_v, stamp, spare)`: ring heads, next
links, entry vertices, a per-vertex round stamp (a vertex leaves a bucket once per round) and n
spare vertex slots (also the taken bucket's output). A full pool is compacted to its live entries,
each vertex once in the slot of its current distance, so a pool of 2n entries never grows.

The predecessor of v is the vertex whose relaxation last lowered dist[v]. It stays tight (u is
relaxed again at its final distance, and float rounding is monotone), and the tree has no cycle:
distances never decrease along predecessors while each lowering is strict."""

import numba
import numpy as np

from . import atomics


@numba.njit(cache=True)
def batch_ends(offsets, frontier, limit):
    """Ends of consecutive frontier slices of at most `limit` out-arcs each (a vertex with more
    arcs is a slice alone)."""
    ends = np.empty(frontier.shape[0], np.int64)
    k, arcs = 0, 0
    for i in range(frontier.shape[0]):
        u = frontier[i]
        d = offsets[u + 1] - offsets[u]
        if arcs + d > limit and arcs > 0:
            ends[k] = i
            k += 1
            arcs = 0
        arcs += d
    ends[k] = frontier.shape[0]
    return ends[: k + 1]


@numba.njit(parallel=True, cache=True)
def relax(arcs, frontier, dist, chunks, requests, counts):
    """Relax the frontier's out-arcs in `chunks` parallel chunks of about equal arc counts (a hub's
    list would leave one chunk with most of the work), lowering distances by an atomic min; each
    lowering is written to `requests` (req_v, req_d, req_u) from its chunk's arc offset (they have
    room for every out-arc of the frontier). Returns the chunks' offsets."""
    offsets, indices, weights = arcs
    req_v, req_d, req_u = requests
    nf = frontier.shape[0]
    ends = np.empty(nf, np.int64)  # arcs of frontier[0..i]
    total = 0
    for i in range(nf):
        u = frontier[i]
        total += offsets[u + 1] - offsets[u]
        ends[i] = total
    bounds = np.empty(chunks + 1, np.int64)
    starts = np.empty(chunks + 1, np.int64)
    for c in range(chunks + 1):
        bounds[c] = nf if c == chunks else np.searchsorted(ends, total * c // chunks, "right")
        starts[c] = ends[bounds[c] - 1] if bounds[c] > 0 else 0
    for c in numba.prange(chunks):
        k = starts[c]
        for i in range(bounds[c], bounds[c + 1]):
            u = frontier[i]
            du = dist[u]
            for p in range(offsets[u], offsets[u + 1]):
                v = indices[p]
                nd = du + weights[p]
                if nd < dist[v] and nd < atomics.min_nonnegative(dist, v, nd):
                    req_v[k] = v
                    req_d[k] = nd
                    req_u[k] = u
                    k += 1
        counts[c] = k - starts[c]
    return starts


@numba.njit(parallel=True, cache=True)
def file_lowered(requests, starts, counts, dist, pred, delta, pool, used, round_):
    """After `relax`: each vertex whose distance the phase lowered takes as predecessor a vertex
    that lowered it to its final value (any: all are tight) and is filed once (a stamp of
    `round_`, new to this phase) in its bucket, pushed onto the ring's lists with atomics. The
    pool must have room for every lowered vertex; `used` is a one-entry array."""
    req_v, req_d, req_u = requests
    head, nxt, entry_v, stamp = pool[0], pool[1], pool[2], pool[3]
    ring = head.shape[0]
    for c in numba.prange(counts.shape[0]):
        for k in range(starts[c], starts[c] + counts[c]):
            v = req_v[k]
            if req_d[k] != dist[v]:
                continue  # lowered further since
            pred[v] = req_u[k]
            if atomics.exchange(stamp, v, round_) != round_:
                e = atomics.add(used, 0, 1)
                entry_v[e] = v
                nxt[e] = atomics.exchange(head, np.int64(dist[v] / delta) % ring, e)


@numba.njit(cache=True)
def compact(dist, delta, pool, round_):
    """Rebuild the bucket lists from their live entries. Returns (entries used, rounds used)."""
    head, nxt, entry_v, stamp, spare = pool
    ring = head.shape[0]
    round_ += 1
    k = 0
    for s in range(ring):
        e = head[s]
        head[s] = -1
        while e >= 0:
            v = entry_v[e]
            if stamp[v] != round_ and np.int64(dist[v] / delta) % ring == s:
                stamp[v] = round_
                spare[k] = v
                k += 1
            e = nxt[e]
    for i in range(k):
        v = spare[i]
        s = np.int64(dist[v] / delta) % ring
        entry_v[i] = v
        nxt[i] = head[s]
        head[s] = i
    return k, round_


@numba.njit(cache=True)
def push(v, dist, delta, pool, used, round_):
    """File v in the bucket of dist[v], compacting a full pool first. Returns (entries used,
    rounds used)."""
    head, nxt, entry_v = pool[0], pool[1], pool[2]
    if used == nxt.shape[0]:
        used, round_ = compact(dist, delta, pool, round_)
    s = np.int64(dist[v] / delta) % head.shape[0]
    entry_v[used] = v
    nxt[used] = head[s]
    head[s] = used
    return used + 1, round_


@numba.njit(cache=True)
def take_bucket(b, delta, pool, dist, round_):
    """Pop bucket b (ring slot b % ring): its vertices whose distance still falls in bucket b,
    once, as a view of the pool's spare slots."""
    head, nxt, entry_v, stamp, out = pool
    slot = b % head.shape[0]
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
def frontier_arcs(offsets, frontier):
    """The out-arcs of the frontier's vertices."""
    total = 0
    for i in range(frontier.shape[0]):
        total += offsets[frontier[i] + 1] - offsets[frontier[i]]
    return total


@numba.njit(cache=True)
def serial_phases(arcs, frontier, b, dist, pred, delta, pool, used, round_, limit):
    """Run delta-stepping serially while the frontier's out-arcs stay below `limit`: relax, file
    improved vertices, take the current (else the next non-empty) bucket. Road graphs have thousands
    of tiny buckets; one call covers many of them. Returns (frontier, bucket, entries used, rounds
    used); an empty frontier means no work is left."""
    offsets, indices, weights = arcs
    head = pool[0]
    ring = head.shape[0]
    cur = frontier.copy()
    while cur.shape[0] > 0 and frontier_arcs(offsets, cur) < limit:
        for i in range(cur.shape[0]):
            u = cur[i]
            du = dist[u]
            for p in range(offsets[u], offsets[u + 1]):
                v = indices[p]
                nd = du + weights[p]
                if nd < dist[v]:
                    dist[v] = nd
                    pred[v] = u
                    used, round_ = push(v, dist, delta, pool, used, round_)
        round_ += 1
        cur = take_bucket(b, delta, pool, dist, round_).copy()
        step = 0
        while cur.shape[0] == 0 and step < ring:
            step += 1
            if head[(b + step) % ring] >= 0:
                b += step
                step = 0
                round_ += 1
                cur = take_bucket(b, delta, pool, dist, round_).copy()
        if cur.shape[0] == 0:
            break
    return cur, b, used, round_

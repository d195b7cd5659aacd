"""Delta-stepping SSSP kernels (Meyer and Sanders; GAP's sssp.cc), parallel with Numba.

A phase relaxes the out-arcs of the current bucket's vertices in parallel chunks of about equal arc
counts, lowering distances by an atomic min (backends/cpu/atomics.py); each chunk writes its
lowerings (vertex, distance, from) into its own slice of a request buffer, as GAP's threads push
into their local bins. Filing then merges the chunks' requests into the buckets by prefix sums, as
GAP copies its local bins into the shared frontier: each chunk keeps its requests that still hold
(distance == dist[v]; at most one per vertex, since lowerings are strict), records their
predecessors and counts them by bucket; a scan over (bucket, chunk) gives each chunk's place, and
each bucket the phase reached gains one contiguous block of (vertex, distance) entries.

Buckets form a ring of ceil(max weight / delta) + 2 slots, each a linked list of blocks: every
pending distance lies within one maximum weight of the current bucket. An entry is live while its
distance is its vertex's distance; a vertex lowered again leaves its old entry behind, dead, as
GAP leaves it in its old bin. Taking a bucket keeps its live entries, each vertex once. The pool,
`pool = (head, block_start, block_len, block_next, entry_v, entry_d, taken, used)`, holds ring
heads, blocks, entries, a vertex buffer for the taken bucket and the entries and blocks in use; a
full pool is compacted to its live entries (at most one per vertex), one block per bucket.

The predecessor of v is the vertex whose relaxation last lowered dist[v]. It stays tight (u is
relaxed again at its final distance, and float rounding is monotone), and the tree has no cycle:
distances never decrease along predecessors while each lowering is strict."""

import numba
import numpy as np

from . import atomics
from ._serial import twins


def bucket_pool(n, ring):
    """An empty pool for n vertices and `ring` bucket slots: room for 2n entries (compaction leaves
    at most n, a filing adds at most n) and for the blocks of two filings past a compaction."""
    entries = 2 * n + 16
    blocks = 2 * ring + n // 8 + 16
    return (
        np.full(ring, -1, np.int64),
        np.empty(blocks, np.int64),
        np.empty(blocks, np.int64),
        np.empty(blocks, np.int64),
        np.empty(entries, np.int32),
        np.empty(entries, np.float64),
        np.empty(n, np.int32),
        np.zeros(2, np.int64),
    )


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
    room for every out-arc of the frontier). Returns the chunks' offsets; `counts` gets their
    request counts."""
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
def file_lowered(requests, starts, counts, b, dist, pred, delta, pool):
    """After `relax`, in bucket b: merge the requests that still hold into the buckets, one block
    per bucket reached, and record their predecessors. Each chunk first packs its live requests at
    the front of its slice, their bucket offsets from b in req_u; a full pool is compacted first."""
    req_v, req_d, req_u = requests
    head, block_start, block_len, block_next, entry_v, entry_d, _, used = pool
    ring = head.shape[0]
    chunks = counts.shape[0]
    width = np.zeros(chunks, np.int64)
    for c in numba.prange(chunks):
        j = starts[c]
        for k in range(starts[c], starts[c] + counts[c]):
            v = req_v[k]
            d = req_d[k]
            if d != dist[v]:
                continue  # lowered further since
            pred[v] = req_u[k]
            key = np.int64(d / delta) - b
            req_v[j] = v
            req_d[j] = d
            req_u[j] = key
            j += 1
            width[c] = max(width[c], key + 1)
        counts[c] = j - starts[c]
    live = counts.sum()
    if live == 0:
        return
    keys = width.max()
    if used[0] + live > entry_v.shape[0] or used[1] + keys > block_start.shape[0]:
        compact(dist, delta, pool)
    # place[c, key]: where chunk c's entries of bucket b + key go, buckets first, then chunks
    place = np.zeros((chunks, keys), np.int64)
    for c in numba.prange(chunks):
        for k in range(starts[c], starts[c] + counts[c]):
            place[c, req_u[k]] += 1
    at = used[0]
    for key in range(keys):
        first = at
        for c in range(chunks):
            size = place[c, key]
            place[c, key] = at
            at += size
        if at > first:
            s = (b + key) % ring
            i = used[1]
            block_start[i] = first
            block_len[i] = at - first
            block_next[i] = head[s]
            head[s] = i
            used[1] = i + 1
    used[0] = at
    for c in numba.prange(chunks):
        for k in range(starts[c], starts[c] + counts[c]):
            e = place[c, req_u[k]]
            place[c, req_u[k]] = e + 1
            entry_v[e] = req_v[k]
            entry_d[e] = req_d[k]


@numba.njit(cache=True)
def compact(dist, delta, pool):
    """Rebuild the buckets from their live entries, one block per non-empty bucket."""
    head, block_start, block_len, block_next, entry_v, entry_d, _, used = pool
    ring = head.shape[0]
    keep = np.empty(dist.shape[0], np.int64)  # entries, at most one per vertex
    size = np.zeros(ring + 1, np.int64)
    k = 0
    for s in range(ring):
        i = head[s]
        while i >= 0:
            for e in range(block_start[i], block_start[i] + block_len[i]):
                if entry_d[e] == dist[entry_v[e]]:
                    keep[k] = e
                    k += 1
                    size[s + 1] += 1
            i = block_next[i]
    keep = keep[:k]
    v, d = entry_v[keep], entry_d[keep]
    size = np.cumsum(size)
    used[1] = 0
    for s in range(ring):
        head[s] = -1
        if size[s + 1] > size[s]:
            i = used[1]
            block_start[i] = size[s]
            block_len[i] = size[s + 1] - size[s]
            block_next[i] = -1
            head[s] = i
            used[1] = i + 1
    for j in range(k):
        s = np.int64(d[j] / delta) % ring
        e = size[s]
        size[s] = e + 1
        entry_v[e] = v[j]
        entry_d[e] = d[j]
    used[0] = k


@numba.njit(cache=True)
def next_bucket(b, pool):
    """The first bucket from b on with entries (live or not), or -1 if all are empty."""
    head = pool[0]
    ring = head.shape[0]
    for step in range(ring):
        if head[(b + step) % ring] >= 0:
            return b + step
    return -1


@numba.njit(cache=True)
def take_bucket(b, dist, pool):
    """Empty bucket b (ring slot b % ring): its live entries' vertices, each once, as a view of the
    pool's vertex buffer."""
    head, block_start, block_len, block_next, entry_v, entry_d, out, _ = pool
    s = b % head.shape[0]
    i = head[s]
    head[s] = -1
    k = 0
    while i >= 0:
        for e in range(block_start[i], block_start[i] + block_len[i]):
            v = entry_v[e]
            if entry_d[e] == dist[v]:
                out[k] = v
                k += 1
        i = block_next[i]
    return out[:k]


@numba.njit(cache=True)
def frontier_arcs(offsets, frontier):
    """The out-arcs of the frontier's vertices."""
    total = 0
    for i in range(frontier.shape[0]):
        total += offsets[frontier[i] + 1] - offsets[frontier[i]]
    return total


# compiled without parallel=True, for the phases below (no parallel region to start)
_twins = twins(relax, file_lowered)
_serial_relax, _serial_file = _twins.relax, _twins.file_lowered


@numba.njit(cache=True)
def serial_phases(arcs, frontier, b, dist, pred, delta, pool, requests, limit):
    """Run delta-stepping serially, as GAP's bucket fusion runs small buckets without a barrier,
    while the frontier's out-arcs stay below `limit`: relax, file, take the current (else the next
    non-empty) bucket. Road graphs have thousands of tiny buckets; one call covers many of them.
    Returns (frontier, bucket, phases run); an empty frontier means no work is left."""
    counts = np.zeros(1, np.int64)
    phases = 0
    while frontier.shape[0] > 0 and frontier_arcs(arcs[0], frontier) < limit:
        starts = _serial_relax(arcs, frontier, dist, 1, requests, counts)
        _serial_file(requests, starts, counts, b, dist, pred, delta, pool)
        phases += 1
        b = next_bucket(b, pool)
        if b < 0:
            return frontier[:0], b, phases
        frontier = take_bucket(b, dist, pool)
    return frontier, b, phases

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


@numba.njit(cache=True)
def lower(arcs, frontier, dist, b, delta, requests, k):
    """Relax the out-arcs of `frontier` (bucket b), lowering distances by an atomic min, and write
    each lowering (req_v, req_d, req_u) to `requests` from k on. Returns (the end of the requests,
    one more than their largest bucket offset from b; 0 with none)."""
    offsets, indices, weights = arcs
    req_v, req_d, req_u = requests
    first = k
    top = 0.0
    for i in range(frontier.shape[0]):
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
                top = max(top, nd)
    return k, (np.int64(top / delta) - b + 1 if k > first else 0)


@numba.njit(parallel=True, cache=True)
def relax(arcs, frontier, dist, b, delta, requests, counts, widths):
    """`lower` in parallel chunks of about equal arc counts, one per entry of `counts` (a hub's
    list would leave one chunk with most of the work), each writing from its arc offset (the
    requests have room for every out-arc of the frontier). Returns the chunks' offsets; `counts`
    and `widths` get their request counts and widths."""
    offsets = arcs[0]
    chunks = counts.shape[0]
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
        part = frontier[bounds[c] : bounds[c + 1]]
        end, widths[c] = lower(arcs, part, dist, b, delta, requests, starts[c])
        counts[c] = end - starts[c]
    return starts


@numba.njit(cache=True)
def keep_live(requests, start, count, b, dist, pred, delta, tally):
    """Pack the requests from `start` that still hold (distance == dist[v]: at most one per vertex,
    since lowerings are strict) at the front, their bucket offsets from b in req_u, record their
    predecessors and count them by offset in `tally`. Returns how many hold."""
    req_v, req_d, req_u = requests
    j = start
    for k in range(start, start + count):
        v = req_v[k]
        d = req_d[k]
        if d != dist[v]:
            continue  # lowered further since
        pred[v] = req_u[k]
        key = np.int64(d / delta) - b
        tally[key] += 1
        req_v[j] = v
        req_d[j] = d
        req_u[j] = key
        j += 1
    return j - start


@numba.njit(cache=True)
def place(tally, b, dist, delta, pool):
    """Give the counted requests (tally[c, key]: chunk c's of bucket b + key) their entries,
    buckets first, then chunks: each bucket reached gains one block, and tally holds each chunk's
    first entry per bucket. A pool without room is compacted first."""
    head, block_start, block_len, block_next, entry_v, _, _, used = pool
    ring = head.shape[0]
    chunks, keys = tally.shape
    if used[0] + tally.sum() > entry_v.shape[0] or used[1] + keys > block_start.shape[0]:
        compact(dist, delta, pool)
    at = used[0]
    for key in range(keys):
        first = at
        for c in range(chunks):
            size = tally[c, key]
            tally[c, key] = at
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


@numba.njit(cache=True)
def scatter(requests, start, count, at, pool):
    """Copy the packed requests from `start` to their entries (at[key]: the next of bucket b +
    key)."""
    req_v, req_d, req_u = requests
    entry_v, entry_d = pool[4], pool[5]
    for k in range(start, start + count):
        e = at[req_u[k]]
        at[req_u[k]] = e + 1
        entry_v[e] = req_v[k]
        entry_d[e] = req_d[k]


@numba.njit(parallel=True, cache=True)
def file_lowered(requests, starts, counts, widths, b, dist, pred, delta, pool):
    """After `relax`, in bucket b: file the requests that still hold in parallel chunks, merged by
    a scan (`keep_live`, `place`, `scatter`), and record their predecessors."""
    chunks = counts.shape[0]
    tally = np.zeros((chunks, widths.max()), np.int64)
    for c in numba.prange(chunks):
        counts[c] = keep_live(requests, starts[c], counts[c], b, dist, pred, delta, tally[c])
    place(tally, b, dist, delta, pool)
    for c in numba.prange(chunks):
        scatter(requests, starts[c], counts[c], tally[c], pool)


@numba.njit(cache=True)
def compact(dist, delta, pool):
    """Rebuild the buckets from their live entries (at most one per vertex), one block per
    non-empty bucket."""
    head, block_start, block_len, block_next, entry_v, entry_d, _, used = pool
    ring = head.shape[0]
    live_v = np.empty(dist.shape[0], np.int32)
    live_d = np.empty(dist.shape[0], np.float64)
    size = np.zeros(ring + 1, np.int64)
    k = 0
    for s in range(ring):
        i = head[s]
        while i >= 0:
            for e in range(block_start[i], block_start[i] + block_len[i]):
                if entry_d[e] == dist[entry_v[e]]:
                    live_v[k] = entry_v[e]
                    live_d[k] = entry_d[e]
                    k += 1
                    size[s + 1] += 1
            i = block_next[i]
    used[1] = 0
    for s in range(ring):
        size[s + 1] += size[s]
        head[s] = -1
        if size[s + 1] > size[s]:
            i = used[1]
            block_start[i] = size[s]
            block_len[i] = size[s + 1] - size[s]
            block_next[i] = -1
            head[s] = i
            used[1] = i + 1
    for j in range(k):
        s = np.int64(live_d[j] / delta) % ring
        e = size[s]
        size[s] = e + 1
        entry_v[e] = live_v[j]
        entry_d[e] = live_d[j]
    used[0] = k


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
def next_frontier(b, dist, pool):
    """Take the first bucket from b on with live entries: (its vertices, the bucket); an empty
    frontier when every bucket is empty."""
    head, out = pool[0], pool[6]
    ring = head.shape[0]
    step = 0
    while step < ring:
        if head[(b + step) % ring] < 0:
            step += 1
            continue
        b += step
        step = 0
        frontier = take_bucket(b, dist, pool)
        if frontier.shape[0] > 0:
            return frontier, b
    return out[:0], b


@numba.njit(cache=True)
def frontier_arcs(offsets, frontier):
    """The out-arcs of the frontier's vertices."""
    total = 0
    for i in range(frontier.shape[0]):
        total += offsets[frontier[i] + 1] - offsets[frontier[i]]
    return total


@numba.njit(cache=True)
def serial_phases(arcs, frontier, b, dist, pred, delta, pool, requests, limit):
    """Run delta-stepping serially, as GAP's bucket fusion runs small buckets without a barrier,
    while the frontier's out-arcs stay below `limit`: relax, file, take the current (else the next
    non-empty) bucket. Road graphs have thousands of tiny buckets; one call covers many of them.
    Returns (frontier, bucket, phases run); an empty frontier means no work is left."""
    phases = 0
    while frontier.shape[0] > 0 and frontier_arcs(arcs[0], frontier) < limit:
        count, width = lower(arcs, frontier, dist, b, delta, requests, 0)
        tally = np.zeros((1, width), np.int64)
        count = keep_live(requests, 0, count, b, dist, pred, delta, tally[0])
        place(tally, b, dist, delta, pool)
        scatter(requests, 0, count, tally[0], pool)
        phases += 1
        frontier, b = next_frontier(b, dist, pool)
    return frontier, b, phases

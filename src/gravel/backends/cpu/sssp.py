"""Delta-stepping SSSP kernels (Meyer and Sanders; GAP's sssp.cc), parallel with Numba.

A phase relaxes the out-arcs of the current bucket's vertices in parallel chunks of about equal arc
counts, lowering distances by an atomic min (backends/cpu/atomics.py); each chunk writes its
lowerings (vertex, distance, from) into its own slice of a request buffer, as GAP's threads push
into their local bins. Filing then merges the requests into the buckets by prefix sums, as GAP
copies its local bins into the shared frontier, in runs of a chunk's requests (a chunk that relaxed
a hub holds most of a phase's): each run counts its requests by bucket, a scan over (bucket, run)
gives each run's place, and each bucket the phase reached gains one contiguous block of (vertex,
distance, from) entries. Filing reads only the requests: a request lowered again later in its
phase is filed all the same, dead, as GAP pushes it (whether a request still holds is a random
read of its distance, and taking the bucket reads that distance anyway).

Buckets form a ring of ceil(max weight / delta) + 2 slots, each a linked list of blocks: every
pending distance lies within one maximum weight of the current bucket. An entry is live while its
distance is its vertex's distance; a vertex lowered again leaves its old entry behind, dead, as
GAP leaves it in its old bin. Taking a bucket keeps its live entries, each vertex once (lowerings
are strict, so one request at most holds a vertex's distance), and records their predecessors.
The pool, `pool = (head, block_start, block_len, block_next, entry_v, entry_d, entry_u, taken,
used)`, holds ring heads, blocks, entries, a vertex buffer for the taken bucket and the entries
and blocks in use; a full pool is compacted to its live entries (at most one per vertex), one
block per bucket. Taking a big bucket and compacting gather live entries in parallel pieces of the
blocks (pack, scan, copy), as GAP's threads copy their bins into the shared frontier.

The predecessor of v is the vertex whose relaxation last lowered dist[v], recorded when v's entry
at its final distance is taken (every bucket up to the last is taken). It stays tight (u is
relaxed again at its final distance, and float rounding is monotone), and the tree has no cycle:
distances never decrease along predecessors while each lowering is strict."""

import numba
import numpy as np

from . import atomics, serial


def bucket_pool(n, ring, requests, dtype=np.float64):
    """An empty pool for n vertices, `ring` bucket slots and filings of at most `requests` each:
    room for n + requests entries (compaction leaves at most n, a filing adds one entry a request)
    and for the blocks of two filings past a compaction. `dtype`: the distances' (float64, or int32
    for whole-number weights)."""
    entries = n + requests + 16
    blocks = 2 * ring + n // 8 + 16
    return (
        np.full(ring, -1, np.int64),
        np.empty(blocks, np.int64),
        np.empty(blocks, np.int64),
        np.empty(blocks, np.int64),
        np.empty(entries, np.int32),
        np.empty(entries, dtype),
        np.empty(entries, np.int32),
        np.empty(n, np.int32),
        np.zeros(2, np.int64),
    )


@numba.njit(parallel=True, cache=True)
def arc_ends(offsets, frontier, ends, chunks):
    """The out-arcs of frontier[0..i], for every i, into ``ends[:frontier.size]`` (a prefix sum
    in `chunks` parallel pieces)."""
    nf = frontier.shape[0]
    sums = np.zeros(chunks + 1, np.int64)
    for c in numba.prange(chunks):
        s = 0
        for i in range(nf * c // chunks, nf * (c + 1) // chunks):
            u = frontier[i]
            s += offsets[u + 1] - offsets[u]
            ends[i] = s
        sums[c + 1] = s
    for c in range(chunks):
        sums[c + 1] += sums[c]
    for c in numba.prange(chunks):
        for i in range(nf * c // chunks, nf * (c + 1) // chunks):
            ends[i] += sums[c]
    return ends[:nf]


@numba.njit(cache=True)
def batch_ends(ends, limit):
    """Ends of consecutive frontier slices of at most `limit` out-arcs each, from the frontier's
    `arc_ends` (a vertex with more arcs is a slice alone)."""
    cuts = [0]
    while cuts[-1] < ends.shape[0]:
        base = ends[cuts[-1] - 1] if cuts[-1] > 0 else 0
        cuts.append(max(np.searchsorted(ends, base + limit, "right"), cuts[-1] + 1))
    return np.array(cuts[1:], np.int64)


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
def relax(arcs, frontier, ends, base, dist, b, delta, requests, counts, widths):
    """`lower` in parallel chunks of about equal arc counts, one per entry of `counts` (a hub's
    list would leave one chunk with most of the work), each writing from its arc offset (the
    requests have room for every out-arc of the batch). The threads take chunks from a shared
    counter as they finish, as GAP's dynamic schedule does: equal arcs are not equal time (a
    hub's list reads its targets' distances with more locality than a spread of short lists).
    `ends` is the frontier's `arc_ends`, counted from `base` arcs. Returns the chunks' offsets;
    `counts` and `widths` get their request counts and widths."""
    chunks = counts.shape[0]
    nf = frontier.shape[0]
    total = ends[nf - 1] - base if nf > 0 else 0
    bounds = np.empty(chunks + 1, np.int64)
    starts = np.empty(chunks + 1, np.int64)
    for c in range(chunks + 1):
        cut = np.searchsorted(ends, base + total * c // chunks, "right")
        bounds[c] = nf if c == chunks else cut
        starts[c] = ends[bounds[c] - 1] - base if bounds[c] > 0 else 0
    # each iteration takes chunks until none is left: a thread's first does its share of the
    # work, its later ones find the counter spent
    taken = np.zeros(1, np.int64)
    for _ in numba.prange(chunks):
        c = atomics.add(taken, 0, 1)
        while c < chunks:
            part = frontier[bounds[c] : bounds[c + 1]]
            end, widths[c] = lower(arcs, part, dist, b, delta, requests, starts[c])
            counts[c] = end - starts[c]
            c = atomics.add(taken, 0, 1)
    return starts


@numba.njit(cache=True)
def count_keys(requests, start, count, b, delta, tally):
    """Count the requests from `start` by bucket offset from b in `tally`."""
    req_d = requests[1]
    for k in range(start, start + count):
        tally[np.int64(req_d[k] / delta) - b] += 1


@numba.njit(cache=True)
def has_room(tally, pool):
    """Whether the pool has entries and blocks for the counted requests (tally[r, key])."""
    block_start, entry_v, used = pool[1], pool[4], pool[8]
    return used[0] + tally.sum() <= entry_v.size and used[1] + tally.shape[1] <= block_start.size


@numba.njit(cache=True)
def place(tally, b, pool):
    """Give the counted requests (tally[r, key]: run r's of bucket b + key) their entries,
    buckets first, then runs: each bucket reached gains one block, and tally holds each run's
    first entry per bucket. The pool must have room (`has_room`)."""
    head, block_start, block_len, block_next, used = pool[0], pool[1], pool[2], pool[3], pool[8]
    ring = head.shape[0]
    runs, keys = tally.shape
    at = used[0]
    for key in range(keys):
        first = at
        for r in range(runs):
            size = tally[r, key]
            tally[r, key] = at
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
def scatter(requests, start, count, b, delta, at, pool):
    """Copy the requests from `start` to their entries (at[key]: the next of bucket b + key)."""
    req_v, req_d, req_u = requests
    entry_v, entry_d, entry_u = pool[4], pool[5], pool[6]
    for k in range(start, start + count):
        d = req_d[k]
        key = np.int64(d / delta) - b
        e = at[key]
        at[key] = e + 1
        entry_v[e] = req_v[k]
        entry_d[e] = d
        entry_u[e] = req_u[k]


#: most requests one parallel task of a filing packs and copies: a chunk that relaxed a hub's list
#: holds most of a phase's requests, and would leave the other threads idle
SEGMENT = 1 << 11
#: the runs' tally (a count per run and bucket) stays within so many cells beyond one row per chunk:
#: on a wide ring of buckets the runs grow longer than SEGMENT instead
TALLY_CELLS = 1 << 22


@numba.njit(cache=True)
def segments(starts, counts, width):
    """Each chunk's requests (`counts[c]` from `starts[c]`) cut into runs, in order: (the runs'
    starts, their counts). Runs hold at most SEGMENT requests, or more where a tally of `width`
    buckets a run would pass TALLY_CELLS cells beyond the chunks' own rows."""
    room = max(TALLY_CELLS // max(width, 1), 1)
    most = max(SEGMENT, -(-counts.sum() // room))
    k = 0
    for c in range(counts.shape[0]):
        k += (counts[c] + most - 1) // most
    first, size = np.empty(k, np.int64), np.empty(k, np.int64)
    k = 0
    for c in range(counts.shape[0]):
        end = starts[c] + counts[c]
        for s in range(starts[c], end, most):
            first[k], size[k] = s, min(most, end - s)
            k += 1
    return first, size


@numba.njit(parallel=True, cache=True)
def file_lowered(requests, starts, counts, widths, b, dist, pred, delta, pool):
    """After `relax`, in bucket b: file the requests in parallel runs (`segments`), merged by a
    scan (`count_keys`, `place`, `scatter`)."""
    width = widths.max()
    first, size = segments(starts, counts, width)
    tally = np.zeros((first.shape[0], width), np.int64)
    for r in numba.prange(first.shape[0]):
        count_keys(requests, first[r], size[r], b, delta, tally[r])
    if not has_room(tally, pool):
        compact(dist, pred, pool)
    place(tally, b, pool)
    for r in numba.prange(first.shape[0]):
        scatter(requests, first[r], size[r], b, delta, tally[r], pool)


#: most pool entries one parallel task of a gather scans (a bucket of a few tens of thousands of
#: entries still feeds every core)
PIECE = 1 << 9


@numba.njit(cache=True)
def pieces(pool, first, last):
    """The entries of ring slots first..last - 1, block by block, as ranges [lo, hi) of at most
    PIECE entries, and each slot's first range (``cuts[s - first]``; ``cuts[-1]``: their
    number)."""
    head, block_start, block_len, block_next = pool[:4]
    k = 0
    for s in range(first, last):
        i = head[s]
        while i >= 0:
            k += (block_len[i] + PIECE - 1) // PIECE
            i = block_next[i]
    lo, hi = np.empty(k, np.int64), np.empty(k, np.int64)
    cuts = np.empty(last - first + 1, np.int64)
    k = 0
    for s in range(first, last):
        cuts[s - first] = k
        i = head[s]
        while i >= 0:
            end = block_start[i] + block_len[i]
            for e in range(block_start[i], end, PIECE):
                lo[k], hi[k] = e, min(e + PIECE, end)
                k += 1
            i = block_next[i]
    cuts[last - first] = k
    return lo, hi, cuts


@numba.njit(cache=True, inline="always")
def gather_live(lo, hi, dist, pred, pool, out):
    """Copy the vertices of the live entries of ranges [lo, hi), in order, to `out`, and record
    their predecessors: each range packs them at its front (its entries are dropped or rebuilt
    after), then a scan places the ranges. Inlined: in parallel inside a parallel kernel, serially
    in its twin. Returns where each range's vertices begin in `out` (``at[-1]``: how many)."""
    entry_v, entry_d, entry_u = pool[4], pool[5], pool[6]
    at = np.zeros(lo.shape[0] + 1, np.int64)
    for r in numba.prange(lo.shape[0]):
        j = lo[r]
        for e in range(lo[r], hi[r]):
            v = entry_v[e]
            if entry_d[e] == dist[v]:
                pred[v] = entry_u[e]
                entry_v[j] = v
                j += 1
        at[r + 1] = j - lo[r]
    for r in range(lo.shape[0]):
        at[r + 1] += at[r]
    for r in numba.prange(lo.shape[0]):
        out[at[r] : at[r + 1]] = entry_v[lo[r] : lo[r] + at[r + 1] - at[r]]
    return at


@numba.njit(parallel=True, cache=True)
def compact(dist, pred, pool):
    """Rebuild the buckets from their live entries (at most one per vertex), one block per
    non-empty bucket (their predecessors recorded, and kept)."""
    head, block_start, block_len, block_next, entry_v, entry_d, entry_u, _, used = pool
    ring = head.shape[0]
    lo, hi, cuts = pieces(pool, 0, ring)
    live = np.empty(dist.shape[0], np.int32)
    at = gather_live(lo, hi, dist, pred, pool, live)
    for e in numba.prange(at[-1]):
        entry_v[e] = live[e]
        entry_d[e] = dist[live[e]]
        entry_u[e] = pred[live[e]]
    used[1] = 0
    for s in range(ring):
        head[s] = -1
        first, end = at[cuts[s]], at[cuts[s + 1]]
        if end > first:
            i = used[1]
            block_start[i] = first
            block_len[i] = end - first
            block_next[i] = -1
            head[s] = i
            used[1] = i + 1
    used[0] = at[-1]


@numba.njit(parallel=True, cache=True)
def next_frontier(b, dist, pred, pool, most):
    """Take the first bucket from b on with live entries: (its vertices, each once, as a view of
    the pool's vertex buffer; the bucket). An empty frontier when every bucket is empty, or when
    the first non-empty one holds more than `most` entries (dead ones included): that one is left
    to the caller (the serial twin leaves big buckets to the parallel kernel)."""
    head, out = pool[0], pool[7]
    ring = head.shape[0]
    step = 0
    while step < ring:
        s = (b + step) % ring
        if head[s] < 0:
            step += 1
            continue
        b += step
        step = 0
        lo, hi, _ = pieces(pool, s, s + 1)
        if hi.shape[0] > 0 and hi.sum() - lo.sum() > most:
            break
        head[s] = -1
        at = gather_live(lo, hi, dist, pred, pool, out)
        if at[-1] > 0:
            return out[: at[-1]], b
    return out[:0], b


@numba.njit(parallel=True, cache=True)
def as_distances(dist, unreached):
    """int32 distances as float64, inf where `unreached`, in one parallel pass: the threads share
    the first touch of the new array's pages, which on a virtual machine costs more than the copy
    (NumPy's astype and mask are two serial passes; docs/performance.md at 197cbaf, work outside
    the timer)."""
    out = np.empty(dist.shape[0], np.float64)
    for v in numba.prange(dist.shape[0]):
        out[v] = np.inf if dist[v] == unreached else np.float64(dist[v])
    return out


#: serial twins, for the serial phases
_twins = serial.twins(next_frontier, compact)
next_frontier_serial, compact_serial = _twins.next_frontier, _twins.compact


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
    while the frontier has fewer than `limit` vertices and out-arcs: relax, file, take the current
    (else the next non-empty) bucket unless it holds `limit` entries or more. Road graphs have
    thousands of tiny buckets; one call covers many of them. Returns (frontier, bucket, phases
    run); an empty frontier means a big bucket is next (`next_frontier`) or no work is left."""
    phases = 0
    while 0 < frontier.shape[0] < limit and frontier_arcs(arcs[0], frontier) < limit:
        count, width = lower(arcs, frontier, dist, b, delta, requests, 0)
        tally = np.zeros((1, width), np.int64)
        count_keys(requests, 0, count, b, delta, tally[0])
        if not has_room(tally, pool):
            compact_serial(dist, pred, pool)
        place(tally, b, pool)
        scatter(requests, 0, count, b, delta, tally[0], pool)
        phases += 1
        frontier, b = next_frontier_serial(b, dist, pred, pool, limit - 1)
    return frontier, b, phases

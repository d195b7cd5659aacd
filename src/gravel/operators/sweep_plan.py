"""The sweep plan: how a pull over every vertex runs, plain, cache-blocked or staged, and how wide.

The one place that decides (GraphCage's cache blocking; docs/tuning.md, "plan_sweep"):
neighbor_reduce runs the plan it is given or asks for, and PageRank reports it. "auto" blocks where
the vertex data outgrows AUTO_L2_SHARE of the L2: a sweep that can stage its values (a value array,
a sum, min or max of a type with shared-memory atomics) by the shared-memory width, any other by
the L2 width unless the hubs come first (:func:`hub_front`), where the plain sweep's gathers already
hit. A sweep of 4-byte values that can stage stages on smaller graphs too, from STAGE_FROM vertices
and STAGE_MIN_DEGREE arcs a vertex, unless the hubs come first."""

from dataclasses import dataclass

from ..backends.cuda import runtime
from ..layouts.blocked import block_width
from ..layouts.staged import BUILD_BYTES_PER_EDGE, build_group_edges, shared_width

#: "auto" blocks vertex data over this share of the L2 (docs/tuning.md)
AUTO_L2_SHARE = 0.5
#: vertices and arcs a vertex from which "auto" stages a sweep of 4-byte values that fits
#: AUTO_L2_SHARE, unless the hubs come first: the plain sweep's gathers hit the L2, the staged
#: one's the shared memory; short lists (grids, roads) gain little and pay the layout back late
#: (docs/tuning.md)
STAGE_FROM, STAGE_MIN_DEGREE = 1 << 20, 16
#: a graph whose first 1/HUB_FRONT_PART of the ids source over HUB_FRONT_SHARE of the edges has its
#: hubs in front (degree-sorted kron: about 0.8; as generated, uniform graphs and grids: about 0.06)
HUB_FRONT_PART, HUB_FRONT_SHARE = 16, 0.25
#: "auto" streams the lists of a graph in host memory through the copy engines (docs/tuning.md,
#: "Streamed sweeps"), rather than letting the sweep read them over the bus
AUTO_STREAM = True
_KINDS = ("plain", "blocked", "staged", "streamed")


@dataclass(frozen=True)
class SweepPlan:
    """How a pull sweep over every vertex runs: ``kind`` "plain", "blocked" (GraphCage's blocks of
    `width` source vertices through the L2), "staged" (blocks of `width` whose values sit in
    shared memory) or "streamed" (lists in host memory copied to the device chunk by chunk)."""

    kind: str = "plain"
    width: int | None = None

    def __post_init__(self):
        plain = self.kind in ("plain", "streamed")
        if self.kind not in _KINDS or plain != (self.width is None):
            raise ValueError(f"not a sweep plan: {self.kind!r} of width {self.width!r}")

    def __str__(self):
        if self.kind == "plain":
            return "unblocked"
        if self.kind == "streamed":
            return "streamed from host memory"
        where = "staged in shared memory" if self.kind == "staged" else "through the L2"
        return f"blocked by {self.width:,} vertices, {where}"


def plan_sweep(graph, blocking="auto", *, bytes_per_vertex=4, stageable=False):
    """The plan of a sweep over every vertex of the DeviceGraph `graph` that `blocking` asks for.

    "auto" follows the module's rule (its docstring). It never blocks a graph whose lists live
    outside device memory: it streams those in host memory (AUTO_STREAM) and sweeps the others
    plainly, as it does a graph whose blocked layout could not be built in the free device
    memory.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU.
    blocking : None, "auto", "streamed", int or SweepPlan, default "auto"
        None (plain), "auto", a width in vertices (staged where the sweep is `stageable` and the
        width is at most :func:`gravel.layouts.shared_width`, else blocked through the L2),
        "streamed" (a graph whose lists are in host memory) or a SweepPlan, returned as it is.
    bytes_per_vertex : int, default 4
        The bytes of vertex data a sweep gathers (its values' size).
    stageable : bool, default False
        Whether the sweep can stage its values in shared memory (a value array, a sum, min or
        max of a type with shared-memory atomics).

    Returns
    -------
    SweepPlan

    Raises
    ------
    ValueError
        "streamed" for a graph whose lists are in device memory; any other string, or a width
        below 1.
    """
    over_bus = getattr(graph, "placement", "device") in ("host", "tiered")
    if isinstance(blocking, SweepPlan):
        return blocking
    if blocking is None:
        return SweepPlan()
    if blocking == "streamed":
        if not over_bus:
            raise ValueError("a streamed sweep reads lists in host memory (placement host, tiered)")
        return SweepPlan("streamed")
    if blocking == "auto":
        if over_bus and AUTO_STREAM:
            return SweepPlan("streamed")
        if fits_l2_share(graph, bytes_per_vertex) and not (
            stageable and bytes_per_vertex == 4 and _stages_in_the_l2(graph)
        ):
            return SweepPlan()
        if getattr(graph, "placement", "device") != "device":
            return SweepPlan()  # a blocked copy of the lists would not fit where they do not
        if stageable:
            width = shared_width(bytes_per_vertex)
            return SweepPlan("staged", width) if _staged_fits(graph, width) else SweepPlan()
        if BUILD_BYTES_PER_EDGE * graph.nnz > runtime.free_bytes():
            return SweepPlan()  # nor would one whose build outgrows the free device memory
        return (
            SweepPlan() if hub_front(graph) else SweepPlan("blocked", block_width(bytes_per_vertex))
        )
    if isinstance(blocking, str) or int(blocking) < 1:
        raise ValueError(
            "blocking must be None, 'auto', 'streamed' or a width of at least 1 vertex, "
            f"not {blocking!r}"
        )
    width = int(blocking)
    stages = stageable and width <= shared_width(bytes_per_vertex)
    return SweepPlan("staged" if stages else "blocked", width)


def _staged_fits(graph, width):
    """Would the staged layout's build fit in the free device memory (by groups of blocks where
    not at once)?"""
    from ..errors import GraphTooLargeError

    try:
        build_group_edges(graph, width)
    except GraphTooLargeError:
        return False
    return True


def _stages_in_the_l2(graph):
    """Is the graph one whose 4-byte sweeps stage though they fit the L2's share (STAGE_FROM)?"""
    big = graph.n >= STAGE_FROM and graph.nnz >= STAGE_MIN_DEGREE * graph.n
    return big and not hub_front(graph)


def fits_l2_share(graph, bytes_per_vertex=4):
    """Does the graph's vertex data (`bytes_per_vertex` a vertex) fit AUTO_L2_SHARE of the L2?

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU (its vertex count is read).
    bytes_per_vertex : int, default 4
        Bytes of vertex data a vertex.

    Returns
    -------
    bool
    """
    return graph.n * bytes_per_vertex <= AUTO_L2_SHARE * runtime.props().l2_bytes


def hub_front(graph):
    """Do the first 1/HUB_FRONT_PART of the ids source over HUB_FRONT_SHARE of the edges (hubs
    first, as after a degree sort)? One read of the offsets, kept with the graph.

    Parameters
    ----------
    graph : gravel.backends.cuda.graph.DeviceGraph
        The graph on the GPU.

    Returns
    -------
    bool
        False for a graph without arcs.
    """

    def find():
        head = int(graph.offsets[graph.n // HUB_FRONT_PART])
        return graph.nnz > 0 and head > HUB_FRONT_SHARE * graph.nnz

    return graph.cached("hub_front", find)

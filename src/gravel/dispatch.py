"""How a call reaches its path: the device choice, the source vertex and the caller's ids.

Every public algorithm checks its graph (:func:`takes_graph`), picks ``"cpu"`` or ``"cuda"`` among
the paths it has (:func:`choose_device`), maps the caller's source to an internal id
(:func:`check_source`) and maps per-vertex answers back to the caller's ids (:func:`to_caller`,
:func:`ids_to_caller`) where the graph was reordered.
"""

import functools

import numpy as np

from .arguments import is_integer
from .arrays import xp
from .compiling import compile_clock
from .errors import DeviceUnavailableError, UnknownNameError, VertexNotFoundError
from .graph import Graph
from .results import Result

#: the values of every ``device=`` argument
DEVICES = ("auto", "cpu", "cuda")


def takes_graph(func):
    """`func`, refusing with a TypeError that names it a first argument that is not a gravel
    Graph (a NetworkX graph, say), before anything reads it, and giving the :class:`Result` it
    returns the seconds the call spent compiling kernels (``compile_s``)."""

    @functools.wraps(func)
    def checked(G, *args, **kwargs):
        if not isinstance(G, Graph):
            kind = f"{type(G).__module__}.{type(G).__qualname__}"
            hint = ""
            if type(G).__module__.startswith("networkx"):
                hint = (
                    " (Graph.from_networkx(G) converts it; or call NetworkX with backend='gravel')"
                )
            raise TypeError(f"{func.__name__} takes a gravel.Graph, not a {kind}{hint}")
        with compile_clock() as compiled:
            result = func(G, *args, **kwargs)
        if isinstance(result, Result):
            result.compile_s = compiled()
        return result

    return checked


def choose_device(device, implementations, name):
    """Pick "cpu" or "cuda" for `device` among the backends `name` has."""
    if device not in DEVICES:
        raise UnknownNameError(f"unknown device {device!r} (expected auto, cpu or cuda)")
    from .backends import cuda

    if device == "cpu":
        return "cpu"
    has_gpu = cuda.available()
    if device == "auto" and not (has_gpu and "cuda" in implementations):
        return "cpu"
    if not has_gpu:
        raise DeviceUnavailableError(f"device='cuda' but {cuda.why_unavailable()}")
    if "cuda" not in implementations:
        raise DeviceUnavailableError(f"{name} has no CUDA implementation in this version of gravel")
    # the card's first use seeds CuPy's cache with the kernels built ahead of time, also for the
    # paths that launch only CuPy's own kernels
    from .backends.cuda import runtime

    runtime.props()
    return "cuda"


def check_source(G, source, name="source"):
    """The internal id of the caller's vertex `source` (an id, or a label: :func:`caller_id`)."""
    v = caller_id(G, source, name)
    return v if G.order is None else int(G.order[v])


def caller_id(G, vertex, name="source"):
    """The caller's id (0..n-1) of `vertex`, named by an id or a label; VertexNotFoundError,
    naming it, where it is neither.

    An integer is always an id, on every graph. On a graph with :attr:`~gravel.Graph.labels`
    (:meth:`~gravel.Graph.from_pandas`, :meth:`~gravel.Graph.from_networkx`,
    ``load(..., relabel=True)``) a vertex may also be named by a label of another type (a string,
    say): ``bfs(G, "a")``. Integer labels (a relabelled file's own ids) are not looked up: an
    integer means the same vertex whether or not the graph has labels, as the command line, the
    benchmarks and the verifiers, which speak ids, expect. Map an integer label with
    ``int(np.flatnonzero(G.labels == label)[0])``, or use ``gravel run --relabel --source``, which
    takes the file's ids."""
    if is_integer(vertex):
        if not 0 <= vertex < G.n:
            ids = f"ids 0..{G.n - 1}" if G.n else "it has no vertices"
            raise VertexNotFoundError(f"{name} vertex {vertex} is not in the graph ({ids})")
        return int(vertex)
    hit = None
    if G.labels is not None and not isinstance(vertex, (bool, np.bool_)):
        hit = _label_index(G.labels, vertex)
    if hit is None:
        what = "an integer vertex id" + ("" if G.labels is None else " or a label of the graph")
        raise VertexNotFoundError(f"{name} must be {what}, not {vertex!r}")
    return hit


def _label_index(labels, vertex):
    """The first position of `vertex` among `labels`, or None (O(n): once per call)."""
    try:
        hits = np.flatnonzero(labels == vertex)
    except (TypeError, ValueError):  # a type the labels cannot compare to
        return None
    return int(hits[0]) if getattr(hits, "size", 0) else None


def to_caller(G, values):
    """Per-vertex array indexed by internal ids -> indexed by the caller's ids."""
    return values if G.order is None else values[xp(values).asarray(G.order)]


def ids_to_caller(G, ids):
    """Vertex ids (a parent array, say) -> the caller's ids; negative entries stay."""
    if G.order is None:
        return ids
    m = xp(ids)
    inverse = m.empty(G.n, np.int32)
    inverse[m.asarray(G.order)] = m.arange(G.n, dtype=np.int32)
    return m.where(ids >= 0, inverse[m.maximum(ids, 0)], ids)

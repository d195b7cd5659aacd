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
from .backends.cpu import shares
from .compiling import compile_clock
from .errors import DeviceUnavailableError, UnknownNameError, VertexNotFoundError
from .graph import Graph
from .results import Result

#: the values of every ``device=`` argument
DEVICES = ("auto", "cpu", "cuda")


def takes_graph(func):
    """Wrap `func` so that it refuses a first argument that is not a gravel Graph, and gives the
    :class:`~gravel.results.Result` it returns the seconds the call spent compiling kernels
    (``compile_s``).

    The check runs before anything reads the argument; for a NetworkX graph the message says how
    to convert it, or how to call NetworkX with gravel as its backend.

    Parameters
    ----------
    func : callable
        A function whose first argument is a :class:`~gravel.Graph`.

    Returns
    -------
    callable
        `func` wrapped (:func:`functools.wraps`: its name and docstring kept), taking the same
        arguments; Ctrl-C during the call is a KeyboardInterrupt
        (:func:`gravel.backends.cpu.shares.interruptible`).

    Raises
    ------
    TypeError
        Raised by the returned function, naming `func`, when its first argument is not a
        :class:`~gravel.Graph` (a NetworkX graph, say).
    """

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
        with compile_clock() as compiled, shares.interruptible():
            result = func(G, *args, **kwargs)
        if isinstance(result, Result):
            result.compile_s = compiled()
        return result

    return checked


def choose_device(device, implementations, name):
    """Pick ``"cpu"`` or ``"cuda"`` for `device` among the backends `name` has.

    Parameters
    ----------
    device : {"auto", "cpu", "cuda"}
        The caller's ``device=`` argument. ``"auto"`` picks ``"cuda"`` where a GPU is available
        and `name` has a CUDA implementation, else ``"cpu"``; ``"cpu"`` is always granted.
    implementations : container of str
        The paths `name` has: ``"cpu"``, ``"cuda"`` or both.
    name : str
        The algorithm's name, for the error message.

    Returns
    -------
    str
        ``"cpu"`` or ``"cuda"``. Before returning ``"cuda"`` it touches the card, so that its
        first use seeds CuPy's cache with the kernels built ahead of time.

    Raises
    ------
    UnknownNameError
        `device` is not one of ``"auto"``, ``"cpu"`` and ``"cuda"``.
    DeviceUnavailableError
        ``device="cuda"`` and no GPU can be used (the message says why), or `name` has no CUDA
        implementation.

    Examples
    --------
    >>> from gravel.dispatch import choose_device
    >>> choose_device("cpu", ("cpu", "cuda"), "bfs")
    'cpu'
    """
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
    """The internal id of the caller's vertex `source` (an id, or a label: :func:`caller_id`).

    Parameters
    ----------
    G : Graph
    source : int or label
        A vertex as the caller names it: an id 0..n-1, or a label of a graph with
        :attr:`~gravel.Graph.labels`.
    name : str, default "source"
        What the vertex is, for the error message.

    Returns
    -------
    int
        The vertex's id in `G`'s arrays: the caller's id mapped through ``G.order`` where `G` was
        reordered, else the caller's id itself.

    Raises
    ------
    VertexNotFoundError
        `source` is neither an id of `G` nor one of its labels.

    Examples
    --------
    >>> import gravel
    >>> from gravel.dispatch import check_source
    >>> G = gravel.reorder.reorder(gravel.generate.grid(2, 3), "degree")
    >>> check_source(G, 2)  # the caller's vertex 2 is stored as vertex 3
    3
    """
    v = caller_id(G, source, name)
    return v if G.order is None else int(G.order[v])


def caller_id(G, vertex, name="source"):
    """The caller's id (0..n-1) of `vertex`, named by an id or a label.

    An integer is always an id, on every graph. On a graph with :attr:`~gravel.Graph.labels`
    (:meth:`~gravel.Graph.from_pandas`, :meth:`~gravel.Graph.from_networkx`,
    ``load(..., relabel=True)``) a vertex may also be named by a label of another type (a string,
    say): ``bfs(G, "a")``. Integer labels (a relabelled file's own ids) are not looked up: an
    integer means the same vertex whether or not the graph has labels, as the command line, the
    benchmarks and the verifiers, which speak ids, expect. Map an integer label with
    ``int(np.flatnonzero(G.labels == label)[0])``, or use ``gravel run --relabel --source``, which
    takes the file's ids.

    Parameters
    ----------
    G : Graph
    vertex : int or label
        An id 0..n-1, or (not an integer, nor a bool) a label of ``G.labels``.
    name : str, default "source"
        What the vertex is, for the error message.

    Returns
    -------
    int
        The caller's id of `vertex`: the integer itself, or the first position of the label in
        ``G.labels``.

    Raises
    ------
    VertexNotFoundError
        An integer outside 0..n-1, or anything else that is not a label of `G` (every non-integer
        where `G` has no labels); the message names `vertex`.

    Examples
    --------
    >>> import networkx as nx
    >>> import gravel
    >>> from gravel.dispatch import caller_id
    >>> G = gravel.Graph.from_networkx(nx.path_graph(["a", "b", "c"]))
    >>> caller_id(G, "b"), caller_id(G, 2)
    (1, 2)
    """
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
    """A per-vertex array indexed by internal ids, indexed by the caller's ids instead.

    Parameters
    ----------
    G : Graph
        The graph the values were computed on.
    values : numpy.ndarray or cupy.ndarray
        One value per vertex, indexed by `G`'s internal ids.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        `values` itself where `G` is not reordered; else a new array of the same module, whose
        entry v is the value of the caller's vertex v. The values themselves are not mapped: use
        :func:`ids_to_caller` for arrays of vertex ids.

    Examples
    --------
    >>> import numpy as np
    >>> import gravel
    >>> from gravel.dispatch import to_caller
    >>> G = gravel.reorder.reorder(gravel.generate.grid(2, 3), "degree")
    >>> G.order.tolist()
    [2, 0, 3, 4, 1, 5]
    >>> to_caller(G, np.arange(6) * 10).tolist()
    [20, 0, 30, 40, 10, 50]
    """
    return values if G.order is None else values[xp(values).asarray(G.order)]


def ids_to_caller(G, ids):
    """Vertex ids (a parent array, say) mapped from internal ids to the caller's ids.

    Parameters
    ----------
    G : Graph
        The graph the ids refer to.
    ids : numpy.ndarray or cupy.ndarray
        Internal vertex ids (int32); a negative entry means no vertex.

    Returns
    -------
    numpy.ndarray or cupy.ndarray
        `ids` itself where `G` is not reordered; else a new array of the same module holding the
        caller's id of each entry, negative entries unchanged. The positions are not moved: use
        :func:`to_caller` for that.

    Examples
    --------
    >>> import numpy as np
    >>> import gravel
    >>> from gravel.dispatch import ids_to_caller
    >>> G = gravel.reorder.reorder(gravel.generate.grid(2, 3), "degree")
    >>> ids_to_caller(G, np.array([0, -1, 5], np.int32)).tolist()
    [1, -1, 5]
    """
    if G.order is None:
        return ids
    m = xp(ids)
    inverse = m.empty(G.n, np.int32)
    inverse[m.asarray(G.order)] = m.arange(G.n, dtype=np.int32)
    return m.where(ids >= 0, inverse[m.maximum(ids, 0)], ids)

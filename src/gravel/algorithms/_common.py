"""What every algorithm shares: device choice, source checks, id mapping, the result object."""

import functools
import time
from dataclasses import dataclass, field, fields

import numpy as np

from ..arguments import is_integer
from ..arrays import host, xp
from ..compiling import compile_clock
from ..errors import DeviceUnavailableError, UnknownNameError, VertexNotFoundError
from ..graph import Graph

DEVICES = ("auto", "cpu", "cuda")


@dataclass
class Result:
    """Base of every result: run statistics beside the per-vertex arrays of the subclass."""

    algorithm: str
    device: str
    time_s: float = 0.0
    iterations: int = 0
    strategy: str = ""
    stats: dict = field(default_factory=dict)

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables."""
        out = {
            "algorithm": self.algorithm,
            "device": self.device,
            "time_s": self.time_s,
            "iterations": self.iterations,
            "strategy": self.strategy,
        }
        out.update(self.stats)
        return out

    def _vertex_arrays(self):
        """Names of the per-vertex arrays and of those among them that hold vertex ids: the
        catalog's description of the algorithm, else (a vertex program) every 1-d array field."""
        from .catalog import CATALOG

        for algo in CATALOG.values():
            if algo.function_name == self.algorithm:
                return algo.arrays, algo.id_arrays
        names = tuple(
            f.name for f in fields(self) if getattr(getattr(self, f.name), "ndim", 0) == 1
        )
        return names, ()

    def columns(self, G=None):
        """The per-vertex arrays on the host, keyed by name after a ``"vertex"`` column.

        Parameters
        ----------
        G : Graph, optional
            The graph the result was computed on. Where it has :attr:`~gravel.Graph.labels`, the
            vertex column and the arrays of vertex ids (BFS parents, say) hold labels; -1 (no
            vertex) stays. Without it, vertices are ids 0..n-1.

        Returns
        -------
        dict of str to numpy.ndarray
        """
        names, id_names = self._vertex_arrays()
        out = {name: host(getattr(self, name)) for name in names}
        n = len(out[names[0]]) if names else 0
        if G is not None and G.n != n:
            raise ValueError(f"the result has {n} vertices but G has {G.n}")
        labels = None if G is None else G.labels
        vertex = {"vertex": np.arange(n) if labels is None else labels}
        for name in id_names if labels is not None else ():
            ids = out[name]
            named = labels[np.maximum(ids, 0)]
            if named.dtype.kind not in "iuf":  # string labels and -1 share an object array
                named = named.astype(object)
            out[name] = np.where(ids >= 0, named, -1)
        return vertex | out

    def to_pandas(self, G=None):
        """The per-vertex arrays as a ``pandas.DataFrame``: a ``vertex`` column, then one column
        per array.

        Parameters
        ----------
        G : Graph, optional
            The graph the result was computed on: its labels name the vertices (see
            :meth:`columns`).

        Returns
        -------
        pandas.DataFrame

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
        >>> gravel.bfs(G, 0, device="cpu").to_pandas()
           vertex  depth  parent
        0       0      0       0
        1       1      1       0
        2       2      2       1

        Raises
        ------
        ImportError
            pandas is not installed.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("to_pandas needs pandas: pip install 'gravel[pandas]'") from None
        frame = {}
        for name, a in self.columns(G).items():
            # a vertex program's structured state gives one column per field
            frame.update({f: a[f] for f in a.dtype.names} if a.dtype.names else {name: a})
        return pd.DataFrame(frame)

    def to_arrow(self, G=None):
        """The per-vertex arrays as a ``pyarrow.Table``: a ``vertex`` column, then one column per
        array (one per field of a vertex program's structured state), as :meth:`to_pandas`.

        Parameters
        ----------
        G : Graph, optional
            The graph the result was computed on: its labels name the vertices, and in the
            columns of vertex ids (BFS parents, say) "no vertex" (-1) is null.

        Returns
        -------
        pyarrow.Table

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
        >>> gravel.bfs(G, 0, device="cpu").to_arrow().column_names
        ['vertex', 'depth', 'parent']

        Raises
        ------
        ImportError
            pyarrow is not installed.
        """
        from ..io.arrow import require_pyarrow

        pa = require_pyarrow("to_arrow")
        columns = self.columns()  # ids: labels are put in below, with nulls for -1
        labels = None if G is None else G.labels
        _, id_names = self._vertex_arrays()
        if G is not None and G.n != len(columns["vertex"]):
            raise ValueError(f"the result has {len(columns['vertex'])} vertices but G has {G.n}")
        vertex = columns.pop("vertex")
        table = {"vertex": vertex if labels is None else labels}
        for name, a in columns.items():
            if a.dtype.names:
                table.update({f: a[f] for f in a.dtype.names})
            elif name in id_names and labels is not None:
                table[name] = pa.array(labels[np.maximum(a, 0)], mask=a < 0)
            else:
                table[name] = a
        return pa.table(table)

    def to_torch(self):
        """The per-vertex arrays as PyTorch tensors, ``{name: tensor}`` over the caller's ids:
        on the result's GPU (through DLPack, no copy) where its arrays are CuPy arrays, else on
        the CPU (sharing NumPy's memory); a structured state gives one per field
        (``"state.rank"``). Needs PyTorch (:func:`gravel.tensors.to_torch`)."""
        from ..tensors import to_torch

        return to_torch({name: getattr(self, name) for name in self._vertex_arrays()[0]})

    def to_dict(self, G=None):
        """The first per-vertex array as a dict from vertex (label, with `G`) to value, as
        NetworkX's algorithms return.

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
        >>> gravel.bfs(G, 0, device="cpu").to_dict()
        {0: 0, 1: 1, 2: 2}
        """
        columns = iter(self.columns(G).values())
        vertex = next(columns)
        return dict(zip(vertex.tolist(), next(columns, vertex[:0]).tolist()))


def takes_graph(func):
    """`func`, refusing with a TypeError that names it a first argument that is not a gravel
    Graph (a NetworkX graph, say), before anything reads it."""

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
        return func(G, *args, **kwargs)

    return checked


def choose_device(device, implementations, name):
    """Pick "cpu" or "cuda" for `device` among the backends `name` has."""
    if device not in DEVICES:
        raise UnknownNameError(f"unknown device {device!r} (expected auto, cpu or cuda)")
    from ..backends import cuda

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
    from ..backends.cuda import runtime

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


def chunks():
    """How many pieces a parallel loop splits its work into (a few per thread, for balance)."""
    import numba  # only when a CPU kernel runs: importing gravel does not import Numba

    return 4 * numba.get_num_threads()


class Timer:
    """Time of a block: wall time on the CPU, CUDA events around the block's GPU work on "cuda".
    The time of compiling kernels inside the block (Numba's at their first call in a process,
    NVRTC's where no kernel was built ahead of time) is left out of ``seconds`` and given as
    ``compile_seconds``: the device waits while the host compiles, so on "cuda" it is taken off the
    events' interval."""

    def __init__(self, device="cpu"):
        self.device = device
        self.compile_seconds = 0.0

    def __enter__(self):
        self._clock = compile_clock()
        self._compiled = self._clock.__enter__()
        if self.device == "cuda":
            import cupy

            self._events = (cupy.cuda.Event(), cupy.cuda.Event())
            self._events[0].record()
        self.start = time.perf_counter()
        return self

    def lap(self):
        """Wall-clock seconds since the block began, compiling left out (on "cuda" the host's
        clock too: a step's time where the host has just waited for the device)."""
        return max(time.perf_counter() - self.start - self._compiled(), 0.0)

    def __exit__(self, *exc):
        if self.device == "cuda":
            import cupy

            self._events[1].record()
            self._events[1].synchronize()
            elapsed = cupy.cuda.get_elapsed_time(*self._events) / 1e3
        else:
            elapsed = time.perf_counter() - self.start
        self.compile_seconds = self._compiled()
        self._clock.__exit__(*exc)
        self.seconds = max(elapsed - self.compile_seconds, 0.0)

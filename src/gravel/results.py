"""What every run returns and how it is timed: the result object and the timer.

A :class:`Result` carries run statistics (device, time, iterations, strategy) beside the
per-vertex arrays of its subclass, which each algorithm defines; the subclass names those arrays
in ``vertex_arrays`` and, among them, the arrays of vertex ids in ``id_arrays``.
"""

import time
from dataclasses import dataclass, field, fields
from typing import ClassVar

import numpy as np

from .arrays import host
from .compiling import compile_clock


@dataclass
class Result:
    """Base of every result: run statistics beside the per-vertex arrays of the subclass.

    Each algorithm's subclass adds its per-vertex arrays as fields (NumPy arrays from the CPU
    path, CuPy arrays from the GPU path, indexed by the caller's ids) and names them in
    ``vertex_arrays``.

    Attributes
    ----------
    algorithm : str
        The algorithm that ran (``"bfs"``, say).
    device : str
        Where it ran: ``"cpu"`` or ``"cuda"`` (a hybrid vertex program: ``"cpu+cuda"``).
    time_s : float, default 0.0
        Seconds of the run, compiling left out (:class:`Timer`).
    iterations : int, default 0
        Iterations (or levels, or steps) the run took.
    strategy : str, default ""
        How it ran, where the algorithm has several ways (``"top-down, serial"``, say).
    stats : dict, default {}
        Further facts of the run, merged into :meth:`summary`.
    vertex_arrays : tuple of str
        Class attribute: the names of the per-vertex arrays, the first the one that
        ``--output x.npy`` writes; empty (a vertex program's result): every one-dimensional
        array field.
    id_arrays : tuple of str
        Class attribute: those of `vertex_arrays` that hold vertex ids (-1 for none), which
        outputs map to a relabelled graph's labels.
    """

    algorithm: str
    device: str
    time_s: float = 0.0
    iterations: int = 0
    strategy: str = ""
    stats: dict = field(default_factory=dict)
    #: seconds the call spent compiling kernels at their first use, left out of ``time_s``
    compile_s: float = 0.0

    def summary(self):
        """Scalar facts about the run, for ``--json`` and tables.

        Returns
        -------
        dict of str to object
            ``algorithm``, ``device``, ``time_s``, ``iterations`` and ``strategy``, then the
            entries of ``stats`` (which win on a clash); subclasses add their own (a BFS's
            ``reached`` and ``max_depth``, say).

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
        >>> summary = gravel.bfs(G, 0, device="cpu").summary()
        >>> summary["algorithm"], summary["device"], summary["reached"]
        ('bfs', 'cpu', 3)
        """
        out = {
            "algorithm": self.algorithm,
            "device": self.device,
            "time_s": self.time_s,
            "iterations": self.iterations,
            "strategy": self.strategy,
            "compile_s": self.compile_s,
        }
        out.update(self.stats)
        return out

    #: the per-vertex arrays of a subclass's result, the first one the array ``--output x.npy``
    #: writes; left empty (a vertex program's result), every one-dimensional array field
    vertex_arrays: ClassVar[tuple[str, ...]] = ()
    #: those of ``vertex_arrays`` that hold vertex ids (-1 for none), which outputs map to a
    #: relabelled graph's labels
    id_arrays: ClassVar[tuple[str, ...]] = ()

    def _vertex_arrays(self):
        """Names of the per-vertex arrays and of those among them that hold vertex ids (an array
        not computed, None, left out)."""
        if self.vertex_arrays:
            names = tuple(name for name in self.vertex_arrays if getattr(self, name) is not None)
            return names, tuple(name for name in self.id_arrays if name in names)
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
            ``"vertex"`` (the ids 0..n-1, or the labels), then each per-vertex array, copied to
            the host where it is a CuPy array.

        Raises
        ------
        ValueError
            `G` is given and its vertex count differs from the result's.
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
            One row per vertex; a vertex program's structured state gives one column per field.

        Raises
        ------
        ImportError
            pandas is not installed.
        ValueError
            `G` is given and its vertex count differs from the result's.

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
        >>> gravel.bfs(G, 0, device="cpu").to_pandas()
           vertex  depth  parent
        0       0      0       0
        1       1      1       0
        2       2      2       1
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

        Raises
        ------
        ImportError
            pyarrow is not installed.
        ValueError
            `G` is given and its vertex count differs from the result's.

        Examples
        --------
        >>> import gravel
        >>> G = gravel.Graph.from_edges([0, 1], [1, 2])
        >>> gravel.bfs(G, 0, device="cpu").to_arrow().column_names
        ['vertex', 'depth', 'parent']
        """
        from .interop import require_pyarrow

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
        """The per-vertex arrays as PyTorch tensors (:func:`gravel.tensors.to_torch`).

        Returns
        -------
        dict of str to torch.Tensor
            ``{name: tensor}`` over the caller's ids: on the result's GPU (through DLPack, no
            copy) where its arrays are CuPy arrays, else on the CPU (sharing NumPy's memory; a
            read-only array is copied); a structured state gives one per field
            (``"state.rank"``).

        Raises
        ------
        ImportError
            PyTorch is not installed.
        """
        from .tensors import to_torch

        return to_torch({name: getattr(self, name) for name in self._vertex_arrays()[0]})

    def to_dict(self, G=None):
        """The first per-vertex array as a dict from vertex to value, as NetworkX's algorithms
        return.

        Parameters
        ----------
        G : Graph, optional
            The graph the result was computed on: where it has labels, the keys are labels
            (see :meth:`columns`), else ids 0..n-1.

        Returns
        -------
        dict
            Vertex to value, as Python scalars; empty where the result has no per-vertex array.

        Raises
        ------
        ValueError
            `G` is given and its vertex count differs from the result's.

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


class Timer:
    """Time of a block: wall time on the CPU, CUDA events around the block's GPU work on "cuda".

    The time of compiling kernels inside the block (Numba's at their first call in a process,
    NVRTC's where no kernel was built ahead of time) is left out of ``seconds`` and given as
    ``compile_seconds``: the device waits while the host compiles, so on "cuda" it is taken off the
    events' interval.

    Parameters
    ----------
    device : str, default "cpu"
        ``"cuda"``: time the block's GPU work with CUDA events (the exit waits for it); any
        other value: wall time on the host.

    Attributes
    ----------
    seconds : float
        The block's time, compiling left out; set when the block ends.
    compile_seconds : float
        The time spent compiling kernels inside the block; 0.0 until the block ends.

    Examples
    --------
    >>> from gravel.results import Timer
    >>> with Timer("cpu") as t:
    ...     total = sum(range(1000))
    >>> t.seconds >= 0.0, t.compile_seconds
    (True, 0.0)
    """

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
        """Wall-clock seconds since the block began, compiling left out.

        On "cuda" too this is the host's clock: a step's time where the host has just waited for
        the device. Call it inside the block.

        Returns
        -------
        float
            At least 0.0.
        """
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

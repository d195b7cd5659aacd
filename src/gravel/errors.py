"""Exception types raised by gravel.

Every gravel error also inherits the builtin exception a Python user would expect, so that ``except
ValueError`` keeps working; the command line turns any of them into one line and exit code 2."""


class GravelError(Exception):
    """Base class of every error gravel raises on purpose."""


class InvalidGraphError(GravelError, ValueError):
    """A graph, or arrays meant to become one, break the rules of :class:`gravel.Graph`."""


class GraphFormatError(InvalidGraphError):
    """A graph file is malformed. The message names the file and, where it can, the line.

    Parameters
    ----------
    message : str
        What is wrong.
    path : str or os.PathLike, optional
        The file, put before the message (``"<path>, line <line>: <message>"``).
    line : int, optional
        The 1-based line, named with `path` (and only with it).

    Attributes
    ----------
    path : str, os.PathLike or None
        The file, as given.
    line : int or None
        The line, as given.
    """

    def __init__(self, message, path=None, line=None):
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f", line {line}"
            where += ": "
        super().__init__(where + message)
        self.path = path
        self.line = line


class VertexNotFoundError(GravelError, IndexError):
    """A vertex id (a source, say) is not in the graph."""


class InvalidWeightError(GravelError, ValueError):
    """Edge weights that the chosen algorithm cannot take (negative or NaN for SSSP)."""


class InvalidArgumentError(GravelError, ValueError):
    """An algorithm's argument outside its domain (alpha, max_iter, a per-vertex vector, ...)."""


class NegativeCycleError(GravelError, ValueError):
    """A cycle of negative total weight is reachable from the source: shortest paths are unbounded.

    Parameters
    ----------
    message : str
        What was found.
    vertex : int, optional
        A vertex on or behind the cycle (its walk from the source repeats a vertex).

    Attributes
    ----------
    vertex : int or None
        The vertex, as given.
    """

    def __init__(self, message, vertex=None):
        super().__init__(message)
        self.vertex = vertex


class UnknownNameError(GravelError, ValueError):
    """An unknown algorithm, generator spec, strategy or file format."""


class DeviceUnavailableError(GravelError, RuntimeError):
    """The requested device (``cuda``) cannot be used on this machine."""


class GraphTooLargeError(GravelError, MemoryError):
    """A graph does not fit the chosen placement (device memory, say). The message gives the
    sizes."""


class PinnedMemoryError(GravelError, MemoryError):
    """Host memory could not be pinned for the GPU to read (the locked-memory limit, say). The
    message names the limit and the fix."""


class PowerIterationFailedConvergence(GravelError, RuntimeError):
    """A power iteration (PageRank, HITS) did not reach `tol` within `max_iter` iterations."""


class MissingDependencyError(GravelError, ImportError):
    """An optional package a feature needs is not installed (matplotlib for plots, say). The
    message names the ``pip install`` that adds it."""

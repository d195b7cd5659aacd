"""NetworkX dispatch backend: ``nx.pagerank(G, backend="gravel")`` runs on gravel.

NetworkX finds this backend through the ``networkx.backends`` entry point
(:class:`~gravel.nx.interface.BackendInterface`) and lists its functions through
``networkx.backend_info`` (:func:`gravel.nx._info.get_info`, which imports nothing heavy). Modules
under :mod:`gravel.nx.algorithms` mirror NetworkX's paths; each function keeps NetworkX's
signature, defaults, return types and exceptions. Runs on the GPU where gravel's CUDA path is
available and the graph holds at least ``GPU_MIN_ARCS`` arcs (:mod:`gravel.nx._algorithm`), else
on gravel's CPU path; ``nx.config.backends.gravel.device`` ("auto", "cpu" or "cuda") forces one.
"""


def __getattr__(name):
    # loaded when NetworkX first dispatches to gravel, not when it reads backend_info
    if name == "BackendInterface":
        from .interface import BackendInterface

        return BackendInterface
    raise AttributeError(f"module 'gravel.nx' has no attribute {name!r}")


__all__ = ["BackendInterface"]

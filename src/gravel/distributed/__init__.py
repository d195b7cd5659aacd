"""Graphs cut into parts, one per worker (one per GPU on the GPU path), on Dask's ``distributed``.

A graph is cut into P contiguous vertex ranges holding about equal numbers of arcs
(:func:`partition`); each part keeps its out-edges and in-edges with global ids. Algorithms run
as one program per part that meets the others through collectives (:mod:`.exchange`): on a
:class:`Cluster` of Dask workers, each part pinned to one worker, or all in this process. In a
few lines::

    >>> import gravel, gravel.distributed
    >>> G = gravel.generate.grid(3, 3)
    >>> gravel.distributed.bfs(G, 0, parts=2, cluster="in-process").depth.tolist()
    [0, 1, 2, 1, 2, 3, 2, 3, 4]

Betweenness centrality (the sources spread over parts that each hold a whole replica,
:mod:`.replicated`), triangle counts and core numbers (:mod:`.counting`) and the vertex programs
of :mod:`gravel.programs` (:func:`run_program`, :mod:`.vertex_programs`) run on CPU workers and
GPUs alike.

Without `cluster`, a call starts a ``distributed.LocalCluster`` of `parts` single-threaded
worker processes and shuts it down after; pass a :class:`Cluster` (or a ``distributed.Client``)
to keep the workers, and ``cluster.load(G)`` to keep the parts on them between calls. Importing
this package does not import Dask; the workers need ``dask`` and ``distributed`` installed.

Results come back as one array in the caller's ids; ``gather=False`` leaves each per-vertex
array where its parts computed it, a :class:`PartArrays` of (global id offset, slice) pairs that
also joins as one Dask array (``to_dask()``) without moving.

On the CPU the exchange routes through the driver; on GPUs (``gpus=N``, or a
:class:`GPUCluster`: one worker process per GPU) the same per-part programs run on each part as a
DeviceGraph, every step an operator call (:mod:`.device_steps`), and an NCCL communicator performs
the same collectives between the workers (:mod:`.nccl`). A :class:`GPUCluster` builds each part on
its own worker from a generator spec or a file::

    with gravel.distributed.GPUCluster(2) as cluster:
        DG = cluster.load("kron:24")
        depth = gravel.distributed.bfs(DG, 0).depth
"""

from .algorithms import bfs, connected_components, pagerank, sssp
from .counting import core_number, triangles
from .partition import (
    Part,
    PartitionedGraph,
    edge_balanced_bounds,
    owner,
    part_of,
    partition,
    split,
)
from .replicated import betweenness_centrality
from .results import PartArrays
from .vertex_programs import run_program

#: the names whose modules load on first use (Dask, CuPy and Numba stay unimported till then)
_LAZY = {
    "Cluster": "cluster",
    "DistributedGraph": "cluster",
    "WorkerLostError": "liveness",
    "GPUCluster": "gpu",
    "GPUGraph": "gpu",
    "Source": "build",
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module 'gravel.distributed' has no attribute {name!r}")


__all__ = [
    "Cluster",
    "DistributedGraph",
    "GPUCluster",
    "GPUGraph",
    "Part",
    "PartArrays",
    "PartitionedGraph",
    "Source",
    "WorkerLostError",
    "betweenness_centrality",
    "bfs",
    "connected_components",
    "core_number",
    "edge_balanced_bounds",
    "owner",
    "pagerank",
    "part_of",
    "partition",
    "run_program",
    "split",
    "sssp",
    "triangles",
]

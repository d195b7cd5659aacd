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

Without `cluster`, a call starts a ``distributed.LocalCluster`` of `parts` single-threaded
worker processes and shuts it down after; pass a :class:`Cluster` (or a ``distributed.Client``)
to keep the workers, and ``cluster.load(G)`` to keep the parts on them between calls. Importing
this package does not import Dask; the workers need ``dask`` and ``distributed`` installed.

This is the CPU path of the same code the GPU path runs: the exchange routes through the driver
here; on GPUs an NCCL communicator performs the same collectives (:class:`.exchange.Communicator`).
"""

from .algorithms import bfs, connected_components, pagerank, sssp
from .partition import Part, PartitionedGraph, edge_balanced_bounds, owner, partition, split


def __getattr__(name):
    # the Dask side imports distributed only when asked for
    if name in ("Cluster", "DistributedGraph", "WorkerLostError"):
        from . import cluster

        return getattr(cluster, name)
    raise AttributeError(f"module 'gravel.distributed' has no attribute {name!r}")


__all__ = [
    "Cluster",
    "DistributedGraph",
    "Part",
    "PartitionedGraph",
    "WorkerLostError",
    "bfs",
    "connected_components",
    "edge_balanced_bounds",
    "owner",
    "pagerank",
    "partition",
    "split",
    "sssp",
]

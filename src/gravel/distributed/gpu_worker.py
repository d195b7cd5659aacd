"""The worker's side of a :class:`~gravel.distributed.gpu.GPUCluster`: the tasks each GPU worker
runs, its NCCL communicator (one per cluster key), its parts moved to the device and the runs of
their programs. The driver's side is :mod:`gravel.distributed.gpu`; the kernels the per-part
programs call on the GPU are :mod:`gravel.distributed.device_kernels`.
"""

import time
from dataclasses import replace

import numpy as np

from ..arrays import host
from ..errors import GravelError
from .exchange import drive

# -- on each worker ----------------------------------------------------------------------------

# In each worker process: cluster key -> this worker's NCCL communicator.
_COMMS = {}


def _connect(key, uid, rank, size):
    from .nccl import NcclCommunicator

    _COMMS[key] = NcclCommunicator(uid, rank, size)
    return rank


def _comm(key):
    comm = _COMMS.get(key)
    if comm is None:
        raise GravelError(
            "this worker has no NCCL communicator for the cluster (was it restarted?)"
        )
    return comm


def to_device(part):
    """A part with its arrays in this process's GPU (the bounds stay on the host).

    Parameters
    ----------
    part : Part

    Returns
    -------
    Part
        A copy with CuPy int64 offsets, int32 ids and float32 weights (or None); an undirected
        part's in-edges are its out-edges' arrays, copied once.
    """
    import cupy

    def dev(a, dtype):
        return None if a is None else cupy.asarray(a, dtype=dtype)

    out = (dev(part.out_offsets, np.int64), dev(part.out_targets, np.int32))
    out_w = dev(part.out_weights, np.float32)
    if part.in_offsets is part.out_offsets:  # undirected: one copy serves both
        ins = out + (out_w,)
    else:
        ins = (dev(part.in_offsets, np.int64), dev(part.in_sources, np.int32))
        ins += (dev(part.in_weights, np.float32),)
    return replace(
        part,
        out_offsets=out[0],
        out_targets=out[1],
        out_weights=out_w,
        in_offsets=ins[0],
        in_sources=ins[1],
        in_weights=ins[2],
    )


def _build(key, source, rank, size):
    from .build import build_program

    return to_device(drive(build_program(rank, source, size, "cuda"), _comm(key)))


def _facts(part):
    """What the driver keeps of a part: bounds, n, directed, weighted, arcs, and the part's vertex
    of highest out-degree (global id) with that degree."""
    deg = part.out_offsets[1:] - part.out_offsets[:-1]
    top = int(deg.argmax()) if part.size else 0
    hub = (part.lo + top, int(deg[top])) if part.size else (0, -1)
    return part.bounds, part.n, part.directed, part.weighted, part.out_arcs, hub


def _host_tree(value):
    if isinstance(value, tuple):
        return tuple(_host_tree(v) for v in value)
    return host(value) if hasattr(value, "shape") else value


def _run(key, part, program, args, keep):
    import cupy

    comm = _comm(key)
    comm.reset_stats()
    t = time.perf_counter()
    value = drive(program(part, *args), comm)
    cupy.cuda.get_current_stream().synchronize()
    seconds = time.perf_counter() - t
    facts = {"seconds": seconds, "exchange_s": comm.exchange_s, "supersteps": comm.supersteps}
    facts["exchange_bytes"] = comm.exchange_bytes
    return (value if keep else _host_tree(value)), facts


def _facts_of(ran):
    """The facts of a run whose value stays on the worker."""
    return ran[1]

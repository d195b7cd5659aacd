"""The worker's side of a :class:`~gravel.distributed.gpu.GPUCluster`: the tasks each GPU worker
runs, its NCCL communicator (one per cluster key), its parts moved to the device and the runs of
their programs. The driver's side is :mod:`gravel.distributed.gpu`; the part on the GPU and the
operator calls of its programs' steps are :mod:`gravel.distributed.device_part` and
:mod:`gravel.distributed.device_steps`.
"""

import time

from ..arrays import host
from ..errors import GravelError
from .device_part import to_device
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


def _build(key, source, rank, size):
    from .build import build_program

    return to_device(drive(build_program(rank, source, size, "cuda"), _comm(key)), consume=True)


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

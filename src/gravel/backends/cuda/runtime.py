"""CUDA runtime: device properties, kernel modules compiled by NVRTC, and checked launches.

Kernels live in ``kernels/<operator>/<strategy>.cu``. A module is compiled once per (file, device,
defines) through ``cupy.RawModule`` with ``name_expressions`` for its template instances; CuPy
caches the binary on disk. Headers under ``kernels/`` are inlined into the source text so that
editing one changes the source hash and recompiles (CuPy's cache does not hash ``-I`` headers)."""

import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

KERNELS = Path(__file__).parent / "kernels"
_INCLUDE = re.compile(r'^#include "([^"]+)"\s*$', re.M)

#: set GRAVEL_CUDA_SYNC=1 to synchronise after every launch, so that a fault names its kernel
SYNC_EACH_LAUNCH = os.environ.get("GRAVEL_CUDA_SYNC", "") not in ("", "0")


@dataclass(frozen=True)
class DeviceProps:
    name: str
    sm_count: int
    l2_bytes: int
    smem_per_block: int
    smem_optin: int
    max_threads_per_sm: int
    cc: tuple
    total_bytes: int


@functools.cache
def props(device_id=None):
    """Properties of the current (or given) device, read once."""
    import cupy

    dev = cupy.cuda.Device(device_id)
    p = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
    return DeviceProps(
        name=name,
        sm_count=p["multiProcessorCount"],
        l2_bytes=p["l2CacheSize"],
        smem_per_block=p["sharedMemPerBlock"],
        smem_optin=p.get("sharedMemPerBlockOptin", p["sharedMemPerBlock"]),
        max_threads_per_sm=p["maxThreadsPerMultiProcessor"],
        cc=(p["major"], p["minor"]),
        total_bytes=p["totalGlobalMem"],
    )


def free_bytes():
    """Device memory free for new arrays: the driver's free memory plus CuPy's pooled free
    blocks."""
    import cupy

    return cupy.cuda.Device().mem_info[0] + cupy.get_default_memory_pool().free_bytes()


def check_fits(nbytes, what):
    """Raise GraphTooLargeError, with the sizes, if `nbytes` more do not fit in device memory."""
    from ...errors import GraphTooLargeError

    free = free_bytes()
    if nbytes > free:
        raise GraphTooLargeError(
            f"{what} needs {nbytes / 2**30:.2f} GiB of device memory; "
            f"{free / 2**30:.2f} GiB are free on the {props().name}"
        )


def define_lines(defines):
    """`defines` (a mapping of macro names to values, or None) as #define lines."""
    return "".join(f"#define {k} {v}\n" for k, v in (defines or {}).items())


def source(path, prelude=""):
    """Kernel source with local headers inlined and `prelude` (generated #defines, helpers)
    prepended."""
    path = KERNELS / path

    def inline(text, seen):
        def repl(m):
            inc = KERNELS / m.group(1)
            if not inc.is_file():
                inc = path.parent / m.group(1)
            if inc in seen:
                return ""
            return inline(inc.read_text(), seen | {inc})

        return _INCLUDE.sub(repl, text)

    return prelude + "\n" + inline(path.read_text(), frozenset())


@functools.cache
def _module(path, name_expressions, prelude, device_id, cooperative):
    import cupy

    return cupy.RawModule(
        code=source(path, prelude),
        options=("-std=c++17",),
        name_expressions=name_expressions,
        enable_cooperative_groups=cooperative,
    )


def kernel(path, name, *, templates=(), prelude="", defines=None, cooperative=False):
    """The compiled kernel `name` (a template instance if `templates` is given) from `path`, with
    `defines` (a mapping of macro names to values: a layout's geometry) and `prelude` before it.
    ``cooperative=True`` launches it cooperatively (grid-wide barriers; the grid must be
    resident)."""
    import cupy

    expr = f"{name}<{', '.join(str(t) for t in templates)}>" if templates else name
    prelude = define_lines(defines) + prelude
    return _launcher(path, expr, prelude, cupy.cuda.Device().id, cooperative)


@functools.cache
def _launcher(path, expr, prelude, device_id, cooperative):
    # cached: looking a function up in a module costs more than launching it
    return Launcher(
        _module(path, (expr,), prelude, device_id, cooperative).get_function(expr), expr
    )


#: gravel kernel launches so far in this process (CuPy's own kernels, such as fills and scans, are
#: not counted); `gravel bench` reports them per iteration
launches = 0


class Launcher:
    """A kernel with a checked launch: scalars must be explicit NumPy types, arrays device
    arrays."""

    def __init__(self, fn, name):
        self.fn = fn
        self.name = name
        self.smem_limit = 0  # dynamic shared memory opted in so far (launches beyond 48 KB need it)

    def __call__(self, grid, block, args, shared_mem=0):
        import cupy

        for i, a in enumerate(args):
            if not isinstance(a, (cupy.ndarray, np.generic)):
                raise TypeError(
                    f"{self.name}: argument {i} is {type(a).__name__}; pass a CuPy array or "
                    "an explicit NumPy scalar (np.int32, np.int64, np.float32)"
                )
            if isinstance(a, cupy.ndarray) and not a.flags.c_contiguous:
                raise ValueError(f"{self.name}: argument {i} is not contiguous")
        grid = (max(int(grid), 1),) if np.isscalar(grid) else grid
        block = (int(block),) if np.isscalar(block) else block
        global launches
        if shared_mem > self.smem_limit:
            self.fn.max_dynamic_shared_size_bytes = self.smem_limit = int(shared_mem)
        self.fn(grid, block, args, shared_mem=shared_mem)
        launches += 1
        if SYNC_EACH_LAUNCH:
            try:
                cupy.cuda.Device().synchronize()
            except Exception as e:
                raise RuntimeError(f"kernel {self.name} failed: {e}") from e


def blocks_for(items, block, *, resident=None):
    """Grid size covering `items` work items; capped at `resident` waves of the device when
    given."""
    need = -(-int(items) // block)
    if resident is not None:
        p = props()
        need = min(need, resident * p.sm_count * (p.max_threads_per_sm // block))
    return max(need, 1)

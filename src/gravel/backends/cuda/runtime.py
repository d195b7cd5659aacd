"""CUDA runtime: device properties, kernel modules, and checked launches.

Kernels live in ``kernels/<operator>/<strategy>.cu``. A module holds one kernel instance: a file,
a name expression (a template instance) and a prelude (defines, the functor). The built-in
algorithms' instances are built ahead of time (:mod:`gravel.prebuild`) and loaded from their
cubins (:mod:`.prebuilt`); any other is compiled by NVRTC through ``cupy.RawModule`` at first
use, announced to :mod:`gravel.compiling`, and cached on disk by CuPy. Headers under ``kernels/``
are inlined into the source text so that editing one changes the source hash and recompiles
(CuPy's cache does not hash ``-I`` headers)."""

import functools
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...compiling import compile_lock, cuda_compile, file_lock
from . import prebuilt

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
    """Properties of the current (or given) device, read once: the first use of a device, when
    CuPy's kernels captured ahead of time join CuPy's cache (:func:`.prebuilt.seed_cupy_cache`)."""
    import cupy

    dev = cupy.cuda.Device(device_id)
    p = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = p["name"].decode() if isinstance(p["name"], bytes) else p["name"]
    prebuilt.seed_cupy_cache((p["major"], p["minor"]))
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

    card = props()  # first use of the device: also what seeds CuPy's cache
    free = free_bytes()
    if nbytes > free:
        raise GraphTooLargeError(
            f"{what} needs {nbytes / 2**30:.2f} GiB of device memory; "
            f"{free / 2**30:.2f} GiB are free on the {card.name}"
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


#: NVRTC compilations in this process (kernels not built ahead of time)
compiles = 0
_recording = None


@contextmanager
def recording():
    """Yield the set that collects every kernel instance requested inside the block, as
    ``(path, expr, prelude, cooperative)``: what :mod:`gravel.prebuild` builds ahead of time."""
    global _recording
    outer, _recording = _recording, set()
    try:
        yield _recording
    finally:
        if outer is not None:
            outer |= _recording
        _recording = outer


def kernel(path, name, *, templates=(), prelude="", defines=None, cooperative=False):
    """The compiled kernel `name` (a template instance if `templates` is given) from `path`, with
    `defines` (a mapping of macro names to values: a layout's geometry) and `prelude` before it.
    ``cooperative=True`` launches it cooperatively (grid-wide barriers; the grid must be
    resident)."""
    import cupy

    expr = f"{name}<{', '.join(str(t) for t in templates)}>" if templates else name
    prelude = define_lines(defines) + prelude
    if _recording is not None:
        _recording.add((path, expr, prelude, cooperative))
    return _launcher(path, expr, prelude, cupy.cuda.Device().id, cooperative)


@functools.cache
def _launcher(path, expr, prelude, device_id, cooperative):
    # cached: looking a function up in a module costs more than launching it
    return Launcher(_function(path, expr, prelude, device_id, cooperative), expr)


def _function(path, expr, prelude, device_id, cooperative):
    """The kernel from its prebuilt cubin if there is one for this card, else compiled now."""
    import cupy

    code = source(path, prelude)
    built = prebuilt.find(code, expr, cooperative, props(device_id).cc)
    if built is not None:
        cubin, lowered = built
        module = cupy.RawModule(path=str(cubin), enable_cooperative_groups=cooperative)
        return module.get_function(lowered)
    global compiles
    # processes compiling the same instance take turns: the later ones read CuPy's cache
    lock = compile_lock(prebuilt.key(code, expr, cooperative))
    with cuda_compile(path), file_lock(lock):
        module = cupy.RawModule(
            code=code,
            options=prebuilt.OPTIONS,
            name_expressions=(expr,),
            enable_cooperative_groups=cooperative,
        )
        fn = module.get_function(expr)  # compiles (or reads CuPy's cache) here, on the clock
        compiles += 1
    return fn


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

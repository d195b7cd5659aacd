"""Graph arrays outside device memory: host memory that kernels read over the bus (EMOGI's
zero-copy), and managed memory (EMOGI's UVM baseline). The map of EMOGI's pieces (placements, bus
reads, streamed sweeps, settings): :mod:`gravel.placement`.

A host array is pinned where it is (``cudaHostRegister``, mapped; read-only for a memory-mapped
``.gravel`` file), with no second host copy, and seen by kernels as a CuPy array over its device
address. It stays pinned while any CuPy array over it lives. The driver pins whole pages, and one
that another pinned array holds too can make a registration fail: such an array is copied into
pages of its own and pinned there, with a UserWarning (the copy's memory is new; kernels read
the copy: the arrays pinned are never written).
"""

import mmap
import resource
import warnings
import weakref

import numpy as np

#: cudaHostRegister flags
_MAPPED, _READ_ONLY = 2, 8
#: cudaHostRegister's errors where the range shares a page with memory pinned already
#: (cudaErrorInvalidValue, cudaErrorHostMemoryAlreadyRegistered)
_SHARED_PAGE = (1, 712)
#: cudaMemAdvise: the data is mostly read, so each GPU may keep a copy of a page
_READ_MOSTLY = 1


class HostPin:
    """The host array `array` pinned and mapped into the GPU's address space: ``.device`` is a
    CuPy array over the same memory."""

    def __init__(self, array):
        import cupy

        from ...errors import PinnedMemoryError

        rt = cupy.cuda.runtime
        # the pins are found by the caller's array's address: it lives as long as the pin, so
        # that no other array takes that address while a pin of a copy stands for it
        self.source = array
        self.array = np.ascontiguousarray(array)
        flags = _MAPPED | (0 if self.array.flags.writeable else _READ_ONLY)
        try:
            try:
                rt.hostRegister(self.array.ctypes.data, self.array.nbytes, flags)
            except rt.CUDARuntimeError as e:
                if e.status not in _SHARED_PAGE:
                    raise
                warnings.warn(
                    f"pinning {self.array.nbytes:,} bytes of host memory in place failed ({e}): "
                    "pinned a copy in pages of its own instead",
                    UserWarning,
                    stacklevel=3,
                )
                self.array = own_pages(self.array)
                rt.hostRegister(self.array.ctypes.data, self.array.nbytes, flags)
        except rt.CUDARuntimeError as e:
            soft, _ = resource.getrlimit(resource.RLIMIT_MEMLOCK)
            limit = "unlimited" if soft == resource.RLIM_INFINITY else f"{soft:,} bytes"
            raise PinnedMemoryError(
                f"pinning {self.array.nbytes:,} bytes of host memory failed ({e}); the "
                f"locked-memory limit is {limit}: raise it (`ulimit -l unlimited`, or memlock "
                "in /etc/security/limits.conf), or choose placement='managed' or 'device'"
            ) from None
        ptr, nbytes = self.array.ctypes.data, self.array.nbytes
        self._unpin = weakref.finalize(self, rt.hostUnregister, ptr)
        # unified addressing (every 64-bit CUDA platform): the device sees it at the same address
        memory = cupy.cuda.UnownedMemory(ptr, nbytes, self, cupy.cuda.Device().id)
        self.device = cupy.ndarray(
            self.array.shape, self.array.dtype, cupy.cuda.MemoryPointer(memory, 0)
        )


def own_pages(array):
    """A copy of `array` in anonymous memory mapped for it alone: no other array shares its pages.

    Parameters
    ----------
    array : numpy.ndarray
        C-contiguous.

    Returns
    -------
    numpy.ndarray
        Equal to `array`, read-only where `array` is; it keeps its mapping alive.
    """
    pages = mmap.mmap(-1, max(array.nbytes, 1))
    copy = np.frombuffer(pages, array.dtype, array.size).reshape(array.shape)
    copy[...] = array
    copy.flags.writeable = array.flags.writeable
    return copy


#: the pins alive, by (address, bytes): graphs over the same host arrays share one registration
_pins = weakref.WeakValueDictionary()


def mapped(array):
    """A CuPy array that reads host `array` in place over the bus (None stays None)."""
    if array is None:
        return None
    if array.size == 0:
        import cupy

        return cupy.asarray(array)
    key = (array.ctypes.data, array.nbytes)
    pin = _pins.get(key)
    if pin is None:
        pin = _pins[key] = HostPin(array)
    return pin.device


def managed(array):
    """A copy of host `array` in managed memory, advised read-mostly and prefetched to the device:
    pages the kernels touch migrate on demand where the prefetch did not bring them."""
    import cupy

    if array is None:
        return None
    memory = cupy.cuda.malloc_managed(max(array.nbytes, 1))
    out = cupy.ndarray(array.shape, array.dtype, memory)
    out.set(np.ascontiguousarray(array))
    if array.nbytes:
        device = cupy.cuda.Device().id
        rt = cupy.cuda.runtime
        rt.memAdvise(memory.ptr, array.nbytes, _READ_MOSTLY, device)
        rt.memPrefetchAsync(memory.ptr, array.nbytes, device, cupy.cuda.get_current_stream().ptr)
    return out

"""Where an array lives: NumPy on the host, CuPy on the device (imported only when one is seen)."""

import numpy as np


def xp(a):
    """The array module of `a`: numpy, or cupy for device arrays."""
    if type(a).__module__.startswith("cupy"):
        import cupy

        return cupy
    return np


def host(a):
    """A NumPy copy of a device array (sync); NumPy arrays pass through."""
    return a.get() if xp(a) is not np else a

"""The CUDA backend: CuPy arrays and CUDA C++ kernels compiled by NVRTC.

Nothing here imports CuPy at module import time, so ``import gravel`` works on any machine.
"""

from functools import cache


@cache
def _probe():
    try:
        import cupy
    except Exception as e:  # ImportError, or a CUDA library that fails to load
        return f"CuPy is not importable ({type(e).__name__}: {e}); install gravel[cuda]"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:
        return f"no usable CUDA device ({e})"
    return None if count > 0 else "no CUDA device is present"


def available():
    """True when CuPy imports and sees at least one GPU."""
    return _probe() is None


def why_unavailable():
    return _probe() or "CUDA is available"

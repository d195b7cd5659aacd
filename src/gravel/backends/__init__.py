"""Compute backends: ``cpu`` (NumPy + Numba) and ``cuda`` (CuPy + CUDA C++)."""

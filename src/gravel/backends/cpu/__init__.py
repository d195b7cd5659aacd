"""CPU kernels, written with Numba and compiled on first use (cached on disk)."""

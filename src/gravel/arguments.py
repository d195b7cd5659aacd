"""What a scalar argument is, as every layer checks it: an integer or a real number, Python's or
NumPy's, never a bool. Each caller words its own error around these."""

import numbers

import numpy as np


def is_integer(x):
    """Whether `x` is an integer (``int`` or a NumPy integer); a bool is not one."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_real(x):
    """Whether `x` is a real number (:class:`numbers.Real`: Python's and NumPy's ints and floats);
    a bool is not one."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))

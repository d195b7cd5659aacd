"""What an argument is, as every layer checks it: an integer or a real number, Python's or NumPy's,
never a bool (each caller words its own error around these), and an array of vertex ids."""

import numbers

import numpy as np

from .errors import InvalidGraphError

#: the most vertices a graph may have: its ids are int32
MAX_VERTICES = 2**31 - 1


def is_integer(x):
    """Whether `x` is an integer (``int`` or a NumPy integer); a bool is not one.

    Parameters
    ----------
    x : object
        The value to test.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from gravel.arguments import is_integer
    >>> is_integer(3), is_integer(np.int64(3)), is_integer(True), is_integer(3.0)
    (True, True, False, False)
    """
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def is_real(x):
    """Whether `x` is a real number (:class:`numbers.Real`: Python's and NumPy's ints and floats);
    a bool is not one.

    Parameters
    ----------
    x : object
        The value to test.

    Returns
    -------
    bool

    Examples
    --------
    >>> from gravel.arguments import is_real
    >>> is_real(0.5), is_real(2), is_real(False), is_real("1")
    (True, True, False, False)
    """
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def vertex_ids(a, name):
    """`a` as an array of vertex ids, such as :meth:`gravel.Graph.from_edges`' `src` and `dst`.

    Parameters
    ----------
    a : array_like
        1-D; integers, or floats that are whole numbers.
    name : str
        The argument's name, for the message.

    Returns
    -------
    numpy.ndarray of int32
        `a` itself where it is int32 already.

    Raises
    ------
    InvalidGraphError
        `a` is not 1-D, holds an id that is not a whole number, a negative one, or one that
        would make more than MAX_VERTICES vertices.
    """
    a = np.asarray(a)
    if a.ndim != 1:
        raise InvalidGraphError(f"{name} must be 1-D")
    if a.size == 0:
        return a.astype(np.int32)
    if not np.issubdtype(a.dtype, np.integer):
        if (
            not np.issubdtype(a.dtype, np.floating)
            or not np.all(np.isfinite(a))
            or np.any(a != np.floor(a))
        ):
            raise InvalidGraphError(f"{name} holds non-integer vertex ids")
    lo, hi = a.min(), a.max()
    if lo < 0:
        raise InvalidGraphError(f"{name} holds a negative vertex id ({lo})")
    if hi > MAX_VERTICES - 1:
        raise InvalidGraphError(f"{name} holds vertex id {hi}, beyond the int32 range")
    return a.astype(np.int32, copy=False)

"""Random generators from the ``seed`` arguments of gravel's functions."""

import numpy as np

from .arguments import is_integer
from .errors import InvalidArgumentError

_GIVEN = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)


def rng(seed, name="seed"):
    """``numpy.random.default_rng(seed)``, with an error that names the argument.

    Parameters
    ----------
    seed : None, int, sequence of int, numpy.random.Generator, BitGenerator or SeedSequence
        None (fresh entropy), an integer >= 0, a non-empty sequence of them (``[run, rank]``) or a
        NumPy generator, bit generator or seed sequence.
    name : str, default "seed"
        The argument's name, for the message.

    Returns
    -------
    numpy.random.Generator
        ``numpy.random.default_rng(seed)``.

    Raises
    ------
    InvalidArgumentError
        For any other `seed` (a bool, a negative integer, a float, ...), naming `name` and the
        value (NumPy's own error names neither).

    Examples
    --------
    >>> from gravel.seeds import rng
    >>> int(rng(7).integers(10)) == int(rng([7]).integers(10))
    True
    >>> rng(-1, "seed")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gravel.errors.InvalidArgumentError: seed must be None, an integer >= 0 ... not -1
    """
    if isinstance(seed, _GIVEN) or seed is None:
        return np.random.default_rng(seed)
    whole = seed if isinstance(seed, (list, tuple)) and seed else [seed]
    if not all(_natural(x) for x in whole):
        raise InvalidArgumentError(
            f"{name} must be None, an integer >= 0 (or a sequence of them) or a "
            f"numpy.random.Generator, not {seed!r}"
        )
    return np.random.default_rng(seed)


def _natural(x):
    """Whether `x` is an integer >= 0 (not a bool)."""
    return is_integer(x) and x >= 0

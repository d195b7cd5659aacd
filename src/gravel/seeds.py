"""Random generators from the ``seed`` arguments of gravel's functions."""

import numpy as np

from .arguments import is_integer
from .errors import InvalidArgumentError

_GIVEN = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)
#: integer seeds are below this: 63 bits, what the generators' kernels take (int64)
SEED_LIMIT = 2**63


def rng(seed, name="seed"):
    """``numpy.random.default_rng(seed)``, with an error that names the argument.

    Parameters
    ----------
    seed : None, int, sequence of int, numpy.random.Generator, BitGenerator or SeedSequence
        None (fresh entropy), an integer in 0..2**63-1, a non-empty sequence of them (``[run,
        rank]``) or a NumPy generator, bit generator or seed sequence.
    name : str, default "seed"
        The argument's name, for the message.

    Returns
    -------
    numpy.random.Generator
        ``numpy.random.default_rng(seed)``.

    Raises
    ------
    InvalidArgumentError
        For any other `seed` (a bool, a negative integer, one beyond 63 bits, a float, ...),
        naming `name` and the value (NumPy's own error names neither): :func:`check`.

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
    return np.random.default_rng(check(seed, name))


def check(seed, name="seed"):
    """`seed` itself where :func:`rng` takes it: None, an integer in 0..2**63-1 (63 bits: what the
    generators' kernels take), a non-empty sequence of them, or a NumPy generator, bit generator
    or seed sequence.

    Parameters
    ----------
    seed : object
        The argument.
    name : str, default "seed"
        The argument's name, for the message (``"--seed"`` on the command line).

    Returns
    -------
    object
        `seed`, unchanged.

    Raises
    ------
    InvalidArgumentError
        For any other `seed` (a bool, a negative integer, one of more than 63 bits, a float, an
        empty sequence, ...), naming `name` and the value.

    Examples
    --------
    >>> from gravel.seeds import check
    >>> check(2**63 - 1)
    9223372036854775807
    >>> check(2**63, "--seed")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    gravel.errors.InvalidArgumentError: --seed must be None, an integer >= 0 and < 2**63 ...
    """
    if isinstance(seed, _GIVEN) or seed is None:
        return seed
    whole = seed if isinstance(seed, (list, tuple)) and seed else [seed]
    if not all(_natural(x) for x in whole):
        raise InvalidArgumentError(
            f"{name} must be None, an integer >= 0 and < 2**63 (or a sequence of them) or a "
            f"numpy.random.Generator, not {seed!r}"
        )
    return seed


def _natural(x):
    """Whether `x` is an integer in 0..2**63-1 (not a bool)."""
    return is_integer(x) and 0 <= x < SEED_LIMIT

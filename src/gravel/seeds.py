"""Random generators from the ``seed`` arguments of gravel's functions."""

import numpy as np

from .errors import InvalidArgumentError

_GIVEN = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)


def rng(seed, name="seed"):
    """``numpy.random.default_rng(seed)`` for a seed of None, an integer >= 0 or a NumPy
    generator; InvalidArgumentError naming `name` and the value for anything else (NumPy's own
    error names neither)."""
    if isinstance(seed, _GIVEN) or seed is None:
        return np.random.default_rng(seed)
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InvalidArgumentError(
            f"{name} must be None, an integer >= 0 or a numpy.random.Generator, not {seed!r}"
        )
    return np.random.default_rng(seed)

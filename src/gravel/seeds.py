"""Random generators from the ``seed`` arguments of gravel's functions."""

import numpy as np

from .arguments import is_integer
from .errors import InvalidArgumentError

_GIVEN = (np.random.Generator, np.random.BitGenerator, np.random.SeedSequence)


def rng(seed, name="seed"):
    """``numpy.random.default_rng(seed)`` for a seed of None, an integer >= 0, a sequence of them
    (``[run, rank]``) or a NumPy generator; InvalidArgumentError naming `name` and the value for
    anything else (NumPy's own error names neither)."""
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

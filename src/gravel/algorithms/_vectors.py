"""Per-vertex distributions given by a caller (PageRank's start, teleport and dangling vectors): a
dict keyed by the caller's vertices (ids, or labels on a labelled graph) or an array over the
caller's ids, checked and normalised, over the internal ids; and whether the weights are read."""

from dataclasses import dataclass

import numpy as np

from ..arrays import host
from ..dispatch import caller_id
from ..errors import InvalidArgumentError, VertexNotFoundError


@dataclass(frozen=True)
class Vectors:
    """The iteration's vectors over the internal ids, float64 on the host, each summing to 1: the
    start, the teleport and the dangling vertices' targets. None is uniform."""

    start: np.ndarray | None = None
    teleport: np.ndarray | None = None
    dangling: np.ndarray | None = None


def per_vertex(G, values, name):
    """`values` (a dict from the caller's vertices, ids or labels as :func:`caller_id` reads them,
    to values, missing vertices 0, or an array over the caller's ids) as a float64 array over the
    internal ids, each value finite; None stays None."""
    if values is None:
        return None
    n = G.n
    try:
        if isinstance(values, dict):
            x = np.zeros(n)
            for key, value in values.items():
                try:
                    v = caller_id(G, key, name)
                except VertexNotFoundError:
                    labels = "" if G.labels is None else " or a label"
                    raise VertexNotFoundError(
                        f"{name}: {key!r} is not a vertex of the graph (ids 0..{n - 1}{labels})"
                    ) from None
                x[v] = float(value)
        else:
            x = np.array(host(values), dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"{name} must hold numbers: {e}") from None
    if x.shape != (n,):
        raise InvalidArgumentError(
            f"{name} must hold one value per vertex ({n}), not shape {x.shape}"
        )
    if not np.all(np.isfinite(x)):
        raise InvalidArgumentError(f"{name} must hold finite values")
    if G.order is None:
        return x
    internal = np.empty(n)
    internal[G.order] = x  # order[i]: the internal id of the caller's vertex i
    return internal


def distribution(G, values, name):
    """`values` as :func:`per_vertex` reads them, non-negative, as a float64 array over the
    internal ids summing to 1; None stays None."""
    x = per_vertex(G, values, name)
    if x is None:
        return None
    if np.any(x < 0):
        raise InvalidArgumentError(f"{name} must hold finite non-negative values")
    total = x.sum()
    if not 0 < total < np.inf:
        raise InvalidArgumentError(f"{name} must have a positive (finite) sum")
    return x / total


def uses_weights(G, weight):
    """Does the iteration read G's weights? (`weight` True or a name: where G has them.)

    Parameters
    ----------
    G : Graph
    weight : bool, str or None
        PageRank's `weight` argument.

    Returns
    -------
    bool

    Raises
    ------
    InvalidArgumentError
        `weight` of another kind.
    """
    if weight is None or weight is False:
        return False
    if weight is True or isinstance(weight, str):
        return G.weighted
    raise InvalidArgumentError(f"weight must be True, None or an attribute name, not {weight!r}")

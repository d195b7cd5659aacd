"""Load balancing of the push advance, and what an advance emits.

:class:`LoadBalance` names the strategies (one kernel file each under kernels/advance/);
:func:`choose_load_balance` picks one from the graph for ``"auto"``. :func:`degree_scan` and
:func:`line_scan` scan a frontier's lists (by entries, by 128-byte lines) for the strategies that
need the scan; :class:`Output` is what an advance emits. The advances themselves are in
:mod:`gravel.operators.advance`.
"""

import enum

import numpy as np

from ..backends.cuda import runtime
from ..errors import UnknownNameError
from .codegen import BLOCK, dummy

#: frontiers up to this many items have their degrees scanned by one block (frontier/degree_scan.cu)
SCAN_IN_ONE_BLOCK = 16384


class LoadBalance(enum.Enum):
    """How advance maps a frontier's edges to threads; each value names its kernel file."""

    THREAD_MAPPED = "thread_mapped"  #: one thread per frontier vertex
    TWC = "twc"  #: thread / warp / CTA by list length
    BLOCK_MAPPED = "block_mapped"  #: a block scans its items' degrees, its threads share the edges
    MERGE_PATH = "merge_path"  #: one thread per output edge, sorted search in the scanned degrees
    MERGE_PATH_CULL = "merge_path_cull"  #: MERGE_PATH fused with exact culling (needs `visited`)
    #: a warp per list, whole 128-byte lines (EMOGI's merged + aligned): lists read over the bus
    #: (why whole lines, and the other pieces of EMOGI: :mod:`gravel.placement`)
    WARP_ALIGNED = "warp_aligned"
    #: whole 128-byte lines, LINES_PER_WARP to a warp: hubs split, short lists packed
    LINE_BALANCED = "line_balanced"

    @classmethod
    def parse(cls, strategy):
        """The strategy named by an enum member or its value; None for "auto".

        Parameters
        ----------
        strategy : LoadBalance or str
            A member, its value (``"merge_path"``, say) or ``"auto"``.

        Returns
        -------
        LoadBalance or None
            None for ``"auto"``: the caller chooses (:func:`choose_load_balance`).

        Raises
        ------
        UnknownNameError
            Any other value; the message lists the known ones.

        Examples
        --------
        >>> from gravel.operators import LoadBalance
        >>> LoadBalance.parse("twc"), LoadBalance.parse("auto")
        (<LoadBalance.TWC: 'twc'>, None)
        """
        if strategy == "auto":
            return None
        try:
            return cls(strategy)
        except ValueError:
            names = ", ".join(lb.value for lb in cls)
            raise UnknownNameError(
                f"unknown load-balancing strategy {strategy!r} (expected auto, {names})"
            ) from None


class Output(enum.Enum):
    """What an advance emits: nothing, destination vertices, edge ids or a bitmap of vertices."""

    NONE = 0
    VERTEX = 1
    EDGE = 2
    BITMAP = 3


_OUTPUTS = {
    None: Output.NONE,
    "vertex": Output.VERTEX,
    "edge": Output.EDGE,
    "bitmap": Output.BITMAP,
}


def _output(output, allowed):
    if output not in allowed:
        raise UnknownNameError(f"unknown output {output!r} (expected one of {allowed})")
    return _OUTPUTS[output]


def degree_scan(offsets, ids):
    """Exclusive scan of the list lengths of the items `ids`.

    Frontiers up to SCAN_IN_ONE_BLOCK items are scanned by one block, larger ones by a degree
    kernel and CuPy's cumsum. Nothing is read back.

    Parameters
    ----------
    offsets : cupy.ndarray of int64
        The lists' offsets (a CSR's).
    ids : cupy.ndarray of int32
        The items (a sparse frontier's ids).

    Returns
    -------
    cupy.ndarray of int64, shape (len(ids) + 1,)
        ``scan[i]`` is the sum of the lengths of the lists of ``ids[:i]``; ``scan[-1]`` their
        total.
    """
    import cupy

    scan = cupy.empty(ids.size + 1, dtype=cupy.int64)
    if ids.size <= SCAN_IN_ONE_BLOCK:
        k = runtime.kernel("frontier/degree_scan.cu", "gravel_degree_scan_block", templates=(1024,))
        k(1, 1024, (offsets, ids, np.int64(ids.size), scan))
    else:
        degrees = cupy.empty(ids.size, dtype=cupy.int64)
        k = runtime.kernel("frontier/degree_scan.cu", "gravel_frontier_degrees")
        k(
            runtime.blocks_for(ids.size, BLOCK, resident=8),
            BLOCK,
            (offsets, ids, np.int64(ids.size), degrees),
        )
        scan[0] = 0
        cupy.cumsum(degrees, out=scan[1:])
    return scan


def line_scan(offsets, ids, tier=None):
    """Exclusive scan of the 128-byte lines that hold the lists of the items `ids`: the work of
    the LINE_BALANCED advance. Nothing is read back.

    Parameters
    ----------
    offsets : cupy.ndarray of int64
        The lists' offsets.
    ids : cupy.ndarray of int32
        The items.
    tier : gravel.backends.cuda.tiers.HotLists, optional
        A tiered graph's device lists: the lists it holds are counted in its arrays.

    Returns
    -------
    cupy.ndarray of int64, shape (len(ids) + 1,)
        ``scan[i]`` is the number of lines of the lists of ``ids[:i]``.
    """
    import cupy

    scan = cupy.empty(ids.size + 1, dtype=cupy.int64)
    tier_offsets = dummy(cupy.int64) if tier is None else tier.offsets
    k = runtime.kernel("frontier/degree_scan.cu", "gravel_frontier_lines")
    k(
        runtime.blocks_for(ids.size, BLOCK, resident=8),
        BLOCK,
        (offsets, tier_offsets, np.int32(tier is not None), ids, np.int64(ids.size), scan[1:]),
    )
    scan[0] = 0
    cupy.cumsum(scan[1:], out=scan[1:])
    return scan


def choose_load_balance(lists, edges, placement="device"):
    """The load balance of an advance, by Gunrock's rule measured for gravel (docs/tuning.md).

    Merge path over `lists` neighbour lists of `edges` entries in all where they average at least
    5, TWC otherwise; lists read over the bus (`placement` "host" or "tiered") go in whole lines,
    balanced by lines, as EMOGI reads them with hubs split, unless
    ``gravel.config.bus_load_balance`` says otherwise. Decided from the sizes alone: no device
    sync.

    Parameters
    ----------
    lists : int
        The number of lists (:func:`advance` passes the graph's vertices).
    edges : int
        Their entries in all (the graph's arcs).
    placement : str, default "device"
        The graph's placement (:data:`gravel.placement.PLACEMENTS`).

    Returns
    -------
    LoadBalance

    Raises
    ------
    UnknownNameError
        Over the bus, a ``gravel.config.bus_load_balance`` that names no strategy.

    Examples
    --------
    >>> from gravel.operators import choose_load_balance
    >>> choose_load_balance(10, 100), choose_load_balance(10, 20)
    (<LoadBalance.MERGE_PATH: 'merge_path'>, <LoadBalance.TWC: 'twc'>)
    >>> choose_load_balance(10, 20, "host")
    <LoadBalance.LINE_BALANCED: 'line_balanced'>
    """
    if placement in ("host", "tiered"):
        from .. import config

        return LoadBalance.parse(config.bus_load_balance) or LoadBalance.LINE_BALANCED
    return LoadBalance.MERGE_PATH if edges >= 5 * lists else LoadBalance.TWC

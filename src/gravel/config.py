"""Process-wide settings, read whenever a graph goes to the GPU; set them in code::

    >>> import gravel
    >>> gravel.config.device_memory = "8GB"   # doctest: +SKIP

or for one block with :func:`using`. The command line sets them from ``--device-memory`` and
``--placement`` for the command it runs.

device_memory : int, str or None, default None
    The device-memory budget: graph arrays beyond it stay in host memory, as on a smaller card
    (``"8GB"``, ``"1.5GiB"`` or a number of bytes; see :func:`gravel.placement.parse_bytes`).
    None: the environment variable ``GRAVEL_DEVICE_MEMORY`` if set, else the card's free memory.
placement : str, default "auto"
    Where ``G.to("cuda")`` puts the graph's arrays when not told: one of
    :data:`gravel.placement.PLACEMENTS`.
tier : str, default "lines"
    Which lists a tiered placement keeps in device memory: one of :data:`gravel.placement.TIERS`.
bus_load_balance : str, default "auto"
    How an advance reads lists over the bus (placements "host" and "tiered"): "auto" (whole lines,
    balanced by lines: ``"line_balanced"``) or another :class:`gravel.operators.LoadBalance` value,
    such as EMOGI's baselines ``"warp_aligned"`` (a warp per list) and ``"thread_mapped"`` (naive).

program_engine : str, default "auto"
    Which engine runs a vertex program on one GPU (:func:`gravel.programs.run`): "operators" (a
    few operator launches per iteration, every program and placement), "fused" (the whole loop
    in one cooperative launch, :mod:`gravel.programs.fused`, for the programs it takes; the
    others still go to the operators) or "auto" (the fused engine for the programs it takes
    whose senders are the active vertices, the operators for those where every vertex sends:
    their dense pulls run faster as the operators' blocked sweeps).
compile_notice : bool, default True
    Whether gravel says "compiling kernels" on stderr when kernels compile for more than a second
    at their first use (:func:`gravel.compiling.watch`); the ``gravel.compiling`` logger records
    each such run's seconds either way. The environment variable ``GRAVEL_COMPILE_NOTICE=0`` sets
    it to False.

How the first four settings act on graphs larger than the GPU (EMOGI): :mod:`gravel.placement`.
"""

import os
from contextlib import contextmanager

device_memory = None
placement = "auto"
tier = "lines"
bus_load_balance = "auto"
program_engine = "auto"
compile_notice = os.environ.get("GRAVEL_COMPILE_NOTICE", "1") != "0"

_SETTINGS = (
    "device_memory",
    "placement",
    "tier",
    "bus_load_balance",
    "program_engine",
    "compile_notice",
)


@contextmanager
def using(**settings):
    """Give settings these values inside a ``with`` block, and their old values back after it.

    Parameters
    ----------
    **settings
        New values by name: ``device_memory``, ``placement``, ``tier``, ``bus_load_balance``,
        ``program_engine``, ``compile_notice``. They are not checked here, but where they are
        read.

    Yields
    ------
    None

    Raises
    ------
    UnknownNameError
        A name that is not one of the settings (nothing is changed).

    Examples
    --------
    >>> import gravel
    >>> with gravel.config.using(device_memory="1GiB"):
    ...     gravel.config.device_memory
    '1GiB'
    >>> gravel.config.device_memory is None
    True
    """
    from .errors import UnknownNameError

    unknown = sorted(set(settings) - set(_SETTINGS))
    if unknown:
        raise UnknownNameError(
            f"no setting {unknown[0]!r} (gravel.config has {', '.join(_SETTINGS)})"
        )
    here = globals()
    old = {name: here[name] for name in settings}
    here.update(settings)
    try:
        yield
    finally:
        here.update(old)

"""Sizes in bytes, read and written for people, and the device-memory budget a plan keeps within
(:mod:`gravel.placement`)."""

import math
import os
import re
from decimal import Decimal

from .. import config
from ..arguments import is_integer
from ..errors import InvalidArgumentError

#: the environment variable that sets the budget where ``gravel.config.device_memory`` is None
BUDGET_ENV = "GRAVEL_DEVICE_MEMORY"

_UNITS = {"b": 1} | {
    p + s: base**i for i, p in enumerate("kmgt", start=1) for s, base in (("b", 1000), ("ib", 1024))
}
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]*)?|\.[0-9]+) *([a-z]*)", re.IGNORECASE | re.ASCII)
_SIZE_HELP = (
    "give bytes (8000000000) or a number and a unit: B, KB, MB, GB, TB (powers of 1000) or KiB, "
    "MiB, GiB, TiB (powers of 1024), e.g. 8GB or 1.5GiB"
)


def parse_bytes(size):
    """The number of bytes a size names.

    Parameters
    ----------
    size : int or str
        A whole number of bytes, or a string: digits, optionally with a decimal point, then a
        unit, case-insensitive: ``B``; ``KB``, ``MB``, ``GB``, ``TB`` (powers of 1000); ``KiB``,
        ``MiB``, ``GiB``, ``TiB`` (powers of 1024). Without a unit the string is a whole number of
        bytes.

    Returns
    -------
    int
        Bytes, rounded down where a decimal size names a fraction of one.

    Raises
    ------
    InvalidArgumentError
        (a ValueError) naming `size`, when it is none of these: negative, a unit without the
        ``B`` ("8G": powers of 1000 or 1024?), a fraction of a byte ("1.5B").

    Examples
    --------
    >>> from gravel.placement import parse_bytes
    >>> parse_bytes("8GB"), parse_bytes("1.5 GiB"), parse_bytes("512kib"), parse_bytes(4096)
    (8000000000, 1610612736, 524288, 4096)
    """
    if is_integer(size) and size >= 0:
        return int(size)
    if isinstance(size, str) and (m := _SIZE.fullmatch(size.strip())):
        number, unit = m.group(1), m.group(2).lower()
        whole = "." not in number
        if unit in _UNITS and (whole or unit != "b"):
            return int(Decimal(number) * _UNITS[unit])
        if not unit and whole:
            return int(number)
    raise InvalidArgumentError(f"{size!r} is not a size: {_SIZE_HELP}")


def format_bytes(nbytes):
    """A number of bytes for people.

    Parameters
    ----------
    nbytes : int
        Bytes, 0 or more.

    Returns
    -------
    str
        ``"512 B"``, ``"1.50 KiB"``, ``"12.0 GiB"``: three significant digits, powers of 1024.
    """
    if nbytes < 1024:
        return f"{nbytes} B"
    i = min(int(math.log(nbytes, 1024)), 4)
    value = nbytes / 1024**i
    digits = 2 if value < 10 else 1 if value < 100 else 0
    return f"{value:.{digits}f} {'KMGT'[i - 1]}iB"


def resolve_budget(budget=None):
    """The device-memory budget in bytes, or None for none.

    Parameters
    ----------
    budget : int or str, optional
        A size (:func:`parse_bytes`) that overrides the configured budget.

    Returns
    -------
    int or None
        The first that is set: `budget`, ``gravel.config.device_memory``, the environment
        variable ``GRAVEL_DEVICE_MEMORY`` (empty counts as unset), in bytes. None means the
        card's free memory is the only limit.

    Raises
    ------
    InvalidArgumentError
        A value that is not a size, naming where it came from.
    """
    sources = (
        (budget, "budget"),
        (config.device_memory, "gravel.config.device_memory"),
        (os.environ.get(BUDGET_ENV) or None, BUDGET_ENV),
    )
    for value, where in sources:
        if value is not None:
            try:
                return parse_bytes(value)
            except InvalidArgumentError as e:
                raise InvalidArgumentError(f"{where}: {e}") from None
    return None


def host_free_bytes():
    """Host memory available to new data.

    Returns
    -------
    int
        Bytes: psutil's figure where psutil is installed, else ``MemAvailable`` from
        /proc/meminfo, else the free pages ``os.sysconf`` counts.
    """
    try:
        import psutil
    except ImportError:
        pass
    else:
        return int(psutil.virtual_memory().available)
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")

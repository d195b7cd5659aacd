"""Checks on the sizes a file's header declares, made before anything is allocated for them."""

import os

from ..errors import GraphFormatError, GraphTooLargeError
from ..graph import _MAX_VERTICES

#: building a CSR holds at least this many bytes a vertex (int64 offsets and degree counts)
BYTES_PER_VERTEX = 16


def check_vertex_count(n, path, line):
    """Refuse a declared vertex count that is negative, past int32 ids, or whose per-vertex arrays
    alone would exceed the host's physical memory; the error names the file, line and value."""
    if n < 0:
        raise GraphFormatError(f"negative vertex count {n}", path, line)
    if n > _MAX_VERTICES:
        raise GraphFormatError(
            f"the header declares {n:,} vertices; gravel's ids are int32 (at most "
            f"{_MAX_VERTICES:,})",
            path,
            line,
        )
    need = BYTES_PER_VERTEX * (n + 1)
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    if need > memory:
        raise GraphTooLargeError(
            f"{path}, line {line}: the header declares {n:,} vertices, whose arrays alone take "
            f"{need / 2**30:.2f} GiB; the host has {memory / 2**30:.2f} GiB of memory"
        )

"""Checks on the sizes a file's header declares, made before anything is allocated for them."""

from ..errors import GraphFormatError, GraphTooLargeError
from ..graph import BUILD_BYTES_PER_VERTEX, MAX_VERTICES
from ..placement import host_free_bytes


def check_vertex_count(n, path, line):
    """Refuse a declared vertex count that is negative, past int32 ids, or whose per-vertex arrays
    alone would exceed the host memory available now; the error names the file, line and value."""
    if n < 0:
        raise GraphFormatError(f"negative vertex count {n}", path, line)
    if n > MAX_VERTICES:
        raise GraphFormatError(
            f"the header declares {n:,} vertices; gravel's ids are int32 (at most "
            f"{MAX_VERTICES:,})",
            path,
            line,
        )
    need = BUILD_BYTES_PER_VERTEX * (n + 1)
    memory = host_free_bytes()
    if need > memory:
        raise GraphTooLargeError(
            f"{path}, line {line}: the header declares {n:,} vertices, whose arrays alone take "
            f"{need / 2**30:.2f} GiB; the host has {memory / 2**30:.2f} GiB of memory available"
        )

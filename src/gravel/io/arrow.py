"""Edge tables in Apache Parquet files, read and written through pyarrow (an optional extra).

Which columns are the edges: ``source`` and ``target`` (and ``weight``, where there is one) by name,
as :meth:`gravel.Graph.from_pandas` calls them; otherwise the first two integer columns are the
source and the target and the first numeric column after the target, if any, is the weight.
pyarrow reads the columns with its own threads, and the ids go to NumPy without a Python loop
(without a copy where a column is one chunk with no nulls).

Ids follow the edge lists' rules: integers (or whole floats) kept as ids unless the caller
relabels; ids of other types (strings, say) only with ``relabel=True``, which numbers them in
sorted order and keeps them in ``G.labels``. Weights, as in the text formats, are kept as written:
negative and NaN ones included, for the algorithms to refuse (:func:`gravel.check_weights`).

gravel's own files (:func:`write`) carry the vertex count and the direction in the schema's
metadata, so that a graph with isolated vertices, or an undirected one, loads as it was saved."""

import json

import numpy as np

from ..errors import GraphFormatError
from ..interop import edge_table, require_pyarrow

#: key of gravel's entry in a Parquet file's schema metadata
META = b"gravel"


def edge_columns(schema, path=None):
    """Names of the edge columns of an Arrow schema, by the module's rule.

    Parameters
    ----------
    schema : pyarrow.Schema
        A table's or Parquet file's schema.
    path : str or os.PathLike, optional
        The file, for the message.

    Returns
    -------
    tuple of (str, str, str or None)
        The source, target and weight columns (None: no weight column).

    Raises
    ------
    GraphFormatError
        The schema has neither ``source`` and ``target`` nor two integer columns.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from gravel.io.arrow import edge_columns
    >>> edge_columns(pa.schema([("u", pa.int32()), ("v", pa.int64()), ("w", pa.float32())]))
    ('u', 'v', 'w')
    """
    import pyarrow as pa

    names = schema.names
    if "source" in names and "target" in names:
        return "source", "target", "weight" if "weight" in names else None
    ints = [i for i, f in enumerate(schema) if pa.types.is_integer(f.type)]
    if len(ints) < 2:
        have = ", ".join(f"{f.name} ({f.type})" for f in schema) or "none"
        raise GraphFormatError(
            f"no edge columns: expected columns 'source' and 'target', or two integer columns "
            f"(columns: {have})",
            path,
        )
    s, t = ints[:2]
    numeric = (pa.types.is_integer, pa.types.is_floating)
    after = [i for i in range(t + 1, len(names)) if any(ok(schema[i].type) for ok in numeric)]
    return names[s], names[t], names[after[0]] if after else None


def read(path, relabel=False, weighted=True):
    """The edges of a Parquet file, as the text readers return them.

    Parameters
    ----------
    path : str or os.PathLike
        The Parquet file.
    relabel : bool, default False
        Accept ids of any type but floats (the caller numbers them); otherwise they must be
        integers or whole floats >= 0.
    weighted : bool, default True
        Read the weight column where there is one.

    Returns
    -------
    src, dst : numpy.ndarray
        The columns' ids: integers (whole floats as int64), or, with `relabel`, values of any
        other type.
    weights : numpy.ndarray or None
        The weight column as stored (integers or floats), or None.
    n : int or None
        The vertex count gravel's writer declared in the metadata (None for a labelled graph or
        a file of other writers).
    directed : bool or None
        The direction gravel's writer declared, else None.

    Raises
    ------
    GraphFormatError
        A file pyarrow cannot read; no edge columns; a null; ids that are negative, not
        integers (without `relabel`) or beyond the declared n; weights that are not numbers;
        unreadable gravel metadata.
    ImportError
        pyarrow is not installed.
    """
    pa = require_pyarrow(f"reading {path}")
    try:
        schema = pa.parquet.read_schema(path)
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"not a readable Parquet file ({e})", path) from None
    source, target, weight = edge_columns(schema, path)
    columns = [source, target] + ([weight] if weight is not None and weighted else [])
    table = pa.parquet.read_table(path, columns=columns, use_threads=True)
    src = _ids(table.column(source), source, path, relabel)
    dst = _ids(table.column(target), target, path, relabel)
    w = None
    if len(columns) == 3:
        col = table.column(weight)
        if not (pa.types.is_integer(col.type) or pa.types.is_floating(col.type)):
            raise GraphFormatError(f"column {weight!r} holds {col.type}, not numeric weights", path)
        _no_nulls(col, weight, path)
        w = col.to_numpy()
    n, directed = _declared(schema, path)
    for name, ids in ((source, src), (target, dst)):
        if n is not None and len(ids) and ids.max() >= n:
            raise GraphFormatError(
                f"vertex {ids.max()} in column {name!r} outside 0..{n - 1} (the metadata "
                f"declares {n} vertices)",
                path,
            )
    return src, dst, w, n, directed


def _ids(col, name, path, relabel):
    import pyarrow as pa

    _no_nulls(col, name, path)
    a = col.to_numpy()
    if pa.types.is_integer(col.type):
        if len(a) and a.min() < 0:
            row = int(np.argmax(a < 0))
            raise GraphFormatError(
                f"negative vertex id {a[row]} in column {name!r}, row {row}", path
            )
        return a
    whole = pa.types.is_floating(col.type) and bool(np.all(np.isfinite(a) & (a == np.floor(a))))
    if whole and (not len(a) or a.min() >= 0):
        return a.astype(np.int64)
    if relabel and not pa.types.is_floating(col.type):
        return a  # labels of another type: relabelling numbers them
    raise GraphFormatError(
        f"column {name!r} holds {col.type}, not integer vertex ids"
        + ("" if pa.types.is_floating(col.type) else ": load with relabel=True to number them"),
        path,
    )


def _no_nulls(col, name, path):
    if col.null_count:
        row = int(np.argmax(col.is_null().to_numpy(zero_copy_only=False)))
        raise GraphFormatError(f"column {name!r} has a missing value (null) in row {row}", path)


def _declared(schema, path):
    """The (n, directed) gravel's writer put in the metadata (n only for a graph without labels),
    or (None, None)."""
    meta = (schema.metadata or {}).get(META)
    if meta is None:
        return None, None
    try:
        info = json.loads(meta)
        return (None if info.get("n") is None else int(info["n"])), bool(info["directed"])
    except (ValueError, KeyError, TypeError):
        raise GraphFormatError(f"unreadable gravel metadata {meta!r}", path) from None


def write(f, G):
    """Write `G` as a Parquet edge table.

    One row per arc (an undirected graph's edges once, u <= v): ``source``, ``target`` (labels
    where G has them) and ``weight`` if G is weighted; the schema's metadata holds the direction
    and, for a graph without labels, n.

    Parameters
    ----------
    f : str, os.PathLike or binary file
        Where pyarrow writes the table.
    G : Graph

    Raises
    ------
    ImportError
        pyarrow is not installed.
    """
    pa = require_pyarrow("writing .parquet")
    table = edge_table(G, undirected_once=True)
    # a labelled graph's vertices are its labels: only an unlabelled one declares its ids' range
    info = {"n": G.n if G.labels is None else None, "directed": G.directed}
    meta = {META: json.dumps(info).encode()}
    pa.parquet.write_table(table.replace_schema_metadata(meta), f)

"""Edge tables in Apache Parquet files, read and written through pyarrow (an optional extra).

Which columns are the edges: ``source`` and ``target`` (and ``weight``, where there is one) by name,
as :meth:`gravel.Graph.from_pandas` calls them; otherwise the first two integer columns are the
source and the target and the first numeric column after the target, if any, is the weight.
pyarrow reads the columns with its own threads, a batch of rows at a time, into one NumPy array
per column without a Python loop.

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
#: rows of a Parquet file decoded at a time (the memory pyarrow holds while reading)
BATCH_ROWS = 1 << 20


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
    """The edges of a Parquet file, in blocks as the text readers return them.

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
    blocks : list of (src, dst, weights or None)
        The rows, BATCH_ROWS at a time (one block with `relabel`, or for ids that are not
        numbers), as :meth:`gravel.Graph.from_edge_blocks` takes them: the columns' ids
        (integers, whole floats as int64, or with `relabel` values of any other type), int32
        sources as runs (ids, counts) where that is smaller, and the weight column as stored
        (integers or floats), or None without one.
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
    from ._parse import runs  # Numba: loaded when a file is read

    pa = require_pyarrow(f"reading {path}")
    try:
        schema = pa.parquet.read_schema(path)
    except (pa.ArrowInvalid, OSError) as e:
        raise GraphFormatError(f"not a readable Parquet file ({e})", path) from None
    source, target, weight = edge_columns(schema, path)
    columns = [source, target] + ([weight] if weight is not None and weighted else [])
    types = [schema.field(c).type for c in columns]
    if len(columns) == 3 and not (pa.types.is_integer(types[2]) or pa.types.is_floating(types[2])):
        raise GraphFormatError(f"column {weight!r} holds {types[2]}, not numeric weights", path)
    n, directed = _declared(schema, path)
    blocks, first = [], 0
    for values in _batches(pa, path, columns, types, relabel):
        src, dst = (_ids(values[i], types[i], columns[i], path, relabel, first, n) for i in (0, 1))
        w = values[2] if len(columns) == 3 else None
        blocks.append((src if relabel else runs(src), dst, w))
        first += len(dst)
    return blocks, n, directed


def _batches(pa, path, columns, types, whole):
    """The columns' values as NumPy arrays, BATCH_ROWS rows at a time, each batch's arrays their
    own (a block dropped frees its memory); nulls refused. Read `whole` (one batch), or where
    a column is not numeric. pyarrow's allocator keeps the memory it frees: released after
    each batch, and no row group read ahead, so that a table's worth of buffers does not stay
    beside the arrays."""
    f = pa.parquet.ParquetFile(path, pre_buffer=False)
    if whole or not all(pa.types.is_integer(t) or pa.types.is_floating(t) for t in types):
        table = f.read(columns=columns, use_threads=True)
        for name in columns:
            _no_nulls(table.column(name), name, path)
        yield [table.column(name).to_numpy() for name in columns]
        return
    if f.metadata.num_rows == 0:
        yield [np.empty(0, t.to_pandas_dtype()) for t in types]
        return
    first = 0
    for batch in f.iter_batches(batch_size=BATCH_ROWS, columns=columns, use_threads=True):
        for name, col in zip(columns, batch.columns):
            _no_nulls(col, name, path, first)
        values = [np.array(col.to_numpy()) for col in batch.columns]
        first += batch.num_rows
        del batch
        pa.default_memory_pool().release_unused()
        yield values


def _ids(a, kind, name, path, relabel, first, n):
    """The ids of column `name` (rows `first` on) as gravel keeps them, checked."""
    import pyarrow as pa

    if pa.types.is_floating(kind):
        if not bool(np.all(np.isfinite(a) & (a == np.floor(a)))):
            raise GraphFormatError(f"column {name!r} holds {kind}, not integer vertex ids", path)
        a = a.astype(np.int64)
    elif not pa.types.is_integer(kind):
        if relabel:
            return a  # labels of another type: relabelling numbers them
        raise GraphFormatError(
            f"column {name!r} holds {kind}, not integer vertex ids: load with relabel=True to "
            "number them",
            path,
        )
    if len(a) and a.min() < 0:
        row = int(np.argmax(a < 0))
        raise GraphFormatError(
            f"negative vertex id {a[row]} in column {name!r}, row {first + row}", path
        )
    if n is not None and len(a) and a.max() >= n:
        raise GraphFormatError(
            f"vertex {a.max()} in column {name!r} outside 0..{n - 1} (the metadata declares "
            f"{n} vertices)",
            path,
        )
    return a


def _no_nulls(col, name, path, first=0):
    """Refuse a null in `col`, rows `first` on of column `name`."""
    if col.null_count:
        row = first + int(np.argmax(col.is_null().to_numpy(zero_copy_only=False)))
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
    # ids are many and distinct: a dictionary of them only slows the write (weights repeat)
    dictionary = ["weight"] if "weight" in table.column_names else False
    pa.parquet.write_table(table.replace_schema_metadata(meta), f, use_dictionary=dictionary)

"""Graphs to and from NetworkX graphs and pandas edge tables: the bodies of
:meth:`gravel.Graph.from_networkx`, :meth:`~gravel.Graph.from_pandas` and
:meth:`~gravel.Graph.to_networkx`, which document them."""

import numpy as np

from .errors import InvalidGraphError


def from_networkx(cls, graph, weight):
    """A `cls` (Graph) from a NetworkX graph, nodes numbered in ``graph.nodes`` order."""
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    edges = list(graph.edges(data=weight, default=1)) if weight else list(graph.edges)
    src = np.fromiter((index[e[0]] for e in edges), np.int64, len(edges))
    dst = np.fromiter((index[e[1]] for e in edges), np.int64, len(edges))
    w = np.fromiter((e[2] for e in edges), np.float64, len(edges)) if weight else None
    labels = np.asarray(nodes) if nodes and not _is_range(nodes) else None
    return cls.from_edges(src, dst, w, n=len(nodes), directed=graph.is_directed(), labels=labels)


def from_pandas(cls, df, source, target, weight, *, directed, relabel):
    """A `cls` (Graph) from an edge table, as NetworkX's ``from_pandas_edgelist`` reads one."""
    import pandas as pd

    missing = [c for c in (source, target, weight) if c is not None and c not in df.columns]
    if missing:
        raise KeyError(f"no column {missing[0]!r} in the edge table (columns: {list(df)})")
    for column in (source, target):
        empty = df[column].isna().to_numpy()
        if empty.any():
            row = df.index[int(np.flatnonzero(empty)[0])]
            row = row.item() if isinstance(row, np.generic) else row
            raise InvalidGraphError(f"column {column!r} has no vertex at row {row!r} (NaN or None)")
    w = None if weight is None else df[weight].to_numpy()
    if not relabel:
        return cls.from_edges(df[source].to_numpy(), df[target].to_numpy(), w, directed=directed)
    ends = pd.concat([df[source], df[target]], ignore_index=True)
    try:
        ids, labels = pd.factorize(ends, sort=True)
    except TypeError:  # labels of types that do not compare
        ids, labels = pd.factorize(ends)
    return cls.from_edges(
        ids[: len(df)],
        ids[len(df) :],
        w,
        n=len(labels),
        directed=directed,
        labels=np.asarray(labels),
    )


def to_networkx(G):
    """A ``networkx.DiGraph`` or ``networkx.Graph`` of the gravel graph `G`."""
    import networkx as nx

    g = nx.DiGraph() if G.directed else nx.Graph()
    names = G.labels.tolist() if G.labels is not None else range(G.n)
    g.add_nodes_from(names)
    src, dst = G.edges()
    if G.labels is not None:
        src, dst = G.labels[src], G.labels[dst]
    if G.weights is None:
        g.add_edges_from(zip(src.tolist(), dst.tolist()))
    else:
        g.add_weighted_edges_from(zip(src.tolist(), dst.tolist(), G.weights.tolist()))
    return g


def _is_range(nodes):
    return all(isinstance(v, (int, np.integer)) and v == i for i, v in enumerate(nodes))

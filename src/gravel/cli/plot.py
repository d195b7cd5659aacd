"""Plots from the command line: ``gravel plot`` and the ``--plot`` of ``gravel run``. matplotlib
is imported only when a plot is drawn."""

from pathlib import Path

from .. import generate
from ..algorithms.catalog import CATALOG
from .graphs import DEFAULT_GRAPH, open_graph, run_source
from .progress import working


def check_plot(path):
    """Refuse a ``--plot`` path before any work.

    Parameters
    ----------
    path : path-like or None
        The plot's file; None (no ``--plot``) passes.

    Raises
    ------
    UnknownNameError
        The suffix is not .png, .svg or .pdf.
    MissingDependencyError
        matplotlib is not installed.
    OSError
        The folder is missing or read-only.
    """
    if path is not None:
        from .. import plots

        plots.check_path(path)


def plot_run(path, res, G):
    """Plot what tells most about a run: the levels of a BFS, the convergence of PageRank,
    otherwise the degree distribution of the graph.

    Parameters
    ----------
    path : path-like
        The plot's file; its suffix picks the format.
    res : Result
        The run's result.
    G : Graph
        The graph it ran on.

    Returns
    -------
    pathlib.Path
        The path written.
    """
    from .. import plots
    from ..algorithms.bfs import BFSResult
    from ..algorithms.pagerank import PageRankResult

    if isinstance(res, BFSResult):
        plots.traversal_levels(res, path)
    elif isinstance(res, PageRankResult):
        plots.pagerank_convergence(res, path)
    else:
        plots.degree_distribution(G, path)
    return Path(path)


def cmd_plot(args):
    """``gravel plot``: the degree distribution of GRAPH and, where it has edges, the levels of a
    BFS from its busiest vertex (or ``--source``) and PageRank's convergence, as files in
    ``--out``.

    Parameters
    ----------
    args : argparse.Namespace
        ``gravel plot``'s arguments: GRAPH, ``--out``, ``--format``, ``--source``, ``--device``.

    Raises
    ------
    MissingDependencyError
        matplotlib is not installed (before the folder is made).
    UnknownNameError, OSError
        A plot's path is refused, as :func:`check_plot` refuses it, before any plot is drawn.
    """
    from .. import algorithms, plots

    plots.require_matplotlib()  # before the folder is made
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = _plot_stem(args.graph)
    paths = {k: out / f"{stem}-{k}.{args.format}" for k in ("degrees", "bfs-levels", "pagerank")}
    for path in paths.values():
        plots.check_path(path)
    G, name = open_graph(args.graph, undirected=args.undirected, relabel=args.relabel)
    plots.degree_distribution(G, paths["degrees"])
    written = {"degree distribution": paths["degrees"]}
    if G.nnz:
        source = run_source(CATALOG["bfs"], G, args.source)
        with working(f"running bfs on {name}"):
            levels = algorithms.bfs(G, source, device=args.device)
        plots.traversal_levels(levels, paths["bfs-levels"])
        written["BFS levels"] = paths["bfs-levels"]
        with working(f"running pagerank on {name}"):
            ranks = algorithms.pagerank(G, device=args.device)
        plots.pagerank_convergence(ranks, paths["pagerank"])
        written["PageRank convergence"] = paths["pagerank"]
    for what, path in written.items():
        print(f"{name}: {what} -> {path}")


def _plot_stem(spec):
    """The start of `gravel plot`'s file names: the graph file's name without its suffixes, or the
    generator spec with ':' as '_'."""
    if spec is None:
        return DEFAULT_GRAPH.split(".")[0]
    if generate.is_spec(spec):
        return "".join(c if c.isalnum() or c in "-_" else "_" for c in spec)
    return Path(spec).name.split(".")[0] or "graph"

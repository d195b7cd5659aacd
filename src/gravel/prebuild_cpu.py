"""Compile the CPU kernels ahead of time into Numba's cache, so that a fresh install's first run of
any algorithm, on a graph of any size, loads its kernels instead of compiling them.

Which kernels a run compiles depends on the graph: up to ``SMALL_ARCS`` arcs
(:mod:`gravel.backends.cpu.csr`) the serial twins run, past it the parallel kernels; a weighted
graph, a directed one or one memory-mapped from a binary file (read-only arrays) each compile their
own instances. :func:`exercise` runs every algorithm of the catalog, with its defaults, its
benchmark options and the variants that launch other kernels, on small graphs of each kind (and the
distributed counts' parts, in process), and then again with :data:`THRESHOLDS` lowered so that the
same small graphs take the large graphs' parallel paths. It also generates, saves and loads graphs
in each format. Every kernel lands in Numba's cache beside its source (content-stamped:
:mod:`gravel.backends.cpu.cache`), which the wheel carries: ``setup.py`` runs ``python -m
gravel.prebuild_cpu`` on the built package when it builds.
"""

import argparse
import contextlib
import importlib
import sys
import tempfile
import time
from pathlib import Path

#: ``(module, name, value)``: size thresholds below which a smaller path runs, and the value that
#: sends every graph down the large graphs' path
THRESHOLDS = (
    ("gravel.backends.cpu.csr", "SMALL_ARCS", -1),
    ("gravel.backends.cpu.arcs", "SMALL_ARCS", -1),
    ("gravel.backends.cpu.serial", "SMALL_ARCS", -1),
    ("gravel.algorithms.sssp.cpu", "SERIAL_ARCS", 0),
    ("gravel.algorithms.bfs", "SERIAL_LIMIT", 0),
)

#: graph file formats :func:`exercise` writes and reads back
FORMATS = ("edgelist", "mtx", "gr", "gravel", "sg", "wsg")


@contextlib.contextmanager
def large_paths():
    """Within the block, graphs of any size take the paths of large graphs (:data:`THRESHOLDS`).

    Yields
    ------
    None
    """
    saved = []
    try:
        for module, name, value in THRESHOLDS:
            m = importlib.import_module(module)
            saved.append((m, name, getattr(m, name)))
            setattr(m, name, value)
        yield
    finally:
        for m, name, value in reversed(saved):
            setattr(m, name, value)


def graph_builders(folder):
    """Builders of small graphs of every kind the kernels are compiled for.

    Parameters
    ----------
    folder : Path
        Where graph files are written and read back from.

    Returns
    -------
    list of callable
        Functions of no argument that each build a Graph: the bundled graph (``gravel run``'s
        default), a grid, Kronecker (undirected) and uniform (directed) graphs with and without
        whole weights and with fractional ones, and a graph memory-mapped from a binary file.
    """
    import numpy as np

    from .cli import open_graph
    from .generate import from_spec, uniform_random
    from .graph import Graph
    from .io import load, save
    from .transform import add_random_weights

    def fractional(make):
        def build():
            G = add_random_weights(make())  # whole weights, alike both ways where undirected
            return Graph(G.offsets, G.indices, G.weights / np.float32(3), directed=G.directed)

        return build

    def mapped(make, name):
        def build():
            path = folder / f"{name}.gravel"
            save(make(), path)
            return load(path)

        return build

    kron = lambda: from_spec("kron:8")  # noqa: E731
    uniform = lambda: uniform_random(8, directed=True)  # noqa: E731
    weighted = [lambda m=m: add_random_weights(m()) for m in (kron, uniform)]
    return [
        lambda: open_graph(None)[0],
        lambda: from_spec("grid:16x16"),
        kron,
        uniform,
        *weighted,
        fractional(kron),
        fractional(uniform),
        mapped(kron, "kron"),
        mapped(weighted[1], "uniform-weighted"),
    ]


def _runs(algo, G):
    """Keyword sets to run `algo` with on `G`: its defaults, its benchmark's and the variants."""
    from .prebuild import VARIANTS

    return [{}, algo.timed(G), *VARIANTS.get(algo.name, [])]


def run_algorithms(G, algorithms=None):
    """Run the catalog's algorithms on G on the CPU, with each of their keyword sets.

    Parameters
    ----------
    G : Graph
    algorithms : list of str, optional
        Catalog names (default: all).
    """
    from .algorithms.catalog import CATALOG
    from .errors import GravelError

    for name in algorithms or CATALOG:
        algo = CATALOG[name]
        if algo.undirected_only and G.directed:
            continue
        for options in _runs(algo, G):
            try:
                algo.call(G, 0, device="cpu", **options)
            except GravelError:
                pass  # refused or not converged: the kernels it reached are compiled all the same


def run_distributed_counts(G):
    """Run the distributed triangle count and core numbers on G cut in two parts, in this process:
    their parts' kernels (without Dask).

    Parameters
    ----------
    G : Graph
    """
    from .distributed import core_number, triangles

    triangles(G, parts=2, cluster="in-process")
    core_number(G, parts=2, cluster="in-process")


def round_trips(folder):
    """Generate graphs and write and read each in every format of :data:`FORMATS`, so that the
    generators' and readers' kernels compile, on small files and with :func:`large_paths` on
    large ones.

    Parameters
    ----------
    folder : Path
        Where the files go.
    """
    from .generate import from_spec
    from .io import load, save
    from .transform import add_random_weights

    graphs = {"plain": from_spec("kron:8"), "weighted": add_random_weights(from_spec("kron:8"))}
    for kind, G in graphs.items():
        for fmt in FORMATS:
            if fmt == "wsg" and kind == "plain":
                continue
            path = folder / f"{kind}.{fmt}"
            save(G, path, format=fmt)
            load(path, format=fmt, cache=False)
            if fmt == "edgelist":
                load(path, format=fmt, cache=False, undirected=True, relabel=True)


def exercise(algorithms=None, *, log=sys.stderr):
    """Compile every kernel the algorithms, the generators and the readers reach, into Numba's
    cache: on the small graphs of :func:`graph_builders` as they are, then with
    :func:`large_paths`.

    Parameters
    ----------
    algorithms : list of str, optional
        Catalog names (default: all).
    log : file, optional
        Where progress is said.
    """
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for label, paths in (("small", contextlib.nullcontext), ("large", large_paths)):
            with paths():
                round_trips(folder)
                builders = graph_builders(folder)
                for i, build in enumerate(builders):
                    elapsed = time.perf_counter() - start
                    print(
                        f"gravel: CPU kernels, {label} graphs' paths: graph {i + 1} of "
                        f"{len(builders)} ({elapsed:.0f} s)",
                        file=log,
                        flush=True,
                    )
                    G = build()
                    run_algorithms(G, algorithms)
                    if algorithms is None:
                        run_distributed_counts(G)


def main(argv=None):
    """Compile the CPU kernels into Numba's cache from the command line, ``python -m
    gravel.prebuild_cpu``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``): ``--algorithm`` (repeatable; all by default).
    """
    parser = argparse.ArgumentParser(
        prog="python -m gravel.prebuild_cpu",
        description="Compile gravel's CPU kernels into Numba's cache ahead of time.",
    )
    parser.add_argument("--algorithm", action="append", help="catalog name (repeatable)")
    args = parser.parse_args(argv)
    exercise(args.algorithm)


if __name__ == "__main__":
    main()

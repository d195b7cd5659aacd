"""GRAPH on the command line: opening a file, a generator spec or the bundled graph, naming its
vertices, and the subcommands that read or write a graph alone (info, generate, convert)."""

import json
import time
from importlib import resources
from pathlib import Path

import numpy as np

from .. import config, generate
from ..errors import GravelError, UnknownNameError, VertexNotFoundError
from ..io import GRAPH_SUFFIXES, check_writable, load, save
from ..placement import format_bytes, plan, render, resolve_budget
from .output import print_table
from .progress import working

DEFAULT_GRAPH = "facebook_combined.txt.gz"  # SNAP ego-Facebook, 4,039 vertices, undirected


def open_graph(spec, *, undirected=False, relabel=False, seed=0):
    """A Graph from a file, a generator spec, or the small real graph shipped with gravel; a load
    or a generation that runs long says so on stderr (:func:`gravel.cli.progress.working`).

    Parameters
    ----------
    spec : str or None
        A graph file, a generator spec (``kron:SCALE[:EF]``, ``urand:SCALE[:DEG]``,
        ``grid:RxC[:diag]``, ``rgg:SCALE[:DEG]``), or None for the bundled graph.
    undirected : bool, optional
        Read an edge list as undirected.
    relabel : bool, optional
        Number an edge list's ids 0..n-1 (generated and bundled graphs are numbered so already).
    seed : int, optional
        The generator's seed.

    Returns
    -------
    G : Graph
        The graph.
    name : str
        What the commands call it: `spec`, or the bundled file's name.

    Raises
    ------
    GravelError
        The file cannot be read as a graph, or the spec is malformed.
    OSError
        The file cannot be opened.
    """
    if spec is None:
        with (
            resources.as_file(resources.files("gravel") / "data" / DEFAULT_GRAPH) as p,
            working(f"loading {DEFAULT_GRAPH}"),
        ):
            return load(p, undirected=True, cache=False), f"{DEFAULT_GRAPH} (bundled)"
    if generate.is_spec(spec):
        with working(f"generating {spec}"):
            return generate.from_spec(spec, seed=seed), spec
    with working(f"loading {spec}"):
        return load(spec, undirected=undirected, relabel=relabel), spec


def vertex_of(G, vertex_id):
    """The vertex of `G` that a command-line id names.

    Parameters
    ----------
    G : Graph
        The graph.
    vertex_id : int
        The id given on the command line: the file's own id when G was relabelled on load
        (``G.labels``), G's id otherwise.

    Returns
    -------
    int
        G's id of that vertex.

    Raises
    ------
    VertexNotFoundError
        G was relabelled and no vertex of the file has that id.
    """
    if G.labels is None:
        return vertex_id
    hit = np.flatnonzero(G.labels == vertex_id)
    if not len(hit):
        raise VertexNotFoundError(f"vertex {vertex_id} does not occur in the graph file")
    return int(hit[0])


def run_source(algo, G, source):
    """The vertex a command starts an algorithm from.

    Parameters
    ----------
    algo : Algorithm
        The algorithm's catalog description.
    G : Graph
        The graph.
    source : int or None
        ``--source`` (a command-line id, :func:`vertex_of`), or None for the vertex of highest
        out-degree: a traversal from it is never trivially short.

    Returns
    -------
    int or None
        G's id of the source; None for an algorithm that takes none.

    Raises
    ------
    UnknownNameError
        `source` is given to an algorithm that takes none.
    GravelError
        The graph is empty.
    VertexNotFoundError
        See :func:`vertex_of`.
    """
    if not algo.takes_source:
        if source is not None:
            raise UnknownNameError(f"--source does not apply to {algo.name}")
        return None
    if G.n == 0:
        raise GravelError("the graph is empty: there is no source vertex")
    return int(np.argmax(G.out_degree)) if source is None else vertex_of(G, source)


def cmd_info(args):
    """``gravel info``: GRAPH's size and degree statistics and what it takes on the CPU, and, where
    a GPU is present or ``--placement`` or ``--device-memory`` asks for it, where its arrays would
    go on the GPU; as tables or (``--json``) one JSON line.

    Parameters
    ----------
    args : argparse.Namespace
        ``gravel info``'s arguments: GRAPH, ``--undirected``, ``--relabel``, ``--json`` and the
        placement flags (which :func:`main` applies; given, they ask for the GPU's plan).
    """
    t = time.perf_counter()
    G, name = open_graph(args.graph, undirected=args.undirected, relabel=args.relabel)
    info = _describe(G, name) | {"load_s": time.perf_counter() - t}
    cpu = _cpu_view(G)
    asked = args.placement is not None or args.device_memory is not None
    layout, note = _placement_plan(G, asked)
    if args.json:
        gpu = {} if layout is None else {"plan": layout.summary()}
        print(json.dumps(info | {"cpu": cpu} | gpu))
        return
    print_table(f"gravel info: {name}", info)
    print(_cpu_text(cpu, G.directed))
    print(note if layout is None else render(layout) + note)


def _describe(G, name):
    deg = G.out_degree
    return {
        "graph": str(name),
        "vertices": G.n,
        "edges": G.m,
        "arcs": G.nnz,
        "directed": G.directed,
        "weighted": G.weighted,
        "self_loops": G.self_loops,
        "degree_min": int(deg.min()) if G.n else 0,
        "degree_max": int(deg.max(initial=0)),
        "degree_mean": float(deg.mean()) if G.n else 0.0,
        "degree_median": float(np.median(deg)) if G.n else 0.0,
        "isolated_vertices": int(((deg == 0) & (G.in_degree == 0)).sum()),
    }


def _cpu_view(G):
    """What G takes on the CPU: the threads of its kernels, the bytes of its CSR in host memory,
    and those its in-arcs add when first used (none for an undirected graph: they are its CSR)."""
    import numba

    csr = sum(a.nbytes for a in (G.offsets, G.indices, G.weights) if a is not None)
    return {
        "threads": numba.get_num_threads(),
        "csr_bytes": int(csr),
        "in_arcs_bytes": int(csr) if G.directed else 0,
    }


def _cpu_text(cpu, directed):
    """:func:`_cpu_view` as a line for people."""
    in_arcs = (
        f"its in-arcs {format_bytes(cpu['in_arcs_bytes'])} more once built (on first use)"
        if directed
        else "its in-arcs are the same arrays (undirected)"
    )
    return (
        f"on the CPU: {cpu['threads']} threads; the CSR takes {format_bytes(cpu['csr_bytes'])} of "
        f"host memory, {in_arcs}"
    )


def _placement_plan(G, asked):
    """Where G's arrays would go on the GPU under this command's placement and budget, and a note:
    with no GPU here, the limit the plan assumed. Without a GPU and not `asked`, no plan (None)
    and a note saying how to ask."""
    from ..backends import cuda

    if cuda.available():
        from ..backends.cuda.runtime import free_bytes

        return plan(G, config.placement, free_device=free_bytes()), ""
    if not asked:
        return None, (
            "no GPU here: gravel runs on the CPU (--placement or --device-memory shows where the "
            "arrays would go on a GPU)"
        )
    if resolve_budget() is None:
        note = "the budget defaults to the card's free memory; this plan assumes a card that holds "
        note += "the whole graph"
    else:
        note = "this plan is for the budget alone (on a GPU, the card's free memory caps it too)"
    return plan(G, config.placement), "\nno GPU here: " + note


def cmd_generate(args):
    """``gravel generate SPEC -o FILE``: write a generated graph.

    Parameters
    ----------
    args : argparse.Namespace
        ``gravel generate``'s arguments: SPEC, ``--output``, ``--seed``.

    Raises
    ------
    UnknownNameError, InvalidGraphError
        SPEC names no generator, or its numbers are out of range; FILE's suffix names no format
        gravel writes (before the graph is built).
    OSError
        The output's folder is missing or read-only (before the graph is built).
    """
    _check_graph_output(args.output)
    with working(f"generating {args.spec}"):
        G = generate.from_spec(args.spec, seed=args.seed)
    with working(f"writing {args.output}"):
        save(G, args.output)
    print(f"{args.spec}: {G.n:,} vertices, {G.m:,} edges -> {args.output}")


def cmd_convert(args):
    """``gravel convert INPUT OUTPUT``: read a graph and write it in the format of OUTPUT's suffix.

    Parameters
    ----------
    args : argparse.Namespace
        ``gravel convert``'s arguments: INPUT, OUTPUT, ``--undirected``, ``--relabel``.

    Raises
    ------
    GravelError
        INPUT is not a graph gravel reads.
    UnknownNameError
        OUTPUT's suffix names no format gravel writes (:data:`gravel.io.GRAPH_SUFFIXES`, a ``.gz``
        after it), before INPUT is read: ``out.xyz`` is refused, not written as an edge list.
    OSError
        INPUT cannot be read, or OUTPUT's folder is missing or read-only (before INPUT is read).
    """
    _check_graph_output(args.output)
    G, _ = open_graph(args.input, undirected=args.undirected, relabel=args.relabel)
    with working(f"writing {args.output}"):
        save(G, args.output)
    print(f"{args.input}: {G.n:,} vertices, {G.m:,} edges -> {args.output}")


def _check_graph_output(path):
    """Refuse, before any work, a graph output whose suffix (before a ``.gz``) names no format
    gravel writes (as ``run --output`` refuses its own), or whose folder cannot be written."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes[-1:] == [".gz"]:
        suffixes.pop()
    if not suffixes or suffixes[-1] not in GRAPH_SUFFIXES:
        raise UnknownNameError(
            f"{path}: unknown graph format (use {', '.join(GRAPH_SUFFIXES)}; .gz after a text "
            "format compresses it)"
        )
    check_writable(path)

"""Build the built-in algorithms' kernels ahead of time, so that a fresh machine's first run loads
them instead of compiling.

``kernels/instances.json`` lists every kernel instance the built-in algorithms launch: a ``.cu``
file, a name expression and the prelude put before the file (defines, the algorithm's functor).
``scripts/record-kernels.py`` writes it by running :func:`exercise` on a GPU, with what the same
launches pick on other graphs added (:func:`complete`: a pull's lanes per list, advance's load
balancing), so that the list does not depend on the graphs it was recorded on. :func:`build`
compiles each instance with NVRTC, as CuPy compiles it at first use, into the folders that
:mod:`gravel.backends.cuda.prebuilt` reads at run time. CuPy compiles kernels of its own too
(fills, reductions, ``where``): with ``capture=True`` the build runs :func:`exercise` once more and
keeps what CuPy wrote to its cache, in ``sm_<cc>/cupy/``; a stamp tells whether a capture is the
current algorithms' (:func:`captured`). Installing gravel where CuPy and a GPU are present builds
both (``setup.py``); ``python -m gravel.prebuild`` builds them by hand.
"""

import argparse
import hashlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from .backends.cuda import prebuilt, runtime
from .compiling import file_lock

#: the instances the built-in algorithms launch: [path, expr, prelude, cooperative] each
INSTANCES = runtime.KERNELS / "instances.json"


def instances():
    """The recorded instances.

    Returns
    -------
    list of tuple
        ``(path, expr, prelude, cooperative)`` for each instance of :data:`INSTANCES`.
    """
    return [tuple(i) for i in json.loads(INSTANCES.read_text())]


def pull_lanes():
    """Every width of lane group a pull neighbor_reduce can take (``gravel_neighbor_reduce_pull<T,
    lanes>``).

    :func:`gravel.operators.sweeps.lanes_per_item` rounds the mean degree up to a power of two, so
    the powers of two up to past its cap give its every value.

    Returns
    -------
    list of int
        The widths, in increasing order.
    """
    from .operators.sweeps import lanes_per_item

    return sorted({lanes_per_item(2.0**k) for k in range(-1, 16)})


def _split(expr):
    """``"f<a, b>"`` -> ``("f", ["a", "b"])``."""
    name, _, args = expr.partition("<")
    return name, [a.strip() for a in args[:-1].split(",")] if args else []


def complete(recorded):
    """The recorded instances with what their launch sites pick on other graphs and frontiers.

    A pull neighbor_reduce's lanes per list come from the mean list length (of the graph, or of a
    sweep's bin), advance's load balancing ("auto": merge path or TWC) from the mean degree, and
    with merge path its partition and the frontier's degree scan (one block, or by items and a
    CuPy scan, by the frontier's size). The choice is a template argument or a kernel of its own;
    the prelude, the functor, is the launch site's whatever it picks, so each recorded functor
    stands for all of them. Recording on a few graphs then covers any graph, whatever widths those
    happen to pick.

    Parameters
    ----------
    recorded : iterable of tuple
        Instances as ``(path, expr, prelude, cooperative)``.

    Returns
    -------
    set of tuple
        `recorded` and the instances added to it.
    """
    from .operators.advance import BLOCK, MERGE_PATH_TILE

    out = {tuple(i) for i in recorded}
    lanes = pull_lanes()
    helpers = [
        ("advance/merge_path.cu", "gravel_merge_path_partition"),
        ("frontier/degree_scan.cu", "gravel_degree_scan_block<1024>"),  # load_balance.degree_scan's
        ("frontier/degree_scan.cu", "gravel_frontier_degrees"),
    ]
    for path, expr, prelude, cooperative in list(out):
        name, args = _split(expr)
        if name == "gravel_neighbor_reduce_pull":
            out |= {(path, f"{name}<{args[0]}, {w}>", prelude, cooperative) for w in lanes}
        elif name in ("gravel_advance_merge_path", "gravel_advance_twc"):
            kind, ctype = args[:2]
            merge = (
                f"gravel_advance_merge_path<{kind}, {ctype}, {BLOCK}, {MERGE_PATH_TILE // BLOCK}>"
            )
            out.add(("advance/merge_path.cu", merge, prelude, cooperative))
            out.add(
                ("advance/twc.cu", f"gravel_advance_twc<{kind}, {ctype}>", prelude, cooperative)
            )
            out |= {(p, e, "", False) for p, e in helpers}
    return out


def _compile(job):
    """One instance to ``(key, lowered name, cubin bytes)`` with NVRTC, with the options CuPy
    gives a ``RawModule`` (its include paths, ``-ftz=true``, the architecture)."""
    from cupy._core.core import assemble_cupy_compiler_options
    from cupy.cuda.compiler import compile_using_nvrtc

    path, expr, prelude, cooperative, arch = job
    code = runtime.source(path, prelude)
    options = assemble_cupy_compiler_options(prebuilt.OPTIONS) + ("-ftz=true",)
    cubin, mapping = compile_using_nvrtc(code, options, arch, name_expressions=[expr])
    return prebuilt.key(code, expr, cooperative), mapping[expr], cubin


def build(arch, root=prebuilt.PREBUILT, *, jobs=None, capture=False, log=sys.stderr):
    """Compile every recorded instance for one architecture; instances already built are kept.

    Parameters
    ----------
    arch : tuple of int or str
        The compute capability to build for, as :func:`.backends.cuda.prebuilt.arch_dir` takes it.
    root : path-like, optional
        Where the architectures' folders go (default: the package's, where the runtime looks).
    jobs : int, optional
        Compiler processes at a time (all cores by default).
    capture : bool, optional
        On a GPU of that architecture, also keep the kernels CuPy compiles for the algorithms,
        unless the current ones are kept already (:func:`captured`).
    log : file, optional
        Where the build says what it does.

    Returns
    -------
    pathlib.Path
        The architecture's folder.
    """
    folder = prebuilt.arch_dir(arch, root)
    folder.mkdir(parents=True, exist_ok=True)
    # builds of one architecture from several processes at once (test workers, parallel
    # installs) take turns instead of writing over each other
    with file_lock(folder / ".lock"):
        names = prebuilt.read_names(folder)
        todo = []
        for path, expr, prelude, cooperative in instances():
            k = prebuilt.key(runtime.source(path, prelude), expr, cooperative)
            if k not in names or not (folder / f"{k}.cubin").is_file():
                todo.append((path, expr, prelude, cooperative, str(arch)))
        print(f"gravel: building {len(todo)} CUDA kernels for sm_{arch} in {folder}", file=log)
        if todo:
            # spawned, not forked: a parent that has initialised CUDA cannot fork workers using it
            spawn = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(jobs or os.cpu_count(), mp_context=spawn) as pool:
                for k, lowered, cubin in pool.map(_compile, todo):
                    (folder / f"{k}.cubin").write_bytes(cubin)
                    names[k] = lowered
            prebuilt.write_names(folder, names)
        if capture and not captured(arch, root):
            print(f"gravel: capturing CuPy's kernels in {folder / 'cupy'}", file=log)
            _capture(folder)
    return folder


#: options beyond the defaults and the benchmark's that launch other kernels
VARIANTS = {
    "pagerank": [
        {"direction": "push"},
        {"blocking": None},
        {"blocking": 1024},
        {"blocking": 1 << 14},
        {"direction": "push", "blocking": 1 << 14},
        {"weight": False},
        {"personalization": {0: 1.0}, "dangling": {0: 1.0}},
        {"stopping": "networkx"},
    ],
    "sssp": [{"delta": 1.0}],
    "bc": [{"k": 2, "seed": 1}],
    "tc": [{"per_vertex": False}],
}
#: seeds the capture runs the algorithms that draw their own seed with too (those taking a `seed`
#: but no sample size `k`): the random choices change the sizes of their arrays, and CuPy's
#: nonzero and scan launch other kernels on arrays of more than one block
SEEDS = range(1, 4)


def graph_builders(large):
    """Builders of graphs that take each path.

    Parameters
    ----------
    large : bool
        Add graphs past the small ones' thresholds.

    Returns
    -------
    list of callable
        Functions of no argument that each build a Graph: the bundled graph (which `gravel run`
        reads by default), a grid, and Kronecker and uniform random graphs, directed and
        undirected, with and without weights.
    """
    from .cli import open_graph
    from .generate import from_spec, uniform_random
    from .transform import add_random_weights

    def weighted(make):
        return lambda: add_random_weights(make())

    small = [lambda: from_spec("kron:10"), lambda: uniform_random(10, directed=True)]
    big = [lambda: from_spec("kron:16"), lambda: uniform_random(16, directed=True)]
    return [
        lambda: open_graph(None)[0],
        lambda: from_spec("grid:64x64"),
        *small,
        *map(weighted, small),
        *((*big, *map(weighted, big)) if large else ()),
    ]


def exercise(algorithms=None, graphs=None, *, large=False):
    """Launch every kernel the algorithms launch, on the GPU.

    Each algorithm runs with its defaults, its benchmark options, :data:`VARIANTS` and, where it
    draws a seed, :data:`SEEDS`, on each graph that it accepts (undirected-only ones skip directed
    graphs). Betweenness runs its benchmark's few sources, not all, on large graphs.

    Parameters
    ----------
    algorithms : list of str, optional
        Catalog names (default: every algorithm with a CUDA path).
    graphs : iterable of int, optional
        Indices into :func:`graph_builders` (default: all of them).
    large : bool, optional
        Include :func:`graph_builders`' large graphs.
    """
    from .algorithms.catalog import CUDA_CATALOG
    from .errors import PowerIterationFailedConvergence

    builders = graph_builders(large)
    for i in range(len(builders)) if graphs is None else graphs:
        G = builders[i]()
        for name in algorithms or CUDA_CATALOG:
            algo = CUDA_CATALOG[name]
            if algo.undirected_only and G.directed:
                continue
            runs = [algo.timed(G), *VARIANTS.get(name, [])]
            if "seed" in algo.options and "k" not in algo.options:
                runs += [{"seed": seed} for seed in SEEDS]
            if name != "bc" or G.n <= 1 << 12:
                runs.append({})
            for options in runs:
                try:
                    algo.call(G, 0, device="cuda", **options)
                except PowerIterationFailedConvergence:
                    pass  # HITS on the bipartite grid: it launched every kernel all the same


def _capture_stamp():
    """What the CuPy kernels captured ahead of time depend on: the recorded instances, gravel's
    Python sources (which CuPy routines the algorithms call) and CuPy's version, hashed."""
    import cupy

    h = hashlib.sha256(INSTANCES.read_bytes())
    package = Path(__file__).parent
    for f in sorted(package.rglob("*.py")):
        h.update(f"\0{f.relative_to(package)}\0".encode() + f.read_bytes())
    h.update(cupy.__version__.encode())
    return h.hexdigest()


def captured(cc, root=prebuilt.PREBUILT):
    """Whether CuPy's kernels for a card were captured from the algorithms as they are now.

    A capture from older algorithms lacks what the new ones compile: a first run would compile it.

    Parameters
    ----------
    cc : tuple of int or str
        The compute capability.
    root : path-like, optional
        The root folder of the cubins (the package's by default).

    Returns
    -------
    bool
        True where the capture exists and its stamp is the current one.
    """
    folder = prebuilt.arch_dir(cc, root)
    try:
        stamp = (folder / "cupy.stamp").read_text()
    except OSError:
        return False
    return (folder / "cupy").is_dir() and stamp == _capture_stamp()


def _capture(folder):
    """Run :func:`exercise` in a fresh process whose CuPy cache is empty (and seeded with nothing,
    so that no older capture carries over), then swap its cache in as `folder`/cupy and stamp it
    (:func:`captured`)."""
    cache, fresh = folder / "cupy", folder / "cupy.new"
    (folder / "cupy.stamp").unlink(missing_ok=True)
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.mkdir()
    env = dict(os.environ, CUPY_CACHE_DIR=str(fresh), **{prebuilt.SEED: "0"})
    code = "from gravel.prebuild import exercise; exercise()"
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    shutil.rmtree(cache, ignore_errors=True)
    fresh.replace(cache)
    (folder / "cupy.stamp").write_text(_capture_stamp())


def _device_arch():
    import cupy

    return cupy.cuda.Device().compute_capability


def main(argv=None):
    """Build the kernels from the command line, ``python -m gravel.prebuild``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default: ``sys.argv[1:]``): ``--arch`` (repeatable; the current GPU's by
        default, which also captures CuPy's kernels), ``--out`` and ``--jobs``.
    """
    parser = argparse.ArgumentParser(
        prog="python -m gravel.prebuild",
        description="Build the built-in algorithms' CUDA kernels ahead of time.",
    )
    parser.add_argument(
        "--arch",
        action="append",
        help="compute capability, such as 90 (repeatable; default: the current GPU's)",
    )
    parser.add_argument(
        "--out", type=Path, default=prebuilt.PREBUILT, help="root folder of the cubins"
    )
    parser.add_argument("--jobs", type=int, default=None, help="compiler processes (all cores)")
    args = parser.parse_args(argv)
    here = _device_arch()
    for arch in args.arch or [here]:
        build(arch, args.out, jobs=args.jobs, capture=arch == here)


if __name__ == "__main__":
    main()

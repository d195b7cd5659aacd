"""One description per algorithm, read by ``gravel run``, ``gravel bench`` and the tests.

A description says what the command line and the benchmark need to know about an algorithm: its
public function, the per-vertex arrays of its result, whether it starts from a source, the least
memory traffic of one sweep over the graph, how a timed run calls it, the other libraries' ways to
compute the same thing, and its verifier. Functions and verifiers are looked up when first used, so
importing this module imports no algorithm, no SciPy and no CuPy.
"""

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import baselines
from .baselines import PAGERANK_ITERATIONS

#: sources of a timed betweenness run, spread evenly over the ids (all n: hours on large graphs)
BC_SOURCES = 4


@dataclass(frozen=True)
class Baseline:
    """Another library's way to compute what an algorithm computes, timed beside it by the bench.

    Attributes
    ----------
    name : str
        ``"scipy"`` or ``"cusparse"``; the bench's columns are ``<name>_s`` and
        ``speedup_vs_<name>``.
    device : {"cpu", "cuda"}
        Where it runs: a CPU baseline is timed in every run, a CUDA one beside GPU runs only.
    build : callable
        ``build(G, source)`` returns a function of no arguments that computes the answer once.
    """

    name: str
    device: str
    build: Callable


@dataclass(frozen=True)
class Algorithm:
    """What the command line and the benchmark know about one algorithm.

    Attributes
    ----------
    name : str
        Its name on the command line (``gravel run NAME``).
    module : str
        The module of ``gravel.algorithms`` that holds the function and ``verify_<module>``.
    function_name : str
        The public function, also exported by ``gravel``.
    result : str
        The name of its result class in `module`, whose ``vertex_arrays`` and ``id_arrays`` are
        :attr:`arrays` and :attr:`id_arrays`.
    vertex_bytes : int
        Bytes per vertex one sweep must read or write beyond the graph (its arrays, say).
    takes_source : bool
        Whether the function's second argument is a source vertex.
    weighted : bool
        Whether it reads edge weights (4 more bytes per arc in its memory floor).
    options : tuple of str
        ``gravel run`` flags passed on to the function as keywords of the same name.
    timed : callable
        ``timed(G)`` gives the keywords of a benchmark run (fixed iterations, sampled sources).
    sweeps : callable
        ``sweeps(result)``: how many times the run went over the edges (GTEPS and the floor count
        each).
    baselines : tuple of Baseline
        The other libraries' ways to compute the same thing, timed beside it by the bench.
    checked : tuple of str
        Attributes of the result beyond `arrays` that the verifier takes by keyword where the result
        has them (bc: its ``sources``).
    undirected_only : bool
        Whether it refuses directed graphs (InvalidGraphError), as NetworkX does.
    """

    name: str
    module: str
    function_name: str
    result: str
    vertex_bytes: int
    takes_source: bool = False
    weighted: bool = False
    options: tuple[str, ...] = ()
    timed: Callable = lambda G: {}
    sweeps: Callable = lambda result: 1
    baselines: tuple[Baseline, ...] = ()
    checked: tuple[str, ...] = ()
    undirected_only: bool = False

    def _module(self):
        return importlib.import_module(f"{__package__}.{self.module}")

    @property
    def arrays(self):
        """The per-vertex arrays of its result (tuple of str); the first is the one ``--output
        x.npy`` writes."""
        return getattr(self._module(), self.result).vertex_arrays

    @property
    def id_arrays(self):
        """Those of :attr:`arrays` that hold vertex ids (-1 for none), which outputs map to a
        relabelled graph's labels."""
        return getattr(self._module(), self.result).id_arrays

    @property
    def devices(self):
        """Where it has a path (tuple of str): the keys of its module's ``IMPLEMENTATIONS``,
        ``"cpu"`` and ``"cuda"``, or ``"cpu"`` alone (GPU tests, the prebuilt kernels and ``gravel
        bench --device cuda`` pass over it)."""
        return tuple(self._module().IMPLEMENTATIONS)

    @property
    def function(self):
        """The public function."""
        return getattr(self._module(), self.function_name)

    @property
    def verifier(self):
        """``verify_<module>(G, [source,] *arrays)``, which returns a list of problems; None if the
        module has none."""
        return getattr(self._module(), f"verify_{self.module}", None)

    def call(self, G, source=None, **options):
        """Run the function on G (from `source` if it takes one; otherwise `source` is ignored).

        Parameters
        ----------
        G : Graph
        source : int or label, optional
            The source vertex, passed as the function's second argument where
            :attr:`takes_source`.
        **options
            Keywords for the function (``max_iter=20``, ``device="cpu"``, say).

        Returns
        -------
        Result
            What the function returns (a subclass of :class:`gravel.results.Result`).

        Examples
        --------
        >>> import gravel
        >>> from gravel.algorithms.catalog import CATALOG
        >>> r = CATALOG["bfs"].call(gravel.generate.grid(1, 3), 0, device="cpu")
        >>> r.depth.tolist()
        [0, 1, 2]
        """
        if self.takes_source:
            return self.function(G, source, **options)
        return self.function(G, **options)

    def floor_bytes(self, G):
        """Fewest bytes one sweep must move: the CSR (offsets and indices), the weights if read, and
        its per-vertex arrays, each read or written once.

        Parameters
        ----------
        G : Graph

        Returns
        -------
        int
            ``8 (n + 1) + 4 m`` (``8 m`` where :attr:`weighted`) ``+ vertex_bytes * n``.

        Examples
        --------
        >>> import gravel
        >>> from gravel.algorithms.catalog import CATALOG
        >>> CATALOG["bfs"].floor_bytes(gravel.generate.grid(1, 3))  # 32 + 4 * 4 + 8 * 3
        72
        """
        arc_bytes = 8 if self.weighted else 4
        return 8 * (G.n + 1) + arc_bytes * G.nnz + self.vertex_bytes * G.n

    def verify(self, G, result, source=None, **keywords):
        """Problems the verifier finds in `result`.

        Parameters
        ----------
        G : Graph
            The graph the result was computed on.
        result : Result
            What :meth:`call` returned: its :attr:`arrays` (host or device arrays, over the
            caller's ids) and the attributes named in `checked` go to the verifier.
        source : int, optional
            The source's id, for an algorithm that :attr:`takes_source`.
        **keywords
            More of the verifier's keywords (``weight=None``, say).

        Returns
        -------
        list of str
            The problems found, each a sentence; empty if the result is right.
        """
        from ..arrays import host

        head = (G, source) if self.takes_source else (G,)
        extra = {
            a: host(getattr(result, a))
            for a in self.checked
            if getattr(result, a, None) is not None
        } | keywords
        return self.verifier(*head, *(host(getattr(result, a)) for a in self.arrays), **extra)

    def check(self, G, source=None, device="auto"):
        """Run it as a benchmark times it and return the problems its verifier finds.

        The run takes :attr:`timed`'s keywords, except that where those fix the count of
        iterations (``tol=0``) it stops at the function's own test, which the verifier's
        tolerance expects; the verifier gets those of the keywords it takes (PageRank's
        ``weight``).

        Parameters
        ----------
        G : Graph
        source : int, optional
            The source's id, for an algorithm that :attr:`takes_source`.
        device : {"auto", "cpu", "cuda"}, default "auto"

        Returns
        -------
        list of str
            The problems found, each a sentence; empty if the answer is right.

        Raises
        ------
        GravelError
            From the run (a power iteration that does not converge, say).
        """
        options = _checked_options(self.timed(G))
        result = self.call(G, source, **options, device=device)
        takes = inspect.signature(self.verifier).parameters
        keywords = {k: v for k, v in options.items() if k in takes and k not in self.checked}
        return self.verify(G, result, source, **keywords)

    def checks_as_timed(self, G):
        """Whether :meth:`check`'s run is made as the timed runs are (not where those fix the
        count of iterations), so that it warms their kernels and layouts as a warm-up would.

        Parameters
        ----------
        G : Graph

        Returns
        -------
        bool
        """
        return _checked_options(self.timed(G)).keys() == self.timed(G).keys()


def _checked_options(timed):
    """A timed run's keywords for the run the verifier checks: a fixed count of iterations (tol 0)
    gives way to the function's own stopping test."""
    if timed.get("tol") == 0.0:
        return {k: v for k, v in timed.items() if k not in ("max_iter", "tol")}
    return dict(timed)


def _spread_sources(G):
    """BC_SOURCES ids spread evenly over the graph."""
    return {"sources": np.arange(BC_SOURCES) * max(G.n // BC_SOURCES, 1) % max(G.n, 1)}


def _iterated(name, function_name, result, options, checked=()):
    """A power iteration over the in-lists (scores read twice and written: 24 bytes a vertex),
    timed at a fixed count of iterations as PageRank."""
    timed = {"max_iter": PAGERANK_ITERATIONS, "tol": 0.0}
    kw = dict(options=options, checked=checked, sweeps=lambda result: result.iterations)
    return Algorithm(name, name, function_name, result, 24, timed=lambda G: timed, **kw)


_ALGORITHMS = (
    Algorithm(
        name="bfs",
        module="bfs",
        function_name="bfs",
        result="BFSResult",
        takes_source=True,
        vertex_bytes=8,  # depth and parent
        baselines=(
            Baseline("scipy", "cpu", baselines.scipy_bfs),
            Baseline("cusparse", "cuda", baselines.cusparse_bfs),
        ),
    ),
    Algorithm(
        name="sssp",
        module="sssp",
        function_name="sssp",
        result="SSSPResult",
        takes_source=True,
        weighted=True,
        vertex_bytes=8,
        baselines=(Baseline("scipy", "cpu", baselines.scipy_dijkstra),),
    ),
    Algorithm(
        name="bellman_ford",
        module="bellman_ford",
        function_name="bellman_ford",
        result="SSSPResult",
        takes_source=True,
        weighted=True,
        vertex_bytes=8,
        baselines=(Baseline("scipy", "cpu", baselines.scipy_bellman_ford),),
    ),
    Algorithm(
        name="pagerank",
        module="pagerank",
        function_name="pagerank",
        result="PageRankResult",
        vertex_bytes=24,  # per iteration: contributions, rank in and rank out
        options=("alpha", "max_iter", "tol"),
        # unweighted, as GAP and Gunrock rank, as the cuSPARSE baseline runs and as the memory
        # floor counts a sweep: `gravel bench` gives every graph weights (SSSP's)
        timed=lambda G: {"max_iter": PAGERANK_ITERATIONS, "tol": 0.0, "weight": None},
        sweeps=lambda result: result.iterations,
        baselines=(Baseline("cusparse", "cuda", baselines.cusparse_pagerank),),
    ),
    Algorithm(
        name="cc",
        module="cc",
        function_name="connected_components",
        result="CCResult",
        vertex_bytes=4,
        baselines=(Baseline("scipy", "cpu", baselines.scipy_weak),),
    ),
    Algorithm(
        name="bc",
        module="betweenness",
        function_name="betweenness_centrality",
        result="BCResult",
        vertex_bytes=8,
        options=("k", "seed"),
        timed=_spread_sources,
        checked=("sources",),
        sweeps=lambda result: 2 * len(result.sources),
    ),  # forward and backward per source
    Algorithm(
        name="tc",
        module="triangles",
        function_name="triangles",
        result="TriangleResult",
        vertex_bytes=8,
        timed=lambda G: {"per_vertex": False},
        checked=("total",),
    ),
    Algorithm(
        name="kcore",
        module="kcore",
        function_name="core_number",
        result="CoreResult",
        vertex_bytes=4,
    ),
    Algorithm(
        name="truss",
        module="truss",
        function_name="truss_number",
        result="TrussResult",
        vertex_bytes=4,
    ),
    Algorithm(
        name="scc",
        module="scc",
        function_name="strongly_connected_components",
        result="SCCResult",
        vertex_bytes=32,  # index, lowlink, component, stack, frame vertex and arc
        baselines=(Baseline("scipy", "cpu", baselines.scipy_strong),),
    ),
    Algorithm(
        name="hits",
        module="hits",
        function_name="hits",
        result="HITSResult",
        vertex_bytes=40,  # per iteration: hubs read twice and written, authorities written and read
        options=("max_iter", "tol"),
        timed=lambda G: {"max_iter": PAGERANK_ITERATIONS, "tol": 0.0},
        sweeps=lambda result: 2 * result.iterations,  # A^T h, then A a
    ),
    _iterated("eigenvector", "eigenvector_centrality", "CentralityResult", ("max_iter", "tol")),
    _iterated("katz", "katz_centrality", "KatzResult", ("alpha", "max_iter", "tol"), ("alpha",)),
    Algorithm(
        name="closeness",
        module="closeness",
        function_name="closeness_centrality",
        result="ClosenessResult",
        vertex_bytes=8,  # per source: depths written and read
        timed=_spread_sources,
        sweeps=lambda result: result.iterations,  # a search per source
    ),
    Algorithm(
        name="salsa",
        module="salsa",
        function_name="salsa",
        result="SALSAResult",
        weighted=True,
        vertex_bytes=48,  # degrees both ways, two component labels, the two scores
        sweeps=lambda result: 2,  # the degrees, then the union-find over the arcs
    ),
    Algorithm(
        name="wtf",
        module="who_to_follow",
        function_name="who_to_follow",
        result="WhoToFollowResult",
        takes_source=True,
        weighted=True,
        vertex_bytes=24,  # personalized PageRank's per iteration; SALSA's bipartite graph is small
        sweeps=lambda result: result.iterations,
    ),
    Algorithm(
        name="lpa",
        module="lpa",
        function_name="label_propagation_communities",
        result="LPAResult",
        vertex_bytes=12,  # per round: labels read and written, the tally touched
        sweeps=lambda result: result.iterations + 1,  # each round, then the last stopping check
        checked=("modularity",),
        undirected_only=True,
    ),
    Algorithm(
        name="louvain",
        module="louvain",
        function_name="louvain_communities",
        result="LouvainResult",
        weighted=True,
        vertex_bytes=32,  # per pass: community read and written, its total, the link scratch
        sweeps=lambda result: result.iterations + 1,  # levels, then the refinement pass
        options=("seed",),
        checked=("modularity",),
        undirected_only=True,
    ),
    Algorithm(
        name="leiden",
        module="leiden",
        function_name="leiden_communities",
        result="LeidenResult",
        weighted=True,
        vertex_bytes=40,  # per pass: Louvain's, and the refinement's subcommunity of each vertex
        sweeps=lambda result: result.iterations,  # levels (each a few passes and a refinement)
        options=("seed",),
        checked=("modularity",),
        undirected_only=True,
    ),
    Algorithm(
        name="msf",
        module="msf",
        function_name="minimum_spanning_forest",
        result="MSFResult",
        weighted=True,
        vertex_bytes=24,  # per round: component labels read, the lightest arc written and read
        sweeps=lambda result: result.iterations,
        baselines=(Baseline("scipy", "cpu", baselines.scipy_msf),),
        checked=("total_weight",),
        undirected_only=True,
    ),
    Algorithm(
        name="forceatlas2",
        module="layout",
        function_name="forceatlas2_layout",
        result="LayoutResult",
        weighted=True,
        vertex_bytes=40,  # per iteration: positions read, forces written, masses and sizes read
        options=("seed", "max_iter"),
        sweeps=lambda result: result.iterations,
    ),
    Algorithm(
        name="mis",
        module="mis",
        function_name="maximal_independent_set",
        result="MISResult",
        vertex_bytes=9,  # per round: priorities and states read, states written
        options=("seed",),
        sweeps=lambda result: result.iterations,
        undirected_only=True,
    ),
    Algorithm(
        name="coloring",
        module="coloring",
        function_name="greedy_color",
        result="ColoringResult",
        vertex_bytes=12,  # per round: priorities and colours read, colours written
        options=("seed",),
        sweeps=lambda result: result.iterations,
    ),
)

#: every algorithm by its command-line name, in the order ``gravel bench`` runs them
CATALOG = {a.name: a for a in _ALGORITHMS}
#: the algorithms with a CUDA path, by name


def __getattr__(name):
    # CUDA_CATALOG, the algorithms with a CUDA path, imports every algorithm: built on first use
    if name == "CUDA_CATALOG":
        return {key: a for key, a in CATALOG.items() if "cuda" in a.devices}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

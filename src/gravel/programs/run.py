"""Running a vertex program: iterations of send, SpMV or SpMSpV, and apply, until no vertex is
active (GraphMat's loop, Algorithm 1 of the seed).

Each iteration is a generalized SpMV, pulled over every vertex, when the senders' lists hold more
than :data:`PULL_ABOVE` of the arcs, and an SpMSpV pushed from the senders otherwise
(``direction=`` forces either). The device's engine (:mod:`gravel.programs.cpu`,
:mod:`gravel.programs.cuda`, or both: :mod:`.hybrid`) runs the phases; this module owns the
loop, the choice and the record.
"""

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ..arguments import is_integer
from ..dispatch import caller_id, choose_device, takes_graph
from ..errors import InvalidArgumentError, UnknownNameError
from ..results import Result, Timer
from .expressions import ProgramError
from .hybrid import EXECUTIONS
from .program import Program

#: an iteration pulls over every vertex (SpMV) when the senders' lists (those a push would read)
#: hold more than this fraction of the arcs, and pushes from the senders (SpMSpV) otherwise:
#: Beamer's direction switch by the frontier's arcs, as a bottom-up BFS's pull (`listen` and
#: ``reduce="any"``) costs little once the lists it reads are few
PULL_ABOVE = 1 / 16
STRATEGIES = ("auto", "pull", "push")


class Step(NamedTuple):
    """One iteration: how many vertices were active, how the SpMV ran, its time (no compiling);
    in a hybrid run also the GPU's share of the SpMV's arcs (its device rows and its bus rows),
    each side's seconds of SpMV work (the GPU's from the messages' upload to its end, on CUDA
    events), and the bus rows' share of the arcs and seconds (parts of the GPU's)."""

    active: int
    direction: str
    time_s: float
    gpu_share: float | None = None
    gpu_s: float | None = None
    cpu_s: float | None = None
    bus_share: float | None = None
    bus_s: float | None = None


@dataclass
class ProgramResult(Result):
    """What :func:`run` returns: the final state and a record of every iteration, beside the
    statistics of every :class:`~gravel.results.Result`.

    Attributes
    ----------
    state : numpy.ndarray
        The final state, one value per vertex (a structured array for a structured dtype).
    steps : list of Step
        One :class:`Step` per iteration.
    converged : bool
        No vertex was left active within `max_iter`.
    """

    state: np.ndarray = None
    steps: list = field(default_factory=list)
    converged: bool = False

    def summary(self):
        """Scalar facts about the run (:meth:`Result.summary <gravel.results.Result.summary>`).

        Returns
        -------
        dict of str to object
            The facts of every result, then ``converged``.
        """
        return super().summary() | {"converged": self.converged}

    def columns(self, G=None):
        """The vertex column and the state, a column per field of a structured state
        (``state.rank``).

        Parameters
        ----------
        G : Graph, optional
            The graph the program ran on: where it has labels, the vertex column holds them
            (:meth:`Result.columns <gravel.results.Result.columns>`).

        Returns
        -------
        dict of str to numpy.ndarray
            ``"vertex"``, then ``"state"``, or ``"state.<field>"`` per field (each contiguous).

        Raises
        ------
        ValueError
            `G` is given and its vertex count differs from the result's.
        """
        out = super().columns(G)
        names = self.state.dtype.names
        if names is not None:
            state = out.pop("state")
            out |= {f"state.{k}": np.ascontiguousarray(state[k]) for k in names}
        return out


@takes_graph
def run(
    G,
    program,
    *,
    max_iter=100,
    init=None,
    params=None,
    direction="auto",
    device="auto",
    execution="single",
):
    """Run the vertex `program` on `G` until no vertex is active, or for `max_iter` iterations.

    Parameters
    ----------
    G : Graph
        Not reordered: expressions see vertex ids (``v``) as the caller's.
    program : Program
        The vertex program (:mod:`gravel.programs.library` holds ready ones).
    max_iter : int, default 100
        The most iterations to run (0: the starting state only).
    init : array, structured array or dict of arrays, optional
        The starting state (one value per vertex; a dict by field), instead of ``program.init``.
    params : dict, optional
        Values of the program's parameters, over their defaults.
    direction : {"auto", "pull", "push"}
        Every iteration pulled (SpMV), pushed (SpMSpV), or chosen by the senders' arcs
        (:data:`PULL_ABOVE`).
    device : {"auto", "cpu", "cuda"}, default "auto"
        Where the run goes. "auto": the GPU where one can be used, else the CPU; but a hybrid
        execution under "auto" asks for the GPU.
    execution : {"single", "hybrid-seed", "hybrid"}, default "single"
        "single": every phase on `device` (on the GPU, the whole loop in one cooperative launch per
        ``gravel.programs.fused.CHUNK`` iterations where ``gravel.programs.fused.fits`` takes the
        program under ``gravel.config.program_engine``). "hybrid-seed": GraphMat on CPU-GPU, the
        state, send and apply on the CPU and every SpMV on the GPU, compressed sparse vectors (ids
        and values) crossing the bus each way each iteration. "hybrid": as "hybrid-seed", with the
        SpMV's edges split between the GPU (as many rows as the device-memory budget,
        ``gravel.config.device_memory``, holds, then rows it reads from pinned host memory over the
        bus) and the CPU by their measured throughput, both working at once
        (:mod:`gravel.programs.hybrid`), the state on the side expected to do most of the work (the
        GPU's: :mod:`gravel.programs.home`). A hybrid run needs a GPU; with ``device="cpu"`` the
        GPU's part runs on the CPU too (for tests).

    Returns
    -------
    ProgramResult
        ``state``, ``steps`` (active vertices, direction, seconds; for a hybrid run also the
        GPU's share of the arcs, each side's seconds, and the share and seconds of the rows the
        GPU read over the bus), ``iterations``, ``converged`` (False when `max_iter` stopped it)
        and ``time_s`` (compiling left out). A hybrid run's ``stats`` give the execution and the
        final split (``gpu_share``, the GPU's whole share, and ``bus_share``, its part read over
        the bus) and ``state_side``, where the state lived ("gpu" or "cpu"); its device is
        "cpu+cuda".

    Raises
    ------
    ProgramError
        `program` is not a :class:`Program`; `params` names an unknown parameter or gives a
        value its type cannot hold; `init` gives other fields than the state's; or
        ``direction="push"`` where the run cannot push (on the GPU, and in a hybrid run, a push
        needs a named reduce).
    InvalidArgumentError
        `max_iter` is not an integer at least 0, `G` is reordered (``G.order``), or an array of
        `init` does not hold one value per vertex.
    UnknownNameError
        `direction`, `execution` or `device` is unknown.
    VertexNotFoundError
        A vertex parameter (a BFS's ``source``), given or by default, is not a vertex of `G`.
    DeviceUnavailableError
        The run asks for the GPU (``device="cuda"``, or a hybrid execution under "auto") and
        none can be used.

    Examples
    --------
    >>> import gravel
    >>> from gravel import programs
    >>> G = gravel.generate.grid(1, 4)
    >>> programs.run(G, programs.bfs(), params={"source": 0}, device="cpu").state.tolist()
    [0, 1, 2, 3]
    """
    if not isinstance(program, Program):
        raise ProgramError(f"program must be a gravel.programs.Program, not {type(program)}")
    if not is_integer(max_iter) or max_iter < 0:
        raise InvalidArgumentError(f"max_iter must be an integer >= 0, not {max_iter!r}")
    if direction not in STRATEGIES:
        raise UnknownNameError(f"unknown direction {direction!r} (expected {STRATEGIES})")
    if execution not in EXECUTIONS:
        raise UnknownNameError(f"unknown execution {execution!r} (expected {EXECUTIONS})")
    if G.order is not None:
        raise InvalidArgumentError("programs run on graphs that are not reordered (G.order)")
    values = bind_params(G, program, params)
    single = execution == "single"
    wanted = "cuda" if device == "auto" and not single else device
    dev = choose_device(wanted, ("cpu", "cuda"), "gravel.programs.run")
    if single:
        engine, clock, where = _engine(dev, G, program)(G, program, values), dev, dev
    else:
        from .hybrid import HybridEngine

        ways = _directions(program, direction)
        engine = HybridEngine(G, program, values, execution=execution, device=dev, directions=ways)
        clock, where = "cpu", "cpu+cuda" if dev == "cuda" else "cpu"
    if direction == "push" and not engine.can_push:
        raise ProgramError(f"a {dev} push needs a named reduce (sum, min, max, or, and, any)")
    with Timer(clock) as t:
        engine.init(initial_state(G, program, init))
    seconds = t.seconds
    if hasattr(engine, "loop"):  # the fused engine: the whole loop on the device
        steps, left, looped = _fused(engine, G, program, max_iter, direction, clock)
        seconds += looped
    else:
        steps, left = _loop(engine, G, program, max_iter, direction, clock)
        seconds += sum(s.time_s for s in steps)
    state = engine.state()
    out = state[0]
    if program.state_dtype.names is not None:
        out = np.empty(G.n, program.state_dtype)
        for f, values_ in zip(program.state, state, strict=True):
            out[f.key] = values_
    directions = sorted({s.direction for s in steps})
    stats = {}
    if not single:
        stats = {"execution": execution, "gpu_share": engine.share, "bus_share": engine.bus_share}
        stats["state_side"] = engine.state_side
    return ProgramResult(
        "program",
        where,
        seconds,
        len(steps),
        "+".join(directions),
        stats,
        state=out,
        steps=steps,
        converged=not left,
    )


def _loop(engine, G, program, max_iter, direction, clock):
    """The iterations, each chosen, run and counted by the host: (the steps, the vertices left
    active)."""
    steps = []
    arcs = int(engine.push_degree.sum())  # a push from every vertex reads them all
    active = engine.actives()
    while active.count and len(steps) < max_iter:
        senders = G.n if program.senders == "all" else active.count
        with Timer(clock) as t:
            how = direction
            if how == "auto":
                dense = senders == G.n or active.push_arcs(engine.push_degree) > PULL_ABOVE * arcs
                how = "pull" if dense or not engine.can_push else "push"
            split = engine.step(active, len(steps), how)
            active = engine.actives()
        steps.append(Step(senders, how, t.seconds, *(split or ())))
    return steps, active.count


def _fused(engine, G, program, max_iter, direction, clock):
    """The iterations in the fused engine's launches, which choose as :func:`_loop` does: (the
    steps, the vertices left active, the seconds); each step gets the share of the seconds that
    the device's clock gave it."""
    with Timer(clock) as t:
        record, left = engine.loop(max_iter, direction, PULL_ABOVE)
    total = sum(ns for *_, ns in record) or 1
    steps = [
        Step(G.n if program.senders == "all" else count, how, t.seconds * ns / total)
        for count, how, ns in record
    ]
    return steps, left, t.seconds


def bind_params(G, program, params):
    """The values of `program`'s parameters on `G`: the caller's `params` over the defaults, each
    vertex parameter (a BFS's ``source``) checked as a vertex of `G` (an id, or a label).

    Parameters
    ----------
    G : Graph or a partitioned graph
        Its ``n`` and ``labels`` are read.
    program : Program
    params : dict or None
        The caller's values.

    Returns
    -------
    dict
        The bound values (:meth:`Program.bind <gravel.programs.Program.bind>`), in the
        program's order.

    Raises
    ------
    ProgramError
        A parameter is unknown or its value does not fit its type.
    VertexNotFoundError
        A vertex parameter is not a vertex of `G`.
    """
    return _check_vertices(G, program, program.bind(_vertex_params(G, program, params)))


def _vertex_params(G, program, params):
    """`params` with each of the program's declared vertex parameters, given or by default, checked
    as a vertex of G (an id, or a label of a labelled graph), VertexNotFoundError naming it
    otherwise."""
    out = dict(params or {})
    if program.spec["vertices"] is None:  # no declared ones: an integer `source` is cast first
        return out
    for k in program.vertices:
        out[k] = caller_id(G, out.get(k, program.params[k]), f"parameter {k!r}:")
    return out


def _check_vertices(G, program, values):
    """`values`, the bound parameters, once each vertex parameter is an id of G (a `source` that
    the program did not declare is one too): VertexNotFoundError naming it otherwise."""
    for k in program.vertices:
        caller_id(G, int(values[k]), f"parameter {k!r}:")
    return values


def _directions(program, direction):
    """The directions a run may take: those whose lists a hybrid split holds."""
    if direction != "auto":
        return {direction}
    if program.senders == "all" or not isinstance(program.reduce, str):
        return {"pull"}
    return {"pull", "push"}


def initial_state(G, program, init):
    """The caller's starting state as one host array per state field.

    Parameters
    ----------
    G : Graph or a partitioned graph
        Its ``n`` is read.
    program : Program
    init : array, structured array, dict of arrays or None
        As :func:`run` takes it.

    Returns
    -------
    list of numpy.ndarray or None
        One contiguous array per field, in the state's dtypes; None where `init` is None (the
        program's own init).

    Raises
    ------
    ProgramError
        `init` gives other fields than the state's.
    InvalidArgumentError
        An array does not hold one value per vertex.
    """
    if init is None:
        return None
    if isinstance(init, np.ndarray) and init.dtype.names is not None:
        init = {k: init[k] for k in init.dtype.names}
    keys = [f.key for f in program.state]
    if not isinstance(init, dict):
        init = {"": init}
    if set(init) != set(keys):
        raise ProgramError(f"init gives fields {sorted(init)}, the state has fields {keys}")
    out = []
    for f in program.state:
        a = np.ascontiguousarray(init[f.key], dtype=f.dtype)
        if a.shape != (G.n,):
            raise InvalidArgumentError(f"init {f.key or 'state'}: shape {a.shape}, need ({G.n},)")
        out.append(a)
    return out


def _engine(device, G, program):
    """The engine class of a single-device run: the fused one on the GPU where it takes the
    program (:func:`gravel.programs.fused.fits`), else the operators'."""
    if device == "cpu":
        from .cpu import CpuEngine

        return CpuEngine
    from . import fused
    from .cuda import CudaEngine

    return fused.FusedEngine if fused.fits(program, G.to("cuda")) else CudaEngine

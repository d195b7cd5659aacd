"""A program's whole run loop on the GPU in one cooperative launch: the fused engine.

:func:`source` writes a program's expressions as the macros of ``kernels/programs/loop.cu``
(the kernel's header says what it does): the message and total as a struct of the fields' widened
types, the fold, the shuffles, and what the pull, the push, the apply and the start read and write,
each naming only the arrays its expressions read (a program that reads no weight reads none; a
program without ``listen`` reads no state to test it). :class:`FusedEngine` runs it: the host
launches once per :data:`CHUNK` iterations and reads back one small log each launch, where the
operator engine (:mod:`gravel.programs.cuda`) launches several kernels an iteration and reads its
counts back every iteration. :func:`fits` says which runs it takes; the others stay on the operator
engine, as every run does where ``gravel.config.program_engine`` is "operators", and those where
every vertex sends where it is "auto" (the default).

Imports no CuPy until it runs: :func:`source` writes the code on any machine.
"""

from typing import NamedTuple

import numpy as np

from .. import config
from ..errors import UnknownNameError
from ..operators.codegen import BLOCK, CTYPES, LONG_LIST, prelude
from .cuda import _ways
from .cuda_spmv import _BASE, _NAME, _wide

#: most iterations one launch runs before the host reads its log and launches again
CHUNK = 256
#: blocks per SM of the loop kernel (its launch bounds): every block must be resident at once
BLOCKS_PER_SM = 4
#: the values of ``gravel.config.program_engine``
ENGINES = ("auto", "fused", "operators")
#: most message fields the fused kernel holds (a struct of them per thread in shared memory)
MAX_FIELDS = 8
#: the atomic each named reduce pushes with (common.cuh's gravel_atomic_fold: add, min, max)
_ATOMIC = {"sum": 0, "min": 1, "max": 2, "or": 2, "and": 1, "any": 1}
#: each named reduce over two fields' C++ `{a}`, `{b}`
_FOLD = {
    "sum": "({a}) + ({b})",
    "min": "({a}) < ({b}) ? ({a}) : ({b})",
    "max": "({a}) > ({b}) ? ({a}) : ({b})",
    "or": "({a}) > ({b}) ? ({a}) : ({b})",
    "and": "({a}) < ({b}) ? ({a}) : ({b})",
    "any": "({a}) < ({b}) ? ({a}) : ({b})",
}


class Code(NamedTuple):
    """A program's fused kernel: the source put before ``programs/loop.cu`` and the arrays and
    scalars it takes, in order, as (name, C type) pairs."""

    prelude: str
    params: list


def _literal(value, dtype):
    """A C++ literal of `value` cast to the C type of `dtype`."""
    c = CTYPES[dtype]
    if dtype.kind == "f":
        x = float(value)
        if np.isnan(x):
            return f"(({c})__int_as_float(0x7fffffff))"
        if np.isinf(x):
            return f"(({c})({'-' if x < 0 else ''}__int_as_float(0x7f800000)))"
        return f"(({c}){x!r})"
    x = int(value)
    if x == np.iinfo(np.int64).min:
        return f"(({c})(-9223372036854775807LL - 1))"
    return f"(({c}){x}LL)"


def fits(program, dg):
    """Whether the fused engine runs `program` on the device graph `dg`.

    Parameters
    ----------
    program : Program
    dg : gravel.backends.cuda.graph.DeviceGraph

    Returns
    -------
    bool
        ``gravel.config.program_engine`` is "fused", or "auto" and only the active vertices
        send (where every vertex sends, the operators' blocked sweeps pull faster), the lists are
        in device memory, the message has at most :data:`MAX_FIELDS` fields and process calls
        no graph function (``common``).

    Raises
    ------
    UnknownNameError
        ``gravel.config.program_engine`` is none of :data:`ENGINES`.
    """
    engine = config.program_engine
    if engine not in ENGINES:
        raise UnknownNameError(
            f"gravel.config.program_engine {engine!r}: expected one of {ENGINES}"
        )
    return (
        (engine == "fused" or engine == "auto" and program.senders == "active")
        and dg.placement == "device"
        and len(program.message) <= MAX_FIELDS
        and not program.process_uses("common")
    )


def source(program, ways, weighted):
    """The fused kernel of `program`: its macros and the parameters they name.

    Parameters
    ----------
    program : Program
    ways : {1, 2}
        The ways messages travel (two: a directed graph's out- and in-edges both).
    weighted : bool
        Whether the graph has weights (process reads them only where it names ``weight``).

    Returns
    -------
    Code
        The prelude of ``programs/loop.cu`` and its user parameters: ``st{i}``, ``ms{i}``,
        ``tt{i}``, ``gact``, ``grcv``, ``odeg``, ``ideg``, ``gn`` and the program's ``p_{k}``,
        those the macros name.
    """
    p = program
    wides = [_wide(f.dtype) for f in p.message]
    named = isinstance(p.reduce, str)
    ident = [_literal(x, w) for x, w in zip(p.identity, wides, strict=True)]
    fields = range(len(p.message))
    states = range(len(p.state))
    msg = "gravel_msg{{{}}}".format

    at_v = p.code(_BASE, state="st{i}[v]")
    send_next = p.code(_BASE | {"iteration": "(giter + 1)"}, state="st{i}[v]")
    edge = p.code(_BASE, state="st{i}[v]", message="ms{i}[cur + u]")
    old = p.code(_BASE, state="o{i}", total="t.f{i}")
    new = p.code(_BASE, state="n{i}", old="o{i}", total="t.f{i}")

    def sends(code, where):
        writes = " ".join(
            f"ms{i}[{where} + v] = ({CTYPES[f.dtype]})({e.cuda(code)});"
            for i, (f, e) in enumerate(zip(p.message, p.send, strict=True))
        )
        return writes if p.senders == "all" else f"if (act) {{ {writes} }}"

    if named:
        fold = [_FOLD[p.reduce].format(a=f"a.f{i}", b=f"b.f{i}") for i in fields]
    else:
        fold = [p.reduce.cuda({"a": f"a.f{i}", "b": f"b.f{i}"}) for i in fields]
    fold = [f"({CTYPES[w]})({f})" for w, f in zip(wides, fold, strict=True)]
    inits = " ".join(
        f"st{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
        for i, (f, e) in enumerate(zip(p.state, p.init, strict=True))
    )
    olds = " ".join(f"const {CTYPES[p.state[i].dtype]} o{i} = st{i}[v];" for i in states)
    applied = " ".join(
        f"const {CTYPES[f.dtype]} n{i} = ({CTYPES[f.dtype]})({e.cuda(old)});"
        for i, (f, e) in enumerate(zip(p.state, p.apply, strict=True))
    )
    stores = " ".join(f"st{i}[v] = n{i};" for i in states)
    finish = (
        f"{{ act = false; if (got) {{ {olds} if ({p.listen.cuda(old)}) {{ {applied} {stores} "
        f"act = ({p.active.cuda(new)}); }} }} gact[nxt + v] = act; {sends(send_next, 'nxt')} }}"
    )
    macros = {
        "GRAVEL_PROG_DEFINED": "1",
        "GRAVEL_PROG_WAYS": str(ways),
        "GRAVEL_PROG_ANY": str(int(p.reduce == "any")),
        "GRAVEL_PROG_ALL_SEND": str(int(p.senders == "all")),
        "GRAVEL_PROG_WEIGHTED": str(int(weighted and any("weight" in e.names for e in p.process))),
        "GRAVEL_PROG_CAN_PUSH": str(int(named)),
        "GRAVEL_PROG_IDENTITY": msg(", ".join(ident)),
        "GRAVEL_PROG_FOLD(a, b)": msg(", ".join(fold)),
        "GRAVEL_PROG_SHFL_DOWN(a, d)": msg(
            ", ".join(f"__shfl_down_sync(0xffffffffu, a.f{i}, d)" for i in fields)
        ),
        "GRAVEL_PROG_LISTENS(v)": f"({p.listen.cuda(at_v)})",
        "GRAVEL_PROG_SENDS(u, cur)": "true" if p.senders == "all" else "(gact[cur + u] != 0)",
        "GRAVEL_PROG_PROCESS(u, v, weight, cur)": msg(
            ", ".join(
                f"({CTYPES[w]})({e.cuda(edge)})" for w, e in zip(wides, p.process, strict=True)
            )
        ),
        "GRAVEL_PROG_START(v, init, cur, giter, act)": (
            f"{{ if (init) {{ {inits} }} act = ({p.start.cuda(at_v)}); gact[cur + v] = act; "
            f"{sends(at_v, 'cur')} }}"
        ),
        "GRAVEL_PROG_ACTIVE(v, cur)": "(gact[cur + v] != 0)",
        "GRAVEL_PROG_FINISH(v, got, t, giter, nxt, act)": finish,
    }
    if named:
        atomic = _ATOMIC[p.reduce]
        macros["GRAVEL_PROG_PUSH(v, x)"] = (
            "{ "
            + " ".join(
                f"gravel_atomic_fold<{CTYPES[w]}, {atomic}>(&tt{i}[v], x.f{i});"
                for i, w in enumerate(wides)
            )
            + " grcv[v] = 1; }"
        )
        macros["GRAVEL_PROG_TAKE(v, t)"] = (
            "{ " + " ".join(f"t.f{i} = tt{i}[v]; tt{i}[v] = {ident[i]};" for i in fields) + " }"
        )
    body = " ".join(macros.values())
    used = set(_NAME.findall(body))
    decls = [(f"st{i}", f"{CTYPES[f.dtype]}*") for i, f in enumerate(p.state)]
    decls += [(f"ms{i}", f"{CTYPES[f.dtype]}*") for i, f in enumerate(p.message)]
    decls += [(f"tt{i}", f"{CTYPES[w]}*") for i, w in enumerate(wides)]
    decls += [("gact", "unsigned char*"), ("grcv", "unsigned char*")]
    decls += [("odeg", "int*"), ("ideg", "int*"), ("gn", "int")]
    decls += [(f"p_{k}", CTYPES[x.dtype]) for k, x in p.params.items()]
    # grcv is named by the kernel's own take (a push's received flags)
    params = [(k, t) for k, t in decls if k in used or (k == "grcv" and named)]
    struct = "struct gravel_msg { " + " ".join(f"{CTYPES[w]} f{i};" for i, w in enumerate(wides))
    text = prelude([(t, k) for k, t in params], macros, struct + " };")
    return Code(text, params)


class FusedEngine:
    """A program's run on the GPU, its whole loop in cooperative launches of
    ``programs/loop.cu`` (:func:`gravel.programs.run` calls :meth:`loop` in place of its own
    loop).

    Parameters
    ----------
    G : Graph
        Copied to the GPU (``G.to("cuda")``) where it has no device copy; its lists must be in
        device memory (:func:`fits`).
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).

    Attributes
    ----------
    can_push : bool
        Whether a push can run: a named reduce (the atomics').
    arcs : int
        The arcs a push from every vertex reads, along every way.
    """

    def __init__(self, G, program, values):
        import cupy

        from ..operators.codegen import dummy

        dg = G.to("cuda")
        n, p = G.n, program
        self.program, self.n = p, n
        self.can_push = isinstance(p.reduce, str)
        ways = _ways(dg, p, G.directed)
        pull = [w.csc() for w in ways]
        push = [(w.offsets, w.indices, w.weights) for w in ways]
        pad = (dummy(cupy.int64), dummy(cupy.int32), dummy(cupy.float32))
        self.lists = []
        for lists in (pull, push):
            for w in range(2):
                off, idx, wt = lists[w] if w < len(lists) else pad
                self.lists += [off, idx, dummy(cupy.float32) if wt is None else wt]
        self.code = source(p, len(ways), dg.weights is not None)
        wides = [_wide(f.dtype) for f in p.message]
        arrays = {f"st{i}": cupy.zeros(n, f.dtype) for i, f in enumerate(p.state)}
        arrays |= {f"ms{i}": cupy.zeros(2 * n, f.dtype) for i, f in enumerate(p.message)}
        arrays |= {f"tt{i}": cupy.full(n, x, w) for i, (x, w) in enumerate(zip(p.identity, wides))}
        arrays |= {"gact": cupy.zeros(2 * n, cupy.uint8), "grcv": cupy.zeros(n, cupy.uint8)}
        arrays |= {"odeg": dg.out_degree, "gn": np.int32(n)}
        if any(k == "ideg" for k, _ in self.code.params):
            arrays["ideg"] = cupy.diff(dg.csc()[0]).astype(cupy.int32)
        arrays |= {f"p_{k}": x for k, x in values.items()}
        self.state_arrays = [arrays[f"st{i}"] for i in range(len(p.state))]
        self.args = tuple(arrays[k] for k, _ in self.code.params)
        pull_degree = sum(cupy.diff(off) for off, *_ in pull)
        push_degree = sum(cupy.diff(off) for off, *_ in push)
        self.arcs = int(push_degree.sum())
        # lists of LONG_LIST arcs or more take a block each (none for "any": a thread stops early)
        longs = [
            cupy.flatnonzero(d >= LONG_LIST).astype(cupy.int32) for d in (pull_degree, push_degree)
        ]
        pulled = 0 if p.reduce == "any" else longs[0].size
        self.longs = (longs[0], np.int64(pulled), longs[1], np.int64(longs[1].size))
        self.counts = cupy.zeros(6, cupy.uint64)
        self.log = cupy.zeros(3 * (CHUNK + 1), cupy.int64)
        self.init_state = 1

    def init(self, state):
        """Take the starting state: `state`, or the program's init (computed by the first launch,
        with the starting flags).

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field; None: the program's `init`.
        """
        import cupy

        for mine, given in zip(self.state_arrays, state or (), strict=False):
            mine[:] = cupy.asarray(given)
        self.init_state = int(state is None)

    def _kernel(self):
        from ..backends.cuda import runtime

        k = runtime.kernel(
            "programs/loop.cu",
            "gravel_program_loop",
            templates=(BLOCK, BLOCKS_PER_SM),
            prelude=self.code.prelude,
            cooperative=True,
        )
        return k, _grid(k)

    def loop(self, max_iter, direction, pull_above):
        """Run the iterations: launches of up to :data:`CHUNK` iterations, each read back once.

        Parameters
        ----------
        max_iter : int
            The most iterations.
        direction : {"auto", "pull", "push"}
            As :func:`gravel.programs.run`'s.
        pull_above : float
            An iteration pulls where the active vertices' push arcs are more than this fraction
            of :attr:`arcs` (or every vertex sends, or all are active).

        Returns
        -------
        steps : list of tuple
            Per iteration: (the vertices active as it began, "pull" or "push", its nanoseconds
            on the device's clock).
        left : int
            The vertices active after the last iteration.
        """
        k, grid = self._kernel()
        mode = np.int32(("auto", "pull", "push").index(direction))
        max_iter = min(max_iter, 2**31 - 1)  # the kernel counts iterations in int32
        dense = np.float64(pull_above * self.arcs)
        steps, done, first = [], 0, 1
        while True:
            self.counts.fill(0)
            run = (
                np.int64(LONG_LIST),
                np.int64(self.n),
                np.int32(first),
                np.int32(self.init_state),
            )
            run += (np.int32(done), np.int32(max_iter), np.int32(CHUNK), mode, dense)
            k(grid, BLOCK, (*self.lists, *self.longs, *run, self.counts, self.log, *self.args))
            log = self.log.get().reshape(-1, 3)  # sync: the launch's iterations and what is left
            ran, left, before = (int(x) for x in log[0])
            for count, pushed, end in log[1 : ran + 1].tolist():
                steps.append((count, "push" if pushed else "pull", end - before))
                before = end
            done, first = done + ran, 0
            if left == 0 or done >= max_iter or ran == 0:
                return steps, left

    def state(self):
        """The state, copied to the host.

        Returns
        -------
        list of numpy.ndarray
            One array per state field.
        """
        return [a.get() for a in self.state_arrays]


def _grid(k):
    """Blocks of a loop launch: as many as the device holds at once (a cooperative launch needs
    every block resident), by the driver's occupancy of the compiled kernel where CuPy exposes it,
    else by its launch bounds."""
    import cupy

    from ..backends.cuda import runtime

    per_sm = BLOCKS_PER_SM
    occupancy = getattr(cupy.cuda.driver, "occupancyMaxActiveBlocksPerMultiprocessor", None)
    function = getattr(k.fn, "kernel", k.fn)  # a RawKernel's driver function
    if occupancy is not None and hasattr(function, "ptr"):
        per_sm = min(per_sm, int(occupancy(function.ptr, BLOCK, 0)))
    if per_sm < 1:
        raise RuntimeError(f"{k.name}: no block of {BLOCK} threads fits an SM")
    return per_sm * runtime.props().sm_count

"""A program's GPU phases on the operators, with its expressions written in CUDA C++.

``compute`` runs init, start, send and apply over every vertex (send for the active ones where
only they send); ``neighbor_reduce`` runs the SpMV (pull over every vertex, the non-senders masked
to the identity) or the SpMSpV (push from the senders' frontier, atomics: named reductions only),
once per message field and way; the first field's pass also marks the vertices that received (a
store of 1 beside each message it folds, rather than a pass of its own over every arc; where every
vertex sends, a pull's vertices receive where they have an in-arc, marked before it). Bool and
8-bit messages reduce as int32 (the atomics' width); or and and reduce as max and min; any is the
operator's any (a pull's short lists stop at their first sender; long lists and pushes fold as
min). Every reduction runs with the program's identity, which masks the non-senders too: "any"
stops at the first value unlike it. A vertex that does not `listen` keeps its state at the apply,
and a pull (where the engine holds the state) reads the lists of the listening vertices only.
"""

import re

import numpy as np

from ..operators.codegen import CTYPES
from .program import Active

#: the operator reduction for each named one
_REDUCE = {"sum": "sum", "min": "min", "max": "max", "or": "max", "and": "min", "any": "any"}
#: each named reduction as C++ over {a} and {b}: two ways' totals folded
_FOLD = {
    "sum": "({a}) + ({b})",
    "min": "min(({a}), ({b}))",
    "max": "max(({a}), ({b}))",
    "or": "max(({a}), ({b}))",
    "and": "min(({a}), ({b}))",
    "any": "min(({a}), ({b}))",
}
#: the C++ of the names every kernel holds alike (n and iteration are the parameters gn and giter)
_BASE = {"v": "v", "u": "u", "n": "gn", "iteration": "giter", "weight": "weight"} | {
    "a": "a",
    "b": "b",
    "out_degree": "odeg[v]",
    "in_degree": "ideg[v]",
}


#: common(a, b) of process: the out-neighbours two vertices share, by a merge of sorted lists
_COMMON = """
__device__ long long gravel_common(const long long *off, const int *idx, long long a, long long b) {
    long long i = off[a], j = off[b], c = 0;
    while (i < off[a + 1] && j < off[b + 1]) {
        const int x = idx[i], y = idx[j];
        i += x <= y;
        j += y <= x;
        c += x == y;
    }
    return c;
}
"""


def _wide(dt):
    """The dtype a message field reduces in on the GPU."""
    return np.dtype(np.int32) if dt.itemsize < 4 else dt


_NAME = re.compile(r"[A-Za-z_]\w*")


def _named(arrays, *code):
    """The entries of `arrays` that `code` names: a kernel takes those only (fewer arguments to
    check and pass each launch)."""
    names = set(_NAME.findall(" ".join(code)))
    return {k: a for k, a in arrays.items() if k in names}


def _run_compute(n, arrays, frontier, statement, iteration, extra=None):
    """`statement` over v on the `frontier` (every vertex when None), with `arrays` as params."""
    from ..operators import compute

    params = _named(arrays | {"giter": np.int32(iteration)} | (extra or {}), statement)
    compute(frontier, statement, params=params, n=n)


class Spmv:
    """A program's generalized SpMV (pull) or SpMSpV (push) on the GPU: the totals ``tt{i}`` and
    the flags ``received`` of `arrays` from the messages ``ms{i}`` (and, pulling from active
    senders only, the sending flags ``active``). A pull writes each vertex's total in place (the
    reduction's apply); a push's totals come back as an array and are copied or folded. The
    kernels' code is written once, here.

    Parameters
    ----------
    program : Program
    n : int
        The vertices.
    arrays : dict
        The engine's named device arrays and scalars, which the kernels read and write (``st{i}``,
        ``ms{i}``, ``tt{i}``, ``active``, ``received``, the parameters ``p_k``, ...).
    blocking : str, optional
        How a pull of the message array itself over every vertex sweeps (``neighbor_reduce``'s
        `blocking`): the engine's "auto"; None for a hybrid part, whose split lists change as
        the split moves.
    stream_bus : bool, default False
        Whether a pull over every vertex of a graph whose lists are in host memory (placement
        "host": a hybrid part's bus rows) streams them through the copy engines ("streamed")
        rather than reading them where they are.
    """

    def __init__(self, program, n, arrays, blocking=None, stream_bus=False):
        p = program
        self.n, self.arrays, self.blocking, self.stream_bus = n, arrays, blocking, stream_bus
        self.all_send = p.senders == "all"
        named = isinstance(p.reduce, str)
        self.reduce = _REDUCE[p.reduce] if named else p.reduce.cuda({"a": "a", "b": "b"})
        fold = _FOLD[p.reduce] if named else p.reduce.cuda({"a": "({a})", "b": "({b})"})
        edge = p.code(_BASE, state="st{i}[v]", message="ms{i}[u]")
        self.fields = []
        for i, (f, e) in enumerate(zip(p.message, p.process, strict=True)):
            wide = _wide(f.dtype)
            value = f"(({CTYPES[wide]})({e.cuda(edge)}))"
            marked = f"(received[v] = 1, {value})" if i == 0 else value
            # where every vertex sends, a pull's vertex receives where it has an in-arc: marked
            # before the pull (a pass over the vertices), not on every arc
            pull = value if self.all_send else f"active[u] == 0 ? gnone : {marked}"
            tt = f"tt{i}[v]"
            # a pull of the messages themselves from every vertex reduces the message array, which
            # a sweep over every vertex may then block or stage (`blocking`)
            bare = self.all_send and e.cuda(edge) == f"(ms{i}[u])" and wide == f.dtype
            given = fold.format(a=tt, b="gpart[i]")
            code = {
                "push": marked,
                "pull": pull,
                "pull array": f"ms{i}" if bare and p.reduce in ("sum", "min", "max") else None,
                "set": f"{tt} = acc",
                "fold": f"{tt} = {fold.format(a=tt, b='acc')}",
                "fold pushed": f"{tt} = {fold.format(a=tt, b='gpart[v]')}",
                "fold given": f"{tt} = received[v] ? ({given}) : gpart[i]",
            }
            identity = wide.type(p.identity[i])
            # the arrays each direction's kernels name (an apply names tt{i} alone)
            names = {d: _named(arrays, code[d], code["fold"]) for d in ("push", "pull")}
            self.fields.append(code | {"dtype": wide, "identity": identity, "params": names})

    def __call__(self, ways, direction, listeners=None, arcs=None, folded=0):
        """Reduce along each of `ways`, folding the ways' totals vertex by vertex.

        Parameters
        ----------
        ways : list of tuple
            (graph, senders): a device graph, and a push's senders as a Frontier (None for a
            pull, or where every vertex sends).
        direction : {"pull", "push"}
        listeners : Frontier, optional
            The vertices whose lists a pull reads; None: every vertex.
        arcs : list of int, optional
            The arcs a push from way w's senders reads, ``arcs[w]``, where the caller knows
            them.
        folded : int, default 0
            The ways a call before this one reduced into the totals, which this call folds
            into (a hybrid part's bus rows after its device rows); 0: the totals start afresh.
        """
        from ..operators import neighbor_reduce

        push = direction == "push"
        if not folded:
            self.arrays["received"].fill(0)
        if not push and self.all_send:  # a vertex receives where it has an in-arc
            for graph, _ in ways:
                mark = "if (g_in[v + 1] > g_in[v]) received[v] = 1"
                _run_compute(self.n, self.arrays, None, mark, 0, {"g_in": graph.csc()[0]})
        for way, (graph, senders) in enumerate(ways):
            first = folded + way == 0
            over_bus = getattr(graph, "placement", "device") == "host"
            streams = self.stream_bus and over_bus and not push and listeners is None
            for i, f in enumerate(self.fields):
                swept = not push and listeners is None and f["pull array"] is not None
                blocking = "streamed" if streams else self.blocking if swept else None
                # a deaf vertex's total stays as it was: the apply reads none that did not receive
                part = neighbor_reduce(
                    graph,
                    senders if push else listeners,
                    self.arrays[f["pull array"]] if swept else f[direction],
                    self.reduce,
                    dtype=f["dtype"],
                    identity=f["identity"],  # gnone's: "any" stops at a value unlike it
                    direction=direction,
                    apply=None if push else f["set" if first else "fold"],
                    params=f["params"][direction] | {"gnone": f["identity"]},
                    preamble=_COMMON,
                    blocking=blocking,
                    arcs=arcs[way] if push and arcs is not None else None,
                )
                if push and first:
                    self.arrays[f"tt{i}"][:] = part
                elif push:
                    self._fold(i, part)

    def fold_in(self, ids, totals):
        """Fold totals reduced elsewhere (a hybrid run's CPU rows) into the totals, and mark their
        vertices received: ``tt{i}[v]`` folded with the given total where v had received, set to
        it where not.

        Parameters
        ----------
        ids : numpy.ndarray
            Distinct vertex ids (int32).
        totals : list of numpy.ndarray
            One host array per message field: the totals at `ids`.
        """
        import cupy

        from ..frontier import Frontier

        if not len(ids):
            return
        at = cupy.asarray(ids, dtype=cupy.int32)
        given_at = Frontier(self.n, ids=at, length=len(ids))  # distinct, in range: the caller's
        for f, given in zip(self.fields, totals, strict=True):
            part = cupy.asarray(given).astype(f["dtype"])  # the total of the i-th given vertex
            _run_compute(self.n, self.arrays, given_at, f["fold given"], 0, {"gpart": part})
        self.arrays["received"][at] = 1

    def _fold(self, i, part):
        """tt{i} folded with `part`, a second way's pushed totals, vertex by vertex."""
        _run_compute(self.n, self.arrays, None, self.fields[i]["fold pushed"], 0, {"gpart": part})


class CudaEngine:
    """The phases of :func:`gravel.programs.run` on the GPU, over CuPy arrays.

    The host reads the device once an iteration: the start and every apply also count the active
    vertices, the arcs a push from them reads along each way and the vertices that listen next (a
    sum each, in the same pass), and set the bits of the active vertices (where a push may list
    them) and of the listeners in bitmaps, from which a push's senders and a pull's listeners are
    listed without a read-back of their number.

    Parameters
    ----------
    G : Graph
        Copied to the GPU (``G.to("cuda")``) where it has no device copy.
    program : Program
    values : dict
        The run's parameter values (:meth:`Program.bind <gravel.programs.Program.bind>`).

    Attributes
    ----------
    can_push : bool
        Whether a push can run: a named reduce (the atomics').
    push_degree : cupy.ndarray
        The arcs a push from each vertex reads, along every way (int64).
    """

    def __init__(self, G, program, values):
        import cupy

        dg = G.to("cuda")
        self.ways = _ways(dg, program, G.directed)
        degrees = [cupy.diff(graph.offsets) for graph in self.ways]  # each way's, kept as g_deg{w}
        ideg = cupy.diff(dg.csc()[0]).astype(cupy.int32)
        self._vertices(G.n, program, values, degrees, dg.out_degree, ideg, dg.offsets, dg.indices)
        self.spmv = Spmv(program, G.n, self.arrays, blocking="auto")

    @classmethod
    def vertices_only(cls, G, program, values, push_offsets):
        """An engine of the vertex phases alone (init, send, apply, the flags), without a copy of
        the graph: a hybrid run's state on the GPU (:mod:`.home`), whose SpMV its part runs over
        the rows it holds. ``step`` is not available.

        Parameters
        ----------
        G : Graph
            Its host degrees are copied.
        program : Program
        values : dict
            The run's parameter values.
        push_offsets : list of numpy.ndarray
            The host offsets of the lists a push reads along each way.

        Returns
        -------
        CudaEngine
        """
        import cupy

        self = cls.__new__(cls)
        degrees = [cupy.asarray(np.diff(offsets)) for offsets in push_offsets]
        odeg = cupy.asarray(G.out_degree, dtype=cupy.int32)
        ideg = cupy.asarray(G.in_degree, dtype=cupy.int32)
        self._vertices(G.n, program, values, degrees, odeg, ideg, None, None)
        return self

    def _vertices(self, n, program, values, degrees, odeg, ideg, g_off, g_idx):
        """The vertex arrays, the flags and the code of send and apply, from each way's push
        degrees (device arrays), the out- and in-degrees and the lists common(a, b) reads."""
        import cupy

        self.program, self.n, self.way_count = program, n, len(degrees)
        self.can_push = isinstance(program.reduce, str)
        #: the arcs a push from each vertex reads, along every way
        self.push_degree = sum(degrees)
        self.st = [cupy.zeros(n, f.dtype) for f in program.state]
        self.ms = [cupy.zeros(n, f.dtype) for f in program.message]
        self.tt = [cupy.zeros(n, _wide(f.dtype)) for f in program.message]
        self.active = cupy.zeros(n, cupy.uint8)
        self.received = cupy.zeros(n, cupy.int32)
        self.arrays = {f"st{i}": a for i, a in enumerate(self.st)}
        self.arrays |= {f"ms{i}": a for i, a in enumerate(self.ms)}
        self.arrays |= {f"tt{i}": a for i, a in enumerate(self.tt)}
        self.arrays |= {"active": self.active, "received": self.received}
        self.arrays |= {"odeg": odeg, "ideg": ideg, "gn": np.int32(n)}
        self.arrays |= {"g_off": g_off, "g_idx": g_idx}
        self.arrays |= {f"g_deg{w}": d for w, d in enumerate(degrees)}
        self.arrays |= {f"p_{k}": x for k, x in values.items()}
        listing = self.can_push and program.senders != "all"
        #: the bitmaps the flags set: the senders a push lists, the vertices a pull reads
        self.bitmaps = ["g_sending"] * listing + ["g_hearing"] * program.listens
        self.arrays |= {name: cupy.zeros((n + 31) // 32, cupy.uint32) for name in self.bitmaps}
        self.send_code = _send_code(program, guarded=program.senders != "all")
        self.apply_code = _apply_code(program)
        self.flags, self.terms = _flag_code(program, len(degrees), listing)
        self.sums = self.way_arcs = self.listening = None

    def _compute(self, frontier, statement, iteration):
        _run_compute(self.n, self.arrays, frontier, statement, iteration)

    def _flagged(self, statement, iteration):
        """`statement` over every vertex, then the flags and their sums (kept for `actives`)."""
        from ..operators import compute_sums

        for name in self.bitmaps:
            self.arrays[name].fill(0)
        op = f"{statement} {self.flags}"
        params = _named(self.arrays | {"giter": np.int32(iteration)}, op, *self.terms)
        self.sums = compute_sums(None, self.terms, op=op, params=params, n=self.n)

    def init(self, state):
        """Set the starting state (`state`, or the program's init) and the starting actives.

        Parameters
        ----------
        state : list of numpy.ndarray or None
            One host array per state field; None: the program's `init`.
        """
        import cupy

        at_v = self.program.code(_BASE, state="st{i}[v]")
        p = self.program
        self._compute(
            None,
            " ".join(
                f"st{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
                for i, (f, e) in enumerate(zip(p.state, p.init, strict=True))
            ),
            0,
        )
        for mine, given in zip(self.st, state or (), strict=False):
            mine[:] = cupy.asarray(given)
        self._flagged(f"active[v] = ({p.start.cuda(at_v)}) ? 1 : 0;", 0)

    def actives(self):
        """The active vertices' count and push arcs, read from the last flags' sums (the one sync
        of an iteration).

        Returns
        -------
        Active
            Their count and the arcs a push from them reads along every way; no ids.
        """
        sums = [int(x) for x in self.sums.get()]
        self.way_arcs = sums[1 : 1 + self.way_count]
        if self.program.listens:
            self.listening = sums[-1]
        return Active(sums[0], sum(self.way_arcs))

    def _listed(self, bits, count):
        """The vertices whose bits are set in the bitmap `bits` (there are `count`), as a sparse
        Frontier (in range: no check)."""
        from ..frontier import Frontier

        return Frontier(self.n, bitmap=self.arrays[bits], length=count).to_sparse()

    def step(self, active, iteration, direction):
        """One iteration from the active vertices: send, SpMV, apply.

        Parameters
        ----------
        active : Active
            The active vertices (:meth:`actives`).
        iteration : int
            The iteration, 0 first.
        direction : {"pull", "push"}
        """
        push = direction == "push"
        senders = None  # every vertex
        if push and self.program.senders != "all":
            senders = self._listed("g_sending", active.count)
        self._compute(None, self.send_code, iteration)
        if push:
            listeners = None
        else:
            listeners = self._listed("g_hearing", self.listening) if self.program.listens else None
        ways = [(graph, senders if push else None) for graph in self.ways]
        arcs = self.way_arcs if senders is not None else None
        self.spmv(ways, direction, listeners=listeners, arcs=arcs)
        self._flagged(self.apply_code, iteration)

    def state(self):
        """The state, copied to the host.

        Returns
        -------
        list of numpy.ndarray
            One array per state field.
        """
        return [a.get() for a in self.st]


def _flag_code(p, ways, listing):
    """(the statement over v that flags v where a later step lists it, the terms summed beside it:
    active vertices, each way's push arcs from them, and, where the program listens, the
    vertices that listen next). `listing`: a push lists its senders (the active vertices' bits
    in ``g_sending``); the listeners' bits go to ``g_hearing``."""
    terms = ["(double)active[v]"] + [f"active[v] ? (double)g_deg{w}[v] : 0.0" for w in range(ways)]
    code = []
    if listing:
        code.append("if (active[v]) atomicOr(&g_sending[v >> 5], 1u << (v & 31));")
    if p.listens:
        at_v = p.code(_BASE, state="st{i}[v]")
        code.append(f"const bool g_hears = ({p.listen.cuda(at_v)});")
        code.append("if (g_hears) atomicOr(&g_hearing[v >> 5], 1u << (v & 31));")
        terms.append("g_hears ? 1.0 : 0.0")
    return " ".join(code), terms


def _send_code(p, guarded=False):
    """The statement over v that writes each message field ``ms{i}[v]``; `guarded`: for the
    active vertices only (the others' messages are never read)."""
    at_v = p.code(_BASE, state="st{i}[v]")
    writes = " ".join(
        f"ms{i}[v] = ({CTYPES[f.dtype]})({e.cuda(at_v)});"
        for i, (f, e) in enumerate(zip(p.message, p.send, strict=True))
    )
    return f"if (active[v]) {{ {writes} }}" if guarded else writes


def _apply_code(p):
    """The statement over v that applies a vertex's totals: its state where it received and
    listens, and whether it is active next."""
    old = p.code(_BASE, state="o{i}", total="tt{i}[v]")
    new = p.code(_BASE, state="n{i}", old="o{i}", total="tt{i}[v]")
    olds = " ".join(f"{CTYPES[f.dtype]} o{i} = st{i}[v];" for i, f in enumerate(p.state))
    body = [
        f"{CTYPES[f.dtype]} n{i} = ({CTYPES[f.dtype]})({e.cuda(old)});"
        for i, (f, e) in enumerate(zip(p.state, p.apply, strict=True))
    ]
    body += [f"st{i}[v] = n{i};" for i in range(len(p.state))]
    body.append(f"active[v] = ({p.active.cuda(new)}) ? 1 : 0;")
    return (
        f"active[v] = 0; if (received[v]) {{ {olds} "
        f"if ({p.listen.cuda(old)}) {{ {' '.join(body)} }} }}"
    )


def _ways(dg, program, directed):
    """The device graphs messages travel along: dg, its reverse, or both (one when undirected)."""
    ways = {"out": [dg], "in": [dg.reverse()], "both": [dg, dg.reverse()]}
    return ways[program.direction][: 2 if directed else 1]
